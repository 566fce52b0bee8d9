"""vLLM 0.34.0's per-architecture model hooks (postinit/rules/v0_34_0_hooks.py), on the h### fixture models.

The golden cases h### hold every rule here to the 0.34.0 wheel's answers; these tests state the decisions.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import postinit
from postinit.rules import v0_34_0_hooks as h
from postinit.rules._kit import state
from postinit.schema import CompilationMode, CUDAGraphMode
from tests.golden.parity import fixture_path

V = "0.34.0"


def r034(model: str, argv: list[str] | None = None, **kw: Any) -> postinit.Resolution:
    """``vllm serve models/<model> <argv>`` as vLLM 0.34.0 resolves it."""
    return postinit.resolve(model=fixture_path(model), argv=argv or [], vllm_version=V, **kw)


def hf(d: dict[str, Any]) -> list[str]:
    return ["--hf-overrides", json.dumps(d)]


def message(r: postinit.Resolution) -> str:
    assert r.error is not None
    return r.error.message


def texts(r: postinit.Resolution) -> list[str]:
    return [e.message for e in r.messages()]


# ---------------------------------------------------------------- AliceAI


def test_alice_ai_checks_its_checkpoint_in_order() -> None:
    """alice_ai_checkpoint: negative eigenvalues (NotImplementedError), then the router's score function and bias
    correction (ValueError), at the model_config stage."""
    assert r034("alice_ai").ok
    bad = r034("alice_ai", hf({"kda_allow_negative_eigenvalues": True}))
    assert bad.error is not None and bad.error.type == "NotImplementedError"
    assert bad.error.rule == "models.alice-ai-checkpoint"
    assert "router_score_function='sigmoid'" in message(r034("alice_ai", hf({"router_score_function": "softmax"})))
    assert "router_bias_correction=true" in message(r034("alice_ai", hf({"router_bias_correction": False})))


def test_alice_ai_warns_about_mtp_layers_and_refuses_pp_and_eagle3() -> None:
    """alice_ai_mtp_ignored warns; alice_ai_parallel refuses PP and a speculator reading auxiliary hidden states."""
    assert any("declares 1 MTP layer(s)" in t for t in texts(r034("alice_ai", hf({"mtp_num_hidden_layers": 1}))))
    pp = r034("alice_ai", ["-pp", "2"])
    assert pp.error is not None and pp.error.rule == "models.alice-ai-parallel"
    ok = {"parallel_config.pipeline_parallel_size": 1, "model_config": True, "usage.config_updated_on_input": False,
          "model_config.architecture": "AliceAIForCausalLM", "speculative_config": True}
    assert h.alice_ai_parallel(state({**ok, "speculative_config.method": "ngram"}, version=V)) is None
    assert "'eagle3'" in str(h.alice_ai_parallel(state({**ok, "speculative_config.method": "eagle3"}, version=V)))


# ---------------------------------------------------------------- pooling / encoder hooks


@pytest.mark.parametrize(("pooling", "expected"), [("avg", "MEAN"), ("cls", "CLS"), ("last", "LAST")])
def test_llama_bidirectional_pools_as_its_config_says(pooling: str, expected: str) -> None:
    """llama_bidirectional: not causal, and the sequence pooling type named by the config's 'pooling'."""
    r = r034("llama_bidir", hf({"pooling": pooling}))
    assert r.state["model_config.pooler_config.seq_pooling_type"] == expected
    assert r.state["model_config.hf_config.is_causal"] is False


def test_llama_bidirectional_assumes_no_pooling() -> None:
    assert "requires a 'pooling' field" in message(r034("llama_bidir", hf({"pooling": None})))
    assert "pool_type 'max' not supported" in message(r034("llama_bidir", hf({"pooling": "max"})))


