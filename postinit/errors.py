"""The one exception tree of postinit.

Every error postinit raises is a :class:`PostinitError`. Each carries the rule,
the field path and the value it is about (any of them may be ``None``), so a
caller can react without parsing the message. The tree says who fixes what::

    PostinitError
    ├── InputError            the user fixes it: their config, flags or facts
    │   ├── UnknownFieldError     a key that is not a field ("did you mean ...?")
    │   ├── InvalidValueError     a value of the wrong type or out of range
    │   │   └── SubConfigError    a sub-config vLLM refuses to build from it      ┐
    │   ├── UnknownFlagError      a vLLM command-line flag that does not exist      │ vLLM's inputs:
    │   ├── ModelNotFoundError    a model that is neither a directory nor in the catalog │ defined in
    │   └── PlatformSpecError     a platform spec that names no known platform     ┘ postinit.schema.errors
    ├── RuleError             the rule author fixes it: a bad rulebook
    │   ├── RuleDeclarationError  a header that is malformed (no reads and writes, bad phase, ...)
    │   ├── UnknownPathError      a read or write of a path the schema does not have
    │   ├── UnorderedWritersError two writers of one path in one phase with no order between them
    │   ├── CycleError            a dependency cycle that is not declared as feedback
    │   ├── UndeclaredWriteError  a rule returned a change to a path it did not declare
    │   ├── UndeclaredReadError   (strict mode) a rule read a path it did not declare
    │   └── RuleBodyError         a rule's body raised: the rule, its source and what it read
    ├── NoFixedPoint          rules kept changing each other's values past the bound
    └── ViolationError        ``Resolution.raise_for_violations()``: the config is invalid

An input error that vLLM itself would raise also says where and as what:
``.stage`` (``parse`` for vLLM's argument parser, or the sub-config whose
construction fails), ``.error`` (vLLM's exception type, ``ArgumentError`` or
``ValidationError``) and ``.vllm_message`` (vLLM's text, exactly). They are None
for what only postinit refuses (its bounds, a model it does not know, ...).

Messages are one line and say what to do next, whatever the user typed: a
message is folded to one line (newlines shown as ``\\n``) and bounded in length;
values are quoted with :func:`show`. Advice that depends on who asked (a
library caller, a CLI user, an HTTP client: "see `postinit models`") is kept
apart in ``.advice`` and added by each face (:meth:`PostinitError.for_face`).
This module imports nothing of postinit, so every layer may use it; the engine
uses only the generic classes. The four input errors about vLLM's own inputs
live with the schema that reads those inputs (:mod:`postinit.schema.errors`)
and are importable from here too.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

__all__ = [
    "CycleError",
    "InputError",
    "InvalidValueError",
    "NoFixedPoint",
    "PostinitError",
    "RuleBodyError",
    "RuleDeclarationError",
    "RuleError",
    "UndeclaredReadError",
    "UndeclaredWriteError",
    "UnknownFieldError",
    "UnknownPathError",
    "UnorderedWritersError",
    "ViolationError",
    "did_you_mean",
    "show",
]

MAX_MESSAGE = 1_000
"""Characters of one error message; a longer one is cut with an ellipsis."""

Face = str
"""Who asked: ``"library"``, ``"cli"`` or ``"http"``."""


def show(value: Any, limit: int = 60) -> str:
    """``repr(value)`` on one line, at most ``limit`` characters (long values end in an ellipsis).

    Safe for any value: integers too long to print in decimal are described, not printed.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"<an integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(message: str) -> str:
    text = message.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"



class PostinitError(Exception):
    """Root of every postinit error; ``.rule``, ``.path`` and ``.value`` say what it is about."""

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        path: str | None = None,
        value: Any = None,
        advice: dict[Face, str] | None = None,
    ) -> None:
        message = _one_line(message)
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.path = path
        self.value = value
        self.advice = dict(advice or {})
        """What to do next, per face (``"library"``, ``"cli"``, ``"http"``); not part of ``message``."""

    def for_face(self, face: Face) -> str:
        """The message with the advice for ``face`` (a library caller, a CLI user, an HTTP client)."""
        tip = self.advice.get(face)
        return f"{self.message} {tip}" if tip else self.message

    def __str__(self) -> str:
        return self.for_face("library")


class InputError(PostinitError, ValueError):
    """Something the user handed in is wrong; the message names the field and what is allowed.

    ``.stage``, ``.error`` and ``.vllm_message`` say where vLLM fails on the same input, with
    which exception and text (None when vLLM has no such check; see the module docstring).
    """

    def __init__(
        self,
        message: str,
        *,
        stage: str | None = None,
        error: str | None = None,
        vllm_message: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.stage = stage
        """Where vLLM fails on this input: ``parse`` (its argument parser), the sub-config whose
        construction refuses it (``kv_events_config``, ...), or None (vLLM has no such check)."""
        self.error = error
        """The exception vLLM raises there (``ArgumentError``, ``ValidationError``), or None."""
        self.vllm_message = vllm_message
        """vLLM's message, exactly (argparse prints it after ``vllm serve: error:``); may span lines."""
        self.said_before: tuple[tuple[str, str, str], ...] = ()
        """What vLLM logged before it refused, ``(rule, level, text)``: e.g. the warnings its parser logs for
        deprecated flags before it names an unrecognized argument."""


class UnknownFieldError(InputError):
    """A key that is not a field of the config."""


class InvalidValueError(InputError):
    """A value of the wrong type or outside the allowed values."""


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


class RuleBodyError(RuleError):
    """A rule's body raised an exception; the message names the rule, its source and the values it read."""


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


_SCHEMA_ERRORS = frozenset({"UnknownFlagError", "ModelNotFoundError", "PlatformSpecError", "SubConfigError"})


def __getattr__(name: str) -> Any:
    """``postinit.errors.UnknownFlagError`` & co.: defined with the schema, importable from the one tree."""
    if name in _SCHEMA_ERRORS:
        from postinit.schema import errors

        return getattr(errors, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
