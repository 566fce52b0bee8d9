"""Rulebook compilation: order from the graph, phases, and the static checks."""

from __future__ import annotations

import random

import pytest

from postinit.engine import Rulebook
from postinit.errors import (
    CycleError,
    RuleDeclarationError,
    RuleError,
    UnknownPathError,
    UnorderedWritersError,
)
from tests.engine._synth import PATHS, PHASES, book, mk, setter, state


def _chain_rules() -> list:
    # z.first writes a, m.second reads a writes b, a.third reads b writes c: ids sort against data order
    return [
        mk("z.first", setter("a", 1), reads="fact.cap", writes="a"),
        mk("m.second", lambda c: {"b": c["a"] + 1}, reads="a", writes="b"),
        mk("a.third", lambda c: {"c": c["b"] + 1}, reads="b", writes="c"),
        mk("b.free", setter("d", 7), reads="fact.kind", writes="d"),
        mk("c.free", setter("mode", "x"), reads="fact.kind", writes="mode"),
    ]


@pytest.mark.parametrize("seed", range(6))
def test_order_independent_of_registration(seed: int) -> None:
    """Shuffling the registration order yields the same phase order and the same result."""
    rules = _chain_rules()
    ref = book(*rules)
    random.Random(seed).shuffle(rules)
    other = book(*rules)
    assert other.order == ref.order
    assert other.order["p1"] == ("b.free", "c.free", "z.first", "m.second", "a.third")
    assert other.resolve(state()).state == ref.resolve(state()).state
    assert other.resolve(state()).trace.to_dict() == ref.resolve(state()).trace.to_dict()


def test_ties_broken_by_rule_id() -> None:
    """Rules with no edges between them run in rule-id order."""
    ids = ["q.one", "a.two", "k.three", "b.four"]
    b = book(*[mk(i, lambda c: None, reads="a", kind="check") for i in ids])
    assert b.order["p1"] == tuple(sorted(ids))


def test_ties_broken_by_rank_before_id() -> None:
    """Rules the data leaves unordered run by rank first (the modelled system's statement order), then by id."""
    import dataclasses

    ranked = {"q.one": 2, "a.two": 3, "k.three": 1, "b.four": 2}
    rules = [dataclasses.replace(mk(i, lambda c: None, reads="a", kind="check"), rank=r) for i, r in ranked.items()]
    assert book(*rules).order["p1"] == ("k.three", "b.four", "q.one", "a.two")


def test_rank_never_breaks_a_data_edge() -> None:
    """A reader of a lower rank still runs after the writer it depends on."""
    import dataclasses

    writer = dataclasses.replace(mk("a.write", setter("a", 1), reads="fact.cap", writes="a"), rank=9)
    reader = dataclasses.replace(mk("z.read", lambda c: None, reads="a", kind="check"), rank=1)
    assert book(writer, reader).order["p1"] == ("a.write", "z.read")


def test_rank_is_part_of_the_order_cache_key() -> None:
    """Two rulebooks that differ only in a rule's rank have different cached-order keys."""
    import dataclasses

    base = mk("q.one", lambda c: None, reads="a", kind="check")
    assert book(base).order_key() != book(dataclasses.replace(base, rank=5)).order_key()


def test_graph_edges_writer_to_reader_with_paths() -> None:
    """The graph has an edge from each writer to each reader, labelled with the paths."""
    b = book(*_chain_rules())
    assert b.graph.edges["z.first", "m.second"]["paths"] == {"a"}
    assert b.graph.edges["m.second", "a.third"]["paths"] == {"b"}
    assert not b.graph.has_edge("a.third", "m.second")


def test_phases_run_in_order_and_never_rerun() -> None:
    """A later phase's write does not re-run the earlier phase's reader."""
    calls: list[str] = []

    def early(c):  # reads a (written in p2)
        calls.append("early")
        return {"b": c["a"] * 10}

    def late(c):
        calls.append("late")
        return {"a": 5}

    b = book(
        mk("x.early", early, reads="a", writes="b", phase="p1"),
        mk("a.late", late, reads="fact.cap", writes="a", phase="p2"),
    )
    res = b.resolve(state(a=1))
    assert calls == ["early", "late"]
    assert [e.phase for e in res.trace.fired] == ["p1", "p2"]
    assert res.state["a"] == 5 and res.state["b"] == 10


