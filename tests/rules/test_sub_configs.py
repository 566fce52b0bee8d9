"""Phase ``sub_configs``: the sub-configs' own __post_init__s (ref 2.3, 2.4, 2.5, 2.7, 2.8, 2.11, 3.1)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules._kit import state
from postinit.rules.cache import fp8_kv_cache_info
from postinit.rules.compilation import (
    backend_default,
    custom_op_syntax,
    custom_ops_all_none_count,
    full_cuda_graph,
    full_cuda_graph_collapses_mode,
    fusion_without_noop,
    inductor_auto_functionalized_v2,
    inductor_combo_kernels,
    level_to_mode,
    piecewise_backend,
    use_cudagraph_false,
    use_inductor_backend,
)
from postinit.rules.device import device_type
from postinit.rules.kv_events import kv_events_publisher_default
from postinit.rules.kv_transfer import kv_transfer_role_required
from postinit.rules.lora import max_cpu_loras_check, max_cpu_loras_default
from postinit.rules.parallel import (
    all2all_backend_default,
    data_parallel_from_env,
    data_parallel_rank_range,
    data_parallel_size_local_range,
    eplb_deprecated_fields,
    eplb_requirements,
    executor_backend_multi,
    executor_backend_uni,
    external_launcher_disables_multiprocessing,
    external_lb_needs_dp,
    max_parallel_loading_workers_ignored,
    platform_disables_custom_all_reduce,
    world_size,
)
from postinit.rules.scheduler import (
    async_scheduler_cls,
    budget_below_max_model_len,
    budget_below_max_num_seqs,
    budget_exceeds_seqs_times_len,
    chunked_prefill_enabled,
    encoder_budgets,
    encoder_decoder_no_chunked_prefill,
    is_encoder_decoder_from_model,
    is_multimodal_from_model,
    long_prefill_threshold_default,
    max_model_len_default,
    max_model_len_from_model,
    max_num_batched_tokens_default,
    max_num_seqs_default,
    partial_prefill_limits,
    runner_type_from_model,
    scheduler_cls_default,
)
from postinit.rules.speculative import (
    draft_model_from_method,
    method_from_model_name,
    mtp_method_normalized,
    prompt_lookup_defaults,
)
from postinit.rules.structured_outputs import (
    structured_outputs_additional_properties_backend,
    structured_outputs_any_whitespace_backend,
)
from postinit.schema import CompilationMode, CUDAGraphMode, Platform

TOK = "scheduler_config.max_num_batched_tokens"
LEN = "scheduler_config.max_model_len"
SEQ = "scheduler_config.max_num_seqs"
ECP = "scheduler_config.enable_chunked_prefill"
CPE = "scheduler_config.chunked_prefill_enabled"
CGM = "compilation_config.cudagraph_mode"


def _changes(out: Any) -> Any:
    return out.changes if isinstance(out, Outcome) else out


# =========================================================================== ParallelConfig


@pytest.mark.parametrize(
    ("given", "env", "expected", "warns"),
    [(None, {}, "allgather_reducescatter", False), (None, {"VLLM_ALL2ALL_BACKEND": "pplx"}, "pplx", True),
     ("naive", {"VLLM_ALL2ALL_BACKEND": "pplx"}, None, False)],
)
def test_all2all_backend_default(given: str | None, env: dict[str, str], expected: str | None, warns: bool) -> None:
    """An unset backend comes from the env (default allgather_reducescatter), with a deprecation warning when set."""
    out = all2all_backend_default(state({"parallel_config.all2all_backend": given}, env=env))
    assert _changes(out) == (None if expected is None else {"parallel_config.all2all_backend": expected})
    assert (isinstance(out, Outcome) and "VLLM_ALL2ALL_BACKEND environment variable is deprecated" in (out.message or "")) == warns


def test_eplb_deprecated_fields() -> None:
    """Deprecated EPLB fields are forwarded with a warning; unset ones do nothing."""
    out = eplb_deprecated_fields(state({"parallel_config.eplb_window_size": 7}))
    assert isinstance(out, Outcome) and out.changes == {"parallel_config.eplb_config.window_size": 7}
    assert eplb_deprecated_fields(state()) is None
    # vLLM logs one warning per field (golden t046-eplb-deprecated)
    two = eplb_deprecated_fields(state({"parallel_config.eplb_window_size": 7,
                                        "parallel_config.num_redundant_experts": 2}))
    assert isinstance(two, Outcome) and two.message is not None
    assert two.message.splitlines() == [
        f"{old} is deprecated and has been replaced with eplb_config.{new}. This will be removed in v0.12.0. "
        "Changing this field after initialization will have no effect."
        for old, new in (("num_redundant_experts", "num_redundant_experts"), ("eplb_window_size", "window_size"))]


@pytest.mark.parametrize(("pp", "tp", "dp", "backend", "ws"),
                         [(1, 1, 1, None, 1), (2, 4, 2, "mp", 8), (1, 2, 2, "external_launcher", 4)])
def test_world_size(pp: int, tp: int, dp: int, backend: str | None, ws: int) -> None:
    """world_size = pp x tp (x dp for the external launcher)."""
    out = world_size(state({"parallel_config.pipeline_parallel_size": pp, "parallel_config.tensor_parallel_size": tp,
                            "parallel_config.data_parallel_size": dp,
                            "parallel_config.distributed_executor_backend": backend}))
    assert _changes(out) == {"parallel_config.world_size": ws}


def test_data_parallel_from_env() -> None:
    """dp <= 1 takes every VLLM_DP_* value; dp > 1 keeps the config's."""
    out = data_parallel_from_env(state(env={"VLLM_DP_SIZE": "2", "VLLM_DP_RANK": "1", "VLLM_DP_MASTER_PORT": "5"}))
    assert out == {"parallel_config.data_parallel_size": 2, "parallel_config.data_parallel_rank": 1,
                   "parallel_config.data_parallel_rank_local": 1, "parallel_config.data_parallel_master_ip": "127.0.0.1",
                   "parallel_config.data_parallel_master_port": 5}
    assert data_parallel_from_env(state({"parallel_config.data_parallel_size": 2})) is None
    assert data_parallel_from_env(state({"parallel_config.data_parallel_size_local": 0})) is None


