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


# =========================================================================== the pooler config (phase model_config)

_PC = "model_config.pooler_config."
_SEQ_TYPES = ("CLS", "LAST", "MEAN")
_TOK_TYPES = ("ALL", "STEP")
_POOLER = "vllm/config/pooler.py PoolerConfig"


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
}


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
    title="The end of ModelConfig.__post_init__: the architecture's MODELS_CONFIG_MAP hook "
    "(verify_and_update_model_config; one applies per architecture)",
    source=f"vllm/config/model.py ModelConfig._try_verify_and_update_model_config (1525-1540); {_REF}",
)

TRY_VERIFY_AND_UPDATE_CONFIG = sequence(
    "models.try-verify-and-update-config",
    "models.deepseek-v32-cache-dtype", "models.gptoss-max-capture-size", "models.gptoss-reasoning-parser",
    "models.nomic-bert-config", "models.gte-new-rotary", "models.jina-roberta-rotary", "models.mamba-prefix-caching", "models.mamba-chunked-prefill-required", "models.mamba-block-size-default",
    "models.seq-cls-config", "models.runai-load-format",
    title="Step 2 in order: the architecture's MODELS_CONFIG_MAP hook (verify_and_update_config), the hybrid "
    "hook (MambaModelConfig), sequence classification, Run:ai",
    source=f"vllm/config/vllm.py VllmConfig.try_verify_and_update_config (2816-2870); {_REF}",
)


DELTA = Delta(
    facts={"model_registry": "model-registry-0.34.0.json"},
    patch=(*_RUNNER, *_HOOKS_IN_MODEL_CONFIG),
    replace=(class_interfaces, pooler_config, qwen2_rm_activation, jinavl_ranking, encoder_decoder_no_chunked_prefill,
             mamba_prefix_caching, mamba_block_size_default),
    add=(pooler_pooling_type, attn_type, mamba_chunked_prefill_required),
    drop={**_POOLER_DROPS, **_STEP_14_DROPS, **_MAMBA_STEP_DROPS},
    groups=(TRY_VERIFY_AND_UPDATE_MODEL_CONFIG, TRY_VERIFY_AND_UPDATE_CONFIG),
    fields_added=("model_config.attn_type",),
)
"""The model-specific part of vLLM 0.34.0's delta over 0.11.1."""
