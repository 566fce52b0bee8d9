"""Statement order, compiled: one generated function per phase, the interpreter's results.

The interpreter (:mod:`._ordered`) is the reference and reads like its algorithm; this
module is the one place where speed lives. For a rulebook it generates Python source —
per phase, the sweep of :meth:`Run.fixed_point` unrolled into one ``if queued[k]:``
block per rule, each calling its rule directly — and compiles it once. The generated
code unrolls only the sweep: a result is read by the effect kernel
(:func:`~postinit.engine._effect.effect_of`) and recorded by the run's one recorder
(``Run.apply``), exactly as the interpreter does; what is the sweep's own is waking the
readers and later writers of what changed.

An unrolled sweep restarts from the top when a rule woke one before it and skips what
is not queued, so it visits rules in the interpreter's order: sweep forward, then again
from the lowest rule re-queued behind. ``tests/engine/test_compiled.py`` holds both to the
same state, trace, provenance and history, on the vLLM rulebook and on random rulebooks.
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from postinit.engine._effect import effect_of
from postinit.engine._ordered import OrderedRun
from postinit.engine._paths import FrozenDict
from postinit.engine._rule import Level, Matched, Outcome, Violation
from postinit.engine._trace import Fired, Provenance, Source, StaleRead, ViolationEvent
from postinit.errors import PostinitError

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule, Rulebook
    from postinit.engine._run import TraceLevel
    from postinit.engine._trace import Provenance as ProvenanceT

__all__ = ["Recording", "Replay", "run_compiled"]

_PROGRAMS: weakref.WeakKeyDictionary[Rulebook, Callable[[CompiledRun], None]] = weakref.WeakKeyDictionary()
_ATOMIC = frozenset({type(None), str, int, float, bool, FrozenDict})
_new = tuple.__new__
_RULE = Source.RULE
_DEFAULT = Source.DEFAULT
_LEVELS = {lv.value: lv.value for lv in Level} | {lv: lv.value for lv in Level}


Step = tuple[int, Any, int]
"""One recorded evaluation: the rule's position, what it returned, the number of events before it."""


@dataclass(frozen=True, slots=True)
class Recording:
    """A resolution's schedule: every evaluation of every phase, in order, with its result.

    What a later resolution replays (:class:`Replay`): in step with this schedule, a rule
    whose reads the change did not reach returns what it returned here without running.
    """

    trace: str
    steps: tuple[tuple[Step, ...], ...]
    """Per phase (in the rulebook's order): the evaluations."""
    bounds: tuple[tuple[int, int], ...]
    """Per phase: the number of events at its start and at its end."""
    events: tuple[Any, ...]
    indexes: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """What following each phase needs (:func:`_index`, :func:`_phase_copy`), computed on first use."""


@dataclass(slots=True)
class Replay:
    """A recording to follow, and the paths whose value (or provenance) differs from the recorded run.

    Both sets may be larger than the truth (that only costs re-evaluations), never smaller.
    """

    recording: Recording
    values: set[str]
    """Paths whose current value may differ from the recorded run's at the same point."""
    provenance: set[str]
    """Paths whose provenance *source* may differ from the recorded run's at the same point (a change
    records where the replaced value came from)."""
    base: Mapping[str, Any] | None = None
    """The recorded run's input state (to tell, after a phase that left the schedule, what still differs)."""
    base_provenance: Mapping[str, ProvenanceT] | None = None
    """The recorded run's input provenance."""


def run_compiled(
    book: Rulebook, state: dict[str, Any], provenance: Mapping[str, ProvenanceT], trace: TraceLevel, max_runs: int,
    *, record: bool = False, replay: Replay | None = None,
) -> CompiledRun:
    """Resolve ``state`` in statement order with the rulebook's compiled program (``minimal``/``full`` traces).

    ``record`` keeps the schedule (``run.recording``); ``replay`` follows another run's.
    """
    run = CompiledRun(book, state, provenance, trace, False, max_runs)
    if replay is not None and (replay.recording.trace != trace or record):
        replay = None  # a recorded run is resolved in full: its schedule is its own
    run.replay = replay
    run.steps = [[] for _ in book.phases] if record else None
    program = _PROGRAMS.get(book)
    if program is None:
        program = _PROGRAMS[book] = _compile(book)
    program(run)
    if run.steps is not None:
        run.recording = Recording(trace, tuple(tuple(s) for s in run.steps), tuple(run.bounds), tuple(run.events))
    return run


