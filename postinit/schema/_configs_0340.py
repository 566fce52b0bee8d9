"""The config classes vLLM 0.34.0 added (sub-configs of ``VllmConfig`` and nested objects), as pydantic models.

Every field is ``since("0.34.0")``: absent from the versions before it. Names, defaults and
``Literal`` choices are the ``vllm==0.34.0`` wheel's (``site-packages/vllm/config/*.py``),
read by introspection of its dataclasses; a type vLLM declares as one of its enums or
classes is ``Any`` here (the oracle reports enum members by name).
"""

# No ``from __future__ import annotations``: see postinit/schema/configs.py.
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from postinit.schema._fields import since

__all__ = [
    "AttentionConfig",
    "AuxOutputConfig",
    "DiffusionConfig",
    "DynamicShapesConfig",
    "ECTransferConfig",
    "EncoderCacheManagerConfig",
    "EngramConfig",
    "FaultToleranceConfig",
    "HiSparseConfig",
    "IrOpPriorityConfig",
    "KernelConfig",
    "LoggingConfig",
    "MambaConfig",
    "OffloadConfig",
    "PrefetchOffloadConfig",
    "ProfilerConfig",
    "ReasoningConfig",
    "UVAOffloadConfig",
    "WatchdogConfig",
    "WatermarkConfig",
    "WeightTransferConfig",
]

_FORBID = ConfigDict(extra="forbid")


class HiSparseConfig(BaseModel):
    """vLLM 0.34.0's ``HiSparseConfig`` (vllm/config/attention.py)."""

    model_config = _FORBID

    device_buffer_size: int | None = since("0.34.0", None)
    eager_host_mirror: bool = since("0.34.0", True)


class AttentionConfig(BaseModel):
    """vLLM 0.34.0's ``AttentionConfig`` (vllm/config/attention.py)."""

    model_config = _FORBID

    backend: Any = since("0.34.0", None)
    backend_per_kind: dict[str, Any] = since("0.34.0", default_factory=dict)
    disable_flashinfer_q_quantization: bool = since("0.34.0", False)
    flash_attn_max_num_splits_for_cuda_graph: int = since("0.34.0", 32)
    flash_attn_version: Literal[2, 3, 4] | None = since("0.34.0", None)
    flex_attn_block_m: int | None = since("0.34.0", None)
    flex_attn_block_n: int | None = since("0.34.0", None)
    flex_attn_kv_block_size: int | None = since("0.34.0", None)
    flex_attn_q_block_size: int | None = since("0.34.0", None)
    hisparse_config: HiSparseConfig | None = since("0.34.0", None)
    indexer_decode_cp: bool = since("0.34.0", False)
    indexer_kv_dtype: Any = since("0.34.0", 'auto')
    indexer_logits_dtype: Literal['auto', 'float32', 'bfloat16'] = since("0.34.0", 'auto')
    indexer_sparse_logits: bool | None = since("0.34.0", None)
    indexer_tp_shard_min_rows: int | None = since("0.34.0", None)
    minimax_m3_indexer_cp: bool = since("0.34.0", False)
    minimax_m3_msa_decode_backend: Literal['triton', 'cutlass'] = since("0.34.0", 'cutlass')
    mla_prefill_backend: Any = since("0.34.0", None)
    sparse_mla_force_mqa: bool = since("0.34.0", False)
    sparse_mla_prefill_workspace_factor: int | None = since("0.34.0", None)
    sparse_mla_shard_q: bool = since("0.34.0", True)
    sparse_mla_shard_q_min_tokens: int = since("0.34.0", 1024)
    tokenspeed_mla_min_split_kv: int = since("0.34.0", 1)
    tq_max_kv_splits_for_cuda_graph: int = since("0.34.0", 32)
    trtllm_ragged_backend: Literal['trtllm-gen', 'cute-dsl'] = since("0.34.0", 'trtllm-gen')
    use_non_causal: bool = since("0.34.0", False)
    use_prefill_query_quantization: bool = since("0.34.0", False)
    use_trtllm_attention: bool | None = since("0.34.0", None)


