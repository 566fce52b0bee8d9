"""``RocmPlatform.check_and_update_config`` (phase ``platform``, step 17, reference §7.5).

Every rule is conditioned on ``platform.kind == "rocm"``. vLLM computes its
"eager execution" guard as ``compilation_config == CUDAGraphMode.NONE``, an
object-vs-enum comparison that is always False, so AITER's ``+rms_norm`` is
appended even under eager execution (I15, made visible by
``quirk.rocm-rms-norm-under-eager``).

The platform modules' rules are mutually exclusive by ``platform.kind``; the
``after`` edges between their writers of one path (block size: ROCm, CPU, CUDA;
worker class: CUDA, ROCm, CPU)
only satisfy the rulebook's ordering check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, rule
from postinit.schema import CUDAGraphMode

__all__ = ["aiter_rms_norm", "block_size_default", "rms_norm_under_eager", "worker_cls"]

_SRC = "vllm/platforms/rocm.py RocmPlatform.check_and_update_config"
_KIND = "platform.kind"
_OPS = "compilation_config.custom_ops"
_AITER_READS = (
    _KIND,
    "env.VLLM_USE_V1",
    "env.VLLM_ROCM_USE_AITER",
    "env.VLLM_ROCM_USE_AITER_RMSNORM",
)


def _aiter_rms_norm(c: Mapping[str, Any]) -> bool:
    return (
        c[_KIND] == "rocm"
        and bool(c["env.VLLM_USE_V1"])
        and bool(c["env.VLLM_ROCM_USE_AITER"])
        and bool(c["env.VLLM_ROCM_USE_AITER_RMSNORM"])
    )


@rule(
    "rocm.block-size-default",
    title="ROCm default KV cache block size 16",
    phase="platform",
    kind="default",
    reads=(_KIND, "cache_config.block_size"),
    writes=("cache_config.block_size",),
    source=f"{_SRC}; ref step-17, 7.5#1",
)
def block_size_default(c: Mapping[str, Any]) -> RuleResult:
    """The ROCm attention backends default to 16-token KV cache blocks."""
    if c[_KIND] == "rocm" and c["cache_config.block_size"] is None:
        return {"cache_config.block_size": 16}
    return None


@rule(
    "rocm.worker-cls",
    title="ROCm worker class",
    phase="platform",
    kind="default",
    reads=(_KIND, "parallel_config.worker_cls"),
    writes=("parallel_config.worker_cls",),
    source=f"{_SRC}; ref step-17, 7.5#2",
)
def worker_cls(c: Mapping[str, Any]) -> RuleResult:
    """ROCm runs the same V1 GPU worker as CUDA when ``worker_cls`` is "auto"."""
    if c[_KIND] == "rocm" and c["parallel_config.worker_cls"] == "auto":
        return {"parallel_config.worker_cls": "vllm.v1.worker.gpu_worker.Worker"}
    return None


@rule(
    "rocm.aiter-rms-norm",
    title="AITER enables the rms_norm custom op",
    phase="platform",
    kind="override",
    reads=(*_AITER_READS, _OPS),
    writes=(_OPS,),
    source=f"{_SRC}; ref step-17, 7.5#3, 13.1:O18, 13.2:I15",
)
def aiter_rms_norm(c: Mapping[str, Any]) -> RuleResult:
    """AITER's rms norm performs best when CUDA graph capture is enabled.

    The intended eager guard never applies (vLLM compares the config object
    with ``CUDAGraphMode.NONE``); only an explicit ``-rms_norm`` stops it.
    Appended without a duplicate check, as vLLM does.
    """
    ops = tuple(c[_OPS])
    if _aiter_rms_norm(c) and "-rms_norm" not in ops:
        return {_OPS: (*ops, "+rms_norm")}
    return None


@rule(
    "quirk.rocm-rms-norm-under-eager",
    title="ROCm adds +rms_norm even without CUDA graphs",
    phase="platform",
    kind="check",
    reads=(*_AITER_READS, _OPS, "compilation_config.cudagraph_mode"),
    source=f"{_SRC}; ref 7.5#3, 13.2:I15",
    level="warning",
)
def rms_norm_under_eager(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's eager guard compares the whole CompilationConfig with ``CUDAGraphMode.NONE`` and is always False."""
    if (
        _aiter_rms_norm(c)
        and "+rms_norm" in c[_OPS]
        and c["compilation_config.cudagraph_mode"] is CUDAGraphMode.NONE
    ):
        return Outcome(
            message="quirk I15: AITER '+rms_norm' was appended to custom_ops although cudagraph_mode is NONE "
            "(eager): vLLM's guard `compilation_config == CUDAGraphMode.NONE` compares a config object "
            "with an enum and is always False."
        )
    return None
