"""The front door: postinit.resolve and Resolution."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import postinit
from postinit.engine import Source
from postinit.errors import (
    InputError,
    InvalidValueError,
    ModelNotFoundError,
    PlatformSpecError,
    UnknownFieldError,
    UnknownFlagError,
)
from postinit.schema import CompilationConfig, ModelConfig, VllmConfig


def test_input_dict_is_never_mutated() -> None:
    """Resolving a nested dict leaves the caller's dict exactly as it was."""
    data = {"compilation_config": {"custom_ops": ["+rms_norm"], "mode": 3}, "parallel_config": {"tensor_parallel_size": 2}}
    before = copy.deepcopy(data)
    postinit.resolve(data, model="fixtures/llama")
    assert data == before


def test_input_object_is_never_mutated() -> None:
    """Resolving a VllmConfig object leaves the object unchanged."""
    cfg = VllmConfig(compilation_config=CompilationConfig(custom_ops=["+rms_norm"]))
    before = copy.deepcopy(cfg)
    postinit.resolve(cfg)
    assert cfg == before


def test_object_and_dict_inputs_agree() -> None:
    """A VllmConfig object and the equivalent dict resolve to the same config and hash."""
    a = postinit.resolve(VllmConfig(compilation_config=CompilationConfig(mode=0)))
    b = postinit.resolve({"compilation_config": {"mode": 0}})
    assert a.config == b.config
    assert a.hash == b.hash


