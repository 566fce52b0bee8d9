"""Phase ``core`` CUDA-graph rules (step 12, §5.3-5.4, I2)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules._kit import state
from postinit.rules.cudagraph import (
    FULL_GRAPH_SUPPORT,
    SET_CUDAGRAPH_SIZES,
    blackwell_long_context_forces_piecewise,
    capture_sizes,
    compile_sizes,
    cudagraph_without_capture_sizes,
    dcp_forces_piecewise,
    default_mode,
    eager_disables,
    encoder_decoder_forces_piecewise,
    no_static_graph_support,
    padding_table,
    pooling_forces_piecewise,
    sp_filters_capture_sizes,
    truncate_max_capture_size,
    user_capture_sizes_overridden,
    warmups,
)
from postinit.schema import CompilationMode, CUDAGraphMode

M = CUDAGraphMode
MODE = "compilation_config.cudagraph_mode"
MAX = "compilation_config.max_cudagraph_capture_size"
SIZES = "compilation_config.cudagraph_capture_sizes"
SCHED = {"scheduler_config.max_num_seqs": 256, "scheduler_config.max_num_batched_tokens": 8192}
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
DEFAULT_512 = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]


@pytest.mark.parametrize(
    ("mode", "v1", "expected"),
    [(3, "1", M.FULL_AND_PIECEWISE), (2, "1", M.NONE), (0, "1", M.NONE), (3, "0", M.NONE)],
)
def test_default_mode(mode: int, v1: str, expected: CUDAGraphMode) -> None:
    """12a: FULL_AND_PIECEWISE only under V1 with VLLM_COMPILE."""
    s = state({"compilation_config.mode": CompilationMode(mode)}, env={"VLLM_USE_V1": v1})
    assert default_mode(s) == {MODE: expected}


@pytest.mark.parametrize(("values", "platform"), [({MODE: M.PIECEWISE}, "h100"), ({}, "cpu")])
def test_default_mode_does_not_fire(values: dict[str, Any], platform: str) -> None:
    """12a leaves a user mode alone and does not run without static graph support."""
    assert default_mode(state({"compilation_config.mode": CompilationMode.VLLM_COMPILE, **values}, platform=platform)) is None


@pytest.mark.parametrize(
    ("mode", "dcp", "fires"),
    [(M.FULL, 2, True), (M.FULL_DECODE_ONLY, 2, True), (M.FULL_AND_PIECEWISE, 2, True), (M.PIECEWISE, 2, False),
     (M.FULL_AND_PIECEWISE, 1, False)],
)
def test_dcp_forces_piecewise(mode: CUDAGraphMode, dcp: int, fires: bool) -> None:
    """12b(i): DCP > 1 downgrades every full-graph mode, user-set or not (the group's gate: a full mode)."""
    got = decide(FULL_GRAPH_SUPPORT, state({MODE: mode, "parallel_config.decode_context_parallel_size": dcp}))
    assert got.changes == ({MODE: M.PIECEWISE} if fires else {})
    assert got.rules == (["cudagraph.dcp-forces-piecewise"] if fires else [])
    assert dcp_forces_piecewise(state({"parallel_config.decode_context_parallel_size": dcp})) == (
        {MODE: M.PIECEWISE} if dcp > 1 else None)


def test_full_graph_support_is_first_match() -> None:
    """DCP and pooling both apply: DCP decides, pooling is not tried (vLLM's elif)."""
    got = decide(FULL_GRAPH_SUPPORT, state({MODE: M.FULL, "parallel_config.decode_context_parallel_size": 2,
                                            "model_config": True, "model_config.pooler_config": True}))
    assert got.rules == ["cudagraph.dcp-forces-piecewise"]
    assert got.messages == ["Decode context parallel (DCP) is enabled, which is incompatible with full CUDA "
                            "graphs. Overriding cudagraph_mode to PIECEWISE."]


@pytest.mark.parametrize(("model", "pooler", "fires"), [(True, True, True), (True, None, False), (None, True, False)])
def test_pooling_forces_piecewise(model: Any, pooler: Any, fires: bool) -> None:
    """12b(ii): a pooler_config (with a model) downgrades full graphs."""
    s = state({MODE: M.FULL, "model_config": model, "model_config.pooler_config": pooler})
    assert pooling_forces_piecewise(s) == ({MODE: M.PIECEWISE} if fires else None)


@pytest.mark.parametrize(("encdec", "fires"), [(True, True), (False, False)])
def test_encoder_decoder_forces_piecewise(encdec: bool, fires: bool) -> None:
    """12b(iii): encoder-decoder models downgrade full graphs."""
    s = state({MODE: M.FULL_AND_PIECEWISE, "model_config": True, "model_config.is_encoder_decoder": encdec})
    assert encoder_decoder_forces_piecewise(s) == ({MODE: M.PIECEWISE} if fires else None)


@pytest.mark.parametrize(
    ("platform", "length", "mla", "fires"),
    [("b200", 200_000, False, True), ("b200", 131072, False, False), ("b200", 200_000, True, False),
     ("b300", 200_000, False, False), ("h100", 200_000, False, False)],
)
def test_blackwell_long_context(platform: str, length: int, mla: bool, fires: bool) -> None:
    """12b(iv): exactly SM 10.0, max_model_len > 131072, not MLA."""
    s = state({MODE: M.FULL_AND_PIECEWISE, "model_config": True, "model_config.max_model_len": length,
               "model_config.use_mla": mla}, platform=platform)
    got = decide(blackwell_long_context_forces_piecewise, s)
    assert bool(got) is fires
    if fires:
        assert got.changes == {MODE: M.PIECEWISE} and "(found 200000)" in got.messages[0]


@pytest.mark.parametrize(("eager", "fires"), [(True, True), (False, False)])
def test_eager_disables(eager: bool, fires: bool) -> None:
    """12c: enforce_eager → NONE, max 0, no sizes (and the info line)."""
    out = eager_disables(state({"model_config": True, "model_config.enforce_eager": eager, MODE: M.PIECEWISE}))
    assert isinstance(out, Outcome) is fires
    if isinstance(out, Outcome):
        assert out.changes == {MODE: M.NONE, MAX: 0, SIZES: ()}


@pytest.mark.parametrize(
    ("model", "eager", "v1", "fires"),
    [(True, False, "1", True), (None, False, "1", True), (True, True, "1", False), (True, False, "0", False)],
)
def test_warmups(model: Any, eager: bool, v1: str, fires: bool) -> None:
    """12c: one warm-up under V1 unless a model is eager."""
    s = state({"model_config": model, "model_config.enforce_eager": eager}, env={"VLLM_USE_V1": v1})
    assert warmups(s) == ({"compilation_config.cudagraph_num_of_warmups": 1} if fires else None)


def _sizes(**values: Any) -> dict[str, Any]:
    return {"model_config": True, MODE: M.FULL_AND_PIECEWISE, **SCHED, **values}


@pytest.mark.parametrize(
    ("values", "expected_max", "expected_sizes"),
    [
        ({}, 512, DEFAULT_512),
        ({"scheduler_config.max_num_seqs": 128}, 256, [1, 2, 4, *range(8, 257, 8)]),
        ({"scheduler_config.max_num_batched_tokens": 6}, 4, [1, 2, 4]),
        ({MAX: 992}, 992, [1, 2, 4, *range(8, 256, 8), *range(256, 993, 16)]),
        ({MAX: 257}, 256, [1, 2, 4, *range(8, 256, 8), 256]),
        ({SIZES: [8, 4, 4, 1]}, 8, [1, 4, 8]),
        ({SIZES: [16384]}, 16384, [16384]),
        ({SIZES: [1, 2, 4, 15], "parallel_config.tensor_parallel_size": 2,
          "compilation_config.pass_config.enable_sequence_parallelism": True}, 4, [2, 4]),
        ({"model_config": None}, 0, []),
        ({MODE: M.NONE}, 0, []),
    ],
)
def test_capture_sizes(values: dict[str, Any], expected_max: int, expected_sizes: list[int]) -> None:
    """§5.3 examples: defaults, token cap, GptOss 992, truncation, user lists (not clipped), SP filter, inactive branch."""
    out = capture_sizes(state(_sizes(**values)))
    assert out == {MAX: expected_max, SIZES: tuple(expected_sizes)}


def test_capture_sizes_default_counts() -> None:
    """M=512 gives 51 sizes and GptOss' 992 gives 81."""
    assert len(DEFAULT_512) == 51
    out = capture_sizes(state(_sizes(**{MAX: 992})))
    assert isinstance(out, dict) and len(out[SIZES]) == 81


@pytest.mark.parametrize(
    ("values", "error", "text"),
    [
        ({MAX: 4, SIZES: [1, 2, 8]}, "ValueError",
         "customized max_cudagraph_capture_size(=4) should be consistent with the max value of cudagraph_capture_sizes(=8)"),
        ({SIZES: []}, "AssertionError", "cudagraph_capture_sizes should contain at least one element when using cuda graph."),
        ({MAX: 0}, "AssertionError", "Maximum cudagraph size should be greater than or equal to 1 when using cuda graph."),
    ],
)
def test_capture_sizes_errors(values: dict[str, Any], error: str, text: str) -> None:
    """Inconsistent user max and list is a ValueError; an empty list or max < 1 a bare assert with vLLM's text."""
    out = capture_sizes(state(_sizes(**values)))
    assert isinstance(out, Violation) and out.error == error and out.message == text


def test_capture_sizes_not_on_cpu() -> None:
    """12-else: no size computation off static-graph platforms."""
    assert capture_sizes(state(_sizes(), platform="cpu")) is None


def test_sp_filter_warning() -> None:
    """The SP filter names the removed sizes and the TP size."""
    s = state(_sizes(**{SIZES: [1, 2, 4, 15], "parallel_config.tensor_parallel_size": 2,
                        "compilation_config.pass_config.enable_sequence_parallelism": True}))
    assert decide(sp_filters_capture_sizes, s).messages == [
        "Batch sizes [1, 15] are removed because they are not multiple of tp_size 2 "
        "when sequence parallelism is enabled"]
    whole = decide(SET_CUDAGRAPH_SIZES, s)  # the warning, then the sizes: one statement
    assert whole.rules == ["cudagraph.sp-filters-capture-sizes", "cudagraph.user-capture-sizes-overridden",
                           "cudagraph.capture-sizes"]
    assert whole.changes[SIZES] == (2, 4)
    assert sp_filters_capture_sizes(state(_sizes(**{SIZES: [2, 4], "parallel_config.tensor_parallel_size": 2}))) is None


@pytest.mark.parametrize(("values", "fires"), [({MAX: 257}, True), ({MAX: 256}, False), ({MAX: 4, SIZES: [8]}, False)])
def test_truncate_warning(values: dict[str, Any], fires: bool) -> None:
    """Truncation warns only when the user gave a max but no list."""
    got = decide(truncate_max_capture_size, state(_sizes(**values)))
    assert got.messages == (["Truncating max_cudagraph_capture_size to 256"] if fires else [])


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({SIZES: [8, 4, 4]}, "cudagraph_capture_sizes specified in compilation_config [8, 4, 4] is overridden by config [4, 8]"),
        ({SIZES: [8, 4]}, None),
        ({SIZES: [8, 8], MAX: 4}, None),
    ],
)
def test_user_sizes_overridden(values: dict[str, Any], message: str | None) -> None:
    """A shorter list warns with both lists; not when the ValueError comes first."""
    got = decide(user_capture_sizes_overridden, state(_sizes(**values)))
    assert got.messages == ([message] if message else [])


