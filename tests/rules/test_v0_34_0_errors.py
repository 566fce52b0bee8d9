"""vLLM 0.34.0's refusals: undeclared keywords (its ``@config`` forbids extra fields) and create_engine_config's
checks (postinit/rules/v0_34_0_errors.py). The golden cases e### pin each against the wheel."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Violation
from postinit.errors import InputError, SubConfigError
from postinit.rules import v0_34_0_errors as e
from postinit.rules._kit import state
from postinit.schema.configs import CompilationConfig
from postinit.schema.loaders.construct import refusal
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")


def serve(*argv: str, version: str = "0.34.0", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(model=LLAMA, argv=list(argv), vllm_version=version, platform="cuda:9.0", **kw)


# ---------------------------------------------------------------- undeclared keywords


def test_a_removed_key_is_pydantics_unexpected_keyword() -> None:
    """-cc.level, a field 0.34.0 removed, is refused while parsing with pydantic's text."""
    with pytest.raises(SubConfigError) as info:
        serve("-cc", '{"level": 3}')
    assert info.value.stage == "parse" and info.value.error == "ArgumentError"
    assert info.value.vllm_message == (
        "argument --compilation-config/-cc: 1 validation error for CompilationConfig\nlevel\n  Unexpected keyword "
        "argument [type=unexpected_keyword_argument, input_value=3, input_type=int]\n    For further information "
        "visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")


def test_fields_errors_come_first_then_the_keywords_in_input_order() -> None:
    """A dataclass validates its fields in order (a sub-config's own keywords at its place), then the rest."""
    text = refusal(CompilationConfig, json_text='{"full_cuda_graph": true, "pass_config": {"enable_noop": true}, '
                   '"compile_sizes": "abc", "level": 1}',
                   absent=["level", "full_cuda_graph", "pass_config.enable_noop"])
    assert text is not None
    locs = [line for line in text.splitlines()[1:] if not line.startswith(" ")]
    assert text.startswith("4 validation errors for CompilationConfig")
    assert locs == ["compile_sizes", "pass_config.enable_noop", "full_cuda_graph", "level"]
    assert "Input should be a valid array" in text  # JSON input's wording, as vLLM's parser validates JSON


def test_a_key_no_version_has_is_vllms_refusal_too() -> None:
    """A typo is refused as vLLM refuses it, not in postinit's words."""
    with pytest.raises(SubConfigError, match="cudagraph_capture_size: Unexpected keyword argument"):
        serve("-cc", '{"cudagraph_capture_size": [1, 2]}')


def test_older_versions_still_ignore_a_removed_key() -> None:
    """0.11.1's dataclasses ignore an undeclared keyword: the seed-era key is dropped with a note there."""
    r = postinit.resolve(config={"model_config": {"model": LLAMA}, "compilation_config": {"use_cudagraph": False}},
                         vllm_version="0.11.1", platform="cuda:9.0")
    assert r.ok and any(n.kind == "absent_field" for n in r.notes)


def test_config_mode_refuses_where_the_sub_config_is_built() -> None:
    """Config mode: the sub-config's stage, pydantic's ValidationError."""
    with pytest.raises(InputError) as info:
        postinit.resolve(config={"model_config": {"model": LLAMA}, "cache_config": {"swap_space": 4}},
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert info.value.stage == "cache_config" and info.value.error == "ValidationError"
    assert "swap_space\n  Unexpected keyword argument" in str(info.value.vllm_message)


def test_a_dataclass_flag_postinit_keeps_as_an_extra_is_validated_while_parsing() -> None:
    """--attention-config builds an AttentionConfig in vLLM's parser: an unknown key is a parse error."""
    with pytest.raises(SubConfigError, match="use_triton: Unexpected keyword argument"):
        serve("--attention-config", '{"backend": "FLASH_ATTN", "use_triton": true}')


# ---------------------------------------------------------------- data-parallel launch options


def _dp(**kw: Any) -> dict[str, Any]:
    base = {"usage.via_engine_args": True, "usage.given": (), "usage.data_parallel_start_rank": 0,
            "usage.headless": False, "parallel_config.data_parallel_size": 1,
            "parallel_config.data_parallel_size_local": 1, "parallel_config.data_parallel_rank": 0,
            "parallel_config.data_parallel_hybrid_lb": False, "parallel_config.data_parallel_external_lb": False,
            "parallel_config.data_parallel_backend": "mp", "parallel_config.nnodes": 1,
            "parallel_config.node_rank": 0, "parallel_config.pipeline_parallel_size": 1,
            "parallel_config.tensor_parallel_size": 1, "parallel_config.prefill_context_parallel_size": 1,
            "parallel_config.enable_fault_tolerance": False, "model_config.is_moe": False}
    return state({**base, **kw})


@pytest.mark.parametrize(("given", "start"), [
    ({"parallel_config.data_parallel_hybrid_lb": True, "parallel_config.data_parallel_external_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` and `--data-parallel-external-lb`"),
    ({"parallel_config.nnodes": 2, "parallel_config.data_parallel_backend": "ray"},
     "Invalid data-parallel launch options: `--nnodes 2` requires `--data-parallel-backend mp`"),
    ({"parallel_config.nnodes": 2}, "Invalid data-parallel launch options: `--nnodes 2` must evenly divide"),
    ({"parallel_config.nnodes": 2, "parallel_config.data_parallel_size": 2, "parallel_config.node_rank": 2},
     "Invalid data-parallel launch options: `--node-rank` must be between 0 and 1"),
    ({"parallel_config.enable_fault_tolerance": True}, "Fault tolerance requires external load balancer mode"),
    ({"parallel_config.data_parallel_size": 2, "usage.given": ("parallel_config.data_parallel_rank",)},
     "Non-MoE models do not support external data parallel mode."),
    ({"parallel_config.data_parallel_external_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-external-lb` requires a data-parallel rank."),
    ({"parallel_config.data_parallel_hybrid_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` requires `--data-parallel-size-local`."),
])
def test_the_data_parallel_launch_refusals(given: dict[str, Any], start: str) -> None:
    """Each of 0.34.0's data-parallel refusals is a ValueError naming the flags."""
    out = e.data_parallel_lb_check(_dp(**given))
    assert isinstance(out, Violation) and out.error == "ValueError" and out.message.startswith(start)


def test_a_moe_model_may_be_data_parallel_behind_an_external_balancer() -> None:
    """An external DP rank on a MoE model is accepted: one local rank, no hybrid LB."""
    c = _dp(**{"parallel_config.data_parallel_size": 2, "model_config.is_moe": True,
               "usage.given": ("parallel_config.data_parallel_rank",), "parallel_config.data_parallel_rank": 1,
               "parallel_config.data_parallel_size_local": 2})
    assert e.data_parallel_lb_check(c) is None
    assert e.data_parallel_lb(c) == {"parallel_config.data_parallel_size_local": 1,
                                     "parallel_config.data_parallel_external_lb": True}
