"""Rules the held-out command lines (``y###``, gen_heldout.py) showed missing: each pins the real answers of the
golden cases named in its docstring."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import postinit
from postinit.errors import InvalidValueError

LLAMA = "tests/golden/models/llama"


def test_max_model_len_below_one_is_kept_by_the_seed_and_refused_by_0_11_1_scheduler() -> None:
    """y039: ``--max-model-len -1``: the seed's and 0.11.1's ModelConfig take any int (SkipValidation) and keep it;
    EngineArgs' batch defaults become negative. The seed resolves (and warns about the negative product); 0.11.1's
    SchedulerConfig refuses both negative fields at once; 0.34.0 reads -1 as "auto"."""
    seed = postinit.resolve(argv=[LLAMA, "-tp", "2", "--max-model-len", "-1"], vllm_version="d7fb10c57")
    assert seed.ok and seed.state["model_config.max_model_len"] == -1
    later = postinit.resolve(argv=[LLAMA, "-tp", "2", "--max-model-len", "-1"], vllm_version="0.11.1")
    assert not later.ok and later.error is not None
    text = later.error.message
    assert text.startswith("2 validation errors for SchedulerConfig\nmax_num_batched_tokens\n")
    assert "input_value=-1024" in text and "\nmax_num_seqs\n" in text
    auto = postinit.resolve(argv=[LLAMA, "--max-model-len", "-1"], vllm_version="0.34.0")
    assert auto.ok and auto.state["model_config.max_model_len"] == 4096


def test_a_quantization_method_with_a_config_file_needs_the_file(tmp_path: Path) -> None:
    """y025: ``--quantization awq`` on a checkpoint whose config.json has no quantization_config: vLLM looks for
    the method's own config file in the model directory, before the GPU and dtype checks (every version)."""
    for version in ("d7fb10c57", "0.11.1", "0.34.0"):
        r = postinit.resolve(argv=[LLAMA, "--quantization", "awq"], vllm_version=version)
        assert r.error is not None and r.error.message == "Cannot find the config file for awq", version
    model = tmp_path / "llama_awq"
    shutil.copytree(LLAMA, model)
    (model / "quantize_config.json").write_text("{}")
    found = postinit.resolve(argv=[str(model), "--quantization", "awq", "--dtype", "float16"], vllm_version="0.34.0")
    assert found.error is None or "config file" not in found.error.message
    (model / "quant_config.json").write_text("{}")
    both = postinit.resolve(argv=[str(model), "--quantization", "awq"], vllm_version="0.34.0")
    assert both.error is not None
    assert both.error.message.startswith("Found multiple config files for awq: [")
    fp8 = postinit.resolve(argv=[LLAMA, "--quantization", "fp8"], vllm_version="0.11.1")
    assert fp8.error is None or "config file" not in fp8.error.message  # fp8 names no file



def test_a_model_directory_with_too_many_json_files_is_refused_not_listed_in_part(tmp_path: Path) -> None:
    """The listing vLLM searches for a quantization config file is bounded: past the bound the directory is refused
    with one line naming it (a partial listing would keep whichever names the file system gives first)."""
    from postinit.schema.loaders.model import MAX_DIR_JSON_FILES

    model = tmp_path / "many"
    shutil.copytree(LLAMA, model)
    present = len(list(model.glob("*.json")))
    for i in range(MAX_DIR_JSON_FILES - present):
        (model / f"extra-{i:04d}.json").write_text("{}")
    assert postinit.resolve(argv=[str(model)], vllm_version="0.34.0").ok  # exactly at the bound: listed
    (model / "one-more.json").write_text("{}")
    with pytest.raises(InvalidValueError) as info:
        postinit.resolve(argv=[str(model)], vllm_version="0.34.0")
    message = str(info.value)
    assert str(model) in message and f"more than {MAX_DIR_JSON_FILES} *.json files" in message
    assert "\n" not in message

def test_a_model_type_the_version_s_transformers_does_not_know_is_refused() -> None:
    """y017 (model.model-type-known): a Nemotron-H checkpoint at the seed and 0.11.1, whose transformers 4.57 has no
    NemotronHConfig (nor vLLM its own): get_config's ValueError, before any record of ModelConfig; 0.34.0
    (transformers 5.22) loads it."""
    argv = ["tests/golden/models/nemotron_h"]
    for version in ("d7fb10c57", "0.11.1"):
        r = postinit.resolve(argv=argv, vllm_version=version)
        assert r.error is not None and r.error.type == "ValueError", version
        assert r.error.message.startswith("The checkpoint you are trying to load has model type `nemotron_h` but "
                                          "Transformers does not recognize this architecture.")
    assert postinit.resolve(argv=argv, vllm_version="0.34.0").ok


def test_0_34_0_cpu_does_not_warn_about_an_unset_kv_cache_space() -> None:
    """f304 (s-y061 first answered without VLLM_CPU_KVCACHE_SPACE): 0.34.0's CPU platform sizes memory from the memory node
    and reads the variable only when set; the seed and 0.11.1 warn while EngineArgs asks for the device memory."""
    def warned(version: str) -> bool:
        r = postinit.resolve(argv=[LLAMA], platform="cpu", vllm_version=version)
        return any("VLLM_CPU_KVCACHE_SPACE" in (e.message or "") for e in r.messages())

    assert warned("d7fb10c57") and warned("0.11.1") and not warned("0.34.0")


def test_the_parser_s_deprecation_warnings_come_before_an_unrecognized_argument() -> None:
    """y202: vLLM's parser logs a given deprecated flag's warning in parse_known_args, before parse_args names the
    arguments it did not recognize; the refusal carries that record (``said_before``)."""
    from postinit.schema.errors import UnknownFlagError

    argv = [LLAMA, "--cuda-graph-sizes", "512", "--attention-backend", "FLASHINFER"]
    for version in ("d7fb10c57", "0.11.1"):
        with pytest.raises(UnknownFlagError) as info:
            postinit.resolve(argv=argv, vllm_version=version)
        assert info.value.vllm_message == "unrecognized arguments: --attention-backend FLASHINFER"
        assert info.value.said_before == (("argv", "warning", "argument 'cuda_graph_sizes' is deprecated"),)
