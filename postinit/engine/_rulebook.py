"""Compiling rules into a rulebook: a networkx graph, an order per phase, static checks.

networkx (~0.2 s to import) is imported only when a graph is needed: ``Rulebook.graph``
is built on first use, and a rulebook compiled with ``cache=True`` reuses the phase
orders an earlier process compiled (and checked) for exactly the same headers (see
:meth:`Rulebook.order_key`), so a warm ``postinit resolve`` never imports networkx.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import types
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from postinit.engine._rule import Kind, Rule, RuleFn, rule_of
from postinit.errors import (
    CycleError,
    RuleDeclarationError,
    UnknownPathError,
    UnorderedWritersError,
)

if TYPE_CHECKING:
    import networkx as nx

    from postinit.engine._paths import PathSpace

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

    def __post_init__(self) -> None:
        r = self.rule
        set_ = object.__setattr__
        set_(self, "fn", r.fn)
        set_(self, "id", r.id)
        set_(self, "phase", r.phase)
        set_(self, "kind", r.kind.value)
        set_(self, "level", r.level.value)
        set_(self, "message", r.message)
        set_(self, "read_order", tuple(r.reads))
        set_(self, "pure_reads", tuple(p for p in r.reads if p not in self.writes))
        set_(self, "wake", {p: ((), ()) for p in r.writes})
        # conservative until the rulebook narrows them (``_narrow_stale``)
        set_(self, "stale_log", self.pure_reads)
        set_(self, "stale_writes", self.writes)

    def _narrow_stale(self, last_writer: Mapping[str, int], first_reader: Mapping[str, int]) -> None:
        # a stale read needs a reader in an earlier phase than the writer: log only what can go stale
        idx = self.phase_idx
        set_ = object.__setattr__
        set_(self, "stale_log", tuple(p for p in self.pure_reads if last_writer.get(p, -1) > idx))
        set_(self, "stale_writes", frozenset(p for p in self.writes if first_reader.get(p, idx) < idx))

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


def _where(r: Rule) -> str:
    return f"{r.id} ({r.location})" if r.location else r.id


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
        rules: Iterable[Rule | Callable[..., Any]],
        *,
        paths: PathSpace,
        phases: Sequence[str],
        name: str = "rulebook",
        cache: bool = False,
    ) -> None:
        self.name = name
        self.cache = cache
        self.paths = paths
        self.phases: tuple[str, ...] = tuple(phases)
        if len(set(self.phases)) != len(self.phases):
            raise RuleDeclarationError(f"rulebook '{name}': phases repeat: {list(self.phases)}")
        collected: dict[str, Rule] = {}
        for obj in rules:
            r = rule_of(obj)
            if r is None:
                raise RuleDeclarationError(f"{obj!r} is not a rule (decorate it with @rule)")
            if r.id in collected and collected[r.id] is not r:
                raise RuleDeclarationError(
                    f"rule id '{r.id}' is declared twice: {_where(collected[r.id])} and {_where(r)}", rule=r.id
                )
            collected[r.id] = r
        self.rules: dict[str, Rule] = dict(sorted(collected.items()))
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
        found: list[Rule] = []
        for module in modules:
            for value in vars(module).values():
                r = rule_of(value)
                if r is not None:
                    found.append(r)
        found.extend(r for r in map(rule_of, extra) if r is not None)
        return cls(found, paths=paths, phases=phases, name=name, cache=cache)

    def with_rules(self, *rules: Rule | Callable[..., Any], replace: bool = False) -> Rulebook:
        """A new rulebook with ``rules`` added (or, with ``replace=True``, replacing same-id rules)."""
        new = {r.id: r for r in (rule_of(x) for x in rules) if r is not None}
        if not replace:
            clash = sorted(set(new) & set(self.rules))
            if clash:
                raise RuleDeclarationError(f"rule ids already in '{self.name}': {clash}; pass replace=True", rule=clash[0])
        merged = {**self.rules, **new}
        return Rulebook(merged.values(), paths=self.paths, phases=self.phases, name=self.name)

    def without(self, *ids: str) -> Rulebook:
        """A new rulebook without the rules ``ids`` (and without ``after`` references to them)."""
        missing = sorted(set(ids) - set(self.rules))
        if missing:
            raise RuleDeclarationError(f"no rules {missing} in '{self.name}'", rule=missing[0])
        import dataclasses

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
            kept.append(r)
        return Rulebook(kept, paths=self.paths, phases=self.phases, name=self.name)

    # -- static checks ----------------------------------------------------------------

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
                    if other not in self.rules:
                        raise RuleDeclarationError(
                            f"rule {_where(r)}: {what} names unknown rule '{other}'", rule=r.id, value=other
                        )
                    if self.rules[other].phase != r.phase:
                        raise RuleDeclarationError(
                            f"rule {_where(r)}: {what} '{other}' is in phase '{self.rules[other].phase}', "
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
        for w in self.rules.values():
            for p in w.writes:
                for rd in readers.get(p, ()):
                    if rd.id == w.id:
                        continue
                    feedback = w.id in rd.feedback
                    cross = rd.phase != w.phase
                    if g.has_edge(w.id, rd.id):
                        g.edges[w.id, rd.id]["paths"].add(p)
                    else:
                        g.add_edge(w.id, rd.id, paths={p}, kind="feedback" if feedback else "data", cross_phase=cross)
        for r in self.rules.values():
            for a in r.after:
                if g.has_edge(a, r.id):
                    g.edges[a, r.id]["after"] = True
                else:
                    g.add_edge(a, r.id, paths=set(), kind="after", cross_phase=False, after=True)
        return g

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

    def _compile_orders(self) -> None:
        import networkx as nx

        for phase in self.phases:
            g = self.phase_graph(phase)
            g.add_nodes_from(r.id for r in self.rules.values() if r.phase == phase)
            try:
                order = tuple(nx.lexicographical_topological_sort(g, key=self._tiebreak))
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

    def _tiebreak(self, rule_id: str) -> tuple[int, str]:
        """How the topological sort orders rules the graph leaves unordered: by rank, then by id."""
        return self.rules[rule_id].rank, rule_id

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
            g = self.phase_graph(phase)
            descendants: dict[str, set[str]] = {}
            for p, ws in sorted(shared.items()):
                for i, a in enumerate(ws):
                    da = descendants.setdefault(a, nx.descendants(g, a) if a in g else set())
                    for b in ws[i + 1:]:
                        db = descendants.setdefault(b, nx.descendants(g, b) if b in g else set())
                        if b not in da and a not in db:
                            ra, rb = self.rules[a], self.rules[b]
                            raise UnorderedWritersError(
                                f"rules {_where(ra)} and {_where(rb)} both write '{p}' in phase '{phase}' "
                                f"and nothing orders them; add after=('{a}',) to '{b}' (or the reverse) "
                                f"as vLLM's statement order decides",
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
        glob: list[CompiledRule] = []
        for phase in self.phases:
            compiled = []
            readers: dict[str, list[int]] = defaultdict(list)
            writers: dict[str, list[int]] = defaultdict(list)
            for pos, rid in enumerate(self.order[phase]):
                r = self.rules[rid]
                compiled.append(CompiledRule(
                    r, pos, phase_idx[phase], frozenset(r.reads), frozenset(r.writes), r.kind is Kind.CHECK,
                ))
                for p in r.reads:
                    readers[p].append(pos)
                for p in r.writes:
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
        greaders: dict[str, list[int]] = defaultdict(list)
        gwriters: dict[str, list[int]] = defaultdict(list)
        for phase in self.phases:
            for c in self.compiled[phase]:
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
                "level": r.level.value, "reason": r.reason,
            }
            for ph in self.phases
            for r in (self.rules[rid] for rid in self.order[ph])
        ]

    def resolve(
        self,
        initial: Mapping[str, Any],
        provenance: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Resolve a flat state; see :func:`postinit.engine.resolve_flat`."""
        from postinit.engine._run import resolve_flat

        return resolve_flat(self, initial, provenance, **kwargs)

    def resolve_changes(
        self,
        changes: Mapping[str, Any],
        provenance: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Resolve the defaults with ``changes`` applied (no pass over every path: for large spaces)."""
        from postinit.engine._run import resolve_flat

        return resolve_flat(self, None, provenance, changes=changes, **kwargs)
