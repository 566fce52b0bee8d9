"""Resolution: fixed points, stale reads, consistent semantics, enforcement and provenance."""

from __future__ import annotations

import copy
import threading

import pytest
import structlog
from structlog.testing import capture_logs

from postinit.engine import Change, FrozenDict, Outcome, Provenance, Source, StaleRead, Violation
from postinit.errors import (
    NoFixedPoint,
    RuleBodyError,
    RuleDeclarationError,
    UndeclaredReadError,
    UndeclaredWriteError,
)
from tests.engine._synth import book, mk, setter, state, user


def _stale_book():
    # p1: early reads a and derives b; p3: late changes a
    return book(
        mk("s.early", lambda c: {"b": c["a"] + 100}, reads="a", writes="b", phase="p1"),
        mk("s.late", setter("a", 7), reads="fact.cap", writes="a", phase="p3"),
        mk("s.guard", lambda c: Violation("b too small") if c["b"] < 0 else None, reads="b", phase="p2"),
    )


def test_stale_read_recorded() -> None:
    """A later phase changing a value an earlier rule read is recorded naming both rules, the path and both values."""
    res = _stale_book().resolve(state(a=1))
    (ev,) = res.trace.stale_reads
    assert isinstance(ev, StaleRead)
    assert (ev.rule, ev.phase, ev.path, ev.read, ev.now, ev.by, ev.by_phase) == ("s.early", "p1", "a", 1, 7, "s.late", "p3")
    assert "s.early" in ev.message and "s.late" in ev.message and "a=1" in ev.message and "7" in ev.message
    assert res.state["b"] == 101  # vLLM semantics keep the stale conclusion


def test_no_stale_read_when_value_unchanged_for_reader() -> None:
    """No stale read is recorded when the later phase writes the value the rule read."""
    res = _stale_book().resolve(state(a=7))
    assert res.trace.stale_reads == ()


def test_consistent_semantics_reruns_stale_rule() -> None:
    """Under ``semantics="consistent"`` the stale rule re-runs and no stale read remains."""
    res = _stale_book().resolve(state(a=1), semantics="consistent")
    assert res.state["b"] == 107
    assert res.trace.stale_reads == ()
    assert [e.rule for e in res.trace.fired] == ["s.early", "s.late", "s.early"]


def test_consistent_checks_run_on_final_state() -> None:
    """Consistent mode evaluates check rules after every other rule, on the final state."""
    seen: list[int] = []

    def check(c):
        seen.append(c["b"])
        return None

    b = book(
        mk("c.check", check, reads="b", phase="p1"),
        mk("c.early", lambda c: {"b": c["a"] * 2}, reads="a", writes="b", phase="p1"),
        mk("c.late", setter("a", 5), reads="fact.cap", writes="a", phase="p2"),
    )
    assert b.resolve(state(a=1), semantics="consistent").state["b"] == 10
    assert seen == [10]
    seen.clear()
    b.resolve(state(a=1))
    assert seen == [2]


def test_consistent_check_violation_on_final_state() -> None:
    """A check that only fails on the consistent final state reports a violation in consistent mode only."""
    b = book(
        mk("c.check", lambda c: Violation("b is 10", hint="lower a") if c["b"] == 10 else None, reads="b", phase="p1"),
        mk("c.early", lambda c: {"b": c["a"] * 2}, reads="a", writes="b", phase="p1"),
        mk("c.late", setter("a", 5), reads="fact.cap", writes="a", phase="p2"),
    )
    assert b.resolve(state(a=1)).ok
    res = b.resolve(state(a=1), semantics="consistent")
    assert not res.ok and res.violations[0].rule == "c.check" and res.violations[0].hint == "lower a"


def test_unknown_semantics_refused() -> None:
    """An unknown ``semantics`` is refused."""
    with pytest.raises(RuleDeclarationError, match="semantics"):
        _stale_book().resolve(state(), semantics="eventual")


