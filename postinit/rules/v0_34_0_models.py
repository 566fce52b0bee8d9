"""vLLM 0.34.0's model-specific decisions, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

The version's delta is declared in two modules joined by :func:`postinit.rules.delta.combine`:
:mod:`postinit.rules.v0_34_0` (compilation and CUDA graphs, EngineArgs, errors, the parser,
parallel, KV, scheduler, platforms) and this one (hybrid / Mamba models, the pooler config,
multimodal / encoder-decoder models, speculative decoding, quantization facts and the model
hooks of ``vllm/model_executor/models/config.py``). No two parts edit the same rule.

What the model registry says of each architecture (hybrid, attention-free, inner state,
multimodal, pooling, its attention type and default pooling types) is data:
``postinit/rules/data/model-registry-0.34.0.json``, printed from the wheel by
``tests/golden/oracle/registry_0340.py`` and named by the fact ``version.model_registry``.

Sources (``source=``) are files of the ``vllm==0.34.0`` wheel (``site-packages/vllm/``); every
rule here carries the reference tag ``v0.34.0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule, sequence
from postinit.rules import model_config as mc
from postinit.rules import models
from postinit.rules import speculative as spec
from postinit.rules import v0_34_0_hooks as hooks
from postinit.rules import v0_34_0_spec as mtp034
from postinit.rules.verify import (
    QUANT_FILE_READS,
    _hf_quant_cfg,
    quant_config_file_problem,
    quant_method,
)
from postinit.rules.versions import Delta, patch

__all__ = ["DELTA"]

_M = "model_config."
_H = "model_config.hf_config."
_MODELS = "vllm/model_executor/models/config.py"
_MODEL = "vllm/config/model.py ModelConfig"
_APC = "cache_config.enable_prefix_caching"
_MODE = "cache_config.mamba_cache_mode"
_MBS = "cache_config.mamba_block_size"
_REF = "ref v0.34.0"


# =========================================================================== the model class (phase model_config)


@rule(
    "model.class-interfaces",
    title="hybrid / attention-free / inner-state flags of the model class",
    phase="model_config",
    kind="derive",
    reads=(*mc.INFO_READS, _H + "layer_types"),
    writes=(_M + "is_hybrid", _M + "is_attention_free", _M + "has_inner_state"),
    source=f"{_MODEL}.is_hybrid, is_attention_free, has_inner_state (vllm/config/model.py:2061-2085); "
    f"vllm/model_executor/models/registry.py _ModelInfo; {_REF}",
)
def class_interfaces(c: Mapping[str, Any]) -> RuleResult:
    """The model class's IsHybrid, IsAttentionFree and HasInnerState markers (0.34.0's registry).

    A hybrid config whose ``layer_types`` are all attention (``attention`` or ``full_attention``,
    granite-4.0-micro) is not hybrid. SupportsMambaPrefixCaching is gone: every Mamba model follows
    prefix caching (``cache_config.mamba_cache_mode``).
    """
    info = mc.resolved_info(c) if c["model_config"] else None
    if info is None:
        return None
    layers = c[_H + "layer_types"]
    hybrid = info.hybrid and (layers is None or not all(t in ("attention", "full_attention") for t in layers))
    return {_M + "is_hybrid": hybrid, _M + "is_attention_free": info.attention_free,
            _M + "has_inner_state": info.inner_state}


@rule(
    "model.head-dtype",
    title="dtype of the lm_head / classifier (a property: read after resolution, so nothing is logged)",
    phase="model_config",
    kind="derive",
    reads=("model_config", _M + "dtype", _M + "runner_type", _H + "head_dtype", "platform.supported_dtypes"),
    writes=(_M + "head_dtype",),
    source=f"{_MODEL}.head_dtype (vllm/config/model.py:2143-2170; _get_head_dtype, vllm/config/model.py:2565-2586); "
    f"{_REF}",
)
def head_dtype(c: Mapping[str, Any]) -> RuleResult:
    """Pooling models default to a float32 head; a generation model may ask for one too (hf_config.head_dtype,
    for RL training-inference consistency); a head dtype the platform lacks falls back to the model dtype.
    0.34.0's config code never reads the property, so its warning is not part of config resolution."""
    if not c["model_config"]:
        return None
    dtype, supported = c[_M + "dtype"], c["platform.supported_dtypes"]
    raw = c[_H + "head_dtype"]
    if raw == "model":
        head = dtype
    elif raw is not None:
        head = mc.dtype_name(str(raw))
    elif "float32" not in supported:
        head = dtype
    else:
        head = "float32" if c[_M + "runner_type"] == "pooling" else dtype
    return {_M + "head_dtype": head if head in supported else dtype}


# =========================================================================== the pooler config (phase model_config)

_PC = "model_config.pooler_config."
_SEQ_TYPES = ("CLS", "LAST", "MEAN")
_TOK_TYPES = ("ALL", "STEP")
_POOLER = "vllm/config/pooler.py PoolerConfig"


@rule(
    "model.pooler-logit-sigma-nonzero",
    title="PoolerConfig: a logit_sigma of 0 would divide the calibrated logits by zero",
    phase="model_config",
    kind="check",
    reads=("model_config", _PC + "logit_sigma"),
    source=f"{_POOLER}.__post_init__ (vllm/config/pooler.py:141-142); {_REF}",
    message="logit_sigma cannot be 0 (division by zero)",
)
def pooler_logit_sigma_nonzero(c: Mapping[str, Any]) -> RuleResult:
    """Platt scaling divides the centred logits by logit_sigma: 0 is refused before the pooling types are
    resolved (the first statement of PoolerConfig.__post_init__)."""
    sigma = c[_PC + "logit_sigma"] if c["model_config"] else None
    if sigma is not None and sigma == 0:
        return Violation("logit_sigma cannot be 0 (division by zero)", hint="leave logit_sigma unset or non-zero")
    return None


@rule(
    "model.pooler-pooling-type",
    title="PoolerConfig: pooling_type is a sequence or a token pooling type",
    phase="model_config",
    kind="derive",
    reads=("model_config", _PC + "pooling_type", _PC + "seq_pooling_type", _PC + "tok_pooling_type"),
    writes=(_PC + "seq_pooling_type", _PC + "tok_pooling_type"),
    source=f"{_POOLER}.__post_init__ (vllm/config/pooler.py:144-171); {_REF}",
    message="Resolved `pooling_type='<t>'` to `seq_pooling_type='<t>'` | ... `tok_pooling_type='<t>'`.",
    level="debug",
)
def pooler_pooling_type(c: Mapping[str, Any]) -> RuleResult:
    """``pooling_type`` is a convenience: it names either the sequence pooling (CLS, LAST, MEAN) or the
    token pooling (ALL, STEP), and may not be given together with the one it fills."""
    kind = c[_PC + "pooling_type"] if c["model_config"] else None  # set only inside a user's PoolerConfig
    if not kind:
        return None
    for name in ("seq_pooling_type", "tok_pooling_type"):
        if c[_PC + name] is not None:
            return Violation(f"Cannot set both `pooling_type` and `{name}`")
    name = "seq_pooling_type" if kind in _SEQ_TYPES else "tok_pooling_type"
    return Outcome({_PC + name: kind}, message=f"Resolved `pooling_type={kind!r}` to `{name}={kind!r}`.")


@rule(
    "model.pooler-config",
    title="pooler config for the pooling runner: the user's, sentence-transformers', the class's default types",
    phase="model_config",
    kind="derive",
    reads=(*mc.INFO_READS, "model_config.pooler_config", _PC + "seq_pooling_type", _PC + "tok_pooling_type",
           _PC + "use_activation", _PC + "enable_chunked_processing", _H + "st_pooling_type", _H + "st_normalize"),
    writes=("model_config.pooler_config", _PC + "seq_pooling_type", _PC + "tok_pooling_type", _PC + "use_activation",
            _PC + "enable_chunked_processing"),
    after=("model.pooler-pooling-type",),
    source=f"{_MODEL}.__post_init__ (Init pooler config if needed, vllm/config/model.py:793-822); {_REF}",
)
def pooler_config(c: Mapping[str, Any]) -> RuleResult:
    """A pooling runner gets a PoolerConfig; what the user left unset comes from the sentence-transformers
    pooling module, then the class's default sequence and token pooling types."""
    if not c["model_config"] or c[_M + "runner_type"] != "pooling":
        return None
    seq, tok, act = c[_PC + "seq_pooling_type"], c[_PC + "tok_pooling_type"], c[_PC + "use_activation"]
    st = c[_H + "st_pooling_type"]
    if st is not None:
        act = c[_H + "st_normalize"] if act is None else act
        st = str(st).upper()
        if st in _SEQ_TYPES and seq is None:
            seq = st
        elif st in _TOK_TYPES and tok is None:
            tok = st
    info = mc.resolved_info(c)
    if info is not None:
        seq = info.seq_pooling_type if seq is None else seq
        tok = info.tok_pooling_type if tok is None else tok
    chunked = c[_PC + "enable_chunked_processing"]  # PoolerConfig's own default is False in 0.34.0 (a bool)
    return {"model_config.pooler_config": True, _PC + "seq_pooling_type": seq, _PC + "tok_pooling_type": tok,
            _PC + "use_activation": act, _PC + "enable_chunked_processing": bool(chunked)}


@rule(
    "model.attn-type",
    title="the attention type that chunked prefill and prefix caching support follows",
    phase="model_config",
    kind="derive",
    reads=(*mc.INFO_READS, "model_config.pooler_config", _H + "is_causal", _M + "is_hybrid",
           _M + "is_attention_free", _M + "is_encoder_decoder"),
    writes=(_M + "attn_type",),
    source=f"{_MODEL}.attn_type (vllm/config/model.py:2218-2235); {_REF}",
)
def attn_type(c: Mapping[str, Any]) -> RuleResult:
    """A pooling model whose class pools CLS, or whose config is not causal, attends bidirectionally
    (encoder-only); other pooling models keep their class's type; then hybrid, attention-free,
    encoder-decoder, decoder."""
    if not c["model_config"]:
        return None
    info = mc.resolved_info(c)
    if c["model_config.pooler_config"]:
        if (info is not None and info.seq_pooling_type == "CLS") or c[_H + "is_causal"] is False:
            kind = "encoder_only"
        else:
            kind = info.attn_type if info is not None else "decoder"
    elif c[_M + "is_hybrid"]:
        kind = "hybrid"
    elif c[_M + "is_attention_free"]:
        kind = "attention_free"
    elif c[_M + "is_encoder_decoder"]:
        kind = "encoder_decoder"
    else:
        kind = "decoder"
    return {_M + "attn_type": kind}


# the MODELS_CONFIG_MAP hooks that 0.34.0 runs at the end of ModelConfig.__post_init__
# (ModelConfig._try_verify_and_update_model_config: each class's verify_and_update_model_config).
# The rotary hooks of GTE, NomicBERT and Jina-RoBERTa moved there too; postinit keeps them in step 2
# (phase model): they read values ModelConfig derives before them (max_model_len, enforce_eager) and
# write config.json facts those derivations read, and nothing ModelConfig decides later reads their output.

_MODEL_HOOK = f"vllm/config/model.py ModelConfig._try_verify_and_update_model_config (1525-1540); {_MODELS}"

_RUNNER = (
    patch("model.runner-type", convert_means_pooling=True,
          source=f"{_MODEL}._get_runner_type (vllm/config/model.py:1327-1349); {_REF}"),
    patch("model.runner-supported",
          pooling_only="Embedding models do not support `--runner {runner}`. Use `--runner pooling` or `--runner auto` "
          "for embedding models.",
          source=f"{_MODEL}.__post_init__ (vllm/config/model.py:731-754; _RUNNER_CONVERTS: the registry's "
          f"runner_converts); {_REF}"),
)

_MAX_LEN_OPTIONS: dict[str, Any] = dict(
    no_key_message="The model's config.json does not contain any of the keys to determine the original maximum "
    "length of the model. Assuming the model's maximum length is 2048.",
    unscaled_rope=("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"),
    sliding_window_checks=False,
    # transformers 5 standardizes a legacy rope_scaling "type" into rope_parameters' rope_type, so an
    # hf_overrides {"rope_scaling": {"type": ...}} no longer fails on the missing key
    legacy_type_key_error=False,
    rope_float=True,  # derived_max_model_len *= scaling_factor for every RoPE model (2678)
    auto_fit=True,  # max_model_len -1 ("auto") is derived as if unset (2683-2686)
    null_factor_warning=True,  # a null RoPE factor warns and counts as 1.0 (2668-2675)
)
"""0.34.0's ``_get_and_verify_max_len``: ``model.max-model-len``'s options (the target's and the draft's)."""

_MAX_LEN = (
    patch("model.max-model-len", **_MAX_LEN_OPTIONS,
          source=f"vllm/config/model.py _get_and_verify_max_len (2589-2700: YaRN variants leave "
          f"max_position_embeddings already scaled, 2659-2666; no NotImplementedError for rope scaling or "
          f"model_max_length with disable_sliding_window); {_REF}"),
)

_HOOKS_IN_MODEL_CONFIG = (
    patch("models.gemma3-text-is-causal", phase="model_config",
          source=f"{_MODEL_HOOK} Gemma3TextModelConfig.verify_and_update_model_config; {_REF}"),
    patch("models.qwen3-reranker-method", phase="model_config", example="pooling/score/qwen3_reranker_offline.py",
          source=f"{_MODEL_HOOK} Qwen3ForSequenceClassificationConfig.verify_and_update_model_config; {_REF}"),
    patch("models.qwen2-prm-step-tag-id", phase="model_config",
          source=f"{_MODEL_HOOK} Qwen2ForProcessRewardModelConfig.verify_and_update_model_config; {_REF}"),
    patch("models.jamba-cls-activation", phase="model_config",
          source=f"{_MODEL_HOOK} JambaForSequenceClassificationConfig.verify_and_update_model_config; {_REF}"),
)

qwen2_rm_activation = models.pooler_default_rule(
    "models.qwen2-rm-softmax", "Qwen2ForRewardModel", "use_activation", False,
    f"{_MODEL_HOOK} Qwen2ForRewardModelConfig.verify_and_update_model_config; {_REF}",
    "Reward scores are raw logits, not probabilities (PoolerConfig.use_activation; softmax is gone).",
    phase="model_config")


@rule(
    "models.jinavl-ranking",
    title="JinaVLForRanking: one label, pooler logit_mean defaults to 2.65",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "text_config", "model_config.pooler_config", _PC + "logit_mean"),
    writes=(*models.hf_writes("num_labels"), _PC + "logit_mean"),
    source=f"{_MODEL_HOOK} JinaVLForSequenceClassificationConfig.verify_and_update_model_config; {_REF}",
)
def jinavl_ranking(c: Mapping[str, Any]) -> RuleResult:
    """The Jina VL reranker emits a single relevance score, calibrated by a fixed mean (logit_bias is gone)."""
    if not models.step2_on(c, "JinaVLForRanking"):
        return None
    out = models.hf_set(c, {"num_labels": 1})
    if not c["model_config.pooler_config"]:
        return Violation("", error="AssertionError", hint="JinaVLForRanking needs a pooling runner")
    if c[_PC + "logit_mean"] is None:
        out[_PC + "logit_mean"] = 2.65
    return out


