"""Building a sub-config as vLLM builds it, and the text of vLLM's refusal.

vLLM's sub-configs are pydantic dataclasses. Building one from a dict or from JSON
(``TypeAdapter(cls).validate_json``, which vLLM's argument parser does for the
JSON-valued flags) refuses a value of the wrong type with pydantic's
``ValidationError``, and wraps a ``ValueError`` or ``AssertionError`` its
``__post_init__`` raises in one. postinit's schema classes carry vLLM's class
names, fields and types, so pydantic gives vLLM's very text for them — where the
types are vLLM's (:data:`SAME_TYPES`). Two differences are deliberate and left to
the door, which reports them in postinit's words: a key no field has (vLLM's
dataclasses ignore it, postinit refuses it with a "did you mean") and postinit's
own bounds (:data:`OWN_BOUNDS`: a compilation mode of 0-3, the capture-size limits).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from postinit.schema import configs

__all__ = ["OWN_BOUNDS", "SAME_TYPES", "one_line", "refusal", "wrapped_text"]

SAME_TYPES: Mapping[str, frozenset[str] | None] = {
    "CompilationConfig": None,
    "PassConfig": None,
    "KVTransferConfig": None,
    "KVEventsConfig": None,
    "StructuredOutputsConfig": None,
    "EPLBConfig": None,
    "PoolerConfig": None,
    "ModelConfig": frozenset({"pooler_config"}),
    "ParallelConfig": frozenset({"eplb_config"}),
}
"""The classes (and, where not all, the fields) whose types are vLLM's: their refusals are vLLM's text.

``ModelConfig.override_pooler_config`` is not among them: vLLM types it ``dict | PoolerConfig``,
so a config dict passes whatever it holds (its flag is built as a ``PoolerConfig``)."""

OWN_BOUNDS: frozenset[tuple[str, str]] = frozenset({
    ("CompilationConfig", "level"),
    ("CompilationConfig", "mode"),
    ("CompilationConfig", "cudagraph_mode"),
    ("CompilationConfig", "cudagraph_num_of_warmups"),
    ("CompilationConfig", "cudagraph_capture_sizes"),
    ("CompilationConfig", "max_cudagraph_capture_size"),
})
"""Fields postinit bounds more tightly than vLLM (vLLM takes any int for ``mode`` and refuses 4 later,
in ``VllmConfig.__post_init__``; an unknown ``cudagraph_mode`` name is a KeyError vLLM does not catch):
refused at the door in postinit's words (docs/divergences.md)."""


@functools.cache
def _adapter(cls: type[BaseModel]) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def _vllms(cls: type[BaseModel], loc: tuple[Any, ...]) -> bool:
    """Whether pydantic's error at ``loc`` of ``cls`` is one vLLM's class raises too."""
    name = cls.__name__
    if name not in SAME_TYPES or not loc:
        return name in SAME_TYPES
    fields = SAME_TYPES[name]
    head = str(loc[0])
    if (fields is not None and head not in fields) or (name, head) in OWN_BOUNDS:
        return False
    field = cls.model_fields.get(head)
    inner = getattr(field, "annotation", None) if field is not None else None
    for sub in getattr(inner, "__args__", None) or (inner,):
        if isinstance(sub, type) and issubclass(sub, BaseModel) and len(loc) > 1:
            return _vllms(sub, tuple(loc[1:]))
    return True


def _translated(error: Any) -> Any:
    """An error of ``ValidationError.errors()`` as the details it was made from, a model shown as vLLM's dataclass."""
    out = {"type": error["type"], "loc": tuple(error["loc"]), "input": error["input"]}
    if "ctx" in error:
        out["ctx"] = error["ctx"]
    if error["type"] in ("model_type", "model_attributes_type"):
        # a BaseModel says "a valid dictionary or instance of X", vLLM's dataclass "a dictionary or an instance of X"
        out["type"] = "dataclass_type"
        out["ctx"] = {"class_name": (error.get("ctx") or {}).get("class_name", "")}
    return out


def _without(data: Any, locs: list[tuple[Any, ...]]) -> Any:
    """``data`` (plain JSON) without the items at ``locs``: what vLLM's class is left to refuse."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    heads: dict[Any, list[tuple[Any, ...]]] = {}
    for loc in locs:
        if loc:
            heads.setdefault(loc[0], []).append(loc[1:])
    for key, rests in heads.items():
        if key in out:
            if any(not rest for rest in rests):
                del out[key]
            else:
                out[key] = _without(out[key], rests)
    return out


def refusal(cls: type[BaseModel], *, data: Any = None, json_text: str | None = None) -> str | None:
    """pydantic's text of vLLM's refusal to build ``cls`` from ``data`` (or ``json_text``), or None.

    None when vLLM's class builds it — or when only postinit refuses it (a key no field has,
    postinit's own bounds, a field whose type is not vLLM's): the door reports those. The
    items only postinit refuses are dropped and the rest validated again, so pydantic's text is
    the one vLLM's class gives for what is left (JSON input reads "a valid array", not "list").
    """
    for _ in range(4):
        try:
            if json_text is not None:
                _adapter(cls).validate_json(json_text)
            else:
                _adapter(cls).validate_python(data)
        except ValidationError as e:
            errors = e.errors()
            ours = [tuple(d["loc"]) for d in errors
                    if d["type"] == "extra_forbidden" or not _vllms(cls, tuple(d["loc"]))]
            if not ours:
                if any(d["type"] in ("model_type", "model_attributes_type") for d in errors):
                    return str(ValidationError.from_exception_data(e.title, [_translated(d) for d in errors]))
                return str(e)
            if json_text is not None:
                try:
                    parsed = json.loads(json_text)
                except ValueError:
                    return None
                json_text = json.dumps(_without(parsed, ours))
            else:
                data = _without(data, ours)
            continue
        return None
    return None


def wrapped_text(title: str, error: str, message: str, value: Any, loc: tuple[str, ...] = ()) -> str:
    """pydantic's text for ``error(message)`` raised while building the pydantic dataclass ``title`` from ``value``
    (by the validator of its field ``loc``, if one)."""
    kind, exc = ("assertion_error", AssertionError(message)) if error == "AssertionError" else (
        "value_error", ValueError(message))
    return str(ValidationError.from_exception_data(title, [{"type": kind, "loc": loc, "input": value,
                                                             "ctx": {"error": exc}}]))


_PYDANTIC_TAIL = re.compile(r" \[type=[a-z_]+, input_value=.*$")


def one_line(text: str) -> str:
    """A vLLM error text on one line: pydantic's ``[type=..., input_value=...]`` tails and links dropped."""
    lines = []
    for line in text.splitlines():
        if line.strip().startswith("For further information visit"):
            continue
        line = _PYDANTIC_TAIL.sub("", line).strip()
        if line:
            lines.append(line)
    return ": ".join(lines)


def schema_class(name: str) -> type[BaseModel]:
    """The schema class of a vLLM sub-config class name (``KVTransferConfig``)."""
    cls = getattr(configs, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise KeyError(name)
    return cls
