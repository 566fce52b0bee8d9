"""Engine properties over random acyclic rulebooks (hypothesis; profile from HYPOTHESIS_PROFILE)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from postinit.engine import Rulebook
from postinit.engine import testing as kit

BOOKS = kit.acyclic_rulebooks()
PATHS8 = kit.synthetic_paths(8)
STATES = kit.flat_states(PATHS8, {p: st.integers(-1, 5) for p in PATHS8})


@given(BOOKS, STATES, st.randoms(use_true_random=False))
def test_registration_order_does_not_matter(book: Rulebook, state: dict, rnd) -> None:
    """The result is independent of the order the rules were registered in."""
    rules = list(book.rules.values())
    rnd.shuffle(rules)
    other = Rulebook(rules, paths=book.paths, phases=book.phases)
    for semantics in ("ordered", "consistent"):
        a, b = book.resolve(state, semantics=semantics), other.resolve(state, semantics=semantics)
        assert a.state == b.state and a.trace.to_dict() == b.trace.to_dict()


@given(BOOKS, STATES)
def test_re_resolving_changes_nothing(book: Rulebook, state: dict) -> None:
    """Re-resolving a consistent resolution's final state under consistent semantics changes nothing."""
    kit.check_idempotence(book, state)


@given(BOOKS, STATES, st.sampled_from(["ordered", "consistent"]))
def test_every_difference_has_one_explaining_change(book: Rulebook, state: dict, semantics: str) -> None:
    """Every input/output difference has exactly one final trace change that explains its value."""
    kit.check_trace_completeness(book.resolve(state, semantics=semantics))


@given(BOOKS, STATES)
def test_all_invariants_hold(book: Rulebook, state: dict) -> None:
    """Acyclic rulebooks pass every invariant of the kit."""
    assert kit.check_all(book, state, permutations=1) == []


TestRulebookMachine = kit.TestRulebookMachine
# each machine example runs a dozen resolutions per step: a quarter of the profile's examples
TestRulebookMachine.settings = settings(
    max_examples=max(8, settings().max_examples // 4), stateful_step_count=min(settings().stateful_step_count, 12)
)


@pytest.mark.deep
@settings(max_examples=3_000)
@given(kit.acyclic_rulebooks(max_rules=25, n_paths=12), st.data())
def test_deep_all_invariants(book: Rulebook, data: st.DataObject) -> None:
    """(deep) Larger acyclic rulebooks pass every invariant."""
    kit.check_all(book, data.draw(kit.flat_states(book.paths)))