_POOLER_DROPS = {
    "model.pooler-use-activation": f"{_POOLER} has no softmax / activation in 0.34.0 to migrate (a `normalize` is "
    "refused: 'Parameter `normalize` was removed; use `use_activation` instead.')",
    "models.nomic-bert-max-model-len": f"{_MODELS} NomicBertModelConfig.verify_and_update_model_config no longer "
    "changes max_model_len in 0.34.0 (it only builds the rotary kwargs from it)",
    "models.nomic-bert-max-model-len-log": "no max_model_len to re-verify: NomicBertModelConfig no longer changes it "
    "in 0.34.0",
}


# =========================================================================== quantization

_BF16, _FP16, _FP32 = "torch.bfloat16", "torch.float16", "torch.float32"
QUANTIZATION_METHODS = (
    "awq", "auto_awq", "fp8", "w4afp8", "fbgemm_fp8", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed",
    "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "experts_int8", "quark",
    "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor",
    "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8", "lut_b_moe",
    "mxfp4_hadamard32",
)
"""``vllm.model_executor.layers.quantization.QUANTIZATION_METHODS`` of vLLM 0.34.0 (bitsandbytes, gguf, ipex, ... are
gone)."""
_ONLINE = ("OnlineQuantizationConfig", 75, (_BF16, _FP16))
QUANT_METHODS: dict[str, tuple[str, int, tuple[str, ...]]] = {
    "awq": ("AutoAWQConfig", 75, (_FP16, _BF16)), "auto_awq": ("AutoAWQConfig", 75, (_FP16, _BF16)),
    "awq_marlin": ("AutoAWQConfig", 75, (_FP16, _BF16)),
    "gptq": ("AutoGPTQConfig", 60, (_FP16, _BF16)), "auto_gptq": ("AutoGPTQConfig", 60, (_FP16, _BF16)),
    "gptq_marlin": ("AutoGPTQConfig", 60, (_FP16, _BF16)),
    "fp8": ("Fp8Config", 75, (_BF16, _FP16)), "w4afp8": ("W4AFP8Config", 75, (_BF16, _FP16)),
    "fbgemm_fp8": ("FBGEMMFp8Config", 80, (_BF16, _FP16)), "humming": ("HummingConfig", 75, (_BF16, _FP16)),
    "experts_int8": ("ExpertsInt8Config", 80, (_BF16, _FP16)), "moe_wna16": ("MoeWNA16Config", 70, (_BF16, _FP16)),
    "inc": ("INCConfig", 60, (_FP16, _BF16)), "mxfp4": ("Mxfp4Config", 80, (_BF16,)),
    "gpt_oss_mxfp4": ("GptOssMxfp4Config", 80, (_BF16,)),
    "deepseek_v4_fp8": ("DeepseekV4FP8Config", 75, (_BF16, _FP16)),
    "modelopt": ("ModelOptFp8Config", 89, (_BF16, _FP16)),
    "modelopt_fp4": ("ModelOptNvFp4Config", 80, (_BF16, _FP16, "torch.float8_e4m3fn")),
    "modelopt_mixed": ("ModelOptMixedPrecisionConfig", 75, (_BF16, _FP16)),
    "compressed-tensors": ("CompressedTensorsConfig", 70, (_FP32, _FP16, _BF16)),
    **{m: _ONLINE for m in ("online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel",
                            "int8_per_channel_weight_only", "nvfp4_per_token", "lut_b_moe", "mxfp4_hadamard32")},
}
"""method -> (vLLM class, ``get_min_capability()``, ``get_supported_act_dtypes()``) of vLLM 0.34.0 (the classes'
own answers, read in the oracle's venv; ModelOpt and compressed-tensors answer per instance: their 0.11.1 values)."""
DEPRECATED_QUANTIZATION_METHODS = ("fbgemm_fp8",)
"""``vllm.model_executor.layers.quantization.DEPRECATED_QUANTIZATION_METHODS`` of vLLM 0.34.0."""

ROCM_QUANT = ("awq", "auto_awq", "awq_marlin", "gptq", "auto_gptq", "fp8", "deepseek_v4_fp8", "compressed-tensors",
              "fbgemm_fp8", "inc", "quark", "mxfp4", "mxfp8", "torchao", "modelopt", "modelopt_fp4", "modelopt_mxfp8",
              "modelopt_mixed", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "mxfp4_hadamard32", "online",
              "gpt_oss_mxfp4")
"""``RocmPlatform.supported_quantization`` of vLLM 0.34.0 (vllm/platforms/rocm.py:676-701)."""

_QUANT = (
    patch("verify.rocm-quant-allowlist", allowed=ROCM_QUANT,
          source=f"vllm/platforms/interface.py Platform.verify_quantization (RocmPlatform.supported_quantization); "
          f"{_REF}"),
    patch("verify.rocm-triton-awq", allowed=ROCM_QUANT,
          source=f"vllm/platforms/rocm.py RocmPlatform.verify_quantization (1260-1267); {_REF}"),
    patch("model.quantization", methods=QUANTIZATION_METHODS, auto=True, cpu_override=None,
          source=f"{_MODEL}._verify_quantization (vllm/config/model.py:1403-1487; AutoGPTQConfig / AutoAWQConfig "
          f".override_quantization_method); {_REF}"),
    patch("verify.quant-act-dtype", methods=QUANT_METHODS,
          source=f"vllm/config/vllm.py VllmConfig._get_quantization_config; ref step-6, {_REF}"),
)


QUANT_CONFIG_FILES_0340: dict[str, tuple[str, ...]] = {
    "auto_awq": ("quantize_config.json", "quant_config.json"), "auto_gptq": ("quantize_config.json",),
    "awq": ("quantize_config.json", "quant_config.json"), "awq_marlin": ("quantize_config.json", "quant_config.json"),
    "gptq": ("quantize_config.json",), "gptq_marlin": ("quantize_config.json",), "inc": ("quantization_config.json",),
    "modelopt": ("hf_quant_config.json",), "modelopt_fp4": ("hf_quant_config.json",),
    "modelopt_mixed": ("hf_quant_config.json",), "modelopt_mxfp8": ("hf_quant_config.json",),
    "moe_wna16": ("quantize_config.json",), "mxfp8": ("hf_quant_config.json",),
}
"""0.34.0's ``get_config_filenames()`` per quantization method (read from its venv); the others name none."""
ONLINE_SHORTHANDS_0340 = ("fp8_per_block", "fp8_per_channel", "fp8_per_tensor", "int8_per_channel_weight_only",
                          "lut_b_moe", "mxfp4", "mxfp4_hadamard32", "mxfp8", "nvfp4_per_token")
"""0.34.0's ``_ONLINE_SHORTHANDS``: without a config file these quantize online (get_quant_config)."""


@rule(
    "verify.quant-config",
    title="Quantization config from the checkpoint, or online FP8 for an unquantized one",
    phase="verify",
    kind="derive",
    reads=("model_config", _M + "quantization", _M + "hf_config.quantization_config", _M + "hf_config.text_config",
           _M + "hf_config.compression_config", "quant_config", *QUANT_FILE_READS),
    writes=("quant_config", "quant_config.method", "quant_config.class_name", "quant_config.min_capability",
            "quant_config.weight_block_size"),
    source="vllm/config/vllm.py VllmConfig._get_quantization_config, get_quant_config "
    f"(vllm/model_executor/model_loader/weight_utils.py:335-394); ref step-6, {_REF}",
    message="--quantization fp8 is deprecated for online quantization; use --quantization fp8_per_tensor instead.",
    level="warning",
)
def quant_config(c: Mapping[str, Any], *,
                 methods: Mapping[str, tuple[str, int, tuple[str, ...]]] = QUANT_METHODS) -> RuleResult:
    """A quantized checkpoint's method builds its config from the checkpoint's quantization_config. ``fp8`` on a
    checkpoint without one (FP8 has no config file of its own) quantizes online: 0.34.0 builds the online config
    as ``fp8_per_tensor`` and warns that the spelling is deprecated; ``mxfp4``/``mxfp8`` there are the online
    shorthands of those names. A method whose config lives in a file of its own needs that file (golden s-y025)."""
    if c["quant_config"] or not c["model_config"]:
        return None
    method = quant_method(c)
    if method is None:
        return None
    if c[_M + "quantization"] is not None:
        problem = quant_config_file_problem(c, method, QUANT_CONFIG_FILES_0340, without_file=ONLINE_SHORTHANDS_0340,
                                            mixed_falls_through=True)
        if problem is not None:
            return problem
    cfg = _hf_quant_cfg(c)
    # fp8 and the deferred shorthands (mxfp4, mxfp8: also checkpoint formats) quantize an unquantized
    # checkpoint online (get_quant_config, vllm/model_executor/model_loader/weight_utils.py:378-392)
    online = method in ("fp8", "mxfp4", "mxfp8") and cfg is None
    found = _ONLINE if online else methods.get(method)
    cls, cap = (found[0], found[1]) if found is not None else (None, None)
    block = (cfg or {}).get("weight_block_size") if method == "fp8" else None
    message = ("--quantization fp8 is deprecated for online quantization; use --quantization fp8_per_tensor "
               "instead.") if online and method == "fp8" else ""
    return Outcome({"quant_config": True, "quant_config.method": method, "quant_config.class_name": cls,
                    "quant_config.min_capability": cap, "quant_config.weight_block_size": block}, message=message)


@rule(
    "model.deprecated-quantization",
    title="A deprecated quantization method needs --allow-deprecated-quantization",
    phase="model_config",
    kind="check",
    reads=("model_config", _M + "quantization", _M + "allow_deprecated_quantization"),
    after=("model.quantization",),
    source=f"{_MODEL}._verify_quantization (vllm/config/model.py:1489-1504); {_REF}",
    message="The quantization method {q} is deprecated and will be removed in future versions of vLLM.",
    level="warning",
)
def deprecated_quantization(c: Mapping[str, Any], *, deprecated: tuple[str, ...] = DEPRECATED_QUANTIZATION_METHODS
                            ) -> RuleResult:
    """A method on its way out is refused unless the user accepts it (then a warning). vLLM passes the method as
    a second argument of its ValueError instead of formatting it into the text, so the error reads as a tuple."""
    method = c[_M + "quantization"] if c["model_config"] else None
    if method not in deprecated:
        return None
    if c[_M + "allow_deprecated_quantization"]:
        return Outcome.log(q=method)
    text = ("The quantization method %s is deprecated and will be removed in future versions of vLLM. To bypass, "
            "set `--allow-deprecated-quantization`.")
    return Violation(str((text, method)))


# =========================================================================== the multimodal config (phase model_config)

_MM_OPTIONS = {
    "language_model_only": "language_model_only", "limit_mm_per_prompt": "limit_per_prompt",
    "enable_mm_embeds": "enable_mm_embeds", "media_io_kwargs": "media_io_kwargs",
    "mm_processor_kwargs": "mm_processor_kwargs", "mm_processor_cache_gb": "mm_processor_cache_gb",
    "mm_processor_cache_type": "mm_processor_cache_type", "mm_hasher_algorithm": "mm_hasher_algorithm",
    "mm_shm_cache_max_object_size_mb": "mm_shm_cache_max_object_size_mb", "mm_encoder_only": "mm_encoder_only",
    "mm_encoder_tp_mode": "mm_encoder_tp_mode", "mm_encoder_attn_backend": "mm_encoder_attn_backend",
    "mm_encoder_attn_dtype": "mm_encoder_attn_dtype", "mm_encoder_fp8_scale_path": "mm_encoder_fp8_scale_path",
    "mm_encoder_fp8_scale_save_path": "mm_encoder_fp8_scale_save_path",
    "mm_encoder_fp8_scale_save_margin": "mm_encoder_fp8_scale_save_margin",
    "interleave_mm_strings": "interleave_mm_strings", "skip_mm_profiling": "skip_mm_profiling",
    "video_pruning_rate": "video_pruning_rate", "video_pruning_method": "video_pruning_method",
    "mm_tensor_ipc": "mm_tensor_ipc",
    "mm_ipc_gpu_memory_gb": "mm_ipc_gpu_memory_gb", "mm_device_do_normalize": "mm_device_do_normalize",
}
"""ModelConfig's multimodal InitVars -> the MultiModalConfig field each one sets (vllm/config/model.py:867-895)."""

MULTIMODAL_DEFAULTS: dict[str, Any] = {
    "language_model_only": False, "limit_per_prompt": {}, "enable_mm_embeds": False, "media_io_kwargs": {},
    "mm_processor_kwargs": None, "mm_device_do_normalize": True, "mm_processor_cache_gb": 4,
    "mm_processor_cache_type": "lru", "mm_hasher_algorithm": "blake3", "mm_shm_cache_max_object_size_mb": 128,
    "mm_encoder_only": False, "mm_encoder_tp_mode": "weights", "mm_encoder_attn_backend": None,
    "mm_encoder_attn_dtype": None, "mm_encoder_fp8_scale_path": None, "mm_encoder_fp8_scale_save_path": None,
    "mm_encoder_fp8_scale_save_margin": 1.5, "interleave_mm_strings": False, "skip_mm_profiling": False,
    "video_pruning_rate": None, "video_pruning_method": "evs", "mm_tensor_ipc": "direct_rpc",
    "allow_missing_mm_embeddings": False, "mm_ipc_gpu_memory_gb": 0,
}
"""``vllm/config/multimodal.py MultiModalConfig`` field defaults of vLLM 0.34.0 (lines 300-460)."""

_MMC = "model_config.multimodal_config"
_MM_READS = ("model_config", _M + "is_multimodal_model")


def _multimodal(c: Mapping[str, Any]) -> bool:
    return bool(c["model_config"] and c[_M + "is_multimodal_model"])


@rule(
    "model.encoder-decoder-mm-cache",
    title="Encoder-decoder models: no multimodal processor cache",
    phase="model_config",
    kind="override",
    reads=("model_config", _M + "is_encoder_decoder", _M + "mm_processor_cache_gb"),
    writes=(_M + "mm_processor_cache_gb",),
    after=("model.max-model-len",),  # get_and_verify_max_len (model.py:844) refuses first: golden s-y171
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:846-848); {_REF}",
    message="Encoder-decoder model detected, disabling mm processor cache.",
    level="info",
)
def encoder_decoder_mm_cache(c: Mapping[str, Any]) -> RuleResult:
    """The processor cache is sized 0 for every encoder-decoder model, whatever was asked (logged even when the
    model is not multimodal, which then builds no MultiModalConfig)."""
    if c["model_config"] and c[_M + "is_encoder_decoder"]:
        return Outcome.log({_M + "mm_processor_cache_gb": 0})
    return None