class CompiledRun(OrderedRun):
    """A statement-order run driven by a compiled program (the state, the trace and the errors are :class:`Run`'s)."""

    replay: Replay | None = None
    steps: list[list[Step]] | None = None
    recording: Recording | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bounds: list[tuple[int, int]] = []

    def run(self) -> None:  # pragma: no cover - run_compiled drives it
        raise NotImplementedError("run_compiled runs the compiled program")


def _wake_table(c: CompiledRule) -> dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]]:
    """Per written path: (readers before ``c`` to re-queue, rules after it to queue, does a write go stale)."""
    out: dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]] = {}
    for path, (readers, later) in c.wake.items():
        before = tuple(j for j in readers if j < c.pos)
        after = tuple(sorted({*(j for j in readers if j > c.pos), *later}))
        out[path] = (before, after, path in c.stale_writes)
    return out


def _phase_source(k: int, order: tuple[CompiledRule, ...], *, record: bool = False) -> str:
    """The source of ``phase_k`` (``record``: ``record_phase_k``): the unrolled sweep of one phase.

    ``start`` resumes a sweep part-way (a replay that left the recorded schedule); ``again``
    says whether rules behind ``start`` are queued (the sweep then runs once more from the top).
    The recording variant keeps each evaluation as ``(position, result, events before it)``
    through ``keep`` (the recording's ``append``), inline: no call per evaluation.
    """
    name = f"record_phase_{k}" if record else f"phase_{k}"
    lines = [
        f"def {name}(run, q, apply, wake, keep, runs, start, again, F=F_{k}, ORDER=ORDER_{k}, R=READS_{k},"
        f" PHASE=PHASE_{k}, effect_of=EFFECT_OF):",
        "    view = run.view",
        "    record = run.apply",
        "    events = run.events",
        "    max_runs = run.max_runs",
        "    cur = 0",
        "    try:",
        "        while True:",
    ]
    for c in order:
        i = c.pos
        lines += [
            f"            if q[{i}] and start <= {i}:",
            f"                q[{i}] = False",
            f"                cur = {i}",
            f"                runs[{i}] += 1",
            f"                if runs[{i}] > max_runs: run.no_fixed_point(ORDER, runs, PHASE_{k})",
        ]
        if record:
            lines += [
                "                n = len(events)",
                f"                out = F[{i}](view)",
                f"                keep(({i}, out, n))",
                "                if out is not None:",
            ]
        else:
            lines.append(f"                if (out := F[{i}](view)) is not None:")
        if c.members:  # a group statement: each deciding member recorded under its own id
            lines += [
                f"                    if r := MATCHED(apply, {i}, out):",
                "                        if r == 2: return True",
                "                        again = True",
            ]
        else:  # the kernel reads the result, the recorder records it; the sweep wakes the readers
            lines += [
                f"                    if changed := record(ORDER[{i}], effect_of(ORDER[{i}], out), PHASE, R[{i}]):",
                f"                        if wake({i}, changed): again = True",
                "                    elif run.stopped: return True",
            ]
    lines += [
        "            start = 0",
        "            if not again: return False",
        "            again = False",
        "    except PostinitError:",
        "        raise",
        "    except Exception as e:",
        "        run.current = ORDER[cur]",
        "        raise run.rule_failed(e) from e",
        "",
    ]
    return "\n".join(lines)


