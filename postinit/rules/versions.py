"""The vLLM versions postinit models: one :class:`Version` value each, resolved once at the door.

A request names its version by a string (``"0.11.1"``, ``"v0.11.1"``, a commit hash);
:class:`postinit.Request` turns it into a :class:`Version` when it is built
(:func:`version_name` / :func:`get` are the only lookups by string), and everything
after the door takes what differs by version from that object:

* its **rulebook** (:attr:`Version.rulebook`: the parent's rules edited by the delta);
* its **facts** (:attr:`Version.facts`, the ``version.*`` paths every rule may read:
  ``vllm.__version__`` for the hash, the architecture registry, the capture-size clip, ...);
* its **environment-variable table** (:attr:`Version.env_table`,
  ``postinit/schema/data/envs-<name>.json`` generated from that version's ``vllm/envs.py``);
* the **flags** its parser does not accept and the **schema paths** it does not have
  (:attr:`Version.absent_flags`, :attr:`Version.absent_paths`);
* its **hash** (:meth:`Version.hash`, ``VllmConfig.compute_hash()`` with its factors).

The list of versions is data, written once: ``postinit/rules/data/versions.json`` (the
CLI's choices, request validation, the HTTP schema, ``postinit versions``, the parity test
and ``docs/versions.md`` all derive from :data:`VERSIONS`). The root is the seed commit
(vLLM main ``d7fb10c57``), whose rulebook is every rule of :data:`postinit.rules.MODULES`.
Every other version is a :class:`~postinit.rules.delta.Delta` over its parent, declared
in a module of its own (``postinit/rules/v0_11_1.py``), imported when its rules are
first asked for. ``python -m postinit.rules.new_version`` writes a new version's files
(docs/writing-rules.md, "Adding a vLLM version").

This module imports :mod:`postinit.rules` (the seed's catalogue); that package never
imports this one at import time.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from postinit.engine import Group, Rule, Rulebook, rule_of, with_params
from postinit.errors import (
    InvalidValueError,
    RuleDeclarationError,
    UnknownPathError,
    did_you_mean,
    show,
)
from postinit.rules import PHASES, SEMANTICS, paths, seed_groups, seed_rules, staged
from postinit.rules.delta import Delta, Patch, combine, patch
from postinit.schema import VersionFacts
from postinit.schema.loaders import argv as _argv

__all__ = [
    "DEFAULT_VERSION",
    "VERSIONS",
    "Delta",
    "Patch",
    "Version",
    "absent_flags",
    "absent_paths",
    "chain",
    "check_delta",
    "defaults",
    "delta",
    "get",
    "groups",
    "has_field",
    "listed",
    "names",
    "patch",
    "rulebook",
    "version_name",
    "version_rules",
]

_REGISTRY = Path(__file__).parent / "data" / "versions.json"


@dataclass(frozen=True, eq=False)
class Version:
    """One modelled vLLM version: what it is, where its rules come from, and everything that differs by it.

    Built once per process for every entry of ``versions.json``; its derived parts (rulebook, facts,
    absent paths and flags) are computed on first use and kept.
    """

    name: str
    title: str
    parent: Version | None
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
    delta_parts: tuple[str, ...] = ()
    """More modules declaring ``DELTA``s of this version, one per area, joined to the main one
    (:func:`~postinit.rules.delta.combine`: no two parts may edit the same rule)."""
    aliases: tuple[str, ...] = ()
    """Other spellings a request may use (``v0.11.1``, the full commit hash)."""
    status: str | None = None
    """None for a version modelled completely; otherwise what is measured of a partial model (its golden
    parity). Every resolution as a partial version carries a note saying so."""

    def __repr__(self) -> str:
        return f"<vLLM version {self.name}>"

    def __str__(self) -> str:
        return self.name

    # -- the delta and the chain ---------------------------------------------------------

    @cached_property
    def delta(self) -> Delta:
        """The version's :class:`Delta` over its parent (an empty one for the root); imports its module."""
        if self.delta_module is None:
            return Delta()
        parts = []
        for module in (self.delta_module, *self.delta_parts):
            found = importlib.import_module(module).DELTA
            if not isinstance(found, Delta):  # pragma: no cover - a declaration error
                raise TypeError(f"{module}.DELTA is not a Delta")
            parts.append(found)
        try:
            return combine(*parts, where=f"version {self.name} ({', '.join((self.delta_module, *self.delta_parts))})")
        except ValueError as e:
            raise RuleDeclarationError(str(e)) from None

    @cached_property
    def chain(self) -> tuple[Version, ...]:
        """The version and its ancestors, root first."""
        return (*self.parent.chain, self) if self.parent is not None else (self,)

    @cached_property
    def defaults(self) -> Mapping[str, Any]:
        """The dataclass defaults that differ from the schema's along the version's lineage (children win), for a
        config built directly (``VllmConfig(...)``: the ``config_defaults`` too)."""
        return self.defaults_for(engine_args=False)

    @functools.lru_cache(maxsize=2)  # noqa: B019 - one per version object (versions live for the process)
    def defaults_for(self, engine_args: bool) -> Mapping[str, Any]:
        """:attr:`defaults`; ``engine_args``: for a config EngineArgs builds (without the ``config_defaults``)."""
        out: dict[str, Any] = {}
        for v in self.chain:
            out.update(v.delta.defaults)
            if not engine_args:
                out.update(v.delta.config_defaults)
        return out

    @property
    def where(self) -> str:
        """Where the version is declared (its delta module), for messages."""
        return self.delta_module or self.name

    # -- facts ---------------------------------------------------------------------------

    @cached_property
    def facts(self) -> VersionFacts:
        """The ``version.*`` facts: the parent's, with the delta's ``facts`` over them."""
        base = self.parent.facts.model_dump() if self.parent is not None else VersionFacts().model_dump()
        unknown = set(self.delta.facts) - set(VersionFacts.model_fields)
        if unknown:
            name = sorted(unknown)[0]
            raise RuleDeclarationError(
                f"{self.where}: facts names {name!r}, which is no version fact (VersionFacts: "
                f"{', '.join(VersionFacts.model_fields)}).{did_you_mean(name, VersionFacts.model_fields)}")
        return VersionFacts(**{**base, **self.delta.facts, "name": self.name})

    @cached_property
    def fact_state(self) -> Mapping[str, Any]:
        """The facts as flat ``version.*`` paths (what a request's state holds)."""
        return dict(paths().flatten_model(self.facts, "version"))

    # -- what the version has -------------------------------------------------------------

    def has_field(self, extra: Mapping[str, Any], key: str | None = None, flag: bool = False) -> bool:
        """Whether a schema field or flag with metadata ``extra`` (``since``/``until``) exists in this version.

        ``since=A``: A and its descendants have it. ``until=U``: U and its ancestors have it, and a descendant
        of U loses it where the child of U on its line removes it (``fields_removed`` / ``flags_removed`` of
        that child's delta, ``key`` being the path or the flag's destination): a second child of U keeps what
        its sibling removed.
        """
        lineage = [v.name for v in self.chain]
        since = extra.get("since")
        if since is not None and since not in lineage:
            return False
        until = extra.get("until")
        if until is None or until not in lineage or until == self.name:
            return True
        if key is None:
            return False
        child = self.chain[lineage.index(until) + 1]
        return key not in (child.delta.flags_removed if flag else child.delta.fields_removed)

    @cached_property
    def absent_paths(self) -> frozenset[str]:
        """The schema paths this version does not have (an input of one is dropped with a note)."""
        space = paths()
        return frozenset(p for p in space.paths if not self.has_field(space.info[p].extra, p))

    @cached_property
    def undeclared(self) -> frozenset[str] | None:
        """The schema paths this version's config classes refuse as undeclared keywords, or None where vLLM
        ignores an undeclared keyword (``version.configs_forbid_extra``)."""
        return self.absent_paths if self.facts.configs_forbid_extra else None

    @cached_property
    def absent_flags(self) -> frozenset[str]:
        """The ``vllm serve`` flags (argparse destinations) this version does not accept."""
        from postinit.schema.loaders.argv import FLAGS

        return frozenset(s.dest for s in FLAGS
                         if not self.has_field({"since": s.since, "until": s.until}, s.dest, flag=True))

    # -- the hash ------------------------------------------------------------------------

    @cached_property
    def hash_function(self) -> Callable[[Mapping[str, Any]], str]:
        """``VllmConfig.compute_hash()`` of this version: the nearest delta's on the chain, else the seed's."""
        for v in reversed(self.chain):
            if v.delta.hash is not None:
                return v.delta.hash
        from postinit.rules import hashing

        return hashing.compute_hash

    def hash(self, state: Mapping[str, Any]) -> str:
        """``VllmConfig.compute_hash()`` of a resolved flat state (its ``version.*`` facts are this version's)."""
        return str(self.hash_function(state))

    @cached_property
    def sub_hash_function(self) -> Callable[[Mapping[str, Any]], Mapping[str, str | None]]:
        """Each sub-config's hash in this version: the nearest delta's function on the chain, else the seed's."""
        for v in reversed(self.chain):
            if v.delta.sub_hashes is not None:
                return v.delta.sub_hashes
        from postinit.rules import hashing

        return hashing.sub_hashes

    def sub_hashes(self, state: Mapping[str, Any]) -> dict[str, str | None]:
        """Each sub-config's own hash of a resolved flat state, keyed like the oracle's ``sub_hashes``."""
        return dict(self.sub_hash_function(state))

    @cached_property
    def hash_reason_function(self) -> Callable[[Mapping[str, Any]], str | None]:
        """Why the hash is not this version's vLLM's: the nearest delta's function on the chain, else the seed's."""
        for v in reversed(self.chain):
            if v.delta.hash_reason is not None:
                return v.delta.hash_reason
        from postinit.rules import hashing

        return hashing.hash_inexact_reason

    def hash_reason(self, state: Mapping[str, Any]) -> str | None:
        """Why :meth:`hash` is postinit's stand-in rather than this vLLM's value for ``state`` (None: it is vLLM's)."""
        return self.hash_reason_function(state)

    # -- rules ---------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Where the declared delta and the schema / flag metadata disagree (empty when they agree)."""
        from postinit.schema.loaders.argv import FLAGS

        if self.parent is None:
            return []
        d = self.delta
        space = paths()
        problems = []
        added = {p for p in space.paths if space.info[p].extra.get("since") == self.name}
        removed = {p for p in space.paths if space.info[p].extra.get("until") == self.parent.name}
        flags_added = {s.dest for s in FLAGS if s.since == self.name}
        flags_removed = {s.dest for s in FLAGS if s.until == self.parent.name}
        siblings = [v for v in VERSIONS.values() if v.parent is self.parent and v is not self]
        by_sibling = {"fields_removed": {p for v in siblings for p in v.delta.fields_removed},
                      "flags_removed": {f for v in siblings for f in v.delta.flags_removed}}
        for what, declared, marked, table in (
            ("fields_added", d.fields_added, added, "the schema"),
            ("fields_removed", d.fields_removed, removed, "the schema"),
            ("flags_added", d.flags_added, flags_added, "argv.FLAGS"),
            ("flags_removed", d.flags_removed, flags_removed, "argv.FLAGS"),
        ):
            for p in sorted(set(declared) ^ marked):
                if p not in declared and p in by_sibling.get(what, ()):
                    continue  # a sibling's removal (until=<parent>): this version keeps it
                side = f"declared but not marked in {table}" if p in declared else f"marked in {table}, not declared"
                problems.append(f"{self.name} {what}: {p} is {side}")
        return problems

    @cached_property
    def rules(self) -> tuple[Rule, ...]:
        """The version's rules: the parent's, edited by the delta by rule id (unchecked; see :attr:`rulebook`)."""
        if self.parent is None:
            return tuple(seed_rules())
        d = self.delta
        rules = {r.id: r for r in self.parent.rules}
        where, parent = self.where, self.parent.name

        def header(fn: object, what: str) -> Rule:
            r = rule_of(fn)
            if r is None:
                raise RuleDeclarationError(f"{where}: {fn!r} in {what} is not a rule (decorate it with @rule)")
            return r

        for rid, reason in d.drop.items():
            if rid not in rules:
                raise RuleDeclarationError(f"{where} drops rule '{rid}', which {parent} does not have", rule=rid)
            if not reason.strip():
                raise RuleDeclarationError(f"{where} drops rule '{rid}' without saying why", rule=rid)
            del rules[rid]
        for p in d.patch:
            if p.rule not in rules:
                raise RuleDeclarationError(f"{where} patches rule '{p.rule}', which {parent} does not have"
                                           f"{did_you_mean(p.rule, rules)}", rule=p.rule)
            r = with_params(rules[p.rule], **p.params) if p.params else rules[p.rule]
            r = dataclasses.replace(r, **p.header) if p.header else r
            rules[p.rule] = staged(r) if "phase" in p.header else r  # another step: where vLLM raises moves too
        for fn in d.replace:
            r = header(fn, "replace")
            if r.id not in rules:
                raise RuleDeclarationError(f"{where} replaces rule '{r.id}', which {parent} does not have; "
                                           "declare it in add", rule=r.id)
            rules[r.id] = staged(r)
        for fn in d.add:
            r = header(fn, "add")
            if r.id in rules:
                raise RuleDeclarationError(f"{where} adds rule '{r.id}', which {parent} already has; "
                                           "declare it in replace (or patch its parameters)", rule=r.id)
            rules[r.id] = staged(r)
        for rid, extra in d.after.items():
            if rid not in rules:
                raise RuleDeclarationError(f"{where} orders rule '{rid}', which this version does not have", rule=rid)
            rules[rid] = dataclasses.replace(rules[rid], after=(*rules[rid].after, *extra))
        gone = set(d.drop)
        out = []
        for r in rules.values():
            if set(r.after) & gone or set(r.feedback) & gone:  # ordering hints to a dropped rule go with it
                r = dataclasses.replace(r, after=tuple(a for a in r.after if a not in gone),
                                        feedback=tuple(a for a in r.feedback if a not in gone))
            out.append(r)
        return tuple(out)

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        """Every group of the version's rulebook: the parent's, without the rules and groups the delta drops,
        with the groups it declares (by id) replaced or added."""
        if self.parent is None:
            return tuple(seed_groups())
        d = self.delta
        declared = {g.id: g for g in d.groups}
        parent = {g.id: g for g in self.parent.groups}
        for gid in d.drop_groups:
            if gid not in parent:
                raise RuleDeclarationError(f"{self.where} drops group '{gid}', which {self.parent.name} does not "
                                           "have", rule=gid)
        gone = set(d.drop) | set(d.drop_groups)
        out: dict[str, Group] = {}
        for gid, g in parent.items():
            if gid in d.drop_groups:
                continue
            if gid in declared:
                out[gid] = _without(declared[gid], gone)
                continue
            # members by id only: the version's rules (replacements included) come from Version.rules
            out[gid] = dataclasses.replace(g, members=tuple(m for m in g.members if m not in gone), rules=())
        out.update((gid, _without(g, gone)) for gid, g in declared.items() if gid not in parent)
        while True:  # a group left with fewer than two members dissolves (and leaves the sequences holding it)
            small = {gid for gid, g in out.items() if len(g.members) < 2}
            if not small:
                return tuple(out.values())
            out = {gid: dataclasses.replace(g, members=tuple(m for m in g.members if m not in small))
                   for gid, g in out.items() if gid not in small}

    @cached_property
    def checked_rules(self) -> tuple[Rule, ...]:
        """:attr:`rules`, checked: the delta agrees with the schema's and the flag table's ``since``/``until``
        marks, and no rule reads or writes a field the version does not have."""
        problems = self.problems()
        if problems:
            raise RuleDeclarationError(f"version {self.name}: " + "; ".join(problems))
        absent = self.absent_paths
        for r in self.rules:
            for what, used in (("reads", r.reads), ("writes", r.writes)):
                for p in used:
                    if p in absent:
                        raise UnknownPathError(
                            f"rule {r.id} ({r.location}) {what} '{p}', a field vLLM {self.name} does not have; "
                            f"replace or drop the rule in {self.delta_module or 'the delta'}", rule=r.id, path=p)
        return self.rules

    @cached_property
    def rulebook(self) -> Rulebook:
        """The compiled rulebook of this version, built once per process; immutable.

        Its phase orders are cached on disk (``Rulebook(cache=True)``): a process whose rule
        headers match an earlier one's skips networkx entirely.
        """
        return Rulebook(list(self.checked_rules), paths=paths(), phases=PHASES,
                        name="vllm" if self.parent is None else f"vllm-{self.name}", cache=True,
                        groups=list(self.groups), semantics_aliases=SEMANTICS)


