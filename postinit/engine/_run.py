"""One resolution's state and result: what every run loop shares (the bottom of the engine's house).

:class:`Run` is the mutable state of one resolution: calling a rule with the right view of
the state, and its one recorder (``Run.apply``) making what a rule's result asks for
(:func:`~postinit.engine._effect.effect_of`) — changes, provenance, history, the trace
events. The loops above it (:mod:`._ordered`, :mod:`._compiled`, :mod:`._consistent`) decide
only *which* rule runs next; :mod:`._resolve` picks the loop. :class:`EngineResult` is what a
resolution returns; ``why`` / ``why_not`` are functions over it (:mod:`._explain`).

Trace levels: ``minimal`` records changes; ``full`` also the values each fired rule
declared it reads, the history of every path and stale reads; ``debug`` records
every evaluation, and its reads are the ones the rule body actually consulted, in
the order it consulted them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from postinit.engine._effect import Effect, effect_of, statement
from postinit.engine._paths import FrozenDict, freeze, scalar_tuple
from postinit.engine._rule import Matched
from postinit.engine._trace import (
    DEFAULT_PROVENANCE,
    Change,
    Evaluated,
    Event,
    Fired,
    Provenance,
    Source,
    Trace,
    ViolationEvent,
)
from postinit.engine._views import ConsultedView, StrictView
from postinit.errors import (
    NoFixedPoint,
    PostinitError,
    RuleBodyError,
    UndeclaredWriteError,
    show,
)

if TYPE_CHECKING:
    from postinit.engine._compiled import Recording
    from postinit.engine._explain import WhyNode, WhyNot
    from postinit.engine._rulebook import CompiledRule, Rulebook

__all__ = ["EngineResult", "Run", "Semantics", "TraceLevel"]

Semantics = Literal["ordered", "consistent"]
"""The engine's two semantics: statement order (phases one after another, each to its own fixed point)
and one consistent fixed point. A rulebook may give them names of its own (``semantics_aliases``)."""
TraceLevel = Literal["minimal", "full", "debug"]
MAX_RUNS = 64
"""How often one rule may run in one fixed point before the engine calls it an oscillation."""
_ATOMIC = frozenset({type(None), str, int, float, bool, FrozenDict})
"""Types :func:`freeze` returns unchanged."""
_new = tuple.__new__
_NO_PATHS: list[str] = []
"""What the recorder returns when nothing changed (shared: never appended to)."""
_RULE = Source.RULE
_DEFAULT = Source.DEFAULT


def differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> set[str]:
    """The paths whose values differ between two states over the same paths (by value or by type).

    States built the same way share most value objects and their key order: those are
    skipped in C (identity), and only the rest compared.
    """
    maybe: Iterable[str] = a
    if list(a) == list(b):
        maybe = compress(a, map(is_not, a.values(), b.values()))
    return {p for p in maybe if not same(a[p], b.get(p))}


def same(a: Any, b: Any) -> bool:
    """Equal as a rule's change detection sees it: identical, or equal with the same type (True is not 1)."""
    return a is b or (type(a) is type(b) and a == b)


def frozen(value: Any) -> Any:
    """:func:`freeze` with its common cases (scalars, tuples of scalars) answered inline."""
    t = type(value)
    if t in _ATOMIC or (t is tuple and (_SEEN.get(id(value)) is value or flat_tuple(value))):
        return value
    return freeze(value)


_SEEN: dict[int, tuple[Any, ...]] = {}
"""Long tuples of scalars already checked, by identity (a cached helper returns the same tuple for the same
inputs: a 513-entry padding table is checked once, not at every write). Holds them, so an id stays theirs."""


def flat_tuple(value: tuple[Any, ...]) -> bool:
    """A tuple of scalars (frozen as it is); a long one is remembered by identity."""
    return scalar_tuple(value, _ATOMIC, _SEEN)