@pytest.mark.parametrize(("pooling", "expected"), [(None, "MEAN"), ("cls", "CLS"), ("last", "LAST")])
def test_llama_nemotron_vl_pools_as_its_config_says(pooling: str | None, expected: str) -> None:
    """h140-h142: llama_nemotron_vl: not causal; the fixture's 'pooling' is avg (MEAN), an override wins."""
    r = r034("nemotron_vl_embed", hf({"pooling": pooling}) if pooling else [])
    assert r.state["model_config.pooler_config.seq_pooling_type"] == expected
    assert r.state["model_config.hf_config.is_causal"] is False
    refused = r034("nemotron_vl_embed", hf({"pooling": "max"}))
    assert refused.error is not None and refused.error.rule == "models.llama-nemotron-vl"
    assert message(refused) == "pool_type 'max' not supported"


def test_muse_glimmer_on_rocm_with_aiter() -> None:
    """h151/h152: muse_glimmer_aiter: the AITER FA backend, Inductor graph partition and +rotary_embedding (kept
    when the user names it); nothing without AITER."""
    aiter = {"kind": "rocm", "gcn_arch": "gfx942", "aiter_found": True}
    r = r034("muse_glimmer", platform=aiter, env={"VLLM_ROCM_USE_AITER": "1"})
    assert r.state["attention_config.backend"] == "ROCM_AITER_FA"
    assert r.state["compilation_config.use_inductor_graph_partition"] is True
    assert r.state["compilation_config.custom_ops"][0] == "+rotary_embedding"
    given = r034("muse_glimmer", ["-cc", json.dumps({"custom_ops": ["-rotary_embedding"]})], platform=aiter,
                 env={"VLLM_ROCM_USE_AITER": "1"})
    assert "+rotary_embedding" not in given.state["compilation_config.custom_ops"]
    plain = r034("muse_glimmer", platform="rocm:gfx942", env={"VLLM_ROCM_USE_AITER": "1"})
    assert plain.state["attention_config.backend"] is None


def test_jina_v5_encoders_are_not_causal() -> None:
    """jina_embeddings_v5_encoder: only is_decoder false turns causal attention off."""
    assert r034("jina_v5", hf({"is_decoder": False})).state["model_config.hf_config.is_causal"] is False
    assert r034("jina_v5").state["model_config.hf_config.is_causal"] is None


def test_embedding_gemma2_matryoshka_backend_and_length() -> None:
    """embedding_gemma2_matryoshka, embedding_gemma2_backend, embedding_gemma2_max_model_len."""
    r = r034("embedding_gemma2")
    assert list(r.state["model_config.hf_config.matryoshka_dimensions"]) == [128, 256, 512, 768]
    assert r.state["attention_config.backend"] == "TRITON_ATTN" and r.state["model_config.max_model_len"] == 8192
    assert r034("embedding_gemma2", ["--max-model-len", "4096"]).state["model_config.max_model_len"] == 4096
    flex = r034("embedding_gemma2", ["--attention-backend", "FLEX_ATTENTION"])
    assert "EmbeddingGemma2: using attention backend AttentionBackendEnum.FLEX_ATTENTION" in texts(flex)


# ---------------------------------------------------------------- attention / KV hooks


def test_gemma4_heterogeneous_head_sizes() -> None:
    """gemma4_attention: FA4 everywhere on SM90 (FA4 built), per-layer with an fp8 KV cache, TRITON_ATTN without
    FA4; nothing when every layer has one head size."""
    assert h.gemma4_head_dims({"model_config.hf_text_config.layer_types": ["sliding_attention", "full_attention"],
                               "model_config.hf_text_config.num_hidden_layers": 2,
                               "model_config.hf_text_config.head_dim": 32,
                               "model_config.hf_text_config.other": {}}) == {"sliding_attention": 32,
                                                                             "full_attention": 512}
    assert r034("gemma4_text").state["attention_config.flash_attn_version"] == 4
    fp8 = r034("gemma4_text", ["--kv-cache-dtype", "fp8"])
    assert fp8.state["attention_config.flash_attn_version"] is None
    assert any("per-layer FA3/FA4" in t for t in texts(fp8))
    assert r034("gemma4_text", platform="cuda:8.0").state["attention_config.backend"] == "TRITON_ATTN"
    assert r034("gemma4_text_same").state["attention_config.flash_attn_version"] is None


