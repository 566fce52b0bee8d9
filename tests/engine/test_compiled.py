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


# --------------------------------------------------------------------------- random rulebooks with cycles

from collections.abc import Mapping  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from postinit.engine import Outcome, Rulebook, Violation, make_rule, replay  # noqa: E402
from postinit.engine.testing import synthetic_paths  # noqa: E402
from postinit.errors import NoFixedPoint  # noqa: E402

N_PATHS = 6


def _body(reads: tuple[str, ...], writes: tuple[str, ...], threshold: int, mode: int, k: int) -> Any:
    def fn(c: Mapping[str, Any]) -> Any:
        first = c[reads[0]]
        if first <= threshold:
            return None
        total = sum(c[p] for p in reads)
        if mode == 0:
            return {w: (total + k + i) % 5 for i, w in enumerate(writes)}
        if mode == 1:
            return Outcome({w: k for w in writes}, message=f"set to {k} at {total}", level="warning")
        if mode == 2:
            return Outcome(message=f"saw {total}")
        if mode == 3:
            return Violation(f"total {total}", error="AssertionError") if total == k + 4 else None
        return {writes[0]: min(total, 4)}

    return fn


@st.composite
def looping_rulebooks(draw: st.DrawFn) -> Rulebook:
    """Rulebooks whose rules may read what later rules write (declared feedback): re-queues, oscillations."""
    names = [f"x{i}" for i in range(N_PATHS)]
    n = draw(st.integers(1, 9))
    specs = []
    for i in range(n):
        specs.append({
            "id": f"r.{i}", "phase": draw(st.sampled_from(["p1", "p2"])),
            "reads": tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))),
            "writes": tuple(draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))),
            "threshold": draw(st.integers(-1, 3)), "mode": draw(st.integers(0, 4)), "k": draw(st.integers(0, 4)),
        })
    rules = []
    for i, s in enumerate(specs):
        same_phase = [(j, o) for j, o in enumerate(specs) if o["phase"] == s["phase"]]
        after = sorted({o["id"] for j, o in same_phase if j < i and set(o["writes"]) & set(s["writes"])})
        feedback = sorted({o["id"] for j, o in same_phase if j > i and set(o["writes"]) & set(s["reads"])})
        kind = "check" if s["mode"] == 3 else "derive"
        rules.append(make_rule(
            _body(s["reads"], s["writes"], s["threshold"], s["mode"], s["k"]), s["id"], title=s["id"],
            phase=s["phase"], kind=kind, reads=s["reads"], writes=() if kind == "check" else s["writes"],
            after=after, feedback=feedback,
        ))
    return Rulebook(rules, paths=synthetic_paths(N_PATHS), phases=("p1", "p2"), name="looping")


def _outcome(book: Rulebook, state: dict[str, Any], **kw: Any) -> Any:
    try:
        r = book.resolve(dict(state), **kw)
    except NoFixedPoint as e:
        return ("no fixed point", str(e))
    return (r.state, r.trace.to_dict(), r.provenance, r.history)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=looping_rulebooks(), values=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       trace=st.sampled_from(["minimal", "full"]))
def test_compiled_matches_the_interpreter_on_random_rulebooks(book: Rulebook, values: list[int], trace: Any) -> None:
    """Random rulebooks with cycles, messages, violations and oscillations: the same answer or the same error."""
    state = {f"x{i}": v for i, v in enumerate(values)}
    assert _outcome(book, state, trace=trace) == _outcome(book, state, trace=trace, interpret=True)


# --------------------------------------------------------------------------- replaying a recorded schedule


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=looping_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3),
       trace=st.sampled_from(["minimal", "full"]))
def test_replaying_a_recording_gives_the_from_scratch_answer(
    book: Rulebook, base: list[int], changed: dict[int, int], trace: Any,
) -> None:
    """Following another state's recorded schedule: the same state, trace, provenance, history (or error)."""
    first = {f"x{i}": v for i, v in enumerate(base)}
    second = {**first, **{f"x{i}": v for i, v in changed.items()}}
    try:
        recorded = book.resolve(dict(first), trace=trace, record=True)
    except NoFixedPoint:
        return
    assert recorded.recording is not None
    try:
        replayed = replay(recorded, dict(second))
    except NoFixedPoint as e:
        assert _outcome(book, second, trace=trace) == ("no fixed point", str(e))
        return
    assert (replayed.state, replayed.trace.to_dict(), replayed.provenance, replayed.history) == \
        _outcome(book, second, trace=trace)


# --------------------------------------------------------------------------- group statements

from hypothesis import assume  # noqa: E402

from postinit.engine import all_of, first_match, sequence  # noqa: E402
from postinit.errors import PostinitError  # noqa: E402


