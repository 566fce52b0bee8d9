"""vLLM's config graph as typed pydantic models.

Names, types, defaults and allowed values are vLLM's (commit d7fb10c57).
"Unset" is ``None`` exactly where vLLM uses ``None``. Only type, range and
``Literal`` validation lives here; every cross-field check vLLM performs in a
``__post_init__`` is a rule. Attributes vLLM computes are ``derived`` fields.

Deliberate deviations (documented for the rule authors):

* dtypes are strings; ``ModelConfig.dtype`` holds the resolved name
  (``"bfloat16"``, ``"float16"``, ``"float32"``) after resolution.
* ``CacheConfig.block_size`` is ``int | None`` (vLLM's Literal is not validated
  and rules write e.g. 48 or 528); ``cache_dtype`` also allows ``"fp8_ds_mla"``,
  which the DeepSeek-V3.2 rule writes.
* ``CompilationConfig.debug_dump_path`` is a ``str`` path.
* ``ModelConfig.hf_config`` is a typed :class:`HFConfig` of the config.json
  facts resolution reads (plus a few ``st_*``/``tokenizer_*`` facts of the
  model directory); ``multimodal_config`` is a plain dict.
* ``SpeculativeConfig`` omits the nested target/draft model/parallel configs.
* ``VllmConfig.quant_config`` is a small :class:`QuantizationConfig`
  (method name + vLLM class name), not vLLM's live object.

One schema serves every modelled vLLM version: a field only some versions have
is marked ``versions`` (``since(...)``: added in that version; ``until=...``:
the last version that has it). The version deltas
(:mod:`postinit.rules.versions`) list the same fields; in a version that lacks a
field, an input of it is dropped with a note (vLLM's pydantic dataclasses
ignore unknown keywords) and no rule of that version reads it.
"""

# No ``from __future__ import annotations`` here: pydantic would have to compile and evaluate
# ~460 string annotations at import (~15 ms of every start-up); every class only refers to
# classes defined above it.
import functools
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    model_validator,
)
from pydantic.dataclasses import dataclass

from postinit.schema._configs_0340 import (
    AttentionConfig,
    AuxOutputConfig,
    DiffusionConfig,
    DynamicShapesConfig,
    ECTransferConfig,
    EncoderCacheManagerConfig,
    EngramConfig,
    FaultToleranceConfig,
    KernelConfig,
    LoggingConfig,
    MambaConfig,
    OffloadConfig,
    ProfilerConfig,
    ReasoningConfig,
    WatchdogConfig,
    WatermarkConfig,
    WeightTransferConfig,
)
from postinit.schema._fields import derived, hashed, since, unhashed
from postinit.schema.enums import CompilationMode, CUDAGraphMode

__all__ = [
    "SPECULATIVE_METHODS_0111",
    "SPECULATIVE_METHODS_SEED",
    "CacheConfig",
    "CompilationConfig",
    "DeviceConfig",
    "EPLBConfig",
    "HFConfig",
    "KVEventsConfig",
    "KVTransferConfig",
    "LoRAConfig",
    "LoadConfig",
    "ModelConfig",
    "ObservabilityConfig",
    "ParallelConfig",
    "PassConfig",
    "PoolerConfig",
    "QuantizationConfig",
    "SchedulerConfig",
    "SpeculativeConfig",
    "StructuredOutputsConfig",
    "VllmConfig",
]

_FORBID = ConfigDict(extra="forbid")

ModelDType = Literal["auto", "half", "float16", "bfloat16", "float", "float32"]
RunnerOption = Literal["auto", "generate", "pooling", "draft"]
RunnerType = Literal["generate", "pooling", "draft"]
ConvertOption = Literal["auto", "none", "embed", "classify", "reward"]
ConvertType = Literal["none", "embed", "classify", "reward"]
CacheDType = Literal[
    "auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla",
    # vLLM 0.34.0's (vllm/config/cache.py:44)
    "float16", "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc",
    "octave_k3v4", "octave_k3v3", "octave_k3v3_compact", "ultraquant_4bit", "int4_per_token_head",
    "int8_per_token_head", "fp8_per_token_head", "nvfp4", "nvfp4_4over6",
]
MambaDType = Literal["auto", "float32", "float16", "bfloat16"]  # the half types: vLLM 0.34.0's
_MAMBA_DTYPES = {"choices_from": (("d7fb10c57", ("auto", "float32")), ("0.34.0", ("auto", "float32", "float16",
                                                                                   "bfloat16")))}
"""Which MambaDType values each version takes (``choices_from``: the door refuses the others, as vLLM does)."""
_TOKENIZER_MODES = {"choices_from": (("d7fb10c57", ("auto", "slow", "mistral", "custom")), ("0.34.0", None))}
"""Which tokenizer modes each version takes: the seed's and 0.11.1's Literal, any text from vLLM 0.34.0 on
(``TokenizerMode | str``: a tokenizer registered under that name)."""
All2AllBackend = Literal[
    "naive",
    "pplx",
    "deepep_high_throughput",
    "deepep_low_latency",
    "allgather_reducescatter",
    "flashinfer_all2allv",
    # vLLM 0.34.0's (vllm/config/parallel.py:45)
    "deepep_v2", "mori_high_throughput", "mori_low_latency", "moonep", "mori", "nixl_ep",
    "flashinfer_nvlink_two_sided", "flashinfer_nvlink_one_sided", "passthrough",
]
DistributedExecutorBackend = Literal["ray", "mp", "uni", "external_launcher"]
SpeculativeMethod = Literal[
    "ngram",
    "eagle",
    "eagle3",
    "medusa",
    "mlp_speculator",
    "draft_model",
    "mtp",
    "deepseek_mtp",
    "mimo_mtp",
    "glm4_moe_mtp",
    "ernie_mtp",
    "qwen3_next_mtp",
    "longcat_flash_mtp",
    # vLLM 0.34.0's (vllm/config/speculative.py:53-97): the other MTP spellings, suffix decoding, n-gram on the GPU,
    # DFlash, DSpark, hidden-state extraction; it has no medusa / mlp_speculator
    "suffix", "ngram_gpu", "dflash", "dspark", "extract_hidden_states", "dots3_note_mtp", "mimo_v2_mtp",
    "glm4_moe_lite_mtp", "glm_ocr_mtp", "nemotron_h_mtp", "nemotron3_5_transcribe_mtp", "exaone_moe_mtp",
    "exaone4_5_mtp", "qwen4_exp_mtp", "qwen3_5_mtp", "bailing_hybrid_v3_mtp", "minimax_m3_mtp", "bailing_hybrid_mtp",
    "kimi_k3_mtp", "pangu_ultra_moe_mtp", "step3p5_mtp", "step5_mtp", "hy_v3_mtp", "hy_v4_mtp", "gemma4_mtp",
    "inkling_mtp", "glm5_next_mtp",
]
SPECULATIVE_METHODS_SEED = ("ngram", "eagle", "eagle3", "medusa", "mlp_speculator", "draft_model", "deepseek_mtp",
                            "ernie_mtp", "qwen3_next_mtp", "mimo_mtp", "longcat_flash_mtp", "mtp")
"""The seed's SpeculativeMethod Literal in its declaration order (vllm/config/speculative.py; pydantic's refusal
lists them so)."""
SPECULATIVE_METHODS_0111 = ("ngram", "medusa", "mlp_speculator", "draft_model", "suffix", "eagle", "eagle3",
                            "deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp",
                            "mtp", "pangu_ultra_moe_mtp")
"""0.11.1's SpeculativeMethod Literal in its declaration order (with EagleModelTypes and MTPModelTypes inlined)."""
_SPEC_METHODS = {"choices_from": (
    ("d7fb10c57", SPECULATIVE_METHODS_SEED),
    ("0.11.1", SPECULATIVE_METHODS_0111),
    ("0.34.0", ("ngram", "draft_model", "suffix", "eagle", "eagle3", "extract_hidden_states", "deepseek_mtp",
                "dots3_note_mtp", "mimo_mtp", "mimo_v2_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp",
                "ernie_mtp", "nemotron_h_mtp", "nemotron3_5_transcribe_mtp", "exaone_moe_mtp", "exaone4_5_mtp",
                "qwen3_next_mtp", "qwen4_exp_mtp", "qwen3_5_mtp", "longcat_flash_mtp", "bailing_hybrid_v3_mtp",
                "minimax_m3_mtp", "bailing_hybrid_mtp", "mtp", "kimi_k3_mtp", "pangu_ultra_moe_mtp", "step3p5_mtp",
                "step5_mtp", "hy_v3_mtp", "hy_v4_mtp", "gemma4_mtp", "inkling_mtp", "glm5_next_mtp", "dflash",
                "ngram_gpu", "dspark")),
)}
"""Which speculative methods each version's SpeculativeConfig takes (``choices_from``: the door refuses the others)."""
LoRARank = Literal[1, 8, 16, 32, 64, 128, 256, 320, 512]


