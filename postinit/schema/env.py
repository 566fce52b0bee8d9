"""The environment: every variable vLLM defines, and the ones config resolution reads.

vLLM defines its variables in ``vllm/envs.py``; ``data/envs-<commit>.json`` is the
table of them (name, how vLLM parses the text, choices), generated from the
modelled commit's source by ``tests/golden/gen_env_table.py``.

:class:`Env` holds the variables config resolution reads (plus the process
variables the platform hooks write), typed and defaulted exactly as vLLM parses
them: ``bool(int(text))`` variables refuse ``"true"``, ``.lower() in ("1",
"true")`` variables take any text, ``int(...)`` refuses ``"four"``.
:func:`read_env` reads a whole environment mapping as a user passes it:

* a variable vLLM defines but resolution does not read is accepted, checked the
  way vLLM parses it, and reported in a note ("no effect on config resolution");
* an unknown ``VLLM_*`` name is accepted with a note (a typo is likely: "did you
  mean"); vLLM itself ignores it at this commit;
* a known variable with a bad value is one :class:`InvalidValueError` line.

Fields named in lower case are facts about the mapping itself:
``explicit`` (the variables that were present), ``all2all_backend_set`` and
``use_v1_set`` (vLLM warns/asserts on those when set explicitly). Nothing in
postinit reads ``os.environ`` except :meth:`Env.from_os`.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from postinit.errors import InvalidValueError, did_you_mean, show
from postinit.schema._fields import derived, since, unhashed
from postinit.schema.limits import MAX_ENV, MAX_NAME, MAX_STRING, check_text

__all__ = ["PROCESS_VARS", "Env", "EnvNote", "EnvReading", "EnvVar", "defined_variables", "known_variables", "read_env"]

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_TABLE = "d7fb10c57"

#: process variables the platform hooks write (not read by resolution)
PROCESS_VARS: tuple[str, ...] = (
    "LOCAL_WORLD_SIZE",
    "NUMEXPR_MAX_THREADS",
    "OMP_NUM_THREADS",
    "TORCHINDUCTOR_COMPILE_THREADS",
    "VLLM_DISABLE_SHARED_EXPERTS_STREAM",
    "VLLM_USE_TRITON_AWQ",
)


@dataclass(frozen=True)
class EnvVar:
    """One variable vLLM defines: how it parses the text and which values it allows."""

    name: str
    kind: Literal["bool_int", "bool_text", "int", "int_or_zero", "float", "str", "choice", "choice_list"]
    choices: tuple[str, ...] | None = None
    case_sensitive: bool = True
    strip: bool = False
    true: tuple[str, ...] = ("1", "true")
    source: str = "vllm/envs.py"

    def parse(self, text: str) -> Any:
        """The value vLLM reads from ``text``; ``ValueError`` where vLLM raises one."""
        kind = self.kind
        if kind == "bool_int":
            return bool(_int(text))
        if kind == "bool_text":
            return (text.strip() if self.strip else text).lower() in self.true
        if kind == "int":
            return _int(text)
        if kind == "int_or_zero":  # vllm_is_batch_invariant(): int(val), a ValueError counts as 0
            try:
                return _int(text)
            except ValueError:
                return 0
        if kind == "float":
            return float(text)
        if kind in ("choice", "choice_list") and self.choices is not None:
            values = text.split(",") if kind == "choice_list" else [text]
            allowed = self.choices if self.case_sensitive else tuple(c.lower() for c in self.choices)
            for v in values:
                if (v if self.case_sensitive else v.lower()) not in allowed:
                    raise ValueError(f"valid options: {list(self.choices)}")
        return text


def _int(text: str) -> int:
    if len(text.strip()) > 20:  # int() of a 5000-digit text is a second of work and a bigger error
        raise ValueError("not a 64-bit integer")
    return int(text)


@functools.cache
def defined_variables(table: str = DEFAULT_TABLE) -> frozenset[str]:
    """The names vLLM's envs.py defines at ``table``'s commit (``environment_variables``), and nothing else."""
    data = json.loads((DATA / f"envs-{table}.json").read_text(encoding="utf-8"))
    return frozenset(row["name"] for row in data["variables"])


@functools.cache
def known_variables(table: str = DEFAULT_TABLE) -> dict[str, EnvVar]:
    """Every variable vLLM defines at ``table``'s commit, plus the ones its config code reads directly."""
    data = json.loads((DATA / f"envs-{table}.json").read_text(encoding="utf-8"))
    found: dict[str, EnvVar] = {}
    for row in data["variables"]:
        choices = row.get("choices")
        found[row["name"]] = EnvVar(
            name=row["name"], kind=row["kind"], choices=tuple(choices) if choices else None,
            case_sensitive=row.get("case_sensitive", True), strip=row.get("strip", False),
            true=tuple(row.get("true", ("1", "true"))),
        )
    # read with os.environ/os.getenv outside envs.py by the config code postinit models
    found["VLLM_BATCH_INVARIANT"] = EnvVar(
        "VLLM_BATCH_INVARIANT", "int_or_zero", source="vllm/model_executor/layers/batch_invariant.py")
    found["VLLM_CPU_CI_ENV"] = EnvVar("VLLM_CPU_CI_ENV", "str", source="vllm/platforms/cpu.py")
    for name in PROCESS_VARS:
        found.setdefault(name, EnvVar(name, "str", source="process environment (written by platform hooks)"))
    return found


