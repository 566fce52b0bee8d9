"""Steps 3-6: the verifications ``VllmConfig.__post_init__`` calls and the quantization config (phase ``verify``).

Step 3 ``ModelConfig.verify_with_parallel_config`` / ``verify_dual_chunk_attention_config``,
step 4 ``CacheConfig.verify_with_parallel_config``, step 5 the LoRA checks,
step 6 ``_get_quantization_config`` (reference §9, §10). The platform's
``verify_quantization`` (``verify.rocm-*``) lives here too but runs in phase
``model_config``: vLLM calls it while the ModelConfig is built.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule, sequence
from postinit.rules.models import KV_HEAD_READS, kv_heads_known, total_num_kv_heads

_MODEL = "vllm/config/model.py ModelConfig"
_VLLM = "vllm/config/vllm.py VllmConfig"
_HT = "model_config.hf_text_config."
_KV_READS = KV_HEAD_READS

PP_SUPPORTED = frozenset({
    "LlamaForCausalLM", "MistralForCausalLM", "MistralModel", "Qwen3ForCausalLM", "Qwen3NextForCausalLM",
    "JambaForCausalLM", "BambaForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "Gemma3ForConditionalGeneration", "Llama4ForCausalLM", "Llama4ForConditionalGeneration", "GptOssForCausalLM",
})
"""Catalog/fixture architectures whose vLLM class implements ``SupportsPP`` (at d7fb10c57)."""
PP_UNSUPPORTED = frozenset({"BertModel", "WhisperForConditionalGeneration", "Mamba2ForCausalLM"})
"""Catalog/fixture architectures without ``SupportsPP``; other architectures are not judged."""


# ---------------------------------------------------------------------------
# step 3: ModelConfig.verify_with_parallel_config
# ---------------------------------------------------------------------------


@rule(
    "verify.external-launcher-seed",
    title="external_launcher needs a seed",
    phase="verify",
    kind="check",
    reads=("model_config", "parallel_config.distributed_executor_backend", "model_config.seed"),
    source=f"{_MODEL}.verify_with_parallel_config; ref step-3, 9:external_launcher",
)
def external_launcher_seed(c: Mapping[str, Any]) -> RuleResult:
    """Every worker samples on its own, so they need one seed to agree."""
    if c["model_config"] and c["parallel_config.distributed_executor_backend"] == "external_launcher" \
            and c["model_config.seed"] is None:
        return Violation("Seed must be set when using external launcher backend to make sure sampling "
                         "results are the same across workers.", error="AssertionError")
    return None


@rule(
    "verify.heads-divisible-by-tp",
    title="Attention heads divisible by tensor parallel size",
    phase="verify",
    kind="check",
    reads=("model_config", "model_config.hf_text_config.num_attention_heads",
           "parallel_config.tensor_parallel_size"),
    source=f"{_MODEL}.verify_with_parallel_config; ref step-3, 9:heads-tp",
)
def heads_divisible_by_tp(c: Mapping[str, Any]) -> RuleResult:
    """Tensor parallelism shards attention heads evenly across ranks."""
    heads = c["model_config.hf_text_config.num_attention_heads"] or 0
    tp = c["parallel_config.tensor_parallel_size"]
    if c["model_config"] and heads % tp != 0:
        return Violation(f"Total number of attention heads ({heads}) must be divisible by tensor parallel "
                         f"size ({tp}).")
    return None


def num_experts(c: Mapping[str, Any]) -> int:
    """``ModelConfig.get_num_experts``: the first expert-count key (first element of a list), else 0."""
    for key in ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts"):
        value = c[_HT + key]
        if value is not None:
            return int(value[0]) if isinstance(value, (list, tuple)) else int(value)
    return 0


@rule(
    "verify.expert-parallel-needs-experts",
    title="Expert parallelism needs a MoE model",
    phase="verify",
    kind="check",
    reads=("model_config", "parallel_config.enable_expert_parallel",
           *(_HT + k for k in ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts"))),
    source=f"{_MODEL}._verify_with_expert_parallelism; ref step-3, 9:expert-parallel",
)
def expert_parallel_needs_experts(c: Mapping[str, Any]) -> RuleResult:
    """Expert parallelism distributes experts; a dense model has none."""
    if c["model_config"] and c["parallel_config.enable_expert_parallel"] and num_experts(c) < 1:
        return Violation("Number of experts in the model must be greater than 0 when expert parallelism "
                         "is enabled.")
    return None


@rule(
    "verify.pipeline-parallel-supported",
    title="Pipeline parallelism only for SupportsPP models",
    phase="verify",
    kind="check",
    reads=("model_config", "parallel_config.pipeline_parallel_size", "model_config.architecture"),
    source=f"{_MODEL}.verify_with_parallel_config; ref step-3, 9:pipeline-parallel",
)
def pipeline_parallel_supported(c: Mapping[str, Any]) -> RuleResult:
    """Only model classes implementing SupportsPP can be split into pipeline stages.

    postinit knows the answer for the catalog and fixture architectures only
    (``PP_SUPPORTED`` / ``PP_UNSUPPORTED``); others pass unjudged.
    """
    if c["model_config"] and c["parallel_config.pipeline_parallel_size"] > 1 \
            and c["model_config.architecture"] in PP_UNSUPPORTED:
        return Violation("Pipeline parallelism is not supported for this model. Supported models implement "
                         "the `SupportsPP` interface.", error="NotImplementedError")
    return None


@rule(
    "verify.dcp-kv-heads",
    title="Decode context parallel vs KV heads (GQA/MQA)",
    phase="verify",
    kind="check",
    reads=("model_config", "model_config.use_mla", "parallel_config.decode_context_parallel_size",
           "parallel_config.tensor_parallel_size", *_KV_READS),
    source=f"{_MODEL}.verify_with_parallel_config; ref step-3, 9:dcp",
)
def dcp_kv_heads(c: Mapping[str, Any]) -> RuleResult:
    """DCP shards the KV cache of replicated KV heads, so TP must exceed the KV heads by the DCP factor."""
    dcp, tp = c["parallel_config.decode_context_parallel_size"], c["parallel_config.tensor_parallel_size"]
    if not c["model_config"] or dcp <= 1 or c["model_config.use_mla"]:
        return None
    if not kv_heads_known(c):
        return Violation("Couldn't determine number of kv heads", error="RuntimeError")
    kv = total_num_kv_heads(c)
    if tp <= kv:
        return Violation(f"tensor parallel size {tp} must be greater than total num kv heads {kv} when enable "
                         "decode context parallel for GQA/MQA", error="AssertionError")
    if kv == 0:  # vLLM's tp // total_num_kv_heads
        return Violation("integer division or modulo by zero", error="ZeroDivisionError",
                         hint="the model config has no attention/KV head count")
    if dcp > tp // kv:
        return Violation(f"decode context parallel size must less than or equal to (tensor parallel size {tp} "
                         f"// total num kv heads {kv}) = {tp // kv}, but got {dcp}", error="AssertionError")
    return None



VERIFY_WITH_PARALLEL_CONFIG = sequence(
    "verify.with-parallel-config",
    external_launcher_seed, heads_divisible_by_tp, expert_parallel_needs_experts, pipeline_parallel_supported,
    dcp_kv_heads,
    title="ModelConfig.verify_with_parallel_config's checks, in its order (the first that fails is raised)",
    source=f"{_MODEL}.verify_with_parallel_config; ref step-3",
)


@rule(
    "verify.dual-chunk-attention",
    title="Dual chunk attention takes the model's sparse attention config",
    phase="verify",
    kind="derive",
    reads=("model_config", "model_config.model", "model_config.hf_config.dual_chunk_attention_config",
           "model_config.hf_config.dir_sparse_attention_config"),
    writes=("model_config.hf_config.dual_chunk_attention_config",),
    source=f"{_MODEL}.verify_dual_chunk_attention_config (weight_utils.get_sparse_attention_config); ref step-3, "
    "9:dual-chunk",
    message="Loaded sparse attention config from {file}",
    level="info",
)
def dual_chunk_attention(c: Mapping[str, Any]) -> RuleResult:
    """A dual-chunk attention model's directory may hold per-head sparse attention patterns: vLLM merges them into
    the hf_config's dual_chunk_attention_config and, unless it says otherwise, enables sparse attention."""
    dca, sparse = c["model_config.hf_config.dual_chunk_attention_config"], \
        c["model_config.hf_config.dir_sparse_attention_config"]
    if not c["model_config"] or dca is None or not sparse:
        return None
    merged = {**dca, "sparse_attention_config": sparse}
    merged.setdefault("sparse_attention_enabled", True)
    return Outcome.log({"model_config.hf_config.dual_chunk_attention_config": merged},
                       file=posixpath.join(c["model_config.model"], "sparse_attention_config.json"))