def test_same_input_same_result() -> None:
    """The same input gives the same config, trace and hash."""
    runs = [postinit.resolve(argv=["--enforce-eager"], platform="h100").to_dict() for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def test_to_dict_is_json_with_the_contract_keys() -> None:
    """to_dict() is JSON-serialisable and carries config, changes, trace, violations and hash."""
    out = postinit.resolve(model="fixtures/llama").to_dict()
    assert {"config", "changes", "trace", "violations", "hash", "version", "ok"} <= out.keys()
    assert json.loads(json.dumps(out)) == out
    assert out["trace"]["version"] == 1


def test_user_values_have_user_provenance() -> None:
    """A value the user set is tagged USER with the flag that set it; untouched fields are DEFAULT."""
    r = postinit.resolve(argv=["--max-num-seqs", "7"], platform="h100")
    prov = r.provenance("scheduler_config.max_num_seqs")
    assert prov.source in (Source.USER, Source.RULE)
    first = r.engine.initial_provenance["scheduler_config.max_num_seqs"]
    assert first.source is Source.USER and "--max-num-seqs" in (first.detail or "")
    assert r.provenance("load_config.download_dir").source is Source.DEFAULT


def test_model_facts_come_from_the_loader() -> None:
    """config.json facts are tagged LOADER with the file and key they came from."""
    r = postinit.resolve(model="fixtures/llama")
    prov = r.provenance("model_config.hf_config.max_position_embeddings")
    assert prov.source is Source.LOADER
    assert "max_position_embeddings" in (prov.detail or "")


def test_platform_facts_are_facts() -> None:
    """Platform answers are FACT values naming the platform spec."""
    r = postinit.resolve(platform="b200")
    prov = r.provenance("platform.capability")
    assert prov.source is Source.FACT and "b200" in (prov.detail or "")
    assert r.get("platform.capability") == 100


@pytest.mark.parametrize(
    ("kwargs", "error", "needle"),
    [
        ({"config": {"compilation_config": {"cudagraph_mod": "FULL"}}}, UnknownFieldError, "cudagraph_mode"),
        ({"config": {"compilaton_config": {}}}, UnknownFieldError, "compilation_config"),
        ({"config": {"compilation_config": {"cudagraph_mode": "FOO"}}}, InvalidValueError, "compilation_config.cudagraph_mode"),
        ({"config": {"parallel_config": {"tensor_parallel_size": "two"}}}, InvalidValueError, "parallel_config.tensor_parallel_size"),
        ({"argv": ["--max-num-seq5", "3"]}, UnknownFlagError, "--max-num-seqs"),
        ({"model": "meta-llama/Llama-3.1-8B-Instruc"}, ModelNotFoundError, "Llama-3.1-8B-Instruct"),
        ({"platform": "h1000"}, PlatformSpecError, "h100"),
        ({"env": {"VLLM_USE_V1": "yes"}}, InvalidValueError, "VLLM_USE_V1: vLLM reads it with bool(int(...))"),
        ({"usage": "server"}, InputError, "serve"),
    ],
)
def test_bad_input_is_one_clear_line(kwargs: dict[str, object], error: type[Exception], needle: str) -> None:
    """Bad input raises an InputError whose single-line message names the field and what is allowed."""
    with pytest.raises(error) as info:
        postinit.resolve(**kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    assert needle in message


def test_model_config_object_input_counts_as_user_set() -> None:
    """Fields set on a sub-config object count as user input; others stay defaults."""
    cfg = VllmConfig(model_config=ModelConfig(model="fixtures/llama", enforce_eager=True))
    r = postinit.resolve(cfg)
    assert r.engine.initial_provenance["model_config.enforce_eager"].source is Source.USER
    assert "model_config.max_logprobs" not in r.engine.initial_provenance


def test_get_unknown_path_suggests() -> None:
    """Resolution.get on an unknown path names the closest real path."""
    r = postinit.resolve()
    with pytest.raises(UnknownFieldError, match="cudagraph_mode"):
        r.get("compilation_config.cudagraph_mod")


def test_why_budget_names_usage_rule_and_device_memory() -> None:
    """`why max_num_batched_tokens` for `vllm serve` on an H100 names the usage-context rule and the device-memory fact."""
    r = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", argv=[], platform="h100")
    tree = r.why("scheduler_config.max_num_batched_tokens")
    assert tree.value == 8192
    assert tree.rule == "engine-args.batch-defaults-large-gpu"
    facts = {n.path: n for n in tree.walk()}
    assert facts["platform.total_memory_gb"].provenance.source is Source.FACT
    assert facts["usage.usage_context"].value == "OPENAI_API_SERVER"


def test_why_chunked_prefill_names_the_engine_args_quirk() -> None:
    """After --no-enable-chunked-prefill, `why chunked_prefill_enabled` names EngineArgs' forcing rule and its quirk."""
    r = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", argv=["--no-enable-chunked-prefill"])
    tree = r.why("scheduler_config.chunked_prefill_enabled")
    assert tree.value is True
    assert "engine-args.chunked-prefill-forced" in {n.rule for n in tree.walk()}
    assert "quirk.chunked-prefill-flag-ignored" in {n.rule for n in tree.notes}
    forced = next(n for n in tree.walk() if n.rule == "engine-args.chunked-prefill-forced")
    assert forced.history[-1].value is False
    assert forced.history[-1].provenance.source is Source.USER


def test_sentence_transformers_facts_reach_the_rules() -> None:
    """A catalog model's sentence-transformers pooling makes it a pooling model, traced to that file."""
    r = postinit.resolve(model="intfloat/e5-mistral-7b-instruct")
    assert r.get("model_config.runner_type") == "pooling"
    assert r.get("model_config.pooler_config.pooling_type") == "LAST"
    prov = r.provenance("model_config.hf_config.st_pooling_type")
    assert prov.source is Source.LOADER and "sentence_transformers" in (prov.detail or "")


@pytest.mark.parametrize("kwargs", [
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "h100"},
    {"config": {"model_config": {"model": "deepseek-ai/DeepSeek-V3", "max_model_len": 200_000},
                "parallel_config": {"tensor_parallel_size": 8}},
     "platform": "b200", "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}},
    {"argv": ["--model", "Qwen/Qwen3-Next-80B-A3B-Instruct", "-tp", "4", "--kv-transfer-config",
              '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'], "platform": "h100"},
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "cpu"},
    {"config": {"compilation_config": {"cudagraph_capture_sizes": [1, 2, 4], "compile_sizes": [1],
                                       "inductor_compile_config": {"a": [1, {"b": 2}]}},
                "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both",
                                       "kv_connector_extra_config": {"x": [1, 2]}}},
     "model": "meta-llama/Llama-3.1-8B-Instruct", "overrides": {"compilation_config.custom_ops": ["none"]}},
])
def test_resolve_hands_the_engine_a_frozen_state_and_keeps_the_input(kwargs: dict[str, object]) -> None:
    """``resolve`` lets the engine work on ``prepare``'s dict in place: every value must already be
    frozen, and ``engine.initial`` (rebuilt from the trace) must be exactly that input."""
    from postinit._api import prepare
    from postinit.engine import freeze

    flat, _, _ = prepare(**kwargs)  # type: ignore[arg-type]
    assert [p for p, v in flat.items() if freeze(v) is not v] == []
    res = postinit.resolve(**kwargs)  # type: ignore[arg-type]
    assert res.engine.given is None
    assert res.engine.initial == flat
    assert all(type(res.engine.initial[p]) is type(v) for p, v in flat.items())
    assert res.engine.changes and all(flat[p] == old for p, (old, _) in res.engine.changes.items())


def test_prepare_cache_keeps_each_inputs_provenance() -> None:
    """A flag, an override and a config key giving the same value share the validated input, not its provenance."""
    path = "model_config.max_model_len"
    via_flag = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", argv=["--max-model-len", "32000"])
    via_config = postinit.resolve({"model_config": {"max_model_len": 32000}},
                                  model="meta-llama/Llama-3.1-8B-Instruct", usage="serve")
    via_set = postinit.resolve({"model_config": {"max_model_len": 1}}, model="meta-llama/Llama-3.1-8B-Instruct",
                               usage="serve", overrides={path: 32000})
    assert via_flag.get(path) == via_config.get(path) == via_set.get(path) == 32000
    details = [r.engine.initial_provenance[path].detail for r in (via_flag, via_config, via_set)]
    assert details == ["--max-model-len 32000", "config", f"--set {path}"]
    again = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct", argv=["--max-model-len", "32000"])
    assert again.engine.initial_provenance[path].detail == "--max-model-len 32000"


