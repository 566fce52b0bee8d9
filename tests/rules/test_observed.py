"""What real vLLM lets one observe of a rule: the stage of its violation, and whether its message is a vLLM log."""

from __future__ import annotations

import pytest

import postinit
from postinit.rules import rulebook
from postinit.rules.observed import EXPLANATIONS, VLLM_STAGES, is_explanation, stage_of


def test_every_rule_has_a_vllm_stage() -> None:
    """Every rule maps to one of the oracle's stage names, and the rulebook records them all."""
    book = rulebook()
    for r in book.rules.values():
        assert stage_of(r) in VLLM_STAGES, r.id
        assert r.stage == stage_of(r), r.id


@pytest.mark.parametrize("rule_id, stage", [
    ("model.architecture-supported", "model_config"),
    ("engine-args.tp-divisible-by-dcp", "create_engine_config"),
    ("scheduler.budget-below-max-model-len", "scheduler_config"),
    ("compilation.custom-op-syntax", "compilation_config"),
    ("parallel.eplb-requirements", "parallel_config"),
    ("speculative.draft-verify-with-parallel-config", "speculative_config"),
    ("kv-transfer.role-required", "kv_transfer_config"),
    ("lora.max-cpu-loras-check", "lora_config"),
    ("verify.dcp-kv-heads", "vllm_config"),
    ("cudagraph.piecewise-needs-vllm-compile", "vllm_config"),
    ("validate.mamba-block-size-needs-prefix-caching", "vllm_config"),
])
def test_stage_follows_phase_and_source(rule_id: str, stage: str) -> None:
    """The stage is the vLLM object the rule's check belongs to (phase, then the source's config file)."""
    assert stage_of(rulebook().rules[rule_id]) == stage


def test_violation_carries_its_stage() -> None:
    """A violation names where vLLM raises, in the trace event and its JSON."""
    r = postinit.resolve({"scheduler_config": {"max_num_batched_tokens": 1024, "enable_chunked_prefill": False}},
                         model="fixtures/llama", platform="h100")
    v = r.violations[0]
    assert (v.rule, v.stage) == ("scheduler.budget-below-max-model-len", "scheduler_config")
    assert v.to_dict()["stage"] == "scheduler_config"


def test_explanations_are_rules() -> None:
    """The explanation list names real rules; quirk.* rules are explanations, vLLM's log mirrors are not."""
    book = rulebook()
    assert set(book.rules) >= EXPLANATIONS
    assert is_explanation("quirk.instance-id-ignored")
    assert not is_explanation("cudagraph.blackwell-long-context-forces-piecewise")
