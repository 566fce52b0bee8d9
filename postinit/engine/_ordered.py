"""Statement order, interpreted: phases one after another, each to its own fixed point.

A later phase never re-runs an earlier one, as the modelled program runs its statements
(vLLM runs the platform hook after the capture sizes were computed). When a later phase changes a path that a rule
of an earlier phase read when it fired, the trace records a :class:`StaleRead`: that
rule's conclusion rests on a value that no longer holds — the states in which the
modelled program's result is inconsistent.

This is the reference implementation; :mod:`._compiled` runs the same algorithm faster
and is tested against it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from postinit.engine._run import Run, same
from postinit.engine._trace import StaleRead

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule

__all__ = ["OrderedRun"]


class OrderedRun(Run):
    """One resolution in statement order."""

    keeps_history = False  # every write is a traced change with no provenance detail: the trace gives the history

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.track_stale = self.full
        self.readers_log: dict[str, dict[str, tuple[int, str, Any]]] = defaultdict(dict)
        """path -> {rule id: (its phase index, phase, the value it read)} for rules that fired."""
        self.stale_seen: set[tuple[str, str, str]] = set()

    def run(self) -> None:
        for phase in self.book.phases:
            self.fixed_point(self.book.compiled[phase], phase)
            if self.stopped:
                return

    def fired(self, c: CompiledRule, phase: str, changed: list[str]) -> None:
        """Record stale reads this firing caused, and what it read that a later phase may change."""
        if not self.track_stale:
            return
        state = self.state
        for path in changed:
            if path in c.stale_writes:
                self.stale(path, state[path], c.id, c.phase_idx, phase)
        for p in c.stale_log:
            # a pure read: this firing did not write it, so the state still holds what it read
            self.readers_log[p][c.id] = (c.phase_idx, phase, state[p])

    def stale(self, path: str, new: Any, by: str, by_idx: int, by_phase: str) -> None:
        """A rule of an earlier phase read ``path``, and ``by`` has just changed it."""
        for rid, (idx, phase, value) in self.readers_log.get(path, {}).items():
            if idx < by_idx and rid != by and not same(value, new) and (rid, path, by) not in self.stale_seen:
                self.stale_seen.add((rid, path, by))
                self.events.append(StaleRead(len(self.events), rid, phase, path, value, new, by, by_phase))
