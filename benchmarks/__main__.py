"""``python -m benchmarks [--quick] [--only SECTION ...] [--no-write]``."""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import time
from pathlib import Path

from benchmarks import latency, scaling, startup, sweep, vllm_context, whatif
from benchmarks._util import Results, machine

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTIONS = ("latency", "scaling", "whatif", "sweep", "startup", "vllm")
LOADTEST = re.compile(r"<!-- loadtest:start -->.*?<!-- loadtest:end -->", re.S)


def run_all(*, quick: bool, only: tuple[str, ...] = SECTIONS) -> Results:
    res = Results()
    if "latency" in only:
        print("== 1. resolve latency", flush=True)
        latency.run(res, reps=3 if quick else 300, inner=1 if quick else 5,
                    cases=("llama3-h100",) if quick else None)
    if "scaling" in only:
        print("== 2. engine scaling", flush=True)
        scaling.run(res, sizes=(10, 20) if quick else (100, 1000, 10000), reps=2 if quick else 15, clips=not quick)
    if "whatif" in only:
        print("== 3. what-if", flush=True)
        whatif.run(res, reps=2 if quick else 100, inner=1 if quick else 3)
    if "sweep" in only:
        print("== 4. sweep throughput", flush=True)
        sweep.run(res, n=8 if quick else 500)
    if "startup" in only:
        print("== 5. start-up", flush=True)
        startup.run(res, reps=1 if quick else 7)
    if "vllm" in only and not quick:
        # context only (no target): real vLLM through the oracle's venv, when it is installed
        print("== 6. context: real vLLM (oracle)", flush=True)
        vllm_context.run(res, reps=2000)
    return res


def _num(v: float) -> str:
    return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.3g}"


def render(res: Results, info: dict[str, str], seconds: float, extra: str) -> str:
    lines = ["# Benchmark results", "",
             "Reproduce with `python -m benchmarks` (≈ 2-4 min on 2 cores; writes this file). Medians over many",
             "repetitions; each figure is compared with a baseline run in the same process, subject and baseline",
             "sampled alternately. Absolute times depend on the machine and its load (see below).", "",
             "| section | measurement | value | baseline | ratio | target | met? |",
             "|---|---|---:|---:|---:|---|---|"]
    for r in res.rows:
        base = f"{r.baseline}: {_num(r.baseline_value)} {r.unit}" if r.baseline_value is not None else ""
        ratio = f"{r.ratio:.2f}×" if r.ratio is not None else ""
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        lines.append(f"| {r.section} | {r.measurement} | {_num(r.value)} {r.unit} | {base} | {ratio} | "
                     f"{r.target} | {met} |")
    lines += ["", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [f"- benchmark wall time: {seconds:.0f} s", f"- date: {datetime.date.today().isoformat()}"]
    if res.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in res.notes]
    if extra:
        lines += ["", extra.strip()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--quick", action="store_true", help="each benchmark once at tiny size (smoke test)")
    ap.add_argument("--only", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    ap.add_argument("--analysis", type=Path, help="markdown appended after the table (profiles, unmet targets)")
    args = ap.parse_args(argv)
    info = machine()
    t = time.perf_counter()
    res = run_all(quick=args.quick, only=tuple(args.only))
    seconds = time.perf_counter() - t
    unmet = [r for r in res.rows if r.met is False]
    print(f"done in {seconds:.0f} s; {len(unmet)} target(s) not met", flush=True)
    if not args.no_write:
        old = RESULTS.read_text() if RESULTS.exists() else ""
        analysis = ANALYSIS.read_text() if (ANALYSIS := args.analysis or _ANALYSIS).exists() else ""
        text = render(res, info, seconds, analysis)
        m = LOADTEST.search(old)
        if m:
            text += "\n" + m.group(0) + "\n"
        RESULTS.write_text(text)
        print(f"wrote {RESULTS}", flush=True)
    return 0


_ANALYSIS = Path(__file__).resolve().parent / "ANALYSIS.md"

if __name__ == "__main__":
    sys.exit(main())
