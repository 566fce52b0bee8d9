"""The one exception tree of postinit.

Every error postinit raises is a :class:`PostinitError`. Each carries the rule,
the field path and the value it is about (any of them may be ``None``), so a
caller can react without parsing the message. The tree says who fixes what::

    PostinitError
    ├── InputError            the user fixes it: their config, flags or facts
    │   ├── UnknownFieldError     a key that is not a field ("did you mean ...?")
    │   ├── InvalidValueError     a value of the wrong type or out of range
    │   ├── UnknownFlagError      a vLLM command-line flag that does not exist
    │   ├── ModelNotFoundError    a model that is neither a directory nor in the catalog
    │   └── PlatformSpecError     a platform spec that names no known platform
    ├── RuleError             the rule author fixes it: a bad rulebook
    │   ├── RuleDeclarationError  a header that is malformed (no reads and writes, bad phase, ...)
    │   ├── UnknownPathError      a read or write of a path the schema does not have
    │   ├── UnorderedWritersError two writers of one path in one phase with no order between them
    │   ├── CycleError            a dependency cycle that is not declared as feedback
    │   ├── UndeclaredWriteError  a rule returned a change to a path it did not declare
    │   └── UndeclaredReadError   (strict mode) a rule read a path it did not declare
    ├── NoFixedPoint          rules kept changing each other's values past the bound
    └── ViolationError        ``Resolution.raise_for_violations()``: the config is invalid

Messages are one line and say what to do next. This module imports nothing of
postinit, so every layer may use it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

__all__ = [
    "CycleError",
    "InputError",
    "InvalidValueError",
    "ModelNotFoundError",
    "NoFixedPoint",
    "PlatformSpecError",
    "PostinitError",
    "RuleDeclarationError",
    "RuleError",
    "UndeclaredReadError",
    "UndeclaredWriteError",
    "UnknownFieldError",
    "UnknownFlagError",
    "UnknownPathError",
    "UnorderedWritersError",
    "ViolationError",
    "did_you_mean",
]


class PostinitError(Exception):
    """Root of every postinit error; ``.rule``, ``.path`` and ``.value`` say what it is about."""

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        path: str | None = None,
        value: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.path = path
        self.value = value

    def __str__(self) -> str:
        return self.message


class InputError(PostinitError, ValueError):
    """Something the user handed in is wrong; the message names the field and what is allowed."""


class UnknownFieldError(InputError):
    """A key that is not a field of the config."""


class InvalidValueError(InputError):
    """A value of the wrong type or outside the allowed values."""


class UnknownFlagError(InputError):
    """A command-line flag that vLLM does not have."""


class ModelNotFoundError(InputError):
    """A model that is neither a local directory/file nor a catalog entry."""


class PlatformSpecError(InputError):
    """A platform spec that names no known platform."""


class RuleError(PostinitError):
    """The rulebook itself is wrong; the message names the rule and its source location."""


class RuleDeclarationError(RuleError):
    """A rule header that is malformed."""


class UnknownPathError(RuleError):
    """A rule reads or writes a path that the schema does not have."""


class UnorderedWritersError(RuleError):
    """Two rules of one phase write the same path and nothing orders them."""


class CycleError(RuleError):
    """A dependency cycle between rules that is not declared as feedback."""


class UndeclaredWriteError(RuleError):
    """A rule returned a change to a path it did not declare in ``writes``."""


class UndeclaredReadError(RuleError):
    """In strict mode, a rule read a path it did not declare in ``reads``."""


class NoFixedPoint(PostinitError):
    """Rules kept changing each other's values beyond the iteration bound."""

    def __init__(
        self,
        message: str,
        *,
        rules: tuple[str, ...] = (),
        flips: dict[str, list[Any]] | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message, rule=rules[0] if rules else None, path=path)
        self.rules = rules
        self.flips = flips or {}


class ViolationError(PostinitError):
    """Raised on request when a resolution ended in a violation (vLLM would have raised)."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest candidate, or ``""``."""
    pool = list(candidates)
    close = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not close:
        # a dotted path: try matching the last segment alone
        tail = word.rsplit(".", 1)[-1]
        by_tail = {c.rsplit(".", 1)[-1]: c for c in pool}
        hits = difflib.get_close_matches(tail, list(by_tail), n=1, cutoff=0.75)
        close = [by_tail[hits[0]]] if hits else []
    return f" Did you mean '{close[0]}'?" if close else ""
