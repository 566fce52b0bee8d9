"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k140- (tests/golden/gen_cov_0340.py, batches 3-7):
DBO thresholds under speculative decoding, HiSparse's connector and HMA, ROCm's MoRI EP version and PCP graphs,
NCCL graph registration, --device-ids, Engram, --enable-hc-sp, torch_shm, Mamba backends, backend_per_kind and
attention backends given as text. The golden cases pin each against the wheel; these tests pin each decision."""

from __future__ import annotations

from typing import Any

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_errors as e
from postinit.rules._kit import state
from postinit.schema import CUDAGraphMode
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")
KVT = "kv_transfer_config"
MC = {"model_config": {"model": LLAMA}}


def said(out: Any) -> list[str]:
    assert isinstance(out, Outcome)
    return [line for line in (out.message or "").splitlines() if line]


def serve(*argv: str, platform: str = "cuda:9.0", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(model=LLAMA, argv=list(argv), vllm_version="0.34.0", platform=platform, **kw)


def test_dbo_thresholds_are_raised_to_microbatches_times_the_decode_query_length() -> None:
    s = state({"parallel_config.enable_dbo": True, "parallel_config.dbo_decode_token_threshold": 2,
               "parallel_config.dbo_prefill_token_threshold": 9, "speculative_config": {"method": "ngram"},
               "speculative_config.num_speculative_tokens": 3}, version="0.34.0")
    out = v.dbo_spec_thresholds(s)
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.dbo_decode_token_threshold": 8}
    assert said(out) == ["Raising dbo_decode_token_threshold from 2 to 8, the number of microbatches times the "
                         "decode query length."]
    assert v.dbo_spec_thresholds(state({"parallel_config.dbo_decode_token_threshold": 2}, version="0.34.0")) is None


def _hs(extra: dict[str, Any] | None, multi: int = 0) -> dict[str, Any]:
    one = {"kv_connector": "HiSparseConnector", "kv_connector_extra_config": extra or {}}
    if multi:
        return {KVT: {"kv_connector": "MultiConnector"}, f"{KVT}.kv_connector": "MultiConnector",
                f"{KVT}.kv_connector_extra_config": {"connectors": [one] * multi}}
    return {KVT: {"kv_connector": "HiSparseConnector"}, f"{KVT}.kv_connector": "HiSparseConnector",
            f"{KVT}.kv_connector_extra_config": extra or {}}


def test_hisparse_needs_one_hisparse_connector_with_a_positive_host_pool() -> None:
    on = {"attention_config.hisparse_config": {}}

    def verdict(values: dict[str, Any]) -> str | None:
        out = v.hisparse_host_pool(state({**on, **values}, version="0.34.0"))
        return out.message if isinstance(out, Violation) else None

    assert verdict({}) is not None and verdict({}).startswith("HiSparse requires a KV transfer config")  # type: ignore[union-attr]
    assert verdict(_hs(None)) == "HiSparseConnector requires host_pool_gib"
    assert verdict(_hs({"host_pool_gib": 0})) == "HiSparseConnector host_pool_gib must be positive"
    assert verdict(_hs({"host_pool_gib": 4}, multi=2)) == "Only one HiSparseConnector may be configured"
    assert verdict(_hs({"host_pool_gib": 4})) is None and verdict(_hs({"host_pool_gib": 4}, multi=1)) is None
    assert v.hisparse_host_pool(state(_hs(None), version="0.34.0")) is None  # no HiSparse config: not asked


def test_hisparse_needs_the_hybrid_kv_cache_manager() -> None:
    s = state({"attention_config.hisparse_config": {}, "scheduler_config.disable_hybrid_kv_cache_manager": True},
              version="0.34.0")
    assert isinstance(v.hisparse_needs_hma(s), Violation)
    assert v.hisparse_needs_hma(state({"scheduler_config.disable_hybrid_kv_cache_manager": True},
                                      version="0.34.0")) is None


def test_nccl_graph_register_other_than_0_warns_with_graphs_in_the_sleep_pool() -> None:
    base = {**MC, "model_config.enable_sleep_mode": True, "model_config.sleep_mode_offload_cudagraph": True,
            "model_config.sleep_mode_backend": "cumem",
            "compilation_config.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE}
    out = v.cumem_graph_pool_nccl(state(base, env={"NCCL_GRAPH_REGISTER": "1"}, version="0.34.0"))
    assert said(out) == ["NCCL_GRAPH_REGISTER=1 pins the CUDA graph pool during sleep."]
    assert v.cumem_graph_pool_nccl(state(base, env={"NCCL_GRAPH_REGISTER": "0"}, version="0.34.0")) is None
    assert v.cumem_graph_pool_nccl(state(base, version="0.34.0")) is None


def test_mori_falls_back_to_epv1_without_mori_and_follows_vllm_mori_ep_v2() -> None:
    mori = {"parallel_config.all2all_backend": "mori"}
    out = v.mori_ep_v2(state(mori, platform="mi300x", version="0.34.0"))
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.mori_ep_v2": False}
    assert said(out)[0].startswith("MORI EPv2 does not support this MoRI (MoRI is not installed")
    forced = v.mori_ep_v2(state({**mori, "env.VLLM_MORI_EP_V2": True}, platform="mi300x", version="0.34.0"))
    assert isinstance(forced, Outcome) and forced.changes == {"parallel_config.mori_ep_v2": True}
    off = v.mori_ep_v2(state({**mori, "env.VLLM_MORI_EP_V2": False}, platform="mi300x", version="0.34.0"))
    assert isinstance(off, Outcome) and off.changes == {"parallel_config.mori_ep_v2": False} and said(off) == []
    assert v.mori_ep_v2(state(mori, platform="h100", version="0.34.0")) is None
    assert said(v.mori_all2all(state({**mori, "parallel_config.mori_ep_v2": True}, platform="mi300x",
                                     version="0.34.0"))) == ["MoRI all2all: EPv2"]


def test_rocm_prefill_context_parallelism_turns_full_graphs_piecewise() -> None:
    s = state({"parallel_config.prefill_context_parallel_size": 2,
               "compilation_config.cudagraph_mode": CUDAGraphMode.FULL_AND_PIECEWISE}, platform="mi300x",
              version="0.34.0")
    out = v.rocm_pcp_disables_full_graphs(s)
    assert isinstance(out, Outcome) and out.changes == {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    assert v.rocm_pcp_disables_full_graphs(state({"parallel_config.prefill_context_parallel_size": 2},
                                                 platform="h100", version="0.34.0")) is None


def test_engram_config_needs_a_model_with_ngram_layers() -> None:
    s = state({**MC, "engram_config": {}, "model_config.architecture": "LlamaForCausalLM"}, version="0.34.0")
    out = v.engram_verify_model(s)
    assert isinstance(out, Violation) and out.message.startswith("EngramConfig requires a model")
    ok = state({**MC, "engram_config": {}, "model_config.architecture": "DeepseekV41ForCausalLM",
                "model_config.hf_text_config.engram_layer_ids": [1, 3]}, version="0.34.0")
    assert v.engram_verify_model(ok) is None
    disk = state({**MC, "engram_config": {}, "engram_config.disk_offload": True,
                  "model_config.architecture": "DeepseekV41ForCausalLM",
                  "model_config.hf_text_config.engram_layer_ids": [1]}, version="0.34.0")
    assert v.engram_verify_model(disk) == Violation("disk_offload requires a Qwen4Exp model on CUDA")


def test_hc_sp_needs_cuda_or_rocm_and_no_model_supports_it() -> None:
    on = {**MC, "parallel_config.enable_hc_sp": True, "parallel_config.tensor_parallel_size": 2}
    assert v.hc_sp(state(on, platform="cpu", version="0.34.0")) == Violation(
        "--enable-hc-sp currently requires CUDA or ROCm")
    assert v.hc_sp(state(on, version="0.34.0")) == Violation("--enable-hc-sp is not supported for this model")
    assert v.hc_sp(state({**MC, "parallel_config.enable_hc_sp": True}, version="0.34.0")) is None


def test_torch_shm_needs_a_single_process() -> None:
    mm = {**MC, "model_config.multimodal_config": {"mm_tensor_ipc": "torch_shm"}}
    out = v.torch_shm_single_process(state({**mm, "parallel_config.tensor_parallel_size": 2}, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith("mm_tensor_ipc='torch_shm' is not supported")
    assert v.torch_shm_single_process(state(mm, version="0.34.0")) is None


def test_device_ids_warn_under_ray_and_index_cuda_visible_devices_on_rocm() -> None:
    base = {"usage.via_engine_args": True, "usage.device_ids": "1,0"}
    out = e.device_ids(state({**base, "parallel_config.distributed_executor_backend": "ray"}, version="0.34.0"))
    assert said(out) == ["--device-ids has no effect when using the Ray executor. Use Ray placement groups for GPU "
                         "selection instead."]
    rocm = e.device_ids(state(base, platform="mi300x", env={"CUDA_VISIBLE_DEVICES": "4,5,6"}, version="0.34.0"))
    assert isinstance(rocm, Outcome) and rocm.changes == {"parallel_config.assigned_physical_gpu_ids": (5, 4)}
    out_of_range = e.device_ids(state({**base, "usage.device_ids": "0,3"}, platform="mi300x",
                                      env={"CUDA_VISIBLE_DEVICES": "4,5,6"}, version="0.34.0"))
    assert out_of_range == Violation("--device-ids index 3 is out of range for CUDA_VISIBLE_DEVICES=4,5,6 "
                                     "(3 devices visible)")
    uuid = e.device_ids(state({**base, "usage.device_ids": "GPU-a,GPU-b"}, platform="mi300x", version="0.34.0"))
    assert uuid == Violation("Non-integer device ID 'GPU-a' is not supported by rocm.")


def test_mamba_backend_names_and_backend_per_kind_are_checked() -> None:
    assert e.mamba_backend_enum(state({"mamba_config.backend": "cutlass"}, version="0.34.0")) == Violation(
        "Unknown Mamba SSU backend: 'CUTLASS'. Valid options are: TRITON, FLASHINFER, CPU")
    assert e.mamba_backend_enum(state({"mamba_config.backend": "triton"}, version="0.34.0")) == {
        "mamba_config.backend": "TRITON"}
    bad = e.attention_backend_per_kind(state({"attention_config.backend_per_kind": {"sliding": "flash_attn"}},
                                             version="0.34.0"))
    assert isinstance(bad, Violation) and bad.message.startswith("Unknown KV cache group kind 'sliding'")
    assert e.attention_backend_per_kind(state({"attention_config.backend_per_kind": {"mamba": "triton_attn"}},
                                              version="0.34.0")) is None


def test_attention_backends_given_as_text() -> None:
    out = e.attention_backend_auto(state({"attention_config.backend": "AUTO", "speculative_config": {"method": "x"},
                                          "speculative_config.attention_backend": "flash_attn"}, version="0.34.0"))
    assert isinstance(out, Outcome)
    assert out.changes == {"attention_config.backend": None, "speculative_config.attention_backend": "FLASH_ATTN"}


def test_flags_wired_in_this_batch_reach_their_fields() -> None:
    r = serve("--log-level", "DEBUG", "--watermark-config", '{"algorithm": "gumbel", "key": 42}')
    assert r.state["logging_config.log_level"] == "DEBUG"
    assert r.state["watermark_config"]


def test_indexer_cp_dtype_msa_alias_and_passthrough_without_a_moe_ep_backend() -> None:
    bad = e.attention_indexer_cp_dtype(state({"attention_config.minimax_m3_indexer_cp": True,
                                              "attention_config.indexer_kv_dtype": "fp8_e5m2"}, version="0.34.0"))
    assert isinstance(bad, Violation) and bad.message.endswith("got 'fp8_e5m2'")
    alias = e.attention_backend_auto(state({"attention_config.backend": "cutlass_msa"}, version="0.34.0"))
    assert isinstance(alias, Outcome) and alias.changes == {
        "attention_config.backend": None, "attention_config.minimax_m3_msa_decode_backend": "cutlass"}
    out = e.moe_ep_backend(state({"parallel_config.all2all_backend": "passthrough"}, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith("all2all_backend='passthrough' is only valid")


def test_kv_connectors_refuse_expandable_segments_without_the_cumem_allocator() -> None:
    nixl = {KVT: {"kv_connector": "NixlConnector"}, f"{KVT}.kv_connector": "NixlConnector",
            f"{KVT}.kv_role": "kv_both", **MC}
    env = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    out = v.kv_transfer_sleep_mode(state(nixl, env=env, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith("KV connector NixlConnector is incompatible")
    assert v.kv_transfer_sleep_mode(state({**nixl, "model_config.enable_cumem_allocator": True}, env=env,
                                          version="0.34.0")) is None
    assert v.kv_transfer_sleep_mode(state(nixl, version="0.34.0")) is None
