"""``python -m benchmarks [--quick] [--only SECTION ...] [--merge] [--no-write]``: every part, then RESULTS.md and
ANALYSIS.md (``--merge``: only the rows of the parts run are replaced, the others kept as they were measured)."""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import time
from pathlib import Path

from benchmarks import (
    how,
    incremental,
    latency,
    paths,
    scaling,
    serving,
    startup,
    sweep,
    vllm_context,
)
from benchmarks._util import Results, Row, machine

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
ANALYSIS = HERE / "ANALYSIS.md"
SECTIONS = ("paths", "vllm", "cli", "http", "incremental", "latency", "scaling", "sweep", "how")
LOADTEST = re.compile(r"<!-- (loadtest|dos):start -->.*?<!-- \1:end -->", re.S)
"""The sections benchmarks/loadtest.py and benchmarks/dos.py write themselves: kept as they are."""
UNMET = re.compile(r"<!-- unmet:start -->.*?<!-- unmet:end -->", re.S)


def run_all(*, quick: bool, only: tuple[str, ...] = SECTIONS) -> Results:
    """Each part in turn (``quick``: once, at tiny size: what the smoke test runs)."""
    res = Results()
    if "paths" in only:
        print("== 1. every path through the library (engine, dict, flags)", flush=True)
        paths.run(res, reps=2 if quick else 400, inner=1 if quick else 3)
    if "vllm" in only:
        print("== 2. real vLLM, the same jobs, in one process with postinit (oracle venv)", flush=True)
        vllm_context.run(res, rounds=3 if quick else 400, process_reps=0 if quick else 3)
    if "cli" in only:
        print("== 3. the CLI as a process", flush=True)
        startup.run(res, reps=1 if quick else 9)
    if "http" in only:
        print("== 4. HTTP: POST /v1/resolve through uvicorn", flush=True)
        serving.run(res, workers=(1,) if quick else (1, 2), n_single=3 if quick else 300,
                    clients=2 if quick else 16, seconds=0.5 if quick else 15.0)
    if "incremental" in only:
        print("== 5. incremental re-resolution: with_changes, what_if, sweeps", flush=True)
        incremental.run(res, reps=2 if quick else 150, n_points=4 if quick else 200, sweep_n=4 if quick else 64)
    if "latency" in only:
        print("== 6. engine against the hand-written floor", flush=True)
        latency.run(res, reps=2 if quick else 300, inner=1 if quick else 5,
                    cases=("llama3-h100",) if quick else None)
    if "scaling" in only:
        print("== 7. engine scaling", flush=True)
        scaling.run(res, sizes=(10, 20) if quick else (100, 1000, 10000), reps=2 if quick else 15, clips=not quick)
    if "sweep" in only:
        print("== 8. resolve-loop throughput in a process pool", flush=True)
        sweep.run(res, n=8 if quick else 500)
    if "how" in only:
        print("== 9. how: the smallest edits that give a value (the README's questions)", flush=True)
        how.run(res, reps=1 if quick else 5)
    return res


def _num(v: float) -> str:
    return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.3g}"


def render(res: Results, info: dict[str, str], seconds: float) -> str:
    """RESULTS.md: the table (every row), the machine, the notes."""
    lines = ["# Benchmark results", "",
             "Reproduce with `python -m benchmarks` (≈ 5 min on 2 cores; writes this file and ANALYSIS.md). Each "
             "figure is the minimum over many samples, the subject and its baseline sampled alternately in the "
             "same process (process rows: whole processes run alternately), so that the ratio holds on a shared "
             "machine where absolute times drift. Unmet targets are analysed in [ANALYSIS.md](ANALYSIS.md).", "",
             "| section | measurement | value | same-process baseline | ratio | target | met? |",
             "|---|---|---:|---:|---:|---|---|"]
    for r in res.rows:
        base = f"{r.baseline}: {_num(r.baseline_value)} {r.unit}" if r.baseline_value is not None else ""
        ratio = f"{r.ratio:.2f}×" if r.ratio is not None else ""
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        lines.append(f"| {r.section} | {r.measurement} | {_num(r.value)} {r.unit} | {base} | {ratio} | "
                     f"{r.target} | {met} |")
    noted = [r for r in res.rows if r.note]
    if noted:
        lines += ["", "## Row notes", ""] + [f"- {r.measurement.strip()}: {r.note}" for r in noted]
    lines += ["", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [f"- benchmark wall time: {seconds:.0f} s", f"- date: {datetime.date.today().isoformat()}"]
    if res.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in res.notes]
    return "\n".join(lines) + "\n"


