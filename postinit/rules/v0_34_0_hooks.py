"""vLLM 0.34.0's per-architecture model hooks, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

The ``MODELS_CONFIG_MAP`` classes of ``vllm/model_executor/models/config.py`` that earlier versions do not have:
each class's ``verify_and_update_model_config`` runs at the end of ``ModelConfig.__post_init__`` (phase
``model_config``: its raises are the ``model_config`` stage) and its ``verify_and_update_config`` in
``VllmConfig.try_verify_and_update_config`` (phase ``model``: the ``vllm_config`` stage). The hooks 0.11.1
already had (Mamba, GPT-OSS, DeepSeek-V3.2, the poolers) are in :mod:`postinit.rules.v0_34_0_models`, whose
two sequences list these rules too.

Unknown ``config.json`` keys (``kda_allow_negative_eigenvalues``, ...) are read from ``hf_config.other``, where
the loader keeps every key it has no field for (as transformers keeps them as attributes); a key the checkpoint
does not give reads as vLLM's ``getattr(hf_config, key, None)`` does.

Sources (``source=``) are files of the ``vllm==0.34.0`` wheel (``site-packages/vllm/``); every rule here
carries the reference tag ``v0.34.0``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules import models
from postinit.rules.versions import Delta
from postinit.schema import CompilationMode, CUDAGraphMode

__all__ = ["DELTA", "MODEL_CONFIG_HOOKS", "VLLM_CONFIG_HOOKS"]

_M = "model_config."
_H = "model_config.hf_config."
_HT = "model_config.hf_text_config."
_SRC = "vllm/model_executor/models/config.py"
_REF = "ref v0.34.0"


def _other(c: Mapping[str, Any], key: str, default: Any = None, *, text: bool = False) -> Any:
    """``getattr(hf_config, key, default)`` for a config.json key postinit has no field for."""
    other = c[(_HT if text else _H) + "other"] or {}
    return other.get(key, default)


# =========================================================================== AliceAI (config.py:30-65)

_ALICE = "AliceAIForCausalLM"


@rule(
    "models.alice-ai-checkpoint",
    title="AliceAI: the checkpoint must declare positive-only KDA eigenvalues and a bias-corrected sigmoid router",
    phase="model_config",
    kind="check",
    reads=(*models.ON_READS, _H + "other"),
    source=f"{_SRC} AliceAIForCausalLMConfig.verify_and_update_model_config (33-41); {_REF}",
)
def alice_ai_checkpoint(c: Mapping[str, Any]) -> RuleResult:
    """The three checkpoint facts the implementation hard-codes, checked in vLLM's order; a key the checkpoint
    omits fails its check (``getattr(..., None)`` is neither False nor 'sigmoid' nor True)."""
    if not models.step2_on(c, _ALICE):
        return None
    if _other(c, "kda_allow_negative_eigenvalues") is not False:
        return Violation("AliceAI requires kda_allow_negative_eigenvalues=false", error="NotImplementedError")
    if _other(c, "router_score_function") != "sigmoid":
        return Violation("AliceAI requires router_score_function='sigmoid'")
    if _other(c, "router_bias_correction") is not True:
        return Violation("AliceAI requires router_bias_correction=true")
    return None


@rule(
    "models.alice-ai-mtp-ignored",
    title="AliceAI: MTP layers of the checkpoint are ignored (warning)",
    phase="model_config",
    kind="check",
    reads=(*models.ON_READS, _H + "other"),
    after=("models.alice-ai-checkpoint",),
    source=f"{_SRC} AliceAIForCausalLMConfig.verify_and_update_model_config (42-50); {_REF}",
    message="AliceAI checkpoint declares {n} MTP layer(s), but this implementation ignores the MTP configuration "
    "and weights; MTP speculative decoding is unavailable.",
    level="warning",
)
def alice_ai_mtp_ignored(c: Mapping[str, Any]) -> RuleResult:
    """A truthy ``mtp_num_hidden_layers`` is only warned about (the draft layers are not built)."""
    if not models.step2_on(c, _ALICE):
        return None
    n = _other(c, "mtp_num_hidden_layers", 0)
    return Outcome.log(n=n) if n else None


@rule(
    "models.alice-ai-parallel",
    title="AliceAI: no pipeline parallelism, no speculative method that needs auxiliary hidden states",
    phase="model",
    kind="check",
    reads=(*models.ON_READS, "parallel_config.pipeline_parallel_size", "speculative_config",
           "speculative_config.method"),
    source=f"{_SRC} AliceAIForCausalLMConfig.verify_and_update_config (52-65; uses_aux_hidden_states: "
    f"vllm/config/speculative.py SpeculativeConfig.uses_aux_hidden_states, the speculator's); {_REF}",
)
def alice_ai_parallel(c: Mapping[str, Any]) -> RuleResult:
    """Pipeline parallelism first, then a speculator that reads auxiliary hidden states (EAGLE-3, DFlash, DSpark,
    hidden-state extraction)."""
    if not models.step2_on(c, _ALICE):
        return None
    if c["parallel_config.pipeline_parallel_size"] != 1:
        return Violation("AliceAI does not support pipeline parallelism; pipeline_parallel_size=1 is required",
                         error="NotImplementedError")
    method = c["speculative_config.method"] if c["speculative_config"] else None
    if method in _AUX_HIDDEN_METHODS:
        return Violation(f"AliceAI does not support speculative method {method!r} because it requires auxiliary "
                         "hidden states", error="NotImplementedError")
    return None


_AUX_HIDDEN_METHODS = ("extract_hidden_states", "eagle3", "dflash", "dspark")
"""Speculative methods whose speculator reads the target's auxiliary hidden states (see hashing_v0_34_0)."""


# =========================================================================== the MLA model types (0.34.0's list)

MLA_MODEL_TYPES = frozenset({
    "axk1", "deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_v4", "deepseek_v41", "dots3_note", "deepseek_mtp",
    "k3_dspark", "glm5_next", "glm5_next_text", "glm_moe_dsa", "glm4_moe_lite", "glm4_moe_lite_mtp", "kimi_k2",
    "kimi_linear", "longcat_flash", "mistral_large_4", "pangu_ultra_moe", "pangu_ultra_moe_mtp", "bailing_hybrid",
    "bailing_hybrid_mtp", "bailing_hybrid_v3_mtp", "hy_v4", "hy_v4_mtp",
})
"""vllm/transformers_utils/model_arch_config_convertor.py ModelArchConfigConvertorBase.is_deepseek_mla (294-322)."""


@rule(
    "model.is-deepseek-mla",
    title="DeepSeek-style multi-head latent attention (0.34.0's model types)",
    phase="model_config",
    kind="derive",
    reads=("model_config", _HT + "model_type", _HT + "kv_lora_rank", _HT + "head_dim", _HT + "other"),
    writes=(_M + "is_deepseek_mla",),
    source="vllm/transformers_utils/model_arch_config_convertor.py ModelArchConfigConvertorBase.is_deepseek_mla "
    f"(294-322; get_compress_ratios: vllm/transformers_utils/deepseek_v4_utils.py:6-18); {_REF}",
)
def is_deepseek_mla(c: Mapping[str, Any]) -> RuleResult:
    """A text config of an MLA model type uses MLA when it has ``kv_lora_rank`` (a DeepSeek-V4-style config with
    compress ratios: when it has ``head_dim``). The EAGLE branch (``model_type`` eagle) is not modelled here: an
    EAGLE draft's own config never reaches this rule."""
    if not c["model_config"]:
        return None
    if c[_HT + "model_type"] not in MLA_MODEL_TYPES:
        return {_M + "is_deepseek_mla": False}
    other = c[_HT + "other"] or {}
    # transformers' DeepseekV4Config always fills compress_rates (and layer_types), so its ratios are never empty
    if other.get("compress_ratios") or other.get("compress_rates") or c[_HT + "model_type"] == "deepseek_v4":
        return {_M + "is_deepseek_mla": c[_HT + "head_dim"] is not None}
    return {_M + "is_deepseek_mla": c[_HT + "kv_lora_rank"] is not None}


# =========================================================================== FA4 (the simulated platform's answer)

def fa4_supported(c: Mapping[str, Any]) -> bool:
    """``is_fa_version_supported(4)``: vLLM's FA4 build runs on CUDA SM 9.x, 10.x and 11.x
    (vllm/vllm_flash_attn/flash_attn_interface.py:72-97; elsewhere the import fails or the family is refused)."""
    return c["platform.kind"] == "cuda" and (c["platform.capability"] or 0) // 10 in (9, 10, 11)


def capability_family(c: Mapping[str, Any], major: int) -> bool:
    """``current_platform.is_device_capability_family(major * 10)`` on CUDA (0.34.0's rules' one spelling of it)."""
    return c["platform.kind"] == "cuda" and (c["platform.capability"] or 0) // 10 == major


# =========================================================================== LlamaBidirectional (config.py:1007-1045)

_BIDIR = ("LlamaBidirectionalForSequenceClassification", "LlamaBidirectionalModel")
_POOLING_TYPES = {"avg": "MEAN", "cls": "CLS", "last": "LAST"}
_PC = "model_config.pooler_config."


@rule(
    "models.llama-bidirectional",
    title="Llama bidirectional: not causal; the sequence pooling type from the config's 'pooling' (avg, cls, last)",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "text_config", _H + "other", "model_config.pooler_config"),
    writes=(*models.hf_writes("is_causal"), _PC + "seq_pooling_type"),
    after=("model.pooler-config",),
    source=f"{_SRC} LlamaBidirectionalConfig.verify_and_update_model_config (1008-1045); {_REF}",
)
def llama_bidirectional(c: Mapping[str, Any]) -> RuleResult:
    """No default pooling is assumed (a wrong one would silently give wrong embeddings): a missing key and an
    unknown name are refused; otherwise the user's sequence pooling type is replaced too."""
    if not models.step2_on(c, *_BIDIR):
        return None
    pooling = _other(c, "pooling")
    if pooling is None:
        return Violation(
            "This bidirectional model requires a 'pooling' field in its HF config (one of 'avg', 'cls', 'last'), "
            "but none was found. Unlike the VL variants, no default is assumed here because silently picking a "
            "pooling for an embedding model can produce wrong embeddings.")
    kind = _POOLING_TYPES.get(pooling) if isinstance(pooling, str) else None
    if kind is None:
        return Violation(f"pool_type {pooling!r} not supported")
    if not c["model_config.pooler_config"]:
        return Violation("", error="AssertionError", hint="a bidirectional Llama needs a pooling runner")
    return {**models.hf_set(c, {"is_causal": False}), _PC + "seq_pooling_type": kind}


_NEMOTRON_VL = ("LlamaNemotronVLForSequenceClassification", "LlamaNemotronVLModel")


