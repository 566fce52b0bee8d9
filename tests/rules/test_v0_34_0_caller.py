"""vLLM 0.34.0 called from Python (postinit/rules/v0_34_0_caller.py and the door's refusal of a dict sub-config where
EngineArgs.__post_init__ builds it), modelled for issue 30's caller-mode cases k1000-k1099
(tests/golden/gen_cov_0340.py, batch 31). The golden cases pin each against the wheel; these tests pin each decision
on its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome
from postinit.errors import InputError
from postinit.rules import observed
from postinit.rules import v0_34_0_caller as caller
from postinit.rules._kit import state
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")
FT = "parallel_config.fault_tolerance_config"
FT_WARNING = "--fault-tolerance-config was passed. Fault tolerance is being automatically enabled."


def engine(config: dict[str, Any], **kw: Any) -> postinit.Resolution:
    """EngineArgs(**kwargs) from Python: a config dict through EngineArgs."""
    return postinit.resolve({"model_config": {"model": LLAMA}, **config}, usage="engine", vllm_version="0.34.0",
                            platform="h100", **kw)


def test_a_fault_tolerance_dict_turns_fault_tolerance_on_with_a_warning() -> None:
    on = {"usage.via_engine_args": True, "usage.dicts": (FT,)}
    out = caller.fault_tolerance_dict(state(on))
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.enable_fault_tolerance": True}
    assert caller.fault_tolerance_dict(state({**on, "parallel_config.enable_fault_tolerance": True})) is None
    assert caller.fault_tolerance_dict(state({**on, "usage.dicts": ()})) is None  # the parser's object: no flip


def test_the_flip_is_refused_without_an_external_load_balancer_after_the_warning() -> None:
    r = engine({"parallel_config": {"fault_tolerance_config": {"engine_recovery_timeout_sec": 60}}})
    assert not r.ok and r.error is not None and r.error.stage == "create_engine_config"
    assert "Fault tolerance requires external load balancer mode" in r.error.message
    assert FT_WARNING in [m.message for m in r.messages()]


def test_vllm_serve_flags_build_the_object_and_never_warn() -> None:
    r = postinit.resolve(model=LLAMA, argv=["--fault-tolerance-config", "{}"], vllm_version="0.34.0", platform="h100")
    assert r.ok and FT_WARNING not in [m.message for m in r.messages()]
    assert r.state["parallel_config.enable_fault_tolerance"] is False


@pytest.mark.parametrize(("config", "error"), [
    ({"compilation_config": {"mode": 3, "cuda_graph_sizes": [1, 2]}}, "ValidationError"),
    ({"kernel_config": {"no_such_option": True}}, "ValidationError"),
    ({"compilation_config": {"cudagraph_mode": "SOMETIMES"}}, "KeyError"),
    ({"watchdog_config": {"timeout": "soon"}}, "ValidationError"),
])
def test_a_dict_sub_config_vllm_refuses_is_refused_where_engine_args_builds_it(config: dict[str, Any],
                                                                               error: str) -> None:
    with pytest.raises(InputError) as e:
        engine(config)
    assert e.value.stage == "engine_args" and e.value.error == error


def test_the_first_dict_in_engine_args_order_is_the_one_refused() -> None:
    with pytest.raises(InputError) as e:  # compilation_config is built before kernel_config
        engine({"kernel_config": {"no_such_option": True}, "compilation_config": {"no_such_option": True}})
    assert "CompilationConfig" in str(e.value.vllm_message)


def test_config_mode_keeps_refusing_at_the_sub_configs_own_stage() -> None:
    with pytest.raises(InputError) as e:
        postinit.resolve({"model_config": {"model": LLAMA}, "kernel_config": {"no_such_option": True}},
                         vllm_version="0.34.0", platform="h100")
    assert e.value.stage == "kernel_config"


def test_the_dicts_given_are_recorded_for_the_rules() -> None:
    r = engine({"compilation_config": {"mode": 3}, "parallel_config": {"eplb_config": {"window_size": 500}}})
    assert r.ok and r.state["usage.dicts"] == ("compilation_config", "parallel_config.eplb_config")
    assert r.state["parallel_config.eplb_config.window_size"] == 500


def test_a_merged_quantization_config_vllm_refuses_is_pydantics_error_around_its_targets_repr() -> None:
    spec = json.dumps({"targets": {"re:.*proj": {"weight": "fp8_per_tensor_static"}}})
    r = postinit.resolve(model=LLAMA, argv=["--quantization", "fp8_per_tensor", "--quantization-config", spec],
                         vllm_version="0.34.0", platform="h100")
    assert r.error is not None and r.error.stage == "engine_args" and r.error.wrapped_by == "ValidationError"
    assert "targets={'re:.*proj': QuantSpec(weight=QuantKey(dtype=torch.float8_e4m3fn, scale=ScaleDesc(" \
           "dtype=torch.float32, static=True, group_shape=GroupShape(row=-1, col=-1)), scale2=None, symmetric=True), " \
           "activation=None, hadamard_size=None)}, linear=fp8_per_tensor_static" in r.error.message
    assert r.error.wrapper_message is not None
    assert r.error.wrapper_message.startswith("1 validation error for QuantizationConfigArgs\n  Value error, ")


def test_the_hadamard_refusal_is_raised_outside_quantization_config_args() -> None:
    rule = "engine-args.quantization-config"
    assert observed.wrapped_in(rule, "ValueError", "quantization_config cannot change the weight of a ...") is None
    assert observed.wrapped_in(rule, "ValueError", "quantization_config.targets is mutually exclusive") == \
        "QuantizationConfigArgs"
    assert observed.wrapped_in(rule, "TypeError", "targets must be a dict, got list") is None
    assert observed.field_of(rule, "targets[x] = y is not a valid online shorthand name") == "targets"


def test_a_refused_dict_after_a_fault_tolerance_dict_comes_after_its_warning() -> None:
    with pytest.raises(InputError) as e:
        engine({"parallel_config": {"fault_tolerance_config": {"engine_recovery_timeout": 60}}})
    assert e.value.stage == "engine_args"
    assert [text for _, _, text in e.value.said_before] == [FT_WARNING]  # type: ignore[attr-defined]
    with pytest.raises(InputError) as e:  # fault tolerance already on: no warning
        engine({"parallel_config": {"fault_tolerance_config": {"bogus": 1}, "enable_fault_tolerance": True}})
    assert e.value.said_before == ()  # type: ignore[attr-defined]
    with pytest.raises(InputError) as e:  # compilation_config is built before the fault tolerance dict
        engine({"parallel_config": {"fault_tolerance_config": {}}, "compilation_config": {"bogus": 1}})
    assert e.value.said_before == ()  # type: ignore[attr-defined]