# --------------------------------------------------------------------------- the result


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
    kept_history: dict[str, list[tuple[int, Any, Provenance]]] | None = field(default=None, repr=False)
    """The history as the run kept it (consistent semantics, whose retractions the trace does not mark); None:
    derived from the trace on first use (statement order: every write is a traced change). See ``history``."""
    recording: Recording | None = None
    """The schedule, when recorded (``resolve_flat(..., record=True)``): what :meth:`replay` follows."""

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
        """Each path whose final value differs from its input: ``(input, final)``, in the state's order.

        Every write a run makes is a traced :class:`Change` (retractions included), so only the
        paths the trace names can differ: those are compared, not the whole state.
        """
        initial, state = self.initial, self.state
        touched = {ch.path for ev in self.trace.events if type(ev) is Fired for ch in ev.changes}
        return {p: (initial[p], state[p]) for p in state if p in touched and not same(state[p], initial.get(p))}

    @property
    def history(self) -> dict[str, list[tuple[int, Any, Provenance]]]:
        """Per changed path: (event seq, new value, provenance), in order (``full`` and ``debug`` traces)."""
        kept = self.kept_history
        if kept is None:
            kept = {}
            if self.trace.level != "minimal":
                for ev in self.trace.events:
                    if type(ev) is Fired:
                        pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
                        for ch in ev.changes:
                            found = kept.get(ch.path)
                            if found is None:
                                kept[ch.path] = [(ev.seq, ch.new, pv)]
                            else:
                                found.append((ev.seq, ch.new, pv))
            self.kept_history = kept
        return kept

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


# --------------------------------------------------------------------------- what the loops share


