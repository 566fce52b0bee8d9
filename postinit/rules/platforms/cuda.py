"""``CudaPlatformBase.check_and_update_config`` (phase ``platform``, step 17, reference §7.4).

Every rule is conditioned on ``platform.kind == "cuda"``. The MLA rows (7.4#3)
pick an attention backend and size the KV cache block for it; on exactly
SM 10.0 with ``VLLM_ATTENTION_BACKEND`` unset vLLM assigns the process-wide
``envs.VLLM_ATTENTION_BACKEND = "CUTLASS_MLA"``, which is a write to the
``env.VLLM_ATTENTION_BACKEND`` fact here (O21: later configs in the same
process would see it as if the user had set it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import RuleResult, rule
from postinit.schema import CUDAGraphMode

__all__ = [
    "block_size_default",
    "deepep_ht_disables_cudagraph",
    "mla_backend_default",
    "mla_block_size_cutlass",
    "mla_block_size_flashinfer",
    "mla_block_size_flashmla",
    "mla_block_size_sparse",
    "worker_cls",
]

_SRC = "vllm/platforms/cuda.py CudaPlatformBase.check_and_update_config"
_KIND = "platform.kind"
_BS = "cache_config.block_size"
_BACKEND = "env.VLLM_ATTENTION_BACKEND"
_MLA_READS = (_KIND, "model_config", "model_config.use_mla", _BS)


def _mla(c: Mapping[str, Any]) -> bool:
    """The MLA block is entered: CUDA, a model that uses MLA, a block size set."""
    return (
        c[_KIND] == "cuda"
        and c["model_config"] is not None
        and bool(c["model_config.use_mla"])
        and c[_BS] is not None
    )


def _backend(c: Mapping[str, Any]) -> str:
    """The MLA backend vLLM's flags select: the env value, or FLASHMLA/CUTLASS_MLA by default."""
    value = c[_BACKEND]
    if value is None:
        return "CUTLASS_MLA" if c["platform.capability"] == 100 else "FLASHMLA"
    return str(value)


@rule(
    "cuda.worker-cls",
    title="CUDA worker class",
    phase="platform",
    kind="default",
    reads=(_KIND, "parallel_config.worker_cls"),
    writes=("parallel_config.worker_cls",),
    source=f"{_SRC}; ref step-17, 7.4#1",
)
def worker_cls(c: Mapping[str, Any]) -> RuleResult:
    """GPU platforms run the V1 GPU worker when the user left ``worker_cls`` at "auto"."""
    if c[_KIND] == "cuda" and c["parallel_config.worker_cls"] == "auto":
        return {"parallel_config.worker_cls": "vllm.v1.worker.gpu_worker.Worker"}
    return None


@rule(
    "cuda.block-size-default",
    title="CUDA default KV cache block size 16",
    phase="platform",
    kind="default",
    reads=(_KIND, _BS),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.4#2",
)
def block_size_default(c: Mapping[str, Any]) -> RuleResult:
    """The CUDA attention backends default to 16-token KV cache blocks."""
    if c[_KIND] == "cuda" and c[_BS] is None:
        return {_BS: 16}
    return None


@rule(
    "cuda.mla-backend-default",
    title="MLA on SM 10.0 selects CUTLASS_MLA process-wide",
    phase="platform",
    kind="default",
    reads=(*_MLA_READS, "platform.capability", _BACKEND),
    writes=(_BACKEND,),
    source=f"{_SRC}; ref step-17, 7.4#3, 13.1:O21",
    message="Blackwell (SM 10.0) with an MLA model and VLLM_ATTENTION_BACKEND unset: "
    "vLLM sets envs.VLLM_ATTENTION_BACKEND = 'CUTLASS_MLA' for the rest of the process.",
    level="debug",
)
def mla_backend_default(c: Mapping[str, Any]) -> RuleResult:
    """Blackwell (exactly SM 10.0) forces CutlassMLA when no backend was chosen.

    vLLM assigns the module attribute ``envs.VLLM_ATTENTION_BACKEND``, so every
    later config in the same process sees CUTLASS_MLA as if the user set it.
    """
    if _mla(c) and c[_BACKEND] is None and c["platform.capability"] == 100:
        return {_BACKEND: "CUTLASS_MLA"}
    return None