class Env(BaseModel):
    """The variables config resolution reads, with vLLM's parsing and defaults."""

    model_config = ConfigDict(extra="forbid")

    VLLM_USE_V1: bool = unhashed(True)
    VLLM_USE_SIMPLE_KV_OFFLOAD: bool = since("0.34.0", False)
    VLLM_USE_BREAKABLE_CUDAGRAPH: str | None = since("0.34.0", None, description="raw text; None = unset")
    VLLM_USE_OINK_OPS: bool = since("0.34.0", False)
    VLLM_USE_RUST_FRONTEND: bool = since("0.34.0", False)
    TORCH_COMPILE_DISABLE: str | None = since("0.34.0", None, description="torch's switch; vLLM compares with '1'")
    VLLM_RELOAD_MODE: Literal["layerwise", "direct"] = since("0.34.0", "layerwise")
    VLLM_LORA_ENABLE_DUAL_STREAM: bool = since("0.34.0", False)
    VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS: bool = since("0.34.0", False)
    VLLM_ROCM_USE_AITER_CUSTOM_AR: bool = since("0.34.0", True)
    VLLM_MORI_EP_V2: bool | None = since("0.34.0", None, description="None = unset (prefer EPv2, fall back to EPv1)")
    CUDA_VISIBLE_DEVICES: str | None = since("0.34.0", None, description="raw text; None = unset (--device-ids "
                                             "index its devices)")
    PYTORCH_CUDA_ALLOC_CONF: str | None = since("0.34.0", None, description="torch's allocator settings (raw text; "
                                                "None = unset): expandable_segments:True vs KV connectors")
    NCCL_GRAPH_REGISTER: str | None = since("0.34.0", None, description="NCCL's switch (raw text; None = unset): "
                                            "0.34.0 sets it to 0 for CUDA graphs in the sleep-offloaded pool")
    INKLING_MULTIMEM_AR: str | None = since("0.34.0", None, description="Inkling's multimem all-reduce switch (raw "
                                            "text; None = unset, read as '1'): LoRA for Inkling needs '0'")
    RANK: str | None = unhashed(None, description="torch.distributed's global rank (raw text; None = unset): "
                                "ParallelConfig reads it for an external launcher with data parallelism")
    VLLM_DEBUG_DUMP_PATH: str | None = unhashed(None)
    VLLM_TRACE_FUNCTION: int = unhashed(0)
    VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE: bool = unhashed(False)
    VLLM_WORKER_MULTIPROC_METHOD: Literal["spawn", "fork"] | None = unhashed(
        None, description="raw os.environ value (the seed reads it unparsed); None = unset"
    )
    VLLM_ALL2ALL_BACKEND: Literal[
        "naive",
        "pplx",
        "deepep_high_throughput",
        "deepep_low_latency",
        "allgather_reducescatter",
        "flashinfer_all2allv",
    ] = unhashed("allgather_reducescatter")
    VLLM_MLA_DISABLE: bool = unhashed(False)
    VLLM_ATTENTION_BACKEND: str | None = unhashed(None)
    VLLM_ALLOW_LONG_MAX_MODEL_LEN: bool = unhashed(False)
    VLLM_BATCH_INVARIANT: int = unhashed(0)
    VLLM_ENABLE_V1_MULTIPROCESSING: bool = unhashed(True)
    VLLM_DP_SIZE: int = unhashed(1, ge=1)
    VLLM_DP_RANK: int = unhashed(0, ge=0)
    VLLM_DP_RANK_LOCAL: int | None = unhashed(None, description="None = VLLM_DP_RANK (filled in)")
    VLLM_DP_MASTER_IP: str = unhashed("127.0.0.1")
    VLLM_DP_MASTER_PORT: int = unhashed(0)
    VLLM_ROCM_USE_AITER: bool = unhashed(False)
    VLLM_ROCM_USE_AITER_RMSNORM: bool = unhashed(True)
    VLLM_ROCM_USE_AITER_MHA: bool = unhashed(True)
    VLLM_CPU_KVCACHE_SPACE: int | None = unhashed(None, ge=0, description="GiB; None → 4 GiB")
    VLLM_CPU_CI_ENV: str = unhashed("0")
    VLLM_CPU_OMP_THREADS_BIND: str = unhashed(
        "auto", description="the CPU cores the OpenMP threads bind to ('auto', a core list, or 'nobind': vLLM 0.11.1 "
        "then leaves OMP_NUM_THREADS to the user)")
    VLLM_MM_INPUT_CACHE_GIB: int = unhashed(
        4, description="GiB; deprecated up to 0.11.1: EngineArgs.create_model_config copies a value other than 4 into "
        "mm_processor_cache_gb, with a warning")
    VLLM_COMPILE_CACHE_SAVE_FORMAT: Literal["binary", "unpacked"] | None = unhashed(
        None, description="vLLM 0.11.1 (CompilationConfig.compile_cache_save_format's default); None = unset"
    )
    # process variables written by platform hooks (None = not set)
    NUMEXPR_MAX_THREADS: str | None = unhashed(None)
    OMP_NUM_THREADS: str | None = unhashed(None)
    TORCHINDUCTOR_COMPILE_THREADS: str | None = unhashed(None)
    VLLM_DISABLE_SHARED_EXPERTS_STREAM: str | None = unhashed(None)
    LOCAL_WORLD_SIZE: str | None = unhashed(None)
    VLLM_USE_TRITON_AWQ: str | None = unhashed(None)
    # facts about the mapping
    explicit: list[str] = derived(
        default_factory=list, description="sorted names of the variables that were set"
    )
    all2all_backend_set: bool = derived(False)
    use_v1_set: bool = derived(False)

    @model_validator(mode="after")
    def _fill(self) -> Env:
        if self.VLLM_DP_RANK_LOCAL is None:
            self.VLLM_DP_RANK_LOCAL = self.VLLM_DP_RANK
        self.explicit = sorted(set(self.explicit))
        self.all2all_backend_set = "VLLM_ALL2ALL_BACKEND" in self.explicit
        self.use_v1_set = "VLLM_USE_V1" in self.explicit
        return self

    @classmethod
    def variable_names(cls) -> tuple[str, ...]:
        """The environment variable names this model holds."""
        return tuple(n for n in cls.model_fields if n.isupper())

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str | None]) -> Env:
        """The :class:`Env` of an environment mapping (see :func:`read_env`; its notes are dropped)."""
        return read_env(mapping).env

    @classmethod
    def from_os(cls) -> Env:
        """Build from this process's ``os.environ`` (variables with bad values are left out)."""
        return read_env(dict(os.environ), lenient=True).env