@st.composite
def grouped_rulebooks(draw: st.DrawFn) -> Rulebook:
    """Random rulebooks with cycles whose rules are partly declared as first_match / all_of / sequence groups."""
    book = draw(looping_rulebooks())
    by_phase: dict[str, list[str]] = {}
    for r in book.rules.values():
        by_phase.setdefault(r.phase, []).append(r.id)
    phase = draw(st.sampled_from(sorted(by_phase)))
    ids = by_phase[phase]
    assume(len(ids) >= 2)
    members = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=len(ids), unique=True))
    kind = draw(st.sampled_from(["first_match", "all_of", "sequence"]))
    gate = draw(st.sampled_from([None, 0, 1, 2]))
    maker = {"first_match": first_match, "all_of": all_of, "sequence": sequence}[kind]
    kw: dict[str, Any] = {}
    if gate is not None and kind != "sequence":
        kw = {"when": lambda c, g=gate: c["x0"] <= g, "reads": ("x0",)}
    group = maker("g.grouped", *members, title="a random group", **kw)
    try:
        return Rulebook([*book.rules.values(), group], paths=book.paths, phases=book.phases, name="grouped")
    except PostinitError:
        assume(False)
        raise


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=grouped_rulebooks(), values=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       trace=st.sampled_from(["minimal", "full"]))
def test_compiled_matches_the_interpreter_with_groups(book: Rulebook, values: list[int], trace: Any) -> None:
    """Group statements: compiled, interpreted and interpreted member by member (strict) agree."""
    state = {f"x{i}": v for i, v in enumerate(values)}
    reference = _outcome(book, state, trace=trace, interpret=True)
    assert _outcome(book, state, trace=trace) == reference
    strict = _outcome(book, state, trace=trace, strict=True)
    assert strict == reference
    consistent = _outcome(book, state, trace=trace, semantics="consistent")  # runs (or reports its loop)
    assert consistent[0] == "no fixed point" or set(consistent[0]) == set(state)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=grouped_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3))
def test_replaying_with_groups_gives_the_from_scratch_answer(
    book: Rulebook, base: list[int], changed: dict[int, int],
) -> None:
    """A recorded schedule with group statements replays to the from-scratch answer."""
    first = {f"x{i}": v for i, v in enumerate(base)}
    second = {**first, **{f"x{i}": v for i, v in changed.items()}}
    try:
        recorded = book.resolve(dict(first), trace="full", record=True)
        replayed = replay(recorded, dict(second))
    except NoFixedPoint:
        return
    assert (replayed.state, replayed.trace.to_dict(), replayed.provenance, replayed.history) == \
        _outcome(book, second, trace="full")


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=grouped_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3),
       trace=st.sampled_from(["minimal", "full"]), told=st.booleans())
def test_replaying_with_the_changed_paths_named(
    book: Rulebook, base: list[int], changed: dict[int, int], trace: Any, told: bool,
) -> None:
    """Naming the paths that may differ (``changed=``, what the incremental front door does) or not: the same."""
    first = {f"x{i}": v for i, v in enumerate(base)}
    second = {**first, **{f"x{i}": v for i, v in changed.items()}}
    names = [f"x{i}" for i in changed] if told else None
    try:
        recorded = book.resolve(dict(first), trace=trace, record=True)
    except NoFixedPoint:
        return
    try:
        replayed = replay(recorded, dict(second), changed=names)
    except NoFixedPoint as e:
        assert _outcome(book, second, trace=trace) == ("no fixed point", str(e))
        return
    assert (replayed.state, replayed.trace.to_dict(), replayed.provenance, replayed.history) == \
        _outcome(book, second, trace=trace)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=grouped_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3),
       trace=st.sampled_from(["minimal", "full"]), told=st.booleans())
def test_replaying_updates_of_the_recorded_input(
    book: Rulebook, base: list[int], changed: dict[int, int], trace: Any, told: bool,
) -> None:
    """``replay(base, None, provenance, updates=...)`` (what the incremental front door gives: the base's input with
    some paths set, the input state copied by the replay, lazily when the recorded run holds whole): the same."""
    first = {f"x{i}": v for i, v in enumerate(base)}
    updates = {f"x{i}": v for i, v in changed.items()}
    second = {**first, **updates}
    try:
        recorded = book.resolve(dict(first), trace=trace, record=True)
    except NoFixedPoint:
        return
    try:
        replayed = replay(recorded, None, {}, changed=list(updates) if told else None, updates=updates)
    except NoFixedPoint as e:
        assert _outcome(book, second, trace=trace) == ("no fixed point", str(e))
        return
    assert (replayed.state, replayed.trace.to_dict(), replayed.provenance, replayed.history) == \
        _outcome(book, second, trace=trace)
    assert replayed.initial == second


@pytest.mark.deep
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=grouped_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3),
       trace=st.sampled_from(["minimal", "full"]), told=st.booleans())
def test_replaying_deep(book: Rulebook, base: list[int], changed: dict[int, int], trace: Any, told: bool) -> None:
    """The same over 10,000 random rulebooks with groups, cycles and stale reads (``pytest -m deep``)."""
    test_replaying_with_the_changed_paths_named.hypothesis.inner_test(book, base, changed, trace, told)  # type: ignore[attr-defined]


@pytest.mark.deep
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(book=looping_rulebooks(),
       base=st.lists(st.integers(0, 4), min_size=N_PATHS, max_size=N_PATHS),
       changed=st.dictionaries(st.integers(0, N_PATHS - 1), st.integers(0, 4), max_size=3),
       trace=st.sampled_from(["minimal", "full"]))
def test_replaying_looping_rulebooks_deep(book: Rulebook, base: list[int], changed: dict[int, int], trace: Any) -> None:
    """Replays of random rulebooks with feedback cycles and oscillations, 10,000 of them (``pytest -m deep``)."""
    test_replaying_a_recording_gives_the_from_scratch_answer.hypothesis.inner_test(book, base, changed, trace)  # type: ignore[attr-defined]
