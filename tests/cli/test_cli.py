"""The ``postinit`` command line, end to end through Typer's CliRunner on real catalog models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

import postinit
from postinit.cli import app

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
CONTRACT = {"version", "ok", "config", "changes", "trace", "violations", "hash"}

runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


def rules_json() -> dict[str, dict[str, Any]]:
    res = run("rules", "--format", "json")
    assert res.exit_code == 0, res.stderr
    return {r["id"]: r for r in json.loads(res.stdout)["rules"]}


def one_error_line(res: Any) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    assert res.stdout == ""
    return str(lines[0])


# ---------------------------------------------------------------------------- resolve


def test_resolve_without_arguments_shows_the_default_model() -> None:
    """With no arguments resolve prints a real result for the default model and platform."""
    res = run("resolve")
    assert res.exit_code == 0, res.stderr
    assert postinit.DEFAULT_MODEL in res.stdout
    assert "platform h100" in res.stdout


@pytest.mark.parametrize("model", [LLAMA, "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-Next-80B-A3B-Instruct", "fixtures/llama"])
def test_resolve_json_has_the_contract_keys(model: str) -> None:
    """``--format json`` prints exactly ``Resolution.to_dict()`` with the contract keys."""
    res = run("resolve", "--model", model, "--format", "json")
    assert res.exit_code in (0, 1), res.stderr
    data = json.loads(res.stdout)
    assert data.keys() >= CONTRACT
    assert data["ok"] is (res.exit_code == 0)
    assert data["config"]["model_config"]["model"] == model
    assert data["trace"]["version"] == 1


def test_resolve_json_equals_the_library_result() -> None:
    """The CLI's JSON is the library's ``to_dict()`` for the same flags."""
    res = run("resolve", LLAMA, "--platform", "b200", "--max-model-len", "200k", "--format", "json")
    lib = postinit.resolve(argv=[LLAMA, "--max-model-len", "200k"], platform="b200").to_dict()
    assert json.loads(res.stdout) == json.loads(json.dumps(lib))


def test_resolve_positional_model_and_flags_pass_through() -> None:
    """A ``vllm serve``-style positional model and short flags like ``-tp 2`` reach the flag parser."""
    res = run("resolve", "deepseek-ai/DeepSeek-V3", "-tp", "2", "--enforce-eager", "--format", "json")
    data = json.loads(res.stdout)
    assert data["config"]["model_config"]["model"] == "deepseek-ai/DeepSeek-V3"
    assert data["config"]["parallel_config"]["tensor_parallel_size"] == 2
    assert data["config"]["model_config"]["enforce_eager"] is True


def test_resolve_yaml_and_markdown() -> None:
    """YAML parses to the same keys and Markdown has a table of changes."""
    res = run("resolve", "--format", "yaml")
    assert yaml.safe_load(res.stdout).keys() >= CONTRACT
    md = run("resolve", "--format", "md").stdout
    assert md.startswith("### postinit:")
    assert "| field | input | resolved | rule | reason |" in md


def test_resolve_full_prints_the_config() -> None:
    """``--full`` adds the whole resolved config."""
    res = run("resolve", "--full")
    assert "resolved config" in res.stdout
    assert "compilation_config:" in res.stdout


def test_resolve_text_names_the_rules_that_changed_values() -> None:
    """With --full the text report names, for each changed field, the rule that set it."""
    r = postinit.resolve(argv=[])
    res = run("resolve", "--full")
    for c in r.changes:
        assert c.path in res.stdout
        assert str(r.provenance(c.path).rule) in res.stdout


def test_resolve_nested_config_file(tmp_path: Path) -> None:
    """A nested VllmConfig-shaped YAML file resolves in config mode."""
    f = tmp_path / "c.yaml"
    f.write_text(f"model_config:\n  model: {LLAMA}\n  max_model_len: 4096\n")
    data = json.loads(run("resolve", "--config", str(f), "--format", "json").stdout)
    assert data["config"]["model_config"]["max_model_len"] == 4096
    assert data["inputs"]["usage"] is None


def test_resolve_flag_style_config_file(tmp_path: Path) -> None:
    """A flag-style YAML file is read as ``vllm serve --config``."""
    f = tmp_path / "c.yaml"
    f.write_text("max-model-len: 4096\nenforce-eager: true\n")
    data = json.loads(run("resolve", "--config", str(f), "--format", "json").stdout)
    assert data["config"]["model_config"]["max_model_len"] == 4096
    assert data["inputs"]["usage"] == "serve"


def test_resolve_env_and_semantics_options() -> None:
    """``--env`` and ``--semantics`` are accepted and recorded."""
    res = run("resolve", "--env", "VLLM_USE_V1=1", "--semantics", "consistent", "--format", "json")
    assert res.exit_code in (0, 1), res.stderr
    assert json.loads(res.stdout)["inputs"]["semantics"] == "consistent"


# ---------------------------------------------------------------------------- exit codes


def test_bad_flag_is_one_line_with_a_suggestion() -> None:
    """An unknown vLLM flag exits 2 with one line that suggests the right flag."""
    res = run("resolve", "--max-num-seq5", "3")
    assert res.exit_code == 2
    line = one_error_line(res)
    assert "did you mean" in line.lower()
    assert "--max-num-seqs" in line


def test_unknown_field_in_config_file(tmp_path: Path) -> None:
    """An unknown key in a nested config file exits 2 with one line."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"model_config": {"max_model_lenn": 4096}}))
    res = run("resolve", "--config", str(f))
    assert res.exit_code == 2
    assert "max_model_len" in one_error_line(res)


