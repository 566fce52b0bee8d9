"""vLLM 0.11.1's delta (postinit/rules/v0_11_1.py): each rule it adds or replaces, decided on small states.

End-to-end agreement with the vllm==0.11.1 wheel is tests/golden/test_parity.py's
``test_case_matches_vllm_0_11_1``; these tests pin each decision on its own.
"""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Rule, decide
from postinit.rules import v0_11_1 as v
from postinit.rules import versions
from postinit.rules._kit import state
from postinit.rules.model_config import registry
from postinit.schema import CompilationMode, CUDAGraphMode

EA = {"usage.via_engine_args": True, "usage.usage_context": "OPENAI_API_SERVER"}
ECP = "scheduler_config.enable_chunked_prefill"
APC = "cache_config.enable_prefix_caching"
TOK = "scheduler_config.max_num_batched_tokens"
SEQ = "scheduler_config.max_num_seqs"
MODEL = {"model_config": True}
POOL = {"model_config.runner_type": "pooling", "model_config.pooler_config": True}


def r011(**kw: Any) -> postinit.Resolution:
    return postinit.resolve(vllm_version="0.11.1", **kw)


def of(rule_id: str) -> Rule:
    """0.11.1's rule ``rule_id`` as its rulebook has it (a seed rule patched by the delta included)."""
    return next(r for r in versions.VERSIONS["0.11.1"].rules if r.id == rule_id)


# ---------------------------------------------------------------- EngineArgs


@pytest.mark.parametrize(("values", "feature"), [
    ({"model_config.logits_processor_pattern": "x.*"}, "--logits-processor-pattern"),
    ({"scheduler_config.max_num_partial_prefills": 2}, "Concurrent Partial Prefill"),
    ({"parallel_config.pipeline_parallel_size": 2, "parallel_config.distributed_executor_backend": "uni"},
     "Pipeline Parallelism"),
    ({}, None),
])
def test_unsupported_feature_raises(values: dict[str, Any], feature: str | None) -> None:
    """With V0 gone an unsupported feature is a NotImplementedError, never a fallback."""
    got = decide(v.unsupported_feature, state({**EA, **values}))
    if feature is None:
        assert not got
    else:
        assert got.violation is not None and got.violation.error == "NotImplementedError"
        assert got.violation.message == f"{feature} is not supported. We recommend to remove {feature} from your config." \
            or got.violation.message.startswith(feature)


def test_chunked_prefill_default_keeps_the_users_false() -> None:
    """An unset flag is filled (True for generative runners); a user's False is kept."""
    got = decide(v.chunked_prefill_default, state({**EA, "model_config.runner_type": "generate"}))
    assert got.changes == {ECP: True} and got.messages == ["Enabling chunked prefill by default"]
    assert not decide(v.chunked_prefill_default, state({**EA, ECP: False}))


def test_pooling_defaults_follow_last_causal_pooling() -> None:
    """A pooling model chunks and caches prefixes only for LAST pooling of a causal model."""
    mean = state({**EA, **POOL, "model_config.pooler_config.pooling_type": "MEAN"})
    assert decide(v.chunked_prefill_default, mean).changes == {ECP: False}
    assert decide(v.prefix_caching_default, mean).messages == ["Disabling prefix caching by default"]
    last = state({**EA, **POOL, "model_config.pooler_config.pooling_type": "LAST"})
    assert decide(v.prefix_caching_default, last).changes == {APC: True}
    assert decide(v.prefix_caching_default, state({**EA, "model_config.is_hybrid": True})).changes == {APC: False}


def test_pooling_warnings_when_the_user_forces_it_on() -> None:
    """A user-enabled feature the pooling model does not support is kept, with a warning."""
    s = state({**EA, **POOL, "model_config.pooler_config.pooling_type": "MEAN", ECP: True, APC: True})
    assert decide(v.pooling_chunked_prefill_warning, s).messages[0].startswith(
        "This model does not officially support chunked prefill.")
    assert decide(v.pooling_prefix_caching_warning, s).messages[0].startswith(
        "This model does not officially support prefix caching.")
    assert not decide(v.CHUNKED_PREFILL, state({**EA, **POOL, ECP: None}) ).violation