def _compile(book: Rulebook) -> Callable[[CompiledRun], None]:
    """Generate and compile the rulebook's program (once per rulebook and process)."""
    namespace: dict[str, Any] = {"PostinitError": PostinitError, "MATCHED": _apply_matched, "EFFECT_OF": effect_of}
    sources = []
    for k, phase in enumerate(book.phases):
        order = book.compiled[phase]
        namespace[f"F_{k}"] = tuple(c.fn for c in order)
        namespace[f"ORDER_{k}"] = order
        namespace[f"READS_{k}"] = tuple(c.read_order for c in order)
        namespace[f"PHASE_{k}"] = phase
        sources.append(_phase_source(k, order))
    code = compile("\n".join(sources), f"<postinit compiled rulebook {book.name!r}>", "exec")
    exec(code, namespace)
    phases = [(namespace[f"phase_{k}"], phase, book.compiled[phase]) for k, phase in enumerate(book.phases)]
    recording: list[Callable[..., bool]] = []

    def recording_variants() -> list[Callable[..., bool]]:
        # compiled on first use: most processes never record (and compiling costs as much as the rest)
        if not recording:
            extra = [_phase_source(k, book.compiled[phase], record=True) for k, phase in enumerate(book.phases)]
            exec(compile("\n".join(extra), f"<postinit compiled rulebook {book.name!r}, recording>", "exec"),
                 namespace)
            recording.extend(namespace[f"record_phase_{k}"] for k in range(len(book.phases)))
        return recording
    tables = {phase: [_wake_table(c) for c in book.compiled[phase]] for phase in book.phases}
    # per phase: every path its rules read or may write (a whole-phase copy must meet none that differs)
    touches = [frozenset().union(*(c.reads | c.writes for c in book.compiled[phase])) for phase in book.phases]
    readers = [book.readers[phase] for phase in book.phases]

    def program(run: CompiledRun) -> None:
        replay, steps = run.replay, run.steps
        pristine = True  # every phase so far copied whole: the stale-read log is the recording's
        left = False  # a phase left the recorded schedule
        for k, (fn, phase, order) in enumerate(phases):
            start = len(run.events)
            if replay is not None and k < len(replay.recording.steps):
                whole = _phase_copy(replay.recording, k, order, touches[k])
                if ((whole.ok or (pristine and whole.ok_if_pristine))
                        and whole.touches.isdisjoint(replay.values) and whole.touches.isdisjoint(replay.provenance)):
                    # nothing this phase reads or writes differs: its recorded run, copied whole
                    # (renumbered when an earlier phase left the schedule with another number of events)
                    whole.copy_into(run, phase, start - whole.span[0])
                    run.bounds.append((start, len(run.events)))
                    continue
            pristine = False
            n = len(order)
            queued = [True] * n
            runs = [0] * n
            apply, wake = _recorder(run, phase, order, tables[phase], queued)
            if replay is not None and left:
                # the schedule was left in an earlier phase: a phase that cannot be copied whole is swept
                # (following it step by step costs more than running it when much differs: measured)
                stopped = fn(run, queued, apply, wake, None, runs, 0, False)
                if stopped or not _resync(run, replay, k, start, phases, touches):
                    replay = None
            elif replay is not None:
                resume = _Follow(run, replay, k, phase, order, apply, tables[phase], readers[k]).follow()
                if resume is None:  # followed the recorded schedule to its end
                    stopped = run.stopped
                else:
                    # the schedule differs from here on: the compiled sweep finishes this phase; the
                    # next phases follow the recording again, from what differs at this one's end
                    queued[:] = resume.queued
                    runs[:] = resume.runs
                    stopped = resume.stopped or fn(run, queued, apply, wake, None, runs, resume.start, resume.again)
                    left = True
                    if stopped or not _resync(run, replay, k, start, phases, touches):
                        replay = None
            else:
                if steps is None:
                    stopped = fn(run, queued, apply, wake, None, runs, 0, False)
                else:
                    stopped = recording_variants()[k](run, queued, apply, wake, steps[k].append, runs, 0, False)
            run.bounds.append((start, len(run.events)))
            if stopped:
                return

    return program


