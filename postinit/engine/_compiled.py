"""vLLM's statement order, compiled: one generated function per phase, the interpreter's results.

The interpreter (:mod:`._vllm`) is the reference and reads like its algorithm; this
module is the one place where speed lives. For a rulebook it generates Python source —
per phase, the sweep of :meth:`Run.fixed_point` unrolled into one ``if queued[k]:``
block per rule, each calling its rule directly, with the rule's constants (id, reads,
which writes wake whom) bound as defaults — and compiles it once. Recording an outcome
is one closure per phase over the run's state held in locals: change detection, freezing,
provenance, history, the trace events and stale reads, exactly as :meth:`Run.record`.

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

from postinit.engine._paths import FrozenDict, freeze
from postinit.engine._rule import Level, Matched, Outcome, Violation
from postinit.engine._trace import Change, Fired, Provenance, Source, ViolationEvent
from postinit.engine._vllm import VllmRun
from postinit.errors import PostinitError, UndeclaredWriteError

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
    indexes: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)
    """What following each phase needs (:func:`_index`), computed on first use."""


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


def run_compiled(
    book: Rulebook, state: dict[str, Any], provenance: Mapping[str, ProvenanceT], trace: TraceLevel, max_runs: int,
    *, record: bool = False, replay: Replay | None = None,
) -> CompiledRun:
    """Resolve ``state`` in vLLM's order with the rulebook's compiled program (``minimal``/``full`` traces).

    ``record`` keeps the schedule (``run.recording``); ``replay`` follows another run's.
    """
    run = CompiledRun(book, state, provenance, trace, False, max_runs)
    if replay is not None and replay.recording.trace != trace:
        replay = None
    run.replay = replay
    run.steps = [[] for _ in book.phases] if record else None
    program = _PROGRAMS.get(book)
    if program is None:
        program = _PROGRAMS[book] = _compile(book)
    program(run)
    if run.steps is not None:
        run.recording = Recording(trace, tuple(tuple(s) for s in run.steps), tuple(run.bounds), tuple(run.events))
    return run


class CompiledRun(VllmRun):
    """A vLLM-order run driven by a compiled program (the state, the trace and the errors are :class:`Run`'s)."""

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


def _phase_source(k: int, order: tuple[CompiledRule, ...]) -> str:
    """The source of ``phase_k``: the unrolled sweep of one phase.

    ``start`` resumes a sweep part-way (a replay that left the recorded schedule); ``again``
    says whether rules behind ``start`` are queued (the sweep then runs once more from the top).
    """
    lines = [
        f"def phase_{k}(run, q, apply, hook, runs, start, again, F=F_{k}, ORDER=ORDER_{k}):",
        "    view = run.view",
        "    max_runs = run.max_runs",
        "    cur = 0",
        "    try:",
        "        while True:",
    ]
    for c in order:
        i = c.pos
        record = f"MATCHED(apply, {i}, out)" if c.members else f"apply({i}, out)"
        lines += [
            f"            if q[{i}] and start <= {i}:",
            f"                q[{i}] = False",
            f"                cur = {i}",
            f"                runs[{i}] += 1",
            f"                if runs[{i}] > max_runs: run.no_fixed_point(ORDER, runs, PHASE_{k})",
            f"                r = (0 if (out := F[{i}](view)) is None else {record}) if hook is None else hook({i})",
            "                if r:",
            "                    if r == 2: return True",
            "                    again = True",
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
    namespace: dict[str, Any] = {"PostinitError": PostinitError, "MATCHED": _apply_matched}
    sources = []
    for k, phase in enumerate(book.phases):
        order = book.compiled[phase]
        namespace[f"F_{k}"] = tuple(c.fn for c in order)
        namespace[f"ORDER_{k}"] = order
        namespace[f"PHASE_{k}"] = phase
        sources.append(_phase_source(k, order))
    code = compile("\n".join(sources), f"<postinit compiled rulebook {book.name!r}>", "exec")
    exec(code, namespace)
    phases = [(namespace[f"phase_{k}"], phase, book.compiled[phase]) for k, phase in enumerate(book.phases)]
    tables = {phase: [_wake_table(c) for c in book.compiled[phase]] for phase in book.phases}

    def program(run: CompiledRun) -> None:
        replay, steps = run.replay, run.steps
        for k, (fn, phase, order) in enumerate(phases):
            n = len(order)
            queued = [True] * n
            runs = [0] * n
            apply = _recorder(run, phase, order, tables[phase], queued)
            start = len(run.events)
            if replay is not None:
                resume = _Follow(run, replay, k, phase, order, apply, tables[phase]).follow()
                if resume is None:  # followed the recorded schedule to its end
                    stopped = run.stopped
                else:
                    # the schedule differs from here on: the compiled sweep finishes this phase and
                    # resolves the rest (following further would cost more than it saves: measured)
                    queued[:] = resume.queued
                    runs[:] = resume.runs
                    stopped = resume.stopped or fn(run, queued, apply, None, runs, resume.start, resume.again)
                    replay = None
            else:
                hook = None if steps is None else _record_hook(run, steps[k], order, apply)
                stopped = fn(run, queued, apply, hook, runs, 0, False)
            run.bounds.append((start, len(run.events)))
            if stopped:
                return

    return program


def _recorder(
    run: CompiledRun, phase: str, order: tuple[CompiledRule, ...],
    wake: list[dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]]], qq: list[bool],
) -> Callable[[int, Any], int]:
    """The phase's ``apply(pos, out)``: record one rule's non-None result; 0 done, 1 re-queued behind, 2 stop."""
    state = run.state
    prov = run.prov
    prov_get = prov.get
    init_get = run.initial_prov.get
    events = run.events
    append = events.append
    history = run.history
    full = run.full

    def apply(i: int, out: Any, member: CompiledRule | None = None) -> int:
        c = order[i] if member is None else member
        t = type(out)
        if t is dict or t is FrozenDict:
            changes, message, level = out, None, None
        elif t is Outcome or isinstance(out, Outcome):
            changes, message, level = out.changes, out.message, out.level
            if message is None and out.args is not None:
                message = c.message.format_map(out.args)
        elif t is Violation or isinstance(out, Violation):
            run.violation(c, out, phase, c.read_order)
            return 2
        else:
            # a Mapping subclass, or a result the interpreter refuses with its own error
            return _slow(run, c, out, phase, wake[i], qq)
        seq = len(events)
        table = wake[i]
        made: list[Change] | None = None
        stale: list[str] | None = None
        reads: dict[str, Any] | None = None
        pv = None
        restart = 0
        for path, new in changes.items():
            w = table.get(path)
            if w is None or (member is not None and path not in member.writes):
                raise UndeclaredWriteError(
                    f"rule '{c.id}' wrote '{path}', which it does not declare in writes ({c.rule.location})",
                    rule=c.id, path=path, value=new,
                )
            tn = type(new)
            if tn not in _ATOMIC and not (tn is tuple and _ATOMIC.issuperset(map(type, new))):
                new = freeze(new)
            old = state[path]
            if old is new or (type(old) is type(new) and old == new):
                continue
            if made is None:
                # the first change: the reads as the rule saw them, before any of its writes
                made = []
                if full:
                    reads = {p: state[p] for p in c.read_order}
                pv = _new(Provenance, (_RULE, None, c.id, seq))
            src = prov_get(path) or init_get(path)
            state[path] = new
            prov[path] = pv  # type: ignore[assignment]
            made.append(_new(Change, (path, old, new, _DEFAULT if src is None else src.source)))
            if full:
                hist = history.get(path)
                if hist is None:
                    history[path] = [(seq, new, pv)]  # type: ignore[list-item]
                else:
                    hist.append((seq, new, pv))  # type: ignore[arg-type]
                if w[2]:
                    if stale is None:
                        stale = [path]
                    else:
                        stale.append(path)
            for j in w[0]:
                if not qq[j]:
                    qq[j] = True
                    restart = 1
            for j in w[1]:
                qq[j] = True
        if made is None:
            if message is None:
                return 0
            made = []
            if full:
                reads = {p: state[p] for p in c.read_order}
        append(_new(Fired, (
            seq, c.id, phase, c.kind, tuple(made), c.plain if message is None else message,
            c.level if level is None else _LEVELS[level], reads, "fired",
        )))
        if full:
            if stale:
                for path in stale:
                    run.stale(path, state[path], c.id, c.phase_idx, phase)
            if c.stale_log:
                log = run.readers_log
                for p in c.stale_log:
                    log[p][c.id] = (c.phase_idx, phase, state[p])
        return restart

    return apply


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


