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
from postinit.errors import InvalidValueError

if TYPE_CHECKING:
    from rich.console import RenderableType

    from postinit.engine._rule import Rule
    from postinit.engine._rulebook import Rulebook
    from postinit.engine._run import EngineResult

__all__ = ["Candidate", "Condition", "Note", "Step", "WhyNode", "WhyNot", "why", "why_not"]

_MAX_DEPTH = 12
"""The default depth of a why tree (a deeper chain is cut and marked ``truncated``)."""
_DEPTH_LIMIT = 200
"""No tree is built deeper than this, whatever ``depth`` asks (recursion)."""


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
    """Why ``path`` holds ``value``: its provenance, what the deciding rule consulted, and its history.

    ``str(node)`` is the plain-text tree ``postinit why`` prints; rich renders it with colour
    (``__rich__``) and a notebook as HTML (``_repr_html_``).
    """

    path: str
    value: Any
    provenance: Provenance
    message: str | None = None
    phase: str | None = None
    children: tuple[WhyNode, ...] = ()
    """The values the rule consulted to decide, in the order it consulted them (see ``defaults``)."""
    history: tuple[Step, ...] = ()
    """Every value the path held before this one, oldest first."""
    truncated: bool = False
    """The tree was cut here (``depth``): the rule's reads are not shown."""
    notes: tuple[Note, ...] = ()
    """(root only) warnings, quirks and stale reads about any value in the tree."""
    title: str | None = None
    """The deciding rule's one-line title: the decision in words."""
    defaults: tuple[WhyNode, ...] = ()
    """Consulted values that decided nothing of yours, folded into one line: schema defaults, and a
    sub-config's presence when a value inside it is shown (``verbose=True`` keeps them in ``children``)."""
    ref: bool = False
    """This value's explanation (the same rule firing) is shown earlier in the tree; not repeated."""
    verbose: bool = False
    """(root only) built with ``verbose=True``: every consulted value is a child, every message shown."""
    owner: str | None = None
    """The deciding rule's owner when it is not the modelled system's own (a site's policies: ``Rule.owner``)."""

    @property
    def rule(self) -> str | None:
        return self.provenance.rule

    def walk(self, *, folded: bool = True) -> list[WhyNode]:
        """This node and all its descendants, depth first (folded defaults included unless ``folded=False``)."""
        out = [self]
        for c in self.children:
            out.extend(c.walk(folded=folded))
        if folded:
            out.extend(self.defaults)
        return out

    def leaves(self) -> list[WhyNode]:
        """The inputs and facts the value rests on."""
        return [n for n in self.walk() if not n.children and not n.ref and not n.truncated]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "value": jsonable(self.value), **self.provenance.to_dict()}
        if self.phase:
            out["phase"] = self.phase
        if self.owner:
            out["owner"] = self.owner
        if self.title:
            out["title"] = self.title
        if self.message:
            out["message"] = self.message
        if self.history:
            out["history"] = [s.to_dict() for s in self.history]
        if self.children:
            out["because"] = [c.to_dict() for c in self.children]
        if self.defaults:
            out["defaults"] = [c.to_dict() for c in self.defaults]
        if self.ref:
            out["shown_above"] = True
        if self.truncated:
            out["truncated"] = True
        if self.notes:
            out["notes"] = [n.to_dict() for n in self.notes]
        return out

    def __str__(self) -> str:
        from postinit.engine._show import plain, why_renderable

        return plain(why_renderable(self))

    def __repr__(self) -> str:
        from postinit.engine._show import brief, origin

        return (f"<WhyNode {self.path} = {brief(self.value)} ← {origin(self.provenance)} · "
                f"{len(self.walk()) - 1} values below>")

    def __rich__(self) -> RenderableType:
        from postinit.engine._show import why_renderable

        return why_renderable(self)

    def _repr_html_(self) -> str:
        from postinit.engine._show import html, why_renderable

        return html(why_renderable(self))