def test_same_phase_fixed_point_reruns_reader() -> None:
    """Within a phase, a declared-feedback reader is scheduled again when its read changes."""
    b = book(
        mk("a.reader", lambda c: {"b": c["a"] + 1}, reads="a", writes="b", feedback="z.writer"),
        mk("z.writer", setter("a", 3, lambda c: c["fact.cap"] > 0), reads="fact.cap", writes="a"),
    )
    res = b.resolve(state())
    assert [e.rule for e in res.trace.fired] == ["a.reader", "z.writer", "a.reader"]
    assert res.state["b"] == 4


# -- static checks -------------------------------------------------------------------------


def test_unknown_path_with_did_you_mean() -> None:
    """A read of an unknown path names the rule, the path and the closest existing path."""
    with pytest.raises(UnknownPathError) as e:
        book(mk("r.bad", setter("a", 1), reads="cache.block_sise", writes="a"))
    assert e.value.rule == "r.bad" and e.value.path == "cache.block_sise"
    assert "unknown path 'cache.block_sise'" in str(e.value)
    assert "Did you mean 'cache.block_size'?" in str(e.value)


def test_unknown_write_path() -> None:
    """A write of an unknown path is refused the same way."""
    with pytest.raises(UnknownPathError, match=r"writes unknown path 'modee'.*Did you mean 'mode'"):
        book(mk("r.bad", setter("modee", 1), reads="a", writes="modee"))


def test_two_unordered_writers() -> None:
    """Two writers of one path in a phase with nothing ordering them are refused, naming both."""
    with pytest.raises(UnorderedWritersError) as e:
        book(
            mk("r.one", setter("a", 1), reads="fact.cap", writes="a"),
            mk("r.two", setter("a", 2), reads="fact.kind", writes="a"),
        )
    msg = str(e.value)
    assert "r.one" in msg and "r.two" in msg and "'a'" in msg and "after=('r.one',)" in msg
    assert e.value.path == "a"


def test_writers_ordered_by_after_are_accepted() -> None:
    """``after`` orders two writers of a path, and the later one wins."""
    b = book(
        mk("r.one", setter("a", 1), reads="fact.cap", writes="a", after="r.two"),
        mk("r.two", setter("a", 2), reads="fact.kind", writes="a"),
    )
    assert b.order["p1"] == ("r.two", "r.one")
    assert b.resolve(state()).state["a"] == 1


def test_writers_in_different_phases_need_no_order() -> None:
    """Two writers of one path in different phases are ordered by the phases."""
    b = book(
        mk("r.one", setter("a", 1), reads="fact.cap", writes="a", phase="p2"),
        mk("r.two", setter("a", 2), reads="fact.kind", writes="a", phase="p1"),
    )
    assert b.resolve(state()).state["a"] == 1


def test_undeclared_cycle_printed() -> None:
    """An undeclared cycle is refused and printed as ``a -> b -> a``."""
    with pytest.raises(CycleError) as e:
        book(
            mk("a", lambda c: {"b": c["a"]}, reads="a", writes="b"),
            mk("b", lambda c: {"a": c["b"]}, reads="b", writes="a"),
        )
    msg = str(e.value)
    assert "a -> b -> a" in msg
    assert "feedback=" in msg


def test_three_cycle_printed() -> None:
    """A longer cycle lists every rule on it and closes the loop."""
    with pytest.raises(CycleError, match=r"a -> b -> c -> a"):
        book(
            mk("a", lambda c: None, reads="c", writes="a"),
            mk("b", lambda c: None, reads="a", writes="b"),
            mk("c", lambda c: None, reads="b", writes="c"),
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reads": ()}, "reads nothing"),
        ({"reads": "a", "writes": "b", "kind": "check"}, "is a check but declares writes"),
        ({"reads": "a", "kind": "derive"}, "writes nothing; make it a check"),
        ({"reads": "a", "writes": "b", "kind": "frobnicate"}, "kinds: default, derive"),
        ({"reads": ("a", "a"), "writes": "b"}, "lists a path twice"),
    ],
)
def test_malformed_headers(kwargs: dict, match: str) -> None:
    """A malformed rule header is refused when the rule is declared."""
    with pytest.raises(RuleDeclarationError, match=match):
        mk("r.bad", lambda c: None, **kwargs)


def test_bad_rule_id() -> None:
    """A rule id that is not lower-case dotted is refused."""
    with pytest.raises(RuleDeclarationError, match="must match"):
        mk("Bad Id", lambda c: None, reads="a", kind="check")