@pytest.mark.parametrize(("cp", "length", "tokens", "seqs"), [
    (True, 4096, 8192, 1024),
    (False, 131072, 131072, 1024),  # max(max_model_len, default)
    (False, 100, 8192, 1024),       # then capped at max_num_seqs x max_model_len: 1024 x 100 > 8192
    (True, 4, 4096, 1024),          # capped: 1024 x 4
])
def test_batch_defaults_large_gpu(cp: bool, length: int, tokens: int, seqs: int) -> None:
    """The usage default, raised to max_model_len without chunked prefill, capped at seqs x max_model_len."""
    got = decide(v.batch_defaults_large_gpu, state({**EA, ECP: cp, "model_config.max_model_len": length}))
    assert got.changes == {TOK: tokens, SEQ: min(seqs, tokens)}
    assert got.messages[0].splitlines()[0] == (
        f"Defaulting max_num_batched_tokens to {tokens} for OPENAI_API_SERVER usage context.")


def test_batch_defaults_other_device_and_cpu() -> None:
    """A100s get 2048/256 for serve; CPUs scale with pp x tp; no usage context gets 2048/128."""
    a100 = decide(v.batch_defaults_other_device, state({**EA, ECP: True, "model_config.max_model_len": 4096},
                                                       platform="a100"))
    assert a100.changes == {TOK: 2048, SEQ: 256}
    cpu = decide(v.batch_defaults_cpu, state({**EA, ECP: True, "model_config.max_model_len": 4096,
                                              "parallel_config.tensor_parallel_size": 2}, platform="cpu"))
    assert cpu.changes == {TOK: 4096, SEQ: 256}
    none = decide(v.batch_defaults_large_gpu, state({"usage.via_engine_args": True, ECP: True,
                                                      "model_config.max_model_len": 4096}))
    assert none.changes == {TOK: 2048, SEQ: 128}
    assert none.messages[0].splitlines()[1] == "Defaulting max_num_seqs to 128 for None usage context."


def test_observability_config_always_exists() -> None:
    """Config mode gets a default ObservabilityConfig too (the seed left it None)."""
    assert decide(v.observability_config, state()).changes == {"observability_config": True}
    assert r011(config={}).get("observability_config") is True
    assert postinit.resolve(config={}).get("observability_config") is None


def test_lora_speculative_budget() -> None:
    """LoRA plus k speculative tokens needs max_num_seqs x (k + 1) tokens per step."""
    s = state({**EA, "lora_config": True, "speculative_config": True,
               "speculative_config.num_speculative_tokens": 3, TOK: 256, SEQ: 128})
    assert decide(v.lora_speculative_budget, s).violation is not None
    assert not decide(v.lora_speculative_budget, state({**EA, "lora_config": True, TOK: 256, SEQ: 128}))


# ---------------------------------------------------------------- SchedulerConfig


def test_scheduler_defaults() -> None:
    """A SchedulerConfig built directly chunks prefills with a 2048-token budget."""
    assert decide(v.scheduler_chunked_prefill_default, state()).changes == {ECP: True}
    assert decide(v.max_num_batched_tokens_default, state()).changes == {TOK: 2048}
    r = r011(config={}, model="meta-llama/Llama-3.1-8B-Instruct")
    assert (r.get(ECP), r.get(TOK)) == (True, 2048)


def test_encoder_decoder_disables_the_one_flag() -> None:
    """Encoder-decoder models turn enable_chunked_prefill itself off."""
    got = decide(v.encoder_decoder_no_chunked_prefill, state({"scheduler_config.is_encoder_decoder": True}))
    assert got.changes[ECP] is False