# ---------------------------------------------------------------------------
# step 4: CacheConfig.verify_with_parallel_config
# ---------------------------------------------------------------------------


@rule(
    "verify.swap-space",
    title="Swap space vs host memory",
    phase="verify",
    kind="check",
    reads=("cache_config.swap_space", "parallel_config.tensor_parallel_size", "platform.host_memory_gb"),
    source="vllm/config/cache.py CacheConfig.verify_with_parallel_config; ref step-4, 9:swap-space",
    message=("Possibly too large swap space. {used:.2f} GiB out of the {total:.2f} GiB total CPU memory is "
             "allocated for the swap space."),
    level="warning",
)
def swap_space(c: Mapping[str, Any]) -> RuleResult:
    """Swap space is pinned host memory per GPU of a TP group (assumed on one node)."""
    used = c["cache_config.swap_space"] * c["parallel_config.tensor_parallel_size"]
    total = c["platform.host_memory_gb"]
    msg = f"{used:.2f} GiB out of the {total:.2f} GiB total CPU memory is allocated for the swap space."
    if used > 0.7 * total:
        return Violation("Too large swap space. " + msg)
    if used > 0.4 * total:
        return Outcome.log(used=used, total=total)
    return None


# ---------------------------------------------------------------------------
# step 5: LoRA
# ---------------------------------------------------------------------------


