"""vLLM 0.34.0's smaller sub-configs and platform hooks, as a part of its delta over 0.11.1 (``delta_parts`` in
versions.json).

The checks and warnings of the watermark, encoder-cache-manager, attention and LoRA configs' own validators, and
ROCm's DeepSeek-V4 indexer default, found by issue 30's coverage cases (golden k450-k549). Each rule names the
lines of the ``vllm==0.34.0`` wheel whose statement it mirrors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.versions import Delta

__all__ = ["DELTA"]

_REF = "ref v0.34.0"
_WM = "watermark_config"
_MIN_DEDUP_HISTORY = 1024
"""``_MIN_RECOMMENDED_DEDUP_HISTORY`` (vllm/config/watermarking.py:16)."""

_GUMBEL_DEDUP = (
    f"Gumbel-max watermarking with context deduplication disabled or limited to fewer than {_MIN_DEDUP_HISTORY} "
    "positions may increase the frequency of degenerate generations, including repetition loops. Use "
    f"deduplicate_contexts='single_turn' or 'all' with deduplicate_contexts_max_history at least {_MIN_DEDUP_HISTORY} "
    "or null to mitigate this."
)


@rule(
    "watermark.key-64-bit",
    title="A Philox watermark key fits in 64 bits",
    phase="sub_configs",
    kind="check",
    reads=(_WM, f"{_WM}.key"),
    source="vllm/config/watermarking.py WatermarkConfig.validate_watermark_settings (:71-72); " + _REF,
    message="philox keys must fit in 64 bits",
)
def watermark_key_64_bit(c: Mapping[str, Any]) -> RuleResult:
    """The only PRF is Philox, whose key is a 64-bit integer (the field's own bound is ``ge=0``)."""
    key = c[f"{_WM}.key"]
    if c[_WM] and isinstance(key, int) and key > 2**64 - 1:
        return Violation("philox keys must fit in 64 bits")
    return None


@rule(
    "watermark.gumbel-dedup-warning",
    title="Gumbel-max watermarking warns when context deduplication is off or searches fewer than 1024 positions",
    phase="sub_configs",
    kind="check",
    reads=(_WM, f"{_WM}.algorithm", f"{_WM}.deduplicate_contexts", f"{_WM}.deduplicate_contexts_max_history"),
    source="vllm/config/watermarking.py WatermarkConfig.validate_watermark_settings (:73-88); " + _REF,
    message=_GUMBEL_DEDUP,
    level="warning",
)
def watermark_gumbel_dedup_warning(c: Mapping[str, Any]) -> RuleResult:
    """A repeated context sampled with the watermark makes the same choice again (both algorithms are Gumbel-max)."""
    if not c[_WM] or c[f"{_WM}.algorithm"] not in ("gumbel", "dual_key_gumbel"):
        return None
    history = c[f"{_WM}.deduplicate_contexts_max_history"]
    if c[f"{_WM}.deduplicate_contexts"] == "none" or (history is not None and history < _MIN_DEDUP_HISTORY):
        return Outcome.log({})
    return None


@rule(
    "ec-manager.config-needs-class",
    title="An encoder cache manager's config needs the manager's class",
    phase="sub_configs",
    kind="check",
    reads=("ec_manager_config.encoder_cache_manager_cls", "ec_manager_config.manager_config"),
    source="vllm/config/ec_manager_config.py EncoderCacheManagerConfig.__post_init__ (:19-23); " + _REF,
    message="manager_config requires encoder_cache_manager_cls to be set.",
)
def ec_manager_config_needs_class(c: Mapping[str, Any]) -> RuleResult:
    """The config is opaque: only the custom class it names interprets it."""
    if c["ec_manager_config.encoder_cache_manager_cls"] is None and c["ec_manager_config.manager_config"]:
        return Violation("manager_config requires encoder_cache_manager_cls to be set.")
    return None


_ROWS_DEPRECATED = ("indexer_tp_shard_min_rows is deprecated and has no effect since sparse_mla_shard_q replaced "
                    "indexer TP row sharding. It will be removed in v0.34.0.")


@rule(
    "attention.indexer-tp-shard-min-rows-deprecated",
    title="attention_config.indexer_tp_shard_min_rows is deprecated and has no effect",
    phase="sub_configs",
    kind="check",
    reads=("attention_config.indexer_tp_shard_min_rows",),
    source="vllm/config/attention.py AttentionConfig.__post_init__ (:221-227); " + _REF,
    message=_ROWS_DEPRECATED,
    level="warning",
)
def indexer_tp_shard_min_rows_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """sparse_mla_shard_q replaced the indexer's TP row sharding; the value is kept and read by nothing."""
    return Outcome.log({}) if c["attention_config.indexer_tp_shard_min_rows"] is not None else None


_DUAL = "env.VLLM_LORA_ENABLE_DUAL_STREAM"
_DUAL_SHARDED = ("fully_sharded_loras isn't compatible with VLLM_LORA_ENABLE_DUAL_STREAM, set "
                 "VLLM_LORA_ENABLE_DUAL_STREAM=False")


@rule(
    "lora.dual-stream-platform",
    title="LoRA's dual CUDA streams (VLLM_LORA_ENABLE_DUAL_STREAM) need a CUDA or ROCm platform",
    phase="sub_configs",
    kind="check",
    reads=("lora_config", _DUAL, "platform.kind"),
    after=("lora.max-cpu-loras-check",),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config (:121-122); " + _REF,
    message="Dual CUDA streams are only supported on CUDA platforms.",
)
def lora_dual_stream_platform(c: Mapping[str, Any]) -> RuleResult:
    """``current_platform.is_cuda_alike()``: CUDA or ROCm."""
    if c["lora_config"] and c[_DUAL] and c["platform.kind"] not in ("cuda", "rocm"):
        return Violation("Dual CUDA streams are only supported on CUDA platforms.")
    return None


@rule(
    "lora.dual-stream-fully-sharded",
    title="Fully sharded LoRAs turn LoRA's dual CUDA streams off",
    phase="sub_configs",
    kind="check",
    reads=("lora_config", _DUAL, "lora_config.fully_sharded_loras", "platform.kind"),
    after=("lora.dual-stream-platform",),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config (:123-128); " + _REF,
    message=_DUAL_SHARDED,
    level="warning",
)
def lora_dual_stream_fully_sharded(c: Mapping[str, Any]) -> RuleResult:
    """vLLM then sets its own ``envs.VLLM_LORA_ENABLE_DUAL_STREAM`` to False, which only the LoRA layers read at
    runtime (no config code does)."""
    if c["lora_config"] and c[_DUAL] and c["lora_config.fully_sharded_loras"] \
            and c["platform.kind"] in ("cuda", "rocm"):
        return Outcome.log({})
    return None


_IDX = "attention_config.indexer_kv_dtype"
_MXFP4_INDEXER = ("DeepSeek-V4 on ROCm CDNA4: using aiter's paged MXFP4 sparse indexer K cache by default. Pass "
                  "--attention-config '{{\"indexer_kv_dtype\": \"fp8\"}}' to use the FP8 indexer cache.")


@rule(
    "rocm.dsv4-mxfp4-indexer",
    title="DeepSeek-V4 on ROCm CDNA4 (gfx950) with AITER defaults its sparse indexer K cache to MXFP4",
    phase="platform",
    kind="override",
    reads=("platform.kind", "platform.gcn_arch", "platform.aiter_found", "env.VLLM_ROCM_USE_AITER",
           "model_config", "model_config.hf_config.model_type", _IDX, "attention_config.indexer_sparse_logits",
           "parallel_config.decode_context_parallel_size", "parallel_config.prefill_context_parallel_size"),
    writes=(_IDX,),
    source="vllm/platforms/rocm.py _maybe_default_dsv4_mxfp4_indexer (:393-423), called by "
    "RocmPlatform.check_and_update_config (:1229); ref step-17, " + _REF,
    message=_MXFP4_INDEXER,
    level="info",
)
def rocm_dsv4_mxfp4_indexer(c: Mapping[str, Any]) -> RuleResult:
    """Only "auto" is rewritten, and only where aiter's MXFP4 indexer runs: CDNA4 (``get_cdna_version() == 4``,
    gfx950), no DCP/PCP (its metadata builder refuses them), ``rocm_aiter_ops.is_enabled()`` (VLLM_ROCM_USE_AITER
    with the aiter package on gfx9)."""
    if c["platform.kind"] != "rocm" or c["model_config"] is None \
            or c["model_config.hf_config.model_type"] != "deepseek_v4":
        return None
    if c[_IDX] != "auto" or c["attention_config.indexer_sparse_logits"] \
            or not str(c["platform.gcn_arch"] or "").startswith("gfx950") \
            or c["parallel_config.decode_context_parallel_size"] > 1 \
            or c["parallel_config.prefill_context_parallel_size"] > 1:
        return None
    if not (c["platform.aiter_found"] and c["env.VLLM_ROCM_USE_AITER"]):
        return None
    return Outcome.log({_IDX: "mxfp4"})


@rule(
    "device.device-type",
    title="DeviceConfig.device_type from the platform ('auto') or the given device; a device given as None has none",
    phase="sub_configs",
    kind="derive",
    reads=("device_config.device", "platform.device_type"),
    writes=("device_config.device_type", "device_config.device"),
    source="vllm/config/device.py DeviceConfig.__post_init__ (:36-68); ref 2.5, " + _REF,
    level="debug",
)
def device_type(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 asks the platform only for 'auto'; a device that is neither text nor a ``torch.device`` (None) leaves
    ``device_type`` unset, and the platform check after it (:61-63) reads it: an AttributeError."""
    device = c["device_config.device"]
    if device is None:
        return Violation("'DeviceConfig' object has no attribute 'device_type'", error="AttributeError")
    dtype = c["platform.device_type"] if device == "auto" else device
    if not dtype:
        return Violation("Failed to infer device type, please set the environment variable "
                         "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.",
                         error="RuntimeError")
    return {"device_config.device_type": dtype, "device_config.device": None if dtype == "tpu" else dtype}


_AT = "attention_config."


@rule(
    "attention.backend-names",
    title="The MLA prefill backend and the backends per KV cache group kind given as text are enum members",
    phase="sub_configs",
    kind="derive",
    reads=(_AT + "mla_prefill_backend", _AT + "backend_per_kind"),
    writes=(_AT + "mla_prefill_backend", _AT + "backend_per_kind"),
    source="vllm/config/attention.py AttentionConfig.validate_mla_prefill_backend_before (:292-298), "
    "validate_backend_per_kind_before (:300-324); " + _REF,
)
def attention_backend_names(c: Mapping[str, Any]) -> RuleResult:
    """Both field validators look a name up as ``Enum[name.upper()]`` (the oracle reports the member's name).
    Partial model: a name that is no member is not refused."""
    out: dict[str, Any] = {}
    mla = c[_AT + "mla_prefill_backend"]
    if isinstance(mla, str) and mla != mla.upper():
        out[_AT + "mla_prefill_backend"] = mla.upper()
    per_kind = c[_AT + "backend_per_kind"]
    if isinstance(per_kind, Mapping):
        # a null backend is AttentionBackendEnum's member of value None, CUSTOM (pydantic's enum check by value)
        named = {k: v.upper() if isinstance(v, str) else "CUSTOM" if v is None else v for k, v in per_kind.items()}
        if named != dict(per_kind):
            out[_AT + "backend_per_kind"] = named
    return Outcome(out, message="") if out else None


_IR = "kernel_config.ir_op_priority."
_IR_OPS = ("rms_norm", "fused_add_rms_norm", "gelu_and_mul_sparse")
"""IrOpPriorityConfig's fields in declaration order (vllm/config/kernel.py), the order ``asdict`` walks them."""
_IR_DEPRECATED = ("ir_op_priority (--ir-op-priority) is deprecated because vLLM IR is being removed. It will be "
                  "removed in v0.34.0.")


def _ops(value: Any) -> tuple[str, ...]:
    """A priority as IrOpPriorityConfig keeps it: a comma-separated text is a list (``_to_list_str``)."""
    if isinstance(value, str):
        return tuple(value.replace(" ", "").split(","))
    return tuple(value or ())


@rule(
    "engine-args.ir-op-priority",
    title="--ir-op-priority moves into the kernel config's IR op priority (an op given in both is refused), and "
    "any IR op priority is deprecated",
    phase="sub_configs",
    kind="override",
    reads=("usage.via_engine_args", "usage.ir_op_priority", *(_IR + op for op in _IR_OPS)),
    writes=tuple(_IR + op for op in _IR_OPS),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (:2844-2860); " + _REF,
    message=_IR_DEPRECATED,
    level="warning",
)
def ir_op_priority_flag(c: Mapping[str, Any]) -> RuleResult:
    """Empty means unset; the warning is vLLM IR's removal notice, whichever of the two set the priority."""
    if not c["usage.via_engine_args"]:
        return None
    given = c["usage.ir_op_priority"] or {}
    out: dict[str, Any] = {}
    for op in _IR_OPS:
        flag = _ops(given.get(op))
        if not flag:
            continue
        if c[_IR + op]:
            return Violation(f"Op priority for {op} specified via both ir_op_priority and "
                             "KernelConfig.ir_op_priority, only one allowed at a time.")
        out[_IR + op] = flag
    if out or any(c[_IR + op] for op in _IR_OPS):
        return Outcome.log(out)
    return None


_PACKED_KV_WARNING = ("{name} is not yet compatible with FlashAttention >= 3. Overriding flash_attn_version to 2. To "
                      "silence this warning, pass --attention-config.flash_attn_version=2")


def _boundary_layers(num_layers: Any, n: int = 2) -> list[str]:
    """``TurboQuantConfig.get_boundary_skip_layers`` of a dense model: the first and last ``n`` layers (at most half
    of them), as text (vllm/model_executor/layers/quantization/turboquant/config.py:178-213)."""
    if not isinstance(num_layers, int) or n <= 0 or num_layers <= 0:
        return []
    n = min(n, num_layers // 2)
    return [str(i) for i in sorted(set(range(n)) | set(range(num_layers - n, num_layers)))]


@rule(
    "engine-args.packed-kv-cache",
    title="A TurboQuant / UltraQuant KV cache keeps the boundary layers at the native dtype and runs FlashAttention 2",
    phase="sub_configs",
    kind="override",
    reads=("usage.via_engine_args", "model_config", "cache_config.cache_dtype", "cache_config.kv_cache_dtype_skip_layers",
           "model_config.is_hybrid", "model_config.hf_text_config.num_hidden_layers",
           "attention_config.flash_attn_version"),
    writes=("cache_config.kv_cache_dtype_skip_layers", "attention_config.flash_attn_version"),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (:2368-2385, :2789-2804); " + _REF,
    message=_PACKED_KV_WARNING,
    level="warning",
)
def packed_kv_cache(c: Mapping[str, Any]) -> RuleResult:
    """Partial model: a hybrid model's boundary protection (off, with an info record naming its full-attention
    layers) is not modelled."""
    dtype = str(c["cache_config.cache_dtype"] or "")
    if not c["usage.via_engine_args"] or c["model_config"] is None \
            or not (dtype.startswith("turboquant_") or dtype == "ultraquant_4bit") or c["model_config.is_hybrid"]:
        return None
    out: dict[str, Any] = {}
    given = tuple(c["cache_config.kv_cache_dtype_skip_layers"] or ())
    layers = tuple(sorted({*map(str, given), *_boundary_layers(c["model_config.hf_text_config.num_hidden_layers"])}))
    if layers != given:
        out["cache_config.kv_cache_dtype_skip_layers"] = layers
    version = c["attention_config.flash_attn_version"]
    if version is None or version >= 3:
        out["attention_config.flash_attn_version"] = 2
        return Outcome.log(out, name="TurboQuant" if dtype.startswith("turboquant_") else "UltraQuant")
    return Outcome(out, message="") if out else None


DELTA = Delta(add=(watermark_key_64_bit, watermark_gumbel_dedup_warning, ec_manager_config_needs_class,
                   indexer_tp_shard_min_rows_deprecated, lora_dual_stream_platform, lora_dual_stream_fully_sharded,
                   rocm_dsv4_mxfp4_indexer, attention_backend_names, ir_op_priority_flag,
                   packed_kv_cache),
              flags_added=("ir_op_priority",),
              replace=(device_type,),
              fields_added=("env.VLLM_LORA_ENABLE_DUAL_STREAM", "env.VLLM_ROCM_USE_AITER_CUSTOM_AR",
                            "env.VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS"))
"""The sub-config and platform-hook part of vLLM 0.34.0's delta over 0.11.1 (issue 30's coverage cases)."""