@rule(
    "model.mm-encoder-tp-mode",
    title="--mm-encoder-tp-mode data only where the model's encoder supports it",
    phase="model_config",
    kind="override",
    reads=(_M + "is_multimodal_model", *mc.INFO_READS, _M + "mm_encoder_tp_mode"),
    writes=(_M + "mm_encoder_tp_mode",),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:851-859); {_REF}",
    message="This model does not support `--mm-encoder-tp-mode data`. Falling back to `--mm-encoder-tp-mode weights`.",
    level="warning",
)
def mm_encoder_tp_mode(c: Mapping[str, Any]) -> RuleResult:
    """Data-parallel encoders need the class's SupportsMultiModal ``supports_encoder_tp_data``."""
    if not _multimodal(c) or c[_M + "mm_encoder_tp_mode"] != "data":
        return None
    info = mc.resolved_info(c)
    if info is None or "multimodal_encoder_tp_data" in info.interfaces:
        return None
    return {_M + "mm_encoder_tp_mode": "weights"}


def _mm_normalize_supported(c: Mapping[str, Any]) -> bool:
    info = mc.resolved_info(c)
    return info is not None and "mm_device_do_normalize" in info.interfaces


_FORCED = "forcing mm_device_do_normalize = False."


@rule(
    "model.mm-device-do-normalize-forced-off",
    title="An asked-for mm_device_do_normalize the Rust frontend or the model cannot honour is turned off",
    phase="model_config",
    kind="override",
    reads=(_M + "is_multimodal_model", *mc.INFO_READS, _M + "mm_device_do_normalize", "env.VLLM_USE_RUST_FRONTEND"),
    writes=(_M + "mm_device_do_normalize",),
    after=("model.max-model-len",),  # called building the MultiModalConfig (model.py:892), after model.py:844
    source=f"{_MODEL}._resolve_mm_device_do_normalize (vllm/config/model.py:1123-1141); {_REF}",
    message=f"VLLM_USE_RUST_FRONTEND is set. Rust frontend does not currently support mm_device_do_normalize, "
    f"{_FORCED} | Model does not support mm_device_do_normalize, {_FORCED}",
    level="warning",
)
def mm_device_do_normalize_forced_off(c: Mapping[str, Any]) -> RuleResult:
    """Device-side image normalization is what the user asked for, unless the Rust frontend or the model lacks it
    (each reason warns)."""
    if not _multimodal(c) or not c[_M + "mm_device_do_normalize"]:
        return None
    warnings = []
    if c["env.VLLM_USE_RUST_FRONTEND"]:
        warnings.append("VLLM_USE_RUST_FRONTEND is set. Rust frontend does not currently support "
                        f"mm_device_do_normalize, {_FORCED}")
    elif not _mm_normalize_supported(c):
        warnings.append(f"Model does not support mm_device_do_normalize, {_FORCED}")
    if not warnings:
        return None
    return Outcome({_M + "mm_device_do_normalize": False}, message="\n".join(warnings))


@rule(
    "model.mm-device-do-normalize",
    title="mm_device_do_normalize: the class's support by default, unless the Rust frontend is on",
    phase="model_config",
    kind="derive",
    reads=(_M + "is_multimodal_model", *mc.INFO_READS, _M + "mm_device_do_normalize", "env.VLLM_USE_RUST_FRONTEND"),
    writes=(_M + "mm_device_do_normalize",),
    after=("model.mm-device-do-normalize-forced-off",),
    source=f"{_MODEL}._resolve_mm_device_do_normalize (vllm/config/model.py:1104-1147); {_REF}",
    message="mm_device_do_normalize is (enabled|disabled)( by default). | VLLM_USE_RUST_FRONTEND is set. Rust frontend "
    f"does not currently support mm_device_do_normalize, {_FORCED}",
    level="debug",
)
def mm_device_do_normalize(c: Mapping[str, Any]) -> RuleResult:
    """Image normalization runs on the device where the model supports it (debug-logged either way)."""
    if not _multimodal(c):
        return None
    asked = c[_M + "mm_device_do_normalize"]
    if asked is not None:
        return Outcome(message=f"mm_device_do_normalize is {'enabled' if asked else 'disabled'}.")
    if c["env.VLLM_USE_RUST_FRONTEND"]:
        return Outcome({_M + "mm_device_do_normalize": False}, message="VLLM_USE_RUST_FRONTEND is set. Rust frontend "
                       f"does not currently support mm_device_do_normalize, {_FORCED}")
    supported = _mm_normalize_supported(c)
    return Outcome({_M + "mm_device_do_normalize": supported},
                   message=f"mm_device_do_normalize is {'enabled' if supported else 'disabled'} by default.")


@rule(
    "model.multimodal-config",
    title="MultiModalConfig of a multimodal model: 0.34.0's defaults under the options given",
    phase="model_config",
    kind="derive",
    reads=(*_MM_READS, _MMC, *(_M + k for k in _MM_OPTIONS), _M + "mm_processor_device", "platform.device_type"),
    writes=(_MMC,),
    source=f"{_MODEL}.__post_init__ (Init multimodal config if needed, vllm/config/model.py:846-901); "
    f"vllm/config/multimodal.py MultiModalConfig.fold_mm_processor_device; {_REF}",
)
def multimodal_config(c: Mapping[str, Any]) -> RuleResult:
    """A class implementing SupportsMultiModal gets a MultiModalConfig built from the InitVars given (None means
    the field's default); ``--mm-processor-device`` folds into ``mm_processor_kwargs["device"]``, and each
    per-prompt limit becomes its modality's DummyOptions (a bare count is ``{"count": n}``, the other fields None;
    ``_validate_limit_per_prompt``, vllm/config/multimodal.py:470-492)."""
    if not _multimodal(c):
        return None
    given = {field: c[_M + opt] for opt, field in _MM_OPTIONS.items() if c[_M + opt] is not None}
    device, kwargs = c[_M + "mm_processor_device"], c[_M + "mm_processor_kwargs"]
    if device not in (None, "auto") and (kwargs or {}).get("device") is None:
        target = "cpu" if device == "cpu" else (c["platform.device_type"] or "cpu")
        given["mm_processor_kwargs"] = {**(kwargs or {}), "device": target}
    mm = {**MULTIMODAL_DEFAULTS, **dict(c[_MMC] or {}), **given}
    limits = mm.get("limit_per_prompt")
    if isinstance(limits, Mapping):
        mm["limit_per_prompt"] = {k: mc.dummy_options(k, v) for k, v in limits.items()}
    return {_MMC: mm}


@rule(
    "model.video-pruning-method",
    title="Video pruning only with a method the model implements",
    phase="model_config",
    kind="check",
    reads=(_M + "is_multimodal_model", _MMC, *mc.INFO_READS),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:903-914); MultiModalConfig.get_video_pruning_spec "
    f"(vllm/config/multimodal.py:757-763); {_REF}",
    message="Video pruning method '<method>' is not supported by <class> (supported methods: [...]).",
)
def video_pruning_method(c: Mapping[str, Any]) -> RuleResult:
    """Pruning is on when video_pruning_rate > 0; a class that lists its methods refuses any other."""
    if not _multimodal(c):
        return None
    mm = c[_MMC] or {}
    rate, method = mm.get("video_pruning_rate"), mm.get("video_pruning_method")
    info = mc.resolved_info(c)
    if rate is None or rate <= 0 or info is None or not info.video_pruning_methods:
        return None
    if method in info.video_pruning_methods:
        return None
    name = info.class_name or c[_M + "architecture"]
    return Violation(f"Video pruning method '{method}' is not supported by {name} (supported methods: "
                     f"{list(info.video_pruning_methods)!r}).", hint="pick one of the model's methods")


@rule(
    "model.renderer-workers-mm-cache-pooling",
    title="A multimodal pooling model cannot use renderer workers with the processor cache",
    phase="model_config",
    kind="check",
    reads=(*_MM_READS, _MMC, _M + "renderer_num_workers", _M + "runner_type"),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:916-929); {_REF}",
    message="Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled for pooling models. "
    "...",
)
def renderer_workers_mm_cache_pooling(c: Mapping[str, Any]) -> RuleResult:
    """Pooling preprocessing runs on the renderer workers, and the multimodal processor cache is not
    thread-safe."""
    if not _multimodal(c) or c[_M + "runner_type"] != "pooling" or (c[_M + "renderer_num_workers"] or 1) <= 1:
        return None
    if not (c[_MMC] or {}).get("mm_processor_cache_gb"):
        return None
    return Violation(
        "Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled for pooling models. "
        "Pooling preprocessing runs on the renderer workers, and the cache is not thread-safe. Please set "
        "--renderer-num-workers 1 (the default), or disable the cache with --mm-processor-cache-gb 0.",
        hint="--renderer-num-workers 1 or --mm-processor-cache-gb 0")


@rule(
    "model.mm-text-only",
    title="A multimodal model limited to language only runs in text-only mode",
    phase="model_config",
    kind="check",
    reads=(*_MM_READS, _MMC),
    source=f"{_MODEL}._supports_multimodal_inputs, _supports_multimodal_for_mm_prefix (vllm/config/model.py:"
    f"945-1046, called by get_model_arch_config once the MultiModalConfig exists); {_REF}",
    message="All limits of multimodal modalities supported by the model are set to 0, running in text-only mode.\n"
    "Disabled mm_prefix attention mode because multimodal inputs are configuration-disabled. Attention backends "
    "without mm_prefix support may now be selected.",
    level="info",
)
def mm_text_only(c: Mapping[str, Any]) -> RuleResult:
    """``--language-model-only`` sets every modality's limit to 0; without embedding inputs the model takes text
    only. (A ``--limit-mm-per-prompt`` of 0 for each modality does too; which modalities a model has is its
    multimodal processor's, which postinit does not model.)"""
    mm = c[_MMC] if _multimodal(c) else None
    if mm and mm.get("language_model_only") and not mm.get("enable_mm_embeds"):
        return Outcome.log()
    return None


_MM_PREFIX_LM_MODELS = ("bagel", "gemma3", "molmo2", "moondream3", "paligemma")
"""``ModelArchConfigConvertorBase.is_mm_prefix_lm``'s list of known prefix-LM model types (vLLM 0.34.0,
vllm/transformers_utils/model_arch_config_convertor.py:358-364)."""
_OWN_MM_PREFIX = ("cohere_asr", "deepseek_v4", "diffusion_gemma", "diffusion_gemma_text", "gemma4", "gemma4_text",
                  "gemma4_unified", "gemma4_unified_text")
"""Model types whose convertor answers ``is_mm_prefix_lm`` itself (CohereAsr: never; DeepSeek-V4: its vision
layers; Gemma 4: ``use_bidirectional_attention == "vision"``), not from the list or the config attribute."""


@rule(
    "model.is-mm-prefix-lm",
    title="Whether the model attends bidirectionally over multimodal positions (prefix LM)",
    phase="model_config",
    kind="derive",
    reads=(*_MM_READS, _MMC, _M + "hf_config.model_type", _M + "hf_config.is_mm_prefix_lm"),
    writes=(_M + "is_mm_prefix_lm",),
    after=("model.mm-text-only",),
    source=f"{_MODEL}.get_model_arch_config, _supports_multimodal_for_mm_prefix (vllm/config/model.py:1019-1060), "
    "ModelArchConfigConvertorBase.is_mm_prefix_lm (vllm/transformers_utils/model_arch_config_convertor.py:345-366); "
    f"{_REF}",
)
def is_mm_prefix_lm(c: Mapping[str, Any]) -> RuleResult:
    """The checkpoint's ``is_mm_prefix_lm`` attribute, else the known model types; off where multimodal inputs
    are configuration-disabled (a multimodal model run language-only). Partial model: the convertors of Gemma 4
    and DeepSeek-V4 (their vision attention settings) answer False here; a model whose processor vLLM cannot find
    (text-only) is taken as multimodal."""
    if not c["model_config"]:
        return None
    mm = c[_MMC] if _multimodal(c) else None
    if mm and mm.get("language_model_only") and not mm.get("enable_mm_embeds"):
        return None
    model_type = c[_M + "hf_config.model_type"]
    if model_type in _OWN_MM_PREFIX:
        return None
    given = c[_M + "hf_config.is_mm_prefix_lm"]
    prefix = bool(given) if given is not None else model_type in _MM_PREFIX_LM_MODELS
    return {_M + "is_mm_prefix_lm": True} if prefix else None


# =========================================================================== the multimodal config in VllmConfig

_VLLM = "vllm/config/vllm.py VllmConfig"
_EC = "ec_transfer_config."
_KV = "kv_transfer_config."


def _ec_role(c: Mapping[str, Any], *roles: str) -> bool:
    return bool(c["ec_transfer_config"]) and c[_EC + "ec_connector"] is not None and c[_EC + "ec_role"] in roles


def _kv_consumer(c: Mapping[str, Any]) -> bool:
    """``KVTransferConfig.is_kv_consumer``: the role of the connector, or of each of a MultiConnector's."""
    if not c["kv_transfer_config"] or c[_KV + "kv_connector"] is None:
        return False
    if c[_KV + "kv_connector"] == "MultiConnector":
        children = (c[_KV + "kv_connector_extra_config"] or {}).get("connectors", [])
        roles = [child.get("kv_role") for child in children if isinstance(child, Mapping)]
    else:
        roles = [c[_KV + "kv_role"]]
    return any(role in ("kv_consumer", "kv_both") for role in roles)


_EC_READS = ("ec_transfer_config", _EC + "ec_connector", _EC + "ec_role")


@rule(
    "ec-transfer.role-required",
    title="An encoder-cache connector needs an ec_role",
    phase="sub_configs",
    kind="check",
    reads=_EC_READS,
    source="vllm/config/ec_transfer.py ECTransferConfig.__post_init__ (vllm/config/ec_transfer.py:71-85; with "
    "--ec-transfer-config built by vLLM's parser); ref v0.34.0",
    message="Please specify ec_role when ec_connector is set, supported roles are ('ec_producer', 'ec_both', "
    "'ec_consumer')",
)
def ec_transfer_role_required(c: Mapping[str, Any]) -> RuleResult:
    """The encoder-cache connector must know whether this instance produces encoder outputs, consumes them or
    both (as the KV connector's kv_role)."""
    if c["ec_transfer_config"] and c[_EC + "ec_connector"] is not None and c[_EC + "ec_role"] is None:
        return Violation("Please specify ec_role when ec_connector is set, supported roles are ('ec_producer', "
                         "'ec_both', 'ec_consumer')")
    return None