@rule(
    "models.llama-nemotron-vl",
    title="LlamaNemotronVL embedding / reranking: not causal; the sequence pooling type from the config's 'pooling' "
    "(avg, cls, last; llm_config's, default avg)",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "text_config", _H + "other", "model_config.pooler_config"),
    writes=(*models.hf_writes("is_causal"), _PC + "seq_pooling_type"),
    after=("model.pooler-config",),
    source=f"{_SRC} LlamaNemotronVLConfig.verify_and_update_model_config (1042-1078); {_REF}",
)
def llama_nemotron_vl(c: Mapping[str, Any]) -> RuleResult:
    """Its language model attends both ways. The top-level ``pooling`` wins; without one, a checkpoint's
    ``llm_config`` gives it (``avg`` when it names none). vLLM asserts that the name is a string and refuses one it
    has no pooling type for. (``llm_config`` and ``vision_config`` are sub-config objects of the checkpoint's remote
    config class, whose ``is_causal`` / ``patch_size`` vLLM also sets: postinit reads them as plain mappings.)"""
    if not models.step2_on(c, *_NEMOTRON_VL):
        return None
    pooling = _other(c, "pooling")
    llm_config = _other(c, "llm_config")
    if pooling is None and isinstance(llm_config, Mapping):
        pooling = llm_config.get("pooling", "avg")
    if not isinstance(pooling, str):
        return Violation("", error="AssertionError", hint="LlamaNemotronVL needs its 'pooling' name as a string")
    kind = _POOLING_TYPES.get(pooling)
    if kind is None:
        return Violation(f"pool_type {pooling!r} not supported")
    if not c["model_config.pooler_config"]:
        return Violation("", error="AssertionError", hint="LlamaNemotronVL needs a pooling runner")
    return {**models.hf_set(c, {"is_causal": False}), _PC + "seq_pooling_type": kind}


# =========================================================================== NemotronH (config.py:1143-1170)

_NEMOTRON_H = ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM")
_NEMOTRON_H_VL = ("NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Super_Omni_Reasoning_V3",
                  "NemotronH_Omni_Reasoning_V3", "Nemotron3_5TranscribeForConditionalGeneration")
"""The composite models whose hook applies NemotronH's rule to their text config (NemotronHNanoVLV2Config,
Nemotron3_5TranscribeForConditionalGenerationConfig)."""


@rule(
    "models.nemotron-h-ssm-cache-dtype",
    title="NemotronH (and the Nemotron-H VL / Omni / transcription models' text model): mamba_ssm_cache_dtype "
    "'auto' becomes the checkpoint's, else float32",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "cache_config.mamba_ssm_cache_dtype", _HT + "other"),
    writes=("cache_config.mamba_ssm_cache_dtype",),
    source=f"{_SRC} NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype, verify_and_update_config (1143-1170); "
    f"NemotronHNanoVLV2Config, Nemotron3_5TranscribeForConditionalGenerationConfig.verify_and_update_config "
    f"(1173-1194: hf_config.text_config); {_REF}",
    message="Updating mamba_ssm_cache_dtype to '{dtype}' for NemotronH model",
)
def nemotron_h_ssm_cache_dtype(c: Mapping[str, Any]) -> RuleResult:
    """Only float32 is known to keep accuracy, so it is the default; a checkpoint's ``mamba_ssm_cache_dtype``
    (the text model's) wins, and a dtype the user gave stays."""
    if not models.step2_on(c, *_NEMOTRON_H, *_NEMOTRON_H_VL) or c["cache_config.mamba_ssm_cache_dtype"] != "auto":
        return None
    dtype = _other(c, "mamba_ssm_cache_dtype", "float32", text=True)
    return Outcome.log({"cache_config.mamba_ssm_cache_dtype": dtype}, dtype=dtype)


# =========================================================================== LongCat-Flash n-gram (config.py:1526-1541)

@rule(
    "models.longcat-ngram-compilation",
    title="LongCat-Flash n-gram: no compilation and FULL CUDA graphs unless the user chose",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "compilation_config.mode", "compilation_config.cudagraph_mode"),
    writes=("compilation_config.mode", "compilation_config.cudagraph_mode"),
    source=f"{_SRC} LongcatFlashNgramForCausalLMConfig.verify_and_update_config (1527-1541); {_REF}",
)
def longcat_ngram_compilation(c: Mapping[str, Any]) -> RuleResult:
    """Its zero-expert MoE trips an assert under torch.compile, and its n-gram embeddings are only wired for FULL
    capture: each of the two is set only when the user left it unset."""
    if not models.step2_on(c, "LongcatFlashNgramForCausalLM"):
        return None
    out: dict[str, Any] = {}
    if c["compilation_config.mode"] is None:
        out["compilation_config.mode"] = CompilationMode.NONE
    if c["compilation_config.cudagraph_mode"] is None:
        out["compilation_config.cudagraph_mode"] = CUDAGraphMode.FULL
    return out or None


# =========================================================================== GLM-MoE-DSA (config.py:163-182)

@rule(
    "models.glm-moe-dsa",
    title="GLM-MoE-DSA: an fp8 KV cache on SM 10.x by default; DCP defaults a2a with Q replication",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "cache_config.cache_dtype", "platform.kind", "platform.capability",
           "parallel_config.dcp_comm_backend", "parallel_config.dcp_q_replicate"),
    writes=("cache_config.cache_dtype", "parallel_config.dcp_comm_backend", "parallel_config.dcp_q_replicate"),
    source=f"{_SRC} GlmMoeDsaForCausalLM.verify_and_update_config (163-182; ParallelConfig.set_dcp_defaults: "
    f"vllm/config/parallel.py:686-699); {_REF}",
    message="Using fp8 kv-cache for GlmMoeDsaForCausalLM on SM10x",
)
def glm_moe_dsa(c: Mapping[str, Any]) -> RuleResult:
    """The DCP options are only filled where the user left them unset (the stock defaults come after)."""
    if not models.step2_on(c, "GlmMoeDsaForCausalLM"):
        return None
    out: dict[str, Any] = {}
    fp8 = c["cache_config.cache_dtype"] == "auto" and capability_family(c, 10)
    if fp8:
        out["cache_config.cache_dtype"] = "fp8_e4m3"
    if c["parallel_config.dcp_comm_backend"] is None:
        out["parallel_config.dcp_comm_backend"] = "a2a"
    if c["parallel_config.dcp_q_replicate"] is None:
        out["parallel_config.dcp_q_replicate"] = True
    return Outcome(out, message=None if fp8 else "") if out else None


# =========================================================================== Gemma4 (config.py:531-597)

_GEMMA4 = ("Gemma4ForCausalLM", "Gemma4ForConditionalGeneration", "Gemma4UnifiedForConditionalGeneration",
           "EmbeddingGemma2Model", "DiffusionGemmaForBlockDiffusion")
"""The architectures whose hook runs Gemma4Config.verify_and_update_config (EmbeddingGemma2 and DiffusionGemma call it
first)."""
_GEMMA4_FULL_HEAD_DIM = 512
"""transformers' Gemma4TextConfig: ``global_head_dim`` (the full-attention layers' head size) defaults to 512."""


def gemma4_head_dims(c: Mapping[str, Any]) -> dict[str, int]:
    """``{layer type: head size}`` over the text config's layers, in first-seen order: the full-attention layers
    have ``global_head_dim`` (transformers' per-layer config), the others ``head_dim``."""
    types = c[_HT + "layer_types"] or []
    n = c[_HT + "num_hidden_layers"] or 0
    head, full = c[_HT + "head_dim"], _other(c, "global_head_dim", _GEMMA4_FULL_HEAD_DIM, text=True)
    return {t: (full if t == "full_attention" else head) for t in types[:n]}


@rule(
    "models.gemma4-attention",
    title="Gemma4 with heterogeneous head sizes: FA4 for every layer (per-layer FA3/FA4 for an fp8 KV cache on "
    "SM 9.x); without FA4, TRITON_ATTN",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, _HT + "layer_types", _HT + "num_hidden_layers", _HT + "head_dim", _HT + "other",
           "attention_config.backend", "attention_config.flash_attn_version", "cache_config.cache_dtype",
           "platform.kind", "platform.capability"),
    writes=("attention_config.backend", "attention_config.flash_attn_version"),
    source=f"{_SRC} Gemma4Config.verify_and_update_config (531-597; is_fa_version_supported: "
    f"vllm/v1/attention/backends/fa_utils.py:271-279); {_REF}",
)
def gemma4_attention(c: Mapping[str, Any]) -> RuleResult:
    """FA3 on Hopper cannot take head sizes over 256. Nothing happens when every layer has one head size, or when
    the user chose a flash-attention version or a backend other than FLASH_ATTN (with FA4); without FA4 (or
    over 512) only an unset backend is replaced."""
    if not models.step2_on(c, *_GEMMA4):
        return None
    return _gemma4(c)


def _gemma4(c: Mapping[str, Any]) -> RuleResult:
    dims = gemma4_head_dims(c)
    if len(set(dims.values())) <= 1:
        return None
    backend = c["attention_config.backend"]
    if fa4_supported(c) and max(dims.values()) <= 512:
        if c["attention_config.flash_attn_version"] is not None or backend not in (None, "FLASH_ATTN"):
            return None
        if capability_family(c, 9) and str(c["cache_config.cache_dtype"]).startswith("fp8"):
            return Outcome({}, message=f"Gemma4 model has heterogeneous head dimensions {dims}. Using per-layer "
                           "FA3/FA4 selection for FP8 KV cache on SM90.", level="info")
        return Outcome({"attention_config.flash_attn_version": 4}, message=f"Gemma4 model has heterogeneous head "
                       f"dimensions {dims}. Using FA4 for all layers to avoid mixed FA3/FA4 penalty.", level="info")
    if backend is None:
        return Outcome({"attention_config.backend": "TRITON_ATTN"}, message=f"Gemma4 model has heterogeneous head "
                       f"dimensions {dims}. FA4 not available, forcing TRITON_ATTN backend.", level="info")
    return None


# =========================================================================== Mistral Large 4 (config.py:122-152)

@rule(
    "models.mistral-large4",
    title="Mistral Large 4: sparse MQA for every token, DCP a2a, the checkpoint's fp8 latent KV cache",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "parallel_config.prefill_context_parallel_size", "parallel_config.dcp_comm_backend",
           "parallel_config.dcp_q_replicate", "cache_config.cache_dtype", _HT + "other", "platform.kind",
           _HT + "model_type"),
    writes=("attention_config.sparse_mla_force_mqa", "parallel_config.dcp_comm_backend",
            "parallel_config.dcp_q_replicate", "cache_config.cache_dtype"),
    source=f"{_SRC} MistralLarge4ForCausalLM.verify_and_update_config (122-152; ParallelConfig.set_dcp_defaults: "
    f"vllm/config/parallel.py:686-699), PixtralForConditionalGenerationConfig.verify_and_update_config (155-160); "
    f"{_REF}",
)
def mistral_large4(c: Mapping[str, Any]) -> RuleResult:
    """KV-sharing layers have no latent KV of their own, so all tokens take the sparse MQA path. Without prefill
    context parallelism the DCP defaults are a2a (no Q replication). A checkpoint declaring ``fp8_kv_cache`` gets
    ``fp8_ds_mla`` (``fp8`` on ROCm) when the KV dtype is auto; an explicit bfloat16 opts out (auto). Pixtral runs
    the same hook when its text config is a Mistral Large 4 one (model type ``mistral_large_4``)."""
    if not (models.step2_on(c, "MistralLarge4ForCausalLM") or (
            models.step2_on(c, "PixtralForConditionalGeneration") and c[_HT + "model_type"] == "mistral_large_4")):
        return None
    out: dict[str, Any] = {"attention_config.sparse_mla_force_mqa": True}
    if c["parallel_config.prefill_context_parallel_size"] == 1:
        if c["parallel_config.dcp_comm_backend"] is None:
            out["parallel_config.dcp_comm_backend"] = "a2a"
        if c["parallel_config.dcp_q_replicate"] is None:
            out["parallel_config.dcp_q_replicate"] = False
    dtype = c["cache_config.cache_dtype"]
    if dtype == "auto" and _other(c, "fp8_kv_cache", False, text=True):
        if c["platform.kind"] == "rocm":
            out["cache_config.cache_dtype"] = "fp8"
            return Outcome(out, message="Using fp8 kv-cache for Mistral Large 4 on ROCm", level="info")
        out["cache_config.cache_dtype"] = "fp8_ds_mla"
        return Outcome(out, message="Using fp8_ds_mla kv-cache for Mistral Large 4", level="info")
    if dtype == "bfloat16":
        out["cache_config.cache_dtype"] = "auto"
    return out


