"""What a rule's result means, and how a group statement decides: each written once.

:func:`effect_of` reads a rule's result (``None``, a mapping of changes, an :class:`Outcome`
or a :class:`Violation`) as an :class:`Effect`: the changes it asks for, the message it logs
(the header's template filled in, or its own text), its level and its violation. Every run
loop — the interpreter, the compiled sweep, consistent semantics — and :func:`decide` (what
the rule tests use) read results through it, and only the recorder (``Run.apply``) turns an
effect into trace events.

:func:`statement` is the semantics of a ``first_match`` / ``all_of`` group: the gate, tested
once, then the members in declared order on the same state — the first that returns anything
decides a ``first_match``; every member decides an ``all_of`` until one raises. Strict and
debug traces give each member its own view of the state (``views``); the semantics stay these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from postinit.engine._paths import FrozenDict
from postinit.engine._rule import (
    Group,
    GroupKind,
    Level,
    Matched,
    Outcome,
    Rule,
    RuleResult,
    Violation,
    plain_message,
    rule_of,
)
from postinit.errors import RuleDeclarationError

__all__ = ["NOTHING", "Decided", "Decision", "Effect", "decide", "effect_of", "statement"]

_LEVELS: dict[Any, str] = {lv.value: lv.value for lv in Level} | {lv: lv.value for lv in Level}


class Effect(NamedTuple):
    """What one rule's result asks of the run."""

    changes: Mapping[str, Any]
    """The values it sets (as returned: the recorder freezes them and drops those equal to the state's)."""
    message: str | None
    """The message it logs whatever changed (its own text, or the header's template filled in);
    None: the header's plain message, when something changed."""
    level: str | None
    """Its level (None: the header's)."""
    violation: Violation | None
    """The violation it raises (the run stops)."""


NOTHING: Effect | None = None
"""The effect of ``None``: the rule did not fire."""


class _Header(Protocol):
    """What :func:`effect_of` needs of a rule (a :class:`Rule` or a compiled one)."""

    @property
    def id(self) -> str: ...

    @property
    def message(self) -> str: ...


_new = tuple.__new__


def effect_of(rule: _Header, out: Any) -> Effect | None:
    """The effect of ``out``, the result of ``rule`` (None when it did not fire).

    A plain mapping changes values and logs the header's message when a value changed; an
    :class:`Outcome` may log whatever changed (``Outcome.log`` fills the header's template with
    its values, ``message=`` is text of its own) at its own level; a :class:`Violation` stops the
    run. Any other result is the rule's bug, refused with one line naming it.
    """
    t = type(out)
    if t is dict or t is FrozenDict:
        return _new(Effect, (out, None, None, None))
    if out is None:
        return None
    if t is Outcome or isinstance(out, Outcome):
        message = out.message
        if message is None and out.args is not None:
            message = rule.message.format_map(out.args)
        level = out.level
        if level is not None:
            found = _LEVELS.get(level)
            level = found if found is not None else Level(level).value
        return _new(Effect, (out.changes, message, level, None))
    if t is Violation or isinstance(out, Violation):
        return _new(Effect, ({}, None, None, out))
    if isinstance(out, Mapping):
        return _new(Effect, (out, None, None, None))
    raise RuleDeclarationError(
        f"rule '{rule.id}' returned {type(out).__name__}; return None, a mapping, Outcome or Violation",
        rule=rule.id,
    )


class _Member(Protocol):
    @property
    def fn(self) -> Callable[[Mapping[str, Any]], RuleResult]: ...


def statement(
    kind: GroupKind, when: Callable[[Mapping[str, Any]], Any] | None, members: Sequence[Any],
    view: Mapping[str, Any], views: Callable[[Any], Mapping[str, Any]] | None = None,
) -> Matched | None:
    """A ``first_match`` / ``all_of`` statement on ``view``: the deciding members with their results.

    ``members`` are anything with a ``fn`` (rules, compiled rules), in declared order.
    ``views(member)`` (``None`` for the gate) gives each its own view of the same state: what
    strict mode and debug traces use to hold and watch each member on its own.
    """
    if when is not None and not when(view if views is None else views(None)):
        return None
    first = kind is GroupKind.FIRST_MATCH
    found: list[tuple[Any, Any]] = []
    for m in members:
        out = m.fn(view if views is None else views(m))
        if out is None:
            continue
        found.append((m, out))
        if first or type(out) is Violation or isinstance(out, Violation):
            break  # if/elif: the first decides; a block of ifs: vLLM raises here, the rest never run
    return Matched(tuple(found)) if found else None


# --------------------------------------------------------------------------- deciding one statement


@dataclass(frozen=True, slots=True)
class Decided:
    """What one rule decided on a state: what the engine would record for it (see :func:`decide`)."""

    rule: str
    changes: Mapping[str, Any]
    """The values it sets that differ from the state's."""
    message: str | None
    """The message the engine would log (the header's, filled in, or the rule's own)."""
    level: str
    violation: Violation | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """What a rule or a group statement decides on one state, member by member."""

    decided: tuple[Decided, ...]

    @property
    def changes(self) -> dict[str, Any]:
        """Every change, later members over earlier ones."""
        out: dict[str, Any] = {}
        for d in self.decided:
            out.update(d.changes)
        return out

    @property
    def messages(self) -> list[str]:
        return [d.message for d in self.decided if d.message is not None]

    @property
    def violation(self) -> Violation | None:
        return next((d.violation for d in self.decided if d.violation is not None), None)

    @property
    def rules(self) -> list[str]:
        """The rules that decided something (changed a value, logged or raised)."""
        return [d.rule for d in self.decided]

    def __bool__(self) -> bool:
        return bool(self.decided)


def decide(target: Any, state: Mapping[str, Any]) -> Decision:
    """What a rule (or a ``first_match`` / ``all_of`` group) decides on ``state``, as the engine records it.

    For testing rules without a rulebook: the gate and the members run as the engine runs
    them (:func:`statement`), and each result is read as the engine reads it (:func:`effect_of`).
    Changes equal to the state's values are left out (and a plain mapping that changes nothing
    logs nothing).
    """
    if isinstance(target, Group):
        if target.kind is GroupKind.SEQUENCE:
            raise RuleDeclarationError(f"group '{target.id}' is a sequence: decide its members one by one")
        matched = statement(target.kind, target.when, target.rules, state)
        pairs: tuple[tuple[Any, Any], ...] = () if matched is None else matched.results
    else:
        r = rule_of(target)
        if r is None:
            raise RuleDeclarationError(f"{target!r} is neither a rule nor a group")
        pairs = ((r, r.fn(state)),)
    found = (_decided(r, out, state) for r, out in pairs)
    return Decision(tuple(d for d in found if d is not None))


def _decided(r: Rule, out: Any, state: Mapping[str, Any]) -> Decided | None:
    eff = effect_of(r, out)
    if eff is None:
        return None
    level = r.level.value if eff.level is None else eff.level
    if eff.violation is not None:
        return Decided(r.id, {}, None, level, eff.violation)
    made = {p: v for p, v in eff.changes.items()
            if not (state[p] is v or (type(state[p]) is type(v) and state[p] == v))}
    if not made and eff.message is None:
        return None
    message = eff.message if eff.message is not None else (plain_message(r.message) or None)
    return Decided(r.id, made, message, level)
