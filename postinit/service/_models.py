"""Request and response bodies of the HTTP service; the OpenAPI document is generated from them.

Every list, mapping and string a client sends is bounded here, so an oversized
request is a 422 before any library code runs. The response models mirror the
library's ``to_dict()`` shapes (loosely: the trace and config are open objects).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from postinit._request import DottedPath, Request
from postinit.errors import InvalidValueError
from postinit.rules.versions import DEFAULT_VERSION, Version, version_name
from postinit.schema.limits import plain_copy
from postinit.schema.loaders.nested import format_validation_error

__all__ = [
    "MAX_SET",
    "CatalogModel",
    "DiffRequest",
    "ErrorBody",
    "Health",
    "HowRequest",
    "ResolveRequest",
    "ResolveResponse",
    "RuleInfo",
    "UpgradeRequest",
    "VersionInfoModel",
    "WhatIfRequest",
    "WhyNotRequest",
    "WhyRequest",
]

MAX_SET = 256

_EXAMPLE_INPUTS: dict[str, Any] = {
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "platform": "b200",
    "argv": ["--max-model-len", "200k"],
    "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
}


class ResolveRequest(Request):
    """What ``POST /v1/resolve`` takes: a :class:`postinit.Request`, exactly as the library and the CLI build it.

    A model and/or flags is ``vllm serve``; a ``config`` without flags is config mode
    (``VllmConfig(...)`` built directly). Models by catalog id or inline ``config_json``:
    the service reads no file. ``trace`` sets how much of the trace the answer carries.
    """

    trace: Literal["minimal", "full", "debug"] = Field(
        "full", description="minimal: the changes only; full: also what each fired rule read, history and stale "
        "reads; debug: every rule evaluation, with the reads its body consulted.",
    )


class WhyRequest(ResolveRequest):
    """The inputs plus the dotted path to explain."""

    model_config = ConfigDict(
        extra="forbid", frozen=True,
        json_schema_extra={"examples": [{**_EXAMPLE_INPUTS, "path": "compilation_config.cudagraph_mode"}]},
    )

    path: DottedPath = Field(description="Dotted field path, e.g. compilation_config.cudagraph_mode.")
    verbose: bool = Field(False, description="Every value each rule consulted as a node (defaults too), "
                          "instead of folding defaults into `defaults`.")
    depth: int | None = Field(None, ge=0, le=200, description="Cut the tree this many levels below the path "
                              "(default 12); a cut node has `truncated: true`.")


class WhyNotRequest(ResolveRequest):
    """The inputs plus a path and the value it did not get."""

    model_config = ConfigDict(
        extra="forbid", frozen=True,
        json_schema_extra={
            "examples": [{**_EXAMPLE_INPUTS, "path": "compilation_config.cudagraph_mode", "value": "FULL_AND_PIECEWISE"}]
        },
    )

    path: DottedPath = Field(description="Dotted field path, e.g. compilation_config.cudagraph_mode.")
    value: Any = Field(description="The value the path did not end up with (JSON).")

    @field_validator("value", mode="after")
    @classmethod
    def _bounded_value(cls, value: Any) -> Any:
        return plain_copy(value, "value")


class HowRequest(ResolveRequest):
    """The inputs plus a path and the value wanted: ``Resolution.how(path, value, max_edits=, keep=)``."""

    model_config = ConfigDict(
        extra="forbid", frozen=True,
        json_schema_extra={
            "examples": [{"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "platform": "h100",
                          "argv": ["-tp", "4", "--kv-transfer-config",
                                   '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'],
                          "path": "scheduler_config.disable_hybrid_kv_cache_manager", "value": False}]
        },
    )

    path: DottedPath = Field(description="Dotted field path, e.g. compilation_config.cudagraph_mode.")
    value: Any = Field(description="The value wanted (JSON, or text as on the command line: \"FULL\", \"8k\").")
    max_edits: int = Field(2, ge=1, le=3, description="Search edits of up to this many inputs.")
    keep: list[DottedPath] = Field(default_factory=list, max_length=16,
                                   description="Fields an answer must leave as they are.")

    @field_validator("value", mode="after")
    @classmethod
    def _bounded_value(cls, value: Any) -> Any:
        return plain_copy(value, "value")


class WhatIfRequest(ResolveRequest):
    """The inputs plus ``set``: dotted paths and the values to try on top of them."""

    model_config = ConfigDict(
        extra="forbid", frozen=True,
        json_schema_extra={"examples": [{**_EXAMPLE_INPUTS, "set": {"model_config.enforce_eager": True}}]},
    )

    set: dict[DottedPath, Any] = Field(
        min_length=1, max_length=MAX_SET, description="Dotted path → value, applied last (env.NAME sets a variable)."
    )

    @field_validator("set", mode="after")
    @classmethod
    def _bounded_set(cls, value: dict[str, Any]) -> dict[str, Any]:
        return {k: plain_copy(v, k) for k, v in value.items()}


class UpgradeRequest(ResolveRequest):
    """The inputs, resolved on two vLLM versions: ``from`` (default the seed commit) and ``to``."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True,
        json_schema_extra={"examples": [{"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "h100",
                                         "argv": ["--no-enable-chunked-prefill"], "from": "d7fb10c57",
                                         "to": "0.11.1"}]},
    )

    from_version: str = Field(DEFAULT_VERSION, alias="from", max_length=64,
                              description="The vLLM version you run today (GET /v1/versions).")
    to_version: str = Field(alias="to", max_length=64, description="The vLLM version you upgrade to.")

    @field_validator("from_version", "to_version", mode="after")
    @classmethod
    def _known(cls, value: str, info: Any) -> str:
        return version_name(value, "from" if info.field_name == "from_version" else "to")

    @classmethod
    def parse(cls, data: Any, *, keep: Version | None = None, copied: tuple[str, ...] = ()) -> UpgradeRequest:
        """Validate a body; ``vllm_version`` is refused (the two versions are ``from`` and ``to``)."""
        if isinstance(data, dict) and "vllm_version" in data:
            raise InvalidValueError("an upgrade body names its versions as 'from' and 'to', not 'vllm_version'",
                                    path="vllm_version", value=None)
        return cast(UpgradeRequest, super().parse(data, keep=keep, copied=copied))