# =========================================================================== MiniMax-M3 (config.py:98-120, 1121-1140)

_MINIMAX_M3 = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")
_MINIMAX_M3_INDEX_CACHE_KEYS = ("use_index_cache", "index_topk_freq", "index_skip_topk_offset")


@rule(
    "models.minimax-m3-nvfp4-heads",
    title="MiniMax-M3: an NVFP4 KV cache needs 16 query heads per KV head on each rank",
    phase="model",
    kind="check",
    reads=(*models.ON_READS, "cache_config.cache_dtype", "parallel_config.tensor_parallel_size",
           _HT + "num_attention_heads", _HT + "num_key_value_heads"),
    source=f"{_SRC} MiniMaxM3SparseConfig.verify_and_update_config (98-120; get_kv_quant_mode: "
    f"vllm/v1/kv_cache_interface.py:110-135, an 'nvfp4' prefix other than nvfp4_ds_mla); {_REF}",
)
def minimax_m3_nvfp4_heads(c: Mapping[str, Any]) -> RuleResult:
    """The NVFP4 KV attention kernels (MSA's CUTLASS Q8KV4 prefill) take 16 query heads per KV head: checked per
    rank before the workers start (the text model and the VL model, whose hook class inherits it)."""
    if not models.step2_on(c, *_MINIMAX_M3):
        return None
    dtype = str(c["cache_config.cache_dtype"])
    if not dtype.startswith("nvfp4") or dtype == "nvfp4_ds_mla":
        return None
    tp = c["parallel_config.tensor_parallel_size"]
    heads = c[_HT + "num_attention_heads"] // tp
    kv_heads = max(1, c[_HT + "num_key_value_heads"] // tp)
    if heads != 16 * kv_heads:
        return Violation(
            f"MiniMax-M3 does not support an NVFP4 KV cache with tensor_parallel_size={tp} yet: each rank holds "
            f"{heads} query heads over {kv_heads} KV head(s), and the NVFP4 attention kernels need 16 per KV head. "
            "Use a smaller tensor_parallel_size (with data/expert parallelism) or another kv_cache_dtype.")
    return None


@rule(
    "models.minimax-m3-vl-index-cache",
    title="MiniMax-M3 VL on ROCm: IndexCache overrides belong under text_config",
    phase="model_config",
    kind="check",
    reads=(*models.ON_READS, "platform.kind", "model_config.hf_overrides"),
    source=f"{_SRC} MiniMaxM3SparseForConditionalGenerationConfig.verify_and_update_model_config (1121-1140); "
    f"{_REF}",
)
def minimax_m3_vl_index_cache(c: Mapping[str, Any]) -> RuleResult:
    """The ROCm text model reads use_index_cache / index_topk_freq / index_skip_topk_offset from the text config
    only, so given at the top level of --hf-overrides they are refused with the override to write instead (other
    platforms do not check)."""
    if not models.step2_on(c, "MiniMaxM3SparseForConditionalGeneration") or c["platform.kind"] != "rocm":
        return None
    overrides = c["model_config.hf_overrides"]
    if not isinstance(overrides, Mapping):
        return None
    misplaced = [k for k in _MINIMAX_M3_INDEX_CACHE_KEYS if k in overrides]
    if not misplaced:
        return None
    suggested = {"text_config": {k: overrides[k] for k in misplaced}}
    return Violation(f"MiniMax-M3 reads IndexCache settings from text_config, so top-level {', '.join(misplaced)} "
                     f"would be ignored. Pass them as --hf-overrides '{json.dumps(suggested)}'.")


# =========================================================================== MuseGlimmer (config.py:225-257)

_MUSE = ("MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration")


def _aiter_on(c: Mapping[str, Any]) -> bool:
    """``rocm_aiter_ops.is_enabled()`` (VLLM_ROCM_USE_AITER, on a gfx9 GPU with the aiter package)."""
    return c["platform.kind"] == "rocm" and bool(c["platform.aiter_found"]) \
        and str(c["platform.gcn_arch"] or "").startswith("gfx9") and bool(c["env.VLLM_ROCM_USE_AITER"])


@rule(
    "models.muse-glimmer-aiter",
    title="MuseGlimmer on ROCm with AITER: the AITER flash-attention backend (AITER MHA, no backend given); with it, "
    "Inductor graph partition and the rotary-embedding custom op",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "platform.kind", "platform.aiter_found", "platform.gcn_arch", "env.VLLM_ROCM_USE_AITER",
           "env.VLLM_ROCM_USE_AITER_MHA", "attention_config.backend", "attention_config.backend_per_kind",
           "compilation_config.custom_ops"),
    writes=("attention_config.backend", "compilation_config.use_inductor_graph_partition",
            "compilation_config.custom_ops"),
    source=f"{_SRC} MuseGlimmerAttentionConfig.verify_and_update_config (225-257; rocm_aiter_ops.is_enabled / "
    f"is_mha_enabled: vllm/_aiter_ops.py); {_REF}",
)
def muse_glimmer_aiter(c: Mapping[str, Any]) -> RuleResult:
    """QK norm, RoPE and the KV-cache write stay in one Inductor graph under the AITER FA backend: the graph is
    partitioned by Inductor and RoPE is a custom op (unless the user named it, either way)."""
    if not models.step2_on(c, *_MUSE) or not _aiter_on(c):
        return None
    out: dict[str, Any] = {}
    backend = c["attention_config.backend"]
    per_kind = c["attention_config.backend_per_kind"] or {}
    if c["env.VLLM_ROCM_USE_AITER_MHA"] and backend is None and not per_kind:
        backend = out["attention_config.backend"] = "ROCM_AITER_FA"
    if backend != "ROCM_AITER_FA" and "ROCM_AITER_FA" not in map(str, per_kind.values()):
        return out or None
    out["compilation_config.use_inductor_graph_partition"] = True
    ops = list(c["compilation_config.custom_ops"] or [])
    if "-rotary_embedding" not in ops and "+rotary_embedding" not in ops:
        out["compilation_config.custom_ops"] = [*ops, "+rotary_embedding"]
    return out


# =========================================================================== EmbeddingGemma2 (config.py:600-636)

_EG2 = "EmbeddingGemma2Model"
_MATRYOSHKA = [128, 256, 512, 768]


@rule(
    "models.embedding-gemma2-matryoshka",
    title="EmbeddingGemma2: the Matryoshka dimensions 128, 256, 512, 768 unless the config declares its own",
    phase="model_config",
    kind="default",
    reads=(*models.ON_READS, _H + "text_config", _H + "matryoshka_dimensions", _H + "is_matryoshka"),
    writes=models.hf_writes("matryoshka_dimensions"),
    source=f"{_SRC} EmbeddingGemma2ModelConfig.verify_and_update_model_config (602-612); {_REF}",
)
def embedding_gemma2_matryoshka(c: Mapping[str, Any]) -> RuleResult:
    """Trained with Matryoshka representation learning, but the published configs do not say so; a config that
    declares ``matryoshka_dimensions`` or ``is_matryoshka`` is kept."""
    if not models.step2_on(c, _EG2):
        return None
    if c[_H + "matryoshka_dimensions"] is not None or c[_H + "is_matryoshka"] is not None:
        return None
    return models.hf_set(c, {"matryoshka_dimensions": list(_MATRYOSHKA)})


@rule(
    "models.embedding-gemma2-backend",
    title="EmbeddingGemma2: TRITON_ATTN unless a backend is given (logged either way)",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "attention_config.backend"),
    writes=("attention_config.backend",),
    after=("models.gemma4-attention",),
    source=f"{_SRC} EmbeddingGemma2ModelConfig.verify_and_update_config (614-628); {_REF}",
)
def embedding_gemma2_backend(c: Mapping[str, Any]) -> RuleResult:
    """TRITON_ATTN is the backend validated for heterogeneous head sizes; the Gemma4 part runs first (and may have
    chosen it already)."""
    if not models.step2_on(c, _EG2):
        return None
    backend = c["attention_config.backend"]
    if backend is None:
        return Outcome({"attention_config.backend": "TRITON_ATTN"}, message="EmbeddingGemma2: attention backend not "
                       "specified; defaulting to TRITON_ATTN (validated backend for heterogeneous head dimensions).",
                       level="info")
    return Outcome({}, message=f"EmbeddingGemma2: using attention backend AttentionBackendEnum.{backend}",
                   level="info")


@rule(
    "models.embedding-gemma2-max-model-len",
    title="EmbeddingGemma2: max_model_len capped at 8192 unless the user gave one",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _M + "max_model_len", _M + "original_max_model_len"),
    writes=(_M + "max_model_len",),
    after=("vllm.limit-max-model-len-to-draft",),
    source=f"{_SRC} EmbeddingGemma2ModelConfig.verify_and_update_config (630-636); {_REF}",
)
def embedding_gemma2_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """The derived length (the checkpoint's positions) is capped; a length the user asked for is kept."""
    if not models.step2_on(c, _EG2):
        return None
    if (c[_M + "max_model_len"] or 0) > 8192 and c[_M + "original_max_model_len"] in (None, -1):
        return {_M + "max_model_len": 8192}
    return None


# =========================================================================== DiffusionGemma (config.py:639-708)

_DG = "DiffusionGemmaForBlockDiffusion"


@rule(
    "models.diffusion-gemma-attention",
    title="DiffusionGemma: FlashInfer refused; an unset backend prefers FlashAttention (use_non_causal)",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "attention_config.backend", "attention_config.use_non_causal"),
    writes=("attention_config.use_non_causal",),
    after=("models.gemma4-attention",),
    source=f"{_SRC} DiffusionGemmaModelForBlockDiffusionConfig.verify_and_update_config (650-671); {_REF}",
    message="DiffusionGemma mixes causal and bidirectional attention in one batch; setting use_non_causal=True so "
    "the default backend order prefers FlashAttention over FlashInfer.",
)
def diffusion_gemma_attention(c: Mapping[str, Any]) -> RuleResult:
    """Causal and bidirectional attention share a batch, which FlashInfer cannot run; the Gemma4 part (first) may
    have set TRITON_ATTN already, and then nothing is left to prefer."""
    if not models.step2_on(c, _DG):
        return None
    backend = c["attention_config.backend"]
    if backend == "FLASHINFER":
        return Violation("FlashInfer does not support DiffusionGemma's mixed causal/bidirectional attention. Use "
                         "--attention-backend FLASH_ATTN or TRITON_ATTN instead.")
    if backend is None and not c["attention_config.use_non_causal"]:
        return Outcome.log({"attention_config.use_non_causal": True})
    return None


@rule(
    "models.diffusion-gemma-config",
    title="DiffusionGemma: a DiffusionConfig from the checkpoint's canvas_length when none is given",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "diffusion_config", _H + "other"),
    writes=("diffusion_config", "diffusion_config.canvas_length", "diffusion_config.max_denoising_steps"),
    after=("models.diffusion-gemma-attention",),
    source=f"{_SRC} DiffusionGemmaModelForBlockDiffusionConfig.verify_and_update_config (673-680); {_REF}",
)
def diffusion_gemma_config(c: Mapping[str, Any]) -> RuleResult:
    """transformers' DiffusionGemmaConfig defaults ``canvas_length`` to 256."""
    if not models.step2_on(c, _DG) or c["diffusion_config"]:
        return None
    return {"diffusion_config": True, "diffusion_config.canvas_length": _other(c, "canvas_length", 256),
            "diffusion_config.max_denoising_steps": None}