@dataclass(frozen=True, slots=True)
class Note:
    """A message-only event (a warning or quirk) or a stale read about a value in a why tree."""

    rule: str
    level: str
    message: str
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level, "message": self.message, "path": self.path}


class _Consulted:
    """What each firing of a resolution consulted: its reads in a debug re-run (same events, in order).

    A debug trace holds the same firings, violations and stale reads as the resolution's own
    trace, plus one ``Evaluated`` event per evaluation that did not fire; a firing's ``reads``
    there are the values its body actually consulted, in order.
    """

    def __init__(self, result: EngineResult) -> None:
        self.debug = _debug_run(result)
        self.reads: dict[int, tuple[str, ...]] = {}
        mine = result.trace.events
        theirs = [e for e in self.debug.trace.events if not isinstance(e, Evaluated)]
        pairs = list(zip(mine, theirs, strict=True)) if len(theirs) == len(mine) else []
        if any(type(a) is not type(b) or a.rule != b.rule for a, b in pairs):
            pairs = []  # pragma: no cover - a deterministic engine replays the same events
        for a, b in pairs:
            if isinstance(b, Fired) and b.reads is not None:
                self.reads[a.seq] = tuple(b.reads)

    def of(self, ev: Fired) -> tuple[str, ...] | None:
        got = self.reads.get(ev.seq)
        if got is not None:
            return got
        return tuple(ev.reads) if ev.reads is not None else None


def _debug_run(result: EngineResult) -> EngineResult:
    """``result`` itself when its trace is a debug trace, else the same resolution re-run with one."""
    if result.trace.level == "debug":
        return result
    debug: EngineResult = result.rulebook.resolve(
        result.initial, result.initial_provenance, semantics=result.semantics, trace="debug")
    return debug


def why(result: EngineResult, path: str, *, verbose: bool = False, depth: int | None = None) -> WhyNode:
    """The causal tree of ``path``'s final value in ``result``, with the warnings about it.

    Under each rule-set value are the reads the rule's body actually consulted on the firing
    that set it (a short-circuited condition stops at the value that decided), found by
    re-running the resolution with a debug trace. Unless ``verbose``, consulted values that
    decided nothing of yours fold into ``defaults`` (schema defaults; a sub-config's presence
    when a value inside it is shown) and a rule's re-read of the value it replaces is left to
    ``history``. A firing explained once is referenced (``ref``) where it appears again.
    ``depth`` cuts the tree below that many levels (``truncated`` marks the cut).
    """
    result.rulebook.paths.require(path)
    if depth is not None and depth < 0:
        raise InvalidValueError(f"depth must be 0 or more, got {depth}", path="depth", value=depth)
    builder = _Builder(result, _Consulted(result), verbose, _MAX_DEPTH if depth is None else min(depth, _DEPTH_LIMIT))
    root = builder.node(path, len(result.trace.events) + 1, 0)
    return dataclasses.replace(root, notes=_notes(result, root, builder.consulted), verbose=verbose)


def _notes(result: EngineResult, root: WhyNode, consulted: _Consulted) -> tuple[Note, ...]:
    in_tree: dict[str, int] = {}
    level = [root]
    depth = 0
    while level:
        for n in level:
            in_tree.setdefault(n.path, depth)
        level = [c for n in level for c in (*n.children, *n.defaults)]
        depth += 1
    notes: list[Note] = []
    facts = result.rulebook.paths.mounts
    for ev in result.trace.events:
        if isinstance(ev, Fired) and not ev.changes and ev.message:
            reads = consulted.of(ev)
            if reads is None:
                continue
            # name the config value nearest the root that the note read, rather than a fact; reading
            # whether a whole sub-config is present ("model_config") is no reason to show a note
            hits = sorted((p for p in reads if p in in_tree and "." in p),
                          key=lambda p: (p.split(".", 1)[0] in facts, in_tree[p]))
            if hits:
                notes.append(Note(ev.rule, ev.level, ev.message, hits[0]))
        elif isinstance(ev, StaleRead) and (ev.path in in_tree or ev.path == root.path):
            notes.append(Note(ev.rule, "warning", ev.message, ev.path))
    return tuple(notes)