@rule(
    "vllm.mm-encoder-only",
    title="An encoder-only instance (EC producer) runs the multimodal encoder only: no prefix caching",
    phase="model",
    kind="override",
    reads=("model_config", _MMC, _APC, *_EC_READS),
    writes=(_MMC, _APC),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1462-1475), _resolve_mm_encoder_only (2970-2983); "
    f"ref step-2, {_REF}",
    message="Disabling prefix caching: this instance runs the multi-modal encoder only.",
    level="info",
)
def mm_encoder_only(c: Mapping[str, Any]) -> RuleResult:
    """An EC producer that is no consumer publishes encoder embeddings and holds no KV cache, so prefix caching has
    nothing to reuse (decided before the model hooks, which then see it off)."""
    mm = c[_MMC] if c["model_config"] else None
    out: dict[str, Any] = {}
    if _ec_role(c, "ec_producer", "ec_both") and not _ec_role(c, "ec_consumer", "ec_both"):
        if mm is None:
            return Violation("An EC producer-only instance requires a multimodal model.")
        mm = {**mm, "mm_encoder_only": True}
        out[_MMC] = mm
    if mm is not None and mm.get("mm_encoder_only") and c[_APC]:
        return Outcome.log({**out, _APC: False})
    return Outcome(out, message="") if out else None  # marking the config logs nothing


@rule(
    "vllm.language-model-only-mm-cudagraph",
    title="--language-model-only and CUDA graphs of the multimodal encoder are exclusive",
    phase="verify",
    kind="check",
    reads=("model_config", _MMC, "compilation_config.cudagraph_mm_encoder"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1502-1514); ref step-3, {_REF}",
)
def language_model_only_mm_cudagraph(c: Mapping[str, Any]) -> RuleResult:
    """A language-model-only instance never runs the multimodal encoder, so there is nothing to capture."""
    mm = c[_MMC] if c["model_config"] else None
    if mm and mm.get("language_model_only") and c["compilation_config.cudagraph_mm_encoder"]:
        return Violation("--language-model-only is incompatible with cudagraph_mm_encoder=True, since it disables all "
                         "multimodal inputs and the multimodal encoder is never run. Please disable one of them.")
    return None


@rule(
    "vllm.torch-shm-needs-spawn",
    title="mm_tensor_ipc torch_shm needs spawned workers",
    phase="verify",
    kind="check",
    reads=("model_config", _MMC, "env.VLLM_WORKER_MULTIPROC_METHOD"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1674-1683, os.environ as it is); ref step-6, {_REF}",
)
def torch_shm_needs_spawn(c: Mapping[str, Any]) -> RuleResult:
    """Shared-memory tensors cannot cross a fork."""
    mm = c[_MMC] if c["model_config"] else None
    if mm and mm.get("mm_tensor_ipc") == "torch_shm" and c["env.VLLM_WORKER_MULTIPROC_METHOD"] != "spawn":
        return Violation("torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn")
    return None


@rule(
    "vllm.mm-embedding-inputs",
    title="Disaggregated consumers accept embedding inputs without the tensor",
    phase="core",
    kind="derive",
    reads=("model_config", _MMC, *_EC_READS, "kv_transfer_config", _KV + "kv_connector", _KV + "kv_role",
           _KV + "kv_connector_extra_config"),
    writes=(_MMC,),
    source=f"{_VLLM}._resolve_mm_embedding_inputs (vllm/config/vllm.py:2927-2969); ref step-16, {_REF}",
    message="EC/KV consumer: accepting pre-computed-embedding inputs, which this role is sent by definition. | "
    "EC/KV consumer: pre-computed-embedding inputs may omit the embedding tensor.",
    level="info",
)
def mm_embedding_inputs(c: Mapping[str, Any]) -> RuleResult:
    """An EC consumer loads embeddings from its connector and a KV consumer receives the KV they produced: their
    requests carry only the metadata (a language-model-only KV consumer stays text-only unless it allows
    embeddings). Derived: a value set by hand is overwritten."""
    mm = c[_MMC] if c["model_config"] else None
    if mm is None:
        return None
    allow = _ec_role(c, "ec_consumer", "ec_both") or (
        _kv_consumer(c) and (not mm.get("language_model_only") or bool(mm.get("enable_mm_embeds"))))
    new, msgs = {**mm, "allow_missing_mm_embeddings": allow}, []
    if allow:
        if not mm.get("enable_mm_embeds"):
            new["enable_mm_embeds"] = True
            msgs.append("EC/KV consumer: accepting pre-computed-embedding inputs, which this role is sent by "
                        "definition.")
        msgs.append("EC/KV consumer: pre-computed-embedding inputs may omit the embedding tensor.")
    if new == dict(mm):
        return Outcome(message="\n".join(msgs)) if msgs else None
    return Outcome({_MMC: new}, message="\n".join(msgs) or "")


# =========================================================================== encoder-decoder models (phase sub_configs)

_SCH = "vllm/config/scheduler.py SchedulerConfig"
_ECP = "scheduler_config.enable_chunked_prefill"