@rule(
    "models.diffusion-gemma-max-num-seqs",
    title="DiffusionGemma: max_num_seqs 8 unless the user chose fewer than the default",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, "scheduler_config.max_num_seqs"),
    writes=("scheduler_config.max_num_seqs",),
    after=("models.diffusion-gemma-config",),
    source=f"{_SRC} DiffusionGemmaModelForBlockDiffusionConfig.verify_and_update_config (682-693; "
    f"SchedulerConfig.DEFAULT_MAX_NUM_SEQS 128, vllm/config/scheduler.py:42); {_REF}",
)
def diffusion_gemma_max_num_seqs(c: Mapping[str, Any]) -> RuleResult:
    """The sampler's fp32 transients make concurrency memory-bound. vLLM cannot tell a default from a choice here, so
    any value of at least SchedulerConfig.DEFAULT_MAX_NUM_SEQS (128) counts as the default."""
    if not models.step2_on(c, _DG):
        return None
    n = c["scheduler_config.max_num_seqs"]
    return {"scheduler_config.max_num_seqs": 8} if n is not None and n >= 128 else None


@rule(
    "models.diffusion-gemma-generation-cap",
    title="DiffusionGemma: generation_config.json's max_new_tokens cap removed unless overridden",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, _M + "override_generation_config"),
    writes=(_M + "override_generation_config",),
    after=("models.diffusion-gemma-max-num-seqs",),
    source=f"{_SRC} DiffusionGemmaModelForBlockDiffusionConfig.verify_and_update_config (695-708); {_REF}",
    message="DiffusionGemma: removing server-wide max_new_tokens cap from generation_config.json (use "
    "--override-generation-config to set a custom limit).",
)
def diffusion_gemma_generation_cap(c: Mapping[str, Any]) -> RuleResult:
    """``max_new_tokens: None`` in the override makes vLLM skip the checkpoint's 256-token cap."""
    if not models.step2_on(c, _DG):
        return None
    given = dict(c[_M + "override_generation_config"] or {})
    if "max_new_tokens" in given:
        return None
    return Outcome.log({_M + "override_generation_config": {**given, "max_new_tokens": None}})


# =========================================================================== Jina Embeddings V5 (config.py:933-951)

@rule(
    "models.jina-embeddings-v5-encoder",
    title="Jina Embeddings V5: an encoder checkpoint (is_decoder false) attends bidirectionally",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "text_config", _H + "other"),
    writes=models.hf_writes("is_causal"),
    source=f"{_SRC} JinaEmbeddingsV5ModelConfig.verify_and_update_model_config (933-951); {_REF}",
)
def jina_embeddings_v5_encoder(c: Mapping[str, Any]) -> RuleResult:
    """The -nano variant is a bidirectional EuroBERT encoder under the same architecture, told apart only by
    ``is_decoder: false`` (a config without the key is a decoder)."""
    if not models.step2_on(c, "JinaEmbeddingsV5Model") or _other(c, "is_decoder", True):
        return None
    return models.hf_set(c, {"is_causal": False})


# =========================================================================== CacheConfig.sliding_window (0.34.0's test)

@rule(
    "engine-args.cache-sliding-window",
    title="CacheConfig.sliding_window only for a model whose layers are all sliding window (or untyped)",
    phase="engine_args",
    kind="derive",
    reads=("usage.via_engine_args", _HT + "sliding_window", _HT + "layer_types"),
    writes=("cache_config.sliding_window",),
    source=f"vllm/engine/arg_utils.py EngineArgs.create_engine_config (2321-2327); {_REF}",
    level="debug",
)
def cache_sliding_window(c: Mapping[str, Any]) -> RuleResult:
    """On a model with other layer types too (interleaved sliding window, DeepSeek-V4's compressed attention) the
    cache's window would override the other layers, so it stays None."""
    if not c["usage.via_engine_args"]:
        return None
    layers = c[_HT + "layer_types"]
    if layers is not None and not all(t == "sliding_attention" for t in layers):
        return None
    return {"cache_config.sliding_window": c[_HT + "sliding_window"]}


# =========================================================================== DeepSeek-V4 (config.py:704-786)

_DSV4 = ("DeepseekV4ForCausalLM", "DeepseekV4ForConditionalGeneration", "DeepseekV41ForCausalLM")


_SPARSE_BLOCK_KV = (16, 8)
"""vllm/model_executor/kernels/attention/dsa/sparse_mqa_logits.py SPARSE_BLOCK_KV_CHOICES."""
_DEEP_SELECT_ALIGN = (1024, 32)
"""DeepSelect's row-stride alignment on SM 10.x, input and output bytes (its get_alignment_requirement)."""


def indexer_sparse_logits_supported(c: Mapping[str, Any]) -> bool:
    """``_indexer_sparse_logits_supported``: a two-level (candidate block) model on SM 10.x without decode or prefill
    context parallelism and with a DeepSelect top-k backend, whose candidate block size a sparse block size divides
    and whose sparse logits and top-k rows DeepSelect's strides accept (bf16 logits, int32 indices). DeepGEMM's
    sparse MQA kernels and the DeepSelect extension are taken as present on SM 10.x (the wheel ships both)."""
    block = _other(c, "candidate_block_size", 0, text=True) or 0
    topk_blocks = _other(c, "candidate_topk_blocks", 0, text=True) or 0
    if block <= 0 or topk_blocks <= 0 or not capability_family(c, 10) or c["parallel_config.decode_context_parallel_size"] > 1 \
            or c["parallel_config.prefill_context_parallel_size"] > 1 \
            or c["kernel_config.sparse_indexer_topk_backend"] not in ("auto", "deep_select"):
        return False
    if not any(block % size == 0 for size in _SPARSE_BLOCK_KV):
        return False
    cols, topk = topk_blocks * block, c[_HT + "index_topk"] or 0
    in_align, out_align = _DEEP_SELECT_ALIGN
    return cols < 2**23 and (cols * 2) % in_align == 0 and topk <= 4096 and (topk * 4) % out_align == 0


@rule(
    "models.deepseek-v4-indexer",
    title="DeepSeek-V4: the sparse-logits indexer where it can run; indexer logits in BF16 on SM 10.x, FP32 elsewhere",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "attention_config.indexer_sparse_logits", "attention_config.indexer_logits_dtype",
           "platform.kind", "platform.capability", _HT + "other", _HT + "index_topk",
           "parallel_config.decode_context_parallel_size", "parallel_config.prefill_context_parallel_size",
           "kernel_config.sparse_indexer_topk_backend"),
    writes=("attention_config.indexer_sparse_logits", "attention_config.indexer_logits_dtype"),
    source=f"{_SRC} DeepseekV4ForCausalLMConfig.verify_and_update_config (751-760), _indexer_sparse_logits_supported "
    f"(711-748; pick_sparse_block_kv, check_deep_select_layout: "
    f"vllm/model_executor/kernels/attention/dsa/sparse_mqa_logits.py:43-73, 173-181), "
    f"_set_deepseek_indexer_logits_dtype (68-77); {_REF}",
)
def deepseek_v4_indexer(c: Mapping[str, Any]) -> RuleResult:
    """An unset ``indexer_sparse_logits`` becomes whether the sparse-logits indexer can run
    (:func:`indexer_sparse_logits_supported`); a value the user gave stays. The logits dtype follows the GPU family
    as for V3.2."""
    if not models.step2_on(c, *_DSV4):
        return None
    out: dict[str, Any] = {}
    if c["attention_config.indexer_sparse_logits"] is None:
        out["attention_config.indexer_sparse_logits"] = indexer_sparse_logits_supported(c)
    if c["attention_config.indexer_logits_dtype"] == "auto":
        out["attention_config.indexer_logits_dtype"] = "bfloat16" if capability_family(c, 10) else "float32"
    return out or None


@rule(
    "models.deepseek-v4-fp8",
    title="DeepSeek-V4: an fp8 checkpoint quantizes with the deepseek_v4_fp8 method",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "quantization_config", _H + "model_type"),
    writes=(_H + "quantization_config",),
    source=f"{_SRC} DeepseekV4ForCausalLMConfig.verify_and_update_model_config (762-786; before "
    f"ModelConfig._verify_quantization, vllm/config/model.py:941-942); {_REF}",
)
def deepseek_v4_fp8(c: Mapping[str, Any]) -> RuleResult:
    """The config's ``quant_method: fp8`` is renamed in place when the model type is deepseek_v4 / deepseek_v41, so
    quantization resolves to DeepseekV4FP8Config. (vLLM renames a nested text config's too, config.py:775-781;
    postinit keeps a nested text_config as read: the DeepSeek-V4 configs are flat.)"""
    if not models.step2_on(c, *_DSV4):
        return None
    out: dict[str, Any] = {}
    quant = c[_H + "quantization_config"]
    if quant is not None and quant.get("quant_method") == "fp8" and c[_H + "model_type"] in _V4_TYPES:
        out[_H + "quantization_config"] = {**quant, "quant_method": "deepseek_v4_fp8"}
    return out or None


_V4_TYPES = ("deepseek_v4", "deepseek_v41")


# =========================================================================== GPT-OSS (config.py:819-835)

@rule(
    "models.gptoss-mxfp4",
    title="GPT-OSS: an MXFP4 checkpoint quantizes with the gpt_oss_mxfp4 method",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "quantization_config"),
    writes=(_H + "quantization_config",),
    source=f"{_SRC} GptOssForCausalLMConfig.verify_and_update_model_config (819-835; before "
    f"ModelConfig._verify_quantization, vllm/config/model.py:941-942); {_REF}",
)
def gptoss_mxfp4(c: Mapping[str, Any]) -> RuleResult:
    """``quant_method: mxfp4`` is renamed in place (the text config is the same object for GPT-OSS), so
    quantization resolves to GptOssMxfp4Config."""
    if not models.step2_on(c, "GptOssForCausalLM"):
        return None
    quant = c[_H + "quantization_config"]
    if quant is not None and quant.get("quant_method") == "mxfp4":
        return {_H + "quantization_config": {**quant, "quant_method": "gpt_oss_mxfp4"}}
    return None


# =========================================================================== Kimi-K3 (config.py:788-816)

@rule(
    "models.kimi-k3-mxfp4",
    title="Kimi-K3: compressed-tensors MXFP4 experts quantize with the mxfp4 method",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "quantization_config", _H + "text_config"),
    writes=(_H + "quantization_config",),
    source=f"{_SRC} KimiK3ForConditionalGenerationConfig.verify_and_update_model_config (788-816; the composite "
    f"KimiK3Config carries the text config's quantization_config, vllm/transformers_utils/configs/kimi_k3.py:133-134); "
    f"{_REF}",
)
def kimi_k3_mxfp4(c: Mapping[str, Any]) -> RuleResult:
    """A ``compressed-tensors`` config of format ``mxfp4-pack-quantized`` becomes ``mxfp4`` (Mxfp4Config and its
    full MoE backend set); any other checkpoint is left alone. The composite config holds the text config's
    quantization_config, so the renamed dict is the model's."""
    if not models.step2_on(c, "KimiK3ForConditionalGeneration", "KimiK3MTPModel"):
        return None
    quant = c[_H + "quantization_config"]
    if quant is None:
        quant = (c[_H + "text_config"] or {}).get("quantization_config")
    if isinstance(quant, dict) and quant.get("quant_method") == "compressed-tensors" \
            and quant.get("format") == "mxfp4-pack-quantized":
        return {_H + "quantization_config": {**quant, "quant_method": "mxfp4"}}
    return None