def test_mistral_large4_kv_cache_and_dcp() -> None:
    """mistral_large4: fp8_ds_mla (fp8 on ROCm) for an fp8_kv_cache checkpoint, sparse MQA, DCP a2a."""
    r = r034("mistral_large4")
    assert r.state["cache_config.cache_dtype"] == "fp8_ds_mla"
    assert r.state["attention_config.sparse_mla_force_mqa"] is True
    assert r.state["parallel_config.dcp_comm_backend"] == "a2a"
    assert r034("mistral_large4", ["--kv-cache-dtype", "bfloat16"]).state["cache_config.cache_dtype"] == "auto"


def test_pixtral_runs_mistral_large4_for_its_text_config() -> None:
    """mistral_large4 also applies to Pixtral whose text config is a mistral_large_4 one (h156), not otherwise."""
    ml4 = r034("pixtral_hf", hf({"text_config": {"model_type": "mistral_large_4"}}))
    assert ml4.state["attention_config.sparse_mla_force_mqa"] is True
    assert ml4.state["parallel_config.dcp_comm_backend"] == "a2a"
    assert r034("pixtral_hf").state["attention_config.sparse_mla_force_mqa"] is False


def test_minimax_m3_nvfp4_heads_per_rank() -> None:
    """minimax_m3_nvfp4_heads: an NVFP4 KV cache needs 16 query heads per KV head on each rank (16/1 passes;
    TP=2 leaves 8 over 1; 2 KV heads leave 8 per KV head); other KV dtypes are not checked."""
    assert r034("minimax_m3_text", ["--kv-cache-dtype", "nvfp4"]).ok
    tp2 = r034("minimax_m3_text", ["--kv-cache-dtype", "nvfp4", "-tp", "2"])
    assert tp2.error is not None and tp2.error.rule == "models.minimax-m3-nvfp4-heads"
    assert "each rank holds 8 query heads over 1 KV head(s)" in message(tp2)
    heads = r034("minimax_m3_vl", ["--kv-cache-dtype", "nvfp4", *hf({"text_config": {"num_key_value_heads": 2}})])
    assert heads.error is not None and heads.error.rule == "models.minimax-m3-nvfp4-heads"
    assert r034("minimax_m3_text", ["-tp", "2"]).ok


def test_minimax_m3_vl_index_cache_overrides_on_rocm() -> None:
    """minimax_m3_vl_index_cache: on ROCm, top-level IndexCache overrides are refused with the text_config form;
    under text_config, or on another platform, they pass."""
    bad = r034("minimax_m3_vl", hf({"use_index_cache": True, "index_topk_freq": 2}), platform="rocm:gfx942")
    assert bad.error is not None and bad.error.rule == "models.minimax-m3-vl-index-cache"
    assert """'{"text_config": {"use_index_cache": true, "index_topk_freq": 2}}'""" in message(bad)
    assert r034("minimax_m3_vl", hf({"text_config": {"use_index_cache": True}}), platform="rocm:gfx942").ok
    assert r034("minimax_m3_vl", hf({"use_index_cache": True})).ok


def test_glm_moe_dsa_fp8_on_blackwell() -> None:
    """glm_moe_dsa: fp8_e4m3 on SM 10.x only; DCP a2a with Q replication; MLA (0.34.0's is_deepseek_mla)."""
    b200 = r034("glm_moe_dsa", platform="cuda:10.0")
    assert b200.state["cache_config.cache_dtype"] == "fp8_e4m3"
    assert b200.state["parallel_config.dcp_q_replicate"] is True and b200.state["model_config.use_mla"] is True
    assert r034("glm_moe_dsa").state["cache_config.cache_dtype"] == "auto"
    assert "glm_moe_dsa" in h.MLA_MODEL_TYPES


