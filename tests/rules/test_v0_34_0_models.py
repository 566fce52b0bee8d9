"""vLLM 0.34.0's model-specific decisions (postinit/rules/v0_34_0_models.py): each rule where it fires and where not.

End-to-end agreement with the vllm==0.34.0 wheel is measured by tests/golden/test_parity.py (the cases of
tests/golden/cases-0.34.0, m### among them for the decisions written here); these tests pin each decision.
"""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------- multimodal models


def test_whisper_gets_0_34_0s_multimodal_config_without_a_processor_cache() -> None:
    """Whisper (encoder-decoder): the cache is 0 (logged), device normalization off by default (logged), the rest
    MultiModalConfig's 0.34.0 defaults; Llama builds no MultiModalConfig."""
    r = r034("whisper")
    mm = r.state["model_config.multimodal_config"]
    assert mm["mm_processor_cache_gb"] == 0 and mm["mm_device_do_normalize"] is False
    assert mm["mm_hasher_algorithm"] == "blake3" and mm["mm_tensor_ipc"] == "direct_rpc"
    assert mm["allow_missing_mm_embeddings"] is False and mm["video_pruning_method"] == "evs"
    assert {"Encoder-decoder model detected, disabling mm processor cache.",
            "mm_device_do_normalize is disabled by default."} <= set(texts(r))
    assert r034().state["model_config.multimodal_config"] is None
    assert r.why("model_config.mm_processor_cache_gb").rule == "model.encoder-decoder-mm-cache"
    assert m.encoder_decoder_mm_cache(state({"model_config": True}, version=V)) is None


def test_multimodal_options_are_the_model_configs_initvars() -> None:
    """ModelConfig(mm_hasher_algorithm=..., mm_processor_device="cpu") reach the MultiModalConfig; an explicit
    mm_device_do_normalize the model cannot honour is turned off with a warning."""
    r = cfg034({"model_config": {"mm_hasher_algorithm": "sha256", "mm_processor_device": "cpu",
                                 "mm_device_do_normalize": True}}, model="whisper")
    mm = r.state["model_config.multimodal_config"]
    assert mm["mm_hasher_algorithm"] == "sha256" and mm["mm_processor_kwargs"] == {"device": "cpu"}
    assert mm["mm_device_do_normalize"] is False
    assert "Model does not support mm_device_do_normalize, forcing mm_device_do_normalize = False." in texts(r)
    assert r.why("model_config.mm_device_do_normalize").rule in ("model.mm-device-do-normalize-forced-off",
                                                                 "model.mm-device-do-normalize")
    assert m.mm_device_do_normalize_forced_off(state({"model_config": True}, version=V)) is None


def test_data_parallel_encoder_falls_back_where_unsupported() -> None:
    """--mm-encoder-tp-mode data on a model whose encoder does not support it: weights, with vLLM's warning."""
    base = {"model_config": True, "model_config.is_multimodal_model": True,
            "model_config.architecture": "WhisperForConditionalGeneration", "model_config.runner_type": "generate",
            "model_config.convert_type": "none", "model_config.mm_encoder_tp_mode": "data"}
    assert changes(m.mm_encoder_tp_mode(state(base, version=V))) == {"model_config.mm_encoder_tp_mode": "weights"}
    assert m.mm_encoder_tp_mode(state({**base, "model_config.mm_encoder_tp_mode": "weights"}, version=V)) is None


def test_rust_frontend_turns_device_normalization_off() -> None:
    """VLLM_USE_RUST_FRONTEND: mm_device_do_normalize is False (debug by default, a warning when asked for)."""
    base = {"model_config": True, "model_config.is_multimodal_model": True,
            "model_config.architecture": "WhisperForConditionalGeneration", "model_config.runner_type": "generate",
            "model_config.convert_type": "none"}
    out = m.mm_device_do_normalize(state({**base, "env.VLLM_USE_RUST_FRONTEND": True}, version=V))
    assert isinstance(out, Outcome) and changes(out) == {"model_config.mm_device_do_normalize": False}
    assert "Rust frontend does not currently support" in (out.message or "")
    assert m.mm_device_do_normalize(state({**base, "model_config.is_multimodal_model": False}, version=V)) is None


