"""compute_hash, pad_for_cudagraph and compile_debug_dump_path over resolved flat states."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit.rules import hashing, v0_11_1
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


def test_model_hash_stand_in_is_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without transformers the ModelConfig factor is a stand-in: stable, changes with a hashed field, not vLLM's."""
    monkeypatch.setattr(hashing, "_transformers_version", lambda: None)  # as if the extra were not installed
    a = postinit.resolve({"model_config": {"model": "fixtures/llama"}}, strict=True)
    b = postinit.resolve({"model_config": {"model": "fixtures/llama"}}, strict=True)
    c = postinit.resolve(
        {"model_config": {"model": "fixtures/llama", "max_model_len": 2048}}, strict=True
    )
    assert a.hash == b.hash == hashing.compute_hash(a.state)
    assert hashing.model_hash(a.state) != hashing.model_hash(c.state)
    assert not hashing.model_hash_is_exact(a.state) and hashing.hf_config_json(a.state) is None
    oracle = next(gc for gc in CASES if gc.name == "01-llama-h100-default")
    assert hashing.model_hash(run(oracle, strict=True).state) != oracle.expected["sub_hashes"]["model_config"]


# ---------------------------------------------------------------------------- vLLM's exact hash (transformers)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
MODEL_CASES = [gc for gc in CASES if gc.expected["sub_hashes"]["model_config"] is not None]


def _model_dir_config(gc: Any) -> dict[str, Any]:
    """The config.json of the case's model fixture (the target model)."""
    name = gc.case["argv"][gc.case["argv"].index("--model") + 1] if "--model" in gc.case.get("argv", []) else (
        gc.case["argv"][0] if gc.argv_mode else f"models/{gc.case.get('model', 'llama')}")
    return dict(json.loads((GOLDEN / name / "config.json").read_text()))


def _oracle_transformers() -> None:
    transformers = pytest.importorskip("transformers", reason="vLLM's exact hash needs the `hash` extra")
    if transformers.__version__ != "4.57.1":
        pytest.skip(f"the golden hashes were computed with transformers 4.57.1, not {transformers.__version__}")