@rule(
    "scheduler.encoder-decoder-no-chunked-prefill",
    title="Encoder-decoder models disable chunked prefill and chunked multimodal input",
    phase="sub_configs",
    kind="override",
    reads=("model_config", _M + "is_encoder_decoder"),
    writes=("scheduler_config.disable_chunked_mm_input", _ECP, "scheduler_config.long_prefill_token_threshold"),
    after=("scheduler.chunked-prefill-default",),
    source=f"{_SCH}.__post_init__ (vllm/config/scheduler.py:339-348; is_encoder_decoder is the ModelConfig's, an "
    f"InitVar); {_REF}",
    message="Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both.",
    level="info",
)
def encoder_decoder_no_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The encoder runs on a whole input at once, so neither the prompt nor a multimodal item is chunked (logged
    whatever the flags were)."""
    if c["model_config"] and c[_M + "is_encoder_decoder"]:
        return Outcome.log({"scheduler_config.disable_chunked_mm_input": True, _ECP: False,
                            "scheduler_config.long_prefill_token_threshold": 0})
    return None


_STEP_14_DROPS = {
    "scheduler.encoder-budget": f"{_SCH}.__post_init__ sets max_num_encoder_input_tokens = encoder_cache_size = "
    "max_num_batched_tokens for every model in 0.34.0 (scheduler.encoder-budgets); VllmConfig no longer gives "
    "an encoder-decoder model its encoder length",
    "scheduler.pooling-type-blocks-cp": "0.34.0's VllmConfig has no chunked-prefill blockers: what a pooling model "
    "supports is EngineArgs' default (ModelConfig.is_chunked_prefill_supported / is_prefix_caching_supported)",
    "scheduler.non-causal-blocks-cp": "0.34.0's VllmConfig has no chunked-prefill blockers: a bidirectional pooling "
    "model is ModelConfig.attn_type encoder_only, which EngineArgs' defaults read",
    "scheduler.cp-off-switch": "0.34.0's VllmConfig no longer turns chunked prefill and prefix caching off "
    "(encoder-decoder models: SchedulerConfig.__post_init__; the rest: EngineArgs' defaults)",
}


# =========================================================================== speculative decoding

_SC = "speculative_config."
_SPEC = "vllm/config/speculative.py SpeculativeConfig"
_DRAFT_MODEL_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "dspark")
"""Methods whose speculator is a ``DraftModelSpeculatorConfig`` (vllm/v1/worker/gpu/spec_decode/*/config.py): a
draft checkpoint with a ModelConfig and parallel config of its own."""
_BLOCK_DROP_METHODS = ("eagle", "eagle3", "mtp")
"""``SpeculativeConfig.needs_eagle_block_drop``: draft KV at a position depends on the next token (not DFlash/DSpark)."""
LOOKAHEAD_CONNECTORS = frozenset({"NixlConnector", "NixlPullConnector", "NixlPushConnector", "MooncakeConnector",
                                  "MooncakeStoreConnector", "OffloadingConnector", "SimpleCPUOffloadConnector"})
"""KV connectors whose ``supports_lookahead_block_hashes`` is True (vllm/distributed/kv_transfer/kv_connector/v1;
the base class says False, a MultiConnector asks each of its connectors)."""


_NSPEC_READS = ("speculative_config", _SC + "num_speculative_tokens", "diffusion_config",
                "diffusion_config.canvas_length")
QUERY_LEN_READS = (*_NSPEC_READS, _SC + "num_speculative_tokens_per_batch_size", "scheduler_config.max_num_seqs")
"""What :func:`decode_query_lens` reads."""


def num_speculative_tokens(c: Mapping[str, Any]) -> int:
    """``VllmConfig.num_speculative_tokens`` (vllm/config/vllm.py:587-599): the speculative config's, else a
    diffusion model's canvas length (its denoising canvas reuses the draft-token path), else 0."""
    if c["speculative_config"] and c[_SC + "num_speculative_tokens"] is not None:
        return int(c[_SC + "num_speculative_tokens"])
    if c["diffusion_config"] and c["diffusion_config.canvas_length"] is not None:
        return int(c["diffusion_config.canvas_length"])
    return 0


def _dense_schedule(schedule: Any, max_seqs: int, k: int) -> list[int] | None:
    """``build_dynamic_sd_schedule_lookup`` (vllm/v1/spec_decode/dynamic/utils.py:77-146): batch size -> draft
    tokens, 1-indexed; None where vLLM raises (an invalid schedule keeps the single static width)."""
    if max_seqs <= 0 or k <= 0 or not isinstance(schedule, (list, tuple)) or not schedule:
        return None
    parsed: list[tuple[int, int, int]] = []
    for entry in schedule:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            return None
        try:
            start, end, n = (int(x) for x in entry)
        except (TypeError, ValueError):
            return None
        if start <= 0 or end <= 0 or start > end or n < 0:
            return None
        parsed.append((start, end, n))
    parsed.sort(key=lambda e: e[0])
    previous_end = 0
    for start, end, _ in parsed:
        if start <= previous_end:
            return None
        previous_end = end
    if parsed[0][0] != 1:
        return None
    dense = [0] * (max_seqs + 1)
    nxt, last = 1, None
    for start, end, n in parsed:
        if start > nxt and last is not None:
            for b in range(nxt, min(start, max_seqs + 1)):
                dense[b] = min(k, last)
        for b in range(max(start, nxt), min(end, max_seqs) + 1):
            dense[b] = min(k, n)
        nxt, last = max(nxt, end + 1), n
        if nxt > max_seqs:
            break
    for b in range(nxt, max_seqs + 1):
        dense[b] = min(k, last or 0)
    return dense


def decode_query_lens(c: Mapping[str, Any]) -> dict[int, int]:
    """``VllmConfig.get_decode_cudagraph_query_lens(uniform_decode_query_len)`` (vllm/config/vllm.py:677-706, with
    the ValueError fallback of _set_cudagraph_sizes, :2384-2393): each uniform decode query length mapped to the
    most requests that run at it. Dynamic speculative decoding drafts by batch size, so each draft width is a tier
    of its own, up to the widest batch that drafts it."""
    k, seqs = num_speculative_tokens(c), c["scheduler_config.max_num_seqs"]
    schedule = c[_SC + "num_speculative_tokens_per_batch_size"] if c["speculative_config"] else None
    dense = None if schedule is None else _dense_schedule(schedule, seqs, k)
    if dense is None:
        return {1 + k: seqs}
    return {n + 1: batch for batch, n in enumerate(dense) if batch > 0}


_OWN_NAME_METHODS = ("ngram", "suffix", "ngram_gpu", "extract_hidden_states")
"""Speculators without a draft checkpoint: ``SpeculatorConfig.default_model`` is their method's name
(vllm/v1/worker/gpu/spec_decode/speculator_config.py:75-78; n-gram, suffix, extract_hidden_states configs)."""


@rule(
    "speculative.draft-model-from-method",
    title="Without a model: MTP drafts with the target, checkpoint-free speculators name themselves, a draft "
    "checkpoint method refuses",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "model", _SC + "num_speculative_tokens", "model_config.model"),
    writes=(_SC + "model",),
    feedback=("speculative.suffix-default-tokens",),  # the model is defaulted before configure defaults the tokens
    source=f"{_SPEC}.__post_init__ (vllm/config/speculative.py:1383-1389): config_cls.default_model, "
    "SpeculatorConfig / DraftModelSpeculatorConfig.default_model (speculator_config.py:75-78, 172-176), "
    f"MTPSpeculatorConfig.default_model (mtp/config.py:43-55); {_REF}",
    message="",
    level="debug",
)
def draft_model_from_method(c: Mapping[str, Any]) -> RuleResult:
    """Only asked for when the number of draft tokens is given: MTP layers live in the target checkpoint, a
    speculator without a checkpoint takes its method's name as the model, and EAGLE, draft models and DFlash need
    the checkpoint named. DSpark's default (a draft inside the target or its own subfolder) is not modelled."""
    if not c["speculative_config"] or c[_SC + "model"] is not None or c[_SC + "num_speculative_tokens"] is None:
        return None
    method = c[_SC + "method"]
    if method == "mtp":
        return {_SC + "model": c["model_config.model"]}
    if method in _OWN_NAME_METHODS:
        return {_SC + "model": method}
    if method == "dspark":
        return None
    return Violation("num_speculative_tokens was provided but without speculative model.")


@rule(
    "speculative.prompt-lookup-defaults",
    title="n-gram lookup window defaults (5/5, or mirrored); 0/0 where the speculator sets them; suffix decoding "
    "leaves them",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "prompt_lookup_min", _SC + "prompt_lookup_max"),
    writes=(_SC + "prompt_lookup_min", _SC + "prompt_lookup_max"),
    source=f"{_SPEC}.__post_init__ (vllm/config/speculative.py:1390, config_cls.configure): NgramSpeculatorConfig."
    "configure (vllm/v1/worker/gpu/spec_decode/ngram/config.py:18-42), SpeculatorConfig / DraftModelSpeculatorConfig "
    "/ ExtractHiddenStatesSpeculatorConfig.configure (0/0), SuffixSpeculatorConfig.configure (suffix/config.py:23, "
    f"no window); {_REF}",
    level="debug",
)
def prompt_lookup_defaults(c: Mapping[str, Any]) -> RuleResult:
    """n-gram matching (CPU or GPU) needs a window, a single given bound serving as both; suffix decoding has
    no window and keeps what was given; every other speculator zeroes them."""
    if not c["speculative_config"]:
        return None
    lo, hi = c[_SC + "prompt_lookup_min"], c[_SC + "prompt_lookup_max"]
    method = c[_SC + "method"]
    if method == "suffix":
        return None
    if method not in ("ngram", "ngram_gpu"):
        new = (0, 0)
    elif lo is None and hi is None:
        new = (5, 5)
    else:
        new = (lo if lo is not None else hi, hi if hi is not None else lo)
        if new[0] > new[1]:
            return Violation(f"prompt_lookup_min={new[0]} must be <= prompt_lookup_max={new[1]}")
    return {_SC + "prompt_lookup_min": new[0], _SC + "prompt_lookup_max": new[1]}


@rule(
    "speculative.draft-tensor-parallel-size",
    title="A draft checkpoint runs with the target's TP size (or 1)",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "model", _SC + "draft_tensor_parallel_size",
           "parallel_config.tensor_parallel_size"),
    writes=(_SC + "draft_tensor_parallel_size",),
    source=f"{_SPEC}._verify_and_get_draft_tp (vllm/config/speculative.py:1530-1552), called by "
    f"DraftModelSpeculatorConfig.configure (speculator_config.py:227-229) only; {_REF}",
    level="debug",
)
def draft_tensor_parallel_size(c: Mapping[str, Any]) -> RuleResult:
    """A draft shards like its target unless told to run unsharded; any other size is refused. Speculators
    without a draft checkpoint (n-gram, suffix, hidden-state extraction) leave it unset."""
    if not c["speculative_config"] or c[_SC + "method"] not in _DRAFT_MODEL_METHODS or c[_SC + "model"] is None:
        return None
    draft, tp = c[_SC + "draft_tensor_parallel_size"], c["parallel_config.tensor_parallel_size"]
    if draft is None:
        return {_SC + "draft_tensor_parallel_size": tp}
    if draft not in (1, tp):
        return Violation(f"speculative_draft_tensor_parallel_size={draft} cannot be other value than 1 or "
                         "target model tensor_parallel_size", error="ValueError",
                         hint=f"use draft_tensor_parallel_size 1 or {tp}")
    return None


@rule(
    "speculative.suffix-default-tokens",
    title="Suffix decoding drafts up to 8 tokens (its tree depth if smaller) when no number is given",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "num_speculative_tokens",
           _SC + "suffix_decoding_max_tree_depth"),
    writes=(_SC + "num_speculative_tokens",),
    source=f"{_SPEC}.__post_init__ (vllm/config/speculative.py:1390, config_cls.configure): "
    f"SuffixSpeculatorConfig.configure (vllm/v1/worker/gpu/spec_decode/suffix/config.py:24-32); {_REF}",
    message="Defaulted num_speculative_tokens to {n} for suffix decoding.",
    level="warning",
)
def suffix_default_tokens(c: Mapping[str, Any]) -> RuleResult:
    """Every slot is verified, so a deep default would cost throughput at high concurrency."""
    if not c["speculative_config"] or c[_SC + "method"] != "suffix" or c[_SC + "num_speculative_tokens"] is not None:
        return None
    n = min(8, int(c[_SC + "suffix_decoding_max_tree_depth"]))
    return Outcome.log({_SC + "num_speculative_tokens": n}, n=n)


@rule(
    "vllm.limit-max-model-len-to-draft",
    title="A plain draft model's shorter max_model_len caps the target's",
    phase="model",
    kind="override",
    reads=("speculative_config", _SC + "method", _SC + "max_model_len", "model_config", "model_config.max_model_len",
           "draft.loaded", "draft.hf_config", "draft.max_model_len", _H + "rope_scaling"),
    writes=("model_config.max_model_len",),
    source="vllm/config/vllm.py VllmConfig._limit_max_model_len_to_draft (3102-3121, called at 1482 before the "
    "model hooks), StandaloneARSpeculatorConfig (shares_target_positions False) and "
    f"SpeculativeConfig._maybe_override_draft_max_model_len (vllm/config/speculative.py:1442-1484); {_REF}",
    message="The draft model's max_model_len ({draft}) is smaller than the target model's ({target}) and the model "
    "runner can't skip speculation for longer sequences; reducing max_model_len to {draft}.",
    level="warning",
)
def limit_max_model_len_to_draft(c: Mapping[str, Any]) -> RuleResult:
    """An independent draft (method draft_model) has its own positional limit, and the runner cannot stop
    speculating past it: the draft's max_model_len (from its config.json, capped by the target's, or
    ``speculative_config.max_model_len``). A draft that shares the target's positions (EAGLE, DFlash, ...) limits
    it only when its RoPE cannot simply be resized (``speculator_config.max_model_len``). Without the draft's
    config.json (a checkpoint postinit cannot find) a plain draft's limit is ``speculative_config.max_model_len``."""
    if not c["speculative_config"] or not c["model_config"]:
        return None
    method = c[_SC + "method"]
    if _draft_of(c) is not None:
        shares = method != "draft_model" and spec.rope_only_sizes_cache(_draft_rope(c))
        draft = None if shares else c[_D + "max_model_len"]
    else:
        draft = c[_SC + "max_model_len"] if method == "draft_model" else None
    target = c["model_config.max_model_len"]
    if draft is None or target is None or draft >= target:
        return None
    return Outcome.log({"model_config.max_model_len": draft}, draft=draft, target=target)


# ----------------------------------------------------------------- the draft checkpoint's ModelConfig (draft.*)

_D = "draft."
_DRAFT_SRC = ("the draft's ModelConfig, built by DraftModelSpeculatorConfig.configure "
              "(vllm/v1/worker/gpu/spec_decode/speculator_config.py:191-210) inside SpeculativeConfig.__post_init__")
_DRAFT_OPTIONS: dict[str, Any] = dict(methods=_DRAFT_MODEL_METHODS, mtp=True)
"""0.34.0 builds a draft ModelConfig for every DraftModelSpeculatorConfig: a plain draft model and DFlash too,
and MTP's (the target checkpoint) runs the same length derivation and cap."""


def _draft_of(c: Mapping[str, Any]) -> str | None:
    return spec.draft_of(c, methods=_DRAFT_MODEL_METHODS, mtp=True)


def _draft_rope(c: Mapping[str, Any]) -> Any:
    return spec.draft_hf(c, "rope_scaling", methods=_DRAFT_MODEL_METHODS, mtp=True)


_DRAFT_PATCHES = (
    patch("speculative.draft-architecture", methods=_DRAFT_MODEL_METHODS, renames=mtp034.DRAFT_RENAMES,
          source=f"vllm/config/model.py ModelConfig.__post_init__ ({_DRAFT_SRC}); {_REF}"),
    patch("speculative.draft-max-model-len", **_DRAFT_OPTIONS, user_len=True, options=_MAX_LEN_OPTIONS,
          source=f"vllm/config/model.py _get_and_verify_max_len (2589-2740) for {_DRAFT_SRC}: max_model_len="
          f"speculative_config.max_model_len, spec_target_max_model_len=the target's; {_REF}"),
    patch("speculative.draft-max-model-len-log", **_DRAFT_OPTIONS,
          source=f"vllm/config/model.py ModelConfig.get_and_verify_max_len ({_DRAFT_SRC}); {_REF}"),
    patch("speculative.draft-max-model-len-override", **_DRAFT_OPTIONS, log=True,
          message="Overriding draft model max model len from {draft} to {result}", level="info",
          source=f"{_SPEC}._maybe_override_draft_max_model_len (vllm/config/speculative.py:1442-1484), called by "
          f"DraftModelSpeculatorConfig.configure (speculator_config.py:240-246); {_REF}"),
)


@rule(
    "speculative.draft-max-position-embeddings",
    title="A draft that shares the target's positions has its max_position_embeddings raised to the target's length",
    phase="sub_configs",
    kind="check",
    reads=(*spec.DRAFT_READS, "model_config.max_model_len"),
    after=("speculative.draft-max-model-len-log",),
    source=f"{_SPEC}._maybe_override_draft_max_position_embeddings (vllm/config/speculative.py:1486-1528), called "
    f"by DraftModelSpeculatorConfig.configure (speculator_config.py:217-220) where shares_target_positions; {_REF}",
    message="Overriding draft model max_position_embeddings from {draft} to the target model's max_model_len "
    "({target}); the draft shares the target's positional space.",
    level="info",
)
def draft_max_position_embeddings(c: Mapping[str, Any]) -> RuleResult:
    """The proposer feeds the draft the target's positions, so a shorter rotary cache would be read out of
    bounds; only cache-only RoPE types are resized (a plain draft model has positions of its own)."""
    if _draft_of(c) is None or c[_SC + "method"] == "draft_model":
        return None
    draft = spec.draft_hf(c, "max_position_embeddings", methods=_DRAFT_MODEL_METHODS, mtp=True)
    target = c["model_config.max_model_len"]
    if draft is None or target is None or draft >= target or not spec.rope_only_sizes_cache(_draft_rope(c)):
        return None
    return Outcome.log(draft=draft, target=target)


_TOKENIZER_MODES = {
    "Alpamayo2Super": "alpamayo2_super", "MoonshotKimiaForCausalLM": "kimi_audio",
    "KimiK3ForConditionalGeneration": "kimi_k3", "KimiK31ForConditionalGeneration": "kimi_k3",
    "DeepseekV32ForCausalLM": "deepseek_v32", "DeepseekV4ForCausalLM": "deepseek_v4",
    "DeepseekV4ForConditionalGeneration": "deepseek_v4", "DeepseekV41ForCausalLM": "deepseek_v41",
    "InklingForCausalLM": "inkling", "InklingForConditionalGeneration": "inkling",
}
"""The resolved architectures 0.34.0 gives a tokenizer mode of their own (vllm/config/model.py:764-788)."""


@rule(
    "model.tokenizer-mode-default",
    title="An automatic tokenizer mode becomes the architecture's own (DeepSeek-V3.2/V4, Kimi, Inkling, ...)",
    phase="model_config",
    kind="default",
    reads=("model_config", _M + "tokenizer_mode", _M + "model_impl", _M + "architecture"),
    writes=(_M + "tokenizer_mode",),
    after=("model.architecture",),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:763-794, right after the architecture is resolved); {_REF}",
    message="Defaulting to tokenizer_mode={mode!r} for {arch}",
    level="info",
)
def tokenizer_mode_default(c: Mapping[str, Any]) -> RuleResult:
    """These models ship tokenizers (or chat encodings) the generic HF path cannot drive; a mode the user chose is
    kept. TerraTorch models get their own mode whatever the architecture."""
    if not c["model_config"] or c[_M + "tokenizer_mode"] != "auto":
        return None
    arch = c[_M + "architecture"]
    mode = "terratorch" if c[_M + "model_impl"] == "terratorch" else _TOKENIZER_MODES.get(str(arch))
    if mode is None:
        return None
    return Outcome.log({_M + "tokenizer_mode": mode}, mode=mode, arch=arch)


@rule(
    "models.deepseek-v32-cache-dtype",
    title="DeepSeek-V3.2: a bfloat16 KV cache is the default one; the indexer's logits default by GPU family",
    phase="model",
    kind="override",
    reads=("model_config", "usage.config_updated_on_input", _M + "architecture", _M + "hf_config.index_topk",
           "cache_config.cache_dtype", "attention_config.indexer_logits_dtype", "platform.kind",
           "platform.capability"),
    writes=("cache_config.cache_dtype", "attention_config.indexer_logits_dtype"),
    source=f"vllm/model_executor/models/config.py DeepseekV32ForCausalLM.verify_and_update_config (80-95), "
    f"_set_deepseek_indexer_logits_dtype (68-77, mqa_logits_use_mx_scales: CUDA SM 10.x); {_REF}",
    message="Using bfloat16 kv-cache for DeepSeekV3.2",
    level="info",
)
def deepseek_v32_cache_dtype(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 no longer rewrites an fp8 KV cache to fp8_ds_mla here. The MQA logits kernels reduce in BF16 on SM
    10.x, so the indexer's logits default to bfloat16 there and float32 elsewhere; a dtype the user chose stays."""
    if not models._on(c, "DeepseekV32ForCausalLM"):
        return None
    if c[_M + "hf_config.index_topk"] is None:
        return Violation("", hint="DeepSeek-V3.2 config must have index_topk", error="AssertionError")
    out: dict[str, Any] = {}
    bf16 = c["cache_config.cache_dtype"] == "bfloat16"
    if bf16:
        out["cache_config.cache_dtype"] = "auto"
    if c["attention_config.indexer_logits_dtype"] == "auto":
        sm100 = hooks.capability_family(c, 10)
        out["attention_config.indexer_logits_dtype"] = "bfloat16" if sm100 else "float32"
    return Outcome(out, message="Using bfloat16 kv-cache for DeepSeekV3.2" if bf16 else "") if out else None


@rule(
    "speculative.mtp-reused-layer",
    title="More than one MTP token reruns the same MTP layer",
    phase="sub_configs",
    kind="check",
    reads=(*mtp034.READS, _SC + "num_speculative_tokens"),
    source=f"{_SPEC}.__post_init__ (config_cls.configure): MTPSpeculatorConfig.adapt_draft_model_config "
    f"(vllm/v1/worker/gpu/spec_decode/mtp/config.py:80-98); {_REF}",
    message="Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may "
    "result in lower acceptance rate",
    level="warning",
)
def mtp_reused_layer(c: Mapping[str, Any]) -> RuleResult:
    """A checkpoint's MTP layer was trained for one step ahead; drafting further reuses it. The draft's model type
    is the target's rewritten into its MTP type (hf_config_override, :func:`~postinit.rules.v0_34_0_spec.mtp_draft`);
    the Step-3.5/5 and Inkling MTP drafts are exempt."""
    if not c["speculative_config"] or c[_SC + "method"] != "mtp":
        return None
    n = c[_SC + "num_speculative_tokens"]
    draft = mtp034.mtp_draft(c) if c["model_config"] else None
    draft_type = draft.model_type if draft is not None else c["model_config.hf_config.model_type"]
    if n is None or n <= 1 or draft_type in mtp034.SINGLE_LAYER_DRAFTS:
        return None
    return Outcome.log()


_SPEC_FLAGS = (("spec_method", "--spec-method", "method"), ("spec_model", "--spec-model", "model"),
               ("spec_tokens", "--spec-tokens", "num_speculative_tokens"))


@rule(
    "engine-args.spec-flags-given-twice",
    title="--spec-method / --spec-model / --spec-tokens exclude the same key in --speculative-config",
    phase="sub_configs",
    kind="check",
    reads=("usage.via_engine_args", "usage.given_twice"),
    source="vllm/engine/arg_utils.py EngineArgs.create_speculative_config (vllm/engine/arg_utils.py:2141-2155); "
    f"{_REF}",
    message="<flag> and --speculative-config['<key>'] are mutually exclusive",
)
def spec_flags_given_twice(c: Mapping[str, Any]) -> RuleResult:
    """The flags are shorthands for --speculative-config's keys: vLLM will not guess which of the two to keep."""
    given = c["usage.given_twice"] or ()
    if not c["usage.via_engine_args"]:
        return None
    for dest, flag, key in _SPEC_FLAGS:
        if dest in given:
            return Violation(f"{flag} and --speculative-config['{key}'] are mutually exclusive")
    return None


_NAMED_METHODS = (("eagle-", "eagle"), ("eagle3", "eagle3"), ("dflash", "dflash"), ("dspark", "dspark"))
"""``_CHECKPOINT_DETECTION_ORDER`` by name: each speculator's ``matches`` looks for its word in the lower-cased draft
path (vllm/v1/worker/gpu/spec_decode/{eagle,dflash,dspark}/config.py)."""


@rule(
    "speculative.method-from-model-name",
    title="Without a method, a draft is detected by name (ngram, EAGLE, EAGLE-3, DFlash, DSpark) or is a plain "
    "draft model",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "model"),
    writes=(_SC + "method",),
    source=f"{_SPEC}.__post_init__ (vllm/config/speculative.py:1358-1372) and _resolve_checkpoint_config_class "
    "(vllm/v1/worker/gpu/spec_decode/speculator_config.py:405-440), called by DraftModelSpeculatorConfig.configure "
    f"(:202-204); {_REF}",
    level="debug",
)
def method_from_model_name(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 runs any causal LM as a draft: what no detector claims is ``draft_model`` (StandaloneAR), and so is a
    config with neither method nor model. Detection from the draft's own config.json (a declared speculator class,
    an MTP model_type) needs the draft's facts, which postinit does not load: such a draft counts as a plain one."""
    if not c["speculative_config"] or c[_SC + "method"] is not None:
        return None
    model = c[_SC + "model"]
    if model is None:
        return {_SC + "method": "draft_model"}
    if model in ("ngram", "[ngram]"):
        return {_SC + "method": "ngram"}
    name = str(model).lower()
    for word, method in _NAMED_METHODS:
        if word in name:
            return {_SC + "method": method}
    return {_SC + "method": "draft_model"}


@rule(
    "speculative.draft-decode-context-parallel-size",
    title="The draft's decode context parallelism: the target's, or 1",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SC + "method", _SC + "model", _SC + "draft_decode_context_parallel_size",
           "parallel_config.decode_context_parallel_size"),
    writes=(_SC + "draft_decode_context_parallel_size",),
    source=f"{_SPEC}._verify_and_get_draft_dcp (vllm/config/speculative.py:1554-1564), called by "
    "DraftModelSpeculatorConfig.configure (vllm/v1/worker/gpu/spec_decode/speculator_config.py:232-239); "
    f"{_REF}",
)
def draft_decode_context_parallel_size(c: Mapping[str, Any]) -> RuleResult:
    """A draft checkpoint shards its KV cache like the target unless told otherwise (a DFlash/DSpark draft, not
    MLA in the drafts postinit knows of, stays replicated); any size but 1 or the target's is refused. Speculators
    without a draft model (n-gram, suffix) leave it unset."""
    if not c["speculative_config"] or c[_SC + "method"] not in _DRAFT_MODEL_METHODS or c[_SC + "model"] is None:
        return None
    target, draft = c["parallel_config.decode_context_parallel_size"], c[_SC + "draft_decode_context_parallel_size"]
    if draft is None:
        return {_SC + "draft_decode_context_parallel_size": 1 if c[_SC + "method"] in ("dflash", "dspark") else target}
    if draft not in (1, target):
        return Violation(f"draft_dcp={draft} must be 1 or {target}.")
    return None


@rule(
    "vllm.dynamic-speculative-decoding-data-parallel",
    title="Dynamic speculative decoding is off with data parallelism",
    phase="core",
    kind="override",
    reads=("speculative_config", _SC + "num_speculative_tokens_per_batch_size", _SC + "num_speculative_tokens",
           "parallel_config.data_parallel_size"),
    writes=(_SC + "num_speculative_tokens_per_batch_size",),
    source=f"{_VLLM}._maybe_disable_dynamic_sd_for_data_parallel (vllm/config/vllm.py:1031-1048); ref step-7, "
    f"{_REF}",
    message="Dynamic speculative decoding is not supported with data parallelism because data-parallel ranks can "
    "select different speculative-token counts, causing DP divergence and deadlocks. Disabling "
    "num_speculative_tokens_per_batch_size and falling back to static num_speculative_tokens={n}.",
    level="warning",
)
def dynamic_speculative_decoding_data_parallel(c: Mapping[str, Any]) -> RuleResult:
    """Data-parallel ranks must run the same number of draft tokens, so a per-batch-size schedule is dropped."""
    if not c["speculative_config"] or c[_SC + "num_speculative_tokens_per_batch_size"] is None \
            or c["parallel_config.data_parallel_size"] <= 1:
        return None
    return Outcome.log({_SC + "num_speculative_tokens_per_batch_size": None}, n=c[_SC + "num_speculative_tokens"])


def num_lookahead_tokens(c: Mapping[str, Any]) -> int:
    """``VllmConfig.num_lookahead_tokens``: the KV slots a drafter reserves past the target's query (EAGLE/MTP,
    draft models and anchor-sampling DSpark: the speculative tokens; DFlash one more; n-gram and suffix none)."""
    if not c["speculative_config"]:
        return 0
    k, method = int(c[_SC + "num_speculative_tokens"] or 0), c[_SC + "method"]
    if method == "dflash":
        return k + 1
    return k if method in ("eagle", "eagle3", "mtp", "draft_model", "dspark") else 0


@rule(
    "vllm.speculative-lookahead-slots",
    title="The token budget must exceed the drafter's lookahead slots",
    phase="core",
    kind="check",
    reads=("speculative_config", _SC + "num_speculative_tokens", _SC + "method",
           "scheduler_config.max_num_batched_tokens"),
    after=("scheduler.max-num-scheduled-tokens",),
    source=f"{_VLLM}._set_max_num_scheduled_tokens (vllm/config/vllm.py:2291-2299; num_lookahead_tokens: "
    f"vllm/v1/worker/gpu/spec_decode/*/config.py); ref step-12, {_REF}",
)
def speculative_lookahead_slots(c: Mapping[str, Any]) -> RuleResult:
    """A step must schedule at least one token besides the KV slots the drafter reserves."""
    budget, ahead = c["scheduler_config.max_num_batched_tokens"], num_lookahead_tokens(c)
    if c["speculative_config"] and budget is not None and budget <= ahead:
        return Violation("VllmConfig does not have enough slots to schedule a token and support the speculative "
                         f"decoding settings. Got max_num_batched_tokens={budget} and num_lookahead_tokens={ahead}.")
    return None