def test_language_model_only_runs_text_only() -> None:
    """--language-model-only: every modality's limit is 0, so the model runs text-only (both records logged)."""
    r = cfg034({"model_config": {"language_model_only": True}}, model="whisper")
    assert "All limits of multimodal modalities supported by the model are set to 0, running in text-only mode." \
        in "\n".join(texts(r))
    assert not any("text-only" in t for t in texts(r034("whisper")))
    embeds = {"model_config": True, "model_config.is_multimodal_model": True,
              "model_config.multimodal_config": {"language_model_only": True, "enable_mm_embeds": True}}
    assert m.mm_text_only(state(embeds, version=V)) is None  # embedding inputs still need the MM machinery


def test_language_model_only_refuses_encoder_cuda_graphs() -> None:
    """--language-model-only with cudagraph_mm_encoder: the encoder never runs, vLLM refuses the pair."""
    r = cfg034({"model_config": {"language_model_only": True},
                "compilation_config": {"cudagraph_mm_encoder": True}}, model="whisper")
    assert not r.ok and r.violations[0].rule == "vllm.language-model-only-mm-cudagraph"
    assert cfg034({"compilation_config": {"cudagraph_mm_encoder": True}}, model="whisper").ok


def test_torch_shm_needs_spawned_workers() -> None:
    """mm_tensor_ipc torch_shm without VLLM_WORKER_MULTIPROC_METHOD=spawn is refused; with it, it resolves."""
    cfg = {"model_config": {"mm_tensor_ipc": "torch_shm"}}
    r = cfg034(dict(cfg), model="whisper")
    assert not r.ok and r.violations[0].message == (
        "torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn")
    assert cfg034(dict(cfg), model="whisper", env={"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}).ok


def test_an_encoder_only_instance_turns_prefix_caching_off() -> None:
    """mm_encoder_only (or an EC producer that is no consumer): no KV cache, so no prefix caching, logged."""
    r = cfg034({"model_config": {"mm_encoder_only": True}}, model="whisper")
    assert r.state["cache_config.enable_prefix_caching"] is False
    assert "Disabling prefix caching: this instance runs the multi-modal encoder only." in texts(r)
    producer = state({"model_config": True, "model_config.multimodal_config": {"mm_encoder_only": False},
                      "ec_transfer_config": True, "ec_transfer_config.ec_connector": "X",
                      "ec_transfer_config.ec_role": "ec_producer", "cache_config.enable_prefix_caching": True},
                     version=V)
    out = changes(m.mm_encoder_only(producer))
    assert out["cache_config.enable_prefix_caching"] is False
    assert out["model_config.multimodal_config"]["mm_encoder_only"] is True
    text_only = state({"model_config": True, "ec_transfer_config": True, "ec_transfer_config.ec_connector": "X",
                       "ec_transfer_config.ec_role": "ec_producer"}, version=V)
    assert isinstance(m.mm_encoder_only(text_only), Violation)


def test_a_kv_consumer_accepts_embedding_inputs() -> None:
    """A KV consumer's multimodal requests carry metadata only: embeddings allowed, the tensor optional."""
    base = {"model_config": True, "model_config.multimodal_config": {"enable_mm_embeds": False},
            "kv_transfer_config": True, "kv_transfer_config.kv_connector": "NixlConnector",
            "kv_transfer_config.kv_role": "kv_consumer"}
    out = m.mm_embedding_inputs(state(base, version=V))
    assert isinstance(out, Outcome)
    assert changes(out)["model_config.multimodal_config"] == {"enable_mm_embeds": True,
                                                               "allow_missing_mm_embeddings": True}
    producer = m.mm_embedding_inputs(state({**base, "kv_transfer_config.kv_role": "kv_producer"}, version=V))
    assert changes(producer)["model_config.multimodal_config"]["allow_missing_mm_embeddings"] is False


# ---------------------------------------------------------------- speculative decoding


def test_a_draft_model_shards_its_kv_cache_like_the_target() -> None:
    """EAGLE / MTP drafts take the target's decode context parallelism; n-gram has no draft to shard; a size that is
    neither 1 nor the target's is refused."""
    spec = {"speculative_config": True, "speculative_config.method": "eagle", "speculative_config.model": "d",
            "parallel_config.decode_context_parallel_size": 2}
    assert changes(m.draft_decode_context_parallel_size(state(spec, version=V))) == {
        "speculative_config.draft_decode_context_parallel_size": 2}
    bad = m.draft_decode_context_parallel_size(state({**spec, "speculative_config.draft_decode_context_parallel_size": 4},
                                                     version=V))
    assert isinstance(bad, Violation) and bad.message == "draft_dcp=4 must be 1 or 2."
    assert m.draft_decode_context_parallel_size(state({**spec, "speculative_config.method": "ngram"}, version=V)) is None
    r = cfg034({"speculative_config": {"method": "eagle", "model": fixture_path("llama_draft"),
                                       "num_speculative_tokens": 2}})
    assert r.state["speculative_config.draft_decode_context_parallel_size"] == 1


def test_hash_lookahead_for_eagle_style_drafters() -> None:
    """EAGLE with prefix caching hashes one token ahead; without prefix caching, with n-gram, or with block drop
    disabled, none; a KV connector decides by its own support instead of prefix caching."""
    base = {"speculative_config": True, "speculative_config.method": "eagle", "speculative_config.num_speculative_tokens": 3,
            "cache_config.enable_prefix_caching": True}
    assert changes(m.num_hash_lookahead_tokens(state(base, version=V))) == {"num_hash_lookahead_tokens": 1}
    for other in ({"cache_config.enable_prefix_caching": False}, {"speculative_config.method": "ngram"},
                  {"speculative_config.disable_eagle_block_drop": True}):
        assert m.num_hash_lookahead_tokens(state({**base, **other}, version=V)) is None
    nixl = {**base, "cache_config.enable_prefix_caching": False, "kv_transfer_config": True,
            "kv_transfer_config.kv_connector": "NixlConnector"}
    assert changes(m.num_hash_lookahead_tokens(state(nixl, version=V))) == {"num_hash_lookahead_tokens": 1}
    example = {**base, "kv_transfer_config": True, "kv_transfer_config.kv_connector": "ExampleConnector"}
    assert m.num_hash_lookahead_tokens(state(example, version=V)) is None
    chained = {**base, "speculative_config.method": "mtp", "model_config.hf_text_config.num_nextn_predict_layers": 3}
    assert changes(m.num_hash_lookahead_tokens(state(chained, version=V))) == {"num_hash_lookahead_tokens": 3}


def test_dynamic_speculative_decoding_is_off_with_data_parallelism() -> None:
    """A per-batch-size token schedule with DP > 1 falls back to num_speculative_tokens, with vLLM's warning."""
    base = {"speculative_config": True, "speculative_config.num_speculative_tokens": 3,
            "speculative_config.num_speculative_tokens_per_batch_size": [[1, 3]],
            "parallel_config.data_parallel_size": 2}
    out = m.dynamic_speculative_decoding_data_parallel(state(base, version=V))
    assert changes(out) == {"speculative_config.num_speculative_tokens_per_batch_size": None}
    assert m.dynamic_speculative_decoding_data_parallel(
        state({**base, "parallel_config.data_parallel_size": 1}, version=V)) is None


def test_decode_query_lens_tier_dynamic_speculative_decoding() -> None:
    """One tier of 1 + k tokens up to max_num_seqs; a per-batch-size schedule gives each draft width its widest
    batch (a gap carries the previous width, k caps every width); an invalid schedule keeps the static width;
    a diffusion model's canvas length counts as its speculative tokens."""
    base = {"speculative_config": True, "speculative_config.num_speculative_tokens": 3,
            "scheduler_config.max_num_seqs": 64}
    assert m.decode_query_lens(state(base, version=V)) == {4: 64}
    dyn = {**base, "speculative_config.num_speculative_tokens_per_batch_size": ((1, 8, 5), (16, 32, 2), (40, 64, 1))}
    assert m.decode_query_lens(state(dyn, version=V)) == {4: 15, 3: 39, 2: 64}
    bad = {**base, "speculative_config.num_speculative_tokens_per_batch_size": ((2, 8, 2),)}
    assert m.decode_query_lens(state(bad, version=V)) == {4: 64}
    canvas = {"diffusion_config": True, "diffusion_config.canvas_length": 64, "scheduler_config.max_num_seqs": 8}
    assert m.num_speculative_tokens(state(canvas, version=V)) == 64
    assert m.decode_query_lens(state(canvas, version=V)) == {65: 8}


def test_gpt_oss_captures_the_legacy_1024_token_range() -> None:
    """gpt-oss: prefill token sizes of the old 1024-token grid below the budget plus the budget, and 1024 tokens'
    worth of decode requests at the narrowest query length; not on SM 10.x, nor over a size the user set."""
    base = {"model_config": True, "model_config.architecture": "GptOssForCausalLM",
            "scheduler_config.max_num_batched_tokens": 2048, "scheduler_config.max_num_seqs": 256}
    out = changes(m.gptoss_max_capture_size(state(base, platform="cuda:9.0", version=V)))
    prefill = out["compilation_config.prefill_cudagraph_capture_token_sizes"]
    assert prefill[:4] == (1, 2, 4, 8) and prefill[-2:] == (1008, 1024) and len(prefill) == 83
    assert out["compilation_config.max_decode_cudagraph_capture_requests"] == 1024
    small = changes(m.gptoss_max_capture_size(state({**base, "scheduler_config.max_num_batched_tokens": 300,
                                                     "speculative_config": True,
                                                     "speculative_config.num_speculative_tokens": 3}, version=V)))
    assert small["compilation_config.prefill_cudagraph_capture_token_sizes"][-3:] == (272, 288, 300)
    assert small["compilation_config.max_decode_cudagraph_capture_requests"] == 256
    assert m.gptoss_max_capture_size(state(base, platform="cuda:10.0", version=V)) is None
    assert m.gptoss_max_capture_size(state({**base, "compilation_config.max_decode_cudagraph_capture_requests": 8},
                                           version=V)) is None
    assert changes(m.gptoss_max_capture_size(state(base, platform="cpu", version=V)))
    r = r034("gpt_oss_0340", platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert r.state["compilation_config.max_decode_cudagraph_capture_requests"] == 1024
    assert r.state["compilation_config.max_cudagraph_capture_size"] is None


# ---------------------------------------------------------------- RoPE overrides and max_model_len


def test_a_rope_override_is_standardized_in_place() -> None:
    """transformers 5 standardizes the override dict as it is set: rope_type (a legacy type kept beside it),
    rope_theta None, the pretraining length for yarn / llama3 / longrope; vLLM keeps that dict as hf_overrides."""
    from postinit.schema.loaders.model import standardized_rope_override

    raw = {"max_position_embeddings": 4096}
    legacy = standardized_rope_override({"rope_scaling": {"type": "dynamic", "factor": 2.0}}, raw)
    assert legacy["rope_scaling"] == {"type": "dynamic", "factor": 2.0, "rope_type": "dynamic", "rope_theta": None}
    yarn = standardized_rope_override({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}, "x": 1}, raw)
    assert yarn == {"x": 1, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "rope_theta": None,
                                             "original_max_position_embeddings": 4096}}
    phi = standardized_rope_override({"rope_scaling": {"rope_type": "longrope", "original_max_position_embeddings": 1}},
                                     {**raw, "original_max_position_embeddings": 2048})
    assert phi["rope_scaling"]["original_max_position_embeddings"] == 2048
    plain = standardized_rope_override({"rope_scaling": {"factor": 2.0}}, raw)
    assert plain["rope_scaling"]["rope_type"] == "default"
    r = r034(argv=["--hf-overrides", '{"rope_scaling": {"type": "dynamic", "factor": 2.0}}'])
    assert r.ok and r.state["model_config.max_model_len"] == 8192
    assert r.state["model_config.hf_overrides"]["rope_scaling"]["rope_type"] == "dynamic"


@pytest.mark.parametrize(("scaling", "length"), [
    ({"rope_type": "dynamic", "factor": 2.0}, 8192),
    ({"rope_type": "linear", "factor": 3.0}, 12288),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}, 4096),
    ({"rope_type": "llama3", "factor": 8.0}, 4096),
    ({"rope_type": "longrope", "factor": 8.0}, 4096),
])
def test_yarn_variants_are_not_scaled_again(scaling: dict[str, Any], length: int) -> None:
    """0.34.0 applies a rope factor to max_position_embeddings except for the types whose length is already
    scaled (YaRN variants too now; the seed started yarn from its original length)."""
    r = r034(argv=["--hf-overrides", json.dumps({"rope_scaling": scaling})])
    assert r.ok and r.state["model_config.max_model_len"] == length


