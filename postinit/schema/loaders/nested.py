"""Nested input dicts against the pydantic config models: unknown keys and bad values.

Generic over any pydantic model: ``BaseModel`` subclasses and pydantic
dataclasses alike (fields from ``cls.__pydantic_fields__``). A field whose type
is a model (also inside ``X | None``, ``Annotated[...]``) is recursed into when
its value is a mapping; every other field is a leaf (its value is not checked
here: pydantic validates values and :func:`format_validation_error` words it).
"""

from __future__ import annotations

import enum
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic

from postinit.errors import InvalidValueError, UnknownFieldError, did_you_mean, show

__all__ = ["check_keys", "format_validation_error", "model_fields", "submodel_of"]


def model_fields(cls: Any) -> dict[str, Any]:
    """``{name: FieldInfo}`` of a pydantic model or pydantic dataclass (``{}`` otherwise)."""
    fields = getattr(cls, "__pydantic_fields__", None)
    return dict(fields) if isinstance(fields, Mapping) else {}


def _members(annotation: Any) -> list[Any]:
    """The types an annotation may hold, through ``Optional``/``Union``/``Annotated``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [m for arg in typing.get_args(annotation) for m in _members(arg)]
    return [annotation]


def submodel_of(annotation: Any) -> Any | None:
    """The model class a field annotation holds (``X``, ``X | None``), or None."""
    for member in _members(annotation):
        if isinstance(member, type) and model_fields(member):
            return member
    return None


def _names(fields: Mapping[str, Any]) -> dict[str, str]:
    """Accepted input keys (field names and aliases) → field name."""
    names: dict[str, str] = {}
    for name, info in fields.items():
        names[name] = name
        alias = getattr(info, "alias", None)
        if isinstance(alias, str):
            names[alias] = name
    return names


@functools.lru_cache(maxsize=256)
def _shape(model_cls: Any) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """(fields, accepted names, field name → sub-model class) of one model class, computed once."""
    fields = model_fields(model_cls)
    subs = {name: submodel_of(info.annotation) for name, info in fields.items()}
    return fields, _names(fields), subs


def check_keys(data: Mapping[str, Any], model_cls: Any, *, prefix: str = "") -> None:
    """Raise :class:`UnknownFieldError` for the first key that is no field, with did-you-mean."""
    try:
        fields, names, subs = _shape(model_cls)
    except TypeError:  # an unhashable class object: no caching
        fields = model_fields(model_cls)
        names, subs = _names(fields), {n: submodel_of(i.annotation) for n, i in fields.items()}
    if not fields:
        raise TypeError(f"{model_cls!r} is not a pydantic model or pydantic dataclass")
    for key, value in data.items():
        path = f"{prefix}{key}"
        if not isinstance(key, str) or key not in names:
            candidates = [f"{prefix}{n}" for n in fields]
            hint = did_you_mean(str(path), candidates)
            if not hint:
                shown = ", ".join(sorted(fields)[:12]) + (", ..." if len(fields) > 12 else "")
                where = f"fields of {prefix[:-1]}" if prefix else "top-level fields"
                hint = f" {where.capitalize()}: {shown}."
            raise UnknownFieldError(f"unknown field '{path}'.{hint}", path=path, value=value)
        sub = subs[names[key]]
        if sub is not None and isinstance(value, Mapping):
            check_keys(value, sub, prefix=path + ".")


# --------------------------------------------------------------------------- values


def _field_at(model_cls: Any, loc: Sequence[Any]) -> tuple[list[str], Any | None]:
    """Walk ``loc`` through the model tree: (field path parts, the leaf annotation)."""
    parts: list[str] = []
    cls = model_cls
    annotation: Any = None
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
            continue
        fields = model_fields(cls) if cls is not None else {}
        names = _names(fields)
        if item in names:
            parts.append(names[item])
            annotation = fields[names[item]].annotation
            cls = submodel_of(annotation)
        elif cls is None or not fields:
            parts.append(str(item))
            annotation, cls = None, None
        # else: a union/validator tag inside a field ("function-after[...]"): skip
    return parts, annotation


def _looks_like_tag(item: str) -> bool:
    """pydantic's union-member tags in a location (``constrained-str``, ``function-after[...]``, ``Platform``)."""
    return any(c in item for c in "[](),-") or (item[:1].isupper() and "_" not in item)


def _join(parts: Sequence[str]) -> str:
    """Dotted path of ``parts``; a key longer than 64 characters is cut (a client's key may be any length)."""
    out = ""
    for part in parts:
        if len(part) > 64:
            part = part[:63] + "…"
        out += part if part.startswith("[") or not out else "." + part
    return out


def _allowed_from_annotation(annotation: Any) -> list[str] | None:
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, enum.Enum):
            return [m.name for m in member]
        if typing.get_origin(member) is typing.Literal:
            return [str(a) for a in typing.get_args(member)]
    return None


def _allowed_from_ctx(ctx: Mapping[str, Any] | None) -> list[str] | None:
    expected = (ctx or {}).get("expected") or (ctx or {}).get("names")
    if not isinstance(expected, str):
        return None
    text = expected.replace(" or ", ", ")
    return [p.strip().strip("'\"") for p in text.split(",") if p.strip()]


def format_validation_error(
    exc: pydantic.ValidationError, model_cls: Any | None = None
) -> InvalidValueError:
    """One line from pydantic's error: full dotted path, the bad value, what is allowed.

    ``model_cls`` (the model that was validated) lets the path drop pydantic's
    union tags exactly and lists an enum's member names; without it the path
    and the allowed values come from pydantic's own error data.
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return InvalidValueError(str(exc).splitlines()[0])
    first = errors[0]
    loc = list(first.get("loc", ()))
    annotation: Any = None
    if model_cls is not None:
        parts, annotation = _field_at(model_cls, loc)
    else:
        parts = [
            f"[{item}]" if isinstance(item, int) else str(item)
            for item in loc
            if isinstance(item, int) or not _looks_like_tag(str(item))
        ]
    path = _join(parts) or "(top level)"
    value = first.get("input")
    kind = str(first.get("type", ""))
    more = (
        f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        if len(errors) > 1
        else ""
    )
    allowed = _allowed_from_annotation(annotation) if annotation is not None else None
    if kind in ("enum", "literal_error", "enum_name") or (
        allowed is not None and kind not in ("missing", "extra_forbidden")
    ):
        allowed = allowed or _allowed_from_ctx(first.get("ctx"))
        if allowed:
            message = f"{path}: {show(value)} is not allowed; allowed: {', '.join(allowed)}"
            return InvalidValueError(message + more, path=path, value=value)
    if kind == "missing":
        message = f"{path}: a value is required"
    elif kind == "extra_forbidden":
        message = f"unknown field '{path}'"
    elif kind == "value_error" and (first.get("ctx") or {}).get("error") is not None:
        message = f"{path}: {show(value)} is refused: {first['ctx']['error']}"
    else:
        msg = str(first.get("msg", "invalid value")).replace("\n", " ")
        msg = msg[:1].lower() + msg[1:]
        message = f"{path}: {show(value)} is invalid: {msg}"
    return InvalidValueError(message + more, path=path, value=value)
