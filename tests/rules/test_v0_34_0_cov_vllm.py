"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k750- (tests/golden/gen_cov_0340.py, batch 28):
DeepGEMM on Blackwell, Inkling LoRA, DFlash's draft pass, prefix-LM multimodal models, --cpu-offload-gb, the
Mamba and attention backends given as null, JSON text of JSON. The golden cases pin each against the wheel; these
tests pin each decision."""

from __future__ import annotations

from typing import Any

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_errors as e
from postinit.rules import v0_34_0_models as m
from postinit.rules._kit import state
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")


def _state(values: dict[str, Any]) -> Any:
    return state(values, version="0.34.0")


def test_deep_gemm_is_auto_disabled_for_qwen35_fp8_checkpoints_on_blackwell_only() -> None:
    base = {"quant_config": True, "quant_config.class_name": "Fp8Config", "model_config": {"model": "x"},
            "model_config.hf_text_config.model_type": "qwen3_5_text", "platform.capability": 100}
    out = v.deep_gemm_auto_disable(_state(base))
    assert isinstance(out, Outcome) and out.message == (
        "Auto-disabled DeepGemm for model_type=qwen3_5_text on Blackwell. To disable DeepGemm globally, set "
        "VLLM_USE_DEEP_GEMM=0.")
    assert v.deep_gemm_auto_disable(_state({**base, "platform.capability": 90})) is None  # Hopper
    assert v.deep_gemm_auto_disable(_state({**base, "platform.capability": 103})) is not None  # family 10.x
    assert v.deep_gemm_auto_disable(_state({**base, "quant_config.class_name": "OnlineQuantizationConfig"})) is None
    kolibri = {**base, "model_config.hf_text_config.model_type": "kolibri1"}
    assert v.deep_gemm_auto_disable(_state(kolibri)) is None  # latency: SM120 only
    assert v.deep_gemm_auto_disable(_state({**kolibri, "platform.capability": 120})) is not None


def test_inkling_lora_needs_the_multimem_all_reduce_off() -> None:
    base = {"lora_config": {}, "model_config": {"model": "x"}, "model_config.architectures": ["InklingForCausalLM"]}
    out = e.lora_inkling_multimem_ar(_state(base))
    assert isinstance(out, Violation) and out.message.startswith("Inkling LoRA requires INKLING_MULTIMEM_AR=0")
    assert e.lora_inkling_multimem_ar(_state({**base, "env.INKLING_MULTIMEM_AR": "0"})) is None
    assert e.lora_inkling_multimem_ar(_state({**base, "env.INKLING_MULTIMEM_AR": "1"})) is not None
    assert e.lora_inkling_multimem_ar(_state({**base, "lora_config": None})) is None
    r = postinit.resolve(model=fixture_path("spec_inkling"), argv=["--enable-lora"], vllm_version="0.34.0",
                         platform="cuda:9.0", env={"INKLING_MULTIMEM_AR": "0"})
    assert r.ok


def test_dflash_draft_pass_caps_the_active_requests() -> None:
    base = {"speculative_config": {"method": "dflash"}, "speculative_config.method": "dflash",
            "speculative_config.num_speculative_tokens": 4, "scheduler_config.max_num_batched_tokens": 2048,
            "scheduler_config.max_num_seqs": 1024}
    out = m.draft_pass_active_seqs(_state(base))
    assert isinstance(out, Outcome) and out.changes == {"scheduler_config.max_num_active_seqs": 409}
    assert out.message == ("The dflash draft pass fits at most 409 requests within max_num_batched_tokens=2048. "
                           "Overriding max_num_active_seqs from 1024 to 409.")
    assert m.draft_pass_active_seqs(_state({**base, "scheduler_config.max_num_batched_tokens": 8192})) is None
    eagle = {**base, "speculative_config.method": "eagle"}
    assert m.draft_pass_active_seqs(_state(eagle)) is None  # its draft pass is sized by the target's tokens


def test_prefix_lm_multimodal_models_prefill_an_item_whole_on_gpus() -> None:
    mm = {"model_config": {"model": "x"}, "model_config.is_multimodal_model": True,
          "model_config.multimodal_config": {}, "model_config.hf_config.model_type": "qwen4_exp"}
    assert m.is_mm_prefix_lm(_state(mm)) is None
    assert m.is_mm_prefix_lm(_state({**mm, "model_config.hf_config.is_mm_prefix_lm": True})) == {
        "model_config.is_mm_prefix_lm": True}
    assert m.is_mm_prefix_lm(_state({**mm, "model_config.hf_config.model_type": "paligemma"})) is not None
    text_only = {**mm, "model_config.hf_config.is_mm_prefix_lm": True,
                 "model_config.multimodal_config": {"language_model_only": True}}
    assert m.is_mm_prefix_lm(_state(text_only)) is None
    plat = {"platform.device_type": "cuda", "model_config": {"model": "x"}, "model_config.is_mm_prefix_lm": True,
            "scheduler_config.is_multimodal_model": True}
    for kind in ("cuda", "rocm"):
        out = v.mm_prefix_disables_chunked_mm_input(_state({**plat, "platform.kind": kind}))
        assert out is not None
    assert v.mm_prefix_disables_chunked_mm_input(_state({**plat, "platform.kind": "cpu"})) is None


def test_cpu_offload_gb_is_the_uva_offload_size_in_0340() -> None:
    r = postinit.resolve(model=LLAMA, argv=["--cpu-offload-gb", "2"], vllm_version="0.34.0", platform="cuda:9.0")
    assert r.config is not None and r.config.offload_config.uva.cpu_offload_gb == 2.0


def test_null_backends_given_in_config_mode() -> None:
    out = e.mamba_backend_enum(_state({"mamba_config.backend": None}))
    assert isinstance(out, Violation) and out.error == "ValidationError"
    assert "Input should be 'triton', 'flashinfer' or 'cpu' [type=enum, input_value=None" in out.message
    r = postinit.resolve({"model_config": {"model": LLAMA}, "attention_config": {
        "backend_per_kind": {"full_attention": None}}}, vllm_version="0.34.0", platform="cuda:9.0")
    assert r.config is not None and r.config.attention_config.backend_per_kind == {"full_attention": "CUSTOM"}


def test_watermark_config_given_as_json_text_of_json() -> None:
    r = postinit.resolve(model=LLAMA, argv=["--watermark-config", '"{\\"key\\": 3}"'], vllm_version="0.34.0",
                         platform="cuda:9.0")
    assert r.ok


def _serve_state(values: dict[str, Any]) -> Any:
    return _state({"usage.via_engine_args": True, "usage.usage_context": "OPENAI_API_SERVER", **values})


def test_vllm_serve_runs_an_api_server_per_data_parallel_rank_by_default() -> None:
    dp2 = {"usage.given_values": {"parallel_config.data_parallel_size": 2}}
    out = e.serve_api_server_count(_serve_state(dp2))
    assert isinstance(out, Outcome) and out.changes == {"usage.api_process_count": 2}
    said = e.serve_api_server_count_default(_serve_state(dp2))  # logged by vllm serve before any config is built
    assert isinstance(said, Outcome) and not said.changes
    assert said.message == "Defaulting api_server_count to data_parallel_size (2)."
    given = e.serve_api_server_count(_serve_state({**dp2, "usage.api_server_count": 1}))
    assert isinstance(given, Outcome) and given.changes == {"usage.api_process_count": 1}
    assert e.serve_api_server_count_default(_serve_state({**dp2, "usage.api_server_count": 1})) is None
    external = {**dp2, "usage.given": ("parallel_config.data_parallel_rank",)}
    out = e.serve_api_server_count(_serve_state(external))
    assert isinstance(out, Outcome) and out.changes == {"usage.api_process_count": 1}
    elastic = {**dp2, "parallel_config.enable_elastic_ep": True}
    out = e.serve_api_server_count(_serve_state(elastic))
    assert isinstance(out, Outcome) and out.changes == {"usage.api_process_count": 1}
    warned = e.serve_api_server_count_elastic_ep(_serve_state(elastic))
    assert isinstance(warned, Outcome) and "Capping api_server_count from 2 to 1." in (warned.message or "")
    assert e.serve_api_server_count(_state({**dp2, "usage.via_engine_args": True,
                                            "usage.usage_context": "LLM_CLASS"})) is None
    assert e.serve_api_server_count_default(_state({**dp2, "usage.via_engine_args": True,
                                                    "usage.usage_context": "LLM_CLASS"})) is None


def test_fault_tolerance_needs_one_api_server_process() -> None:
    out = e.fault_tolerance_one_api_server(_state({"parallel_config.enable_fault_tolerance": True,
                                                   "usage.api_process_count": 2}))
    assert isinstance(out, Violation) and out.message.startswith(
        "Fault tolerance requires a single API server process (--api-server-count=1), but got 2.")
    assert e.fault_tolerance_one_api_server(_state({"parallel_config.enable_fault_tolerance": True})) is None


def test_tokens_only_skips_the_tokenizer() -> None:
    r = postinit.resolve(model=LLAMA, argv=["--tokens-only"], vllm_version="0.34.0", platform="cuda:9.0")
    assert r.config is not None and r.config.model_config is not None and r.config.model_config.skip_tokenizer_init
    out = e.serve_tokens_only(_state({"usage.via_engine_args": True, "usage.tokens_only": True,
                                      "model_config": {"model": "x"}}))
    assert isinstance(out, Outcome) and out.changes == {"model_config.skip_tokenizer_init": True}


def test_vllm_serve_refuses_two_load_balancing_modes_first() -> None:
    out = e.serve_load_balancing_modes(_serve_state({
        "usage.given": ("parallel_config.data_parallel_rank",), "usage.data_parallel_start_rank": 1}))
    assert isinstance(out, Violation) and out.message.startswith("Cannot use more than one data parallel load")


def test_vllm_serve_positional_model_tag_takes_a_stray_value() -> None:
    """Without a leading model, `vllm serve`'s positional model_tag takes the first stray value: it is no
    unrecognized argument then."""
    from postinit.schema.errors import UnknownFlagError
    from postinit.schema.loaders.argv import parse_vllm_args

    try:
        parse_vllm_args(["--model", "m", "--swap-space", "4"], version="0.34.0", scope="frontend",
                        absent=("swap_space",))
    except UnknownFlagError as exc:
        assert exc.vllm_message == "unrecognized arguments: --swap-space"
    else:  # pragma: no cover
        raise AssertionError("--swap-space is no 0.34.0 flag")
