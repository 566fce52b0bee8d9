"""The runnable example of docs/testing-your-rules.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).parents[2] / "docs" / "testing-your-rules.md"


def test_testing_your_rules_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 1
    namespace: dict[str, object] = {"__name__": "docs_example"}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    book = namespace["book"]
    assert "mysite.no-full-graphs-with-lora" in book.rules  # type: ignore[attr-defined]
