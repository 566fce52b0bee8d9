"""The compiled evaluator gives exactly what the interpreter (the reference) gives."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.rules import rulebook

CASES: list[dict[str, Any]] = [
    {"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}}, "platform": "h100"},
    {"config": {"model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}}, "platform": "cpu"},
    {"config": {"model_config": {"model": "deepseek-ai/DeepSeek-V3", "max_model_len": 200_000},
                "parallel_config": {"tensor_parallel_size": 8}},
     "platform": "b200", "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}},
    {"config": {"model_config": {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct"},
                "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}},
     "platform": "h100"},
    {"model": "ai21labs/AI21-Jamba-Mini-1.6", "argv": ["-tp", "2", "--enforce-eager"], "platform": "a100"},
    {"model": "openai/gpt-oss-120b", "argv": ["--max-model-len", "8192"], "platform": "mi300x"},
    {"model": "BAAI/bge-base-en-v1.5", "argv": [], "platform": "l40s"},
    {"model": "openai/whisper-large-v3", "argv": [], "platform": "h100"},
    {"config": {"compilation_config": {"mode": 7}}, "platform": "h100"},  # a violation
    {"config": None, "platform": "h100"},
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("trace", ["minimal", "full"])
def test_compiled_evaluator_matches_the_interpreter(case: int, trace: Any) -> None:
    """vLLM order compiled gives exactly what the interpreter gives: state, types, trace and provenance."""
    try:
        state, prov, _ = postinit._api.prepare(**CASES[case])
    except postinit.PostinitError:
        pytest.skip("input rejected before the engine")
    book = rulebook()
    reference = book.resolve(dict(state), prov, trace=trace, interpret=True)
    compiled = book.resolve(dict(state), prov, trace=trace)
    assert compiled.state == reference.state
    assert {p: type(v) for p, v in compiled.state.items()} == {p: type(v) for p, v in reference.state.items()}
    assert compiled.trace.to_dict() == reference.trace.to_dict()
    assert compiled.provenance == reference.provenance
    assert compiled.history == reference.history


def test_resolve_changes_matches_a_full_initial_state() -> None:
    """``Rulebook.resolve_changes`` (defaults + changes) equals resolving the full state."""
    book = rulebook()
    for kw in CASES[:4]:
        state, prov, _ = postinit._api.prepare(**kw)
        defaults = book.paths.defaults()
        changes = {p: v for p, v in state.items() if v is not defaults[p]}
        full = book.resolve(state, prov)
        got = book.resolve_changes(changes, prov)
        assert got.state == full.state
        assert got.trace.to_dict() == full.trace.to_dict()
