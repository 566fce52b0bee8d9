"""vLLM 0.34.0's delta (postinit/rules/v0_34_0.py): each rule it adds or replaces, decided on small states.

End-to-end agreement with the vllm==0.34.0 wheel is measured by tests/golden/test_parity.py's
``test_0_34_0_partial_parity_is_measured_and_stated`` (a partial model: the cases that do not
match yet are listed in divergences-0.34.0.json); these tests pin each decision on its own.
"""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import v0_34_0 as v
from postinit.rules._kit import state
from postinit.schema import CompilationMode, CUDAGraphMode
from tests.golden.parity import fixture_path

CC = "compilation_config"
PC = "compilation_config.pass_config"
LLAMA = fixture_path("llama")


def r034(config: dict[str, Any] | None = None, **kw: Any) -> postinit.Resolution:
    return postinit.resolve(config or {"model_config": {"model": LLAMA, "skip_tokenizer_init": True}},
                            model=kw.pop("model", LLAMA), vllm_version="0.34.0", **kw)


def changes(out: Any) -> dict[str, Any]:
    return dict(out.changes) if isinstance(out, Outcome) else dict(out or {})


# ---------------------------------------------------------------- the default resolution, end to end


def test_defaults_on_h100_are_0_34_0s() -> None:
    """VllmConfig(model=llama) on an H100: every 0.34.0 default this delta writes, and who wrote it."""
    r = r034(platform="cuda:9.0")
    s = r.state
    assert r.ok, r.violations
    assert s["optimization_level"] == 2 and s[f"{CC}.mode"] == CompilationMode.VLLM_COMPILE
    assert s[f"{CC}.cudagraph_mode"] == CUDAGraphMode.FULL_AND_PIECEWISE
    assert r.why(f"{CC}.cudagraph_mode").rule == "level.cudagraph-mode"
    assert s["cache_config.block_size"] == 64 and s["cache_config.enable_prefix_caching"] is True
    assert s["model_config.disable_cascade_attn"] is True and s["cache_config.gpu_memory_utilization"] is None
    assert s["scheduler_config.async_scheduling"] is True
    assert r.why("scheduler_config.async_scheduling").rule == "scheduler.async-scheduling-default"
    assert s["parallel_config.disable_nccl_for_dp_synchronization"] is True
    assert s["parallel_config.dcp_comm_backend"] == "ag_rs" and s["parallel_config.dcp_q_replicate"] is False
    assert s["parallel_config.data_parallel_index"] == 0 and s["parallel_config.elastic_ep_max_dp_size"] == 1
    assert s["parallel_config.is_moe_model"] is False and s["parallel_config.enable_batch_sharded_sampling"] is False
    assert s["parallel_config.eplb_config.num_redundant_experts"] == 0
    assert s[f"{CC}.ir_enable_torch_wrap"] is True and s[f"{CC}.fast_moe_cold_start"] is False
    assert s[f"{CC}.use_breakable_cudagraph"] is False
    assert s[f"{CC}.compile_ranges_endpoints"] == (2048,)
    assert s[f"{CC}.max_cudagraph_capture_size"] == 256
    assert s[f"{CC}.decode_cudagraph_capture_request_sizes"][-1] == 128
    assert s[f"{CC}.prefill_cudagraph_capture_token_sizes"] == s[f"{CC}.cudagraph_capture_sizes"]
    assert s[f"{CC}.splitting_ops"][-2:] == ("vllm::unified_kv_cache_update", "vllm::unified_mla_kv_cache_update")
    assert s["kernel_config.ir_op_priority.rms_norm"] == ("native",)
    assert s["kernel_config.ir_op_priority.gelu_and_mul_sparse"] == ("triton", "native")
    assert s["kernel_config.enable_flashinfer_autotune"] is True
    assert s[f"{PC}.fuse_norm_quant"] is False and s[f"{PC}.fuse_allreduce_rms"] is False
    assert s[f"{PC}.fuse_mla_dual_rms_norm"] is None and s[f"{PC}.fuse_rope_kvcache"] is None  # aiter's None
    assert s["attention_config.sparse_mla_prefill_workspace_factor"] == 5
    assert s["cache_config.enable_extensible_kv_cache"] is True
    assert s["scheduler_config.disable_hybrid_kv_cache_manager"] is False
    texts = [e.message for e in r.messages()]
    assert any(t.startswith("Final IR op priority after setting platform defaults: IrOpPriorityConfig(rms_norm="
                            "['native']") for t in texts)
    assert [n for n in r.notes if n.kind == "partial_version"]


def test_the_level_tables() -> None:
    """-O0 turns compilation and graphs off; -O1 is piecewise; a user's value wins over the level's."""
    cfg = {"model_config": {"model": LLAMA, "skip_tokenizer_init": True}}
    r0 = r034({**cfg, "optimization_level": 0})
    assert r0.state[f"{CC}.mode"] == CompilationMode.NONE and r0.state[f"{CC}.cudagraph_mode"] == CUDAGraphMode.NONE
    assert r0.state["kernel_config.enable_flashinfer_autotune"] is False
    assert r0.state["kernel_config.ir_op_priority.rms_norm"] == ("vllm_c", "native")
    r1 = r034({**cfg, "optimization_level": 1})
    assert r1.state[f"{CC}.cudagraph_mode"] == CUDAGraphMode.PIECEWISE
    mine = r034({**cfg, "compilation_config": {"cudagraph_mode": "FULL"}})
    assert mine.state[f"{CC}.cudagraph_mode"] == CUDAGraphMode.FULL
    assert [r.id for r in v.LEVEL_RULES] == [
        "level.fuse-norm-quant", "level.fuse-act-quant", "level.fuse-allreduce-rms", "level.fuse-attn-quant",
        "level.fuse-act-padding", "level.fuse-mla-dual-rms-norm", "level.fuse-rope-kvcache",
        "level.fuse-qk-norm-rope-kvcache", "level.enable-qk-norm-rope-fusion", "level.fuse-rope-kvcache-cat-mla",
        "level.cudagraph-mode", "level.use-inductor-graph-partition", "level.enable-flashinfer-autotune"]


def test_level_callables() -> None:
    base = {"model_config": True}
    assert v._fuse_norm_quant(state({**base, f"{CC}.custom_ops": ("none", "+rms_norm")}))
    assert not v._fuse_norm_quant(state({**base, f"{CC}.custom_ops": ("none",),
                                         "kernel_config.ir_op_priority.rms_norm": ("native",)}))
    assert v._fuse_act_quant(state({f"{CC}.custom_ops": ("all",)}))
    assert v._fuse_allreduce_rms(state({"parallel_config.tensor_parallel_size": 2, "platform.flashinfer_available": True},
                                       platform="cuda:9.0"))
    assert not v._fuse_allreduce_rms(state({"parallel_config.tensor_parallel_size": 2}, platform="cuda:9.0"))
    assert v._aiter(state(platform="cuda:9.0")) is None
    assert v._fuse_rope_kvcache_cat_mla(state({f"{CC}.use_inductor_graph_partition": True}))
    assert not v._fuse_act_padding(state({"kernel_config.ir_op_priority.fused_add_rms_norm": ("native",)}))
    assert v._fuse_qk_norm_rope_kvcache(state()) is False
    assert v._fuse_rope_kvcache(state()) is None


# ---------------------------------------------------------------- VllmConfig.__post_init__ steps


