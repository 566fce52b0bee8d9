"""Step 2: ``try_verify_and_update_config`` — per-architecture model rules (phase ``model``).

vLLM runs this block once per model config: it sets ``config_updated`` and
then applies, in order, the ``MODELS_CONFIG_MAP`` entry of the architecture
(§8.1), the Mamba/hybrid page-size rules (§8.2, §8.3), the sequence
classification adapter (§8.4) and the Run:ai load-format rule (§8.5).

"Once" is modelled by a fact, not by the flag the guard writes: every rule here
reads ``usage.config_updated_on_input`` (the block already ran on the config
handed in: vLLM's re-run through ``with_hf_config``) and does nothing when it
is True. The guard ``models.config-updated`` still runs last in the phase and
sets ``model_config.config_updated``, but no model rule reads that flag, so the
guard's write never turns off the rules it guards (which, under consistent
semantics, would retract their results and leave them skipped).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, Rule, RuleResult, Violation, make_rule, rule, sequence

_SRC = "vllm/model_executor/models/config.py"
_GUARD = "models.config-updated"
_DONE = "usage.config_updated_on_input"
_ON = ("model_config", _DONE, "model_config.architecture")

MAMBA_ARCHS = ("MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM")
"""MODELS_CONFIG_MAP entries that map to ``MambaModelConfig``."""


def _on(c: Mapping[str, Any], *archs: str) -> bool:
    """The step-2 guard holds (and, given ``archs``, the architecture is one of them)."""
    if not c["model_config"] or c[_DONE] or c["model_config.architecture"] is None:
        return False
    return not archs or c["model_config.architecture"] in archs


ON_READS = _ON
"""What :func:`step2_on` reads."""
step2_on = _on
"""The step-2 guard (``try_verify_and_update_config`` runs for this model config), for other versions' rules."""