def _resync(run: CompiledRun, replay: Replay, k: int, start: int,
            phases: list[tuple[Any, str, tuple[CompiledRule, ...]]], touches: list[frozenset[str]]) -> bool:
    """After phase ``k`` left the recorded schedule: the paths that differ from the recording at its end.

    Exact: every path either run wrote in the phase, and every path that differed before it, is
    compared with its value (and provenance source) at the end of the recorded phase — the latest
    recorded write up to there, else the recorded input. False when the recording cannot be
    followed further (it stopped there, or its input is not known).
    """
    rec = replay.recording
    if replay.base is None or replay.base_provenance is None or k + 1 >= len(rec.bounds):
        return False
    copies = [_phase_copy(rec, j, phases[j][2], touches[j]) for j in range(k + 1)]
    candidates = set(replay.values)
    candidates.update(replay.provenance)
    candidates.update(copies[k].values)
    for ev in run.events[start:]:
        if type(ev) is Fired:
            candidates.update(ch.path for ch in ev.changes)
    state, prov, init_prov = run.state, run.prov, run.initial_prov
    base, base_prov = replay.base, replay.base_provenance
    values: set[str] = set()
    provenance: set[str] = set()
    source: Source | None
    for p in candidates:
        for pc in reversed(copies):
            if p in pc.values:
                recorded, source = pc.values[p], _RULE
                break
        else:
            recorded = base[p]
            bp = base_prov.get(p)
            source = None if bp is None else bp.source
        now = state[p]
        if not (now is recorded or (type(now) is type(recorded) and now == recorded)):
            values.add(p)
        cur = prov.get(p) or init_prov.get(p)
        if (None if cur is None else cur.source) != source:
            provenance.add(p)
    replay.values = values
    replay.provenance = provenance
    return True


def _recorder(
    run: CompiledRun, phase: str, order: tuple[CompiledRule, ...],
    wake: list[dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]]], qq: list[bool],
) -> tuple[Callable[..., int], Callable[[int, list[str]], int]]:
    """The phase's ``apply(pos, out)`` and ``wake(pos, changed)``.

    ``apply`` records one rule's non-None result — read by :func:`effect_of`, recorded by
    ``Run.apply`` — and returns 0 (done), 1 (a rule behind was re-queued) or 2 (stop). What is
    the sweep's own is ``wake``: queue the readers and later writers of each changed path
    (1 when one behind was re-queued).
    """
    record = run.apply

    def wake_up(i: int, changed: list[str]) -> int:
        table = wake[i]
        restart = 0
        for path in changed:
            w = table[path]
            for j in w[0]:
                if not qq[j]:
                    qq[j] = True
                    restart = 1
            for j in w[1]:
                qq[j] = True
        return restart

    def apply(i: int, out: Any, member: CompiledRule | None = None) -> int:
        c = order[i] if member is None else member
        changed = record(c, effect_of(c, out), phase, c.read_order)
        if not changed:
            return 2 if run.stopped else 0
        return wake_up(i, changed)

    return apply, wake_up


def _apply_matched(apply: Callable[..., int], i: int, out: Matched) -> int:
    """Record a group statement's result: each deciding member's result, under its own id, in order."""
    restart = 0
    for m, result in out.results:
        r = apply(i, result, m)
        if r == 2:
            return 2
        restart |= r
    return restart


def _apply_any(apply: Callable[..., int], i: int, out: Any) -> int:
    """``apply`` for any non-None result (a group statement's included)."""
    return _apply_matched(apply, i, out) if type(out) is Matched else apply(i, out)


def _written(out: Any) -> frozenset[str] | Any:
    """The paths a rule's result names (none for None or a violation)."""
    if isinstance(out, Outcome):
        return out.changes.keys()
    if isinstance(out, Mapping):
        return out.keys()
    if type(out) is Matched:
        return frozenset(p for _, result in out.results for p in _written(result))
    return ()


