"""vLLM 0.34.0's model-specific decisions (postinit/rules/v0_34_0_models.py): each rule where it fires and where not.

End-to-end agreement with the vllm==0.34.0 wheel is measured by tests/golden/test_parity.py (the cases of
tests/golden/cases-0.34.0, m### among them for the decisions written here); these tests pin each decision.
"""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import model_config as mc
from postinit.rules import v0_34_0_models as m
from postinit.rules._kit import state
from tests.golden.parity import fixture_path

V = "0.34.0"


def r034(model: str = "llama", argv: list[str] | None = None, **kw: Any) -> postinit.Resolution:
    """``vllm serve models/<model> <argv>`` as vLLM 0.34.0 resolves it."""
    return postinit.resolve(model=fixture_path(model), argv=argv or [], vllm_version=V, **kw)


def cfg034(config: dict[str, Any], model: str = "llama", **kw: Any) -> postinit.Resolution:
    """``VllmConfig(...)`` built directly, as vLLM 0.34.0 resolves it."""
    mcfg = {"model": fixture_path(model), "skip_tokenizer_init": True, **config.pop("model_config", {})}
    return postinit.resolve({"model_config": mcfg, **config}, vllm_version=V, **kw)


def texts(r: postinit.Resolution) -> list[str]:
    return [e.message for e in r.messages()]


def changes(out: Any) -> dict[str, Any]:
    return dict(out.changes) if isinstance(out, Outcome) else dict(out or {})


# ---------------------------------------------------------------- the registry and the model class


def test_the_0_34_0_registry_is_the_versions_fact() -> None:
    """0.34.0 names its own registry: Bamba is gone, Jamba is hybrid with an inner state, BERT pools CLS and
    attends bidirectionally for pooling, Qwen2's process reward model pools STEP tokens, pooling converts are
    embed and classify only."""
    reg = mc.registry_of("model-registry-0.34.0.json")
    assert "BambaForCausalLM" not in reg.classes and "BambaForCausalLM" in mc.REGISTRY
    jamba = reg.classes["JambaForCausalLM"]
    assert jamba.hybrid and jamba.inner_state and not jamba.mamba_prefix_caching
    assert reg.classes["MambaForCausalLM"].attention_free
    assert reg.classes["BertModel"].seq_pooling_type == "CLS" and reg.classes["BertModel"].tok_pooling_type == "ALL"
    assert reg.classes["Qwen2ForProcessRewardModel"].tok_pooling_type == "STEP"
    assert reg.runner_converts["pooling"] == ("embed", "classify")
    assert r034().state["version.model_registry"] == "model-registry-0.34.0.json"


def test_class_interfaces_of_a_hybrid_an_attention_free_and_a_plain_model() -> None:
    """Jamba is hybrid with an inner state, Mamba is attention-free with one, Llama neither."""
    jamba, mamba, llama = r034("jamba").state, r034("mamba").state, r034().state
    assert (jamba["model_config.is_hybrid"], jamba["model_config.has_inner_state"]) == (True, True)
    assert (mamba["model_config.is_attention_free"], mamba["model_config.has_inner_state"]) == (True, True)
    assert not (llama["model_config.is_hybrid"] or llama["model_config.has_inner_state"])


def test_a_hybrid_config_of_attention_layers_only_is_not_hybrid() -> None:
    """granite-4.0-micro: a hybrid class whose layer_types are all attention or full_attention is not hybrid."""
    base = {"model_config": True, "model_config.architecture": "JambaForCausalLM",
            "model_config.runner_type": "generate", "model_config.convert_type": "none"}
    full = state({**base, "model_config.hf_config.layer_types": ("full_attention", "attention")}, version=V)
    mixed = state({**base, "model_config.hf_config.layer_types": ("attention", "mamba")}, version=V)
    assert changes(m.class_interfaces(full))["model_config.is_hybrid"] is False
    assert changes(m.class_interfaces(mixed))["model_config.is_hybrid"] is True


# ---------------------------------------------------------------- the pooler config


