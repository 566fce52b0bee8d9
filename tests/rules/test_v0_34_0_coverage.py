"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases (tests/golden/gen_cov_0340.py, k###): the
pass-config fusions a platform lacks, EPLB's redundant experts, offline DP of a dense model, compilation bounds,
profiler / observability checks and warnings, and the flags wired to their fields. The golden cases pin each
against the wheel; these tests pin each decision on its own."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.errors import SubConfigError
from postinit.rules import observed
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_errors as e
from postinit.rules._kit import state
from postinit.schema.configs import EPLBConfig
from tests.golden.parity import fixture_path

PC = "compilation_config.pass_config"
CC = "compilation_config."
LLAMA = fixture_path("llama")


def serve(*argv: str, platform: str = "cuda:9.0", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(model=LLAMA, argv=list(argv), vllm_version="0.34.0", platform=platform, **kw)


def said(out: Any) -> list[str]:
    assert isinstance(out, Outcome)
    return [line for line in (out.message or "").splitlines() if line]


# ---------------------------------------------------------------- PassConfig.__post_init__ on given fusions


def test_rocm_only_fusions_are_switched_off_elsewhere_with_a_warning_each() -> None:
    out = v.pass_config_given(state({f"{PC}.fuse_mla_dual_rms_norm": True, f"{PC}.fuse_rope_kvcache": True},
                                    platform="cuda"))
    assert isinstance(out, Outcome)
    assert out.changes == {f"{PC}.fuse_mla_dual_rms_norm": False, f"{PC}.fuse_rope_kvcache": False}
    assert said(out) == ["MLA dual RMS norm fusion requires ROCm/AITER. The fusion will be disabled.",
                         "KV cache fusion currently only enabled on ROCm. The fusion will be disabled."]


def test_on_rocm_a_rope_fusion_stays_and_asks_for_the_rotary_op() -> None:
    out = v.pass_config_given(state({f"{PC}.fuse_rope_kvcache": True}, platform="rocm"))
    assert isinstance(out, Outcome) and said(out) == []
    assert out.changes == {"compilation_config.custom_ops": ("+rotary_embedding",)}


def test_fusions_without_noop_elimination_warn_in_vllms_order() -> None:
    out = v.pass_config_given(state({f"{PC}.eliminate_noops": False, f"{PC}.fuse_act_quant": True,
                                     f"{PC}.fuse_allreduce_rms": True}, platform="cuda"))
    assert said(out) == [
        "Fusion enabled but reshape elimination disabled. RMSNorm/SiluMul + quant (fp8) fusion might not work",
        "Fusion enabled but reshape elimination disabled. Allreduce + rms norm + quant (fp8) fusion might not work"]
    assert v.pass_config_given(state({}, platform="cuda")) is None


def test_mla_rope_cat_fusion_is_off_on_cpu_end_to_end() -> None:
    r = serve("-cc", '{"pass_config": {"fuse_rope_kvcache_cat_mla": true}}', platform="cpu",
              env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert r.ok and r.state[f"{PC}.fuse_rope_kvcache_cat_mla"] is False
    assert any(m.rule == "compilation.pass-config-given" for m in r.messages())


# ---------------------------------------------------------------- parallel


def test_eplb_picks_the_fewest_redundant_experts() -> None:
    c = state({"model_config": True, "parallel_config.enable_eplb": True,
               "parallel_config.eplb_config.num_redundant_experts": None, "parallel_config.tensor_parallel_size": 3,
               "model_config.hf_text_config.n_routed_experts": 8})
    out = v.eplb_redundant_experts_default(c)
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.eplb_config.num_redundant_experts": 1}
    assert out.message == ("EPLB num_redundant_experts not specified, defaulting to minimum valid value: 1 "
                           "(num_logical_experts=8, ep_size=3)")


def test_offline_dp_from_the_environment_refuses_a_dense_model() -> None:
    dense = state({"parallel_config.data_parallel_size": 2, "env.VLLM_DP_SIZE": 2, "usage.via_engine_args": True,
                   "model_config.is_moe": False})
    assert isinstance(v.offline_dp_dense(dense), Violation)
    assert v.offline_dp_dense(state({**dense, "model_config.is_moe": True})) is None
    assert v.offline_dp_dense(state({**dense, "env.VLLM_DP_SIZE": None})) is None


def test_numa_field_validators_name_their_field() -> None:
    assert observed.field_of("parallel.numa-bind-lists", "numa_bind_cpus must not be empty.") == "numa_bind_cpus"
    assert observed.field_of("parallel.numa-bind-lists", "numa_bind_nodes must not be empty.") == "numa_bind_nodes"
    assert observed.field_of("verify.lora-dtype", "x") is None


def test_numa_flags_reach_parallel_config() -> None:
    r = serve("-tp", "2", "--numa-bind-nodes", "0", "1")
    assert r.ok and r.state["parallel_config.numa_bind_nodes"] == (0, 1) and r.state["parallel_config.numa_bind"]


def test_async_eplb_refuses_an_nccl_communicator_while_parsing() -> None:
    with pytest.raises(ValueError, match="pynccl communicator is incompatible with async EPLB"):
        EPLBConfig(use_async=True, communicator="pynccl")
    with pytest.raises(SubConfigError) as info:
        serve("--eplb-config", '{"use_async": true, "communicator": "torch_nccl"}')
    assert info.value.stage == "parse" and info.value.error == "ArgumentError"


# ---------------------------------------------------------------- compilation, profiler, observability


@pytest.mark.parametrize(("given", "text"), [
    ({CC + "decoder_replay_cudagraph_capture_sizes": (4, 0)}, "All decoder_replay_cudagraph_capture_sizes"),
    ({CC + "cudagraph_mm_encoder": True, CC + "encoder_cudagraph_max_vision_items_per_batch": -1},
     "encoder_cudagraph_max_vision_items_per_batch must be non-negative"),
    ({CC + "cudagraph_mm_encoder": True, CC + "encoder_cudagraph_max_frames_per_batch": -1},
     "encoder_cudagraph_max_frames_per_batch must be non-negative"),
    ({CC + "encoder_cudagraph_max_token_budget": 0}, "encoder_cudagraph_max_token_budget must be positive"),
    ({CC + "encoder_cudagraph_token_budgets": (8, -1)}, "All encoder_cudagraph_token_budgets must be positive"),
])
def test_capture_and_encoder_bounds(given: dict[str, Any], text: str) -> None:
    out = e.capture_and_encoder_bounds(state(given))
    assert isinstance(out, Violation) and out.message.startswith(text)


def test_encoder_caps_are_only_checked_with_encoder_graphs() -> None:
    assert e.capture_and_encoder_bounds(state({CC + "encoder_cudagraph_max_vision_items_per_batch": -1})) is None


@pytest.mark.parametrize(("buckets", "text"), [
    ({"request_latency": (0.5, True)}, "bound True must be a number, not a boolean"),
    ({"latency": (1,)}, "unknown bucket family 'latency'"),
    ({"request_tokens": ()}, "bucket list must not be empty"),
    ({"iteration_tokens": (0, 1)}, "bound 0.0 must be finite and greater than 0"),
    ({"iteration_tokens": (8, 4)}, "bounds [8.0, 4.0] must be strictly increasing"),
])
def test_custom_histogram_buckets(buckets: dict[str, Any], text: str) -> None:
    out = e.custom_histogram_buckets(state({"observability_config.custom_histogram_buckets": buckets}))
    assert isinstance(out, Violation) and text in out.message
    assert e.custom_histogram_buckets(state({"observability_config.custom_histogram_buckets":
                                             {"request_latency": (0.5, 1)}})) is None


def test_profiler_warnings_and_capture_check() -> None:
    torch = {"profiler_config.profiler": "torch", "profiler_config.torch_profiler_dir": "/tmp/p"}
    out = e.profiler_warnings(state({**torch, "profiler_config.delay_iterations": 2,
                                     "profiler_config.capture_torch_profiler": True}))
    assert [t.split(" ")[1] for t in said(out)] == ["'torch'", "is"]
    assert e.profiler_warnings(state({**torch, "profiler_config.max_iterations": 3,
                                      "profiler_config.ignore_frontend": True})) is None
    bad = e.profiler_options_checks(state({"profiler_config.capture_torch_profiler": True}))
    assert isinstance(bad, Violation) and bad.message.startswith("capture_torch_profiler is only applicable")


def test_layerwise_nvtx_tracing_is_deprecated_end_to_end() -> None:
    r = serve("--enable-layerwise-nvtx-tracing")
    assert r.ok and r.state["observability_config.enable_layerwise_nvtx_tracing"] is True
    assert [m for m in r.messages() if m.rule == "observability.layerwise-nvtx-deprecated"]


# ---------------------------------------------------------------- batch 2: speculative, engine args, model, kernel


SPEC = {"speculative_config": True, "speculative_config.method": "ngram", "speculative_config.num_speculative_tokens": 3}


@pytest.mark.parametrize(("given", "text"), [
    ({"speculative_config.rejection_sample_method": "synthetic"}, "requires exactly one of"),
    ({"speculative_config.rejection_sample_method": "synthetic", "speculative_config.synthetic_acceptance_rates":
      (0.9,)}, "must have length 3"),
    ({"speculative_config.rejection_sample_method": "synthetic", "speculative_config.synthetic_acceptance_rates":
      (0.5, 0.9, 0.1)}, "must be non-increasing"),
    ({"speculative_config.rejection_sample_method": "synthetic", "speculative_config.synthetic_acceptance_length":
      9.0}, "must be in [1, 4], got 9.0"),
    ({"speculative_config.synthetic_acceptance_length": 2.0}, "only valid with rejection_sample_method='synthetic'"),
    ({"speculative_config.parallel_drafting": True}, "only supported by the dflash and dspark methods"),
    ({"speculative_config.rejection_sample_method": "fly", "speculative_config.num_speculative_tokens": 1},
     "at least 2"),
    ({"speculative_config.rejection_sample_method": "fly", "speculative_config.fly_window_size": 3},
     "smaller than num_speculative_tokens"),
    ({"speculative_config.dspark_draft_topk": 4}, "dspark_draft_topk is not supported with speculative method"),
])
def test_speculative_sampling_refusals(given: dict[str, Any], text: str) -> None:
    out = e.speculative_sampling_options(state({**SPEC, **given}))
    assert isinstance(out, Violation) and text in out.message


def test_synthetic_length_becomes_rates_and_fly_gets_its_window() -> None:
    out = e.speculative_sampling_options(state({**SPEC, "speculative_config.rejection_sample_method": "synthetic",
                                                "speculative_config.synthetic_acceptance_length": 2.5}))
    assert isinstance(out, Outcome)
    assert out.changes == {"speculative_config.synthetic_acceptance_rates": (1.0, 0.5, 0.0),
                           "speculative_config.synthetic_acceptance_length": None}
    fly = e.speculative_sampling_options(state({**SPEC, "speculative_config.rejection_sample_method": "fly",
                                                "speculative_config.num_speculative_tokens": 4}))
    assert isinstance(fly, Outcome) and fly.changes == {"speculative_config.fly_window_size": 3}
    assert said(fly) == ["FLy verification is a lossy speculative decoding method and may degrade model outputs."]


def test_device_ids() -> None:
    ea = {"usage.via_engine_args": True}
    dup = e.device_ids(state({**ea, "usage.device_ids": "0,0"}))
    assert isinstance(dup, Violation) and dup.message == "--device-ids must not contain duplicates: [0, 0]"
    assert isinstance(e.device_ids(state({**ea, "usage.device_ids": "0,GPU-1"})), Violation)
    ok = e.device_ids(state({**ea, "usage.device_ids": "1,0"}))
    assert isinstance(ok, Outcome) and ok.changes == {"parallel_config.assigned_physical_gpu_ids": (1, 0)}
    assert e.device_ids(state({**ea, "usage.device_ids": "GPU-1,GPU-2"})) is None


def test_seed_warning_without_engine_multiprocessing() -> None:
    r = serve("--seed", "7", env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"})
    assert any(m.rule == "engine-args.seed-without-multiprocessing" and "seed is set to 7" in m.message
               for m in r.messages())


def test_model_checks() -> None:
    sleep = e.sleep_mode_checks(state({"model_config": True, "model_config.enable_sleep_mode": True}, platform="cpu"))
    assert isinstance(sleep, Violation) and sleep.message == "Sleep mode is not supported on current platform."
    assert isinstance(e.sleep_mode_checks(state({"model_config": True,
                                                 "model_config.checkpoint_prepare_on_startup": True})), Violation)
    assert isinstance(e.prompt_embeds_encoder_decoder(state({"model_config": True,
                                                             "model_config.enable_prompt_embeds": True,
                                                             "model_config.is_encoder_decoder": True})), Violation)


def test_multimodal_checks() -> None:
    mm = {"model_config": True, "model_config.is_multimodal_model": True}
    xf = e.multimodal_config_checks(state({**mm, "model_config.mm_encoder_attn_backend": "xformers"}))
    assert isinstance(xf, Violation) and observed.field_of("model.multimodal-config-checks", xf.message) == \
        "mm_encoder_attn_backend"
    fp8 = e.multimodal_config_checks(state({**mm, "model_config.mm_encoder_fp8_scale_path": "/x"}))
    assert isinstance(fp8, Violation) and observed.field_of("model.multimodal-config-checks", fp8.message) is None
    bad = e.mm_processor_device(state({**mm, "model_config.mm_processor_kwargs": {"device": "gpu0"}}))
    assert isinstance(bad, Violation) and bad.message.startswith('Invalid "device" in mm_processor_kwargs')
    gpu = e.mm_processor_device(state({**mm, "model_config.mm_processor_kwargs": {"device": "cuda:0"}},
                                      platform="cuda"))
    assert isinstance(gpu, Violation) and gpu.message.startswith("Cannot run the multi-modal processor on 'cuda'")
    assert e.mm_processor_device(state({**mm, "model_config.mm_processor_kwargs": {"device": "cpu"}})) is None


def test_moe_backends() -> None:
    ep = {"model_config": True, "kernel_config.moe_backend": "flashinfer_moe_ep_cutedsl",
          "model_config.architectures": ("DeepseekV3ForCausalLM",),
          "parallel_config.all2all_backend": "allgather_reducescatter"}
    out = e.moe_ep_backend(state(ep))
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.all2all_backend": "passthrough"}
    clash = e.moe_ep_backend(state({**ep, "parallel_config.all2all_backend": "deepep_low_latency"}))
    assert isinstance(clash, Violation) and "cannot be paired" in clash.message
    v4 = e.moe_ep_backend(state({**ep, "kernel_config.moe_backend": "flashinfer_moe_ep_mega_deep_gemm"}))
    assert isinstance(v4, Violation) and "only supported for DeepSeek-V4 models" in v4.message
    lora = e.lora_mega_moe_backend(state({"lora_config": True, "kernel_config.moe_backend": "deep_gemm_mega_moe"}))
    assert isinstance(lora, Violation)


def test_offload_and_structured_outputs() -> None:
    group = {"offload_config.prefetch.offload_group_size": 2}
    assert isinstance(e.offload_prefetch_bounds(state({**group, "offload_config.prefetch.offload_num_in_group": 3})),
                      Violation)
    assert isinstance(e.offload_prefetch_bounds(state({**group, "offload_config.prefetch.offload_prefetch_step": 0})),
                      Violation)
    assert e.offload_prefetch_bounds(state(group)) is None
    lmfe = e.lm_format_enforcer_deprecated(state({"structured_outputs_config.backend": "lm-format-enforcer"}))
    assert isinstance(lmfe, Outcome)