def test_enforce_eager_and_torch_compile_disable() -> None:
    r = r034({"model_config": {"model": LLAMA, "skip_tokenizer_init": True, "enforce_eager": True}})
    fired = {e.rule for e in r.trace.fired}
    assert {"compilation.enforce-eager", "cudagraph.eager-disables", "compilation.inductor-off-warning"} <= fired
    assert r.state[f"{CC}.cudagraph_capture_sizes"] == () and r.state["kernel_config.enable_jit_warmup"] is False
    assert changes(v.enforce_eager(state({"model_config": True, "model_config.enforce_eager": True,
                                          "parallel_config.enable_fault_tolerance": True}))) == {
        f"{CC}.mode": CompilationMode.NONE, f"{CC}.cudagraph_mode": CUDAGraphMode.NONE}
    out = r034(env={"TORCH_COMPILE_DISABLE": "1"})
    assert out.state[f"{CC}.mode"] == CompilationMode.NONE
    assert out.why(f"{CC}.mode").rule == "compilation.torch-compile-disable"
    assert v.torch_compile_disable(state()) is None


def test_breakable_cudagraph_from_the_environment() -> None:
    on = v.breakable_cudagraph(state({"env.VLLM_USE_BREAKABLE_CUDAGRAPH": "1",
                                      "env.explicit": ("VLLM_USE_BREAKABLE_CUDAGRAPH",)}))
    assert changes(on) == {f"{CC}.use_breakable_cudagraph": True, f"{CC}.mode": CompilationMode.NONE}
    assert changes(v.breakable_cudagraph(state())) == {f"{CC}.use_breakable_cudagraph": False}


def test_mode_defaults_and_torch_wrap() -> None:
    assert changes(v.default_mode(state({"optimization_level": 0}))) == {f"{CC}.mode": CompilationMode.NONE}
    assert v.default_mode(state({f"{CC}.mode": CompilationMode.NONE})) is None
    wrap = v.ir_enable_torch_wrap(state({f"{CC}.mode": CompilationMode.VLLM_COMPILE, f"{CC}.backend": "inductor"}))
    assert changes(wrap) == {f"{CC}.ir_enable_torch_wrap": True}
    assert isinstance(v.inductor_off_warning(state({f"{CC}.backend": "eager"})), Outcome)


def test_ir_op_priority_rules() -> None:
    s = state({f"{CC}.backend": "inductor", f"{CC}.mode": CompilationMode.NONE}, platform="cuda:9.0")
    out = v.ir_op_priority(s)
    assert changes(out)["kernel_config.ir_op_priority.rms_norm"] == ("vllm_c", "native")
    assert "user-defined: IrOpPriorityConfig(rms_norm=[]" in (out.message or "")
    rocm = v._platform_ir_priority(state(platform="rocm"))
    assert rocm["gelu_and_mul_sparse"] == ["native"]
    final = v.ir_op_priority_final(state({"kernel_config.ir_op_priority.rms_norm": ("native",)}))
    assert "rms_norm=['native']" in (final.message or "")


def test_async_scheduling_and_nccl() -> None:
    unset = {"scheduler_config.async_scheduling": None}  # 0.34.0's default (the kit's state holds the seed's)
    pool = state({**unset, "model_config": True, "model_config.runner_type": "pooling"})
    assert changes(v.async_scheduling_default(pool)) == {"scheduler_config.async_scheduling": False}
    ray = state({**unset, "parallel_config.distributed_executor_backend": "ray"})
    assert changes(v.async_scheduling_default(ray)) == {"scheduler_config.async_scheduling": False}
    explicit = v.async_scheduling_explicit(state({"scheduler_config.async_scheduling": True,
                                                  "parallel_config.distributed_executor_backend": "ray"}))
    assert isinstance(explicit, Violation) and "`ray` does not support async scheduling yet." in explicit.message
    dp = v.nccl_dp_sync_default(state({"scheduler_config.async_scheduling": True,
                                       "parallel_config.disable_nccl_for_dp_synchronization": None,
                                       "parallel_config.data_parallel_size": 2}))
    assert isinstance(dp, Outcome) and dp.message == "Disabling NCCL for DP synchronization when using async scheduling."
    assert changes(v.nccl_dp_sync_default(state({"scheduler_config.async_scheduling": False,
                                                 "parallel_config.disable_nccl_for_dp_synchronization": None}))) == {
        "parallel_config.disable_nccl_for_dp_synchronization": False}


def test_parallel_rules() -> None:
    assert isinstance(v.eplb_requirements(state({"parallel_config.eplb_config.num_redundant_experts": 2})),
                      Violation)
    assert isinstance(v.eplb_requirements(state({"parallel_config.enable_eplb": True}, platform="cpu")), Violation)
    assert changes(v.eplb_no_redundant_experts(state({"parallel_config.eplb_config.num_redundant_experts": None})))
    bad = v.dcp_divides_tp(state({"parallel_config.tensor_parallel_size": 4,
                                  "parallel_config.decode_context_parallel_size": 3}))
    assert isinstance(bad, Violation) and bad.message == "tp_size=4 must be divisible by dcp_size=3."
    assert isinstance(v.elastic_ep_max_dp_size(state({"parallel_config.enable_elastic_ep": True,
                                                      "parallel_config.elastic_ep_max_dp_size": 1,
                                                      "parallel_config.data_parallel_size": 2})), Violation)
    assert changes(v.data_parallel_index(state())) == {"parallel_config.data_parallel_index": 0}
    assert changes(v.dcp_defaults(state())) == {"parallel_config.dcp_comm_backend": "ag_rs",
                                                "parallel_config.dcp_q_replicate": False}
    moe = state({"model_config": True, "model_config.hf_text_config.n_routed_experts": 8})
    assert changes(v.model_is_moe(moe)) == {"model_config.is_moe": True}
    assert changes(v.parallel_is_moe_model(state({"model_config": True}))) == {"parallel_config.is_moe_model": False}
    dbo = v.dbo_requires_deepep(state({"parallel_config.enable_dbo": True}))
    assert isinstance(dbo, Violation) and "deepep_low_latency, deepep_high_throughput, nixl_ep all2all" in dbo.message
    assert v.dbo_requires_deepep(state({"parallel_config.enable_dbo": True,
                                        "parallel_config.all2all_backend": "allgather_reducescatter"},
                                       platform="rocm")) is None
    assert changes(v.batch_sharded_sampling_default(state())) == {"parallel_config.enable_batch_sharded_sampling": False}


