"""vLLM 0.34.0's smaller sub-configs and platform hooks (postinit/rules/v0_34_0_configs.py), modelled for issue 30's
coverage cases k450-k549 (tests/golden/gen_cov_0340.py, batch 25). The golden cases pin each against the wheel;
these tests pin each decision on its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_configs as cfg
from postinit.rules._kit import state
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")
WM = "watermark_config"
IR = "kernel_config.ir_op_priority."


def serve(*argv: str, platform: str = "cuda:9.0", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(model=LLAMA, argv=list(argv), vllm_version="0.34.0", platform=platform, **kw)


def test_a_philox_key_above_64_bits_is_refused() -> None:
    assert isinstance(cfg.watermark_key_64_bit(state({WM: True, f"{WM}.key": 2**64})), Violation)
    assert cfg.watermark_key_64_bit(state({WM: True, f"{WM}.key": 2**64 - 1})) is None
    assert cfg.watermark_key_64_bit(state({WM: None, f"{WM}.key": 2**64})) is None


def test_gumbel_watermarking_warns_without_enough_deduplication() -> None:
    on = {WM: True, f"{WM}.key": 3}
    assert isinstance(cfg.watermark_gumbel_dedup_warning(state({**on, f"{WM}.deduplicate_contexts": "none"})), Outcome)
    short = {**on, f"{WM}.algorithm": "dual_key_gumbel", f"{WM}.deduplicate_contexts_max_history": 100}
    assert isinstance(cfg.watermark_gumbel_dedup_warning(state(short)), Outcome)
    assert cfg.watermark_gumbel_dedup_warning(state({**on, f"{WM}.deduplicate_contexts_max_history": None})) is None
    assert cfg.watermark_gumbel_dedup_warning(state(on)) is None  # single_turn over 8192 positions


def test_an_encoder_cache_manager_config_needs_its_class() -> None:
    out = cfg.ec_manager_config_needs_class(state({"ec_manager_config.manager_config": {"size": 1}}))
    assert isinstance(out, Violation) and out.message == "manager_config requires encoder_cache_manager_cls to be set."
    assert cfg.ec_manager_config_needs_class(state({"ec_manager_config.manager_config": {"size": 1},
                                                    "ec_manager_config.encoder_cache_manager_cls": "a.B"})) is None


def test_lora_dual_streams_need_cuda_or_rocm_and_fully_sharded_loras_turn_them_off() -> None:
    on = {"lora_config": True, "env.VLLM_LORA_ENABLE_DUAL_STREAM": True}
    assert isinstance(cfg.lora_dual_stream_platform(state(on, platform="cpu")), Violation)
    assert cfg.lora_dual_stream_platform(state(on, platform="rocm")) is None
    sharded = {**on, "lora_config.fully_sharded_loras": True}
    assert isinstance(cfg.lora_dual_stream_fully_sharded(state(sharded)), Outcome)
    assert cfg.lora_dual_stream_fully_sharded(state({**sharded, "env.VLLM_LORA_ENABLE_DUAL_STREAM": False})) is None


def test_deepseek_v4_on_gfx950_with_aiter_takes_the_mxfp4_indexer_cache() -> None:
    dsv4 = {"model_config": True, "model_config.hf_config.model_type": "deepseek_v4",
            "env.VLLM_ROCM_USE_AITER": True, "platform.aiter_found": True}
    out = cfg.rocm_dsv4_mxfp4_indexer(state(dsv4, platform="rocm:gfx950"))
    assert isinstance(out, Outcome) and out.changes == {"attention_config.indexer_kv_dtype": "mxfp4"}
    assert cfg.rocm_dsv4_mxfp4_indexer(state(dsv4, platform="rocm:gfx942")) is None  # CDNA3
    assert cfg.rocm_dsv4_mxfp4_indexer(state({**dsv4, "env.VLLM_ROCM_USE_AITER": False}, platform="rocm:gfx950")) is None
    assert cfg.rocm_dsv4_mxfp4_indexer(state({**dsv4, "attention_config.indexer_kv_dtype": "fp8"},
                                             platform="rocm:gfx950")) is None


def test_a_device_given_as_none_has_no_device_type() -> None:
    out = cfg.device_type(state({"device_config.device": None}))
    assert isinstance(out, Violation) and out.error == "AttributeError"
    assert cfg.device_type(state({"device_config.device": "auto"})) == {"device_config.device_type": "cuda",
                                                                        "device_config.device": "cuda"}


def test_backend_names_are_enum_member_names() -> None:
    out = cfg.attention_backend_names(state({"attention_config.mla_prefill_backend": "flashinfer",
                                             "attention_config.backend_per_kind": {"full_attention": "flash_attn"}}))
    assert isinstance(out, Outcome)
    assert out.changes == {"attention_config.mla_prefill_backend": "FLASHINFER",
                           "attention_config.backend_per_kind": {"full_attention": "FLASH_ATTN"}}


def test_ir_op_priority_flag_moves_into_the_kernel_config_once() -> None:
    out = cfg.ir_op_priority_flag(state({"usage.via_engine_args": True, "usage.ir_op_priority": {"rms_norm": "a, b"}}))
    assert isinstance(out, Outcome) and out.changes == {IR + "rms_norm": ("a", "b")}
    both = {"usage.via_engine_args": True, "usage.ir_op_priority": {"rms_norm": ["a"]}, IR + "rms_norm": ("b",)}
    assert isinstance(cfg.ir_op_priority_flag(state(both)), Violation)
    kernel_only = cfg.ir_op_priority_flag(state({"usage.via_engine_args": True, IR + "gelu_and_mul_sparse": ("c",)}))
    assert isinstance(kernel_only, Outcome) and kernel_only.changes == {}  # deprecated all the same
    assert cfg.ir_op_priority_flag(state({"usage.via_engine_args": True})) is None


def test_ir_op_priority_flag_end_to_end() -> None:
    r = serve("--ir-op-priority", '{"rms_norm": ["native"]}')
    assert r.config.kernel_config.ir_op_priority.rms_norm[0] == "native"
    r = serve("--ir-op-priority", '{"rms_norm": ["native"]}', "--kernel-config",
              '{"ir_op_priority": {"rms_norm": ["vllm_c"]}}')
    assert r.error is not None and "specified via both" in r.error.message


def test_aiter_fused_shared_experts_drop_a_disabled_grouped_topk() -> None:
    s = state({"compilation_config.custom_ops": ("-grouped_topk",), "model_config": True,
               "env.VLLM_ROCM_USE_AITER": True, "env.VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS": True,
               "platform.aiter_found": True}, platform="rocm:gfx942")
    out = v.rocm_config_platform_defaults(s)
    assert isinstance(out, Outcome) and out.level == "warning"
    assert "-grouped_topk" not in out.changes["compilation_config.custom_ops"]
    assert "+grouped_topk" in out.changes["compilation_config.custom_ops"]


def test_indexer_tp_shard_min_rows_is_deprecated_when_given() -> None:
    assert isinstance(cfg.indexer_tp_shard_min_rows_deprecated(state({"attention_config.indexer_tp_shard_min_rows": 8})),
                      Outcome)
    assert cfg.indexer_tp_shard_min_rows_deprecated(state({})) is None


def test_a_packed_kv_cache_keeps_the_boundary_layers_and_runs_flash_attention_2() -> None:
    tq = {"usage.via_engine_args": True, "model_config": True, "cache_config.cache_dtype": "turboquant_k8v4",
          "model_config.hf_text_config.num_hidden_layers": 6}
    out = cfg.packed_kv_cache(state(tq))
    assert isinstance(out, Outcome)
    assert out.changes == {"cache_config.kv_cache_dtype_skip_layers": ("0", "1", "4", "5"),
                           "attention_config.flash_attn_version": 2}
    fa2 = cfg.packed_kv_cache(state({**tq, "attention_config.flash_attn_version": 2,
                                     "model_config.hf_text_config.num_hidden_layers": 3}))
    assert isinstance(fa2, Outcome) and fa2.message == ""  # silent: only the boundary layers
    assert fa2.changes == {"cache_config.kv_cache_dtype_skip_layers": ("0", "2")}
    assert cfg.packed_kv_cache(state({**tq, "cache_config.cache_dtype": "fp8"})) is None
    assert cfg._boundary_layers(1) == []


@pytest.mark.parametrize(("field", "given", "normal"), [
    ("moe_backend", "Deep-Gemm", "deep_gemm"), ("linear_backend", "FLASHINFER-CUTLASS", "flashinfer_cutlass"),
    ("sparse_indexer_topk_backend", "Deep-Select", "deep_select"),
    ("rdna_hybrid_w4a16_prefill_dequant", "ENABLE", "enable")])
def test_kernel_config_backend_names_are_normalised(field: str, given: str, normal: str) -> None:
    """vLLM 0.34.0's KernelConfig lowers each backend name and reads '-' as '_' before its Literal check
    (vllm/config/kernel.py:431-457); a name already normal is kept as given."""
    r = postinit.resolve(argv=["--kernel-config", json.dumps({field: given})], vllm_version="0.34.0")
    assert r.ok and r.get(f"kernel_config.{field}") == normal