@pytest.mark.parametrize("part", [
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 4096, "enforce_eager": True, "dtype": "half"},
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": "8k", "enforce_eager": None, "dtype": "auto"},
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 10**12, "enforce_eager": False, "dtype": "half"},
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 2048, "enforce_eager": 2, "dtype": "half"},
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 2048, "enforce_eager": True, "dtype": "bogus"},
    {"model": "Qwen/Qwen3-8B", "max_model_len": 0, "enforce_eager": True, "dtype": "bfloat16"},
])
def test_a_part_patched_from_one_of_its_shape_is_the_part_validated_whole(part: dict[str, object]) -> None:
    """A sub-config value of a shape validated before is patched from it, leaf by leaf (``_patched_part``): the
    resolution — input state, provenance, hash, notes — or the refusal is the one of a process that never saw it."""
    from postinit import _api

    def answer(config: dict[str, object]) -> object:
        try:
            r = postinit.resolve(config=config, platform="h100")
        except postinit.InputError as e:
            return type(e).__name__, str(e)
        return dict(r.engine.initial), dict(r.engine.initial_provenance), r.hash, r.notes

    config = {"model_config": part, "scheduler_config": {"max_num_seqs": 64}}
    _api._PARTS.clear()
    _api._SHAPES.clear()
    scratch = answer(config)
    prime = {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 1024,
                               "enforce_eager": False, "dtype": "float16"}, "scheduler_config": {"max_num_seqs": 8}}
    _api._PARTS.clear()
    _api._SHAPES.clear()
    answer(prime)
    assert ("model_config", tuple(part)) in _api._SHAPES
    assert answer(config) == scratch


def test_local_model_dir_changed_between_calls_is_read_again(tmp_path: Path) -> None:
    """A model directory's config.json is parsed once per version of the file: resolving it again after the file
    changed answers from the new file, and the same file gives the same config, trace and hash."""
    from postinit.schema.loaders.model import CATALOG_DIR

    entry = json.loads((CATALOG_DIR / "meta-llama--Llama-3.1-8B-Instruct.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(entry["config"]))
    first = postinit.resolve(model=str(tmp_path), platform="h100")
    again = postinit.resolve(model=str(tmp_path), platform="h100")
    assert (again.hash, again.trace, again.config) == (first.hash, first.trace, first.config)
    assert first.config.model_config.max_model_len == entry["config"]["max_position_embeddings"]
    (tmp_path / "config.json").write_text(json.dumps({**entry["config"], "max_position_embeddings": 4096}))
    changed = postinit.resolve(model=str(tmp_path), platform="h100")
    assert changed.config.model_config.max_model_len == 4096
    assert changed.hash != first.hash


@pytest.mark.parametrize("series", [
    [{"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": n}},
      "platform": "h100"} for n in (1024, 1025, 200_000, 4096, 1)],
    [{"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct", "enforce_eager": e},
                 "compilation_config": {"cudagraph_mode": m}}, "platform": "h100"}
     for e, m in ((False, "FULL"), (True, "PIECEWISE"), (False, "NONE"), (True, "FULL_AND_PIECEWISE"))],
    [{"argv": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", str(n), "--max-model-len", m],
      "platform": p} for n, m, p in ((8, "4k", "h100"), (256, "32k", "h100"), (1, "128k", "h100"), (9, "1k", "h100"))],
    [{"argv": ["--model", "Qwen/Qwen3-Next-80B-A3B-Instruct", "-tp", str(tp)], "platform": "h100"} for tp in (4, 2, 3)],
])
def test_an_input_resolved_after_others_of_its_shape_is_the_input_resolved_alone(
        series: list[dict[str, object]]) -> None:
    """The front door's caches of input parts and shapes make no answer depend on what came before: config,
    trace, changes, violations, provenance, history and hash are those of the input resolved first, and a caller
    changing a result's state changes no later answer."""
    def answer(kwargs: dict[str, object]) -> object:
        r = postinit.resolve(**kwargs)  # type: ignore[arg-type]
        return (r.to_dict(), dict(r.engine.state), dict(r.engine.provenance), r.engine.history,
                r.engine.changes, r.stale_reads, r.config)

    scratch = [answer(kwargs) for kwargs in series]
    for kwargs in series:
        postinit.resolve(**kwargs).engine.state.clear()  # type: ignore[arg-type]
    for kwargs, expected in zip(series, scratch, strict=True):
        assert answer(kwargs) == expected
    for kwargs, expected in zip(reversed(series), reversed(scratch), strict=True):
        assert answer(kwargs) == expected