@pytest.mark.parametrize(("dp", "rank", "ok"), [(2, 1, True), (2, 2, False), (1, 5, True)])
def test_data_parallel_rank_range(dp: int, rank: int, ok: bool) -> None:
    """With DP given, the rank must lie in [0, dp)."""
    out = data_parallel_rank_range(state({"parallel_config.data_parallel_size": dp,
                                          "parallel_config.data_parallel_rank": rank}))
    assert (out is None) == ok
    if not ok:
        assert isinstance(out, Violation) and out.message == f"data_parallel_rank ({rank}) must be in the range [0, {dp})"


def test_parallel_validator_checks() -> None:
    """Local DP size > DP size and external LB without DP are errors; defaults pass."""
    assert isinstance(data_parallel_size_local_range(state({"parallel_config.data_parallel_size_local": 2})), Violation)
    assert data_parallel_size_local_range(state()) is None
    assert isinstance(external_lb_needs_dp(state({"parallel_config.data_parallel_external_lb": True})), Violation)
    assert external_lb_needs_dp(state()) is None


@pytest.mark.parametrize(
    ("values", "platform", "message"),
    [
        ({"parallel_config.enable_eplb": True}, "cpu", "Expert parallelism load balancing is only supported on CUDA devices now."),
        ({"parallel_config.enable_eplb": True}, "h100", "enable_expert_parallel must be True to use EPLB."),
        ({"parallel_config.enable_eplb": True, "parallel_config.enable_expert_parallel": True}, "h100",
         "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, but got TP=1,DP=1."),
        ({"parallel_config.eplb_config.num_redundant_experts": 2}, "h100",
         "num_redundant_experts is set to 2 but EPLB is not enabled. Either enable EPLB or unset num_redundant_experts."),
        ({"parallel_config.enable_eplb": True, "parallel_config.enable_expert_parallel": True,
          "parallel_config.tensor_parallel_size": 2}, "h100", None),
        ({}, "h100", None),
    ],
)
def test_eplb_requirements(values: dict[str, Any], platform: str, message: str | None) -> None:
    """EPLB needs CUDA, EP and TP x DP > 1; redundant experts need EPLB."""
    out = eplb_requirements(state(values, platform=platform))
    assert (out.message if isinstance(out, Violation) else None) == message


@pytest.mark.parametrize(
    ("values", "expected"),
    [({"parallel_config.world_size": 2}, "mp"), ({"parallel_config.world_size": 16}, "no-ray"),
     ({"parallel_config.world_size": 2, "parallel_config.data_parallel_backend": "ray"}, "ray"),
     ({"parallel_config.world_size": 1}, None),
     ({"parallel_config.world_size": 2, "parallel_config.distributed_executor_backend": "uni"}, None)],
)
def test_executor_backend_multi(values: dict[str, Any], expected: str | None) -> None:
    """Several workers: mp on one node, ray for ray DP; beyond the node's GPUs Ray is needed (and not installed)."""
    out = executor_backend_multi(state(values, platform="h100"))
    if expected == "no-ray":
        assert isinstance(out, Violation) and out.message.startswith("Unable to load Ray")
        return
    assert _changes(out) == (None if expected is None else {"parallel_config.distributed_executor_backend": expected})


@pytest.mark.parametrize(("ws", "given", "fires"), [(1, None, True), (2, None, False), (1, "mp", False)])
def test_executor_backend_uni(ws: int, given: str | None, fires: bool) -> None:
    """A single unset worker runs uni."""
    out = executor_backend_uni(state({"parallel_config.world_size": ws,
                                      "parallel_config.distributed_executor_backend": given}))
    assert out == ({"parallel_config.distributed_executor_backend": "uni"} if fires else None)