def _hf(c: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Writes to ``hf_config.<key>``, mirrored to ``hf_text_config`` when vLLM's two are one object."""
    out = {f"model_config.hf_config.{k}": v for k, v in values.items()}
    if c["model_config.hf_config.text_config"] is None:
        out.update({f"model_config.hf_text_config.{k}": v for k, v in values.items()})
    return out


def _hf_writes(*keys: str) -> tuple[str, ...]:
    return tuple(f"model_config.{cfg}.{k}" for k in keys for cfg in ("hf_config", "hf_text_config"))


hf_set = _hf
"""Writes to ``hf_config.<key>``, mirrored to ``hf_text_config`` when vLLM's two are one object."""
hf_writes = _hf_writes
"""The paths :func:`hf_set` may write for ``keys``."""


# ---------------------------------------------------------------------------
# the guard
# ---------------------------------------------------------------------------



@rule(
    _GUARD,
    title="Model-specific updates run once per model config",
    phase="model",
    kind="derive",
    reads=("model_config", "model_config.config_updated"),
    writes=("model_config.config_updated",),
    source="vllm/config/vllm.py VllmConfig.try_verify_and_update_config; ref step-2",
)
def config_updated(c: Mapping[str, Any]) -> RuleResult:
    """Avoid running try_verify_and_update_config multiple times.

    vLLM sets the flag before looking at the architecture, so a model without
    one is marked too. Runs last here; the model rules read ``usage.config_updated_on_input``,
not this flag, so setting it does not re-run them.
    """
    if c["model_config"] and not c["model_config.config_updated"]:
        return {"model_config.config_updated": True}
    return None


# ---------------------------------------------------------------------------
# §8.1 MODELS_CONFIG_MAP
# ---------------------------------------------------------------------------

_GTE_ARCHS = ("GteModel", "GteNewModel", "GteNewForSequenceClassification")


@rule(
    "models.gte-new-rotary",
    title="GTE models: geglu activation and rotary kwargs",
    phase="model",
    kind="override",
    reads=(*_ON, "model_config.hf_config.text_config", "model_config.hf_config.hidden_act",
           "model_config.hf_config.hidden_size", "model_config.hf_config.num_attention_heads",
           "model_config.hf_config.rotary_emb_dim", "model_config.hf_config.max_position_embeddings",
           "model_config.hf_config.rope_theta", "model_config.hf_config.rope_scaling"),
    writes=_hf_writes("hidden_act", "rotary_kwargs"),
    source=f"{_SRC} SnowflakeGteNewModelConfig, GteNewModelConfig; ref 8.1:GteModel, 8.1:GteNewModel",
)
def gte_new_rotary(c: Mapping[str, Any]) -> RuleResult:
    """GTE checkpoints say gelu but run a gated GELU with rotary embeddings.

    The config-class assertion (GteConfig / NewConfig) is not modelled: postinit
    knows config.json keys, not the transformers class.
    """
    if not _on(c, *_GTE_ARCHS):
        return None
    if c["model_config.hf_config.hidden_act"] != "gelu":
        return Violation("", hint="GTE configs must have hidden_act == 'gelu'", error="AssertionError")
    head = c["model_config.hf_config.hidden_size"] // c["model_config.hf_config.num_attention_heads"]
    kwargs = {
        "head_size": head,
        "rotary_dim": c["model_config.hf_config.rotary_emb_dim"] or head,
        "max_position": c["model_config.hf_config.max_position_embeddings"],
        "base": c["model_config.hf_config.rope_theta"],
        "rope_scaling": c["model_config.hf_config.rope_scaling"],
    }
    return _hf(c, {"hidden_act": "geglu", "rotary_kwargs": kwargs})


@rule(
    "models.gemma3-text-is-causal",
    title="Gemma3TextModel: is_causal from use_bidirectional_attention",
    phase="model",
    kind="derive",
    reads=(*_ON, "model_config.hf_config.text_config", "model_config.hf_config.use_bidirectional_attention"),
    writes=_hf_writes("is_causal"),
    source=f"{_SRC} Gemma3TextModelConfig; ref 8.1:Gemma3TextModel, 13.1:P1",
)
def gemma3_text_is_causal(c: Mapping[str, Any]) -> RuleResult:
    """EmbeddingGemma attends bidirectionally; step 14 then turns chunked prefill and APC off."""
    if not _on(c, "Gemma3TextModel"):
        return None
    return _hf(c, {"is_causal": not c["model_config.hf_config.use_bidirectional_attention"]})


_NOMIC_READS = (
    *_ON, "model_config.hf_config.text_config", "model_config.hf_config.activation_function",
    "model_config.hf_config.position_embedding_type", "model_config.hf_config.mlp_fc1_bias",
    "model_config.hf_config.mlp_fc2_bias", "model_config.hf_config.qkv_proj_bias",
    "model_config.hf_config.rotary_emb_scale_base", "model_config.hf_config.rotary_emb_interleaved",
    "model_config.hf_config.layer_norm_epsilon", "model_config.hf_config.n_inner",
    "model_config.hf_config.n_embd", "model_config.hf_config.n_layer",
    "model_config.hf_config.num_attention_heads", "model_config.hf_config.rotary_emb_fraction",
    "model_config.hf_config.max_trained_positions", "model_config.hf_config.rope_theta",
    "model_config.hf_config.rotary_emb_base", "model_config.hf_config.rope_scaling",
)


def _nomic_rotary(c: Mapping[str, Any]) -> dict[str, Any]:
    head = c["model_config.hf_config.n_embd"] // c["model_config.hf_config.num_attention_heads"]
    theta = c["model_config.hf_config.rope_theta"]
    return {
        "head_size": head,
        "rotary_dim": int(head * (c["model_config.hf_config.rotary_emb_fraction"] or 0)),
        "max_position": c["model_config.hf_config.max_trained_positions"] or 2048,
        "base": theta if theta is not None else c["model_config.hf_config.rotary_emb_base"],
        "rope_scaling": c["model_config.hf_config.rope_scaling"],
    }


@rule(
    "models.nomic-bert-config",
    title="NomicBertModel: map nomic config keys onto BERT names",
    phase="model",
    kind="override",
    reads=_NOMIC_READS,
    writes=_hf_writes("position_embedding_type", "hidden_act", "bias", "layer_norm_eps",
                      "intermediate_size", "hidden_size", "num_hidden_layers", "rotary_kwargs"),
    source=f"{_SRC} NomicBertModelConfig; ref 8.1:NomicBertModel",
)
def nomic_bert_config(c: Mapping[str, Any]) -> RuleResult:
    """Nomic's config.json uses GPT-2 style names; vLLM's BERT implementation needs its own."""
    if not _on(c, "NomicBertModel"):
        return None
    h = {k: c[f"model_config.hf_config.{k}"] for k in (
        "activation_function", "mlp_fc1_bias", "mlp_fc2_bias", "qkv_proj_bias",
        "rotary_emb_scale_base", "rotary_emb_interleaved")}
    if h["activation_function"] not in ("swiglu", "gelu") or not (
        h["mlp_fc1_bias"] == h["mlp_fc2_bias"] == h["qkv_proj_bias"]
    ) or h["rotary_emb_scale_base"] is not None or h["rotary_emb_interleaved"]:
        return Violation("", hint="unsupported NomicBert config", error="AssertionError")
    act = "silu" if h["activation_function"] == "swiglu" else h["activation_function"]
    return _hf(c, {
        "position_embedding_type": c["model_config.hf_config.position_embedding_type"] or "rope",
        "hidden_act": act, "bias": h["qkv_proj_bias"],
        "layer_norm_eps": c["model_config.hf_config.layer_norm_epsilon"],
        "intermediate_size": c["model_config.hf_config.n_inner"],
        "hidden_size": c["model_config.hf_config.n_embd"],
        "num_hidden_layers": c["model_config.hf_config.n_layer"],
        "rotary_kwargs": _nomic_rotary(c),
    })


_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
             "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
_NOMIC_LEN_READS = (
    *_ON, "model_config.hf_config.max_trained_positions", "model_config.hf_overrides",
    "model_config.original_max_model_len", "model_config.max_model_len", "model_config.hf_config.st_max_seq_length",
    "model_config.hf_config.st_do_lower_case", "model_config.hf_config.rope_scaling",
    "env.VLLM_ALLOW_LONG_MAX_MODEL_LEN",
    *(f"model_config.hf_text_config.{k}" for k in _LEN_KEYS),
)


def _verify_len(c: Mapping[str, Any], n: int, trained: int | None, st: int | None) -> int | Violation:
    """``ModelConfig.get_and_verify_max_len(n)`` for a user value (rope scaling not modelled)."""
    keys = {k: c[f"model_config.hf_text_config.{k}"] for k in _LEN_KEYS}
    if trained is not None:
        keys["max_position_embeddings"] = trained
    present = {k: v for k, v in keys.items() if v is not None}
    derived: float = min(present.values(), default=math.inf)
    if keys["model_max_length"]:
        derived = keys["model_max_length"]
    if st is not None:
        derived = st
    if n <= derived or (keys["model_max_length"] is not None and n <= keys["model_max_length"]):
        return n
    if c["env.VLLM_ALLOW_LONG_MAX_MODEL_LEN"]:
        return n
    key = min(present, key=lambda k: present[k]) if present else None
    return Violation(
        f"User-specified max_model_len ({n}) is greater than the derived max_model_len ({key}={derived} or "
        f"model_max_length={keys['model_max_length']} in model's config.json). To allow overriding this maximum, "
        "set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
        error="ValueError",
    )


@rule(
    "models.nomic-bert-max-model-len",
    title="NomicBertModel: max_model_len capped to max_trained_positions",
    phase="model",
    kind="override",
    reads=_NOMIC_LEN_READS,
    writes=("model_config.max_model_len", "scheduler_config.max_model_len",
            "model_config.hf_text_config.max_position_embeddings", "model_config.hf_text_config.rope_scaling",
            "model_config.hf_config.st_max_seq_length"),
    source=f"{_SRC} NomicBertModelConfig, vllm/config/vllm.py recalculate_max_model_len; ref 8.1:NomicBertModel, 13.1:O1",
    message=("Nomic context extension is disabled. Changing max_model_len from {old} to {new}. To enable context "
             "extension, see: https://github.com/vllm-project/vllm/tree/main/examples/offline_inference/"
             "context_extension.html"),
    level="warning",
)
def nomic_bert_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """Without context extension nomic-bert is only valid up to its trained positions.

    ``recalculate_max_model_len`` writes the model's and the scheduler's
    length; the scheduler budget is not re-derived (reference §1.3). With a user
    length (or hf_overrides) vLLM first drops ``max_seq_length`` from a copy of the
    sentence-transformers encoder config, and fails when there is none (postinit
    counts one as present when sentence_bert_config.json gave max_seq_length or
    do_lower_case).
    """
    if not _on(c, "NomicBertModel"):
        return None
    trained = c["model_config.hf_config.max_trained_positions"] or 2048
    old = c["model_config.max_model_len"]
    if not c["model_config.hf_overrides"] and c["model_config.original_max_model_len"] is None:
        new = _verify_len(c, min(old, trained), None, c["model_config.hf_config.st_max_seq_length"])
        if isinstance(new, Violation):
            return new
        return Outcome.log({"model_config.max_model_len": new, "scheduler_config.max_model_len": new}, old=old, new=new)
    if c["model_config.hf_config.st_max_seq_length"] is None and c["model_config.hf_config.st_do_lower_case"] is None:
        # vLLM pops max_seq_length from a copy of model_config.encoder_config, which is None without a
        # sentence-transformers config (sentence_bert_config.json): golden t114-nomic-max-len
        return Violation("'NoneType' object has no attribute 'pop'", error="AttributeError",
                         hint="NomicBertModel with --max-model-len or hf_overrides needs a sentence_bert_config.json")
    target = c["model_config.hf_overrides"].get("max_model_len", old)
    new = _verify_len(c, target, trained, None)
    if isinstance(new, Violation):
        return new
    return Outcome({
        "model_config.hf_text_config.max_position_embeddings": trained,
        "model_config.hf_text_config.rope_scaling": c["model_config.hf_config.rope_scaling"],
        "model_config.hf_config.st_max_seq_length": None,
        "model_config.max_model_len": new, "scheduler_config.max_model_len": new,
    }, message="")


@rule(
    "models.nomic-bert-max-model-len-log",
    title="NomicBertModel: the re-verified max_model_len is logged again",
    phase="model",
    kind="check",
    reads=(*_ON, "model_config.max_model_len"),
    after=("models.nomic-bert-max-model-len",),
    source=f"{_SRC} NomicBertModelConfig (vllm/config/vllm.py recalculate_max_model_len -> "
    "ModelConfig.get_and_verify_max_len); ref 8.1:NomicBertModel",
    message="Using max model len {n}",
    level="info",
)
def nomic_bert_max_model_len_log(c: Mapping[str, Any]) -> RuleResult:
    """``recalculate_max_model_len`` verifies the length again through ``get_and_verify_max_len``, which logs it
    as ModelConfig did (golden n332: 8192, then 2048 after the cap)."""
    if not _on(c, "NomicBertModel"):
        return None
    return Outcome.log(n=c["model_config.max_model_len"])


def _pooler_default(c: Mapping[str, Any], arch: str, field: str, value: Any) -> RuleResult:
    """``pooler.<field> default <value>``: dereferences the pooler config unconditionally, like vLLM."""
    if not _on(c, arch):
        return None
    if not c["model_config.pooler_config"]:
        return Violation(f"'NoneType' object has no attribute '{field}'", error="AttributeError",
                         hint=f"{arch} needs a pooling runner (pooler_config is None)")
    if c[f"model_config.pooler_config.{field}"] is None:
        return {f"model_config.pooler_config.{field}": value}
    return None


def pooler_default_rule(rule_id: str, arch: str, field: str, value: Any, source: str, doc: str,
                        phase: str = "model") -> Rule:
    """A ``MODELS_CONFIG_MAP`` hook that defaults one pooler field of ``arch`` (see :func:`_pooler_default`).

    ``phase``: ``model`` for a ``verify_and_update_config`` hook (VllmConfig step 2), ``model_config`` for a
    ``verify_and_update_model_config`` one (the end of ``ModelConfig.__post_init__``, vLLM 0.34.0).
    """

    def pooler_default(c: Mapping[str, Any]) -> RuleResult:
        return _pooler_default(c, arch, field, value)

    pooler_default.__doc__ = doc
    path = f"model_config.pooler_config.{field}"
    return make_rule(pooler_default, rule_id, title=f"{arch}: pooler {field} defaults to {value}", phase=phase,
                     kind="default", reads=(*_ON, "model_config.pooler_config", path), writes=(path,), source=source)


qwen2_prm_step_tag_id = pooler_default_rule(
    "models.qwen2-prm-step-tag-id", "Qwen2ForProcessRewardModel", "step_tag_id", 151651,
    f"{_SRC} Qwen2ForProcessRewardModelConfig; ref 8.1:Qwen2ForProcessRewardModel",
    "The process reward model scores the token after each step tag (id 151651).")

qwen2_rm_softmax = pooler_default_rule(
    "models.qwen2-rm-softmax", "Qwen2ForRewardModel", "softmax", False,
    f"{_SRC} Qwen2ForRewardModelConfig; ref 8.1:Qwen2ForRewardModel",
    "Reward scores are raw logits, not probabilities.")

jamba_cls_activation = pooler_default_rule(
    "models.jamba-cls-activation", "JambaForSequenceClassification", "activation", False,
    f"{_SRC} JambaForSequenceClassificationConfig; ref 8.1:JambaForSequenceClassification",
    "Jamba's classifier head returns raw scores (the model is also hybrid: §8.3 runs too).")


@rule(
    "models.qwen3-reranker-method",
    title="Original Qwen3 reranker: from_2_way_softmax scoring",
    phase="model",
    kind="derive",
    reads=(*_ON, "model_config.hf_config.text_config", "model_config.hf_config.is_original_qwen3_reranker",
           "model_config.hf_config.classifier_from_token"),
    writes=_hf_writes("method"),
    source=f"{_SRC} Qwen3ForSequenceClassificationConfig; ref 8.1:Qwen3ForSequenceClassification",
)
def qwen3_reranker_method(c: Mapping[str, Any], *,
                          example: str = "offline_inference/qwen3_reranker.py") -> RuleResult:
    """The original Qwen3 reranker scores yes/no logits with a two-way softmax (``example``: the path under
    vLLM's examples/ that its error points to)."""
    if not _on(c, "Qwen3ForSequenceClassification") or not c["model_config.hf_config.is_original_qwen3_reranker"]:
        return None
    tokens = c["model_config.hf_config.classifier_from_token"]
    if tokens is None or len(tokens) != 2:
        return Violation(
            "Try loading the original Qwen3 Reranker?, see: "
            f"https://github.com/vllm-project/vllm/tree/main/examples/{example}",
            error="AssertionError",
        )
    return _hf(c, {"method": "from_2_way_softmax"})


@rule(
    "models.jina-roberta-rotary",
    title="XLMRobertaModel (Jina): rotary kwargs, max position rounded up to 8",
    phase="model",
    kind="derive",
    reads=(*_ON, "model_config.hf_config.text_config", "model_config.hf_config.position_embedding_type",
           "model_config.hf_config.hidden_size", "model_config.hf_config.num_attention_heads",
           "model_config.hf_config.rotary_emb_dim", "model_config.hf_config.max_position_embeddings",
           "model_config.enforce_eager", "model_config.hf_config.rope_theta",
           "model_config.hf_config.rotary_emb_base", "model_config.hf_config.rope_scaling"),
    writes=_hf_writes("rotary_kwargs"),
    source=f"{_SRC} JinaRobertaModelConfig; ref 8.1:XLMRobertaModel",
)
def jina_roberta_rotary(c: Mapping[str, Any]) -> RuleResult:
    """Jina-embeddings-v3's 8194 positions overflow the Triton RoPE kernel under torch.compile.

    The max position is rounded up to a multiple of 8 unless eager. The
    XLMRobertaFlashConfig class assertion is not modelled.
    """
    if not _on(c, "XLMRobertaModel") or c["model_config.hf_config.position_embedding_type"] != "rotary":
        return None
    head = c["model_config.hf_config.hidden_size"] // c["model_config.hf_config.num_attention_heads"]
    max_pos = c["model_config.hf_config.max_position_embeddings"]
    if not c["model_config.enforce_eager"]:
        max_pos = -(-max_pos // 8) * 8
    theta = c["model_config.hf_config.rope_theta"]
    return _hf(c, {"rotary_kwargs": {
        "head_size": head, "rotary_dim": c["model_config.hf_config.rotary_emb_dim"] or head,
        "max_position": max_pos,
        "base": theta if theta is not None else c["model_config.hf_config.rotary_emb_base"],
        "rope_scaling": c["model_config.hf_config.rope_scaling"],
    }})


@rule(
    "models.jinavl-ranking",
    title="JinaVLForRanking: one label, pooler logit_bias defaults to 2.65",
    phase="model",
    kind="override",
    reads=(*_ON, "model_config.hf_config.text_config", "model_config.pooler_config",
           "model_config.pooler_config.logit_bias"),
    writes=(*_hf_writes("num_labels"), "model_config.pooler_config.logit_bias"),
    source=f"{_SRC} JinaVLForSequenceClassificationConfig; ref 8.1:JinaVLForRanking",
)
def jinavl_ranking(c: Mapping[str, Any]) -> RuleResult:
    """The Jina VL reranker emits a single relevance score, shifted by a fixed bias."""
    if not _on(c, "JinaVLForRanking"):
        return None
    out = _hf(c, {"num_labels": 1})
    if not c["model_config.pooler_config"]:
        return Violation("'NoneType' object has no attribute 'logit_bias'", error="AttributeError")
    if c["model_config.pooler_config.logit_bias"] is None:
        out["model_config.pooler_config.logit_bias"] = 2.65
    return out


@rule(
    "models.gptoss-reasoning-parser",
    title="GptOssForCausalLM: reasoning parser openai_gptoss",
    phase="model",
    kind="default",
    reads=(*_ON, "structured_outputs_config.reasoning_parser"),
    writes=("structured_outputs_config.reasoning_parser",),
    source=f"{_SRC} GptOssForCausalLMConfig; ref 8.1:GptOssForCausalLM",
)
def gptoss_reasoning_parser(c: Mapping[str, Any]) -> RuleResult:
    """gpt-oss always emits the harmony reasoning channel."""
    if _on(c, "GptOssForCausalLM") and c["structured_outputs_config.reasoning_parser"] == "":
        return {"structured_outputs_config.reasoning_parser": "openai_gptoss"}
    return None


@rule(
    "models.gptoss-max-capture-size",
    title="GptOssForCausalLM: max cudagraph capture size 992",
    phase="model",
    kind="default",
    reads=(*_ON, "compilation_config.cudagraph_capture_sizes", "compilation_config.max_cudagraph_capture_size"),
    writes=("compilation_config.max_cudagraph_capture_size",),
    source=f"{_SRC} GptOssForCausalLMConfig; ref 8.1:GptOssForCausalLM, 13.1:O5",
    message="Overriding max cuda graph capture size to 992 for performance.",
    level="info",
)
def gptoss_max_capture_size(c: Mapping[str, Any], *, size: int = 992) -> RuleResult:
    """Increase the max capture size from 512 to 992 for performance (FA3 full graphs top out at 992).

    Only when the user set neither sizes nor a max; step 12d then treats ``size``
    as a user value (reference O5).
    """
    if not _on(c, "GptOssForCausalLM"):
        return None
    if c["compilation_config.cudagraph_capture_sizes"] is None and c["compilation_config.max_cudagraph_capture_size"] is None:
        return {"compilation_config.max_cudagraph_capture_size": size}
    return None


@rule(
    "models.deepseek-v32-cache-dtype",
    title="DeepSeek-V3.2: fp8 KV cache uses the fp8_ds_mla format",
    phase="model",
    kind="override",
    reads=(*_ON, "model_config.hf_config.index_topk", "cache_config.cache_dtype"),
    writes=("cache_config.cache_dtype",),
    source=f"{_SRC} DeepseekV32ForCausalLM; ref 8.1:DeepseekV32ForCausalLM, 13.1:O6",
)
def deepseek_v32_cache_dtype(c: Mapping[str, Any]) -> RuleResult:
    """For DeepSeek-V3.2 a custom fp8 format is used when fp8 kv-cache is enabled; bf16 is the default."""
    if not _on(c, "DeepseekV32ForCausalLM"):
        return None
    if c["model_config.hf_config.index_topk"] is None:
        return Violation("", hint="DeepSeek-V3.2 config must have index_topk", error="AssertionError")
    dtype = c["cache_config.cache_dtype"]
    if dtype.startswith("fp8") and dtype != "fp8_ds_mla":
        return Outcome({"cache_config.cache_dtype": "fp8_ds_mla"},
                       message="Using custom fp8 kv-cache format for DeepSeekV3.2")
    if dtype == "bfloat16":
        return Outcome({"cache_config.cache_dtype": "auto"}, message="Using bfloat16 kv-cache for DeepSeekV3.2")
    return None


# ---------------------------------------------------------------------------
# §8.2 MambaModelConfig (pure Mamba via the map, and every hybrid via §8.3)
# ---------------------------------------------------------------------------

_MAMBA_ON = (*_ON, "model_config.is_hybrid", "env.VLLM_USE_V1")


def _mamba_on(c: Mapping[str, Any]) -> bool:
    """MambaModelConfig runs: V1 and a Mamba map entry or a hybrid model."""
    return _on(c) and c["env.VLLM_USE_V1"] and (
        c["model_config.architecture"] in MAMBA_ARCHS or c["model_config.is_hybrid"]
    )


@rule(
    "models.mamba-prefix-caching",
    title="Mamba/hybrid: prefix caching only where the model supports it",
    phase="model",
    kind="override",
    reads=(*_MAMBA_ON, "cache_config.enable_prefix_caching", "model_config.supports_mamba_prefix_caching"),
    writes=("cache_config.enable_prefix_caching",),
    source=f"{_SRC} MambaModelConfig; ref 8.2, 13.1:P3, 13.1:O4",
    message="Hybrid or mamba-based model detected without support for prefix caching: disabling.",
    level="info",
)
def mamba_prefix_caching(c: Mapping[str, Any], *, layers: str = "Mamba2") -> RuleResult:
    """Mamba state cannot be cached per block unless the model class implements it (``layers``: the warning's word)."""
    if not _mamba_on(c) or not c["cache_config.enable_prefix_caching"]:
        return None
    if c["model_config.supports_mamba_prefix_caching"]:
        return Outcome(message=f"Warning: Prefix caching is currently enabled. Its support for {layers} layers is "
                       "experimental. Please report any issues you may observe.")
    return {"cache_config.enable_prefix_caching": False}


@rule(
    "models.mamba-cascade-off",
    title="Mamba/hybrid: cascade attention off",
    phase="model",
    kind="override",
    reads=(*_MAMBA_ON, "model_config.disable_cascade_attn"),
    writes=("model_config.disable_cascade_attn",),
    source=f"{_SRC} MambaModelConfig; ref 8.2",
    message="Disabling cascade attention since it is not supported for hybrid models.",
    level="info",
)
def mamba_cascade_off(c: Mapping[str, Any]) -> RuleResult:
    """Cascade attention is not supported for hybrid models yet (logged even when already off)."""
    if not _mamba_on(c):
        return None
    return Outcome.log({"model_config.disable_cascade_attn": True})


@rule(
    "models.mamba-block-size-default",
    title="Mamba/hybrid: mamba_block_size defaults to max_model_len",
    phase="model",
    kind="default",
    reads=(*_MAMBA_ON, "cache_config.mamba_block_size", "model_config.max_model_len"),
    writes=("cache_config.mamba_block_size",),
    source=f"{_SRC} MambaModelConfig; ref 8.2",
)
def mamba_block_size_default(c: Mapping[str, Any]) -> RuleResult:
    """Without prefix caching one mamba state covers the whole sequence.

    vLLM fills this before the hybrid rule, which saved the user's value first
    and overwrites it when prefix caching is on; running it after the hybrid
    rule gives the same end state and lets the hybrid rule read the user value.
    """
    if _mamba_on(c) and c["cache_config.mamba_block_size"] is None:
        return {"cache_config.mamba_block_size": c["model_config.max_model_len"]}
    return None


# ---------------------------------------------------------------------------
# §8.3 HybridAttentionMambaModelConfig: page sizes
# ---------------------------------------------------------------------------

_DTYPE_BYTES = {"float16": 2, "half": 2, "bfloat16": 2, "float32": 4, "float": 4}
_HT = "model_config.hf_text_config."
_HC = "model_config.hf_config."
_KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num")
KV_HEAD_READS: tuple[str, ...] = (*(_HT + k for k in ("multi_query", *_KV_HEAD_KEYS, "num_attention_heads")),
                                  _HC + "model_type", _HC + "attn_config", _HC + "block_configs",
                                  _HC + "num_attention_heads")
"""Every path :func:`total_num_kv_heads` reads (declare it in rules that call it)."""
_MAMBA_KEYS = (
    "hidden_size", "intermediate_size", "mamba_expand", "mamba_d_state", "mamba_d_conv", "mamba_n_groups",
    "mamba_n_heads", "mamba_d_head", "mamba_d_ssm", "mamba_num_heads", "mamba_head_dim", "n_groups",
    "ssm_state_size", "conv_kernel", "expand", "num_heads", "head_dim", "state_size",
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
    "linear_conv_kernel_dim",
)
PAGE_READS: tuple[str, ...] = (
    "model_config.dtype", "model_config.use_mla", "model_config.is_deepseek_mla", "model_config.is_attention_free",
    "cache_config.cache_dtype", "cache_config.mamba_cache_dtype", "cache_config.mamba_ssm_cache_dtype",
    "parallel_config.tensor_parallel_size", "speculative_config", "speculative_config.num_speculative_tokens",
    *(_HT + k for k in ("head_dim", "hidden_size_per_head", "hidden_size", "kv_lora_rank", "qk_rope_head_dim",
                        "qk_nope_head_dim")),
    *KV_HEAD_READS,
    *(_HC + k for k in _MAMBA_KEYS),
)
"""Every path the page-size helpers read (declare it in rules that call them)."""

JAMBA_ARCHS = ("JambaForCausalLM", "JambaForSequenceClassification")
GDN_ARCHS = ("Qwen3NextForCausalLM",)
MAMBA2_ARCHS = ("BambaForCausalLM", "GraniteMoeHybridForCausalLM", "FalconH1ForCausalLM",
                "NemotronHForCausalLM", "Mamba2ForCausalLM")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def dtype_bytes(name: str) -> int:
    """Bytes per element of a model or cache dtype name (fp8 variants: 1; unresolved "auto": 2)."""
    if name.startswith("fp8"):
        return 1
    return _DTYPE_BYTES.get(name, 2)


def nas_kv_heads(c: Mapping[str, Any]) -> int | None:
    """Nemotron-NAS (``DeciLMConfig``): the attention heads over the first attention block's ``n_heads_in_group``;
    None when every block's attention is a no-op (vLLM: "Couldn't determine number of kv heads")."""
    for block in c[_HC + "block_configs"] or ():
        attention = block.get("attention") or {}
        if not attention.get("no_op"):
            return int(c[_HC + "num_attention_heads"] or 0) // int(attention["n_heads_in_group"])
    return None


def kv_heads_known(c: Mapping[str, Any]) -> bool:
    """Whether ``ModelConfig.get_total_num_kv_heads`` answers (it raises for a Nemotron-NAS model without an
    attention block)."""
    return c[_HC + "model_type"] != "nemotron-nas" or c[_HT + "multi_query"] or nas_kv_heads(c) is not None


def total_num_kv_heads(c: Mapping[str, Any]) -> int:
    """``ModelConfig.get_total_num_kv_heads``: one for multi-query attention; MPT's and DBRX's from their
    ``attn_config``; Nemotron-NAS's from its first attention block (0 where vLLM raises: :func:`kv_heads_known`);
    else the first KV-head key that is set, else the attention heads.

    MPT: transformers' ``MptAttentionConfig`` keeps no ``kv_n_heads`` (config.json's is dropped), so vLLM's
    ``"kv_n_heads" in attn_config`` is false and the count is the attention heads. DBRX: ``DbrxAttentionConfig``
    always has ``kv_n_heads`` (1 when config.json does not give it)."""
    if c[_HT + "multi_query"]:
        return 1
    model_type = c[_HC + "model_type"]
    if model_type == "mpt":
        return int(c[_HT + "num_attention_heads"] or 0)
    if model_type == "dbrx":
        return int((c[_HC + "attn_config"] or {}).get("kv_n_heads", 1))
    if model_type == "nemotron-nas":
        return nas_kv_heads(c) or 0
    for key in _KV_HEAD_KEYS:
        if c[_HT + key] is not None:
            return int(c[_HT + key])
    return int(c[_HT + "num_attention_heads"] or 0)


def head_size(c: Mapping[str, Any]) -> int:
    """``ModelConfig.get_head_size``."""
    if c["model_config.is_deepseek_mla"]:
        rope = c[_HT + "qk_rope_head_dim"] or 0
        if c["model_config.use_mla"]:
            return int(c[_HT + "kv_lora_rank"]) + rope
        nope = c[_HT + "qk_nope_head_dim"] or 0
        if rope and nope:
            return rope + nope
    if c["model_config.is_attention_free"]:
        return 0
    if c[_HT + "head_dim"] is not None:
        return int(c[_HT + "head_dim"])
    if c[_HT + "hidden_size_per_head"] is not None:  # PLaMo2's name for it
        return int(c[_HT + "hidden_size_per_head"])
    return int(c[_HT + "hidden_size"]) // int(c[_HT + "num_attention_heads"])


def attn_page_1_token(c: Mapping[str, Any]) -> int:
    """Bytes of K and V for one token of a full-attention layer on one rank."""
    tp = c["parallel_config.tensor_parallel_size"]
    kv_heads = 1 if c["model_config.use_mla"] else max(1, total_num_kv_heads(c) // tp)
    cache = c["cache_config.cache_dtype"]
    kv_bytes = dtype_bytes(c["model_config.dtype"] if cache == "auto" else cache)
    return 2 * kv_heads * head_size(c) * kv_bytes


def _mamba_dtypes(c: Mapping[str, Any]) -> tuple[int, int]:
    conv = dtype_bytes(c["model_config.dtype"] if c["cache_config.mamba_cache_dtype"] == "auto" else "float32")
    ssm = conv if c["cache_config.mamba_ssm_cache_dtype"] == "auto" else 4
    return conv, ssm


def _mamba2_elems(c: Mapping[str, Any], arch: str, tp: int) -> tuple[int, int]:
    h = {k: c[_HC + k] for k in _MAMBA_KEYS}
    if arch == "NemotronHForCausalLM":
        inter, groups, heads, hdim = h["mamba_num_heads"] * h["mamba_head_dim"], h["n_groups"], h["mamba_num_heads"], h["mamba_head_dim"]
        state, conv = h["ssm_state_size"], h["conv_kernel"]
    elif arch == "Mamba2ForCausalLM":
        inter, groups, heads, hdim = h["expand"] * h["hidden_size"], h["n_groups"], h["num_heads"], h["head_dim"]
        state, conv = h["state_size"], h["conv_kernel"]
    else:
        inter = h["mamba_d_ssm"] if arch == "FalconH1ForCausalLM" and h["mamba_d_ssm"] is not None else int(
            h["mamba_expand"] * h["hidden_size"])
        groups, heads, hdim = h["mamba_n_groups"], h["mamba_n_heads"], h["mamba_d_head"]
        state, conv = h["mamba_d_state"], h["mamba_d_conv"]
    groups = groups + (0 if groups % tp == 0 else tp - groups)
    return (conv - 1) * ((inter + 2 * groups * state) // tp), (heads // tp) * hdim * state


def mamba_page_size(c: Mapping[str, Any]) -> int | None:
    """Bytes of one sequence's mamba state (conv + temporal) on one rank; None for unmodelled classes.

    Jamba: MambaMixer (v1); Qwen3-Next: gated delta net; Bamba, GraniteMoeHybrid,
    FalconH1, NemotronH, Mamba2: Mamba2 mixer (vLLM mamba_utils.MambaStateShapeCalculator).
    """
    arch, tp = c["model_config.architecture"], c["parallel_config.tensor_parallel_size"]
    conv_b, ssm_b = _mamba_dtypes(c)
    if arch in JAMBA_ARCHS:
        inner = c[_HC + "mamba_expand"] * c[_HC + "hidden_size"] // tp
        return int(inner * (c[_HC + "mamba_d_conv"] - 1) * conv_b + inner * c[_HC + "mamba_d_state"] * ssm_b)
    if arch in GDN_ARCHS:
        kd, vd = c[_HC + "linear_key_head_dim"], c[_HC + "linear_value_head_dim"]
        kh, vh = c[_HC + "linear_num_key_heads"], c[_HC + "linear_num_value_heads"]
        spec = (c["speculative_config.num_speculative_tokens"] or 0) if c["speculative_config"] else 0
        conv = (c[_HC + "linear_conv_kernel_dim"] - 1 + spec) * ((2 * kd * kh + vd * vh) // tp)
        return int((conv + (vh // tp) * kd * vd) * conv_b)
    if arch in MAMBA2_ARCHS:
        conv_e, ssm_e = _mamba2_elems(c, arch, tp)
        return conv_e * conv_b + ssm_e * ssm_b
    return None


def alignment(c: Mapping[str, Any]) -> int:
    """Attention kernel block alignment: 16, or for MLA 128 (CUTLASS_MLA) / 64."""
    if c["model_config.use_mla"]:
        return 128 if c["env.VLLM_ATTENTION_BACKEND"] == "CUTLASS_MLA" else 64
    return 16


_HYBRID_ON = (*_ON, "model_config.is_hybrid", "env.VLLM_USE_V1", "env.VLLM_ATTENTION_BACKEND", *PAGE_READS)


def _hybrid_on(c: Mapping[str, Any]) -> bool:
    return _on(c) and bool(c["model_config.is_hybrid"]) and bool(c["env.VLLM_USE_V1"])


@rule(
    "models.hybrid-attention-block-size",
    title="Hybrid models: attention block size so that a page holds one mamba state",
    phase="model",
    kind="override",
    reads=(*_HYBRID_ON, "cache_config.enable_prefix_caching", "cache_config.mamba_block_size",
           "cache_config.block_size", "model_config.hf_text_config.mamba_chunk_size",
           "model_config.hf_text_config.chunk_size"),
    writes=("cache_config.block_size", "cache_config.mamba_block_size"),
    source=f"{_SRC} HybridAttentionMambaModelConfig; ref 8.3, 13.1:O2, 13.1:O3",
    message="Setting attention block size to {n} tokens to ensure that attention page size is >= mamba page size.",
    level="info",
)
def hybrid_attention_block_size(c: Mapping[str, Any]) -> RuleResult:
    """Attention and mamba layers share one page size, so an attention page must fit a mamba state.

    With prefix caching the block is a multiple of lcm(mamba chunk, alignment)
    and becomes the mamba block size; without it, the smallest aligned block.
    The block size is raised only when unset or too small.
    """
    if not _hybrid_on(c):
        return None
    mamba = mamba_page_size(c)
    if mamba is None:
        return Outcome(message=f"postinit does not model the mamba state shapes of {c['model_config.architecture']}; "
                       "attention block size not adjusted", level="warning")
    if mamba == 0:
        return None
    attn_1, a, out = attn_page_1_token(c), alignment(c), {}
    if attn_1 == 0:  # a head size of 0 (more heads than hidden units): vLLM's cdiv divides by it
        return Violation("integer division or modulo by zero", error="ZeroDivisionError",
                         hint="the attention page of one token is 0 bytes: check hidden_size and num_attention_heads")
    if c["cache_config.enable_prefix_caching"]:
        base = c["cache_config.mamba_block_size"] or c[_HT + "mamba_chunk_size"] or c[_HT + "chunk_size"]
        if base is None:
            return Violation("unsupported operand type(s) for *: 'NoneType' and 'int'", error="TypeError")
        chunk = base * a // math.gcd(base, a)
        block = chunk * _cdiv(_cdiv(mamba, attn_1), chunk)
        if block != c["cache_config.mamba_block_size"]:
            out["cache_config.mamba_block_size"] = block
    else:
        block = a * _cdiv(mamba, a * attn_1)
    size = c["cache_config.block_size"]
    if size is None or size < block:
        out["cache_config.block_size"] = block
        return Outcome.log(out, n=block)
    return out or None


@rule(
    "models.hybrid-mamba-page-padding",
    title="Hybrid models: pad the mamba page to the attention page",
    phase="model",
    kind="derive",
    reads=(*_HYBRID_ON, "cache_config.block_size", "cache_config.mamba_page_size_padded"),
    writes=("cache_config.mamba_page_size_padded",),
    source=f"{_SRC} HybridAttentionMambaModelConfig; ref 8.3",
    message="Padding mamba page size by {pct:.2f}% to ensure that mamba page size and attention page size are exactly equal.",
    level="info",
)
def hybrid_mamba_page_padding(c: Mapping[str, Any]) -> RuleResult:
    """The KV cache manager needs exactly equal page sizes; a larger attention page pads the mamba one."""
    if not _hybrid_on(c):
        return None
    mamba = mamba_page_size(c)
    if not mamba or c["cache_config.block_size"] is None:
        return None
    page = c["cache_config.block_size"] * attn_page_1_token(c)
    if page < mamba:
        return Violation("", hint=f"attention page {page} < mamba page {mamba}", error="AssertionError")
    if page == mamba or c["cache_config.mamba_page_size_padded"] == page:
        return None
    pct = 100 * (page - mamba) / mamba
    return Outcome.log({"cache_config.mamba_page_size_padded": page}, pct=pct)


# ---------------------------------------------------------------------------
# §8.4 SequenceClassificationConfig, §8.5 Run:ai
# ---------------------------------------------------------------------------


@rule(
    "models.seq-cls-config",
    title="Classify conversion: num_labels from classifier_from_token",
    phase="model",
    kind="derive",
    reads=(*_ON, "model_config.convert_type", "model_config.hf_config.text_config",
           "model_config.hf_text_config.method", "model_config.hf_text_config.classifier_from_token",
           "model_config.hf_text_config.use_pad_token"),
    writes=_hf_writes("num_labels", "use_pad_token"),
    source="vllm/model_executor/models/adapters.py SequenceClassificationConfig; ref 8.4",
)
def seq_cls_config(c: Mapping[str, Any]) -> RuleResult:
    """A causal LM turned into a classifier scores the logits of the listed tokens."""
    if not _on(c) or c["model_config.convert_type"] != "classify":
        return None
    method, tokens = c[_HT + "method"], c[_HT + "classifier_from_token"]
    if method is None:
        return None
    if tokens is None or method not in ("from_2_way_softmax", "no_post_processing"):
        return Violation("", hint=f"method {method!r} needs classifier_from_token", error="AssertionError")
    if method == "from_2_way_softmax" and len(tokens) != 2:
        return Violation("", hint="from_2_way_softmax needs two tokens", error="AssertionError")
    labels = 1 if method == "from_2_way_softmax" else len(tokens)
    return _hf(c, {"num_labels": labels, "use_pad_token": c[_HT + "use_pad_token"] or False})


@rule(
    "models.runai-load-format",
    title="Models on S3/GCS load through the Run:ai streamer",
    phase="model",
    kind="override",
    reads=(*_ON, "model_config.model_weights", "load_config.load_format", "model_config.model"),
    writes=("load_config.load_format",),
    source="vllm/config/vllm.py VllmConfig.try_verify_and_update_config; ref 8.5",
    message="Detected Run:ai model config. Overriding `load_format` to 'runai_streamer'",
    level="info",
)
def runai_load_format(c: Mapping[str, Any]) -> RuleResult:
    """Object-storage weights can only be streamed by the Run:ai loader."""
    uri = c["model_config.model_weights"]
    if not _on(c) or not uri or not uri.lower().startswith(("s3://", "gs://")):
        return None
    fmt = c["load_config.load_format"]
    if fmt == "auto":
        return {"load_config.load_format": "runai_streamer"}
    if fmt not in ("runai_streamer", "runai_streamer_sharded"):
        return Violation(f"To load a model from S3, 'load_format' must be 'runai_streamer' or "
                         f"'runai_streamer_sharded', but got '{fmt}'. Model: {c['model_config.model']}")
    return None


TRY_VERIFY_AND_UPDATE_CONFIG = sequence(
    "models.try-verify-and-update-config",
    deepseek_v32_cache_dtype, gemma3_text_is_causal, gptoss_max_capture_size, gptoss_reasoning_parser,
    jamba_cls_activation, jinavl_ranking, mamba_prefix_caching, mamba_cascade_off, nomic_bert_config, gte_new_rotary,
    hybrid_attention_block_size, hybrid_mamba_page_padding, jina_roberta_rotary, nomic_bert_max_model_len,
    mamba_block_size_default, qwen2_prm_step_tag_id, qwen2_rm_softmax, qwen3_reranker_method, runai_load_format,
    seq_cls_config, config_updated,
    title="Step 2 in order: the architecture's MODELS_CONFIG_MAP entry, the hybrid page sizes, sequence "
    "classification, Run:ai; the once-guard last",
    source=f"{_SRC}; vllm/config/vllm.py VllmConfig.try_verify_and_update_config; ref step-2",
)
