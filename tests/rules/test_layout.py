"""One module per config area: a rule's id prefix is its module's area (``quirk.*`` live with their area)."""

from __future__ import annotations

import pytest

from postinit.rules import MODULES, groups, seed_rules

EXCEPTIONS = {
    "model": "model_config",          # ModelConfig
    "engine-args": "engine_args",     # EngineArgs.create_engine_config
    "cuda": "platforms.cuda",
    "rocm": "platforms.rocm",
    "cpu": "platforms.cpu",
    "platform": "platforms",          # what the platforms decide alike
    "vllm": "finalize",               # VllmConfig's own steps 1/21 and the order of steps 18-24
}
"""Areas whose module is not named after them."""


def module_of_area(area: str) -> str:
    return EXCEPTIONS.get(area, area.replace("-", "_"))


@pytest.mark.parametrize("rule", sorted(seed_rules(), key=lambda r: r.id), ids=lambda r: r.id)
def test_rule_lives_in_its_areas_module(rule: object) -> None:
    """``scheduler.*`` in rules/scheduler.py, ``kv-events.*`` in rules/kv_events.py, ...; ids use dashes."""
    rid = rule.id  # type: ignore[attr-defined]
    area = rid.split(".", 1)[0]
    module = rule.fn.__module__.removeprefix("postinit.rules.")  # type: ignore[attr-defined]
    assert "_" not in area, f"{rid}: id prefixes use dashes"
    if area != "quirk":
        assert module == module_of_area(area), f"{rid} is in rules/{module}.py"


def test_groups_are_declared_in_their_areas_module() -> None:
    """A group's id prefix is the area of the module that declares it."""
    declared = {}
    for module in MODULES:
        for value in vars(module).values():
            if value in groups():
                declared.setdefault(value.id, module.__name__.removeprefix("postinit.rules."))
    assert declared and len(declared) == len(groups())
    for gid, module in declared.items():
        assert module == module_of_area(gid.split(".", 1)[0]), f"group {gid} is declared in rules/{module}.py"


def test_every_area_module_is_collected() -> None:
    """Every module holding rules is in MODULES (so the rulebook sees its groups too)."""
    names = {m.__name__.removeprefix("postinit.rules.") for m in MODULES}
    assert {r.fn.__module__.removeprefix("postinit.rules.") for r in seed_rules()} <= names