# --------------------------------------------------------------------------
# Bounds from what vLLM can run (postinit.schema.limits has the cost bounds)
# --------------------------------------------------------------------------

MAX_SPEC_TOKENS = 128
"""vLLM's V1 rejection sampler verifies at most 128 draft tokens per step
(``vllm/v1/sample/rejection_sampler.py`` ``MAX_SPEC_LEN``)."""
MAX_CAPTURE_SIZE = 131_072
"""The largest CUDA graph capture size postinit models (tokens)."""


def _spec_tokens(n: int | None) -> int | None:
    if n is not None and n > MAX_SPEC_TOKENS:
        raise ValueError(
            f"{n} draft tokens per step is more than vLLM can verify: its V1 rejection sampler takes at most "
            f"{MAX_SPEC_TOKENS} (vllm/v1/sample/rejection_sampler.py MAX_SPEC_LEN); postinit refuses it rather "
            "than model an engine that cannot run")
    return n


def _capture_size(n: int) -> int:
    if n > MAX_CAPTURE_SIZE:
        raise ValueError(
            f"a CUDA graph of {n} tokens is above the {MAX_CAPTURE_SIZE} postinit models: vLLM keeps a padding "
            "table with one entry per batch size up to the largest capture size (vllm/config/compilation.py "
            "post_init_cudagraph_sizes), its own default is at most 512 (992 for GPT-OSS), and its GPU runner "
            "never runs a batch above max_num_batched_tokens")
    return n


SpecTokens = Annotated[int | None, AfterValidator(_spec_tokens)]

_LEVEL_TEXT = re.compile(r"[+-]?\d+(?:\.0*)?")


def _optimization_level(value: Any) -> Any:
    """vLLM's ``OptimizationLevel`` (an ``IntEnum``) as pydantic's lax mode reads it: ``3``, ``"03"``,
    ``" 3"``, ``"3.0"`` and ``3.0`` are the level 3. Anything else is kept as given: VllmConfig refuses it
    (``vllm.optimization-level``), after the sub-configs were built, as vLLM does."""
    if isinstance(value, bool):
        return int(value)
    text = value.strip() if isinstance(value, str) else None
    if text is not None and _LEVEL_TEXT.fullmatch(text) and len(text) < 32:
        number = float(text)
        return int(number) if number in (0, 1, 2, 3) else value
    if isinstance(value, float) and value in (0, 1, 2, 3):
        return int(value)
    return value


OptimizationLevelValue = Annotated[int | float | str | None, BeforeValidator(_optimization_level)]
"""``VllmConfig.optimization_level``: 0-3, or what vLLM's pydantic refuses (a check reports it, at vLLM's stage)."""
CaptureSize = Annotated[int, AfterValidator(_capture_size)]


def _compilation_mode(value: Any) -> CompilationMode | int:
    """``CompilationConfig.mode``: a :class:`CompilationMode` (an int 0-3, a digit string or a name); any other int
    is kept as that int. At the seed vLLM's field is a plain ``int`` and ``VllmConfig.__post_init__`` asserts it in
    range (the rule ``compilation.mode-range``); from 0.11.1 on it is an ``IntEnum`` pydantic refuses when the
    CompilationConfig is built (the door, in vLLM's words: ``schema.loaders.construct``)."""
    if CompilationMode.out_of_range(value):
        return value
    return CompilationMode.parse(value)


def _mode_json(value: CompilationMode | int) -> str | int:
    return value.name if isinstance(value, CompilationMode) else value


CompilationModeValue = Annotated[
    CompilationMode | int, PlainValidator(_compilation_mode), PlainSerializer(_mode_json, when_used="json"),
    WithJsonSchema({"title": "CompilationMode", "description": "Compilation mode: a name (case-insensitive) or its "
                    "int value 0-3 (the seed commit takes any int and asserts 0-3 later)",
                    "anyOf": [{"type": "string", "enum": list(CompilationMode.__members__)}, {"type": "integer"}]}),
]

MAX_HF_LABELS = 16_384
"""The most classifier labels (``num_labels``) postinit models: transformers builds an ``id2label`` of one
entry per label (``PretrainedConfig.num_labels``), and every mapping postinit takes has at most 16,384 keys."""
MAX_HF_LAYERS = 4_096
"""The most layers (``num_hidden_layers`` and its aliases) postinit models: transformers builds per-layer
lists (``layer_types``, ``no_rope_layers``, ...) of this length, and every list postinit takes has at most
4,096 items. The deepest real models have fewer than 200."""
HF_SIZE_CAPS: dict[str, int] = {
    "num_labels": MAX_HF_LABELS,
    **dict.fromkeys(("num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers", "decoder_layers",
                     "num_decoder_layers"), MAX_HF_LAYERS),
}
"""The HF-config facts whose value sizes the work of building the HF config (the hash rebuilds it with
transformers), each with its cap; checked at the door in config.json content, ``hf_config`` facts and
``hf_overrides`` (nested sub-configs included). No other fact's size costs work (measured at 10**6 for
every integer fact of every catalog model)."""


def hf_size_problem(value: Any, where: str) -> tuple[str, str] | None:
    """(path, message) of the first fact in ``value`` (nested mappings and lists) above its cap, or None."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                cap = HF_SIZE_CAPS.get(k)
                here = f"{at}.{k}" if at else str(k)
                if cap is not None and type(v) is int and v > cap:
                    what = "labels" if k == "num_labels" else "layers"
                    return here, (f"{here}: {v} {what} is over the {cap} postinit models (transformers builds one "
                                  f"entry per {what[:-1]} when it builds the HF config)")
                if isinstance(v, (dict, list)):
                    stack.append((v, here))
        elif isinstance(node, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list)))
    return None


def _hf_sizes(value: Any) -> Any:
    problem = hf_size_problem(value, "")
    if problem is not None:
        raise ValueError(problem[1])
    return value


HFSized = AfterValidator(_hf_sizes)


@functools.cache
def _size_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The :data:`HF_SIZE_CAPS` keys that are fields of ``cls``, in the caps' order (asked once per class:
    pydantic's ``model_fields`` class property costs a microsecond or so a read)."""
    return tuple(k for k in HF_SIZE_CAPS if k in cls.model_fields)


# --------------------------------------------------------------------------
# HuggingFace facts
# --------------------------------------------------------------------------


