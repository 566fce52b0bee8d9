"""The views a rule body reads the state through: strict (declared reads only) and consulted (recording)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.errors import UndeclaredReadError

__all__ = ["ConsultedView", "StrictView"]


class StrictView(Mapping[str, Any]):
    """A read-only view that refuses paths the rule did not declare (strict mode)."""

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


class ConsultedView(Mapping[str, Any]):
    """A read-only view that records which paths a rule body actually consulted, in order.

    A rule's reads in a debug trace are the values its condition and action looked at on
    this evaluation (a short-circuited ``and`` stops at the value that decided), not every
    path its header declares. With ``allowed`` (strict mode) an undeclared read raises.
    """

    __slots__ = ("_allowed", "_rule", "_state", "consulted")

    def __init__(self, state: dict[str, Any], allowed: frozenset[str] | None, rule: str) -> None:
        self._state = state
        self._allowed = allowed
        self._rule = rule
        self.consulted: dict[str, None] = {}

    def __getitem__(self, path: str) -> Any:
        if self._allowed is not None and path not in self._allowed:
            raise UndeclaredReadError(
                f"rule '{self._rule}' read '{path}', which it does not declare in reads", rule=self._rule, path=path
            )
        value = self._state[path]
        self.consulted[path] = None
        return value

    def __iter__(self) -> Any:
        return iter(self._allowed if self._allowed is not None else self._state)

    def __len__(self) -> int:
        return len(self._allowed if self._allowed is not None else self._state)