def test_sleep_mode_turns_the_cumem_allocator_on() -> None:
    """On CUDA and ROCm sleep mode needs the cumem allocator and gets it (vLLM logs it); on CPU, not."""
    on = {"model_config": True, "model_config.enable_sleep_mode": True}
    assert changes(m.sleep_mode_cumem_allocator(state(on, version=V))) == {"model_config.enable_cumem_allocator": True}
    assert m.sleep_mode_cumem_allocator(state(on, platform="cpu", version=V)) is None
    assert m.sleep_mode_cumem_allocator(state({"model_config": True}, version=V)) is None


# ---------------------------------------------------------------- quantization


def test_fp8_runs_on_turing_in_0_34_0() -> None:
    """Fp8Config's minimum capability is 75 in 0.34.0 (80 in 0.11.1): an FP8 checkpoint resolves on a T4."""
    assert r034("llama_fp8_block", platform="t4").ok
    old = postinit.resolve(model=fixture_path("llama_fp8_block"), platform="t4", vllm_version="0.11.1")
    assert not old.ok and old.violations[0].rule == "verify.quant-capability"


def test_awq_and_gptq_checkpoints_become_auto_methods() -> None:
    """0.34.0's AutoAWQ / AutoGPTQ configs claim AWQ (not on CPU) and GPTQ checkpoints."""
    assert r034("llama_awq").state["model_config.quantization"] == "auto_awq"
    assert r034("llama_awq", platform="rocm").state["model_config.quantization"] == "auto_awq"
    gptq = {"model_config": True, "model_config.hf_config.quantization_config": {"quant_method": "gptq"}}
    from postinit.rules import model_config as mcfg

    assert changes(mcfg.quantization(state(gptq, version=V), methods=m.QUANTIZATION_METHODS, auto=True,
                                     cpu_override=None)) == {"model_config.quantization": "auto_gptq"}