def test_external_launcher_and_loading_workers() -> None:
    """The external launcher writes VLLM_ENABLE_V1_MULTIPROCESSING=0; a loading-worker count only warns."""
    s = state({"parallel_config.distributed_executor_backend": "external_launcher"})
    assert external_launcher_disables_multiprocessing(s) == {"env.VLLM_ENABLE_V1_MULTIPROCESSING": False}
    assert external_launcher_disables_multiprocessing(state()) is None
    assert isinstance(max_parallel_loading_workers_ignored(state({"parallel_config.max_parallel_loading_workers": 2})),
                      Outcome)
    assert max_parallel_loading_workers_ignored(state()) is None


@pytest.mark.parametrize(("platform", "fires"), [("cpu", True), ("h100", False)])
def test_platform_disables_custom_all_reduce(platform: str, fires: bool) -> None:
    """Platforms without the custom all-reduce kernel disable it, and say so even when it was off already."""
    out = platform_disables_custom_all_reduce(state(platform=platform))
    assert (out.changes if isinstance(out, Outcome) else out) == (
        {"parallel_config.disable_custom_all_reduce": True} if fires else None)


# =========================================================================== SchedulerConfig


@pytest.mark.parametrize(
    ("values", "expected"),
    [({"model_config": True, "model_config.max_model_len": 4096}, 4096),
     ({"model_config": True, "model_config.max_model_len": 4096, LEN: 100}, None),
     ({"model_config": None, "model_config.max_model_len": 4096}, None)],
)
def test_max_model_len_from_model(values: dict[str, Any], expected: int | None) -> None:
    """An unset scheduler length is the model's; a given one or no model leaves it."""
    assert max_model_len_from_model(state(values)) == (None if expected is None else {LEN: expected})


def test_scheduler_plain_defaults() -> None:
    """max_model_len 8192 and max_num_seqs 128 fill unset values only."""
    assert max_model_len_default(state()) == {LEN: 8192}
    assert max_model_len_default(state({LEN: 5})) is None
    assert max_num_seqs_default(state()) == {SEQ: 128}
    assert max_num_seqs_default(state({SEQ: 5})) is None


def test_copies_from_model() -> None:
    """runner_type, is_multimodal_model and is_encoder_decoder follow the model; no model, no copy."""
    s = state({"model_config": True, "model_config.runner_type": "pooling", "model_config.is_multimodal_model": True,
               "model_config.is_encoder_decoder": True})
    assert runner_type_from_model(s) == {"scheduler_config.runner_type": "pooling"}
    assert is_multimodal_from_model(s) == {"scheduler_config.is_multimodal_model": True}
    assert is_encoder_decoder_from_model(s) == {"scheduler_config.is_encoder_decoder": True}
    assert runner_type_from_model(state({"model_config": None, "model_config.runner_type": "pooling"})) is None


@pytest.mark.parametrize("encdec", [True, False])
def test_encoder_decoder_no_chunked_prefill(encdec: bool) -> None:
    """Encoder-decoder schedulers get chunked prefill off and chunked mm input disabled."""
    out = encoder_decoder_no_chunked_prefill(state({"scheduler_config.is_encoder_decoder": encdec}))
    if encdec:
        assert out == {"scheduler_config.disable_chunked_mm_input": True, CPE: False, ECP: False,
                       "scheduler_config.long_prefill_token_threshold": 0}
    else:
        assert out is None


@pytest.mark.parametrize(
    ("cp", "length", "seqs", "runner", "mm", "expected"),
    [
        (None, 4096, 128, "generate", False, 4096),      # golden case 01
        (None, 1024, 128, "generate", False, 2048),
        (True, 131072, 128, "generate", False, 2048),
        (None, 512, 128, "pooling", False, 32768),
        (None, 448, 128, "generate", True, 5120),
        (None, 448, 4, "generate", True, 1792),          # capped at seqs x len
    ],
)
def test_max_num_batched_tokens_default(cp: bool | None, length: int, seqs: int, runner: str, mm: bool,
                                        expected: int) -> None:
    """SchedulerConfig's budget chain: 2048 / max(len, 2048), pooling >= 32768, multimodal >= 5120, <= seqs x len."""
    s = state({TOK: None, ECP: cp, LEN: length, SEQ: seqs, "scheduler_config.runner_type": runner,
               "scheduler_config.is_multimodal_model": mm})
    assert max_num_batched_tokens_default(s) == {TOK: expected}
    assert max_num_batched_tokens_default(state({TOK: 7, LEN: 1, SEQ: 1})) is None


