"""Helpers for writing and testing vLLM rules: build a flat state from a few values."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from postinit.engine import freeze
from postinit.rules import paths
from postinit.schema import Env, Platform, Usage, VersionFacts

__all__ = ["state"]


def state(
    values: Mapping[str, Any] | None = None,
    *,
    platform: str | Platform = "h100",
    env: Mapping[str, str] | None = None,
    version: str | None = None,
    **kw: Any,
) -> Mapping[str, Any]:
    """A read-only flat state: schema defaults, the platform, env and version facts, then ``values``.

    ``version`` names the vLLM version whose ``version.*`` facts the state holds (default: the seed's).

    ``values`` maps dotted paths to values (``{"compilation_config.mode": 3}``);
    keyword arguments use ``__`` for dots (``compilation_config__mode=3``).
    Unknown paths raise with a did-you-mean. Call a rule function on it directly.
    """
    space = paths()
    plat = platform if isinstance(platform, Platform) else Platform.from_spec(platform)
    flat = space.defaults()
    flat.update(space.flatten({"platform": plat, "env": Env.from_mapping(dict(env or {})), "usage": Usage()}))
    if version is None:
        flat.update(space.flatten_model(VersionFacts(), "version"))
    else:
        from postinit.rules.versions import get

        flat.update(get(version).fact_state)
    merged = {**(values or {}), **{k.replace("__", "."): v for k, v in kw.items()}}
    for path, value in merged.items():
        space.require(path)
        flat[path] = freeze(value)
    return MappingProxyType(flat)