def test_chunked_prefill_enabled_logs_the_budget() -> None:
    """The SchedulerConfig logs its budget whenever chunked prefill is on."""
    got = decide(v.chunked_prefill_enabled, state({ECP: True, TOK: 2048}))
    assert got.messages == ["Chunked prefill is enabled with max_num_batched_tokens=2048."]
    assert not decide(v.chunked_prefill_enabled, state({ECP: False, TOK: 2048}))


def test_budget_checks() -> None:
    """Without chunked prefill the budget covers max_model_len; partial-prefill bounds are pydantic's."""
    bad = state({ECP: False, TOK: 128, "scheduler_config.max_model_len": 4096})
    assert decide(v.budget_below_max_model_len, bad).violation is not None
    got = decide(v.scheduler_field_bounds, state({"scheduler_config.num_lookahead_slots": -1}))
    assert got.violation is not None and got.violation.error == "ValidationError"
    got = decide(v.partial_prefill_limits, state({ECP: True, "scheduler_config.max_model_len": 4096,
                                                  "scheduler_config.max_num_partial_prefills": 2,
                                                  "scheduler_config.max_long_partial_prefills": 3}))
    assert got.violation is not None and "must be less than or equal to" in got.violation.message


# ---------------------------------------------------------------- ParallelConfig, compilation, pooler


def test_eplb_on_rocm_and_executor_backend() -> None:
    """EPLB is allowed on ROCm; a CUDA world bigger than the node is refused; multi-node uses mp."""
    eplb = {"parallel_config.enable_eplb": True, "parallel_config.enable_expert_parallel": True,
            "parallel_config.tensor_parallel_size": 2}
    assert not decide(v.eplb_requirements, state(eplb, platform="mi300x"))
    assert decide(v.eplb_requirements, state(eplb, platform="cpu")).violation is not None
    big = state({"parallel_config.world_size": 16})
    assert "cannot be larger than the number of available GPUs" in decide(v.executor_backend_multi, big).violation.message
    multi = state({"parallel_config.world_size": 16, "parallel_config.nnodes": 2})
    assert decide(v.executor_backend_multi, multi).changes == {"parallel_config.distributed_executor_backend": "mp"}


def test_nnodes_rules() -> None:
    """More than one node needs the mp executor and has no custom all-reduce."""
    assert decide(v.nnodes_needs_mp, state({"parallel_config.nnodes": 2,
                                            "parallel_config.distributed_executor_backend": "ray"})).violation
    assert decide(v.nnodes_disables_custom_all_reduce, state({"parallel_config.nnodes": 2})).changes == {
        "parallel_config.disable_custom_all_reduce": True}


def test_pass_config_rules() -> None:
    """Fusion warnings include the all-reduce fusion; Q/K norm + RoPE fusion needs CUDA/ROCm and the rotary op."""
    p = "compilation_config.pass_config."
    got = decide(v.fusion_without_noop, state({p + "enable_fi_allreduce_fusion": True}))
    assert got.messages[0].endswith("Allreduce + rms norm + quant (fp8) fusion might not work")
    assert decide(v.qk_norm_rope_fusion_platform, state({p + "enable_qk_norm_rope_fusion": True},
                                                        platform="cpu")).changes == {p + "enable_qk_norm_rope_fusion": False}
    assert decide(v.qk_norm_rope_rotary_op, state({p + "enable_qk_norm_rope_fusion": True})).changes == {
        "compilation_config.custom_ops": ("+rotary_embedding",)}


def test_compile_cache_save_format_from_env() -> None:
    """VLLM_COMPILE_CACHE_SAVE_FORMAT is the field's default (0.11.1's table knows it; the seed's does not)."""
    got = decide(v.compile_cache_save_format_default, state({"env.VLLM_COMPILE_CACHE_SAVE_FORMAT": "unpacked"}))
    assert got.changes == {"compilation_config.compile_cache_save_format": "unpacked"}
    r = r011(env={"VLLM_COMPILE_CACHE_SAVE_FORMAT": "unpacked"})
    assert r.get("compilation_config.compile_cache_save_format") == "unpacked"
    assert any(n.subject == "VLLM_COMPILE_CACHE_SAVE_FORMAT" and n.kind == "env_unknown"
               for n in postinit.resolve(env={"VLLM_COMPILE_CACHE_SAVE_FORMAT": "unpacked"}).notes)