def test_pooling_type_resolves_to_the_sequence_or_token_type() -> None:
    """A user's pooling_type fills seq_pooling_type (CLS/LAST/MEAN) or tok_pooling_type (ALL/STEP), logged."""
    r = cfg034({"model_config": {"pooler_config": {"pooling_type": "MEAN"}}}, model="bert")
    assert r.state["model_config.pooler_config.seq_pooling_type"] == "MEAN"
    assert r.state["model_config.pooler_config.tok_pooling_type"] == "ALL"  # the class's default
    assert "Resolved `pooling_type='MEAN'` to `seq_pooling_type='MEAN'`." in texts(r)
    out = m.pooler_pooling_type(state({"model_config": True, "model_config.pooler_config.pooling_type": "STEP"},
                                      version=V))
    assert isinstance(out, Outcome) and changes(out) == {"model_config.pooler_config.tok_pooling_type": "STEP"}
    assert m.pooler_pooling_type(state({"model_config": True}, version=V)) is None


def test_pooling_type_with_the_type_it_fills_is_refused() -> None:
    """pooling_type and seq_pooling_type together: PoolerConfig refuses them (ModelConfig's construction fails)."""
    out = m.pooler_pooling_type(state({"model_config": True, "model_config.pooler_config.pooling_type": "CLS",
                                       "model_config.pooler_config.seq_pooling_type": "MEAN"}, version=V))
    assert isinstance(out, Violation) and out.message == "Cannot set both `pooling_type` and `seq_pooling_type`"


def test_a_pooling_runner_gets_the_class_default_pooling_types() -> None:
    """BERT pools CLS / ALL by default, a converted Llama LAST / ALL; a generative runner gets no pooler."""
    bert = r034("bert").state
    assert (bert["model_config.pooler_config.seq_pooling_type"], bert["model_config.pooler_config.tok_pooling_type"],
            bert["model_config.pooler_config.enable_chunked_processing"]) == ("CLS", "ALL", False)
    llama = r034(argv=["--convert", "embed"]).state
    assert llama["model_config.pooler_config.seq_pooling_type"] == "LAST"
    assert r034().state["model_config.pooler_config"] is None


def test_attn_type_follows_the_pooler_and_the_model() -> None:
    """A CLS-pooling class is encoder-only, a converted Llama a decoder, Jamba hybrid, Mamba attention-free,
    Whisper encoder-decoder."""
    assert r034("bert").state["model_config.attn_type"] == "encoder_only"
    assert r034(argv=["--convert", "embed"]).state["model_config.attn_type"] == "decoder"
    assert r034("jamba").state["model_config.attn_type"] == "hybrid"
    assert r034("mamba").state["model_config.attn_type"] == "attention_free"
    assert r034("whisper").state["model_config.attn_type"] == "encoder_decoder"


def test_model_config_hooks_default_pooler_fields() -> None:
    """Qwen2's reward model returns raw scores (use_activation False), its process reward model reads step tag
    151651: both at the end of ModelConfig.__post_init__ in 0.34.0."""
    rm = r034("qwen2_rm")
    assert rm.state["model_config.pooler_config.use_activation"] is False
    assert rm.why("model_config.pooler_config.use_activation").rule == "models.qwen2-rm-softmax"
    assert r034("qwen2_prm").state["model_config.pooler_config.step_tag_id"] == 151651
    assert r034(argv=["--convert", "embed"]).state["model_config.pooler_config.use_activation"] is None


def test_jinavl_ranking_calibrates_with_logit_mean() -> None:
    """JinaVLForRanking: one label and logit_mean 2.65 unless the user set it."""
    base = {"model_config": True, "model_config.architecture": "JinaVLForRanking", "model_config.pooler_config": True}
    out = changes(m.jinavl_ranking(state(base, version=V)))
    assert out["model_config.pooler_config.logit_mean"] == 2.65 and out["model_config.hf_config.num_labels"] == 1
    mine = changes(m.jinavl_ranking(state({**base, "model_config.pooler_config.logit_mean": 1.0}, version=V)))
    assert "model_config.pooler_config.logit_mean" not in mine
    assert m.jinavl_ranking(state({**base, "model_config.architecture": "LlamaForCausalLM"}, version=V)) is None


# ---------------------------------------------------------------- encoder-decoder models


