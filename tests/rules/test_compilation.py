"""Phase ``core`` compilation rules (steps 7-11, I12)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules._kit import state
from postinit.rules.compilation import (
    async_tp_implies_sp,
    default_custom_ops,
    default_mode,
    mode_range,
    rms_norm_both_signs,
    sp_needs_rms_norm,
    turing_fp32_warning,
)
from postinit.schema import CompilationMode

NO_MODEL = {"model_config": None}


@pytest.mark.parametrize(
    ("values", "fires"),
    [
        ({"scheduler_config.chunked_prefill_enabled": True, "model_config.dtype": "float32"}, True),
        ({"scheduler_config.chunked_prefill_enabled": None, "model_config.dtype": "float32"}, False),
        ({"scheduler_config.chunked_prefill_enabled": True, "model_config.dtype": "float16"}, False),
        ({"scheduler_config.chunked_prefill_enabled": True, "model_config.dtype": "float32", **NO_MODEL}, False),
    ],
)
def test_turing_fp32_warning_on_t4(values: dict[str, Any], fires: bool) -> None:
    """On SM 7.5 the warning needs a model, chunked prefill truthy and dtype float32."""
    got = decide(turing_fp32_warning, state({"model_config": True, **values}, platform="t4"))
    assert bool(got) is fires
    if fires:
        assert got.messages[0].startswith("Turing devices")


def test_turing_fp32_warning_not_on_h100() -> None:
    """Any capability other than (7, 5) stays silent."""
    s = state({"model_config": True, "scheduler_config.chunked_prefill_enabled": True, "model_config.dtype": "float32"})
    assert turing_fp32_warning(s) is None


@pytest.mark.parametrize(
    ("v1", "model", "eager", "expected"),
    [
        ("1", True, False, CompilationMode.VLLM_COMPILE),
        ("1", True, True, CompilationMode.NONE),
        ("1", None, False, CompilationMode.NONE),
        ("0", True, False, CompilationMode.NONE),
    ],
)
def test_default_mode_truth_table(v1: str, model: Any, eager: bool, expected: CompilationMode) -> None:
    """Step 8: VLLM_COMPILE only under V1 with a model that is not eager."""
    s = state({"model_config": model, "model_config.enforce_eager": eager}, env={"VLLM_USE_V1": v1})
    assert default_mode(s) == {"compilation_config.mode": expected}


def test_default_mode_keeps_user_mode() -> None:
    """A mode the user set is never replaced."""
    assert default_mode(state({"compilation_config.mode": CompilationMode.NONE, "model_config": True})) is None


@pytest.mark.parametrize(("mode", "fires"), [(0, False), (3, False), (4, True), (-1, True), (None, False)])
def test_mode_range(mode: int | None, fires: bool) -> None:
    """Step 8': a mode outside 0..3 is a bare AssertionError."""
    out = mode_range(state({"compilation_config.mode": mode}))
    assert isinstance(out, Violation) is fires
    if fires:
        assert isinstance(out, Violation) and out.error == "AssertionError"


@pytest.mark.parametrize(
    ("ops", "backend", "mode", "expected"),
    [
        ([], "inductor", 3, ("none",)),
        ([], "inductor", 0, ("all",)),
        ([], "eager", 3, ("all",)),
        (["+rms_norm"], "inductor", 1, ("+rms_norm", "none")),
        (["all"], "inductor", 3, None),
        (["none", "+silu_and_mul"], "eager", 0, None),
    ],
)
def test_default_custom_ops(ops: list[str], backend: str, mode: int, expected: tuple[str, ...] | None) -> None:
    """Step 9: 'none' under inductor with mode > NONE, else 'all', only when neither is present."""
    s = state({"compilation_config.custom_ops": ops, "compilation_config.backend": backend,
               "compilation_config.mode": CompilationMode(mode)})
    out = default_custom_ops(s)
    assert out == (None if expected is None else {"compilation_config.custom_ops": expected})


@pytest.mark.parametrize(("async_tp", "expected"), [(True, {"compilation_config.pass_config.enable_sequence_parallelism": True}), (False, None)])
def test_async_tp_implies_sp(async_tp: bool, expected: Any) -> None:
    """Step 10: async TP switches sequence parallelism on."""
    assert async_tp_implies_sp(state({"compilation_config.pass_config.enable_async_tp": async_tp})) == expected


@pytest.mark.parametrize(
    ("sp", "ops", "expected"),
    [
        (True, ["none"], ("none", "+rms_norm")),
        (True, ["+rms_norm", "none"], ("+rms_norm", "none", "+rms_norm")),
        (False, ["none"], None),
    ],
)
def test_sp_needs_rms_norm(sp: bool, ops: list[str], expected: tuple[str, ...] | None) -> None:
    """Step 11: '+rms_norm' is appended with no duplicate check."""
    s = state({"compilation_config.pass_config.enable_sequence_parallelism": sp, "compilation_config.custom_ops": ops})
    out = sp_needs_rms_norm(s)
    assert out == (None if expected is None else {"compilation_config.custom_ops": expected})


@pytest.mark.parametrize(("ops", "fires"), [(["-rms_norm", "none", "+rms_norm"], True), (["none", "+rms_norm"], False)])
def test_rms_norm_both_signs(ops: list[str], fires: bool) -> None:
    """I12: both '-rms_norm' and '+rms_norm' present is a visible quirk."""
    out = rms_norm_both_signs(state({"compilation_config.custom_ops": ops}))
    assert isinstance(out, Outcome) is fires


def _core(config: dict[str, Any], **kw: Any) -> postinit.Resolution:
    base = {"compilation_config": {"backend": "inductor"},
            "scheduler_config": {"max_num_seqs": 128, "max_num_batched_tokens": 8192, "max_model_len": 4096}}
    for k, v in config.items():
        base[k] = {**base.get(k, {}), **v}
    return postinit.resolve(base, strict=True, **kw)


def test_end_to_end_no_model_defaults() -> None:
    """Without a model config: mode NONE, custom ops 'all', CUDA graphs NONE with empty sizes."""
    r = _core({})
    assert r.get("compilation_config.mode") == CompilationMode.NONE
    assert r.get("compilation_config.custom_ops")[0] == "all"


def test_end_to_end_async_tp_adds_rms_norm() -> None:
    """Async TP → SP → '+rms_norm' after the default 'all' (O10, O18 order)."""
    r = _core({"compilation_config": {"pass_config": {"enable_async_tp": True}, "custom_ops": ["-rms_norm"]}})
    assert r.get("compilation_config.pass_config.enable_sequence_parallelism") is True
    assert list(r.get("compilation_config.custom_ops"))[:3] == ["-rms_norm", "all", "+rms_norm"]
    assert any(f.rule == "quirk.rms-norm-both-signs" for f in r.messages("warning"))
