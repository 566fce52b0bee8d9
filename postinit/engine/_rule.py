"""Declaring rules: a pure function plus a frozen header.

The :func:`rule` decorator only attaches a :class:`Rule` to the function (one
``setattr``, as pluggy's markers do); a :class:`~postinit.engine.Rulebook`
collects and validates them all at once.
"""

from __future__ import annotations

import enum
import inspect
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias, TypeVar

from postinit.errors import RuleDeclarationError

__all__ = [
    "RULE_ATTR",
    "Group",
    "GroupKind",
    "Kind",
    "Level",
    "Matched",
    "Outcome",
    "Rule",
    "RuleFn",
    "RuleResult",
    "Violation",
    "all_of",
    "first_match",
    "rule",
    "rule_of",
    "sequence",
    "with_params",
]

RULE_ATTR = "__postinit_rule__"
_ID = re.compile(r"^[a-z0-9][a-z0-9_.:-]*$")


class Kind(enum.StrEnum):
    """What a rule does to the config."""

    DEFAULT = "default"
    """Fills a value the user left unset."""
    DERIVE = "derive"
    """Computes a value from other values."""
    OVERRIDE = "override"
    """May change a value the user set; always visible as such in the trace."""
    CHECK = "check"
    """Changes nothing; raises a violation or emits a warning."""


class Level(enum.StrEnum):
    """The log level of a rule's message (vLLM's logger level for the same event)."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a rule returns when it logs: its header's message (filled in), or a message of its own.

    A plain mapping of changes logs the header's ``message=`` only when something changed.
    :meth:`log` logs it whatever changed (vLLM logs before it assigns), formatted with the
    given values: ``message="... (found {n})"`` and ``Outcome.log({...}, n=n)``. ``message``
    is for text the header cannot hold (several lines chosen at run time).
    """

    changes: Mapping[str, Any] = field(default_factory=dict)
    message: str | None = None
    level: Level | str | None = None
    args: Mapping[str, Any] | None = None
    """Values for the header's message template; given (even empty), the message is logged."""

    @classmethod
    def log(cls, changes: Mapping[str, Any] | None = None, /, **args: Any) -> Outcome:
        """Log the rule's header message, formatted with ``args``, and make ``changes`` (if any)."""
        return cls(changes if changes is not None else {}, args=args)


@dataclass(frozen=True, slots=True)
class Violation:
    """A check rule's verdict that the config is invalid; resolution stops, as vLLM raises."""

    message: str
    hint: str | None = None
    error: str = "ValueError"
    """The exception type vLLM raises at this point (``AssertionError``, ``ValueError`` ...)."""


@dataclass(frozen=True, slots=True)
class Matched:
    """What a group statement returns: the members that decided, each with its result, in order."""

    results: tuple[tuple[Any, Any], ...]
    """``(compiled member, its result)`` pairs (the engine records each under the member's id)."""


RuleResult: TypeAlias = Mapping[str, Any] | Outcome | Violation | None
RuleFn: TypeAlias = Callable[[Mapping[str, Any]], RuleResult]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule's declarative header and its function."""

    id: str
    fn: RuleFn
    title: str
    phase: str
    kind: Kind
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    after: tuple[str, ...] = ()
    feedback: tuple[str, ...] = ()
    source: str = ""
    message: str = ""
    level: Level = Level.INFO
    ensures: Callable[[Mapping[str, Any]], bool] | None = None
    doc: str = ""
    location: str = ""
    stage: str | None = None
    """Where the modelled system raises this rule's violation (a rulebook may fill it; see ``ViolationEvent``)."""
    rank: int = 0
    """Where the rule's decision sits in the modelled system's statement order (a rulebook may fill it).

    Within a phase, statements that the data, ``after`` and the groups leave unordered run by
    ``(rank, id)``: when two checks of one phase fail, the one of the lower rank is the one
    reported, as the modelled system raises the first failure it meets. Only the order of
    independent statements changes, so final values never depend on it."""
    group: str | None = None
    """The ``first_match`` / ``all_of`` group the rule is a member of (the rulebook fills it)."""
    params: tuple[tuple[str, Any], ...] = ()
    """The rule's parameters and their values: its function's keyword-only arguments with defaults
    (``def f(c, *, error="ValueError")``). :func:`with_params` gives the same rule with other values
    (a later vLLM version's literal, exception type or message), without a copy of its function."""
    owner: str | None = None
    """Who added the rule on top of the modelled system's rulebook (a site's policy module), or None for its own.

    Set when rules join a rulebook from outside (``postinit.site``); explanations mark such a rule as the owner's."""

    def __call__(self, view: Mapping[str, Any]) -> RuleResult:
        return self.fn(view)

    @property
    def reason(self) -> str:
        """The first sentence of the docstring: why vLLM makes this decision."""
        return self.doc.strip().split("\n\n", 1)[0].replace("\n", " ") if self.doc else self.title