def test_pooler_use_activation_quirk() -> None:
    """A set softmax makes use_activation True even when it is False (vLLM binds `is not None`)."""
    got = decide(v.pooler_use_activation, state({"model_config.pooler_config": True,
                                                 "model_config.pooler_config.softmax": False}))
    assert got.changes == {"model_config.pooler_config.use_activation": True,
                           "model_config.pooler_config.softmax": 0.0}  # 0.11.1 declares it float | None
    assert got.messages == ["softmax will be deprecated, please use use_activation instead."]


# ---------------------------------------------------------------- model hooks and the registry


def test_model_hooks() -> None:
    """GPT-OSS captures up to 1024; Jamba's classifier sets use_activation; Mamba v1 models keep prefix caching."""
    on = {"model_config": True, "model_config.architecture": "GptOssForCausalLM"}
    assert decide(of("models.gptoss-max-capture-size"), state(on)).changes == {
        "compilation_config.max_cudagraph_capture_size": 1024}
    jamba = {"model_config": True, "model_config.architecture": "JambaForSequenceClassification",
             "model_config.pooler_config": True}
    assert decide(v.jamba_cls_activation, state(jamba)).changes == {"model_config.pooler_config.use_activation": False}
    mamba = {"model_config": True, "model_config.architecture": "MambaForCausalLM", "model_config.is_hybrid": False,
             "model_config.supports_mamba_prefix_caching": True, APC: True}
    got = decide(of("models.mamba-prefix-caching"), state(mamba))
    assert got.messages[0].startswith("Warning: Prefix caching is currently enabled. Its support for Mamba layers")


def test_registry_marks_mamba_v1_models() -> None:
    """Jamba, Mamba and FalconMamba support mamba prefix caching in 0.11.1's registry."""
    jamba = {"model_config": True, "model_config.architecture": "JambaForCausalLM",
             "model_config.runner_type": "generate", "model_config.convert_type": "none"}
    s = state(jamba, version="0.11.1")
    assert decide(of("model.class-interfaces"), s).changes["model_config.supports_mamba_prefix_caching"] is True
    seed = state(jamba, version="d7fb10c57")  # the seed's registry: no mamba prefix caching for Jamba
    assert decide(of("model.class-interfaces"), seed).changes.get("model_config.supports_mamba_prefix_caching") \
        is not True
    known = registry(s["version.model_registry"])
    assert known["MambaForCausalLM"].mamba_prefix_caching
    assert next(iter(known)) == "AfmoeForCausalLM" and len(known) == 238


def test_architecture_supported_knows_the_new_architectures() -> None:
    """An architecture 0.11.1 registers is accepted; an unknown one is refused with 0.11.1's list."""
    s = state({"model_config": True, "model_config.hf_config.architectures": ("FooBarForCausalLM",),
               "model_config.model_impl": "vllm"}, version="0.11.1")
    got = decide(of("model.architecture-supported"), s)
    assert got.violation is not None and "dict_keys(['AfmoeForCausalLM'" in got.violation.message
    ouro = {"model_config": True, "model_config.hf_config.architectures": ("OuroForCausalLM",),
            "model_config.model_impl": "vllm"}
    assert not decide(of("model.architecture-supported"), state(ouro, version="0.11.1"))
    seed = decide(of("model.architecture-supported"), state(ouro, version="d7fb10c57"))
    assert seed.violation is not None and "dict_keys(['AfmoeForCausalLM'" not in seed.violation.message