def test_missing_config_file(tmp_path: Path) -> None:
    """A config file that does not exist exits 2 with one line."""
    res = run("resolve", "--config", str(tmp_path / "nope.yaml"))
    assert res.exit_code == 2
    assert "not found" in one_error_line(res)


def test_unknown_model_and_platform() -> None:
    """An unknown model or platform exits 2 with one line."""
    assert run("resolve", "--model", "no/such-model").exit_code == 2
    res = run("resolve", "--platform", "h1000")
    assert res.exit_code == 2
    assert "h100" in one_error_line(res)


def test_bad_env_item() -> None:
    """An ``--env`` item without ``=`` exits 2."""
    res = run("resolve", "--env", "VLLM_USE_V1")
    assert res.exit_code == 2
    one_error_line(res)


def test_violation_exits_1() -> None:
    """A config vLLM refuses exits 1 and reports its violations in JSON."""
    res = run("resolve", "--max-model-len", "10000000", "--format", "json")
    data = json.loads(res.stdout)
    assert res.exit_code == (0 if data["ok"] else 1)
    if not data["ok"]:
        assert data["violations"][0]["rule"]


# ---------------------------------------------------------------------------- why / why-not


def test_why_json_is_a_tree_back_to_inputs() -> None:
    """``why`` prints the causal tree whose leaves are inputs, loader keys, facts or defaults."""
    res = run("why", "compilation_config.cudagraph_mode", "--model", LLAMA, "--platform", "b200",
              "--max-model-len", "200k", "--format", "json")
    assert res.exit_code in (0, 1), res.stderr
    node = json.loads(res.stdout)
    assert node["path"] == "compilation_config.cudagraph_mode"

    def leaves(n: dict[str, Any]) -> list[dict[str, Any]]:
        return [x for c in n.get("because", []) for x in leaves(c)] if n.get("because") else [n]

    assert all(leaf["source"] in {"user", "loader", "fact", "default", "rule"} for leaf in leaves(node))


def test_why_names_the_eager_rule_and_the_flag() -> None:
    """With ``--enforce-eager`` the why tree of cudagraph_mode names the deciding rule and reaches the flag."""
    writers = [r for r, d in rules_json().items() if "compilation_config.cudagraph_mode" in d["writes"]]
    lib = postinit.resolve(argv=["--enforce-eager"]).why("compilation_config.cudagraph_mode")
    res = run("why", "compilation_config.cudagraph_mode", "--enforce-eager")
    assert res.stdout.startswith("compilation_config.cudagraph_mode = NONE")
    assert lib.rule in writers
    assert f"rule {lib.rule}" in res.stdout
    assert "your --enforce-eager" in res.stdout


def test_why_unknown_path() -> None:
    """An unknown field path exits 2 with a suggestion."""
    res = run("why", "compilation_config.cudagraph_mod")
    assert res.exit_code == 2
    assert "cudagraph_mode" in one_error_line(res)


def test_why_not_lists_candidate_rules() -> None:
    """``why-not`` lists every rule that writes the path with its status."""
    res = run("why-not", "compilation_config.cudagraph_mode", "FULL", "--enforce-eager", "--format", "json")
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["value"] == "FULL"
    writers = {r for r, d in rules_json().items() if "compilation_config.cudagraph_mode" in d["writes"]}
    assert {c["rule"] for c in data["candidates"]} == writers
    assert run("why-not", "compilation_config.cudagraph_mode", "FULL", "--enforce-eager").exit_code == 0


# ---------------------------------------------------------------------------- what-if / diff


def test_what_if_enforce_eager() -> None:
    """Setting enforce_eager changes the resolved config and the set of rules that fire."""
    res = run("what-if", "--set", "model_config.enforce_eager=true", "--format", "json")
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["set"] == {"model_config.enforce_eager": True}
    paths = {f["path"] for f in data["diff"]["fields"]}
    assert "model_config.enforce_eager" in paths
    b = next(f["b"] for f in data["diff"]["fields"] if f["path"] == "model_config.enforce_eager")
    assert b["source"] == "user"
    assert "what if" in run("what-if", "--set", "model_config.enforce_eager=true").stdout


def test_what_if_library_object() -> None:
    """``postinit.what_if`` returns base, changed and their diff."""
    w = postinit.what_if(argv=["-tp", "2"], set={"model_config.max_model_len": 4096})
    assert w.changed.get("model_config.max_model_len") == 4096
    assert any(f.path == "model_config.max_model_len" for f in w.diff.fields)
    assert w.to_dict()["version"] == 1


