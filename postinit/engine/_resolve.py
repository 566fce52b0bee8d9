"""Phased fixed-point resolution over a flat state.

Semantics (``semantics="vllm"``): phases run in the rulebook's order, each to
its own fixed point, and a later phase never re-runs an earlier one. When a
rule changes a path, every rule of the same phase that reads it (other than
the writer) is scheduled again. When a later phase changes a path that a rule
of an earlier phase read when it fired, the trace records a ``stale_read``.

``semantics="consistent"`` runs every rule in one fixed point (order: phase,
then position), so stale rules re-run; check rules are evaluated last, on the
final state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import structlog

from postinit.engine._paths import freeze
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


@dataclass(slots=True)
class EngineResult:
    """The outcome of resolving a flat state: final values, provenance and the trace."""

    rulebook: Rulebook
    initial: dict[str, Any]
    initial_provenance: dict[str, Provenance]
    state: dict[str, Any]
    provenance: dict[str, Provenance]
    trace: Trace
    semantics: Semantics
    history: dict[str, list[tuple[int, Any, Provenance]]] = field(default_factory=dict)
    """Per changed path: (event seq, new value, provenance), in order."""

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
    initial: Mapping[str, Any],
    provenance: Mapping[str, Provenance] | None = None,
    *,
    semantics: Semantics = "vllm",
    trace: TraceLevel = "full",
    strict: bool = False,
    max_runs: int = _MAX_RUNS,
) -> EngineResult:
    """Resolve ``initial`` (a flat state over ``book.paths``) to a fixed point.

    ``initial`` must hold every path of the rulebook's path space (start from
    ``paths.defaults()``); it is copied with its values frozen, never mutated. ``trace`` sets how much
    is recorded: ``minimal`` (changes only), ``full`` (plus the values each
    fired rule read, and stale reads) or ``debug`` (plus every evaluation that
    did not fire, for ``why_not``).
    """
    if semantics not in ("vllm", "consistent"):
        raise RuleDeclarationError(f"semantics must be 'vllm' or 'consistent', got {semantics!r}")
    missing = book.paths.paths - initial.keys()
    if missing:
        first = sorted(missing)[0]
        raise RuleDeclarationError(
            f"initial state lacks {len(missing)} paths (e.g. '{first}'); start from PathSpace.defaults()",
            path=first,
        )
    # freeze on the way in: a caller's list or dict must never reach a rule (which could mutate it)
    frozen = {p: freeze(v) for p, v in initial.items()}
    run = _Run(book, frozen, provenance or {}, trace, strict, max_runs)
    run.track_stale = semantics == "vllm" and trace != "minimal"
    if semantics == "vllm":
        for phase in book.phases:
            if run.stopped:
                break
            run.phase(book.compiled[phase], book.readers[phase], book.writers[phase], phase_name=phase)
    else:
        run.consistent()
    result = EngineResult(
        rulebook=book,
        initial=frozen,
        initial_provenance=dict(provenance or {}),
        state=run.state,
        provenance=run.prov,
        trace=Trace(tuple(run.events), trace),
        semantics=semantics,
        history=run.history,
    )
    _emit(result)
    return result


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
    ) -> None:
        self.book = book
        self.state: dict[str, Any] = dict(initial)
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
        """
        r = c.rule
        view = _StrictView(self.state, c.reads, r.id) if self.strict else self.view
        out = r.fn(view)
        if out is None:
            if self.debug:
                self.events.append(Evaluated(len(self.events), r.id, phase, {p: self.state[p] for p in r.reads}))
            return 1 << 30
        if isinstance(out, Violation):
            self.events.append(ViolationEvent(
                len(self.events), r.id, phase, out.message, out.hint, out.error,
                {p: self.state[p] for p in r.reads} if self.full else None,
            ))
            self.stopped = True
            return 1 << 30
        if isinstance(out, Outcome):
            changes, message, level = out.changes, out.message, out.level
        elif isinstance(out, Mapping):
            changes, message, level = out, None, None
        else:
            raise RuleDeclarationError(
                f"rule '{r.id}' returned {type(out).__name__}; return None, a mapping, Outcome or Violation",
                rule=r.id,
            )
        seq = len(self.events)
        reads = {p: self.state[p] for p in r.reads} if self.full else None
        made: list[Change] = []
        stale: list[tuple[str, Any]] = []
        lowest = 1 << 30
        for path, new in changes.items():
            if path not in c.writes:
                raise UndeclaredWriteError(
                    f"rule '{r.id}' wrote '{path}', which it does not declare in writes ({r.location})",
                    rule=r.id, path=path, value=new,
                )
            new = freeze(new)
            old = self.state[path]
            if _same(old, new):
                continue
            old_source = self._source_of(path)
            self.state[path] = new
            prov = Provenance(Source.RULE, rule=r.id, event=seq)
            self.prov[path] = prov
            made.append(Change(path, old, new, old_source))
            if self.full:
                self.history.setdefault(path, []).append((seq, new, prov))
                if self.track_stale:
                    stale.append((path, new))
            for j in readers.get(path, ()):
                if j != c.pos and not queued[j]:
                    queued[j] = True
                    if j < lowest:
                        lowest = j
            if writers:
                for j in writers.get(path, ()):
                    if j > c.pos:
                        queued[j] = True
        if not made and message is None:
            if self.debug:
                self.events.append(Evaluated(seq, r.id, phase, reads or {}))
            return 1 << 30
        lvl = Level(level).value if level is not None else r.level.value
        self.events.append(Fired(
            seq, r.id, phase, r.kind.value, tuple(made), message if message is not None else r.message, lvl, reads,
        ))
        for path, new in stale:
            self._stale(path, new, r.id, phase)
        if self.full and reads is not None:
            for p, v in reads.items():
                if p not in c.writes:
                    self.readers_log[p][r.id] = (c.phase_idx, phase, v)
        return lowest

    def _source_of(self, path: str) -> Source:
        prov = self.prov.get(path) or self.initial_prov.get(path)
        return prov.source if prov is not None else Source.DEFAULT

    def _stale(self, path: str, new: Any, by: str, by_phase: str) -> None:
        by_idx = self.book.phases.index(by_phase)
        for rid, (idx, phase, value) in self.readers_log.get(path, {}).items():
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
        readers: Mapping[str, tuple[int, ...]],
        writers: Mapping[str, tuple[int, ...]] | None = None,
        *,
        phase_name: str | None = None,
        skip_checks: bool = False,
        only_checks: bool = False,
    ) -> None:
        n = len(order)
        queued = [True] * n
        runs = [0] * n
        i = 0
        while True:
            back = 1 << 30
            while i < n:
                if queued[i]:
                    queued[i] = False
                    c = order[i]
                    if (skip_checks and c.is_check) or (only_checks and not c.is_check):
                        i += 1
                        continue
                    runs[i] += 1
                    if runs[i] > self.max_runs:
                        self._no_fixed_point(order, runs, phase_name or c.rule.phase)
                    low = self.run_rule(c, phase_name or c.rule.phase, readers, queued, writers)
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


_log = structlog.get_logger("postinit.engine")


def _emit(result: EngineResult) -> None:
    """Send the trace to structlog as events, when the application configured structlog."""
    if not structlog.is_configured():
        return
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