def test_encoder_budgets_and_chunked_flag() -> None:
    """Encoder budgets copy the token budget; chunked_prefill_enabled copies the intent (None stays None)."""
    assert encoder_budgets(state({TOK: 99})) == {"scheduler_config.max_num_encoder_input_tokens": 99,
                                                 "scheduler_config.encoder_cache_size": 99}
    got = decide(chunked_prefill_enabled, state({ECP: True, TOK: 8192}))
    assert got.changes == {CPE: True}
    assert got.messages == ["Chunked prefill is enabled with max_num_batched_tokens=8192."]
    assert chunked_prefill_enabled(state({ECP: None, CPE: None})) is None
    assert _changes(chunked_prefill_enabled(state({ECP: False, CPE: None}))) == {CPE: False}


@pytest.mark.parametrize(("parts", "thr", "expected"), [(2, 0, 163), (2, 50, 50), (1, 0, None)])
def test_long_prefill_threshold_default(parts: int, thr: int, expected: int | None) -> None:
    """With partial prefills > 1 a zero threshold becomes 4 % of max_model_len."""
    out = long_prefill_threshold_default(state({"scheduler_config.max_num_partial_prefills": parts,
                                                "scheduler_config.long_prefill_token_threshold": thr, LEN: 4096}))
    assert _changes(out) == (None if expected is None else {"scheduler_config.long_prefill_token_threshold": expected})


def test_scheduler_cls() -> None:
    """scheduler_cls defaults to the V1 Scheduler; async scheduling picks the AsyncScheduler."""
    assert scheduler_cls_default(state()) == {"scheduler_config.scheduler_cls": "vllm.v1.core.sched.scheduler.Scheduler"}
    assert scheduler_cls_default(state({"scheduler_config.scheduler_cls": "x"})) is None
    assert async_scheduler_cls(state({"scheduler_config.async_scheduling": True})) == {
        "scheduler_config.scheduler_cls": "vllm.v1.core.sched.async_scheduler.AsyncScheduler"}
    assert async_scheduler_cls(state()) is None


@pytest.mark.parametrize(("tok", "length", "cpe", "ok"),
                         [(2048, 4096, None, False), (2048, 4096, True, True), (4096, 4096, False, True)])
def test_budget_below_max_model_len(tok: int, length: int, cpe: bool | None, ok: bool) -> None:
    """Without (effective) chunked prefill the budget must cover max_model_len; vLLM's text."""
    out = budget_below_max_model_len(state({TOK: tok, LEN: length, CPE: cpe}))
    assert (out is None) == ok
    if not ok:
        assert isinstance(out, Violation) and out.message.startswith(
            f"max_num_batched_tokens ({tok}) is smaller than max_model_len ({length}). This effectively limits")


def test_budget_vs_seqs() -> None:
    """Budget < seqs is an error; budget > seqs x len a warning."""
    assert isinstance(budget_below_max_num_seqs(state({TOK: 10, SEQ: 20})), Violation)
    assert budget_below_max_num_seqs(state({TOK: 20, SEQ: 20})) is None
    assert decide(budget_exceeds_seqs_times_len, state({TOK: 100, SEQ: 2, LEN: 10})).messages == [
        "max_num_batched_tokens (100) exceeds max_num_seqs * max_model_len (20). This may lead to unexpected behavior."]
    assert budget_exceeds_seqs_times_len(state({TOK: 20, SEQ: 2, LEN: 10})) is None


@pytest.mark.parametrize(
    ("values", "start"),
    [
        ({"scheduler_config.num_lookahead_slots": -1}, "num_lookahead_slots (-1)"),
        ({"scheduler_config.max_num_partial_prefills": 0}, "max_num_partial_prefills (0)"),
        ({"scheduler_config.max_num_partial_prefills": 2}, "Chunked prefill must be enabled"),
        ({"scheduler_config.max_num_partial_prefills": 2, CPE: True, "scheduler_config.long_prefill_token_threshold": 9999},
         "long_prefill_token_threshold (9999)"),
        ({"scheduler_config.max_long_partial_prefills": 2}, "max_long_partial_prefills (2)"),
        ({"scheduler_config.max_num_partial_prefills": 2, CPE: True, "scheduler_config.max_long_partial_prefills": 2,
          "scheduler_config.long_prefill_token_threshold": 10}, None),
        ({}, None),
    ],
)
def test_partial_prefill_limits(values: dict[str, Any], start: str | None) -> None:
    """SchedulerConfig's range checks, in vLLM's order and texts."""
    out = partial_prefill_limits(state({LEN: 4096, **values}))
    assert (out.message[: len(start)] if isinstance(out, Violation) and start else None) == start
    assert (out is None) == (start is None)


# =========================================================================== CompilationConfig


def test_level_to_mode() -> None:
    """level fills an unset mode with the deprecation warning; a given mode wins; no level, no rule."""
    got = decide(level_to_mode, state({"compilation_config.level": 3}))
    assert got.changes == {"compilation_config.mode": CompilationMode.VLLM_COMPILE}
    assert got.messages[0].startswith("Level is deprecated")
    got = decide(level_to_mode, state({"compilation_config.level": 3, "compilation_config.mode": 0}))
    assert not got.changes and got.messages[0].startswith("Level is deprecated")
    assert level_to_mode(state()) is None


