"""Provenance and the trace: what happened, in order, and where every value came from."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from postinit.engine._paths import FrozenDict

__all__ = [
    "TRACE_VERSION",
    "Change",
    "Evaluated",
    "Event",
    "Fired",
    "Provenance",
    "Source",
    "StaleRead",
    "Trace",
    "ViolationEvent",
    "jsonable",
]

TRACE_VERSION = 1


class Source(enum.IntEnum):
    """Where a value came from, ordered like click's ``ParameterSource``."""

    DEFAULT = 0
    """The schema's default."""
    LOADER = 1
    """A loader: a model's config.json, the model catalog, a config file's structure."""
    FACT = 2
    """A fact of the machine or environment (platform, env variable)."""
    USER = 3
    """The user's input: a config key or a command-line flag."""
    RULE = 4
    """A rule's write."""

    def __str__(self) -> str:
        return self.name.lower()


class Provenance(NamedTuple):
    """The origin of one value: its source and, for a rule write, the rule and event."""

    source: Source
    detail: str | None = None
    rule: str | None = None
    event: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": str(self.source)}
        if self.detail is not None:
            out["detail"] = self.detail
        if self.rule is not None:
            out["rule"] = self.rule
        if self.event is not None:
            out["event"] = self.event
        return out

    def __str__(self) -> str:
        if self.source is Source.RULE:
            return f"rule {self.rule}"
        return f"{self.source}" + (f" ({self.detail})" if self.detail else "")


DEFAULT_PROVENANCE = Provenance(Source.DEFAULT)


_PLAIN = frozenset({type(None), bool, int, float, str})
"""The exact types :func:`jsonable` returns as they are (answered before any ``isinstance``)."""


def jsonable(value: Any) -> Any:
    """A JSON-ready form of a state value: enums by name, tuples as lists."""
    t = type(value)
    if t in _PLAIN:
        return value
    if t is tuple or t is list:
        return [v if type(v) in _PLAIN else jsonable(v) for v in value]
    if isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, (dict, FrozenDict)):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    return str(value)


class Change(NamedTuple):
    """One value a rule changed."""

    path: str
    old: Any
    new: Any
    old_source: Source = Source.DEFAULT
    """Where the replaced value came from; ``USER`` means a rule overrode the user."""

    @property
    def overrides_user(self) -> bool:
        return self.old_source is Source.USER

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "old": jsonable(self.old), "new": jsonable(self.new),
            "old_source": str(self.old_source),
        }


class Fired(NamedTuple):
    """A rule fired: it changed values, or emitted its message, or both."""

    seq: int
    rule: str
    phase: str
    kind: str
    changes: tuple[Change, ...]
    message: str
    level: str
    reads: Mapping[str, Any] | None = None
    type: str = "fired"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type, "seq": self.seq, "rule": self.rule, "phase": self.phase,
            "kind": self.kind, "level": self.level, "message": self.message,
            "changes": [c.to_dict() for c in self.changes],
        }
        if self.reads is not None:
            out["reads"] = {k: jsonable(v) for k, v in self.reads.items()}
        return out


class ViolationEvent(NamedTuple):
    """A check rule found the config invalid (vLLM raises ``error`` here)."""

    seq: int
    rule: str
    phase: str
    message: str
    hint: str | None
    error: str
    reads: Mapping[str, Any] | None = None
    type: str = "violation"
    stage: str | None = None
    """Where the modelled system raises: the rule's ``stage`` (None when the rule names none)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type, "seq": self.seq, "rule": self.rule, "phase": self.phase,
            "message": self.message, "hint": self.hint, "error": self.error,
        }
        if self.stage is not None:
            out["stage"] = self.stage
        if self.reads is not None:
            out["reads"] = {k: jsonable(v) for k, v in self.reads.items()}
        return out


class StaleRead(NamedTuple):
    """A later phase changed a value that an earlier phase's rule based its conclusion on."""

    seq: int
    rule: str
    phase: str
    path: str
    read: Any
    now: Any
    by: str
    by_phase: str
    type: str = "stale_read"

    @property
    def message(self) -> str:
        return (
            f"rule {self.rule} ({self.phase}) read {self.path}={jsonable(self.read)!r}, "
            f"but rule {self.by} ({self.by_phase}) later set it to {jsonable(self.now)!r}; "
            f"{self.rule}'s conclusion is not re-evaluated (vLLM's statement order)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type, "seq": self.seq, "rule": self.rule, "phase": self.phase,
            "path": self.path, "read": jsonable(self.read), "now": jsonable(self.now),
            "by": self.by, "by_phase": self.by_phase, "message": self.message,
        }


class Evaluated(NamedTuple):
    """(debug traces only) a rule ran and did not fire."""

    seq: int
    rule: str
    phase: str
    reads: Mapping[str, Any]
    type: str = "evaluated"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type, "seq": self.seq, "rule": self.rule, "phase": self.phase,
            "reads": {k: jsonable(v) for k, v in self.reads.items()},
        }


Event = Fired | ViolationEvent | StaleRead | Evaluated


@dataclass(frozen=True, slots=True)
class Trace:
    """The ordered events of one resolution."""

    events: tuple[Event, ...]
    level: str = "full"

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def fired(self) -> tuple[Fired, ...]:
        return tuple(e for e in self.events if isinstance(e, Fired))

    @property
    def violations(self) -> tuple[ViolationEvent, ...]:
        return tuple(e for e in self.events if isinstance(e, ViolationEvent))

    @property
    def stale_reads(self) -> tuple[StaleRead, ...]:
        return tuple(e for e in self.events if isinstance(e, StaleRead))

    def rules_fired(self) -> tuple[str, ...]:
        """Ids of the rules that fired, in firing order, each once."""
        return tuple(dict.fromkeys(e.rule for e in self.fired))

    def changes_to(self, path: str) -> tuple[tuple[Fired, Change], ...]:
        """Every change to ``path`` with the event that made it, in order."""
        return tuple((e, c) for e in self.fired for c in e.changes if c.path == path)

    def to_dict(self) -> dict[str, Any]:
        return {"version": TRACE_VERSION, "level": self.level, "events": [e.to_dict() for e in self.events]}