def _violates(out: Any) -> bool:
    """A result that raises a violation (itself, or one of a group statement's results)."""
    if type(out) is Matched:
        return any(_violates(result) for _, result in out.results)
    return isinstance(out, Violation)


@dataclass(frozen=True, slots=True)
class _Resume:
    """Where the compiled sweep takes over from a replay that left the recorded schedule."""

    queued: list[bool]
    runs: list[int]
    start: int
    again: bool
    stopped: bool


class _PhaseIndex:
    """What following one phase of a recording needs, computed once per recording and phase, on demand.

    The steps that returned something and each step's events are known at once; everything else
    (which steps read a path, what a step changed, its writes and provenance) is worked out for the
    steps a replay actually looks at, and kept: a recording replayed once (``what_if``) pays only for
    those, one replayed many times (a sweep) for each step once.
    """

    __slots__ = ("_changed", "_effects", "_readers", "_step_readers", "by_pos", "events", "fired", "order",
                 "spans", "steps")

    def __init__(self, rec: Recording, k: int, order: tuple[CompiledRule, ...],
                 readers: Mapping[str, tuple[int, ...]]) -> None:
        steps = self.steps = rec.steps[k]
        end = rec.bounds[k][1]
        self.order = order
        self.events = rec.events
        self.spans: list[tuple[int, int]] = [
            (before, steps[j + 1][2] if j + 1 < len(steps) else end) for j, (_, _, before) in enumerate(steps)]
        self.fired: tuple[int, ...] = tuple(j for j, (_, out, _) in enumerate(steps) if out is not None)
        """The steps that returned something (changes, a message or a violation)."""
        by_pos: dict[int, list[int]] = {}
        for j, (pos, _, _) in enumerate(steps):
            by_pos.setdefault(pos, []).append(j)
        self.by_pos = by_pos
        self._readers = readers
        self._step_readers: dict[str, tuple[int, ...]] = {}
        self._changed: dict[int, tuple[tuple[str, ...], bool]] = {}
        self._effects: dict[int, tuple[dict[str, Any], dict[str, Any], tuple[tuple[str, Any], ...]]] = {}

    def readers(self, path: str) -> tuple[int, ...]:
        """The steps whose rule reads ``path``, in order."""
        found = self._step_readers.get(path)
        if found is None:
            by_pos = self.by_pos
            found = self._step_readers[path] = tuple(sorted(
                j for pos in self._readers.get(path, ()) for j in by_pos.get(pos, ())))
        return found

    def changed(self, j: int) -> tuple[tuple[str, ...], bool]:
        """The paths step ``j`` changed, and whether it raised a violation."""
        found = self._changed.get(j)
        if found is None:
            a, b = self.spans[j]
            evs = self.events[a:b]
            found = self._changed[j] = (tuple(ch.path for ev in evs if type(ev) is Fired for ch in ev.changes),
                                        any(type(ev) is ViolationEvent for ev in evs))
        return found

    def written(self, j: int) -> frozenset[str] | Any:
        """The paths step ``j``'s recorded result names."""
        return _written(self.steps[j][1])

    def copyable(self, j: int) -> bool:
        """Step ``j``'s recorded events may be copied (not a violation, no write a stale read watches)."""
        pos, out, _ = self.steps[j]
        return not _violates(out) and not self.order[pos].stale_writes

    def effects(self, j: int) -> tuple[dict[str, Any], dict[str, Any], tuple[tuple[str, Any], ...]]:
        """Step ``j``'s recorded writes, their provenance and history entries (path -> value / provenance)."""
        found = self._effects.get(j)
        if found is None:
            vals: dict[str, Any] = {}
            provs: dict[str, Any] = {}
            hist: list[tuple[str, Any]] = []
            a, b = self.spans[j]
            for ev in self.events[a:b]:
                if type(ev) is Fired:
                    pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
                    for ch in ev.changes:
                        vals[ch.path] = ch.new
                        provs[ch.path] = pv
                        hist.append((ch.path, (ev.seq, ch.new, pv)))
            found = self._effects[j] = (vals, provs, tuple(hist))
        return found