@rule(
    "cuda.mla-block-size-flashmla",
    title="FlashMLA needs block size multiple of 64",
    phase="platform",
    kind="override",
    reads=(*_MLA_READS, "platform.capability", "platform.flashmla_available", _BACKEND),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.4#3",
    message="Forcing kv cache block size to 64 for FlashMLA backend.",
    level="info",
)
def mla_block_size_flashmla(c: Mapping[str, Any]) -> RuleResult:
    """FlashMLA's dense kernels (built, Hopper only) work on 64-token pages."""
    if not _mla(c) or _backend(c) != "FLASHMLA":
        return None
    cap = c["platform.capability"]
    dense = bool(c["platform.flashmla_available"]) and cap is not None and cap // 10 == 9
    if dense and c[_BS] % 64 != 0:
        return {_BS: 64}
    return None


@rule(
    "cuda.mla-block-size-cutlass",
    title="CUTLASS_MLA needs block size multiple of 128",
    phase="platform",
    kind="override",
    reads=(*_MLA_READS, "platform.capability", _BACKEND),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.4#3",
    message="Forcing kv cache block size to 128 for CUTLASS_MLA backend.",
    level="info",
)
def mla_block_size_cutlass(c: Mapping[str, Any]) -> RuleResult:
    """The CUTLASS MLA kernels (Blackwell) work on 128-token pages."""
    if _mla(c) and _backend(c) == "CUTLASS_MLA" and c[_BS] % 128 != 0:
        return {_BS: 128}
    return None


@rule(
    "cuda.mla-block-size-flashinfer",
    title="FLASHINFER_MLA needs block size 32 or a multiple of 64",
    phase="platform",
    kind="override",
    reads=(*_MLA_READS, _BACKEND),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.4#3",
    message="Forcing kv cache block size to 64 for FlashInferMLA backend.",
    level="info",
)
def mla_block_size_flashinfer(c: Mapping[str, Any]) -> RuleResult:
    """FlashInfer's MLA kernels accept 32-token pages or multiples of 64."""
    if _mla(c) and c[_BACKEND] == "FLASHINFER_MLA" and c[_BS] != 32 and c[_BS] % 64 != 0:
        return {_BS: 64}
    return None


@rule(
    "cuda.mla-block-size-sparse",
    title="Sparse MLA (index_topk) needs block size 64",
    phase="platform",
    kind="override",
    reads=(*_MLA_READS, "model_config.hf_config.index_topk"),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.4#3",
    message="Forcing kv cache block size to 64 for FlashMLASparse backend.",
    level="info",
)
def mla_block_size_sparse(c: Mapping[str, Any]) -> RuleResult:
    """FlashMLASparse (models with an ``index_topk`` indexer, DeepSeek-V3.2) only supports 64-token pages.

    vLLM tests ``hasattr(hf_config, "index_topk")``; here the fact is present when not None.
    """
    if _mla(c) and c["model_config.hf_config.index_topk"] is not None and c[_BS] != 64:
        return {_BS: 64}
    return None


@rule(
    "cuda.deepep-ht-disables-cudagraph",
    title="DeepEP high-throughput with DP > 1 disables CUDA graphs",
    phase="platform",
    kind="override",
    reads=(
        _KIND,
        "parallel_config.all2all_backend",
        "parallel_config.data_parallel_size",
        "compilation_config.cudagraph_mode",
    ),
    writes=("compilation_config.cudagraph_mode",),
    source=f"{_SRC}; ref step-17, 7.4#4, 13.1:O12",
    message="WideEP: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized for "
    "prefill and are incompatible with CUDA Graphs. In order to use CUDA Graphs for "
    "decode-optimized workloads, use --all2all-backend with another option, such as "
    "deepep_low_latency, pplx, or allgather_reducescatter.",
    level="info",
)
def deepep_ht_disables_cudagraph(c: Mapping[str, Any]) -> RuleResult:
    """DeepEP high-throughput kernels are optimized for prefill and cannot be captured in CUDA graphs.

    The capture sizes computed in step 12d stay (I1).
    """
    mode = c["compilation_config.cudagraph_mode"]
    if (
        c[_KIND] == "cuda"
        and c["parallel_config.all2all_backend"] == "deepep_high_throughput"
        and c["parallel_config.data_parallel_size"] > 1
        and mode is not CUDAGraphMode.NONE
    ):
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.NONE}
    return None
