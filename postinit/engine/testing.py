"""A testing kit for rulebooks: hypothesis strategies, invariants and a state machine.

Generic: it knows rules, paths and phases, nothing of vLLM. Import it explicitly
(``from postinit.engine import testing``); it needs the optional ``hypothesis``
dependency (``pip install postinit[testing]``).

Invariants are plain functions you call in your own tests; each raises
:class:`InvariantViolation` (an ``AssertionError``) whose message is a readable
counterexample: the input values that differ from the defaults, the trace and
the rules involved::

    >>> from pydantic import BaseModel
    >>> from postinit.engine import PathSpace, Rulebook, make_rule
    >>> from postinit.engine import testing
    >>> class Cfg(BaseModel):
    ...     tp: int = 1
    ...     eager: bool = False
    ...     graphs: bool = True
    >>> paths = PathSpace.from_model(Cfg)
    >>> no_graphs = make_rule(lambda c: {"graphs": False} if c["eager"] else None,
    ...     "graphs.eager-off", title="Eager mode disables graphs", phase="core",
    ...     kind="override", reads=("eager",), writes=("graphs",),
    ...     ensures=lambda c: not c["eager"] or not c["graphs"])
    >>> book = Rulebook([no_graphs], paths=paths, phases=["core"])
    >>> state = {**paths.defaults(), "eager": True}
    >>> testing.check_all(book, state)
    []
    >>> from hypothesis import given
    >>> @given(testing.flat_states(paths))
    ... def test_invariants(state):
    ...     testing.check_all(book, state)
    >>> test_invariants()

Strategies: :func:`flat_states` (valid flat states from the pydantic schema,
built with ``st.builds``/``st.from_type`` and flattened) and
:func:`acyclic_rulebooks` (random acyclic synthetic rulebooks for engine
properties). :class:`RulebookMachine` edits a synthetic rulebook step by step
and checks the invariants after each step. :func:`register_profiles` registers
the ``ci`` and ``deep`` hypothesis profiles.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pydantic
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition
from hypothesis.stateful import rule as step

from postinit.engine._paths import PathSpace, _fields, _model_of
from postinit.engine._rule import Rule, make_rule
from postinit.engine._rulebook import Rulebook
from postinit.engine._run import EngineResult, Semantics
from postinit.engine._trace import Fired, jsonable
from postinit.errors import (
    CycleError,
    NoFixedPoint,
    RuleDeclarationError,
    RuleError,
    UndeclaredReadError,
    UndeclaredWriteError,
    UnknownPathError,
    UnorderedWritersError,
)

__all__ = [
    "COMPILE_ERRORS",
    "InvariantViolation",
    "RulebookMachine",
    "TestRulebookMachine",
    "acyclic_rulebooks",
    "check_all",
    "check_declared_reads",
    "check_declared_writes",
    "check_determinism",
    "check_idempotence",
    "check_postconditions",
    "check_registration_order",
    "check_termination",
    "check_trace_completeness",
    "flat_states",
    "register_profiles",
    "synthetic_paths",
]

COMPILE_ERRORS: tuple[type[RuleError], ...] = (
    RuleDeclarationError, UnknownPathError, UnorderedWritersError, CycleError,
)
"""The documented errors compiling a rulebook may raise."""


# -- the counterexample ------------------------------------------------------------------------


class InvariantViolation(AssertionError):
    """An engine or rulebook invariant does not hold; the message is the counterexample."""

    def __init__(
        self,
        invariant: str,
        problem: str,
        *,
        book: Rulebook | None = None,
        state: Mapping[str, Any] | None = None,
        result: EngineResult | None = None,
        rules: Iterable[str] = (),
    ) -> None:
        self.invariant = invariant
        self.problem = problem
        self.rules = tuple(dict.fromkeys(rules))
        self.inputs: dict[str, Any] = _non_defaults(book, state) if book is not None and state is not None else {}
        lines = [f"invariant {invariant} violated: {problem}"]
        if self.rules:
            lines.append(f"  rules involved: {', '.join(self.rules)}")
        if book is not None and state is not None:
            shown = ", ".join(f"{p}={jsonable(v)!r}" for p, v in sorted(self.inputs.items())) or "(all defaults)"
            lines.append(f"  input (differs from defaults): {shown}")
        if result is not None:
            lines.append(f"  trace ({result.semantics}):")
            lines.extend(f"    {line}" for line in _trace_lines(result)) if len(result.trace) else lines.append("    (empty)")
        super().__init__("\n".join(lines))


def _non_defaults(book: Rulebook, state: Mapping[str, Any]) -> dict[str, Any]:
    defaults = book.paths.defaults()
    return {p: v for p, v in state.items() if p in defaults and not _same(v, defaults[p])}


def _trace_lines(result: EngineResult, limit: int = 40) -> list[str]:
    out = []
    for ev in result.trace.events[:limit]:
        if isinstance(ev, Fired):
            ch = ", ".join(f"{c.path}: {jsonable(c.old)!r} -> {jsonable(c.new)!r}" for c in ev.changes)
            out.append(f"#{ev.seq} {ev.phase} {ev.rule} fired: {ch or ev.message}")
        else:
            out.append(f"#{ev.seq} {ev.phase} {ev.rule} {ev.type}: {getattr(ev, 'message', '')}")
    if len(result.trace) > limit:
        out.append(f"... {len(result.trace) - limit} more events")
    return out


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {p: (a.get(p), b.get(p)) for p in a.keys() | b.keys() if not _same(a.get(p), b.get(p))}


def _show_diff(d: Mapping[str, tuple[Any, Any]]) -> str:
    return "; ".join(f"{p}: {jsonable(x)!r} vs {jsonable(y)!r}" for p, (x, y) in sorted(d.items()))


def _resolve(invariant: str, book: Rulebook, state: Mapping[str, Any], **kw: Any) -> EngineResult:
    """Resolve, turning engine errors into a counterexample (a RuleError is the rulebook's fault)."""
    try:
        result: EngineResult = book.resolve(state, **kw)
    except (NoFixedPoint, UndeclaredWriteError, UndeclaredReadError) as e:
        rules = getattr(e, "rules", ()) or ((e.rule,) if e.rule else ())
        raise InvariantViolation(invariant, f"{type(e).__name__}: {e}", book=book, state=state, rules=rules) from e
    return result


def _comparable(result: EngineResult) -> tuple[Any, ...]:
    return (result.state, result.trace.to_dict(), {p: v.to_dict() for p, v in result.provenance.items()})


# -- invariants --------------------------------------------------------------------------------


def check_determinism(book: Rulebook, state: Mapping[str, Any], *, semantics: Semantics = "ordered") -> EngineResult:
    """Resolving the same state twice gives the same values, trace and provenance."""
    one = _resolve("determinism", book, state, semantics=semantics)
    two = _resolve("determinism", book, state, semantics=semantics)
    if _comparable(one) != _comparable(two):
        d = _diff(one.state, two.state)
        raise InvariantViolation(
            "determinism", f"two resolutions differ: {_show_diff(d) or 'same values, different trace'}",
            book=book, state=state, result=one, rules=_writers(book, d),
        )
    return one


def check_idempotence(book: Rulebook, state: Mapping[str, Any]) -> EngineResult:
    """Re-resolving a consistent resolution's final state under ``semantics="consistent"`` changes nothing."""
    first = _resolve("idempotence", book, state, semantics="consistent")
    if not first.ok:
        return first
    again = _resolve("idempotence", book, first.state, semantics="consistent")
    d = _diff(first.state, again.state)
    if d or not again.ok:
        problem = f"re-resolving the resolved state changed {_show_diff(d)}" if d else (
            f"re-resolving the resolved state raised violation {again.violations[0].rule}"
        )
        raise InvariantViolation(
            "idempotence", problem, book=book, state=state, result=again,
            rules=[*_writers(book, d), *(v.rule for v in again.violations)],
        )
    return first


def check_registration_order(
    book: Rulebook, state: Mapping[str, Any], permutations: int = 3, *, seed: int = 0
) -> EngineResult:
    """Rebuilding the rulebook from shuffled rules gives the same order and the same resolution."""
    ref = _resolve("registration-order", book, state)
    rng = random.Random(seed)
    rules = list(book.rules.values())
    for k in range(permutations):
        shuffled = rules[::-1] if k == 0 else rng.sample(rules, len(rules))
        other = book.rebuilt(shuffled)
        if other.order != book.order:
            bad = [ph for ph in book.phases if other.order[ph] != book.order[ph]]
            raise InvariantViolation(
                "registration-order", f"phase order differs in {bad}: {other.order[bad[0]]} vs {book.order[bad[0]]}",
                book=book, state=state, rules=other.order[bad[0]],
            )
        res = _resolve("registration-order", other, state)
        if _comparable(res) != _comparable(ref):
            d = _diff(ref.state, res.state)
            raise InvariantViolation(
                "registration-order", f"shuffled registration resolves differently: {_show_diff(d)}",
                book=book, state=state, result=res, rules=_writers(book, d),
            )
    return ref


def check_termination(
    book: Rulebook, state: Mapping[str, Any], *, semantics: Sequence[Semantics] = ("ordered", "consistent")
) -> list[EngineResult]:
    """Resolution reaches a fixed point (no :class:`~postinit.errors.NoFixedPoint`) under each semantics."""
    return [_resolve("termination", book, state, semantics=s) for s in semantics]


def check_trace_completeness(result: EngineResult) -> None:
    """Every input→output difference is explained by exactly one final trace change, and vice versa.

    For each path the trace changed, the last change's new value is the final
    value (and the path's provenance points at that change's event); every
    path whose final value differs from its input has such a change; a path
    the trace never changed keeps its input value.
    """
    book, state = result.rulebook, result.initial
    last: dict[str, tuple[Fired, Any]] = {}
    for ev in result.trace.fired:
        seen: set[str] = set()
        for ch in ev.changes:
            if ch.path in seen:
                raise InvariantViolation(
                    "trace-completeness", f"event #{ev.seq} changes {ch.path} twice",
                    book=book, state=state, result=result, rules=[ev.rule],
                )
            seen.add(ch.path)
            prev = last.get(ch.path)
            expected_old = prev[1] if prev else result.initial[ch.path]
            if not _same(ch.old, expected_old):
                raise InvariantViolation(
                    "trace-completeness",
                    f"event #{ev.seq} says {ch.path} was {jsonable(ch.old)!r} but it was {jsonable(expected_old)!r}",
                    book=book, state=state, result=result, rules=[ev.rule],
                )
            last[ch.path] = (ev, ch.new)
    for path, (ev, new) in last.items():
        final = result.state[path]
        if not _same(new, final):
            raise InvariantViolation(
                "trace-completeness",
                f"the last change to {path} (#{ev.seq}, rule {ev.rule}) set {jsonable(new)!r} "
                f"but the final value is {jsonable(final)!r}",
                book=book, state=state, result=result, rules=[ev.rule],
            )
        prov = result.provenance.get(path)
        if prov is None or prov.event != ev.seq or prov.rule != ev.rule:
            raise InvariantViolation(
                "trace-completeness", f"provenance of {path} is {prov} but its last change is #{ev.seq} by {ev.rule}",
                book=book, state=state, result=result, rules=[ev.rule],
            )
    # every path, not ``result.changes`` (which trusts the trace to name every changed path)
    initial = result.initial
    for path, new in result.state.items():
        if path in last:
            continue
        old = initial.get(path)
        if new is old or (type(new) is type(old) and new == old):
            continue
        raise InvariantViolation(
            "trace-completeness",
            f"{path} changed from {jsonable(old)!r} to {jsonable(new)!r} with no trace change explaining it",
            book=book, state=state, result=result, rules=[r.id for r in book.writers_of(path)],
        )


def check_declared_writes(book: Rulebook, state: Mapping[str, Any]) -> EngineResult:
    """Every change in the trace is to a path its rule declares (the engine enforces it; this reports)."""
    result = _resolve("declared-writes", book, state)
    for ev in result.trace.fired:
        stray = [c.path for c in ev.changes if c.path not in book.rules[ev.rule].writes]
        if stray:
            raise InvariantViolation(
                "declared-writes", f"rule {ev.rule} changed undeclared {stray}",
                book=book, state=state, result=result, rules=[ev.rule],
            )
    return result


def check_declared_reads(
    book: Rulebook, state: Mapping[str, Any], *, semantics: Sequence[Semantics] = ("ordered", "consistent")
) -> EngineResult:
    """Every rule reads only what it declares (a strict-mode resolution under each semantics)."""
    results = [_resolve("declared-reads", book, state, strict=True, semantics=s) for s in semantics]
    return results[0]


def check_postconditions(result: EngineResult, *, allow: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Every fired rule's ``ensures`` holds on the final state, or a later rule broke it.

    Returns the ``(rule, broken_by)`` pairs of rules listed in ``allow`` (known
    quirks: vLLM's order lets a later step undo an earlier conclusion); raises
    for any other broken postcondition, naming the later rule that changed
    one of its writes (``broken_by`` is ``None`` when none did: the rule's own
    postcondition is wrong).
    """
    allowed = set(allow)
    book, final = result.rulebook, MappingProxyType(result.state)
    quirks: list[tuple[str, str]] = []
    last_fired: dict[str, Fired] = {}
    for ev in result.trace.fired:
        last_fired[ev.rule] = ev
    for rid, ev in sorted(last_fired.items(), key=lambda kv: kv[1].seq):
        r = book.rules[rid]
        if r.ensures is None or r.ensures(final):
            continue
        later = [
            e for e in result.trace.fired
            if e.seq > ev.seq and e.rule != rid and any(c.path in r.writes for c in e.changes)
        ]
        by = later[-1].rule if later else None
        if rid in allowed and by is not None:
            quirks.append((rid, by))
            continue
        problem = (
            f"rule {rid}'s postcondition fails on the final state; rule {by} later changed "
            f"{sorted({c.path for e in later for c in e.changes if c.path in r.writes})}"
            if by else f"rule {rid}'s postcondition fails on the final state and no later rule changed its writes"
        )
        raise InvariantViolation(
            "postconditions", problem, book=book, state=result.initial, result=result,
            rules=[rid, *(e.rule for e in later)],
        )
    return quirks


def check_all(
    book: Rulebook,
    state: Mapping[str, Any],
    *,
    allow: Iterable[str] = (),
    permutations: int = 3,
    consistent: bool = True,
) -> list[tuple[str, str]]:
    """Run every invariant; return :func:`check_postconditions`'s allowed ``(rule, broken_by)`` pairs.

    With ``consistent=False`` the ``semantics="consistent"`` invariants
    (termination and idempotence there) are skipped: a rulebook whose phases
    feed back into earlier phases need not have a consistent fixed point.
    """
    semantics: tuple[Semantics, ...] = ("ordered", "consistent") if consistent else ("ordered",)
    result = check_determinism(book, state)
    check_termination(book, state, semantics=semantics)
    check_registration_order(book, state, permutations)
    check_declared_writes(book, state)
    check_declared_reads(book, state, semantics=semantics)
    check_trace_completeness(result)
    if consistent:
        check_trace_completeness(check_idempotence(book, state))
    return check_postconditions(result, allow=allow)


def _writers(book: Rulebook, paths: Iterable[str]) -> list[str]:
    return [r.id for p in sorted(paths) if p in book.paths for r in book.writers_of(p)]


# -- strategies --------------------------------------------------------------------------------


def flat_states(
    paths: PathSpace, overrides: Mapping[str, st.SearchStrategy[Any]] | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid flat states over ``paths``: each mounted model is generated and flattened.

    Every field is ``st.builds`` over its model with ``st.from_type`` of its
    annotation, or its default (the shrink target, so a counterexample shows
    only the values that matter). ``overrides`` maps a flat path to the
    strategy for that field (for an optional sub-model's presence path: a
    strategy of ``True``/``None``). Instances that fail the model's own
    validation (constraints ``from_type`` does not know) are filtered out.
    """
    over = dict(overrides or {})
    unknown = sorted(set(over) - set(paths))
    if unknown:
        raise KeyError(f"overrides name unknown paths {unknown}.{paths.suggest(unknown[0])}")
    per_root = {prefix: _model_strategy(cls, prefix, over) for prefix, cls in paths.roots.items()}
    return st.fixed_dictionaries(per_root).map(paths.flatten)


def _model_strategy(cls: type, prefix: str, over: Mapping[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    kwargs: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in _fields(cls).items():
        path = f"{prefix}.{name}" if prefix else name
        sub, optional = _model_of(info.annotation)
        if sub is not None:
            inner = _model_strategy(sub, path, over)
            if optional:
                present = over.get(path, st.sampled_from([info.get_default(call_default_factory=True) is not None,
                                                           info.get_default(call_default_factory=True) is None]))
                inner = present.flatmap(functools.partial(_present_or_none, inner))
            kwargs[name] = inner
            continue
        if path in over:
            kwargs[name] = over[path]
            continue
        generated = _from_annotation(info.annotation)
        if info.is_required():
            kwargs[name] = generated
        else:
            kwargs[name] = st.one_of(st.just(info.get_default(call_default_factory=True)), generated)
    sentinel = object()

    def build(**values: Any) -> Any:
        try:  # BaseModels and pydantic dataclasses both validate on construction
            return cls(**values)
        except (ValueError, TypeError):  # pydantic.ValidationError is a ValueError
            return sentinel

    return st.builds(build, **kwargs).filter(lambda obj: obj is not sentinel)


def _present_or_none(inner: st.SearchStrategy[Any], present: Any) -> st.SearchStrategy[Any]:
    return inner if present else st.none()


def _from_annotation(annotation: Any) -> st.SearchStrategy[Any]:
    """``st.from_type`` of a field's annotation, with small leaves; nothing when it is not generatable."""
    if annotation is Any or annotation is object:
        return st.nothing()
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False, width=32)
    if annotation is str:
        return st.text(max_size=8)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return st.sampled_from(list(annotation))
    try:
        return st.from_type(annotation)
    except Exception:  # a type hypothesis cannot build: keep the default
        return st.nothing()


# -- synthetic rulebooks --------------------------------------------------------------------------


@functools.cache
def synthetic_paths(n_paths: int = 8) -> PathSpace:
    """A flat schema of ``n_paths`` int fields ``x0 ...`` (built with ``pydantic.create_model``)."""
    model = pydantic.create_model(  # type: ignore[call-overload]
        f"Synthetic{n_paths}", **{f"x{i}": (int, 0) for i in range(n_paths)}
    )
    return PathSpace.from_model(model)


def _synthetic_fn(reads: tuple[str, ...], writes: tuple[str, ...], threshold: int, consts: tuple[int, ...],
                  derive: bool) -> Callable[[Mapping[str, Any]], Any]:
    """A rule body: when the first read exceeds ``threshold``, write constants (or a bounded sum)."""

    def fn(c: Mapping[str, Any]) -> Any:
        if c[reads[0]] <= threshold:
            return None
        if derive:
            total = sum(c[p] for p in reads) % 7
            return {w: total + k for w, k in zip(writes, consts, strict=True)}
        return dict(zip(writes, consts, strict=True))

    return fn


@st.composite
def acyclic_rulebooks(
    draw: st.DrawFn,
    *,
    n_paths: int = 8,
    max_rules: int = 10,
    phases: Sequence[str] = ("p1", "p2", "p3"),
) -> Rulebook:
    """Random acyclic rulebooks over :func:`synthetic_paths`.

    Every rule reads only paths numbered below the ones it writes, so data
    flows one way; two writers of a path in one phase are ordered by ``after``
    along the same direction. Such a rulebook compiles and has a consistent
    fixed point for every state.
    """
    paths = synthetic_paths(n_paths)
    names = [f"x{i}" for i in range(n_paths)]
    n = draw(st.integers(0, max_rules))
    specs: list[dict[str, Any]] = []
    for i in range(n):
        low = draw(st.integers(1, n_paths - 1))
        reads = tuple(draw(st.lists(st.sampled_from(names[:low]), min_size=1, max_size=3, unique=True)))
        writes = tuple(draw(st.lists(st.sampled_from(names[low:]), min_size=1, max_size=2, unique=True)))
        specs.append({
            "id": f"r{draw(st.integers(0, 99)):02d}.{i}",
            "low": low, "reads": reads, "writes": writes,
            "phase": draw(st.sampled_from(list(phases))),
            "threshold": draw(st.integers(-1, 3)),
            "consts": tuple(draw(st.integers(0, 5)) for _ in writes),
            "derive": draw(st.booleans()),
            "kind": draw(st.sampled_from(["default", "derive", "override"])),
        })
    # order writers of one path in one phase along (low, index): consistent with the data edges
    rules: list[Rule] = []
    for i, s in enumerate(specs):
        after = sorted({
            o["id"] for j, o in enumerate(specs)
            if o["phase"] == s["phase"] and (o["low"], j) < (s["low"], i) and set(o["writes"]) & set(s["writes"])
        })
        rules.append(make_rule(
            _synthetic_fn(s["reads"], s["writes"], s["threshold"], s["consts"], s["derive"]),
            s["id"], title=f"synthetic {s['id']}", phase=s["phase"], kind=s["kind"],
            reads=s["reads"], writes=s["writes"], after=after,
        ))
    return Rulebook(rules, paths=paths, phases=phases, name="synthetic")


# -- the state machine -------------------------------------------------------------------------


class RulebookMachine(RuleBasedStateMachine):
    """Adds, removes and edits rules on a small synthetic schema; checks the engine after each step.

    Compiling either succeeds or raises one of :data:`COMPILE_ERRORS`; a
    compiled rulebook passes :func:`check_all` under ``semantics="ordered"`` and,
    under ``semantics="consistent"``, either terminates idempotently or raises
    :class:`~postinit.errors.NoFixedPoint` (phases that feed back into earlier
    phases need not have a consistent fixed point).
    """

    N_PATHS = 5
    PHASES = ("p1", "p2")

    def __init__(self) -> None:
        super().__init__()
        self.paths = synthetic_paths(self.N_PATHS)
        self.specs: dict[str, Rule] = {}
        self.book: Rulebook | None = None
        self.error: RuleError | None = None
        self.counter = itertools.count()

    @initialize()
    def start(self) -> None:
        self._compile()

    def _compile(self) -> None:
        try:
            self.book = Rulebook(self.specs.values(), paths=self.paths, phases=self.PHASES, name="machine")
            self.error = None
        except COMPILE_ERRORS as e:
            self.book, self.error = None, e

    @step(data=st.data())
    def add_rule(self, data: st.DataObject) -> None:
        names = [f"x{i}" for i in range(self.N_PATHS)]
        reads = tuple(data.draw(st.lists(st.sampled_from([*names, "x_typo"]), min_size=1, max_size=2, unique=True)))
        writes = tuple(data.draw(st.lists(st.sampled_from([p for p in names if p not in reads] or names),
                                          min_size=1, max_size=2, unique=True)))
        others = sorted(self.specs)
        after = tuple(data.draw(st.lists(st.sampled_from([*others, "ghost.rule"]), max_size=1, unique=True)))
        rid = f"m{next(self.counter):03d}"
        fn = _synthetic_fn(reads, writes, data.draw(st.integers(-1, 2)),
                           tuple(data.draw(st.integers(0, 3)) for _ in writes), data.draw(st.booleans()))
        self.specs[rid] = make_rule(
            fn, rid, title=rid, phase=data.draw(st.sampled_from(self.PHASES)), kind="derive",
            reads=reads, writes=writes, after=after,
        )
        self._compile()

    @precondition(lambda self: bool(self.specs))
    @step(data=st.data())
    def remove_rule(self, data: st.DataObject) -> None:
        rid = data.draw(st.sampled_from(sorted(self.specs)))
        if self.book is not None:
            smaller = self.book.without(rid)
            assert rid not in smaller and len(smaller) == len(self.book) - 1
        del self.specs[rid]
        self.specs = {
            k: dataclasses.replace(r, after=tuple(a for a in r.after if a != rid)) for k, r in self.specs.items()
        }
        self._compile()

    @precondition(lambda self: bool(self.specs))
    @step(data=st.data())
    def edit_rule(self, data: st.DataObject) -> None:
        rid = data.draw(st.sampled_from(sorted(self.specs)))
        r = self.specs[rid]
        self.specs[rid] = dataclasses.replace(
            r, phase=data.draw(st.sampled_from(self.PHASES)),
            fn=_synthetic_fn(r.reads, r.writes, data.draw(st.integers(-1, 2)),
                             tuple(data.draw(st.integers(0, 3)) for _ in r.writes), True),
        )
        self._compile()

    @invariant()
    def compiles_or_documented_error(self) -> None:
        assert (self.book is None) is (self.error is not None)
        if self.error is not None:
            assert isinstance(self.error, COMPILE_ERRORS) and str(self.error)

    @precondition(lambda self: self.book is not None)
    @step(data=st.data())
    def resolve_passes_invariants(self, data: st.DataObject) -> None:
        assert self.book is not None
        state = data.draw(flat_states(self.paths, {p: st.integers(0, 4) for p in self.paths}))
        check_all(self.book, state, consistent=False, permutations=1)
        try:
            consistent = self.book.resolve(state, semantics="consistent")
        except NoFixedPoint as e:
            assert e.rules and set(e.rules) <= set(self.book.rules)
            return
        check_trace_completeness(consistent)
        assume(consistent.ok)
        again = self.book.resolve(consistent.state, semantics="consistent")
        if again.state != consistent.state:
            raise InvariantViolation(
                "idempotence", f"re-resolving changed {_show_diff(_diff(consistent.state, again.state))}",
                book=self.book, state=state, result=again,
            )


TestRulebookMachine = RulebookMachine.TestCase


# -- profiles ---------------------------------------------------------------------------------


def register_profiles(*, load: str | None = None) -> None:
    """Register the ``ci`` (fast, derandomized) and ``deep`` (many examples) hypothesis profiles.

    With ``load`` the named profile is loaded too (tests pass
    ``os.environ.get("HYPOTHESIS_PROFILE", "ci")``).
    """
    settings.register_profile(
        "ci", max_examples=40, deadline=None, derandomize=True, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        stateful_step_count=15,
    )
    settings.register_profile(
        "deep", max_examples=2_000, deadline=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        stateful_step_count=50,
    )
    if load is not None:
        settings.load_profile(load)