class HFConfig(BaseModel):
    """The HuggingFace ``config.json`` facts that resolution reads (all optional).

    vLLM hashes the whole HF config through ``ModelConfig.compute_hash``; that is
    recorded on ``ModelConfig.hf_config`` (a hash factor), so every field here is
    ``unhashed``. ``st_*`` and ``tokenizer_model_max_length`` are facts from the
    model directory's sentence-transformers / tokenizer files (vLLM's
    ``encoder_config`` and tokenizer config), ``weights_dtype`` the common dtype
    of the safetensors weights (dtype resolution's last fallback).
    """

    model_config = _FORBID

    @model_validator(mode="after")
    def _sizes(self) -> "HFConfig":
        _hf_sizes({k: getattr(self, k) for k in _size_fields(type(self))})
        return self

    # identity
    model_type: str | None = unhashed(None)
    architectures: list[str] | None = unhashed(None)
    torch_dtype: str | None = unhashed(None)
    dtype: str | None = unhashed(None)
    is_encoder_decoder: bool | None = unhashed(None)
    tie_word_embeddings: bool | None = unhashed(None)
    # context length keys (max_model_len resolution, in vLLM's order)
    max_position_embeddings: int | None = unhashed(None)
    n_positions: int | None = unhashed(None)
    max_seq_len: int | None = unhashed(None)
    seq_length: int | None = unhashed(None)
    model_max_length: int | None = unhashed(None)
    max_target_positions: int | None = unhashed(None)
    max_sequence_length: int | None = unhashed(None)
    max_seq_length: int | None = unhashed(None)
    seq_len: int | None = unhashed(None)
    max_source_positions: int | None = unhashed(None)
    max_trained_positions: int | None = unhashed(None)
    # sliding window / attention layout
    sliding_window: int | None = unhashed(None)
    use_sliding_window: bool | None = unhashed(None)
    max_window_layers: int | None = unhashed(None)
    layer_types: list[str] | None = unhashed(None)
    attention_chunk_size: int | None = unhashed(None)
    is_causal: bool | None = unhashed(None)
    use_bidirectional_attention: bool | None = unhashed(None)
    is_mm_prefix_lm: bool | None = since("0.34.0", None, description="bidirectional attention over multimodal "
                                         "positions, as the checkpoint (or --hf-overrides) declares it")
    # rotary embeddings
    rope_scaling: dict[str, Any] | None = unhashed(None)
    rope_theta: float | None = unhashed(None)
    rotary_emb_fraction: float | None = unhashed(None)
    rotary_emb_base: float | None = unhashed(None)
    rotary_emb_interleaved: bool | None = unhashed(None)
    rotary_emb_scale_base: float | None = unhashed(None)
    partial_rotary_factor: float | None = unhashed(None)
    rotary_kwargs: dict[str, Any] | None = unhashed(None)
    position_embedding_type: str | None = unhashed(None)
    original_max_position_embeddings: int | None = unhashed(None)
    dual_chunk_attention_config: dict[str, Any] | None = unhashed(None)
    # MLA (DeepSeek family)
    kv_lora_rank: int | None = unhashed(None)
    q_lora_rank: int | None = unhashed(None)
    qk_rope_head_dim: int | None = unhashed(None)
    qk_nope_head_dim: int | None = unhashed(None)
    v_head_dim: int | None = unhashed(None)
    index_topk: int | None = unhashed(None)
    engram_layer_ids: list[int] | None = unhashed(None)  # n-gram embedding layers (DeepSeek V4.1; vllm 0.34.0)
    ple_layer_ids: list[int] | None = unhashed(None)  # n-gram embedding layers (Qwen4Exp; vllm 0.34.0)
    num_nextn_predict_layers: int | None = unhashed(None)
    # heads and sizes
    num_attention_heads: int | None = unhashed(None)
    num_key_value_heads: int | None = unhashed(None)
    n_head_kv: int | None = unhashed(None)
    num_kv_heads: int | None = unhashed(None)
    multi_query_group_num: int | None = unhashed(None)
    multi_query: bool | None = unhashed(None)
    attn_config: dict[str, Any] | None = unhashed(None)
    block_configs: list[dict[str, Any]] | None = unhashed(None)  # Nemotron-NAS: per-layer attention / FFN configs
    head_dim: int | None = unhashed(None)
    hidden_size_per_head: int | None = unhashed(None)
    hidden_size: int | None = unhashed(None)
    intermediate_size: int | None = unhashed(None)
    num_hidden_layers: int | None = unhashed(None)
    vocab_size: int | None = unhashed(None)
    hidden_act: str | None = unhashed(None)
    # NomicBert (nomic-bert config.json names, rewritten by the NomicBertModel rule)
    activation_function: str | None = unhashed(None)
    n_embd: int | None = unhashed(None)
    n_inner: int | None = unhashed(None)
    n_layer: int | None = unhashed(None)
    layer_norm_epsilon: float | None = unhashed(None)
    layer_norm_eps: float | None = unhashed(None)
    qkv_proj_bias: bool | None = unhashed(None)
    mlp_fc1_bias: bool | None = unhashed(None)
    mlp_fc2_bias: bool | None = unhashed(None)
    bias: bool | None = unhashed(None)
    rotary_emb_dim: int | None = unhashed(None)
    # quantization
    quantization_config: dict[str, Any] | None = unhashed(None)
    compression_config: dict[str, Any] | None = unhashed(None)
    # MoE
    num_experts: int | list[int] | None = unhashed(None)  # a list in Ernie VL's remote code
    moe_num_experts: int | None = unhashed(None)
    n_routed_experts: int | None = unhashed(None)
    num_local_experts: int | None = unhashed(None)
    num_experts_per_tok: int | None = unhashed(None)
    moe_intermediate_size: int | None = unhashed(None)
    # Mamba / SSM
    mamba_d_state: int | None = unhashed(None)
    mamba_d_conv: int | None = unhashed(None)
    mamba_expand: int | None = unhashed(None)
    mamba_n_heads: int | None = unhashed(None)
    mamba_d_head: int | None = unhashed(None)
    mamba_n_groups: int | None = unhashed(None)
    mamba_num_heads: int | None = unhashed(None)
    mamba_head_dim: int | None = unhashed(None)
    mamba_d_ssm: int | None = unhashed(None)
    mamba_chunk_size: int | None = unhashed(None)
    chunk_size: int | None = unhashed(None)
    ssm_state_size: int | None = unhashed(None)
    state_size: int | None = unhashed(None)
    conv_kernel: int | None = unhashed(None)
    expand: int | None = unhashed(None)
    n_groups: int | None = unhashed(None)
    num_heads: int | None = unhashed(None)
    time_step_rank: int | None = unhashed(None)
    mamba_dt_rank: int | None = unhashed(None)
    hybrid_override_pattern: str | None = unhashed(None)
    layers_block_type: list[str] | None = unhashed(None)
    # Qwen3-Next linear attention
    linear_num_key_heads: int | None = unhashed(None)
    linear_num_value_heads: int | None = unhashed(None)
    linear_key_head_dim: int | None = unhashed(None)
    linear_value_head_dim: int | None = unhashed(None)
    linear_conv_kernel_dim: int | None = unhashed(None)
    full_attention_interval: int | None = unhashed(None)
    # Jamba
    attn_layer_period: int | None = unhashed(None)
    attn_layer_offset: int | None = unhashed(None)
    expert_layer_period: int | None = unhashed(None)
    expert_layer_offset: int | None = unhashed(None)
    # nested configs (multimodal / composite models)
    text_config: dict[str, Any] | None = unhashed(None)
    vision_config: dict[str, Any] | None = unhashed(None)
    audio_config: dict[str, Any] | None = unhashed(None)
    # encoder-decoder (Whisper, T5, ...)
    encoder_layers: int | None = unhashed(None)
    decoder_layers: int | None = unhashed(None)
    d_model: int | None = unhashed(None)
    num_mel_bins: int | None = unhashed(None)
    # classification / reranking
    num_labels: int | None = unhashed(None)
    id2label: dict[str, str] | None = unhashed(None)
    classifier_from_token: list[str] | None = unhashed(None)
    method: str | None = unhashed(None)
    is_original_qwen3_reranker: bool | None = unhashed(None)
    use_pad_token: bool | None = unhashed(None)
    head_dtype: str | None = unhashed(None)
    matryoshka_dimensions: list[int] | None = unhashed(None)
    is_matryoshka: bool | None = unhashed(None)
    # model-directory facts outside config.json
    st_max_seq_length: int | None = unhashed(None)
    st_do_lower_case: bool | None = unhashed(None)
    st_pooling_type: str | None = unhashed(None)
    st_normalize: bool | None = unhashed(None)
    tokenizer_model_max_length: int | None = unhashed(None)
    dir_sparse_attention_config: dict[str, Any] | None = unhashed(
        None, description="the model directory's sparse_attention_config.json, which vLLM merges into "
        "dual_chunk_attention_config (ModelConfig.verify_dual_chunk_attention_config); None: no such file")
    dir_json_files: list[str] | None = unhashed(
        None, description="the names of the *.json files in the model's directory, sorted (vLLM's get_quant_config "
        "globs them for the config file of a quantization method the checkpoint's config.json does not describe); "
        "None: not a local directory")
    dir_checkpoint_has_lm_head: bool | None = unhashed(
        None, description="whether a tensor named *lm_head.weight is in the headers of the model directory's "
        "*.safetensors files (vLLM's checkpoint_has_lm_head, which ModelConfig.maybe_untie_word_embeddings asks); "
        "None: no safetensors file, or not a local directory")
    weights_dtype: str | None = unhashed(None)
    transformers_backend: bool | None = unhashed(
        None,
        description="whether the first architecture is a class of the installed transformers, or the config names "
        "remote code for an AutoModel (auto_map): the Transformers backend's test for an architecture "
        "(vllm/model_executor/models/registry.py _try_resolve_transformers); None: not looked up (transformers not "
        "installed, or the architecture is registered and the Transformers backend not asked for)")
    # every other config.json key, kept as given (transformers keeps unknown keys as attributes)
    other: dict[str, Any] = unhashed(
        default_factory=dict,
        description="the config.json keys resolution does not read (bos_token_id, use_cache, ...), as given",
    )