def test_deepseek_v4_indexer_and_fp8() -> None:
    """deepseek_v4_indexer: sparse logits off (no DeepGEMM sparse MQA), logits dtype by family; deepseek_v4_fp8
    renames the fp8 method; is_deepseek_mla by head_dim; cache_sliding_window stays None (compressed layers)."""
    r = r034("deepseek_v4")
    assert r.state["attention_config.indexer_sparse_logits"] is False
    assert r.state["attention_config.indexer_logits_dtype"] == "float32"
    assert r.state["model_config.is_deepseek_mla"] is True and r.state["cache_config.sliding_window"] is None
    assert r034("deepseek_v4_fp8").state["model_config.quantization"] == "deepseek_v4_fp8"


@pytest.mark.parametrize(("blocks", "argv", "expected"), [
    ({"candidate_block_size": 64, "candidate_topk_blocks": 8}, [], True),
    ({"candidate_block_size": 64, "candidate_topk_blocks": 4}, [], False),  # 512 B logits rows: not 1024-aligned
    ({"candidate_block_size": 24, "candidate_topk_blocks": 8}, [], False),
    ({"candidate_block_size": 64, "candidate_topk_blocks": 8}, ["-tp", "2", "--decode-context-parallel-size", "2"],
     False),
])
def test_deepseek_v4_sparse_logits_indexer_where_deep_select_runs(blocks: dict[str, int], argv: list[str],
                                                                  expected: bool) -> None:
    """indexer_sparse_logits_supported: SM 10.x, no context parallelism, a sparse block size dividing the candidate
    block, DeepSelect's aligned rows."""
    r = r034("deepseek_v4", [*argv, *hf(blocks)], platform="cuda:10.0")
    assert r.state["attention_config.indexer_sparse_logits"] is expected
    assert r.state["attention_config.indexer_logits_dtype"] == "bfloat16"


def test_nemotron_h_mamba_ssm_cache_dtype() -> None:
    """nemotron_h_ssm_cache_dtype: float32 by default, the checkpoint's if it names one, the user's kept."""
    assert r034("nemotron_h").state["cache_config.mamba_ssm_cache_dtype"] == "float32"
    ckpt = r034("nemotron_h", hf({"mamba_ssm_cache_dtype": "bfloat16"}))
    assert ckpt.state["cache_config.mamba_ssm_cache_dtype"] == "bfloat16"
    user = r034("nemotron_h", ["--mamba-ssm-cache-dtype", "float16"])
    assert user.state["cache_config.mamba_ssm_cache_dtype"] == "float16"


def test_longcat_ngram_compiles_nothing_by_default() -> None:
    """longcat_ngram_compilation: mode NONE and FULL graphs unless the user chose."""
    r = r034("longcat_ngram")
    assert r.state["compilation_config.mode"] == CompilationMode.NONE
    assert r.state["compilation_config.cudagraph_mode"] == CUDAGraphMode.FULL


def test_gptoss_mxfp4_method() -> None:
    """gptoss_mxfp4: an MXFP4 checkpoint resolves to gpt_oss_mxfp4."""
    assert r034("gpt_oss_mxfp4").state["model_config.quantization"] == "gpt_oss_mxfp4"


# ---------------------------------------------------------------- DiffusionGemma


def test_diffusion_gemma_defaults() -> None:
    """diffusion_gemma_attention, diffusion_gemma_config, diffusion_gemma_max_num_seqs,
    diffusion_gemma_generation_cap."""
    r = r034("diffusion_gemma")
    assert r.state["attention_config.use_non_causal"] is True
    assert r.state["diffusion_config.canvas_length"] == 64 and r.state["scheduler_config.max_num_seqs"] == 8
    assert r.state["model_config.override_generation_config"] == {"max_new_tokens": None}
    assert r034("diffusion_gemma", ["--max-num-seqs", "4"]).state["scheduler_config.max_num_seqs"] == 4
    fi = r034("diffusion_gemma", ["--attention-backend", "FLASHINFER"])
    assert "FlashInfer does not support DiffusionGemma" in message(fi)


