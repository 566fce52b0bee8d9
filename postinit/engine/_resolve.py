"""Phased fixed-point resolution over a flat state.

Semantics (``semantics="vllm"``): phases run in the rulebook's order, each to
its own fixed point, and a later phase never re-runs an earlier one. When a
rule changes a path, every rule of the same phase that reads it (other than
the writer) is scheduled again. When a later phase changes a path that a rule
of an earlier phase read when it fired, the trace records a ``stale_read``.

``semantics="consistent"`` runs every rule in one fixed point (order: phase,
then position), so stale rules re-run; check rules are evaluated last, on the
final state. When a rule is evaluated again there because a path it read was
changed by a rule that does not read what it writes, the values it still holds
(paths it wrote whose provenance is still that rule) are first retracted: each
goes back to the value of the latest rule that still asserts it (or the input
when none does); a path it writes again just takes the new value, the others go
back as a traced change by that rule (``detail="retracted"``). A fill-once default thus re-decides instead of
reading its own earlier value as if someone else had set it. A rule evaluated
again on exactly the reads of its last evaluation does not take back a path a
rule later in the order has written since (later writers win; without this a
phase-1 reader of a path two later rules write loops forever). vLLM semantics
never retract.
"""

from __future__ import annotations

import sys
import weakref
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not, not_
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from postinit.engine._paths import FrozenDict, freeze
from postinit.engine._rule import Level, Outcome, Violation
from postinit.engine._trace import (
    DEFAULT_PROVENANCE,
    Change,
    Evaluated,
    Event,
    Fired,
    Provenance,
    Source,
    StaleRead,
    Trace,
    ViolationEvent,
)
from postinit.errors import (
    NoFixedPoint,
    RuleDeclarationError,
    UndeclaredReadError,
    UndeclaredWriteError,
)

if TYPE_CHECKING:
    from postinit.engine._explain import WhyNode, WhyNot
    from postinit.engine._rulebook import CompiledRule, Rulebook

__all__ = ["EngineResult", "Semantics", "TraceLevel", "resolve_flat"]

Semantics = Literal["vllm", "consistent"]
TraceLevel = Literal["minimal", "full", "debug"]
_MAX_RUNS = 64
_NONE = 1 << 30
# values freeze() returns unchanged: checked by exact type on the hot path
_ATOMIC = frozenset({type(None), str, int, float, bool, FrozenDict})
# trace records are NamedTuples: built with tuple.__new__ on the hot path (no keyword parsing)
_tuple_new = tuple.__new__
_RULE = Source.RULE
_RETRACTED = "retracted"
_RETRACT_MESSAGE = "retracted before re-evaluation: an input of this rule changed"
_DEFAULT = Source.DEFAULT


class _StrictView(Mapping[str, Any]):
    """A read-only view that refuses paths the rule did not declare."""

    __slots__ = ("_allowed", "_rule", "_state")

    def __init__(self, state: dict[str, Any], allowed: frozenset[str], rule: str) -> None:
        self._state = state
        self._allowed = allowed
        self._rule = rule

    def __getitem__(self, path: str) -> Any:
        if path not in self._allowed:
            raise UndeclaredReadError(
                f"rule '{self._rule}' read '{path}', which it does not declare in reads", rule=self._rule, path=path
            )
        return self._state[path]

    def __iter__(self) -> Any:
        return iter(self._allowed)

    def __len__(self) -> int:
        return len(self._allowed)


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _asserted(out: Any) -> Mapping[str, Any]:
    """What a rule's result asserts: its changes with values frozen (nothing for None or a violation)."""
    if isinstance(out, Outcome):
        out = out.changes
    elif not isinstance(out, Mapping):
        return {}
    return {p: v if type(v) in _ATOMIC else freeze(v) for p, v in out.items()}


