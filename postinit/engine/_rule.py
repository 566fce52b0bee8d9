"""Declaring rules: a pure function plus a frozen header.

The :func:`rule` decorator only attaches a :class:`Rule` to the function (one
``setattr``, as pluggy's markers do); a :class:`~postinit.engine.Rulebook`
collects and validates them all at once.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, TypeVar

from postinit.errors import RuleDeclarationError

__all__ = [
    "RULE_ATTR",
    "Kind",
    "Level",
    "Outcome",
    "Rule",
    "RuleFn",
    "RuleResult",
    "Violation",
    "rule",
    "rule_of",
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
    """What a rule returns when it needs a run-time message or a change-free warning."""

    changes: Mapping[str, Any] = field(default_factory=dict)
    message: str | None = None
    level: Level | str | None = None


@dataclass(frozen=True, slots=True)
class Violation:
    """A check rule's verdict that the config is invalid; resolution stops, as vLLM raises."""

    message: str
    hint: str | None = None
    error: str = "ValueError"
    """The exception type vLLM raises at this point (``AssertionError``, ``ValueError`` ...)."""


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

    Within a phase, rules that the data and ``after`` leave unordered run by ``(rank, id)``:
    when two checks of one phase fail, the one of the lower rank is the one reported, as the
    modelled system raises the first failure it meets. Only the order of independent rules
    changes, so final values never depend on it."""

    def __call__(self, view: Mapping[str, Any]) -> RuleResult:
        return self.fn(view)

    @property
    def reason(self) -> str:
        """The first sentence of the docstring: why vLLM makes this decision."""
        return self.doc.strip().split("\n\n", 1)[0].replace("\n", " ") if self.doc else self.title


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
    )


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
