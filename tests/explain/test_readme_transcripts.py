"""The README's `postinit why`/`why-not` transcripts are real output: each is re-run and compared line by line.

Regenerate them (the CLI prints 120 columns when stdout is not a terminal) when a rule's
title, message or reads change: ``python -m tests.explain.test_readme_transcripts``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from postinit.cli import app as cli_app

README = Path(__file__).resolve().parents[2] / "README.md"
runner = CliRunner()


def _transcripts() -> list[tuple[list[str], str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), flags=re.S):
        lines = block.rstrip("\n").splitlines()
        command = lines.pop(0).removeprefix("$ ")
        while command.endswith("\\"):
            command = command[:-1] + lines.pop(0).strip()
        args = shlex.split(command)
        if args[:1] == ["postinit"] and args[1] in ("why", "why-not"):
            out.append((args[1:], "\n".join(lines)))
    return out


@pytest.mark.parametrize(("args", "shown"), _transcripts(), ids=lambda x: x[1] if isinstance(x, list) else "")
def test_readme_transcript_is_real_output(args: list[str], shown: str) -> None:
    """Running the README's command prints exactly what the README shows."""
    res = runner.invoke(cli_app, args)
    assert res.exit_code == 0, res.output
    assert res.output.rstrip("\n") == shown


def test_readme_has_the_five_questions() -> None:
    """The README shows four why transcripts and one why-not, and the DeepSeek-V3 violation first."""
    assert len(_transcripts()) == 5
    text = README.read_text()
    assert "✗ parallel.dbo-requires-deepep (AssertionError)" in text
    assert "docs/images/overview.svg" in text and "docs/images/around-cudagraph-mode.svg" in text


def regenerate() -> int:
    """Rewrite every why / why-not transcript of the README with the CLI's real output."""
    text = README.read_text()

    def fresh(m: re.Match[str]) -> str:
        lines = m.group(1).rstrip("\n").splitlines()
        head = [lines.pop(0)]
        command = head[0].removeprefix("$ ")
        while command.endswith("\\"):
            head.append(lines.pop(0))
            command = command[:-1] + head[-1].strip()
        args = shlex.split(command)
        if args[:1] != ["postinit"] or args[1] not in ("why", "why-not"):
            return m.group(0)
        out = runner.invoke(cli_app, args[1:]).output.rstrip("\n")
        return "```console\n" + "\n".join([*head, out]) + "\n```"

    README.write_text(re.sub(r"```console\n(.*?)```", fresh, text, flags=re.S))
    return 0


if __name__ == "__main__":
    raise SystemExit(regenerate())
