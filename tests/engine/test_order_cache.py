"""The on-disk cache of compiled phase orders (``Rulebook(cache=True)``).

A cache can only ever save the networkx compile: it never changes an order, never
hides a static-check error, and a missing, stale, damaged or unwritable cache just
means compiling again.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from postinit.engine import PathSpace, Rule, Rulebook
from postinit.engine._rulebook import order_cache_dir
from postinit.errors import CycleError, UnknownPathError, UnorderedWritersError
from tests.engine._synth import PATHS, PHASES, Cfg, Facts, mk, setter

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def _rules() -> list[Rule]:
    # a data chain against id order, an `after` pair of co-writers, a second phase, and a declared
    # feedback loop in the third (the feedback edge is not an ordering edge)
    return [
        mk("z.first", setter("a", 1), reads="fact.cap", writes="a"),
        mk("m.second", lambda c: {"b": c["a"] + 1}, reads="a", writes="b"),
        mk("a.third", lambda c: {"c": c["b"] + 1}, reads="b", writes="c"),
        mk("b.free", setter("d", 7), reads="fact.kind", writes="d"),
        mk("k.late", setter("d", 8), reads="fact.kind", writes="d", after="b.free"),
        mk("q.two", setter("mode", "x"), reads="a", writes="mode", phase="p2"),
        mk("f.one", lambda c: None, reads="cache.block_size", writes="opts", phase="p3", feedback="f.two"),
        mk("f.two", lambda c: None, reads="opts", writes="cache.block_size", phase="p3"),
    ]


def _book(rules: list[Rule], *, cache: bool = True, name: str = "cached") -> Rulebook:
    return Rulebook(rules, paths=PATHS, phases=PHASES, name=name, cache=cache)


def _file(name: str = "cached") -> Path:
    return order_cache_dir() / f"orders-{name}.json"


def test_cache_dir_follows_xdg(cache_home: Path) -> None:
    assert order_cache_dir() == cache_home / "postinit"


def test_second_compile_reads_the_cache_and_gets_the_same_order() -> None:
    fresh = _book(_rules(), cache=False)
    first = _book(_rules())
    assert not first.order_cached and _file().is_file()
    second = _book(_rules()[::-1])  # registration order is not part of the key
    assert second.order_cached
    assert first.order == second.order == fresh.order
    assert second.order["p1"] == ("b.free", "k.late", "z.first", "m.second", "a.third")
    assert second.order["p3"] == ("f.one", "f.two")
    # the graph is still there, built on demand
    assert second.graph.edges["z.first", "m.second"]["paths"] == {"a"}
    assert [c.rule.id for c in second.global_order] == [c.rule.id for c in fresh.global_order]


def test_without_cache_nothing_is_written(cache_home: Path) -> None:
    _book(_rules(), cache=False)
    assert not cache_home.exists()


@pytest.mark.parametrize("change", ["reads", "writes", "after", "feedback", "phase", "removed", "added"])
def test_a_changed_header_changes_the_key_and_the_stale_order_is_not_used(change: str) -> None:
    """Each change below changes the order: the cached (stale) order must not survive it."""
    _book(_rules())
    rules = _rules()
    if change == "reads":  # b.free now also reads c: it moves after a.third
        rules[3] = mk("b.free", setter("d", 7), reads=("fact.kind", "c"), writes="d")
    elif change == "writes":  # b.free also writes a, ordered after z.first: it moves after z.first
        rules[3] = mk("b.free", lambda c: {"a": 2, "d": 7}, reads="fact.kind", writes=("a", "d"), after="z.first")
    elif change == "after":  # b.free must run after a.third
        rules[3] = mk("b.free", setter("d", 7), reads="fact.kind", writes="d", after="a.third")
    elif change == "feedback":  # the other rule of the loop declares the feedback: the loop turns round
        rules[6] = mk("f.one", lambda c: None, reads="cache.block_size", writes="opts", phase="p3")
        rules[7] = mk("f.two", lambda c: None, reads="opts", writes="cache.block_size", phase="p3",
                      feedback="f.one")
    elif change == "phase":
        rules[5] = mk("q.two", setter("mode", "x"), reads="a", writes="mode", phase="p1")
    elif change == "removed":
        del rules[1]
    else:
        rules.append(mk("a.zero", setter("sizes", [0]), reads="fact.cap", writes="sizes", phase="p2"))
    before = json.loads(_file().read_text())["key"]
    changed = _book(rules)
    assert not changed.order_cached
    assert changed.order == _book(rules, cache=False).order
    assert changed.order != _book(_rules(), cache=False).order
    assert json.loads(_file().read_text())["key"] != before
    assert _book(rules).order_cached and _book(rules).order == changed.order


def test_other_phases_or_paths_change_the_key() -> None:
    book = _book(_rules())
    other_phases = Rulebook(_rules(), paths=PATHS, phases=(*PHASES, "p4"), name="cached")
    assert other_phases.order_key() != book.order_key()

    class More(Facts):
        extra_fact: int = 0

    other_paths = Rulebook(_rules(), paths=PathSpace.from_model(Cfg, mounts={"fact": More}),
                           phases=PHASES, name="cached")
    assert other_paths.order_key() != book.order_key()


def _tamper(fn: Callable[[dict[str, Any]], object]) -> None:
    data = json.loads(_file().read_text())
    fn(data)
    _file().write_text(json.dumps(data))


@pytest.mark.parametrize("damage", [
    "truncated", "not-json", "empty", "list", "swapped-order", "swapped-order-and-digest", "missing-rule",
    "unknown-rule", "phase-missing",
])
def test_a_damaged_cache_file_is_ignored_and_rewritten(damage: str) -> None:
    ref = _book(_rules())
    text = _file().read_text()

    def swap(d: dict) -> None:
        d["order"]["p1"][0], d["order"]["p1"][-1] = d["order"]["p1"][-1], d["order"]["p1"][0]

    if damage == "truncated":
        _file().write_text(text[: len(text) // 2])
    elif damage == "not-json":
        _file().write_bytes(b"\xff\xfe garbage")
    elif damage == "empty":
        _file().write_text("")
    elif damage == "list":
        _file().write_text("[]")
    elif damage == "swapped-order":  # a valid permutation under the right key: the digest catches it
        _tamper(swap)
    elif damage == "swapped-order-and-digest":
        def both(d: dict) -> None:
            swap(d)
            d["digest"] = "0" * 64
        _tamper(both)
    elif damage == "missing-rule":
        _tamper(lambda d: d["order"]["p1"].pop())
    elif damage == "unknown-rule":
        _tamper(lambda d: d["order"]["p1"].append("x.ghost"))
    else:
        _tamper(lambda d: d["order"].pop("p2"))
    again = _book(_rules())
    assert not again.order_cached
    assert again.order == ref.order
    assert _book(_rules()).order_cached  # rewritten


def test_unwritable_cache_dir_just_compiles(cache_home: Path) -> None:
    cache_home.parent.mkdir(parents=True, exist_ok=True)
    cache_home.write_text("a file where the cache directory should be")
    book = _book(_rules())
    assert not book.order_cached and book.order == _book(_rules(), cache=False).order
    assert not _book(_rules()).order_cached


def test_static_check_errors_are_the_same_with_a_cache_and_never_cached() -> None:
    cycle = [
        mk("a", lambda c: {"b": c["a"]}, reads="a", writes="b"),
        mk("b", lambda c: {"a": c["b"]}, reads="b", writes="a"),
    ]
    unordered = [
        mk("r.one", setter("a", 1), reads="fact.cap", writes="a"),
        mk("r.two", setter("a", 2), reads="fact.kind", writes="a"),
    ]
    unknown = [mk("r.bad", setter("a", 1), reads="cache.block_sise", writes="a")]
    for rules, error in ((cycle, CycleError), (unordered, UnorderedWritersError), (unknown, UnknownPathError)):
        with pytest.raises(error) as plain:
            _book(rules, cache=False)
        for _ in range(2):  # the second time would read a cache, if a failed compile had written one
            with pytest.raises(error) as cached:
                _book(rules)
            assert str(cached.value) == str(plain.value)
        assert not _file().exists()
    with pytest.raises(CycleError, match=r"a -> b -> a"):
        _book(cycle)


def test_a_cached_vllm_resolve_does_not_import_networkx(tmp_path: Path) -> None:
    """The whole point: with a warm cache, ``postinit resolve`` runs without networkx (or rich, yaml)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(ROOT)}
    code = (
        "import sys\n"
        "from postinit.cli import main\n"
        "sys.argv = ['postinit', 'resolve', '--format', 'json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import postinit\n"
        "print(postinit.rulebook().order_cached, sorted(m for m in ('networkx', 'rich', 'yaml', 'torch')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                           check=True) for _ in range(2)]
    # with the `hash` extra the first (cold) run's exact hash imports transformers, which imports yaml;
    # its HF config JSON is cached beside the phase orders, so the warm run imports neither
    cold = ["networkx", *(["yaml"] if importlib.util.find_spec("transformers") else [])]
    assert runs[0].stderr.strip().splitlines()[-1] == f"False {cold}"
    assert runs[1].stderr.strip().splitlines()[-1] == "True []"
    assert json.loads(runs[0].stdout) == json.loads(runs[1].stdout)


def test_import_postinit_stays_light() -> None:
    code = "import sys, postinit; print(sorted(m for m in ('networkx', 'rich', 'yaml', 'typer', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"
