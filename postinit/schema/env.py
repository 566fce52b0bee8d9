"""The environment variables resolution reads (vLLM's ``envs``) and writes.

:class:`Env` holds the ``VLLM_*`` variables vLLM's config resolution reads,
typed and defaulted as vLLM parses them, plus the process variables the
platform hooks write (``str | None``, ``None`` = not set). Build it with
:meth:`Env.from_mapping` or :meth:`Env.from_os`; nothing else in postinit
reads ``os.environ``.

Fields named in lower case are facts about the mapping itself:
``explicit`` (the variables that were present), ``all2all_backend_set`` and
``use_v1_set`` (vLLM warns/asserts on those when set explicitly).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator

from postinit.errors import InvalidValueError, UnknownFieldError, did_you_mean
from postinit.schema._fields import derived, unhashed

__all__ = ["IGNORED_VLLM_VARS", "PROCESS_VARS", "Env"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _env_bool(value: Any) -> Any:
    """Parse "0"/"1"/"true"/"false" (any case) like vLLM's bool(int(...)) and "true"/"1" checks."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(f"expected 0/1/true/false, got {value!r}")
    return value


def _empty_is_none(value: Any) -> Any:
    if isinstance(value, str) and value.strip() == "":
        return None
    return value


EnvBool = Annotated[bool, BeforeValidator(_env_bool)]
OptInt = Annotated[int | None, BeforeValidator(_empty_is_none)]
OptStr = Annotated[str | None, BeforeValidator(_empty_is_none)]

#: process variables the platform hooks write (not read by resolution)
PROCESS_VARS: tuple[str, ...] = (
    "LOCAL_WORLD_SIZE",
    "NUMEXPR_MAX_THREADS",
    "OMP_NUM_THREADS",
    "TORCHINDUCTOR_COMPILE_THREADS",
    "VLLM_DISABLE_SHARED_EXPERTS_STREAM",
    "VLLM_USE_TRITON_AWQ",
)

#: real vLLM variables that do not affect config resolution: accepted and ignored
IGNORED_VLLM_VARS: frozenset[str] = frozenset(
    {
        "VLLM_CACHE_ROOT",
        "VLLM_CONFIG_ROOT",
        "VLLM_CONFIGURE_LOGGING",
        "VLLM_LOGGING_LEVEL",
        "VLLM_LOGGING_CONFIG_PATH",
        "VLLM_LOGGING_PREFIX",
        "VLLM_LOG_STATS_INTERVAL",
        "VLLM_NO_USAGE_STATS",
        "VLLM_DO_NOT_TRACK",
        "VLLM_USAGE_SOURCE",
        "VLLM_USAGE_STATS_SERVER",
        "VLLM_HOST_IP",
        "VLLM_PORT",
        "VLLM_RPC_BASE_PATH",
        "VLLM_RPC_TIMEOUT",
        "VLLM_USE_MODELSCOPE",
        "VLLM_TARGET_DEVICE",
        "VLLM_MAIN_CUDA_VERSION",
        "VLLM_ENGINE_ITERATION_TIMEOUT_S",
        "VLLM_API_KEY",
        "VLLM_DEBUG_LOG_API_SERVER_RESPONSE",
        "VLLM_ASSETS_CACHE",
        "VLLM_IMAGE_FETCH_TIMEOUT",
        "VLLM_VIDEO_FETCH_TIMEOUT",
        "VLLM_AUDIO_FETCH_TIMEOUT",
        "VLLM_XLA_CACHE_PATH",
        "VLLM_SERVER_DEV_MODE",
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING",
        "VLLM_TORCH_PROFILER_DIR",
        "VLLM_PLUGINS",
    }
)


class Env(BaseModel):
    """The ``VLLM_*`` (and process) variables, with vLLM's parsing and defaults."""

    model_config = ConfigDict(extra="forbid")

    VLLM_USE_V1: EnvBool = unhashed(True)
    VLLM_DEBUG_DUMP_PATH: OptStr = unhashed(None)
    VLLM_TRACE_FUNCTION: int = unhashed(0)
    VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE: EnvBool = unhashed(False)
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
    VLLM_MLA_DISABLE: EnvBool = unhashed(False)
    VLLM_ATTENTION_BACKEND: OptStr = unhashed(None)
    VLLM_ALLOW_LONG_MAX_MODEL_LEN: EnvBool = unhashed(False)
    VLLM_BATCH_INVARIANT: int = unhashed(0)
    VLLM_ENABLE_V1_MULTIPROCESSING: EnvBool = unhashed(True)
    VLLM_DP_SIZE: int = unhashed(1, ge=1)
    VLLM_DP_RANK: int = unhashed(0, ge=0)
    VLLM_DP_RANK_LOCAL: OptInt = unhashed(None, description="None = VLLM_DP_RANK (filled in)")
    VLLM_DP_MASTER_IP: str = unhashed("127.0.0.1")
    VLLM_DP_MASTER_PORT: int = unhashed(0)
    VLLM_ROCM_USE_AITER: EnvBool = unhashed(False)
    VLLM_ROCM_USE_AITER_RMSNORM: EnvBool = unhashed(True)
    VLLM_CPU_KVCACHE_SPACE: OptInt = unhashed(None, ge=0, description="GiB; None → 4 GiB")
    VLLM_CPU_CI_ENV: str = unhashed("0")
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
    def from_mapping(cls, mapping: Mapping[str, str | None], *, strict: bool = True) -> Env:
        """Build from an environment mapping; unknown ``VLLM_*`` keys are errors when ``strict``.

        A ``None`` value means "unset" (the variable is skipped).
        """
        known = cls.variable_names()
        values: dict[str, Any] = {}
        for key, value in mapping.items():
            if value is None:
                continue
            if key in known:
                values[key] = value
            elif key.startswith("VLLM_") and key not in IGNORED_VLLM_VARS and strict:
                raise UnknownFieldError(
                    f"Unknown environment variable {key!r}: postinit models {', '.join(n for n in known if n.startswith('VLLM_'))}."
                    + did_you_mean(key, known),
                    path=f"env.{key}",
                    value=value,
                )
        try:
            return cls(**values, explicit=sorted(values))
        except ValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0]) if err["loc"] else "?"
            raise InvalidValueError(
                f"Bad value {values.get(name)!r} for environment variable {name}: {err['msg']}.",
                path=f"env.{name}",
                value=values.get(name),
            ) from exc

    @classmethod
    def from_os(cls) -> Env:
        """Build from this process's ``os.environ`` (unknown ``VLLM_*`` variables are ignored)."""
        return cls.from_mapping(dict(os.environ), strict=False)