@dataclass(frozen=True)
class EnvNote:
    """Something worth telling about one variable: it has no effect, or vLLM does not define it."""

    name: str
    kind: Literal["no_effect", "unknown", "not_vllm"]
    message: str


@dataclass(frozen=True)
class EnvReading:
    """An environment as vLLM's config resolution sees it: the parsed :class:`Env` and the notes."""

    env: Env
    notes: tuple[EnvNote, ...] = ()


_MODELLED = frozenset(Env.variable_names())
_TEXT_FIELDS = frozenset(
    n for n in _MODELLED if Env.model_fields[n].annotation in (str, str | None)
    or "Literal" in repr(Env.model_fields[n].annotation)
)


_EXTERNAL = ("TORCH_COMPILE_DISABLE", "RANK", "NCCL_GRAPH_REGISTER", "PYTORCH_CUDA_ALLOC_CONF", "INKLING_MULTIMEM_AR")
"""Variables vLLM's config resolution reads that its ``envs.py`` does not define (torch's own, Inkling's)."""


def read_env(mapping: Mapping[Any, Any], *, table: str = DEFAULT_TABLE, lenient: bool = False) -> EnvReading:
    """Read an environment mapping (``None`` = unset) as vLLM at ``table``'s commit would.

    Every variable vLLM defines is accepted and parsed as vLLM parses it; a bad value
    is an :class:`InvalidValueError` (``lenient=True`` leaves it out instead, as for
    the process environment). Unknown names are accepted with a note.
    """
    if not isinstance(mapping, Mapping):
        raise InvalidValueError(f"env must be a mapping of variable names to strings, got {type(mapping).__name__}",
                                path="env", value=None)
    if len(mapping) > MAX_ENV:
        raise InvalidValueError(f"env: {len(mapping)} variables are more than the {MAX_ENV} allowed", path="env")
    known = known_variables(table)
    values: dict[str, Any] = {}
    notes: list[EnvNote] = []
    for key, raw in mapping.items():
        if not isinstance(key, str) or not key:
            raise InvalidValueError(f"env: variable names are non-empty strings, got {show(key)}",
                                    path="env", value=None)
        check_text(key, "env", MAX_NAME)
        if raw is None:
            continue
        if not isinstance(raw, str):
            raise InvalidValueError(
                f"env {key}: values are strings, as in a shell environment (got {type(raw).__name__} {show(raw)}; "
                f"write {show(str(raw))})", path=f"env.{key}", value=None)
        check_text(raw, f"env {key}", MAX_STRING)
        var = known.get(key)
        if var is None and key in _EXTERNAL:
            values[key] = raw  # not a vLLM variable, but vLLM reads it (as text)
            continue
        if var is None:
            if key.startswith("VLLM_"):
                notes.append(EnvNote(key, "unknown", f"{key} is not a vLLM variable at {table}; vLLM ignores it."
                                     + did_you_mean(key, known)))
            continue
        try:
            parsed = var.parse(raw)
        except ValueError as e:
            if lenient:
                continue
            raise InvalidValueError(f"Bad value {show(raw)} for environment variable {key}: {_explain(var, e)}",
                                    path=f"env.{key}", value=raw) from None
        if key in _MODELLED:
            # a text field keeps the text (choices, process variables a hook writes); others take vLLM's value
            values[key] = raw if key in _TEXT_FIELDS else parsed
        else:
            notes.append(EnvNote(key, "no_effect", f"{key} has no effect on config resolution ({var.source})."))
    try:
        env = Env(**values, explicit=sorted(values))
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "?"
        if lenient:
            return read_env({k: v for k, v in mapping.items() if k != name}, table=table, lenient=True)
        raw = mapping.get(name)
        raise InvalidValueError(f"Bad value {show(raw)} for environment variable {name}: {err['msg']}.",
                                path=f"env.{name}", value=raw) from None
    return EnvReading(env, tuple(sorted(notes, key=lambda n: n.name)))


def _explain(var: EnvVar, error: ValueError) -> str:
    if var.kind == "bool_int":
        return "vLLM reads it with bool(int(...)): use 0 or 1."
    if var.kind == "int":
        return "vLLM reads it with int(...): use a whole number."
    if var.kind == "float":
        return "vLLM reads it with float(...): use a number."
    if var.choices is not None:
        return f"allowed values: {', '.join(var.choices)}."
    return str(error)
