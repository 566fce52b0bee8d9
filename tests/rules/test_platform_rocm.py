"""ROCm platform hook rules (reference §7.5)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.rules._kit import state
from postinit.rules.platforms.rocm import (
    aiter_rms_norm,
    block_size_default,
    rms_norm_under_eager,
    worker_cls,
)
from postinit.schema import CUDAGraphMode

AITER = {"VLLM_ROCM_USE_AITER": "1"}


@pytest.mark.parametrize(
    ("platform", "bs", "expected"),
    [("mi300x", None, {"cache_config.block_size": 16}), ("mi300x", 32, None), ("h100", None, None)],
)
def test_block_size_default(platform: str, bs: int | None, expected: Any) -> None:
    """An unset block size on ROCm becomes 16."""
    assert block_size_default(state({"cache_config.block_size": bs}, platform=platform)) == expected


@pytest.mark.parametrize(
    ("platform", "value", "expected"),
    [
        ("mi300x", "auto", {"parallel_config.worker_cls": "vllm.v1.worker.gpu_worker.Worker"}),
        ("mi300x", "x.W", None),
        ("h100", "auto", None),
    ],
)
def test_worker_cls(platform: str, value: str, expected: Any) -> None:
    """Only an "auto" worker class on ROCm becomes the GPU worker."""
    assert worker_cls(state({"parallel_config.worker_cls": value}, platform=platform)) == expected


@pytest.mark.parametrize(
    ("env", "ops", "expected"),
    [
        (AITER, ["none"], ["none", "+rms_norm"]),
        (AITER, ["none", "+rms_norm"], ["none", "+rms_norm", "+rms_norm"]),
        (AITER, ["none", "-rms_norm"], None),
        ({**AITER, "VLLM_ROCM_USE_AITER_RMSNORM": "0"}, ["none"], None),
        ({**AITER, "VLLM_USE_V1": "0"}, ["none"], None),
        ({}, ["none"], None),
    ],
)
def test_aiter_rms_norm(env: dict[str, str], ops: list[str], expected: Any) -> None:
    """V1 + AITER + AITER rms norm append '+rms_norm' unless '-rms_norm' is present (no duplicate check)."""
    out = aiter_rms_norm(state({"compilation_config.custom_ops": ops}, platform="mi300x", env=env))
    assert (None if out is None else list(out["compilation_config.custom_ops"])) == expected


@pytest.mark.parametrize(
    ("mode", "fires"), [(CUDAGraphMode.NONE, True), (CUDAGraphMode.FULL_AND_PIECEWISE, False)]
)
def test_rms_norm_under_eager(mode: CUDAGraphMode, fires: bool) -> None:
    """The I15 quirk warns when '+rms_norm' was added although cudagraph_mode is NONE."""
    s = state(
        {
            "compilation_config.custom_ops": ["none", "+rms_norm"],
            "compilation_config.cudagraph_mode": mode,
        },
        platform="mi300x",
        env=AITER,
    )
    assert (rms_norm_under_eager(s) is not None) == fires


def test_aiter_end_to_end() -> None:
    """ROCm with AITER appends '+rms_norm' after the custom-op default (golden 35)."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/llama"}},
        platform="rocm:gfx942",
        env=AITER,
        strict=True,
    )
    assert list(r.get("compilation_config.custom_ops")) == ["none", "+rms_norm"]
    assert r.get("cache_config.block_size") == 16


def test_aiter_eager_end_to_end_quirk() -> None:
    """Under enforce_eager the append still happens and quirk I15 is reported."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/llama", "enforce_eager": True}},
        platform="rocm:gfx942",
        env=AITER,
        strict=True,
    )
    assert "+rms_norm" in r.get("compilation_config.custom_ops")
    assert any(e.rule == "quirk.rocm-rms-norm-under-eager" for e in r.trace.fired)