def _index(rec: Recording, k: int, order: tuple[CompiledRule, ...],
           readers: Mapping[str, tuple[int, ...]]) -> _PhaseIndex:
    found: _PhaseIndex | None = rec.indexes.get(k)
    if found is None:
        found = rec.indexes[k] = _PhaseIndex(rec, k, order, readers)
    return found


_AT_START = object()
"""In a :class:`_PhaseCopy` log entry: the value the path has when the phase starts."""


@dataclass(frozen=True, slots=True)
class _PhaseCopy:
    """One recorded phase as a whole: what a replay copies when the phase meets nothing that differs.

    When no rule of the phase reads, and no recorded result names, a path whose value or
    provenance may differ, and the run is in step (the same number of events so far), every
    evaluation of the phase returns what it returned in the recording, in the same order: the
    phase's events, writes, provenance, history and stale-read log are the recorded ones. A phase
    that raised a violation, or fired a rule whose writes can make a stale read (that depends on
    what earlier phases' rules read), is copied whole only after phases that were all copied whole
    (the stale-read log is then the recording's, so its stale reads are the recorded ones).
    """

    ok: bool
    ok_if_pristine: bool
    """No violation (a phase whose rules may make stale reads can be copied after whole copies only)."""
    touches: frozenset[str]
    """Every path a rule of the phase reads or may write."""
    span: tuple[int, int]
    """The phase's events in the recording (start, end)."""
    values: dict[str, Any]
    provenance: dict[str, Any]
    history: tuple[tuple[str, Any], ...]
    log: tuple[tuple[str, str, int, Any], ...]
    """Stale-read log entries (path, rule id, its phase index, the value it read or ``_AT_START``), in order."""
    stale: tuple[tuple[str, str, str], ...]
    """The stale reads the phase recorded, as (reader, path, writer): the run's ``stale_seen`` grows by them."""

    def copy_into(self, run: CompiledRun, phase: str, shift: int = 0) -> None:
        """Repeat the recorded phase: its events (renumbered by ``shift``), writes, provenance, history."""
        a, b = self.span
        values, provenance, history_of = self.values, self.provenance, self.history
        events = run.replay.recording.events[a:b]  # type: ignore[union-attr]
        if shift:
            events = tuple(_new(type(ev), (ev[0] + shift, *ev[1:])) for ev in events)
            provenance = {p: _new(Provenance, (pv[0], pv[1], pv[2], pv[3] + shift)) for p, pv in provenance.items()}
            history_of = tuple((p, (seq + shift, v, _new(Provenance, (pv[0], pv[1], pv[2], pv[3] + shift))))
                               for p, (seq, v, pv) in history_of)
        if run.full:
            log, state = run.readers_log, run.state
            for path, rid, idx, value in self.log:  # before the writes: _AT_START reads the phase's start
                log[path][rid] = (idx, phase, state[path] if value is _AT_START else value)
            history = run.history
            for path, entry in history_of:
                hist = history.get(path)
                if hist is None:
                    history[path] = [entry]
                else:
                    hist.append(entry)
            seen = run.stale_seen
            for rid, path, by in self.stale:
                seen.add((rid, path, by))
        run.events.extend(events)
        run.state.update(values)
        run.prov.update(provenance)


