"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k276- (tests/golden/gen_cov_0340.py, batches 12-):
the Engram config vLLM creates, shares and checks for a model with n-gram embedding layers. The golden cases pin
each against the wheel; these tests pin each decision."""

from __future__ import annotations

import json
from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.errors import SubConfigError
from postinit.rules import v0_34_0 as v
from postinit.rules._kit import state
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