def unmet_section(res: Results, *, profiles: bool = True) -> str:
    """The generated part of ANALYSIS.md: every unmet target, by how much, its profile and why."""
    unmet = [r for r in res.rows if r.met is False]
    met = [r for r in res.rows if r.met is True]
    lines = ["<!-- unmet:start -->", "## Targets of this run", "",
             f"{len(met)} met, {len(unmet)} not met (generated by `python -m benchmarks`; the profiles are "
             "taken in the benchmark process).", "", "| target | measurement | measured | met? |", "|---|---|---:|---|"]
    for r in res.rows:
        if r.met is not None:
            lines.append(f"| {r.target} | {r.measurement.strip()} | {_num(r.value)} {r.unit} | "
                         f"{'yes' if r.met else '**no**'} |")
    for r in unmet:
        lines += ["", f"### Not met: {r.measurement.strip()} ({r.section})", "",
                  f"- target: {r.target}; measured {_num(r.value)} {r.unit}"
                  + (f" (same-process baseline {r.baseline}: {_num(r.baseline_value)} {r.unit})"
                     if r.baseline_value is not None else ""),
                  f"- by how much: {r.short_by or 'see the table'}"]
        if r.why:
            lines.append(f"- why: {r.why}")
        if profiles and r.profile is not None:
            try:
                text = r.profile()
            except Exception as e:  # a profile that fails must not lose the results
                text = f"(profile failed: {type(e).__name__}: {e})"
            lines += ["", "```text", text.rstrip(), "```"]
    lines.append("<!-- unmet:end -->")
    return "\n".join(lines)


def write_analysis(section: str, path: Path | None = None) -> None:
    """Replace the generated section of ANALYSIS.md, keeping the hand-written text around it."""
    path = path or ANALYSIS
    old = path.read_text() if path.exists() else "# Benchmark analysis\n\n"
    if UNMET.search(old):
        text = UNMET.sub(lambda _: section, old)
    else:
        text = old.rstrip() + "\n\n" + section + "\n"
    path.write_text(text if text.endswith("\n") else text + "\n")


_ROW = re.compile(r"^\| (?P<section>[^|]+?) \| (?P<measurement>[^|]+?) \|.*\| (?P<target>[^|]*?) \| (?P<met>[^|]*?) \|$")
_NOT_MET = re.compile(r"^### Not met: (?P<measurement>.+) \((?P<section>[^()]+)\)$")