def test_cuda_graph_mode_rules() -> None:
    piecewise = state({f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE, f"{CC}.mode": CompilationMode.NONE})
    out = v.normalize_piecewise(piecewise)
    assert isinstance(out, Outcome) and changes(out)[f"{CC}.cudagraph_mode"] == CUDAGraphMode.NONE
    assert out.message == "Cudagraph mode PIECEWISE is not compatible with compilation mode 0. Overriding to NONE."
    both = state({f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE, f"{CC}.mode": CompilationMode.NONE})
    assert changes(v.normalize_piecewise_after_platform(both)) == {
        f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_DECODE_ONLY}
    pool = state({"model_config": True, "model_config.pooler_config": True,
                  f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE})
    assert changes(v.pooling_forces_piecewise(pool)) == {f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    encdec = state({"model_config": True, "model_config.is_encoder_decoder": True,
                    f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE})
    assert changes(v.encoder_decoder_forces_piecewise(encdec)) == {
        f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_DECODE_ONLY}
    assert changes(v.no_static_graph_support(state(platform="cpu"))) == {f"{CC}.cudagraph_mode": CUDAGraphMode.NONE}
    assert changes(v.warmups(state())) == {f"{CC}.cudagraph_num_of_warmups": 1}
    assert v.eager_disables(state({"model_config": True, "model_config.enforce_eager": True})) is not None
    assert changes(v.fast_moe_cold_start(state())) == {f"{CC}.fast_moe_cold_start": False}
    late = v.piecewise_needs_vllm_compile(state({f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE,
                                                 f"{CC}.mode": CompilationMode.NONE}))
    assert isinstance(late, Violation) and late.error == "AssertionError"


def test_capture_sizes() -> None:
    base = {"model_config": True, f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE,
            "scheduler_config.max_num_seqs": 128, "scheduler_config.max_num_batched_tokens": 2048}
    out = changes(v.capture_sizes(state(base, platform="cuda:9.0")))
    assert out[f"{CC}.max_cudagraph_capture_size"] == 256
    assert out[f"{CC}.decode_cudagraph_capture_request_sizes"][-1] == 128
    wide = changes(v.capture_sizes(state(base, platform="cuda:10.0")))
    assert wide[f"{CC}.max_decode_cudagraph_capture_tokens"] == 8192
    assert wide[f"{CC}.prefill_cudagraph_capture_token_sizes"] == tuple(v.prefill_grid(2048))
    legacy = v.capture_sizes(state({**base, f"{CC}.cudagraph_capture_sizes": (1, 2, 4096)}, platform="cuda:9.0"))
    assert isinstance(legacy, Outcome) and "is overridden by config [1, 2]" in (legacy.message or "")
    assert "deprecated" in (legacy.message or "")
    none = changes(v.capture_sizes(state({**base, f"{CC}.cudagraph_mode": CUDAGraphMode.NONE})))
    assert none == {f"{CC}.max_cudagraph_capture_size": 0, f"{CC}.cudagraph_capture_sizes": ()}
    assert v.decode_grid(8) == [1, 2, 3, 4, 5, 6, 8] and v.decode_shapes([1, 2, 4], {1: 2}, 100) == [(1, 1), (2, 1)]


def test_capture_sizes_cover_speculative_and_diffusion_decodes() -> None:
    """A diffusion model's canvas is its decode query length (65 tokens per request at canvas 64); adaptive
    verification adds its mixed-length token grid; EAGLE with k >= 2 adds its one-token draft steps, a chain of
    MTP modules does not."""
    base = {"model_config": True, f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE,
            "scheduler_config.max_num_seqs": 128, "scheduler_config.max_num_batched_tokens": 2048}
    canvas = changes(v.capture_sizes(state({**base, "diffusion_config": True, "diffusion_config.canvas_length": 64},
                                           platform="cuda:9.0", version="0.34.0")))
    assert canvas[f"{CC}.decode_cudagraph_capture_request_sizes"] == (1, 2, 3, 4, 5, 6, 7)
    assert {65, 130, 195, 455} <= set(canvas[f"{CC}.cudagraph_capture_sizes"])
    spec = {**base, "speculative_config": True, "speculative_config.method": "ngram",
            "speculative_config.num_speculative_tokens": 3}
    plain = set(changes(v.capture_sizes(state(spec, platform="cuda:9.0", version="0.34.0")))[f"{CC}.cudagraph_capture_sizes"])
    adaptive = changes(v.capture_sizes(state({**spec, "speculative_config.enable_adaptive_verification": True},
                                             platform="cuda:9.0", version="0.34.0")))[f"{CC}.cudagraph_capture_sizes"]
    assert set(adaptive) - plain == {10, 12, 14, 20, 28} and v.varlen_decode_grid(20) == [1, 2, 4, 8, 10, 12, 14, 16, 20]
    eagle = {**spec, "speculative_config.method": "eagle"}
    one_token = set(changes(v.capture_sizes(state(eagle, version="0.34.0")))[f"{CC}.cudagraph_capture_sizes"])
    assert {3, 5, 6} <= one_token
    mtp = {**spec, "speculative_config.method": "mtp", "model_config.hf_text_config.num_nextn_predict_layers": 3}
    chained = set(changes(v.capture_sizes(state(mtp, version="0.34.0")))[f"{CC}.cudagraph_capture_sizes"])
    assert not {3, 5, 6} & chained


def test_a_diffusion_model_runs_the_diffusion_scheduler() -> None:
    """DiffusionAsyncScheduler under async scheduling, DiffusionScheduler without; a named class is kept."""
    d = {"diffusion_config": True, "scheduler_config.async_scheduling": True}
    assert changes(v.diffusion_scheduler(state(d))) == {
        "scheduler_config.scheduler_cls": "vllm.v1.core.sched.diffusion_scheduler.DiffusionAsyncScheduler"}
    assert changes(v.diffusion_scheduler(state({**d, "scheduler_config.async_scheduling": False}))) == {
        "scheduler_config.scheduler_cls": "vllm.v1.core.sched.diffusion_scheduler.DiffusionScheduler"}
    assert v.diffusion_scheduler(state({**d, "scheduler_config.scheduler_cls": "my.Scheduler"})) is None
    assert v.diffusion_scheduler(state({"scheduler_config.async_scheduling": True})) is None


def test_final_steps() -> None:
    assert changes(v.splitting_ops(state({f"{CC}.mode": CompilationMode.NONE}))) == {f"{CC}.splitting_ops": ()}
    empty = v.splitting_ops(state({f"{CC}.mode": CompilationMode.VLLM_COMPILE, f"{CC}.splitting_ops": (),
                                   f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE}))
    assert changes(empty) == {f"{CC}.cudagraph_mode": CUDAGraphMode.NONE}
    ranges = v.compile_ranges(state({"scheduler_config.max_num_batched_tokens": 8192,
                                     f"{CC}.compile_ranges_endpoints": (1, 512, 9000)}))
    assert changes(ranges) == {f"{CC}.compile_ranges_endpoints": (512, 8192)}
    assert changes(v.extensible_kv_cache(state(platform="cpu"))) == {"cache_config.enable_extensible_kv_cache": False}
    asked = v.extensible_kv_cache(state({"cache_config.enable_extensible_kv_cache": True,
                                         "cache_config.kv_cache_memory_bytes": 1 << 30}, platform="cuda:9.0"))
    assert isinstance(asked, Violation)
    hma = {"scheduler_config.disable_hybrid_kv_cache_manager": None}
    example = v.hybrid_kv_cache_manager(state({**hma, "kv_transfer_config": True,
                                               "kv_transfer_config.kv_connector": "ExampleConnector"}))
    assert changes(example) == {"scheduler_config.disable_hybrid_kv_cache_manager": True}
    nixl = v.hybrid_kv_cache_manager(state({**hma, "kv_transfer_config": True,
                                            "kv_transfer_config.kv_connector": "NixlConnector"}))
    assert changes(nixl) == {"scheduler_config.disable_hybrid_kv_cache_manager": False}
    chunked = {"model_config": True, "model_config.attention_chunk_size": 8192,
               "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": False}
    assert isinstance(v.hybrid_kv_cache_manager(state({**chunked,
                                                       "scheduler_config.disable_hybrid_kv_cache_manager": False})),
                      Violation)
    assert changes(v.sparse_mla_workspace_factor(state({"model_config": True, "model_config.max_model_len": 1 << 20})))
    off = v.kv_offloading(state({"cache_config.kv_offloading_size": 2.0, "cache_config.kv_offloading_backend": "native"}))
    assert changes(off)["kv_transfer_config.kv_connector"] == "OffloadingConnector"
    assert changes(off)["kv_transfer_config.kv_connector_extra_config"] == {"cpu_bytes_to_use": 2.0 * (1 << 30)}


@pytest.mark.parametrize(("env", "want"), [({}, False), ({"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"},
                                                          True)])
def test_envs_defaults_of_0_34_0(env: dict[str, str], want: bool) -> None:
    """0.34.0's envs.py defaults VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE to 1 (0.11.1: 0)."""
    r = r034(env=env)
    assert r.state["env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"] is (not want)


# ---------------------------------------------------------------- EngineArgs (argv mode)


def test_engine_args_support_and_defaults() -> None:
    """`vllm serve llama`: both support records, then the defaults; the budget tiers of 0.34.0."""
    r = postinit.resolve(argv=[LLAMA], platform="cuda:8.0", vllm_version="0.34.0")
    texts = [e.message for e in r.messages()]
    for text in ("Generative models support chunked prefill.\nGenerative models support prefix caching.",
                 "Enabling chunked prefill by default", "Enabling prefix caching by default"):
        assert text in texts, text
    assert r.state["scheduler_config.max_num_seqs"] == 256  # 0.11.1: 256 too; 0.34.0's tiers checked below
    assert r.why("cache_config.enable_prefix_caching").rule == "engine-args.prefix-caching-default"
    ea = {"usage.via_engine_args": True, "usage.usage_context": "OPENAI_API_SERVER", "model_config.max_model_len": 4096,
          "scheduler_config.enable_chunked_prefill": True}
    huge = changes(v.batch_defaults_large_gpu(state(ea, platform="b200")))
    assert huge == {"scheduler_config.max_num_batched_tokens": 16384, "scheduler_config.max_num_seqs": 1024}
    fast = changes(v.batch_defaults_other_device(state({**ea, "performance_mode": "throughput"}, platform="a100")))
    assert fast == {"scheduler_config.max_num_batched_tokens": 4096, "scheduler_config.max_num_seqs": 512}
    cpu = changes(v.batch_defaults_cpu(state(ea, platform="cpu")))
    assert cpu == {"scheduler_config.max_num_batched_tokens": 2048, "scheduler_config.max_num_seqs": 128}
    hybrid = {**ea, "model_config": True, "model_config.is_hybrid": True, "model_config.attn_type": "hybrid",
              "cache_config.enable_prefix_caching": None}
    assert changes(v.prefix_caching_default(state(hybrid))) == {"cache_config.enable_prefix_caching": True}
    assert "Generative hybrid models support prefix caching." in (
        v.chunked_prefill_prefix_caching_support(state(hybrid)).message or "")
    off = {**ea, "model_config": True, "model_config.runner_type": "generate",
           "scheduler_config.enable_chunked_prefill": False}
    assert "does not officially support disabling chunked prefill" in (
        v.pooling_chunked_prefill_warning(state(off)).message or "")
    pool = {**ea, "model_config": True, "model_config.runner_type": "pooling", "model_config.pooler_config": True,
            "model_config.pooler_config.seq_pooling_type": "CLS", "model_config.attn_type": "encoder_only",
            "scheduler_config.enable_chunked_prefill": None}
    assert changes(v.chunked_prefill_default(state(pool))) == {"scheduler_config.enable_chunked_prefill": False}
    assert v.pooling_prefix_caching_warning(state({**pool, "cache_config.enable_prefix_caching": True})) is not None


def test_connectors_custom_ops_and_logs() -> None:
    shared = {"kv_transfer_config": True, "kv_transfer_config.kv_connector": "SharedStorageConnector",
              "kv_transfer_config.kv_role": "kv_both", f"{CC}.cudagraph_mode": CUDAGraphMode.FULL}
    bad = v.connector_class_for_graphs(state(shared))
    assert isinstance(bad, Violation) and bad.message == "Unsupported connector type: SharedStorageConnector"
    ext = {**shared, "cache_config.enable_extensible_kv_cache": None}
    assert isinstance(v.extensible_kv_cache(state(ext)), Violation)  # the lookup of cache access fails too
    assert v.connector_class_for_graphs(state({**shared, "kv_transfer_config.kv_connector": "ExampleConnector"})) is None
    blocked = {"quant_config": True, "quant_config.method": "fp8", "quant_config.weight_block_size": (128, 128),
               f"{CC}.custom_ops": ("none",)}
    assert changes(v.blocked_fp8_adds_quant_fp8_early(state(blocked))) == {f"{CC}.custom_ops": ("none", "+quant_fp8")}
    rocm = changes(v.rocm_config_platform_defaults(state({"model_config": True}, platform="rocm")))
    assert rocm == {f"{CC}.custom_ops": ("+sparse_attn_indexer", "+rms_norm_gated")}
    logged = v.log_enabled_passes(state({f"{PC}.fuse_norm_quant": True, f"{PC}.fuse_act_quant": True}))
    assert logged is not None and logged.message == "Enabled custom fusions: norm_quant, act_quant"
    assert changes(v.model_is_quantized(state({"model_config": True,
                                               "model_config.hf_config.quantization_config": {"quant_method": "fp8"}})))
    mode = v.performance_mode(state({"performance_mode": "interactivity"}))
    assert isinstance(mode, Outcome) and mode.args == {"mode": "interactivity"}


# ---------------------------------------------------------------- the command line of 0.34.0


def test_minus_o_is_the_optimization_level_in_0_34_0() -> None:
    """-O3 is the optimisation level in 0.34.0 (the compilation mode in 0.11.1); -cc is the compilation config;
    flags 0.34.0 removed are refused as its argparse refuses them."""
    new = postinit.resolve(argv=["-O", "0"], vllm_version="0.34.0")
    assert new.state["optimization_level"] == 0 and new.state[f"{CC}.mode"] == CompilationMode.NONE
    old = postinit.resolve(argv=["-O0"], vllm_version="0.11.1")
    assert old.state[f"{CC}.mode"] == CompilationMode.NONE and "optimization_level" in postinit.rules.versions.absent_paths(
        "0.11.1")
    cc = postinit.resolve(argv=["-cc.mode=2", "--performance-mode", "throughput"], vllm_version="0.34.0")
    assert cc.state[f"{CC}.mode"] == CompilationMode.DYNAMO_TRACE_ONCE and cc.state["performance_mode"] == "throughput"
    with pytest.raises(postinit.InputError, match="unknown flag '--task'") as info:
        postinit.resolve(argv=["--task", "generate"], vllm_version="0.34.0")
    # without a model, `vllm serve`'s positional model_tag takes 'generate' (it is no unrecognized argument)
    assert info.value.vllm_message == "unrecognized arguments: --task"
    with pytest.raises(postinit.InputError, match="unknown flag '-cc'"):
        postinit.resolve(argv=["-cc.mode=2"], vllm_version="0.11.1")


def test_parallel_executor_and_kv_buffer_device() -> None:
    many = {"parallel_config.world_size": 16, "parallel_config.tensor_parallel_size": 16}
    too_big = v.executor_backend_multi(state(many, platform="h100"))
    assert isinstance(too_big, Violation) and too_big.message.startswith("World size (16) is larger than the number")
    dp = v.executor_backend_multi(state({"parallel_config.data_parallel_size": 2}))
    assert changes(dp) == {"parallel_config.distributed_executor_backend": "mp"}
    assert isinstance(v.nnodes_needs_mp(state({"parallel_config.nnodes": 2,
                                               "parallel_config.distributed_executor_backend": "ray"})), Violation)
    kvt = {"kv_transfer_config": True, "kv_transfer_config.kv_buffer_device": None}
    assert changes(v.kv_buffer_device_default(state(kvt, platform="cpu"))) == {
        "kv_transfer_config.kv_buffer_device": "cpu"}


def test_cpu_hook_of_0_34_0() -> None:
    r = postinit.resolve(model=LLAMA, platform="cpu", vllm_version="0.34.0", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    s = r.state
    assert s["scheduler_config.async_scheduling"] is False and s[f"{CC}.mode"] == CompilationMode.DYNAMO_TRACE_ONCE
    assert s["cache_config.kv_cache_memory_bytes"] == 4 << 30 and s[f"{CC}.ir_enable_torch_wrap"] is False
    assert "combo_kernels" not in s[f"{CC}.inductor_compile_config"]
    assert s["profiler_config.torch_profiler_dump_cuda_time_total"] is False
    assert s["cache_config.mamba_ssm_cache_dtype"] == "float32"
    assert s["parallel_config.distributed_executor_backend"] == "mp"
    assert r.why("cache_config.mamba_ssm_cache_dtype").rule == "cpu.mamba-ssm-cache-float32"
    for fn in (v.cpu_async_scheduling_off, v.cpu_kv_cache_memory_bytes, v.cpu_profiler_no_cuda_time,
               v.cpu_compile_mode_dynamo_trace_once, v.cpu_executor_backend_mp, v.cpu_mamba_ssm_cache_float32):
        assert fn(state(platform="cuda:9.0")) is None, fn.__name__
    assert changes(v.inductor_combo_kernels(state(platform="cuda:9.0")))


def test_spec_scheduled_tokens_and_the_inductor_warning_timing() -> None:
    spec = {"speculative_config": True, "scheduler_config.max_num_batched_tokens": 2048}
    out = v.max_num_scheduled_tokens(state(spec))
    assert changes(out) == {"scheduler_config.max_num_scheduled_tokens": 2048}
    assert "This may lead to suboptimal performance" in (out.message or "")
    assert isinstance(v.max_num_scheduled_tokens(state({**spec, "scheduler_config.max_num_scheduled_tokens": 0})),
                      Violation)
    # -O0 sets the mode only after the warning's step: vLLM does not warn; --enforce-eager does
    level0 = postinit.resolve(argv=[LLAMA, "-O0"], vllm_version="0.34.0")
    assert not [e for e in level0.messages() if e.rule == "compilation.inductor-off-warning"]
    eager = postinit.resolve(argv=[LLAMA, "--enforce-eager"], vllm_version="0.34.0")
    assert [e for e in eager.messages() if e.rule == "compilation.inductor-off-warning"]


# ---------------------------------------------------------------- v034core: the optimization level, breakable graphs


def test_optimization_level_text_is_refused_by_vllm_config() -> None:
    """`-O.mode=3` (0.11's spelling) reaches VllmConfig as the level ".mode=3": pydantic's enum error, after the
    sub-configs were built; `-O3` and "03" are the level 3."""
    r = postinit.resolve(argv=["-O.mode=3"], vllm_version="0.34.0")
    assert r.error is not None and r.error.type == "ValidationError" and r.error.stage == "vllm_config"
    assert "Input should be 0, 1, 2 or 3 [type=enum, input_value='.mode=3', input_type=str]" in r.error.message
    assert postinit.resolve(argv=["-O03"], vllm_version="0.34.0").state["optimization_level"] == 3
    assert v.optimization_level(state({"optimization_level": 2})) is None
    five = v.optimization_level(state({"optimization_level": 5}))
    assert isinstance(five, Violation) and "input_value=5, input_type=int" in five.message


def test_repeated_flags_warn_in_0_34_0() -> None:
    """0.34.0's parser notes a --flag given twice (the last value wins)."""
    r = postinit.resolve(argv=["-O1", "-O2"], vllm_version="0.34.0")
    assert "Found duplicate keys --optimization-level" in [n.message for n in r.notes]
    assert r.state["optimization_level"] == 2
    assert not [n for n in postinit.resolve(argv=["-O2"], vllm_version="0.34.0").notes
                if n.message.startswith("Found duplicate")]


def test_breakable_cudagraph_defaults() -> None:
    """Only VLLM_USE_BREAKABLE_CUDAGRAPH=1 enables them; unset, the model's architecture or tuned batch-invariant
    shapes decide."""
    off = v.breakable_cudagraph(state({"env.VLLM_USE_BREAKABLE_CUDAGRAPH": "0",
                                       "env.explicit": ("VLLM_USE_BREAKABLE_CUDAGRAPH",)}))
    assert changes(off) == {f"{CC}.use_breakable_cudagraph": False}
    arch = state({"model_config": True, "model_config.architectures": ("KimiLinearForCausalLM",)}, platform="cuda:9.0")
    out = v.breakable_cudagraph(arch)
    assert changes(out)[f"{CC}.use_breakable_cudagraph"] is True and "Auto-enabling" in (out.message or "")
    qwen35 = {"model_config": True, "model_config.architectures": ("Qwen3_5ForCausalLM",)}
    assert changes(v.breakable_cudagraph(state(qwen35, platform="cuda:9.0")))[f"{CC}.use_breakable_cudagraph"]
    assert changes(v.breakable_cudagraph(state(qwen35, platform="rocm"))) == {f"{CC}.use_breakable_cudagraph": False}
    llama = {"model_config": True, "model_config.dtype": "bfloat16", "env.VLLM_BATCH_INVARIANT": 1,
             "model_config.hf_text_config.hidden_size": 4096, "model_config.hf_text_config.num_attention_heads": 32,
             "model_config.hf_text_config.num_key_value_heads": 8,
             "model_config.hf_text_config.intermediate_size": 14336}
    bi = v.breakable_cudagraph(state(llama, platform="cuda:9.0"))
    assert changes(bi)[f"{CC}.use_breakable_cudagraph"] is True and "VLLM_BATCH_INVARIANT=1" in (bi.message or "")
    assert changes(v.breakable_cudagraph(state(llama, platform="cuda:8.0"))) == {
        f"{CC}.use_breakable_cudagraph": False}


def test_torch_compile_disable_needs_1() -> None:
    assert v.torch_compile_disable(state({"env.TORCH_COMPILE_DISABLE": "0"})) is None
    assert changes(v.torch_compile_disable(state({"env.TORCH_COMPILE_DISABLE": "1"}))) == {
        f"{CC}.mode": CompilationMode.NONE}


def test_normalize_keeps_the_decode_full_graphs() -> None:
    """FULL_AND_PIECEWISE without VLLM_COMPILE becomes FULL_DECODE_ONLY (CUDAGraphMode.without_piecewise)."""
    out = v.normalize_piecewise(state({f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE,
                                       f"{CC}.mode": CompilationMode.DYNAMO_TRACE_ONCE}))
    assert isinstance(out, Outcome) and changes(out) == {f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_DECODE_ONLY}
    assert out.message == ("Cudagraph mode FULL_AND_PIECEWISE is not compatible with compilation mode 2. "
                           "Overriding to FULL_DECODE_ONLY.")
    assert v.normalize_piecewise(state({f"{CC}.cudagraph_mode": CUDAGraphMode.FULL,
                                        f"{CC}.mode": CompilationMode.NONE})) is None


# ---------------------------------------------------------------- v034core: SchedulerConfig, ParallelConfig


def test_scheduler_checks_read_the_models_max_model_len() -> None:
    tight = {"model_config": True, "model_config.max_model_len": 4096, "scheduler_config.max_num_batched_tokens": 2048,
             "scheduler_config.enable_chunked_prefill": False}
    bad = v.budget_below_max_model_len(state(tight))
    assert isinstance(bad, Violation) and bad.message.startswith(
        "max_num_batched_tokens (2048) is smaller than max_model_len (4096).")
    assert v.budget_below_max_model_len(state({**tight, "scheduler_config.enable_chunked_prefill": True})) is None
    no_model = state({"scheduler_config.max_num_batched_tokens": 4096, "scheduler_config.enable_chunked_prefill": False})
    assert isinstance(v.budget_below_max_model_len(no_model), Violation)  # default_factory's 8192
    active = v.max_num_active_seqs(state({"scheduler_config.max_num_active_seqs": 300, "scheduler_config.max_num_seqs": 256}))
    assert isinstance(active, Violation) and active.message == (
        "max_num_active_seqs (300) cannot be greater than max_num_seqs (256).")
    assert v.max_num_active_seqs(state({"scheduler_config.max_num_active_seqs": 8, "scheduler_config.max_num_seqs": 8})) is None
    warn = v.budget_exceeds_seqs_times_len(state({"model_config": True, "model_config.max_model_len": 16,
                                                  "scheduler_config.max_num_seqs": 2,
                                                  "scheduler_config.max_num_batched_tokens": 64}))
    assert isinstance(warn, Outcome) and warn.message == (
        "max_num_batched_tokens (64) exceeds max_num_seqs * max_model_len (32). This may lead to unexpected behavior.")
    assert v.budget_exceeds_seqs_times_len(state({"scheduler_config.max_num_batched_tokens": 2048,
                                                  "scheduler_config.max_num_seqs": 128})) is None
    long = v.long_prefill_threshold_max(state({"model_config": True, "model_config.max_model_len": 100,
                                               "scheduler_config.long_prefill_token_threshold": 200}))
    assert isinstance(long, Violation) and "cannot be greater than the max_model_len (100)" in long.message
    assert v.long_prefill_threshold_max(state({"scheduler_config.long_prefill_token_threshold": 200})) is None


def test_parallel_config_0_34_0() -> None:
    pcp = state({"parallel_config.tensor_parallel_size": 2, "parallel_config.prefill_context_parallel_size": 2})
    assert changes(v.world_size(pcp)) == {"parallel_config.world_size": 4}
    ext = v.world_size(state({"parallel_config.distributed_executor_backend": "external_launcher",
                              "parallel_config.data_parallel_size": 2}))
    assert changes(ext) == {"parallel_config.world_size": 2} and isinstance(ext, Outcome) and ext.args is not None
    naive = v.all2all_removed_backends(state({"parallel_config.all2all_backend": "naive"}))
    assert changes(naive) == {"parallel_config.all2all_backend": "allgather_reducescatter"}
    assert naive.message == "The 'naive' all2all backend has been removed. Falling back to 'allgather_reducescatter'."
    assert v.all2all_removed_backends(state({"parallel_config.all2all_backend": "deepep_low_latency"})) is None
    elastic = v.elastic_ep_requirements(state({"parallel_config.enable_elastic_ep": True}))
    assert isinstance(elastic, Violation) and elastic.message == "Elastic EP is only supported with enable_eplb=True."
    assert v.elastic_ep_requirements(state()) is None
    assert isinstance(v.numa_bind(state({"parallel_config.numa_bind_nodes": (0,), "parallel_config.numa_bind": False})),
                      Violation)
    assert changes(v.numa_bind(state({"parallel_config.numa_bind_cpus": ("0-3",)}))) == {"parallel_config.numa_bind": True}
    assert v.numa_bind(state()) is None
    cpus = v.numa_bind_lists(state({"parallel_config.numa_bind_cpus": ("3-1",)}))
    assert isinstance(cpus, Violation) and cpus.message == "numa_bind_cpus ranges must be ascending, but got '3-1'."
    assert v.numa_bind_lists(state({"parallel_config.numa_bind_nodes": (0, 1)})) is None
    assert changes(v.eplb_communicator(state({"parallel_config.enable_eplb": True}))) == {
        "parallel_config.eplb_config.communicator": "torch_gloo"}
    assert v.eplb_communicator(state()) is None
    ray = v.ray_available(state({"parallel_config.distributed_executor_backend": "ray"}))
    assert isinstance(ray, Violation) and ray.message.startswith("Failed to import Ray: No module named 'ray'.")
    assert v.ray_available(state({"parallel_config.distributed_executor_backend": "mp"})) is None
    low = v.dbo_thresholds(state({"parallel_config.enable_dbo": True, "parallel_config.dbo_decode_token_threshold": 1}))
    assert isinstance(low, Violation) and "at least the number of microbatches (2)" in low.message
    assert v.dbo_thresholds(state({"parallel_config.enable_dbo": True})) is None


def test_dcp_checks_are_value_errors_in_0_34_0() -> None:
    r = postinit.resolve(argv=["-tp", "2", "-dcp", "2"], model=LLAMA, vllm_version="0.34.0")
    assert r.error is not None and r.error.type == "ValueError"
    assert r.error.message.startswith("Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (2)")


# ---------------------------------------------------------------- v034core: finalize steps, connectors, CPU


def test_stock_compile_and_model_runner() -> None:
    stock = state({f"{CC}.mode": CompilationMode.STOCK_TORCH_COMPILE, f"{CC}.cudagraph_mode": CUDAGraphMode.FULL})
    out = v.stock_compile_disables(stock)
    assert changes(out)[f"{CC}.cudagraph_mode"] == CUDAGraphMode.NONE and out.message == (
        "CUDA graphs are not supported with stock torch.compile. Overriding cudagraph_mode FULL to NONE.")
    assert v.stock_compile_disables(state({f"{CC}.mode": CompilationMode.DYNAMO_TRACE_ONCE,
                                           f"{CC}.cudagraph_mode": CUDAGraphMode.FULL})) is None
    dbo = state({"parallel_config.enable_dbo": True, "model_config": True, "model_config.is_hybrid": True,
                 f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE})
    bad = v.model_runner(dbo)
    assert isinstance(bad, Violation) and bad.message == (
        "The GPU model runner does not support: dual batch overlap with hybrid models, dual batch overlap with "
        "PIECEWISE CUDA graphs")
    assert v.model_runner(state({"parallel_config.enable_dbo": True})) is None
    arm = state({"speculative_config": True, "platform.triton_available": False, "platform.cpu_arch": "aarch64"},
                platform="cpu")
    cpu = v.model_runner(arm)
    assert isinstance(cpu, Violation) and cpu.message == (
        "The CPU model runner without Triton does not yet support: speculative decoding")


def test_cpu_hook_0_34_0() -> None:
    no_triton = v.cpu_triton_required(state({"platform.triton_available": False}, platform="cpu"))
    assert isinstance(no_triton, Violation) and no_triton.error == "RuntimeError"
    assert v.cpu_triton_required(state(platform="cpu")) is None
    mla = {"model_config": True, "model_config.use_mla": True, "model_config.max_model_len": 4096}
    assert v.cpu_mla_disables_chunked_prefill(state(mla, platform="cpu")) is None  # AMX MLA chunks prefills
    ref = v.cpu_mla_disables_chunked_prefill(state({**mla, "platform.cpu_amx": False}, platform="cpu"))
    assert changes(ref) == {"scheduler_config.enable_chunked_prefill": False,
                            "cache_config.enable_prefix_caching": False,
                            "scheduler_config.max_num_batched_tokens": 4096}
    block = v.cpu_block_size(state({**mla, "platform.cpu_amx": False, "cache_config.block_size": 64,
                                    "cache_config.user_specified_block_size": True}, platform="cpu"))
    assert changes(block) == {"cache_config.block_size": 16} and "overriding user-specified block_size=64" in (
        block.message or "")
    odd = v.cpu_block_size(state({"cache_config.block_size": 48, "cache_config.user_specified_block_size": True},
                                 platform="cpu"))
    assert isinstance(odd, Outcome) and not odd.changes and "multiples of 32" in (odd.message or "")
    assert v.cpu_block_size(state({"cache_config.block_size": 48}, platform="cpu")) is None  # not the user's
    assert changes(v.cache_block_size_default(state())) == {"cache_config.block_size": 64,
                                                           "cache_config.user_specified_block_size": False}
    assert changes(v.cache_block_size_default(state({"cache_config.block_size": 16}))) == {
        "cache_config.user_specified_block_size": True}
    assert v.cpu_mamba_ssm_cache_float32(state({"platform.cpu_avx512_bf16": False}, platform="cpu")) is None


def test_cpu_ssm_backend_reads_the_transformers_layer_schedule() -> None:
    """vLLM's CPU hook names the SSM backend from ``layer_types``, which transformers 5 derives from each config's
    own fields when config.json gives none: Bamba (served by the Transformers backend on CPU, no inner state) has
    linear-attention layers unless its attention indices take every layer."""
    def backend(model: str, **text: object) -> str:
        s = {"model_config": True, "platform.cpu_avx512_bf16": True,
             "model_config.hf_text_config.model_type": model, "model_config.has_inner_state": False,
             "cache_config.mamba_ssm_cache_dtype": "auto", **{f"model_config.hf_text_config.{k}": x
                                                               for k, x in text.items()}}
        out = v.cpu_mamba_ssm_cache_float32(state(s, platform="cpu"))
        assert out is not None and out.message is not None
        return out.message.rsplit("'", 2)[1]

    assert backend("bamba", num_hidden_layers=4, other={"attn_layer_indices": [1, 3]}) == "bamba"
    assert backend("bamba", num_hidden_layers=2, other={"attn_layer_indices": [0, 1]}) == "none"
    assert backend("jamba", num_hidden_layers=4, attn_layer_period=1, attn_layer_offset=0) == "none"
    assert backend("jamba", num_hidden_layers=4, attn_layer_period=4, attn_layer_offset=2) == "jamba"
    assert backend("nemotron_h", num_hidden_layers=2, hybrid_override_pattern="*-") == "none"
    assert backend("nemotron_h", num_hidden_layers=4, hybrid_override_pattern="M*ME") == "nemotron_h"
    assert backend("qwen3_next", num_hidden_layers=1, full_attention_interval=1) == "none"
    assert backend("llama", num_hidden_layers=4) == "none"


def test_cpu_ssm_backend_compares_the_class_state_dtype() -> None:
    """A half SSM cache keeps the accelerated GDN backend only where the model class's temporal state has that
    dtype: not Nemotron-H with ReplaySSM (the ring makes four dtypes, golden k1105), nor ZAYA1 unless the cache
    dtype is its conv state's (the model dtype, golden k1106/k1107)."""
    def backend(arch: str, dtype: str, **more: object) -> str:
        s = {"model_config": True, "platform.cpu_avx512_bf16": True, "model_config.architecture": arch,
             "model_config.hf_text_config.model_type": arch.lower(), "model_config.has_inner_state": True,
             "model_config.hf_text_config.layer_types": ["linear_attention", "full_attention"],
             "model_config.dtype": "bfloat16", "cache_config.mamba_ssm_cache_dtype": dtype, **more}
        out = v.cpu_mamba_ssm_cache_float32(state(s, platform="cpu"))
        assert out is not None and out.message is not None
        return "gdn" if "GDN backend." in out.message else out.message.rsplit("'", 2)[1]

    assert backend("NemotronHForCausalLM", "bfloat16") == "gdn"
    assert backend("NemotronHForCausalLM", "bfloat16", **{"cache_config.use_replayssm": True}) == \
        "nemotronhforcausallm"
    assert backend("ZayaForCausalLM", "bfloat16") == "gdn"
    assert backend("ZayaForCausalLM", "float16") == "zayaforcausallm"
    assert backend("ZayaForCausalLM", "float16", **{"cache_config.mamba_cache_dtype": "float16"}) == "gdn"


def test_kv_connectors() -> None:
    kvt = {"kv_transfer_config": True, "kv_transfer_config.kv_role": "kv_both"}
    lm = state({**kvt, "kv_transfer_config.kv_connector": "LMCacheConnectorV1",
                "kv_transfer_config.kv_connector_extra_config": {"use_layerwise": True},
                f"{CC}.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE})
    out = v.connector_class_for_graphs(lm)
    assert changes(out) == {f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    assert "KV connector LMCacheConnectorV1 requires PIECEWISE" in (out.message or "")
    unknown = v.connector_class_for_graphs(state({**kvt, "kv_transfer_config.kv_connector": "SharedStorageConnector",
                                                  f"{CC}.cudagraph_mode": CUDAGraphMode.FULL}))
    assert isinstance(unknown, Violation) and unknown.message == "Unsupported connector type: SharedStorageConnector"
    assert v.connector_class_for_graphs(state({**kvt, "kv_transfer_config.kv_connector": "NixlConnector",
                                               f"{CC}.cudagraph_mode": CUDAGraphMode.FULL})) is None
    nixl = v.extensible_kv_cache(state({**kvt, "kv_transfer_config.kv_connector": "NixlConnector",
                                        "kv_transfer_config.kv_buffer_device": "cuda",
                                        "cache_config.enable_extensible_kv_cache": None}))
    assert changes(nixl) == {"cache_config.enable_extensible_kv_cache": False}
    assert (nixl.message or "").startswith("Extensible KV cache off: without an IMEX channel")
    lmcache = v.extensible_kv_cache(state({**kvt, "kv_transfer_config.kv_connector": "LMCacheMPConnector",
                                           "cache_config.enable_extensible_kv_cache": True}))
    assert isinstance(lmcache, Violation) and "legacy CUDA IPC" in lmcache.message
    assert changes(v.extensible_kv_cache(state({"cache_config.enable_extensible_kv_cache": None}))) == {
        "cache_config.enable_extensible_kv_cache": True}
    sleep = state({**kvt, "kv_transfer_config.kv_connector": "MoRIIOConnector", "model_config": True,
                   "model_config.enable_sleep_mode": True})
    assert isinstance(v.kv_transfer_sleep_mode(sleep), Violation)
    assert v.kv_transfer_sleep_mode(state({**kvt, "kv_transfer_config.kv_connector": "OffloadingConnector",
                                           "model_config": True, "model_config.enable_sleep_mode": True})) is None
    multi = {**kvt, "kv_transfer_config.kv_connector": "MultiConnector", "scheduler_config.disable_hybrid_kv_cache_manager": None,
             "kv_transfer_config.kv_connector_extra_config": {"connectors": [{"kv_connector": "NixlConnector"},
                                                                             {"kv_connector": "ExampleConnector"}]}}
    hma = v.hybrid_kv_cache_manager(state(multi))
    assert changes(hma) == {"scheduler_config.disable_hybrid_kv_cache_manager": True}
    nixl_dcp = v.nixl_dcp(state({**kvt, "kv_transfer_config.kv_connector": "NixlConnector",
                                 "parallel_config.decode_context_parallel_size": 2,
                                 "parallel_config.tensor_parallel_size": 4}))
    assert isinstance(nixl_dcp, Violation) and nixl_dcp.error == "AssertionError"
    assert v.nixl_dcp(state({**kvt, "kv_transfer_config.kv_connector": "NixlConnector"})) is None


def test_kv_offloading_runs_after_the_splitting_ops() -> None:
    r = postinit.resolve(argv=["--kv-offloading-size", "4"], model=LLAMA, vllm_version="0.34.0", platform="cpu")
    assert r.state["kv_transfer_config.kv_connector"] == "OffloadingConnector"
    assert r.state["kv_transfer_config.kv_buffer_device"] == "cpu"
    assert v.kv_offloading(state()) is None


def test_compile_ranges_with_flashinfer_limits() -> None:
    base = {"scheduler_config.max_num_batched_tokens": 8192, "model_config": True, "model_config.dtype": "bfloat16",
            "model_config.hf_text_config.hidden_size": 4096, "parallel_config.tensor_parallel_size": 8,
            f"{PC}.fuse_allreduce_rms": True}
    out = v.compile_ranges(state(base, platform="cuda:9.0"))
    assert changes(out) == {f"{CC}.compile_ranges_endpoints": (64, 8192)}  # 0.5 MiB / (4096 x 2 bytes)
    two = v.compile_ranges(state({**base, "parallel_config.tensor_parallel_size": 2}, platform="cuda:9.0"))
    assert changes(two) == {f"{CC}.compile_ranges_endpoints": (8192,)}
    assert "allreduce-rms fusion will be enabled for all num_tokens" in (two.message or "")
    bad = v.compile_ranges(state({**base, f"{CC}.compile_ranges_endpoints": (0,)}))
    assert isinstance(bad, Violation) and bad.message == "Invalid compile range endpoint: 0"


def test_checks_of_vllm_config_0_34_0() -> None:
    assert isinstance(v.spec_metrics_need_spec(state({
        "observability_config.per_request_spec_decode_metrics": "summary"})), Violation)
    assert v.spec_metrics_need_spec(state({"observability_config.per_request_spec_decode_metrics": "none"})) is None
    replay = {"model_config": True, "model_config.return_sampling_mask": True}
    assert isinstance(v.sampling_replay(state({**replay, "model_config.logprobs_mode": "raw_logprobs"})), Violation)
    assert v.sampling_replay(state({**replay, "model_config.logprobs_mode": "processed_logprobs"})) is None
    reload = v.direct_reload(state({"env.VLLM_RELOAD_MODE": "direct", "lora_config": True}))
    assert isinstance(reload, Violation) and reload.message == "Direct reload does not support LoRA."
    assert v.direct_reload(state({"lora_config": True})) is None
    aux = v.aux_output_compatibility(state({"aux_output_config.enable_return_routed_experts": True,
                                            "model_config": True, "model_config.runner_type": "generate",
                                            "model_config.is_moe": False}))
    assert isinstance(aux, Violation) and aux.message == "AuxOutput Connector only supports MoE models."
    assert v.aux_output_compatibility(state()) is None
    hisparse = v.hisparse(state({"attention_config.hisparse_config": True, "model_config": True}, platform="cuda:9.0"))
    assert isinstance(hisparse, Violation) and hisparse.message == (
        "HiSparse is only supported for DSA models with index_topk.")
    assert isinstance(v.hisparse(state({"attention_config.hisparse_config": True}, platform="cpu")), Violation)
    assert v.hisparse(state()) is None
    assert isinstance(v.kv_float_mismatch(state({"model_config": True, "model_config.dtype": "bfloat16",
                                                 "cache_config.cache_dtype": "float16"})), Violation)
    assert v.kv_float_mismatch(state({"model_config": True, "model_config.dtype": "float16",
                                      "cache_config.cache_dtype": "float16"})) is None
    info = v.quantized_kv_cache_info(state({"cache_config.cache_dtype": "fp8_e5m2"}))
    assert isinstance(info, Outcome) and (info.message or "").startswith("Using fp8_e5m2 data type")
    assert v.quantized_kv_cache_info(state({"cache_config.cache_dtype": "auto"})) is None
    sharded = v.batch_sharded_sampling_default(state({"parallel_config.enable_batch_sharded_sampling": True,
                                                      "scheduler_config.max_num_seqs": 128}))
    assert isinstance(sharded, Violation) and "tensor_parallel_size is 1" in sharded.message
    proton = v.proton_checks(state({"profiler_config.profiler": "proton",
                                    f"{CC}.cudagraph_mode": CUDAGraphMode.FULL}, platform="cuda:9.0"))
    assert isinstance(proton, Violation) and "proton_graph_attribution=True" in proton.message
    assert v.proton_checks(state()) is None
    adaptive = v.adaptive_verification(state({"speculative_config": True,
                                              "speculative_config.enable_adaptive_verification": True,
                                              f"{CC}.cudagraph_mode": CUDAGraphMode.PIECEWISE}))
    assert isinstance(adaptive, Violation) and "requires full CUDA graphs" in adaptive.message
    moon = v.moonep(state({"parallel_config.all2all_backend": "moonep", "parallel_config.expert_placement_strategy":
                           "round_robin"}))
    assert isinstance(moon, Violation) and "linear expert placement" in moon.message
    assert v.moonep(state()) is None


def test_rocm_deepep_ht_dbo_and_async_scheduling() -> None:
    ht = {"parallel_config.enable_dbo": True, "parallel_config.all2all_backend": "deepep_high_throughput"}
    off = v.async_scheduling_default(state({**ht, "scheduler_config.async_scheduling": None}, platform="rocm"))
    assert changes(off) == {"scheduler_config.async_scheduling": False}
    asked = v.async_scheduling_explicit(state({**ht, "scheduler_config.async_scheduling": True}, platform="rocm"))
    assert isinstance(asked, Violation) and "ROCm DeepEP high-throughput DBO" in asked.message
    ft = v.nccl_dp_sync_default(state({"parallel_config.disable_nccl_for_dp_synchronization": False,
                                       "parallel_config.enable_fault_tolerance": True}))
    assert changes(ft) == {"parallel_config.disable_nccl_for_dp_synchronization": True}


def test_importing_a_nixl_connector_logs_the_ucx_cap_and_the_missing_package() -> None:
    """A built-in NIXL connector (itself or a MultiConnector child) logs what importing it logs; other
    connectors, a custom module path and no connector log nothing."""
    kvt = {"kv_transfer_config": True, "kv_transfer_config.kv_role": "kv_both"}
    nixl = state({**kvt, "kv_transfer_config.kv_connector": "NixlConnector"})
    assert v.nixl_ucx_rcache(nixl) is not None and v.nixl_unavailable(nixl) is not None
    multi = state({**kvt, "kv_transfer_config.kv_connector": "MultiConnector",
                   "kv_transfer_config.kv_connector_extra_config": {"connectors": [
                       {"kv_connector": "ExampleConnector"}, {"kv_connector": "NixlConnector"}]}})
    assert v.nixl_unavailable(multi) is not None
    for quiet in ({**kvt, "kv_transfer_config.kv_connector": "ExampleConnector"},
                  {**kvt, "kv_transfer_config.kv_connector": "NixlConnector",
                   "kv_transfer_config.kv_connector_module_path": "my.connectors"},
                  {**kvt, "kv_transfer_config.kv_connector": "NoSuchConnector"}, {}):
        assert v.nixl_ucx_rcache(state(quiet)) is None and v.nixl_unavailable(state(quiet)) is None
    r = r034({"model_config": {"model": LLAMA, "skip_tokenizer_init": True},
              "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}, platform="cuda:9.0")
    said = [(e.rule, e.message) for e in r.messages()]
    assert ("kv-transfer.nixl-unavailable", "NIXL is not available\nNIXL agent config is not available") in said
    assert any(rule == "kv-transfer.nixl-ucx-rcache" for rule, _ in said)


def test_a_batched_data_parallel_moe_defaults_the_budget_to_256() -> None:
    """deepep_low_latency / nixl_ep with expert parallelism over DP > 1 get 256 tokens whatever the device;
    the user's budget, another backend or DP 1 keep the device defaults."""
    moe = ["--all2all-backend", "deepep_low_latency", "--enable-expert-parallel", "--data-parallel-size", "2"]
    r = postinit.resolve(argv=moe, model=fixture_path("deepseek_v3"), vllm_version="0.34.0", platform="cuda:9.0")
    assert r.state["scheduler_config.max_num_batched_tokens"] == 256
    assert r.why("scheduler_config.max_num_batched_tokens").rule == "engine-args.batch-defaults-large-gpu"  # an H100
    mine = postinit.resolve(argv=[*moe, "--max-num-batched-tokens", "4096"], model=fixture_path("deepseek_v3"),
                            vllm_version="0.34.0", platform="cuda:9.0")
    assert mine.state["scheduler_config.max_num_batched_tokens"] == 4096
    base = {"parallel_config.enable_expert_parallel": True, "parallel_config.data_parallel_size": 2}
    assert v._batched_dp_moe(state({**base, "parallel_config.all2all_backend": "nixl_ep"}))
    assert not v._batched_dp_moe(state({**base, "parallel_config.all2all_backend": "deepep_high_throughput"}))
    assert not v._batched_dp_moe(state({**base, "parallel_config.all2all_backend": "deepep_low_latency",
                                        "parallel_config.data_parallel_size": 1}))


def test_eplb_defaults_the_fewest_redundant_experts_for_the_ep_group() -> None:
    """With EPLB, logical plus redundant experts split evenly over TP x PCP x DP ranks; a user's count is kept."""
    base = {"model_config": True, "parallel_config.enable_eplb": True,
            "model_config.hf_text_config.n_routed_experts": 10, "parallel_config.tensor_parallel_size": 2,
            "parallel_config.data_parallel_size": 2, "parallel_config.eplb_config.num_redundant_experts": None}
    out = v.eplb_num_redundant_experts(state(base))
    assert isinstance(out, Outcome) and changes(out) == {"parallel_config.eplb_config.num_redundant_experts": 2}
    assert dict(out.args) == {"n": 2, "experts": 10, "ep": 4}  # the logged numbers
    assert v.eplb_num_redundant_experts(state({**base, "parallel_config.eplb_config.num_redundant_experts": 6})) is None
    assert v.eplb_num_redundant_experts(state({**base, "parallel_config.enable_eplb": False})) is None