# --------------------------------------------------------------------------
# Sub-configs
# --------------------------------------------------------------------------


class PoolerConfig(BaseModel):
    """Pooling options (all unset by default; hash constant)."""

    model_config = _FORBID

    pooling_type: str | None = unhashed(None)
    normalize: bool | None = unhashed(None, until="0.11.1")
    dimensions: int | None = unhashed(None)
    enable_chunked_processing: bool | None = unhashed(None)
    max_embed_len: int | None = unhashed(None)
    activation: bool | None = unhashed(None, until="0.11.1")
    use_activation: bool | None = since("0.11.1", None, description="0.11.1 merges softmax/activation into it")
    logit_bias: float | None = unhashed(None, until="0.11.1")
    softmax: bool | None = unhashed(None, until="0.11.1")
    step_tag_id: int | None = unhashed(None)
    returned_token_ids: list[int] | None = unhashed(None)
    enable_flash_late_interaction: bool = since("0.34.0", True)
    logit_mean: float | None = since("0.34.0", None)
    logit_sigma: float | None = since("0.34.0", None)
    seq_pooling_type: Literal['CLS', 'LAST', 'MEAN'] | None = since("0.34.0", None)
    task: Literal['embed', 'classify', 'token_embed', 'token_classify', 'plugin', 'embed&token_classify'] | None = since("0.34.0", None)
    tok_pooling_type: Literal['ALL', 'STEP'] | None = since("0.34.0", None)


class ModelConfig(BaseModel):
    """vLLM's ``ModelConfig``: user fields, HF facts and the attributes vLLM derives."""

    model_config = _FORBID

    model: str = hashed("Qwen/Qwen3-0.6B")
    runner: RunnerOption = unhashed("auto")
    convert: ConvertOption = unhashed("auto")
    task: str | None = unhashed(None, until="0.11.1")
    tokenizer: str | None = unhashed(None)
    tokenizer_mode: str = unhashed("auto", json_schema_extra=_TOKENIZER_MODES)
    trust_remote_code: bool = hashed(False)
    dtype: ModelDType = hashed("auto")
    seed: int | None = unhashed(None)
    hf_config_path: str | None = unhashed(None)
    allowed_local_media_path: str = unhashed("")
    allowed_media_domains: list[str] | None = unhashed(None)
    revision: str | None = hashed(None)
    code_revision: str | None = hashed(None)
    rope_scaling: dict[str, Any] = hashed(default_factory=dict, until="d7fb10c57")
    rope_theta: float | None = hashed(None, until="d7fb10c57")
    tokenizer_revision: str | None = unhashed(None)
    max_model_len: int | None = hashed(None, ge=1)
    spec_target_max_model_len: int | None = unhashed(None, ge=1)
    quantization: str | None = hashed(None)
    enforce_eager: bool = unhashed(False)
    max_logprobs: int = hashed(20)
    logprobs_mode: Literal[
        "raw_logprobs", "raw_logits", "processed_logprobs", "processed_logits"
    ] = unhashed("raw_logprobs")
    disable_sliding_window: bool = hashed(False)
    disable_cascade_attn: bool = unhashed(False)
    skip_tokenizer_init: bool = unhashed(False)
    enable_prompt_embeds: bool = hashed(False)
    served_model_name: str | list[str] | None = unhashed(None)
    config_format: Literal["auto", "hf", "mistral"] = unhashed("auto")
    hf_token: bool | str | None = unhashed(None)
    hf_overrides: Annotated[dict[str, Any], HFSized] = unhashed(default_factory=dict)
    logits_processor_pattern: str | None = unhashed(None, until="0.11.1")
    generation_config: str = hashed("auto")
    override_generation_config: dict[str, Any] = hashed(default_factory=dict)
    enable_sleep_mode: bool = unhashed(False)
    model_impl: Literal["auto", "vllm", "transformers", "terratorch"] = hashed("auto")
    override_attention_dtype: str | None = unhashed(None, until="0.11.1")
    logits_processors: list[str] | None = unhashed(None)
    io_processor_plugin: str | None = unhashed(None)
    pooler_config: PoolerConfig | None = unhashed(None)
    override_pooler_config: PoolerConfig | None = unhashed(None, until="0.11.1")
    multimodal_config: dict[str, Any] | None = unhashed(None)
    # ModelConfig's InitVars for the MultiModalConfig: constructor arguments (never attributes, never hashed);
    # for a multimodal model class vLLM passes the ones that are set to MultiModalConfig (model.multimodal-config)
    limit_mm_per_prompt: dict[str, Any] | None = unhashed(None, description="InitVar: MultiModalConfig.limit_per_prompt")
    enable_mm_embeds: bool | None = unhashed(None, description="InitVar (MultiModalConfig)")
    media_io_kwargs: dict[str, Any] | None = unhashed(None, description="InitVar (MultiModalConfig)")
    mm_processor_kwargs: dict[str, Any] | None = unhashed(None, description="InitVar (MultiModalConfig)")
    mm_processor_cache_gb: float | None = unhashed(None, ge=0, description="InitVar (MultiModalConfig)")
    mm_processor_cache_type: Literal["lru", "shm"] | None = unhashed(None, description="InitVar (MultiModalConfig)")
    mm_shm_cache_max_object_size_mb: int | None = unhashed(None, ge=0, description="InitVar (MultiModalConfig)")
    mm_encoder_tp_mode: Literal["weights", "data"] | None = unhashed(None, description="InitVar (MultiModalConfig)")
    mm_encoder_attn_backend: str | None = unhashed(
        None, description="InitVar (MultiModalConfig): an attention backend name for the vision encoder")
    interleave_mm_strings: bool | None = unhashed(None, description="InitVar (MultiModalConfig)")
    skip_mm_profiling: bool | None = unhashed(None, description="InitVar (MultiModalConfig)")
    video_pruning_rate: float | None = hashed(
        None, description="InitVar in vLLM (MultiModalConfig.video_pruning_rate from 0.34.0 on): its hash factor "
        "is always None.")
    # HF facts (the whole config.json is a hash factor in vLLM)
    hf_config: HFConfig = hashed(default_factory=HFConfig)
    hf_text_config: HFConfig = derived(
        default_factory=HFConfig,
        description="the text model's facts: text_config merged over hf_config (vLLM's get_text_config())",
    )
    # attributes ModelConfig.__post_init__ computes
    architecture: str | None = derived(None)
    architectures: list[str] = derived(default_factory=list)
    runner_type: RunnerType | None = derived(None)
    convert_type: ConvertType | None = derived(None)
    is_encoder_decoder: bool = derived(False)
    is_hybrid: bool = derived(False)
    supports_mamba_prefix_caching: bool = derived(False, until="0.11.1")
    is_attention_free: bool = derived(False)
    is_multimodal_model: bool = derived(False)
    is_deepseek_mla: bool = derived(False)
    use_mla: bool = derived(False)
    attention_chunk_size: int | None = derived(None)
    original_max_model_len: int | None = derived(None)
    config_updated: bool = derived(False, until="0.11.1")
    has_inner_state: bool = derived(False)
    uses_mrope: bool = derived(False)
    is_matryoshka: bool = derived(False)
    head_dtype: str | None = derived(None)
    model_weights: str | None = derived(None, description="original s3:// or gs:// URI")
    allow_deprecated_quantization: bool = since("0.34.0", False)
    checkpoint_prepare_on_startup: bool = since("0.34.0", False)
    enable_cumem_allocator: bool = since("0.34.0", False)
    enable_nccl_comm_suspend: bool = since("0.34.0", False)
    enable_trace_replay: bool = since("0.34.0", False)
    is_submodel_config: bool = since("0.34.0", False, derived=True)
    model_class_overrides: dict[str, Any] = since("0.34.0", default_factory=dict)
    quantization_config: dict[str, Any] | None = since("0.34.0", None)
    renderer_num_workers: int = since("0.34.0", 1)
    return_sampling_mask: bool = since("0.34.0", False)
    sleep_mode_backend: str = since("0.34.0", 'cumem')
    sleep_mode_offload_cudagraph: bool = since("0.34.0", False)
    sleep_preserve_parameter_names: list[Any] = since("0.34.0", default_factory=list)
    use_fp64_gumbel: bool = since("0.34.0", False)
    word_embeddings_untied_by_checkpoint: bool = since("0.34.0", False, derived=True)
    is_moe: bool = since("0.34.0", False, derived=True, description="ModelConfig.is_moe (a property)")
    is_quantized: bool = since("0.34.0", False, derived=True, description="ModelConfig.is_quantized (a property)")
    is_mm_prefix_lm: bool = since("0.34.0", False, derived=True, description="ModelConfig.is_mm_prefix_lm")
    # vLLM 0.34.0's ModelConfig InitVars of its MultiModalConfig (vllm/config/model.py:450-473): arguments of the
    # constructor, not attributes; a multimodal model's MultiModalConfig is built from the ones given (the ones
    # every version has are above, with the seed's)
    language_model_only: bool = since("0.34.0", False, description="InitVar: MultiModalConfig.language_model_only")
    mm_hasher_algorithm: Literal["blake3", "sha256", "sha512"] | None = since("0.34.0", None, description="InitVar")
    mm_encoder_only: bool | None = since("0.34.0", None, description="InitVar")
    mm_encoder_attn_dtype: Literal["fp8"] | None = since("0.34.0", None, description="InitVar")
    mm_encoder_fp8_scale_path: str | None = since("0.34.0", None, description="InitVar")
    mm_encoder_fp8_scale_save_path: str | None = since("0.34.0", None, description="InitVar")
    mm_encoder_fp8_scale_save_margin: float | None = since("0.34.0", None, gt=0, description="InitVar")
    video_pruning_method: Literal["evs", "vidcom2"] | None = since("0.34.0", None, description="InitVar")
    mm_tensor_ipc: Literal["direct_rpc", "torch_shm"] | None = since("0.34.0", None, description="InitVar")
    mm_ipc_gpu_memory_gb: float | None = since("0.34.0", None, ge=0, description="InitVar")
    mm_device_do_normalize: bool | None = since("0.34.0", None, description="InitVar")
    mm_processor_device: str | None = since("0.34.0", None, description="InitVar")
    attn_type: Literal["decoder", "encoder", "encoder_only", "encoder_decoder", "attention_free", "hybrid"] = since(
        "0.34.0", "decoder", derived=True,
        description="ModelConfig.attn_type (a property): what chunked prefill and prefix caching support depends on")