def _without(g: Group, gone: set[str]) -> Group:
    """``g`` without the members a delta drops (one part of a version's delta may drop a rule another part's group
    names)."""
    if not set(g.members) & gone:
        return g
    return dataclasses.replace(g, members=tuple(m for m in g.members if m not in gone),
                               rules=tuple(r for r in g.rules if r.id not in gone))


def _load() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for entry in json.loads(_REGISTRY.read_text(encoding="utf-8")):
        parent = entry.get("parent")
        if parent is not None and parent not in out:  # pragma: no cover - a registry error
            raise RuleDeclarationError(f"versions.json: {entry['name']}'s parent {parent!r} is not listed before it")
        out[entry["name"]] = Version(
            name=entry["name"], title=entry["title"], parent=out[parent] if parent is not None else None,
            oracle=entry["oracle"], source=entry["source"], env_table=entry["env_table"], golden=entry["golden"],
            delta_module=entry.get("delta_module"), delta_parts=tuple(entry.get("delta_parts", ())),
            aliases=tuple(entry.get("aliases", ())),
            status=entry.get("status"))
    return out


VERSIONS: dict[str, Version] = _load()
"""Every modelled version by name, parents before children (``postinit/rules/data/versions.json``)."""

def _lineage(name: str) -> tuple[str, ...]:
    found = VERSIONS.get(name)
    return tuple(v.name for v in found.chain) if found is not None else ()


