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
from collections.abc import Collection, Mapping
from typing import Any, cast

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model
from pydantic_core import InitErrorDetails

from postinit.schema import _configs_0340, configs
from postinit.schema.enums import CompilationMode
from postinit.schema.loaders.nested import model_fields, submodel_of

__all__ = ["OWN_BOUNDS", "REMOVED_KEYWORDS", "SAME_TYPES", "escaping_error", "literal_refusal", "one_line", "refusal",
           "refused_fields",
           "split_undeclared",
           "wrapped_text"]

SAME_TYPES: Mapping[str, frozenset[str] | None] = {
    "CompilationConfig": None,
    "PassConfig": None,
    "KVTransferConfig": None,
    "KVEventsConfig": None,
    "StructuredOutputsConfig": None,
    "EPLBConfig": None,
    "PoolerConfig": None,
    "ModelConfig": frozenset({"pooler_config"}),
    # the bounds every modelled version declares alike (vllm/config/cache.py, scheduler.py: Field(gt=, le=, ge=))
    "CacheConfig": frozenset({"gpu_memory_utilization", "mamba_block_size"}),
    "SchedulerConfig": frozenset({"max_num_batched_tokens", "max_num_seqs", "max_num_scheduled_tokens"}),
    "ParallelConfig": frozenset({"eplb_config"}),
    # vLLM 0.34.0's new classes: fields, defaults and Literal choices are the wheel's (schema/_configs_0340.py; a
    # type that is one of vLLM's enums or classes is Any there and refuses nothing)
    **dict.fromkeys(_configs_0340.__all__),
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
"""Fields whose refusals are not pydantic's text for postinit's type: refused at the door in postinit's words
(an unknown ``cudagraph_mode`` name is a KeyError vLLM does not catch), except ``mode``, which the schema takes
as any int (the seed's plain int, asserted in range later by a rule) and which vLLM's IntEnum refuses from
0.11.1 on in the words :func:`refusal` gives with ``mode_enum``."""


REMOVED_KEYWORDS: Mapping[str, Mapping[str, str]] = {
    "PoolerConfig": {"normalize": "Parameter `normalize` was removed; use `use_activation` instead."},
}
"""Removed keywords a class's ``model_validator(mode="before")`` refuses with its own message, before pydantic
sees the keyword (vLLM 0.34.0: PoolerConfig.reject_removed_parameters, vllm/config/pooler.py:125-136); applied
where the version lacks the field."""


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


def _vllm_errors(cls: type[BaseModel], data: Any, json_text: str | None) -> tuple[str | None, list[Any]]:
    """pydantic's refusal of ``data`` (or ``json_text``) that vLLM's class gives too: (its text, its errors).

    The items only postinit refuses are dropped and the rest validated again; ``(None, [])`` when
    what is left builds.
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
                details = [_translated(d) for d in errors]
                if json_text is not None and any(d["type"] == "model_type" for d in errors):
                    # JSON input: a dataclass's text is a model's, "Input should be an object", under its own type
                    return str(e).replace("[type=model_type,", "[type=dataclass_type,").replace(
                        "/v/model_type", "/v/dataclass_type"), details
                if any(d["type"] in ("model_type", "model_attributes_type") for d in errors):
                    return str(ValidationError.from_exception_data(e.title, details)), details
                return str(e), details
            if json_text is not None:
                try:
                    parsed = json.loads(json_text)
                except ValueError:
                    return None, []
                json_text = json.dumps(_without(parsed, ours))
            else:
                data = _without(data, ours)
            continue
        return None, []
    return None, []


def refused_fields(cls: type[BaseModel], data: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """pydantic's text of vLLM's refusal to build ``cls`` from ``data`` for the fields whose types are vLLM's
    (:data:`SAME_TYPES`), and the keys of ``data`` it refuses; ``(None, ())`` when vLLM's class builds them."""
    text, errors = _vllm_errors(cls, dict(data), None)
    if text is None:
        return None, ()
    return text, tuple(dict.fromkeys(str(d["loc"][0]) for d in errors if d["loc"]))


def split_undeclared(cls: type[BaseModel], data: Mapping[str, Any], absent: Collection[str],
                loc: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``data`` without the keywords the version's class does not declare, and pydantic's error for each.

    A keyword is undeclared when no field of ``cls`` has it or when the field is one the version
    lacks (``absent``: dotted paths below the class). Sub-configs given as objects are walked;
    the errors come in the input's order.
    """
    fields = model_fields(cls)
    kept: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for key, value in data.items():
        where = (*loc, str(key))
        if key not in fields or ".".join(where) in absent:
            errors.append({"type": "unexpected_keyword_argument", "loc": where, "input": value})
            continue
        sub = submodel_of(fields[key].annotation)
        if sub is not None and isinstance(value, Mapping):
            value, more = split_undeclared(sub, value, absent, where)
            errors.extend(more)
        kept[key] = value
    return kept, errors


def _rank(cls: type[BaseModel], loc: tuple[Any, ...], extra: int | None) -> tuple[tuple[int, int], ...]:
    """Where pydantic reports the error at ``loc``: a dataclass validates its declared fields in their order
    (a sub-config's errors at its field's place), then refuses the undeclared keywords in the input's order
    (``extra``: the error's place among them)."""
    key: list[tuple[int, int]] = []
    current: Any = cls
    for i, item in enumerate(loc):
        if extra is not None and i == len(loc) - 1:
            key.append((1, extra))
            break
        names = list(model_fields(current)) if current is not None else []
        if item not in names:
            break
        key.append((0, names.index(item)))
        current = submodel_of(model_fields(current)[item].annotation)
    return tuple(key)


def refusal(cls: type[BaseModel], *, data: Any = None, json_text: str | None = None,
            absent: Collection[str] | None = None, mode_enum: bool = False) -> str | None:
    """pydantic's text of vLLM's refusal to build ``cls`` from ``data`` (or ``json_text``), or None.

    None when vLLM's class builds it — or when only postinit refuses it (postinit's own bounds, a
    field whose type is not vLLM's; a key no field has unless ``absent`` is given): the door reports
    those. The items only postinit refuses are dropped and the rest validated again, so pydantic's
    text is the one vLLM's class gives for what is left (JSON input reads "a valid array", not "list").

    ``absent`` (the version's configs forbid undeclared keywords, vLLM 0.34.0's ``@config``): the fields
    of ``cls`` that version lacks, as dotted paths below it. A keyword no field of the version has is
    then vLLM's refusal too — pydantic's ``Unexpected keyword argument``, after the fields' own errors.
    ``mode_enum`` (``version.compilation_mode_enum``, implied by ``absent``): CompilationConfig's ``mode`` is vLLM's
    IntEnum, whose refusal of a mode outside 0-3 (or of an unknown name) is vLLM's too.
    """
    if absent is None and not mode_enum:
        text = _vllm_errors(cls, data, json_text)[0]
        if text is None:  # the seed's mode is a plain int | None: a mode's name is pydantic's int-parsing refusal
            text = _seed_mode_text_refusal(cls, data if json_text is None else _loads(json_text))
        return text
    given = data
    if json_text is not None:
        try:
            given = json.loads(json_text)
        except ValueError:
            return _vllm_errors(cls, data, json_text)[0]
    if not isinstance(given, Mapping):
        return _vllm_errors(cls, data, json_text)[0]
    for key, message in REMOVED_KEYWORDS.get(cls.__name__, {}).items():
        if absent is not None and key in given and key in absent:  # the class's before-validator names it first
            return wrapped_text(cls.__name__, "ValueError", message, dict(given))
    kept, extras = (split_undeclared(cls, given, frozenset(absent)) if absent is not None
                    else (dict(given), []))
    bounded = _own_bound_errors(cls, kept)
    if bounded:  # values postinit bounds itself: vLLM's words for them, among its other errors
        kept = {k: v for k, v in kept.items() if k not in {d["loc"][0] for d in bounded}}
    if not extras and not bounded:
        return _vllm_errors(cls, data, json_text)[0]
    text, errors = (_vllm_errors(cls, None, json.dumps(kept)) if json_text is not None
                    else _vllm_errors(cls, kept, None))
    # each error's text as pydantic words it for this input (JSON input: "a valid array"), in vLLM's order
    blocks = _blocks(text or "")
    if len(blocks) != len(errors):  # a message of several lines: pydantic's wording of the details instead
        blocks = _blocks(str(ValidationError.from_exception_data(cls.__name__, cast("list[InitErrorDetails]", errors))))
    ranked = [(_rank(cls, tuple(d["loc"]), None), block) for d, block in zip(errors, blocks, strict=False)]
    if bounded:
        bounded_text = str(ValidationError.from_exception_data(cls.__name__, cast("list[InitErrorDetails]", bounded)))
        ranked += [(_rank(cls, tuple(d["loc"]), None), block)
                   for d, block in zip(bounded, _blocks(bounded_text), strict=False)]
    if extras:
        extra_text = str(ValidationError.from_exception_data(cls.__name__, cast("list[InitErrorDetails]", extras)))
        ranked += [(_rank(cls, tuple(d["loc"]), i), block)
                   for i, (d, block) in enumerate(zip(extras, _blocks(extra_text), strict=False))]
    ranked.sort(key=lambda pair: pair[0])  # stable: one field's errors keep pydantic's order
    n = len(ranked)
    return "\n".join([f"{n} validation error{'s' if n != 1 else ''} for {cls.__name__}", *(b for _, b in ranked)])


_MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
_CUDAGRAPH_MODE_NAMES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _own_bound_errors(cls: type[BaseModel], given: Mapping[str, Any]) -> list[dict[str, Any]]:
    """pydantic's errors for the values of ``given`` that postinit bounds itself (:data:`OWN_BOUNDS`) as vLLM's
    class refuses them from 0.11.1 on: ``mode`` by name (its before-validator; 0.34.0's
    vllm/config/compilation.py:1003-1019) or as the IntEnum's value."""
    if cls.__name__ != "CompilationConfig" or "mode" not in given:
        return []
    mode = given["mode"]
    if isinstance(mode, str) and mode.upper() not in _MODE_NAMES:
        message = f"Invalid compilation mode: {mode}. Valid modes are: {', '.join(_MODE_NAMES)}"
        return [{"type": "value_error", "loc": ("mode",), "input": mode, "ctx": {"error": ValueError(message)}}]
    if CompilationMode.out_of_range(mode):
        return [{"type": "enum", "loc": ("mode",), "input": mode, "ctx": {"expected": "0, 1, 2 or 3"}}]
    return []


def _loads(json_text: str) -> Any:
    try:
        return json.loads(json_text)
    except ValueError:
        return None


@functools.cache
def _seed_mode_model() -> type[BaseModel]:
    """The seed's ``CompilationConfig.mode: int | None`` alone, under its class's name (pydantic's title)."""
    return create_model("CompilationConfig", mode=(int | None, None))


def _seed_mode_text_refusal(cls: type[BaseModel], given: Any) -> str | None:
    """pydantic's text of the seed's refusal of a CompilationConfig ``mode`` given as text: the seed types the field
    ``int | None`` (no before-validator takes a name, as 0.11.1's does), so only a number's text passes pydantic's
    int parsing."""
    if cls.__name__ != "CompilationConfig" or not isinstance(given, Mapping) or not isinstance(given.get("mode"), str):
        return None
    try:
        _seed_mode_model().model_validate_json(json.dumps({"mode": given["mode"]}))
    except ValidationError as exc:
        return str(exc)
    return None


def literal_refusal(title: str, loc: tuple[str, ...], value: Any, choices: tuple[str, ...]) -> str:
    """pydantic's text when the field ``loc`` of the pydantic dataclass ``title`` refuses ``value`` for a
    ``Literal`` of ``choices`` (in their declaration order)."""
    expected = " or ".join([", ".join(repr(c) for c in choices[:-1]), repr(choices[-1])]) if len(choices) > 1 \
        else repr(choices[0])
    return str(ValidationError.from_exception_data(title, [{"type": "literal_error", "loc": loc, "input": value,
                                                            "ctx": {"expected": expected}}]))


def escaping_error(cls: type[BaseModel], given: Any) -> tuple[str, str] | None:
    """An exception vLLM 0.34.0's class raises while validating ``given`` that pydantic does not catch, as
    ``(type, message)``: an unknown ``cudagraph_mode`` name is ``CUDAGraphMode[name]``'s KeyError
    (vllm/config/compilation.py:1023-1028), which escapes even argparse."""
    if cls.__name__ != "CompilationConfig" or not isinstance(given, Mapping):
        return None
    mode = given.get("cudagraph_mode")
    if isinstance(mode, str) and mode.upper() not in _CUDAGRAPH_MODE_NAMES:
        return "KeyError", repr(mode.upper())
    return None


def _blocks(text: str) -> list[str]:
    """The errors of pydantic's ``ValidationError`` text, one block each (its location line and the indented
    lines under it), without the title line."""
    blocks: list[list[str]] = []
    for line in text.splitlines()[1:]:
        if line[:1].isspace() and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return ["\n".join(b) for b in blocks]


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