def test_bitsandbytes_is_no_0_34_0_method() -> None:
    """bitsandbytes left QUANTIZATION_METHODS: the checkpoint is refused while ModelConfig is built."""
    r = r034("llama_bnb8")
    assert not r.ok and r.violations[0].message.startswith("Unknown quantization method: bitsandbytes. Must be one of "
                                                            "['awq', 'auto_awq', 'fp8',")


def test_a_deprecated_method_needs_the_opt_in() -> None:
    """fbgemm_fp8 is refused (vLLM's ValueError carries the method as a second argument) unless
    --allow-deprecated-quantization, which logs a warning instead."""
    base = {"model_config": True, "model_config.quantization": "fbgemm_fp8"}
    out = m.deprecated_quantization(state(base, version=V))
    assert isinstance(out, Violation) and out.message.startswith("('The quantization method %s is deprecated")
    assert out.message.endswith("'fbgemm_fp8')")
    ok = m.deprecated_quantization(state({**base, "model_config.allow_deprecated_quantization": True}, version=V))
    assert isinstance(ok, Outcome)
    assert m.deprecated_quantization(state({**base, "model_config.quantization": "fp8"}, version=V)) is None


def test_draft_model_speculative_decoding_is_accepted() -> None:
    """0.34.0 runs a draft-model speculator; 0.11.1's EngineArgs refused method draft_model."""
    spec = {"method": "draft_model", "model": fixture_path("llama_draft"), "num_speculative_tokens": 2}
    argv = ["--speculative-config", json.dumps(spec)]
    assert r034(argv=argv).ok
    assert not postinit.resolve(model=fixture_path("llama"), argv=argv, vllm_version="0.11.1").ok