@dataclass(slots=True)
class EngineResult:
    """The outcome of resolving a flat state: final values, provenance and the trace."""

    rulebook: Rulebook
    given: dict[str, Any] | None
    """The input state (None when the resolution took its state over: see ``initial``)."""
    initial_provenance: dict[str, Provenance]
    state: dict[str, Any]
    provenance: dict[str, Provenance]
    trace: Trace
    semantics: Semantics
    history: dict[str, list[tuple[int, Any, Provenance]]] = field(default_factory=dict)
    """Per changed path: (event seq, new value, provenance), in order."""

    @property
    def initial(self) -> dict[str, Any]:
        """The input state: every path's value before any rule ran.

        Rebuilt on first use when the resolution worked on the caller's dict in place
        (``resolve_flat(..., owned=True)``): the final state with each changed path's
        first recorded old value.
        """
        given = self.given
        if given is None:
            given = dict(self.state)
            seen: set[str] = set()
            for ev in self.trace.events:
                if type(ev) is Fired:
                    for ch in ev.changes:
                        if ch.path not in seen:
                            seen.add(ch.path)
                            given[ch.path] = ch.old
            self.given = given
        return given

    @property
    def ok(self) -> bool:
        return not self.trace.violations

    @property
    def violations(self) -> tuple[ViolationEvent, ...]:
        return self.trace.violations

    @property
    def changes(self) -> dict[str, tuple[Any, Any]]:
        """Each path whose final value differs from its input: ``(input, final)``."""
        return {
            p: (self.initial[p], v)
            for p, v in self.state.items()
            if not _same(v, self.initial.get(p))
        }

    def provenance_of(self, path: str) -> Provenance:
        return self.provenance.get(path) or self.initial_provenance.get(path, DEFAULT_PROVENANCE)

    def value_at(self, path: str, seq: int) -> tuple[Any, Provenance]:
        """The value of ``path`` and its provenance just before event ``seq``."""
        value, prov = self.initial[path], self.initial_provenance.get(path, DEFAULT_PROVENANCE)
        for s, v, p in self.history.get(path, ()):
            if s >= seq:
                break
            value, prov = v, p
        return value, prov

    def why(self, path: str) -> WhyNode:
        """The causal tree of ``path``'s final value, back to inputs and facts."""
        from postinit.engine._explain import why

        return why(self, path)

    def why_not(self, path: str, value: Any) -> WhyNot:
        """Which rules could have set ``path`` to ``value``, and what stopped them."""
        from postinit.engine._explain import why_not

        return why_not(self, path, value)


def resolve_flat(
    book: Rulebook,
    initial: Mapping[str, Any] | None,
    provenance: Mapping[str, Provenance] | None = None,
    *,
    changes: Mapping[str, Any] | None = None,
    semantics: Semantics = "vllm",
    trace: TraceLevel = "full",
    strict: bool = False,
    max_runs: int = _MAX_RUNS,
    lazy: bool | None = None,
    owned: bool = False,
) -> EngineResult:
    """Resolve ``initial`` (a flat state over ``book.paths``) to a fixed point.

    ``lazy`` (default: the rulebook's ``lazy_start`` attribute, False unless set)
    starts each phase with only the rules that can do something: those reading a
    path that differs from its default or was written, and those that act on the
    defaults (found by evaluating every rule once on the defaults, the first time).
    The result is the same as evaluating every rule; the cost follows the work done.
    It evaluates each rule once more per rulebook, so leave it off for rules with
    observable side effects (call counters in tests).

    ``changes`` (with ``initial=None``) gives the state as the path space's
    defaults plus these paths, which skips the per-path passes over ``initial``
    (freezing, and finding what differs from the defaults): for large path spaces.

    ``initial`` must hold every path of the rulebook's path space (start from
    ``paths.defaults()``); it is copied with its values frozen, never mutated.
    ``owned=True`` hands a fresh dict over instead: it must hold every path with values
    already frozen (as ``PathSpace.defaults()``/``flatten`` give them); the resolution works
    on it in place, without the copy, the key check and the freezing pass. ``trace`` sets how much
    is recorded: ``minimal`` (changes only), ``full`` (plus the values each
    fired rule read, and stale reads) or ``debug`` (plus every evaluation that
    did not fire, for ``why_not``).
    """
    if semantics not in ("vllm", "consistent"):
        raise RuleDeclarationError(f"semantics must be 'vllm' or 'consistent', got {semantics!r}")
    if changes is not None:
        # the state is the defaults (already frozen) plus ``changes``: no pass over every path
        # beyond two C-level dict copies, and the dirty set is the changed paths
        unknown = changes.keys() - book.paths.paths
        if unknown:
            raise RuleDeclarationError(f"changes name unknown paths: {sorted(unknown)}", path=min(unknown))
        frozen = book.paths.defaults()
        defaults = book.paths._defaults
        dirty: set[str] = set()
        for p, v in changes.items():
            v = freeze(v)
            frozen[p] = v
            d = defaults[p]
            if d is not v and (type(d) is not type(v) or d != v):
                dirty.add(p)
        return _execute(book, frozen, provenance, semantics, trace, strict, max_runs, lazy, dirty, owned=True)
    if initial is None:
        raise RuleDeclarationError("resolve_flat needs an initial state or changes=")
    if owned and type(initial) is dict:
        return _execute(book, initial, provenance, semantics, trace, strict, max_runs, lazy, None, owned=True)
    if not initial.keys() >= book.paths.paths:
        missing = book.paths.paths - initial.keys()
        first = sorted(missing)[0]
        raise RuleDeclarationError(
            f"initial state lacks {len(missing)} paths (e.g. '{first}'); start from PathSpace.defaults()",
            path=first,
        )
    # freeze on the way in: a caller's list or dict must never reach a rule (which could mutate it)
    # (C-level passes over the values: a large state costs little per path)
    frozen = dict(initial)
    keys = list(frozen)
    for p in compress(keys, map(not_, map(_ATOMIC.__contains__, map(type, frozen.values())))):
        frozen[p] = freeze(frozen[p])
    return _execute(book, frozen, provenance, semantics, trace, strict, max_runs, lazy, None, keys)


