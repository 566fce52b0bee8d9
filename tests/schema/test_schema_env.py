"""Env parsing: vLLM's defaults, bool/int parsing, unknown variables and bad values."""

from __future__ import annotations

import pytest

from postinit.errors import InvalidValueError, UnknownFieldError
from postinit.schema import Env


def test_defaults() -> None:
    """An empty environment gives vLLM's defaults."""
    e = Env.from_mapping({})
    assert e.VLLM_USE_V1 is True and e.VLLM_ENABLE_V1_MULTIPROCESSING is True
    assert e.VLLM_ALL2ALL_BACKEND == "allgather_reducescatter" and not e.all2all_backend_set
    assert e.VLLM_WORKER_MULTIPROC_METHOD is None and e.VLLM_ATTENTION_BACKEND is None
    assert e.VLLM_CPU_KVCACHE_SPACE is None and e.VLLM_CPU_CI_ENV == "0"
    assert e.VLLM_ROCM_USE_AITER is False and e.VLLM_ROCM_USE_AITER_RMSNORM is True
    assert e.VLLM_BATCH_INVARIANT == 0 and e.VLLM_DP_SIZE == 1 and e.VLLM_DP_RANK_LOCAL == 0
    assert e.explicit == [] and e.OMP_NUM_THREADS is None


@pytest.mark.parametrize(
    ("raw", "expected"), [("0", False), ("1", True), ("true", True), ("False", False)]
)
def test_bool_parsing(raw: str, expected: bool) -> None:
    """bool variables accept 0/1/true/false in any case."""
    assert Env.from_mapping({"VLLM_MLA_DISABLE": raw}).VLLM_MLA_DISABLE is expected


def test_typed_values_and_explicit() -> None:
    """Ints parse, DP local rank defaults to the rank, and set variables are recorded."""
    e = Env.from_mapping(
        {
            "VLLM_CPU_KVCACHE_SPACE": "8",
            "VLLM_DP_RANK": "3",
            "VLLM_ALL2ALL_BACKEND": "deepep_low_latency",
            "VLLM_USE_V1": "0",
            "PATH": "/usr/bin",
            "OMP_NUM_THREADS": "4",
            "VLLM_LOGGING_LEVEL": "DEBUG",
        }
    )
    assert e.VLLM_CPU_KVCACHE_SPACE == 8 and e.VLLM_DP_RANK_LOCAL == 3
    assert e.all2all_backend_set and e.use_v1_set and e.VLLM_USE_V1 is False
    assert e.OMP_NUM_THREADS == "4"
    assert e.explicit == sorted(
        [
            "VLLM_CPU_KVCACHE_SPACE",
            "VLLM_DP_RANK",
            "VLLM_ALL2ALL_BACKEND",
            "VLLM_USE_V1",
            "OMP_NUM_THREADS",
        ]
    )


def test_none_means_unset() -> None:
    """A None value is skipped as if the variable were unset."""
    assert Env.from_mapping({"VLLM_USE_V1": None, "VLLM_FOO": None}) == Env.from_mapping({})


def test_unknown_vllm_variable() -> None:
    """An unknown VLLM_* key is an UnknownFieldError with a suggestion."""
    with pytest.raises(UnknownFieldError, match="Did you mean 'VLLM_MLA_DISABLE'") as info:
        Env.from_mapping({"VLLM_MLA_DISABLED": "1"})
    assert info.value.path == "env.VLLM_MLA_DISABLED"


def test_unknown_ignored_when_not_strict() -> None:
    """from_mapping(strict=False) (used by from_os) ignores unknown VLLM_* keys."""
    assert Env.from_mapping({"VLLM_FOO": "1"}, strict=False) == Env.from_mapping({})


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("VLLM_USE_V1", "maybe"),
        ("VLLM_ALL2ALL_BACKEND", "nccl"),
        ("VLLM_WORKER_MULTIPROC_METHOD", "forkserver"),
        ("VLLM_DP_SIZE", "0"),
        ("VLLM_CPU_KVCACHE_SPACE", "four"),
    ],
)
def test_bad_values(key: str, raw: str) -> None:
    """A bad value is an InvalidValueError naming env.<VAR>."""
    with pytest.raises(InvalidValueError) as info:
        Env.from_mapping({key: raw})
    assert info.value.path == f"env.{key}"


def test_from_os(monkeypatch: pytest.MonkeyPatch) -> None:
    """from_os reads the process environment."""
    monkeypatch.setenv("VLLM_BATCH_INVARIANT", "1")
    assert Env.from_os().VLLM_BATCH_INVARIANT == 1
