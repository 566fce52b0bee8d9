"""CUDA platform hook rules (reference §7.4)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.rules._kit import state
from postinit.rules.platforms.cuda import (
    block_size_default,
    deepep_ht_disables_cudagraph,
    mla_backend_default,
    mla_block_size_cutlass,
    mla_block_size_flashinfer,
    mla_block_size_flashmla,
    mla_block_size_sparse,
    worker_cls,
)
from postinit.schema import CUDAGraphMode, Platform

MLA = {"model_config": True, "model_config.use_mla": True}


@pytest.mark.parametrize(
    ("platform", "value", "expected"),
    [
        ("h100", "auto", {"parallel_config.worker_cls": "vllm.v1.worker.gpu_worker.Worker"}),
        ("h100", "my.Worker", None),
        ("cpu", "auto", None),
    ],
)
def test_worker_cls(platform: str, value: str, expected: Any) -> None:
    """Only an "auto" worker class on CUDA becomes the GPU worker."""
    assert worker_cls(state({"parallel_config.worker_cls": value}, platform=platform)) == expected


@pytest.mark.parametrize(
    ("platform", "bs", "expected"),
    [("h100", None, {"cache_config.block_size": 16}), ("h100", 32, None), ("cpu", None, None)],
)
def test_block_size_default(platform: str, bs: int | None, expected: Any) -> None:
    """An unset block size on CUDA becomes 16."""
    assert block_size_default(state({"cache_config.block_size": bs}, platform=platform)) == expected


@pytest.mark.parametrize(
    ("platform", "env", "mla", "expected"),
    [
        ("b200", None, True, {"env.VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"}),
        ("b300", None, True, None),
        ("h100", None, True, None),
        ("b200", "FLASHMLA", True, None),
        ("b200", None, False, None),
    ],
)
def test_mla_backend_default(platform: str, env: str | None, mla: bool, expected: Any) -> None:
    """Exactly SM 10.0 with MLA and no backend chosen writes CUTLASS_MLA to the env fact."""
    s = state(
        {
            **MLA,
            "model_config.use_mla": mla,
            "cache_config.block_size": 16,
            "env.VLLM_ATTENTION_BACKEND": env,
        },
        platform=platform,
    )
    assert mla_backend_default(s) == expected


@pytest.mark.parametrize(
    ("platform", "env", "bs", "flashmla", "expected"),
    [
        ("h100", None, 16, True, {"cache_config.block_size": 64}),
        ("h100", None, 128, True, None),
        ("h100", None, 16, False, None),
        ("a100", None, 16, True, None),
        ("b200", "FLASHMLA", 16, True, None),
        ("h100", "CUTLASS_MLA", 16, True, None),
    ],
)
def test_mla_block_size_flashmla(
    platform: str, env: str | None, bs: int, flashmla: bool, expected: Any
) -> None:
    """FlashMLA dense (built, Hopper) forces a multiple of 64."""
    plat = Platform.from_spec(platform).model_copy(update={"flashmla_available": flashmla})
    s = state(
        {**MLA, "cache_config.block_size": bs, "env.VLLM_ATTENTION_BACKEND": env}, platform=plat
    )
    assert mla_block_size_flashmla(s) == expected


@pytest.mark.parametrize(
    ("platform", "env", "bs", "expected"),
    [
        ("b200", None, 16, {"cache_config.block_size": 128}),
        ("h100", "CUTLASS_MLA", 64, {"cache_config.block_size": 128}),
        ("b200", "CUTLASS_MLA", 256, None),
        ("h100", None, 16, None),
    ],
)
def test_mla_block_size_cutlass(platform: str, env: str | None, bs: int, expected: Any) -> None:
    """CUTLASS_MLA forces a multiple of 128."""
    s = state(
        {**MLA, "cache_config.block_size": bs, "env.VLLM_ATTENTION_BACKEND": env}, platform=platform
    )
    assert mla_block_size_cutlass(s) == expected


@pytest.mark.parametrize(
    ("bs", "expected"), [(16, {"cache_config.block_size": 64}), (32, None), (128, None)]
)
def test_mla_block_size_flashinfer(bs: int, expected: Any) -> None:
    """FLASHINFER_MLA accepts 32 or multiples of 64."""
    s = state(
        {**MLA, "cache_config.block_size": bs, "env.VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"}
    )
    assert mla_block_size_flashinfer(s) == expected


@pytest.mark.parametrize(
    ("topk", "bs", "expected"),
    [(2048, 128, {"cache_config.block_size": 64}), (2048, 64, None), (None, 16, None)],
)
def test_mla_block_size_sparse(topk: int | None, bs: int, expected: Any) -> None:
    """A sparse indexer (index_topk) forces exactly 64."""
    s = state(
        {**MLA, "cache_config.block_size": bs, "model_config.hf_config.index_topk": topk},
        platform="b200",
    )
    assert mla_block_size_sparse(s) == expected


@pytest.mark.parametrize(
    ("backend", "dp", "mode", "fires"),
    [
        ("deepep_high_throughput", 2, CUDAGraphMode.FULL_AND_PIECEWISE, True),
        ("deepep_high_throughput", 1, CUDAGraphMode.FULL_AND_PIECEWISE, False),
        ("deepep_low_latency", 2, CUDAGraphMode.PIECEWISE, False),
        ("deepep_high_throughput", 2, CUDAGraphMode.NONE, False),
    ],
)
def test_deepep_ht_disables_cudagraph(
    backend: str, dp: int, mode: CUDAGraphMode, fires: bool
) -> None:
    """DeepEP high-throughput with DP > 1 sets cudagraph_mode NONE."""
    s = state(
        {
            "parallel_config.all2all_backend": backend,
            "parallel_config.data_parallel_size": dp,
            "compilation_config.cudagraph_mode": mode,
        }
    )
    expected = {"compilation_config.cudagraph_mode": CUDAGraphMode.NONE} if fires else None
    assert deepep_ht_disables_cudagraph(s) == expected


def test_mla_blackwell_end_to_end() -> None:
    """DeepSeek-V3 on SM 10.0 ends with block size 128 and the CUTLASS_MLA env write (golden 15)."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/deepseek_v3"}}, platform="cuda:100", strict=True
    )
    assert r.get("cache_config.block_size") == 128
    assert r.get("env.VLLM_ATTENTION_BACKEND") == "CUTLASS_MLA"
    assert "Forcing kv cache block size to 128 for CUTLASS_MLA backend." in [
        e.message for e in r.messages("info")
    ]


def test_mla_hopper_end_to_end() -> None:
    """DeepSeek-V3 on H100 ends with block size 64 (FlashMLA) and no env write."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/deepseek_v3"}}, platform="h100", strict=True
    )
    assert r.get("cache_config.block_size") == 64
    assert r.get("env.VLLM_ATTENTION_BACKEND") is None