def test_the_token_budget_must_exceed_the_lookahead_slots() -> None:
    """EAGLE reserves num_speculative_tokens KV slots, DFlash one more, n-gram none: a budget at or below them is
    refused."""
    base = {"speculative_config": True, "speculative_config.method": "eagle",
            "speculative_config.num_speculative_tokens": 3, "scheduler_config.max_num_batched_tokens": 3}
    out = m.speculative_lookahead_slots(state(base, version=V))
    assert isinstance(out, Violation) and out.message.endswith("Got max_num_batched_tokens=3 and num_lookahead_tokens=3.")
    assert m.speculative_lookahead_slots(state({**base, "speculative_config.method": "ngram"}, version=V)) is None
    assert m.num_lookahead_tokens(state({**base, "speculative_config.method": "dflash"}, version=V)) == 4


def test_watermarking_with_speculative_decoding() -> None:
    """Watermarked drafts need probabilistic draft sampling and a watermarking algorithm for drafts (or the
    target-only opt-in, which warns)."""
    base = {"watermark_config": True, "speculative_config": True, "speculative_config.method": "eagle"}
    greedy = m.watermark_speculative(state(base, version=V))
    assert isinstance(greedy, Violation) and "draft_sample_method='probabilistic'" in greedy.message
    prob = {**base, "speculative_config.draft_sample_method": "probabilistic"}
    assert isinstance(m.watermark_speculative(state(prob, version=V)), Violation)
    target_only = m.watermark_speculative(state({**prob, "watermark_config.allow_target_only_watermarking": True},
                                                version=V))
    assert isinstance(target_only, Outcome) and "Target-only watermarking" in (target_only.message or "")
    assert m.watermark_speculative(state({**prob, "watermark_config.algorithm": "dual_key_gumbel"}, version=V)) is None
    assert m.watermark_speculative(state({"watermark_config": True}, version=V)) is None


