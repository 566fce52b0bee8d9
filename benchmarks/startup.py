"""5. Start-up: ``import postinit`` and ``postinit resolve`` as whole processes (subprocess medians)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._util import Results, Row

ROOT = Path(__file__).resolve().parent.parent


def _time(argv: list[str], reps: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT)
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def run(res: Results, *, reps: int = 7) -> None:
    py = sys.executable
    t_py = _time([py, "-c", "pass"], reps)
    t_imp = _time([py, "-c", "import postinit"], reps)
    t_cli = _time([py, "-c", "from postinit.cli import main; main()", "resolve", "--format", "json"], reps)
    res.add(Row("start-up", "python -c pass", t_py, "s"))
    res.add(Row("start-up", "python -c 'import postinit'", t_imp, "s", "python -c pass", t_py))
    res.add(Row("start-up", "postinit resolve --format json (defaults)", t_cli, "s", "python -c pass", t_py,
                "< 0.5 s", t_cli < 0.5))