@rule(
    "vllm.draft-pass-active-seqs",
    title="DFlash's draft pass has a query per lookahead slot: the requests it fits bound max_num_active_seqs",
    phase="core",
    kind="override",
    reads=("speculative_config", _SC + "num_speculative_tokens", _SC + "method",
           "scheduler_config.max_num_batched_tokens", "scheduler_config.max_num_active_seqs",
           "scheduler_config.max_num_seqs"),
    writes=("scheduler_config.max_num_active_seqs",),
    after=("vllm.speculative-lookahead-slots",),
    source=f"{_VLLM}._set_max_num_scheduled_tokens (vllm/config/vllm.py:2300-2319), DFlashSpeculatorConfig."
    f"max_num_draft_seqs (vllm/v1/worker/gpu/spec_decode/dflash/config.py:58-60; every other speculator: None, "
    f"unlimited); {_REF}",
    message="The <method> draft pass fits at most <n> requests within max_num_batched_tokens=<tokens>. Overriding "
    "max_num_active_seqs from <active> to <n>.",
    level="warning",
)
def draft_pass_active_seqs(c: Mapping[str, Any]) -> RuleResult:
    """``max_num_batched_tokens // num_lookahead_tokens`` requests fit the draft pass (DFlash: the speculative
    tokens plus a bonus query each); the active requests (max_num_seqs unless set) are capped there."""
    if not c["speculative_config"] or c[_SC + "method"] != "dflash":
        return None
    budget = c["scheduler_config.max_num_batched_tokens"]
    if budget is None:
        return None
    fits = budget // num_lookahead_tokens(c)
    active = c["scheduler_config.max_num_active_seqs"] or c["scheduler_config.max_num_seqs"]
    if active is None or fits >= active:
        return None
    return Outcome({"scheduler_config.max_num_active_seqs": fits},
                   message=f"The dflash draft pass fits at most {fits} requests within max_num_batched_tokens="
                   f"{budget}. Overriding max_num_active_seqs from {active} to {fits}.")


_WM = "watermark_config."


_RC = "reasoning_config."

REASONING_PARSERS_0340 = (
    "beam", "cohere_command3", "cohere_command4", "deepseek_r1", "deepseek_v3", "deepseek_v4", "deepseek_v41",
    "ernie45", "gemma4", "glm45", "glm47", "granite", "granite_thinking_parser", "hf", "holo2", "hunyuan_a13b",
    "hy_v3", "hy_v4", "inkling", "k2_horizon", "kimi_k2", "kimi_k3", "ling3", "mimo", "minicpmv", "minimax_m2",
    "minimax_m2_append_think", "minimax_m3", "mistral", "muse", "muse_glimmer", "musespark", "nemotron_v3", "olmo3",
    "openai_gptoss", "plamo3", "poolside_v1", "qwen3", "ripple", "seed_oss", "step3", "step3p5", "step5", "zaya",
)  # fmt: skip
"""The reasoning parsers vLLM 0.34.0 registers (``ReasoningParserManager.list_registered()``, sorted; the lazy
table of vllm/reasoning/__init__.py)."""

REASONING_PARSERS_WITHOUT_STRINGS_0340 = frozenset({
    "deepseek_v3", "granite", "hunyuan_a13b", "minimax_m2_append_think", "muse", "muse_glimmer", "musespark",
    "openai_gptoss",
})  # fmt: skip
"""The parsers of 0.34.0 whose ``reasoning_start_str`` / ``reasoning_end_str`` are None (read from each class built
on a tokenizer that has ``<think>`` and ``</think>``): reasoning token ids come only from strings the user gives.
The others name both strings; whether their tokens are in the vocabulary (a parser refuses a tokenizer without
them) or tokenize to anything is the tokenizer's answer, which postinit does not load: it takes them as found."""

_NEEDS_TOKENIZER = "The model tokenizer must be passed to the ReasoningParser constructor during construction."
_RESPONSE_TEMPLATE = ("Parsing with a response template requires `response_template` metadata in the tokenizer "
                      "configuration")
REASONING_PARSER_WITHOUT_TOKENIZER_0340: Mapping[str, tuple[str, str]] = {
    **{p: ("ValueError", _NEEDS_TOKENIZER) for p in (
        "deepseek_r1", "deepseek_v3", "ernie45", "holo2", "hy_v3", "k2_horizon", "kimi_k3", "minimax_m3",
        "poolside_v1", "step3", "step5")},
    **{p: ("ValueError", _RESPONSE_TEMPLATE) for p in ("beam", "hf")},
    **{p: ("AttributeError", "'NoneType' object has no attribute 'convert_tokens_to_ids'")
       for p in ("cohere_command3", "cohere_command4")},
    **{p: ("AttributeError", "'NoneType' object has no attribute 'get_vocab'") for p in (
        "deepseek_v4", "deepseek_v41", "gemma4", "glm45", "glm47", "granite_thinking_parser", "hy_v4", "inkling",
        "kimi_k2", "ling3", "mimo", "minicpmv", "minimax_m2", "minimax_m2_append_think", "mistral", "nemotron_v3",
        "olmo3", "plamo3", "qwen3", "ripple", "seed_oss", "step3p5", "zaya")},
}  # fmt: skip
"""What each 0.34.0 parser's constructor raises given no tokenizer (``--skip-tokenizer-init``: the reasoning config
builds the parser on ``cached_tokenizer_from_config``'s None; read from each class built on None). The parsers not
listed (those without reasoning strings) build."""

_REASONING_FAILED = ("Auto-initialization of reasoning token IDs failed. Please check whether your reasoning parser "
                     "has implemented the `reasoning_start_str` and `reasoning_end_str`.")


@rule(
    "reasoning.token-ids-not-initialized",
    title="Reasoning token ids cannot be initialized without both reasoning strings; an unknown parser is refused",
    phase="finalize",
    kind="check",
    reads=("model_config", "model_config.skip_tokenizer_init", "reasoning_config", _RC + "reasoning_parser",
           _RC + "reasoning_start_str", _RC + "reasoning_end_str"),
    source="vllm/config/reasoning.py ReasoningConfig.initialize_token_ids (69-125), called by VllmConfig.__post_init__ "
    "(vllm/config/vllm.py:2121-2128); vllm/reasoning/abs_reasoning_parsers.py "
    f"ReasoningParserManager.get_reasoning_parser (262-281); {_REF}",
    message=_REASONING_FAILED,
    level="warning",
)
def reasoning_token_ids_not_initialized(c: Mapping[str, Any]) -> RuleResult:
    """The token ids come from the two strings, a gap filled by the parser's own string: a missing one leaves
    reasoning off (a warning). A parser name vLLM does not register is a KeyError of its parser manager. (Whether a
    string tokenizes to anything is the tokenizer's answer: postinit takes a named string as tokenizing.)"""
    if not c["model_config"] or not c["reasoning_config"]:
        return None
    parser = c[_RC + "reasoning_parser"]
    if parser and parser not in REASONING_PARSERS_0340:
        text = f"Reasoning parser '{parser}' not found. Available parsers: {', '.join(REASONING_PARSERS_0340)}"
        return Violation(repr(text), error="KeyError",
                         hint=f"name one of the {len(REASONING_PARSERS_0340)} reasoning parsers of vLLM 0.34.0")
    no_tokenizer = c["model_config.skip_tokenizer_init"]
    if parser and no_tokenizer and parser in REASONING_PARSER_WITHOUT_TOKENIZER_0340:
        error, message = REASONING_PARSER_WITHOUT_TOKENIZER_0340[parser]
        return Violation(message, error=error, hint="a reasoning parser reads the tokenizer: drop --skip-tokenizer-init")
    own = bool(parser) and parser not in REASONING_PARSERS_WITHOUT_STRINGS_0340
    if own or (c[_RC + "reasoning_start_str"] and c[_RC + "reasoning_end_str"]):
        if no_tokenizer:  # the strings are encoded with the tokenizer, None here
            return Violation("'NoneType' object has no attribute 'encode'", error="AttributeError",
                             hint="reasoning token ids are read with the tokenizer: drop --skip-tokenizer-init")
        return None
    return Outcome(message=_REASONING_FAILED)


@rule(
    "vllm.watermark-speculative",
    title="Watermarking with speculative decoding: probabilistic drafts, standard rejection, a watermarking drafter",
    phase="verify",
    kind="check",
    reads=("watermark_config", _WM + "algorithm", _WM + "allow_target_only_watermarking", _WM + "alpha",
           "speculative_config", _SC + "method", _SC + "draft_sample_method", _SC + "rejection_sample_method"),
    source=f"{_VLLM}._check_supports_watermarking (vllm/config/vllm.py:1296-1359); ref step-3, {_REF}",
    message="Target-only watermarking leaves accepted draft tokens unwatermarked, weakening detectability in "
    "proportion to the share of output tokens supplied by accepted drafts. | Speculative decoding selects the "
    "watermark key by token role: draft tokens use key A, recovery and bonus tokens use key B. The configured "
    "alpha=<a> is not used.",
    level="warning",
)
def watermark_speculative(c: Mapping[str, Any]) -> RuleResult:
    """Drafted tokens are watermarked only when they are sampled (not greedy) and verified by the standard
    rejection sampler, by a drafter that supports it; only ``dual_key_gumbel`` watermarks drafts."""
    if not c["watermark_config"] or not c["speculative_config"]:
        return None
    if c[_SC + "draft_sample_method"] != "probabilistic":
        return Violation("Speculative decoding with watermarking requires draft_sample_method='probabilistic'.")
    if c[_SC + "rejection_sample_method"] != "standard":
        return Violation("Speculative decoding with watermarking requires rejection_sample_method='standard'.")
    if c[_SC + "method"] not in ("eagle", "eagle3", "mtp", "dflash", "dspark"):
        return Violation("Watermarking supports only dflash, dspark, eagle, eagle3 and mtp speculative decoding, and "
                         "not DFlash2 and LiLiCorr candidate-head drafters yet.")
    dual = c[_WM + "algorithm"] == "dual_key_gumbel"
    if not dual and not c[_WM + "allow_target_only_watermarking"]:
        return Violation(f"The '{c[_WM + 'algorithm']}' watermarking algorithm does not support speculative "
                         "decoding. Set allow_target_only_watermarking=true to leave draft tokens unwatermarked.")
    if not dual:
        return Outcome(message="Target-only watermarking leaves accepted draft tokens unwatermarked, weakening "
                               "detectability in proportion to the share of output tokens supplied by accepted drafts.")
    if c[_WM + "alpha"] != 0.1:
        return Outcome(message="Speculative decoding selects the watermark key by token role: draft tokens use key A, "
                               f"recovery and bonus tokens use key B. The configured alpha={c[_WM + 'alpha']} is not "
                               "used.")
    return None