# =========================================================================== RoPE names of remote config classes

_ROPE_ALIASES = (("rope_theta", ("rotary_emb_base",)), ("partial_rotary_factor", ("rotary_pct", "rotary_emb_fraction")))


def _remote_config_class(c: Mapping[str, Any]) -> str | None:
    """The config class of a checkpoint whose config.json names remote code (``auto_map.AutoConfig``), trusted."""
    if not c[_M + "trust_remote_code"]:
        return None
    amap = _other(c, "auto_map")
    ref = amap.get("AutoConfig") if isinstance(amap, dict) else None
    return str(ref).rsplit(".", 1)[-1] if ref else None


@rule(
    "models.rope-deprecated-names",
    title="A remote config class naming RoPE settings by their old names (rotary_emb_base, ...) is warned about",
    phase="model_config",
    kind="check",
    reads=("model_config", _M + "trust_remote_code", _H + "other", _H + "rope_theta", _H + "partial_rotary_factor",
           _H + "rotary_emb_base", _H + "rotary_emb_fraction"),
    source="vllm/transformers_utils/config.py patch_rope_parameters (701-709; getattr_iter(warn=True), "
    f"vllm/config/utils.py:133-158); {_REF}",
    level="warning",
)
def rope_deprecated_names(c: Mapping[str, Any]) -> RuleResult:
    """vLLM reads ``rope_theta`` and ``partial_rotary_factor`` under their old names too, and warns (once per name)
    when the config object has only an old one. Which attributes the config object has is its class's: postinit
    knows it for a trusted remote config class (a plain class of its own, holding config.json's keys as given);
    a transformers class may define the new names itself, so none is warned about there."""
    if not c["model_config"]:
        return None
    cls = _remote_config_class(c)
    if cls is None:
        return None
    other = c[_H + "other"] or {}
    lines = []
    for new, olds in _ROPE_ALIASES:
        if c[_H + new] is not None or new in other:
            continue
        for old in olds:
            present = other.get(old) if old == "rotary_pct" else c[_H + old]
            if present is not None or old in other:
                lines.append(f"{cls} contains a deprecated attribute name '{old}'. Please use the preferred "
                             f"attribute name '{new}' instead.")
                break
    return Outcome({}, message="\n".join(lines)) if lines else None



# =========================================================================== Unlimited-OCR (config.py:262-526)

_UOCR = "UnlimitedOCRForCausalLM"
_UOCR_WINDOW = 128
"""UnlimitedOCRConfig's ``rswa_window`` default (vllm/transformers_utils/configs/unlimited_ocr.py), which the v1 hook
also puts back when the config holds None."""
_UOCR2_REQUIRED: tuple[tuple[str, Any], ...] = (
    ("training_stage", "dash"), ("dash_stage0", "head_cls"), ("sparse_main_rope_mode", "page2d"),
    ("sparse_rope_mode", "page2d"), ("sparse_rope_page_span", 0), ("use_sparse_attention", True),
    ("image_bucket_constraint", True), ("dash_image_only", True),
)
"""The DASH settings an Unlimited-OCR-2 checkpoint's ``sparse_attention_config`` must hold, in vLLM's order."""

ATTENTION_BACKEND_CLASSES = {
    "FLASH_ATTN": "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend",
    "FLASH_ATTN_DIFFKV": "vllm.v1.attention.backends.flash_attn_diffkv.FlashAttentionDiffKVBackend",
    "TRITON_ATTN": "vllm.v1.attention.backends.triton_attn.TritonAttentionBackend",
    "TRITON_ATTN_DIFFKV": "vllm.v1.attention.backends.triton_attn_diffkv.TritonAttentionDiffKVBackend",
    "TRITON_FLASH_ATTN": "vllm.v1.attention.backends.triton_flash_attn.TritonFlashAttentionBackend",
    "ROCM_ATTN": "vllm.v1.attention.backends.rocm_attn.RocmAttentionBackend",
    "ROCM_SEGMENTED_ATTN": "vllm.v1.attention.backends.rocm_segmented_attn.RocmSegmentedAttentionBackend",
    "ROCM_AITER_MLA": "vllm.v1.attention.backends.mla.rocm_aiter_mla.AiterMLABackend",
    "ROCM_AITER_TRITON_MLA": "vllm.v1.attention.backends.mla.aiter_triton_mla.AiterTritonMLABackend",
    "ROCM_AITER_FA": "vllm.v1.attention.backends.rocm_aiter_fa.AiterFlashAttentionBackend",
    "ROCM_AITER_MLA_SPARSE": "vllm.v1.attention.backends.mla.rocm_aiter_mla_sparse.ROCMAiterMLASparseBackend",
    "XPU_MLA_SPARSE": "vllm.v1.attention.backends.mla.xpu_mla_sparse.XPUMLASparseBackend",
    "TORCH_SDPA": "",
    "FLASHINFER": "vllm.v1.attention.backends.flashinfer.FlashInferBackend",
    "FLASHINFER_TS": "vllm.v1.attention.backends.flashinfer_ts.FlashInferTSBackend",
    "TRITON_FLASHINFER": "vllm.v1.attention.backends.triton_flashinfer.TritonFlashInferBackend",
    "FLASHINFER_MLA": "vllm.v1.attention.backends.mla.flashinfer_mla.FlashInferMLABackend",
    "TOKENSPEED_MLA": "vllm.v1.attention.backends.mla.tokenspeed_mla.TokenspeedMLABackend",
    "FLASHINFER_MLA_SPARSE": "vllm.v1.attention.backends.mla.flashinfer_mla_sparse.FlashInferMLASparseTRTLLMBackend",
    "FLASHINFER_MLA_SPARSE_SM120":
        "vllm.v1.attention.backends.mla.flashinfer_mla_sparse.FlashInferMLASparseSM120Backend",
    "FLASHINFER_MLA_SPARSE_SM90":
        "vllm.v1.attention.backends.mla.flashinfer_mla_sparse_sm90.FlashInferMLASparseSM90Backend",
    "TRITON_MLA": "vllm.v1.attention.backends.mla.triton_mla.TritonMLABackend",
    "CUTLASS_MLA": "vllm.v1.attention.backends.mla.cutlass_mla.CutlassMLABackend",
    "FLASHMLA": "vllm.v1.attention.backends.mla.flashmla.FlashMLABackend",
    "FLASHMLA_SPARSE": "vllm.v1.attention.backends.mla.flashmla_sparse.FlashMLASparseBackend",
    "FLASHMLA_SPARSE_DSV4": "vllm.models.deepseek_v4.sparse_mla.DeepseekV4FlashMLABackend",
    "FLASHINFER_MLA_SPARSE_DSV4": "vllm.models.deepseek_v4.nvidia.flashinfer_sparse.DeepseekV4FlashInferMLASparseBackend",
    "ROCM_FLASHMLA_SPARSE_DSV4": "vllm.models.deepseek_v4.amd.rocm.DeepseekV4ROCMAiterMLASparseBackend",
    "FLASHMLA_SPARSE_DSV41": "vllm.models.deepseek_v41.sparse_mla.DeepseekV4FlashMLABackend",
    "FLASHINFER_MLA_SPARSE_DSV41":
        "vllm.models.deepseek_v41.nvidia.flashinfer_sparse.DeepseekV4FlashInferMLASparseBackend",
    "ROCM_FLASHMLA_SPARSE_DSV41": "vllm.models.deepseek_v41.amd.rocm.DeepseekV41ROCMAiterMLASparseBackend",
    "FLASHMLA_MEGA_ATTN_DSV41": "vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAttnBackend",
    "B12X": "vllm.v1.attention.backends.b12x.B12xPagedAttentionBackend",
    "FLASH_ATTN_MLA": "vllm.v1.attention.backends.mla.flashattn_mla.FlashAttnMLABackend",
    "FLASH_ATTN_MLA_SPARSE": "vllm.v1.attention.backends.mla.flashattn_mla_sparse.FlashAttnMLASparseBackend",
    "FLASH_ATTN_MLA_SPARSE_FA4": "vllm.v1.attention.backends.mla.flashattn_mla_sparse.FlashAttnMLASparseFA4Backend",
    "MINIMAX_M3_SPARSE": "vllm.models.minimax_m3.common.sparse_attention.MiniMaxM3SparseBackend",
    "CUTLASS_MSA": "vllm.models.minimax_m3.nvidia.sparse_attention_msa.MiniMaxM3SparseCutlassBackend",
    "TRITON_MSA": "vllm.models.minimax_m3.nvidia.sparse_attention_msa.MiniMaxM3SparseTritonBackend",
    "STEP5_DSA": "vllm.models.step5.nvidia.sparse_attention.Step5DSAAttentionBackend",
    "KIMI_K3_KV_BALANCED_MLA": "vllm.models.kimi_k3.nvidia.kv_balanced_mla.backend.KimiK3KvBalancedMLABackend",
    "NO_ATTENTION": "vllm.v1.attention.backends.no_attention.NoAttentionBackend",
    "FLEX_ATTENTION": "vllm.v1.attention.backends.flex_attention.FlexAttentionBackend",
    "HPC_ATTN": "vllm.v1.attention.backends.hpc_attn.HpcAttentionBackend",
    "ROCM_AITER_UNIFIED_ATTN": "vllm.v1.attention.backends.rocm_aiter_unified_attn.RocmAiterUnifiedAttentionBackend",
    "CPU_ATTN": "vllm.v1.attention.backends.cpu_attn.CPUAttentionBackend",
    "CPU_MLA": "vllm.v1.attention.backends.mla.cpu_mla.CPUMLABackend",
    "AMX_MLA": "vllm.v1.attention.backends.mla.amx_mla.AMXMLABackend",
    "TURBOQUANT": "vllm.v1.attention.backends.turboquant_attn.TurboQuantAttentionBackend",
    "ROCM_OCTAVE": "vllm.v1.attention.backends.rocm_octave_attn.RocmOctaveAttentionBackend",
    "ULTRAQUANT": "vllm.v1.attention.backends.ultraquant_attn.UltraQuantAttentionBackend",
    "CUSTOM": None,
}
"""AttentionBackendEnum's member values (vllm/v1/attention/backends/registry.py; the wheel's ``member.value``): what
an enum member's ``.value`` and ``repr`` show in a message."""


def backend_repr(name: str) -> str:
    """``repr(AttentionBackendEnum.<name>)``."""
    return f"<AttentionBackendEnum.{name}: {ATTENTION_BACKEND_CLASSES.get(name)!r}>"


