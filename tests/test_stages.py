"""Errors where and as vLLM raises them: the parse stage, construction order, the first failure vLLM meets."""

from __future__ import annotations

import pytest

import postinit
from postinit.errors import (
    InputError,
    InvalidValueError,
    SubConfigError,
    UnknownFieldError,
    UnknownFlagError,
)
from postinit.rules import rulebook
from postinit.rules.observed import PARSED_SUB_CONFIGS, rank_of
from postinit.schema.loaders.argv import FLAGS, flags_for

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
KV_NO_ROLE = '{"kv_connector": "NixlConnector"}'
ALL_AND_NONE = '{"custom_ops": ["all", "none"]}'


def _refused(argv: list[str] | None = None, config: dict | None = None) -> InputError:
    with pytest.raises(InputError) as info:
        postinit.resolve(config, model=LLAMA if config is None else None, argv=argv, platform="h100")
    return info.value


# --------------------------------------------------------------------------- which flags build a sub-config


def test_the_flags_vllms_parser_builds_a_sub_config_for() -> None:
    """Eight flags (vLLM's get_kwargs types them with TypeAdapter(cls).validate_json); each names its class
    (--ec-transfer-config's from vLLM 0.34.0 on: ``builds_since``).

    vLLM 0.34.0's parser builds more (its flag table types them ``dataclass(X)``); of those, ProfilerConfig and
    EngramConfig have a validator of their own that runs there."""
    builds = {spec.names[0]: spec.builds for spec in FLAGS if spec.builds}
    assert builds == {
        "--compilation-config": "CompilationConfig", "--kv-transfer-config": "KVTransferConfig",
        "--kv-events-config": "KVEventsConfig", "--structured-outputs-config": "StructuredOutputsConfig",
        "--eplb-config": "EPLBConfig", "--pooler-config": "PoolerConfig", "--override-pooler-config": "PoolerConfig",
        "--ec-transfer-config": "ECTransferConfig",
    }
    assert not any(spec.builds for spec in flags_for("0.11.1") if spec.dest == "ec_transfer_config")
    later = {spec.builds for spec in flags_for("0.34.0") if spec.builds} - set(builds.values())
    assert {"ProfilerConfig", "EngramConfig", "AttentionConfig"} <= later
    assert set(builds.values()) | {"ProfilerConfig", "EngramConfig"} == set(PARSED_SUB_CONFIGS)


def test_no_later_flag_or_phase_feeds_a_check_argparse_runs() -> None:
    """vLLM never checks a parser-built sub-config again: a check of one reads only what its JSON flag sets
    (and facts), or knows it is argv mode (``usage.via_engine_args``) and leaves the flags to the parse stage."""
    book = rulebook()
    stages = {s for s in PARSED_SUB_CONFIGS.values() if s}
    other_flags = {spec.target for spec in FLAGS if spec.target.split(".")[0] in stages and "." in spec.target}
    earlier = {p for r in book.rules.values() if r.phase in ("model_config", "engine_args") for p in r.writes}
    for r in book.rules.values():
        if r.stage not in stages or r.kind.value != "check" or "usage.via_engine_args" in r.reads:
            continue
        fed = [p for p in r.reads if p in other_flags or p in earlier]
        assert fed == [], f"{r.id} reads {fed}, which vLLM assigns after parsing, unchecked"


# --------------------------------------------------------------------------- the parse stage


def test_a_refused_json_flag_names_the_flag_the_class_and_the_rule() -> None:
    """--kv-transfer-config without kv_role: vLLM's ArgumentError at parse, the rule that refused, its trace."""
    e = _refused(["--kv-transfer-config", KV_NO_ROLE])
    assert isinstance(e, SubConfigError)
    assert (e.stage, e.error, e.rule, e.config, e.flag) == (
        "parse", "ArgumentError", "kv-transfer.role-required", "KVTransferConfig", "--kv-transfer-config")
    assert e.vllm_message is not None and e.vllm_message.startswith(
        "argument --kv-transfer-config: 1 validation error for KVTransferConfig\n  Value error, Please specify kv_role")
    assert e.trace is not None and [v.rule for v in e.trace.violations] == ["kv-transfer.role-required"]


def test_what_the_sub_config_logs_before_refusing_is_in_the_trace() -> None:
    """The deprecated level logs while argparse builds the CompilationConfig, then custom_ops all+none asserts."""
    e = _refused(["-O", '{"level": 3, "custom_ops": ["all", "none"]}'])
    assert e.rule == "compilation.custom-ops-all-none-count"
    assert [ev.rule for ev in e.trace.fired if ev.message] == ["compilation.level-to-mode"]


def test_a_field_pydantic_refuses_is_vllms_text() -> None:
    """A JSON value of the wrong type: pydantic's text as vLLM prints it (no rule: the class refused it)."""
    e = _refused(["--eplb-config", '{"num_redundant_experts": -1}'])
    assert (e.stage, e.error, e.rule) == ("parse", "ArgumentError", None)
    assert str(e) == ("argument --eplb-config: 1 validation error for EPLBConfig: num_redundant_experts: "
                      "Input should be greater than or equal to 0")


@pytest.mark.parametrize(("argv", "first"), [
    (["--kv-transfer-config", KV_NO_ROLE, "-O", ALL_AND_NONE], "kv-transfer.role-required"),
    (["-O", ALL_AND_NONE, "--kv-transfer-config", KV_NO_ROLE], "compilation.custom-ops-all-none-count"),
    (["-O.custom_ops+=all,none", "--kv-transfer-config", KV_NO_ROLE], "kv-transfer.role-required"),
    (["-O", ALL_AND_NONE, "-O", '{"mode": 3}'], "compilation.custom-ops-all-none-count"),
])
def test_json_flags_are_built_in_vllms_parsing_order(argv: list[str], first: str) -> None:
    """Command-line order, dotted keys after everything, and every occurrence of a repeated flag is built."""
    assert _refused(argv).rule == first