# ---------------------------------------------------------------- Mamba kernels


def test_mamba_dtypes_of_0_34_0() -> None:
    """float16 / bfloat16 SSM caches exist from 0.34.0 on: the seed's CacheConfig and parser refuse them."""
    r = cfg034({"cache_config": {"mamba_ssm_cache_dtype": "float16"}}, model="jamba")
    assert r.state["cache_config.mamba_ssm_cache_dtype"] == "float16"
    with pytest.raises(postinit.InputError, match=r"'float16' is not allowed; allowed: auto, float32"):
        postinit.resolve({"model_config": {"model": fixture_path("jamba")},
                          "cache_config": {"mamba_ssm_cache_dtype": "float16"}})
    assert r034("jamba", ["--mamba-ssm-cache-dtype", "bfloat16"]).ok
    with pytest.raises(postinit.InputError, match=r"invalid choice|not allowed"):
        postinit.resolve(model=fixture_path("jamba"), argv=["--mamba-ssm-cache-dtype", "bfloat16"])


def test_stochastic_rounding_needs_a_float16_ssm_cache() -> None:
    """Stochastic rounding without a float16 SSM cache is refused; with it, it resolves."""
    bad = m.mamba_stochastic_rounding_needs_fp16(state({"mamba_config.enable_stochastic_rounding": True}, version=V))
    assert isinstance(bad, Violation) and bad.message.startswith("Stochastic rounding for Mamba cache requires")
    assert m.mamba_stochastic_rounding_needs_fp16(state({"mamba_config.enable_stochastic_rounding": True,
                                                         "cache_config.mamba_ssm_cache_dtype": "float16"},
                                                        version=V)) is None


def test_replayssm_needs_a_model_that_implements_it() -> None:
    """--use-replayssm on Llama is refused; RecoverSSM stays off without ReplaySSM."""
    r = cfg034({"cache_config": {"use_replayssm": True}})
    assert not r.ok and r.violations[0].message == "--use-replayssm is not supported for architecture 'LlamaForCausalLM'"
    assert cfg034({}).state["cache_config.use_kda_recoverssm"] is False
    kda = state({"cache_config.use_replayssm": True, "model_config": True,
                 "model_config.architecture": "KimiLinearForCausalLM", "speculative_config": True,
                 "speculative_config.num_speculative_tokens": 2}, version=V)
    assert changes(m.kda_recoverssm(kda)) == {"cache_config.use_kda_recoverssm": True}
    flashinfer = state({"cache_config.use_replayssm": True, "mamba_config.backend": "flashinfer",
                        "cache_config.replayssm_buffer_len": 32}, version=V)
    out = m.replayssm_supported(flashinfer)
    assert isinstance(out, Violation) and out.message == "FlashInfer ReplaySSM requires --replayssm-buffer-len <= 16"


