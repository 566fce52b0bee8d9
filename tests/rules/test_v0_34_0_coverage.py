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