_argv.LINEAGE[:] = [_lineage]  # the flag table's spellings by version (the schema layer imports no rules)

DEFAULT_VERSION = next(iter(VERSIONS))
"""The version a request names when it names none: the root, the seed commit (postinit's original specification)."""


@functools.cache
def _spellings() -> dict[str, str]:
    out: dict[str, str] = {}
    for v in VERSIONS.values():
        for text in (v.name, *v.aliases):
            out[text.lower()] = v.name
    return out


def version_name(text: str | Version, where: str = "vllm_version") -> str:
    """The modelled version a request names (``"0.11.1"``, ``"v0.11.1"``, a commit hash or its prefix ≥ 7).

    ``where`` names the input in the error (``vllm_version``, ``--to``, ...).
    """
    if isinstance(text, Version):
        return text.name
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


def get(name: str | Version, where: str = "vllm_version") -> Version:
    """The :class:`Version` a request names (any spelling :func:`version_name` accepts): the door's lookup."""
    if isinstance(name, Version):
        return name
    return VERSIONS[version_name(name, where)]


def names() -> tuple[str, ...]:
    """The modelled versions, parents first."""
    return tuple(VERSIONS)


# -- by name: for callers that hold a name from outside (a CLI option, a test); after the door, use the object

def chain(version: str | Version) -> tuple[Version, ...]:
    """``get(version).chain``."""
    return get(version).chain


