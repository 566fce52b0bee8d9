"""Tests of config files, nested key checks and the model loader/catalog."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

import pydantic
import pytest

from postinit.errors import (
    InvalidValueError,
    ModelNotFoundError,
    UnknownFieldError,
    UnknownFlagError,
)
from postinit.schema.loaders import (
    catalog_file_name,
    check_keys,
    format_validation_error,
    list_catalog,
    load_config_file,
    load_model,
)

ORACLE_MODELS = Path("/work/shared/oracle/models")

# ---- files


def test_yaml_flag_shape(tmp_path: Path) -> None:
    """A vLLM --config YAML with flag-named keys becomes the nested dict."""
    file = tmp_path / "serve.yaml"
    file.write_text("model: org/m\ntensor-parallel-size: 2\nenforce_eager: true\ncompilation-config:\n  mode: 3\n")
    assert load_config_file(file) == {
        "model_config": {"model": "org/m", "enforce_eager": True},
        "parallel_config": {"tensor_parallel_size": 2},
        "compilation_config": {"mode": 3},
    }


def test_json_nested_shape(tmp_path: Path) -> None:
    """A JSON file in VllmConfig shape is returned as it is."""
    data = {"cache_config": {"block_size": 16}, "compilation_config": {"cudagraph_mode": "PIECEWISE"}}
    file = tmp_path / "c.json"
    file.write_text(json.dumps(data))
    assert load_config_file(file) == data


def test_yml_extension(tmp_path: Path) -> None:
    """The .yml extension is read as YAML."""
    file = tmp_path / "c.yml"
    file.write_text("max-num-seqs: 8\n")
    assert load_config_file(file) == {"scheduler_config": {"max_num_seqs": 8}}


def test_bad_json_file_names_line(tmp_path: Path) -> None:
    """Broken JSON names the file, line and column."""
    file = tmp_path / "c.json"
    file.write_text('{\n  "cache_config": {\n    "block_size": 16,\n  }\n}\n')
    with pytest.raises(InvalidValueError, match=rf"^{file}:4:3: invalid JSON"):
        load_config_file(file)


def test_bad_yaml_file_names_line(tmp_path: Path) -> None:
    """Broken YAML names the file and line."""
    file = tmp_path / "c.yaml"
    file.write_text("a: 1\nb: [1, 2\nc: 3\n")
    with pytest.raises(InvalidValueError, match=rf"^{file}:\d+:\d+: invalid YAML"):
        load_config_file(file)


def test_unknown_flag_in_yaml_names_line(tmp_path: Path) -> None:
    """An unknown flag key in a YAML file names the file and its line."""
    file = tmp_path / "c.yaml"
    file.write_text("max-num-seqs: 8\ntensor-paralel-size: 2\n")
    with pytest.raises(UnknownFlagError) as info:
        load_config_file(file)
    assert str(info.value) == (
        f"{file}:2: unknown flag '--tensor-paralel-size'. Did you mean '--tensor-parallel-size'?"
    )


def test_wrong_extension(tmp_path: Path) -> None:
    """Only .json/.yaml/.yml are accepted."""
    file = tmp_path / "c.toml"
    file.write_text("a = 1\n")
    with pytest.raises(Exception, match=r"config files must be \.json, \.yaml or \.yml \(got '\.toml'\)"):
        load_config_file(file)


def test_top_level_not_mapping(tmp_path: Path) -> None:
    """A list at the top level is refused with the file named."""
    file = tmp_path / "c.yaml"
    file.write_text("- 1\n- 2\n")
    with pytest.raises(InvalidValueError, match="the top level must be a mapping of settings, got list"):
        load_config_file(file)


def test_bad_value_in_yaml_names_file(tmp_path: Path) -> None:
    """A bad flag value inside a YAML file names the file and the flag."""
    file = tmp_path / "c.yaml"
    file.write_text("kv-cache-dtype: fp9\n")
    with pytest.raises(InvalidValueError, match=rf"^{file}: --kv-cache-dtype: 'fp9' is not allowed"):
        load_config_file(file)


# ---- nested keys and validation errors (own small models)


class _Pass(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    enable_noop: bool = False


class _Compilation(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    cudagraph_mode: Literal["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"] | None = None
    pass_config: _Pass = _Pass()
    custom_ops: list[str] = []


@pydantic.dataclasses.dataclass(config=pydantic.ConfigDict(extra="forbid"))
class _Root:
    compilation_config: _Compilation = pydantic.Field(default_factory=_Compilation)
    additional_config: dict[str, Any] = pydantic.Field(default_factory=dict)


def test_check_keys_did_you_mean() -> None:
    """An unknown nested key names the full path and the closest field."""
    with pytest.raises(UnknownFieldError) as info:
        check_keys({"compilation_config": {"cudagraph_mod": "FULL"}}, _Root)
    assert str(info.value) == (
        "unknown field 'compilation_config.cudagraph_mod'. Did you mean 'compilation_config.cudagraph_mode'?"
    )
    assert info.value.path == "compilation_config.cudagraph_mod"


def test_check_keys_deep_and_dict_fields() -> None:
    """Sub-sub-models are walked and dict-typed fields are not."""
    check_keys({"compilation_config": {"pass_config": {"enable_noop": True}}, "additional_config": {"x": 1}}, _Root)
    with pytest.raises(UnknownFieldError, match=re.escape("'compilation_config.pass_config.enable_nop'")):
        check_keys({"compilation_config": {"pass_config": {"enable_nop": True}}}, _Root)


def test_check_keys_no_suggestion_lists_fields() -> None:
    """With nothing close, the message lists the known fields."""
    with pytest.raises(UnknownFieldError, match="Top-level fields: additional_config, compilation_config"):
        check_keys({"zzz": 1}, _Root)


def test_format_validation_error_literal() -> None:
    """A bad literal becomes one line with the path, value and allowed values."""
    with pytest.raises(pydantic.ValidationError) as info:
        _Root(compilation_config={"cudagraph_mode": "FOO"})  # type: ignore[arg-type]
    err = format_validation_error(info.value)
    assert str(err) == (
        "compilation_config.cudagraph_mode: 'FOO' is not allowed; allowed: NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE"
    )
    assert err.path == "compilation_config.cudagraph_mode"


def test_format_validation_error_type() -> None:
    """A wrong type names path and value."""
    with pytest.raises(pydantic.ValidationError) as info:
        _Root(compilation_config={"pass_config": {"enable_noop": "maybe"}})  # type: ignore[arg-type]
    assert str(format_validation_error(info.value, _Root)).startswith(
        "compilation_config.pass_config.enable_noop: 'maybe' is invalid:"
    )


def _real_vllm_config() -> Any:
    try:
        from postinit.schema import configs
    except ImportError:  # pragma: no cover - schema not there yet
        pytest.skip("postinit.schema.configs not importable")
    return configs.VllmConfig


def test_check_keys_real_schema() -> None:
    """Against the real VllmConfig, a typo in compilation_config gets did-you-mean."""
    vllm_config = _real_vllm_config()
    with pytest.raises(UnknownFieldError, match=re.escape("Did you mean 'compilation_config.cudagraph_mode'")):
        check_keys({"compilation_config": {"cudagraph_mod": "FULL"}}, vllm_config)


def test_oracle_argv_configs_have_known_keys() -> None:
    """Every nested dict the argv loader produces for the oracle cases passes check_keys."""
    from postinit.schema.loaders import parse_vllm_args

    vllm_config = _real_vllm_config()
    for case in sorted(Path("/work/shared/oracle/cases").glob("*-argv-*.json")):
        if case.name.startswith("57-"):
            continue
        check_keys(parse_vllm_args(json.loads(case.read_text())["argv"]).config, vllm_config)


def test_real_schema_cudagraph_mode_message() -> None:
    """The real schema's bad cudagraph_mode is worded with the allowed member names."""
    vllm_config = _real_vllm_config()
    with pytest.raises(pydantic.ValidationError) as info:
        vllm_config(compilation_config={"cudagraph_mode": "FOO"})
    text = str(format_validation_error(info.value, vllm_config))
    assert text.startswith("compilation_config.cudagraph_mode: 'FOO' is not allowed; allowed: NONE, PIECEWISE, FULL")