def _record_hook(
    run: CompiledRun, steps: list[Step], order: tuple[CompiledRule, ...], apply: Callable[[int, Any], int],
) -> Callable[[int], int]:
    """``hook(pos)`` that evaluates the rule and keeps the evaluation in ``steps``."""
    fns = [c.fn for c in order]
    view = run.view
    events = run.events
    keep = steps.append

    def hook(i: int) -> int:
        before = len(events)
        out = fns[i](view)
        keep((i, out, before))
        return 0 if out is None else _apply_any(apply, i, out)

    return hook


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


@dataclass(frozen=True, slots=True)
class _PhaseIndex:
    """What following one phase of a recording needs, computed once per recording and phase."""

    fired: tuple[int, ...]
    """The steps that returned something (changes, a message or a violation)."""
    readers: dict[str, tuple[int, ...]]
    """Per path: the steps whose rule reads it."""
    changed: tuple[tuple[str, ...], ...]
    """Per step: the paths it changed."""
    stops: tuple[bool, ...]
    """Per step: whether it raised a violation."""
    spans: tuple[tuple[int, int], ...]
    """Per step: its events (start, end) in the recording."""
    written: tuple[frozenset[str], ...]
    """Per step: the paths its recorded result names."""
    copyable: tuple[bool, ...]
    """Per step: its recorded events may be copied (not a violation, no write a stale read watches)."""
    effects: tuple[tuple[dict[str, Any], dict[str, Any], tuple[tuple[str, Any], ...]], ...]
    """Per step: its recorded writes, their provenance and history entries (path -> value / provenance)."""