def test_incomplete_initial_state_refused() -> None:
    """An initial state lacking paths is refused with a pointer to ``PathSpace.defaults()``."""
    s = state()
    del s["a"]
    with pytest.raises(RuleDeclarationError, match=r"lacks 1 paths \(e.g. 'a'\)"):
        _stale_book().resolve(s)


def _feedback_book():
    # halves a until it is at most 10; b = a (the reader runs first and is re-run by feedback)
    return book(
        mk("f.copy", lambda c: {"b": c["a"]}, reads="a", writes="b", feedback="f.shrink"),
        mk("f.shrink", lambda c: {"a": c["b"] // 2} if c["b"] > 10 else None, reads="b", writes="a"),
    )


def test_feedback_cycle_reaches_fixed_point() -> None:
    """A declared feedback cycle compiles and is re-run until nothing changes."""
    res = _feedback_book().resolve(state(a=80))
    assert res.state["a"] == 10 and res.state["b"] == 10
    assert [e.rule for e in res.trace.fired] == ["f.copy", "f.shrink"] * 3 + ["f.copy"]


def test_feedback_edge_kind_in_graph() -> None:
    """The declared feedback edge is marked as such and left out of the ordering graph."""
    b = _feedback_book()
    assert b.graph.edges["f.shrink", "f.copy"]["kind"] == "feedback"
    assert not b.phase_graph("p1").has_edge("f.shrink", "f.copy")


def test_oscillation_raises_no_fixed_point() -> None:
    """Rules that keep flipping a value raise NoFixedPoint naming the rules and the values."""
    b = book(
        mk("o.copy", lambda c: {"b": c["a"]}, reads="a", writes="b", feedback="o.flip"),
        mk("o.flip", lambda c: {"a": 1 - c["b"]}, reads="b", writes="a"),
    )
    with pytest.raises(NoFixedPoint) as e:
        b.resolve(state(a=0), max_runs=5)
    assert set(e.value.rules) == {"o.copy", "o.flip"}
    assert e.value.flips["a"][:4] == [0, 1, 0, 1]
    assert "o.copy" in str(e.value) and "a: 0 -> 1 -> 0 -> 1" in str(e.value)


def test_oscillation_in_consistent_mode() -> None:
    """Consistent mode also bounds cross-phase oscillation."""
    b = book(
        mk("o.copy", lambda c: {"b": c["a"]}, reads="a", writes="b", phase="p1"),
        mk("o.flip", lambda c: {"a": 1 - c["b"]}, reads="b", writes="a", phase="p2"),
    )
    assert b.resolve(state(a=0)).state == {**state(a=1), "b": 0}
    with pytest.raises(NoFixedPoint, match="kept flipping"):
        b.resolve(state(a=0), semantics="consistent", max_runs=8)


def test_undeclared_write_refused() -> None:
    """A change to a path the rule did not declare raises UndeclaredWriteError naming rule and path."""
    b = book(mk("w.sneaky", lambda c: {"a": 1, "b": 2}, reads="c", writes="a"))
    with pytest.raises(UndeclaredWriteError) as e:
        b.resolve(state())
    assert (e.value.rule, e.value.path, e.value.value) == ("w.sneaky", "b", 2)
    assert "w.sneaky" in str(e.value) and "'b'" in str(e.value)


def test_check_returning_changes_is_undeclared_write() -> None:
    """A check rule that returns a change is refused like any undeclared write."""
    b = book(mk("w.check", lambda c: {"a": 1}, reads="c"))
    with pytest.raises(UndeclaredWriteError, match=r"w\.check"):
        b.resolve(state())


@pytest.mark.parametrize(
    ("strict", "raises"),
    [(False, False), (True, True)],
)
def test_strict_mode_refuses_undeclared_read(strict: bool, raises: bool) -> None:
    """Only strict mode refuses a read of a path the rule did not declare."""
    b = book(mk("r.peek", lambda c: {"a": c["b"] + c["d"]}, reads="b", writes="a"))
    if raises:
        with pytest.raises(UndeclaredReadError) as e:
            b.resolve(state(d=3), strict=True)
        assert (e.value.rule, e.value.path) == ("r.peek", "d")
    else:
        assert b.resolve(state(d=3), strict=strict).state["a"] == 3


def test_strict_mode_allows_declared_reads() -> None:
    """Strict mode resolves normally when a rule reads only what it declares."""
    b = book(mk("r.ok", lambda c: {"a": c["b"] + 1}, reads="b", writes="a"))
    assert b.resolve(state(b=2), strict=True).state["a"] == 3


def test_bad_return_type_refused() -> None:
    """A rule returning something other than None, a mapping, Outcome or Violation is refused."""
    b = book(mk("r.bad", lambda c: 3, reads="b", writes="a"))
    with pytest.raises(RuleDeclarationError, match="returned int"):
        b.resolve(state())


def test_violation_stops_resolution() -> None:
    """A violation stops the resolution: later rules and phases do not run."""
    b = book(
        mk("v.fill", setter("a", 1), reads="fact.cap", writes="a", phase="p1"),
        mk("v.check", lambda c: Violation("a must be 0", error="AssertionError") if c["a"] else None, reads="a", phase="p1"),
        mk("v.late", setter("d", 9), reads="a", writes="d", phase="p1"),
        mk("v.next", setter("c", 9), reads="fact.cap", writes="c", phase="p2"),
    )
    res = b.resolve(state())
    assert not res.ok
    assert [(v.rule, v.message, v.error) for v in res.violations] == [("v.check", "a must be 0", "AssertionError")]
    assert res.state["d"] == 0 and res.state["c"] == 0
    assert res.trace.rules_fired() == ("v.fill",)


def test_select_runs_only_the_chosen_rules() -> None:
    """``select`` resolves a part of the rulebook alone: the other rules do not run, in any phase."""
    b = book(
        mk("s.fill", setter("a", 1), reads="fact.cap", writes="a", phase="p1"),
        mk("s.check", lambda c: Violation("a must be 0") if c["a"] else None, reads="a", phase="p1"),
        mk("s.next", setter("c", 9), reads="fact.cap", writes="c", phase="p2"),
    )
    alone = b.resolve(state(), select={"s.check", "s.next"})
    assert alone.ok and alone.state["a"] == 0 and alone.state["c"] == 9
    assert b.resolve(state(), select={"s.fill", "s.check"}).violations[0].rule == "s.check"
    with pytest.raises(RuleDeclarationError, match="select names unknown rules"):
        b.resolve(state(), select={"s.nope"})


def test_outcome_message_without_change() -> None:
    """An Outcome with a message and no change is recorded as a firing at its level."""
    b = book(mk("m.warn", lambda c: Outcome(message=f"a is {c['a']}", level="warning"), reads="a"))
    (ev,) = b.resolve(state(a=2)).trace.fired
    assert (ev.message, ev.level, ev.changes) == ("a is 2", "warning", ())


def test_write_of_same_value_is_not_a_firing() -> None:
    """A rule writing the value a path already holds does not fire."""
    b = book(mk("m.same", setter("a", 0), reads="b", writes="a"))
    assert b.resolve(state()).trace.fired == ()


# -- provenance ------------------------------------------------------------------------------


def test_provenance_user_default_fact_rule() -> None:
    """Each value's provenance tells user input, schema default, fact and rule apart."""
    b = book(mk("p.fill", lambda c: {"b": c["a"] + c["fact.cap"]}, reads=("a", "fact.cap"), writes="b"))
    prov = {**user("a"), "fact.cap": Provenance(Source.FACT, detail="nvidia-smi")}
    res = b.resolve(state(a=1), prov)
    assert res.provenance_of("a").source is Source.USER
    assert res.provenance_of("c").source is Source.DEFAULT
    assert res.provenance_of("fact.cap").source is Source.FACT
    assert res.provenance_of("b").source is Source.RULE and res.provenance_of("b").rule == "p.fill"
    assert str(res.provenance_of("b")) == "rule p.fill"




@pytest.mark.parametrize(
    ("prov", "source", "overrides"),
    [({"a": "user"}, Source.USER, True), ({}, Source.DEFAULT, False), ({"a": "fact"}, Source.FACT, False)],
)
def test_change_old_source(prov: dict, source: Source, overrides: bool) -> None:
    """A change records where the replaced value came from; USER means a rule overrode the user."""
    b = book(mk("p.force", setter("a", 5), reads="b", writes="a", kind="override"))
    res = b.resolve(state(a=1), {p: Provenance(Source[s.upper()]) for p, s in prov.items()})
    (ch,) = res.trace.fired[0].changes
    assert ch == Change("a", 1, 5, source)
    assert ch.overrides_user is overrides


def test_second_change_old_source_is_rule() -> None:
    """A change to a value a rule wrote records RULE as the old source."""
    b = book(
        mk("p.one", setter("a", 5), reads="b", writes="a"),
        mk("p.two", setter("a", 6), reads="b", writes="a", after="p.one"),
    )
    res = b.resolve(state(), user("a"))
    assert [c.old_source for e in res.trace.fired for c in e.changes] == [Source.USER, Source.RULE]


# -- immutability ----------------------------------------------------------------------------


def test_input_dict_never_mutated() -> None:
    """Resolving never mutates the caller's state or provenance dicts."""
    s = state(a=1, sizes=(1, 2))
    prov = user("a")
    s_copy, prov_copy = copy.deepcopy(s), copy.deepcopy(prov)
    res = _stale_book().resolve(s, prov)
    assert res.state is not s and res.state != s
    assert s == s_copy and prov == prov_copy


def test_unfrozen_input_values_are_not_exposed_to_rules() -> None:
    """A list or dict in the caller's state reaches rules frozen, so the caller's objects stay intact."""
    seen: list[object] = []

    def peek(c):
        seen.append(c["sizes"])
        seen.append(c["opts"])
        return None

    s = state(sizes=[1, 2], opts={"k": 1})
    res = book(mk("i.peek", peek, reads=("sizes", "opts"))).resolve(s)
    assert seen == [(1, 2), FrozenDict(k=1)]
    assert isinstance(seen[0], tuple) and isinstance(seen[1], FrozenDict)
    assert s["sizes"] == [1, 2] and res.changes == {}


@pytest.mark.parametrize(
    "mutate",
    [
        lambda v: v["opts"].__setitem__("k", 2),
        lambda v: v["opts"].update(k=2),
        lambda v: v["opts"].pop("k"),
        lambda v: v["sizes"].append(3),
        lambda v: v.__setitem__("a", 1),
    ],
    ids=["dict-setitem", "dict-update", "dict-pop", "tuple-append", "view-setitem"],
)
def test_rules_cannot_mutate_values(mutate) -> None:
    """FrozenDict and tuple values, and the state view itself, refuse mutation by a rule.

    The refusal surfaces as a RuleBodyError that names the rule and what it read.
    """
    b = book(mk("i.mutate", lambda c: mutate(c), reads=("sizes", "opts")))
    with pytest.raises(RuleBodyError, match=r"rule 'i.mutate' .* raised (TypeError|AttributeError).*it read sizes=") as info:
        b.resolve(state(sizes=(1, 2), opts=FrozenDict(k=1)))
    assert isinstance(info.value.__cause__, (TypeError, AttributeError)) and info.value.rule == "i.mutate"


def test_written_values_are_frozen() -> None:
    """A list or dict a rule returns is stored frozen."""
    b = book(mk("i.write", lambda c: {"sizes": [4, [5]], "opts": {"x": [1]}}, reads="a", writes=("sizes", "opts")))
    res = b.resolve(state())
    assert res.state["sizes"] == (4, (5,)) and isinstance(res.state["opts"], FrozenDict)
    assert res.state["opts"]["x"] == (1,)


# -- logging --------------------------------------------------------------------------------


def test_structlog_events() -> None:
    """The engine emits rule_fired, stale_read and rule_violation events with structured fields."""
    b = _stale_book().with_rules(
        mk("s.zcheck", lambda c: Violation("a is 7") if c["a"] == 7 else None, reads="a", phase="p3", after="s.late")
    )
    with capture_logs() as logs:
        b.resolve(state(a=1))
    fired = [e for e in logs if e["event"] == "rule_fired"]
    assert [(e["rule"], e["path"], e["old"], e["new"]) for e in fired] == [("s.early", "b", 0, 101), ("s.late", "a", 1, 7)]
    (stale,) = [e for e in logs if e["event"] == "stale_read"]
    assert (stale["rule"], stale["path"], stale["read"], stale["now"], stale["by"]) == ("s.early", "a", 1, 7, "s.late")
    assert stale["log_level"] == "warning"
    (viol,) = [e for e in logs if e["event"] == "rule_violation"]
    # a violation is an answer about the config, not an error of the program
    assert (viol["rule"], viol["message"], viol["log_level"]) == ("s.zcheck", "a is 7", "info")


def test_structlog_silent_when_unconfigured() -> None:
    """Without structlog configuration the engine emits nothing."""
    structlog.reset_defaults()
    assert not structlog.is_configured()
    _stale_book().resolve(state(a=1))  # would print to stdout if it logged; nothing to assert but no error


# -- threads --------------------------------------------------------------------------------


def test_thread_safety() -> None:
    """Resolving one rulebook from 8 threads gives identical results."""
    b = _feedback_book().with_rules(
        mk("t.mid", lambda c: {"c": c["a"] * 3}, reads="a", writes="c", phase="p2"),
        mk("t.late", lambda c: {"d": c["c"] + c["b"]}, reads=("b", "c"), writes="d", phase="p3"),
        mk("t.bump", lambda c: {"a": 8} if c["d"] > 1000 else None, reads="d", writes="a", phase="p3"),
    )
    results: list[object] = [None] * 8
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        barrier.wait()
        out = []
        for a in range(40, 120):
            r = b.resolve(state(a=a), semantics="consistent" if a % 2 else "ordered")
            out.append((r.state, r.trace.to_dict()))
        results[i] = out

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results)
    assert results[0] is not None and len(results[0]) == 80  # type: ignore[arg-type]


def test_consistent_rerun_keeps_later_writer_winning() -> None:
    """When a stale earlier writer re-runs in consistent mode, the later writer of the same path re-asserts its value."""
    b = book(
        mk("e.early", lambda c: {"c": c["d"] + 1}, reads="d", writes="c", phase="p1"),
        mk("e.late", setter("c", 0), reads="fact.cap", writes="c", phase="p2"),
        mk("e.feed", setter("d", 5), reads="fact.cap", writes="d", phase="p2"),
    )
    assert b.resolve(state()).state["c"] == 0
    res = b.resolve(state(), semantics="consistent")
    assert res.state["c"] == 0 and res.state["d"] == 5
    assert [e.rule for e in res.trace.fired][-2:] == ["e.early", "e.late"]
    assert b.resolve(res.state, semantics="consistent").changes == {}


def _retract_book():
    # p1: a fill-once default (reads its own write) and a conditional one; p3: late changes a
    return book(
        mk("r.fill", lambda c: {"c": "one" if c["a"] == 1 else "other"} if not c["c"] else None,
           reads=("a", "c"), writes="c", phase="p1"),
        mk("r.when", lambda c: {"b": 5} if c["a"] == 1 else None, reads="a", writes="b", phase="p1"),
        mk("s.late", setter("a", 7), reads="fact.cap", writes="a", phase="p3"),
    )


def test_consistent_retracts_before_re_evaluation() -> None:
    """Consistent semantics undo a rule's held values before it re-runs: a fill-once default re-decides,
    and a value whose condition no longer holds goes back to the input, as a traced change by the rule."""
    res = _retract_book().resolve(state(a=1), semantics="consistent")
    assert res.state["c"] == "other"
    assert res.state["b"] == res.initial["b"]
    (ev,) = [e for e in res.trace.fired if e.message.startswith("retracted")]
    assert ev.rule == "r.when" and ev.level == "debug"
    assert ev.message == "retracted before re-evaluation: an input of this rule changed"
    assert [(ch.path, ch.old, ch.new) for ch in ev.changes] == [("b", 5, res.initial["b"])]
    prov = res.provenance_of("b")
    assert prov == Provenance(Source.RULE, rule="r.when", event=ev.seq, detail="retracted")
    assert res.history["b"][-1] == (ev.seq, res.initial["b"], prov)


def test_vllm_semantics_never_retract() -> None:
    """vLLM semantics keep the earlier phase's values (the stale reads show them)."""
    res = _retract_book().resolve(state(a=1))
    assert res.state["c"] == "one" and res.state["b"] == 5
    assert not [e for e in res.trace.fired if e.message.startswith("retracted")]
    assert {s.rule for s in res.trace.stale_reads} == {"r.fill", "r.when"}


def test_consistent_cross_phase_feedback_terminates() -> None:
    """A re-run on unchanged reads does not take back what a later writer superseded (deep-profile case).

    p1 reads ``a`` and writes ``b``; p2 writes ``a`` and ``b`` (a later writer of ``b``), then
    another p2 rule writes ``a`` last. Before the fix the p1 rule re-asserted ``b`` each time ``a``
    flipped back, the p2 rule re-asserted ``a`` and ``b``, and consistent semantics never ended.
    """
    b = book(
        mk("f.read", lambda c: {"b": c["a"] + 10}, reads="a", writes="b", phase="p1"),
        mk("f.both", lambda c: {"a": 1, "b": 0}, reads="fact.cap", writes=("a", "b"), phase="p2"),
        mk("f.last", setter("a", 2), reads="fact.cap", writes="a", phase="p2", after=("f.both",)),
    )
    res = b.resolve(state(), semantics="consistent")
    # later writers win: ``a`` from f.last, ``b`` from f.both (f.read's 12 is superseded)
    assert (res.state["a"], res.state["b"]) == (2, 0)
    assert res.provenance_of("b").rule == "f.both" and res.provenance_of("a").rule == "f.last"
    assert b.resolve(res.state, semantics="consistent").changes == {}
    # vLLM semantics: phases never re-run, so p1's reading of ``a`` is stale
    v = b.resolve(state())
    assert (v.state["a"], v.state["b"]) == (2, 0) and v.trace.stale_reads


def test_consistent_retraction_skips_values_nobody_asserts() -> None:
    """A retracted path goes back to a value some rule still asserts, else to the input (deep-profile case).

    ``t.a`` sets ``d`` from ``b``, ``t.d`` (later) overrides it; then ``b`` and ``c`` change so
    that neither asserts ``d`` any more. Restoring "the value ``t.d`` replaced" would bring back
    ``t.a``'s 1, which ``t.a`` withdrew meanwhile; the consistent answer is the input, 0.
    """
    b = book(
        mk("t.b", lambda c: {"b": 1} if c["a"] > 0 else None, reads="a", writes="b", phase="p1"),
        mk("t.a", lambda c: {"d": 1} if c["b"] > 0 else None, reads="b", writes="d", phase="p1"),
        mk("t.c", setter("c", 1), reads="fact.cap", writes="c", phase="p1"),
        mk("t.d", lambda c: {"d": 0} if c["c"] > 0 else None, reads="c", writes="d", phase="p2"),
        mk("t.e", setter("b", 0), reads="fact.cap", writes="b", phase="p2"),
        mk("t.f", lambda c: {"c": 0} if c["a"] > 0 else None, reads="a", writes="c", phase="p3"),
    )
    res = b.resolve(state(a=1), semantics="consistent")
    assert [res.state[k] for k in "abcd"] == [1, 0, 0, 0]
    assert b.resolve(res.state, semantics="consistent").changes == {}
    # vLLM semantics keep the statement-order answer (and flag the stale reads)
    assert b.resolve(state(a=1)).state["d"] == 0
