"""Timing helpers: medians over many repetitions, baseline and subject interleaved."""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    """One line of the results table."""

    section: str
    measurement: str
    value: float
    unit: str
    baseline: str = ""
    baseline_value: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    why: str = ""
    """For a target: why it stands where it does (ANALYSIS.md prints it under an unmet one)."""
    profile: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    """For a target: returns a profile of the subject (ANALYSIS.md runs it for an unmet one)."""
    short_by: str = ""
    """For a target: how far it is from it, in words (filled by the part that measured it)."""

    @property
    def ratio(self) -> float | None:
        if self.baseline_value is None or not self.baseline_value:
            return None
        return self.value / self.baseline_value


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        print(_fmt_row(row), flush=True)
        return row


def _fmt_row(r: Row) -> str:
    ratio = f"{r.ratio:.2f}x" if r.ratio is not None else ""
    met = "" if r.met is None else ("met" if r.met else "NOT MET")
    return f"  {r.measurement:<58} {r.value:>12.3f} {r.unit:<8} {ratio:>9}  {r.target:<22} {met}"


def per_call(fn: Callable[[], Any], *, reps: int, inner: int = 1) -> list[float]:
    """Seconds per call, one sample per repetition (each the mean of ``inner`` calls)."""
    fn()
    out = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            t = time.perf_counter()
            for _ in range(inner):
                fn()
            out.append((time.perf_counter() - t) / inner)
    finally:
        if gc_was:
            gc.enable()
    return out


def paired(a: Callable[[], Any], b: Callable[[], Any], *, reps: int, inner: int = 1) -> tuple[float, float]:
    """Min-of-``reps`` seconds per call of ``a`` and ``b``, sampled alternately (so drift hits both).

    Each sample is the mean of ``inner`` calls. The minimum is the least disturbed sample:
    on a shared machine every other statistic mostly measures the neighbours.
    """
    t = alternate({"a": a, "b": b}, reps=reps, inner=inner)
    return t["a"], t["b"]


def alternate(fns: dict[str, Callable[[], Any]], *, reps: int, inner: int = 1) -> dict[str, float]:
    """Min-of-``reps`` seconds per call of each function, the functions sampled in turn, round after round."""
    for f in fns.values():
        f()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            for k, f in fns.items():
                t = time.perf_counter()
                for _ in range(inner):
                    f()
                samples[k].append((time.perf_counter() - t) / inner)
    finally:
        if gc_was:
            gc.enable()
    return {k: min(v) for k, v in samples.items()}


def profile_text(fn: Callable[[], Any], *, calls: int = 200, top: int = 14) -> str:
    """The ``top`` functions by cumulative time over ``calls`` calls of ``fn`` (cProfile), as text."""
    import cProfile
    import io
    import pstats

    fn()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    root = str(ROOT) + os.sep
    lines = [ln.replace(root, "") for ln in out.getvalue().splitlines() if ln.strip()]
    body = [ln for ln in lines if "ncalls" in ln or ln.lstrip()[:1].isdigit()]
    return f"cProfile, {calls} calls, by cumulative time (profiling inflates per-call costs ~2x):\n" + "\n".join(body)


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def machine() -> dict[str, str]:
    info = {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": str(os.cpu_count()),
        "processor": platform.processor() or platform.machine(),
    }
    with contextlib.suppress(OSError):
        info["load average (1/5/15 min) at start"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import pydantic

    info["pydantic"] = pydantic.VERSION
    return info
