"""Field helpers that record each field's ``compute_hash`` status.

Every field of every schema model is declared through :func:`hashed`,
:func:`unhashed` or :func:`derived`, so its pydantic ``json_schema_extra``
says whether vLLM uses it as a hash factor (``{"hash": True|False}``) and, for
attributes vLLM computes itself (``init=False`` or set in ``__post_init__``),
``{"derived": True}``. The engine sees this as ``PathSpace.info[path].extra``.

A field that only some modelled vLLM versions have says so with :func:`since`
(``{"since": "0.11.1"}``, added in that version; not a hash factor of the seed)
or ``until=`` on the others (``{"until": "d7fb10c57"}``, the last version that has it).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

__all__ = ["derived", "hashed", "since", "unhashed"]


def _extra(kw: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    given = kw.pop("json_schema_extra", None)
    if given is not None and not isinstance(given, dict):
        raise TypeError("json_schema_extra must be a dict for postinit schema fields")
    return {**(given or {}), **meta}


def _field(default: Any, meta: dict[str, Any], kw: dict[str, Any]) -> Any:
    last = kw.pop("until", None)
    if last is not None:
        meta = {**meta, "until": last}
    extra = _extra(kw, meta)
    if "default_factory" in kw:
        return Field(json_schema_extra=extra, **kw)
    return Field(default, json_schema_extra=extra, **kw)


def hashed(default: Any = None, **kw: Any) -> Any:
    """A field that is one of its config's ``compute_hash`` factors."""
    return _field(default, {"hash": True}, kw)


def unhashed(default: Any = None, **kw: Any) -> Any:
    """A field that does not enter its config's ``compute_hash``."""
    return _field(default, {"hash": False}, kw)


def derived(default: Any = None, hash: bool = False, **kw: Any) -> Any:
    """An attribute vLLM computes during resolution (``init=False`` / ``__post_init__``)."""
    return _field(default, {"hash": hash, "derived": True}, kw)


def since(version: str, default: Any = None, derived: bool = False, **kw: Any) -> Any:
    """A field vLLM added in ``version`` (absent from the versions before it; no hash factor of the seed).

    ``derived``: an attribute vLLM computes (``init=False``), as :func:`derived` marks one.
    """
    meta: dict[str, Any] = {"hash": False, "since": version}
    if derived:
        meta["derived"] = True
    return _field(default, meta, kw)