_HT = "model_config.hf_text_config."


MULTI_MODULE_MTP_READS = (_SC + "method", _HT + "other", _HT + "num_nextn_predict_layers", _SC + "num_speculative_tokens",
                          _SC + "index_share_for_mtp_iteration", _HT + "model_type")
"""What :func:`multi_module_mtp` reads."""


def multi_module_mtp(c: Mapping[str, Any]) -> bool:
    """``SpeculativeConfig.use_multi_module_mtp``: an MTP draft with several modules, chained (not index-shared,
    not MiniMax-M3's). The draft config is the target's checkpoint: its ``n_predict`` / ``num_nextn_predict_layers``."""
    if c[_SC + "method"] != "mtp":
        return False
    other = c[_HT + "other"] or {}
    modules = other.get("n_predict") or c[_HT + "num_nextn_predict_layers"] or 1
    if min(int(modules), c[_SC + "num_speculative_tokens"] or 0) <= 1:
        return False
    share = c[_SC + "index_share_for_mtp_iteration"]
    if share is None:
        share = bool(other.get("index_share_for_mtp_iteration"))
    return not share and c[_HT + "model_type"] != "minimax_m3"


@rule(
    "vllm.num-hash-lookahead-tokens",
    title="Prefix-cache hashes look ahead for EAGLE-style drafters that drop the trailing block",
    phase="finalize",
    kind="derive",
    reads=("speculative_config", _SC + "method", _SC + "disable_eagle_block_drop",
           _SC + "disable_lookahead_block_hashes", _SC + "num_speculative_tokens",
           _SC + "index_share_for_mtp_iteration", _HT + "other", _HT + "num_nextn_predict_layers",
           _HT + "model_type", "kv_transfer_config",
           _KV + "kv_connector", _KV + "kv_connector_extra_config", _APC, "num_hash_lookahead_tokens"),
    writes=("num_hash_lookahead_tokens",),
    source=f"{_VLLM}._resolve_num_hash_lookahead_tokens (vllm/config/vllm.py:633-656; num_prefill_lookahead_tokens: "
    f"vllm/v1/worker/gpu/spec_decode/speculator_config.py:127-131, multi_module_mtp/config.py:13-18); "
    f"ref step-25, {_REF}",
)
def num_hash_lookahead_tokens(c: Mapping[str, Any]) -> RuleResult:
    """An EAGLE/EAGLE3/MTP drafter's KV at a block's last position reads the next token, so prefix-cache hashes
    cover that far ahead: one token (a chain of MTP modules: all the speculative tokens) — where the cache is
    hashed: prefix caching on, or a KV connector that supports lookahead hashes."""
    n = 0
    if c["speculative_config"] and c[_SC + "method"] in _BLOCK_DROP_METHODS \
            and not c[_SC + "disable_eagle_block_drop"] and not c[_SC + "disable_lookahead_block_hashes"]:
        # a KV connector hashes blocks where it supports lookahead hashes; otherwise the prefix cache does
        hashed = _connector_supports_lookahead(c) if c["kv_transfer_config"] else bool(c[_APC])
        if hashed:
            n = int(c[_SC + "num_speculative_tokens"] or 0) if multi_module_mtp(c) else 1
    return None if c["num_hash_lookahead_tokens"] == n else {"num_hash_lookahead_tokens": n}


def _connector_supports_lookahead(c: Mapping[str, Any]) -> bool:
    name = c[_KV + "kv_connector"]
    if name == "MultiConnector":
        children = (c[_KV + "kv_connector_extra_config"] or {}).get("connectors", [])
        return bool(children) and all(isinstance(ch, Mapping) and ch.get("kv_connector") in LOOKAHEAD_CONNECTORS
                                      for ch in children)
    return name in LOOKAHEAD_CONNECTORS


@rule(
    "model.class-overrides",
    title="model_class_overrides registers other model classes (a development / debugging aid)",
    phase="model_config",
    kind="check",
    reads=("model_config", _M + "model_class_overrides"),
    source=f"{_MODEL}._maybe_register_model_class_overrides (vllm/config/model.py:1190-1213, run by the registry "
    f"property the first time the model class is inspected); {_REF}",
    message="Applying model_class_overrides {overrides}. This is intended for development/debugging.",
    level="warning",
)
def class_overrides(c: Mapping[str, Any]) -> RuleResult:
    """Each architecture -> ``module:Class`` pair is registered with the model registry once per process (which
    class it names, and whether it imports, is not modelled)."""
    if not c["model_config"] or not c[_M + "model_class_overrides"]:
        return None
    return Outcome.log(overrides=str(dict(c[_M + "model_class_overrides"])))


@rule(
    "model.sliding-window-zero",
    title="A checkpoint's sliding_window of 0 means no sliding window",
    phase="model_config",
    kind="override",
    reads=("model_config", _HT + "sliding_window", _M + "disable_sliding_window"),
    writes=(_M + "disable_sliding_window", _HT + "sliding_window"),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:835-841, before get_and_verify_max_len); {_REF}",
)
def sliding_window_zero(c: Mapping[str, Any]) -> RuleResult:
    """Some checkpoints disable the sliding window with 0, where vLLM uses None: it is converted so that
    max_model_len is not capped to 0."""
    if not c["model_config"] or c[_HT + "sliding_window"] != 0:
        return None
    return {_M + "disable_sliding_window": True, _HT + "sliding_window": None}