def test_kimi_k3_mxfp4_experts() -> None:
    """kimi_k3_mxfp4: compressed-tensors mxfp4-pack-quantized experts take the mxfp4 method; bf16 is left alone."""
    assert r034("kimi_k3_mxfp4").state["model_config.quantization"] == "mxfp4"
    assert r034("kimi_k3").state["model_config.quantization"] is None


def test_rope_deprecated_names_of_a_remote_config_class() -> None:
    """rope_deprecated_names: a trusted remote config class holding rotary_emb_base / rotary_emb_fraction (and no
    rope_theta / partial_rotary_factor) is warned about once per name; without remote code nothing is said."""
    warned = [line for t in texts(r034("nomic", ["--trust-remote-code"])) for line in t.splitlines()
              if "deprecated attribute name" in line]
    assert warned == ["NomicBertConfig contains a deprecated attribute name 'rotary_emb_base'. Please use the "
                      "preferred attribute name 'rope_theta' instead.",
                      "NomicBertConfig contains a deprecated attribute name 'rotary_emb_fraction'. Please use the "
                      "preferred attribute name 'partial_rotary_factor' instead."]
    jina = texts(r034("jina_xlm_roberta", ["--trust-remote-code", "--enforce-eager"]))
    assert sum("XLMRobertaFlashConfig contains a deprecated attribute name" in t for t in jina) == 1
    assert not any("deprecated attribute name" in t for t in texts(r034("nomic", ["--max-model-len", "2048"])))


# ---------------------------------------------------------------- Unlimited-OCR

_UOCR2 = {"training_stage": "dash", "dash_stage0": "head_cls", "sparse_main_rope_mode": "page2d",
          "sparse_rope_mode": "page2d", "sparse_rope_page_span": 0, "use_sparse_attention": True,
          "image_bucket_constraint": True, "dash_image_only": True, "sparse_attention_freq": [1, 1],
          "sparse_index_dim": 32, "dash_sigma": 1.0, "dash_topk_blocks": 4, "sparse_local_block": 2,
          "sparse_block_size": 64}


def uocr2(argv: list[str] | None = None, env: dict[str, str] | None = None, **changes: Any) -> postinit.Resolution:
    """The Unlimited-OCR fixture as an Unlimited-OCR-2 checkpoint (its DASH settings given, keys changed)."""
    return r034("unlimited_ocr", [*hf({"sparse_attention_config": {**_UOCR2, **changes}}), *(argv or [])],
                env=env or {})


def test_unlimited_ocr_picks_an_rswa_backend() -> None:
    """unlimited_ocr_backend, unlimited_ocr_flash_attn_version and unlimited_ocr_rswa_backend: FA4 where it runs
    (version forced to 4), else Triton; FLASH_ATTN without FA4 and a backend that cannot express R-SWA are
    refused."""
    h100 = r034("unlimited_ocr")
    assert (h100.state["attention_config.backend"], h100.state["attention_config.flash_attn_version"]) == \
        ("FLASH_ATTN", 4)
    assert "auto-selected attention backend=vllm.v1.attention.backends.flash_attn.FlashAttentionBackend " \
        "(fa4_available=True)." in " ".join(texts(h100))
    a100 = r034("unlimited_ocr", platform="cuda:8.0")
    assert a100.state["attention_config.backend"] == "TRITON_ATTN"
    refused = r034("unlimited_ocr", ["--attention-backend", "FLASH_ATTN"], platform="cuda:8.0")
    assert refused.error is not None and refused.error.type == "RuntimeError"
    fa3 = r034("unlimited_ocr", ["--attention-config", json.dumps({"flash_attn_version": 3})])
    assert fa3.state["attention_config.flash_attn_version"] == 4
    assert any("flash_attn_version=3 cannot express" in t for t in texts(fa3))
    assert "<AttentionBackendEnum.FLASHINFER: 'vllm.v1.attention.backends.flashinfer.FlashInferBackend'>" in \
        message(r034("unlimited_ocr", ["--attention-backend", "FLASHINFER"]))
    flex = texts(r034("unlimited_ocr", ["--attention-backend", "FLEX_ATTENTION"]))
    assert any("Triton block mask (FA4 available but not used" in t for t in flex)


