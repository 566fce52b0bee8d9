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

import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from postinit.engine._paths import FrozenDict, freeze
from postinit.engine._rule import Level, Outcome, Violation
from postinit.engine._trace import Change, Fired, Provenance, Source, ViolationEvent
from postinit.engine._vllm import VllmRun
from postinit.errors import PostinitError, UndeclaredWriteError

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule, Rulebook
    from postinit.engine._run import TraceLevel
    from postinit.engine._trace import Provenance as ProvenanceT

__all__ = ["run_compiled"]

_PROGRAMS: weakref.WeakKeyDictionary[Rulebook, Callable[[CompiledRun], None]] = weakref.WeakKeyDictionary()
_ATOMIC = frozenset({type(None), str, int, float, bool, FrozenDict})
_new = tuple.__new__
_RULE = Source.RULE
_DEFAULT = Source.DEFAULT
_LEVELS = {lv.value: lv.value for lv in Level} | {lv: lv.value for lv in Level}


def run_compiled(
    book: Rulebook, state: dict[str, Any], provenance: Mapping[str, ProvenanceT], trace: TraceLevel, max_runs: int,
) -> CompiledRun:
    """Resolve ``state`` in vLLM's order with the rulebook's compiled program (``minimal``/``full`` traces)."""
    run = CompiledRun(book, state, provenance, trace, False, max_runs)
    program = _PROGRAMS.get(book)
    if program is None:
        program = _PROGRAMS[book] = _compile(book)
    program(run)
    return run


class CompiledRun(VllmRun):
    """A vLLM-order run driven by a compiled program (the state, the trace and the errors are :class:`Run`'s)."""

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
    """The source of ``phase_k(run)``: the unrolled sweep of one phase."""
    lines = [
        f"def phase_{k}(run, q, apply, F=F_{k}, ORDER=ORDER_{k}):",
        "    view = run.view",
        "    max_runs = run.max_runs",
        f"    runs = [0] * {len(order)}",
        "    cur = 0",
        "    try:",
        "        while True:",
        "            again = False",
    ]
    for c in order:
        i = c.pos
        lines += [
            f"            if q[{i}]:",
            f"                q[{i}] = False",
            f"                cur = {i}",
            f"                runs[{i}] += 1",
            f"                if runs[{i}] > max_runs: run.no_fixed_point(ORDER, runs, PHASE_{k})",
            f"                out = F[{i}](view)",
            "                if out is not None:",
            f"                    r = apply({i}, out)",
            "                    if r:",
            "                        if r == 2: return True",
            "                        again = True",
        ]
    lines += [
        "            if not again: return False",
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
    namespace: dict[str, Any] = {"PostinitError": PostinitError}
    sources = []
    for k, phase in enumerate(book.phases):
        order = book.compiled[phase]
        namespace[f"F_{k}"] = tuple(c.fn for c in order)
        namespace[f"ORDER_{k}"] = order
        namespace[f"PHASE_{k}"] = phase
        sources.append(_phase_source(k, order))
    code = compile("\n".join(sources), f"<postinit compiled rulebook {book.name!r}>", "exec")
    exec(code, namespace)  # noqa: S102 - our own generated source, from rule positions only
    phases = [(namespace[f"phase_{k}"], phase, book.compiled[phase]) for k, phase in enumerate(book.phases)]
    tables = {phase: [_wake_table(c) for c in book.compiled[phase]] for phase in book.phases}

    def program(run: CompiledRun) -> None:
        for fn, phase, order in phases:
            queued = [True] * len(order)
            if fn(run, queued, _recorder(run, phase, order, tables[phase], queued)):
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

    def apply(i: int, out: Any) -> int:
        c = order[i]
        t = type(out)
        if t is dict or t is FrozenDict:
            changes, message, level = out, None, None
        elif t is Outcome:
            changes, message, level = out.changes, out.message, out.level
        elif t is Violation or isinstance(out, Violation):
            run.violation(c, out, phase, c.read_order)
            return 2
        elif isinstance(out, Outcome):
            changes, message, level = out.changes, out.message, out.level
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
            if w is None:
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
            seq, c.id, phase, c.kind, tuple(made), c.message if message is None else message,
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