@pytest.mark.parametrize(
    ("sizes", "mx", "table"),
    [([1, 2, 4, 8], 8, [0, 1, 2, 4, 4, 8, 8, 8, 8]), ([], 0, [0]), ([3], 3, [0, 3, 3, 3])],
)
def test_padding_table(sizes: list[int], mx: int, table: list[int]) -> None:
    """§5.4: index = batch size, value = the smallest capture size that fits."""
    assert padding_table(state({SIZES: sizes, MAX: mx})) == {"compilation_config.bs_to_padded_graph_size": tuple(table)}


def test_padding_table_assert_and_cpu() -> None:
    """A largest size unequal to the max is a bare assert; nothing is built on CPU."""
    out = padding_table(state({SIZES: [1, 2], MAX: 4}))
    assert isinstance(out, Violation) and out.error == "AssertionError"
    assert padding_table(state({SIZES: [1], MAX: 1}, platform="cpu")) is None


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, ()), ([8, 4, 8], tuple(set([8, 4, 8]))), (["cudagraph_capture_sizes"], (1, 2))],
)
def test_compile_sizes(given: Any, expected: tuple[int, ...]) -> None:
    """§5.4: None → [], de-duplicated, the string expands to the capture list."""
    out = compile_sizes(state({"compilation_config.compile_sizes": given, SIZES: [1, 2]}))
    assert out == {"compilation_config.compile_sizes": expected}