@pytest.mark.parametrize(("ops", "count_ok", "syntax_ok"),
                         [(["all", "none"], False, True), (["none", "+rms_norm"], True, True),
                          (["rms_norm"], True, False), ([], True, True)])
def test_custom_ops_checks(ops: list[str], count_ok: bool, syntax_ok: bool) -> None:
    """At most one of all/none (AssertionError); every entry all/none/+op/-op (ValueError)."""
    s = state({"compilation_config.custom_ops": ops})
    assert (custom_ops_all_none_count(s) is None) == count_ok
    out = custom_op_syntax(s)
    assert (out is None) == syntax_ok
    if not syntax_ok:
        assert isinstance(out, Violation) and out.message.startswith("Invalid syntax 'rms_norm' for custom op")


def test_inductor_compile_config_defaults() -> None:
    """auto-functionalized-v2 off and combo kernels on, unless the user set those keys."""
    icc = "compilation_config.inductor_compile_config"
    assert inductor_auto_functionalized_v2(state()) == {icc: {"enable_auto_functionalized_v2": False}}
    assert inductor_auto_functionalized_v2(state({icc: {"enable_auto_functionalized_v2": True}})) is None
    assert inductor_combo_kernels(state()) == {icc: {"combo_kernels": True, "benchmark_combo_kernel": True}}
    assert inductor_combo_kernels(state({icc: {"benchmark_combo_kernel": False}})) is None


@pytest.mark.parametrize(
    ("use", "mode", "result"),
    [(True, None, None), (False, None, CUDAGraphMode.NONE), (False, "NONE", CUDAGraphMode.NONE), (False, "FULL", "error")],
)
def test_use_cudagraph_false(use: bool, mode: str | None, result: Any) -> None:
    """use_cudagraph=False migrates to NONE; with a non-NONE mode it is a ValueError."""
    out = use_cudagraph_false(state({"compilation_config.use_cudagraph": use, CGM: mode and CUDAGraphMode[mode]}))
    if result == "error":
        assert isinstance(out, Violation) and out.message.startswith("use_cudagraph and cudagraph_mode are mutually")
    elif result is None:
        assert out is None
    else:
        assert _changes(out) == {CGM: result}


@pytest.mark.parametrize(
    ("mode", "result", "quirk"),
    [(None, CUDAGraphMode.FULL, False), ("FULL_AND_PIECEWISE", CUDAGraphMode.FULL, True),
     ("FULL_DECODE_ONLY", CUDAGraphMode.FULL, True), ("FULL", None, False), ("PIECEWISE", "error", False)],
)
def test_full_cuda_graph(mode: str | None, result: Any, quirk: bool) -> None:
    """full_cuda_graph migrates to FULL, collapsing split modes (quirk I11); a mode without full graphs is an error."""
    s = state({"compilation_config.full_cuda_graph": True, CGM: mode and CUDAGraphMode[mode]})
    out = full_cuda_graph(s)
    if result == "error":
        assert isinstance(out, Violation) and out.message.startswith("full_cuda_graph and cudagraph_mode are mutually")
    else:
        assert _changes(out) == (None if result is None else {CGM: result})
    assert isinstance(full_cuda_graph_collapses_mode(s), Outcome) == quirk
    assert full_cuda_graph(state({"compilation_config.full_cuda_graph": False})) is None


@pytest.mark.parametrize(("use", "full"), [(False, False), (True, True), (False, True), (True, False)])
def test_deprecated_cudagraph_flags_warn_first(use: bool, full: bool) -> None:
    """Each deprecated flag logs vLLM's warning, also when the mode is already FULL or then conflicts (t003-t007)."""
    from postinit.rules.compilation import full_cuda_graph_deprecated, use_cudagraph_deprecated
    s = state({"compilation_config.use_cudagraph": use, "compilation_config.full_cuda_graph": full,
               CGM: CUDAGraphMode.FULL})
    u, f = decide(use_cudagraph_deprecated, s), decide(full_cuda_graph_deprecated, s)
    assert u.messages == ([] if use else ["use_cudagraph is deprecated, use cudagraph_mode=NONE instead."])
    assert f.messages == (["full_cuda_graph is deprecated, use cudagraph_mode=FULL instead."] if full else [])
    r = postinit.resolve({"compilation_config": {"full_cuda_graph": True, "cudagraph_mode": "PIECEWISE"}},
                         model="fixtures/llama", platform="h100")
    assert r.violations[0].rule == "compilation.full-cuda-graph"
    assert [e.rule for e in r.messages() if "deprecated" in e.message] == ["compilation.full-cuda-graph-deprecated"]


@pytest.mark.parametrize(("mode", "backend", "ok"),
                         [(3, "openxla", False), (3, "", True), (3, "eager", True), (2, "openxla", True)])