class _Builder:
    def __init__(self, result: EngineResult, consulted: _Consulted, verbose: bool, depth: int) -> None:
        self.result = result
        self.consulted = consulted
        self.verbose = verbose
        self.depth = depth
        self.shown: set[int] = set()
        """Firings whose reads are already shown (in the tree's reading order)."""

    def node(self, path: str, before: int, depth: int) -> WhyNode:
        result = self.result
        value, prov = result.value_at(path, before)
        history = _history(result, path, before)
        if prov.source is not Source.RULE or prov.event is None:
            return WhyNode(path, value, prov, history=history)
        ev = result.trace.events[prov.event]
        assert isinstance(ev, Fired)  # provenance events are always firings
        rule = result.rulebook.rules.get(ev.rule)
        title = rule.title if rule is not None else None
        base = WhyNode(path, value, prov, ev.message or None, ev.phase, history=history, title=title,
                       owner=rule.owner if rule is not None else None)
        if prov.event in self.shown:
            return dataclasses.replace(base, ref=True)
        reads = self.consulted.of(ev)
        if not reads:
            return base
        if depth >= self.depth:
            return dataclasses.replace(base, truncated=True)
        self.shown.add(prov.event)
        kids = [self.node(p, ev.seq, depth + 1) for p in reads if self.verbose or p != path]
        if self.verbose:
            return dataclasses.replace(base, children=tuple(kids))
        below = {n.path for k in kids for n in k.walk(folded=False)}
        children: list[WhyNode] = []
        folded: list[WhyNode] = []
        for k in kids:
            leaf = not k.children and not k.ref and not k.truncated
            quiet = leaf and (k.provenance.source is Source.DEFAULT or (
                k.value is True and _is_presence(result, k.path) and any(q.startswith(k.path + ".") for q in below)
            ))
            (folded if quiet else children).append(k)
        return dataclasses.replace(base, children=tuple(children), defaults=tuple(folded))


def _is_presence(result: EngineResult, path: str) -> bool:
    info = result.rulebook.paths.info.get(path)
    return info is not None and info.presence


def _history(result: EngineResult, path: str, before: int) -> tuple[Step, ...]:
    steps = [Step(result.initial[path], result.initial_provenance.get(path, Provenance(Source.DEFAULT)))]
    for seq, v, p in result.history.get(path, ()):
        if seq >= before:
            break
        ev = result.trace.events[seq]
        steps.append(Step(v, p, ev.message if isinstance(ev, Fired) else None))
    return tuple(steps[:-1])