def _uocr_sparse(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """An Unlimited-OCR-2 checkpoint's ``sparse_attention_config`` (None for Unlimited-OCR v1)."""
    sparse = _other(c, "sparse_attention_config")
    return sparse if isinstance(sparse, dict) else None


def _uocr_requested_window(c: Mapping[str, Any]) -> Any:
    """``getattr(hf_config, "rswa_window", None)``: the config class defaults it to 128."""
    other = c[_H + "other"] or {}
    return other.get("rswa_window", _UOCR_WINDOW)


def uocr2_window(c: Mapping[str, Any]) -> int | None:
    """The output-KV window of an Unlimited-OCR-2 checkpoint: local blocks x block size; None for a requested 0."""
    sparse = _uocr_sparse(c) or {}
    if _uocr_requested_window(c) == 0:
        return None
    return int(sparse["sparse_local_block"]) * int(sparse["sparse_block_size"])


def _uocr_v2(c: Mapping[str, Any]) -> bool:
    """The hook's ``unlimited_ocr2`` marker: the model-config hook sets it for a checkpoint with DASH settings (or
    refused the checkpoint)."""
    return models.step2_on(c, _UOCR) and _uocr_sparse(c) is not None


@rule(
    "models.unlimited-ocr2-checkpoint",
    title="Unlimited-OCR-2: the checkpoint's DASH settings (every layer, index dim = head dim, positive sigma and "
    "top-K, the R-SWA window) are checked; its text config takes M-RoPE sections",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "other", _HT + "num_hidden_layers", _HT + "hidden_size",
           _HT + "num_attention_heads"),
    writes=(_M + "uses_mrope",),
    after=("model.uses-mrope",),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig.verify_and_update_model_config (397-454; uses_mrope: "
    f"vllm/transformers_utils/config.py:735-772 reads the text config's mrope_section); {_REF}",
)
def unlimited_ocr2_checkpoint(c: Mapping[str, Any]) -> RuleResult:
    """A ``sparse_attention_config`` makes the checkpoint Unlimited-OCR-2: each required DASH setting, DASH in every
    decoder layer, an index dim equal to the head dim and a positive sigma and top-K are refused otherwise, as is
    an ``rswa_window`` other than the DASH window or 0 (full KV). The text config then gets an ``mrope_section``
    (token/page RoPE), so the model uses M-RoPE."""
    if not models.step2_on(c, _UOCR):
        return None
    sparse = _uocr_sparse(c)
    if sparse is None:
        return None
    for key, value in _UOCR2_REQUIRED:
        if sparse.get(key) != value:
            return Violation(f"Unlimited-OCR-2 requires {key}={value!r}")
    freq = sparse.get("sparse_attention_freq")
    if not isinstance(freq, (list, tuple)) or list(freq) != [1] * (c[_HT + "num_hidden_layers"] or 0):
        return Violation("Unlimited-OCR-2 requires DASH in every decoder layer")
    if sparse.get("sparse_index_dim") != c[_HT + "hidden_size"] // c[_HT + "num_attention_heads"]:
        return Violation("Unlimited-OCR-2 requires index_dim == head_dim")
    if sparse["dash_sigma"] <= 0 or sparse["dash_topk_blocks"] <= 0:
        return Violation("Unlimited-OCR-2 requires positive sigma and top-K")
    window = int(sparse["sparse_local_block"]) * int(sparse["sparse_block_size"])
    if _uocr_requested_window(c) not in (None, 0, window):
        return Violation(f"Unlimited-OCR-2 requires rswa_window={window} or 0 (full KV)")
    return {_M + "uses_mrope": True}


@rule(
    "models.unlimited-ocr-backend",
    title="Unlimited-OCR: an unset attention backend becomes FLASH_ATTN where FA4 runs, else TRITON_ATTN (logged)",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, _H + "other", "attention_config.backend", "platform.kind", "platform.capability"),
    writes=("attention_config.backend",),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig.verify_and_update_config (300-315; is_fa_version_supported: "
    f"vllm/v1/attention/backends/fa_utils.py:271-279); {_REF}",
    level="info",
)
def unlimited_ocr_backend(c: Mapping[str, Any]) -> RuleResult:
    """R-SWA (the window over generated tokens) needs FA4's mask_mod or Triton's unified attention mask; the log
    names the backend class (the enum member's value). Unlimited-OCR-2 configures its attention elsewhere."""
    if not models.step2_on(c, _UOCR) or _uocr_v2(c) or c["attention_config.backend"] is not None:
        return None
    fa4 = fa4_supported(c)
    backend = "FLASH_ATTN" if fa4 else "TRITON_ATTN"
    return Outcome({"attention_config.backend": backend}, message=f"Unlimited-OCR: auto-selected attention backend="
                   f"{ATTENTION_BACKEND_CLASSES[backend]} (fa4_available={fa4}).")


@rule(
    "models.unlimited-ocr-flash-attn-version",
    title="Unlimited-OCR on FLASH_ATTN: FA4 required; the flash-attention version becomes 4 (an older one with a "
    "warning)",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _H + "other", "attention_config.backend", "attention_config.flash_attn_version",
           "platform.kind", "platform.capability"),
    writes=("attention_config.flash_attn_version",),
    after=("models.unlimited-ocr-backend",),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig.verify_and_update_config (317-336); {_REF}",
    level="warning",
)
def unlimited_ocr_flash_attn_version(c: Mapping[str, Any]) -> RuleResult:
    """FA3 cannot express the R-SWA mask_mod, and on SM 9.x the default version is FA3: so 4 is forced, and
    FLASH_ATTN without FA4 is refused."""
    if not models.step2_on(c, _UOCR) or _uocr_v2(c) or c["attention_config.backend"] != "FLASH_ATTN":
        return None
    if not fa4_supported(c):
        return Violation("Unlimited-OCR: --attention-config backend=FLASH_ATTN requires FA4 (rswa_mask_mod), but FA4 "
                         "is not available on this device/installation. Use backend=TRITON_ATTN or FLEX_ATTENTION, "
                         "or upgrade vllm-flash-attn.", error="RuntimeError")
    version = c["attention_config.flash_attn_version"]
    if version is None:
        return {"attention_config.flash_attn_version": 4}
    if version < 4:
        return Outcome({"attention_config.flash_attn_version": 4}, message=f"Unlimited-OCR: flash_attn_version="
                       f"{version} cannot express the R-SWA mask_mod; upgrading to 4.")
    return None


@rule(
    "models.unlimited-ocr-rswa-backend",
    title="Unlimited-OCR: R-SWA runs on FLASH_ATTN (FA4), TRITON_ATTN or FLEX_ATTENTION only (which one is logged)",
    phase="model",
    kind="check",
    reads=(*models.ON_READS, _H + "other", "attention_config.backend", "attention_config.flash_attn_version",
           "platform.kind", "platform.capability"),
    after=("models.unlimited-ocr-flash-attn-version",),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig.verify_and_update_config (337-362); {_REF}",
    level="info",
)
def unlimited_ocr_rswa_backend(c: Mapping[str, Any]) -> RuleResult:
    """FlexAttention's log points at FA4 when it is available but not used."""
    if not models.step2_on(c, _UOCR) or _uocr_v2(c):
        return None
    backend = c["attention_config.backend"]
    if backend == "FLASH_ATTN":
        return Outcome({}, message=f"Unlimited-OCR: FlashAttention FA{c['attention_config.flash_attn_version']} + "
                       "rswa_mask_mod — exact R-SWA.")
    if backend == "TRITON_ATTN":
        return Outcome({}, message="Unlimited-OCR: TritonAttention — R-SWA via unified attention mask.")
    if backend == "FLEX_ATTENTION":
        note = " (FA4 available but not used; pass backend=FLASH_ATTN to upgrade)" if fa4_supported(c) else ""
        return Outcome({}, message=f"Unlimited-OCR: FlexAttention — R-SWA via Triton block mask{note}.")
    return Violation(f"Unlimited-OCR: unsupported attention backend {backend_repr(str(backend))} for R-SWA. Use "
                     "FLASH_ATTN (FA4), TRITON_ATTN or FLEX_ATTENTION.")


@rule(
    "models.unlimited-ocr-prefix-caching",
    title="Unlimited-OCR: no prefix caching (logged when it was on; silently for Unlimited-OCR-2)",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _H + "other", "cache_config.enable_prefix_caching"),
    writes=("cache_config.enable_prefix_caching",),
    after=("models.unlimited-ocr-rswa-backend", "vllm.mm-encoder-only"),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig.verify_and_update_config (364-377), _configure_v2 (507); {_REF}",
    message="Unlimited-OCR: disabling prefix caching (R-SWA decode KV is not cacheable, and single-turn image-led "
    "prompts rarely hit the prefix cache).",
    level="info",
)
def unlimited_ocr_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """A decode token's KV under R-SWA is no pure function of the prefix, and OCR prompts rarely share one."""
    if not models.step2_on(c, _UOCR) or not c["cache_config.enable_prefix_caching"]:
        return None
    changes = {"cache_config.enable_prefix_caching": False}
    return Outcome(changes, message="") if _uocr_v2(c) else Outcome.log(changes)


@rule(
    "models.unlimited-ocr2-compilation",
    title="Unlimited-OCR-2: no JIT warm-up; unless eager, no compilation and decode-only full CUDA graphs (with "
    "breakable graphs: piecewise ones allowed)",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _H + "other", _M + "enforce_eager", "compilation_config.mode",
           "compilation_config.cudagraph_mode", "env.VLLM_USE_BREAKABLE_CUDAGRAPH"),
    writes=("kernel_config.enable_jit_warmup", "compilation_config.mode", "compilation_config.cudagraph_mode"),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig._configure_v2 (456-488; is_breakable_cudagraph_enabled() without "
    f"a config reads VLLM_USE_BREAKABLE_CUDAGRAPH, vllm/compilation/breakable_cudagraph.py:53-63); {_REF}",
)
def unlimited_ocr2_compilation(c: Mapping[str, Any]) -> RuleResult:
    """The generic JIT warm-up sends text-only requests DASH cannot serve. A compile mode the user chose (other than
    NONE) is refused, and so is a CUDA graph mode with full prefill graphs."""
    if not _uocr_v2(c):
        return None
    out: dict[str, Any] = {"kernel_config.enable_jit_warmup": False}
    if c[_M + "enforce_eager"]:
        return out
    if c["compilation_config.mode"] not in (None, CompilationMode.NONE):
        return Violation("Unlimited-OCR-2 currently requires compile mode NONE")
    out["compilation_config.mode"] = CompilationMode.NONE
    breakable = c["env.VLLM_USE_BREAKABLE_CUDAGRAPH"] == "1"
    mode = c["compilation_config.cudagraph_mode"]
    if mode is None:
        mode = CUDAGraphMode.FULL_AND_PIECEWISE if breakable else CUDAGraphMode.FULL_DECODE_ONLY
        out["compilation_config.cudagraph_mode"] = mode
    allowed = {CUDAGraphMode.NONE, CUDAGraphMode.FULL_DECODE_ONLY}
    if breakable:
        allowed |= {CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL_AND_PIECEWISE}
    if mode not in allowed:
        return Violation("Unlimited-OCR-2 prefill graphs require VLLM_USE_BREAKABLE_CUDAGRAPH=1 and mode PIECEWISE or "
                         "FULL_AND_PIECEWISE; full prefill graphs are not supported")
    return out


_UOCR2_UNSUPPORTED = ("pipeline parallelism", "context parallelism", "dual batch overlap", "LoRA",
                      "speculative decoding", "quantized weights", "non-default KV dtype", "KV transfer")


def _uocr2_unsupported(c: Mapping[str, Any]) -> dict[str, bool]:
    return {
        "pipeline parallelism": c["parallel_config.pipeline_parallel_size"] != 1,
        "context parallelism": c["parallel_config.decode_context_parallel_size"] != 1
        or c["parallel_config.prefill_context_parallel_size"] != 1,
        "dual batch overlap": bool(c["parallel_config.enable_dbo"]),
        "LoRA": bool(c["lora_config"]),
        "speculative decoding": bool(c["speculative_config"]),
        "quantized weights": c[_M + "quantization"] is not None,
        "non-default KV dtype": c["cache_config.cache_dtype"] != "auto",
        "KV transfer": bool(c["kv_transfer_config"]),
    }


