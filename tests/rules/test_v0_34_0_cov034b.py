"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k276- (tests/golden/gen_cov_0340.py, batches 12-):
the Engram config vLLM creates, shares and checks for a model with n-gram embedding layers; online quantization
configs (--quantization shorthands and --quantization-config). The golden cases pin
each against the wheel; these tests pin each decision."""

from __future__ import annotations

import json
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.errors import SubConfigError
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_errors as e
from postinit.rules import v0_34_0_quant as q
from postinit.rules._kit import state
from postinit.schema import online_quant
from tests.golden.parity import fixture_path

Q4PLE = fixture_path("cov_qwen4_exp_ple")
EG = "engram_config."
PLE = {"model_config": {"model": Q4PLE}, "model_config.architecture": "Qwen4ExpForCausalLM",
       "model_config.hf_text_config.ple_layer_ids": [1]}
DEFAULT = {"engram_config": True, EG + "cpu_offload": True, EG + "disk_offload": False,
           EG + "embedding_across_dp": False, EG + "dp_shared_memory": None, EG + "use_thp": False}


def serve(*argv: str, platform: str = "cuda:9.0") -> postinit.Resolution:
    return postinit.resolve(model=Q4PLE, argv=list(argv), vllm_version="0.34.0", platform=platform)


def test_a_model_with_ngram_layers_gets_a_default_engram_config() -> None:
    assert v.engram_default_config(state(PLE, version="0.34.0")) == DEFAULT
    no_layers = {**PLE, "model_config.hf_text_config.ple_layer_ids": []}
    assert v.engram_default_config(state(no_layers, version="0.34.0")) is None
    llama = {"model_config": {"model": fixture_path("llama")}, "model_config.architecture": "LlamaForCausalLM"}
    assert v.engram_default_config(state(llama, version="0.34.0")) is None
    given = {**PLE, "engram_config": {}, EG + "disk_offload": True}
    assert v.engram_default_config(state(given, version="0.34.0")) is None


@pytest.mark.parametrize(("values", "shared"), [
    ({"parallel_config.data_parallel_size": 2}, True),
    ({"parallel_config.data_parallel_size": 1}, False),
    ({"parallel_config.data_parallel_size": 2, EG + "use_thp": True}, False),
    ({"parallel_config.data_parallel_size": 2, EG + "cpu_offload": False}, False),
    ({"parallel_config.data_parallel_size": 2, "parallel_config.enable_elastic_ep": True}, False),
])
def test_engram_host_tables_are_shared_between_dp_replicas_when_allowed(values: dict[str, Any], shared: bool) -> None:
    s = state({**PLE, **DEFAULT, **values}, version="0.34.0")
    assert v.engram_dp_shared_memory(s) == {EG + "dp_shared_memory": shared}
    given = state({**PLE, **DEFAULT, EG + "dp_shared_memory": False, **values}, version="0.34.0")
    assert v.engram_dp_shared_memory(given) is None


def test_engram_parallel_checks() -> None:
    def verdict(**values: Any) -> str | None:
        fields = {EG + k: x for k, x in values.items() if not k.startswith("p_")}
        par = {"parallel_config.data_parallel_size": values.get("p_dp", 2),
               "parallel_config.enable_elastic_ep": values.get("p_elastic", False)}
        out = v.engram_verify_parallel(state({**PLE, **DEFAULT, **fields, **par},
                                             version="0.34.0"))
        return out.message if isinstance(out, Violation) else None

    assert verdict(dp_shared_memory=True, p_dp=1) == "dp_shared_memory requires data_parallel_size > 1."
    assert verdict(dp_shared_memory=True, p_elastic=True) == "dp_shared_memory is not supported with elastic EP."
    assert verdict(embedding_across_dp=True, p_elastic=True) == (
        "Engram embedding_across_dp is not supported with elastic EP yet.")
    assert verdict(embedding_across_dp=True, p_dp=1, p_elastic=True) is None
    assert verdict(disk_offload=True, p_elastic=True) == "disk_offload is not supported with elastic EP."
    assert verdict(dp_shared_memory=True) is None and verdict(embedding_across_dp=True) is None


def test_engram_shared_memory_and_thp_need_cpu_offload() -> None:
    def verdict(**fields: Any) -> str | None:
        out = v.engram_shared_memory_fields(state({**DEFAULT,
                                                   **{EG + k: x for k, x in fields.items()}}, version="0.34.0"))
        return out.message if isinstance(out, Violation) else None

    assert verdict(dp_shared_memory=True, cpu_offload=False) == "dp_shared_memory requires cpu_offload=True"
    assert verdict(use_thp=True, cpu_offload=False) == "use_thp requires cpu_offload=True and dp_shared_memory=False"
    assert verdict(use_thp=True, dp_shared_memory=True) == (
        "use_thp requires cpu_offload=True and dp_shared_memory=False")
    assert verdict(use_thp=True) is None and verdict(dp_shared_memory=True) is None


def test_the_resolved_engram_config_is_logged_as_its_repr() -> None:
    s = state({**PLE, **DEFAULT, EG + "dp_shared_memory": True}, version="0.34.0")
    out = v.engram_resolved(s)
    assert isinstance(out, Outcome) and out.args == {
        "config": "EngramConfig(cpu_offload=True, disk_offload=False, embedding_across_dp=False, "
                  "dp_shared_memory=True, use_thp=False)"}
    assert v.engram_resolved(state({}, version="0.34.0")) is None


def test_engram_end_to_end() -> None:
    r = serve("-dp", "2")
    assert r.ok and r.config.engram_config is not None and r.config.engram_config.dp_shared_memory is True
    assert r.why("engram_config.dp_shared_memory").rule == "engram.dp-shared-memory"
    assert not serve("--engram-config", json.dumps({"disk_offload": True}), platform="rocm").ok
    with pytest.raises(SubConfigError) as err:
        serve("--engram-config", json.dumps({"dp_shared_memory": True, "cpu_offload": False}))
    assert err.value.stage == "parse" and err.value.rule == "engram.shared-memory-fields"


# ---------------------------------------------------------------- online quantization configs (v0_34_0_quant)

def _fp8(name: str) -> dict[str, Any]:
    return online_quant.QUANT_KEYS[name]


def _spec(weight: dict[str, Any] | None, *fields: str, activation: Any = None, size: int | None = None
          ) -> dict[str, Any]:
    return {"weight": weight, "activation": activation, "hadamard_size": size, "fields_set": sorted(fields)}


def test_a_shorthand_alone_is_its_config_and_a_deferred_one_waits_for_the_checkpoint() -> None:
    block = _spec(_fp8("fp8_per_block_static"), "weight")
    assert q.resolve_online_config("fp8_per_block", None) == {"linear": block, "moe": block, "ignore": [],
                                                               "targets": None}
    assert q.resolve_online_config("mxfp4", None) is None
    assert q.resolve_online_config("online", None) is None and q.resolve_online_config(None, None) is None
    assert q.resolve_online_config("awq", None) is None


def test_a_given_config_is_merged_over_the_shorthand() -> None:
    out = q.resolve_online_config("fp8_per_tensor", {"linear": {"weight": "fp8_per_block_static"},
                                                     "ignore": ["lm_head"]})
    assert out == {"linear": _spec(_fp8("fp8_per_block_static"), "weight"),
                   "moe": _spec(_fp8("fp8_per_tensor_static"), "weight"), "ignore": ["lm_head"], "targets": None}
    # a shorthand name for a field is that shorthand's spec; a key name is a weight-only spec (no static variant)
    assert q.resolve_online_config("online", {"linear": "mxfp4"})["linear"] == _spec(  # type: ignore[index]
        online_quant.WEIGHT_KEYS["mxfp4"], "weight")
    assert q.resolve_online_config("online", {"moe": "fp8_per_token"})["moe"] == _spec(  # type: ignore[index]
        _fp8("fp8_per_token"), "weight")
    # a deferred shorthand keeps the given config as it is; in a spec an ambiguous name is the static weight key
    kept = q.resolve_online_config("mxfp4", {"linear": {"weight": "mxfp4", "activation": None}})
    assert kept == {"linear": _spec(online_quant.WEIGHT_KEYS["mxfp4"], "weight", "activation"), "moe": None, "ignore": [],
                    "targets": None}


def test_targets_keep_shorthand_names_and_build_specs() -> None:
    out = q.resolve_online_config("online", {"targets": {"re:.*proj": "fp8_per_tensor",
                                                         "x": {"weight": "fp8_per_tensor_static"}}})
    assert out == {"linear": None, "moe": None, "ignore": [],
                   "targets": {"re:.*proj": "fp8_per_tensor", "x": _spec(_fp8("fp8_per_tensor_static"), "weight")}}


def test_quant_spec_text_is_vllms_str() -> None:
    assert online_quant.spec_text(_spec(online_quant.WEIGHT_KEYS["mxfp4"], "weight", "hadamard_size", size=32)) == "mxfp4_hadamard32"
    assert online_quant.spec_text(_spec(_fp8("fp8_per_tensor_static"), "weight", "activation")) == (
        '{"weight":"fp8_per_tensor_static","activation":null}')
    assert online_quant.spec_text(online_quant.SHORTHANDS["nvfp4_per_token"][1]).startswith("QuantKey(u8,")  # type: ignore[arg-type]


@pytest.mark.parametrize(("quantization", "given", "text"), [
    ("mxfp4_hadamard32", {"linear": {"weight": "mxfp8"}},
     "quantization_config cannot change the weight of a Hadamard-rotated shorthand (mxfp4_hadamard32 -> mxfp8); use "
     "--quantization online and set `hadamard_size` on the spec instead."),
    ("online", {"linear": "foo"}, "unknown quantization name 'foo'; expected one of"),
    ("online", {"linear": "int8_per_channel_weight_only"},
     "online shorthand 'int8_per_channel_weight_only' does not define a linear spec"),
    ("online", {"linear": {"weight": "mxfp4", "hadamard_size": 3}}, "hadamard_size must be a power of two, got 3"),
    ("online", {"targets": {"a": "nope"}}, "targets[a] = nope is not a valid online shorthand name"),
    ("online", {"targets": {"a": 3}}, "targets[a] must be an online shorthand name or a quantization spec, got int"),
    ("online", {"targets": {"re:[": "mxfp8"}}, "targets key re:[ is not a valid regex"),
    ("online", {"targets": {"a": "fp8_per_tensor"}, "linear": "fp8_per_tensor"},
     "quantization_config.targets is mutually exclusive with quantization_config.linear/moe, got "
     "targets={'a': 'fp8_per_tensor'}, linear=fp8_per_tensor_static, moe=None."),
])
def test_refusals_are_vllms_text(quantization: str, given: dict[str, Any], text: str) -> None:
    out = q.quantization_config(state({"usage.via_engine_args": True, "model_config.quantization": quantization,
                                       "model_config.quantization_config": given}, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith(text)


def test_online_quantization_end_to_end() -> None:
    llama = fixture_path("llama")
    r = postinit.resolve(model=llama, argv=["--quantization", "mxfp4"], vllm_version="0.34.0", platform="cuda:9.0")
    assert r.ok and r.config.model_config.quantization_config is None  # deferred: the checkpoint decides
    r = postinit.resolve(model=llama, argv=["--quantization", "fp8_per_channel", "--quantization-config",
                                            json.dumps({"moe": "mxfp8"})], vllm_version="0.34.0", platform="cuda:9.0")
    assert r.ok and r.config.model_config.quantization_config["moe"]["weight"] == online_quant.WEIGHT_KEYS["mxfp8"]
    assert r.why("model_config.quantization_config").rule == "engine-args.quantization-config"
    r = postinit.resolve(model=llama, argv=["--quantization", "mxfp4_hadamard32", "--quantization-config",
                                            json.dumps({"linear": {"weight": "mxfp8"}})], vllm_version="0.34.0",
                         platform="cuda:9.0")
    assert not r.ok and r.error is not None and r.error.stage == "engine_args"


def test_direct_reload_refuses_online_quantization() -> None:
    base = {"model_config": {"model": fixture_path("llama")}, "quant_config": True, "env.VLLM_RELOAD_MODE": "direct"}
    online = state({**base, "quant_config.class_name": "OnlineQuantizationConfig"},
                   version="0.34.0")
    assert v.direct_reload(online) == Violation("Direct reload does not support online quantization.")
    composed = state({**base, "quant_config.class_name": "Fp8Config",
                      "model_config.quantization_config": {"linear": None, "moe": None, "ignore": [], "targets": None}},
                     version="0.34.0")
    assert v.direct_reload(composed) == Violation("Direct reload does not support online quantization.")
    checkpoint = state({**base, "quant_config.class_name": "Fp8Config"}, version="0.34.0")
    assert v.direct_reload(checkpoint) is None


def test_eagle_with_a_quantized_draft_lm_head_logs_the_draft_head_dtype() -> None:
    on = {"speculative_config": {"method": "eagle"}, "speculative_config.method": "eagle",
          "speculative_config.draft_lm_head_quantization": "fp8", "model_config.dtype": "bfloat16"}
    out = q.draft_lm_head_dtype(state(on, version="0.34.0"))
    assert isinstance(out, Outcome) and out.args == {"dtype": "torch.bfloat16"}
    assert q.draft_lm_head_dtype(state({**on, "speculative_config.draft_lm_head_quantization": None},
                                       version="0.34.0")) is None
    assert q.draft_lm_head_dtype(state({**on, "speculative_config.method": "dspark"}, version="0.34.0")) is None


def test_an_executor_class_by_name_supports_async_scheduling_as_the_class_says() -> None:
    abstract = "vllm.v1.executor.abstract.Executor"
    s = state({"parallel_config.distributed_executor_backend": abstract, "scheduler_config.async_scheduling": None},
              version="0.34.0")
    out = v.async_scheduling_default(s)
    assert isinstance(out, Outcome) and out.changes == {"scheduler_config.async_scheduling": False}
    asked = state({"parallel_config.distributed_executor_backend": abstract,
                   "scheduler_config.async_scheduling": True}, version="0.34.0")
    assert v.async_scheduling_explicit(asked) == Violation(f"`{abstract}` does not support async scheduling yet.")
    uni = state({"parallel_config.distributed_executor_backend": "vllm.v1.executor.uniproc_executor.UniProcExecutor",
                 "scheduler_config.async_scheduling": True}, version="0.34.0")
    assert v.async_scheduling_explicit(uni) is None
    assert e.executor_backend_class(uni) is None
    other = state({"parallel_config.distributed_executor_backend": "my_pkg.MyExecutor"}, version="0.34.0")
    assert isinstance(e.executor_backend_class(other), Violation)


def _epd(**mm: Any) -> dict[str, Any]:
    return {"model_config": {"model": fixture_path("whisper")},
            "model_config.multimodal_config": {"mm_tensor_ipc": "direct_rpc", "mm_processor_kwargs": None,
                                               "media_io_kwargs": {}, **mm},
            "ec_transfer_config": {"ec_connector": "ECExampleConnector"},
            "ec_transfer_config.ec_connector": "ECExampleConnector", "ec_transfer_config.ec_role": "ec_producer"}


def test_an_epd_encoder_instance_moves_the_processor_to_the_gpu_only_with_torch_shm() -> None:
    out = e.epd_processor_device(state(_epd(), version="0.34.0"))
    assert isinstance(out, Outcome) and not out.changes
    assert (out.message or "").startswith("EPD encoder instance: keeping the multi-modal processor on CPU because "
                                          "mm_tensor_ipc=direct_rpc")
    out = e.epd_processor_device(state(_epd(mm_tensor_ipc="torch_shm"), version="0.34.0"))
    assert isinstance(out, Outcome)
    mm = out.changes["model_config.multimodal_config"]
    assert mm["mm_processor_kwargs"] == {"device": "cuda"} and mm["media_io_kwargs"] == {"video": {}}
    assert (out.message or "").splitlines()[1].startswith("EPD encoder instance: keeping CPU video decoding")
    chosen = e.epd_processor_device(state(_epd(mm_tensor_ipc="torch_shm", media_io_kwargs={"video": {"backend": "x"}}),
                                          version="0.34.0"))
    assert isinstance(chosen, Outcome) and len((chosen.message or "").splitlines()) == 1
    consumer = {**_epd(mm_tensor_ipc="torch_shm"), "ec_transfer_config.ec_role": "ec_both"}
    assert e.epd_processor_device(state(consumer, version="0.34.0")) is None
    assert e.epd_processor_device(state(_epd(mm_tensor_ipc="torch_shm"), platform="cpu", version="0.34.0")) is None


def test_the_processor_on_the_gpu_is_logged_on_an_encode_only_instance_and_refused_elsewhere() -> None:
    on_gpu = _epd(mm_processor_kwargs={"device": "cuda"})
    base = {"model_config.is_multimodal_model": True}
    out = e.mm_processor_device(state({**on_gpu, **base}, version="0.34.0"))
    assert isinstance(out, Outcome) and out.message == (
        "Running the multi-modal processor on cuda. Override with --mm-processor-device=cpu.")
    both = {**on_gpu, **base, "ec_transfer_config.ec_role": "ec_both"}
    assert isinstance(e.mm_processor_device(state(both, version="0.34.0")), Violation)


def test_adaptive_verification_from_draft_logits_excludes_local_argmax_reduction() -> None:
    on = {"speculative_config": {"method": "eagle"}, "speculative_config.method": "eagle",
          "speculative_config.enable_adaptive_verification": True,
          "speculative_config.use_local_argmax_reduction": True}
    assert isinstance(e.adaptive_verification_draft_logits(state(on, version="0.34.0")), Violation)
    for method in ("suffix", "dspark"):
        assert e.adaptive_verification_draft_logits(
            state({**on, "speculative_config.method": method}, version="0.34.0")) is None
    assert e.adaptive_verification_draft_logits(
        state({**on, "speculative_config.use_local_argmax_reduction": False}, version="0.34.0")) is None


@pytest.mark.parametrize(("given", "first_lines"), [
    ({"targets": ["x"]}, ['invalid _optional_type value: \'{"targets": ["x"]}\'']),
    ({"linear": {"weight": "mxfp4", "hadamard_size": 3}},
     ["1 validation error for QuantizationConfigArgs", "linear.hadamard_size",
      "  Value error, hadamard_size must be a power of two, got 3 [type=value_error, input_value=3, input_type=int]"]),
    ({"targets": {"a": "mxfp8"}, "linear": "fp8_per_tensor"},
     ["1 validation error for QuantizationConfigArgs",
      "  Value error, quantization_config.targets is mutually exclusive with quantization_config.linear/moe, got "
      "targets={'a': 'mxfp8'}, linear=fp8_per_tensor_static, moe=None. [type=value_error, input_value={'targets': "
      "{'a': 'mxfp8'...near': 'fp8_per_tensor'}, input_type=dict]"]),  # pydantic shortens the input it shows
])
def test_the_parser_refuses_a_quantization_config_its_validators_refuse(given: dict[str, Any],
                                                                        first_lines: list[str]) -> None:
    text = online_quant.parse_refusal(json.dumps(given), given)
    assert text is not None and text.splitlines()[:len(first_lines)] == first_lines
    assert online_quant.parse_refusal("{}", {"linear": "fp8_per_tensor"}) is None
    with pytest.raises(SubConfigError) as err:
        postinit.resolve(model=fixture_path("llama"), argv=["--quantization-config", json.dumps(given)],
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert err.value.stage == "parse" and err.value.error == "ArgumentError"


def test_lora_needs_a_model_class_that_supports_it() -> None:
    kimi = fixture_path("cov_kimi_linear")
    with_lora = {"lora_config": {}, "model_config": {"model": kimi}, "model_config.model": kimi,
                 "model_config.architecture": "KimiLinearForCausalLM", "model_config.runner_type": "generate"}
    out = e.lora_model_supported(state(with_lora, version="0.34.0"))
    assert isinstance(out, Violation) and out.message.startswith(f"LoRA is not supported for KimiLinearForCausalLM ({kimi}).")
    llama = {**with_lora, "model_config.architecture": "LlamaForCausalLM"}
    assert e.lora_model_supported(state(llama, version="0.34.0")) is None
    draft = {**with_lora, "model_config.runner_type": "draft"}
    assert e.lora_model_supported(state(draft, version="0.34.0")) is None
