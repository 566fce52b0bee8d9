"""Request and response bodies of the HTTP service; the OpenAPI document is generated from them.

Every list, mapping and string a client sends is bounded here, so an oversized
request is a 422 before any library code runs. The response models mirror the
library's ``to_dict()`` shapes (loosely: the trace and config are open objects).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from postinit._api import DEFAULT_PLATFORM

__all__ = [
    "MAX_ARGV",
    "MAX_ENV",
    "MAX_SET",
    "MAX_STRING",
    "CatalogModel",
    "DiffRequest",
    "ErrorBody",
    "Health",
    "Inputs",
    "ResolveResponse",
    "RuleInfo",
    "WhatIfRequest",
    "WhyNotRequest",
    "WhyRequest",
]

MAX_ARGV = 256
MAX_ENV = 256
MAX_SET = 256
MAX_STRING = 4096

Arg = Annotated[str, StringConstraints(max_length=MAX_STRING)]
EnvName = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
]
EnvValue = Annotated[str, StringConstraints(max_length=MAX_STRING)] | None
DottedPath = Annotated[
    str,
    StringConstraints(min_length=1, max_length=256, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$"),
]

_EXAMPLE_INPUTS: dict[str, Any] = {
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "platform": "b200",
    "argv": ["--max-model-len", "200k"],
    "env": {},
}


class Inputs(BaseModel):
    """What ``postinit resolve`` takes: a nested config, the platform, the environment and vLLM flags."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                _EXAMPLE_INPUTS,
                {"config": {"compilation_config": {"mode": 3}, "model_config": {"model": "Qwen/Qwen3-8B"}},
                 "platform": "h100"},
            ]
        },
    )

    config: dict[str, Any] | None = Field(
        None,
        description="The nested VllmConfig dict a JSON config file holds (field names are vLLM's; "
        "see GET /v1/schema). A model not in the catalog is given inline as "
        "config.model_config.hf_config (the config.json content).",
    )
    platform: Annotated[str, StringConstraints(min_length=1, max_length=64)] = Field(
        DEFAULT_PLATFORM, description="Platform spec: cpu, rocm, cuda:MAJOR.MINOR or a GPU name (h100, b200, mi300x, ...)."
    )
    env: dict[EnvName, EnvValue] = Field(
        default_factory=dict, max_length=MAX_ENV, description="VLLM_* environment variables (the server's are never read)."
    )
    argv: list[Arg] | None = Field(
        None, max_length=MAX_ARGV, description="`vllm serve` flags, e.g. [\"--max-model-len\", \"32k\"]; --config is refused."
    )
    model: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = Field(
        None, description="A built-in catalog model id (GET /v1/models); never a path."
    )
    usage: Literal["serve", "llm", "engine"] | None = Field(
        None, description="Build the config as `vllm serve`, `LLM(...)` or the engine does (implied by argv)."
    )
    semantics: Literal["vllm", "consistent"] = Field(
        "vllm", description="vllm reproduces vLLM's final values; consistent re-runs stale rules."
    )


class WhyRequest(Inputs):
    """The inputs plus the dotted path to explain."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{**_EXAMPLE_INPUTS, "path": "compilation_config.cudagraph_mode"}]},
    )

    path: DottedPath = Field(description="Dotted field path, e.g. compilation_config.cudagraph_mode.")


class WhyNotRequest(WhyRequest):
    """The inputs plus a path and the value it did not get."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{**_EXAMPLE_INPUTS, "path": "compilation_config.cudagraph_mode", "value": "FULL_AND_PIECEWISE"}]
        },
    )

    value: Any = Field(description="The value the path did not end up with (JSON).")


class WhatIfRequest(Inputs):
    """The inputs plus ``set``: dotted paths and the values to try on top of them."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{**_EXAMPLE_INPUTS, "set": {"model_config.enforce_eager": True}}]},
    )

    set: dict[DottedPath, Any] = Field(
        min_length=1, max_length=MAX_SET, description="Dotted path → value, applied last (env.NAME sets a variable)."
    )


class DiffRequest(BaseModel):
    """Two sets of inputs to resolve and compare."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"a": {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "h100", "argv": []},
                 "b": {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "b200", "argv": []}}
            ]
        },
    )

    a: Inputs
    b: Inputs


class ResolveResponse(BaseModel):
    """``Resolution.to_dict()``: the resolved config, what changed, the trace, violations and the hash."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"version": 1, "ok": True, "config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}},
                 "changes": [], "trace": {"fired": []}, "violations": [], "hash": "3c9e1f0a2b",
                 "inputs": {"platform": "platform b200", "usage": "serve", "semantics": "vllm"}}
            ]
        }
    )

    version: int
    ok: bool = Field(description="False when a rule found the config invalid (vLLM would have raised).")
    config: dict[str, Any]
    changes: list[dict[str, Any]]
    trace: dict[str, Any]
    violations: list[dict[str, Any]]
    hash: str
    inputs: dict[str, Any]


class RuleInfo(BaseModel):
    """One rule's declarative header (``Rulebook.describe()``)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"id": "model.architectures", "title": "architectures from config.json", "phase": "model_config",
                 "kind": "derive", "reads": ["model_config.hf_config.architectures"],
                 "writes": ["model_config.architectures"], "after": [], "feedback": [],
                 "source": "vllm/config/model.py ModelConfig.architectures", "message": "", "level": "info",
                 "reason": "The model's architectures list."}
            ]
        }
    )

    id: str
    title: str
    phase: str
    kind: str
    reads: list[str]
    writes: list[str]
    after: list[str]
    feedback: list[str]
    source: str
    message: str
    level: str
    reason: str


class CatalogModel(BaseModel):
    """One built-in catalog model."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"id": "meta-llama/Llama-3.1-8B-Instruct", "architecture": "LlamaForCausalLM",
                 "model_type": "llama", "max_position_embeddings": 131072, "note": "Llama 3.1 8B"}
            ]
        }
    )

    id: str
    architecture: str | None
    model_type: str | None
    max_position_embeddings: int | None
    note: str


class Health(BaseModel):
    """Liveness: the service is up and its rulebook compiled."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"status": "ok", "version": "0.1.0", "rules": 120}]})

    status: Literal["ok"]
    version: str
    rules: int


class ErrorBody(BaseModel):
    """Every error response: a short kind, the one-line message and the request id (no traceback, ever)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"error": "invalid_input", "message": "unknown field 'compilation_config.mod'. Did you mean 'compilation_config.mode'?",
                 "request_id": "5f0c7d0e9b8a4c39a2c1d2e3f4a5b6c7", "path": "compilation_config.mod", "rule": None}
            ]
        }
    )

    error: str
    message: str
    request_id: str
    path: str | None = None
    rule: str | None = None
