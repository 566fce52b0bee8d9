"""Resolving a flat state: the choice of run loop.

The run state (:mod:`._run`: :class:`Run`, :class:`EngineResult`) is at the bottom of the
engine's house, the loops above it — statement order interpreted (:mod:`._ordered`) and
compiled (:mod:`._compiled`), one consistent fixed point (:mod:`._consistent`) — and
:func:`resolve_flat` above them picks one for the semantics and the trace level. Incremental
re-resolution (:mod:`._incremental`) sits above this dispatcher.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from itertools import compress
from operator import not_
from typing import TYPE_CHECKING, Any

from postinit.engine._compiled import run_compiled
from postinit.engine._consistent import ConsistentRun
from postinit.engine._ordered import OrderedRun
from postinit.engine._paths import freeze
from postinit.engine._run import _ATOMIC, MAX_RUNS, EngineResult, Run, TraceLevel
from postinit.engine._trace import Fired, Provenance, StaleRead, Trace, ViolationEvent
from postinit.errors import RuleDeclarationError

if TYPE_CHECKING:
    from postinit.engine._rulebook import Rulebook

__all__ = ["emit", "resolve_flat"]


def resolve_flat(
    book: Rulebook,
    initial: Mapping[str, Any] | None,
    provenance: Mapping[str, Provenance] | None = None,
    *,
    changes: Mapping[str, Any] | None = None,
    semantics: str = "ordered",
    trace: TraceLevel = "full",
    strict: bool = False,
    max_runs: int = MAX_RUNS,
    owned: bool = False,
    interpret: bool = False,
    record: bool = False,
    select: Collection[str] | None = None,
) -> EngineResult:
    """Resolve ``initial`` (a flat state over ``book.paths``) to a fixed point.

    ``initial`` must hold every path of the rulebook's path space (start from
    ``paths.defaults()``); it is copied with its values frozen, never mutated.
    ``owned=True`` hands a fresh dict over instead: it must hold every path with values
    already frozen (as ``PathSpace.defaults()``/``flatten`` give them); the resolution works
    on it in place. ``changes`` (with ``initial=None``) gives the state as the path space's
    defaults plus these paths. ``trace`` sets how much is recorded (see the module
    docstring); ``strict`` refuses reads a rule did not declare. ``semantics`` is
    ``"ordered"`` (statement order: each phase to its own fixed point, later phases never re-run
    earlier ones), ``"consistent"`` (one fixed point, stale rules re-run with retraction), or a
    name the rulebook gives one of them (``Rulebook(semantics_aliases=...)``). Statement order
    at the ``minimal`` and ``full`` levels runs the compiled evaluator unless ``interpret`` is
    set; both give the same result. ``record`` keeps the compiled run's schedule
    (``EngineResult.recording``: what :func:`~postinit.engine.replay` re-resolves another state from).
    ``select`` (rule ids) runs only those rules, in their phases and order, as if the others were
    absent: a part of the modelled system on its own (the interpreter runs it; a ``first_match`` /
    ``all_of`` statement runs whole when one of its members is selected).
    """
    chosen = None if select is None else frozenset(select)
    if chosen is not None and not chosen <= book.rules.keys():
        raise RuleDeclarationError(f"select names unknown rules: {sorted(chosen - book.rules.keys())}",
                                   rule=min(chosen - book.rules.keys()))
    order = book.semantics_of(semantics)
    if trace not in ("minimal", "full", "debug"):
        raise RuleDeclarationError(f"trace must be 'minimal', 'full' or 'debug', got {trace!r}")
    if changes is not None:
        unknown = changes.keys() - book.paths.paths
        if unknown:
            raise RuleDeclarationError(f"changes name unknown paths: {sorted(unknown)}", path=min(unknown))
        state = book.paths.defaults()
        for p, v in changes.items():
            state[p] = freeze(v)
        owned = True
    elif initial is None:
        raise RuleDeclarationError("resolve_flat needs an initial state or changes=")
    elif owned and type(initial) is dict:
        state = initial
    else:
        if not initial.keys() >= book.paths.paths:
            missing = book.paths.paths - initial.keys()
            first = sorted(missing)[0]
            raise RuleDeclarationError(
                f"initial state lacks {len(missing)} paths (e.g. '{first}'); start from PathSpace.defaults()",
                path=first,
            )
        # freeze on the way in: a caller's list or dict must never reach a rule (which could mutate it)
        state = dict(initial)
        keys = list(state)
        for p in compress(keys, map(not_, map(_ATOMIC.__contains__, map(type, state.values())))):
            state[p] = freeze(state[p])
        owned = False
    given = None if owned else dict(state)
    recording = None
    run: Run
    if order == "ordered":
        if not (interpret or strict or trace == "debug" or chosen is not None):
            compiled = run_compiled(book, state, provenance or {}, trace, max_runs, record=record)
            recording, run = compiled.recording, compiled
        else:
            run = OrderedRun(book, state, provenance or {}, trace, strict, max_runs, chosen)
            run.run()
    else:
        run = ConsistentRun(book, state, provenance or {}, trace, strict, max_runs, chosen)
        run.run()
    result = EngineResult(
        rulebook=book,
        given=given,
        initial_provenance=dict(provenance or {}),
        state=run.state,
        provenance=run.prov,
        trace=Trace(tuple(run.events), trace),
        semantics=order,
        kept_history=run.history if run.keeps_history else None,
        recording=recording,
    )
    run.close()
    emit(result)
    return result


# --------------------------------------------------------------------------- logging


def emit(result: EngineResult) -> None:
    """Send the trace to structlog as events, when the application configured structlog.

    structlog is not imported here (it costs ~0.1 s of start-up): an application
    that configured it has imported it already. A violation is an answer about the
    config, not an error of the program: it is logged at info.
    """
    structlog = sys.modules.get("structlog")
    if structlog is None or not structlog.is_configured():
        return
    log = structlog.get_logger("postinit.engine")
    for ev in result.trace.events:
        if isinstance(ev, Fired):
            method = getattr(log, ev.level if ev.level != "error" else "warning")
            if not ev.changes:
                method("rule_fired", rule=ev.rule, phase=ev.phase, message=ev.message)
            for ch in ev.changes:
                method("rule_fired", rule=ev.rule, phase=ev.phase, path=ch.path, old=ch.old, new=ch.new,
                       message=ev.message)
        elif isinstance(ev, ViolationEvent):
            log.info("rule_violation", rule=ev.rule, phase=ev.phase, message=ev.message, error=ev.error)
        elif isinstance(ev, StaleRead):
            log.warning("stale_read", rule=ev.rule, phase=ev.phase, path=ev.path, read=ev.read, now=ev.now,
                        by=ev.by)
