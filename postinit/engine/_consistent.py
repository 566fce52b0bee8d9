"""Consistent semantics: every rule in one fixed point, so that no conclusion rests on a stale read.

Rules run in one global order (phase, then position); a change wakes every reader,
whatever its phase. Check rules run last, on the final state. What vLLM's statement
order leaves inconsistent (a fill-once default that read a value a later phase
changed) re-decides here, which takes one more idea — retraction:

* the engine keeps what each rule asserts (its last result);
* when a rule is evaluated again because a path it read was changed by a rule that
  does not depend on it, the values it still holds are first given back: each to the
  value of the latest rule that still asserts it, or to the input when none does;
* a rule evaluated again on exactly the reads of its last evaluation does not take
  back a path a rule later in the order has written since: later writers win
  (without this, a phase-1 reader of a path two later rules write loops forever).

Statement order never retracts (:mod:`._ordered`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from postinit.engine._effect import Effect, effect_of
from postinit.engine._rule import Level, Matched
from postinit.engine._run import Run, frozen, same
from postinit.engine._trace import Provenance

if TYPE_CHECKING:
    from postinit.engine._rulebook import CompiledRule

__all__ = ["ConsistentRun"]

RETRACTED = "retracted"
"""The provenance detail of a value a rule gave back."""
_RETRACT_MESSAGE = "retracted before re-evaluation: an input of this rule changed"


def _asserted(c: CompiledRule, out: Any) -> Mapping[str, Any]:
    """What a rule's result asserts: its changes with values frozen (nothing for None or a violation)."""
    eff = effect_of(c, out)
    if eff is None:
        return {}
    return {p: frozen(v) for p, v in eff.changes.items()}