class CacheConfig(BaseModel):
    """vLLM's ``CacheConfig``."""

    model_config = _FORBID

    block_size: int | None = unhashed(None, ge=1)
    gpu_memory_utilization: float | None = unhashed(0.9, gt=0, le=1)
    swap_space: float = unhashed(4, ge=0, until="0.11.1")
    cache_dtype: CacheDType = hashed("auto")
    is_attention_free: bool = unhashed(False)
    num_gpu_blocks_override: int | None = unhashed(None)
    sliding_window: int | None = unhashed(None)
    enable_prefix_caching: bool | None = unhashed(None)
    prefix_caching_hash_algo: Literal["sha256", "sha256_cbor", "xxhash", "xxhash_cbor"] = unhashed("sha256")
    cpu_offload_gb: float = unhashed(0, ge=0, until="0.11.1")
    calculate_kv_scales: bool = unhashed(False, until="0.11.1")
    cpu_kvcache_space_bytes: int | None = unhashed(None, until="0.11.1")
    mamba_page_size_padded: int | None = unhashed(None)
    mamba_block_size: int | None = unhashed(None, gt=0)
    mamba_cache_dtype: MambaDType = hashed("auto", json_schema_extra=_MAMBA_DTYPES)
    mamba_ssm_cache_dtype: MambaDType = hashed("auto", json_schema_extra=_MAMBA_DTYPES)
    kv_sharing_fast_prefill: bool = unhashed(False)
    kv_cache_memory_bytes: int | None = unhashed(None)
    kv_offloading_size: float | None = since("0.11.1", None, description="GiB of CPU KV offloading buffer")
    kv_offloading_backend: Literal["native", "lmcache"] | None = since("0.11.1", None)
    num_gpu_blocks: int | None = derived(None)
    num_cpu_blocks: int | None = derived(None)
    cache_hit_alignment_tokens: int | None = since("0.34.0", None, derived=True)
    effective_attention_block_size: int | None = since("0.34.0", None, derived=True)
    enable_extensible_kv_cache: bool | None = since("0.34.0", None)
    enable_mamba_shared_prefix_checkpoint: bool = since("0.34.0", False)
    hash_block_size: int | None = since("0.34.0", None, derived=True)
    kv_cache_dtype_skip_layers: list[Any] = since("0.34.0", default_factory=list)
    kv_cache_layout: str | None = since("0.34.0", None, derived=True)
    kv_cache_max_concurrency: float | None = since("0.34.0", None, derived=True)
    kv_cache_size_tokens: int | None = since("0.34.0", None, derived=True)
    mamba_cache_mode: Literal['align', 'none'] = since("0.34.0", 'none')
    prefix_cache_retention_interval: int | None = since("0.34.0", 0)
    prefix_match_unit: int | None = since("0.34.0", None)
    replayssm_buffer_len: int = since("0.34.0", 16)
    simple_cpu_offload_num_blocks: int | None = since("0.34.0", None, derived=True)
    skip_page_size_padded: int | None = since("0.34.0", None)
    swa_bounded_replay: bool = since("0.34.0", True)
    use_kda_recoverssm: bool = since("0.34.0", False, derived=True)
    use_replayssm: bool = since("0.34.0", False)
    user_specified_block_size: bool = since("0.34.0", False, derived=True)


class EPLBConfig(BaseModel):
    """Expert-parallel load balancing; its fields are hash factors when EPLB is on."""

    model_config = _FORBID

    window_size: int = hashed(1000)
    step_interval: int = hashed(3000)
    num_redundant_experts: int | None = hashed(0, ge=0)
    log_balancedness: bool = hashed(False)
    communicator: Literal['torch_nccl', 'torch_gloo', 'torch_xccl', 'nixl', 'pynccl', 'symm_mem'] | None = since("0.34.0", None)
    enable_migration_batching: bool = since("0.34.0", False)
    log_balancedness_interval: int = since("0.34.0", 1, gt=0)
    policy: Literal['default'] = since("0.34.0", 'default')
    use_async: bool = since("0.34.0", True)

    @model_validator(mode="after")
    def _async_communicator(self) -> "EPLBConfig":
        """vLLM 0.34.0's EPLBConfig._validate_eplb_config (vllm/config/parallel.py:128-141): NCCL's communicators
        conflict with async EPLB's extra streams (its other checks are the fields' types and bounds here)."""
        if self.use_async and self.communicator in ("torch_nccl", "pynccl"):
            raise ValueError(f"{self.communicator} communicator is incompatible with async EPLB due to NCCL "
                             "multi-stream conflicts. Use 'torch_gloo' or 'nixl' instead, or leave communicator "
                             "unset for automatic selection.")
        return self


