"""What a new user pastes and hands in: whole `vllm serve` lines, postinit options inside them, config files.

Each test is one thing a vLLM operator tried with only the README and got wrong: the line
is now read as typed, and a file's values are credited to the file and line that set them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app
from postinit.errors import InputError
from postinit.schema.loaders.argv import env_prefix, postinit_options

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
PASTED = f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve {LLAMA} --max-model-len 200k"
runner = CliRunner()


def run(*args: str, cwd: Path | None = None) -> Any:
    if cwd is None:
        return runner.invoke(app, list(args))
    import os

    here = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(app, list(args))
    finally:
        os.chdir(here)


# --------------------------------------------------------------------------- pasted lines


@pytest.mark.parametrize(("args", "env", "rest"), [
    (["VLLM_X=1", "vllm", "serve", "M"], {"VLLM_X": "1"}, ["vllm", "serve", "M"]),
    (["env", "A=1", "B=", "vllm", "serve"], {"A": "1", "B": ""}, ["vllm", "serve"]),
    (["M", "--env-like", "X=1"], {}, ["M", "--env-like", "X=1"]),
    (["--served-model-name", "a=b"], {}, ["--served-model-name", "a=b"]),
])
def test_env_prefix_is_read_as_a_shell_reads_it(args: list[str], env: dict[str, str], rest: list[str]) -> None:
    """Only the leading NAME=VALUE words of a line are environment; a flag's value never is."""
    assert env_prefix(args) == (env, rest)


def test_postinit_options_in_a_pasted_line() -> None:
    """--platform, --env, --usage, --semantics and --vllm-version in a line are postinit's, in both spellings."""
    found, rest = postinit_options(["M", "--platform", "b200", "-tp", "2", "--env", "VLLM_USE_V1=1",
                                    "--vllm-version=0.11.1", "--usage", "llm"])
    assert found == {"platform": "b200", "env": {"VLLM_USE_V1": "1"}, "vllm_version": "0.11.1", "usage": "llm"}
    assert rest == ["M", "-tp", "2"]
    with pytest.raises(InputError, match="--platform"):
        postinit_options(["--platform"])


def test_an_env_prefixed_line_resolves_in_the_library() -> None:
    """The pasted line was refused ("the model goes first"); it is env plus flags, the same as giving them apart."""
    pasted = postinit.resolve(argv=PASTED, platform="b200")
    apart = postinit.resolve(model=LLAMA, argv=["--max-model-len", "200k"], platform="b200",
                             env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
    assert pasted.ok and pasted.hash == apart.hash
    assert pasted.provenance("env.VLLM_ALLOW_LONG_MAX_MODEL_LEN").detail == "env VLLM_ALLOW_LONG_MAX_MODEL_LEN"


@pytest.mark.parametrize("args", [
    ["resolve", *PASTED.split(), "--platform", "b200"],
    ["resolve", PASTED, "--platform", "b200"],  # the whole line in quotes
])
def test_an_env_prefixed_line_resolves_on_the_cli(args: list[str]) -> None:
    """Pasted after `postinit resolve`, split by the shell or quoted whole."""
    res = run(*args, "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["config"]["model_config"]["max_model_len"] == 200_000


def test_postinit_options_inside_a_diff_side() -> None:
    """`--platform` inside a diff string suggested `--load-format`; it is that side's platform."""
    res = run("diff", "-tp 2", "-tp 2 --platform cpu", "--format", "json")
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    a = postinit.resolve(argv="-tp 2").hash
    b = postinit.resolve(argv="-tp 2", platform="cpu").hash
    assert (data["a"]["hash"], data["b"]["hash"]) == (a, b)
    assert a != b


def test_postinit_options_inside_library_argv() -> None:
    """The library takes the same line: its postinit options win over the request's other fields."""
    r = postinit.resolve(argv="--platform cpu --vllm-version 0.11.1 -tp 1")
    assert r.inputs["platform"] == "platform cpu" and r.inputs["vllm_version"] == "0.11.1"


# --------------------------------------------------------------------------- files


def test_a_hf_config_json_given_to_config_says_what_to_do(tmp_path: Path) -> None:
    """A model's config.json passed to --config said "unknown flag '--architectures'"; now it says to pass the
    directory as the model."""
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                                    "hidden_size": 4096}))
    res = run("resolve", "--config", str(folder / "config.json"))
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert "HuggingFace config.json" in line and f"postinit resolve {folder}" in line
    assert "unknown flag" not in line