def test_unlimited_ocr_prefix_caching_and_vision() -> None:
    """unlimited_ocr_prefix_caching turns prefix caching off (logged); unlimited_ocr_vision gives the vision
    encoder FLASH_ATTN unless another backend than FlashInfer was chosen."""
    r = r034("unlimited_ocr")
    assert r.state["cache_config.enable_prefix_caching"] is False
    assert r.state["model_config.multimodal_config"]["mm_encoder_attn_backend"] == "FLASH_ATTN"
    fi = r034("unlimited_ocr", ["--mm-encoder-attn-backend", "FLASHINFER"])
    assert fi.state["model_config.multimodal_config"]["mm_encoder_attn_backend"] == "FLASH_ATTN"
    assert any("FlashInfer is not supported for the vision encoder" in t for t in texts(fi))
    sdpa = r034("unlimited_ocr", ["--mm-encoder-attn-backend", "TORCH_SDPA"])
    assert sdpa.state["model_config.multimodal_config"]["mm_encoder_attn_backend"] == "TORCH_SDPA"
    assert not any("disabling prefix caching" in t for t in texts(r034("unlimited_ocr", ["--no-enable-prefix-caching"])))


@pytest.mark.parametrize(("changes", "expected"), [
    ({"training_stage": "full"}, "requires training_stage='dash'"),
    ({"sparse_attention_freq": [1, 0]}, "requires DASH in every decoder layer"),
    ({"sparse_index_dim": 16}, "requires index_dim == head_dim"),
    ({"dash_sigma": 0}, "requires positive sigma and top-K"),
])
def test_unlimited_ocr2_checkpoint_checks(changes: dict[str, Any], expected: str) -> None:
    """unlimited_ocr2_checkpoint refuses a checkpoint whose DASH settings the kernels cannot run (model_config)."""
    r = uocr2(**changes)
    assert r.error is not None and r.error.rule == "models.unlimited-ocr2-checkpoint" and expected in r.error.message


def test_unlimited_ocr2_runtime() -> None:
    """unlimited_ocr2_compilation and unlimited_ocr2_attention: no compile, decode-only full graphs (piecewise
    allowed with breakable graphs), no JIT warm-up, TRITON_ATTN under DASH; M-RoPE; unsupported features refused."""
    r = uocr2()
    s = r.state
    assert (s["compilation_config.mode"], s["compilation_config.cudagraph_mode"]) == \
        (CompilationMode.NONE, CUDAGraphMode.FULL_DECODE_ONLY)
    assert s["attention_config.backend"] == "TRITON_ATTN" and s["kernel_config.enable_jit_warmup"] is False
    assert s["model_config.uses_mrope"] is True
    assert "Unlimited-OCR-2: output KV window=128; input KV is retained for DASH." in "\n".join(texts(r))
    assert uocr2(env={"VLLM_USE_BREAKABLE_CUDAGRAPH": "1"}).state["compilation_config.cudagraph_mode"] == \
        CUDAGraphMode.FULL_AND_PIECEWISE
    assert "requires compile mode NONE" in message(uocr2(["-cc", json.dumps({"mode": 3})]))
    assert "full prefill graphs" in message(uocr2(["-cc", json.dumps({"cudagraph_mode": "FULL"})]))
    assert "does not support pipeline parallelism" in message(uocr2(["-pp", "2"]))
    assert "supports FLASH_ATTN or FLASHINFER" in message(uocr2(["--attention-backend", "TRITON_ATTN"]))
    window = r034("unlimited_ocr", hf({"sparse_attention_config": _UOCR2, "rswa_window": 64}))
    assert "requires rswa_window=128 or 0 (full KV)" in message(window)


