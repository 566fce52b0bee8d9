"""Explanations: ``why`` trees, ``why_not`` candidates, and the trace's JSON form."""

from __future__ import annotations

import io
import json
import re

import pytest

from postinit.engine import TRACE_VERSION, Source, Violation
from postinit.engine._explain import why
from postinit.errors import InvalidValueError
from tests.engine._synth import book, mk, setter, state, user


def _chain():
    # user a -> r1 writes b -> r2 writes c (reading b and fact.cap) -> r3 writes d; r0 sets b first
    return book(
        mk("r.b0", setter("b", 50), reads="fact.kind", writes="b"),
        mk("r.b1", lambda c: {"b": c["a"] + 1}, reads="a", writes="b", after="r.b0", message="b from a"),
        mk("r.c", lambda c: {"c": c["b"] * c["fact.cap"]}, reads=("b", "fact.cap"), writes="c"),
        mk("r.d", lambda c: {"d": c["c"] + 1}, reads="c", writes="d", message="d from c"),
    )


def test_why_three_levels_back_to_inputs() -> None:
    """``why`` walks a three-rule chain back to the user input; an untouched default folds into ``defaults``."""
    res = _chain().resolve(state(a=2), user("a"))
    node = res.why("d")
    assert (node.path, node.value, node.rule, node.message, node.phase, node.title) == (
        "d", 241, "r.d", "d from c", "p1", "r.d")
    (c_node,) = node.children
    assert (c_node.path, c_node.value, c_node.rule) == ("c", 240, "r.c")
    (b_node,) = c_node.children
    (cap_node,) = c_node.defaults
    assert (b_node.path, b_node.value, b_node.rule) == ("b", 3, "r.b1")
    assert [(s.value, s.provenance.source, s.provenance.rule) for s in b_node.history] == [
        (0, Source.DEFAULT, None), (50, Source.RULE, "r.b0"),
    ]
    assert (cap_node.path, cap_node.value, cap_node.provenance.source, cap_node.children) == ("fact.cap", 80, Source.DEFAULT, ())
    (a_node,) = b_node.children
    assert (a_node.path, a_node.value, a_node.provenance.source) == ("a", 2, Source.USER)
    assert {n.path for n in node.leaves()} == {"a", "fact.cap"}
    d = node.to_dict()
    assert d["because"][0]["because"][0]["history"][1] == {"value": 50, "source": "rule", "rule": "r.b0", "event": 0}
    assert d["because"][0]["defaults"] == [{"path": "fact.cap", "value": 80, "source": "default"}]
    json.dumps(d)


def test_why_verbose_keeps_every_consulted_value_as_a_child() -> None:
    """``verbose=True`` lists defaults as children in the order the rule consulted them, and nothing folds."""
    res = _chain().resolve(state(a=2), user("a"))
    node = why(res, "d", verbose=True)
    (c_node,) = node.children
    assert [k.path for k in c_node.children] == ["b", "fact.cap"] and c_node.defaults == ()
    assert node.verbose and "fact.cap = 80" in str(node)


def test_why_shows_only_the_reads_the_rule_consulted() -> None:
    """A short-circuited ``or`` stops at the value that decided: the other declared reads are not in the tree."""
    b = book(mk("r.x", lambda c: {"d": 1} if c["a"] > 0 or c["b"] > 0 or c["c"] > 0 else None,
                reads=("a", "b", "c"), writes="d"))
    node = b.resolve(state(a=5, b=7), user("a", "b")).why("d")
    assert [k.path for k in node.children] == ["a"] and node.defaults == ()
    full = b.resolve(state(a=0, b=7), user("a", "b")).why("d")
    assert [k.path for k in full.children] == ["a", "b"]


def test_why_references_a_firing_already_shown() -> None:
    """A value explained once (the same firing) is referenced where it appears again, not repeated."""
    b = book(
        mk("r.b", lambda c: {"b": c["a"] * 2}, reads="a", writes="b"),
        mk("r.c", lambda c: {"c": c["b"] + 1}, reads="b", writes="c"),
        mk("r.d", lambda c: {"d": c["b"] + c["c"]}, reads=("b", "c"), writes="d"),
    )
    node = b.resolve(state(a=3), user("a")).why("d")
    first, second = node.children
    assert (first.path, first.ref, [k.path for k in first.children]) == ("b", False, ["a"])
    (again,) = second.children
    assert (again.path, again.ref, again.children) == ("b", True, ())
    assert again.to_dict()["shown_above"] is True
    assert "b = 6  ← rule r.b (shown above)" in str(node)


def test_why_depth_cuts_the_tree() -> None:
    """``depth=1`` keeps the root's reads and marks the rule-set ones below as truncated."""
    res = _chain().resolve(state(a=2), user("a"))
    node = why(res, "d", depth=1)
    (c_node,) = node.children
    assert c_node.truncated and c_node.children == ()
    assert why(res, "d", depth=0).truncated
    with pytest.raises(InvalidValueError, match="depth"):
        why(res, "d", depth=-1)


def test_why_text_is_one_renderer_for_str_rich_and_html() -> None:
    """``str`` is the plain tree, ``__rich__`` the same with colour, ``_repr_html_`` a ``<pre>``; ``repr`` is one line."""
    from rich.console import Console

    node = _chain().resolve(state(a=2), user("a")).why("d")
    text = str(node)
    assert text.splitlines()[0] == "d = 241 — r.d"
    assert "rule r.d (p1)" in text and "a = 2  ← your --a" in text
    console = Console(width=120, record=True, color_system=None, file=io.StringIO())
    console.print(node)
    assert "\n".join(line.rstrip() for line in console.export_text().splitlines()) == text
    page = node._repr_html_()
    assert page.startswith("<pre") and re.sub(r"<[^>]+>", "", page).splitlines()[0] == "d = 241 — r.d"
    assert "\n" not in repr(node) and repr(node).startswith("<WhyNode d = 241")