# ---- model loader and catalog

IDS = [e.id for e in list_catalog()]
REQUIRED = {
    "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "deepseek-ai/DeepSeek-V3",
    "deepseek-ai/DeepSeek-V3.2-Exp", "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B",
    "ai21labs/AI21-Jamba-Mini-1.6", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "openai/whisper-large-v3",
    "BAAI/bge-base-en-v1.5", "google/gemma-3-27b-it", "openai/gpt-oss-120b", "state-spaces/mamba2-2.7b",
    "mistralai/Mistral-7B-Instruct-v0.3", "ibm-ai-platform/Bamba-9B", "intfloat/e5-mistral-7b-instruct",
    "Qwen/Qwen3-8B-FP8", "fixtures/llama", "fixtures/deepseek_v3", "fixtures/whisper", "fixtures/bert",
}  # fmt: skip


def test_catalog_has_required_ids() -> None:
    """The catalog holds every model the project relies on."""
    assert set(IDS) >= REQUIRED


@pytest.mark.parametrize("model_id", IDS)
def test_every_catalog_entry_loads(model_id: str) -> None:
    """Each catalog entry loads with an architecture and catalog provenance."""
    model = load_model(model_id)
    assert model.name == model_id and model.architecture
    assert model.path is None
    assert all(v.startswith(f"catalog/{catalog_file_name(model_id)}:") for k, v in model.sources.items() if k.startswith("hf_config."))


