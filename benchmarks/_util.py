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
from typing import Any


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
    """Median seconds per call of ``a`` and ``b``, sampled alternately (so drift hits both)."""
    a(), b()
    sa: list[float] = []
    sb: list[float] = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            t = time.perf_counter()
            for _ in range(inner):
                a()
            sa.append((time.perf_counter() - t) / inner)
            t = time.perf_counter()
            for _ in range(inner):
                b()
            sb.append((time.perf_counter() - t) / inner)
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(sa), statistics.median(sb)


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
