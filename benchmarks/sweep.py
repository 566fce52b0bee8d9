"""4. Sweep throughput: resolutions per second with 1 and 2 worker processes."""

from __future__ import annotations

import contextlib
import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from benchmarks._util import Results, Row

MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3",
          "ai21labs/AI21-Jamba-Mini-1.6", "mistralai/Mistral-7B-Instruct-v0.3")
PLATFORMS = ("h100", "a100", "b200", "l40s", "cpu")
TP = (1, 2, 4, 8)
EAGER = (False, True)
LENS = (None, 8192, 32768)


def inputs(n: int = 500) -> list[dict[str, Any]]:
    """A deterministic list of ``n`` varied inputs (models × platforms × TP × eager × max_model_len)."""
    out = []
    for model, plat, tp, eager, length in itertools.islice(itertools.cycle(
            itertools.product(MODELS, PLATFORMS, TP, EAGER, LENS)), n):
        mc: dict[str, Any] = {"model": model, "enforce_eager": eager}
        if length is not None:
            mc["max_model_len"] = length
        out.append({"config": {"model_config": mc, "parallel_config": {"tensor_parallel_size": tp}},
                    "platform": plat})
    return out


def _chunk(chunk: list[dict[str, Any]]) -> int:
    import postinit

    ok = 0
    for kw in chunk:
        with contextlib.suppress(postinit.PostinitError):
            ok += postinit.resolve(**kw).ok
    return len(chunk)


def _warm() -> None:
    import postinit

    postinit.resolve()


def run(res: Results, *, n: int = 500) -> None:
    work = inputs(n)
    for jobs in (1, 2):
        chunks = [work[i::jobs * 4] for i in range(jobs * 4)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(_warm_n, range(jobs)))
            t = time.perf_counter()
            done = sum(pool.map(_chunk, chunks))
            dt = time.perf_counter() - t
        rate = done / dt
        res.add(Row("sweep", f"resolve loop over {done} varied inputs, ProcessPoolExecutor({jobs})", rate,
                    "res/s", target="≥ 5000/s per core" if jobs == 1 else f"≥ {5000 * jobs}/s",
                    met=rate >= 5000 * jobs, short_by=f"{rate / (5000 * jobs):.2f}× the target",
                    why=WHY, profile=_profile))
    if n >= 100:  # not in --quick: a whole invariant sweep as a process
        _exhaustive(res)
    res.notes.append(
        "Sweep: `postinit sweep` exists but runs every invariant (many resolutions and permutations per "
        "input), so its inputs/s is not resolutions/s; the sweep row measures a plain `postinit.resolve` "
        "loop over a deterministic list of varied inputs (benchmarks/sweep.py) in a process pool.")


def _warm_n(_: int) -> None:
    _warm()


WHY = (
    "A plain `postinit.resolve` loop over varied inputs (5 models × 5 platforms × TP × eager × "
    "max_model_len) is bound by the end-to-end latency of a new input (~0.6-0.7 ms with the trace: "
    "validation of the changed input parts, the model's facts once per model, the nine phases, "
    "provenance); 5,000/s per core would need ≤ 200 µs end to end, less than the engine alone."
)


def _profile() -> str:
    from benchmarks._util import profile_text

    work = inputs(50)
    return profile_text(lambda: _chunk(work), calls=4)


EXHAUSTIVE_TARGET = 5.4
"""Seconds: 3x faster than the 16.2 s of issue 31's measurement."""


def _exhaustive(res: Results) -> None:
    """``postinit sweep --exhaustive --platform h100`` as a process (wall and CPU time, the load noted)."""
    import os
    import resource
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "postinit.cli", "sweep", "--exhaustive", "--platform", "h100", "--format", "json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    res.add(Row("sweep", "postinit sweep --exhaustive --platform h100 (a process, CPU time)", cpu, "s",
                target=f"≤ {EXHAUSTIVE_TARGET:g} s", met=cpu <= EXHAUSTIVE_TARGET,
                short_by=f"{cpu / EXHAUSTIVE_TARGET:.1f}× the target", why=WHY_EXHAUSTIVE,
                note=f"wall {wall:.1f} s; load average (1/5/15 min) after: {load}"))


WHY_EXHAUSTIVE = (
    "5,421 inputs, each through every invariant: a strict statement-order resolution, the replay of the shipped "
    "base (determinism), the reversed rulebook, a strict consistent resolution and its re-resolution "
    "(idempotence), trace completeness and postconditions: ~4 ms of CPU per input. Consistent semantics has no "
    "replay (retraction makes a recorded schedule depend on the values it met), and its two resolutions are "
    "~45 % of the time; the strict resolution runs the interpreter (declared reads checked), the reversed "
    "rulebook its own compiled program."
)
