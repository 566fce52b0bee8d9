"""What real vLLM lets one observe of a rule: the stage of its violation, and whether its message is a vLLM log."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.rules import rulebook
from postinit.rules.observed import (
    EXPLANATIONS,
    STEPS,
    VLLM_STAGES,
    WITHIN_STEPS,
    is_explanation,
    rank_of,
    stage_of,
    step_of,
    wrapped_by,
)


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


def _order(rule_id: str) -> tuple[int, int]:
    book = rulebook()
    r = book.rules[rule_id]
    return book.phases.index(r.phase), book.order[r.phase].index(rule_id)


@pytest.mark.parametrize("first, then", [
    ("parallel.data-parallel-rank-range", "speculative.draft-tensor-parallel-size"),  # ParallelConfig, then Speculative
    ("speculative.prompt-lookup-defaults", "scheduler.budget-below-max-num-seqs"),    # SpeculativeConfig, then Scheduler
    ("scheduler.partial-prefill-limits", "lora.max-cpu-loras-check"),                  # SchedulerConfig, then LoRA
    ("parallel.eplb-requirements", "lora.max-cpu-loras-check"),
    ("lora.max-cpu-loras-check", "compilation.custom-op-syntax"),
    ("compilation.piecewise-backend", "kv-transfer.role-required"),
    ("parallel.external-lb-needs-dp", "parallel.eplb-requirements"),                   # within _validate_parallel_config
    ("verify.heads-divisible-by-tp", "verify.swap-space"),                             # step 3, then step 4
    ("verify.swap-space", "verify.lora-cpu-offload-v0"),                               # step 4, then step 5
    ("verify.lora-cpu-offload-v0", "verify.quant-capability"),                         # step 5, then step 6
    ("verify.quant-capability", "verify.quant-act-dtype"),
    ("compilation.custom-ops-all-none-count", "compilation.custom-op-syntax"),
    ("engine-args.tp-divisible-by-dcp", "engine-args.async-scheduling-pipeline-parallel"),
])
def test_checks_run_in_vllms_statement_order(first: str, then: str) -> None:
    """Of two checks that can fail together, the one vLLM meets first runs first (and is the one reported)."""
    assert _order(first) < _order(then)


def test_steps_are_vllms_order() -> None:
    """Each stage has its step; create_engine_config sits between the sub-configs it builds; 25 VllmConfig steps."""
    names = [s.name for s in STEPS]
    assert names[0] == "parse" and names[-1] == "compute_hash"
    assert {s.stage for s in STEPS} == set(VLLM_STAGES)
    assert names.index("cache_config") < names.index("create_engine_config:before-parallel") < names.index(
        "parallel_config") < names.index("create_engine_config:after-parallel") < names.index("speculative_config")
    assert [n for n in names if n.startswith("vllm_config:")] == [f"vllm_config:step-{i}" for i in range(1, 26)]


def test_every_rule_has_a_step_and_a_rank() -> None:
    """The rulebook sets each rule's rank from its step; a step's stage is the rule's stage."""
    for r in rulebook().rules.values():
        assert step_of(r).stage == r.stage, r.id
        assert r.rank == rank_of(r), r.id


def test_within_step_tables_name_real_rules_of_that_step() -> None:
    """The statement-order tables inside a step list rules that exist (in some modelled version) and belong to it."""
    from postinit.rules.versions import VERSIONS

    books = [rulebook(), *(v.rulebook for v in VERSIONS.values())]
    for step, ids in WITHIN_STEPS.items():
        for rid in ids:
            found = [book.rules[rid] for book in books if rid in book.rules]
            assert found, rid
            assert all(step_of(r).name == step for r in found), rid


@pytest.mark.parametrize("stage, error, wrapper", [
    ("scheduler_config", "ValueError", "ValidationError"),
    ("vllm_config", "AssertionError", "ValidationError"),
    ("vllm_config", "NotImplementedError", None),
    ("speculative_config", "SyntaxError", None),
    ("create_engine_config", "ValueError", None),
])
def test_pydantic_wraps_value_and_assertion_errors_of_configs(stage: str, error: str, wrapper: str | None) -> None:
    """A ValueError/AssertionError raised while a config is built reaches the caller inside a ValidationError."""
    assert wrapped_by(stage, error) == wrapper


def test_within_step_tables_agree_with_the_compiled_order() -> None:
    """No declared sequence contradicts vLLM's statement order inside a step (the tables are vLLM's), in any
    modelled version (each table's rules that the version has)."""
    from postinit.rules.versions import VERSIONS

    for version in VERSIONS.values():
        book = version.rulebook
        for ids in WITHIN_STEPS.values():
            present = [rid for rid in ids if rid in book.rules]

            def order(rid: str, book: Any = book) -> tuple[int, int]:
                r = book.rules[rid]
                return book.phases.index(r.phase), book.order[r.phase].index(rid)

            assert sorted(present, key=order) == present, (version.name, present)
