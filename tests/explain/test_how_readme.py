"""The README's `postinit how` transcripts are real output: each is re-run and compared line by line.

Regenerate them when a rule, a flag or the search changes: ``python -m tests.explain.test_how_readme``.
The exit status is part of the transcript: 0 when the value is reachable, 1 when it is not.
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
BLOCK = re.compile(r"```console\n(\$ postinit how .*?)```", flags=re.S)


def _split(block: str) -> list[tuple[list[str], list[str], str]]:
    """Each ``$ postinit how`` command of a block: its argv, its command lines as shown, its output."""
    out: list[tuple[list[str], list[str], str]] = []
    lines = block.rstrip("\n").splitlines()
    while lines:
        head = [lines.pop(0)]
        command = head[0].removeprefix("$ ")
        while command.endswith("\\"):
            head.append(lines.pop(0))
            command = command[:-1] + head[-1].strip()
        shown: list[str] = []
        while lines and not lines[0].startswith("$ postinit how "):
            shown.append(lines.pop(0))
        out.append((shlex.split(command)[1:], head, "\n".join(shown)))
    return out


def _transcripts() -> list[tuple[list[str], str]]:
    return [(args, shown) for block in BLOCK.findall(README.read_text()) for args, _, shown in _split(block)]


@pytest.mark.parametrize(("args", "shown"), _transcripts(), ids=lambda x: " ".join(x)[:80] if isinstance(x, list)
                         else "")
def test_readme_how_transcript_is_real_output(args: list[str], shown: str) -> None:
    """Running the README's `postinit how` command prints exactly what the README shows."""
    res = runner.invoke(cli_app, args)
    assert res.exit_code in (0, 1), res.output
    assert res.output.rstrip("\n") == shown
    assert (res.exit_code == 1) == ("is not reachable" in shown)


def test_readme_asks_the_four_questions() -> None:
    """The README asks how to turn chunked prefill off, keep FULL graphs with DCP, prefix caching on
    Qwen3-Next and the hybrid KV cache manager with Nixl, on both versions."""
    asked = [" ".join(a) for a, _ in _transcripts()]
    assert len(asked) == 8
    for words in ("enable_chunked_prefill false --vllm-version 0.11.1", "cudagraph_mode FULL", "-dcp 2",
                  "enable_prefix_caching true Qwen/Qwen3-Next", "disable_hybrid_kv_cache_manager false"):
        assert any(words in a for a in asked), words


def regenerate() -> int:
    """Rewrite every `postinit how` transcript of the README with the CLI's real output."""
    def fresh(m: re.Match[str]) -> str:
        parts = []
        for args, head, _ in _split(m.group(1)):
            parts += [*head, runner.invoke(cli_app, args).output.rstrip("\n")]
        return "```console\n" + "\n".join(parts) + "\n```"

    README.write_text(BLOCK.sub(fresh, README.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(regenerate())