def test_piecewise_backend(mode: int, backend: str, ok: bool) -> None:
    """VLLM_COMPILE accepts only '', eager and inductor."""
    out = piecewise_backend(state({"compilation_config.mode": mode, "compilation_config.backend": backend}))
    assert (out is None) == ok


def test_backend_resolution() -> None:
    """use_inductor picks inductor/eager; an empty backend becomes the platform's simple backend."""
    assert use_inductor_backend(state({"compilation_config.use_inductor": False})) == {"compilation_config.backend": "eager"}
    assert use_inductor_backend(state()) is None
    assert backend_default(state()) == {"compilation_config.backend": "inductor"}
    assert backend_default(state(platform="tpu")) == {"compilation_config.backend": "openxla"}
    assert backend_default(state({"compilation_config.backend": "eager"})) is None


def test_fusion_without_noop() -> None:
    """Fusion passes without no-op elimination warn (both texts); with noop they do not."""
    out = fusion_without_noop(state({"compilation_config.pass_config.enable_fusion": True,
                                     "compilation_config.pass_config.enable_attn_fusion": True}))
    assert isinstance(out, Outcome) and out.message is not None and "RMSNorm/SiluMul" in out.message
    assert "Attention + quant" in out.message
    assert fusion_without_noop(state({"compilation_config.pass_config.enable_fusion": True,
                                      "compilation_config.pass_config.enable_noop": True})) is None


# =========================================================================== device, cache, LoRA, KV, speculative


@pytest.mark.parametrize(("device", "platform", "expected"),
                         [("auto", "h100", ("cuda", "cuda")), ("auto", "cpu", ("cpu", "cpu")),
                          ("auto", "tpu", ("tpu", None)), ("cpu", "h100", ("cpu", "cpu")), ("auto", "unspecified", None)])
def test_device_type(device: str, platform: str, expected: tuple[str, str | None] | None) -> None:
    """'auto' takes the platform's device type (RuntimeError when there is none); TPU's device is None."""
    plat = Platform() if platform == "unspecified" else platform
    out = device_type(state({"device_config.device": device}, platform=plat))
    if expected is None:
        assert isinstance(out, Violation) and out.error == "RuntimeError"
    else:
        assert out == {"device_config.device_type": expected[0], "device_config.device": expected[1]}


@pytest.mark.parametrize(("dtype", "fires"), [("fp8", True), ("fp8_e5m2", True), ("auto", False)])
def test_fp8_kv_cache_info(dtype: str, fires: bool) -> None:
    """An fp8 KV cache logs vLLM's accuracy note."""
    assert isinstance(fp8_kv_cache_info(state({"cache_config.cache_dtype": dtype})), Outcome) == fires


def test_lora_max_cpu_loras() -> None:
    """max_cpu_loras defaults to max_loras and must not be smaller."""
    assert max_cpu_loras_default(state({"lora_config": True, "lora_config.max_loras": 2})) == {"lora_config.max_cpu_loras": 2}
    assert max_cpu_loras_default(state({"lora_config": None})) is None
    out = max_cpu_loras_check(state({"lora_config": True, "lora_config.max_loras": 4, "lora_config.max_cpu_loras": 2}))
    assert isinstance(out, Violation) and out.message == "max_cpu_loras (2) must be >= max_loras (4)"
    assert max_cpu_loras_check(state({"lora_config": True, "lora_config.max_cpu_loras": 2})) is None


@pytest.mark.parametrize(("enabled", "expected"), [(True, "zmq"), (False, "null")])
def test_kv_events_publisher(enabled: bool, expected: str) -> None:
    """The publisher defaults to zmq with events on, null otherwise."""
    s = state({"kv_events_config": True, "kv_events_config.enable_kv_cache_events": enabled})
    assert kv_events_publisher_default(s) == {"kv_events_config.publisher": expected}
    assert kv_events_publisher_default(state()) is None


@pytest.mark.parametrize(("role", "fires"), [(None, True), ("kv_both", False)])
def test_kv_transfer_role_required(role: str | None, fires: bool) -> None:
    """A connector without kv_role is a ValueError (roles in get_args(KVRole) order, golden t039)."""
    out = kv_transfer_role_required(state({"kv_transfer_config": True, "kv_transfer_config.kv_connector": "X",
                                           "kv_transfer_config.kv_role": role}))
    assert isinstance(out, Violation) == fires
    if isinstance(out, Violation):
        assert out.message.endswith("supported roles are ('kv_producer', 'kv_both', 'kv_consumer')")


@pytest.mark.parametrize(("backend", "argv", "fires"), [
    ("auto", False, True), ("outlines", False, True), ("xgrammar", False, False), ("guidance", False, False),
    ("auto", True, False),
])
def test_structured_outputs_any_whitespace_backend(backend: str, argv: bool, fires: bool) -> None:
    """disable_any_whitespace only with xgrammar/guidance; with flags vLLM checked it while parsing (not again)."""
    out = structured_outputs_any_whitespace_backend(state({
        "usage.via_engine_args": argv, "structured_outputs_config.disable_any_whitespace": True,
        "structured_outputs_config.backend": backend}))
    assert isinstance(out, Violation) == fires
    if isinstance(out, Violation):
        assert out.message == "disable_any_whitespace is only supported for xgrammar and guidance backends."