@rule(
    "verify.lora-cpu-offload-v0",
    title="V0 LoRA cannot use CPU offload",
    phase="verify",
    kind="check",
    reads=("lora_config", "cache_config.cpu_offload_gb", "env.VLLM_USE_V1"),
    source="vllm/config/lora.py LoRAConfig.verify_with_cache_config; ref step-5, 9:lora-cache",
)
def lora_cpu_offload_v0(c: Mapping[str, Any]) -> RuleResult:
    """The V0 LoRA kernels cannot read offloaded weights."""
    if c["lora_config"] and c["cache_config.cpu_offload_gb"] > 0 and not c["env.VLLM_USE_V1"]:
        return Violation("V0 LoRA does not support CPU offload, please use V1.")
    return None


@rule(
    "verify.lora-dtype",
    title="LoRA dtype auto follows the model dtype",
    phase="verify",
    kind="default",
    reads=("lora_config", "lora_config.lora_dtype", "model_config", "model_config.dtype"),
    writes=("lora_config.lora_dtype",),
    source="vllm/config/lora.py LoRAConfig.verify_with_model_config; ref step-5, 9:lora-model, 2.7",
)
def lora_dtype(c: Mapping[str, Any]) -> RuleResult:
    """Adapters compute in the model's dtype unless told otherwise."""
    if not c["lora_config"] or c["lora_config.lora_dtype"] not in (None, "auto"):
        return None
    if not c["model_config"]:
        return Violation("'NoneType' object has no attribute 'dtype'", error="AttributeError",
                         hint="LoRA with lora_dtype 'auto' needs a model_config")
    return {"lora_config.lora_dtype": c["model_config.dtype"]}


# ---------------------------------------------------------------------------
# step 6: quantization (§10)
# ---------------------------------------------------------------------------

_BF16, _FP16, _FP32 = "torch.bfloat16", "torch.float16", "torch.float32"
QUANT_METHODS: dict[str, tuple[str, int, tuple[str, ...]]] = {
    "fp8": ("Fp8Config", 80, (_BF16, _FP16)),
    "fbgemm_fp8": ("FBGEMMFp8Config", 80, (_BF16, _FP16)),
    "awq": ("AWQConfig", 75, (_FP16,)),
    "awq_marlin": ("AWQMarlinConfig", 80, (_FP16, _BF16)),
    "gptq": ("GPTQConfig", 60, (_FP16,)),
    "gptq_marlin": ("GPTQMarlinConfig", 80, (_FP16, _BF16)),
    "compressed-tensors": ("CompressedTensorsConfig", 70, (_FP32, _FP16, _BF16)),
    "bitsandbytes": ("BitsAndBytesConfig", 70, (_FP32, _FP16, _BF16)),
    "gguf": ("GGUFConfig", 60, (_FP16, _BF16, _FP32)),
    "mxfp4": ("Mxfp4Config", 80, (_BF16,)),
    "modelopt": ("ModelOptFp8Config", 89, (_BF16, _FP16)),
    "modelopt_fp4": ("ModelOptNvFp4Config", 80, (_BF16, _FP16, "torch.float8_e4m3fn")),
    "ipex": ("IPEXConfig", -1, (_BF16, _FP16)),
}
"""method -> (vLLM class, get_min_capability(), get_supported_act_dtypes()) at d7fb10c57."""
ROCM_QUANT = ("awq", "gptq", "fp8", "compressed-tensors", "fbgemm_fp8", "gguf", "quark", "ptpc_fp8", "mxfp4",
              "petit_nvfp4", "torchao")