def test_catalog_facts() -> None:
    """Key facts: DeepSeek yarn scaling, Llama-4 chunk size in text_config, BGE pooling."""
    ds = load_model("deepseek-ai/DeepSeek-V3").raw
    assert ds["kv_lora_rank"] == 512 and ds["rope_scaling"]["factor"] == 40
    assert ds["rope_scaling"]["original_max_position_embeddings"] == 4096
    scout = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert scout.raw["text_config"]["attention_chunk_size"] == 8192
    assert "attention_chunk_size" not in scout.raw
    assert scout.hf_text_config.get("max_position_embeddings", 10485760) == 10485760
    bge = load_model("BAAI/bge-base-en-v1.5")
    assert bge.sentence_transformers == {"pooling_type": "CLS", "normalize": True, "max_seq_length": 512, "do_lower_case": True}
    assert load_model("Qwen/Qwen3-8B-FP8").raw["quantization_config"]["weight_block_size"] == [128, 128]


def test_text_view_merges_text_config() -> None:
    """hf_text_config lays text_config over the top level (raw text view)."""
    gemma = load_model("google/gemma-3-27b-it")
    assert gemma.raw["text_config"]["sliding_window"] == 1024
    assert gemma.sources.get("hf_text_config.sliding_window", "").endswith(":text_config.sliding_window") or (
        "sliding_window" not in gemma.hf_text_config
    )


@pytest.mark.skipif(not ORACLE_MODELS.is_dir(), reason="oracle models not present")
@pytest.mark.parametrize("name", sorted(p.name for p in ORACLE_MODELS.iterdir()) if ORACLE_MODELS.is_dir() else [])
def test_fixtures_match_oracle(name: str) -> None:
    """fixtures/<name> holds exactly the oracle's config.json."""
    assert load_model(f"fixtures/{name}").raw == json.loads((ORACLE_MODELS / name / "config.json").read_text())


def test_unknown_model_did_you_mean() -> None:
    """An unknown id names the closest catalog id."""
    with pytest.raises(ModelNotFoundError) as info:
        load_model("meta-llama/Llama-3.1-8B-Instrct")
    assert "Did you mean 'meta-llama/Llama-3.1-8B-Instruct'?" in str(info.value)
    assert "never downloads" in str(info.value)


def test_local_dir(tmp_path: Path) -> None:
    """A local directory with config.json, tokenizer and sentence-transformers files is read."""
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert", "max_position_embeddings": 512}))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256, "other": 1}))
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 384}))
    model = load_model(str(tmp_path))
    assert model.path == str(tmp_path)
    assert model.tokenizer_config == {"model_max_length": 256}
    assert model.sentence_transformers == {"normalize": False, "pooling_type": "MEAN", "max_seq_length": 384}
    assert model.sources["hf_config.architectures"] == f"{tmp_path}/config.json:architectures"
    assert load_model(str(tmp_path / "config.json")).raw == model.raw


def test_local_dir_read_once_until_a_file_changes(tmp_path: Path) -> None:
    """A local model's files are parsed once and the facts shared, until a file the load consulted changes, appears
    or vanishes (config.json, the tokenizer's, modules.json and the pooling module it names): then read again."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert", "max_position_embeddings": 512}))
    first = load_model(str(tmp_path))
    assert load_model(str(tmp_path)) is first  # nothing changed: the same facts
    config.write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert", "max_position_embeddings": 1024}))
    second = load_model(str(tmp_path))
    assert second is not first and second.raw["max_position_embeddings"] == 1024
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))  # a file appears
    third = load_model(str(tmp_path))
    assert third is not second and third.tokenizer_config == {"model_max_length": 256}
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    assert load_model(str(tmp_path)).sentence_transformers == {"normalize": False}
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    assert load_model(str(tmp_path)).sentence_transformers == {"normalize": False, "pooling_type": "CLS"}
    (tmp_path / "tokenizer_config.json").unlink()  # a file vanishes
    assert load_model(str(tmp_path)).tokenizer_config is None
    # same size and a restored mtime: the inode or ctime still tells a rewritten file apart
    before = config.stat()
    config.write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert", "max_position_embeddings": 2048}))
    os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert load_model(str(tmp_path)).raw["max_position_embeddings"] == 2048


def test_local_bad_json_names_line(tmp_path: Path) -> None:
    """A broken local config.json names the file and line."""
    (tmp_path / "config.json").write_text('{\n  "model_type": "llama"\n  "x": 1\n}\n')
    with pytest.raises(InvalidValueError, match=rf"^{tmp_path}/config.json:3:3: invalid JSON"):
        load_model(str(tmp_path))


def test_dir_without_config(tmp_path: Path) -> None:
    """A directory without config.json is a ModelNotFoundError."""
    with pytest.raises(ModelNotFoundError, match=re.escape("has no config.json")):
        load_model(str(tmp_path))


def test_whisper_attribute_map_aliases() -> None:
    """WhisperConfig.attribute_map: num_attention_heads/num_key_value_heads/hidden_size read the encoder keys."""
    from postinit.schema.loaders import load_model
    m = load_model("fixtures/whisper")
    assert m.hf_text_config["num_attention_heads"] == 4
    assert m.hf_text_config["num_key_value_heads"] == 4
    assert m.hf_config["hidden_size"] == 64
    assert m.sources["hf_text_config.num_attention_heads"].endswith(":encoder_attention_heads")
