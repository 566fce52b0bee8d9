"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k550- (tests/golden/gen_cov_0340.py, batch 26):
model class overrides, a sliding window of 0, a null RoPE factor, renderer workers of a multimodal pooling model,
video pruning methods, per-prompt limits given as counts, NVFP4's act+quant fusion, HC-SP on Qwen4-Exp and the
reasoning-token warning. The golden cases pin each against the wheel; these tests pin each decision."""

from __future__ import annotations

import json
from typing import Any

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import model_config as mc
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_models as m
from postinit.rules._kit import state
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")


def serve(*argv: str, model: str = LLAMA, platform: str = "cuda:9.0") -> postinit.Resolution:
    return postinit.resolve(model=model, argv=list(argv), vllm_version="0.34.0", platform=platform)


def messages(r: postinit.Resolution) -> list[str]:
    return [line for f in r.trace.fired for line in (f.message or "").splitlines() if line]


def test_model_class_overrides_are_parsed_as_json_and_warned_about() -> None:
    """model.class-overrides: the mapping is registered, with vLLM's development-only warning."""
    target = "vllm.model_executor.models.llama:LlamaForCausalLM"
    r = serve("--model-class-overrides", json.dumps({"LlamaForCausalLM": target}))
    assert r.ok and r.config.model_config.model_class_overrides == {"LlamaForCausalLM": target}
    assert (f"Applying model_class_overrides {{'LlamaForCausalLM': '{target}'}}. This is intended for "
            "development/debugging.") in messages(r)
    assert m.class_overrides(state({"model_config": {}, "model_config.model_class_overrides": {}},
                                    version="0.34.0")) is None


def test_a_sliding_window_of_zero_disables_the_sliding_window() -> None:
    """model.sliding-window-zero: 0 becomes None and the window is disabled, before max_model_len is derived."""
    r = serve("--hf-overrides", json.dumps({"sliding_window": 0}))
    assert r.config.model_config.disable_sliding_window is True
    assert r.config.cache_config.sliding_window is None and r.config.model_config.max_model_len == 4096
    out = m.sliding_window_zero(state({"model_config": {}, "model_config.hf_text_config.sliding_window": 4096},
                                      version="0.34.0"))
    assert out is None


def test_a_null_rope_factor_warns_and_counts_as_one() -> None:
    """model.max-model-len (0.34.0's null_factor_warning): a scaled RoPE with factor null keeps the length."""
    r = serve("--hf-overrides", json.dumps({"rope_scaling": {"rope_type": "linear", "factor": None}}))
    assert r.ok and r.config.model_config.max_model_len == 4096
    assert mc.NULL_FACTOR_WARNING in messages(r)