def test_mamba_cache_mode_flag_is_deprecated_and_ignored() -> None:
    """--mamba-cache-mode only warns in 0.34.0 (prefix caching decides the mode); a value outside align/none is
    argparse's invalid choice."""
    r = r034("jamba", ["--no-enable-prefix-caching", "--mamba-cache-mode", "align"])
    assert r.state["cache_config.mamba_cache_mode"] == "none"
    assert any(n.message.startswith("--mamba-cache-mode is deprecated") for n in r.notes)
    with pytest.raises(postinit.InputError) as err:
        r034("jamba", ["--mamba-cache-mode", "all"])
    assert err.value.vllm_message == "argument --mamba-cache-mode: invalid choice: 'all' (choose from 'align', 'none')"


def test_a_draft_model_without_a_method_is_detected_by_name_or_runs_as_a_plain_draft() -> None:
    """0.34.0 names the speculator from the draft's path (EAGLE, EAGLE-3, DFlash, DSpark, n-gram); any other
    draft, and no model at all, is method draft_model; a given method is kept."""
    def method(model: str | None, given: str | None = None) -> Any:
        out = m.method_from_model_name(state({"speculative_config": True, "speculative_config.method": given,
                                               "speculative_config.model": model}))
        return dict(out or {}).get("speculative_config.method")

    assert method("yuhuili/EAGLE-LLaMA3-Instruct-8B") == "eagle"
    assert method("AngelSlim/Qwen3-8B_eagle3") == "eagle3"
    assert method("z-lab/Qwen3-8B-DFlash-b16") == "dflash" and method("org/dspark_qwen3_8b") == "dspark"
    assert method("[ngram]") == "ngram" and method("models/llama_draft") == "draft_model"
    assert method(None) == "draft_model" and method("models/llama_draft", "eagle") is None
    spec = json.dumps({"model": fixture_path("llama_draft"), "num_speculative_tokens": 2})
    r = postinit.resolve(argv=["--speculative-config", spec], model=fixture_path("llama"), vllm_version="0.34.0",
                         platform="cuda:9.0")
    assert r.state["speculative_config.method"] == "draft_model"
    assert r.state["speculative_config.draft_decode_context_parallel_size"] == 1


