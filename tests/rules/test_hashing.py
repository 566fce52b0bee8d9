"""compute_hash, pad_for_cudagraph and compile_debug_dump_path over resolved flat states."""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit.errors import InputError
from postinit.rules import hashing, hashing_v0_34_0, v0_11_1
from postinit.rules._kit import state
from tests.golden.corpus import load_cases
from tests.golden.parity import compare, divergences, run

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
CASES = [gc for gc in load_cases("seed") if gc.ok and gc.expected.get("sub_hashes")
         and not (gc.name.startswith("n") and gc.name in divergences("d7fb10c57"))]
"""The seed cases real vLLM resolved (a coverage case postinit documents as divergent, e.g. one it refuses, has no
hash of postinit's to compare)."""


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
    reproducible = raw.get("model_type") not in hashing.VLLM_CONFIG_CLASSES and "auto_map" not in raw \
        and "producer" not in (raw.get("quantization_config") or {})
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

CASES_0_11_1 = [gc for gc in load_cases("0.11.1") if gc.ok and gc.expected["hash"] is not None
                and not (gc.name.startswith("n") and gc.name in divergences("0.11.1"))]
EC_TRANSFER_PASSED_THROUGH = {"n265-ec-role-ok"}
"""0.11.1 cases with a valid --ec-transfer-config: postinit passes the encoder-cache transfer config through
unmodelled (docs/divergences.md, n151/n152), so VllmConfig.compute_hash's ec_transfer factor is not vLLM's; every
field and sub-config hash the oracle dumps agrees."""
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
    if gc.name in EC_TRANSFER_PASSED_THROUGH:
        assert r.hash != gc.expected["hash"], "the EC transfer config is hashed now: drop the case from the list"
        return
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


# ---------------------------------------------------------------------------- vLLM 0.34.0's hash

CASES_0_34_0 = [gc for gc in load_cases("0.34.0") if gc.expected.get("hash")]
DIVERGENT_0_34_0 = divergences("0.34.0")
"""The 0.34.0 cases real vLLM resolved: each carries the wheel's ``compile_factors()``, ``hash`` and ``sub_hashes``."""
_MODES = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2, "VLLM_COMPILE": 3}
_MM_FACTORS = frozenset({"language_model_only", "video_pruning", "mm_limit_per_prompt", "mm_enable_mm_embeds"})


def _below_depth(value: Any, depth: int) -> Any:
    """The oracle's dump with the nodes it wrote as ``repr`` (below depth 8: a QuantizationConfigArgs factor's keys)
    read back, tuples as JSON writes them."""
    def plain(v: Any) -> Any:
        return [plain(x) for x in v] if isinstance(v, (list, tuple)) else v

    if depth > 8:
        return plain(ast.literal_eval(value)) if isinstance(value, str) else value
    if isinstance(value, dict):
        return {k: _below_depth(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_below_depth(v, depth + 1) for v in value]
    return value


def _wheel_factors(gc: Any) -> dict[str, Any]:
    """The oracle's ``compile_factors`` as ``hash_factors`` dumped them.

    The oracle serialises enums by name; ``CompilationMode`` is an IntEnum that ``normalize_value``
    keeps as it is and JSON writes as its int. Below depth 8 it writes each value's ``repr``, which is read back.
    With those repairs, the SHA-256 of the oracle's factors is the wheel's ``hash`` in every case (asserted below).
    """
    factors = _below_depth(copy.deepcopy(gc.expected["compile_factors"]), 0)
    mode = factors["compilation"].get("mode")
    if isinstance(mode, str):
        factors["compilation"]["mode"] = _MODES[mode]
    return dict(factors)


def _source(key: str, factor: str) -> str:
    """The schema path a factor is computed from (what the parity comparison reports a mismatch at)."""
    sub = {k: s for k, s, _ in hashing_v0_34_0._SUBS}.get(key, key)
    if (key == "model" and factor in _MM_FACTORS) or key == "multimodal":
        return "model_config.multimodal_config"
    return f"{sub}.{factor}"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)  # 0 and 0.0, 1 and True differ here, as in vLLM's hash