def test_encoder_decoder_models_disable_chunked_prefill_in_the_scheduler() -> None:
    """Whisper: SchedulerConfig turns chunked prefill and chunked multimodal input off and logs it; the encoder
    budgets stay the token budget; a decoder is untouched."""
    r = r034("whisper")
    s = r.state
    assert s["scheduler_config.enable_chunked_prefill"] is False and s["scheduler_config.disable_chunked_mm_input"]
    assert s["scheduler_config.max_num_encoder_input_tokens"] == s["scheduler_config.max_num_batched_tokens"]
    assert "Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both." in texts(r)
    assert r034().state["scheduler_config.disable_chunked_mm_input"] is False


# ---------------------------------------------------------------- Mamba models (step 2)


def test_mamba_cache_mode_follows_prefix_caching() -> None:
    """With prefix caching a Mamba model caches its state at block boundaries ("align", logged) and its mamba
    block is the attention block; without it, one state per sequence."""
    on = r034("jamba")
    assert on.state["cache_config.mamba_cache_mode"] == "align"
    assert on.state["cache_config.mamba_block_size"] == on.state["cache_config.block_size"] == 64
    assert ("Mamba cache mode is set to 'align' for JambaForCausalLM by default when prefix caching is enabled"
            in texts(on))
    off = r034("jamba", ["--no-enable-prefix-caching"])
    assert off.state["cache_config.mamba_cache_mode"] == "none"
    assert off.state["cache_config.mamba_block_size"] == off.state["model_config.max_model_len"]
    assert r034().state["cache_config.mamba_block_size"] is None


def test_an_align_mode_without_prefix_caching_is_reset_with_a_warning() -> None:
    """A config asking for mamba_cache_mode "align" without prefix caching gets "none" and a warning."""
    r = cfg034({"cache_config": {"mamba_cache_mode": "align", "enable_prefix_caching": False}}, model="mamba")
    assert r.state["cache_config.mamba_cache_mode"] == "none"
    assert "Mamba cache mode is set to 'none' when prefix caching is disabled" in texts(r)


def test_mamba_prefix_caching_needs_chunked_prefill() -> None:
    """--enable-prefix-caching --no-enable-chunked-prefill on a Mamba model: vLLM's assertion."""
    r = r034("mamba", ["--enable-prefix-caching", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "8192"])
    assert not r.ok and r.error is not None
    assert r.violations[0].rule == "models.mamba-chunked-prefill-required"
    assert r.violations[0].message == "Chunked prefill is required for Mamba prefix caching."
    assert r034("llama", ["--enable-prefix-caching", "--no-enable-chunked-prefill",
                          "--max-num-batched-tokens", "131072"]).ok


@pytest.mark.parametrize("rid", ["models.mamba-cascade-off", "models.hybrid-attention-block-size",
                                 "models.hybrid-mamba-page-padding", "scheduler.cp-off-switch",
                                 "scheduler.pooling-type-blocks-cp", "model.pooler-use-activation"])
def test_decisions_0_34_0_no_longer_takes(rid: str) -> None:
    """Hybrid page alignment moved to worker start-up; the chunked-prefill blockers left VllmConfig."""
    from postinit.rules import versions

    assert rid not in versions.rulebook(V).rules and rid in versions.rulebook("0.11.1").rules


def test_a_converter_asks_for_the_pooling_runner() -> None:
    """--convert embed with --runner auto is a pooling runner in 0.34.0 (0.11.1 kept generate)."""
    r = r034(argv=["--convert", "embed"])
    assert r.state["model_config.runner_type"] == "pooling"
    assert r.why("model_config.runner_type").rule == "model.runner-type"
    assert postinit.resolve(model=fixture_path("llama"), argv=["--convert", "embed"],
                            vllm_version="0.11.1").state["model_config.runner_type"] == "generate"


def test_an_embedding_model_refuses_the_generate_runner() -> None:
    """A pooling-only class with --runner generate: 0.34.0's "Embedding models do not support" error, converters
    listed without reward."""
    r = r034("bert", ["--runner", "generate"])
    assert not r.ok and r.violations[0].message == (
        "Embedding models do not support `--runner generate`. Use `--runner pooling` or `--runner auto` for "
        "embedding models.")
    assert r034("bert").ok
    seq_cls = r034("gemma3_text", ["--runner", "pooling", "--convert", "none"])
    assert not seq_cls.ok and "`--convert <embed|classify>" in seq_cls.violations[0].message