def test_why_of_untouched_input() -> None:
    """``why`` of a value no rule touched is a leaf naming its provenance."""
    res = _chain().resolve(state(a=2), user("a"))
    node = res.why("a")
    assert (node.value, node.provenance.source, node.children, node.history) == (2, Source.USER, (), ())


def test_why_unknown_path() -> None:
    """``why`` of an unknown path raises with a suggestion."""
    from postinit.errors import UnknownFieldError

    with pytest.raises(UnknownFieldError, match="Did you mean 'mode'"):
        _chain().resolve(state()).why("mod")


def _candidates():
    # four writers of mode in p1 (ordered), one in p2 behind a violation
    return book(
        mk("w.a-auto", setter("mode", "eager", lambda c: c["a"] > 0), reads="a", writes="mode"),
        mk("w.b-fast", setter("mode", "fast"), reads="b", writes="mode", after="w.a-auto"),
        mk("w.c-never", setter("mode", "eager", lambda c: c["c"] > 5), reads="c", writes="mode", after="w.b-fast"),
        mk("w.d-other", setter("mode", "slow"), reads="d", writes="mode", after="w.c-never"),
        mk("w.stop", lambda c: Violation("stop") if c["fact.cap"] < 10 else None, reads="fact.cap", phase="p2"),
        mk("w.late", setter("mode", "eager"), reads="a", writes="mode", phase="p3"),
    )


def test_why_not_names_each_candidate_status() -> None:
    """``why_not`` classifies every writer: overridden, other-value, not-fired with its reads, not-reached."""
    res = _candidates().resolve(state(a=1, c=2, fact__cap=5))
    wn = res.why_not("mode", "eager")
    assert (wn.final, wn.holds, wn.input_value) == ("slow", False, "auto")
    status = {c.rule: c for c in wn.candidates}
    assert {r: c.status for r, c in status.items()} == {
        "w.a-auto": "overridden", "w.b-fast": "other-value", "w.c-never": "not-fired",
        "w.d-other": "other-value", "w.late": "not-reached",
    }
    assert status["w.a-auto"].by == "w.d-other"
    assert status["w.c-never"].reads == {"c": 2}
    cond = status["w.c-never"].condition
    assert cond is not None and (cond.path, cond.value, cond.provenance.source) == ("c", 2, Source.DEFAULT)
    assert "stopped at c = 2 ← default" in status["w.c-never"].detail
    assert status["w.c-never"].to_dict()["condition"] == {"path": "c", "value": 2, "source": "default"}
    assert "violation" in status["w.late"].detail
    json.dumps(wn.to_dict())


def test_why_not_names_the_value_its_condition_stopped_at() -> None:
    """A guard ``a > 0 and b > 0 and c > 0`` that fails at ``b`` names ``b``, its value and the user flag it came from."""
    b = book(
        mk("w.set-b", lambda c: {"b": 0}, reads="d", writes="b"),
        mk("w.guard", setter("mode", "fast", lambda c: c["a"] > 0 and c["b"] > 0 and c["c"] > 0),
           reads=("a", "b", "c"), writes="mode"),
    )
    res = b.resolve(state(a=1, b=4, c=9), user("a", "b", "c"))
    (cand,) = res.why_not("mode", "fast").candidates
    assert cand.status == "not-fired" and list(cand.reads) == ["a", "b"]
    assert cand.condition is not None
    assert (cand.condition.path, cand.condition.value, cand.condition.provenance.rule) == ("b", 0, "w.set-b")
    assert cand.detail == "stopped at b = 0 ← rule w.set-b"
    text = str(res.why_not("mode", "fast"))
    assert "mode is auto, not fast." in text and "w.guard (p1): stopped at b = 0 ← rule w.set-b" in text
    assert repr(res.why_not("mode", "fast")) == "<WhyNot mode = fast: is auto · 1 candidate rules>"


def test_why_not_produced_and_holds() -> None:
    """When the value holds, the rule that set it is ``produced``."""
    res = _candidates().resolve(state(a=1, c=2, fact__cap=50))
    wn = res.why_not("mode", "eager")
    assert wn.holds and {c.rule: c.status for c in wn.candidates}["w.late"] == "produced"


def test_trace_json_round_trip() -> None:
    """The trace serialises to JSON with a version and reads back equal."""
    res = _candidates().resolve(state(a=1, fact__cap=5), user("a"))
    d = res.trace.to_dict()
    assert d["version"] == TRACE_VERSION and d["level"] == "full"
    back = json.loads(json.dumps(d))
    assert back == d
    types = [e["type"] for e in back["events"]]
    assert types == ["fired", "fired", "fired", "violation"]
    assert back["events"][0]["changes"] == [{"path": "mode", "old": "auto", "new": "eager", "old_source": "default"}]
    assert back["events"][0]["reads"] == {"a": 1}


@pytest.mark.parametrize(
    ("level", "has_reads", "has_evaluated"),
    [("minimal", False, False), ("full", True, False), ("debug", True, True)],
)
def test_trace_levels(level: str, has_reads: bool, has_evaluated: bool) -> None:
    """The trace level decides whether reads and non-firing evaluations are recorded."""
    res = _candidates().resolve(state(a=1, c=2), trace=level)
    types = {e["type"] for e in res.trace.to_dict()["events"]}
    assert ("evaluated" in types) is has_evaluated
    assert (res.trace.fired[0].reads is not None) is has_reads
    assert res.state["mode"] == "eager"
