"""vLLM's compilation enums as pydantic-ready types.

* :class:`CompilationMode` is an ``IntEnum`` (vLLM uses plain int constants at
  this commit, compared as integers). Validation accepts the enum, an int 0–3
  or the member name (case-insensitive); JSON serialisation gives the name.
* :class:`CUDAGraphMode` is an ``Enum`` with vLLM's values (tuples for the
  split decode/mixed modes) and predicates. Validation accepts the enum or the
  member name (case-insensitive); JSON serialisation gives the name.
"""

from __future__ import annotations

import enum
from typing import Any, TypeGuard

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

__all__ = ["CUDAGraphMode", "CompilationMode"]


def _by_name(cls: type[enum.Enum], value: str) -> Any:
    key = value.strip().upper()
    if key in cls.__members__:
        return cls.__members__[key]
    names = ", ".join(cls.__members__)
    raise PydanticCustomError(
        "enum_name",
        "{cls} must be one of {names}, got {value}",
        {"cls": cls.__name__, "names": names, "value": repr(value)},
    )


def _name_of(value: enum.Enum) -> str:
    return value.name


class CompilationMode(enum.IntEnum):
    """How vLLM compiles the model (``CompilationConfig.mode``)."""

    NONE = 0
    STOCK_TORCH_COMPILE = 1
    DYNAMO_TRACE_ONCE = 2
    VLLM_COMPILE = 3

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def out_of_range(value: Any) -> TypeGuard[int]:
        """Whether ``value`` is an int (not a bool) that is no mode: the seed's plain-int field keeps it, later
        versions' IntEnum refuses it."""
        return isinstance(value, int) and not isinstance(value, bool) and value not in range(4)

    @classmethod
    def parse(cls, value: Any) -> CompilationMode:
        """Accept the enum, an int 0–3 (also as a digit string) or a member name."""
        if isinstance(value, cls):
            return value
        if isinstance(value, bool):
            raise PydanticCustomError(
                "compilation_mode", "CompilationMode must be an int 0-3 or a name, got a bool"
            )
        if isinstance(value, int):
            try:
                return cls(value)
            except ValueError:
                raise PydanticCustomError(
                    "compilation_mode",
                    "CompilationMode must be 0-3 (NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE), got {value}",
                    {"value": value},
                ) from None
        if isinstance(value, str):
            text = value.strip()
            if text.isdigit():
                return cls.parse(int(text))
            result: CompilationMode = _by_name(cls, text)
            return result
        raise PydanticCustomError(
            "compilation_mode",
            "CompilationMode must be an int 0-3 or a name, got {type}",
            {"type": type(value).__name__},
        )

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.parse,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _name_of, when_used="json"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "title": cls.__name__,
            "description": "Compilation mode: a name (case-insensitive) or its int value 0-3.",
            "anyOf": [
                {"type": "string", "enum": list(cls.__members__)},
                {"type": "integer", "minimum": 0, "maximum": 3},
            ],
        }


class CUDAGraphMode(enum.Enum):
    """vLLM's CUDA graph modes; tuple values are (decode mode, mixed-batch mode)."""

    NONE = 0
    PIECEWISE = 1
    FULL = 2
    FULL_DECODE_ONLY = (2, 0)
    FULL_AND_PIECEWISE = (2, 1)

    def __str__(self) -> str:
        return self.name

    # members are singletons compared by identity: hash them by identity too (C speed; Enum's
    # own __hash__ is a Python method, and the mode is part of many memo-cache keys)
    __hash__ = object.__hash__

    def separate_routine(self) -> bool:
        """Whether decode and mixed batches use different modes."""
        return isinstance(self.value, tuple)

    # per-member answers, filled in once below the class (an ``Enum(value)`` lookup costs
    # microseconds, and rules ask these questions many times per resolution)
    _decode: CUDAGraphMode
    _mixed: CUDAGraphMode
    _max: CUDAGraphMode
    _full: bool

    def decode_mode(self) -> CUDAGraphMode:
        """The mode used for pure-decode batches."""
        return self._decode

    def mixed_mode(self) -> CUDAGraphMode:
        """The mode used for mixed prefill-decode batches."""
        return self._mixed

    def has_mode(self, mode: CUDAGraphMode) -> bool:
        """Whether the scalar ``mode`` is part of this mode."""
        if mode.separate_routine():
            raise ValueError(f"has_mode() needs a scalar mode, got {mode.name}")
        if isinstance(self.value, tuple):
            return mode.value in self.value
        return self is mode

    def max_cudagraph_mode(self) -> CUDAGraphMode:
        """The largest scalar mode contained in this mode."""
        return self._max

    def has_full_cudagraphs(self) -> bool:
        """Whether any batch kind runs a full CUDA graph."""
        return self._full

    def requires_piecewise_compilation(self) -> bool:
        """Whether piecewise (split) compilation is required."""
        return self.has_mode(CUDAGraphMode.PIECEWISE)

    def has_piecewise_cudagraphs(self) -> bool:
        """Whether any batch kind runs piecewise CUDA graphs."""
        return self.requires_piecewise_compilation()

    def valid_runtime_modes(self) -> bool:
        """Whether this is a runtime mode (NONE, PIECEWISE or FULL)."""
        return self in (CUDAGraphMode.NONE, CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL)

    @classmethod
    def parse(cls, value: Any) -> CUDAGraphMode:
        """Accept the enum, a member name (case-insensitive) or a member's int value (pydantic's enum validation in
        vLLM: ``-O '{"cudagraph_mode": 1}'`` is PIECEWISE)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            result: CUDAGraphMode = _by_name(cls, value)
            return result
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1, 2):
            return cls(value)
        raise PydanticCustomError(
            "cudagraph_mode",
            "CUDAGraphMode must be one of {names}, got {type}",
            {"names": ", ".join(cls.__members__), "type": type(value).__name__},
        )

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.parse,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _name_of, when_used="json"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "title": cls.__name__,
            "description": "CUDA graph mode name (case-insensitive).",
            "type": "string",
            "enum": list(cls.__members__),
        }


for _m in CUDAGraphMode:
    _v = _m.value
    _m._decode = CUDAGraphMode(_v[0]) if isinstance(_v, tuple) else _m
    _m._mixed = CUDAGraphMode(_v[1]) if isinstance(_v, tuple) else _m
    _m._max = CUDAGraphMode(max(_v)) if isinstance(_v, tuple) else _m
    _m._full = _m._max is CUDAGraphMode.FULL
del _m, _v