@pytest.mark.parametrize("gc", CASES_0_34_0, ids=lambda gc: gc.name)
def test_0_34_0_compile_factors_equal_the_wheels(gc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolved as vLLM 0.34.0, every ``compile_factors()`` entry computed from fields postinit resolves as the wheel
    does equals the wheel's; where every field matches, so do the sub-hashes and ``hash_factors`` of the whole.

    The HF config JSONs (``hf_config``, ``hf_text_config``) are the wheel's here: they are
    transformers 5.x's, and the dev extra pins 4.57.1 (see the next tests). Fields the partial 0.34.0
    model does not resolve as vLLM yet are the parity comparison's mismatches (divergences-0.34.0.json).
    """
    wheel = _wheel_factors(gc)
    assert hashing_v0_34_0.hash_factors(wheel) == gc.expected["hash"]  # the reference is the wheel's own
    monkeypatch.chdir(GOLDEN)
    try:
        r = run(gc, models="models", vllm_version="0.34.0")
    except InputError:
        assert gc.name in DIVERGENT_0_34_0  # postinit refuses a case vLLM resolves: a recorded divergence
        return
    if not r.ok:
        assert gc.name in DIVERGENT_0_34_0
        return
    mismatched = compare(gc, "0.34.0").mismatches
    hf = (wheel["model"]["hf_config"], wheel["model"]["hf_text_config"]) if wheel["model"] else None
    ours = json.loads(json.dumps(hashing_v0_34_0.compile_factors(r.state, hf)))
    draft = bool(r.state.get("speculative_config")) and r.state["speculative_config.method"] not in \
        hashing_v0_34_0._NO_DRAFT
    assert set(ours) == set(wheel)
    for key, theirs in wheel.items():
        mine = ours[key]
        if not isinstance(theirs, dict):
            assert mine == theirs, key
            continue
        assert set(mine) == set(theirs), key
        for factor in theirs:
            path = _source(key, factor)
            if any(m == path or m.startswith(path + ".") for m in mismatched):
                continue
            if draft and (key, factor) == ("speculative", "draft_model_config"):
                assert "draft model" in (r.hash_reason or "")  # vLLM hashes the draft's own ModelConfig
                continue
            assert _json(mine[factor]) == _json(theirs[factor]), (key, factor)
    if not mismatched and not draft:
        assert hashing_v0_34_0.hash_factors(ours) == gc.expected["hash"]
        assert hashing_v0_34_0.sub_hashes(r.state, hf) == gc.expected["sub_hashes"]
        if hashing_v0_34_0.transformers_fits():  # postinit rebuilds the HF config JSONs itself: the hash is vLLM's
            assert r.hash_exact and r.hash == gc.expected["hash"]
            assert r.version.sub_hashes(r.state) == gc.expected["sub_hashes"]
    if not hashing_v0_34_0.transformers_fits() and wheel["model"]:
        assert not r.hash_exact  # another transformers' JSON: said on every face


def test_0_34_0_hash_factor_checks_are_not_vacuous() -> None:
    """Most 0.34.0 cases resolve field for field as the wheel does, so their whole hash is compared above."""
    whole = [gc for gc in CASES_0_34_0 if gc.name not in DIVERGENT_0_34_0]
    assert len(whole) >= 150, len(whole)


@pytest.mark.parametrize("name", ["f004-defaults-cuda90", "a022-rand", "f189-spec-eagle"])
def test_0_34_0_hash_exactness_is_said(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolution.hash is hash_factors(compile_factors()); it is vLLM 0.34.0's exactly beside a transformers of
    0.34.0's range (>=5.16.1,<5.23.0), and otherwise says why not: another transformers writes another HF config
    JSON, and a speculative method with a draft model hashes the draft's own ModelConfig.
    """
    gc = next(gc for gc in CASES_0_34_0 if gc.name == name)
    monkeypatch.chdir(GOLDEN)
    r = run(gc, models="models", vllm_version="0.34.0")
    assert r.hash == hashing_v0_34_0.compute_hash(r.state) != hashing.compute_hash(r.state)
    assert len(r.hash) == 64 and r.version.sub_hashes(r.state).keys() == gc.expected["sub_hashes"].keys()
    draft = name == "f189-spec-eagle"
    if hashing_v0_34_0.transformers_fits() and not draft:
        assert r.hash_exact and r.hash == gc.expected["hash"]
        return
    assert not r.hash_exact and r.hash != gc.expected["hash"]
    reason = r.hash_reason or ""
    assert ("draft model's own ModelConfig" in reason) if draft else (
        "vLLM 0.34.0 runs with transformers >=5.16.1,<5.23.0" in reason or "not installed" in reason)


def test_0_34_0_inexact_hash_on_every_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the 0.34.0 hash is postinit's, the text, the JSON and the HTML report say so, with the reason."""
    monkeypatch.setattr(hashing, "_transformers_version", lambda: "4.57.1")  # as the dev extra pins it
    monkeypatch.setattr(hashing, "_MEMO", {})
    r = postinit.resolve(model="fixtures/llama", vllm_version="0.34.0")
    assert not r.hash_exact and "transformers 4.57.1 is installed" in (r.hash_reason or "")
    assert r.to_dict()["hash_exact"] is False and r.to_dict()["hash_reason"] == r.hash_reason
    from postinit.engine._show import plain
    from postinit.report import html_report

    text = " ".join(plain(r.__rich__()).split())
    assert f"hash {r.hash} (postinit's, not vLLM's)" in text and " ".join((r.hash_reason or "?").split()) in text
    page = html_report(r)
    assert "hash-inexact" in page and "transformers 4.57.1 is installed" in page
    seed = postinit.resolve(model="fixtures/llama")
    assert seed.hash_reason is None or "4.57.1" not in seed.hash_reason  # the seed's range is 4.x


def test_transformers_requirements() -> None:
    """Version requirements are read as pip reads the wheel's: every clause must hold."""
    assert hashing.fits(">=5.16.1,<5.23.0", "5.22.2") and not hashing.fits(">=5.16.1,<5.23.0", "5.23.0")
    assert not hashing.fits(">=5.16.1,<5.23.0", "4.57.1") and hashing.fits(">=4.56.0,<5", "4.57.1")
    assert hashing.fits(">=4.56.0,<5", "4.57.1.dev0+g123") and not hashing.fits(">=4.56.0,<5", "5.0.0rc1")
    with pytest.raises(ValueError, match="not a version requirement"):
        hashing.fits("~=5", "5.1")