def test_unknown_phase() -> None:
    """A rule in a phase the rulebook does not have is refused, listing the phases."""
    with pytest.raises(RuleDeclarationError, match=r"unknown phase 'p9'; phases: p1, p2, p3"):
        book(mk("r.x", lambda c: None, reads="a", kind="check", phase="p9"))


def test_duplicate_id() -> None:
    """Two different rules with one id are refused."""
    with pytest.raises(RuleDeclarationError, match="declared twice"):
        book(mk("r.x", lambda c: None, reads="a", kind="check"), mk("r.x", lambda c: None, reads="b", kind="check"))


def test_same_rule_twice_is_one_rule() -> None:
    """Registering the very same rule object twice keeps one rule."""
    r = mk("r.x", lambda c: None, reads="a", kind="check")
    assert len(book(r, r)) == 1


@pytest.mark.parametrize("what", ["after", "feedback"])
def test_after_names_unknown_rule(what: str) -> None:
    """``after`` or ``feedback`` naming a rule that does not exist is refused, naming it."""
    with pytest.raises(RuleDeclarationError, match=rf"{what} names unknown rule 'r.ghost'") as e:
        book(mk("r.x", setter("a", 1), reads="b", writes="a", **{what: "r.ghost"}))
    assert e.value.value == "r.ghost"


def test_after_across_phases_refused() -> None:
    """``after`` naming a rule of another phase is refused: phases already order rules."""
    with pytest.raises(RuleDeclarationError, match="phases already order rules"):
        book(
            mk("r.x", setter("a", 1), reads="b", writes="a", after="r.y"),
            mk("r.y", setter("a", 2), reads="b", writes="a", phase="p2"),
        )


def test_repeated_phases_refused() -> None:
    """A rulebook whose phases repeat is refused."""
    with pytest.raises(RuleDeclarationError, match="phases repeat"):
        book(phases=("p1", "p1"))


def test_non_rule_refused() -> None:
    """An undecorated function is refused with a hint to decorate it."""
    with pytest.raises(RuleDeclarationError, match="is not a rule"):
        Rulebook([lambda c: None], paths=PATHS, phases=PHASES)


def test_all_static_errors_are_rule_errors() -> None:
    """Every compile-time error is a RuleError, so callers can catch the family."""
    for cls in (CycleError, UnknownPathError, UnorderedWritersError, RuleDeclarationError):
        assert issubclass(cls, RuleError)


def test_with_rules_and_without() -> None:
    """``with_rules`` adds (or replaces) rules and ``without`` drops them and their ``after`` references."""
    one = mk("r.one", setter("a", 1), reads="fact.cap", writes="a")
    two = mk("r.two", setter("a", 2), reads="fact.kind", writes="a", after="r.one")
    base = book(one)
    both = base.with_rules(two)
    assert list(both.rules) == ["r.one", "r.two"] and len(base) == 1
    assert both.resolve(state()).state["a"] == 2
    with pytest.raises(RuleDeclarationError, match="already in"):
        both.with_rules(one)
    replaced = both.with_rules(mk("r.two", setter("a", 3), reads="fact.kind", writes="a", after="r.one"), replace=True)
    assert replaced.resolve(state()).state["a"] == 3
    only_two = both.without("r.one")
    assert list(only_two.rules) == ["r.two"] and only_two["r.two"].after == ()
    assert "r.one" not in only_two
    with pytest.raises(RuleDeclarationError, match="no rules"):
        both.without("r.ghost")


def test_collect_from_module() -> None:
    """``Rulebook.collect`` gathers the functions marked with ``@rule`` in a module."""
    import types

    from postinit.engine import rule

    mod = types.ModuleType("fake_rules")

    @rule("m.fill", title="fill", phase="p1", kind="default", reads="a", writes="b")
    def fill(c):
        """Fill b from a."""
        return {"b": c["a"]}

    mod.fill = fill  # type: ignore[attr-defined]
    mod.other = 3  # type: ignore[attr-defined]
    b = Rulebook.collect(mod, paths=PATHS, phases=PHASES)
    assert list(b.rules) == ["m.fill"]
    assert b["m.fill"].reason == "Fill b from a."
    assert b.resolve(state(a=4)).state["b"] == 4


def test_rule_location_is_file_and_line() -> None:
    """A rule's location is its function's file and first line, quoted in compile errors."""

    def fn(c):
        return None

    r = mk("r.loc", fn, reads="a", kind="check")
    assert r.location == f"{__file__}:{fn.__code__.co_firstlineno}"
    with pytest.raises(RuleDeclarationError, match=rf"r.loc \({r.location}\)"):
        book(r, phases=("p2",))