def _index(rec: Recording, k: int, order: tuple[CompiledRule, ...]) -> _PhaseIndex:
    per_rec = rec.indexes
    found: _PhaseIndex | None = per_rec.get(k)
    if found is None:
        steps = rec.steps[k]
        end = rec.bounds[k][1]
        readers: dict[str, list[int]] = {}
        changed: list[tuple[str, ...]] = []
        stops: list[bool] = []
        spans: list[tuple[int, int]] = []
        for j, (pos, _, before) in enumerate(steps):
            for p in order[pos].reads:
                readers.setdefault(p, []).append(j)
            after = steps[j + 1][2] if j + 1 < len(steps) else end
            spans.append((before, after))
            evs = rec.events[before:after]
            changed.append(tuple(ch.path for ev in evs if type(ev) is Fired for ch in ev.changes))
            stops.append(any(type(ev) is ViolationEvent for ev in evs))
        effects = []
        for before, after in spans:
            vals: dict[str, Any] = {}
            provs: dict[str, Any] = {}
            hist: list[tuple[str, Any]] = []
            for ev in rec.events[before:after]:
                if type(ev) is Fired:
                    pv = _new(Provenance, (_RULE, None, ev.rule, ev.seq))
                    for ch in ev.changes:
                        vals[ch.path] = ch.new
                        provs[ch.path] = pv
                        hist.append((ch.path, (ev.seq, ch.new, pv)))
            effects.append((vals, provs, tuple(hist)))
        found = per_rec[k] = _PhaseIndex(
            tuple(j for j, (_, out, _) in enumerate(steps) if out is not None),
            {p: tuple(v) for p, v in readers.items()}, tuple(changed), tuple(stops), tuple(spans),
            tuple(frozenset(_written(out)) for _, out, _ in steps),
            tuple(not _violates(out) and not order[pos].stale_writes for pos, out, _ in steps),
            tuple(effects),
        )
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
    ) -> None:
        self.run = run
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
        index = _index(self.rec, self.k, self.order)
        run, order, values = self.run, self.order, self.values
        pending = list(index.fired)
        seen = set(pending)
        for p in values:
            for j in index.readers.get(p, ()):
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
                written = all_written[j]
                if copyable[j] and written.isdisjoint(values) and written.isdisjoint(provenance):
                    shift = len(events) - before
                    if shift:
                        self.copy(c, *spans[j], shift)
                    else:  # the recorded events as they are, and the writes they record
                        a, b = spans[j]
                        events.extend(rec_events[a:b])
                        vals, provs, hist = effects[j]
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
            both = set(mine[0]).intersection(index.changed[j])
            self.provenance.difference_update(both)
            self.provenance.update(p for p in (*mine[0], *index.changed[j]) if p not in both)
            if mine != (index.changed[j], index.stops[j]):
                return self.resume(j, mine)
            if mine[1]:  # stopped by the violation the recording stopped at
                return None
            if len(values) > grown:  # newly dirty paths: their readers later in the phase need a look
                for p in values:
                    for jj in index.readers.get(p, ()):
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
        steps, index, table = self.steps, _index(self.rec, self.k, self.order), self.table
        n = len(self.order)
        queued = [True] * n
        runs = [0] * n
        for jj in range(j + 1):
            pos = steps[jj][0]
            queued[pos] = False
            runs[pos] += 1
            for p in (index.changed[jj] if jj < j else mine[0]):
                before_q, after_q, _ = table[pos][p]
                for x in before_q:
                    queued[x] = True
                for x in after_q:
                    queued[x] = True
        pos = steps[j][0]
        return _Resume(queued, runs, pos + 1, any(queued[: pos + 1]), mine[1])


def _slow(
    run: CompiledRun, c: CompiledRule, out: Any, phase: str,
    table: dict[str, tuple[tuple[int, ...], tuple[int, ...], bool]], q: list[bool],
) -> int:
    """The interpreter's recording for an unusual result (a Mapping subclass; an invalid type raises there)."""
    restart = 0
    for path in run.record(c, out, phase):
        before, after, _ = table[path]
        for j in before:
            if not q[j]:
                q[j] = True
                restart = 1
        for j in after:
            q[j] = True
    return 2 if run.stopped else restart