"""``RocmPlatform.supported_quantization``."""
_QREADS = ("model_config", "model_config.quantization", "model_config.hf_config.quantization_config",
           "model_config.hf_config.text_config", "model_config.hf_config.compression_config")
_TORCH = {"bfloat16": _BF16, "float16": _FP16, "half": _FP16, "float32": _FP32, "float": _FP32}


def _hf_quant_cfg(c: Mapping[str, Any]) -> Mapping[str, Any] | None:
    cfg = c["model_config.hf_config.quantization_config"]
    text = c["model_config.hf_config.text_config"]
    if cfg is None and text:
        cfg = text.get("quantization_config")
    out: Mapping[str, Any] | None = cfg if cfg is not None else c["model_config.hf_config.compression_config"]
    return out


def quant_method(c: Mapping[str, Any]) -> str | None:
    """``model_config.quantization``, or the checkpoint's method as ``ModelConfig._verify_quantization`` detects it.

    ``quant_method`` lower-cased, compressed_tensors -> compressed-tensors,
    ModelOpt FP8 -> modelopt, NVFP4 -> modelopt_fp4 (the model rule's overrides, AWQ Marlin and IPEX
    among them, have already written ``model_config.quantization``).
    """
    if c["model_config.quantization"] is not None:
        return str(c["model_config.quantization"]).lower()
    cfg = _hf_quant_cfg(c)
    if not cfg:
        return None
    method = str(cfg.get("quant_method", "")).lower().replace("compressed_tensors", "compressed-tensors")
    if method == "modelopt":
        inner = cfg.get("quantization")
        algo = str((inner if isinstance(inner, Mapping) else cfg).get("quant_algo", ""))
        method = "modelopt" if "FP8" in algo else "modelopt_fp4" if "NVFP4" in algo else method
    return method or None


QUANT_CONFIG_FILES: dict[str, tuple[str, ...]] = {
    "auto-round": ("quantization_config.json",), "awq": ("quant_config.json", "quantize_config.json"),
    "awq_marlin": ("quantize_config.json",), "bitblas": ("quantize_config.json",),
    "deepspeedfp": ("quant_config.json", "quantize_config.json"), "gptq": ("quantize_config.json",),
    "gptq_bitblas": ("quantize_config.json",), "gptq_marlin": ("quantize_config.json",),
    "gptq_marlin_24": ("quantize_config.json",), "hqq": ("quantize_config.json",),
    "ipex": ("quant_config.json", "quantize_config.json"), "modelopt": ("hf_quant_config.json",),
    "modelopt_fp4": ("hf_quant_config.json",), "moe_wna16": ("quantize_config.json",),
    "petit_nvfp4": ("hf_quant_config.json",),
}
"""Each quantization method's ``get_config_filenames()`` (the seed and 0.11.1; read from the oracles' venvs): the
file a checkpoint of that method carries its config in when config.json does not. Methods not listed name none
(fp8, bitsandbytes, compressed-tensors, ...): their config is built without a file."""


QUANT_FILE_READS = ("model_config.model", "model_config.hf_overrides", "model_config.hf_config.dir_json_files")
"""What :func:`quant_config_file_problem` reads beyond the quantization reads."""


