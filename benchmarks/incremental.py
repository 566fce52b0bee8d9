# ruff: noqa: B023  (closures are called within their loop iteration)
"""3. Incremental re-resolution: ``Resolution.with_changes``, ``what_if`` and a sweep of points, against scratch.

* ``base.with_changes(set)`` from a recorded Llama/H100 base, for a change no rule reads
  (``load_config.download_dir``) and for real ones, against resolving the changed request from
  scratch (``resolve_request`` with its cache of recorded runs per input shape emptied first, so that the
  baseline is a resolution from scratch, not a replay of the same input; both sides get the same warm input
  caches);
* ``postinit.what_if(set=...)`` (record the base, replay the change, diff) against what it costs
  without replay: two scratch resolutions and their diff;
* a sweep of N points (one- and two-field changes over the decisive fields) replayed from one
  recorded base, against N scratch resolutions;
* ``postinit.sweep`` (the invariant sweep, five resolutions per input, one of them a replay of the
  base it ships once per worker) with and without the replay.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import postinit
from benchmarks._util import Results, Row, alternate, profile_text
from postinit import _api

SECTION = "incremental"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
TARGET = 0.25
OTHER_TARGET = 0.5
"""A change of model or platform (issue 31)."""
UNREAD_TARGET = 0.05
"""A field no rule reads (issue 31)."""
LOOP_TARGET = 10_000
"""One-field changes from one base, points/s on one core (issue 31)."""

CHANGES: dict[str, dict[str, Any]] = {
    "a field no rule reads (load_config.download_dir)": {"load_config.download_dir": "/models"},
    "scheduler_config.max_num_seqs = 64": {"scheduler_config.max_num_seqs": 64},
    "compilation_config.cudagraph_mode = PIECEWISE": {"compilation_config.cudagraph_mode": "PIECEWISE"},
    "model_config.enforce_eager = True": {"model_config.enforce_eager": True},
    "model_config.max_model_len = 4096": {"model_config.max_model_len": 4096},
}
FIELDS: dict[str, tuple[Any, ...]] = {
    "scheduler_config.max_num_seqs": (64, 128, 512),
    "scheduler_config.max_num_batched_tokens": (2048, 16384),
    "model_config.max_model_len": (4096, 32768),
    "compilation_config.cudagraph_mode": ("PIECEWISE", "FULL", "NONE"),
    "cache_config.enable_prefix_caching": (False,),
    "model_config.enforce_eager": (True,),
    "parallel_config.tensor_parallel_size": (2, 4),
    "load_config.download_dir": ("/models",),
}


def points(n: int) -> list[dict[str, Any]]:
    """``n`` deterministic sweep points: every one-field change, then pairs of fields."""
    ones = [{f: v} for f, vs in FIELDS.items() for v in vs]
    pairs = [{**a, **b} for a, b in itertools.combinations(ones, 2) if a.keys() != b.keys()]
    return list(itertools.islice(itertools.cycle(ones + pairs), n))


def scratch(request: postinit.Request) -> Any:
    """``request`` resolved from scratch (``resolve_request``: the front door's caches, no recorded run)."""
    return _api.resolve_request(request)


def run(res: Results, *, reps: int = 100, n_points: int = 200, sweep_n: int = 60) -> None:
    request = postinit.Request.build(model=LLAMA, platform="h100")
    base = _api.resolve_request(request, record=True)
    for name, change in CHANGES.items():
        changed = request.changed(change)
        t = alternate({"replay": lambda: base.with_changes(change),
                       "scratch": lambda: scratch(changed)}, reps=reps)
        ratio = t["replay"] / t["scratch"]
        bar = UNREAD_TARGET if name.startswith("a field no rule reads") else TARGET
        res.add(Row(SECTION, f"with_changes: {name}", t["replay"] * 1e6, "µs", "scratch resolution",
                    t["scratch"] * 1e6, f"≤ {bar:g}× scratch", ratio <= bar,
                    short_by=f"{ratio:.2f}× ({ratio / bar:.1f}× the target)", why=WHY_REPLAY,
                    profile=lambda c=change: profile_text(lambda: base.with_changes(c), calls=300)))
    for label, other in (("platform b200", {"platform": "b200"}), ("model Qwen/Qwen3-8B", {"model": "Qwen/Qwen3-8B"})):
        changed = request.replace(**other)
        t = alternate({"replay": lambda: base.with_changes(**other),
                       "scratch": lambda: scratch(changed)}, reps=reps)
        ratio = t["replay"] / t["scratch"]
        res.add(Row(SECTION, f"with_changes: {label}", t["replay"] * 1e6, "µs", "scratch resolution",
                    t["scratch"] * 1e6, f"≤ {OTHER_TARGET:g}× scratch", ratio <= OTHER_TARGET,
                    short_by=f"{ratio:.2f}× ({ratio / OTHER_TARGET:.1f}× the target)", why=WHY_REPLAY,
                    profile=lambda o=other: profile_text(lambda: base.with_changes(**o), calls=100)))
    seqs = [16, 32, 48, 64, 96, 192, 256, 384, 512, 1024]
    t = alternate({"loop": lambda: [base.with_changes({"scheduler_config.max_num_seqs": v}) for v in seqs]},
                  reps=max(reps // 10, 2))
    rate = len(seqs) / t["loop"]
    res.add(Row(SECTION, "a loop of one-field changes from one base (max_num_seqs)", rate, "points/s", "", None,
                f"≥ {LOOP_TARGET:,} points/s", rate >= LOOP_TARGET, short_by=f"{rate / LOOP_TARGET:.2f}× the target",
                why=WHY_REPLAY))
    first = next(iter(CHANGES.values()))
    real = CHANGES["model_config.enforce_eager = True"]
    for label, change in (("a field no rule reads", first), ("enforce_eager = True", real)):
        changed = request.changed(change)
        t = alternate({
            "what_if": lambda: postinit.what_if(request, set=change),
            "scratch": lambda: postinit.diff(scratch(request), scratch(changed)),
        }, reps=max(reps // 2, 1))
        res.add(Row(SECTION, f"what_if(set={label})", t["what_if"] * 1e6, "µs",
                    "2 scratch resolutions + diff", t["scratch"] * 1e6))
    pts = points(n_points)
    requests = [request.changed(p) for p in pts]
    t = alternate({
        "replay": lambda: [base.with_changes(p) for p in pts],
        "scratch": lambda: [scratch(r) for r in requests],
    }, reps=max(reps // 20, 2))
    res.add(Row(SECTION, f"sweep of {len(pts)} points: with_changes from one recorded base", t["replay"] * 1e3, "ms",
                f"{len(pts)} scratch resolutions", t["scratch"] * 1e3,
                note=f"{len(pts) / t['replay']:,.0f} points/s replayed, {len(pts) / t['scratch']:,.0f}/s from scratch"))
    _invariant_sweep(res, sweep_n)


def _invariant_sweep(res: Results, n: int) -> None:
    from postinit.sweep import sweep

    kw: dict[str, Any] = {"n": n, "seed": 7, "platforms": ["h100", "cpu"], "chunk_size": 16}
    sweep("random", **kw)  # warm: compile, load the catalog models
    best: dict[bool, float] = {True: float("inf"), False: float("inf")}
    for _ in range(2):
        for replay in (True, False):
            t = time.perf_counter()
            sweep("random", replay=replay, **kw)
            best[replay] = min(best[replay], time.perf_counter() - t)
    res.add(Row(SECTION, f"postinit.sweep, {n} random inputs, determinism check replayed from the shipped base",
                n / best[True], "inputs/s", "the same without replay", n / best[False],
                note="five resolutions per input (strict, replay or scratch, reversed rulebook, consistent, "
                     "idempotence): the replay replaces one of them"))


WHY_REPLAY = (
    "with_changes(set=...) of a sub-config field takes the incremental front door (the request's new overrides, "
    "the changed leaf validated alone, a copy of the base's input state with that path set: ~10 µs warm) and the "
    "replay (engine/_incremental.py) compares only those paths. A change that no recorded evaluation consulted, "
    "named, showed or changed keeps the whole recorded run (its trace shared, the final state one copy). A "
    "decisive field re-runs only the evaluations whose consulted reads differ, in the recorded schedule order, "
    "with early cutoff; the recorded events between them are copied in one slice across phases, phases nothing "
    "can reach are skipped, and a firing that only shows a changed read repeats its event. What remains is ~5-8 "
    "µs of Python bookkeeping per evaluation run again (deciding its result, the recorder, comparing its writes "
    "with the recording) around rule bodies of ~1-4 µs (max_num_seqs: 9 evaluations, 3 recorded again; "
    "enforce_eager: the CUDA-graph cascade, 11 recorded again), and everything is ~1.4x slower right after the "
    "scratch resolution sampled in between (the replay's code and indexes evicted; ANALYSIS.md). A model change "
    "takes the whole front door (~85 µs) and re-decides ~40 evaluations."
)