def test_hybrid_rules_default_the_mamba_chunk() -> None:
    """Jamba with prefix caching gets a 2048-aligned attention block where the seed failed (no chunk size)."""
    r = r011(model="ai21labs/AI21-Jamba-Mini-1.6", argv=["--enable-prefix-caching"])
    assert r.ok and r.get("cache_config.block_size") % 2048 == 0
    assert r.get("cache_config.mamba_block_size") == r.get("cache_config.block_size")
    names = [e.rule for e in r.trace.fired]
    assert "models.hybrid-attention-block-size" in names and "models.hybrid-mamba-page-padding" in names
    assert decide(v.hybrid_attention_block_size, state()) .rules == []
    assert decide(v.hybrid_mamba_page_padding, state()).rules == []


# ---------------------------------------------------------------- verify, core


def test_dcp_kv_heads_q_per_kv() -> None:
    """DCP also needs the query heads per KV head to divide by the DCP size (new in 0.11.1)."""
    s = state({"model_config": True, "parallel_config.decode_context_parallel_size": 2,
               "parallel_config.tensor_parallel_size": 8, "model_config.hf_text_config.num_key_value_heads": 2,
               "model_config.hf_text_config.num_attention_heads": 6})
    got = decide(v.dcp_kv_heads, s)
    assert got.violation is not None and got.violation.message.startswith("Total number of q per kv attn heads (3)")


@pytest.mark.parametrize(("values", "message"), [
    ({"parallel_config.pipeline_parallel_size": 2}, "Async scheduling is not yet compatible"),
    ({"speculative_config": True, "speculative_config.method": "ngram"}, "only supported with EAGLE/MTP"),
    ({"parallel_config.distributed_executor_backend": "ray"}, "only supports `mp`, `uni`, or `external_launcher`"),
])
def test_async_scheduling_supported(values: dict[str, Any], message: str) -> None:
    """VllmConfig refuses async scheduling with PP, non-EAGLE speculation or another executor."""
    s = state({"scheduler_config.async_scheduling": True, "parallel_config.distributed_executor_backend": "mp",
               **values})
    got = decide(v.async_scheduling_supported, s)
    assert got.violation is not None and message in got.violation.message
    eagle = state({"scheduler_config.async_scheduling": True, "parallel_config.distributed_executor_backend": "mp",
                   "speculative_config": True, "speculative_config.method": "eagle3"})
    assert not decide(v.async_scheduling_supported, eagle)


def test_core_rules_read_the_one_flag() -> None:
    """Turing warning, the off-switch and the budget quirk read and write enable_chunked_prefill."""
    turing = state({"model_config": True, ECP: True, "model_config.dtype": "float32"}, platform="t4")
    assert decide(v.turing_fp32_warning, turing).messages[0].startswith("Turing devices")
    off = decide(v.cp_off_switch, state({"model_config": True, ECP: False, APC: False}))
    assert off.changes == {ECP: False, "scheduler_config.long_prefill_token_threshold": 0, APC: False} or \
        off.changes == {"scheduler_config.long_prefill_token_threshold": 0} or not off.changes
    quirk = state({ECP: False, TOK: 2048, "scheduler_config.max_model_len": 4096})
    assert decide(v.quirk_budget_below_max_model_len, quirk).messages
    causal = state({"model_config": True, "model_config.pooler_config": True,
                    "model_config.hf_config.is_causal": False})
    assert decide(of("scheduler.non-causal-blocks-cp"), causal).messages == [
        "Only models using causal attention support chunked prefill and prefix caching; disabling both."]


def test_fast_prefill_eagle_is_a_value_error() -> None:
    """The same message as at the seed, as a ValueError (the seed's rule, patched: no copy)."""
    s = state({"cache_config.kv_sharing_fast_prefill": True, "speculative_config": True,
               "speculative_config.method": "eagle"})
    assert decide(of("cache.fast-prefill-eagle"), s).violation.error == "ValueError"
    seed = next(r for r in versions.VERSIONS["d7fb10c57"].rules if r.id == "cache.fast-prefill-eagle")
    assert decide(seed, s).violation.error == "NotImplementedError"


