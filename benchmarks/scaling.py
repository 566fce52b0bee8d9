# ruff: noqa: B023  (closures are called within their loop iteration)
"""7. Engine scaling on synthetic rulebooks (chain, 1%-fan, diamond) against a naive loop (and CLIPS); minima of samples."""

from __future__ import annotations

import functools
import time
import tracemalloc
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import create_model

from benchmarks._util import Results, Row, per_call
from benchmarks.baselines import naive
from postinit.engine import PathSpace, Rule, Rulebook, make_rule

Shape = tuple[list[Rule], list[naive.NaiveRule], dict[str, Any], int]


@functools.cache
def _space(n_paths: int) -> PathSpace:
    model = create_model(f"Synth{n_paths}", **{f"x{i}": (int, 0) for i in range(n_paths)})  # type: ignore[call-overload]
    return PathSpace.from_model(model)


def _rule(i: int, reads: tuple[str, ...], writes: tuple[str, ...], fn: Callable[[Mapping[str, Any]], Any]) -> Rule:
    return make_rule(fn, f"r{i:06d}", title="synthetic", phase="p", kind="derive", reads=reads, writes=writes)


def chain(n: int) -> Shape:
    """Rule i reads x(i) and writes x(i+1) = x(i) + 1: every rule fires, in one pass."""
    rules, plain = [], []
    for i in range(n):
        a, b = f"x{i}", f"x{i + 1}"

        def fn(c: Mapping[str, Any], a: str = a, b: str = b) -> Any:
            v = c[a]
            return {b: v + 1} if v else None

        rules.append(_rule(i, (a,), (b,), fn))
        plain.append(((a,), (b,), fn))
    return rules, plain, {"x0": 1}, n


def fan(n: int) -> Shape:
    """N independent rules (rule i: x(2i) → x(2i+1)); the inputs make 1% of them fire."""
    rules, plain = [], []
    for i in range(n):
        a, b = f"x{2 * i}", f"x{2 * i + 1}"

        def fn(c: Mapping[str, Any], a: str = a, b: str = b) -> Any:
            return {b: 1} if c[a] else None

        rules.append(_rule(i, (a,), (b,), fn))
        plain.append(((a,), (b,), fn))
    step = 100
    return rules, plain, {f"x{2 * i}": 1 for i in range(0, n, step)}, len(range(0, n, step))