def test_compile_sizes_bad_string() -> None:
    """Any other string is vLLM's assertion."""
    out = compile_sizes(state({"compilation_config.compile_sizes": ["all"], SIZES: [1]}))
    assert isinstance(out, Violation) and out.error == "AssertionError" and out.message.endswith("got all")


@pytest.mark.parametrize(("platform", "expected"), [("cpu", {MODE: M.NONE}), ("h100", None)])
def test_no_static_graph_support(platform: str, expected: Any) -> None:
    """12-else: only platforms without static graph mode get NONE here."""
    assert no_static_graph_support(state({MODE: M.FULL}, platform=platform)) == expected


@pytest.mark.parametrize(("mode", "sizes", "fires"), [(M.PIECEWISE, [], True), (M.PIECEWISE, [2], False), (M.NONE, [], False)])
def test_quirk_cudagraph_without_capture_sizes(mode: CUDAGraphMode, sizes: list[int], fires: bool) -> None:
    """I2: a graph mode with nothing to capture is made visible."""
    out = cudagraph_without_capture_sizes(state({MODE: mode, SIZES: sizes}))
    assert isinstance(out, Outcome) is fires


# ---- end to end (strict) ---------------------------------------------------------------------


def _resolve(config: dict[str, Any], **kw: Any) -> postinit.Resolution:
    base: dict[str, Any] = {
        "compilation_config": {"backend": "inductor"},
        "scheduler_config": {"max_num_seqs": 128, "max_num_batched_tokens": 8192, "max_model_len": 4096},
    }
    for k, v in config.items():
        base[k] = {**base.get(k, {}), **v}
    return postinit.resolve(base, strict=True, **kw)