def quant_config_file_problem(c: Mapping[str, Any], method: str, files: Mapping[str, tuple[str, ...]],
                              without_file: tuple[str, ...] = (), mixed_falls_through: bool = False) -> Violation | None:
    """The refusal of get_quant_config (called by ``verify.quant-config`` for ``method``, the config's quantization)
    when the method's config file is missing or ambiguous.

    ``--quantization awq`` on a checkpoint whose config.json has no quantization_config: vLLM globs the model
    directory's *.json for the method's config file (a name ending in one of its filenames) and refuses none or
    several, before it checks the GPU or the dtype.

    ``without_file``: methods that fall back to an online quantization when no file is found (vLLM 0.34.0's
    shorthands). ``mixed_falls_through``: a modelopt_mixed checkpoint config without ``quantized_layers`` is read
    from the file instead (0.34.0). A model that is not a local directory (a catalog id) is not checked: vLLM
    would download the hub's *.json files, which postinit never does.
    """
    names = c["model_config.hf_config.dir_json_files"]
    if names is None:
        return None
    wanted = files.get(method, ())
    if not wanted or method in without_file:
        return None
    cfg = _hf_quant_cfg(c)
    if cfg is not None and not (mixed_falls_through and method == "modelopt_mixed" and "quantized_layers" not in cfg):
        return None
    overrides = c["model_config.hf_overrides"]
    if isinstance(overrides, Mapping) and ("quantization_config_file" in overrides
                                           or "quantization_config_dict_json" in overrides):
        return None
    folder = str(c["model_config.model"])
    found = [posixpath.join(folder, n) for n in names if any(n.endswith(w) for w in wanted)]
    if not found:
        return Violation(f"Cannot find the config file for {method}",
                         hint=f"put the checkpoint's {' or '.join(wanted)} beside config.json, or drop --quantization")
    if len(found) > 1:
        return Violation(f"Found multiple config files for {method}: {found}")
    return None


@rule(
    "verify.quant-config",
    title="Quantization config from the checkpoint",
    phase="verify",
    kind="derive",
    reads=(*_QREADS, "quant_config", *QUANT_FILE_READS),
    writes=("quant_config", "quant_config.method", "quant_config.class_name", "quant_config.min_capability",
            "quant_config.weight_block_size"),
    source=f"{_VLLM}._get_quantization_config (get_quant_config); ref step-6, 10",
)
def quant_config(c: Mapping[str, Any], *,
                 methods: Mapping[str, tuple[str, int, tuple[str, ...]]] = QUANT_METHODS,
                 files: Mapping[str, tuple[str, ...]] = QUANT_CONFIG_FILES) -> RuleResult:
    """A quantized checkpoint needs its method's config object to build the layers.

    Only when no quant_config was given; ``weight_block_size`` is the FP8
    config's (step 24 reads it).
    """
    if c["quant_config"] or not c["model_config"]:
        return None
    method = quant_method(c)
    if method is None:
        return None
    if c["model_config.quantization"] is not None:
        problem = quant_config_file_problem(c, method, files)
        if problem is not None:
            return problem
    cls, cap, _ = methods.get(method, (None, None, ()))
    cfg = _hf_quant_cfg(c) or {}
    block = cfg.get("weight_block_size") if method == "fp8" else None
    return {"quant_config": True, "quant_config.method": method, "quant_config.class_name": cls,
            "quant_config.min_capability": cap, "quant_config.weight_block_size": block}


@rule(
    "verify.quant-capability",
    title="Quantization method vs GPU capability",
    phase="verify",
    kind="check",
    reads=("quant_config", "quant_config.method", "quant_config.min_capability", "platform.capability",
           "platform.is_cuda_alike"),
    source=f"{_VLLM}._get_quantization_config; ref step-6, 10",
)
def quant_capability(c: Mapping[str, Any]) -> RuleResult:
    """Quantized kernels need a minimum compute capability (skipped where the platform reports none, e.g. CPU)."""
    cap, need = c["platform.capability"], c["quant_config.min_capability"]
    if not c["quant_config"] or not c["platform.is_cuda_alike"] or cap is None or need is None:
        return None
    if cap < need:
        return Violation(f"The quantization method {c['quant_config.method']} is not supported for the current "
                         f"GPU. Minimum capability: {need}. Current capability: {cap}.")
    return None


@rule(
    "verify.quant-act-dtype",
    title="Quantization method vs model dtype",
    phase="verify",
    kind="check",
    reads=("quant_config", "quant_config.method", "model_config.dtype"),
    source=f"{_VLLM}._get_quantization_config; ref step-6, 10, 13.1:O7",
)
def quant_act_dtype(c: Mapping[str, Any], *,
                    methods: Mapping[str, tuple[str, int, tuple[str, ...]]] = QUANT_METHODS) -> RuleResult:
    """Quantized kernels support only some activation dtypes.

    Checked on the dtype before the platform hook; the CPU hook may change it
    later (reference O7), which is then a stale read of this rule.
    """
    method = c["quant_config.method"]
    if not c["quant_config"] or method not in methods:
        return None
    supported = methods[method][2]
    dtype = _TORCH.get(c["model_config.dtype"], c["model_config.dtype"])
    if dtype not in supported:
        return Violation(f"{dtype} is not supported for quantization method {method}. Supported dtypes: "
                         f"[{', '.join(supported)}]")
    return None



