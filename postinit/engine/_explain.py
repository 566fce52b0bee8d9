"""Explanations built on demand from a resolution: ``why(path)`` and ``why_not(path, value)``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from postinit.engine._paths import freeze
from postinit.engine._trace import (
    Evaluated,
    Fired,
    Provenance,
    Source,
    StaleRead,
    ViolationEvent,
    jsonable,
)

if TYPE_CHECKING:
    from postinit.engine._run import EngineResult

__all__ = ["Candidate", "Note", "Step", "WhyNode", "WhyNot", "why", "why_not"]

_MAX_DEPTH = 12
_FACT_ROOTS = frozenset({"platform", "env", "usage"})


@dataclass(frozen=True, slots=True)
class Step:
    """One value a path held, and where it came from."""

    value: Any
    provenance: Provenance
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"value": jsonable(self.value), **self.provenance.to_dict()}
        if self.message:
            out["message"] = self.message
        return out


@dataclass(frozen=True, slots=True)
class WhyNode:
    """Why ``path`` holds ``value``: its provenance, the rule's reads as children, and its history."""

    path: str
    value: Any
    provenance: Provenance
    message: str | None = None
    phase: str | None = None
    children: tuple[WhyNode, ...] = ()
    history: tuple[Step, ...] = ()
    """Every value the path held before this one, oldest first."""
    truncated: bool = False
    notes: tuple[Note, ...] = ()
    """(root only) warnings, quirks and stale reads about any value in the tree."""

    @property
    def rule(self) -> str | None:
        return self.provenance.rule

    def walk(self) -> list[WhyNode]:
        """This node and all its descendants, depth first."""
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        return out

    def leaves(self) -> list[WhyNode]:
        """The inputs and facts the value rests on."""
        return [n for n in self.walk() if not n.children]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "value": jsonable(self.value), **self.provenance.to_dict()}
        if self.phase:
            out["phase"] = self.phase
        if self.message:
            out["message"] = self.message
        if self.history:
            out["history"] = [s.to_dict() for s in self.history]
        if self.children:
            out["because"] = [c.to_dict() for c in self.children]
        if self.truncated:
            out["truncated"] = True
        if self.notes:
            out["notes"] = [n.to_dict() for n in self.notes]
        return out


@dataclass(frozen=True, slots=True)
class Note:
    """A message-only event (a warning or quirk) or a stale read about a value in a why tree."""

    rule: str
    level: str
    message: str
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level, "message": self.message, "path": self.path}


def why(result: EngineResult, path: str) -> WhyNode:
    """The causal tree of ``path``'s final value in ``result``, with the warnings about it."""
    result.rulebook.paths.require(path)
    root = _node(result, path, len(result.trace.events) + 1, 0, set())
    return dataclasses.replace(root, notes=_notes(result, root))


def _notes(result: EngineResult, root: WhyNode) -> tuple[Note, ...]:
    in_tree: dict[str, int] = {}
    level = [root]
    depth = 0
    while level:
        for n in level:
            in_tree.setdefault(n.path, depth)
        level = [c for n in level for c in n.children]
        depth += 1
    notes: list[Note] = []
    for ev in result.trace.events:
        if isinstance(ev, Fired) and not ev.changes and ev.message and ev.reads is not None:
            # name the config value nearest the root that the note read, rather than a fact
            hits = sorted((p for p in ev.reads if p in in_tree),
                          key=lambda p: (p.split(".", 1)[0] in _FACT_ROOTS, in_tree[p]))
            hit = hits[0] if hits else None
            if hit is not None:
                notes.append(Note(ev.rule, ev.level, ev.message, hit))
        elif isinstance(ev, StaleRead) and (ev.path in in_tree or ev.path == root.path):
            notes.append(Note(ev.rule, "warning", ev.message, ev.path))
    return tuple(notes)


def _node(result: EngineResult, path: str, before: int, depth: int, seen: set[tuple[str, int]]) -> WhyNode:
    value, prov = result.value_at(path, before)
    history = _history(result, path, before)
    if prov.source is not Source.RULE or prov.event is None:
        return WhyNode(path, value, prov, history=history)
    ev = result.trace.events[prov.event]
    assert isinstance(ev, Fired)  # provenance events are always firings
    key = (path, prov.event)
    if depth >= _MAX_DEPTH or key in seen:
        return WhyNode(path, value, prov, ev.message, ev.phase, history=history, truncated=True)
    seen = seen | {key}
    children: tuple[WhyNode, ...] = ()
    if ev.reads is not None:
        children = tuple(_node(result, p, ev.seq, depth + 1, seen) for p in ev.reads)
    return WhyNode(path, value, prov, ev.message, ev.phase, children, history)


