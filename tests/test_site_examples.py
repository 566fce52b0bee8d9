"""examples/site-policies: its property tests run, and its README's transcript is real output.

Regenerate the transcript: ``python -m tests.test_site_examples``.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from postinit.cli import app as cli_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "site-policies"
README = EXAMPLE / "README.md"
runner = CliRunner()
PREFIX_LINES = 14
"""A transcript longer than this is shown cut, ending in a line ``…``."""


def _example_tests() -> Any:
    spec = importlib.util.spec_from_file_location("site_policies_tests", EXAMPLE / "test_policies.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["site_policies_tests"] = module
    spec.loader.exec_module(module)
    return module


def test_the_examples_property_tests_pass() -> None:
    module = _example_tests()
    module.test_the_policies_keep_every_invariant_with_vllms_rules()
    for platform in ("a100", "h100"):
        module.test_each_policy_fires_where_it_should(platform)
    module.test_a_policy_violation_is_an_answer_not_an_error()


def _run(command: str) -> tuple[int, str]:
    args = shlex.split(command)
    assert args[0] == "postinit"
    res = runner.invoke(cli_app, args[1:])
    text = (res.stdout if res.exit_code in (0, 1) else res.stderr).replace(f"{ROOT}/", "")  # source locations
    return res.exit_code, "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())


def _blocks(text: str) -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        lines = block.rstrip("\n").splitlines()
        out.append((lines[0].removeprefix("$ "), "\n".join(lines[1:])))
    return out


def _loose(text: str) -> str:
    """Source line numbers and hashes are not what the transcript is about: other changes move them."""
    return re.sub(r"hash [0-9a-f]{10}", "hash …", re.sub(r"\.py:\d+", ".py:…", text))


@pytest.mark.parametrize(("command", "shown"), _blocks(README.read_text()), ids=lambda x: x[:70])
def test_the_transcript_is_real_output(command: str, shown: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the rules' owner is the path as given, relative to the repository
    _, out = _run(command)
    out, shown = _loose(out), _loose(shown)
    if shown.endswith("\n…"):
        assert out.startswith(shown[:-2]), out
    else:
        assert out == shown


def regenerate() -> None:
    import os

    os.chdir(ROOT)
    text = README.read_text()

    def fresh(m: re.Match[str]) -> str:
        command = m.group(1).splitlines()[0].removeprefix("$ ")
        _, out = _run(command)
        lines = out.splitlines()
        if len(lines) > PREFIX_LINES:
            lines = [*lines[:PREFIX_LINES], "…"]
        return "```console\n$ " + command + "\n" + "\n".join(lines) + "\n```"

    README.write_text(re.sub(r"```console\n(.*?)```", fresh, text, flags=re.S))


if __name__ == "__main__":
    regenerate()
