"""1. Every path a user takes through the library, timed in this process (min of alternating samples).

* the engine alone: the vLLM rulebook on a prepared Llama/H100 state, compiled evaluator against the
  readable interpreter (the reference it is tested against), full and minimal traces;
* the dict path: ``postinit.resolve(config={...}, platform="h100")`` with a new input every call
  (a new ``max_model_len``, so no cache of exact input parts can answer: the ``model_config`` part is
  patched from the last one of its shape, that one leaf validated again; the engine resolves it from
  scratch), with and without ``.config`` (the validated ``VllmConfig`` object);
* the flags path: ``postinit.resolve(argv=["--model", ..., "--max-model-len", N], platform="h100")``,
  what ``vllm serve`` flags give, the same two ways.

The baseline of the library rows is the engine alone, so the ratio is what the front door
(validation, flattening, provenance) and the back door (``.config``) add. Real vLLM's own time for
the same jobs is in ``vllm_context`` (its ratios are taken in one process with both).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import postinit
from benchmarks._util import Results, Row, alternate, profile_text
from postinit._api import prepare
from postinit.rules import paths, rulebook

SECTION = "paths (library)"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
ENGINE_TARGET_US = 250.0


def library_calls() -> dict[str, Callable[[], Any]]:
    """The library paths, each with a new input every call (``max_model_len`` counts up from 1024)."""
    fresh = itertools.count(1024)

    def dict_path() -> Any:
        return postinit.resolve(config={"model_config": {"model": LLAMA, "max_model_len": next(fresh)}},
                                platform="h100")

    def flags_path() -> Any:
        return postinit.resolve(argv=["--model", LLAMA, "--max-model-len", str(next(fresh))], platform="h100")

    return {
        "dict": dict_path,
        "dict+config": lambda: dict_path().config,
        "flags": flags_path,
        "flags+config": lambda: flags_path().config,
    }


def engine_calls() -> dict[str, Callable[[], Any]]:
    """The engine alone on the prepared Llama/H100 state (a fresh copy per call, taken over)."""
    state, prov, _ = prepare(config={"model_config": {"model": LLAMA}}, platform="h100")
    book = rulebook()
    return {
        "compiled": lambda: book.resolve(dict(state), prov, owned=True),
        "compiled-minimal": lambda: book.resolve(dict(state), prov, owned=True, trace="minimal"),
        "interpreter": lambda: book.resolve(dict(state), prov, owned=True, interpret=True),
    }


def run(res: Results, *, reps: int = 300, inner: int = 3) -> None:
    eng = engine_calls()
    lib = library_calls()
    t = alternate({**eng, **lib}, reps=reps, inner=inner)
    us = {k: v * 1e6 for k, v in t.items()}
    e = us["compiled"]
    res.add(Row(SECTION, "engine: vLLM rulebook, compiled evaluator, trace=full (Llama/H100)", e, "µs",
                "interpreter", us["interpreter"], f"≤ {ENGINE_TARGET_US:g} µs", e <= ENGINE_TARGET_US,
                short_by=f"{e / ENGINE_TARGET_US:.2f}× the target",
                why=WHY_ENGINE, profile=lambda: profile_text(eng["compiled"], calls=1000)))
    res.add(Row(SECTION, "  engine, trace=minimal", us["compiled-minimal"], "µs", "interpreter",
                us["interpreter"]))
    for key, what in (("dict", "postinit.resolve(config=dict), new input each call"),
                      ("dict+config", "  the same + .config (validated VllmConfig)"),
                      ("flags", "postinit.resolve(argv=vllm serve flags), new input each call"),
                      ("flags+config", "  the same + .config (validated VllmConfig)")):
        res.add(Row(SECTION, what, us[key], "µs", "engine alone", e))
    b = alternate(config_calls(), reps=reps, inner=inner)
    res.add(Row(SECTION, ".config alone: the generated builder (PathSpace.build), a new state each call",
                b["builder"] * 1e6, "µs", "pydantic's validation of the state", b["validated"] * 1e6))


def config_calls(n: int = 16) -> dict[str, Callable[[], Any]]:
    """``.config`` of resolved dict-path states (a new ``max_model_len`` each): the generated builder that
    ``Resolution.config`` uses, and pydantic's validation of the whole unflattened state that it stands for."""
    states = [library_calls()["dict"]().engine.state for _ in range(n)]
    space = paths()
    turn = itertools.cycle(states)
    return {"builder": lambda: space.build(next(turn)), "validated": lambda: space.build_validated(next(turn))}


WHY_ENGINE = (
    "The compiled evaluator runs the 243 rules' 261 evaluations of a Llama/H100 resolution as one "
    "generated function per phase. What is left is the rule bodies themselves, ~50 `apply` calls "
    "(36 firings: change detection, provenance, history, the `Fired` event) and, at trace=full, "
    "each firing's declared reads and the stale-read bookkeeping (trace=minimal is ~40 µs less)."
)