def delta(version: str | Version) -> Delta:
    """``get(version).delta``."""
    return get(version).delta


def defaults(version: str | Version, engine_args: bool = False) -> Mapping[str, Any]:
    """``get(version).defaults_for(engine_args)``."""
    return get(version).defaults_for(engine_args)


def absent_paths(version: str | Version) -> frozenset[str]:
    """``get(version).absent_paths``."""
    return get(version).absent_paths


def absent_flags(version: str | Version) -> frozenset[str]:
    """``get(version).absent_flags``."""
    return get(version).absent_flags


def has_field(extra: Mapping[str, Any], version: str | Version, key: str | None = None, flag: bool = False) -> bool:
    """``get(version).has_field(extra, key, flag)``."""
    return get(version).has_field(extra, key, flag)


def check_delta(version: str | Version) -> list[str]:
    """``get(version).problems()``."""
    return get(version).problems()


def listed() -> str:
    """The modelled versions as prose for help texts and schemas: ``d7fb10c57 (the seed commit, default), 0.11.1``."""
    return ", ".join(f"{v.name} (the seed commit, default)" if v.name == DEFAULT_VERSION else v.name
                     for v in VERSIONS.values())


def rulebook(version: str | Version = DEFAULT_VERSION) -> Rulebook:
    """The compiled vLLM rulebook of ``version`` (default: the seed commit); see :attr:`Version.rulebook`."""
    return get(version).rulebook


def groups(version: str | Version = DEFAULT_VERSION) -> list[Group]:
    """Every group (``first_match`` / ``all_of`` statement, ``sequence``) of ``version``'s rulebook."""
    return list(get(version).groups)


def version_rules(version: str | Version = DEFAULT_VERSION) -> list[Rule]:
    """The rules of ``version``: the seed's, edited by every delta down to it (by rule id), checked."""
    return list(get(version).checked_rules)

