"""5. Start-up: ``import postinit`` and ``postinit resolve`` as whole processes (subprocess medians).

``postinit resolve`` is timed with the compiled phase orders cached (the usual case: the
first run writes ``$XDG_CACHE_HOME/postinit``) and, in a second row, with an empty cache
directory for every run (networkx compiles the rulebook).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._util import Results, Row

ROOT = Path(__file__).resolve().parent.parent


def _once(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - t


def _time(argv: list[str], reps: int, *, cold_cache: bool = False, warm_up: bool = False) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if warm_up:
        _once(argv, env)
    out = []
    for _ in range(reps):
        if cold_cache:
            with tempfile.TemporaryDirectory(prefix="postinit-bench-") as cache:
                out.append(_once(argv, {**env, "XDG_CACHE_HOME": cache}))
        else:
            out.append(_once(argv, env))
    return statistics.median(out)


def run(res: Results, *, reps: int = 7) -> None:
    py = sys.executable
    t_py = _time([py, "-c", "pass"], reps)
    t_imp = _time([py, "-c", "import postinit"], reps)
    cli = [py, "-c", "from postinit.cli import main; main()", "resolve", "--format", "json"]
    t_cli = _time(cli, reps, warm_up=True)
    t_cold = _time(cli, reps, cold_cache=True)
    res.add(Row("start-up", "python -c pass", t_py, "s"))
    res.add(Row("start-up", "python -c 'import postinit'", t_imp, "s", "python -c pass", t_py))
    res.add(Row("start-up", "postinit resolve --format json (defaults)", t_cli, "s", "python -c pass", t_py,
                "< 0.5 s", t_cli < 0.5, "phase orders cached"))
    res.add(Row("start-up", "postinit resolve --format json (defaults, empty order cache)", t_cold, "s",
                "python -c pass", t_py, note="networkx compiles the rulebook"))
