"""The naive engine: loop over every rule until a full pass changes nothing.

Rules are ``(reads, writes, fn)`` over a plain dict; ``fn(state)`` returns a
dict of changes or None. No ordering, no dependency index, no trace: the cost
of each pass is the size of the rulebook, whatever fires.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

NaiveRule = tuple[tuple[str, ...], tuple[str, ...], Callable[[dict[str, Any]], dict[str, Any] | None]]


def run(rules: Sequence[NaiveRule], state: dict[str, Any], max_passes: int = 100_000) -> tuple[dict[str, Any], int]:
    """Resolve ``state`` (copied) to a fixed point; return it and the number of firings."""
    s = dict(state)
    fired = 0
    for _ in range(max_passes):
        changed = False
        for _reads, _writes, fn in rules:
            out = fn(s)
            if out:
                for k, v in out.items():
                    if s.get(k) != v:
                        s[k] = v
                        changed = True
                        fired += 1
        if not changed:
            return s, fired
    raise RuntimeError("naive engine: no fixed point")