def test_unknown_flags_are_refused_after_every_value_was_converted() -> None:
    """argparse converts the values it knows first and names the unrecognized arguments last."""
    assert isinstance(_refused(["--no-such-flag", "--kv-transfer-config", KV_NO_ROLE]), SubConfigError)
    e = _refused(["--no-such-flag", "x"])
    assert isinstance(e, UnknownFlagError) and e.vllm_message == "unrecognized arguments: --no-such-flag x"


def test_parse_errors_come_before_any_rule_of_the_rulebook() -> None:
    """A refused flag wins over every check of create_engine_config and VllmConfig (here tp % dcp)."""
    assert _refused(["-tp", "2", "-dcp", "4", "-O", ALL_AND_NONE]).stage == "parse"


def test_a_deprecated_flag_assigned_after_parsing_is_not_checked() -> None:
    """--guided-decoding-disable-any-whitespace with backend auto resolves: vLLM assigns it unchecked."""
    r = postinit.resolve(model=LLAMA, argv=["--guided-decoding-disable-any-whitespace", "1"], platform="h100")
    assert r.ok and r.get("structured_outputs_config.disable_any_whitespace") is True


def test_postinits_own_refusals_name_no_vllm_stage() -> None:
    """A key no field has and postinit's own bounds stay postinit's errors (stage None, postinit's words)."""
    e = _refused(["-O", '{"custom_ops": ["+rms_norm"], "typo": 1}'])
    assert isinstance(e, UnknownFieldError) and e.stage is None
    e = _refused(["-O", '{"max_cudagraph_capture_size": -5}'])
    assert isinstance(e, InvalidValueError) and e.stage is None
    # vLLM ignores the unknown key: its refusal of the rest comes first
    assert _refused(["-O", '{"custom_ops": ["all", "none"], "typo": 1}']).rule == "compilation.custom-ops-all-none-count"


# --------------------------------------------------------------------------- config mode


def test_config_mode_refuses_where_vllm_builds_the_sub_config() -> None:
    """A config dict's field pydantic refuses: stage is the sub-config, pydantic's ValidationError text."""
    e = _refused(config={"kv_events_config": {"publisher": "kafka"}})
    assert isinstance(e, SubConfigError) and (e.stage, e.error) == ("kv_events_config", "ValidationError")
    assert e.vllm_message is not None and e.vllm_message.startswith(
        "1 validation error for KVEventsConfig\npublisher\n  Input should be 'null' or 'zmq'")


def test_config_mode_checks_sub_configs_in_construction_order() -> None:
    """ParallelConfig is built before KVEventsConfig, whatever the dict's order."""
    e = _refused(config={"kv_events_config": {"publisher": "kafka"},
                         "parallel_config": {"eplb_config": {"num_redundant_experts": -1}}})
    assert e.stage == "parallel_config"


def test_resolution_error_is_what_vllm_raises() -> None:
    """A violation while a config is built: the exception inside pydantic's ValidationError, in the JSON too."""
    r = postinit.resolve({"kv_transfer_config": {"kv_connector": "NixlConnector"}}, platform="h100")
    assert r.error is not None
    assert (r.error.type, r.error.stage, r.error.wrapped_by) == ("ValueError", "kv_transfer_config", "ValidationError")
    assert r.error.wrapper_message is not None and "input_value=…" in r.error.wrapper_message
    assert r.to_dict()["error"]["rule"] == "kv-transfer.role-required"
    assert postinit.resolve(model=LLAMA, platform="h100").error is None
    tp_dcp = postinit.resolve(model=LLAMA, argv=["-tp", "2", "-dcp", "4"], platform="h100").error
    assert tp_dcp is not None and (tp_dcp.stage, tp_dcp.wrapped_by) == ("create_engine_config", None)


def test_rank_follows_vllms_order_across_sub_configs() -> None:
    """ParallelConfig's checks rank before SpeculativeConfig's, which rank before SchedulerConfig's."""
    book = rulebook()
    ranks = [rank_of(book.rules[rid]) for rid in (
        "parallel.data-parallel-rank-range", "speculative.prompt-lookup-defaults",
        "scheduler.budget-below-max-num-seqs", "lora.max-cpu-loras-check", "compilation.custom-op-syntax",
        "kv-transfer.role-required")]
    assert ranks == sorted(ranks)


def test_the_readmes_parse_error_transcript_is_real() -> None:
    """The README's refused --kv-transfer-config: exit 2 and exactly the line it shows."""
    import re
    import shlex
    from pathlib import Path

    from typer.testing import CliRunner

    from postinit.cli import app

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    refused = "--kv-transfer-config '{\"kv_connector\": \"NixlConnector\"}'"
    block = next(b for b in re.findall(r"```console\n(.*?)```", readme, flags=re.S) if refused in b)
    command, shown = block.strip().splitlines()
    out = CliRunner().invoke(app, shlex.split(command.removeprefix("$ postinit ")))
    assert out.exit_code == 2
    assert out.stderr.strip() == shown


def test_the_service_refuses_platform_auto_before_detecting_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without file access (HTTP) 'auto' is refused before the platform is needed for the parse stage."""
    from postinit import Request, resolve_request
    from postinit.schema import Platform

    def detect() -> Platform:
        raise AssertionError("Platform.detect ran")

    monkeypatch.setattr(Platform, "detect", staticmethod(detect))
    with pytest.raises(InvalidValueError, match="platform 'auto'"):
        resolve_request(Request.build(None, model=LLAMA, argv=["-O3"], platform="auto"), allow_files=False)