class VersionInfoModel(BaseModel):
    """One modelled vLLM version (``postinit.versions()``)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "name": "0.11.1", "title": "vLLM 0.11.1 (PyPI release, 2025-11-18)", "parent": "d7fb10c57", "default": False,
        "oracle": "real vLLM: the official vllm==0.11.1 wheel (tests/golden/expected-0.11.1)",
        "source": "the vllm==0.11.1 wheel from PyPI (site-packages/vllm/)", "rules": 230,
        "delta": {"added": 19, "replaced": 37, "dropped": 32, "fields_added": 19, "fields_removed": 9},
        "env_table": "postinit/schema/data/envs-0.11.1.json", "status": "complete"}]})

    name: str
    title: str
    parent: str | None
    default: bool
    oracle: str
    source: str
    rules: int
    delta: dict[str, int]
    env_table: str
    status: str = Field(description='"complete", or what is measured of a partial model ("partial: N/M golden '
                        'cases match ...")')


class DiffRequest(BaseModel):
    """Two sets of inputs to resolve and compare."""

    model_config = ConfigDict(
        extra="forbid", frozen=True,
        json_schema_extra={
            "examples": [
                {"a": {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "h100", "argv": []},
                 "b": {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "b200", "argv": []}}
            ]
        },
    )

    a: ResolveRequest
    b: ResolveRequest

    @classmethod
    def parse(cls, data: Any) -> DiffRequest:
        """Validate a body; a bad field is one :class:`~postinit.errors.InvalidValueError` line naming it."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise format_validation_error(e) from None


class ResolveResponse(BaseModel):
    """``Resolution.to_dict()``: the resolved config, what changed, the trace, violations and the hash."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"version": 1, "ok": True, "config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}},
                 "changes": [], "trace": {"fired": []}, "violations": [], "hash": "3c9e1f0a2b", "hash_exact": True,
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
    error: dict[str, Any] | None = Field(
        default=None, description="What vLLM raises for this config (null when it resolves): the first violation's "
        "exception type, message and stage, and pydantic's ValidationError around it (wrapped_by) when vLLM raises "
        "it while building a config.")
    hash: str
    hash_exact: bool = Field(description="True when `hash` is vLLM's own VllmConfig.compute_hash().")
    hash_reason: str | None = Field(
        default=None, description="Why `hash` is postinit's stand-in and not vLLM's (null when it is vLLM's): the "
        "ModelConfig factor hashes the HF config JSON transformers builds, which cannot be rebuilt without "
        "transformers, for models vLLM builds with its own config class, for remote code, ...")
    inputs: dict[str, Any]
    notes: list[dict[str, Any]] = Field(
        default_factory=list, description="What the input loaders noticed: variables with no effect, unknown names.")


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
    group: str | None = Field(None, description="The first_match / all_of group (one vLLM statement) it belongs to.")
    owner: str | None = Field(None, description="For a site rule (the service's --rules): the module or file it "
                              "came from; absent for vLLM's rules.")


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
    stage: str | None = Field(default=None, description="Where vLLM refuses the same input: 'parse' (its argument "
                              "parser, `vllm serve` exits 2), the sub-config it cannot build, or null (postinit's "
                              "own check).")