FLAGS_YAML = """\
# serve.yaml
model: meta-llama/Llama-3.1-8B-Instruct
tensor-parallel-size: 2
max-num-seqs: 128
enable-prefix-caching: true
"""
NESTED_YAML = """\
model_config:
  model: meta-llama/Llama-3.1-8B-Instruct
  max_model_len: 4096
scheduler_config:
  max_num_seqs: 64
"""


def test_flag_file_values_are_credited_to_the_file_and_line(tmp_path: Path) -> None:
    """A flag-shaped file's value was "your --max-num-seqs 128"; it is the file's line, unless the command line
    gives the flag again."""
    (tmp_path / "serve.yaml").write_text(FLAGS_YAML)
    res = run("why", "scheduler_config.max_num_seqs", "--config", "serve.yaml", cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert "← your serve.yaml:4 (max-num-seqs: 128)" in res.stdout.splitlines()[0]
    res = run("why", "parallel_config.world_size", "--config", "serve.yaml", cwd=tmp_path)
    assert "your serve.yaml:3 (tensor-parallel-size: 2)" in res.stdout
    res = run("why", "scheduler_config.max_num_seqs", "--config", "serve.yaml", "--max-num-seqs", "7", cwd=tmp_path)
    assert "← your --max-num-seqs 7" in res.stdout.splitlines()[0]


def test_nested_file_values_are_credited_to_the_file_and_line(tmp_path: Path) -> None:
    """A nested (VllmConfig-shaped) file's values were "your config"; they are the file's lines, in config mode
    and with flags alike, on every face that shows provenance."""
    (tmp_path / "nested.yaml").write_text(NESTED_YAML)
    (tmp_path / "nested.json").write_text(json.dumps(
        {"model_config": {"model": LLAMA}, "scheduler_config": {"max_num_seqs": 64}}, indent=2))
    for extra in ([], ["-tp", "2"]):
        res = run("why", "scheduler_config.max_num_seqs", "--config", "nested.yaml", *extra, cwd=tmp_path)
        assert res.exit_code == 0, res.stderr
        assert "← your nested.yaml:5 (max_num_seqs: 64)" in res.stdout.splitlines()[0], res.stdout
    res = run("why", "scheduler_config.max_num_seqs", "--config", "nested.json", cwd=tmp_path)
    assert "← your nested.json:6 (max_num_seqs: 64)" in res.stdout.splitlines()[0], res.stdout
    res = run("why", "scheduler_config.max_num_seqs", "--config", "nested.yaml", "--format", "json", cwd=tmp_path)
    assert json.loads(res.stdout)["detail"] == "nested.yaml:5 (max_num_seqs: 64)"


def test_config_mode_is_named(tmp_path: Path) -> None:
    """A nested file without flags switches to config mode; the answer says so and why, and how to get vllm serve."""
    (tmp_path / "nested.yaml").write_text(NESTED_YAML)
    res = run("resolve", "--config", "nested.yaml", cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    head = res.stdout.splitlines()[0]
    assert "config mode" in head
    assert "--usage serve" in res.stdout
    res = run("resolve", "--config", "nested.yaml", "--usage", "serve", cwd=tmp_path)
    assert "usage serve" in res.stdout.splitlines()[0] and "config mode" not in res.stdout
    notes = postinit.resolve({"scheduler_config": {"max_num_seqs": 64}}).notes
    assert [n.kind for n in notes if n.kind == "mode"] == ["mode"]


@pytest.mark.parametrize(("args", "says"), [
    (["resolve", "--platform"], "option '--platform' requires an argument"),
    (["why"], "missing argument 'path'"),
    (["resolve", "--format", "xx"], "'xx' is not one of 'text', 'json', 'yaml', 'md', 'html'"),
    (["nope"], "no such command 'nope'"),
])
def test_typers_own_usage_errors_are_one_line(args: list[str], says: str) -> None:
    """Typer drew these in a box under the usage text; like every other bad input they are one error line, exit 2."""
    res = run(*args)
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], res.stderr
    assert "--help" in lines[0] and "╭" not in res.stderr
