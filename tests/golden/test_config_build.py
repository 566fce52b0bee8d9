"""``Resolution.config`` is built by a generated builder (``postinit.engine._builder``), not by pydantic's
validation of the whole state: it must give exactly what validation gives, field by field and type by type.

* every golden case of every version (``-m deep``; a sample of each version by default): the builder's object
  equals pydantic's for the config and every mounted model (platform, env, usage, version, draft), or the
  builder gives up (and ``PathSpace.build`` then returns pydantic's answer itself);
* one leaf at a time set to probe values of every kind (ints, bools, floats, strings, enums, lists, dicts, None,
  out-of-range numbers): whenever the builder answers, pydantic accepts the state and builds the same object.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any

import pytest
from pydantic import BaseModel

from postinit.engine import FrozenDict, freeze
from postinit.errors import InputError
from postinit.rules import paths, versions
from postinit.schema import CUDAGraphMode
from postinit.schema.enums import CompilationMode
from tests.golden.corpus import GoldenCase, load_cases
from tests.golden.parity import run

VERSIONS = ("seed", "0.11.1", "0.34.0")
SAMPLE_EVERY = 40
"""The default suite builds every 40th case of each version; ``-m deep`` builds them all."""


def same(ours: Any, theirs: Any, where: str = "") -> str | None:
    """Where ``ours`` and ``theirs`` differ (types included, dict order included), or None."""
    if type(ours) is not type(theirs):
        return f"{where}: {type(ours).__name__} {ours!r:.80} != {type(theirs).__name__} {theirs!r:.80}"
    if isinstance(ours, BaseModel):
        for attr in ("__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
            if getattr(ours, attr) != getattr(theirs, attr):
                return f"{where}: {attr}"
        return same(ours.__dict__, theirs.__dict__, where)
    if dataclasses.is_dataclass(ours):
        return same(vars(ours), vars(theirs), where)
    if isinstance(ours, dict):
        if list(ours) != list(theirs):
            return f"{where}: keys {list(ours)} != {list(theirs)}"
        for k in ours:
            found = same(ours[k], theirs[k], f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(ours, (list, tuple, set, frozenset)):
        if len(ours) != len(theirs):
            return f"{where}: {len(ours)} items != {len(theirs)}"
        if isinstance(ours, (set, frozenset)):
            return None if ours == theirs else f"{where}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found = same(a, b, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs):
        return None
    return None if ours == theirs else f"{where}: {ours!r} != {theirs!r}"


def check_state(state: dict[str, Any], prefixes: tuple[str, ...] | None = None) -> tuple[int, int]:
    """Build every mounted model of ``state`` both ways; (answered by the builder, given up) — or fail."""
    space = paths()
    answered = gave_up = 0
    for prefix in prefixes if prefixes is not None else space.roots:
        try:
            validated: Any = space.build_validated(state, prefix)
        except Exception as e:  # pydantic refuses: the builder must not answer
            validated = e
        try:
            built = space.builder(prefix)(state)
        except Exception:  # the builder gives up: PathSpace.build answers pydantic's
            gave_up += 1
            if isinstance(validated, Exception):
                with pytest.raises(type(validated)):
                    space.build(state, prefix)
            else:
                assert same(space.build(state, prefix), validated) is None
            continue
        assert not isinstance(validated, Exception), f"{prefix!r}: the builder answered, pydantic says {validated}"
        answered += 1
        assert same(built, validated, prefix or "config") is None, same(built, validated, prefix or "config")
    return answered, gave_up


def _cases(variant: str, every: int) -> list[GoldenCase]:
    cases = load_cases(variant)
    return cases[::every]


def _version(variant: str) -> str:
    return versions.DEFAULT_VERSION if variant == "seed" else variant


def _corpus(variant: str, every: int) -> None:
    answered = gave_up = 0
    for gc in _cases(variant, every):
        try:
            r = run(gc, vllm_version=_version(variant))
        except InputError:
            continue  # refused at the door: no config to build
        state = dict(r.engine.state)
        a, g = check_state(state)
        answered, gave_up = answered + a, gave_up + g
        assert (r.config is not None) and same(r.config, _config_reference(state)) is None, gc.name
    assert answered > 5 * gave_up, (answered, gave_up)  # the builder answers nearly always


def _config_reference(state: dict[str, Any]) -> Any:
    """What ``Resolution.config`` was before the builder: validated, else constructed as it is."""
    from pydantic import ValidationError

    try:
        return paths().build_validated(state)
    except ValidationError:
        return paths().construct(state)


@pytest.mark.parametrize("variant", VERSIONS)
def test_builder_equals_validation_on_a_sample_of_the_corpus(variant: str) -> None:
    _corpus(variant, SAMPLE_EVERY)


@pytest.mark.deep
@pytest.mark.parametrize("variant", VERSIONS)
def test_builder_equals_validation_on_the_whole_corpus(variant: str) -> None:
    _corpus(variant, 1)


class _Probe(enum.Enum):
    A = "a"


PROBES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 7, 2**53, 2**53 + 1, 2**70, 0.0, 0.5, -2.5, float("nan"), float("inf"), "", "auto",
    "x" * 3, "fp8", "none", "NONE", "FULL", "PIECEWISE", "3", (), (1, 2), ("a", "b"), (1, "a"), ((1, 2),),
    FrozenDict(), FrozenDict({"a": 1}), FrozenDict({"a": (1,)}), FrozenDict({1: 2}), frozenset({"a"}),
    CUDAGraphMode.FULL, CUDAGraphMode.NONE, CompilationMode.VLLM_COMPILE, _Probe.A,
)


def _probe(path_filter: Any) -> int:
    base = dict(run(load_cases("seed", "01-*.json")[0]).engine.state)
    space = paths()
    leaves = [p for p, info in space.info.items() if not info.presence and path_filter(p)
              and not any(p.startswith(m + ".") for m in space.mounts)]
    checked = 0
    for path in leaves:
        for value in PROBES:
            state = {**base, path: freeze(value)}
            a, _ = check_state(state, ("",))
            checked += a
    return checked


def test_builder_is_sound_for_probe_values_on_some_leaves() -> None:
    """A leaf of each model of the Llama/H100 state, every probe value."""
    seen: set[str] = set()

    def first_of_each_model(path: str) -> bool:
        owner = path.rsplit(".", 1)[0] if "." in path else ""
        if owner in seen:
            return False
        seen.add(owner)
        return True

    assert _probe(first_of_each_model) > 0


@pytest.mark.deep
def test_builder_is_sound_for_probe_values_on_every_leaf() -> None:
    assert _probe(lambda path: True) > 0