class ParallelConfig(BaseModel):
    """vLLM's ``ParallelConfig``."""

    model_config = _FORBID

    pipeline_parallel_size: int = hashed(1, ge=1)
    tensor_parallel_size: int = hashed(1, ge=1)
    data_parallel_size: int = hashed(1, ge=1)
    data_parallel_size_local: int = unhashed(1, ge=0)
    data_parallel_rank: int = unhashed(0, ge=0)
    data_parallel_rank_local: int | None = unhashed(None)
    data_parallel_master_ip: str = unhashed("127.0.0.1")
    data_parallel_rpc_port: int = unhashed(29550)
    data_parallel_master_port: int = unhashed(29500)
    data_parallel_backend: Literal["mp", "ray"] = unhashed("mp")
    data_parallel_external_lb: bool = unhashed(False)
    data_parallel_hybrid_lb: bool = unhashed(False)
    enable_expert_parallel: bool = hashed(False)
    enable_eplb: bool = hashed(False)
    eplb_config: EPLBConfig = hashed(
        default_factory=EPLBConfig, description="hash factors only when enable_eplb"
    )
    expert_placement_strategy: Literal["linear", "round_robin"] = unhashed("linear")
    all2all_backend: All2AllBackend | None = hashed(None)
    num_redundant_experts: int | None = unhashed(None, until="0.11.1")
    eplb_window_size: int | None = unhashed(None, until="0.11.1")
    eplb_step_interval: int | None = unhashed(None, until="0.11.1")
    eplb_log_balancedness: bool | None = unhashed(None, until="0.11.1")
    max_parallel_loading_workers: int | None = unhashed(None)
    disable_custom_all_reduce: bool = unhashed(False)
    enable_dbo: bool = unhashed(False)
    dbo_decode_token_threshold: int = unhashed(32)
    dbo_prefill_token_threshold: int = unhashed(512)
    disable_nccl_for_dp_synchronization: bool | None = unhashed(False)
    ray_workers_use_nsight: bool = unhashed(False)
    ray_runtime_env: dict[str, Any] | None = unhashed(None)
    placement_group: str | None = unhashed(None)
    distributed_executor_backend: DistributedExecutorBackend | None = unhashed(None)
    worker_cls: str = unhashed("auto")
    sd_worker_cls: str = unhashed("auto", until="0.11.1")
    worker_extension_cls: str = unhashed("")
    rank: int = unhashed(0, ge=0)
    decode_context_parallel_size: int = unhashed(1, ge=1)
    dcp_kv_cache_interleave_size: int = since("0.11.1", 1)
    master_addr: str = since("0.11.1", "127.0.0.1")
    master_port: int = since("0.11.1", 29501)
    node_rank: int = since("0.11.1", 0)
    nnodes: int = since("0.11.1", 1)
    world_size: int = derived(1)
    assigned_physical_gpu_ids: list[Any] | None = since("0.34.0", None)
    cp_kv_cache_interleave_size: int = since("0.34.0", 1)
    cpu_distributed_timeout_seconds: int | None = since("0.34.0", None)
    data_parallel_index: int | None = since("0.34.0", None, derived=True)
    dcp_comm_backend: Literal['ag_rs', 'a2a'] | None = since("0.34.0", None)
    dcp_q_replicate: bool | None = since("0.34.0", None)
    distributed_timeout_seconds: int | None = since("0.34.0", None)
    dp_sync_interval: int = since("0.34.0", 16)
    elastic_ep_max_dp_size: int | None = since("0.34.0", None)
    enable_batch_sharded_sampling: bool | None = since("0.34.0", None)
    enable_elastic_ep: bool = since("0.34.0", False)
    enable_ep_weight_filter: bool = since("0.34.0", False)
    enable_fault_tolerance: bool = since("0.34.0", False)
    enable_hc_sp: bool = since("0.34.0", False)
    enable_shm_tensor_arena: bool = since("0.34.0", False)
    fault_tolerance_config: FaultToleranceConfig = since("0.34.0", default_factory=FaultToleranceConfig)
    is_moe_model: bool | None = since("0.34.0", None)
    mori_ep_v2: bool | None = since("0.34.0", None)
    numa_bind: bool | None = since("0.34.0", None)
    numa_bind_cpus: list[Any] | None = since("0.34.0", None)
    numa_bind_nodes: list[Any] | None = since("0.34.0", None)
    prefill_context_parallel_size: int = since("0.34.0", 1)
    ubatch_size: int = since("0.34.0", 0)


class SchedulerConfig(BaseModel):
    """vLLM's ``SchedulerConfig`` (hash constant)."""

    model_config = _FORBID

    runner_type: RunnerType = unhashed("generate")
    max_num_batched_tokens: int | None = unhashed(None, ge=1)
    max_num_seqs: int | None = unhashed(None, ge=1)
    max_model_len: int | None = unhashed(None, ge=1, until="0.11.1")
    max_num_partial_prefills: int = unhashed(1, until="0.11.1")
    max_long_partial_prefills: int = unhashed(1, until="0.11.1")
    long_prefill_token_threshold: int = unhashed(0)
    num_lookahead_slots: int = unhashed(0, until="0.11.1")
    enable_chunked_prefill: bool | None = unhashed(None)
    is_multimodal_model: bool = unhashed(False)
    is_encoder_decoder: bool = unhashed(False, description="InitVar in vLLM", until="0.11.1")
    policy: Literal["fcfs", "priority"] = unhashed("fcfs")
    disable_chunked_mm_input: bool = unhashed(False)
    scheduler_cls: str | None = unhashed(None)
    disable_hybrid_kv_cache_manager: bool | None = unhashed(False)
    async_scheduling: bool | None = unhashed(False)
    stream_interval: int = since("0.11.1", 1, ge=1)
    chunked_prefill_enabled: bool | None = derived(
        None, until="d7fb10c57", description="0.11.1: a deprecated property aliasing enable_chunked_prefill")
    max_num_encoder_input_tokens: int | None = derived(None)
    encoder_cache_size: int | None = derived(None)
    cache_aware_admission_threshold: float = since("0.34.0", 0.5)
    cache_aware_admission_window: int = since("0.34.0", 0)
    long_prefill_token_threshold_adaptive: bool = since("0.34.0", False)
    max_num_active_seqs: int | None = since("0.34.0", None)
    max_num_inflight_kv_loads: int | None = since("0.34.0", None)
    max_num_queued_reqs: int | None = since("0.34.0", None)
    max_num_queued_tokens: int | None = since("0.34.0", None)
    max_num_scheduled_tokens: int | None = since("0.34.0", None, ge=1)
    prefill_schedule_interval: int = since("0.34.0", 1)
    scheduler_reserve_full_isl: bool = since("0.34.0", True)
    watermark: float = since("0.34.0", 0.0)


class DeviceConfig(BaseModel):
    """vLLM's ``DeviceConfig`` (hash constant)."""

    model_config = _FORBID

    device: str | None = unhashed("auto")
    device_type: str = derived("")


class LoadConfig(BaseModel):
    """vLLM's ``LoadConfig`` (hash constant)."""

    model_config = _FORBID

    load_format: str = unhashed("auto")
    download_dir: str | None = unhashed(None)
    safetensors_load_strategy: str | None = unhashed("lazy")
    model_loader_extra_config: dict[str, Any] = unhashed(default_factory=dict)
    device: str | None = unhashed(None)
    ignore_patterns: list[str] | str = unhashed(default_factory=lambda: ["original/**/*"])
    use_tqdm_on_load: bool = unhashed(True)
    pt_load_map_location: str | dict[str, str] = unhashed("cpu")
    safetensors_prefetch_block_size: int = since("0.34.0", 16777216)
    safetensors_prefetch_num_threads: int = since("0.34.0", 8)
    shuffle_safetensors_files: bool = since("0.34.0", False)


class LoRAConfig(BaseModel):
    """vLLM's ``LoRAConfig``."""

    model_config = _FORBID

    max_lora_rank: LoRARank = hashed(16)
    max_loras: int = hashed(1, ge=1)
    fully_sharded_loras: bool = hashed(False)
    max_cpu_loras: int | None = unhashed(None)
    lora_dtype: str = hashed("auto")
    lora_extra_vocab_size: int = hashed(256, ge=0, until="0.11.1")
    lora_vocab_padding_size: int = hashed(
        256, description="class var in vLLM: platform.get_lora_vocab_padding_size()"
    , until="0.11.1")
    default_mm_loras: dict[str, str] | None = unhashed(None)
    enable_mixed_moe_lora_format: bool = since("0.34.0", False)
    enable_moe_shared_loras: bool = since("0.34.0", False)
    enable_tower_connector_lora: bool = since("0.34.0", False)
    max_lora_cls_labels: int | None = since("0.34.0", None)
    specialize_active_lora: bool = since("0.34.0", False)
    target_modules: list[Any] | None = since("0.34.0", None)


