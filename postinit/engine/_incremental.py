"""Incremental re-resolution: another state of the same rulebook, computed from a recorded run.

A recorded resolution (``resolve_flat(..., record=True)``) keeps its schedule: every evaluation of
every phase, what it returned and the paths its rule body actually consulted
(:class:`~postinit.engine._compiled.Recording`). :func:`replay` resolves another state of the
same rulebook from it, equal in every respect (state, trace, provenance, history, stale reads,
errors) to resolving that state from scratch:

* it starts from the changed input paths: ``dirty`` holds each path whose value differs from the
  recorded run's *at the same point of the schedule* (with the recorded value), ``sources`` each
  path whose provenance source differs (a change records where the value it replaced came from);
* per phase, a reverse index of the recorded evaluations (:class:`_PhaseIndex`: path -> the
  evaluations that consulted it, path -> those whose result names it) gives the evaluations to
  look at: those that consulted a dirty path run again; those that fired are reused (their
  recorded events copied, renumbered when the number of events before them moved) unless what
  they wrote or showed meets a dirty path, when their recorded result is recorded again;
* after each evaluation that ran again, the paths either run wrote are compared with the recorded
  run's values there: a path back to its recorded value is clean again (early cutoff, Salsa's
  backdating), so the readers further on stay untouched; a phase none of whose paths is dirty is
  copied whole;
* the recorded schedule order is what keeps statement order exact: an evaluation runs at its
  recorded place, so a stale read, a first-match chain or a fill-once default decides on the
  state it met in the recorded run, changed only where the change reached. The schedule stays the
  recorded one while what each evaluation changed wakes the same rules: in a phase's first sweep
  only a changed path whose readers sit *before* its writer can re-queue a rule (a feedback), so
  other differences leave the schedule as it was; when a difference does re-queue another rule
  (or the recorded run stopped where this one goes on), the compiled sweep finishes the phase
  from that point of the schedule and the next phases follow the recording again from what
  differs at the phase's end.

Consistent semantics, debug traces, strict mode and runs without a recording are resolved from
scratch (:func:`~postinit.engine.resolve_flat`).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from postinit.engine._compiled import CompiledRun, Program, Recording, program_of
from postinit.engine._effect import Effect, effect_of
from postinit.engine._resolve import emit, resolve_flat
from postinit.engine._rule import Matched
from postinit.engine._run import MAX_RUNS, EngineResult, TraceLevel, differing, same
from postinit.engine._trace import Fired, Provenance, Source, StaleRead, Trace, ViolationEvent
from postinit.errors import PostinitError

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule, Rulebook

__all__ = ["replay"]

_new = tuple.__new__
_RULE = Source.RULE
_DEFAULT = Source.DEFAULT
_NOTHING: frozenset[str] = frozenset()


def replay(base: EngineResult, initial: dict[str, Any] | None, provenance: Mapping[str, Provenance] | None = None, *,
           strict: bool = False, record: bool = False, changed: Collection[str] | None = None,
           updates: Mapping[str, Any] | None = None) -> EngineResult:
    """Resolve another state of ``base``'s rulebook from ``base``'s recorded run (see the module docstring).

    Exactly ``resolve_flat(book, initial, provenance, semantics=..., trace=...)`` of the new state —
    the same state, trace, provenance and history — computed from the recorded one. ``initial`` is
    taken over (as ``owned=True``: a fresh dict of frozen values). ``changed`` (optional) names every
    path whose value or provenance may differ from ``base``'s input: only those are compared (the
    incremental front door knows them). Resolutions that cannot be re-resolved incrementally
    (consistent semantics, debug traces, strict mode, no recording) and ``record=True`` (a recorded
    run keeps its own schedule) are resolved from scratch.

    ``initial=None`` with ``updates``: the new input is ``base``'s with ``updates`` (frozen values) set, and
    ``provenance`` (a fresh dict: the new input's whole provenance) is taken over too — what the incremental
    front door gives, so that the input state is copied once, from the base's input or, when the recorded run
    holds as it is, from its final state.
    """
    before = base.initial
    if initial is None:
        if updates is None:
            raise TypeError("replay needs an initial state or updates=")
        prov = provenance if type(provenance) is dict else dict(provenance or {})
    else:
        prov = dict(provenance or {})
    level: TraceLevel = base.trace.level  # type: ignore[assignment]
    rec = base.recording
    if (rec is None or base.semantics != "ordered" or strict or level == "debug" or rec.trace != level
            or record):
        if initial is None:
            initial = dict(before)
            initial.update(updates or {})
        return resolve_flat(base.rulebook, initial, prov, semantics=base.semantics, trace=level, strict=strict,
                            owned=True, record=record)
    base_prov = base.initial_provenance
    maybe: Collection[str]
    if changed is None:
        maybe = differing(initial, before) if initial is not None else updates.keys()  # type: ignore[union-attr]
        maybe_source: Collection[str] = prov.keys() | base_prov.keys()
    else:  # the caller knows which paths can differ: only those are compared
        maybe = maybe_source = changed
    if initial is not None:
        now_of: Mapping[str, Any] = initial
        dirty = {p: before[p] for p in maybe if not same(initial[p], before[p])}
    else:  # a path not among the updates holds the base's input
        now_of = updates  # type: ignore[assignment]
        dirty = {p: before[p] for p in maybe if p in now_of and not same(now_of[p], before[p])}
    sources: dict[str, Source] = {}
    for p in maybe_source:
        now, was = prov.get(p), base_prov.get(p)
        was_source = _DEFAULT if was is None else was.source
        if (_DEFAULT if now is None else now.source) != was_source:
            sources[p] = was_source
    book = base.rulebook
    if _untouched(base, rec, dirty, sources, level != "minimal"):
        # no evaluation consulted, named, showed or changed a path that differs: the recorded run is this one's
        # (its events, writes and provenance as they are; only the input paths hold their new values)
        result: EngineResult
        if initial is None:  # the recorded final state with the paths whose input differs set (no rule wrote one)
            new = {p: now_of[p] for p in dirty}
            result = _SharedRun(base.state, new, book, prov, dict(base.provenance), base.trace)
        else:
            initial.update(_written_until(rec, book, len(rec.bounds) - 1))  # none of them differs (a path a result
            # names is in the indexes)
            result = EngineResult(rulebook=book, given=None, initial_provenance=prov, state=initial,
                                  provenance=dict(base.provenance), trace=base.trace, semantics="ordered")
        emit(result)
        return result
    if initial is None:
        initial = dict(before)
        initial.update(updates)  # type: ignore[arg-type]
    run = CompiledRun(book, initial, prov, level, False, MAX_RUNS)
    _Replay(run, rec, base, dirty, sources).run()
    result = EngineResult(rulebook=book, given=None, initial_provenance=prov, state=run.state, provenance=run.prov,
                          trace=Trace(tuple(run.events), level), semantics="ordered")
    run.close()
    emit(result)
    return result


_STATE: Any = EngineResult.__dict__["state"]
"""``EngineResult.state``'s slot (what :class:`_SharedRun` keeps its state in, once made)."""


class _SharedRun(EngineResult):
    """A replay whose recorded run holds whole: its final state is the recorded one with the changed input paths set
    (no rule wrote one of them). Made on first read, so a replay nobody reads the state of never copies it."""

    __slots__ = ("_recorded", "_updates")

    def __init__(self, recorded: dict[str, Any], updates: Mapping[str, Any], book: Rulebook,
                 initial_provenance: dict[str, Provenance], provenance: dict[str, Provenance], trace: Trace) -> None:
        self._recorded = recorded
        self._updates = updates
        EngineResult.__init__(self, book, None, initial_provenance, None, provenance, trace, "ordered")  # type: ignore[arg-type]

    @property
    def state(self) -> dict[str, Any]:
        found: dict[str, Any] | None = _STATE.__get__(self, EngineResult)
        if found is None:
            found = dict(self._recorded)
            found.update(self._updates)
            _STATE.__set__(self, found)
        return found

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        _STATE.__set__(self, value)


def _untouched(base: EngineResult, rec: Recording, dirty: Mapping[str, Any], sources: Mapping[str, Source],
               full: bool) -> bool:
    """No recorded evaluation can differ: no phase's index names a differing path, none is never copied, and
    the recorded run went through every phase (the whole-run counterpart of a phase copied whole)."""
    book = base.rulebook
    if rec.stopped or len(rec.bounds) != len(book.phases):
        return False
    found = rec.indexes.get("whole")
    if found is None:
        by_value: set[str] = set()
        by_value_minimal: set[str] = set()
        changed: set[str] = set()
        unique = False
        for k, phase in enumerate(book.phases):
            ix = rec.indexes.get(k)
            if ix is None:
                ix = rec.indexes[k] = _PhaseIndex(rec, k, book.compiled[phase])
            by_value.update(ix.by_value)
            by_value_minimal.update(ix.by_value_minimal)
            changed.update(ix.changed)
            unique = unique or bool(ix.unique)
        found = rec.indexes["whole"] = (frozenset(by_value), frozenset(by_value_minimal), frozenset(changed), unique)
    by_value_all, by_value_minimal_all, changed_all, unique = found
    if unique:
        return False
    if dirty and not (by_value_all if full else by_value_minimal_all).isdisjoint(dirty):
        return False
    return not (sources and not changed_all.isdisjoint(sources))


def _written_until(rec: Recording, book: Any, k: int) -> dict[str, Any]:
    """Every path the recorded run wrote up to the end of phase ``k``, with its latest value there (cached)."""
    key = ("written", k)
    found: dict[str, Any] | None = rec.indexes.get(key)
    if found is None:
        found = dict(_written_until(rec, book, k - 1)) if k > 0 else {}
        a, b = rec.bounds[k]
        for ev in rec.events[a:b]:
            if type(ev) is Fired:
                for ch in ev.changes:
                    found[ch.path] = ch.new
        rec.indexes[key] = found
    return found


def _effects(c: CompiledRule, out: Any) -> list[tuple[CompiledRule, Effect]]:
    """What a statement's result asks of the run, read by the effect kernel: (rule, effect) per deciding rule."""
    if out is None:
        return []
    if type(out) is Matched:  # a group statement: each deciding member's result, under its own id
        return [(m, eff) for m, result in out.results if (eff := effect_of(m, result)) is not None]
    eff = effect_of(c, out)
    return [] if eff is None else [(c, eff)]


def _named(c: CompiledRule, out: Any) -> set[str]:
    """The paths a statement's result asks to set."""
    return {p for _, eff in _effects(c, out) for p in eff.changes}


def _same_effects(ea: list[tuple[CompiledRule, Effect]], eb: list[tuple[CompiledRule, Effect]]) -> bool:
    """The effects of two results of one statement the engine records alike: the same rules, each with the same
    effect (values compared with their types, as change detection compares them: True is not 1)."""
    if len(ea) != len(eb):
        return False
    for (ma, x), (mb, y) in zip(ea, eb, strict=True):
        if ma is not mb or x.message != y.message or x.level != y.level or x.violation != y.violation:
            return False
        if x.changes is not y.changes and not _same_changes(x.changes, y.changes):
            return False
    return True


def _same_changes(x: Mapping[str, Any], y: Mapping[str, Any]) -> bool:
    """Two mappings of changes the engine records alike (values compared with their types: True is not 1)."""
    if len(x) != len(y):
        return False
    for k, v in x.items():
        w = y.get(k, _ABSENT)
        if not (v is w or (type(v) is type(w) and v == w)):
            return False
    return True


def _same_result(c: CompiledRule, out: Any, recorded: Any, effects: list[tuple[CompiledRule, Effect]]) -> bool:
    """``out`` asks of the run what the recorded result (whose effects are ``effects``) asked: plain mappings of
    changes compared directly (a group statement's member by member), any other result by its effects
    (:func:`_same_effects`)."""
    t = type(out)
    if t is dict and type(recorded) is dict:  # a plain mapping of changes: its effect is itself
        return _same_changes(out, recorded)
    if t is Matched and type(recorded) is Matched:
        xs, ys = out.results, recorded.results
        if len(xs) != len(ys):
            return False
        for (ma, ra), (mb, rb) in zip(xs, ys, strict=True):
            if ma is not mb:
                return False
            if type(ra) is dict and type(rb) is dict:
                if not _same_changes(ra, rb):
                    return False
            elif not _same_effects(_effects(ma, ra), _effects(mb, rb)):
                return False
        return True
    return _same_effects(_effects(c, out), effects)


class _Step:
    """What one recorded evaluation did, read from its events (made for the evaluations a replay looks at)."""

    __slots__ = ("changes", "copyable", "effects", "fired", "fired_list", "named", "reads", "stale", "stale_writes",
                 "violation")

    def __init__(self, rec: Recording, c: CompiledRule, out: Any, a: int, b: int) -> None:
        changes: dict[str, tuple[Any, Any, Source]] = {}
        fired: list[str] = []
        stale: set[tuple[str, str, str]] = set()
        violation = False
        reads: set[str] = set()
        stale_writes: set[str] = set()
        logged: set[str] = set()
        for ev in rec.events[a:b]:
            t = type(ev)
            if t is Fired:
                m = c.by_id.get(ev.rule, c)
                fired.append(m.id)
                reads.update(m.read_order)
                for ch in ev.changes:
                    first = changes.get(ch.path)
                    changes[ch.path] = (ch.old if first is None else first[0], ch.new,
                                        ch.old_source if first is None else first[2])
                    if ch.path in m.stale_writes:
                        stale_writes.add(ch.path)
                logged.update(m.stale_log)
            elif t is ViolationEvent:
                violation = True
                m = c.by_id.get(ev.rule, c)
                reads.update(m.read_order)
            elif t is StaleRead:
                stale.add((ev.rule, ev.path, ev.by))
        self.changes = changes
        """Path -> (its first old value, its last new value, the old value's source)."""
        self.fired = tuple(fired)
        """The ids recorded as fired, in order."""
        self.fired_list = fired
        self.stale = stale
        self.violation = violation
        self.reads = frozenset(reads)
        """The declared reads the events show (a copied event shows the values they hold now)."""
        self.stale_writes = frozenset(stale_writes)
        self.effects = _effects(c, out)
        """What the recorded result asks of the run (the effect kernel's reading of it)."""
        self.named = frozenset(p for _, eff in self.effects for p in eff.changes)
        # a copy logs what the firings read as the state holds it after the whole evaluation: not when one
        # member of a statement logs a read another member writes
        self.copyable = not violation and logged.isdisjoint(changes)


class _PhaseIndex:
    """One recorded phase, indexed for replays: computed once per recording and phase, on first use.

    Reverse indexes from a path to the evaluations it can make differ — those that consulted it,
    whose result names it, whose events show it (the declared reads of a firing: its trace entry and
    the stale-read log), whose events record where its replaced value came from, or whose change of
    it a stale read watches — so that a replay looks only at those; the recorded events between them
    are copied as slices (renumbered, cached per slice and shift).
    """

    __slots__ = ("_details", "by_value", "by_value_keys", "by_value_minimal", "by_value_minimal_keys", "changed",
                 "changed_keys", "end", "k", "member", "named", "order", "plan", "readers", "rec", "restart", "shows",
                 "spans", "start", "steps", "unique", "watched", "watched_keys")

    def __init__(self, rec: Recording, k: int, order: tuple[CompiledRule, ...]) -> None:
        self.rec = rec
        self.k = k
        self.order = order
        steps = self.steps = rec.steps[k]
        self.start, self.end = rec.bounds[k]
        end = self.end
        self.spans: list[tuple[int, int]] = [
            (before, steps[j + 1][2] if j + 1 < len(steps) else end) for j, (_, _, before, _) in enumerate(steps)]
        self.plan: list[tuple[Any, Any, frozenset[str] | set[str], int, int, CompiledRule]] = [
            (pos, out, consulted, a, b, order[pos]) for (pos, out, _, consulted), (a, b) in zip(steps, self.spans, strict=True)]
        """Per evaluation: (position, recorded result, consulted paths, its events' span, the rule)."""
        readers: dict[str, list[int]] = {}
        named: dict[str, list[int]] = {}
        restart = len(steps)
        last = -1
        for j, (pos, out, _, consulted) in enumerate(steps):
            if pos <= last and restart == len(steps):
                restart = j
            last = pos
            _note(readers, consulted, j)
            if out is not None:
                _note(named, _named(order[pos], out), j)
        self.readers = readers
        """Path -> the evaluations whose rule body consulted it, in order."""
        self.named = named
        """Path -> the evaluations whose result names it, in order."""
        self.restart = restart
        """The first evaluation after the phase's first sweep (the sweep went back to a rule behind)."""
        self._details: dict[int, _Step] = {}
        shows: dict[str, list[int]] = {}
        changed: dict[str, list[int]] = {}
        watched: dict[str, list[int]] = {}
        unique: list[int] = []
        member: dict[int, CompiledRule] = {}
        for j, (a, b) in enumerate(self.spans):
            if a == b:
                continue
            d = self.detail(j)
            c = order[steps[j][0]]
            for i in range(a, b):
                ev = rec.events[i]
                if type(ev) is Fired or type(ev) is ViolationEvent:
                    member[i] = c.by_id.get(ev.rule, c)
            if not d.copyable:
                unique.append(j)
            _note(shows, d.reads, j)
            _note(changed, d.changes, j)
            _note(watched, d.stale_writes, j)
        self.shows = shows
        """Path -> the evaluations whose events show its value (the declared reads of what fired or raised)."""
        self.changed = changed
        """Path -> the evaluations whose events change it (and record where the value they replace came from)."""
        self.watched = watched
        """Path -> the evaluations whose change of it a stale read watches."""
        self.unique = tuple(unique)
        """The evaluations whose events are never copied (a violation; a member logging what another wrote)."""
        self.by_value = _merged(readers, named, shows)
        """Path -> every evaluation a different value of it can make differ (at ``full``: its events show it too)."""
        self.by_value_minimal = _merged(readers, named)
        """The same at the ``minimal`` trace level (no event shows a value)."""
        self.member = member
        """Event index -> the compiled rule (or member) that made it."""
        self.by_value_keys = self.by_value.keys()
        self.by_value_minimal_keys = self.by_value_minimal.keys()
        self.changed_keys = changed.keys()
        self.watched_keys = watched.keys()
        """The tables' paths as set views (a set view against a set view walks the smaller, in C)."""

    def detail(self, j: int) -> _Step:
        found = self._details.get(j)
        if found is None:
            pos, out, _, _ = self.steps[j]
            found = self._details[j] = _Step(self.rec, self.order[pos], out, *self.spans[j])
        return found


def _index(rec: Recording, book: Any, k: int) -> _PhaseIndex:
    """Phase ``k``'s index of the recording (built on first use)."""
    found: _PhaseIndex | None = rec.indexes.get(k)
    if found is None:
        found = rec.indexes[k] = _PhaseIndex(rec, k, book.compiled[book.phases[k]])
    return found


def _indexes(rec: Recording, book: Any) -> list[_PhaseIndex]:
    """Every recorded phase's index, in order (cached)."""
    found: list[_PhaseIndex] | None = rec.indexes.get("all")
    if found is None:
        found = rec.indexes["all"] = [_index(rec, book, k) for k in range(len(rec.bounds))]
    return found


def _members(rec: Recording, book: Any) -> dict[int, CompiledRule]:
    """Event index -> the compiled rule (or member) that made it, over the whole recording (cached)."""
    found: dict[int, CompiledRule] | None = rec.indexes.get("member")
    if found is None:
        found = {}
        for k in range(len(rec.bounds)):
            found.update(_index(rec, book, k).member)
        rec.indexes["member"] = found
    return found


_Slice = tuple[tuple[Any, ...], dict[str, Any], dict[str, Provenance], tuple[tuple[str, str, int, str, Any], ...],
               tuple[tuple[str, str, str], ...]]


def _slice(rec: Recording, book: Any, a: int, b: int, shift: int) -> _Slice:
    """Recorded events ``a:b`` (of any phases) renumbered by ``shift``: the events, the writes they make, their
    provenance, stale-read log entries and the stale reads they report (cached per slice and shift)."""
    cache: dict[tuple[int, int, int], _Slice] | None = rec.indexes.get("slices")
    if cache is None:
        cache = rec.indexes["slices"] = {}
    key = (a, b, shift)
    found = cache.get(key)
    if found is None:
        member = _members(rec, book)
        events, values, provenance = _renumbered(rec.events[a:b], shift)
        log: list[tuple[str, str, int, str, Any]] = []
        stale: list[tuple[str, str, str]] = []
        now: dict[str, Any] = {}
        for i in range(a, b):
            ev = rec.events[i]
            t = type(ev)
            if t is Fired:
                for ch in ev.changes:
                    now[ch.path] = ch.new
                m = member[i]
                for p in m.stale_log:
                    # the value it read: the slice's latest write of it, else what it holds at the slice's start
                    log.append((p, m.id, m.phase_idx, ev.phase, now.get(p, _AT_START)))
            elif t is StaleRead:
                stale.append((ev.rule, ev.path, ev.by))
        if len(cache) > 4096:
            cache.clear()
        found = cache[key] = (events, values, provenance, tuple(log), tuple(stale))
    return found


_ABSENT = object()


def _note(table: dict[str, list[int]], paths: Iterable[str], j: int) -> None:
    """Add evaluation ``j`` under each of ``paths`` (the evaluations in order)."""
    for p in paths:
        found = table.get(p)
        if found is None:
            table[p] = [j]
        else:
            found.append(j)


def _merged(*tables: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """Path -> the sorted evaluations any of ``tables`` lists for it."""
    out: dict[str, set[int]] = {}
    for table in tables:
        for p, js in table.items():
            out.setdefault(p, set()).update(js)
    return {p: tuple(sorted(js)) for p, js in out.items()}


_AT_START = object()
"""In a slice's log entries: the value the path holds when the slice starts."""


def _renumbered(events: tuple[Any, ...], shift: int) -> tuple[tuple[Any, ...], dict[str, Any], dict[str, Provenance]]:
    """Recorded events renumbered by ``shift``, with the writes they make and their provenance."""
    if shift:
        events = tuple(_new(type(ev), (ev[0] + shift, *ev[1:])) for ev in events)
    values: dict[str, Any] = {}
    provenance: dict[str, Provenance] = {}
    for ev in events:
        if type(ev) is Fired:
            pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
            for ch in ev.changes:
                values[ch.path] = ch.new
                provenance[ch.path] = pv
    return events, values, provenance


class _Plan:
    """What every replay of one recording looks up (made once per recording, on first use): the compiled
    program, every phase's index, the members that made each event, the slice cache, and per path the
    phases whose evaluations a difference of it can reach (what :meth:`_Replay.next_phase` skips by)."""

    __slots__ = ("by_value", "by_value_minimal", "changed", "indexes", "members", "n", "program", "slices", "unique",
                 "watched")

    def __init__(self, rec: Recording, book: Rulebook) -> None:
        self.program = program_of(book)
        self.indexes = _indexes(rec, book)
        self.members = _members(rec, book)
        found: dict[tuple[int, int, int], _Slice] | None = rec.indexes.get("slices")
        if found is None:
            found = rec.indexes["slices"] = {}
        self.slices = found
        self.n = len(self.indexes)
        self.unique = tuple(k for k, ix in enumerate(self.indexes) if ix.unique)
        """The phases with an evaluation whose events are never copied."""
        self.by_value = _phases_of(ix.by_value for ix in self.indexes)
        """Path -> the phases (ascending) with an evaluation a different value of it can make differ."""
        self.by_value_minimal = _phases_of(ix.by_value_minimal for ix in self.indexes)
        """The same at the ``minimal`` trace level."""
        self.changed = _phases_of(ix.changed for ix in self.indexes)
        """Path -> the phases whose events change it."""
        self.watched = _phases_of(ix.watched for ix in self.indexes)
        """Path -> the phases whose change of it a stale read watches."""


def _phases_of(tables: Iterable[Mapping[str, Any]]) -> dict[str, tuple[int, ...]]:
    """Path -> the phases (ascending) whose table names it."""
    out: dict[str, list[int]] = {}
    for k, table in enumerate(tables):
        for p in table:
            out.setdefault(p, []).append(k)
    return {p: tuple(ks) for p, ks in out.items()}


class _Replay:
    """One replay: the new run, the recording it follows and what differs from it at the current point."""

    def __init__(self, run: CompiledRun, rec: Recording, base: EngineResult, dirty: dict[str, Any],
                 sources: dict[str, Source]) -> None:
        self.run_ = run
        self.rec = rec
        self.base = base
        self.book = base.rulebook
        plan: _Plan | None = rec.indexes.get("plan")
        if plan is None:
            plan = rec.indexes["plan"] = _Plan(rec, self.book)
        self.plan = plan
        self.program: Program = plan.program
        self.indexes = plan.indexes
        """Every recorded phase's index, in order."""
        self.members = plan.members
        """Event index -> the compiled rule (or member) that made it."""
        self.slices: dict[tuple[int, int, int], _Slice] = plan.slices
        """The recording's cache of renumbered slices (see :func:`_slice`)."""
        self.dirty = dirty
        """Path -> its value in the recorded run at this point, for each path whose value differs."""
        self.sources = sources
        """Path -> its provenance source in the recorded run at this point, where the sources differ."""
        self.logs: set[str] = set()
        """Paths whose stale-read log (who read them, what they read; stale reads reported) may differ."""
        self.following = True
        """The recording still describes the run (False once this run went on where the recorded one stopped)."""
        self.phase_start = 0
        """The number of this run's events when the phase being followed began."""
        self.cursor = 0
        """The recorded events before this one are this run's too (copied, or recorded again): the recorded
        events are copied lazily, in one slice up to the next evaluation that runs again (across phases)."""
        self.newly: tuple[list[str], list[str], list[str]] = ([], [], [])
        """What the last evaluation compared made differ: paths in value, in provenance source, in the log."""
        self.mine: dict[str, tuple[Any, Any, Source]] = {}
        """The changes the last evaluation compared made: path -> (old, new, the old value's source)."""
        self.aligned = True
        """The schedule is still the recorded one after the last evaluation compared."""
        self.last = False
        """The copy that ends the run is being made (the stale-read log is no longer kept)."""
        self.full = run.full
        """The trace shows reads (and keeps the stale-read log)."""

    # -- the phases ----------------------------------------------------------------------

    def run(self) -> None:
        run, rec, book = self.run_, self.rec, self.book
        phases = book.phases
        k = 0
        while k < len(phases):
            if not self.following or k >= len(rec.bounds):
                self.program.run(run, first=k)
                return
            k = self.next_phase(k)  # the phases in between: nothing in them can differ (copied with the next slice)
            if k >= len(rec.bounds):
                break
            if self.follow(k, phases[k]):
                return
            k += 1
        self.last = True  # nothing reads the stale-read log after the copy that ends the run: not kept
        self.copy_to(rec.bounds[-1][1])

    def next_phase(self, k: int) -> int:
        """The first recorded phase from ``k`` on with an evaluation that what differs now can reach (the number
        of recorded phases when there is none): the phases before it are copied as recorded."""
        plan = self.plan
        best = plan.n
        for kk in plan.unique:
            if kk >= k:
                best = kk
                break
        if best == k:
            return k
        for paths, table in ((self.dirty, plan.by_value if self.full else plan.by_value_minimal),
                             (self.sources, plan.changed), (self.logs if self.full else (), plan.watched)):
            for p in paths:
                found = table.get(p)
                if found is not None and found[-1] >= k:
                    kk = found[bisect_left(found, k)]
                    if kk < best:
                        if kk == k:
                            return k
                        best = kk
        return best

    def follow(self, k: int, phase: str) -> bool:
        """Follow phase ``k`` of the recording; True when the run stopped (a violation)."""
        ix = self.indexes[k]
        run, dirty, sources, logs = self.run_, self.dirty, self.sources, self.logs
        full = run.full
        by_value = ix.by_value if full else ix.by_value_minimal
        changed, watched = ix.changed, ix.watched
        pending: list[int] = list(ix.unique)
        for p in dirty.keys() & by_value.keys() if dirty else ():
            pending += by_value[p]
        for p in sources.keys() & changed.keys() if sources else ():
            pending += changed[p]
        if full and logs:
            for p in logs & watched.keys():
                pending += watched[p]
        if pending:
            self.phase_start = len(run.events) + ix.start - self.cursor  # once the copies reach the phase
            seen = set(pending)
            pending = list(seen)
            heapq.heapify(pending)
            pop, push = heapq.heappop, heapq.heappush
            plan, details = ix.plan, ix._details
            view, events, apply = run.view, run.events, run.apply
            j = -1

            def wake(paths: Iterable[str], table: Mapping[str, Iterable[int]]) -> None:
                """Queue the evaluations after the current one that ``paths`` can now make differ."""
                for p in paths:
                    for jj in table.get(p, ()):
                        if jj > j and jj not in seen:
                            seen.add(jj)
                            push(pending, jj)

            dirty_keys, copy_to, holds = dirty.keys(), self.copy_to, self.holds
            while pending:
                j = pop(pending)
                _, recorded, consulted, a, b, c = plan[j]
                if self.cursor < a:  # the events of the evaluations in between, as recorded
                    copy_to(a)
                if dirty and not dirty_keys.isdisjoint(consulted):
                    try:
                        out = c.fn(view)
                    except PostinitError:
                        raise
                    except Exception as e:  # a bug in a rule body: name the rule and what it read
                        run.current = c
                        raise run.rule_failed(e) from e
                    if out is None and recorded is None:
                        continue
                    if a < b:
                        d = details[j]
                        if out is recorded or (_same_changes(out, recorded) if type(out) is dict and type(recorded) is dict
                                               else _same_result(c, out, recorded, d.effects)):
                            if holds(d):
                                continue  # the same result: early cutoff (its events copied with the next slice)
                            if b - a == 1 and holds(d, False):
                                # the same result and the same event, but for the reads it shows: the recorded
                                # event with the reads as they are now
                                wake(self.copy_showing_reads(a, phase), watched)
                                continue
                    effs = _effects(c, out)
                elif a == b:  # it recorded nothing: only a path it names that now differs can make a change
                    if recorded is None or not dirty:
                        continue
                    effs = _effects(c, recorded)
                    if dirty_keys.isdisjoint([p for _, eff in effs for p in eff.changes]):
                        continue
                else:
                    d = details[j]
                    if holds(d):
                        continue
                    if b - a == 1 and holds(d, False):  # only the reads its event shows differ
                        wake(self.copy_showing_reads(a, phase), watched)
                        continue
                    effs = d.effects
                self.cursor = b  # its recorded events are replaced by this run's
                n = len(events)
                for m, eff in effs:
                    apply(m, eff, phase, m.read_order)
                    if run.stopped:
                        break
                if self.compare(ix, j, c, n, effs):
                    return True
                if not self.aligned:
                    return self.leave(ix, j)
                new_dirty, new_sources, new_logs = self.newly
                if new_dirty:
                    wake(new_dirty, by_value)
                if new_sources:
                    wake(new_sources, changed)
                if new_logs:
                    wake(new_logs, watched)
        return False

    def holds(self, d: _Step, shown: bool = True) -> bool:
        """The recorded events of an evaluation that returns its recorded result hold as they are here (``shown``
        False: but for the values of the reads they show)."""
        if not d.copyable:
            return False
        dirty = self.dirty
        if dirty and not (d.named.isdisjoint(dirty) and (not (shown and self.full) or d.reads.isdisjoint(dirty))):
            return False
        sources = self.sources
        if sources and not sources.keys().isdisjoint(d.changes):
            return False
        return not (d.stale_writes and self.full and not self.logs.isdisjoint(d.stale_writes))

    def copy_to(self, b: int) -> None:
        """Repeat the recorded events from the cursor to ``b`` (renumbered to follow this run's) and what they
        make: writes, provenance and the stale-read log (not after the run's last evaluation: nothing reads it)."""
        a = self.cursor
        if a >= b:
            return
        self.cursor = b
        run = self.run_
        shift = len(run.events) - a
        found = self.slices.get((a, b, shift))
        events, values, provenance, log, stale = found if found is not None else _slice(self.rec, self.book, a, b, shift)
        state = run.state
        if run.full and not self.last:
            readers_log = run.readers_log
            for path, rid, idx, phase, value in log:  # before the writes: _AT_START is the slice's start
                readers_log[path][rid] = (idx, phase, state[path] if value is _AT_START else value)
            if stale:
                run.stale_seen.update(stale)
        run.events.extend(events)
        state.update(values)
        run.prov.update(provenance)

    def copy_showing_reads(self, a: int, phase: str) -> list[str]:
        """Repeat recorded event ``a`` (a firing whose result and changes hold here) with the values of the reads it
        shows as they are now. Returns the paths whose stale-read log now differs (a logged read of a path that
        differs)."""
        if self.cursor < a:
            self.copy_to(a)
        run = self.run_
        shift = len(run.events) - a
        found = self.slices.get((a, a + 1, shift))
        events, values, provenance, log, _ = found if found is not None else _slice(self.rec, self.book, a, a + 1, shift)
        self.cursor = a + 1
        ev = events[0]
        state = run.state
        m = self.members[a]
        run.events.append(_new(Fired, (*ev[:7], {p: state[p] for p in m.read_order}, *ev[8:])))
        new_logs: list[str] = []
        if log:
            readers_log, dirty, logs = run.readers_log, self.dirty, self.logs
            for path, rid, idx, ph, value in log:
                readers_log[path][rid] = (idx, ph, state[path] if value is _AT_START else value)
            for p in m.stale_log:
                if p in dirty and p not in logs:
                    logs.add(p)
                    new_logs.append(p)
        state.update(values)
        run.prov.update(provenance)
        return new_logs

    def compare(self, ix: _PhaseIndex, j: int, c: CompiledRule, n: int,
                effs: list[tuple[CompiledRule, Effect]]) -> bool:
        """After evaluation ``j`` was recorded again (its events from ``n``, what it asked ``effs``): update what
        differs now.

        Sets ``newly`` (the paths that began to differ: in value, in provenance source, in the
        stale-read log) and ``aligned`` (the schedule is still the recorded one); True when the run
        stopped."""
        run, dirty, sources = self.run_, self.dirty, self.sources
        state, d = run.state, ix._details[j] if ix.spans[j][0] < ix.spans[j][1] else ix.detail(j)
        theirs = d.changes
        mine: dict[str, tuple[Any, Any, Source]] = {}
        fired: list[str] = []
        stale: set[tuple[str, str, str]] = set()
        events: list[Any] = run.events
        if len(events) > n:
            for ev in events[n:]:
                t = type(ev)
                if t is Fired:
                    fired.append(ev.rule)
                    for ch in ev.changes:
                        first = mine.get(ch.path)
                        mine[ch.path] = (ch[1], ch[2], ch[3]) if first is None else (first[0], ch[2], first[2])
                elif t is StaleRead:
                    stale.add((ev.rule, ev.path, ev.by))
        new_logs: list[str] = []
        if run.full and (fired or d.fired):  # the stale-read log: what fired in one run only, or read another value
            logs, by_id = self.logs, c.by_id
            maybe: set[str] = set()
            if fired != d.fired_list:
                for rid in set(fired).symmetric_difference(d.fired):
                    maybe.update(by_id[rid].stale_log)
            if dirty:
                for rid in fired:
                    for p in by_id[rid].stale_log:
                        if p in dirty:
                            maybe.add(p)
            if stale != d.stale:
                maybe.update(p for _, p, _ in stale.symmetric_difference(d.stale))
            if maybe:
                new_logs = [p for p in maybe if p not in logs]
                logs.update(new_logs)
        new_dirty: list[str] = []
        new_sources: list[str] = []
        # only a path either run changed here can begin or stop differing (a path a result names without changing
        # it holds in both runs what it held before the evaluation)
        touched = theirs.keys() | mine.keys() if mine.keys() != theirs.keys() else theirs
        prov_get, init_get = run.prov.get, run.initial_prov.get
        for p in touched:
            made, was = mine.get(p), theirs.get(p)  # this run's change of it here, and the recorded one
            recorded = dirty.get(p, _ABSENT)
            was_dirty = recorded is not _ABSENT
            if was is not None:
                recorded = was[1]
            elif not was_dirty:
                recorded = state[p] if made is None else made[0]
            now = state[p]
            if now is recorded or (type(now) is type(recorded) and now == recorded):
                if was_dirty:
                    del dirty[p]
            else:
                dirty[p] = recorded
                if not was_dirty:
                    new_dirty.append(p)
            if made is not None and was is not None:  # both runs' rules wrote it here: the same source
                if sources:
                    sources.pop(p, None)
                continue
            if made is not None:
                mine_before = made[2]
            else:
                cur = prov_get(p) or init_get(p)
                mine_before = _DEFAULT if cur is None else cur.source
            theirs_after = _RULE if was is not None else sources.get(p, mine_before)
            if (_RULE if made is not None else mine_before) == theirs_after:
                if sources:
                    sources.pop(p, None)
            elif p not in sources:
                sources[p] = theirs_after
                new_sources.append(p)
            else:
                sources[p] = theirs_after
        self.newly = (new_dirty, new_sources, new_logs)
        self.mine = mine
        if run.stopped:
            return True
        aligned = True
        if mine.keys() != theirs.keys():
            # the wakes differ; in the first sweep only a rule behind the writer (a feedback) can be re-queued
            if j >= ix.restart:
                aligned = False
            else:
                table = self.program.tables[ix.k][c.pos]
                for p in mine.keys() ^ theirs.keys():
                    if table[p][0]:
                        aligned = False
                        break
        if d.violation:
            aligned = False  # the recorded run stopped here; this one goes on
            self.following = False
        self.aligned = aligned
        return False

    def leave(self, ix: _PhaseIndex, j: int) -> bool:
        """Evaluation ``j`` woke other rules than it did in the recording: the compiled sweep finishes the phase
        from there (the queue as the recording had it, with this evaluation's own wakes); then what differs at
        the phase's end is worked out, for the next phases to follow the recording from."""
        run, k = self.run_, ix.k
        table = self.program.tables[k]
        order_len = len(ix.order)
        queued = [True] * order_len
        runs = [0] * order_len
        steps = ix.steps
        for jj in range(j + 1):
            pos = steps[jj][0]
            queued[pos] = False
            runs[pos] += 1
            changed = self.mine if jj == j else (ix.detail(jj).changes if ix.spans[jj][0] < ix.spans[jj][1] else ())
            for p in changed:
                before, after, _ = table[pos][p]
                for x in before:
                    queued[x] = True
                for x in after:
                    queued[x] = True
        pos = steps[j][0]
        if self.program.sweep(run, k, queued, runs, pos + 1, any(queued[: pos + 1])):
            return True
        self.cursor = ix.end  # the sweep made the rest of the phase: its recorded events are not this run's
        if self.following:
            self.resync(ix)
        return False

    def resync(self, ix: _PhaseIndex) -> None:
        """After the phase left the recorded schedule: exactly what differs from the recorded run at its end.

        Every path either run changed in the phase, and every path that differed before it, is compared
        with its value (and provenance source) at the end of the recorded phase: the latest recorded write
        up to there, else the recorded input."""
        run, k = self.run_, ix.k
        state, prov, init_prov = run.state, run.prov, run.initial_prov
        candidates = set(self.dirty).union(self.sources)
        logs = self.logs
        new: list[Any] = run.events[self.phase_start:]
        for ev in new:
            if type(ev) is Fired:
                candidates.update(ch.path for ch in ev.changes)
            elif type(ev) is StaleRead:
                logs.add(ev.path)
        a, b = self.rec.bounds[k]
        for ev in self.rec.events[a:b]:
            if type(ev) is Fired:
                candidates.update(ch.path for ch in ev.changes)
            elif type(ev) is StaleRead:
                logs.add(ev.path)
        for c in ix.order:  # who fired and logged what they read may differ anywhere in the phase
            logs.update(c.stale_log)
            for m in c.members:
                logs.update(m.stale_log)
        written = self.written_until(k)
        base_initial, base_prov = self.base.initial, self.base.initial_provenance
        dirty: dict[str, Any] = {}
        sources: dict[str, Source] = {}
        for p in candidates:
            if p in written:
                recorded, source = written[p], _RULE
            else:
                recorded = base_initial[p]
                bp = base_prov.get(p)
                source = _DEFAULT if bp is None else bp.source
            now = state[p]
            if not (now is recorded or (type(now) is type(recorded) and now == recorded)):
                dirty[p] = recorded
            cur = prov.get(p) or init_prov.get(p)
            if (_DEFAULT if cur is None else cur.source) != source:
                sources[p] = source
        self.dirty.clear()
        self.dirty.update(dirty)
        self.sources.clear()
        self.sources.update(sources)

    def written_until(self, k: int) -> dict[str, Any]:
        """Every path the recorded run wrote up to the end of phase ``k``, with its latest value there."""
        return _written_until(self.rec, self.book, k)
