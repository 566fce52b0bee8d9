"""Step 2 model rules (postinit.rules.models), on flat states and end to end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules import models as m
from postinit.rules._kit import state
from postinit.schema.loaders import load_model


def _model(name: str, **values: Any) -> Mapping[str, Any]:
    loaded = load_model(name)
    base: dict[str, Any] = {
        "model_config": True, "model_config.architecture": loaded.architecture,
        "model_config.dtype": "bfloat16", "model_config.max_model_len": 8192,
    }
    base.update({f"model_config.hf_config.{k}": v for k, v in loaded.hf_config.items()})
    base.update({f"model_config.hf_text_config.{k}": v for k, v in loaded.hf_text_config.items()})
    base.update({k.replace("__", "."): v for k, v in values.items()})
    return state(base)


def _changes(out: Any) -> Mapping[str, Any]:
    return out.changes if isinstance(out, Outcome) else out


def test_guard_sets_config_updated() -> None:
    """The guard marks a present model config as updated."""
    assert m.config_updated(state({"model_config": True})) == {"model_config.config_updated": True}


@pytest.mark.parametrize("present, updated", [(None, False), (True, True)])
def test_guard_quiet(present: Any, updated: bool) -> None:
    """No model config, or one already updated: the guard does nothing."""
    assert m.config_updated(state({"model_config": present, "model_config.config_updated": updated})) is None


def test_rules_skip_when_config_updated() -> None:
    """A config that arrives already updated skips every model rule (vLLM's re-run)."""
    s = _model("fixtures/jamba", model_config__is_hybrid=True, usage__config_updated_on_input=True)
    assert m.mamba_cascade_off(s) is None
    assert m.hybrid_attention_block_size(s) is None


def test_rules_ignore_the_flag_the_guard_writes() -> None:
    """The guard's own write (config_updated=True) does not turn the model rules off: they read the input fact."""
    s = _model("fixtures/jamba", model_config__is_hybrid=True, model_config__config_updated=True)
    assert m.mamba_cascade_off(s) is not None
    assert m.hybrid_attention_block_size(s) is not None
    for r in postinit.rules.rulebook().rules.values():
        if r.id.startswith("models.") and r.id != m._GUARD:
            assert "model_config.config_updated" not in r.reads, r.id
            assert "usage.config_updated_on_input" in r.reads, r.id


def test_gemma3_text_is_causal() -> None:
    """Gemma3TextModel: is_causal is the negation of use_bidirectional_attention (hf and text views)."""
    s = state({"model_config": True, "model_config.architecture": "Gemma3TextModel",
               "model_config.hf_config.use_bidirectional_attention": True})
    assert m.gemma3_text_is_causal(s) == {"model_config.hf_config.is_causal": False,
                                          "model_config.hf_text_config.is_causal": False}


def test_gemma3_other_arch() -> None:
    """Other architectures keep is_causal."""
    assert m.gemma3_text_is_causal(state({"model_config": True, "model_config.architecture": "X"})) is None


@pytest.mark.parametrize("arch, act, fires", [
    ("GteModel", "gelu", True), ("GteNewModel", "gelu", True), ("LlamaForCausalLM", "gelu", False)])
def test_gte_new_rotary(arch: str, act: str, fires: bool) -> None:
    """GTE architectures switch to geglu and get rotary kwargs; others are untouched."""
    s = state({"model_config": True, "model_config.architecture": arch, "model_config.hf_config.hidden_act": act,
               "model_config.hf_config.hidden_size": 768, "model_config.hf_config.num_attention_heads": 12,
               "model_config.hf_config.max_position_embeddings": 8192, "model_config.hf_config.rope_theta": 1e4})
    out = m.gte_new_rotary(s)
    if not fires:
        assert out is None
        return
    assert out["model_config.hf_config.hidden_act"] == "geglu"
    assert out["model_config.hf_config.rotary_kwargs"]["head_size"] == 64


def test_gte_asserts_gelu() -> None:
    """A GTE config that is not gelu is an AssertionError."""
    s = state({"model_config": True, "model_config.architecture": "GteModel", "model_config.hf_config.hidden_act": "silu"})
    assert isinstance(out := m.gte_new_rotary(s), Violation) and out.error == "AssertionError"


def _nomic(**values: Any) -> Mapping[str, Any]:
    base = {"model_config": True, "model_config.architecture": "NomicBertModel",
            "model_config.hf_config.activation_function": "swiglu", "model_config.hf_config.qkv_proj_bias": False,
            "model_config.hf_config.mlp_fc1_bias": False, "model_config.hf_config.mlp_fc2_bias": False,
            "model_config.hf_config.n_embd": 768, "model_config.hf_config.n_inner": 3072,
            "model_config.hf_config.n_layer": 12, "model_config.hf_config.num_attention_heads": 12,
            "model_config.hf_config.rotary_emb_fraction": 1.0, "model_config.hf_config.max_trained_positions": 2048,
            "model_config.hf_text_config.n_positions": 8192, "model_config.max_model_len": 8192}
    return state({**base, **{k.replace("__", "."): v for k, v in values.items()}})


def test_nomic_bert_config() -> None:
    """NomicBert keys are mapped to BERT names (swiglu -> silu, n_embd -> hidden_size)."""
    out = m.nomic_bert_config(_nomic())
    assert out["model_config.hf_config.hidden_act"] == "silu"
    assert out["model_config.hf_config.hidden_size"] == 768
    assert out["model_config.hf_config.rotary_kwargs"]["max_position"] == 2048


def test_nomic_bert_config_asserts() -> None:
    """Unequal biases are an AssertionError."""
    assert isinstance(m.nomic_bert_config(_nomic(model_config__hf_config__qkv_proj_bias=True)), Violation)


def test_nomic_max_model_len_default() -> None:
    """Without overrides max_model_len drops to max_trained_positions in model and scheduler, with a warning."""
    got = decide(m.nomic_bert_max_model_len, _nomic())
    assert got.changes == {"model_config.max_model_len": 2048, "scheduler_config.max_model_len": 2048}
    assert got.messages[0].startswith("Nomic context extension is disabled. Changing max_model_len from 8192 to 2048.")


def test_nomic_max_model_len_user_value_too_long() -> None:
    """A user length beyond max_trained_positions is re-verified and rejected."""
    out = m.nomic_bert_max_model_len(_nomic(model_config__original_max_model_len=8192,
                                            model_config__hf_config__st_max_seq_length=512))
    assert isinstance(out, Violation) and out.error == "ValueError"


def test_nomic_max_model_len_user_value_without_sentence_transformers_config() -> None:
    """Without sentence_bert_config.json vLLM pops from encoder_config None first (golden t114-nomic-max-len)."""
    out = m.nomic_bert_max_model_len(_nomic(model_config__original_max_model_len=4096))
    assert isinstance(out, Violation)
    assert (out.error, out.message) == ("AttributeError", "'NoneType' object has no attribute 'pop'")


@pytest.mark.parametrize("fn, arch, field, value", [
    (m.qwen2_prm_step_tag_id, "Qwen2ForProcessRewardModel", "step_tag_id", 151651),
    (m.qwen2_rm_softmax, "Qwen2ForRewardModel", "softmax", False),
    (m.jamba_cls_activation, "JambaForSequenceClassification", "activation", False),
])
def test_pooler_defaults(fn: Any, arch: str, field: str, value: Any) -> None:
    """Pooler defaults fill an unset field, keep a set one and fail without a pooler config."""
    base = {"model_config": True, "model_config.architecture": arch, "model_config.pooler_config": True}
    assert fn(state(base)) == {f"model_config.pooler_config.{field}": value}
    assert fn(state({**base, f"model_config.pooler_config.{field}": 7})) is None
    out = fn(state({**base, "model_config.pooler_config": None}))
    assert isinstance(out, Violation) and out.error == "AttributeError"


@pytest.mark.parametrize("orig, tokens, expect", [
    (True, ["no", "yes"], "from_2_way_softmax"), (False, None, None), (True, ["x"], "violation")])
def test_qwen3_reranker(orig: bool, tokens: Any, expect: Any) -> None:
    """The original Qwen3 reranker uses from_2_way_softmax and needs two tokens."""
    s = state({"model_config": True, "model_config.architecture": "Qwen3ForSequenceClassification",
               "model_config.hf_config.is_original_qwen3_reranker": orig,
               "model_config.hf_config.classifier_from_token": tokens})
    out = m.qwen3_reranker_method(s)
    if expect == "violation":
        assert isinstance(out, Violation)
    elif expect is None:
        assert out is None
    else:
        assert out["model_config.hf_config.method"] == expect


@pytest.mark.parametrize("eager, expected", [(False, 8200), (True, 8194)])
def test_jina_roberta_rotary(eager: bool, expected: int) -> None:
    """Jina v3's 8194 positions round up to 8200 unless eager."""
    s = state({"model_config": True, "model_config.architecture": "XLMRobertaModel",
               "model_config.hf_config.position_embedding_type": "rotary", "model_config.hf_config.hidden_size": 1024,
               "model_config.hf_config.num_attention_heads": 16, "model_config.hf_config.max_position_embeddings": 8194,
               "model_config.hf_config.rotary_emb_base": 20000.0, "model_config.enforce_eager": eager})
    assert m.jina_roberta_rotary(s)["model_config.hf_config.rotary_kwargs"]["max_position"] == expected


def test_jina_roberta_absolute() -> None:
    """Absolute position embeddings need no rotary kwargs."""
    s = state({"model_config": True, "model_config.architecture": "XLMRobertaModel",
               "model_config.hf_config.position_embedding_type": "absolute"})
    assert m.jina_roberta_rotary(s) is None


def test_jinavl_ranking() -> None:
    """JinaVLForRanking: one label and logit_bias 2.65."""
    s = state({"model_config": True, "model_config.architecture": "JinaVLForRanking", "model_config.pooler_config": True})
    out = m.jinavl_ranking(s)
    assert out["model_config.hf_config.num_labels"] == 1 and out["model_config.pooler_config.logit_bias"] == 2.65


@pytest.mark.parametrize("sizes, max_size, fires", [(None, None, True), ([8], None, False), (None, 256, False)])
def test_gptoss_capture_size(sizes: Any, max_size: Any, fires: bool) -> None:
    """gpt-oss raises the max capture size to 992 only when the user set neither."""
    s = state({"model_config": True, "model_config.architecture": "GptOssForCausalLM",
               "compilation_config.cudagraph_capture_sizes": sizes,
               "compilation_config.max_cudagraph_capture_size": max_size})
    assert (m.gptoss_max_capture_size(s) == {"compilation_config.max_cudagraph_capture_size": 992}) is fires


@pytest.mark.parametrize("parser, fires", [("", True), ("custom", False)])
def test_gptoss_reasoning_parser(parser: str, fires: bool) -> None:
    """gpt-oss fills an empty reasoning parser."""
    s = state({"model_config": True, "model_config.architecture": "GptOssForCausalLM",
               "structured_outputs_config.reasoning_parser": parser})
    assert (m.gptoss_reasoning_parser(s) is not None) is fires


@pytest.mark.parametrize("dtype, expected", [("fp8", "fp8_ds_mla"), ("fp8_e5m2", "fp8_ds_mla"),
                                             ("bfloat16", "auto"), ("auto", None)])
def test_deepseek_v32_cache_dtype(dtype: str, expected: Any) -> None:
    """DeepSeek-V3.2 rewrites fp8 to fp8_ds_mla and bfloat16 to auto."""
    s = state({"model_config": True, "model_config.architecture": "DeepseekV32ForCausalLM",
               "model_config.hf_config.index_topk": 2048, "cache_config.cache_dtype": dtype})
    out = m.deepseek_v32_cache_dtype(s)
    assert (None if out is None else _changes(out)["cache_config.cache_dtype"]) == expected


@pytest.mark.parametrize("supports, expected", [(False, {"cache_config.enable_prefix_caching": False}), (True, None)])
def test_mamba_prefix_caching(supports: bool, expected: Any) -> None:
    """Prefix caching is turned off unless the class supports mamba prefix caching (then an info only)."""
    s = state({"model_config": True, "model_config.architecture": "Mamba2ForCausalLM",
               "cache_config.enable_prefix_caching": True, "model_config.supports_mamba_prefix_caching": supports})
    out = m.mamba_prefix_caching(s)
    if expected is None:
        assert isinstance(out, Outcome) and not out.changes and "experimental" in (out.message or "")
    else:
        assert out == expected


@pytest.mark.parametrize("v1, fires", [(True, True), (False, False)])
def test_mamba_block_size_default(v1: bool, fires: bool) -> None:
    """Under V1 mamba_block_size defaults to max_model_len."""
    s = state({"model_config": True, "model_config.architecture": "MambaForCausalLM", "model_config.max_model_len": 4096},
              env={"VLLM_USE_V1": "1" if v1 else "0"})
    assert (m.mamba_block_size_default(s) == {"cache_config.mamba_block_size": 4096}) is fires


@pytest.mark.parametrize("name, expected", [("fixtures/jamba", 19456), ("fixtures/qwen3_next", 19456)])
def test_mamba_page_size(name: str, expected: int) -> None:
    """Mamba state bytes of the fixtures: Jamba (MambaMixer) and Qwen3-Next (gated delta net)."""
    assert m.mamba_page_size(_model(name)) == expected
    assert m.attn_page_1_token(_model(name)) == 512


def test_mamba_page_size_fp32_ssm() -> None:
    """mamba_ssm_cache_dtype float32 doubles the temporal state bytes."""
    assert m.mamba_page_size(_model("fixtures/jamba", cache_config__mamba_ssm_cache_dtype="float32")) == 1536 * 2 + 8192 * 4


@pytest.mark.parametrize("apc, user_block, block, mamba_block", [
    (False, None, 48, None), (False, 64, None, None), (True, None, 48, 48)])
def test_hybrid_attention_block_size(apc: bool, user_block: Any, block: Any, mamba_block: Any) -> None:
    """Block size 48 for Jamba without APC; a larger user block stays; with APC it is also the mamba block."""
    s = _model("fixtures/jamba", model_config__is_hybrid=True, cache_config__enable_prefix_caching=apc,
               cache_config__block_size=user_block, cache_config__mamba_block_size=16 if apc else None)
    out = m.hybrid_attention_block_size(s)
    changes = {} if out is None else _changes(out)
    assert changes.get("cache_config.block_size") == block
    assert changes.get("cache_config.mamba_block_size") == mamba_block


def test_hybrid_alignment_mla() -> None:
    """MLA aligns to 64, or 128 with CUTLASS_MLA."""
    assert m.alignment(state({"model_config.use_mla": True})) == 64
    assert m.alignment(state({"model_config.use_mla": True}, env={"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"})) == 128
    assert m.alignment(state({})) == 16


def test_hybrid_padding() -> None:
    """Block 48 pads the Jamba mamba page to 24576 bytes (26.32%)."""
    s = _model("fixtures/jamba", model_config__is_hybrid=True, cache_config__block_size=48)
    got = decide(m.hybrid_mamba_page_padding, s)
    assert got.changes == {"cache_config.mamba_page_size_padded": 24576}
    assert "26.32%" in got.messages[0]


def test_hybrid_padding_not_hybrid() -> None:
    """Non-hybrid models are not padded."""
    assert m.hybrid_mamba_page_padding(_model("fixtures/jamba", cache_config__block_size=48)) is None


@pytest.mark.parametrize("method, tokens, labels", [("from_2_way_softmax", ["a", "b"], 1), ("no_post_processing", ["a", "b", "c"], 3)])
def test_seq_cls_config(method: str, tokens: list[str], labels: int) -> None:
    """Classify conversion sets num_labels from classifier_from_token."""
    s = state({"model_config": True, "model_config.architecture": "Qwen3ForSequenceClassification",
               "model_config.convert_type": "classify", "model_config.hf_text_config.method": method,
               "model_config.hf_text_config.classifier_from_token": tokens})
    assert m.seq_cls_config(s)["model_config.hf_text_config.num_labels"] == labels


def test_seq_cls_config_no_method() -> None:
    """Without a method nothing changes."""
    s = state({"model_config": True, "model_config.architecture": "X", "model_config.convert_type": "classify"})
    assert m.seq_cls_config(s) is None


@pytest.mark.parametrize("uri, fmt, expect", [("s3://b/m", "auto", "runai_streamer"), ("gs://b/m", "runai_streamer", None),
                                              ("S3://b/m", "safetensors", "violation"), (None, "auto", None)])
def test_runai_load_format(uri: Any, fmt: str, expect: Any) -> None:
    """Object-storage weights force the Run:ai streamer."""
    s = state({"model_config": True, "model_config.architecture": "X", "model_config.model_weights": uri,
               "load_config.load_format": fmt})
    out = m.runai_load_format(s)
    if expect == "violation":
        assert isinstance(out, Violation)
    else:
        assert (out and out["load_config.load_format"]) == expect


def test_jamba_end_to_end() -> None:
    """Golden 16: Jamba on H100 gets block size 48, padded page 24576 and cascade off."""
    r = postinit.resolve({"model_config": {"model": "fixtures/jamba"}}, platform="cuda:90", strict=True)
    assert r.get("cache_config.mamba_page_size_padded") == 24576
    assert r.get("model_config.disable_cascade_attn") is True
    assert r.get("model_config.config_updated") is True