@rule(
    "models.unlimited-ocr2-attention",
    title="Unlimited-OCR-2: no PP, CP, DBO, LoRA, speculation, quantization, KV dtype or KV transfer; DASH computes "
    "on FLASH_ATTN or FLASHINFER over TRITON_ATTN's paged cache",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _H + "other", "parallel_config.pipeline_parallel_size",
           "parallel_config.decode_context_parallel_size", "parallel_config.prefill_context_parallel_size",
           "parallel_config.enable_dbo", "lora_config", "speculative_config", _M + "quantization",
           "cache_config.cache_dtype", "kv_transfer_config", "attention_config.backend",
           "compilation_config.cudagraph_num_of_warmups"),
    writes=("attention_config.backend", "compilation_config.cudagraph_num_of_warmups"),
    after=("models.unlimited-ocr2-compilation",),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig._configure_v2 (489-529); {_REF}",
    level="info",
)
def unlimited_ocr2_attention(c: Mapping[str, Any]) -> RuleResult:
    """The first unsupported feature (in vLLM's order) is refused. The backend given (FLASH_ATTN when none) is
    DASH's compute backend; the attention backend itself becomes TRITON_ATTN, whose paged-cache metadata (R-SWA
    reclamation included) both share. FlashInfer needs at least one CUDA graph warm-up."""
    if not _uocr_v2(c):
        return None
    for feature, enabled in _uocr2_unsupported(c).items():
        if enabled:
            return Violation(f"Unlimited-OCR-2 does not support {feature}")
    backend = c["attention_config.backend"] or "FLASH_ATTN"
    if backend not in ("FLASH_ATTN", "FLASHINFER"):
        return Violation("Unlimited-OCR-2 supports FLASH_ATTN or FLASHINFER")
    out: dict[str, Any] = {"attention_config.backend": "TRITON_ATTN"}
    if backend == "FLASHINFER":
        out["compilation_config.cudagraph_num_of_warmups"] = max(1, c["compilation_config.cudagraph_num_of_warmups"])
    return Outcome(out, message=f"Unlimited-OCR-2 DASH compute backend: {backend}\nUnlimited-OCR-2: output KV "
                   f"window={uocr2_window(c)}; input KV is retained for DASH.")


@rule(
    "models.unlimited-ocr-vision",
    title="Unlimited-OCR: the vision encoder attends with FLASH_ATTN unless given another (FlashInfer: warned, "
    "replaced)",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, "model_config.multimodal_config"),
    writes=("model_config.multimodal_config",),
    after=("models.unlimited-ocr-prefix-caching", "models.unlimited-ocr2-attention", "vllm.mm-encoder-only"),
    source=f"{_SRC} UnlimitedOCRForCausalLMConfig._configure_vision (381-395); {_REF}",
    level="warning",
)
def unlimited_ocr_vision(c: Mapping[str, Any]) -> RuleResult:
    """The CLIP stage runs full attention without cu_seqlens, which FlashInfer cannot."""
    mm = c["model_config.multimodal_config"] if models.step2_on(c, _UOCR) else None
    if not mm:
        return None
    backend = mm.get("mm_encoder_attn_backend")
    if backend is None:
        return {"model_config.multimodal_config": {**mm, "mm_encoder_attn_backend": "FLASH_ATTN"}}
    if backend == "FLASHINFER":
        return Outcome({"model_config.multimodal_config": {**mm, "mm_encoder_attn_backend": "FLASH_ATTN"}},
                       message="Unlimited-OCR: FlashInfer is not supported for the vision encoder (the CLIP stage "
                       "runs full attention without cu_seqlens); falling back to FlashAttention.")
    return None




# =========================================================================== GLM-5.3-Flash (config.py:185-212)

@rule(
    "models.glm5-next-kv-cache",
    title="GLM-5.3-Flash with an indexer on SM 10.x: an fp8 KV cache by default (a drafter other than its MTP / "
    "DSpark keeps auto)",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "cache_config.cache_dtype", "platform.kind", "platform.capability", _HT + "index_topk",
           "speculative_config", "speculative_config.method", "speculative_config.kv_cache_dtype"),
    writes=("cache_config.cache_dtype", "speculative_config.kv_cache_dtype"),
    source=f"{_SRC} Glm5NextModelConfig.verify_and_update_config (185-212); {_REF}",
    message="Using fp8 KV cache for GLM-5.3-Flash",
    level="info",
)
def glm5_next_kv_cache(c: Mapping[str, Any]) -> RuleResult:
    """Only an unset KV cache dtype on CUDA SM 10.x with a sparse indexer (``index_topk``) changes; a separate drafter
    then gets its KV cache dtype pinned to auto so it does not inherit fp8."""
    if not models.step2_on(c, "Glm5NextForCausalLM", "Glm5NextForConditionalGeneration"):
        return None
    if c["cache_config.cache_dtype"] != "auto" or not capability_family(c, 10) or c[_HT + "index_topk"] is None:
        return None
    out: dict[str, Any] = {"cache_config.cache_dtype": "fp8"}
    if c["speculative_config"] and c["speculative_config.method"] not in ("mtp", "dspark") \
            and c["speculative_config.kv_cache_dtype"] is None:
        out["speculative_config.kv_cache_dtype"] = "auto"
    return Outcome.log(out)



# =========================================================================== video loaders (config.py:999-1008, 1181-1186)

_VIDEO_BACKENDS = {"Lfm3VlForConditionalGeneration": "qwen3_vl",
                   **{arch: "nemotron_vl" for arch in _NEMOTRON_H_VL[:4]}}
"""The video loader each architecture's hook names (Lfm3VlForConditionalGenerationConfig, NemotronHNanoVLV2Config)."""


@rule(
    "models.mm-video-backend",
    title="LFM3-VL (Qwen3-VL's) and Nemotron-H VL / Omni (Nemotron-VL's): a video loader unless --media-io-kwargs "
    "names one",
    phase="model_config",
    kind="default",
    reads=(*models.ON_READS, "model_config.multimodal_config"),
    writes=("model_config.multimodal_config",),
    after=("model.multimodal-config",),
    source=f"{_SRC} Lfm3VlForConditionalGenerationConfig.verify_and_update_model_config (999-1008), "
    f"NemotronHNanoVLV2Config.verify_and_update_model_config (1181-1186); {_REF}",
)
def mm_video_backend(c: Mapping[str, Any]) -> RuleResult:
    """LFM3-VL's checkpoints nest the video processor config in processor_config.json, where the lookup by
    processor name does not see it; ``media_io_kwargs["video"]["video_backend"]`` is filled in unless given."""
    mm = c["model_config.multimodal_config"] if models.step2_on(c, *_VIDEO_BACKENDS) else None
    if not mm:
        return None
    kwargs = dict(mm.get("media_io_kwargs") or {})
    video = dict(kwargs.get("video") or {})
    if "video_backend" in video:
        return None
    kwargs["video"] = {**video, "video_backend": _VIDEO_BACKENDS[c["model_config.architecture"]]}
    return {"model_config.multimodal_config": {**mm, "media_io_kwargs": kwargs}}


# =========================================================================== M-RoPE (0.34.0's uses_mrope)

_MROPE_NAMES = ("mrope_section", "xdrope_section")


def _has_mrope_section(config: Mapping[str, Any] | None, rope_scaling: Any) -> bool:
    """vLLM 0.34.0's ``_uses_mrope`` on one config: a section in its RoPE parameters (one dict, or one per layer
    type), or an attribute of that name (a ``mrope_section`` set on the config itself)."""
    config = config or {}
    params = config.get("rope_parameters")
    if not isinstance(params, dict):
        params = rope_scaling if isinstance(rope_scaling, dict) else None
    if isinstance(params, dict):
        nested = [p for p in params.values() if isinstance(p, dict)]
        for one in (nested if nested and len(nested) == len(params) else [params]):
            if any(isinstance(one.get(name), (list, tuple)) for name in _MROPE_NAMES):
                return True
    return any(isinstance(config.get(name), (list, tuple)) for name in _MROPE_NAMES)


@rule(
    "model.uses-mrope",
    title="M-RoPE when the config or its text config declares an mrope_section (transformers 5: in rope_parameters)",
    phase="model_config",
    kind="derive",
    reads=("model_config", _H + "other", _HT + "other", _H + "rope_scaling", _HT + "rope_scaling"),
    writes=(_M + "uses_mrope",),
    source="vllm/config/model.py ModelConfig.uses_mrope (2011); vllm/transformers_utils/config.py uses_mrope, "
    f"_mrope_section, iter_rope_parameters (723-772); {_REF}",
)
def uses_mrope(c: Mapping[str, Any]) -> RuleResult:
    """transformers 5 keeps the RoPE settings in ``rope_parameters`` (a config.json ``rope_scaling`` becomes it),
    nested per layer type for some models; the legacy name ``xdrope_section`` counts too."""
    if not c["model_config"]:
        return None
    return {_M + "uses_mrope": _has_mrope_section(c[_H + "other"], c[_H + "rope_scaling"])
            or _has_mrope_section(c[_HT + "other"], c[_HT + "rope_scaling"])}


# =========================================================================== Qwen3.5 (config.py:1290-1335)

_QWEN4_EXP = ("Qwen4ExpForCausalLM", "Qwen4ExpForConditionalGeneration", "Qwen4ExpMTP")
_QWEN3_5_CONFIG = ("Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForCausalLM",
                   "Qwen3_5MoeForConditionalGeneration", "ColQwen3_5", "D3ForSequenceClassification", *_QWEN4_EXP)