@pytest.mark.parametrize("gc", MODEL_CASES, ids=lambda gc: gc.name)
def test_hash_equals_vllms_compute_hash(gc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With transformers, Resolution.hash is real vLLM's VllmConfig.compute_hash() (and its ModelConfig part).

    The model path is a hash factor: resolved from tests/golden with the oracle's relative
    ``models/<fixture>`` paths. Models whose HF config vLLM builds with its own config class
    (DeepSeek-V3, Qwen3-Next, ...) or from remote code are not reproducible: there the hash
    must say so (``model_hash_is_exact`` False) rather than guess.
    """
    _oracle_transformers()
    monkeypatch.chdir(GOLDEN)
    r = run(gc, models="models", strict=True)
    raw = _model_dir_config(gc)
    reproducible = raw.get("model_type") not in hashing.VLLM_CONFIG_CLASSES and "auto_map" not in raw
    assert hashing.model_hash_is_exact(r.state) is reproducible
    if reproducible:
        assert hashing.model_hash(r.state) == gc.expected["sub_hashes"]["model_config"]
        assert r.hash == gc.expected["hash"]
    else:
        assert r.hash != gc.expected["hash"]


def test_most_model_hashes_are_reproducible() -> None:
    """The exact-hash test is not vacuous: most golden cases with a model have a reproducible HF config."""
    reproducible = [gc for gc in MODEL_CASES if _model_dir_config(gc).get("model_type")
                    not in hashing.VLLM_CONFIG_CLASSES and "auto_map" not in _model_dir_config(gc)]
    assert len(reproducible) >= 250, len(reproducible)


def test_transformers_is_imported_only_for_a_hash(tmp_path: Path) -> None:
    """``import postinit`` and resolving never import transformers; a cold exact hash does, a cached one not."""
    code = ("import sys, postinit; r = postinit.resolve(model='fixtures/llama'); before = 'transformers' in sys.modules;"
            " r.hash; print(before, 'transformers' in sys.modules, r.hash)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=GOLDEN.parents[1], env=env) for _ in range(2)]
    installed = importlib.util.find_spec("transformers") is not None
    cold, warm = (run.stdout.split() for run in runs)
    assert cold[:2] == ["False", str(installed)] and warm[:2] == ["False", "False"]
    assert cold[2] == warm[2]  # the cached HF config JSON gives the same hash
    assert "None of PyTorch" not in runs[0].stderr


def test_hf_json_cache_entries_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A damaged or foreign cache entry is rebuilt, never trusted (the hash stays vLLM's)."""
    pytest.importorskip("transformers")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(hashing, "_MEMO", {})
    r = postinit.resolve(model="fixtures/llama")
    good = hashing.hf_config_json(r.state)
    (entry,) = (tmp_path / "postinit" / "hf-json").glob("*.json")
    for damage in ("{", json.dumps({"key": "other", "json": "{}"}), json.dumps({"key": entry.stem, "json": 1})):
        entry.write_text(damage)
        monkeypatch.setattr(hashing, "_MEMO", {})
        assert hashing.hf_config_json(r.state) == good


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


# ---------------------------------------------------------------------------- vLLM 0.11.1's hash

CASES_0_11_1 = [gc for gc in load_cases("0.11.1") if gc.ok and gc.expected["hash"] is not None]
MODE_EQUAL_TO_LEVEL = {"x193-rand", "x228-rand"}
"""0.11.1 cases giving compilation mode and the deprecated level with the same value: vLLM hashes the given mode
as the enum, postinit's final state cannot tell it from the level's int copy (v0_11_1.compilation_hash;
docs/divergences.md). Their compilation hash is the one thing that differs."""


@pytest.mark.parametrize("gc", CASES_0_11_1, ids=lambda gc: gc.name)
def test_0_11_1_hash_equals_vllms_compute_hash(gc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolved as vLLM 0.11.1, the hash is the vllm==0.11.1 wheel's compute_hash() (its factors: v0_11_1.compute_hash).

    Every sub-config hash agrees; the model part (and so the whole) wherever the HF config is
    reproducible, as for the seed.
    """
    _oracle_transformers()
    monkeypatch.chdir(GOLDEN)
    r = run(gc, models="models", strict=True, vllm_version="0.11.1")
    subs = v0_11_1.sub_hashes(r.state)
    exact = hashing.model_hash_is_exact(r.state)
    for sub, value in gc.expected["sub_hashes"].items():
        if sub == "compilation_config" and gc.name in MODE_EQUAL_TO_LEVEL:
            assert subs[sub] != value, "the documented mode = level ambiguity is gone: drop the case from the list"
            return
        if sub != "model_config" or exact or value is None:
            assert subs[sub] == value, sub
    if exact or gc.expected["sub_hashes"]["model_config"] is None:
        assert r.hash == gc.expected["hash"]


def test_0_11_1_hash_factors_differ_from_the_seeds() -> None:
    """The same resolution hashes differently per version: VLLM_USE_V1, observability and ec_transfer factors."""
    seed = postinit.resolve({}, platform="h100")
    new = postinit.resolve({}, platform="h100", vllm_version="0.11.1")
    assert seed.hash == hashing.compute_hash(seed.state)
    assert new.hash == v0_11_1.compute_hash(new.state) != seed.hash


def test_same_fact_remembers_pairs_of_objects_not_values() -> None:
    from postinit.engine import freeze
    from postinit.rules.hashing import _same_fact

    fact = {"rope_type": "llama3", "factor": 8.0}
    frozen = freeze(dict(fact))
    changed = freeze({"rope_type": "llama3", "factor": 4.0})
    for _ in range(2):  # the second round answers from the memo
        assert _same_fact(frozen, fact)
        assert not _same_fact(changed, fact)
    assert _same_fact(fact, fact) and _same_fact(8, 8) and not _same_fact(True, False)
    assert not _same_fact(freeze({"rope_type": "llama3", "factor": 8.5}), fact)  # a new object, compared again


def test_the_hash_sees_a_rule_changed_nested_fact() -> None:
    base = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100")
    other = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100",
                             argv=["--hf-overrides", '{"rope_scaling": {"rope_type": "llama3", "factor": 4.0, '
                                   '"low_freq_factor": 1.0, "high_freq_factor": 4.0, '
                                   '"original_max_position_embeddings": 8192}}'])
    again = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", platform="h100")
    assert base.hash == again.hash
    assert other.ok and other.hash != base.hash