class SpeculativeConfig(BaseModel):
    """The ``SpeculativeConfig`` fields VllmConfig uses plus the common user ones."""

    model_config = _FORBID

    num_speculative_tokens: SpecTokens = unhashed(None)
    model: str | None = unhashed(None)
    method: SpeculativeMethod | None = hashed(
        None, description='hash factor is `method == "eagle3"`', json_schema_extra=_SPEC_METHODS
    )
    draft_tensor_parallel_size: int | None = unhashed(None)
    enforce_eager: bool | None = unhashed(None)
    disable_logprobs: bool = unhashed(True, until="d7fb10c57")
    quantization: str | None = unhashed(None)
    max_model_len: int | None = unhashed(None)
    revision: str | None = unhashed(None)
    code_revision: str | None = unhashed(None)
    disable_by_batch_size: int | None = unhashed(None, until="0.11.1")
    disable_padded_drafter_batch: bool = unhashed(False, until="0.11.1")
    prompt_lookup_max: int | None = unhashed(None)
    prompt_lookup_min: int | None = unhashed(None)
    speculative_token_tree: str | None = unhashed(None, until="0.11.1")
    enable_chunked_prefill: bool | None = unhashed(None, until="d7fb10c57")
    disable_log_stats: bool | None = unhashed(None, until="d7fb10c57")
    suffix_decoding_max_tree_depth: int = since("0.11.1", 24)
    suffix_decoding_max_cached_requests: int = since("0.11.1", 10000)
    suffix_decoding_max_spec_factor: float = since("0.11.1", 1.0)
    suffix_decoding_min_token_prob: float = since("0.11.1", 0.1)
    attention_backend: Any = since("0.34.0", None)
    custom_method: str | None = since("0.34.0", None, derived=True)
    disable_eagle_block_drop: bool = since("0.34.0", False)
    disable_lookahead_block_hashes: bool = since("0.34.0", False)
    draft_decode_context_parallel_size: int | None = since("0.34.0", None)
    draft_lm_head_quantization: Literal['fp8', 'nvfp4'] | None = since("0.34.0", None)
    draft_sample_method: Literal['greedy', 'probabilistic'] = since("0.34.0", 'greedy')
    dspark_draft_topk: int | None = since("0.34.0", None)
    enable_adaptive_verification: bool = since("0.34.0", False)
    fly_entropy_threshold: float = since("0.34.0", 0.3)
    fly_entropy_top_k: int = since("0.34.0", 3)
    fly_window_size: int | None = since("0.34.0", None)
    index_share_for_mtp_iteration: bool | None = since("0.34.0", None)
    kv_cache_dtype: Any = since("0.34.0", None)
    moe_backend: Literal['auto', 'triton', 'batched_triton', 'deep_gemm', 'deep_gemm_mega_moe', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutlass', 'flashinfer_cutedsl', 'flashinfer_moe_ep_cutedsl', 'flashinfer_b12x', 'b12x', 'flashinfer_moe_ep_mega_deep_gemm', 'marlin', 'humming', 'triton_unfused', 'aiter', 'aiter_mega_moe', 'aiter_triton_mxfp4_bf16', 'aiter_triton_mxfp4_mxfp4', 'flydsl', 'hpc', 'emulation', 'rdna3'] | None = since("0.34.0", None)
    num_speculative_tokens_per_batch_size: list[Any] | None = since("0.34.0", None)
    parallel_drafting: bool | None = since("0.34.0", None)
    rejection_sample_method: Literal['standard', 'synthetic', 'block', 'fly'] = since("0.34.0", 'standard')
    speculator_options: dict[str, Any] | None = since("0.34.0", None)
    suffix_decoding_corpus_tokens: int = since("0.34.0", 1048576)
    synthetic_acceptance_length: float | None = since("0.34.0", None)
    synthetic_acceptance_rates: list[Any] | None = since("0.34.0", None)
    tensor_parallel_size: int | None = since("0.34.0", None)
    use_local_argmax_reduction: bool = since("0.34.0", False)
    xpress_topc: int | None = since("0.34.0", None)


class StructuredOutputsConfig(BaseModel):
    """vLLM's ``StructuredOutputsConfig`` (hash constant)."""

    model_config = _FORBID

    backend: Literal["auto", "xgrammar", "guidance", "outlines", "lm-format-enforcer"] = unhashed(
        "auto"
    )
    disable_fallback: bool = unhashed(False, until="0.11.1")
    disable_any_whitespace: bool = unhashed(False)
    disable_additional_properties: bool = unhashed(False)
    reasoning_parser: str = unhashed("")
    reasoning_parser_plugin: str = since("0.11.1", "")
    enable_in_reasoning: bool = unhashed(False)


class ObservabilityConfig(BaseModel):
    """vLLM's ``ObservabilityConfig`` (hash constant)."""

    model_config = _FORBID

    show_hidden_metrics_for_version: str | None = unhashed(None)
    otlp_traces_endpoint: str | None = unhashed(None)
    collect_detailed_traces: list[Literal["model", "worker", "all"]] | None = unhashed(None)
    cudagraph_metrics: bool = since("0.34.0", False)
    custom_histogram_buckets: dict[str, Any] | None = since("0.34.0", None)
    enable_layerwise_nvtx_tracing: bool = since("0.34.0", False)
    enable_logging_iteration_details: bool = since("0.34.0", False)
    enable_mfu_metrics: bool = since("0.34.0", False)
    enable_mm_processor_stats: bool = since("0.34.0", False)
    jit_monitor_mode: Literal['warn', 'error'] = since("0.34.0", 'warn')
    jit_monitor_verbose: bool = since("0.34.0", False)
    kv_cache_metrics: bool = since("0.34.0", False)
    kv_cache_metrics_sample: float = since("0.34.0", 0.01)
    per_request_spec_decode_metrics: Literal['none', 'summary', 'detailed'] = since("0.34.0", 'none')


class PassConfig(BaseModel):
    """Inductor pass switches; every field enters ``uuid()`` (a compilation hash factor)."""

    model_config = _FORBID

    enable_fusion: bool = hashed(False, until="0.11.1")
    enable_attn_fusion: bool = hashed(False, until="0.11.1")
    enable_noop: bool = hashed(False, until="0.11.1")
    enable_sequence_parallelism: bool = hashed(False, until="0.11.1")
    enable_async_tp: bool = hashed(False, until="0.11.1")
    enable_fi_allreduce_fusion: bool = hashed(False, until="0.11.1")
    fi_allreduce_fusion_max_token_num: int = hashed(16384, until="d7fb10c57")
    fi_allreduce_fusion_max_size_mb: float | None = since("0.11.1", None)
    enable_qk_norm_rope_fusion: bool | None = since("0.11.1", False)
    eliminate_noops: bool = since("0.34.0", True)
    fuse_act_padding: bool | None = since("0.34.0", None)
    fuse_act_quant: bool | None = since("0.34.0", None)
    fuse_allreduce_rms: bool | None = since("0.34.0", None)
    fuse_attn_quant: bool | None = since("0.34.0", None)
    fuse_mla_dual_rms_norm: bool | None = since("0.34.0", None)
    fuse_norm_quant: bool | None = since("0.34.0", None)
    fuse_qk_norm_rope_kvcache: bool | None = since("0.34.0", None)
    fuse_rope_kvcache: bool | None = since("0.34.0", None)
    fuse_rope_kvcache_cat_mla: bool | None = since("0.34.0", None)
    rope_kvcache_fusion_max_token_num: int = since("0.34.0", 256)


class CompilationConfig(BaseModel):
    """vLLM's ``CompilationConfig``."""

    model_config = _FORBID

    level: int | None = unhashed(None, ge=0, le=3, description="deprecated alias of mode", until="0.11.1")
    mode: CompilationModeValue | None = hashed(None)
    debug_dump_path: str | None = unhashed(None)
    cache_dir: str = unhashed("")
    compile_cache_save_format: Literal["binary", "unpacked"] = since(
        "0.11.1", "binary", description="default: VLLM_COMPILE_CACHE_SAVE_FORMAT")
    backend: str = hashed("")
    custom_ops: list[str] = hashed(default_factory=list)
    splitting_ops: list[str] | None = hashed(None)
    compile_mm_encoder: bool = since("0.11.1", False)
    use_inductor: bool | None = hashed(None, until="0.11.1")
    compile_sizes: list[int | str] | None = unhashed(None)
    inductor_compile_config: dict[str, Any] = hashed(default_factory=dict)
    inductor_passes: dict[str, str] = hashed(default_factory=dict)
    cudagraph_mode: CUDAGraphMode | None = unhashed(None)
    use_cudagraph: bool = unhashed(True, until="d7fb10c57")
    cudagraph_num_of_warmups: int = unhashed(0, ge=0)
    cudagraph_capture_sizes: list[CaptureSize] | None = unhashed(None)
    cudagraph_copy_inputs: bool = unhashed(False)
    full_cuda_graph: bool | None = unhashed(False, until="d7fb10c57")
    cudagraph_specialize_lora: bool = unhashed(True)
    use_inductor_graph_partition: bool | None = hashed(False)
    pass_config: PassConfig = hashed(default_factory=PassConfig)
    max_cudagraph_capture_size: int | None = unhashed(None, ge=0, le=MAX_CAPTURE_SIZE)
    local_cache_dir: str | None = derived(None)
    bs_to_padded_graph_size: list[int] | None = derived(None, until="0.11.1")
    enabled_custom_ops: dict[str, int] = derived(default_factory=dict)
    disabled_custom_ops: dict[str, int] = derived(default_factory=dict)
    traced_files: list[str] = derived(default_factory=list)
    compilation_time: float = derived(0.0)
    static_forward_context: dict[str, str] = derived(default_factory=dict)
    compile_ranges_endpoints: list[Any] | None = since("0.34.0", None)
    cudagraph_decoder_replay: bool = since("0.34.0", True)
    cudagraph_mm_encoder: bool = since("0.34.0", False)
    decode_cudagraph_capture_request_sizes: list[Any] | None = since("0.34.0", None)
    decoder_replay_cudagraph_capture_sizes: list[Any] = since("0.34.0", default_factory=list)
    decoder_replay_trim_threshold: int = since("0.34.0", 768)
    dynamic_shapes_config: DynamicShapesConfig = since("0.34.0", default_factory=DynamicShapesConfig)
    encoder_compilation_time: float = since("0.34.0", 0.0, derived=True)
    encoder_cudagraph_max_frames_per_batch: int | None = since("0.34.0", None)
    encoder_cudagraph_max_token_budget: int | None = since("0.34.0", 5120)
    encoder_cudagraph_max_vision_items_per_batch: int = since("0.34.0", 0)
    encoder_cudagraph_token_budgets: list[Any] = since("0.34.0", default_factory=list)
    fast_moe_cold_start: bool | None = since("0.34.0", None)
    ir_enable_torch_wrap: bool | None = since("0.34.0", None)
    max_decode_cudagraph_capture_requests: int | None = since("0.34.0", None)
    max_decode_cudagraph_capture_tokens: int | None = since("0.34.0", None)
    max_prefill_cudagraph_capture_tokens: int | None = since("0.34.0", None)
    prefill_cudagraph_capture_token_sizes: list[Any] | None = since("0.34.0", None)
    static_all_moe_layers: list[Any] = since("0.34.0", default_factory=list, derived=True)
    use_breakable_cudagraph: bool | None = since("0.34.0", None)


class KVTransferConfig(BaseModel):
    """vLLM's ``KVTransferConfig`` (hash constant)."""

    model_config = _FORBID

    kv_connector: str | None = unhashed(None)
    engine_id: str | None = unhashed(None)
    kv_buffer_device: str | None = unhashed("cuda")
    kv_buffer_size: float = unhashed(1e9, until="0.11.1")
    # vLLM's Literal[KVProducer, KVConsumer] flattened: this order is the one its refusal lists
    kv_role: Literal["kv_producer", "kv_both", "kv_consumer"] | None = unhashed(None)
    kv_rank: int | None = unhashed(None, until="0.11.1")
    kv_parallel_size: int = unhashed(1, until="0.11.1")
    kv_ip: str = unhashed("127.0.0.1", until="0.11.1")
    kv_port: int = unhashed(14579)
    kv_connector_extra_config: dict[str, Any] = unhashed(default_factory=dict)
    kv_connector_module_path: str | None = unhashed(None)
    enable_permute_local_kv: bool = unhashed(False)
    kv_load_failure_policy: Literal['recompute', 'fail'] = since("0.34.0", 'fail')


class KVEventsConfig(BaseModel):
    """vLLM's ``KVEventsConfig`` (not a VllmConfig hash factor)."""

    model_config = _FORBID

    enable_kv_cache_events: bool = unhashed(False)
    publisher: Literal["null", "zmq"] | None = unhashed(None)
    endpoint: str = unhashed("tcp://*:5557")
    replay_endpoint: str | None = unhashed(None)
    buffer_steps: int = unhashed(10000)
    hwm: int = unhashed(100000)
    max_queue_size: int = unhashed(100000)
    topic: str = unhashed("")


class QuantizationConfig(BaseModel):
    """The quantization method VllmConfig resolves in step 6 (a stand-in for vLLM's object)."""

    model_config = _FORBID

    method: str = unhashed(..., min_length=1, description="e.g. 'fp8'")
    class_name: str | None = unhashed(None, description="vLLM class, e.g. 'Fp8Config'")
    min_capability: int | None = unhashed(None)
    weight_block_size: list[int] | None = unhashed(
        None, description="blocked FP8 weights, e.g. [128, 128] (step 24 reads it)"
    )


@dataclass(config=ConfigDict(extra="forbid"))
class VllmConfig:
    """The top-level config; a pydantic dataclass so the field ``model_config`` keeps its name."""

    model_config: ModelConfig | None = hashed(None)
    cache_config: CacheConfig = hashed(default_factory=CacheConfig)
    parallel_config: ParallelConfig = hashed(default_factory=ParallelConfig)
    scheduler_config: SchedulerConfig = hashed(default_factory=SchedulerConfig)
    device_config: DeviceConfig = hashed(default_factory=DeviceConfig)
    load_config: LoadConfig = hashed(default_factory=LoadConfig)
    lora_config: LoRAConfig | None = hashed(None)
    speculative_config: SpeculativeConfig | None = hashed(None)
    structured_outputs_config: StructuredOutputsConfig = hashed(
        default_factory=StructuredOutputsConfig
    )
    observability_config: ObservabilityConfig | None = hashed(None)
    quant_config: QuantizationConfig | None = derived(None)
    compilation_config: CompilationConfig = hashed(default_factory=CompilationConfig)
    kv_transfer_config: KVTransferConfig | None = hashed(None)
    kv_events_config: KVEventsConfig | None = unhashed(None)
    additional_config: dict[str, Any] = hashed(default_factory=dict)
    instance_id: str = derived("")
    # vLLM 0.34.0's new sub-configs (vllm/config/vllm.py VllmConfig) and scalars
    attention_config: AttentionConfig = since("0.34.0", default_factory=AttentionConfig)
    aux_output_config: AuxOutputConfig = since("0.34.0", default_factory=AuxOutputConfig)
    engram_config: EngramConfig | None = since("0.34.0", None)
    mamba_config: MambaConfig = since("0.34.0", default_factory=MambaConfig)
    kernel_config: KernelConfig = since("0.34.0", default_factory=KernelConfig)
    watermark_config: WatermarkConfig | None = since("0.34.0", None)
    diffusion_config: DiffusionConfig | None = since("0.34.0", None)
    logging_config: LoggingConfig = since("0.34.0", default_factory=LoggingConfig)
    profiler_config: ProfilerConfig = since("0.34.0", default_factory=ProfilerConfig)
    ec_transfer_config: ECTransferConfig | None = since("0.34.0", None)
    ec_manager_config: EncoderCacheManagerConfig = since("0.34.0", default_factory=EncoderCacheManagerConfig)
    reasoning_config: ReasoningConfig | None = since("0.34.0", None)
    weight_transfer_config: WeightTransferConfig | None = since("0.34.0", None)
    watchdog_config: WatchdogConfig = since("0.34.0", default_factory=WatchdogConfig)
    offload_config: OffloadConfig = since("0.34.0", default_factory=OffloadConfig)
    optimization_level: OptimizationLevelValue = since("0.34.0", 2, description="-O<n>: O0..O3 default tables")
    performance_mode: Literal["balanced", "interactivity", "throughput"] = since("0.34.0", "balanced")
    shutdown_timeout: int = since("0.34.0", 0)
    num_hash_lookahead_tokens: int = since("0.34.0", 0, derived=True)
