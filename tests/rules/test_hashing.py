"""compute_hash, pad_for_cudagraph and compile_debug_dump_path over resolved flat states."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.rules import hashing
from postinit.rules._kit import state
from tests.golden.corpus import load_cases
from tests.golden.parity import run

EXACT = (
    "cache_config",
    "parallel_config",
    "compilation_config",
    "lora_config",
    "speculative_config",
    "scheduler_config",
    "device_config",
    "load_config",
    "structured_outputs_config",
    "kv_transfer_config",
)
CASES = [gc for gc in load_cases("seed") if gc.ok and gc.expected.get("sub_hashes")]


@pytest.mark.parametrize(
    "gc",
    [
        gc
        for gc in CASES
        if gc.name[:2]
        in {
            "01",
            "07",
            "09",
            "10",
            "13",
            "15",
            "16",
            "17",
            "18",
            "19",
            "22",
            "25",
            "26",
            "34",
            "35",
            "52",
        }
        or gc.name.startswith("g0")
    ],
    ids=lambda gc: gc.name,
)
def test_sub_hashes_match_oracle(gc: Any) -> None:
    """Cache md5, parallel and compilation sha256 (and the other modelled sub-hashes) equal real vLLM's."""
    r = run(gc, strict=True)
    ours = hashing.sub_hashes(r.state)
    for sub in EXACT:
        assert ours[sub] == gc.expected["sub_hashes"][sub], sub


@pytest.mark.parametrize(
    "gc",
    [gc for gc in CASES if gc.expected["sub_hashes"]["model_config"] is None],
    ids=lambda gc: gc.name,
)
def test_top_level_hash_without_model(gc: Any) -> None:
    """Without a ModelConfig (whose HF JSON hash cannot be reproduced) the top-level hash equals vLLM's."""
    assert hashing.compute_hash(run(gc, strict=True).state) == gc.expected["hash"]


def test_model_hash_stand_in_is_deterministic() -> None:
    """The ModelConfig stand-in is stable and changes with a hashed field."""
    a = postinit.resolve({"model_config": {"model": "fixtures/llama"}}, strict=True)
    b = postinit.resolve({"model_config": {"model": "fixtures/llama"}}, strict=True)
    c = postinit.resolve(
        {"model_config": {"model": "fixtures/llama", "max_model_len": 2048}}, strict=True
    )
    assert a.hash == b.hash == hashing.compute_hash(a.state)
    assert hashing.model_hash(a.state) != hashing.model_hash(c.state)


def test_factor_paths_follow_schema_metadata() -> None:
    """The schema marks exactly vLLM's CacheConfig factors as hashed."""
    assert hashing.hash_factor_paths("cache_config") == (
        "cache_config.cache_dtype",
        "cache_config.mamba_cache_dtype",
        "cache_config.mamba_ssm_cache_dtype",
    )


def test_kv_events_not_a_factor() -> None:
    """kv_events_config never changes the hash (I13)."""
    base = {"model_config": None}
    assert hashing.compute_hash(state(base)) == hashing.compute_hash(
        state({**base, "kv_events_config": True})
    )


@pytest.mark.parametrize(("bs", "expected"), [(0, 0), (1, 1), (3, 4), (5, 8), (8, 8)])
def test_pad_for_cudagraph(bs: int, expected: int) -> None:
    """A batch is padded to the next captured size (§5.4 example)."""
    s = state({"compilation_config.bs_to_padded_graph_size": [0, 1, 2, 4, 4, 8, 8, 8, 8]})
    assert hashing.pad_for_cudagraph(s, bs) == expected


def test_pad_for_cudagraph_errors() -> None:
    """IndexError above the largest size; TypeError where the table was never built (I3)."""
    with pytest.raises(IndexError):
        hashing.pad_for_cudagraph(state({"compilation_config.bs_to_padded_graph_size": [0, 1]}), 2)
    with pytest.raises(TypeError):
        hashing.pad_for_cudagraph(state({"compilation_config.bs_to_padded_graph_size": None}), 1)


@pytest.mark.parametrize(
    ("dump", "dp", "expected"),
    [("/d", 1, "/d/rank_3"), ("/d/", 2, "/d/rank_3_dp_1"), (None, 1, None)],
)
def test_compile_debug_dump_path(dump: str | None, dp: int, expected: str | None) -> None:
    """rank_<rank>, plus _dp_<dp rank> when DP > 1; None without a dump path."""
    s = state(
        {
            "compilation_config.debug_dump_path": dump,
            "parallel_config.rank": 3,
            "parallel_config.data_parallel_size": dp,
            "parallel_config.data_parallel_rank": 1,
        }
    )
    assert hashing.compile_debug_dump_path(s) == expected