def test_speculators_without_a_checkpoint_name_themselves_and_keep_their_own_defaults() -> None:
    """suffix / ngram_gpu take their method's name as the model; suffix keeps no lookup window and no draft TP
    and drafts 8 tokens (its tree depth if smaller) with vLLM's warning; ngram_gpu gets n-gram's window."""
    spec = {"speculative_config": True, "speculative_config.model": None, "speculative_config.num_speculative_tokens": 4}
    for method in ("suffix", "ngram_gpu", "extract_hidden_states"):
        out = m.draft_model_from_method(state({**spec, "speculative_config.method": method}))
        assert dict(out or {}) == {"speculative_config.model": method}
    assert isinstance(m.draft_model_from_method(state({**spec, "speculative_config.method": "eagle3"})), Violation)
    assert m.prompt_lookup_defaults(state({"speculative_config": True, "speculative_config.method": "suffix"})) is None
    gpu = m.prompt_lookup_defaults(state({"speculative_config": True, "speculative_config.method": "ngram_gpu",
                                          "speculative_config.prompt_lookup_max": 3}))
    assert dict(gpu or {}) == {"speculative_config.prompt_lookup_min": 3, "speculative_config.prompt_lookup_max": 3}
    assert m.draft_tensor_parallel_size(state({"speculative_config": True, "speculative_config.method": "suffix",
                                               "speculative_config.model": "suffix"})) is None
    out = m.suffix_default_tokens(state({"speculative_config": True, "speculative_config.method": "suffix",
                                         "speculative_config.suffix_decoding_max_tree_depth": 5}))
    assert isinstance(out, Outcome) and dict(out.changes) == {"speculative_config.num_speculative_tokens": 5}
    r = postinit.resolve(argv=["--speculative-config", '{"method": "suffix"}'], model=fixture_path("llama"),
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert r.state["speculative_config.num_speculative_tokens"] == 8
    assert r.state["speculative_config.prompt_lookup_max"] is None


def test_a_plain_drafts_max_model_len_caps_the_target_and_mtp_warns_about_reuse() -> None:
    """method draft_model with a shorter speculative max_model_len lowers the target's, with vLLM's warning;
    EAGLE shares the target's positions; MTP beyond one token warns that the layer is reused."""
    base = {"speculative_config": True, "model_config": True, "model_config.max_model_len": 4096,
            "speculative_config.max_model_len": 1024}
    out = m.limit_max_model_len_to_draft(state({**base, "speculative_config.method": "draft_model"}))
    assert isinstance(out, Outcome) and dict(out.changes) == {"model_config.max_model_len": 1024}
    assert m.limit_max_model_len_to_draft(state({**base, "speculative_config.method": "eagle"})) is None
    mtp = {"speculative_config": True, "speculative_config.method": "mtp", "speculative_config.num_speculative_tokens": 2,
           "model_config": True}
    assert m.mtp_reused_layer(state({**mtp, "model_config.hf_config.model_type": "qwen3_next"})) is not None
    assert m.mtp_reused_layer(state({**mtp, "model_config.hf_config.model_type": "step3p5"})) is None
    assert m.mtp_reused_layer(state({**mtp, "speculative_config.num_speculative_tokens": 1})) is None


def test_spec_flags_complete_the_speculative_config_and_refuse_a_key_given_twice() -> None:
    """--spec-method / --spec-model / --spec-tokens fill --speculative-config's keys; one it already has is
    create_engine_config's ValueError."""
    r = postinit.resolve(argv=["--speculative-config", '{"method": "ngram"}', "--spec-tokens", "4"],
                         model=fixture_path("llama"), vllm_version="0.34.0", platform="cuda:9.0")
    assert r.ok and r.state["speculative_config.num_speculative_tokens"] == 4
    twice = postinit.resolve(argv=["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2}',
                                   "--spec-tokens", "4"], model=fixture_path("llama"), vllm_version="0.34.0",
                             platform="cuda:9.0")
    assert not twice.ok and twice.error is not None
    assert "--spec-tokens and --speculative-config['num_speculative_tokens'] are mutually exclusive" in str(twice.error)
    assert m.spec_flags_given_twice(state({"usage.via_engine_args": True, "usage.given_twice": ["spec_method"]}))


def test_fp8_on_an_unquantized_checkpoint_quantizes_online_with_vllms_warning() -> None:
    """0.34.0 builds OnlineQuantizationConfig for --quantization fp8 without a checkpoint config (and warns that
    the spelling is deprecated); a checkpoint's own FP8 config keeps Fp8Config."""
    r = postinit.resolve(argv=["--quantization", "fp8"], model=fixture_path("llama"), vllm_version="0.34.0",
                         platform="cuda:9.0")
    assert r.state["quant_config.class_name"] == "OnlineQuantizationConfig"
    assert any("fp8_per_tensor instead" in e.message for e in r.messages())
    block = postinit.resolve(model=fixture_path("llama_fp8_block"), vllm_version="0.34.0", platform="cuda:9.0")
    assert block.state["quant_config.class_name"] == "Fp8Config"


def test_deepseek_v32_gets_its_tokenizer_mode_and_indexer_logits_by_gpu_family() -> None:
    """DeepSeek-V3.2 defaults tokenizer_mode to deepseek_v32 (a chosen mode stays), keeps an fp8 KV cache as
    given (no fp8_ds_mla rewrite in 0.34.0) and takes bfloat16 indexer logits on SM 10.x, float32 elsewhere."""
    v32 = fixture_path("deepseek_v32")
    h100 = postinit.resolve(argv=["-tp", "2", "--kv-cache-dtype", "fp8"], model=v32, vllm_version="0.34.0",
                            platform="cuda:9.0")
    assert h100.state["model_config.tokenizer_mode"] == "deepseek_v32"
    assert h100.state["cache_config.cache_dtype"] == "fp8"
    assert h100.state["attention_config.indexer_logits_dtype"] == "float32"
    b200 = postinit.resolve(argv=["-tp", "2"], model=v32, vllm_version="0.34.0", platform="cuda:10.0")
    assert b200.state["attention_config.indexer_logits_dtype"] == "bfloat16"
    slow = postinit.resolve(argv=["--tokenizer-mode", "slow"], model=v32, vllm_version="0.34.0", platform="cuda:9.0")
    assert slow.state["model_config.tokenizer_mode"] == "slow"
    out = m.tokenizer_mode_default(state({"model_config": True, "model_config.tokenizer_mode": "auto",
                                          "model_config.architecture": "LlamaForCausalLM"}))
    assert out is None
    assert m.deepseek_v32_cache_dtype(state({"model_config": True})) is None