def _plain(value: Any) -> Any:
    """A state value as the JSON it came from (the state keeps sequences as tuples)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


@rule(
    "model.per-layer-config",
    title="A heterogeneous checkpoint (transformers' per_layer_config): vLLM's whole-model view of its layers",
    phase="model_config",
    kind="check",
    reads=("model_config", _H + "other", _H + "num_hidden_layers", _H + "architectures", _H + "kv_lora_rank"),
    source="vllm/config/model_arch.py ModelArchitectureConfig.from_layers (:105-127), from "
    "ModelArchConfigConvertorBase.convert (vllm/transformers_utils/model_arch_config_convertor.py:410-428) in "
    f"{_MODEL}.__post_init__ (vllm/config/model.py:711); {_REF}",
    message="a model must have at least one layer",
)
def per_layer_config(c: Mapping[str, Any]) -> RuleResult:
    """transformers turns a config.json ``per_layer_config`` (even an empty one) into one config per layer
    (``num_hidden_layers`` of them, overrides equal to the global value dropped); vLLM converts each layer and
    merges them before anything else of the model is resolved: no layer at all is refused, and so is a field that
    varies and is not a number (``architectures`` is the first such field it merges). Heterogeneous MLA models are
    refused differently (NotImplementedError) and are left alone here."""
    if not c["model_config"] or c[_H + "kv_lora_rank"]:
        return None
    per_layer = (c[_H + "other"] or {}).get("per_layer_config")
    layers = c[_H + "num_hidden_layers"]
    if not isinstance(per_layer, dict) or not isinstance(layers, int):
        return None
    try:
        overrides = {int(k): v for k, v in per_layer.items()}
    except (TypeError, ValueError):
        return None
    if any(not isinstance(v, dict) or not 0 <= k < layers for k, v in overrides.items()):
        return None  # transformers refuses it first (not modelled)
    if layers == 0:
        return Violation("a model must have at least one layer")
    whole = c[_H + "architectures"]
    values = [_plain(overrides.get(i, {}).get("architectures", whole)) for i in range(layers)]
    if any(v != values[0] for v in values):
        return Violation(
            f"'architectures' varies across layers and has no whole-model value: {sorted(set(map(repr, values)))}. "
            "Only numeric fields collapse (with `max`, to size buffers for the largest layer); give this one an "
            "explicit rule in ModelArchitectureConfig.from_layers.")
    return None


@rule(
    "model.untie-word-embeddings",
    title="Tied word embeddings in a checkpoint that has an lm_head of its own: built untied",
    phase="verify",
    kind="override",
    reads=("model_config", "load_config.load_format", _H + "tie_word_embeddings", _H + "dir_checkpoint_has_lm_head",
           _M + "model"),
    writes=(_H + "tie_word_embeddings", _HT + "tie_word_embeddings", _M + "word_embeddings_untied_by_checkpoint"),
    source="vllm/config/vllm.py VllmConfig.__post_init__ (:1560-1568); "
    f"{_MODEL}.maybe_untie_word_embeddings (vllm/config/model.py:1275-1301); ref step-6, {_REF}",
    message="The config for <model> says the word embeddings are tied, but the checkpoint contains an lm_head. "
    "Loading it to find out whether they really are tied.",
    level="debug",
)
def untie_word_embeddings(c: Mapping[str, Any]) -> RuleResult:
    """Tying regardless would discard the checkpoint's lm_head tensor, so vLLM builds the lm_head untied and lets
    it load (the loader re-ties them if the two tensors match). Dummy weights and vLLM's sharded state dicts do not
    show what the original checkpoint held: then nothing is asked."""
    if not c["model_config"] or c["load_config.load_format"] in ("dummy", "sharded_state", "runai_streamer_sharded"):
        return None
    if c[_H + "tie_word_embeddings"] is not True or c[_H + "dir_checkpoint_has_lm_head"] is not True:
        return None
    return Outcome({_H + "tie_word_embeddings": False, _HT + "tie_word_embeddings": False,
                    _M + "word_embeddings_untied_by_checkpoint": True},
                   message=f"The config for {c[_M + 'model']} says the word embeddings are tied, but the checkpoint "
                   "contains an lm_head. Loading it to find out whether they really are tied.")


@rule(
    "model.sleep-mode-cumem-allocator",
    title="Sleep mode turns the cumem allocator on (CUDA and ROCm)",
    phase="model_config",
    kind="override",
    reads=("model_config", _M + "enable_sleep_mode", _M + "enable_cumem_allocator", "platform.kind"),
    writes=(_M + "enable_cumem_allocator",),
    source=f"{_MODEL}.__post_init__ (vllm/config/model.py:681-690); {_REF}",
    message="Enabling cumem allocator because sleep mode requires it.",
    level="info",
)
def sleep_mode_cumem_allocator(c: Mapping[str, Any]) -> RuleResult:
    """Sleep mode offloads and discards memory through the cumem allocator's pool, so on a CUDA-alike platform
    it is switched on for a model that sleeps."""
    if c["model_config"] and c[_M + "enable_sleep_mode"] and c["platform.kind"] in ("cuda", "rocm") \
            and not c[_M + "enable_cumem_allocator"]:
        return {_M + "enable_cumem_allocator": True}
    return None


# =========================================================================== GptOssForCausalLMConfig (phase model, step 2)

_CC = "compilation_config."
_CAPTURE_FIELDS = tuple(_CC + f for f in (
    "cudagraph_capture_sizes", "max_cudagraph_capture_size", "prefill_cudagraph_capture_token_sizes",
    "max_prefill_cudagraph_capture_tokens", "decode_cudagraph_capture_request_sizes",
    "max_decode_cudagraph_capture_requests"))
_GPTOSS_LEGACY = frozenset({1, 2, 4, *range(8, 256, 8), *range(256, 1024, 16)})
"""The token sizes the legacy 1024-token cap captures."""


@rule(
    "models.gptoss-max-capture-size",
    title="GptOssForCausalLM: prefill graphs up to 1024 tokens and decode graphs up to 1024 tokens of requests",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, *_CAPTURE_FIELDS, "platform.kind", "platform.capability",
           "scheduler_config.max_num_batched_tokens", "parallel_config.data_parallel_size", *QUERY_LEN_READS),
    writes=(_CC + "prefill_cudagraph_capture_token_sizes", _CC + "max_decode_cudagraph_capture_requests"),
    source=f"{_MODELS} GptOssForCausalLMConfig.verify_and_update_config (837-881); ref 8.1:GptOssForCausalLM, "
    f"{_REF}",
    message="Overriding max cuda graph capture size to 1024 for performance.",
    level="info",
)
def gptoss_max_capture_size(c: Mapping[str, Any]) -> RuleResult:
    """Increase the capture range from 512 to 1024 tokens for performance (83 graphs instead of 67).

    0.34.0 expresses the legacy 1024-token cap in the split fields: the prefill token sizes of the old grid
    below the token budget plus the budget, and as many decode requests as 1024 tokens hold at the narrowest
    decode query length (every dynamic speculative-decoding tier with one data-parallel rank). Only when the user
    set no capture size of either kind, and not on SM 10.x (data-center Blackwell), whose defaults are wider; on
    every other platform the hook runs, the CPU's included.
    """
    if not models.step2_on(c) or c[_M + "architecture"] != "GptOssForCausalLM":
        return None
    if any(c[p] is not None for p in _CAPTURE_FIELDS):
        return None
    if hooks.capability_family(c, 10):
        return None
    k = num_speculative_tokens(c)
    lens = decode_query_lens(c) if c["parallel_config.data_parallel_size"] == 1 else {1 + k: 0}
    max_tokens = min(c["scheduler_config.max_num_batched_tokens"], 1024)
    prefill = sorted({s for s in _GPTOSS_LEGACY if s < max_tokens} | {max_tokens})
    return {_CC + "prefill_cudagraph_capture_token_sizes": tuple(prefill),
            _CC + "max_decode_cudagraph_capture_requests": 1024 // min(lens)}


# =========================================================================== MambaModelConfig (phase model, step 2)

_MAMBA_READS = (*models.ON_READS, _M + "is_hybrid")


def _mamba_on(c: Mapping[str, Any]) -> bool:
    """``MambaModelConfig.verify_and_update_config`` runs: a Mamba entry of MODELS_CONFIG_MAP, or any hybrid model
    (``HybridAttentionMambaModelConfig`` calls it)."""
    return models.step2_on(c) and (c[_M + "architecture"] in models.MAMBA_ARCHS or bool(c[_M + "is_hybrid"]))


@rule(
    "models.mamba-prefix-caching",
    title="Mamba/hybrid: the Mamba cache mode follows prefix caching",
    phase="model",
    kind="override",
    reads=(*_MAMBA_READS, _APC, _MODE),
    writes=(_MODE,),
    source=f"{_MODELS} MambaModelConfig.verify_and_update_config (1081-1118); {_REF}",
    message="Mamba cache mode is set to 'align' for {arch} by default when prefix caching is enabled | "
    "Mamba cache mode is set to 'none' when prefix caching is disabled",
)
def mamba_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """With prefix caching the Mamba state is cached at block boundaries ("align"); without it, not at all.

    0.34.0 no longer turns prefix caching off for Mamba models: every one supports it.
    """
    if not _mamba_on(c):
        return None
    if c[_APC]:
        if c[_MODE] == "none":
            return Outcome({_MODE: "align"}, message=f"Mamba cache mode is set to 'align' for "
                           f"{c[_M + 'architecture']} by default when prefix caching is enabled", level="info")
        return None
    if c[_MODE] != "none":
        return Outcome({_MODE: "none"}, message="Mamba cache mode is set to 'none' when prefix caching is disabled",
                       level="warning")
    return None


@rule(
    "models.mamba-chunked-prefill-required",
    title="Mamba/hybrid: prefix caching needs chunked prefill",
    phase="model",
    kind="check",
    reads=(*_MAMBA_READS, _APC, "scheduler_config.enable_chunked_prefill"),
    source=f"{_MODELS} MambaModelConfig.verify_and_update_config (1097-1099); {_REF}",
    message="Chunked prefill is required for Mamba prefix caching.",
)
def mamba_chunked_prefill_required(c: Mapping[str, Any]) -> RuleResult:
    """Mamba states are cached at chunk boundaries, so prefix caching needs the prompt split in chunks."""
    if _mamba_on(c) and c[_APC] and not c["scheduler_config.enable_chunked_prefill"]:
        return Violation("Chunked prefill is required for Mamba prefix caching.", error="AssertionError")
    return None


@rule(
    "models.mamba-block-size-default",
    title="Mamba/hybrid: mamba_block_size defaults to the block size (prefix caching) or max_model_len",
    phase="model",
    kind="default",
    reads=(*_MAMBA_READS, _APC, _MBS, "cache_config.block_size", _M + "max_model_len"),
    writes=(_MBS,),
    source=f"{_MODELS} MambaModelConfig.verify_and_update_config (1100-1118); {_REF}",
)
def mamba_block_size_default(c: Mapping[str, Any]) -> RuleResult:
    """Prefix caching aligns the Mamba block to the attention block (the granularity of a cache hit); without it
    one Mamba state covers the whole sequence. The alignment of the two page sizes is decided at worker start-up
    in 0.34.0 (``Platform.update_block_size_for_backend``), not here."""
    if not _mamba_on(c) or c[_MBS] is not None:
        return None
    return {_MBS: c["cache_config.block_size"] if c[_APC] else c[_M + "max_model_len"]}


@rule(
    "vllm.mamba-stochastic-rounding-needs-fp16",
    title="Stochastic rounding of the Mamba cache needs a float16 SSM cache",
    phase="verify",
    kind="check",
    reads=("mamba_config.enable_stochastic_rounding", "cache_config.mamba_ssm_cache_dtype"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1542-1553); ref step-5, {_REF}",
)
def mamba_stochastic_rounding_needs_fp16(c: Mapping[str, Any]) -> RuleResult:
    """Stochastic rounding unbiases the rounding to float16; another SSM cache dtype has nothing to round to."""
    if c["mamba_config.enable_stochastic_rounding"] and c["cache_config.mamba_ssm_cache_dtype"] != "float16":
        return Violation("Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it "
                         "explicitly, by specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding "
                         "by not specifying `--enable-mamba-cache-stochastic-rounding`.")
    return None


KDA_ARCHS = ("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", "KimiK31ForConditionalGeneration")
"""Architectures whose ReplaySSM state is recovered (RecoverSSM) under speculative decoding (vllm/config/vllm.py:3603)."""
_REPLAY = "cache_config.use_replayssm"


def _mamba_backend(c: Mapping[str, Any]) -> str:
    return str(c["mamba_config.backend"] or "TRITON").upper()


@rule(
    "vllm.kda-recoverssm",
    title="RecoverSSM for KDA models that replay the SSM under speculative decoding",
    phase="validate",
    kind="derive",
    reads=(_REPLAY, "cache_config.use_kda_recoverssm", "model_config", _M + "architecture",
           _SC + "num_speculative_tokens", "speculative_config"),
    writes=("cache_config.use_kda_recoverssm",),
    source=f"{_VLLM}.validate_mamba_cached_kernel (vllm/config/vllm.py:3596-3614); {_REF}",
)
def kda_recoverssm(c: Mapping[str, Any]) -> RuleResult:
    """Derived: on only with ReplaySSM, speculative tokens and a KDA architecture (a value set by hand is
    overwritten)."""
    spec = (c[_SC + "num_speculative_tokens"] or 0) if c["speculative_config"] else 0
    kda = bool(c["model_config"]) and c[_M + "architecture"] in KDA_ARCHS
    value = bool(c[_REPLAY]) and spec > 0 and kda
    return None if c["cache_config.use_kda_recoverssm"] == value else {"cache_config.use_kda_recoverssm": value}


@rule(
    "vllm.replayssm-supported",
    title="--use-replayssm: the architecture, the Mamba backend, the buffer and the parallel layout must allow it",
    phase="validate",
    kind="check",
    reads=(_REPLAY, "cache_config.use_kda_recoverssm", "cache_config.replayssm_buffer_len", _MODE, *mc.INFO_READS,
           "model_config.dtype", "mamba_config.backend", "mamba_config.enable_stochastic_rounding",
           "parallel_config.pipeline_parallel_size", "parallel_config.enable_dbo", "parallel_config.ubatch_size",
           "speculative_config", _SC + "num_speculative_tokens", "kv_transfer_config", _KV + "kv_connector", _KV + "kv_role",
           _KV + "kv_connector_extra_config"),
    after=("vllm.kda-recoverssm",),
    source=f"{_VLLM}.validate_mamba_cached_kernel (vllm/config/vllm.py:3596-3688; a model_validator: pydantic "
    f"wraps its ValueError); {_REF}",
)
def replayssm_supported(c: Mapping[str, Any]) -> RuleResult:
    """ReplaySSM replays the SSM state from a ring of recent inputs: the model must implement it, the kernels
    (Triton, FlashInfer) bound the ring, and KV connectors cannot transfer its state."""
    if not c[_REPLAY]:
        return None
    spec = (c[_SC + "num_speculative_tokens"] or 0) if c["speculative_config"] else 0
    kda = bool(c["cache_config.use_kda_recoverssm"])
    backend, pp, buffer = _mamba_backend(c), c["parallel_config.pipeline_parallel_size"], \
        c["cache_config.replayssm_buffer_len"]
    info = mc.resolved_info(c) if c["model_config"] else None
    if c["model_config"] and (info is None or "replayssm" not in info.interfaces):
        return Violation(f"--use-replayssm is not supported for architecture {c[_M + 'architecture']!r}")
    if backend == "FLASHINFER" and buffer > 16:
        return Violation("FlashInfer ReplaySSM requires --replayssm-buffer-len <= 16")
    if kda:
        if c["mamba_config.enable_stochastic_rounding"]:
            return Violation("RecoverSSM supports bfloat16/float32 SSM state caches, not "
                             "--enable-mamba-cache-stochastic-rounding, which requires an explicit float16 cache")
        if pp > 1:
            return Violation("RecoverSSM currently requires pipeline_parallel_size=1")
        if backend != "TRITON":
            return Violation("RecoverSSM requires --mamba-backend triton")
    elif backend == "FLASHINFER":
        if c[_MODE] == "align" and c["model_config"] and c["model_config.dtype"] != "bfloat16":
            return Violation("FlashInfer ReplaySSM align requires bfloat16 model inputs for its replay rings; SSM "
                             "state cache dtype is independent")
        if c["parallel_config.enable_dbo"] or c["parallel_config.ubatch_size"] > 1:  # use_ubatching
            return Violation("FlashInfer ReplaySSM does not support microbatching")
        if pp > 1:
            return Violation("FlashInfer ReplaySSM currently requires pipeline_parallel_size=1")
        if spec > 0 and buffer < 1 + spec:
            return Violation("FlashInfer ReplaySSM speculative decoding requires --replayssm-buffer-len >= 1 + "
                             f"num_speculative_tokens ({1 + spec}); got {buffer}")
    elif spec > 0:
        return Violation("Mamba2 ReplaySSM speculative decoding requires --mamba-backend flashinfer")
    elif backend != "TRITON":
        return Violation("--use-replayssm requires --mamba-backend triton or flashinfer")
    if c["kv_transfer_config"] and c[_KV + "kv_connector"] is not None and c[_KV + "kv_role"] is not None \
            and not kda:
        return Violation("--use-replayssm is incompatible with KV connectors (P/D disaggregation, KV cache offload)")
    return None


_SPEC_DROPS = {
    "speculative.eagle3-target-type": "vLLM 0.34.0's SpeculativeConfig no longer limits EAGLE-3 to some target "
    "model types (vllm/config/speculative.py _verify_args)",
    "engine-args.draft-model-unsupported": "vLLM 0.34.0 runs draft-model speculative decoding "
    "(StandaloneARSpeculatorConfig, vllm/v1/worker/gpu/spec_decode/standalone_ar/config.py); EngineArgs no longer "
    "refuses method draft_model",
    "speculative.draft-model-unsupported": "vLLM 0.34.0's SpeculativeConfig keeps a plain draft model (method "
    "draft_model) instead of raising NotImplementedError",
}

_MAMBA_STEP_DROPS = {
    "models.mamba-cascade-off": f"{_MODELS} MambaModelConfig no longer touches cascade attention in 0.34.0 "
    "(disable_cascade_attn defaults to True)",
    "models.hybrid-attention-block-size": f"{_MODELS} HybridAttentionMambaModelConfig only calls MambaModelConfig in "
    "0.34.0: the attention block size is aligned to the Mamba page at worker start-up "
    "(Platform.update_block_size_for_backend)",
    "models.hybrid-mamba-page-padding": "0.34.0 pads the Mamba page at worker start-up, not in VllmConfig",
}


TRY_VERIFY_AND_UPDATE_MODEL_CONFIG = sequence(
    "models.try-verify-and-update-model-config",
    "models.gemma3-text-is-causal", "models.jamba-cls-activation", "models.jinavl-ranking",
    "models.qwen2-prm-step-tag-id", "models.qwen2-rm-softmax", "models.qwen3-reranker-method",
    *hooks.MODEL_CONFIG_HOOKS,
    title="The end of ModelConfig.__post_init__: the architecture's MODELS_CONFIG_MAP hook "
    "(verify_and_update_model_config; one applies per architecture)",
    source=f"vllm/config/model.py ModelConfig._try_verify_and_update_model_config (1525-1540); {_REF}",
)

TRY_VERIFY_AND_UPDATE_CONFIG = sequence(
    "models.try-verify-and-update-config",
    *hooks.VLLM_CONFIG_HOOKS,
    "models.deepseek-v32-cache-dtype", "models.gptoss-max-capture-size", "models.gptoss-reasoning-parser",
    "models.nomic-bert-config", "models.gte-new-rotary", "models.jina-roberta-rotary", "models.mamba-prefix-caching", "models.mamba-chunked-prefill-required", "models.mamba-block-size-default",
    "models.seq-cls-config", "models.runai-load-format",
    title="Step 2 in order: the architecture's MODELS_CONFIG_MAP hook (verify_and_update_config), the hybrid "
    "hook (MambaModelConfig), sequence classification, Run:ai",
    source=f"vllm/config/vllm.py VllmConfig.try_verify_and_update_config (2816-2870); {_REF}",
)


DELTA = Delta(
    facts={"model_registry": "model-registry-0.34.0.json", "rope_override_standardized": True,
           "max_model_len_auto": True},
    patch=(*_RUNNER, *_MAX_LEN, *_QUANT, *_HOOKS_IN_MODEL_CONFIG, *_DRAFT_PATCHES,
           patch("model.model-type-known", known=mc.config_model_types("config-model-types-0.34.0.json"),
                 why="0.34.0 runs with transformers 5.22 (788 config classes) and its own 57")),
    replace=(head_dtype, class_interfaces, gptoss_max_capture_size, method_from_model_name, draft_model_from_method, quant_config,
             deepseek_v32_cache_dtype,
             prompt_lookup_defaults, draft_tensor_parallel_size, multimodal_config, pooler_config, qwen2_rm_activation, jinavl_ranking, encoder_decoder_no_chunked_prefill,
             mamba_prefix_caching, mamba_block_size_default, mm_encoder_tp_mode),
    add=(sleep_mode_cumem_allocator, class_overrides, sliding_window_zero, video_pruning_method, reasoning_token_ids_not_initialized, renderer_workers_mm_cache_pooling, deprecated_quantization, pooler_logit_sigma_nonzero, pooler_pooling_type, attn_type, encoder_decoder_mm_cache, mm_device_do_normalize,
         mm_device_do_normalize_forced_off, mm_text_only, mm_encoder_only, language_model_only_mm_cudagraph, torch_shm_needs_spawn, mm_embedding_inputs,
         draft_decode_context_parallel_size, suffix_default_tokens, limit_max_model_len_to_draft, mtp_reused_layer, tokenizer_mode_default,
         draft_max_position_embeddings, ec_transfer_role_required,
         spec_flags_given_twice, dynamic_speculative_decoding_data_parallel, num_hash_lookahead_tokens,
         speculative_lookahead_slots, draft_pass_active_seqs, is_mm_prefix_lm, watermark_speculative,
         mamba_chunked_prefill_required, mamba_stochastic_rounding_needs_fp16, kda_recoverssm, replayssm_supported,
         per_layer_config, untie_word_embeddings),
    drop={**_POOLER_DROPS, **_STEP_14_DROPS, **_SPEC_DROPS, **_MAMBA_STEP_DROPS},
    groups=(TRY_VERIFY_AND_UPDATE_MODEL_CONFIG, TRY_VERIFY_AND_UPDATE_CONFIG),
    after={"model.max-model-len": ("model.sliding-window-zero",)},
    flags_added=("mamba_cache_mode", "mamba_backend", "mamba_ssu_algorithm", "enable_mamba_cache_stochastic_rounding",
                 "mamba_cache_philox_rounds"),
    fields_added=("model_config.attn_type", *(_M + k for k in _MM_OPTIONS
                                              if k not in mc.MULTIMODAL_ARGS and k != "video_pruning_rate"),
                  _M + "mm_processor_device",
                  "env.VLLM_USE_RUST_FRONTEND"),
)
"""The model-specific part of vLLM 0.34.0's delta over 0.11.1."""