def test_renderer_workers_are_refused_with_the_mm_cache_of_a_pooling_model() -> None:
    """model.renderer-workers-mm-cache-pooling: the processor cache is not thread-safe."""
    base = {"model_config": {"model": LLAMA}, "model_config.is_multimodal_model": True, "model_config.runner_type": "pooling",
            "model_config.multimodal_config": {"mm_processor_cache_gb": 4}, "model_config.renderer_num_workers": 2}
    out = m.renderer_workers_mm_cache_pooling(state(base, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith("Cannot use --renderer-num-workers > 1")
    for change in ({"model_config.renderer_num_workers": 1}, {"model_config.runner_type": "generate"},
                   {"model_config.multimodal_config": {"mm_processor_cache_gb": 0}}):
        assert m.renderer_workers_mm_cache_pooling(state({**base, **change}, version="0.34.0")) is None


def test_video_pruning_only_with_a_method_the_class_implements() -> None:
    """model.video-pruning-method: Nemotron-H Omni implements EVS only, and vLLM names its class."""
    omni = fixture_path("nemotron_h_omni")
    r = serve("--video-pruning-rate", "0.5", "--video-pruning-method", "vidcom2", model=omni)
    assert r.error is not None and r.error.rule == "model.video-pruning-method"
    assert r.error.message == ("Video pruning method 'vidcom2' is not supported by NemotronH_Nano_VL_V2 (supported "
                               "methods: ['evs']).")
    r = serve("--video-pruning-rate", "0.5", model=omni)
    assert r.ok and r.config.model_config.multimodal_config["video_pruning_rate"] == 0.5
    assert m.video_pruning_method(state({"model_config": {}, "model_config.is_multimodal_model": False},
                                        version="0.34.0")) is None


def test_per_prompt_limits_given_as_counts_become_dummy_options() -> None:
    """model.multimodal-config: a bare count is {"count": n}, the modality's other options None."""
    r = serve("--limit-mm-per-prompt", json.dumps({"image": 2, "video": 1, "point_cloud": 1}),
              model=fixture_path("qwen4_exp_vl"))
    assert r.config.model_config.multimodal_config["limit_per_prompt"] == {
        "image": {"count": 2, "width": None, "height": None},
        "video": {"count": 1, "num_frames": None, "width": None, "height": None},
        "point_cloud": {"count": 1}}
    assert mc.dummy_options("audio", 2) == {"count": 2, "length": None}


def test_nvfp4_models_enable_the_act_quant_fusion() -> None:
    """level.fuse-act-quant: FP4 quant is always a custom op, so an NVFP4 model fuses SiLU+Mul with it."""
    r = serve("-O3", model=fixture_path("cvo_modelopt_nvfp4"))
    assert r.config.compilation_config.pass_config.fuse_act_quant is True
    assert serve("-O3").config.compilation_config.pass_config.fuse_act_quant is False


def test_hc_sp_is_supported_by_qwen4_exp_with_one_pipeline_stage() -> None:
    """model.hc-sp: Qwen4-Exp implements SupportsHCSP; pipeline parallelism is refused with it."""
    q4 = fixture_path("qwen4_exp_text")
    assert serve("--enable-hc-sp", "-tp", "2", model=q4).ok
    r = serve("--enable-hc-sp", "-tp", "2", "-pp", "2", model=q4)
    assert r.error is not None and r.error.message == "--enable-hc-sp requires PP=1"
    r = serve("--enable-hc-sp", "-tp", "2")
    assert r.error is not None and r.error.message == "--enable-hc-sp is not supported for this model"


def test_reasoning_token_ids_cannot_start_without_both_strings() -> None:
    """reasoning.token-ids-not-initialized: without a parser both strings are needed."""
    def out(**values: Any) -> Any:
        rc = {f"reasoning_config.{k}": v for k, v in values.items()}
        return m.reasoning_token_ids_not_initialized(state({"model_config": {"model": LLAMA},
                                                            "reasoning_config": {"reasoning_parser": ""}, **rc},
                                                           version="0.34.0"))

    assert isinstance(out(reasoning_start_str="<think>"), Outcome)
    assert out(reasoning_start_str="<think>", reasoning_end_str="</think>") is None
    assert out(reasoning_parser="deepseek_r1") is None  # the parser's own strings: not modelled


# ---------------------------------------------------------------- batch 29 (k850-): reasoning parsers, humming,
# ModelOpt MIXED_PRECISION

REASON = fixture_path("cov_llama_reason")


def _reasoning(**rc: Any) -> Any:
    base = {"model_config": {"model": "x"}, "reasoning_config": True, "reasoning_config.reasoning_parser": "",
            "reasoning_config.reasoning_start_str": "", "reasoning_config.reasoning_end_str": ""}
    return state({**base, **{f"reasoning_config.{k}": val for k, val in rc.items() if k != "skip"},
                  "model_config.skip_tokenizer_init": bool(rc.get("skip"))}, version="0.34.0")


def test_reasoning_parser_names_strings_and_tokenizer() -> None:
    f = m.reasoning_token_ids_not_initialized
    assert f(_reasoning(reasoning_parser="deepseek_r1")) is None  # its own <think> / </think>
    warned = f(_reasoning(reasoning_parser="granite"))  # a parser without reasoning strings
    assert isinstance(warned, Outcome) and warned.message.startswith("Auto-initialization of reasoning token IDs")
    assert f(_reasoning(reasoning_parser="granite", reasoning_start_str="<a>", reasoning_end_str="</a>")) is None
    assert isinstance(f(_reasoning(reasoning_start_str="<a>")), Outcome)  # no parser, one string
    unknown = f(_reasoning(reasoning_parser="nosuch"))
    assert isinstance(unknown, Violation) and unknown.error == "KeyError"
    assert unknown.message.startswith("\"Reasoning parser 'nosuch' not found. Available parsers: beam, ")
    no_tok = f(_reasoning(reasoning_parser="deepseek_r1", skip=True))
    assert isinstance(no_tok, Violation) and no_tok.error == "ValueError"
    assert no_tok.message.startswith("The model tokenizer must be passed")
    qwen3 = f(_reasoning(reasoning_parser="qwen3", skip=True))
    assert isinstance(qwen3, Violation) and qwen3.error == "AttributeError"
    assert isinstance(f(_reasoning(reasoning_parser="granite", skip=True)), Outcome)  # builds; no strings
    encode = f(_reasoning(reasoning_start_str="<a>", reasoning_end_str="</a>", skip=True))
    assert isinstance(encode, Violation) and encode.message == "'NoneType' object has no attribute 'encode'"


def test_reasoning_parser_flag_builds_the_reasoning_config() -> None:
    r = postinit.resolve(model=REASON, argv=["--reasoning-parser", "qwen3"], vllm_version="0.34.0")
    assert r.config is not None and r.config.reasoning_config is not None
    assert r.config.reasoning_config.reasoning_parser == "qwen3"
    assert r.config.structured_outputs_config.reasoning_parser == "qwen3"
    none = postinit.resolve(model=REASON, argv=["--reasoning-parser", "None"], vllm_version="0.34.0")
    assert none.config is not None and none.config.reasoning_config is None
    assert none.config.structured_outputs_config.reasoning_parser == ""
    so_only = postinit.resolve(model=REASON, argv=["--structured-outputs-config", '{"reasoning_parser": "qwen3"}'],
                               vllm_version="0.34.0")
    assert so_only.config is not None and so_only.config.reasoning_config is None


def test_modelopt_mixed_is_nvfp4_when_a_top_level_layer_is() -> None:
    base = {"model_config": {"model": "x"}, "model_config.quantization": "modelopt_mixed"}
    layers = {"a": {"quant_algo": "NVFP4"}, "b": {"quant_algo": "FP8"}}
    qc = "model_config.hf_config.quantization_config"
    assert v._nvfp4(state({**base, qc: {"quantized_layers": layers}}, version="0.34.0"))
    assert not v._nvfp4(state({**base, qc: {"quantized_layers": {"b": {"quant_algo": "FP8"}}}}, version="0.34.0"))
    assert not v._nvfp4(state({**base, qc: {"quantization": {"quantized_layers": layers}}}, version="0.34.0"))  # nested: not read


def test_humming_asked_for_takes_over_a_quantized_checkpoint() -> None:
    r = postinit.resolve(model=fixture_path("llama_fp8_block"), argv=["-q", "humming"], vllm_version="0.34.0")
    assert r.config is not None and r.config.model_config.quantization == "humming"
    gpt = postinit.resolve(model=fixture_path("gpt_oss_mxfp4"), argv=["-q", "humming"], vllm_version="0.34.0")
    assert gpt.error is not None and "use '--moe-backend humming' instead" in str(gpt.error)
    mixed = postinit.resolve(model=fixture_path("cov_modelopt_mixed_flat"), vllm_version="0.34.0")
    assert mixed.config is not None and mixed.config.model_config.quantization == "modelopt_mixed"
