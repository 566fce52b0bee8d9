"""The default answers fit one screen (issue 27): `resolve` shows what changed a value you set, the key
settings, violations, warnings and notes about your input, and says what `--full` adds; `rules` and
`models` are one line per row; mistakes a new user makes are one clear line."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app
from postinit.errors import InvalidValueError
from postinit.render import KEY_FIELDS
from postinit.rules import rulebook

runner = CliRunner()
SCREEN = 40
LINES = [
    [],
    ["deepseek-ai/DeepSeek-V3", "-tp", "8", "--enable-dbo"],
    ["--max-num-seqs", "2048", "--max-num-batched-tokens", "1000", "-O3"],
    ["Qwen/Qwen3-Next-80B-A3B-Instruct", "-tp", "4", "--kv-transfer-config",
     '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'],
    ["--vllm-version", "0.34.0", "--enforce-eager", "--max-model-len", "4096"],
    ["--vllm-version", "0.11.1", "--platform", "cpu"],
    ["--platform", "b200", "--max-model-len", "200k", "--max-num-seqs", "7", "--block-size", "32",
     "--gpu-memory-utilization", "0.8", "--enable-chunked-prefill", "--no-enable-prefix-caching"],
]


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("argv", LINES, ids=lambda a: " ".join(a)[:40] or "defaults")
def test_resolve_fits_one_screen_and_full_has_every_change(argv: list[str]) -> None:
    short, full = run("resolve", *argv), run("resolve", *argv, "--full")
    assert short.exit_code == full.exit_code
    lines = short.stdout.splitlines()
    assert len(lines) <= SCREEN, short.stdout
    assert "--full shows" in short.stdout or "--full also prints" in short.stdout
    assert len(full.stdout.splitlines()) > len(lines)
    flags = [a for a in argv if a != "--vllm-version" and a not in ("0.34.0", "0.11.1")]
    plat = argv[argv.index("--platform") + 1] if "--platform" in argv else None
    r = postinit.resolve(argv=[a for a in flags if a not in ("--platform", plat)],
                         vllm_version=argv[argv.index("--vllm-version") + 1] if "--vllm-version" in argv else None,
                         **({"platform": plat} if plat else {}))
    for c in r.changes:  # --full lists every change
        assert c.path in full.stdout
    for v in r.violations:  # violations are on the one screen
        assert v.rule in short.stdout
    shown_fields = {ln.split()[0] for ln in lines if ln and ln.split()[0].count(".") >= 1 and " → " in ln}
    for c in r.changes:  # every value the user set that a rule changed, and the key settings (up to the cap)
        if c.overrides_user:
            assert c.path in shown_fields, c.path
    key_changed = [c.path for c in r.changes if c.path in KEY_FIELDS and not c.overrides_user]
    assert set(key_changed[: max(0, 14 - sum(c.overrides_user for c in r.changes))]) <= shown_fields
    more = re.search(r"--full shows (\d+) more change", short.stdout.replace("\n", " "))
    assert (int(more.group(1)) if more else 0) == len(r.changes) - len(shown_fields)


def test_a_value_you_set_that_vllm_changes_is_shown_with_the_flag() -> None:
    res = run("resolve", "--enforce-eager", "--cuda-graph-sizes", "8", "16")
    lines = res.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("compilation_config.cudagraph_capture_sizes"))
    assert "cudagraph.eager-disables" in lines[at] and "! overrides your --cuda-graph-sizes" in lines[at + 1]
    assert "values you set, key settings:" in res.stdout
    assert len(res.stdout.splitlines()) <= SCREEN


def test_quirks_and_info_records_are_counted_not_listed_by_default() -> None:
    short, full = run("resolve").stdout, run("resolve", "--full").stdout
    assert "quirk I11" not in short and "quirk I11" in full
    assert "quirk.full-cuda-graph-not-idempotent" in short  # named in the count line
    assert "Using max model len" not in short and "Using max model len" in full


def test_a_built_sub_config_reads_set_not_true() -> None:
    full = run("resolve", "--full").stdout
    assert re.search(r"^observability_config\s+unset → set\s", full, re.M), full
    why = run("why", "scheduler_config.disable_hybrid_kv_cache_manager", "--kv-transfer-config",
              '{"kv_connector":"NixlConnector","kv_role":"kv_both"}').stdout
    assert "kv_transfer_config = set  ← your --kv-transfer-config" in why


@pytest.mark.parametrize("cmd", [["rules"], ["rules", "--touching", "scheduler_config.max_num_seqs"], ["models"]])
def test_rules_and_models_are_one_line_per_row(cmd: list[str]) -> None:
    res = run(*cmd)
    assert res.exit_code == 0
    data = json.loads(run(*cmd, "--format", "json").stdout)
    rows = data["rules"] if "rules" in data else data["models"]
    body = [ln for ln in res.stdout.splitlines()[3:] if ln.strip() and not ln.strip().startswith("─")]
    assert len(body) == len(rows)
    assert [ln.split()[0] for ln in body] == [r["id"] for r in rows]
    assert all(len(ln) <= 120 for ln in res.stdout.splitlines())
    assert len(run(*cmd, "--full").stdout.splitlines()) > len(res.stdout.splitlines())


def test_rules_one_line_names_phase_and_kind() -> None:
    book = rulebook("d7fb10c57")
    line = next(ln for ln in run("rules").stdout.splitlines() if ln.strip().startswith("cudagraph.default-mode "))
    rule = book.rules["cudagraph.default-mode"]
    assert rule.phase in line.split() and rule.kind in line.split()


def test_a_switch_given_a_value_is_not_a_model() -> None:
    res = run("resolve", "--full", "true")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip() == ("error: 'true' is not a model: postinit's switches (--full, --verbose, ...) take no "
                                  "value; write the switch alone (e.g. --full)")


def test_an_ambiguous_flag_prefix_lists_the_candidates() -> None:
    res = run("resolve", "--max-num", "4")
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert line.startswith("error: ambiguous flag '--max-num': it could be ")
    for flag in ("--max-num-seqs", "--max-num-batched-tokens"):
        assert flag in line
    assert run("resolve", "--max-num-s", "4").exit_code == 0  # a unique prefix is vLLM's argparse abbreviation


def test_why_not_a_value_the_field_can_never_hold_is_refused_on_every_face() -> None:
    from tests.service.conftest import make_client

    res = run("why-not", "compilation_config.cudagraph_mode", "FULLL")
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "error: compilation_config.cudagraph_mode can never be 'FULLL': it is one of NONE, PIECEWISE, FULL, "
        "FULL_DECODE_ONLY, FULL_AND_PIECEWISE, None. Did you mean 'FULL'?")
    with pytest.raises(InvalidValueError, match="can never be 'FULLL'"):
        postinit.resolve().why_not("compilation_config.cudagraph_mode", "FULLL")
    body = {"path": "compilation_config.cudagraph_mode", "value": "FULLL"}
    answer = make_client().post("/v1/why-not", json=body)
    assert answer.status_code == 422 and "can never be 'FULLL'" in answer.text
    assert postinit.resolve().why_not("compilation_config.cudagraph_mode", "FULL").value is not None
    assert run("why-not", "scheduler_config.max_num_seqs", "abc").exit_code == 2


@pytest.mark.parametrize("version", ["d7fb10c57", "0.11.1", "0.34.0"])
def test_repr_names_the_version(version: str) -> None:
    assert f"· vLLM {version} ·" in repr(postinit.resolve(vllm_version=version))


def test_a_narrow_terminal_cuts_cells_and_keeps_every_column() -> None:
    """The table is sized when rich renders it: at 80 columns the values and the rule are cut, never dropped."""
    from rich.console import Console

    r = postinit.resolve(argv=["--enforce-eager", "--cuda-graph-sizes", "8", "16"])
    console = Console(width=80, record=True, force_terminal=False)
    console.print(r.__rich__())
    lines = console.export_text().splitlines()
    header = next(ln for ln in lines if ln.startswith("field "))
    assert "rule" in header and "input" in header
    row = next(ln for ln in lines if ln.startswith("model_config.max_model_len "))
    assert "model.max-model-len" in row and len(row.rstrip()) <= 80
    assert all(len(ln.rstrip()) <= 80 for ln in lines)


def test_a_literal_field_lists_its_values_on_why_not_and_how() -> None:
    for cmd in (["why-not"], ["how"]):
        res = run(*cmd, "model_config.dtype", "flaot16")
        assert res.exit_code == 2
        assert "bfloat16" in res.stderr and "Did you mean 'float16'?" in res.stderr


def test_a_why_not_value_over_pythons_integer_digits_is_one_line() -> None:
    """A 5,001-digit VALUE made YAML's int() raise ValueError: an internal error (exit 3) before."""
    res = run("why-not", "scheduler_config.max_num_seqs", "1" + "0" * 5000)
    assert res.exit_code == 2 and res.stdout == ""
    line = res.stderr.strip()
    assert "\n" not in line and line.startswith("error: scheduler_config.max_num_seqs can never be '1000")
    assert len(line) < 300
