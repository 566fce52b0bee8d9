"""The realistic benchmark inputs and the phase-prefix rulebooks the baselines are checked against."""

from __future__ import annotations

import functools
from typing import Any

import postinit
from postinit.engine import Rulebook
from postinit.rules import PHASES, rulebook

CASES: dict[str, dict[str, Any]] = {
    "llama3-h100": {"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}}, "platform": "h100"},
    "deepseek-v3-b200-200k": {
        "config": {"model_config": {"model": "deepseek-ai/DeepSeek-V3", "max_model_len": 200_000},
                   "parallel_config": {"tensor_parallel_size": 8}},
        "platform": "b200",
        "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
    },
    "qwen3-next-kv-connector": {
        "config": {"model_config": {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct"},
                   "parallel_config": {"tensor_parallel_size": 4},
                   "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}},
        "platform": "h100",
    },
    "llama3-cpu": {"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}}, "platform": "cpu"},
}


def kwargs(case: str) -> dict[str, Any]:
    return dict(CASES[case])


@functools.cache
def prefix_book(last_phase: str) -> Rulebook:
    """The vLLM rulebook cut after ``last_phase`` (``core`` = up to VllmConfig step 16)."""
    phases = PHASES[: PHASES.index(last_phase) + 1]
    rules = [r for r in rulebook().rules.values() if r.phase in phases]
    return rulebook().rebuilt(rules, phases=phases, name=f"vllm-to-{last_phase}")


def core_input(case: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(state entering the ``core`` phase, the validated flat state entering the rulebook)."""
    state, prov, _ = postinit.prepare(**kwargs(case)) if hasattr(postinit, "prepare") else _prepare(case)
    before = prefix_book("verify").resolve(state, prov, trace="minimal")
    return dict(before.state), state


def _prepare(case: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    from postinit._api import prepare

    return prepare(**kwargs(case))
