"""The runnable examples of docs/testing-your-rules.md run as written, and say what the doc says they say."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "testing-your-rules.md"


def test_testing_your_rules_examples_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 3
    namespace: dict[str, object] = {"__name__": "docs_example"}
    took = []
    for block in blocks:
        start = time.perf_counter()
        exec(compile(block, str(DOC), "exec"), namespace)
        took.append(time.perf_counter() - start)
    out = capsys.readouterr().out
    # the policies' report names what never fired; the broken rule's counterexample is a command line
    assert "mysite.tp-divides-node: " in out and "its ensures= was never checked" in out
    assert "invariant postconditions violated: rule mysite.no-full-graphs-with-lora's postcondition" in out
    assert "> case.json && postinit resolve --config case.json --platform" in out
    assert took[2] < 10, f"the broken rule took {took[2]:.1f} s to shrink"