def plain_message(message: str) -> str:
    """What a rule logs when it returns a plain mapping: its header message, unless that is a template.

    A template (``"... (found {n})"``) needs its values, which only :meth:`Outcome.log` gives.
    """
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(message) if f is not None]
    except ValueError:
        return message
    return "" if fields else message


def _location(fn: Callable[..., Any]) -> str:
    # the code object's file and first line (what inspect.getsourcelines reports, without
    # tokenizing the source: ~1 ms a rule, which dominated compiling large rulebooks)
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return getattr(fn, "__qualname__", repr(fn))
    return f"{code.co_filename}:{code.co_firstlineno}"


def _paths(value: Iterable[str] | str, what: str, rule_id: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    out = tuple(value)
    for p in out:
        if not isinstance(p, str) or not p:
            raise RuleDeclarationError(f"rule '{rule_id}': {what} must be non-empty strings, got {p!r}", rule=rule_id)
    if len(set(out)) != len(out):
        raise RuleDeclarationError(f"rule '{rule_id}': {what} lists a path twice: {list(out)}", rule=rule_id)
    return out


def make_rule(
    fn: RuleFn,
    id: str,
    *,
    title: str,
    phase: str,
    kind: Kind | str,
    reads: Iterable[str] | str,
    writes: Iterable[str] | str = (),
    after: Iterable[str] | str = (),
    feedback: Iterable[str] | str = (),
    source: str = "",
    message: str = "",
    level: Level | str = Level.INFO,
    ensures: Callable[[Mapping[str, Any]], bool] | None = None,
) -> Rule:
    """Build and check a :class:`Rule` header (what :func:`rule` attaches)."""
    if not isinstance(id, str) or not _ID.match(id):
        raise RuleDeclarationError(f"rule id {id!r} must match {_ID.pattern}", rule=str(id))
    try:
        kind = Kind(kind)
        level = Level(level)
    except ValueError as e:
        raise RuleDeclarationError(f"rule '{id}': {e}; kinds: default, derive, override, check", rule=id) from None
    r = _paths(reads, "reads", id)
    w = _paths(writes, "writes", id)
    if not r:
        raise RuleDeclarationError(f"rule '{id}' reads nothing; declare the paths its condition looks at", rule=id)
    if kind is Kind.CHECK and w:
        raise RuleDeclarationError(f"rule '{id}' is a check but declares writes {list(w)}", rule=id)
    if kind is not Kind.CHECK and not w:
        raise RuleDeclarationError(f"rule '{id}' of kind {kind.value} writes nothing; make it a check", rule=id)
    if not title:
        raise RuleDeclarationError(f"rule '{id}' has no title", rule=id)
    return Rule(
        id=id,
        fn=fn,
        title=title,
        phase=phase,
        kind=kind,
        reads=r,
        writes=w,
        after=_paths(after, "after", id),
        feedback=_paths(feedback, "feedback", id),
        source=source,
        message=message,
        level=level,
        ensures=ensures,
        doc=inspect.getdoc(fn) or "",
        location=_location(fn),
        params=_params(fn, id),
    )


def _params(fn: Callable[..., Any], rule_id: str) -> tuple[tuple[str, Any], ...]:
    """A rule function's parameters: its keyword-only arguments, each with its default.

    Read from the code object (``inspect.signature`` costs ~20 us a rule, which a large rulebook feels).
    """
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_kwonlyargcount:
        return ()
    names = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    defaults = getattr(fn, "__kwdefaults__", None) or {}
    for name in names:
        if name not in defaults:
            raise RuleDeclarationError(f"rule '{rule_id}': parameter {name!r} has no default; a rule's "
                                       "parameters are keyword-only arguments with defaults", rule=rule_id)
    return tuple((name, defaults[name]) for name in names)


def with_params(r: Rule, **values: Any) -> Rule:
    """``r`` with other values for some of its parameters (the function is called with them).

    An unknown name is a :class:`RuleDeclarationError` naming the rule's parameters.
    """
    known = dict(r.params)
    for name in values:
        if name not in known:
            from postinit.errors import did_you_mean

            have = ", ".join(known) or "none"
            raise RuleDeclarationError(f"rule '{r.id}' has no parameter {name!r} (its parameters: {have})."
                                       f"{did_you_mean(name, known)}", rule=r.id)
    merged = {**known, **values}
    body = inspect.unwrap(r.fn)

    def bound(view: Mapping[str, Any]) -> RuleResult:
        result: RuleResult = body(view, **merged)
        return result

    bound.__wrapped__ = body  # type: ignore[attr-defined]
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(bound, attr, getattr(body, attr, None))
    return replace(r, fn=bound, params=tuple(merged.items()))


def rule(
    id: str,
    *,
    title: str,
    phase: str,
    kind: Kind | str,
    reads: Iterable[str] | str,
    writes: Iterable[str] | str = (),
    after: Iterable[str] | str = (),
    feedback: Iterable[str] | str = (),
    source: str = "",
    message: str = "",
    level: Level | str = Level.INFO,
    ensures: Callable[[Mapping[str, Any]], bool] | None = None,
) -> Callable[[F], F]:
    """Mark a function as a rule; the function itself is returned unchanged.

    ``reads``/``writes`` are the dotted paths the rule looks at and may change;
    ``after`` orders it after other rules of its phase that write the same path;
    ``feedback`` names rules whose writes it reads although they run after it
    (a declared cycle: it is re-run when they change what it read).
    """

    def mark(fn: F) -> F:
        spec = make_rule(
            fn, id, title=title, phase=phase, kind=kind, reads=reads, writes=writes, after=after,
            feedback=feedback, source=source, message=message, level=level, ensures=ensures,
        )
        setattr(fn, RULE_ATTR, spec)
        return fn

    return mark


def rule_of(obj: Any) -> Rule | None:
    """The :class:`Rule` attached to ``obj`` (or ``obj`` itself if it is one)."""
    if isinstance(obj, Rule):
        return obj
    found = getattr(obj, RULE_ATTR, None)
    return found if isinstance(found, Rule) else None


# --------------------------------------------------------------------------- groups


class GroupKind(enum.StrEnum):
    """How a group's members run (see :class:`Group`)."""

    FIRST_MATCH = "first_match"
    """One statement, ``if / elif``: members tried in order, the first that returns something is the result."""
    ALL_OF = "all_of"
    """One statement under a gate: every member decides on the state the gate saw, in order."""
    SEQUENCE = "sequence"
    """Statements in declared order (each its own rule); later members never reorder before earlier ones."""


@dataclass(frozen=True, slots=True)
class Group:
    """Rules declared together, as the modelled code writes them together.

    A ``first_match`` group is vLLM's ``if / elif`` chain and an ``all_of`` group its block of
    ``if``s under one gate: the engine runs either as *one* statement (one position in its
    phase; the members are tried in declared order on the same state, and each result is
    recorded under the member's own id). ``when`` is the gate: tested once, before any member,
    on the state the statement starts from — so a member may change what the gate read
    without re-deciding it. A ``sequence`` only orders its members (rules or unit groups) as
    declared: it replaces ``after=`` edges from each to the next, and a later member writing
    what an earlier one read is part of the declared order, not a cycle.
    """

    id: str
    kind: GroupKind
    members: tuple[str, ...]
    """Member rule ids (for a sequence: rule or group ids), in declared order."""
    title: str
    rules: tuple[Rule, ...] = ()
    """The member rules given as functions or rules (collected with the group)."""
    when: Callable[[Mapping[str, Any]], Any] | None = None
    when_reads: tuple[str, ...] = ()
    source: str = ""
    doc: str = ""
    location: str = ""

    @property
    def is_unit(self) -> bool:
        """Whether the engine runs the group as one statement (``first_match``, ``all_of``)."""
        return self.kind is not GroupKind.SEQUENCE


def _group(kind: GroupKind, id: str, members: tuple[Any, ...], title: str, source: str,
           when: Callable[[Mapping[str, Any]], Any] | None, reads: Iterable[str] | str) -> Group:
    if not isinstance(id, str) or not _ID.match(id):
        raise RuleDeclarationError(f"group id {id!r} must match {_ID.pattern}", rule=str(id))
    if not title:
        raise RuleDeclarationError(f"group '{id}' has no title", rule=id)
    ids: list[str] = []
    rules: list[Rule] = []
    for m in members:
        r = rule_of(m)
        if r is not None:
            ids.append(r.id)
            rules.append(r)
        elif isinstance(m, Group):
            if kind is not GroupKind.SEQUENCE:
                raise RuleDeclarationError(f"group '{id}': only a sequence may hold a group ('{m.id}')", rule=id)
            ids.append(m.id)
        elif isinstance(m, str):
            ids.append(m)
        else:
            raise RuleDeclarationError(f"group '{id}': {m!r} is not a rule, a group or an id", rule=id)
    if len(ids) < 2:
        raise RuleDeclarationError(f"group '{id}' needs two members or more, got {ids}", rule=id)
    if len(set(ids)) != len(ids):
        raise RuleDeclarationError(f"group '{id}' lists a member twice: {ids}", rule=id)
    when_reads = _paths(reads, "reads", id) if when is not None else ()
    if when is not None and not when_reads:
        raise RuleDeclarationError(f"group '{id}': a gate (when=) must declare the paths it reads", rule=id)
    if when is None and tuple(reads):
        raise RuleDeclarationError(f"group '{id}': reads= declares a gate's reads; give when= too", rule=id)
    doc = (inspect.getdoc(when) or "") if when is not None else ""
    return Group(id, kind, tuple(ids), title, tuple(rules), when, when_reads, source, doc,
                 _location(when) if when is not None else "")


def first_match(id: str, *members: Any, title: str, source: str = "",
                when: Callable[[Mapping[str, Any]], Any] | None = None, reads: Iterable[str] | str = ()) -> Group:
    """vLLM's ``if / elif`` chain: the members are tried in order and at most one fires.

    The first member that returns anything (changes, a message or a violation) is the
    statement's result; the others are not tried. ``when`` (with the ``reads`` it looks at)
    guards the whole chain, evaluated once.
    """
    return _group(GroupKind.FIRST_MATCH, id, members, title, source, when, reads)


def all_of(id: str, *members: Any, title: str, source: str = "",
           when: Callable[[Mapping[str, Any]], Any] | None = None, reads: Iterable[str] | str = ()) -> Group:
    """vLLM's block of ``if``s under one gate: every member decides on the state the gate saw.

    ``when`` is tested once; the members then run in declared order on that one state (the
    rulebook refuses a member reading what an earlier member writes: sequential code would see
    the new value), and every result is recorded.
    """
    return _group(GroupKind.ALL_OF, id, members, title, source, when, reads)


def sequence(id: str, *members: Any, title: str, source: str = "") -> Group:
    """Statements in declared order: each member runs after the one before it (an ``after=`` chain, declared once)."""
    return _group(GroupKind.SEQUENCE, id, members, title, source, None, ())


def group_of(obj: Any) -> Group | None:
    """``obj`` if it is a :class:`Group`."""
    return obj if isinstance(obj, Group) else None
