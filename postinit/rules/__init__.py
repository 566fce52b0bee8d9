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
"""

from __future__ import annotations

import dataclasses
import functools

from postinit.engine import Group, PathSpace, Rule, Rulebook, rule_of
from postinit.rules import (
    cache,
    compilation,
    cudagraph,
    device,
    engine_args,
    finalize,
    kv_events,
    kv_transfer,
    lora,
    model_config,
    models,
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
from postinit.schema import Env, Platform, Usage, VllmConfig

__all__ = ["MODULES", "PHASES", "clear_caches", "groups", "paths", "rulebook"]

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
    """The flat path space: ``VllmConfig``'s fields plus ``platform.*``, ``env.*`` and ``usage.*`` facts."""
    return PathSpace.from_model(VllmConfig, mounts={"platform": Platform, "env": Env, "usage": Usage})


@functools.cache
def rulebook() -> Rulebook:
    """The compiled vLLM rulebook (built once per process; immutable).

    Its phase orders are cached on disk (``Rulebook(cache=True)``): a process whose
    rule headers match an earlier one's skips networkx entirely.
    """
    return Rulebook(_staged_rules(), paths=paths(), phases=PHASES, name="vllm", cache=True, groups=groups())


def groups() -> list[Group]:
    """Every group (``first_match`` / ``all_of`` statement, ``sequence``) declared in :data:`MODULES`."""
    found: dict[str, Group] = {}
    for module in MODULES:
        for value in vars(module).values():
            if isinstance(value, Group):
                found.setdefault(value.id, value)
    return list(found.values())


def _staged_rules() -> list[Rule]:
    """Every rule of :data:`MODULES` with ``stage`` and ``rank``: where and when vLLM raises its violation.

    (``observed.stage_of`` and ``observed.rank_of``: the stage names the vLLM object, the rank the
    rule's place in vLLM's statement order, which orders the rules of a phase the data leaves free.)
    """
    found: dict[int, Rule] = {}  # by identity: a rule imported into two modules is one rule, while two
    for module in MODULES:        # different rules with one id still reach Rulebook's duplicate check
        for value in vars(module).values():
            r = rule_of(value)
            if r is not None and id(r) not in found:
                found[id(r)] = dataclasses.replace(r, stage=observed.stage_of(r), rank=observed.rank_of(r))
    return list(found.values())


def clear_caches() -> None:
    """Empty the memo caches of the rules' pure helpers (registry lookups, capture-size plans, padding tables).

    Results never depend on them; a benchmark calls this to time a first resolution, and a
    long-running process may call it to give the memory back.
    """
    for fn in (model_config._match, model_config._normalize, cudagraph._padding):
        fn.cache_clear()
    cudagraph._PLANS.clear()