def test_what_if_bad_set() -> None:
    """A ``--set`` without ``=`` or with an unknown path exits 2."""
    assert run("what-if", "--set", "model_config.enforce_eager").exit_code == 2
    res = run("what-if", "--set", "model_config.enforce_eagre=true")
    assert res.exit_code == 2
    assert "enforce_eager" in one_error_line(res)


def test_diff_two_flag_strings() -> None:
    """``diff`` compares two quoted flag strings on the same platform."""
    res = run("diff", "--max-model-len 4096", "--max-model-len 8192 --enforce-eager", "--format", "json")
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    paths = {f["path"] for f in data["fields"]}
    assert {"model_config.max_model_len", "model_config.enforce_eager"} <= paths
    assert set(data["rules"]) == {"started", "stopped"}


def test_diff_config_file_against_flags(tmp_path: Path) -> None:
    """One side of ``diff`` may be a config file."""
    f = tmp_path / "a.yaml"
    f.write_text("max-model-len: 4096\n")
    res = run("diff", str(f), "--max-model-len 4096")
    assert res.exit_code == 0, res.stderr
    assert "No difference" in res.stdout


def test_diff_library_object_same_inputs() -> None:
    """Two resolutions of the same input have no difference."""
    d = postinit.diff(postinit.resolve(argv=[]), postinit.resolve(argv=[]))
    assert d.same


# ---------------------------------------------------------------------------- rulebook commands


def test_rules_table_and_filters() -> None:
    """``rules`` lists every rule; ``--phase`` and ``--touching`` filter."""
    everything = rules_json()
    assert len(everything) == len(postinit.rulebook())
    core = json.loads(run("rules", "--phase", "core", "--format", "json").stdout)["rules"]
    assert all(r["phase"] == "core" for r in core)
    touching = json.loads(run("rules", "--touching", "model_config.max_model_len", "--format", "json").stdout)
    assert all("model_config.max_model_len" in r["reads"] + r["writes"] for r in touching["rules"])
    assert run("rules", "--phase", "nope").exit_code == 2
    assert "rules" in run("rules").stdout


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_graph_text_formats_name_rules(fmt: str) -> None:
    """``graph --format dot|mermaid`` prints text that names the rules."""
    res = run("graph", "--format", fmt, "--phase", "core")
    assert res.exit_code == 0, res.stderr
    core = [r for r, d in rules_json().items() if d["phase"] == "core"]
    assert all(r in res.stdout for r in core)
    assert res.stdout.startswith("digraph" if fmt == "dot" else "flowchart")


def test_graph_around_path_is_small() -> None:
    """``--around PATH`` draws only the path's writers and readers."""
    path = "compilation_config.cudagraph_mode"
    res = run("graph", "--around", path)
    book = postinit.rulebook()
    expected = {r.id for r in book.writers_of(path)} | {r.id for r in book.readers_of(path)}
    assert all(r in res.stdout for r in expected)
    nodes = [line for line in res.stdout.splitlines() if line.startswith("    \"") and "[label=" in line]
    assert len(nodes) == len(expected)
    assert run("graph", "--around", "no.such.thing").exit_code == 2


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot binary")
def test_graph_svg(tmp_path: Path) -> None:
    """``graph --format svg`` renders with Graphviz."""
    out = tmp_path / "g.svg"
    res = run("graph", "--format", "svg", "--phase", "core", "--output", str(out))
    assert res.exit_code == 0, res.stderr
    assert out.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_check_reports_and_summarises() -> None:
    """``check`` finds no compile error in the shipped rulebook and counts rules per phase."""
    res = run("check", "--format", "json")
    data = json.loads(res.stdout)
    assert res.exit_code == (0 if data["ok"] else 1)
    assert data["ok"]
    assert sum(p["rules"] for p in data["phases"].values()) == len(postinit.rulebook())
    assert "rules per phase" in run("check").stdout


def test_schema_models_platforms() -> None:
    """``schema``, ``models`` and ``platforms`` print their data."""
    schema = json.loads(run("schema").stdout)
    assert "model_config" in json.dumps(schema)
    models = json.loads(run("models", "--format", "json").stdout)["models"]
    assert LLAMA in {m["id"] for m in models}
    plats = json.loads(run("platforms", "--format", "json").stdout)["platforms"]
    assert {"h100", "b200", "cpu", "mi300x"} <= {p["spec"] for p in plats}


def test_log_json_goes_to_stderr() -> None:
    """``--log-level`` sends engine events to stderr and keeps stdout JSON clean."""
    res = run("--log-level", "debug", "--log-format", "json", "resolve", "--format", "json")
    assert json.loads(res.stdout).keys() >= CONTRACT
    events = [json.loads(line)["event"] for line in res.stderr.splitlines() if line.startswith("{")]
    assert "rule_fired" in events
    assert "rule_fired" not in run("resolve", "--format", "json").stderr