class AuxOutputConfig(BaseModel):
    """vLLM 0.34.0's ``AuxOutputConfig`` (vllm/config/aux_output.py)."""

    model_config = _FORBID

    enable_return_routed_experts: bool = since("0.34.0", False)
    max_bytes: int | None = since("0.34.0", None)


class EngramConfig(BaseModel):
    """vLLM 0.34.0's ``EngramConfig`` (vllm/config/engram.py)."""

    model_config = _FORBID

    cpu_offload: bool = since("0.34.0", True)
    disk_offload: bool = since("0.34.0", False)
    dp_shared_memory: bool | None = since("0.34.0", None)
    embedding_across_dp: bool = since("0.34.0", False)
    use_thp: bool = since("0.34.0", False)


class MambaConfig(BaseModel):
    """vLLM 0.34.0's ``MambaConfig`` (vllm/config/mamba.py)."""

    model_config = _FORBID

    backend: Any = since("0.34.0", 'TRITON')
    enable_stochastic_rounding: bool = since("0.34.0", False)
    ssu_algorithm: Literal['auto', 'simple', 'vertical', 'horizontal'] | None = since("0.34.0", None)
    stochastic_rounding_philox_rounds: int = since("0.34.0", 0)


def _op_list(value: Any) -> Any:
    """``IrOpPriorityConfig._to_list_str`` (vllm/config/kernel.py:66-73): a comma-separated text is a list."""
    return value.replace(" ", "").split(",") if isinstance(value, str) else value


def _normalized_name(value: Any) -> Any:
    """KernelConfig's name normalisers of its four backend-name fields (vllm/config/kernel.py:431-457): lower case,
    '-' as '_' (a name already normal is returned itself, so that the config builder vouches for it:
    engine._builder)."""
    if not isinstance(value, str):
        return value
    normal = value.lower().replace("-", "_")
    return value if normal == value else normal


OpList = Annotated[list[Any], BeforeValidator(_op_list)]


class IrOpPriorityConfig(BaseModel):
    """vLLM 0.34.0's ``IrOpPriorityConfig`` (vllm/config/kernel.py)."""

    model_config = _FORBID

    fused_add_rms_norm: OpList = since("0.34.0", default_factory=list)
    gelu_and_mul_sparse: OpList = since("0.34.0", default_factory=list)
    rms_norm: OpList = since("0.34.0", default_factory=list)


