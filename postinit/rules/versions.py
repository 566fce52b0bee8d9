"""The vLLM versions postinit models, and what each one changes relative to its parent.

The root is the seed commit (vLLM main ``d7fb10c57``), whose rulebook is every
rule of :data:`postinit.rules.MODULES`. Every other version is a small
:class:`Delta` over its parent, declared as data in one module of its own
(``postinit/rules/v0_11_1.py``):

* the rules it **adds**, **replaces** (a rule with the id of the parent's rule it
  stands for) and **drops** (by id, each with the reason and the vLLM source);
* the schema **fields** it adds and removes (the one pydantic schema holds every
  version's fields, marked ``since``/``until``; the delta lists the same paths
  and :func:`check_delta` holds the two to each other);
* the command-line **flags** it adds and removes (``FlagSpec.since``/``until``
  in :mod:`postinit.schema.loaders.argv`, listed by argparse destination);
* its **environment-variable table** (``postinit/schema/data/envs-<name>.json``,
  generated from that version's ``vllm/envs.py`` by
  ``tests/golden/gen_env_table.py``);
* its **hash** (``VllmConfig.compute_hash()`` with that version's factors).

Defaults that differ are rules of kind ``default`` in the delta (a dataclass
default that changed is a decision visible in the trace: "SchedulerConfig's
default max_num_batched_tokens is 2048 in vLLM 0.11.1").

:func:`postinit.rules.rulebook` compiles and caches one rulebook per version,
with the same static checks as the seed's, plus one more: no rule of a version
reads or writes a field that version does not have.

Nothing here imports a delta module until a version's rules are asked for.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from postinit.engine import Group
from postinit.errors import InvalidValueError, did_you_mean, show
from postinit.schema.loaders import argv as _argv

__all__ = [
    "DEFAULT_VERSION",
    "VERSIONS",
    "Delta",
    "Version",
    "absent_flags",
    "absent_paths",
    "chain",
    "defaults",
    "delta",
    "get",
    "has_field",
    "names",
    "version_name",
]

DEFAULT_VERSION = "d7fb10c57"
"""The version a request names when it names none: the seed commit (postinit's original specification)."""


@dataclass(frozen=True)
class Delta:
    """What a version changes relative to its parent, as data (see the module docstring)."""

    add: tuple[Callable[..., Any], ...] = ()
    """Rule functions (``@rule``) whose ids the parent does not have."""
    replace: tuple[Callable[..., Any], ...] = ()
    """Rule functions whose ids are the parent's rules they stand for (a different decision, same question)."""
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
    """``VllmConfig.compute_hash()`` over a resolved flat state with this version's factors (None: the parent's)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Dataclass defaults this version's vLLM declares differently from its parent: schema path -> value.
    Applied where the input does not set the field (its provenance says "vLLM <version>'s default")."""
    config_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Like ``defaults``, for a config built directly only (``VllmConfig(...)``): EngineArgs keeps its own
    default there (e.g. ``enable_prefix_caching``: None in EngineArgs, True in CacheConfig)."""
    notes: tuple[str, ...] = ()
    """Differences that are no rule's (facts every rule of the parent already handles the same way), for docs."""


@dataclass(frozen=True)
class Version:
    """One modelled vLLM version: where its rules come from and what it was checked against."""

    name: str
    title: str
    parent: str | None
    oracle: str
    """The real vLLM this version's rulebook was compared with, and the golden corpus that holds its answers."""
    source: str
    """Where the vLLM source the rules cite is found (file paths in rule headers are relative to it)."""
    env_table: str
    """``postinit/schema/data/envs-<env_table>.json``: every variable of its ``vllm/envs.py``."""
    golden: str
    """Folder of ``tests/golden`` holding real vLLM's answers for this version."""
    delta_module: str | None = None
    """The module that declares ``DELTA`` (None for the root)."""
    aliases: tuple[str, ...] = ()
    """Other spellings a request may use (``v0.11.1``, the full commit hash)."""
    status: str | None = None
    """None for a version modelled completely; otherwise what is measured of a partial model (its golden
    parity). Every resolution as a partial version carries a note saying so."""


PARTIAL_0_34_0 = ("partial: 239/516 golden cases match real vLLM 0.34.0 field by field "
                  "(python -m tests.golden.parity --vllm-version 0.34.0)")
"""The measured state of the 0.34.0 model (updated with each landing of issue 29)."""

VERSIONS: dict[str, Version] = {
    "d7fb10c57": Version(
        name="d7fb10c57",
        title="vLLM main d7fb10c57 (2025-10-29, between v0.11.0 and v0.11.1): the seed commit",
        parent=None,
        oracle="real vLLM: commit d7fb10c57's Python code over the vllm==0.11.1 wheel "
        "(tests/golden/expected)",
        source="github.com/vllm-project/vllm at d7fb10c574a3a9cbf596bec086bf02603b71c5c8",
        env_table="d7fb10c57",
        golden="expected",
        aliases=("d7fb10c574a3a9cbf596bec086bf02603b71c5c8", "seed"),
    ),
    "0.11.1": Version(
        name="0.11.1",
        title="vLLM 0.11.1 (PyPI release, 2025-11-18)",
        parent="d7fb10c57",
        oracle="real vLLM: the official vllm==0.11.1 wheel (tests/golden/expected-0.11.1)",
        source="the vllm==0.11.1 wheel from PyPI (site-packages/vllm/)",
        env_table="0.11.1",
        golden="expected-0.11.1",
        delta_module="postinit.rules.v0_11_1",
        aliases=("v0.11.1",),
    ),
    "0.34.0": Version(
        name="0.34.0",
        title="vLLM 0.34.0 (PyPI release; partial model, see `postinit versions`)",
        parent="0.11.1",
        oracle="real vLLM: the official vllm==0.34.0 wheel (tests/golden/expected-0.34.0)",
        source="the vllm==0.34.0 wheel from PyPI (site-packages/vllm/)",
        env_table="0.34.0",
        golden="expected-0.34.0",
        delta_module="postinit.rules.v0_34_0",
        aliases=("v0.34.0",),
        status=PARTIAL_0_34_0,
    ),
}
"""Every modelled version by name, parents before children."""


@functools.cache
def _spellings() -> dict[str, str]:
    out: dict[str, str] = {}
    for v in VERSIONS.values():
        for text in (v.name, *v.aliases):
            out[text.lower()] = v.name
    return out


def version_name(text: str, where: str = "vllm_version") -> str:
    """The modelled version a request names (``"0.11.1"``, ``"v0.11.1"``, a commit hash or its prefix ≥ 7).

    ``where`` names the input in the error (``vllm_version``, ``--to``, ...).
    """
    if not isinstance(text, str):
        raise InvalidValueError(f"{where} must be a string, got {type(text).__name__}", path=where, value=None)
    key = text.strip().lower()
    found = _spellings().get(key)
    if found is None and len(key) >= 7 and all(c in "0123456789abcdef" for c in key):
        hits = {name for spelling, name in _spellings().items() if spelling.startswith(key)}
        found = hits.pop() if len(hits) == 1 else None
    if found is None:
        raise InvalidValueError(
            f"{where} {show(text)} is not a modelled vLLM version; modelled: {', '.join(VERSIONS)} "
            f"(see `postinit versions`).{did_you_mean(key, _spellings())}",
            path=where, value=text)
    return found


def get(name: str) -> Version:
    """The :class:`Version` a request names (any spelling :func:`version_name` accepts)."""
    return VERSIONS[version_name(name)]


def names() -> tuple[str, ...]:
    """The modelled versions, parents first."""
    return tuple(VERSIONS)


@functools.cache
def chain(name: str) -> tuple[Version, ...]:
    """The version and its ancestors, root first."""
    v = get(name)
    return (*chain(v.parent), v) if v.parent is not None else (v,)


@functools.cache
def delta(name: str) -> Delta:
    """The version's :class:`Delta` (an empty one for the root); imports its module on first use."""
    v = get(name)
    if v.delta_module is None:
        return Delta()
    found = importlib.import_module(v.delta_module).DELTA
    if not isinstance(found, Delta):  # pragma: no cover - a declaration error
        raise TypeError(f"{v.delta_module}.DELTA is not a Delta")
    return found


@functools.cache
def defaults(name: str, engine_args: bool = False) -> Mapping[str, Any]:
    """The dataclass defaults that differ from the schema's along the version's lineage (children win);
    ``engine_args``: for a config EngineArgs builds (without the ``config_defaults`` of a config built directly)."""
    out: dict[str, Any] = {}
    for v in chain(name):
        d = delta(v.name)
        out.update(d.defaults)
        if not engine_args:
            out.update(d.config_defaults)
    return out


def _lineage(name: str) -> tuple[str, ...]:
    return tuple(v.name for v in chain(name))


_argv.LINEAGE[:] = [_lineage]


def has_field(extra: Mapping[str, Any], name: str) -> bool:
    """Whether a schema field with metadata ``extra`` (``since``/``until``) exists in version ``name``."""
    lineage = {v.name for v in chain(name)}
    since = extra.get("since")
    if since is not None and since not in lineage:
        return False
    until = extra.get("until")
    return until is None or name in {v.name for v in chain(until)}


@functools.cache
def absent_paths(name: str) -> frozenset[str]:
    """The schema paths version ``name`` does not have (an input of one is dropped with a note)."""
    from postinit.rules import paths

    space = paths()
    name = version_name(name)
    return frozenset(p for p in space.paths if not has_field(space.info[p].extra, name))


@functools.cache
def absent_flags(name: str) -> frozenset[str]:
    """The ``vllm serve`` flags (argparse destinations) version ``name`` does not accept."""
    from postinit.schema.loaders.argv import FLAGS

    name = version_name(name)
    return frozenset(s.dest for s in FLAGS if not has_field({"since": s.since, "until": s.until}, name))


def check_delta(name: str) -> list[str]:
    """Where the version's declared delta and the schema / flag metadata disagree (empty when they agree)."""
    from postinit.rules import paths
    from postinit.schema.loaders.argv import FLAGS

    v = get(name)
    if v.parent is None:
        return []
    d = delta(v.name)
    space = paths()
    problems = []
    added = {p for p in space.paths if space.info[p].extra.get("since") == v.name}
    removed = {p for p in space.paths if space.info[p].extra.get("until") == v.parent}
    for what, declared, marked in (("fields_added", d.fields_added, added), ("fields_removed", d.fields_removed,
                                                                           removed)):
        for p in sorted(set(declared) ^ marked):
            side = "declared but not marked in the schema" if p in declared else "marked in the schema, not declared"
            problems.append(f"{v.name} {what}: {p} is {side}")
    flags_added = {s.dest for s in FLAGS if s.since == v.name}
    flags_removed = {s.dest for s in FLAGS if s.until == v.parent}
    for what, declared_flags, marked_flags in (("flags_added", d.flags_added, flags_added),
                                               ("flags_removed", d.flags_removed, flags_removed)):
        for f in sorted(set(declared_flags) ^ marked_flags):
            side = "declared but not marked in argv.FLAGS" if f in declared_flags else "marked in argv.FLAGS, not declared"
            problems.append(f"{v.name} {what}: {f} is {side}")
    return problems