def merge_results(old: str, res: Results, info: dict[str, str], seconds: float) -> tuple[str, list[tuple[str, str, str,
                                                                                                       str, bool]]]:
    """``old`` RESULTS.md with the rows of ``res``'s sections replaced (in place) by ``res``'s, their row notes too.

    Returns the text and every target row of the merged table: (section, measurement, target, value, met).
    """
    fresh = render(res, info, seconds).splitlines()
    new_rows = [line for line in fresh if _ROW.match(line) and not line.startswith("| section ")]
    sections = {r.section for r in res.rows}
    replaced: set[str] = set()
    out: list[str] = []
    inserted = False
    lines = old.splitlines()
    for line in lines:
        m = _ROW.match(line)
        if m and m["section"] in sections:
            replaced.add(m["measurement"].strip())
            if not inserted:
                out += new_rows
                inserted = True
            continue
        out.append(line)
    if not inserted:  # sections the old table did not have: after its last row
        last = max((i for i, line in enumerate(out) if _ROW.match(line)), default=len(out) - 1)
        out[last + 1:last + 1] = new_rows
    mine = {r.measurement.strip() for r in res.rows}
    out = [line for line in out if not (line.startswith("- ") and line[2:].split(":", 1)[0] in replaced | mine)]
    if "## Row notes" in out:
        at = out.index("## Row notes") + 2
        out[at:at] = [f"- {r.measurement.strip()}: {r.note}" for r in res.rows if r.note]
    if "## Machine" in out:
        at = out.index("## Machine") + 2
        load = info.get("load average (1/5/15 min) at start", "?")
        out.insert(at, f"- re-measured on {datetime.date.today().isoformat()} (`python -m benchmarks --only "
                       f"{' '.join(sorted(sections))} --merge`): the rows of {', '.join(sorted(sections))}; load average "
                       f"at start {load}; {seconds:.0f} s")
    targets = []
    for line in out:
        m = _ROW.match(line)
        if m and m["met"].strip() in ("yes", "**no**"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            targets.append((m["section"].strip(), m["measurement"].strip(), m["target"].strip(), cells[2],
                            m["met"].strip() == "yes"))
    return "\n".join(out) + "\n", targets


def merge_analysis(old: str, res: Results, targets: list[tuple[str, str, str, str, bool]], *,
                   profiles: bool = True) -> str:
    """The generated part of ANALYSIS.md for a merged table: the run's unmet targets analysed anew, the other
    unmet ones as the old analysis had them."""
    m = UNMET.search(old)
    kept: dict[tuple[str, str], list[str]] = {}
    if m:
        current: tuple[str, str] | None = None
        for line in m.group(0).splitlines():
            nm = _NOT_MET.match(line)
            if nm:
                current = (nm["section"].strip(), nm["measurement"].strip())
                kept[current] = []
            elif line.startswith("<!-- unmet:end"):
                current = None
            if current is not None:
                kept[current].append(line)
    fresh = unmet_section(res, profiles=profiles).splitlines()
    ran: dict[tuple[str, str], list[str]] = {}
    current = None
    for line in fresh:
        nm = _NOT_MET.match(line)
        if nm:
            current = (nm["section"].strip(), nm["measurement"].strip())
            ran[current] = []
        elif line.startswith("<!-- unmet:end"):
            current = None
        if current is not None:
            ran[current].append(line)
    sections = {r.section for r in res.rows}
    met = sum(1 for t in targets if t[4])
    lines = ["<!-- unmet:start -->", "## Targets of this run", "",
             f"{met} met, {len(targets) - met} not met (generated by `python -m benchmarks`; the profiles are "
             "taken in the benchmark process; rows of sections not re-run are kept from the run that measured them).",
             "", "| target | measurement | measured | met? |", "|---|---|---:|---|"]
    for _, measurement, target, value, ok in targets:
        lines.append(f"| {target} | {measurement} | {value} | {'yes' if ok else '**no**'} |")
    for section, measurement, _, _, ok in targets:
        if ok:
            continue
        block = ran.get((section, measurement)) if section in sections else kept.get((section, measurement))
        if block:
            lines += ["", *block]
    lines.append("<!-- unmet:end -->")
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--quick", action="store_true", help="each part once at tiny size (smoke test)")
    ap.add_argument("--only", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--no-write", action="store_true", help="write neither RESULTS.md nor ANALYSIS.md")
    ap.add_argument("--no-profiles", action="store_true", help="do not profile the unmet targets")
    ap.add_argument("--merge", action="store_true",
                    help="replace only the rows of the parts run in RESULTS.md (and their analysis); keep the others")
    args = ap.parse_args(argv)
    info = machine()
    t = time.perf_counter()
    res = run_all(quick=args.quick, only=tuple(args.only))
    seconds = time.perf_counter() - t
    unmet: list[Row] = [r for r in res.rows if r.met is False]
    print(f"done in {seconds:.0f} s; {len(unmet)} target(s) not met", flush=True)
    if not args.no_write and args.merge and RESULTS.exists():
        text, targets = merge_results(RESULTS.read_text(), res, info, seconds)
        RESULTS.write_text(text)
        old_analysis = ANALYSIS.read_text() if ANALYSIS.exists() else ""
        write_analysis(merge_analysis(old_analysis, res, targets, profiles=not args.no_profiles))
        print(f"merged the rows of {', '.join(args.only)} into {RESULTS} and {ANALYSIS}", flush=True)
    elif not args.no_write:
        old = RESULTS.read_text() if RESULTS.exists() else ""
        text = render(res, info, seconds)
        for m in LOADTEST.finditer(old):
            text += "\n" + m.group(0) + "\n"
        RESULTS.write_text(text)
        write_analysis(unmet_section(res, profiles=not args.no_profiles))
        print(f"wrote {RESULTS} and {ANALYSIS}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