def test_end_to_end_no_model_mode3_is_i2() -> None:
    """A user mode 3 without a model: FULL_AND_PIECEWISE with no sizes (I2), padding [0]."""
    r = _resolve({"compilation_config": {"mode": 3}})
    assert r.get(MODE) is M.FULL_AND_PIECEWISE
    assert list(r.get(SIZES)) == [] and r.get(MAX) == 0
    assert list(r.get("compilation_config.bs_to_padded_graph_size")) == [0]
    assert any(f.rule == "quirk.cudagraph-without-capture-sizes" for f in r.messages("warning"))


def test_end_to_end_sp_filter_then_sizes() -> None:
    """SP with tp 2: warning first, then the filtered list; the warnings do not repeat after the write."""
    r = _resolve({"compilation_config": {"mode": 3, "cudagraph_capture_sizes": [1, 2, 4, 15],
                                         "pass_config": {"enable_sequence_parallelism": True}},
                  "parallel_config": {"tensor_parallel_size": 2}}, model=MODEL)
    assert list(r.get(SIZES)) == [2, 4] and r.get(MAX) == 4
    rules = [f.rule for f in r.messages("warning")]
    assert rules.count("cudagraph.sp-filters-capture-sizes") == 1
    assert rules.count("cudagraph.user-capture-sizes-overridden") == 1


def test_end_to_end_inconsistent_max_is_value_error() -> None:
    """Case 12: user max and list disagree → ValueError from cudagraph.capture-sizes."""
    r = _resolve({"compilation_config": {"mode": 3, "max_cudagraph_capture_size": 4,
                                         "cudagraph_capture_sizes": [1, 2, 8]}}, model=MODEL)
    assert not r.ok and r.violations[0].error == "ValueError" and r.violations[0].rule == "cudagraph.capture-sizes"


def test_end_to_end_cpu_skips_sizes() -> None:
    """CPU: mode NONE, sizes and padding table untouched (I3)."""
    r = _resolve({"compilation_config": {"mode": 3, "cudagraph_mode": "FULL"}}, platform="cpu")
    assert r.get(MODE) is M.NONE
    assert r.get("compilation_config.bs_to_padded_graph_size") is None