@pytest.mark.parametrize(("backend", "argv", "fires"), [
    ("auto", False, True), ("xgrammar", False, True), ("guidance", False, False), ("auto", True, False)])
def test_structured_outputs_additional_properties_backend(backend: str, argv: bool, fires: bool) -> None:
    """disable_additional_properties only with guidance; with flags vLLM checked it while parsing (not again)."""
    out = structured_outputs_additional_properties_backend(state({
        "usage.via_engine_args": argv, "structured_outputs_config.disable_additional_properties": True,
        "structured_outputs_config.backend": backend}))
    assert isinstance(out, Violation) == fires


def test_speculative_method_normalization() -> None:
    """MTP aliases become mtp; models named ngram / EAGLE-* / *eagle3* set the method."""
    got = decide(mtp_method_normalized, state({"speculative_config": True, "speculative_config.method": "deepseek_mtp"}))
    assert got.changes == {"speculative_config.method": "mtp"}
    assert got.messages == ["method `deepseek_mtp` is deprecated and replaced with mtp."]
    assert mtp_method_normalized(state({"speculative_config": True, "speculative_config.method": "eagle"})) is None
    for model, method in (("ngram", "ngram"), ("yuhuili/EAGLE-LLaMA3-Instruct-8B", "eagle"),
                          ("AngelSlim/Qwen3-8B_eagle3", "eagle3"), ("fixtures/llama_draft", None)):
        out2 = method_from_model_name(state({"speculative_config": True, "speculative_config.model": model}))
        assert out2 == (None if method is None else {"speculative_config.method": method})


def test_speculative_draft_model_and_lookup() -> None:
    """mtp drafts with the target, ngram with "ngram", others need a model; lookup windows default."""
    base = {"speculative_config": True, "speculative_config.num_speculative_tokens": 2}
    mtp = {**base, "speculative_config.method": "mtp", "model_config": True, "model_config.model": "m"}
    assert draft_model_from_method(state(mtp)) == {"speculative_config.model": "m"}
    assert draft_model_from_method(state({**base, "speculative_config.method": "ngram"})) == {
        "speculative_config.model": "ngram"}
    assert isinstance(draft_model_from_method(state({**base, "speculative_config.method": "eagle"})), Violation)
    lk = "speculative_config.prompt_lookup_"
    assert prompt_lookup_defaults(state({**base, "speculative_config.method": "ngram"})) == {lk + "min": 5, lk + "max": 5}
    assert prompt_lookup_defaults(state({**base, "speculative_config.method": "ngram", lk + "max": 4})) == {
        lk + "min": 4, lk + "max": 4}
    assert isinstance(prompt_lookup_defaults(state({**base, "speculative_config.method": "ngram", lk + "min": 5,
                                                    lk + "max": 4})), Violation)
    assert prompt_lookup_defaults(state({**base, "speculative_config.method": "eagle"})) == {lk + "min": 0, lk + "max": 0}
    assert prompt_lookup_defaults(state()) is None


# =========================================================================== end to end (config mode)


def test_e2e_config_mode_scheduler_defaults() -> None:
    """Config mode (golden case 01): no EngineArgs defaults; budget = max(max_model_len, 2048), CP stays None."""
    r = postinit.resolve({"model_config": {"model": "fixtures/llama"}}, platform="h100", strict=True)
    assert r.ok, r.violations
    assert r.get(LEN) == r.get("model_config.max_model_len")
    assert r.get(TOK) == max(r.get(LEN), 2048) and r.get(SEQ) == 128
    assert r.get(ECP) is None
    assert r.get("parallel_config.all2all_backend") == "allgather_reducescatter"
    assert r.get("parallel_config.distributed_executor_backend") == "uni"
    assert r.get("compilation_config.backend") == "inductor"
    assert r.get("device_config.device_type") == "cuda"


def test_e2e_config_mode_no_model() -> None:
    """Without a model the scheduler falls back to 8192 / 128 and budget 8192."""
    r = postinit.resolve({"model_config": None}, platform="h100", strict=True)
    assert r.ok, r.violations
    assert (r.get(LEN), r.get(SEQ), r.get(TOK)) == (8192, 128, 8192)


_SPEC = {"speculative_config": True}


