"""Property tests of the vLLM rulebook: the generic invariants of ``postinit.engine.testing``.

Inputs come from ``postinit.testing`` (the decision-relevant factor
table). Every invariant must hold, except the NAMED quirks of
``postinit.rules.invariants.KNOWN_QUIRKS`` (``docs/quirks.md``): each has a
dedicated strict-xfail test below that runs the *unloosened* generic check
on a concrete input and shows it failing; ``check_vllm`` accepts a violation
only when a quirk explains all of it.

``ci`` profile by default (``HYPOTHESIS_PROFILE``); ``-m deep`` runs the
``deep`` variants with the ``deep`` profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from postinit import testing as vs
from postinit.engine import Provenance, Rulebook
from postinit.engine import testing as kit
from postinit.rules import invariants as vinv
from postinit.rules import rulebook

Case = tuple[Rulebook, dict[str, Any], dict[str, Provenance]]


def _case(**levels: Any) -> Case:
    return vs.engine_inputs(*vs.build_inputs(vs.base_assignment(**levels)))


# -- the invariants over generated inputs -----------------------------------------------------


@given(vs.assignments())
def test_invariants_hold_except_named_quirks(assignment: dict[str, Any]) -> None:
    """Every invariant holds for every generated input, up to the named quirks."""
    book, state, _ = vs.engine_inputs(*vs.build_inputs(assignment))
    hits = vinv.check_vllm(book, state, permutations=1)
    assert {h.quirk for h in hits} <= {q.name for q in vinv.KNOWN_QUIRKS}


@given(vs.resolve_inputs(platform=("h100", "b200", "mi300x", "cpu")))
def test_trace_explains_every_change(inputs: vs.Inputs) -> None:
    """check_trace_completeness and the postconditions hold on the vllm-semantics resolution."""
    book, state, prov = vs.engine_inputs(*inputs)
    result = book.resolve(state, prov)
    kit.check_trace_completeness(result)
    kit.check_postconditions(result, allow=vinv.postcondition_allow())


@pytest.mark.deep
@settings(settings.get_profile("deep"))
@given(vs.assignments())
def test_invariants_hold_except_named_quirks_deep(assignment: dict[str, Any]) -> None:
    book, state, _ = vs.engine_inputs(*vs.build_inputs(assignment))
    vinv.check_vllm(book, state, permutations=2)


def test_registration_order_compiles_the_same() -> None:
    """Shuffled registrations of the whole rulebook give the same per-phase order and resolution."""
    book, state, _ = _case(model="fixtures/deepseek_v3", tp=2, dcp=2)
    kit.check_registration_order(book, state, permutations=3, seed=7)


def test_generated_inputs_are_valid() -> None:
    """build_inputs never produces an input error, for every group level (smoke over the factor table)."""
    for factor, levels in vs.FACTORS.items():
        for level in levels:
            config, kwargs = vs.build_inputs(vs.base_assignment(**{factor: level}))
            vs.engine_inputs(config, kwargs)


def test_postconditions_declared_on_key_rules() -> None:
    book = rulebook()
    for rid in ("cudagraph.eager-disables", "cudagraph.dcp-forces-piecewise", "cudagraph.pooling-forces-piecewise",
                "cudagraph.encoder-decoder-forces-piecewise", "cudagraph.blackwell-long-context-forces-piecewise",
                "scheduler.cp-off-switch", "scheduler.hma-off-kv-connector", "scheduler.hma-off-kv-events",
                "scheduler.hma-off-chunked-local"):
        assert book.rules[rid].ensures is not None, rid


def test_every_quirk_is_documented_and_pinned() -> None:
    text = (__import__("pathlib").Path(__file__).parents[2] / "docs" / "quirks.md").read_text()
    names = {q.name for q in vinv.KNOWN_QUIRKS}
    for q in vinv.KNOWN_QUIRKS:
        assert f"`{q.name}`" in text, q.name
        test = q.test.rsplit("::", 1)[-1]
        assert test in globals(), test
    assert len(names) == len(vinv.KNOWN_QUIRKS)


# -- the named quirks: the strict generic check fails, as vLLM does --------------------------------

_QUIRK = {q.name: q for q in vinv.KNOWN_QUIRKS}


def _reason(name: str) -> str:
    q = _QUIRK[name]
    return f"vLLM quirk {name}: {q.summary}"


@pytest.mark.xfail(strict=True, raises=kit.InvariantViolation, reason=_reason("custom-ops-append-not-idempotent"))
def test_quirk_custom_ops_append_not_idempotent() -> None:
    """Blocked FP8 appends '+quant_fp8' on every pass: the resolved config re-resolves to a longer custom_ops."""
    book, state, _ = _case(model="fixtures/llama_fp8_block", custom_ops="none", max_model_len=4096)
    first = book.resolve(state)
    assert first.ok and first.state["compilation_config.custom_ops"] == ("none", "+quant_fp8")
    again = book.resolve({**state, "compilation_config.custom_ops": first.state["compilation_config.custom_ops"]})
    assert again.state["compilation_config.custom_ops"] == ("none", "+quant_fp8", "+quant_fp8")  # vLLM's behaviour
    kit.check_idempotence(book, state)


@pytest.mark.xfail(strict=True, raises=kit.InvariantViolation,
                   reason=_reason("original-max-model-len-records-input"))
def test_quirk_original_max_model_len_records_input() -> None:
    """The derived max_model_len counts as the user's on the second pass."""
    book, state, _ = _case(model="fixtures/llama")
    first = book.resolve(state, semantics="consistent")
    assert first.state["model_config.original_max_model_len"] is None
    kit.check_idempotence(book, state)


@pytest.mark.xfail(strict=True, raises=kit.InvariantViolation,
                   reason=_reason("sp-emptied-capture-sizes-not-reresolvable"))
def test_quirk_sp_emptied_capture_sizes_not_reresolvable() -> None:
    """SP with TP 8 filters capture sizes [1, 3, 5, 7, 9, 12] to none (pooling keeps PIECEWISE on); no re-resolve."""
    book, state, _ = _case(model="fixtures/llama", pooling="LAST", tp=8, pass_config="sp", capture_sizes="odd",
                           max_model_len=4096)
    first = book.resolve(state)
    assert first.ok and first.state["compilation_config.max_cudagraph_capture_size"] == 0
    kit.check_idempotence(book, state)
