"""Module attributes imported on first use (keeps ``import postinit`` cheap)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, MutableMapping
from typing import Any


def lazy_getattr(
    module: str, namespace: MutableMapping[str, Any], names: Collection[str], source: str,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``names`` from module ``source``, imported on first access.

    Each value is stored in ``namespace`` (the module's globals) on first use, so later
    lookups never reach ``__getattr__`` again.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            value = getattr(importlib.import_module(source), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
