"""The bounds every input is checked against, once, at the door.

A real vLLM config never comes near these numbers; they exist so that the cost
of a request is bounded whatever a caller sends (nesting depth, string and
list lengths, integer magnitudes, finite floats, valid UTF-8). The library, the
CLI and the HTTP service check the same bounds with :func:`plain_copy`, and the
service's JSON Schema states them (``maxLength``, ``maxItems``, ...).

Bounds that come from vLLM itself rather than from cost live with the fields
they bound (``postinit.schema.configs``): the speculative token count and the
CUDA graph capture sizes.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from postinit.errors import InvalidValueError, show

__all__ = [
    "MAX_ARGS",
    "MAX_DEPTH",
    "MAX_ENV",
    "MAX_INT",
    "MAX_ITEMS",
    "MAX_KEYS",
    "MAX_NAME",
    "MAX_NODES",
    "MAX_STRING",
    "MIN_INT",
    "check_text",
    "plain_copy",
]

MAX_DEPTH = 24
"""Nesting levels of mappings and lists (a VllmConfig is 4 deep, a config.json rarely 6)."""
MAX_STRING = 16_384
"""Characters in one string (flag values, env values, config strings)."""
MAX_ITEMS = 4_096
"""Items in one list."""
MAX_KEYS = 16_384
"""Keys in one mapping (a classifier's ``id2label`` is the largest real case)."""
MAX_NODES = 40_000
"""Values in one input altogether (a classifier's 16,384-label ``id2label`` with its ``label2id`` and a large
config.json is ~33,000; every value of a model's config.json is converted and compared for the hash, so this
bounds a request's cost: 40,000 values resolve and hash within a second)."""
MAX_INT = 2**127 - 1
MIN_INT = -(2**127)
"""Integers are at most 128-bit: every size and count vLLM hands to torch and CUDA is 64-bit, and
config files hold up to 1e30 (transformers' ``VERY_LARGE_INTEGER`` for "no model_max_length")."""
MAX_ARGS = 1_024
"""Command-line arguments in one request."""
MAX_ENV = 1_024
"""Environment variables in one request."""
MAX_NAME = 1_024
"""Characters in a model name, a platform spec or a dotted path."""


def check_text(text: str, where: str, limit: int = MAX_STRING) -> str:
    """``text`` if it is at most ``limit`` characters of valid Unicode, else :class:`InvalidValueError`."""
    if len(text) > limit:
        raise InvalidValueError(f"{where}: a string of {len(text)} characters is longer than the {limit} allowed",
                                path=where, value=text[:80])
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValueError(f"{where}: {show(text)} is not valid UTF-8 (a lone surrogate)",
                                path=where, value=None) from None
    return text


def plain_copy(value: Any, where: str) -> Any:
    """A plain copy of a caller's value (dicts, lists, scalars) checked against every bound.

    Mappings must have string keys; tuples become lists; pydantic models become the
    dict of the fields that were set (as given to the constructor); enum members pass
    through (pydantic validates them later); floats must be finite and integers
    64-bit. Anything else is an :class:`InvalidValueError` naming the path. The
    caller's objects are never mutated.
    """
    budget = [MAX_NODES]
    return _copy(value, where, 0, budget)


def _copy(value: Any, where: str, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidValueError(f"{where}: the input holds more than {MAX_NODES} values", path=where)
    t = type(value)
    if value is None or t is bool:
        return value
    if t is str:
        return check_text(value, where)
    if t is int:
        if not MIN_INT <= value <= MAX_INT:
            raise InvalidValueError(
                f"{where}: an integer of about {_digits(value)} digits is outside [-2**127, 2**127) "
                "(vLLM's sizes and counts are 64-bit)", path=where, value=None)
        return value
    if t is float:
        if not math.isfinite(value):
            raise InvalidValueError(f"{where}: {value!r} is not a finite number", path=where, value=value)
        return value
    if isinstance(value, enum.Enum):
        return value
    if depth >= MAX_DEPTH:
        raise InvalidValueError(f"{where}: nested more than {MAX_DEPTH} levels deep", path=where)
    if isinstance(value, BaseModel):
        value = {k: getattr(value, k) for k in value.model_fields_set}
    if isinstance(value, Mapping):
        if len(value) > MAX_KEYS:
            raise InvalidValueError(f"{where}: a mapping of {len(value)} keys is over the {MAX_KEYS} allowed",
                                    path=where)
        out: dict[str, Any] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise InvalidValueError(f"{where}: keys must be strings, got {type(k).__name__} {show(k)}",
                                        path=where, value=None)
            check_text(k, where, MAX_NAME)
            out[k] = _copy(v, f"{where}.{k}" if where else k, depth + 1, budget)
        return out
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_ITEMS:
            raise InvalidValueError(f"{where}: a list of {len(value)} items is over the {MAX_ITEMS} allowed",
                                    path=where)
        return [_copy(v, f"{where}[{i}]", depth + 1, budget) for i, v in enumerate(value)]
    if isinstance(value, int):  # an int subclass (IntEnum handled above): its int value
        return _copy(int(value), where, depth, budget)
    if isinstance(value, float):
        return _copy(float(value), where, depth, budget)
    raise InvalidValueError(
        f"{where}: a {type(value).__name__} is not a config value (use dicts, lists, strings, numbers, "
        "booleans and null)", path=where, value=None)


def _digits(n: int) -> int:
    """About how many decimal digits ``n`` has, without converting it (``str()`` refuses > 4300)."""
    return int(abs(n).bit_length() * math.log10(2)) + 1
