"""The vLLM rulebook: every decision of ``VllmConfig.__post_init__`` and the hooks it calls.

One module per config area; each rule is a small pure function with a
declarative header (see :mod:`postinit.engine`). :func:`rulebook` collects
them all, compiles and validates them once per process.

Phases, in vLLM's order (vLLM main d7fb10c57):

``model_config``  ``ModelConfig.__post_init__`` derivations from the model's config.json
``engine_args``   ``EngineArgs.create_engine_config`` defaults (``vllm serve`` / ``LLM(...)`` only)
``sub_configs``   the other sub-configs' own ``__post_init__``s
``model``         step 2, ``try_verify_and_update_config``
``verify``        steps 3-6
``core``          steps 7-16
``platform``      step 17, the platform's ``check_and_update_config``
``finalize``      steps 18-24
``validate``      step 25, the after-validator

This package is the seed's catalogue and knows no other version. Other vLLM versions
are deltas over it (:mod:`postinit.rules.versions`, which imports this package, never
the reverse at import time): ``rulebook("0.11.1")`` is the seed's rulebook edited by
rule id as ``postinit/rules/v0_11_1.py`` declares. ``rulebook``, ``groups`` and
``version_rules`` are :mod:`postinit.rules.versions`' names, served here on first use.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

from postinit.engine import Group, PathSpace, Rule, Semantics, rule_of
from postinit.engine._lazy import lazy_getattr
from postinit.rules import (
    cache,
    compilation,
    cudagraph,
    device,
    engine_args,
    finalize,
    kv_events,
    kv_transfer,
    load,
    lora,
    model_config,
    models,
    observability,
    observed,
    parallel,
    platforms,
    scheduler,
    speculative,
    structured_outputs,
    validate,
    verify,
)
from postinit.rules.platforms import cpu, cuda, rocm
from postinit.schema import DraftModel, Env, Platform, Usage, VersionFacts, VllmConfig

if TYPE_CHECKING:
    from postinit.rules.versions import groups, rulebook, version_rules

__all__ = ["MODULES", "PHASES", "clear_caches", "groups", "paths", "rulebook", "seed_groups", "seed_rules", "staged",
           "version_rules"]

PHASES = (
    "model_config",
    "engine_args",
    "sub_configs",
    "model",
    "verify",
    "core",
    "platform",
    "finalize",
    "validate",
)

MODULES = (
    model_config,
    models,
    engine_args,
    device,
    cache,
    parallel,
    scheduler,
    speculative,
    lora,
    structured_outputs,
    compilation,
    cudagraph,
    kv_events,
    kv_transfer,
    observability,
    load,
    verify,
    cuda,
    rocm,
    cpu,
    platforms,
    finalize,
    validate,
)
"""One module per config area (its rules of every phase; ``quirk.*`` rules live with the area they are
about); ``finalize`` holds VllmConfig's own steps 1/21 and the order of steps 18-24."""


@functools.cache
def paths() -> PathSpace:
    """The flat path space: ``VllmConfig``'s fields plus ``platform.*``, ``env.*``, ``usage.*``, ``version.*`` and
    ``draft.*`` (the speculative draft checkpoint's) facts."""
    return PathSpace.from_model(VllmConfig, mounts={"platform": Platform, "env": Env, "usage": Usage,
                                                          "version": VersionFacts, "draft": DraftModel})


SEMANTICS: dict[str, Semantics] = {"vllm": "ordered"}
"""The vLLM rulebook's name for the engine's statement-order semantics (``semantics="vllm"``)."""


@functools.cache
def seed_groups() -> tuple[Group, ...]:
    """Every group (``first_match`` / ``all_of`` statement, ``sequence``) declared in :data:`MODULES`."""
    found: dict[str, Group] = {}
    for module in MODULES:
        for value in vars(module).values():
            if isinstance(value, Group):
                found.setdefault(value.id, value)
    return tuple(found.values())


@functools.cache
def seed_rules() -> tuple[Rule, ...]:
    """Every rule of :data:`MODULES`, :func:`staged`: the seed commit's rules."""
    found: dict[int, Rule] = {}  # by identity: a rule imported into two modules is one rule, while two
    for module in MODULES:        # different rules with one id still reach Rulebook's duplicate check
        for value in vars(module).values():
            r = rule_of(value)
            if r is not None and id(r) not in found:
                found[id(r)] = staged(r)
    return tuple(found.values())


def staged(r: Rule) -> Rule:
    """``r`` with ``stage`` and ``rank``: where and when vLLM raises its violation.

    (``observed.stage_of`` and ``observed.rank_of``: the stage names the vLLM object, the rank the
    rule's place in vLLM's statement order, which orders the rules of a phase the data leaves free.)
    """
    return dataclasses.replace(r, stage=observed.stage_of(r), rank=observed.rank_of(r))


_VERSIONED = {"groups", "rulebook", "version_rules"}
__getattr__ = lazy_getattr(__name__, globals(), _VERSIONED, "postinit.rules.versions")


def clear_caches() -> None:
    """Empty the memo caches of the rules' pure helpers (registry lookups, capture-size plans, padding tables).

    Results never depend on them; a benchmark calls this to time a first resolution, and a
    long-running process may call it to give the memory back.
    """
    for fn in (model_config._match, model_config._normalize, cudagraph._padding):
        fn.cache_clear()
    cudagraph._PLANS.clear()