@rule(
    "verify.modelopt-checkpoint-warning",
    title="A ModelOpt FP8 / NVFP4 checkpoint's quantization config warns that the format is experimental",
    phase="verify",
    kind="check",
    reads=("quant_config", "quant_config.method", *_QREADS),
    source=f"{_VLLM}._get_quantization_config (get_quant_config builds it first), "
    "vllm/model_executor/layers/quantization/modelopt.py ModelOptFp8Config / ModelOptNvFp4Config __init__; ref step-6",
    message="Detected ModelOpt {kind} checkpoint. Please note that the format is experimental and could change{tail}.",
    level="warning",
)
def modelopt_checkpoint_warning(c: Mapping[str, Any]) -> RuleResult:
    """The config class warns when the checkpoint is serialized in its format (``quant_algo`` FP8 / NVFP4, in
    hf_quant_config.json's nested ``quantization`` or flat)."""
    method = c["quant_config.method"]
    if not c["quant_config"] or method not in ("modelopt", "modelopt_fp4"):
        return None
    cfg = _hf_quant_cfg(c) or {}
    inner = cfg.get("quantization")
    algo = str((inner if isinstance(inner, Mapping) else cfg).get("quant_algo", "") or "")
    if method == "modelopt" and "FP8" in algo:
        return Outcome.log(kind="fp8", tail="")
    if method == "modelopt_fp4" and "NVFP4" in algo:
        return Outcome.log(kind="NVFP4", tail=" in future")
    return None


QUANTIZATION_CONFIG = sequence(
    "verify.quantization-config", modelopt_checkpoint_warning, quant_capability, quant_act_dtype,
    title="_get_quantization_config: the GPU's capability, then the model dtype",
    source=f"{_VLLM}._get_quantization_config; ref step-6",
)


@rule(
    "verify.rocm-quant-allowlist",
    title="ROCm supports a fixed list of quantization methods",
    phase="model_config",
    kind="check",
    reads=(*_QREADS, "platform.is_rocm"),
    source="vllm/platforms/interface.py Platform.verify_quantization; ref 10",
)
def rocm_quant_allowlist(c: Mapping[str, Any], *, allowed: tuple[str, ...] = ROCM_QUANT) -> RuleResult:
    """Only these methods have ROCm kernels.

    ``ModelConfig._verify_quantization`` asks the platform, so the check runs while the
    ModelConfig is built (phase ``model_config``, stage ``model_config``: golden t037), after
    the max-model-len log and before the bitsandbytes / CUDA-graph checks. Its id keeps the
    ``verify.`` prefix it was published with.
    """
    if not c["platform.is_rocm"] or not c["model_config"]:
        return None
    method = quant_method(c)
    if method is not None and method not in allowed:
        return Violation(f"{method} quantization is currently not supported in rocm.")
    return None


@rule(
    "verify.rocm-triton-awq",
    title="ROCm: VLLM_USE_TRITON_AWQ=1 for quantized models",
    phase="model_config",
    kind="override",
    reads=(*_QREADS, "platform.is_rocm", "env.VLLM_USE_TRITON_AWQ"),
    writes=("env.VLLM_USE_TRITON_AWQ",),
    source="vllm/platforms/rocm.py RocmPlatform.verify_quantization; ref 10",
    message="Using AWQ quantization with ROCm, but VLLM_USE_TRITON_AWQ is not set, enabling VLLM_USE_TRITON_AWQ.",
    level="warning",
)
def rocm_triton_awq(c: Mapping[str, Any], *, allowed: tuple[str, ...] = ROCM_QUANT) -> RuleResult:
    """AWQ on ROCm runs the Triton kernels; vLLM sets the variable for every quantized model, not only AWQ
    (``allowed``: the platform's ``supported_quantization``)."""
    if not c["platform.is_rocm"] or not c["model_config"]:
        return None
    method = quant_method(c)
    if method is None or method not in allowed:
        return None
    before = c["env.VLLM_USE_TRITON_AWQ"]
    if method == "awq" and before in (None, "", "0"):
        return Outcome.log({"env.VLLM_USE_TRITON_AWQ": "1"})
    return Outcome({"env.VLLM_USE_TRITON_AWQ": "1"}, message="") if before != "1" else None  # silently