@pytest.mark.parametrize("method, model, n, tree, expected", [
    ("eagle", "draft", 2, None, "[(0,), (0, 0)]"),
    ("mtp", "target", 1, None, "[(0,)]"),
    ("eagle", "draft", 2, "[(0, 0), (1,), (0,)]", "[(0,), (1,), (0, 0)]"),
    ("eagle", "draft", None, None, None),
    ("ngram", "ngram", 3, None, None),
])
def test_token_tree(method: str, model: str, n: int | None, tree: str | None, expected: str | None) -> None:
    """Model-based drafters get a chain tree, or the user's tree sorted breadth-first; n-gram none."""
    from postinit.rules.speculative import token_tree
    s = state({**_SPEC, "speculative_config.method": method, "speculative_config.model": model,
               "speculative_config.num_speculative_tokens": n, "speculative_config.speculative_token_tree": tree})
    out = token_tree(s)
    assert (out["speculative_config.speculative_token_tree"] if out else None) == expected


@pytest.mark.parametrize("method, draft, tp, expected", [
    ("eagle", None, 4, 4), ("eagle", 1, 4, None), ("eagle", 4, 4, None), ("ngram", None, 4, None),
    ("eagle", 2, 4, "violation"),
])
def test_draft_tensor_parallel_size(method: str, draft: int | None, tp: int, expected: Any) -> None:
    """The draft's TP defaults to the target's; only 1 or the target's TP are allowed."""
    from postinit.rules.speculative import draft_tensor_parallel_size
    s = state({**_SPEC, "speculative_config.method": method, "speculative_config.model": "m",
               "speculative_config.draft_tensor_parallel_size": draft, "parallel_config.tensor_parallel_size": tp})
    out = draft_tensor_parallel_size(s)
    if expected == "violation":
        assert isinstance(out, Violation) and out.error == "ValueError"
        assert out.message.startswith("speculative_draft_tensor_parallel_size=2 cannot be other value than 1")
    else:
        assert (out["speculative_config.draft_tensor_parallel_size"] if out else None) == expected


@pytest.mark.parametrize("model_type, archs, method, expected", [
    ("deepseek_v3", ["DeepseekV3ForCausalLM"], "mtp", "DeepSeekMTPModel"),
    ("qwen3_next", ["Qwen3NextForCausalLM"], "mtp", "Qwen3NextMTP"),
    ("glm4_moe", ["Glm4MoeForCausalLM"], "mtp", "Glm4MoeMTPModel"),
    ("deepseek_v3", ["DeepseekV3ForCausalLM"], "eagle", None),
    ("llama", ["LlamaForCausalLM"], "mtp", None),
])
def test_mtp_draft_architecture(model_type: str, archs: list[str], method: str, expected: str | None) -> None:
    """The MTP draft's ModelConfig logs its architecture from hf_config_override (golden 33-mtp-deepseek)."""
    from postinit.rules.speculative import mtp_draft_architecture
    s = state({**_SPEC, "speculative_config.method": method, "model_config": True, "speculative_config.model": "m",
               "model_config.hf_config.model_type": model_type, "model_config.hf_config.architectures": archs})
    got = decide(mtp_draft_architecture, s)
    assert not got.changes
    assert got.messages == ([] if expected is None else [f"Resolved architecture: {expected}"])


def test_ngram_draft_verified_at_speculative_config() -> None:
    """n-gram drafts are the target: DCP vs KV heads raises while SpeculativeConfig is built (golden g134-cfg).

    vLLM fails before VllmConfig, so none of step 2's hybrid-model messages is logged.
    """
    r = postinit.resolve({"model_config": {"model": "fixtures/jamba"},
                          "parallel_config": {"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
                          "speculative_config": {"method": "ngram", "num_speculative_tokens": 3,
                                                 "prompt_lookup_max": 4}}, platform="h100")
    assert not r.ok
    v = r.violations[0]
    assert (v.rule, v.error, v.stage) == ("speculative.draft-verify-with-parallel-config", "AssertionError",
                                          "speculative_config")
    assert v.message == ("tensor parallel size 4 must be greater than total num kv heads 4 when enable decode "
                         "context parallel for GQA/MQA")
    assert not [e for e in r.messages() if e.phase in ("model", "verify", "core")]


def test_mtp_draft_verified_on_its_own_parallel_config() -> None:
    """An MTP draft runs on a fresh ParallelConfig (no DCP): DCP alone does not fail it, heads % TP does."""
    from postinit.rules.speculative import draft_verify_with_parallel_config
    base = {**_SPEC, "speculative_config.method": "mtp", "model_config": True,
            "model_config.hf_text_config.num_attention_heads": 8, "model_config.hf_text_config.num_key_value_heads": 8,
            "parallel_config.tensor_parallel_size": 4, "parallel_config.decode_context_parallel_size": 2}
    assert draft_verify_with_parallel_config(state(base)) is None
    out = draft_verify_with_parallel_config(state({**base, "speculative_config.draft_tensor_parallel_size": 3}))
    assert isinstance(out, Violation)
    assert out.message == "Total number of attention heads (8) must be divisible by tensor parallel size (3)."
    ngram = draft_verify_with_parallel_config(state({**base, "speculative_config.method": "ngram"}))
    assert isinstance(ngram, Violation) and ngram.error == "AssertionError"
    assert draft_verify_with_parallel_config(state({**base, "speculative_config.method": "eagle"})) is None