@dataclass(frozen=True, slots=True)
class Condition:
    """The value that made a rule's condition false: the last value its body consulted, and its origin."""

    path: str
    value: Any
    provenance: Provenance

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "value": jsonable(self.value), **self.provenance.to_dict()}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A rule that may write the path, and what it did in this resolution."""

    rule: str
    phase: str
    status: str
    """``produced`` (it set the value and it stuck), ``overridden`` (it set the value, a later rule
    changed it), ``other-value`` (it fired with another value), ``not-fired`` (its condition did
    not hold: see ``condition``), ``not-reached`` (resolution stopped before it ran)."""
    detail: str
    reads: dict[str, Any] = field(default_factory=dict)
    """The values the rule consulted on its last evaluation, in the order it consulted them."""
    by: str | None = None
    condition: Condition | None = None
    """(``not-fired``) the consulted value its condition stopped at, with where that value came from."""
    owner: str | None = None
    """The rule's owner when it is not the modelled system's own (a site's policies: ``Rule.owner``)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "phase": self.phase, "status": self.status, "detail": self.detail}
        if self.owner:
            out["owner"] = self.owner
        if self.condition is not None:
            out["condition"] = self.condition.to_dict()
        if self.reads:
            out["reads"] = {k: jsonable(v) for k, v in self.reads.items()}
        if self.by:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class WhyNot:
    """Why ``path`` is not ``value``: the final value and every rule that could have produced it.

    ``str(w)`` is the plain text ``postinit why-not`` prints; rich and notebooks render it too.
    """

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

    def __str__(self) -> str:
        from postinit.engine._show import plain, why_not_renderable

        return plain(why_not_renderable(self))

    def __repr__(self) -> str:
        from postinit.engine._show import show

        verdict = "holds" if self.holds else f"is {show(self.final)}"
        return f"<WhyNot {self.path} = {show(self.value)}: {verdict} · {len(self.candidates)} candidate rules>"

    def __rich__(self) -> RenderableType:
        from postinit.engine._show import why_not_renderable

        return why_not_renderable(self)

    def _repr_html_(self) -> str:
        from postinit.engine._show import html, why_not_renderable

        return html(why_not_renderable(self))


def why_not(result: EngineResult, path: str, value: Any) -> WhyNot:
    """Name the rules that could have set ``path`` to ``value`` and what stopped each one.

    The resolution is re-run with a debug trace (every evaluation recorded, with the values
    each rule body actually consulted), so a rule that did not fire names the value its
    condition stopped at: the last one it consulted, with where that value came from.
    """
    from postinit.engine._show import brief, clip, origin

    def _show(v: Any) -> str:
        return clip(brief(v))

    book = result.rulebook
    book.paths.require(path)
    target = freeze(value)
    debug = _debug_run(result)
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
            last = evals[-1]
            reads = dict(last.reads)
            condition = None
            detail = "it returned without reading anything"
            if reads:
                failed = next(reversed(reads))
                _, prov = debug.value_at(failed, last.seq)
                condition = Condition(failed, reads[failed], prov)
                detail = f"stopped at {failed} = {_show(reads[failed])} ← {origin(prov)}"
            candidates.append(Candidate(r.id, r.phase, "not-fired", detail, reads, condition=condition))
        else:
            fired_other = [e for e in debug.trace.fired if e.rule == r.id]
            if fired_other:
                candidates.append(Candidate(
                    r.id, r.phase, "not-fired", "fired without changing this path",
                    dict(fired_other[-1].reads or {}),
                ))
            elif r.group is not None and (held := _group_decided(book, debug, r)) is not None:
                candidates.append(Candidate(r.id, r.phase, "not-fired", held))
            else:
                why_stop = f" (stopped by a violation at event {stop_seq})" if stop_seq is not None else ""
                candidates.append(Candidate(r.id, r.phase, "not-reached", f"never ran{why_stop}"))
    final = result.state[path]
    candidates = [dataclasses.replace(c, owner=book.rules[c.rule].owner) if book.rules[c.rule].owner else c
                  for c in candidates]
    return WhyNot(
        path, target, final, _eq(final, target), tuple(candidates),
        result.initial[path], result.initial_provenance.get(path, Provenance(Source.DEFAULT)),
    )


def _group_decided(book: Rulebook, debug: EngineResult, r: Rule) -> str | None:
    """Why a member of a group statement was not tried: its gate was false, or an earlier member decided."""
    group = book.groups[r.group or ""]
    members = group.members
    decided = [e for e in debug.trace.events
               if isinstance(e, (Fired, ViolationEvent)) and e.rule in members
               and members.index(e.rule) < members.index(r.id)]
    if decided and group.kind == "first_match":
        return f"not tried: {decided[-1].rule} decided first (first_match group {group.id})"
    gate = [e for e in debug.trace.events if isinstance(e, Evaluated) and e.rule == group.id]
    if gate:
        return f"not tried: the gate of group {group.id} was false ({', '.join(gate[-1].reads) or 'no reads'})"
    return None


def _eq(a: Any, b: Any) -> bool:
    if a == b:
        return True
    # let users say "NONE" for an enum member, or 3 for an IntEnum
    return bool(jsonable(a) == jsonable(b))
