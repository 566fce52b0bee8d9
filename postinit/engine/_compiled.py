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

A recorded run (``record=True``) also keeps its schedule (:class:`Recording`): every
evaluation, what it returned and the paths its rule body actually consulted — what
incremental re-resolution (:mod:`._incremental`) follows. A phase can be swept from any
point of its schedule (:meth:`Program.sweep`): where a re-resolution leaves the recorded one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from postinit.engine._effect import effect_of
from postinit.engine._ordered import OrderedRun
from postinit.engine._rule import Matched
from postinit.errors import PostinitError

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule, Rulebook
    from postinit.engine._run import TraceLevel
    from postinit.engine._trace import Provenance as ProvenanceT

__all__ = ["CompiledRun", "Program", "Recording", "Step", "program_of", "run_compiled"]

_PROGRAMS: weakref.WeakKeyDictionary[Rulebook, Program] = weakref.WeakKeyDictionary()


Step = tuple[int, Any, int, "frozenset[str] | set[str]"]
"""One recorded evaluation: the rule's position, what it returned, the number of events before it, and the
paths its body consulted (a group statement: its gate's and the members' it tried)."""


@dataclass(frozen=True, slots=True)
class Recording:
    """A resolution's schedule: every evaluation of every phase, in order, with its result and consulted reads.

    What incremental re-resolution follows (:mod:`._incremental`): in step with this schedule, an
    evaluation none of whose consulted paths holds another value returns what it returned here.
    """

    trace: str
    steps: tuple[tuple[Step, ...], ...]
    """Per phase the run reached (in the rulebook's order): the evaluations."""
    bounds: tuple[tuple[int, int], ...]
    """Per phase reached: the number of events at its start and at its end."""
    events: tuple[Any, ...]
    """The run's events (:class:`~postinit.engine._trace.Event`)."""
    stopped: bool = False
    """The run stopped at a violation (in its last phase)."""
    indexes: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """What following each phase needs (built by :mod:`._incremental` on first use)."""


class _Consulting(Mapping[str, Any]):
    """The read-only view a recorded evaluation reads through: it notes every path the body consults."""

    __slots__ = ("consulted", "state")

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.consulted: set[str] = set()

    def __getitem__(self, path: str) -> Any:
        value = self.state[path]
        self.consulted.add(path)
        return value

    def get(self, path: str, default: Any = None) -> Any:
        if path in self.state:
            self.consulted.add(path)
            return self.state[path]
        return default

    def __contains__(self, path: object) -> bool:
        if path in self.state:
            self.consulted.add(path)
            return True
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(self.state)

    def __len__(self) -> int:
        return len(self.state)


def run_compiled(
    book: Rulebook, state: dict[str, Any], provenance: Mapping[str, ProvenanceT], trace: TraceLevel, max_runs: int,
    *, record: bool = False,
) -> CompiledRun:
    """Resolve ``state`` in statement order with the rulebook's compiled program (``minimal``/``full`` traces).

    ``record`` keeps the schedule (``run.recording``).
    """
    run = CompiledRun(book, state, provenance, trace, False, max_runs)
    program_of(book).run(run, record)
    return run


def program_of(book: Rulebook) -> Program:
    """The rulebook's compiled program (generated once per rulebook and process)."""
    program = _PROGRAMS.get(book)
    if program is None:
        program = _PROGRAMS[book] = Program(book)
    return program