class ConsistentRun(Run):
    """One resolution under consistent semantics."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.undo: dict[tuple[str, str], tuple[Any, Provenance | None]] = {}
        """(rule, path) -> the value and provenance the rule replaced when it took the path over."""
        self.last_reads: dict[str, dict[str, Any]] = {}
        """rule -> the values it read when last evaluated."""
        self.last_out: dict[str, Mapping[str, Any]] = {}
        """rule -> what it asserted at its last evaluation (path -> value)."""
        self.restored_owner: dict[str, str] = {}
        """path -> the rule whose asserted value a retraction put back."""
        order = self.book.global_order
        shared = self.book.loop_cache.get("consistent")
        if shared is None or shared[0] is not order:  # derived from the compiled rulebook: once per rulebook
            shared = self.book.loop_cache["consistent"] = (order, {i: c.pos for c in order for i in c.ids}, {})
        self.position: dict[str, int] = shared[1]
        self.downstream: dict[str, frozenset[str]] = shared[2]
        """rule -> itself and the rules that read a path it writes (shared by the rulebook's runs)."""
        self.same_reads = False
        """The rule being recorded read what it read at its last evaluation."""
        self.retracting: dict[str, Provenance | None] | None = None
        """While a retraction is recorded: path -> the provenance of the rule still asserting its value."""

    def run(self) -> None:
        order = self.book.global_order
        self.fixed_point(order, keep=lambda c: not c.is_check)
        if not self.stopped:
            self.fixed_point(order, keep=lambda c: c.is_check)

    # -- one rule ------------------------------------------------------------------

    def step(self, c: CompiledRule, phase: str) -> Iterable[str]:
        """Evaluate ``c``; retract first when an outside input changed since its last evaluation.

        A change the rule's own values caused (sizes derived from its max, say) is no
        reason for a fill-once default to re-decide: only a change by a rule that does
        not read what ``c`` writes is.
        """
        state = self.state
        last_reads = self.last_reads
        before = last_reads.get(c.id)
        last_reads[c.id] = {p: state[p] for p in c.read_order}
        unchanged = before is not None
        if before is not None:
            mine: frozenset[str] | None = None
            for p, v in before.items():
                now = state[p]
                if v is now or (type(v) is type(now) and v == now):  # same(), inline: the hot loop
                    continue
                unchanged = False
                if mine is None:
                    mine = self._downstream(c.id)
                cur = self.prov.get(p)
                if cur is None or cur.rule not in mine:
                    return self.rerun(c, phase)
        # re-run on unchanged reads (woken by a path that changed and changed back, or as a later
        # writer): its result is what it returned last time, so it must not take back paths a later
        # writer has superseded since (that re-assertion is how a cross-phase feedback never ends)
        self.same_reads = unchanged
        try:
            if c.members and (self.debug or self.strict):
                self._assert(c, self._preview(c))
                return self.step_members(c, phase)
            out, consulted = self.call(c)
            if c.members or type(out) is Matched:
                self._assert(c, out)
                return self.record(c, out, phase, consulted)
            # one rule: its effect, read once, is both what it asserts and what is recorded
            eff = effect_of(c, out)
            self.last_out[c.id] = {p: frozen(v) for p, v in eff.changes.items()} if eff is not None else {}
            return self.apply(c, eff, phase, c.read_order if consulted is None else consulted)
        finally:
            self.same_reads = False

    def _preview(self, c: CompiledRule) -> Any:
        """A group statement's result, for what it asserts (``step_members`` records it member by member)."""
        return c.fn(self.view)

    def _assert(self, c: CompiledRule, out: Any) -> Mapping[str, Any]:
        """Keep what each rule of ``c`` asserts now (a group statement: every member; the undecided ones nothing)."""
        if not c.members:
            found = self.last_out[c.id] = _asserted(c, out)
            return found
        merged: dict[str, Any] = {}
        for m in c.members:
            self.last_out[m.id] = {}
        for m, result in (out.results if type(out) is Matched else ()):
            self.last_out[m.id] = _asserted(m, result)
            merged.update(self.last_out[m.id])
        return merged

    def may_write(self, c: CompiledRule, path: str, old: Any, cur: Provenance | None) -> bool:
        if self.retracting is not None:  # a value given back: the rule still asserting it holds it again
            owner = self.retracting[path]
            if owner is not None and owner.rule is not None:
                self.restored_owner[path] = owner.rule
            else:
                self.restored_owner.pop(path, None)
            return True
        if (self.same_reads and cur is not None and cur.detail != RETRACTED
                and self.position.get(cur.rule or "", -1) > c.pos):
            return False  # what it wrote before, superseded since by a later writer: later wins
        if cur is None or cur.rule != c.id or cur.detail == RETRACTED:  # c: the rule recording (a member)
            # the rule takes the path over from someone else: remember what to retract to
            self.undo[(c.id, path)] = (old, cur)
        self.restored_owner.pop(path, None)
        return True

    def _downstream(self, rule: str) -> frozenset[str]:
        found = self.downstream.get(rule)
        if found is None:
            order = self.book.global_order
            me = next(c for c in order if c.id == rule)
            found = self.downstream[rule] = frozenset(
                [*me.ids, *(i for c in order if not me.writes.isdisjoint(c.reads) for i in c.ids)]
            )
        return found

    # -- retraction ------------------------------------------------------------------

    def rerun(self, c: CompiledRule, phase: str) -> list[str]:
        """Evaluate ``c`` again after retracting the values it still holds; return the changed paths.

        The rule is evaluated on the state with its held paths back at the values it replaced
        (what it would see had it not run before). A held path it writes again is left to its
        result (an unchanged value: no event and nobody woken, so a net no-op wakes no cycle);
        the others are retracted as one traced change by the rule, then its result is recorded.
        """
        state = self.state
        held: list[tuple[str, Any, Any, Provenance | None]] = []
        for path in c.writes:
            cur = self.prov.get(path)
            if cur is None:
                continue
            if cur.detail == RETRACTED:
                # a retraction put back a value this rule asserted: it holds the path again
                holder = self.restored_owner.get(path)
                if holder not in c.ids:
                    continue
            elif cur.rule not in c.ids:
                continue
            else:
                holder = cur.rule
            if (holder, path) in self.undo:
                before, owner = self._restore_to(holder, path)
                if not same(state[path], before):
                    held.append((path, state[path], before, owner))
        if not held:
            out, consulted = self.call(c)
            self._assert(c, out)
            return self.record(c, out, phase, consulted)
        for path, _, before, _ in held:
            state[path] = before
        try:
            out, consulted = self.call(c)
        finally:
            for path, now, _, _ in held:
                state[path] = now
        again = self._assert(c, out)
        # a path the rule writes again is simply overwritten by its result: only the rest is retracted
        gone = [h for h in held if h[0] not in again]
        changed = self.retract(c, phase, gone) if gone else []
        return changed + self.record(c, out, phase, consulted)

    def _restore_to(self, rule: str, path: str) -> tuple[Any, Provenance | None]:
        """The value ``path`` takes when ``rule`` gives it back, and the rule still asserting it (if any).

        That is what ``rule`` replaced, unless the rule that had set that value no longer
        asserts it (it re-decided meanwhile without holding the path): then what *that* rule
        replaced, and so on back to the input.
        """
        value, prov = self.undo[(rule, path)]
        seen = {rule}
        while prov is not None and prov.rule is not None and prov.detail != RETRACTED and prov.rule not in seen:
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

    def retract(self, c: CompiledRule, phase: str, gone: list[tuple[str, Any, Any, Provenance | None]]) -> list[str]:
        """Put each ``(path, held value, value before, owner)`` back, as one traced change by ``c``.

        The provenance says ``c`` retracted it; when the value put back is one another rule
        still asserts (``owner``), that rule holds the path again (it gives it back in turn if
        it re-decides).
        """
        self.retracting = {path: owner for path, _, _, owner in gone}
        self.detail = RETRACTED
        try:
            return self.apply(c, Effect({path: before for path, _, before, _ in gone}, _RETRACT_MESSAGE,
                                        Level.DEBUG.value, None), phase, c.read_order)
        finally:
            self.retracting = None
            self.detail = None
