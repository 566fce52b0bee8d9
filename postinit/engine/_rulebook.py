"""Compiling rules into a rulebook: a networkx graph, an order per phase, static checks.

networkx (~0.2 s to import) is imported only when a graph is needed: ``Rulebook.graph``
is built on first use, and a rulebook compiled with ``cache=True`` reuses the phase
orders an earlier process compiled (and checked) for exactly the same headers (see
:meth:`Rulebook.order_key`), so a warm ``postinit resolve`` never imports networkx.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import types
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from postinit.engine._effect import statement
from postinit.engine._rule import (
    Group,
    GroupKind,
    Kind,
    Matched,
    Rule,
    RuleFn,
    plain_message,
    rule_of,
)
from postinit.errors import (
    CycleError,
    RuleDeclarationError,
    UnknownPathError,
    UnorderedWritersError,
)

if TYPE_CHECKING:
    import networkx as nx

    from postinit.engine._paths import PathSpace
    from postinit.engine._run import EngineResult, Semantics
    from postinit.engine._trace import Provenance

__all__ = ["CompiledRule", "Rulebook", "order_cache_dir"]

_ORDER_CACHE_FORMAT = 1
"""Bump to invalidate every cached phase order (the key also hashes this module's source)."""


def order_cache_dir() -> Path:
    """Where compiled phase orders are cached: ``$XDG_CACHE_HOME/postinit`` or ``~/.cache/postinit``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "postinit"


def _compiler_source() -> str:
    # the compiler's own code is part of the key: a change to how orders are computed or checked
    # must not reuse orders an older compiler produced
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:  # pragma: no cover - not loaded from a file
        return "?"


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule as the resolver runs it: positions and sets precomputed."""

    rule: Rule
    pos: int
    """Position in the phase order (or, for the consistent order, in the global order)."""
    phase_idx: int
    reads: frozenset[str]
    writes: frozenset[str]
    is_check: bool
    # hot-path copies of the header, so the resolver does one attribute lookup each
    fn: RuleFn = field(init=False, repr=False, compare=False)
    id: str = field(init=False, repr=False, compare=False)
    phase: str = field(init=False, repr=False, compare=False)
    kind: str = field(init=False, repr=False, compare=False)
    level: str = field(init=False, repr=False, compare=False)
    message: str = field(init=False, repr=False, compare=False)
    """The header's message (a template :meth:`Outcome.log` fills)."""
    plain: str = field(init=False, repr=False, compare=False)
    """What a plain mapping result logs: the header's message, or nothing when it is a template."""
    read_order: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The declared reads, in declaration order (trace ``reads`` dicts keep it)."""
    pure_reads: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The reads that are not also writes (the stale-read log keeps these)."""
    wake: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(init=False, repr=False, compare=False)
    """Per written path: (positions of the other readers to re-queue, positions of later writers)."""
    stale_log: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The pure reads some rule of a later phase writes: only these can become stale reads."""
    stale_writes: frozenset[str] = field(init=False, repr=False, compare=False)
    """The writes some rule of an earlier phase reads (pure): only these can make a stale read."""
    stale: bool = field(init=False, repr=False, compare=False)
    """A firing of the rule may make or later suffer a stale read (``stale_log`` or ``stale_writes``)."""
    members: tuple[CompiledRule, ...] = field(default=(), repr=False, compare=False)
    """For a group statement (``first_match`` / ``all_of``): its members, in declared order."""
    ids: frozenset[str] = field(init=False, repr=False, compare=False)
    """The rule ids whose results this entry records: its own, or its members'."""
    by_id: Mapping[str, CompiledRule] = field(init=False, repr=False, compare=False)
    """``ids`` -> the compiled rule that records under it."""

    def __post_init__(self) -> None:
        r = self.rule
        set_ = object.__setattr__
        set_(self, "ids", frozenset([r.id, *(m.id for m in self.members)]))
        set_(self, "by_id", {r.id: self, **{m.id: m for m in self.members}})
        set_(self, "fn", r.fn)
        set_(self, "id", r.id)
        set_(self, "phase", r.phase)
        set_(self, "kind", r.kind.value)
        set_(self, "level", r.level.value)
        set_(self, "message", r.message)
        set_(self, "plain", plain_message(r.message))
        set_(self, "read_order", tuple(r.reads))
        set_(self, "pure_reads", tuple(p for p in r.reads if p not in self.writes))
        set_(self, "wake", {p: ((), ()) for p in r.writes})
        # conservative until the rulebook narrows them (``_narrow_stale``)
        set_(self, "stale_log", self.pure_reads)
        set_(self, "stale_writes", self.writes)
        set_(self, "stale", bool(self.stale_log or self.stale_writes))

    def _narrow_stale(self, last_writer: Mapping[str, int], first_reader: Mapping[str, int]) -> None:
        # a stale read needs a reader in an earlier phase than the writer: log only what can go stale
        for m in self.members:
            m._narrow_stale(last_writer, first_reader)
        idx = self.phase_idx
        set_ = object.__setattr__
        set_(self, "stale_log", tuple(p for p in self.pure_reads if last_writer.get(p, -1) > idx))
        set_(self, "stale_writes", frozenset(p for p in self.writes if first_reader.get(p, idx) < idx))
        set_(self, "stale", bool(self.stale_log or self.stale_writes))

    def _wire(self, readers: Mapping[str, Sequence[int]], writers: Mapping[str, Sequence[int]]) -> None:
        # A change wakes the path's readers, except the writers ordered before this rule: among the
        # writers of one path the order decides and the later one wins (vLLM's statement order), so a
        # later writer's change never re-runs an earlier one.
        pos = self.pos
        object.__setattr__(self, "wake", {
            p: (
                tuple(j for j in readers.get(p, ()) if j != pos and (j > pos or j not in earlier)),
                tuple(j for j in writers.get(p, ()) if j > pos),
            )
            for p in self.rule.writes
            for earlier in (frozenset(j for j in writers.get(p, ()) if j < pos),)
        })


def _digest(key: str, order: Any) -> str:
    """A checksum of a cached order under its key: a damaged cache file is never used."""
    blob = json.dumps([key, order], separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _suggest(name: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean '{close[0]}'?" if close else ""


def _where(r: Rule) -> str:
    if r.owner is not None:
        return f"{r.id} (rule of {r.owner}, {r.location})" if r.location else f"{r.id} (rule of {r.owner})"
    return f"{r.id} ({r.location})" if r.location else r.id


def _dispatcher(g: Group, members: tuple[CompiledRule, ...]) -> RuleFn:
    """The function of a group statement: :func:`statement` over its compiled members."""
    kind, when = g.kind, g.when

    def decide_statement(view: Mapping[str, Any]) -> Matched | None:
        return statement(kind, when, members, view)

    decide_statement.__name__ = decide_statement.__qualname__ = kind.value
    return cast(RuleFn, decide_statement)


class Rulebook:
    """A validated, compiled set of rules over a :class:`PathSpace`, in ordered phases.

    Compiling builds ``graph``: a DiGraph over rule ids with an edge from every
    writer of a path to every rule of any phase that reads but does not write
    it (edge attribute ``paths``), plus declared ``after`` edges. Within a
    phase the order is a topological order of that graph, ties broken by the
    rules' ``rank`` and then by id, so registration order never matters.

    With ``cache=True`` the phase orders are read from, or written to, a file
    under :func:`order_cache_dir` keyed by a hash of everything they depend on
    (:meth:`order_key`); only orders that passed the cycle and unordered-writer
    checks are ever written, and a missing, stale, corrupt or unwritable cache
    just means compiling with networkx. ``graph`` is then built on first use.
    """

    def __init__(
        self,
        rules: Iterable[Rule | Group | Callable[..., Any]],
        *,
        paths: PathSpace,
        phases: Sequence[str],
        name: str = "rulebook",
        cache: bool = False,
        groups: Iterable[Group] = (),
        semantics_aliases: Mapping[str, Semantics] | None = None,
    ) -> None:
        self.name = name
        self.semantics_aliases: dict[str, Semantics] = dict(semantics_aliases or {})
        """Names this rulebook gives the engine's semantics (the vLLM rulebook: ``"vllm"`` is ``"ordered"``)."""
        for alias, target in self.semantics_aliases.items():
            if target not in ("ordered", "consistent"):
                raise RuleDeclarationError(f"rulebook '{name}': semantics alias {alias!r} names {target!r}; "
                                           "the semantics are 'ordered' and 'consistent'")
        self.cache = cache
        self.paths = paths
        self.phases: tuple[str, ...] = tuple(phases)
        if len(set(self.phases)) != len(self.phases):
            raise RuleDeclarationError(f"rulebook '{name}': phases repeat: {list(self.phases)}")
        collected: dict[str, Rule] = {}
        found_groups: dict[str, Group] = {}

        def add(r: Rule) -> None:
            if r.id in collected and collected[r.id] is not r and collected[r.id].fn is not r.fn:
                raise RuleDeclarationError(
                    f"rule id '{r.id}' is declared twice: {_where(collected[r.id])} and {_where(r)}", rule=r.id
                )
            collected.setdefault(r.id, r)

        for obj in [*rules, *groups]:
            if isinstance(obj, Group):
                if obj.id in found_groups and found_groups[obj.id] is not obj:
                    raise RuleDeclarationError(f"group id '{obj.id}' is declared twice", rule=obj.id)
                found_groups[obj.id] = obj
                for member in obj.rules:
                    add(member)
                continue
            found = rule_of(obj)
            if found is None:
                raise RuleDeclarationError(f"{obj!r} is not a rule (decorate it with @rule)")
            add(found)
        self.groups: dict[str, Group] = dict(sorted(found_groups.items()))
        """Every group by id (``first_match`` / ``all_of`` statements and ``sequence``s)."""
        self.unit_of: dict[str, str] = {}
        """Member rule id -> the ``first_match`` / ``all_of`` group it belongs to."""
        self._check_groups(collected)
        self.rules: dict[str, Rule] = {
            rid: (r if rid not in self.unit_of or r.group == self.unit_of[rid]
                  else dataclasses.replace(r, group=self.unit_of[rid]))
            for rid, r in sorted(collected.items())
        }
        self._check_declarations()
        self._graph: nx.DiGraph | None = None
        self._order_key: str | None = None
        self.order: dict[str, tuple[str, ...]] = {}
        self.order_cached = False
        """True when the phase orders came from the on-disk cache (not compiled in this process)."""
        cached = self._read_cached_orders() if cache else None
        if cached is not None:
            self.order = cached
            self.order_cached = True
        else:
            self._compile_orders()
            self._check_unordered_writers()
            if cache:
                self._write_cached_orders()
        self.compiled: dict[str, tuple[CompiledRule, ...]] = {}
        self.readers: dict[str, dict[str, tuple[int, ...]]] = {}
        self.writers: dict[str, dict[str, tuple[int, ...]]] = {}
        self.global_order: tuple[CompiledRule, ...] = ()
        self.loop_cache: dict[str, Any] = {}
        """What a run loop derives from the compiled rulebook alone, kept across its runs (keyed by loop)."""
        self.global_readers: dict[str, tuple[int, ...]] = {}
        self.global_writers: dict[str, tuple[int, ...]] = {}
        self._compile_runtime()

    # -- construction helpers ---------------------------------------------------------

    @classmethod
    def collect(
        cls,
        *modules: types.ModuleType,
        paths: PathSpace,
        phases: Sequence[str],
        name: str = "rulebook",
        extra: Iterable[Rule | Callable[..., Any]] = (),
        cache: bool = False,
    ) -> Rulebook:
        """Collect every function marked with ``@rule`` in ``modules`` (plus ``extra``)."""
        found: list[Rule | Group] = []
        for module in modules:
            for value in vars(module).values():
                r = rule_of(value)
                if r is not None:
                    found.append(r)
                elif isinstance(value, Group):
                    found.append(value)
        for x in extra:
            r = rule_of(x)
            if r is not None:
                found.append(r)
            elif isinstance(x, Group):
                found.append(x)
        return cls(found, paths=paths, phases=phases, name=name, cache=cache)

    def with_rules(self, *rules: Rule | Callable[..., Any], replace: bool = False) -> Rulebook:
        """A new rulebook with ``rules`` added (or, with ``replace=True``, replacing same-id rules)."""
        new = {r.id: r for r in (rule_of(x) for x in rules) if r is not None}
        if not replace:
            clash = sorted(set(new) & set(self.rules))
            if clash:
                raise RuleDeclarationError(f"rule ids already in '{self.name}': {clash}; pass replace=True", rule=clash[0])
        merged = {**self.rules, **new}
        return Rulebook(merged.values(), paths=self.paths, phases=self.phases, name=self.name,
                        groups=self.groups.values(), semantics_aliases=self.semantics_aliases)

    def rebuilt(self, rules: Iterable[Rule], *, phases: Sequence[str] | None = None,
                name: str | None = None) -> Rulebook:
        """A rulebook of ``rules`` (in any order) over this path space, with this one's groups.

        A ``first_match`` / ``all_of`` group is kept when all its members are; a sequence keeps
        the members that remain (and dissolves below two).
        """
        kept = {r.id: r for r in rules}
        units = {g.id: g for g in self.groups.values() if g.is_unit and set(g.members) <= kept.keys()}
        groups: list[Group] = list(units.values())
        for g in self.groups.values():
            if not g.is_unit:
                members = tuple(m for m in g.members if m in kept or m in units)
                if len(members) >= 2:
                    groups.append(dataclasses.replace(g, members=members, rules=()))
        return Rulebook(kept.values(), paths=self.paths, phases=phases if phases is not None else self.phases,
                        name=name or self.name, groups=groups, semantics_aliases=self.semantics_aliases)

    def without(self, *ids: str) -> Rulebook:
        """A new rulebook without the rules ``ids`` (and without ``after`` references to them)."""
        missing = sorted(set(ids) - set(self.rules))
        if missing:
            raise RuleDeclarationError(f"no rules {missing} in '{self.name}'", rule=missing[0])
        kept = []
        for r in self.rules.values():
            if r.id in ids:
                continue
            if set(r.after) & set(ids) or set(r.feedback) & set(ids):
                r = dataclasses.replace(
                    r,
                    after=tuple(a for a in r.after if a not in ids),
                    feedback=tuple(a for a in r.feedback if a not in ids),
                )
            kept.append(dataclasses.replace(r, group=None) if r.group is not None else r)
        # a group keeps its other members (and dissolves when fewer than two are left)
        groups: list[Group] = []
        gone = set(ids)
        for g in self.groups.values():
            members = tuple(m for m in g.members if m not in gone)
            if len(members) < 2:
                gone.add(g.id)
                continue
            groups.append(dataclasses.replace(g, members=members, rules=()))
        groups = [dataclasses.replace(g, members=tuple(m for m in g.members if m not in gone)) for g in groups]
        return Rulebook(kept, paths=self.paths, phases=self.phases, name=self.name,
                        groups=[g for g in groups if len(g.members) >= 2], semantics_aliases=self.semantics_aliases)

    # -- static checks ----------------------------------------------------------------

    def _check_groups(self, rules: Mapping[str, Rule]) -> None:
        """Members exist, share their group's phase and belong to one statement and one sequence;
        an ``all_of`` member reads nothing another member writes; a gate reads known paths."""
        in_sequence: dict[str, str] = {}
        for g in self.groups.values():
            if g.id in rules:
                raise RuleDeclarationError(f"group id '{g.id}' is also a rule id", rule=g.id)
            for m in g.members:
                if (g.is_unit or m not in self.groups) and m not in rules:
                    raise RuleDeclarationError(
                        f"group '{g.id}' names unknown rule '{m}'.{_suggest(m, rules)}", rule=g.id, value=m)
                if g.is_unit:
                    if m in self.unit_of:
                        raise RuleDeclarationError(
                            f"rule '{m}' is a member of two groups: '{self.unit_of[m]}' and '{g.id}'", rule=m)
                    self.unit_of[m] = g.id
                else:
                    if m in in_sequence:
                        raise RuleDeclarationError(
                            f"'{m}' is in two sequences: '{in_sequence[m]}' and '{g.id}'", rule=m)
                    in_sequence[m] = g.id
        self.sequence_of = in_sequence
        """Member (rule or group id) -> the sequence it is declared in."""
        for g in self.groups.values():
            phases = {rules[r].phase for r in self.member_rules(g.id)}
            if len(phases) != 1:
                raise RuleDeclarationError(
                    f"group '{g.id}' spans phases {sorted(phases)}; a group is statements of one phase", rule=g.id)
            for p in g.when_reads:
                if p not in self.paths:
                    raise UnknownPathError(f"group '{g.id}' gate reads unknown path '{p}'.{self.paths.suggest(p)}",
                                           rule=g.id, path=p)
            if g.kind is GroupKind.ALL_OF:
                # every member sees the state the statement started from: a member reading what an
                # earlier member writes would see the old value, where sequential code sees the new one
                for i, b in enumerate(g.members):
                    for a in g.members[i + 1:]:
                        clash = set(rules[a].reads) & set(rules[b].writes)
                        if clash:
                            raise RuleDeclarationError(
                                f"group '{g.id}': member '{a}' reads {sorted(clash)}, which the earlier member "
                                f"'{b}' writes; all_of members decide on the same state — make them a sequence",
                                rule=a)
        for m in in_sequence:
            if m in self.groups and not self.groups[m].is_unit:
                raise RuleDeclarationError(f"sequence '{in_sequence[m]}' holds sequence '{m}'; list its members",
                                           rule=m)
            if m in self.unit_of:
                raise RuleDeclarationError(
                    f"sequence '{in_sequence[m]}' names '{m}', a member of '{self.unit_of[m]}'; name the group",
                    rule=m)

    def member_rules(self, group_id: str) -> tuple[str, ...]:
        """The rule ids of a group, with a sequence's unit members expanded, in declared order."""
        out: list[str] = []
        for m in self.groups[group_id].members:
            out.extend(self.member_rules(m) if m in self.groups else (m,))
        return tuple(out)

    def _rep(self, rule_id: str) -> str:
        """The statement a rule is part of: its ``first_match`` / ``all_of`` group, or itself."""
        return self.unit_of.get(rule_id, rule_id)

    def _check_declarations(self) -> None:
        for r in self.rules.values():
            if r.phase not in self.phases:
                raise RuleDeclarationError(
                    f"rule {_where(r)}: unknown phase '{r.phase}'; phases: {', '.join(self.phases)}", rule=r.id
                )
            for what, paths in (("reads", r.reads), ("writes", r.writes)):
                for p in paths:
                    if p not in self.paths:
                        raise UnknownPathError(
                            f"rule {_where(r)} {what} unknown path '{p}'.{self.paths.suggest(p)}",
                            rule=r.id, path=p,
                        )
            for what, ids in (("after", r.after), ("feedback", r.feedback)):
                for other in ids:
                    if other not in self.rules and not (what == "after" and other in self.groups):
                        raise RuleDeclarationError(
                            f"rule {_where(r)}: {what} names unknown rule '{other}'", rule=r.id, value=other
                        )
                    phase = self.rules[self.member_rules(other)[0] if other in self.groups else other].phase
                    if phase != r.phase:
                        raise RuleDeclarationError(
                            f"rule {_where(r)}: {what} '{other}' is in phase '{phase}', "
                            f"not '{r.phase}'; phases already order rules", rule=r.id, value=other,
                        )

    @property
    def graph(self) -> nx.DiGraph:
        """The compiled networkx DiGraph over rule ids (built on first use)."""
        if self._graph is None:
            self._graph = self._build_graph()
        return self._graph

    def _build_graph(self) -> nx.DiGraph:
        import networkx as nx

        g = nx.DiGraph(name=self.name)
        phase_idx = {p: i for i, p in enumerate(self.phases)}
        for r in self.rules.values():
            g.add_node(r.id, phase=r.phase, phase_idx=phase_idx[r.phase], kind=r.kind.value, title=r.title)
        readers: dict[str, list[Rule]] = defaultdict(list)
        for r in self.rules.values():
            for p in r.reads:
                if p not in r.writes:
                    readers[p].append(r)
        unit_of = self.unit_of
        rank = self._sequence_rank()
        for w in self.rules.values():
            for p in w.writes:
                for rd in readers.get(p, ()):
                    if rd.id == w.id or (w.id in unit_of and unit_of[w.id] == unit_of.get(rd.id)):
                        continue  # within one statement, members decide on the same state
                    # a later statement of a sequence writing what an earlier one read: the declared order
                    back = self._declared_before(rd.id, w.id, rank)
                    feedback = w.id in rd.feedback or back
                    cross = rd.phase != w.phase
                    if g.has_edge(w.id, rd.id):
                        g.edges[w.id, rd.id]["paths"].add(p)
                    else:
                        g.add_edge(w.id, rd.id, paths={p}, kind="feedback" if feedback else "data", cross_phase=cross)
        for r in self.rules.values():
            for a in r.after:
                for a_id in (self.member_rules(a) if a in self.groups else (a,)):
                    self._order_edge(g, a_id, r.id, "after")
        for grp in self.groups.values():
            members = grp.members
            for prev, nxt in itertools.pairwise(members):
                last = self.member_rules(prev)[-1] if prev in self.groups else prev
                first = self.member_rules(nxt)[0] if nxt in self.groups else nxt
                self._order_edge(g, last, first, "group" if grp.is_unit else "sequence")
        return g

    @staticmethod
    def _order_edge(g: nx.DiGraph, a: str, b: str, kind: str) -> None:
        if g.has_edge(a, b):
            g.edges[a, b]["after"] = True
        else:
            g.add_edge(a, b, paths=set(), kind=kind, cross_phase=False, after=True)

    def _sequence_rank(self) -> dict[str, tuple[str, int]]:
        """Rule id -> (its sequence, its element's index there), for rules declared in a sequence."""
        rank: dict[str, tuple[str, int]] = {}
        for grp in self.groups.values():
            if grp.is_unit:
                continue
            for i, m in enumerate(grp.members):
                for rid in (self.member_rules(m) if m in self.groups else (m,)):
                    rank[rid] = (grp.id, i)
        return rank

    @staticmethod
    def _declared_before(a: str, b: str, rank: Mapping[str, tuple[str, int]]) -> bool:
        """``a`` comes before ``b`` in one sequence."""
        ra, rb = rank.get(a), rank.get(b)
        return ra is not None and rb is not None and ra[0] == rb[0] and ra[1] < rb[1]

    def phase_graph(self, phase: str, *, ordering: bool = True) -> nx.DiGraph:
        """The subgraph of one phase; with ``ordering``, without feedback edges."""
        import networkx as nx

        nodes = [r.id for r in self.rules.values() if r.phase == phase]
        sub = self.graph.subgraph(nodes)
        if not ordering:
            return sub.copy()
        return nx.DiGraph(
            (u, v, d) for u, v, d in sub.edges(data=True) if d.get("kind") != "feedback" or d.get("after")
        ) if sub.number_of_edges() else nx.DiGraph(sub)

    def statement_graph(self, phase: str) -> nx.DiGraph:
        """The phase's ordering graph with each ``first_match`` / ``all_of`` group as one node (one statement)."""
        import networkx as nx

        g = self.phase_graph(phase)
        g.add_nodes_from(r.id for r in self.rules.values() if r.phase == phase)
        if not self.unit_of:
            return g
        rep = self._rep
        q = nx.DiGraph()
        q.add_nodes_from(dict.fromkeys(rep(n) for n in g.nodes))
        for u, v, d in g.edges(data=True):
            a, b = rep(u), rep(v)
            if a == b:
                continue
            if q.has_edge(a, b):
                q.edges[a, b]["paths"] = q.edges[a, b]["paths"] | d.get("paths", set())
            else:
                q.add_edge(a, b, **{**d, "paths": set(d.get("paths", set()))})
        return q

    def _compile_orders(self) -> None:
        import networkx as nx

        for phase in self.phases:
            g = self.statement_graph(phase)
            try:
                statements = nx.lexicographical_topological_sort(g, key=self._tiebreak)
                order = tuple(rid for st in statements
                              for rid in (self.groups[st].members if st in self.groups else (st,)))
            except nx.NetworkXUnfeasible:
                cycle = nx.find_cycle(g)
                ids = [u for u, _ in cycle] + [cycle[0][0]]
                why = "; ".join(
                    f"{u} writes {', '.join(sorted(g.edges[u, v]['paths'])) or '(after)'} read by {v}" for u, v in cycle
                )
                raise CycleError(
                    f"undeclared dependency cycle in phase '{phase}': {' -> '.join(ids)} ({why}); "
                    f"declare feedback=('{cycle[-1][0]}',) on rule '{cycle[-1][1]}' if the cycle is intended",
                    rule=ids[0],
                ) from None
            self.order[phase] = order

    def _tiebreak(self, statement: str) -> tuple[int, str]:
        """How the topological sort orders statements the graph leaves unordered: by rank, then by id.

        A group statement ranks as its earliest member.
        """
        members = self.groups[statement].members if statement in self.groups else (statement,)
        return min(self.rules[m].rank for m in members), statement

    def _check_unordered_writers(self) -> None:
        import networkx as nx

        for phase in self.phases:
            writers: dict[str, list[str]] = defaultdict(list)
            for rid in self.order[phase]:
                for p in self.rules[rid].writes:
                    writers[p].append(rid)
            shared = {p: ws for p, ws in writers.items() if len(ws) > 1}
            if not shared:
                continue
            g = self.statement_graph(phase)
            rep = self._rep
            descendants: dict[str, set[str]] = {}
            for p, ws in sorted(shared.items()):
                for i, a in enumerate(ws):
                    sa = rep(a)
                    da = descendants.setdefault(sa, nx.descendants(g, sa) if sa in g else set())
                    for b in ws[i + 1:]:
                        sb = rep(b)
                        if sa == sb:
                            continue  # one statement: its members are tried in declared order
                        db = descendants.setdefault(sb, nx.descendants(g, sb) if sb in g else set())
                        if sb not in da and sa not in db:
                            ra, rb = self.rules[a], self.rules[b]
                            if ra.owner is not None and rb.owner is None:  # the added rule is the one to edit
                                a, b, ra, rb = b, a, rb, ra
                            how = (f"add after=('{a}',) to '{b}' (or the reverse) as vLLM's statement order decides"
                                   if rb.owner is None or ra.owner is not None else
                                   f"add after=('{a}',) to '{b}' to run it after {a}, or move it to a later phase")
                            raise UnorderedWritersError(
                                f"rules {_where(ra)} and {_where(rb)} both write '{p}' in phase '{phase}' "
                                f"and nothing orders them; {how}",
                                rule=b, path=p,
                            )

    # -- the on-disk order cache ------------------------------------------------------

    def order_key(self) -> str:
        """A hash of everything the phase orders and their checks depend on.

        The phases; every rule's id, phase, reads, writes, ``after``, ``feedback`` and
        ``rank`` (in declaration order, as compiled); the path space; the cache format and
        the compiler's source. Any change to one of them is a different key.
        """
        if self._order_key is not None:
            return self._order_key
        head = {
            "format": _ORDER_CACHE_FORMAT,
            "compiler": _compiler_source(),
            "name": self.name,
            "phases": self.phases,
            "rules": [
                (r.id, r.phase, r.reads, r.writes, r.after, r.feedback, r.rank) for r in self.rules.values()
            ],
            "groups": [(g.id, g.kind.value, g.members, g.when_reads) for g in self.groups.values()],
            "paths": sorted(self.paths.paths),
        }
        self._order_key = hashlib.sha256(json.dumps(head, separators=(",", ":")).encode()).hexdigest()
        return self._order_key

    def _cache_file(self) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)
        return order_cache_dir() / f"orders-{safe}.json"

    def _read_cached_orders(self) -> dict[str, tuple[str, ...]] | None:
        """The cached phase orders for exactly this rulebook, or None (missing, stale or corrupt)."""
        try:
            data = json.loads(self._cache_file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != self.order_key():
            return None
        raw = data.get("order")
        if data.get("digest") != _digest(self.order_key(), raw):
            return None  # a damaged file (or one written for another key)
        if not isinstance(raw, dict) or list(raw) != list(self.phases):
            return None
        by_phase: dict[str, set[str]] = {p: set() for p in self.phases}
        for r in self.rules.values():
            by_phase[r.phase].add(r.id)
        order: dict[str, tuple[str, ...]] = {}
        for phase, ids in raw.items():
            # a permutation of the phase's rules, or the file is not one this compiler wrote
            if (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)
                    or len(ids) != len(by_phase[phase]) or set(ids) != by_phase[phase]):
                return None
            order[phase] = tuple(ids)
        return order

    def _write_cached_orders(self) -> None:
        """Store the (checked) phase orders; an unwritable cache directory is not an error."""
        import tempfile

        target = self._cache_file()
        order = {p: list(o) for p, o in self.order.items()}
        blob = json.dumps({"key": self.order_key(), "digest": _digest(self.order_key(), order), "order": order})
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(blob)
                os.replace(tmp, target)  # atomic: a concurrent reader sees the old or the new file
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass

    def _compile_runtime(self) -> None:
        phase_idx = {p: i for i, p in enumerate(self.phases)}
        for phase in self.phases:
            compiled: list[CompiledRule] = []
            readers: dict[str, list[int]] = defaultdict(list)
            writers: dict[str, list[int]] = defaultdict(list)
            seen_units: set[str] = set()
            for rid in self.order[phase]:
                unit = self.unit_of.get(rid)
                if unit in seen_units:
                    continue
                pos = len(compiled)
                if unit is not None:
                    seen_units.add(unit)
                    c = self._unit(self.groups[unit], pos, phase_idx[phase])
                else:
                    r = self.rules[rid]
                    c = CompiledRule(r, pos, phase_idx[phase], frozenset(r.reads), frozenset(r.writes),
                                     r.kind is Kind.CHECK)
                compiled.append(c)
                for p in c.rule.reads:
                    readers[p].append(pos)
                for p in c.rule.writes:
                    writers[p].append(pos)
            for c in compiled:
                c._wire(readers, writers)
            self.compiled[phase] = tuple(compiled)
            self.readers[phase] = {p: tuple(v) for p, v in readers.items()}
            self.writers[phase] = {p: tuple(v) for p, v in writers.items() if len(v) > 1}
        last_writer: dict[str, int] = {}
        first_reader: dict[str, int] = {}
        for phase in self.phases:
            for c in self.compiled[phase]:
                for p in c.writes:
                    last_writer[p] = max(last_writer.get(p, -1), c.phase_idx)
                for p in c.pure_reads:
                    first_reader[p] = min(first_reader.get(p, c.phase_idx), c.phase_idx)
        for phase in self.phases:
            for c in self.compiled[phase]:
                c._narrow_stale(last_writer, first_reader)
        glob: list[CompiledRule] = []
        greaders: dict[str, list[int]] = defaultdict(list)
        gwriters: dict[str, list[int]] = defaultdict(list)
        for phase in self.phases:
            for c in self.compiled[phase]:
                if c.members:
                    gc = self._unit(self.groups[c.id], len(glob), c.phase_idx)
                else:
                    gc = CompiledRule(c.rule, len(glob), c.phase_idx, c.reads, c.writes, c.is_check)
                glob.append(gc)
                for p in c.rule.reads:
                    greaders[p].append(gc.pos)
                for p in c.rule.writes:
                    gwriters[p].append(gc.pos)
        for gc in glob:
            gc._wire(greaders, gwriters)
        self.global_order = tuple(glob)
        self.global_readers = {p: tuple(v) for p, v in greaders.items()}
        self.global_writers = {p: tuple(v) for p, v in gwriters.items() if len(v) > 1}

    def _unit(self, g: Group, pos: int, phase_idx: int) -> CompiledRule:
        """A ``first_match`` / ``all_of`` group as one compiled statement over its compiled members."""
        members = tuple(
            CompiledRule(r, pos, phase_idx, frozenset(r.reads), frozenset(r.writes), r.kind is Kind.CHECK)
            for r in (self.rules[m] for m in g.members)
        )
        reads = tuple(dict.fromkeys([*g.when_reads, *(p for m in members for p in m.rule.reads)]))
        writes = tuple(dict.fromkeys(p for m in members for p in m.rule.writes))
        checks = all(m.is_check for m in members)
        kind = Kind.CHECK if checks else next(m.rule.kind for m in members if not m.is_check)
        fn = _dispatcher(g, members)
        head = members[0].rule
        statement = Rule(id=g.id, fn=fn, title=g.title, phase=head.phase, kind=kind, reads=reads, writes=writes,
                         source=g.source, doc=g.doc, location=g.location or head.location, stage=head.stage)
        return CompiledRule(statement, pos, phase_idx, frozenset(reads), frozenset(writes), checks, members)

    # -- questions ----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def writers_of(self, path: str) -> tuple[Rule, ...]:
        """Rules that may write ``path``, in phase and rule order."""
        return tuple(r for ph in self.phases for rid in self.order[ph] if path in (r := self.rules[rid]).writes)

    def readers_of(self, path: str) -> tuple[Rule, ...]:
        """Rules that read ``path``, in phase and rule order."""
        return tuple(r for ph in self.phases for rid in self.order[ph] if path in (r := self.rules[rid]).reads)

    def stages(self, phase: str) -> list[list[str]]:
        """The phase's rules grouped in topological generations (for pictures)."""
        import networkx as nx

        g = self.phase_graph(phase)
        g.add_nodes_from(self.order[phase])
        return [sorted(gen) for gen in nx.topological_generations(g)]

    def field_graph(self) -> nx.DiGraph:
        """A bipartite DiGraph of rules and paths: path → rule for reads, rule → path for writes."""
        import networkx as nx

        g = nx.DiGraph(name=f"{self.name} fields")
        for r in self.rules.values():
            g.add_node(r.id, type="rule", phase=r.phase, kind=r.kind.value, title=r.title)
            for p in r.reads:
                g.add_node(p, type="path")
                g.add_edge(p, r.id, kind="read")
            for p in r.writes:
                g.add_node(p, type="path")
                g.add_edge(r.id, p, kind="write")
        return g

    def describe(self) -> list[dict[str, Any]]:
        """One plain dict per rule in phase order (for tables, JSON and docs)."""
        return [
            {
                "id": r.id, "title": r.title, "phase": r.phase, "kind": r.kind.value,
                "reads": list(r.reads), "writes": list(r.writes), "after": list(r.after),
                "feedback": list(r.feedback), "source": r.source, "message": r.message,
                "level": r.level.value, "reason": r.reason, "group": r.group,
            }
            for ph in self.phases
            for r in (self.rules[rid] for rid in self.order[ph])
        ]

    def semantics_of(self, name: str) -> Semantics:
        """The engine semantics ``name`` means here: ``"ordered"``, ``"consistent"`` or one of this rulebook's aliases."""
        if name == "ordered":
            return "ordered"
        if name == "consistent":
            return "consistent"
        found = self.semantics_aliases.get(name)
        if found is None:
            names = ", ".join(repr(n) for n in ("ordered", "consistent", *self.semantics_aliases))
            raise RuleDeclarationError(f"semantics must be one of {names}, got {name!r}")
        return found

    def resolve(
        self,
        initial: Mapping[str, Any],
        provenance: Mapping[str, Provenance] | None = None,
        **kwargs: Any,
    ) -> EngineResult:
        """Resolve a flat state; see :func:`postinit.engine.resolve_flat`."""
        from postinit.engine._resolve import resolve_flat

        return resolve_flat(self, initial, provenance, **kwargs)

    def resolve_changes(
        self,
        changes: Mapping[str, Any],
        provenance: Mapping[str, Provenance] | None = None,
        **kwargs: Any,
    ) -> EngineResult:
        """Resolve the defaults with ``changes`` applied (no pass over every path: for large spaces)."""
        from postinit.engine._resolve import resolve_flat

        return resolve_flat(self, None, provenance, changes=changes, **kwargs)