class KernelConfig(BaseModel):
    """vLLM 0.34.0's ``KernelConfig`` (vllm/config/kernel.py)."""

    model_config = _FORBID

    enable_cutedsl_warmup: bool = since("0.34.0", True)
    enable_flashinfer_autotune: bool | None = since("0.34.0", None)
    enable_jit_warmup: bool = since("0.34.0", True)
    enable_rocm_aiter_gemm_warmup: bool = since("0.34.0", False)
    enable_rocm_segmented_attn_autotune: bool = since("0.34.0", False)
    ir_op_priority: IrOpPriorityConfig = since("0.34.0", default_factory=IrOpPriorityConfig)
    linear_backend: Annotated[Literal['auto', 'cutlass', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_trtllm', 'flashinfer_cudnn', 'flashinfer_b12x', 'b12x', 'marlin', 'humming', 'triton', 'deep_gemm', 'torch', 'aiter', 'machete', 'fbgemm', 'conch', 'exllama', 'emulation', 'xpu', 'xpu_woq'], BeforeValidator(_normalized_name)] = since("0.34.0", 'auto')
    linear_backend_per_quant: dict[str, Any] | None = since("0.34.0", None)
    moe_backend: Annotated[Literal['auto', 'triton', 'batched_triton', 'deep_gemm', 'deep_gemm_mega_moe', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_moe_ep_cutedsl', 'flashinfer_b12x', 'b12x', 'flashinfer_moe_ep_mega_deep_gemm', 'marlin', 'humming', 'triton_unfused', 'aiter', 'aiter_mega_moe', 'aiter_triton_mxfp4_bf16', 'aiter_triton_mxfp4_mxfp4', 'flydsl', 'hpc', 'emulation', 'rdna3'], BeforeValidator(_normalized_name)] = since("0.34.0", 'auto')
    monokernel: bool = since("0.34.0", False)
    rdna_hybrid_w4a16_prefill_dequant: Annotated[Literal['enable', 'disable'], BeforeValidator(_normalized_name)] = \
        since("0.34.0", 'disable')
    sparse_indexer_topk_backend: Annotated[Literal['auto', 'deep_select', 'cooperative', 'persistent', 'per_row', 'flashinfer', 'torch', 'aiter'], BeforeValidator(_normalized_name)] = since("0.34.0", 'auto')


class WatermarkConfig(BaseModel):
    """vLLM 0.34.0's ``WatermarkConfig`` (vllm/config/watermarking.py)."""

    model_config = _FORBID

    algorithm: Literal['gumbel', 'dual_key_gumbel'] = since("0.34.0", 'gumbel')
    allow_target_only_watermarking: bool = since("0.34.0", False)
    alpha: float = since("0.34.0", 0.1)
    context_width: int = since("0.34.0", 4)
    deduplicate_contexts: Literal['none', 'single_turn', 'all'] = since("0.34.0", 'single_turn')
    deduplicate_contexts_max_history: int | None = since("0.34.0", 8192)
    enforce: bool = since("0.34.0", False)
    key: int | None = since("0.34.0", None)
    prf: Literal['philox'] = since("0.34.0", 'philox')


class DiffusionConfig(BaseModel):
    """vLLM 0.34.0's ``DiffusionConfig`` (vllm/config/diffusion.py)."""

    model_config = _FORBID

    canvas_length: int | None = since("0.34.0", None)
    max_denoising_steps: int | None = since("0.34.0", None)


class LoggingConfig(BaseModel):
    """vLLM 0.34.0's ``LoggingConfig`` (vllm/config/logging.py)."""

    model_config = _FORBID

    configure_logging: bool = since("0.34.0", False)
    formatter: Literal['text', 'json'] = since("0.34.0", 'text')
    log_level: Literal['CRITICAL', 'ERROR', 'WARNING', 'INFO', 'DEBUG', 'NOTSET'] = since("0.34.0", 'INFO')
    pylogging_config_file: str | None = since("0.34.0", None)


class ProfilerConfig(BaseModel):
    """vLLM 0.34.0's ``ProfilerConfig`` (vllm/config/profiler.py)."""

    model_config = _FORBID

    active_iterations: int = since("0.34.0", 5)
    capture_torch_profiler: bool = since("0.34.0", False)
    delay_iterations: int = since("0.34.0", 0)
    detailed_trace_annotation: bool = since("0.34.0", False)
    ignore_frontend: bool = since("0.34.0", False)
    max_iterations: int = since("0.34.0", 0)
    profiler: Literal['torch', 'cuda', 'proton'] | None = since("0.34.0", None)
    proton_backend: Literal['cupti'] | None = since("0.34.0", None)
    proton_context: Literal['shadow', 'python'] = since("0.34.0", 'shadow')
    proton_data: Literal['tree', 'trace'] = since("0.34.0", 'tree')
    proton_graph_attribution: bool = since("0.34.0", False)
    proton_hook: Literal['triton'] | None = since("0.34.0", None)
    proton_mode: str | None = since("0.34.0", None)
    proton_output_format: Literal['hatchet', 'hatchet_msgpack', 'chrome_trace'] | None = since("0.34.0", None)
    proton_profiler_dir: str = since("0.34.0", '')
    torch_profiler_activities: list[Literal["CPU", "CUDA", "PrivateUse1", "XPU"]] | None = since("0.34.0", None)
    torch_profiler_dir: str = since("0.34.0", '')
    torch_profiler_dump_cuda_time_total: bool = since("0.34.0", True)
    torch_profiler_record_shapes: bool = since("0.34.0", False)
    torch_profiler_use_gzip: bool = since("0.34.0", True)
    torch_profiler_with_flops: bool = since("0.34.0", False)
    torch_profiler_with_memory: bool = since("0.34.0", False)
    torch_profiler_with_stack: bool = since("0.34.0", True)
    wait_iterations: int = since("0.34.0", 0)
    warmup_iterations: int = since("0.34.0", 0)


class ECTransferConfig(BaseModel):
    """vLLM 0.34.0's ``ECTransferConfig`` (vllm/config/ec_transfer.py)."""

    model_config = _FORBID

    ec_buffer_device: str | None = since("0.34.0", 'cuda')
    ec_buffer_size: float = since("0.34.0", 1000000000.0)
    ec_connector: str | None = since("0.34.0", None)
    ec_connector_extra_config: dict[str, Any] = since("0.34.0", default_factory=dict)
    ec_connector_module_path: str | None = since("0.34.0", None)
    ec_ip: str = since("0.34.0", '127.0.0.1')
    ec_port: int = since("0.34.0", 14579)
    ec_role: Literal['ec_producer', 'ec_both', 'ec_consumer'] | None = since("0.34.0", None)
    engine_id: str | None = since("0.34.0", None)
    mm_encoder_output_widths: dict[str, Any] = since("0.34.0", default_factory=dict, derived=True)


class EncoderCacheManagerConfig(BaseModel):
    """vLLM 0.34.0's ``EncoderCacheManagerConfig`` (vllm/config/ec_manager_config.py)."""

    model_config = _FORBID

    encoder_cache_manager_cls: str | None = since("0.34.0", None)
    manager_config: dict[str, Any] = since("0.34.0", default_factory=dict)


class ReasoningConfig(BaseModel):
    """vLLM 0.34.0's ``ReasoningConfig`` (vllm/config/reasoning.py)."""

    model_config = _FORBID

    reasoning_end_str: str = since("0.34.0", '')
    reasoning_parser: str = since("0.34.0", '')
    reasoning_start_str: str = since("0.34.0", '')


class WeightTransferConfig(BaseModel):
    """vLLM 0.34.0's ``WeightTransferConfig`` (vllm/config/weight_transfer.py)."""

    model_config = _FORBID

    backend: Any = since("0.34.0", 'nccl')


class WatchdogConfig(BaseModel):
    """vLLM 0.34.0's ``WatchdogConfig`` (vllm/config/watchdog_config.py)."""

    model_config = _FORBID

    check_interval: int = since("0.34.0", 10)
    dump_dir: str = since("0.34.0", '')
    timeout: int = since("0.34.0", 300)


class UVAOffloadConfig(BaseModel):
    """vLLM 0.34.0's ``UVAOffloadConfig`` (vllm/config/offload.py)."""

    model_config = _FORBID

    cpu_offload_gb: float = since("0.34.0", 0)
    cpu_offload_params: list[str] = since("0.34.0", default_factory=list)


class PrefetchOffloadConfig(BaseModel):
    """vLLM 0.34.0's ``PrefetchOffloadConfig`` (vllm/config/offload.py)."""

    model_config = _FORBID

    offload_group_size: int = since("0.34.0", 0)
    offload_num_in_group: int = since("0.34.0", 1)
    offload_params: list[str] = since("0.34.0", default_factory=list)
    offload_prefetch_step: int = since("0.34.0", 1)


class OffloadConfig(BaseModel):
    """vLLM 0.34.0's ``OffloadConfig`` (vllm/config/offload.py)."""

    model_config = _FORBID

    offload_backend: Literal['auto', 'uva', 'prefetch'] = since("0.34.0", 'auto')
    prefetch: PrefetchOffloadConfig = since("0.34.0", default_factory=PrefetchOffloadConfig)
    uva: UVAOffloadConfig = since("0.34.0", default_factory=UVAOffloadConfig)


class DynamicShapesConfig(BaseModel):
    """vLLM 0.34.0's ``DynamicShapesConfig`` (vllm/config/compilation.py)."""

    model_config = _FORBID

    assume_32_bit_indexing: bool = since("0.34.0", False)
    evaluate_guards: bool = since("0.34.0", False)
    type: Any = since("0.34.0", 'backed')


class FaultToleranceConfig(BaseModel):
    """vLLM 0.34.0's ``FaultToleranceConfig`` (vllm/config/parallel.py)."""

    model_config = _FORBID

    engine_recovery_timeout_sec: int = since("0.34.0", 120)