def _execute(
    book: Rulebook,
    frozen: dict[str, Any],
    provenance: Mapping[str, Provenance] | None,
    semantics: Semantics,
    trace: TraceLevel,
    strict: bool,
    max_runs: int,
    lazy: bool | None,
    dirty: set[str] | None,
    keys: list[str] | None = None,
    owned: bool = False,
) -> EngineResult:
    run = _Run(book, frozen, provenance or {}, trace, strict, max_runs, copy=not owned)
    run.track_stale = semantics == "vllm" and trace != "minimal"
    if lazy is None:
        lazy = bool(getattr(book, "lazy_start", False))
    if lazy and not strict and trace != "debug":
        # Work-proportional start: a rule whose reads all still hold their defaults returns what
        # it returns on the defaults, which for most rules is None. Only rules that read a
        # path differing from its default (or written since), and rules that do something on
        # the defaults, are queued at the start of a phase; the others wake when a read changes.
        # (Debug traces record every evaluation and strict runs check every rule's reads: both
        # evaluate every rule.)
        run.dirty = dirty if dirty is not None else _dirty(frozen, keys or list(frozen), book.paths._defaults)
    if semantics == "vllm":
        for phase in book.phases:
            if run.stopped:
                break
            run.phase(book.compiled[phase], book.readers[phase], book.writers[phase], phase_name=phase)
    else:
        run.consistent()
    result = EngineResult(
        rulebook=book,
        given=None if owned else frozen,
        initial_provenance=dict(provenance or {}),
        state=run.state,
        provenance=run.prov,
        trace=Trace(tuple(run.events), trace),
        semantics=semantics,
        history=run.history,
    )
    _emit(result)
    return result


_ABSENT = object()


def _dirty(state: dict[str, Any], keys: list[str], defaults: dict[str, Any]) -> set[str]:
    """The paths whose value differs from the default (by value or by type)."""
    if keys == list(defaults):
        try:
            # same key order: equal-by-value paths drop out in C; a type check (True vs 1) in C too
            out = {p for p, _ in state.items() - defaults.items()}
            out.update(compress(keys, map(is_not, map(type, state.values()), map(type, defaults.values()))))
            return out
        except TypeError:  # an unhashable value
            pass
    return {
        p for p, v in state.items()
        if (d := defaults.get(p, _ABSENT)) is not v and (type(d) is not type(v) or d != v)
    }