# ---------------------------------------------------------------- Qwen3.5, Decision 3.0, ColQwen3.5


def test_qwen3_5_ssm_cache_dtype_and_text_only_rope() -> None:
    """qwen3_5_ssm_cache_dtype takes the config's mamba_ssm_dtype for 'auto' and warns about another one given;
    qwen3_5_text_only_rope drops the inherited M-RoPE of a text-only class (uses_mrope reads rope_parameters)."""
    r = r034("qwen3_5_text")
    assert r.state["cache_config.mamba_ssm_cache_dtype"] == "float32"
    assert r.state["model_config.uses_mrope"] is False
    user = r034("qwen3_5_text", ["--mamba-ssm-cache-dtype", "bfloat16"])
    assert user.state["cache_config.mamba_ssm_cache_dtype"] == "bfloat16"
    assert any("specifies mamba_ssm_dtype='float32' in its config" in t for t in texts(user))
    assert r034("qwen3_5_text", hf({"mamba_ssm_dtype": None})).state["cache_config.mamba_ssm_cache_dtype"] == "auto"
    assert r034("d3", hf({"decision_config": {"format_version": 1, "codes": ["A"], "token_ids": [5]}})) \
        .state["model_config.uses_mrope"] is True


_D3 = {"format_version": 1, "pooling": "last", "attention_mode": "causal", "codes": ["A", "B"], "token_ids": [5, 6]}


@pytest.mark.parametrize(("changes", "expected"), [
    ({"format_version": 2}, "format_version 2; vLLM reads version 1"),
    ({"pooling": "mean"}, "pooling 'mean'"),
    ({"attention_mode": "sliding"}, "attention_mode 'sliding'"),
    ({"token_ids": [5]}, "one token id per answer code"),
])
def test_d3_decision_contract(changes: dict[str, Any], expected: str) -> None:
    """d3_decision refuses a decision_config.json vLLM cannot read (model_config stage)."""
    r = r034("d3", hf({"decision_config": {**_D3, **changes}}))
    assert r.error is not None and r.error.rule == "models.d3-decision" and expected in r.error.message


def test_d3_decision_attention_and_activation() -> None:
    """Causal by default, bidirectional under noncausal_full_attention (then no chunked prefill); raw logits."""
    r = r034("d3", hf({"decision_config": _D3}))
    assert r.state["model_config.hf_config.is_causal"] is True
    assert r.state["model_config.pooler_config.use_activation"] is False
    full = r034("d3", hf({"decision_config": {**_D3, "attention_mode": "noncausal_full_attention"}}))
    assert full.state["model_config.hf_config.is_causal"] is False
    assert full.state["scheduler_config.enable_chunked_prefill"] is False
    assert "need a decision_config.json" in message(r034("d3"))


def test_colqwen3_5_retrieval_contract() -> None:
    """colqwen3_5_contract: the declared contract sets is_causal; none, an unknown or two disagreeing ones are
    refused."""
    assert r034("colqwen3_5").state["model_config.hf_config.is_causal"] is False
    assert r034("colqwen3_5", hf({"retrieval_attention_contract": "causal"})).state["model_config.hf_config.is_causal"]
    assert "must declare" in message(r034("colqwen3_5", hf({"retrieval_attention_contract": None})))
    assert "declarations: ['bidirectional', 'causal']" in message(
        r034("colqwen3_5", hf({"text_config": {"retrieval_attention_contract": "causal"}})))


