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

Other vLLM versions are deltas over this rulebook (:mod:`postinit.rules.versions`):
``rulebook("0.11.1")`` is the seed's rulebook edited by rule id as
``postinit/rules/v0_11_1.py`` declares.
"""

from __future__ import annotations

import dataclasses
import functools

from postinit.engine import Group, PathSpace, Rule, Rulebook, Semantics, rule_of
from postinit.errors import RuleDeclarationError, UnknownPathError
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
    versions,
)
from postinit.rules.platforms import cpu, cuda, rocm
from postinit.schema import Env, Platform, Usage, VllmConfig

__all__ = ["MODULES", "PHASES", "clear_caches", "groups", "paths", "rulebook", "version_rules"]

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


SEMANTICS: dict[str, Semantics] = {"vllm": "ordered"}
"""The vLLM rulebook's name for the engine's statement-order semantics (``semantics="vllm"``)."""


def rulebook(version: str = versions.DEFAULT_VERSION) -> Rulebook:
    """The compiled vLLM rulebook of ``version`` (default: the seed commit), built once per process; immutable.

    Its phase orders are cached on disk (``Rulebook(cache=True)``): a process whose
    rule headers match an earlier one's skips networkx entirely.
    """
    return _rulebook(versions.version_name(version))


@functools.cache
def _rulebook(name: str) -> Rulebook:
    root = versions.get(name).parent is None
    return Rulebook(version_rules(name), paths=paths(), phases=PHASES, name="vllm" if root else f"vllm-{name}",
                    cache=True, groups=groups(name), semantics_aliases=SEMANTICS)


def groups(version: str = versions.DEFAULT_VERSION) -> list[Group]:
    """Every group (``first_match`` / ``all_of`` statement, ``sequence``) of ``version``'s rulebook.

    The seed's are declared in :data:`MODULES`; a later version's are its parent's, without
    the rules and groups its delta drops, with the groups it declares (by id) replaced or added.
    """
    return list(_version_groups(versions.version_name(version)))


@functools.cache
def _version_groups(name: str) -> tuple[Group, ...]:
    v = versions.get(name)
    if v.parent is None:
        found: dict[str, Group] = {}
        for module in MODULES:
            for value in vars(module).values():
                if isinstance(value, Group):
                    found.setdefault(value.id, value)
        return tuple(found.values())
    delta = versions.delta(name)
    where = v.delta_module or name
    declared = {g.id: g for g in delta.groups}
    parent = {g.id: g for g in _version_groups(v.parent)}
    for gid in delta.drop_groups:
        if gid not in parent:
            raise RuleDeclarationError(f"{where} drops group '{gid}', which {v.parent} does not have", rule=gid)
    gone = set(delta.drop) | set(delta.drop_groups)
    out: dict[str, Group] = {}
    for gid, g in parent.items():
        if gid in delta.drop_groups:
            continue
        if gid in declared:
            out[gid] = declared[gid]
            continue
        # members by id only: the version's rules (replacements included) come from version_rules
        out[gid] = dataclasses.replace(g, members=tuple(m for m in g.members if m not in gone), rules=())
    out.update((gid, g) for gid, g in declared.items() if gid not in parent)
    while True:  # a group left with fewer than two members dissolves (and leaves the sequences holding it)
        small = {gid for gid, g in out.items() if len(g.members) < 2}
        if not small:
            return tuple(out.values())
        out = {gid: dataclasses.replace(g, members=tuple(m for m in g.members if m not in small))
               for gid, g in out.items() if gid not in small}


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
                found[id(r)] = _staged(r)
    return list(found.values())


def _staged(r: Rule) -> Rule:
    return dataclasses.replace(r, stage=observed.stage_of(r), rank=observed.rank_of(r))


@functools.cache
def _version_rules(name: str) -> tuple[Rule, ...]:
    v = versions.get(name)
    if v.parent is None:
        return tuple(_staged_rules())
    delta = versions.delta(name)
    rules = {r.id: r for r in _version_rules(v.parent)}
    where = v.delta_module or name

    def header(fn: object, what: str) -> Rule:
        r = rule_of(fn)
        if r is None:
            raise RuleDeclarationError(f"{where}: {fn!r} in {what} is not a rule (decorate it with @rule)")
        return r

    for rid, reason in delta.drop.items():
        if rid not in rules:
            raise RuleDeclarationError(f"{where} drops rule '{rid}', which {v.parent} does not have", rule=rid)
        if not reason.strip():
            raise RuleDeclarationError(f"{where} drops rule '{rid}' without saying why", rule=rid)
        del rules[rid]
    for fn in delta.replace:
        r = header(fn, "replace")
        if r.id not in rules:
            raise RuleDeclarationError(f"{where} replaces rule '{r.id}', which {v.parent} does not have; "
                                       "declare it in add", rule=r.id)
        rules[r.id] = _staged(r)
    for fn in delta.add:
        r = header(fn, "add")
        if r.id in rules:
            raise RuleDeclarationError(f"{where} adds rule '{r.id}', which {v.parent} already has; "
                                       "declare it in replace", rule=r.id)
        rules[r.id] = _staged(r)
    for rid, extra in delta.after.items():
        if rid not in rules:
            raise RuleDeclarationError(f"{where} orders rule '{rid}', which this version does not have", rule=rid)
        rules[rid] = dataclasses.replace(rules[rid], after=(*rules[rid].after, *extra))
    gone = set(delta.drop)
    out = []
    for r in rules.values():
        if set(r.after) & gone or set(r.feedback) & gone:  # ordering hints to a dropped rule go with it
            r = dataclasses.replace(r, after=tuple(a for a in r.after if a not in gone),
                                    feedback=tuple(a for a in r.feedback if a not in gone))
        out.append(r)
    return tuple(out)


def version_rules(version: str = versions.DEFAULT_VERSION) -> list[Rule]:
    """The rules of ``version``: the seed's, edited by every delta down to it (by rule id).

    Besides the rulebook's own checks, no rule may read or write a field the version does not
    have (:func:`postinit.rules.versions.absent_paths`), and the delta must agree with the
    schema's and the flag table's ``since``/``until`` marks.
    """
    name = versions.version_name(version)
    problems = versions.check_delta(name)
    if problems:
        raise RuleDeclarationError(f"version {name}: " + "; ".join(problems))
    rules = list(_version_rules(name))
    absent = versions.absent_paths(name)
    for r in rules:
        for what, used in (("reads", r.reads), ("writes", r.writes)):
            for p in used:
                if p in absent:
                    raise UnknownPathError(
                        f"rule {r.id} ({r.location}) {what} '{p}', a field vLLM {name} does not have; "
                        f"replace or drop the rule in {versions.get(name).delta_module or 'the delta'}",
                        rule=r.id, path=p)
    return rules


def clear_caches() -> None:
    """Empty the memo caches of the rules' pure helpers (registry lookups, capture-size plans, padding tables).

    Results never depend on them; a benchmark calls this to time a first resolution, and a
    long-running process may call it to give the memory back.
    """
    for fn in (model_config._match, model_config._normalize, cudagraph._padding):
        fn.cache_clear()
    cudagraph._PLANS.clear()