_MUST_RUN: weakref.WeakKeyDictionary[Rulebook, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()


def _readers_of(order: tuple[CompiledRule, ...]) -> dict[str, tuple[int, ...]]:
    readers: dict[str, list[int]] = {}
    for c in order:
        for p in c.read_order:
            readers.setdefault(p, []).append(c.pos)
    return {p: tuple(v) for p, v in readers.items()}


def _must_run(book: Rulebook, order: tuple[CompiledRule, ...]) -> tuple[int, ...]:
    """Positions in ``order`` of the rules that do something on the path space's defaults.

    Evaluated once per rulebook and order, through a strict view of the defaults: a rule
    that raises, reads an undeclared path, or returns anything but None always runs.
    """
    per_book = _MUST_RUN.get(book)
    if per_book is None:
        per_book = _MUST_RUN[book] = {}
    found = per_book.get(id(order))
    if found is None:
        defaults = dict(book.paths._defaults)
        must: list[int] = []
        for c in order:
            try:
                acts = c.fn(_StrictView(defaults, c.reads, c.id)) is not None
            except Exception:
                acts = True
            if acts:
                must.append(c.pos)
        found = per_book[id(order)] = tuple(must)
    return found


class _Run:
    """The mutable state of one resolution; nothing here outlives the call."""

    def __init__(
        self,
        book: Rulebook,
        initial: Mapping[str, Any],
        provenance: Mapping[str, Provenance],
        trace: TraceLevel,
        strict: bool,
        max_runs: int,
        copy: bool = True,
    ) -> None:
        self.book = book
        self.state: dict[str, Any] = dict(initial) if copy or type(initial) is not dict else initial
        self.view: Mapping[str, Any] = MappingProxyType(self.state)
        self.prov: dict[str, Provenance] = {}
        self.initial_prov = provenance
        self.events: list[Event] = []
        self.history: dict[str, list[tuple[int, Any, Provenance]]] = {}
        self.full = trace != "minimal"
        self.debug = trace == "debug"
        self.strict = strict
        self.max_runs = max_runs
        self.stopped = False
        self.current_phase_idx = 0
        # path -> [(rule id, phase idx, phase, value read)] for fired rules of finished phases
        self.readers_log: dict[str, dict[str, tuple[int, str, Any]]] = defaultdict(dict)
        self.stale_seen: set[tuple[str, str, str]] = set()
        self.track_stale = True
        self.dirty: set[str] | None = None
        """Paths that differ from their default or were written (None: evaluate every rule)."""
        self.retracting = False
        """Consistent semantics: retract a rule's held values before it is evaluated again."""
        self.undo: dict[tuple[str, str], tuple[Any, Provenance | None]] = {}
        """(rule, path) -> the value and run provenance the rule replaced when it took the path over."""
        self.last_reads: dict[str, dict[str, Any]] = {}
        """Consistent semantics: rule -> the values it read when last evaluated."""
        self.downstream: dict[str, frozenset[str]] = {}
        """Consistent semantics: rule -> itself and the rules that read a path it writes."""
        self.same_reads = False
        """Consistent semantics: the rule being applied read what it read at its last evaluation."""
        self.last_out: dict[str, Mapping[str, Any]] = {}
        """Consistent semantics: rule -> what it asserted at its last evaluation (path -> value)."""
        self.restored_owner: dict[str, str] = {}
        """Consistent semantics: path -> the rule whose asserted value a retraction put back."""
        self.position: dict[str, int] = {}
        """Consistent semantics: rule id -> position in the global order."""

    # -- one rule -------------------------------------------------------------------

    def run_rule(
        self,
        c: CompiledRule,
        phase: str,
        readers: Mapping[str, tuple[int, ...]],
        queued: list[bool],
        writers: Mapping[str, tuple[int, ...]] | None = None,
    ) -> int:
        """Run one rule; return the lowest re-queued position (or a large number).

        A change re-queues the path's readers and the path's *later* writers: when
        a re-run earlier writer changes a path, the writers ordered after it
        re-assert their value, so the last writer in order still wins.
        (``readers``/``writers`` are precompiled into ``c.wake``; they are kept
        in the signature for callers that pass them.)
        """
        view = _StrictView(self.state, c.reads, c.id) if self.strict else self.view
        out = c.fn(view)
        if self.retracting:
            self.last_out[c.id] = _asserted(out)
        if out is None:
            if self.debug:
                state = self.state
                self.events.append(Evaluated(len(self.events), c.id, phase, {p: state[p] for p in c.read_order}))
            return _NONE
        return self.apply(c, out, phase, queued)

    def apply(self, c: CompiledRule, out: Any, phase: str, queued: list[bool]) -> int:
        """Record what a rule returned (not None); return the lowest re-queued reader position."""
        state = self.state
        changes: Mapping[str, Any]
        message: str | None
        level: Level | str | None
        if type(out) is dict or type(out) is FrozenDict:
            changes, message, level = out, None, None
        elif type(out) is Violation:
            return self._violation(c, out, phase)
        elif type(out) is Outcome:
            changes, message, level = out.changes, out.message, out.level
        elif isinstance(out, Violation):
            return self._violation(c, out, phase)
        elif isinstance(out, Outcome):
            changes, message, level = out.changes, out.message, out.level
        elif isinstance(out, Mapping):
            changes, message, level = out, None, None
        else:
            raise RuleDeclarationError(
                f"rule '{c.id}' returned {type(out).__name__}; return None, a mapping, Outcome or Violation",
                rule=c.id,
            )
        seq = len(self.events)
        full = self.full
        reads: dict[str, Any] | None = None
        made: list[Change] = []
        stale: list[tuple[str, Any]] | None = None
        lowest = _NONE
        writes = c.writes
        wake = c.wake
        prov: Provenance | None = None
        for path, new in changes.items():
            if path not in writes:
                raise UndeclaredWriteError(
                    f"rule '{c.id}' wrote '{path}', which it does not declare in writes ({c.rule.location})",
                    rule=c.id, path=path, value=new,
                )
            tn = type(new)
            # freeze()'s own fast paths, inlined: most results are scalars or tuples of scalars
            if tn not in _ATOMIC and not (tn is tuple and _ATOMIC.issuperset(map(type, new))):
                new = freeze(new)
            old = state[path]
            if old is new or (type(old) is type(new) and old == new):
                continue
            if prov is None:
                # the first change: snapshot the reads before any write, one provenance per firing
                if full:
                    reads = {p: state[p] for p in c.read_order}
                prov = _tuple_new(Provenance, (_RULE, None, c.id, seq))
            cur = self.prov.get(path)
            if self.retracting:
                if (self.same_reads and cur is not None and cur.detail != _RETRACTED
                        and self.position.get(cur.rule or "", -1) > c.pos):
                    # consistent semantics: the rule re-runs on the reads it had, so this value is
                    # what it wrote before, and a later writer has since superseded it (later wins)
                    continue
                if cur is None or cur.rule != c.id or cur.detail == _RETRACTED:
                    # the rule takes the path over from someone else: remember what to retract to
                    self.undo[(c.id, path)] = (old, cur)
                self.restored_owner.pop(path, None)
            src = cur or self.initial_prov.get(path)
            state[path] = new
            if self.dirty is not None:
                self.dirty.add(path)
            self.prov[path] = prov
            made.append(_tuple_new(Change, (path, old, new, _DEFAULT if src is None else src.source)))
            if full:
                hist = self.history.get(path)
                if hist is None:
                    self.history[path] = [(seq, new, prov)]
                else:
                    hist.append((seq, new, prov))
                if self.track_stale and path in c.stale_writes:
                    if stale is None:
                        stale = [(path, new)]
                    else:
                        stale.append((path, new))
            rd, later = wake[path]
            for j in rd:
                if not queued[j]:
                    queued[j] = True
                    if j < lowest:
                        lowest = j
            for j in later:
                queued[j] = True
        if not made:
            if message is None:
                if self.debug:
                    self.events.append(Evaluated(seq, c.id, phase, {p: state[p] for p in c.read_order}))
                return _NONE
            if full:
                reads = {p: state[p] for p in c.read_order}
        lvl = c.level if level is None else Level(level).value
        self.events.append(_tuple_new(Fired, (
            seq, c.id, phase, c.kind, tuple(made), c.message if message is None else message, lvl, reads, "fired",
        )))
        if stale:
            for path, new in stale:
                self._stale(path, new, c.id, c.phase_idx, phase)
        if reads is not None and self.track_stale and c.stale_log:
            log = self.readers_log
            rid, entry_idx = c.id, c.phase_idx
            for p in c.stale_log:
                entry = log.get(p)
                if entry is None:
                    log[p] = {rid: (entry_idx, phase, reads[p])}
                else:
                    entry[rid] = (entry_idx, phase, reads[p])
        return lowest

    def evaluate_consistent(self, c: CompiledRule, phase: str, queued: list[bool]) -> int:
        """Evaluate ``c`` under consistent semantics: retract first when an outside input changed.

        A re-evaluation retracts the rule's held values only when a path it read changed
        since its last evaluation through a rule that does not read what it writes: a change
        its own values caused (sizes derived from its max, say) is no reason for a fill-once
        default to re-decide.
        """
        state = self.state
        before = self.last_reads.get(c.id)
        self.last_reads[c.id] = {p: state[p] for p in c.read_order}
        same = before is not None
        if before is not None:
            mine = self._downstream(c.id)
            for p, v in before.items():
                now = state[p]
                if now is v or _same(now, v):
                    continue
                same = False
                cur = self.prov.get(p)
                if cur is None or cur.rule not in mine:
                    return self.rerun(c, phase, queued)
        # re-run on unchanged reads (woken by a path that changed and changed back, or as a later
        # writer): its result is what it returned last time, so it must not take back paths a later
        # writer has superseded since (that re-assertion is how a cross-phase feedback never ends)
        self.same_reads = same
        try:
            return self.run_rule(c, phase, {}, queued)
        finally:
            self.same_reads = False

    def _downstream(self, rule: str) -> frozenset[str]:
        """The rule and the rules that read a path it writes (its direct dependents)."""
        found = self.downstream.get(rule)
        if found is None:
            order = self.book.global_order
            writes = next(c.writes for c in order if c.id == rule)
            found = self.downstream[rule] = frozenset(
                [rule, *(c.id for c in order if not writes.isdisjoint(c.reads))]
            )
        return found

    def rerun(self, c: CompiledRule, phase: str, queued: list[bool]) -> int:
        """Evaluate ``c`` again after retracting the values it still holds (consistent semantics).

        The rule is evaluated on the state with its held paths back at the values it replaced
        (what it would see had it not run before). A held path it writes again is left to its
        result (an unchanged value: no event and nobody woken, so a net no-op wakes no cycle);
        the others are retracted as one traced change by the rule, then its result is applied.
        Return the lowest re-queued position (or a large number).
        """
        state = self.state
        held: list[tuple[str, Any, Any, Provenance | None]] = []
        for path in c.writes:
            cur = self.prov.get(path)
            if cur is None:
                continue
            if cur.detail == _RETRACTED:
                # a retraction put back a value this rule asserted: it holds the path again
                if self.restored_owner.get(path) != c.id:
                    continue
            elif cur.rule != c.id:
                continue
            if (c.id, path) in self.undo:
                before, owner = self._restore_to(c.id, path)
                if not _same(state[path], before):
                    held.append((path, state[path], before, owner))
        if not held:
            return self.run_rule(c, phase, {}, queued)
        for path, _, before, _ in held:
            state[path] = before
        try:
            out = c.fn(_StrictView(state, c.reads, c.id) if self.strict else self.view)
        finally:
            for path, now, _, _ in held:
                state[path] = now
        again = self.last_out[c.id] = _asserted(out)
        # a path the rule writes again is simply overwritten by its result: only the rest is retracted
        gone = [h for h in held if h[0] not in again]
        low = self.retract(c, phase, queued, gone) if gone else _NONE
        if out is None:
            if self.debug:
                self.events.append(Evaluated(len(self.events), c.id, phase, {p: state[p] for p in c.read_order}))
            return low
        return min(low, self.apply(c, out, phase, queued))

    def _restore_to(self, rule: str, path: str) -> tuple[Any, Provenance | None]:
        """The value ``path`` takes when ``rule`` gives it back, and the rule still asserting it (if any).

        That is what ``rule`` replaced, unless the rule that had set that value no longer
        asserts it (it re-decided meanwhile without holding the path): then what *that* rule
        replaced, and so on back to the input.
        """
        value, prov = self.undo[(rule, path)]
        seen = {rule}
        while prov is not None and prov.rule is not None and prov.detail != _RETRACTED and prov.rule not in seen:
            owner = prov.rule
            seen.add(owner)
            asserted = self.last_out.get(owner)
            if asserted is None:
                return value, prov
            if path in asserted:
                return asserted[path], prov
            previous = self.undo.get((owner, path))
            if previous is None:
                return value, None
            value, prov = previous
        return value, None

    def retract(
        self, c: CompiledRule, phase: str, queued: list[bool], gone: list[tuple[str, Any, Any, Provenance | None]],
    ) -> int:
        """Put each ``(path, held value, value before, owner)`` of ``gone`` back, as one traced change by ``c``.

        The provenance says ``c`` retracted it; when the value put back is one another rule
        still asserts (``owner``), that rule holds the path again (it gives it back in turn if
        it re-decides). Wakes each path's readers and later writers like any change; return
        the lowest re-queued position (or a large number).
        """
        state = self.state
        seq = len(self.events)
        prov = Provenance(_RULE, _RETRACTED, c.id, seq)
        made: list[Change] = []
        lowest = _NONE
        for path, now, before, owner in gone:
            src = self.prov[path].source
            state[path] = before
            if self.dirty is not None:
                self.dirty.add(path)
            self.prov[path] = prov
            if owner is not None and owner.rule is not None:
                self.restored_owner[path] = owner.rule
            else:
                self.restored_owner.pop(path, None)
            made.append(Change(path, now, before, src))
            if self.full:
                self.history.setdefault(path, []).append((seq, before, prov))
            rd, later = c.wake[path]
            for j in rd:
                if not queued[j]:
                    queued[j] = True
                    if j < lowest:
                        lowest = j
            for j in later:
                queued[j] = True
        reads = {p: state[p] for p in c.read_order} if self.full else None
        self.events.append(Fired(seq, c.id, phase, c.kind, tuple(made), _RETRACT_MESSAGE, Level.DEBUG.value, reads))
        return lowest

    def _violation(self, c: CompiledRule, out: Violation, phase: str) -> int:
        state = self.state
        self.events.append(ViolationEvent(
            len(self.events), c.id, phase, out.message, out.hint, out.error,
            {p: state[p] for p in c.read_order} if self.full else None,
            stage=c.rule.stage,
        ))
        self.stopped = True
        return _NONE

    def _source_of(self, path: str) -> Source:
        prov = self.prov.get(path) or self.initial_prov.get(path)
        return prov.source if prov is not None else Source.DEFAULT

    def _stale(self, path: str, new: Any, by: str, by_idx: int, by_phase: str) -> None:
        log = self.readers_log.get(path)
        if not log:
            return
        for rid, (idx, phase, value) in log.items():
            if idx < by_idx and rid != by and not _same(value, new):
                key = (rid, path, by)
                if key in self.stale_seen:
                    continue
                self.stale_seen.add(key)
                self.events.append(StaleRead(len(self.events), rid, phase, path, value, new, by, by_phase))

    # -- fixed points -------------------------------------------------------------------

    def phase(
        self,
        order: tuple[CompiledRule, ...],
        readers: Mapping[str, tuple[int, ...]] | None = None,
        writers: Mapping[str, tuple[int, ...]] | None = None,
        *,
        phase_name: str | None = None,
        skip_checks: bool = False,
        only_checks: bool = False,
    ) -> None:
        """Run ``order`` to its fixed point (``readers``/``writers`` are precompiled in each rule's ``wake``)."""
        n = len(order)
        dirty = self.dirty
        if dirty is None:
            queued = [True] * n
        else:
            queued = [False] * n
            for j in _must_run(self.book, order):
                queued[j] = True
            if readers is None:
                readers = _readers_of(order)
            for p in dirty:
                for j in readers.get(p, ()):
                    queued[j] = True
        runs = [0] * n
        max_runs = self.max_runs
        filtered = skip_checks or only_checks
        plain = not (self.strict or self.debug)
        view = self.view
        apply = self.apply
        retracting = self.retracting
        i = 0
        while True:
            back = _NONE
            while i < n:
                if not queued[i]:
                    # jump to the next queued rule (a C-speed scan: a large phase where few
                    # rules are queued costs little per skipped rule)
                    try:
                        i = queued.index(True, i)
                    except ValueError:
                        break
                if queued[i]:
                    queued[i] = False
                    c = order[i]
                    if filtered and ((skip_checks and c.is_check) or (only_checks and not c.is_check)):
                        i += 1
                        continue
                    runs[i] += 1
                    if runs[i] > max_runs:
                        self._no_fixed_point(order, runs, phase_name or c.phase)
                    name = phase_name or c.phase
                    if retracting:
                        low = self.evaluate_consistent(c, name, queued)
                    elif plain:
                        out = c.fn(view)
                        if out is None:
                            i += 1
                            continue
                        low = apply(c, out, name, queued)
                    else:
                        low = self.run_rule(c, name, readers or {}, queued, writers)
                    if self.stopped:
                        return
                    if low < i and low < back:
                        back = low
                i += 1
            if back >= n:
                return
            i = back

    def consistent(self) -> None:
        book = self.book
        self.retracting = True
        self.position = {c.id: c.pos for c in book.global_order}
        self.phase(book.global_order, book.global_readers, book.global_writers, skip_checks=True)
        if not self.stopped:
            self.phase(book.global_order, book.global_readers, only_checks=True)

    def _no_fixed_point(self, order: tuple[CompiledRule, ...], runs: list[int], phase: str) -> None:
        looping = [order[k].rule.id for k in range(len(order)) if runs[k] >= self.max_runs]
        flips: dict[str, list[Any]] = {}
        for ev in self.events:
            if isinstance(ev, Fired) and ev.rule in looping:
                for ch in ev.changes:
                    flips.setdefault(ch.path, [ch.old]).append(ch.new)
        shown = "; ".join(
            f"{p}: {' -> '.join(repr(v) for v in vals[:6])}{' ...' if len(vals) > 6 else ''}" for p, vals in flips.items()
        )
        raise NoFixedPoint(
            f"no fixed point in phase '{phase}' after {self.max_runs} runs of rules {', '.join(looping)}; "
            f"values kept flipping: {shown or '(no recorded changes; use trace=full)'}",
            rules=tuple(looping), flips=flips, path=next(iter(flips), None),
        )




def _emit(result: EngineResult) -> None:
    """Send the trace to structlog as events, when the application configured structlog.

    structlog is not imported here (it costs ~0.1 s of start-up): an application
    that configured it has imported it already.
    """
    structlog = sys.modules.get("structlog")
    if structlog is None or not structlog.is_configured():
        return
    _log = structlog.get_logger("postinit.engine")
    for ev in result.trace.events:
        if isinstance(ev, Fired):
            method = getattr(_log, ev.level if ev.level != "error" else "warning")
            if not ev.changes:
                method("rule_fired", rule=ev.rule, phase=ev.phase, message=ev.message)
            for ch in ev.changes:
                method("rule_fired", rule=ev.rule, phase=ev.phase, path=ch.path, old=ch.old, new=ch.new,
                       message=ev.message)
        elif isinstance(ev, ViolationEvent):
            _log.error("rule_violation", rule=ev.rule, phase=ev.phase, message=ev.message, error=ev.error)
        elif isinstance(ev, StaleRead):
            _log.warning("stale_read", rule=ev.rule, phase=ev.phase, path=ev.path, read=ev.read, now=ev.now,
                         by=ev.by)
