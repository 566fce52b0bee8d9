"""A small schema and rule builders shared by the engine tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from postinit.engine import PathSpace, Provenance, Rule, Rulebook, Source, make_rule

PHASES = ("p1", "p2", "p3")


class Cache(BaseModel):
    """A nested sub-model that is always present."""

    block_size: int | None = None
    prefix: bool = True


class Extra(BaseModel):
    """An optional sub-model (absent by default)."""

    level: int = 0
    name: str = "x"


class Cfg(BaseModel):
    """The root of the synthetic schema."""

    a: int = 0
    b: int = 0
    c: int = 0
    d: int = 0
    mode: str = "auto"
    sizes: list[int] = Field(default_factory=lambda: [1, 2])
    opts: dict[str, int] = Field(default_factory=dict, json_schema_extra={"hash": True})
    cache: Cache = Field(default_factory=Cache)
    extra: Extra | None = None


class Facts(BaseModel):
    """Facts mounted at ``fact.``."""

    kind: str = "cuda"
    cap: int = 80


@pydantic_dataclass
class DCRoot:
    """A pydantic dataclass root keeping the reserved name ``model_config``."""

    model_config: Cache
    n: int = 1
    extra: Extra | None = None


PATHS = PathSpace.from_model(Cfg, mounts={"fact": Facts})


def mk(
    id: str,
    fn: Callable[[Mapping[str, Any]], Any],
    *,
    reads: Iterable[str] | str,
    writes: Iterable[str] | str = (),
    phase: str = "p1",
    kind: str | None = None,
    **kw: Any,
) -> Rule:
    """Build a rule header around ``fn`` (kind defaults to derive, or check without writes)."""
    writes = (writes,) if isinstance(writes, str) else tuple(writes)
    kind = kind or ("derive" if writes else "check")
    return make_rule(fn, id, title=id, phase=phase, kind=kind, reads=reads, writes=writes, **kw)


def setter(path: str, value: Any, when: Callable[[Mapping[str, Any]], bool] = lambda c: True) -> Callable[..., Any]:
    """A rule function writing ``value`` to ``path`` when ``when`` holds."""
    return lambda c: {path: value} if when(c) else None


def book(*rules: Rule, phases: Iterable[str] = PHASES, paths: PathSpace = PATHS) -> Rulebook:
    """Compile ``rules`` over the synthetic schema."""
    return Rulebook(rules, paths=paths, phases=tuple(phases), name="test")


def state(**values: Any) -> dict[str, Any]:
    """The default flat state with ``values`` set (keys use ``__`` for ``.``)."""
    out = PATHS.defaults()
    for k, v in values.items():
        p = k.replace("__", ".")
        assert p in out, p
        out[p] = v
    return out


def user(*paths: str) -> dict[str, Provenance]:
    """Provenance marking ``paths`` as set by the user."""
    return {p: Provenance(Source.USER, detail=f"--{p}") for p in paths}