def test_qwen4_exp_checks_and_rope() -> None:
    """qwen4_exp_checks: hc_count > 1, no PP under sequence-parallel MoE, no DBO / micro-batches with a QSA indexer,
    speculation by MTP or n-gram only; the text-only class drops M-RoPE and takes the Qwen3.5 cache dtype."""
    r = r034("qwen4_exp_text")
    assert r.state["model_config.uses_mrope"] is False and r.state["cache_config.mamba_ssm_cache_dtype"] == "float32"
    assert message(r034("qwen4_exp_text", hf({"hc_count": 1}))) == "Qwen4Exp requires hc_count > 1"
    sp = r034("qwen4_exp_text", ["-tp", "2", "-dp", "2", "-pp", "2", "--enable-expert-parallel"])
    assert sp.error is not None and sp.error.rule == "models.qwen4-exp-checks"
    qsa = {"indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 64, "indexer_budget": 64,
           "indexer_compress_ratio": 4}
    assert r034("qwen4_exp_text", hf(qsa)).ok
    dbo = r034("qwen4_exp_text", [*hf(qsa), "--enable-dbo"])
    assert dbo.error is not None and dbo.error.type == "NotImplementedError"
    suffix = r034("qwen4_exp_text", ["--speculative-config", json.dumps({"method": "suffix", "num_speculative_tokens": 2})])
    assert "supports only its native MTP checkpoint" in message(suffix)


def test_glm5_next_fp8_kv_cache_on_blackwell() -> None:
    """glm5_next_kv_cache: fp8 on SM 10.x (logged), auto elsewhere; an n-gram drafter's KV cache stays auto."""
    assert r034("glm5_next_text").state["cache_config.cache_dtype"] == "auto"
    b200 = r034("glm5_next_text", platform="cuda:10.0")
    assert b200.state["cache_config.cache_dtype"] == "fp8"
    assert "Using fp8 KV cache for GLM-5.3-Flash" in texts(b200)
    ngram = r034("glm5_next_text", ["--speculative-config", json.dumps(
        {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})], platform="cuda:10.0")
    assert ngram.state["speculative_config.kv_cache_dtype"] == "auto"


def test_qwen4_exp_mtp_keeps_mrope_for_a_vl_target() -> None:
    """qwen3_5_text_only_rope: the MTP module drops M-RoPE unless its config has a vision config."""
    text = r034("qwen4_exp_text", hf({"architectures": ["Qwen4ExpMTP"]}))
    assert text.state["model_config.uses_mrope"] is False
    vl = r034("qwen4_exp_text", hf({"architectures": ["Qwen4ExpMTP"], "vision_config": {"depth": 1}}))
    assert vl.state["model_config.uses_mrope"] is True


def test_qwen4_exp_vl_language_model_only_drops_mrope() -> None:
    """qwen3_5_text_only_rope: a language-model-only Qwen4Exp VL model has no images to place, so 1D RoPE."""
    assert r034("qwen4_exp_vl").state["model_config.uses_mrope"] is True
    assert r034("qwen4_exp_vl", ["--language-model-only"]).state["model_config.uses_mrope"] is False


def test_mm_video_backend() -> None:
    """mm_video_backend: LFM3-VL takes Qwen3-VL's video loader, Nemotron-H Omni Nemotron-VL's, unless one is named
    in --media-io-kwargs; the Omni model's text model sets the SSM cache dtype (nemotron_h_ssm_cache_dtype)."""
    mm = r034("lfm3_vl").state["model_config.multimodal_config"]
    assert mm["media_io_kwargs"] == {"video": {"video_backend": "qwen3_vl"}}
    given = r034("lfm3_vl", ["--media-io-kwargs", json.dumps({"video": {"video_backend": "opencv"}})])
    assert given.state["model_config.multimodal_config"]["media_io_kwargs"]["video"]["video_backend"] == "opencv"
    omni = r034("nemotron_h_omni").state
    assert omni["model_config.multimodal_config"]["media_io_kwargs"] == {"video": {"video_backend": "nemotron_vl"}}
    assert omni["cache_config.mamba_ssm_cache_dtype"] == "float32"