def test_user_capture_sizes_above_the_budget_are_dropped() -> None:
    """0.11.1 drops user capture sizes above max_num_batched_tokens, and says the list was overridden."""
    argv = ["--cudagraph-capture-sizes", "4", "3000", "--max-num-batched-tokens", "2048"]
    new, old = r011(argv=argv), postinit.resolve(argv=argv)
    assert list(new.get("compilation_config.cudagraph_capture_sizes")) == [4]
    assert list(old.get("compilation_config.cudagraph_capture_sizes")) == [4, 3000]
    s = state({"model_config": True, "compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE,
               "compilation_config.cudagraph_capture_sizes": (4, 3000), TOK: 2048, SEQ: 128,
               "compilation_config.max_cudagraph_capture_size": None}, version="0.11.1")
    assert s["version.capture_sizes_clip"] is True  # the seed's rules, reading 0.11.1's fact
    assert decide(of("cudagraph.capture-sizes"), s).changes == {"compilation_config.max_cudagraph_capture_size": 4,
                                                                "compilation_config.cudagraph_capture_sizes": (4,)}
    assert decide(of("cudagraph.user-capture-sizes-overridden"), s).messages[0].endswith(
        "is overridden by config [4]")
    assert not decide(of("cudagraph.sp-filters-capture-sizes"), s)
    assert not decide(of("cudagraph.truncate-max-capture-size"), s)


# ---------------------------------------------------------------- CPU


def test_cpu_block_size_and_kv_cache() -> None:
    """CPU: block 128 always, a warning for sizes not a multiple of 32, quantized KV caches fall back to auto."""
    assert decide(of("cpu.block-size-default"), state(platform="cpu")).changes == {"cache_config.block_size": 128}
    assert decide(v.cpu_block_size_multiple_of_32, state({"cache_config.block_size": 16}, platform="cpu")).messages
    assert decide(v.cpu_kv_cache_quantization_fallback, state({"cache_config.cache_dtype": "fp8"},
                                                              platform="cpu")).changes == {"cache_config.cache_dtype": "auto"}
    bad = state({"cache_config.cache_dtype": "fp8", ECP: True}, platform="cpu")
    assert decide(v.cpu_fp8_kv_incompatible, bad).violation.error == "RuntimeError"
    assert decide(of("cpu.env-shared-experts-stream"), state(platform="cpu")).changes == {
        "env.VLLM_DISABLE_SHARED_EXPERTS_STREAM": "1"}
    mla = state({"model_config": True, "model_config.use_mla": True, "model_config.max_model_len": 8192},
                platform="cpu")
    assert decide(v.cpu_mla_disables_chunked_prefill, mla).changes == {ECP: False, TOK: 8192}


# ---------------------------------------------------------------- finalize, validate


def test_dcp_interleave_checks() -> None:
    """The block must hold whole interleave units, and interleaving > 1 excludes speculation."""
    bad = state({"parallel_config.decode_context_parallel_size": 2, "parallel_config.dcp_kv_cache_interleave_size": 3,
                 "cache_config.block_size": 16})
    assert decide(v.dcp_interleave_block_size, bad).violation.error == "AssertionError"
    spec = state({"parallel_config.dcp_kv_cache_interleave_size": 2, "speculative_config": True})
    assert decide(v.dcp_interleave_speculative, spec).violation is not None