def diamond(n: int, width: int = 10) -> Shape:
    """Layers of ``width`` rules; rule (l, j) reads nodes j and j+1 of layer l-1: a lattice of diamonds."""
    rules, plain = [], []
    layers = max(1, n // width)
    for layer in range(layers):
        for j in range(width):
            i = layer * width + j
            a = f"x{(layer) * width + j}"
            b = f"x{(layer) * width + (j + 1) % width}"
            out = f"x{(layer + 1) * width + j}"

            def fn(c: Mapping[str, Any], a: str = a, b: str = b, out: str = out) -> Any:
                v = max(c[a], c[b])
                return {out: v + 1} if v else None

            rules.append(_rule(i, (a, b) if a != b else (a,), (out,), fn))
            plain.append(((a, b), (out,), fn))
    return rules, plain, {f"x{j}": 1 for j in range(width)}, layers * width


SHAPES: dict[str, Callable[[int], Shape]] = {"chain": chain, "fan-1%": fan, "diamond": diamond}


def _paths_for(shape: str, n: int) -> int:
    return {"chain": n + 1, "fan-1%": 2 * n, "diamond": (n // 10 + 1) * 10}[shape]


def run(res: Results, *, sizes: tuple[int, ...] = (100, 1000, 10000), reps: int = 15, clips: bool = True) -> None:
    per_fired: dict[tuple[str, int], float] = {}
    for shape, build in SHAPES.items():
        for n in sizes:
            space = _space(_paths_for(shape, n))
            rules, plain, inputs, fired = build(n)
            t = time.perf_counter()
            book = Rulebook(rules, paths=space, phases=("p",), name=f"{shape}-{n}")
            compile_s = time.perf_counter() - t
            state = space.defaults()
            state.update(inputs)
            r_inner = max(1, 2000 // n)
            # the engine gets the inputs as changes over the defaults; the naive loop copies the full state
            t_engine = min(per_call(lambda: book.resolve_changes(inputs), reps=reps, inner=r_inner))
            t_naive = min(per_call(lambda: naive.run(plain, state), reps=reps, inner=r_inner))
            check = book.resolve_changes(inputs)
            assert check.state == naive.run(plain, state)[0], f"{shape}-{n}: engine and naive loop disagree"
            assert check.trace.to_dict() == book.resolve(state).trace.to_dict()
            nfired = len(check.trace.fired)
            per_fired[(shape, n)] = t_engine / max(1, nfired)
            sec = f"scaling {shape}"
            res.add(Row(sec, f"{shape} N={n}: compile", compile_s * 1e3, "ms",
                        target="< 2 s" if n == 10000 else "", met=(compile_s < 2) if n == 10000 else None))
            res.add(Row(sec, f"{shape} N={n}: resolve ({nfired} fired)", t_engine * 1e6, "µs", "naive loop",
                        t_naive * 1e6,
                        target="≥ 20× faster than naive" if shape == "fan-1%" else "",
                        met=(t_naive >= 20 * t_engine) if shape == "fan-1%" else None,
                        short_by=f"{t_naive / t_engine:.1f}× faster than naive (target 20×)"
                        if shape == "fan-1%" else "", why=WHY_FAN if shape == "fan-1%" else ""))
            res.add(Row(sec, f"{shape} N={n}: resolve per fired rule", per_fired[(shape, n)] * 1e6, "µs"))
            tracemalloc.start()
            book.resolve_changes(inputs)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            res.add(Row(sec, f"{shape} N={n}: resolve peak memory (tracemalloc)", peak / 1024, "KiB"))
            if clips and shape in ("chain", "fan-1%"):
                _clips(res, shape, n, inputs, fired, reps=max(3, reps // 3))
        if len(sizes) > 1:
            lo, hi = sizes[0], sizes[-1]
            ratio = per_fired[(shape, hi)] / per_fired[(shape, lo)]
            res.add(Row(f"scaling {shape}", f"{shape}: per-fired-rule cost N={hi} / N={lo}", ratio, "×",
                        target="≤ 2×", met=ratio <= 2))


def _clips(res: Results, shape: str, n: int, inputs: dict[str, Any], fired: int, *, reps: int) -> None:
    try:
        import clips  # type: ignore[import-not-found]
    except ImportError:
        if n == 100:
            res.notes.append("CLIPS: `clipspy` is not installed (optional `bench` extra); CLIPS rows skipped.")
        return
    env = clips.Environment()
    env.build("(deftemplate v (slot k) (slot val))")
    if shape == "chain":
        for i in range(n):
            env.build(f"(defrule r{i} (v (k {i}) (val ?x&:(> ?x 0))) (not (v (k {i + 1}))) => "
                      f"(assert (v (k {i + 1}) (val (+ ?x 1)))))")
        facts = ["(v (k 0) (val 1))"]
    else:
        for i in range(n):
            env.build(f"(defrule r{i} (v (k {2 * i}) (val 1)) (not (v (k {2 * i + 1}))) => "
                      f"(assert (v (k {2 * i + 1}) (val 1))))")
        facts = [f"(v (k {2 * i}) (val 1))" for i in range(0, n, 100)]

    def go() -> int:
        env.reset()
        for f in facts:
            env.assert_string(f)
        return int(env.run())

    got = go()
    t = min(per_call(go, reps=reps, inner=1))
    res.add(Row(f"scaling {shape}", f"{shape} N={n}: CLIPS run ({got} fired)", t * 1e6, "µs",
                note="reset + assert + run"))


WHY_FAN = (
    "The naive loop evaluates every rule (N of them, ~0.3 µs each) twice. The engine's compiled sweep "
    "evaluates every rule of the phase once too: the lazy start that evaluated only the rules whose "
    "input changed (~5× faster than naive at N = 10,000 in earlier results) went with the engine "
    "rewrite (ff1d82a, before this branch), and it holds only when the default state is a fixed point "
    "of the rulebook, which vLLM's defaults-filling rules are not. On top, one copy of the whole default "
    "state (an O(paths) dict copy) and each firing's recording (provenance, Change, Fired event). "
    "Per-fired-rule cost stays flat in N (the target that is met)."
)