def _phase_copy(rec: Recording, k: int, order: tuple[CompiledRule, ...], touches: frozenset[str]) -> _PhaseCopy:
    """The whole-phase copy of phase ``k`` of a recording (computed once per recording and phase).

    One pass over the phase's recorded events, step by step: no :func:`_index` (a recording that is
    replayed once, as by ``what_if``, would spend more on the index than the replay saves).
    """
    key = ("copy", k)
    found: _PhaseCopy | None = rec.indexes.get(key)
    if found is not None:
        return found
    steps = rec.steps[k]
    a, b = rec.bounds[k]
    stops = stale_writer = False
    values: dict[str, Any] = {}
    provenance: dict[str, Any] = {}
    history: list[tuple[str, Any]] = []
    log: list[tuple[str, str, int, Any]] = []
    stale: list[tuple[str, str, str]] = []
    for j, (pos, _, before) in enumerate(steps):
        after = steps[j + 1][2] if j + 1 < len(steps) else b
        if before == after:
            continue
        c = order[pos]
        evs = rec.events[before:after]
        step: dict[str, Any] = {}
        for ev in evs:
            t = type(ev)
            if t is Fired:
                pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
                for ch in ev.changes:
                    step[ch.path] = ch.new
                    provenance[ch.path] = pv
                    history.append((ch.path, (ev.seq, ch.new, pv)))
            elif t is ViolationEvent:
                stops = True
            elif t is StaleRead:
                stale.append((ev.rule, ev.path, ev.by))
        if step and c.stale_writes:
            stale_writer = True
        for ev in evs:
            if type(ev) is Fired:
                m = c.by_id.get(ev.rule, c)
                for p in m.stale_log:
                    # the value after the step: its own write of it, the phase's latest, else the start's
                    log.append((p, m.id, m.phase_idx, step[p] if p in step else values.get(p, _AT_START)))
        values.update(step)
    found = rec.indexes[key] = _PhaseCopy(not stops and not stale_writer, not stops, touches, (a, b), values,
                                          provenance, tuple(history), tuple(log), tuple(stale))
    return found