"""The architectures whose hook runs Qwen3_5ForConditionalGenerationConfig.verify_and_update_config (ColQwen3.5,
Decision 3.0 and Qwen4Exp's hooks run it first)."""
_QWEN3_5_TEXT_ONLY = ("Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "Qwen4ExpForCausalLM")


@rule(
    "models.qwen3-5-ssm-cache-dtype",
    title="Qwen3.5: mamba_ssm_cache_dtype 'auto' becomes the config's mamba_ssm_dtype; another one given is warned "
    "about",
    phase="model",
    kind="default",
    reads=(*models.ON_READS, "cache_config.mamba_ssm_cache_dtype", _HT + "other"),
    writes=("cache_config.mamba_ssm_cache_dtype",),
    source=f"{_SRC} Qwen3_5ForConditionalGenerationConfig.verify_and_update_config (1292-1318); {_REF}",
    level="warning",
)
def qwen3_5_ssm_cache_dtype(c: Mapping[str, Any]) -> RuleResult:
    """The checkpoint says which dtype its Gated DeltaNet state was trained with; a dtype the user chose wins."""
    if not models.step2_on(c, *_QWEN3_5_CONFIG):
        return None
    ckpt = _other(c, "mamba_ssm_dtype", text=True)
    given = c["cache_config.mamba_ssm_cache_dtype"]
    if ckpt is None:
        return None
    if given == "auto":
        return {"cache_config.mamba_ssm_cache_dtype": ckpt}
    if given != ckpt:
        return Outcome({}, message=f"Qwen3.5 model specifies mamba_ssm_dtype='{ckpt}' in its config, but "
                       f"--mamba-ssm-cache-dtype='{given}' was passed. Using the user-specified value.")
    return None


_QWEN4_SP_MOE_BACKENDS = ("allgather_reducescatter", "deepep_high_throughput", "deepep_low_latency", "deepep_v2",
                          "flashinfer_nvlink_one_sided", "passthrough", "mori_high_throughput", "mori_low_latency",
                          "mori", "nixl_ep")
"""ParallelConfig.use_sequence_parallel_moe's all2all backends (vllm/config/parallel.py:859-877)."""
_QWEN4_SPEC_METHODS = ("mtp", "ngram", "ngram_gpu")


@rule(
    "models.qwen4-exp-checks",
    title="Qwen4Exp: hyper-connections (hc_count > 1); MoE sequence parallelism only without PP; PLE/QSA without "
    "DBO or micro-batches; speculation by its MTP or n-gram only",
    phase="model",
    kind="check",
    reads=(*models.ON_READS, _HT + "other", "platform.kind", "parallel_config.all2all_backend",
           "parallel_config.enable_expert_parallel", "parallel_config.tensor_parallel_size",
           "parallel_config.data_parallel_size", "parallel_config.pipeline_parallel_size",
           "parallel_config.enable_dbo", "parallel_config.ubatch_size", "speculative_config",
           "speculative_config.method"),
    after=("models.qwen3-5-ssm-cache-dtype",),
    source=f"{_SRC} Qwen4ExpForConditionalGenerationConfig.verify_and_update_config (1352-1391; "
    f"ParallelConfig.use_sequence_parallel_moe: vllm/config/parallel.py:859-877; ple_layer_ids None is [] in "
    f"transformers' Qwen4ExpTextConfig); {_REF}",
)
def qwen4_exp_checks(c: Mapping[str, Any]) -> RuleResult:
    """MoE sequence parallelism (an all2all backend that supports it, EP, TP > 1 and DP > 1) turns on the
    hyper-connection SP too, which needs a single pipeline stage. Per-layer embeddings and the QSA indexer have no
    micro-batched path."""
    if not models.step2_on(c, *_QWEN4_EXP):
        return None
    if (_other(c, "hc_count", 4, text=True) or 0) <= 1:
        return Violation("Qwen4Exp requires hc_count > 1")
    sp_moe = c["parallel_config.all2all_backend"] in _QWEN4_SP_MOE_BACKENDS and c["parallel_config.enable_expert_parallel"] \
        and c["parallel_config.tensor_parallel_size"] > 1 and c["parallel_config.data_parallel_size"] > 1
    if c["platform.kind"] in ("cuda", "rocm") and sp_moe and c["parallel_config.pipeline_parallel_size"] != 1:
        return Violation("Qwen4Exp MoE SP requires PP=1")
    ple_or_qsa = bool(_other(c, "ple_layer_ids", None, text=True)) or \
        _other(c, "indexer_n_heads", None, text=True) is not None
    if ple_or_qsa and (c["parallel_config.enable_dbo"] or (c["parallel_config.ubatch_size"] or 0) > 1):
        return Violation("Qwen4Exp PLE/QSA does not support dual-batch overlap or microbatching",
                         error="NotImplementedError")
    if c["speculative_config"] and c["speculative_config.method"] not in _QWEN4_SPEC_METHODS:
        return Violation("Qwen4Exp speculative decoding supports only its native MTP checkpoint and linear n-gram "
                         "proposers", error="NotImplementedError")
    return None


@rule(
    "models.qwen3-5-text-only-rope",
    title="Qwen3.5 / Qwen4Exp text-only models: one-dimensional positions (the M-RoPE fields are removed)",
    phase="model",
    kind="override",
    reads=(*models.ON_READS, _M + "uses_mrope", "model_config.multimodal_config", _H + "vision_config"),
    writes=(_M + "uses_mrope",),
    after=("models.qwen3-5-ssm-cache-dtype", "models.qwen4-exp-checks"),
    source=f"{_SRC} Qwen3_5ForCausalLMConfig.verify_and_update_config (1321-1333), _strip_qwen4_exp_mrope "
    f"(1336-1348) for Qwen4ExpForCausalLM, a language-model-only Qwen4ExpForConditionalGeneration and a Qwen4ExpMTP "
    f"without a vision config (1380-1410): mrope_section and mrope_interleaved popped from rope_parameters; {_REF}",
)
def qwen3_5_text_only_rope(c: Mapping[str, Any]) -> RuleResult:
    """The text-only classes inherit the multimodal configuration's M-RoPE fields; popping them leaves plain RoPE."""
    if not c[_M + "uses_mrope"]:
        return None
    mm = c["model_config.multimodal_config"] if c["model_config"] else None
    if models.step2_on(c, *_QWEN3_5_TEXT_ONLY) \
            or (models.step2_on(c, "Qwen4ExpForConditionalGeneration") and mm and mm.get("language_model_only")) \
            or (models.step2_on(c, "Qwen4ExpMTP") and c[_H + "vision_config"] is None):
        return {_M + "uses_mrope": False}
    return None


def _both_configs(c: Mapping[str, Any], key: str) -> list[Any]:
    """``getattr(config, key, None)`` of the hf config and of its text config when that is another object (a
    nested ``text_config``), in that order."""
    values = [_other(c, key)]
    sub = c[_H + "text_config"]
    if isinstance(sub, dict):
        values.append(sub.get(key))
    return values


def _set_causal(c: Mapping[str, Any], causal: bool) -> dict[str, Any]:
    """``is_causal`` set on the hf config and its text config."""
    return {_H + "is_causal": causal, _HT + "is_causal": causal}


@rule(
    "models.colqwen3-5-contract",
    title="ColQwen3.5: the checkpoint's retrieval_attention_contract ('causal' or 'bidirectional') sets is_causal",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "other", _H + "text_config"),
    writes=models.hf_writes("is_causal"),
    source=f"{_SRC} ColQwen3_5Config.verify_and_update_model_config (1418-1449); {_REF}",
)
def colqwen3_5_contract(c: Mapping[str, Any]) -> RuleResult:
    """The config and its text config may each declare the contract: none, a non-string, an unknown one or two that
    disagree are refused."""
    if not models.step2_on(c, "ColQwen3_5"):
        return None
    declarations = [v for v in _both_configs(c, "retrieval_attention_contract") if v is not None]
    if not declarations:
        return Violation("ColQwen3.5 checkpoints must declare retrieval_attention_contract as 'causal' or "
                         "'bidirectional'")
    if any(not isinstance(d, str) or d not in ("causal", "bidirectional") for d in declarations) \
            or len(set(map(str, declarations))) != 1:
        return Violation(f"unsupported or conflicting ColQwen3.5 retrieval_attention_contract declarations: "
                         f"{declarations!r}")
    return _set_causal(c, declarations[0] == "causal")


@rule(
    "models.d3-decision",
    title="Decision 3.0: the decision_config.json contract (version 1, last-token pooling, causal or full "
    "attention, one token per code); raw code logits unless use_activation is given",
    phase="model_config",
    kind="override",
    reads=(*models.ON_READS, _H + "other", "model_config.pooler_config", _PC + "use_activation"),
    writes=(*models.hf_writes("is_causal"), _PC + "use_activation"),
    after=("model.pooler-config",),
    source=f"{_SRC} D3ForSequenceClassificationConfig.verify_and_update_model_config (1452-1497; decision_config: "
    f"vllm/transformers_utils/model_arch_config_convertor.py Qwen3_5ModelArchConfigConvertor, 641-652); {_REF}",
)
def d3_decision(c: Mapping[str, Any]) -> RuleResult:
    """The full-attention layers read the whole prompt both ways under ``noncausal_full_attention``; the head's
    probabilities would only make sense over one question's options, so it returns logits."""
    if not models.step2_on(c, "D3ForSequenceClassification"):
        return None
    decision = _other(c, "decision_config")
    if not isinstance(decision, dict):
        return Violation("Decision 3.0 checkpoints need a decision_config.json")
    if decision.get("format_version") != 1:
        return Violation(f"unsupported decision_config.json format_version {decision.get('format_version')!r}; vLLM "
                         "reads version 1")
    if decision.get("pooling", "last") != "last":
        return Violation(f"unsupported decision_config.json pooling {decision['pooling']!r}")
    mode = decision.get("attention_mode", "causal")
    if mode not in ("causal", "noncausal_full_attention"):
        return Violation(f"unsupported decision_config.json attention_mode {mode!r}")
    codes, token_ids = decision.get("codes"), decision.get("token_ids")
    if not codes or not isinstance(token_ids, (list, tuple)) or len(codes) != len(token_ids):
        return Violation("decision_config.json must list one token id per answer code")
    out = _set_causal(c, mode == "causal")
    if not c["model_config.pooler_config"]:
        return Violation("", error="AssertionError", hint="a Decision 3.0 classifier needs a pooling runner")
    if c[_PC + "use_activation"] is None:
        out[_PC + "use_activation"] = False
    return out


MODEL_CONFIG_HOOKS = ("models.alice-ai-checkpoint", "models.alice-ai-mtp-ignored", "models.llama-bidirectional",
                      "models.llama-nemotron-vl",
                      "models.embedding-gemma2-matryoshka", "models.jina-embeddings-v5-encoder", "models.deepseek-v4-fp8", "models.gptoss-mxfp4",
                      "models.kimi-k3-mxfp4", "models.unlimited-ocr2-checkpoint",
                      "models.colqwen3-5-contract", "models.d3-decision", "models.mm-video-backend",
                      "models.minimax-m3-vl-index-cache")
"""The rule ids of this module run by ModelConfig._try_verify_and_update_model_config (in order)."""
VLLM_CONFIG_HOOKS = ("models.alice-ai-parallel", "models.nemotron-h-ssm-cache-dtype", "models.longcat-ngram-compilation",
                     "models.glm-moe-dsa", "models.mistral-large4", "models.muse-glimmer-aiter",
                     "models.gemma4-attention",
                     "models.embedding-gemma2-backend", "models.embedding-gemma2-max-model-len",
                     "models.diffusion-gemma-attention", "models.diffusion-gemma-config",
                     "models.diffusion-gemma-max-num-seqs", "models.diffusion-gemma-generation-cap",
                     "models.deepseek-v4-indexer", "models.unlimited-ocr-backend",
                     "models.unlimited-ocr-flash-attn-version", "models.unlimited-ocr-rswa-backend",
                     "models.unlimited-ocr-prefix-caching", "models.unlimited-ocr2-compilation",
                     "models.unlimited-ocr2-attention", "models.unlimited-ocr-vision",
                     "models.qwen3-5-ssm-cache-dtype", "models.qwen4-exp-checks", "models.qwen3-5-text-only-rope",
                     "models.glm5-next-kv-cache", "models.minimax-m3-nvfp4-heads")
"""The rule ids of this module run by VllmConfig.try_verify_and_update_config (before the hybrid hook)."""


DELTA = Delta(
    add=(alice_ai_checkpoint, alice_ai_mtp_ignored, alice_ai_parallel, llama_bidirectional, llama_nemotron_vl,
         muse_glimmer_aiter, nemotron_h_ssm_cache_dtype,
         longcat_ngram_compilation, glm_moe_dsa, gemma4_attention, mistral_large4, embedding_gemma2_matryoshka,
         embedding_gemma2_backend, embedding_gemma2_max_model_len, diffusion_gemma_attention, diffusion_gemma_config,
         diffusion_gemma_max_num_seqs, diffusion_gemma_generation_cap, jina_embeddings_v5_encoder,
         deepseek_v4_indexer, deepseek_v4_fp8, gptoss_mxfp4, kimi_k3_mxfp4, rope_deprecated_names,
         unlimited_ocr2_checkpoint, unlimited_ocr_backend, unlimited_ocr_flash_attn_version, unlimited_ocr_rswa_backend,
         unlimited_ocr_prefix_caching, unlimited_ocr2_compilation, unlimited_ocr2_attention, unlimited_ocr_vision,
         qwen3_5_ssm_cache_dtype, qwen4_exp_checks, qwen3_5_text_only_rope, colqwen3_5_contract, d3_decision,
         glm5_next_kv_cache, mm_video_backend, minimax_m3_nvfp4_heads, minimax_m3_vl_index_cache),
    replace=(is_deepseek_mla, cache_sliding_window, uses_mrope),
)
"""The model-hook part of vLLM 0.34.0's delta over 0.11.1."""