class CompiledRun(OrderedRun):
    """A statement-order run driven by a compiled program (the state, the trace and the errors are :class:`Run`'s)."""

    recording: Recording | None = None

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

    ``start`` resumes a sweep part-way (a re-resolution that left the recorded schedule); ``again``
    says whether rules behind ``start`` are queued (the sweep then runs once more from the top).
    The recording variant runs each rule on a view that notes what its body consults and keeps each
    evaluation as ``(position, result, events before it, consulted paths)`` through ``keep`` (the
    recording's ``append``).
    """
    name = f"record_phase_{k}" if record else f"phase_{k}"
    lines = [
        f"def {name}(run, q, apply, wake, keep, runs, start, again, F=F_{k}, ORDER=ORDER_{k}, R=READS_{k},"
        f" PHASE=PHASE_{k}, effect_of=EFFECT_OF):",
        "    view = run.view",
        "    state = run.state",
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
                "                seen = CONSULT(state)",
                f"                out = F[{i}](seen)",
                f"                keep(({i}, out, n, seen.consulted))",
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


class Program:
    """A rulebook's compiled phases: the unrolled sweep of each, and its recording variant (made on first use)."""

    def __init__(self, book: Rulebook) -> None:
        namespace: dict[str, Any] = {"PostinitError": PostinitError, "MATCHED": _apply_matched,
                                     "EFFECT_OF": effect_of, "CONSULT": _Consulting}
        sources = []
        for k, phase in enumerate(book.phases):
            order = book.compiled[phase]
            namespace[f"F_{k}"] = tuple(c.fn for c in order)
            namespace[f"ORDER_{k}"] = order
            namespace[f"READS_{k}"] = tuple(c.read_order for c in order)
            namespace[f"PHASE_{k}"] = phase
            sources.append(_phase_source(k, order))
        exec(compile("\n".join(sources), f"<postinit compiled rulebook {book.name!r}>", "exec"), namespace)
        self.book = book
        self.namespace = namespace
        self.functions: tuple[Callable[..., bool], ...] = tuple(namespace[f"phase_{k}"] for k in range(len(book.phases)))
        self.tables = tuple([_wake_table(c) for c in book.compiled[phase]] for phase in book.phases)
        """Per phase, per position: written path -> (readers before it, rules after it to queue, goes stale)."""
        self._recording: tuple[Callable[..., bool], ...] = ()

    def recording(self) -> tuple[Callable[..., bool], ...]:
        """The recording variant of each phase (compiled on first use: most processes never record)."""
        if not self._recording:
            book = self.book
            extra = [_phase_source(k, book.compiled[phase], record=True) for k, phase in enumerate(book.phases)]
            exec(compile("\n".join(extra), f"<postinit compiled rulebook {book.name!r}, recording>", "exec"),
                 self.namespace)
            self._recording = tuple(self.namespace[f"record_phase_{k}"] for k in range(len(book.phases)))
        return self._recording

    def run(self, run: CompiledRun, record: bool = False, first: int = 0) -> None:
        """Run phases ``first``... of ``run`` to their fixed points (``record``: keeping the schedule)."""
        book = self.book
        functions = self.recording() if record else self.functions
        steps: list[list[Step]] = []
        bounds: list[tuple[int, int]] = []
        stopped = False
        for k in range(first, len(book.phases)):
            order = book.compiled[book.phases[k]]
            n = len(order)
            queued = [True] * n
            runs = [0] * n
            apply, wake = _recorder(run, book.phases[k], order, self.tables[k], queued)
            start = len(run.events)
            keep: list[Step] = []
            stopped = functions[k](run, queued, apply, wake, keep.append if record else None, runs, 0, False)
            steps.append(keep)
            bounds.append((start, len(run.events)))
            if stopped:
                break
        if record:
            run.recording = Recording((run.full and "full") or "minimal", tuple(tuple(s) for s in steps),
                                      tuple(bounds), tuple(run.events), stopped)

    def sweep(self, run: CompiledRun, k: int, queued: list[bool], runs: list[int], start: int, again: bool) -> bool:
        """Finish phase ``k`` from a point of its sweep: ``queued`` and ``runs`` as they are there, the sweep
        resuming at position ``start`` (``again``: a rule behind it is queued). True when a violation stopped it."""
        phase = self.book.phases[k]
        apply, wake = _recorder(run, phase, self.book.compiled[phase], self.tables[k], queued)
        return bool(self.functions[k](run, queued, apply, wake, None, runs, start, again))


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