class _Follow:
    """Follows one phase of a recorded schedule, touching only the steps that need it.

    While the run is in step with the recording (it has made the recorded evaluations, with
    the recorded wakes), its queue is the recorded one, so the next evaluations are the
    recorded ones: a step that returned nothing and reads nothing that may differ needs no
    work at all; one that fired and reads nothing that may differ returns its recorded result
    (its recorded events are reused when the paths it writes hold the recorded values and the
    event count is the recorded one); a step that reads a path that may differ runs. A step
    whose changes differ from the recorded ones leaves the schedule: the queue is rebuilt as
    the recording had it there, with this step's own wakes, and the compiled sweep resumes
    right after it.
    """

    def __init__(
        self, run: CompiledRun, replay: Replay, k: int, phase: str, order: tuple[CompiledRule, ...],
        apply: Callable[[int, Any], int], table: list[dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]]],
        readers: Mapping[str, tuple[int, ...]],
    ) -> None:
        self.run = run
        self.readers = readers
        self.rec = replay.recording
        self.k = k
        self.phase = phase
        self.order = order
        self.apply = apply
        self.table = table
        self.values = replay.values
        self.provenance = replay.provenance
        self.steps = self.rec.steps[k] if k < len(self.rec.steps) else ()

    def follow(self) -> _Resume | None:
        """Follow the phase; None when the recorded schedule was followed to its end."""
        steps = self.steps
        if not steps:
            return _Resume([True] * len(self.order), [0] * len(self.order), 0, False, False)
        index = _index(self.rec, self.k, self.order, self.readers)
        run, order, values = self.run, self.order, self.values
        pending = list(index.fired)
        seen = set(pending)
        for p in values:
            for j in index.readers(p):
                if j not in seen:
                    seen.add(j)
                    pending.append(j)
        heapq.heapify(pending)
        provenance, events, copyable, spans, all_written = self.provenance, run.events, index.copyable, \
            index.spans, index.written
        pop = heapq.heappop
        rec_events, effects, state, prov, history, full = self.rec.events, index.effects, run.state, run.prov, \
            run.history, run.full
        while pending:
            j = pop(pending)
            pos, recorded, before = steps[j]
            c = order[pos]
            grown = len(values)
            if c.reads.isdisjoint(values):
                if recorded is None:
                    continue
                written = all_written(j)
                if copyable(j) and written.isdisjoint(values) and written.isdisjoint(provenance):
                    shift = len(events) - before
                    if shift:
                        self.copy(c, *spans[j], shift)
                    else:  # the recorded events as they are, and the writes they record
                        a, b = spans[j]
                        events.extend(rec_events[a:b])
                        vals, provs, hist = effects(j)
                        state.update(vals)
                        prov.update(provs)
                        if full:
                            for path, entry in hist:
                                history.setdefault(path, []).append(entry)
                            if a < b:
                                self.log_reads(c, a, b)
                    continue
                mine = self.effect(pos, recorded)
                values.difference_update(written)
            else:
                out = c.fn(run.view)
                mine = self.effect(pos, out)
                values.update(_written(out), _written(recorded))
            # a path both runs changed here has a rule's provenance in both; any other write may differ
            recorded_change = index.changed(j)
            both = set(mine[0]).intersection(recorded_change[0])
            self.provenance.difference_update(both)
            self.provenance.update(p for p in (*mine[0], *recorded_change[0]) if p not in both)
            if mine != recorded_change:
                return self.resume(j, mine)
            if mine[1]:  # stopped by the violation the recording stopped at
                return None
            if len(values) > grown:  # newly dirty paths: their readers later in the phase need a look
                for p in values:
                    for jj in index.readers(p):
                        if jj > j and jj not in seen:
                            seen.add(jj)
                            heapq.heappush(pending, jj)
        return None

    def effect(self, pos: int, out: Any) -> tuple[tuple[str, ...], bool]:
        """Record a result (``apply``): the paths it changed, and whether it stopped the run."""
        run = self.run
        before = len(run.events)
        stop = False
        if out is not None:
            stop = _apply_any(self.apply, pos, out) == 2
        changed = tuple(ch.path for ev in run.events[before:] if type(ev) is Fired for ch in ev.changes)
        return changed, stop

    def log_reads(self, c: CompiledRule, start: int, end: int) -> None:
        """What the rules that fired in recorded events ``start:end`` read that a later phase may change."""
        log = self.run.readers_log
        state = self.run.state
        for ev in self.rec.events[start:end]:
            if type(ev) is Fired:
                m = c.by_id.get(ev.rule, c)
                for p in m.stale_log:
                    log[p][m.id] = (m.phase_idx, self.phase, state[p])

    def copy(self, c: CompiledRule, start: int, end: int, shift: int) -> None:
        """Repeat a recorded firing: its writes, provenance, history and its events (renumbered by ``shift``)."""
        run = self.run
        state, prov, history, full = run.state, run.prov, run.history, run.full
        for ev in self.rec.events[start:end]:
            if shift:
                ev = _new(type(ev), (ev[0] + shift, *ev[1:]))
            run.events.append(ev)
            if type(ev) is not Fired:
                continue
            pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
            for ch in ev.changes:
                state[ch.path] = ch.new
                prov[ch.path] = pv
                if full:
                    history.setdefault(ch.path, []).append((ev.seq, ch.new, pv))
            m = c.by_id.get(ev.rule, c)
            if full and m.stale_log:
                log = run.readers_log
                for p in m.stale_log:
                    log[p][m.id] = (m.phase_idx, self.phase, state[p])

    def resume(self, j: int, mine: tuple[tuple[str, ...], bool]) -> _Resume:
        """Step ``j`` left the schedule: the queue as the recording had it, with this step's own wakes."""
        steps, index, table = self.steps, _index(self.rec, self.k, self.order, self.readers), self.table
        n = len(self.order)
        queued = [True] * n
        runs = [0] * n
        for jj in range(j + 1):
            pos = steps[jj][0]
            queued[pos] = False
            runs[pos] += 1
            for p in (index.changed(jj)[0] if jj < j else mine[0]):
                before_q, after_q, _ = table[pos][p]
                for x in before_q:
                    queued[x] = True
                for x in after_q:
                    queued[x] = True
        pos = steps[j][0]
        return _Resume(queued, runs, pos + 1, any(queued[: pos + 1]), mine[1])