def test_splitting_ops_and_attention_fusion() -> None:
    """0.11.1's attention ops; attention fusion empties only an unset list (and only then forces FULL)."""
    base = {"compilation_config.mode": CompilationMode.VLLM_COMPILE}
    assert decide(v.splitting_ops, state(base)).changes == {
        "compilation_config.splitting_ops": list(v.ATTENTION_OPS_0_11_1)}
    fusion = {**base, "compilation_config.pass_config.enable_attn_fusion": True,
              "compilation_config.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE}
    assert decide(v.attn_fusion_forces_full, state(fusion)).changes == {
        "compilation_config.cudagraph_mode": CUDAGraphMode.FULL}
    kept = {**fusion, "compilation_config.splitting_ops": ("vllm::foo",)}
    assert not decide(v.attn_fusion_forces_full, state(kept))
    assert not decide(v.splitting_ops, state(kept))


def test_sequence_parallel_rms_norm() -> None:
    """'+rms_norm' only with PP > 1 or a non-empty split; never over '-rms_norm'; unset splitting ops crash."""
    sp = {"compilation_config.pass_config.enable_sequence_parallelism": True}
    split = {**sp, "compilation_config.splitting_ops": ("vllm::unified_attention",)}
    assert decide(v.sp_needs_rms_norm, state(split)).changes == {"compilation_config.custom_ops": ("+rms_norm",)}
    assert not decide(v.sp_needs_rms_norm, state({**sp, "compilation_config.splitting_ops": ()}))
    warn = decide(v.sp_needs_rms_norm, state({**split, "compilation_config.custom_ops": ("-rms_norm",)}))
    assert warn.messages == ["Sequence parallelism not supported withnative rms_norm when using Dynamo partition, "
                             "this will likely lead to an error."]
    assert decide(v.sp_needs_rms_norm, state(sp)).violation.error == "TypeError"


def test_kv_offloading() -> None:
    """--kv-offloading-backend creates a KV connector after the hybrid KV cache manager was decided (it stays on)."""
    r = r011(argv=["--kv-offloading-backend", "native", "--kv-offloading-size", "8", "-tp", "2"])
    assert r.ok and r.get("kv_transfer_config.kv_connector") == "OffloadingConnector"
    assert r.get("kv_transfer_config.kv_connector_extra_config")["kv_bytes_per_rank"] == 4 * (1 << 30)
    assert r.get("scheduler_config.disable_hybrid_kv_cache_manager") is False
    with_connector = r011(argv=["--kv-transfer-config", '{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}'])
    assert with_connector.get("scheduler_config.disable_hybrid_kv_cache_manager") is True
    lm = decide(v.kv_offloading, state({"cache_config.kv_offloading_backend": "lmcache",
                                        "cache_config.kv_offloading_size": 4.0}))
    assert lm.changes["kv_transfer_config.kv_connector"] == "LMCacheConnectorV1"
    missing = decide(v.kv_offloading, state({"cache_config.kv_offloading_backend": "native"}))
    assert missing.violation.message == "You must set kv_offloading_size when kv_offloading_backend is set."


# ---------------------------------------------------------------- the hash


def test_hash_factors() -> None:
    """0.11.1's compilation hash includes compile_cache_save_format; its model hash has no rope factors."""
    a = r011(config={})
    b = r011(config={}, env={"VLLM_COMPILE_CACHE_SAVE_FORMAT": "unpacked"})
    assert v.compilation_hash(a.state) != v.compilation_hash(b.state) and a.hash != b.hash
    assert "rope_scaling" not in v._MODEL_FACTORS
    assert v.model_hash(r011().state) == v.sub_hashes(r011().state)["model_config"]


def test_structured_outputs_revalidated_by_vllm_config() -> None:
    """A deprecated --guided-decoding-* value, unchecked at the seed, is refused when VllmConfig validates its field."""
    argv = ["--guided-decoding-disable-any-whitespace", "1"]
    assert postinit.resolve(argv=argv).ok
    r = r011(argv=argv)
    assert not r.ok and r.violations[0].rule == "structured-outputs.revalidated"
    assert decide(v.structured_outputs_revalidated, state({**EA, "structured_outputs_config.disable_additional_"
                                                                 "properties": True})).violation is not None
    assert not decide(v.structured_outputs_revalidated, state({"structured_outputs_config.disable_any_whitespace":
                                                               True}))
