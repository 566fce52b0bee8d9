"""Group statements: first_match (if / elif), all_of (ifs under one gate) and sequence (declared order)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
import pytest

from postinit.engine import (
    Outcome,
    PathSpace,
    Rulebook,
    Violation,
    all_of,
    first_match,
    make_rule,
    sequence,
)
from postinit.errors import CycleError, RuleDeclarationError


class Cfg(pydantic.BaseModel):
    dcp: int = 1
    pooling: bool = False
    mode: str = "FULL"
    eager: bool = False
    hma: bool = False
    connector: bool = False
    events: bool = False
    log: int = 0


PATHS = PathSpace.from_model(Cfg)


def _full(c: Mapping[str, Any]) -> bool:
    return bool(c["mode"] == "FULL")


dcp = make_rule(lambda c: {"mode": "PIECEWISE"} if c["dcp"] > 1 else None, "t.dcp", title="DCP forces PIECEWISE",
                phase="core", kind="override", reads=("dcp",), writes=("mode",))
pooling = make_rule(lambda c: Outcome({"mode": "PIECEWISE"}, message="pooling") if c["pooling"] else None,
                    "t.pooling", title="pooling forces PIECEWISE", phase="core", kind="override",
                    reads=("pooling",), writes=("mode",))
refuse = make_rule(lambda c: Violation("no graphs with both") if c["pooling"] and c["dcp"] > 1 else None,
                   "t.refuse", title="refuse", phase="core", kind="check", reads=("pooling", "dcp"))
MODES = first_match("t.full-support", dcp, pooling, title="full graphs unsupported: PIECEWISE",
                    when=_full, reads=("mode",))


def _book(*items: Any) -> Rulebook:
    return Rulebook(list(items), paths=PATHS, phases=("core",))


def test_first_match_fires_at_most_one_member_under_its_own_id() -> None:
    """Both members apply; only the first in declared order decides, and the trace names it."""
    r = _book(MODES).resolve_changes({"dcp": 2, "pooling": True})
    assert r.state["mode"] == "PIECEWISE"
    assert [e.rule for e in r.trace.fired] == ["t.dcp"]  # pooling's message is not logged: it was not tried
    alone = _book(MODES).resolve_changes({"pooling": True})
    assert [(e.rule, e.message) for e in alone.trace.fired] == [("t.pooling", "pooling")]


def test_declared_order_is_the_order_not_the_ids() -> None:
    """Reversing the members reverses who decides (ids would sort t.dcp first)."""
    book = _book(first_match("t.g", pooling, dcp, title="reversed"))
    r = book.resolve_changes({"dcp": 2, "pooling": True})
    assert [e.rule for e in r.trace.fired] == ["t.pooling"]
    assert book.order["core"] == ("t.pooling", "t.dcp")


def test_the_gate_is_tested_once_before_the_members() -> None:
    """An all_of gate reads hma; the first member turns hma on; the later members still decide (vLLM's block)."""
    off_conn = make_rule(lambda c: Outcome({"hma": True}, message="connector") if c["connector"] else None,
                         "t.off-connector", title="off: connector", phase="core", kind="override",
                         reads=("connector",), writes=("hma",))
    off_events = make_rule(lambda c: Outcome({"hma": True}, message="events") if c["events"] else None,
                           "t.off-events", title="off: events", phase="core", kind="override",
                           reads=("events",), writes=("hma",))
    gate = all_of("t.hma", off_conn, off_events, title="HMA off", when=lambda c: not c["hma"], reads=("hma",))
    r = _book(gate).resolve_changes({"connector": True, "events": True})
    assert [(e.rule, e.message) for e in r.trace.fired] == [("t.off-connector", "connector"), ("t.off-events", "events")]
    assert r.state["hma"] is True
    closed = _book(gate).resolve_changes({"connector": True, "hma": True})
    assert closed.trace.fired == ()


def test_all_of_refuses_a_member_reading_another_members_write() -> None:
    """all_of members decide on one state; one that needs another's write must be a sequence."""
    reader = make_rule(lambda c: None, "t.reader", title="reads mode", phase="core", kind="check", reads=("mode",))
    with pytest.raises(RuleDeclarationError, match=r"reads \['mode'\], which the earlier member 't.dcp' writes"):
        _book(all_of("t.bad", dcp, reader, title="bad"))
    assert _book(all_of("t.ok", reader, dcp, title="reader first: it sees the value before dcp")).groups


def test_a_violation_inside_a_group_stops_at_that_member() -> None:
    """A member raising ends the statement, as vLLM's exception does."""
    book = _book(first_match("t.g", refuse, dcp, title="refuse first"))
    r = book.resolve_changes({"dcp": 2, "pooling": True})
    assert not r.ok and r.violations[0].rule == "t.refuse"
    assert r.state["mode"] == "FULL"


def test_sequence_orders_as_declared_and_a_backward_read_is_no_cycle() -> None:
    """b reads what the later c writes: without the sequence that is a cycle; with it, the declared order."""
    b = make_rule(lambda c: {"log": 1} if c["eager"] else None, "t.b", title="b", phase="core", kind="derive",
                  reads=("eager",), writes=("log",))
    c_ = make_rule(lambda c: {"eager": True} if c["log"] == 0 else None, "t.a", title="a", phase="core",
                   kind="override", reads=("log",), writes=("eager",))
    with pytest.raises(CycleError):
        _book(b, c_)
    book = _book(sequence("t.seq", b, c_, title="b then a"))
    assert book.order["core"] == ("t.b", "t.a")
    assert book.graph.edges["t.a", "t.b"]["kind"] == "feedback"
    assert book.graph.edges["t.b", "t.a"]["kind"] in ("sequence", "data")


def test_group_declarations_are_checked() -> None:
    """Unknown members (with a suggestion), a rule in two groups, groups across phases."""
    with pytest.raises(RuleDeclarationError, match=r"names unknown rule 't.dcpp'\. Did you mean 't.dcp'"):
        _book(dcp, pooling, first_match("t.g", "t.dcpp", "t.pooling", title="typo"))
    with pytest.raises(RuleDeclarationError, match="member of two groups"):
        _book(MODES, first_match("t.other", dcp, refuse, title="again"))
    late = make_rule(lambda c: None, "t.late", title="late", phase="late", kind="check", reads=("dcp",))
    with pytest.raises(RuleDeclarationError, match="spans phases"):
        Rulebook([first_match("t.g", dcp, late, title="x")], paths=PATHS, phases=("core", "late"))
    with pytest.raises(RuleDeclarationError, match="needs two members"):
        first_match("t.g", dcp, title="one")


@pytest.mark.parametrize("semantics", ["ordered", "consistent"])
@pytest.mark.parametrize("trace", ["minimal", "full", "debug"])
def test_every_run_loop_gives_the_group_answer(semantics: Any, trace: Any) -> None:
    """Compiled, interpreted, strict, debug and consistent runs all let only the first member decide."""
    for strict in (False, True):
        r = _book(MODES).resolve_changes({"dcp": 2, "pooling": True}, semantics=semantics, trace=trace,
                                         strict=strict)
        assert r.state["mode"] == "PIECEWISE"
        assert [e.rule for e in r.trace.fired] == ["t.dcp"]


def test_why_not_says_an_earlier_member_decided() -> None:
    """why-not of the second member: not tried, the first decided."""
    r = _book(MODES).resolve_changes({"dcp": 2, "pooling": True})
    w = r.why_not("mode", "PIECEWISE")
    detail = {c.rule: c.detail for c in w.candidates}
    assert detail["t.pooling"] == "not tried: t.dcp decided first (first_match group t.full-support)"
    gated = _book(MODES).resolve_changes({"mode": "NONE", "pooling": True}).why_not("mode", "PIECEWISE")
    assert {c.rule: c.detail for c in gated.candidates}["t.pooling"].startswith(
        "not tried: the gate of group t.full-support was false")


def test_select_runs_a_group_statement_whole_when_a_member_is_chosen() -> None:
    """resolve_flat(select=) keeps a first_match statement as one: choosing a member runs the chain."""
    book = _book(MODES, refuse)
    r = book.resolve_changes({"dcp": 2, "pooling": True}, select={"t.pooling"})
    assert r.state["mode"] == "PIECEWISE" and r.ok  # the chain ran (t.dcp decided); t.refuse did not
    assert book.resolve_changes({"dcp": 2, "pooling": True}, select={"t.refuse"}).violations[0].rule == "t.refuse"