class Run:
    """The mutable state of one resolution and the recording of each rule's outcome.

    Subclasses (the run loops) decide which rule runs next; :meth:`step` runs one
    rule and returns the paths it changed, whose readers the loop wakes.
    """

    def __init__(
        self,
        book: Rulebook,
        state: dict[str, Any],
        provenance: Mapping[str, Provenance],
        trace: TraceLevel,
        strict: bool,
        max_runs: int,
        select: frozenset[str] | None = None,
    ) -> None:
        self.book = book
        self.select = select
        """The only rules that run (None: all of them)."""
        self.state = state
        self.view: Mapping[str, Any] = MappingProxyType(state)
        self.prov: dict[str, Provenance] = {}
        """The provenance of every value a rule wrote (the others keep ``initial_prov``)."""
        self.initial_prov = provenance
        self.events: list[Event] = []
        self.history: dict[str, list[tuple[int, Any, Provenance]]] = {}
        """Per changed path its writes, kept only where the trace cannot give them (``keeps_history``)."""
        self.full = trace != "minimal"
        self.debug = trace == "debug"
        self.strict = strict
        self.max_runs = max_runs
        self.stopped = False
        """A violation stopped the resolution (as vLLM's exception does)."""
        self.current: CompiledRule | None = None
        """The rule being evaluated (named when its body raises)."""
        self.detail: str | None = None
        """The provenance detail of the writes being recorded (consistent semantics' retractions)."""
        self.apply = self.recorder()

    def close(self) -> None:
        """Drop the recorder, the run's one reference cycle (its closure holds the run): a finished run is then
        freed as soon as its result took what it needs, not at the next cyclic garbage collection."""
        self.__dict__.pop("apply", None)

    keeps_history = True
    """The run keeps each path's history as it goes (a loop whose writes all carry no provenance detail
    leaves it to :attr:`EngineResult.history`, which derives it from the trace)."""

    def run(self) -> None:
        """Resolve the whole state (the run loop of the semantics)."""
        raise NotImplementedError

    # -- one rule ------------------------------------------------------------------

    def call(self, c: CompiledRule) -> tuple[Any, tuple[str, ...] | None]:
        """Evaluate ``c`` on the current state: its result and, in debug traces, the paths it consulted."""
        self.current = c
        if self.debug:
            view = ConsultedView(self.state, c.reads if self.strict else None, c.id)
            return c.fn(view), tuple(view.consulted)
        if self.strict:
            return c.fn(StrictView(self.state, c.reads, c.id)), None
        return c.fn(self.view), None

    def step(self, c: CompiledRule, phase: str) -> Iterable[str]:
        """Run one rule and record its outcome; return the paths it changed."""
        if c.members and (self.debug or self.strict):
            return self.step_members(c, phase)
        out, consulted = self.call(c)
        return self.record(c, out, phase, consulted)

    def step_members(self, c: CompiledRule, phase: str) -> list[str]:
        """A group statement whose members each get their own view (debug traces and strict mode).

        The statement's semantics are :func:`statement`'s; only the views differ: a debug trace
        shows what the gate and each member consulted (the members that returned nothing
        included), and strict mode holds each member to its own declared reads.
        """
        group = self.book.groups[c.id]
        strict = self.strict
        seen: list[tuple[CompiledRule | None, ConsultedView]] = []

        def views(m: CompiledRule | None) -> Mapping[str, Any]:
            allowed = (frozenset(group.when_reads) if m is None else m.reads) if strict else None
            self.current = c if m is None else m
            view = ConsultedView(self.state, allowed, c.id if m is None else m.id)
            seen.append((m, view))
            return view

        matched = statement(group.kind, group.when, c.members, self.view, views)
        decided = dict(matched.results) if matched is not None else {}
        if matched is None and group.when is not None and seen and len(seen) == 1:  # the gate said no
            if self.debug:
                self.apply(c, None, phase, seen[0][1].consulted)
            return []
        # what a member's decision consulted: the gate, and in a first_match the members tried before it
        first = group.kind == "first_match"
        decided_by: dict[str, None] = {}
        found: list[tuple[CompiledRule, Any, tuple[str, ...]]] = []
        for m, view in seen:
            if m is None:
                decided_by.update(view.consulted)
            elif m not in decided:
                if self.debug:
                    self.apply(m, None, phase, view.consulted)
                if first:
                    decided_by.update(dict.fromkeys(view.consulted))
            else:
                found.append((m, decided[m], tuple({**decided_by, **dict.fromkeys(view.consulted)})))
        changed: list[str] = []
        for m, out, consulted in found:
            changed += self.apply(m, effect_of(m, out), phase, consulted if self.debug else m.read_order)
            if self.stopped:
                break
        return changed

    def record(self, c: CompiledRule, out: Any, phase: str, consulted: tuple[str, ...] | None = None) -> list[str]:
        """Record what a rule (or a group statement, member by member) returned. Return the changed paths."""
        if type(out) is Matched:  # a group statement: each deciding member's result, under its own id
            changed: list[str] = []
            for m, result in out.results:
                changed += self.apply(m, effect_of(m, result), phase, m.read_order)
                if self.stopped:
                    break
            return changed
        return self.apply(c, effect_of(c, out), phase, c.read_order if consulted is None else consulted)

    def recorder(self) -> Callable[[CompiledRule, Effect | None, str, Iterable[str]], list[str]]:
        """The run's recorder (``self.apply``): the only place a rule's trace event is made.

        ``apply(c, effect, phase, reads_of)`` makes one rule's effect on the state — change
        detection, freezing, provenance, history — and its trace event, and returns the paths
        it changed (the stale reads a firing causes are :meth:`fired`'s). ``effect`` None is an
        evaluation that decided nothing (an :class:`Evaluated` event in debug traces);
        ``reads_of`` are the paths the event shows as read. A closure over the run's state: it
        is the hot path of every resolution.
        """
        events = self.events
        append = events.append
        state = self.state
        prov_of = self.prov
        prov_get = prov_of.get
        init_get = self.initial_prov.get
        history = self.history
        full, debug = self.full, self.debug
        keep = full and self.keeps_history
        seen = _SEEN.get
        vetoes = type(self).may_write is not Run.may_write
        may_write = self.may_write
        fired = None if type(self).fired is Run.fired else self.fired

        def apply(c: CompiledRule, eff: Effect | None, phase: str, reads_of: Iterable[str]) -> list[str]:
            if eff is None:
                if debug:
                    append(_new(Evaluated, (len(events), c.id, phase, {p: state[p] for p in reads_of}, "evaluated")))
                return _NO_PATHS
            changes, message, level, violation = eff
            if violation is not None:
                append(ViolationEvent(len(events), c.id, phase, violation.message, violation.hint, violation.error,
                                      {p: state[p] for p in reads_of} if full else None, stage=c.rule.stage))
                self.stopped = True
                return _NO_PATHS
            writes = c.writes
            made: list[Change] | None = None
            changed = _NO_PATHS
            for path, new in changes.items():
                if path not in writes:
                    raise UndeclaredWriteError(
                        f"rule '{c.id}' wrote '{path}', which it does not declare in writes ({c.rule.location})",
                        rule=c.id, path=path, value=new,
                    )
                tn = type(new)
                if tn not in _ATOMIC and not (tn is tuple and (seen(id(new)) is new or flat_tuple(new))):
                    new = freeze(new)
                old = state[path]
                if old is new or (type(old) is type(new) and old == new):
                    continue
                cur = prov_get(path)
                if vetoes and not may_write(c, path, old, cur):
                    continue
                if made is None:
                    made = []
                    changed = []
                    seq = len(events)
                    # the reads as the rule saw them: before any of its own writes
                    reads = {p: state[p] for p in reads_of} if full else None
                    pv = _new(Provenance, (_RULE, self.detail, c.id, seq))
                src = cur or init_get(path)
                state[path] = new
                prov_of[path] = pv
                made.append(_new(Change, (path, old, new, _DEFAULT if src is None else src.source)))
                changed.append(path)
                if keep:
                    hist = history.get(path)
                    if hist is None:
                        history[path] = [(seq, new, pv)]
                    else:
                        hist.append((seq, new, pv))
            if made is None:
                seq = len(events)
                if message is None:
                    if debug:
                        append(_new(Evaluated, (seq, c.id, phase, {p: state[p] for p in reads_of}, "evaluated")))
                    return changed
                made = []
                reads = {p: state[p] for p in reads_of} if full else None
            append(_new(Fired, (
                seq, c.id, phase, c.kind, tuple(made), c.plain if message is None else message,
                c.level if level is None else level, reads, "fired",
            )))
            if fired is not None and full and c.stale:
                fired(c, phase, changed)
            return changed

        return apply

    def may_write(self, c: CompiledRule, path: str, old: Any, cur: Provenance | None) -> bool:
        """Whether ``c`` takes ``path`` over (consistent semantics may refuse); the default is yes."""
        return True

    def fired(self, c: CompiledRule, phase: str, changed: list[str]) -> None:
        """Called after a firing of a rule that may make or suffer a stale read (``c.stale``) was recorded
        in a full trace (statement order tracks stale reads here)."""

    def _snapshot(self, paths: Iterable[str]) -> dict[str, Any]:
        state = self.state
        return {p: state[p] for p in paths}

    # -- the fixed point -------------------------------------------------------------

    def fixed_point(
        self, order: tuple[CompiledRule, ...], phase: str | None = None,
        keep: Callable[[CompiledRule], bool] | None = None,
    ) -> None:
        """Run ``order`` to its fixed point: sweep forward, then again from the lowest rule re-queued behind.

        A change wakes the readers of the changed path and its later writers (precompiled
        in each rule's ``wake``): an earlier writer never re-runs because a later one changed
        the path, so the last writer in order wins (vLLM's statement order). ``keep`` filters
        the rules that run (consistent semantics runs its checks last).
        """
        n = len(order)
        if self.select is not None:
            # a group statement (first_match / all_of) runs whole when any of its members is chosen
            chosen, only = self.select, keep
            keep = ((lambda c: not chosen.isdisjoint(c.ids)) if only is None
                    else (lambda c: not chosen.isdisjoint(c.ids) and only(c)))
        queued = [True] * n
        runs = [0] * n
        i = 0
        try:
            while True:
                back = n
                while i < n:
                    if not queued[i]:
                        i += 1
                        continue
                    queued[i] = False
                    c = order[i]
                    if keep is not None and not keep(c):
                        i += 1
                        continue
                    runs[i] += 1
                    if runs[i] > self.max_runs:
                        self.no_fixed_point(order, runs, phase or c.phase)
                    for path in self.step(c, phase or c.phase):
                        readers, later = c.wake[path]
                        for j in readers:
                            if not queued[j]:
                                queued[j] = True
                                if j < i and j < back:
                                    back = j
                        for j in later:
                            queued[j] = True
                    if self.stopped:
                        return
                    i += 1
                if back >= n:
                    return
                i = back
        except PostinitError:
            raise
        except Exception as e:  # a bug in a rule body: name the rule and what it read
            raise self.rule_failed(e) from e

    def rule_failed(self, error: Exception) -> RuleBodyError:
        """The error of a rule body that raised: the rule, its source and the values it read."""
        c = self.current
        if c is None:  # pragma: no cover - the loop failed outside any rule
            return RuleBodyError(f"the engine failed outside any rule: {type(error).__name__}: {error}")
        state = self.state
        reads = ", ".join(f"{p}={show(state.get(p), 40)}" for p in c.read_order)
        return RuleBodyError(
            f"rule '{c.id}' ({c.rule.location}) raised {type(error).__name__}: {show(str(error), 200)[1:-1]}; "
            f"it read {reads}", rule=c.id, value={p: state.get(p) for p in c.read_order})

    def no_fixed_point(self, order: tuple[CompiledRule, ...], runs: list[int], phase: str) -> None:
        looping = [order[k].id for k in range(len(order)) if runs[k] >= self.max_runs]
        ids = {i for k in range(len(order)) if runs[k] >= self.max_runs for i in order[k].ids}
        flips: dict[str, list[Any]] = {}
        for ev in self.events:
            if isinstance(ev, Fired) and ev.rule in ids:
                for ch in ev.changes:
                    flips.setdefault(ch.path, [ch.old]).append(ch.new)
        shown = "; ".join(
            f"{p}: {' -> '.join(show(v) for v in vals[:6])}{' ...' if len(vals) > 6 else ''}" for p, vals in flips.items()
        )
        raise NoFixedPoint(
            f"no fixed point in phase '{phase}' after {self.max_runs} runs of rules {', '.join(looping)}; "
            f"values kept flipping: {shown or '(no recorded changes; use trace=full)'}",
            rules=tuple(looping), flips=flips, path=next(iter(flips), None),
        )