def _history(result: EngineResult, path: str, before: int) -> tuple[Step, ...]:
    steps = [Step(result.initial[path], result.initial_provenance.get(path, Provenance(Source.DEFAULT)))]
    for seq, v, p in result.history.get(path, ()):
        if seq >= before:
            break
        ev = result.trace.events[seq]
        steps.append(Step(v, p, ev.message if isinstance(ev, Fired) else None))
    return tuple(steps[:-1])


@dataclass(frozen=True, slots=True)
class Candidate:
    """A rule that may write the path, and what it did in this resolution."""

    rule: str
    phase: str
    status: str
    """``produced`` (it set the value and it stuck), ``overridden`` (it set the value, a later rule
    changed it), ``other-value`` (it fired with another value), ``not-fired`` (its condition did
    not hold: see ``reads``), ``not-reached`` (resolution stopped before it ran)."""
    detail: str
    reads: dict[str, Any] = field(default_factory=dict)
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "phase": self.phase, "status": self.status, "detail": self.detail}
        if self.reads:
            out["reads"] = {k: jsonable(v) for k, v in self.reads.items()}
        if self.by:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class WhyNot:
    """Why ``path`` is not ``value``: the final value and every rule that could have produced it."""

    path: str
    value: Any
    final: Any
    holds: bool
    candidates: tuple[Candidate, ...]
    input_value: Any
    input_provenance: Provenance

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "value": jsonable(self.value), "final": jsonable(self.final), "holds": self.holds,
            "input": {"value": jsonable(self.input_value), **self.input_provenance.to_dict()},
            "candidates": [c.to_dict() for c in self.candidates],
        }


def why_not(result: EngineResult, path: str, value: Any) -> WhyNot:
    """Name the rules that could have set ``path`` to ``value`` and what stopped each one.

    The resolution is re-run with a debug trace (every evaluation recorded), so
    a rule that did not fire shows the values its condition saw.
    """
    book = result.rulebook
    book.paths.require(path)
    target = freeze(value)
    debug = result if result.trace.level == "debug" else book.resolve(
        result.initial, result.initial_provenance, semantics=result.semantics, trace="debug"
    )
    stop_seq = next((e.seq for e in debug.trace.events if isinstance(e, ViolationEvent)), None)
    changes = debug.trace.changes_to(path)
    candidates: list[Candidate] = []
    for r in book.writers_of(path):
        mine = [(e, c) for e, c in changes if e.rule == r.id]
        evals = [e for e in debug.trace.events if isinstance(e, Evaluated) and e.rule == r.id]
        if mine:
            ev, ch = mine[-1]
            later = [(e2, c2) for e2, c2 in changes if e2.seq > ev.seq]
            if _eq(ch.new, target):
                if later:
                    by = later[-1][0].rule
                    candidates.append(Candidate(
                        r.id, r.phase, "overridden",
                        f"set {_show(ch.new)} but rule {by} changed it to {_show(later[-1][1].new)}",
                        dict(ev.reads or {}), by,
                    ))
                else:
                    candidates.append(Candidate(r.id, r.phase, "produced", f"set {_show(ch.new)}", dict(ev.reads or {})))
            else:
                candidates.append(Candidate(
                    r.id, r.phase, "other-value", f"fired but set {_show(ch.new)}", dict(ev.reads or {}),
                ))
        elif evals:
            reads = dict(evals[-1].reads)
            shown = ", ".join(f"{k}={_show(v)}" for k, v in reads.items())
            candidates.append(Candidate(r.id, r.phase, "not-fired", f"its condition did not hold: {shown}", reads))
        else:
            fired_other = [e for e in debug.trace.fired if e.rule == r.id]
            if fired_other:
                candidates.append(Candidate(
                    r.id, r.phase, "not-fired", "fired without changing this path",
                    dict(fired_other[-1].reads or {}),
                ))
            else:
                why_stop = f" (stopped by a violation at event {stop_seq})" if stop_seq is not None else ""
                candidates.append(Candidate(r.id, r.phase, "not-reached", f"never ran{why_stop}"))
    final = result.state[path]
    return WhyNot(
        path, target, final, _eq(final, target), tuple(candidates),
        result.initial[path], result.initial_provenance.get(path, Provenance(Source.DEFAULT)),
    )


def _eq(a: Any, b: Any) -> bool:
    if a == b:
        return True
    # let users say "NONE" for an enum member, or 3 for an IntEnum
    return bool(jsonable(a) == jsonable(b))


def _show(v: Any) -> str:
    return repr(jsonable(v))
