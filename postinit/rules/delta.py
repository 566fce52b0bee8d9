"""What a vLLM version changes relative to its parent, as data: :class:`Delta` and :func:`patch`.

A version's delta module (``postinit/rules/v0_11_1.py``) declares one ``DELTA``. Most
differences between two vLLM releases are one value: a default, a literal, an exception
type, a message, a constant. Each is one line of data here, never a copy of a rule:

* a **fact** (``facts={"capture_sizes_clip": True}``): a constant every rule reads as
  ``version.<name>`` (:class:`postinit.schema.VersionFacts`), like ``platform.*``;
* a **patch** (``patch("cache.fast-prefill-eagle", error="ValueError", source=...)``): the
  parent's rule with other values for its parameters (its function's keyword-only
  arguments) and/or another header ``source`` / ``message`` / ``title`` / ``level``.

Only where the logic differs does a delta **replace** a rule's function (same id), **add** a
rule (new id) or **drop** one (by id, with the reason and the vLLM source).

This module imports nothing of :mod:`postinit.rules`: a delta module imports it, and
:mod:`postinit.rules.versions` compiles the deltas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from postinit.engine import Group, Level, rule_of

__all__ = ["Delta", "Patch", "combine", "patch"]


@dataclass(frozen=True)
class Patch:
    """One parent rule with other parameter values and/or another header (see :func:`patch`)."""

    rule: str
    """The id of the parent's rule."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Parameter name -> this version's value (the rule function's keyword-only arguments)."""
    header: Mapping[str, Any] = field(default_factory=dict)
    """Header field -> this version's value (``source``, ``message``, ``title``, ``level``, ``phase``)."""
    why: str = ""
    """What changed and where vLLM changed it, for docs/versions.md (optional: the values speak)."""



def patch(
    rule: str,
    *,
    why: str = "",
    source: str | None = None,
    message: str | None = None,
    title: str | None = None,
    level: Level | str | None = None,
    phase: str | None = None,
    **params: Any,
) -> Patch:
    """The parent's rule ``rule`` as this version has it: ``params`` are its parameters' new values.

    ``patch("cpu.env-shared-experts-stream", value="1", source="vllm/platforms/cpu.py ...; v0.11.1")``:
    vLLM 0.11.1 writes "1" where the seed wrote "0"; the rule's function is the seed's.
    ``phase``: the step where this version takes the same decision (vLLM 0.34.0 runs several model hooks at the
    end of ``ModelConfig.__post_init__`` instead of in ``VllmConfig``'s step 2).
    """
    header = {k: v for k, v in (("source", source), ("message", message), ("title", title),
                                ("level", Level(level) if level is not None else None), ("phase", phase))
              if v is not None}
    return Patch(rule=rule, params=params, header=header, why=why)


@dataclass(frozen=True)
class Delta:
    """What a version changes relative to its parent, as data (see the module docstring)."""

    facts: Mapping[str, Any] = field(default_factory=dict)
    """``version.*`` facts (:class:`~postinit.schema.VersionFacts` field -> value) that differ from the parent's."""
    patch: tuple[Patch, ...] = ()
    """Parent rules kept with other parameter values or header fields (:func:`patch`), one line each."""
    add: tuple[Callable[..., Any], ...] = ()
    """Rule functions (``@rule``) whose ids the parent does not have."""
    replace: tuple[Callable[..., Any], ...] = ()
    """Rule functions whose ids are the parent's rules they stand for (different logic, same question)."""
    drop: Mapping[str, str] = field(default_factory=dict)
    """Parent rule id -> why this version no longer makes that decision (with the vLLM source)."""
    groups: tuple[Group, ...] = ()
    """Groups (``first_match`` / ``all_of`` / ``sequence``) replacing the parent's of the same id, or new."""
    drop_groups: Mapping[str, str] = field(default_factory=dict)
    """Parent group id -> why this version no longer has it (its members stay, ungrouped, unless dropped)."""
    after: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Ordering hints added to kept parent rules (rule id -> ids it now runs after), where a new rule
    writes the same path and vLLM's statement order decides."""
    fields_added: tuple[str, ...] = ()
    """Schema paths this version has and its parent does not (``since=<this version>`` in the schema)."""
    fields_removed: tuple[str, ...] = ()
    """Schema paths the parent has and this version does not (``until=<parent>`` in the schema)."""
    flags_added: tuple[str, ...] = ()
    """``vllm serve`` flags (argparse destinations) this version accepts and its parent does not."""
    flags_removed: tuple[str, ...] = ()
    """Flags (argparse destinations) the parent accepts and this version does not."""
    hash: Callable[[Mapping[str, Any]], str] | None = None
    """``VllmConfig.compute_hash()`` over a resolved flat state with this version's factors (None: the parent's).
    The version string factor is the fact ``version.vllm_version``: a version whose factors are its parent's
    needs no hash function of its own."""
    sub_hashes: Callable[[Mapping[str, Any]], Mapping[str, str | None]] | None = None
    """Each sub-config's own hash as this version's vLLM computes it, keyed like the oracle's ``sub_hashes``
    (None: the parent's)."""
    hash_reason: Callable[[Mapping[str, Any]], str | None] | None = None
    """Why ``hash`` is not this version's vLLM's value for a resolved state, or None when it is (None: the
    parent's)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Dataclass defaults this version's vLLM declares differently from its parent: schema path -> value.
    Applied where the input does not set the field (its provenance says "vLLM <version>'s default")."""
    config_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Like ``defaults``, for a config built directly only (``VllmConfig(...)``): EngineArgs keeps its own
    default there (e.g. ``enable_prefix_caching``: None in EngineArgs, True in CacheConfig)."""
    notes: tuple[str, ...] = ()
    """Differences that are no rule's (facts every rule of the parent already handles the same way), for docs."""



def _rule_id(fn: Callable[..., Any]) -> str:
    r = rule_of(fn)
    return r.id if r is not None else repr(fn)


def combine(*parts: Delta, where: str = "the delta") -> Delta:
    """One version's delta declared in several modules (``delta_parts`` in versions.json), as one :class:`Delta`.

    The parts are areas of one version written side by side (e.g. vLLM 0.34.0's core configs and its
    model-specific configs): each declares what it changes, and no two may declare the same thing — a rule
    id patched, added, replaced or dropped twice, a group, a fact or a default given twice, two hash
    functions — which is refused with a :class:`ValueError` naming both (``where``: the version, for the
    message). ``after`` hints of one rule are joined; names (fields, flags) are joined without repeats.
    """
    if len(parts) == 1:
        return parts[0]
    seen: dict[str, int] = {}

    def claim(kind: str, key: str, i: int) -> None:
        k = f"{kind} {key!r}"
        if k in seen and seen[k] != i:
            raise ValueError(f"{where}: parts {seen[k]} and {i} both declare {k}")
        seen[k] = i

    rules_of: dict[str, int] = {}
    for i, d in enumerate(parts):
        for rid in ([p.rule for p in d.patch] + [_rule_id(f) for f in (*d.add, *d.replace)] + list(d.drop)):
            if rid in rules_of and rules_of[rid] != i:
                raise ValueError(f"{where}: parts {rules_of[rid]} and {i} both edit rule {rid!r}")
            rules_of[rid] = i
        for kind, keys in (("group", [g.id for g in d.groups]), ("dropped group", list(d.drop_groups)),
                           ("fact", list(d.facts)), ("default", list(d.defaults)),
                           ("config default", list(d.config_defaults))):
            for key in keys:
                claim(kind, key, i)
        for kind in ("hash", "sub_hashes", "hash_reason"):
            if getattr(d, kind) is not None:
                claim(kind, "function", i)

    def names(attr: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for d in parts for n in getattr(d, attr)))

    after: dict[str, tuple[str, ...]] = {}
    for d in parts:
        for rid, extra in d.after.items():
            after[rid] = (*after.get(rid, ()), *extra)
    return Delta(
        facts={k: v for d in parts for k, v in d.facts.items()},
        patch=tuple(p for d in parts for p in d.patch),
        add=tuple(f for d in parts for f in d.add),
        replace=tuple(f for d in parts for f in d.replace),
        drop={k: v for d in parts for k, v in d.drop.items()},
        groups=tuple(g for d in parts for g in d.groups),
        drop_groups={k: v for d in parts for k, v in d.drop_groups.items()},
        after=after,
        fields_added=names("fields_added"),
        fields_removed=names("fields_removed"),
        flags_added=names("flags_added"),
        flags_removed=names("flags_removed"),
        hash=next((d.hash for d in parts if d.hash is not None), None),
        sub_hashes=next((d.sub_hashes for d in parts if d.sub_hashes is not None), None),
        hash_reason=next((d.hash_reason for d in parts if d.hash_reason is not None), None),
        defaults={k: v for d in parts for k, v in d.defaults.items()},
        config_defaults={k: v for d in parts for k, v in d.config_defaults.items()},
        notes=tuple(n for d in parts for n in d.notes),
    )
