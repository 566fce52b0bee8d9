"""Sweep the decision-relevant input space through every rulebook invariant.

``sweep(...)`` enumerates factor assignments (:mod:`postinit.testing`)
— ``exhaustive``: a full product inside each interaction group of factors
(:data:`GROUPS`, the combinations the rules' conditions test together) plus a
seeded greedy pairwise covering of all factors; ``random``: ``n`` seeded
draws — resolves each one and runs the invariants of
:mod:`postinit.engine.testing` on it (determinism, termination under both
semantics, registration order, declared reads and writes, trace
completeness, idempotence, postconditions), tolerating exactly the named
quirks of :mod:`postinit.rules.invariants`. The report groups violations by
invariant and problem, with the smallest counterexample of each group, and
lists the rules that never fired (those that cannot fire on the swept
platforms flagged as such).

One resolution per input is not made from scratch: a recorded resolution of the neutral
assignment (the *base*) is replayed to each input (:meth:`EngineResult.replay`, what
``Resolution.with_changes`` uses), and the replay must equal the input's from-scratch strict
resolution — the determinism invariant, which so also checks incremental re-resolution on
every input. The base is recorded once and shipped once per worker process (a pool
initializer, or one ``scatter`` to every dask worker), never once per input or chunk.

The space is cut into chunks deterministically and chunk results are merged
in chunk order, so a report depends only on its arguments (and the seed),
never on ``jobs`` or on the scheduler: ``jobs > 1`` uses a process pool,
``scheduler="local"`` a ``dask.distributed.LocalCluster`` and
``scheduler="tcp://host:port"`` an existing dask scheduler (``pip install
postinit[sweep]``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from postinit import testing as vs
from postinit._checkrules import interactions
from postinit.engine import EngineResult, Rulebook, jsonable, replay
from postinit.engine import testing as kit
from postinit.errors import NoFixedPoint, UndeclaredReadError, UndeclaredWriteError
from postinit.rules import invariants as vinv
from postinit.rules import rulebook
from postinit.rules.versions import DEFAULT_VERSION
from postinit.schema import Platform
from postinit.site import SiteRules, load, site_rulebook

__all__ = ["GROUPS", "SweepReport", "ViolationGroup", "space", "sweep"]

REPORT_VERSION = 1
Mode = Literal["exhaustive", "random"]

_MLA = ("fixtures/deepseek_v3",)
#: interaction groups: factors crossed in full, over the models whose rules they meet
GROUPS: dict[str, tuple[dict[str, tuple[Any, ...]], tuple[str, ...]]] = {
    "compile": (
        {"mode": vs.FACTORS["mode"], "cudagraph_mode": vs.FACTORS["cudagraph_mode"],
         "enforce_eager": vs.FACTORS["enforce_eager"]},
        ("fixtures/llama", "fixtures/whisper", *_MLA, "fixtures/jamba", "fixtures/bert"),
    ),
    "custom-ops": (
        {"custom_ops": vs.FACTORS["custom_ops"], "mode": vs.FACTORS["mode"],
         "pass_config": vs.FACTORS["pass_config"], "enforce_eager": (None, True)},
        ("fixtures/llama", "fixtures/llama_fp8_block", "Qwen/Qwen3-8B-FP8"),
    ),
    "capture-sizes": (
        {"capture_sizes": vs.FACTORS["capture_sizes"], "cudagraph_mode": vs.FACTORS["cudagraph_mode"],
         "pass_config": vs.FACTORS["pass_config"], "tp": (1, 2, 4)},
        ("fixtures/llama",),
    ),
    "parallel": (
        {"tp": (1, 2, 4, 8), "dcp": vs.FACTORS["dcp"], "dp": vs.FACTORS["dp"], "dbo": vs.FACTORS["dbo"],
         "all2all": vs.FACTORS["all2all"]},
        (*_MLA, "fixtures/llama", "fixtures/qwen3_next"),
    ),
    "scheduler": (
        {"chunked_prefill": vs.FACTORS["chunked_prefill"], "prefix_caching": vs.FACTORS["prefix_caching"],
         "budget": vs.FACTORS["budget"], "max_model_len": vs.FACTORS["max_model_len"],
         "usage": vs.FACTORS["usage"]},
        ("fixtures/llama_long", "fixtures/jamba", "fixtures/whisper"),
    ),
    "pooling": (
        {"pooling": vs.FACTORS["pooling"], "chunked_prefill": vs.FACTORS["chunked_prefill"],
         "prefix_caching": vs.FACTORS["prefix_caching"], "usage": vs.FACTORS["usage"]},
        ("fixtures/llama", "fixtures/bert", "fixtures/jamba", "BAAI/bge-base-en-v1.5",
         "intfloat/e5-mistral-7b-instruct"),
    ),
    "hma": (
        {"kv_transfer": vs.FACTORS["kv_transfer"], "kv_events": vs.FACTORS["kv_events"],
         "env": vs.FACTORS["env"], "spec": vs.FACTORS["spec"]},
        ("fixtures/llama", "fixtures/jamba", "fixtures/llama4", "meta-llama/Llama-4-Scout-17B-16E-Instruct",
         "google/gemma-3-27b-it"),
    ),
    "features": (
        {"lora": vs.FACTORS["lora"], "spec": vs.FACTORS["spec"], "fast_prefill": vs.FACTORS["fast_prefill"],
         "dtype": vs.FACTORS["dtype"], "usage": vs.FACTORS["usage"]},
        ("fixtures/llama", *_MLA, "openai/gpt-oss-120b"),
    ),
    "long-context": (
        {"max_model_len": vs.FACTORS["max_model_len"], "cudagraph_mode": (None, "FULL_AND_PIECEWISE", "FULL"),
         "usage": (None, "serve")},
        (),  # every catalog model
    ),
}


def _key(a: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(repr(a.get(k, vs.FACTORS[k][0])) for k in vs.FACTORS)


def _groups(platform: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for factors, models in GROUPS.values():
        names = list(factors)
        for model in models or vs.FACTORS["model"]:
            for levels in itertools.product(*(factors[n] for n in names)):
                out.append(vs.base_assignment(platform=platform, model=model, **dict(zip(names, levels, strict=True))))
    return out


def _pairwise(platform: str, rng: random.Random, candidates: int = 20) -> list[dict[str, Any]]:
    """A seeded greedy covering of every pair of factor levels (the platform fixed)."""
    names = [n for n in vs.FACTORS if n != "platform"]
    levels = {n: list(vs.FACTORS[n]) for n in names}
    uncovered = {
        (a, i, b, j)
        for ai, a in enumerate(names) for b in names[ai + 1:]
        for i in range(len(levels[a])) for j in range(len(levels[b]))
    }
    rows: list[dict[str, Any]] = []
    while uncovered:
        a, i, b, j = min(uncovered)
        best, best_gain = None, -1
        for _ in range(candidates):
            pick = {n: rng.randrange(len(levels[n])) for n in names}
            pick[a], pick[b] = i, j
            gain = sum(
                1 for xi, x in enumerate(names) for y in names[xi + 1:]
                if (x, pick[x], y, pick[y]) in uncovered
            )
            if gain > best_gain:
                best, best_gain = pick, gain
        assert best is not None
        for xi, x in enumerate(names):
            for y in names[xi + 1:]:
                uncovered.discard((x, best[x], y, best[y]))
        rows.append(vs.base_assignment(platform=platform, **{n: levels[n][best[n]] for n in names}))
    return rows


def space(
    mode: Mode = "exhaustive", *, n: int = 1000, seed: int = 0, platforms: Sequence[str] = vs.PLATFORMS
) -> list[dict[str, Any]]:
    """The factor assignments a sweep resolves, in order (hard constraints applied, duplicates dropped)."""
    rng = random.Random(seed)
    raw: list[dict[str, Any]] = []
    if mode == "exhaustive":
        for plat in platforms:
            raw += _groups(plat)
            raw += [vs.avoid_errors(vs.repair(a)) for a in _pairwise(plat, rng)]
    elif mode == "random":
        for _ in range(n):
            a = {k: v[rng.randrange(len(v))] for k, v in vs.FACTORS.items()}
            a["platform"] = platforms[rng.randrange(len(platforms))]
            a = vs.repair(a)
            raw.append(vs.avoid_errors(a) if rng.random() < 0.8 else a)
    else:
        raise ValueError(f"mode must be 'exhaustive' or 'random', got {mode!r}")
    seen: set[tuple[Any, ...]] = set()
    out = []
    for a in raw:
        a = vs.repair(a)
        k = _key(a)
        if k not in seen:
            seen.add(k)
            out.append(a)
    return out


# -- evaluating one input ---------------------------------------------------------------------


@dataclass
class ViolationGroup:
    """All inputs that broke one invariant the same way, with the smallest counterexample."""

    invariant: str
    problem: str
    rules: tuple[str, ...]
    count: int
    example: dict[str, Any]
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"invariant": self.invariant, "problem": self.problem, "rules": list(self.rules),
                "count": self.count, "example": jsonable(self.example), "message": self.message}


_DIGITS = re.compile(r"\d+")
_VALUES = re.compile(r"(\(|\[)[^()\[\]]*(\)|\])")


def _signature(problem: str) -> str:
    """The problem text with values normalised, so equal causes group together."""
    first = problem.splitlines()[0]
    return _DIGITS.sub("N", _VALUES.sub("[...]", first))[:160]


def _size(a: Mapping[str, Any]) -> tuple[int, tuple[Any, ...]]:
    return sum(1 for k, v in a.items() if k not in ("platform", "model") and v != vs.FACTORS[k][0]), _key(a)


def _shown(a: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in a.items() if k in ("platform", "model") or v != vs.FACTORS[k][0]}


@functools.lru_cache(maxsize=8)
def _reversed_book(book: Rulebook | None = None) -> Rulebook:
    book = book if book is not None else rulebook()
    return book.rebuilt(list(book.rules.values())[::-1])


@functools.lru_cache(maxsize=8)
def _book(rules: tuple[str, ...] = ()) -> Rulebook:
    """vLLM's rulebook, with the site rules of ``rules`` (module names, .py files) when there are any."""
    return site_rulebook(DEFAULT_VERSION, load(list(rules))) if rules else rulebook()


def _same_resolution(x: Any, y: Any) -> bool:
    if x.state != y.state:
        return False
    # equal events (tuples of values, compared in C) have equal JSON forms; only unequal ones are compared as JSON
    return bool((x.trace.level == y.trace.level and x.trace.events == y.trace.events)
                or x.trace.to_dict() == y.trace.to_dict())


def _check_one(book: Rulebook, state: Mapping[str, Any],
               base: EngineResult | None = None) -> tuple[list[vinv.QuirkHit], Any]:
    """The invariants of :func:`postinit.rules.invariants.check_vllm`, sharing resolutions (5 per input).

    With a recorded ``base`` (of ``book``), the second resolution is ``replay(base, state)``: it must
    equal the strict from-scratch one (determinism, and incremental re-resolution).
    """

    def resolve(invariant: str, b: Rulebook, s: Mapping[str, Any], **kw: Any) -> Any:
        try:
            return b.resolve(s, **kw)
        except (NoFixedPoint, UndeclaredWriteError, UndeclaredReadError) as e:
            rules = getattr(e, "rules", ()) or ((e.rule,) if e.rule else ())
            raise kit.InvariantViolation(invariant, f"{type(e).__name__}: {e}", book=b, state=s, rules=rules) from e

    hits: list[vinv.QuirkHit] = []
    first = resolve("termination", book, state, strict=True)  # + declared reads (vllm)
    if base is not None:
        try:
            again = replay(base, dict(state))
        except (NoFixedPoint, UndeclaredWriteError, UndeclaredReadError) as e:
            raise kit.InvariantViolation("determinism", f"{type(e).__name__} replaying the base: {e}",
                                         book=book, state=state) from e
    else:
        again = resolve("determinism", book, state)
    if not _same_resolution(first, again):
        what = "the replay of the recorded base and a from-scratch resolution differ" if base is not None \
            else "two resolutions differ"
        raise kit.InvariantViolation("determinism", what, book=book, state=state, result=first)
    other = resolve("registration-order", _reversed_book(book if book is not rulebook() else None), state)
    if not _same_resolution(first, other):
        raise kit.InvariantViolation("registration-order", "reversed registration resolves differently",
                                     book=book, state=state, result=other)
    for ev in first.trace.fired:
        stray = [c.path for c in ev.changes if c.path not in book.rules[ev.rule].writes]
        if stray:
            raise kit.InvariantViolation("declared-writes", f"rule {ev.rule} changed undeclared {stray}",
                                         book=book, state=state, result=first, rules=[ev.rule])
    kit.check_trace_completeness(first)
    try:
        consistent = resolve("termination", book, state, semantics="consistent", strict=True)
    except kit.InvariantViolation as v:
        known = vinv._explain_termination(v) if v.problem.startswith("NoFixedPoint") else None
        if known is None:
            raise
        hits += known
        consistent = None
    if consistent is not None and consistent.ok:
        kit.check_trace_completeness(consistent)
        # only its state and violations are compared: a minimal trace
        twice = resolve("idempotence", book, consistent.state, semantics="consistent", trace="minimal")
        changed = {p for p in consistent.state if not kit._same(consistent.state[p], twice.state.get(p))}
        if changed or not twice.ok:
            known = vinv.explain_idempotence(consistent.state, twice)  # the two resolutions made above
            if known is None:
                raise kit.InvariantViolation(
                    "idempotence", f"re-resolving the resolved state changed {sorted(changed)}",
                    book=book, state=state, result=twice, rules=[r.id for p in sorted(changed) for r in book.writers_of(p)],
                )
            hits += known
    allow = vinv.postcondition_allow()
    for rid, by in kit.check_postconditions(first, allow=allow):
        if by not in allow.get(rid, ()):
            raise kit.InvariantViolation("postconditions", f"rule {rid}'s postcondition broken by {by}",
                                         book=book, state=state, result=first, rules=[rid, by])
        hits.append(vinv.QuirkHit(f"postcondition:{rid}", "postconditions", f"{rid} broken by {by}"))
    return hits, first


@dataclass
class _Chunk:
    inputs: int = 0
    resolved_ok: int = 0
    fired: Counter[str] = field(default_factory=Counter)
    quirks: Counter[str] = field(default_factory=Counter)
    quirk_examples: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[tuple[str, str], ViolationGroup] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    reached: Counter[str] = field(default_factory=Counter)
    """(site rules) inputs on which each site rule ran."""
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(site rule, vLLM rule) touching one path: inputs on which both fired."""


def _add_group(groups: dict[tuple[str, str], ViolationGroup], g: ViolationGroup) -> None:
    key = (g.invariant, g.problem)
    old = groups.get(key)
    if old is None:
        groups[key] = g
        return
    old.count += g.count
    if _size(g.example) < _size(old.example):
        old.example, old.message, old.rules = g.example, g.message, g.rules


@dataclasses.dataclass(frozen=True)
class _Base:
    """A recorded resolution without its rulebook: what is shipped to each worker once.

    ``EngineResult`` holds its rulebook (rule functions, not picklable); a worker attaches its
    own ``rulebook()``, the same rules in the same order (checked: the recording names rules by
    their position).
    """

    fields: dict[str, Any]
    order: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, result: EngineResult) -> _Base:
        result.initial  # noqa: B018 - materialise the input state (a taken-over state rebuilds it lazily)
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.name != "rulebook"}
        return cls(fields, _order(result.rulebook))

    def attach(self, book: Rulebook) -> EngineResult:
        if _order(book) != self.order:
            raise RuntimeError("the sweep's base was recorded with another rulebook than this worker's")
        return EngineResult(rulebook=book, **self.fields)


def _order(book: Rulebook) -> tuple[tuple[str, ...], ...]:
    return tuple(book.order[ph] for ph in book.phases)


def _record_base(platform: str, rules: tuple[str, ...] = ()) -> _Base:
    """The recorded resolution of the neutral assignment on ``platform`` (every input is replayed from it)."""
    _, state, _ = vs.engine_inputs(*vs.build_inputs(vs.base_assignment(platform=platform)))
    return _Base.of(_book(rules).resolve(state, record=True))


_WORKER_BASE: list[_Base] = []
"""The base a pool worker received once, from its initializer."""
_WORKER_RULES: list[tuple[str, ...]] = [()]
"""The site rules a pool worker loads (module names, .py files), from its initializer."""


def _install_base(base: _Base | None, rules: tuple[str, ...] = ()) -> None:
    _WORKER_BASE[:] = [base] if base is not None else []
    _WORKER_RULES[:] = [rules]


def _run_chunk_here(assignments: Sequence[dict[str, Any]]) -> _Chunk:
    """A pool worker's chunk, replayed from the base its initializer installed."""
    return _run_chunk(assignments, _WORKER_BASE[0] if _WORKER_BASE else None, _WORKER_RULES[0])


def _run_chunk(assignments: Sequence[dict[str, Any]], shipped: _Base | None = None,
               rules: tuple[str, ...] = ()) -> _Chunk:
    out = _Chunk()
    book = _book(rules)
    base = shipped.attach(book) if shipped is not None else None
    site = load(list(rules)) if rules else None
    pairs = [(i.site, i.vllm) for i in interactions(book, site)] if site is not None else []
    for a in assignments:
        out.inputs += 1
        try:
            _, state, _ = vs.engine_inputs(*vs.build_inputs(a))
        except Exception as e:  # an input the generator should not produce
            out.errors[f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"] += 1
            continue
        try:
            hits, result = _check_one(book, state, base if base is not None and base.rulebook is book else None)
        except kit.InvariantViolation as v:
            shown = _shown(a)
            _add_group(out.groups, ViolationGroup(v.invariant, _signature(v.problem), v.rules, 1, shown, str(v)))
            continue
        out.resolved_ok += result.ok
        fired = {ev.rule for ev in result.trace.fired} | {ev.rule for ev in result.trace.violations}
        out.fired.update(fired)
        if site is not None:
            out.reached.update(_reached(book, result, site))
            out.pairs.update(p for p in pairs if p[0] in fired and p[1] in fired)
        for h in hits:
            out.quirks[h.quirk] += 1
            if h.quirk not in out.quirk_examples or _size(a) < _size(out.quirk_examples[h.quirk]):
                out.quirk_examples[h.quirk] = _shown(a)
    return out


def _reached(book: Rulebook, result: EngineResult, site: SiteRules) -> set[str]:
    """The site rules a resolution ran: those of phases it finished, and of the phase it stopped in up to there."""
    stop = result.violations[0] if result.violations else None
    if stop is None:
        return set(site.ids)
    phases = list(book.phases)
    where = phases.index(stop.phase)
    order = book.order[stop.phase]
    at = order.index(book.unit_of.get(stop.rule, stop.rule)) if book.unit_of.get(stop.rule, stop.rule) in order else 0
    out = set()
    for r in site.rules:
        i = phases.index(r.phase)
        unit = book.unit_of.get(r.id, r.id)
        if i < where or (i == where and unit in order and order.index(unit) <= at):
            out.add(r.id)
    return out


# -- the report ---------------------------------------------------------------------------------


_KINDS = ("cuda", "rocm", "cpu")


def _gate(rule_id: str, module: str) -> str | None:
    """The platform kind a rule is specific to (its platform module, or the kind named in its id)."""
    for kind in _KINDS:
        if module.endswith(f".platforms.{kind}"):
            return kind
    # "cpu" in max-cpu-loras / cpu-offload names the host-memory LoRA cache / KV offload, not the platform
    tokens = set(re.split(r"[.\-_]", re.sub(r"cpu-(loras?|offload)", "", rule_id)))
    named = [k for k in _KINDS if k in tokens]
    return named[0] if len(named) == 1 else None


@dataclass
class SweepReport:
    """What a sweep found; :meth:`to_dict` is the JSON form (``postinit sweep --format json``)."""

    mode: str
    seed: int
    platforms: list[str]
    inputs: int
    resolved_ok: int
    violations: list[ViolationGroup]
    quirks: dict[str, int]
    quirk_examples: dict[str, dict[str, Any]]
    fired: dict[str, int]
    never_fired: list[str]
    cannot_fire: dict[str, str]
    """never-fired rules specific to a platform kind the sweep did not include: rule -> kind"""
    errors: dict[str, int]
    chunks: int
    site_rules: list[str] = field(default_factory=list)
    """The site rules swept with vLLM's (``--rules``), in their order."""
    site_reached: dict[str, int] = field(default_factory=dict)
    """Inputs on which each site rule ran (not stopped by an earlier violation)."""
    site_pairs: dict[str, int] = field(default_factory=dict)
    """``"site x vllm"`` for each pair of rules touching one path: inputs on which both fired."""

    @property
    def site_never_fired(self) -> list[str]:
        """Site rules that never fired over the sweep: their ``ensures=`` went unchecked."""
        return [r for r in self.site_rules if not self.fired.get(r)]

    @property
    def ok(self) -> bool:
        return not self.violations and not self.errors

    def violations_by_invariant(self) -> dict[str, int]:
        out: Counter[str] = Counter()
        for g in self.violations:
            out[g.invariant] += g.count
        return {k: out[k] for k in sorted(out)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "mode": self.mode, "seed": self.seed, "platforms": self.platforms, "chunks": self.chunks,
            "inputs": self.inputs, "resolved_ok": self.resolved_ok, "ok": self.ok,
            "violations_by_invariant": self.violations_by_invariant(),
            "violations": [g.to_dict() for g in self.violations],
            "quirks": dict(self.quirks), "quirk_examples": jsonable(self.quirk_examples),
            "rules": len(self.fired) + len(self.never_fired),
            "fired": dict(self.fired), "never_fired": self.never_fired, "cannot_fire": self.cannot_fire,
            "errors": dict(self.errors),
            **({"site_rules": {r: {"reached": self.site_reached.get(r, 0), "fired": self.fired.get(r, 0)}
                               for r in self.site_rules},
                "site_never_fired": self.site_never_fired, "site_pairs": dict(self.site_pairs)}
               if self.site_rules else {}),
        }


def _merge(chunks: Iterable[_Chunk], *, mode: str, seed: int, platforms: list[str], n_chunks: int,
           rules: tuple[str, ...] = ()) -> SweepReport:
    total = _Chunk()
    for c in chunks:  # in chunk order
        total.inputs += c.inputs
        total.resolved_ok += c.resolved_ok
        total.fired.update(c.fired)
        total.reached.update(c.reached)
        total.pairs.update(c.pairs)
        total.quirks.update(c.quirks)
        total.errors.update(c.errors)
        for q, ex in c.quirk_examples.items():
            if q not in total.quirk_examples or _size(ex) < _size(total.quirk_examples[q]):
                total.quirk_examples[q] = ex
        for g in c.groups.values():
            _add_group(total.groups, ViolationGroup(g.invariant, g.problem, g.rules, g.count, g.example, g.message))
    book = _book(rules)
    kinds = {Platform.from_spec(p).kind for p in platforms}
    never = sorted(r for r in book.rules if r not in total.fired)
    cannot = {}
    for r in never:
        gate = _gate(r, getattr(book.rules[r].fn, "__module__", ""))
        if gate is not None and gate not in kinds:
            cannot[r] = gate
    groups = sorted(total.groups.values(), key=lambda g: (g.invariant, -g.count, g.problem))
    return SweepReport(
        mode=mode, seed=seed, platforms=platforms, inputs=total.inputs, resolved_ok=total.resolved_ok,
        violations=groups, quirks=dict(sorted(total.quirks.items())),
        quirk_examples=dict(sorted(total.quirk_examples.items())),
        fired=dict(sorted(total.fired.items())), never_fired=never, cannot_fire=cannot,
        errors=dict(sorted(total.errors.items())), chunks=n_chunks,
        site_rules=list(load(list(rules)).ids) if rules else [],
        site_reached=dict(sorted(total.reached.items())),
        site_pairs={f"{a} x {b}": n for (a, b), n in sorted(total.pairs.items())},
    )


def _check_rulebook_order(permutations: int, seed: int, site: tuple[str, ...] = ()) -> list[ViolationGroup]:
    """Registration order at the rulebook level: shuffled registrations compile to the same order."""
    book = _book(site)
    rng = random.Random(seed)
    rules = list(book.rules.values())
    out = []
    for k in range(permutations):
        other = book.rebuilt(rules[::-1] if k == 0 else rng.sample(rules, len(rules)))
        if other.order != book.order:
            bad = [ph for ph in book.phases if other.order[ph] != book.order[ph]]
            out.append(ViolationGroup("registration-order", f"phase order differs in {bad}", (), 1, {}, ""))
    return out


def sweep(
    mode: Mode = "exhaustive",
    *,
    n: int = 1000,
    seed: int = 0,
    platforms: Sequence[str] | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    chunk_size: int = 64,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    replay: bool = True,
    rules: Sequence[str] = (),
) -> SweepReport:
    """Resolve the input space through every invariant; see the module docstring.

    ``platforms``: platform specs (default: :data:`~postinit.testing.PLATFORMS`).
    ``limit`` keeps the first ``limit`` inputs of the space (tests, smoke runs).
    ``progress(done, total)`` is called after each chunk, in completion order.
    ``replay=False`` makes the determinism check's second resolution from scratch instead of
    replaying the recorded base (the report is the same when the replay is right).
    ``rules`` are site rules (module names or .py files, what ``--rules`` takes) swept with vLLM's: the
    report then also says how often each ran and fired, and which of your x vLLM's rules touching one
    path fired on one input together.
    """
    site_specs = tuple(rules)
    _book(site_specs)  # a bad file or a conflict: one error now, not one per worker
    plats = list(platforms or vs.PLATFORMS)
    for p in plats:
        Platform.from_spec(p)  # a clear error for an unknown spec
    inputs = space(mode, n=n, seed=seed, platforms=plats)
    if limit is not None:
        inputs = inputs[:limit]
    chunks = [inputs[i:i + chunk_size] for i in range(0, len(inputs), max(1, chunk_size))]
    total = len(inputs)
    results: list[_Chunk | None] = [None] * len(chunks)
    done = 0

    def finished(i: int, r: _Chunk) -> None:
        nonlocal done
        results[i] = r
        done += r.inputs
        if progress is not None:
            progress(done, total)

    base = _record_base(plats[0], site_specs) if replay else None
    if scheduler is not None:
        _run_dask(chunks, scheduler, finished, base, site_specs)
    elif jobs > 1 and len(chunks) > 1:
        # the base travels once per worker process, with its initializer
        with ProcessPoolExecutor(max_workers=jobs, initializer=_install_base, initargs=(base, site_specs)) as pool:
            for i, r in enumerate(pool.map(_run_chunk_here, chunks)):
                finished(i, r)
    else:
        for i, c in enumerate(chunks):
            finished(i, _run_chunk(c, base, site_specs))
    report = _merge((r for r in results if r is not None), mode=mode, seed=seed, platforms=plats,
                    n_chunks=len(chunks), rules=site_specs)
    report.violations = _check_rulebook_order(3, seed, site_specs) + report.violations
    return report


def _run_dask(chunks: Sequence[Sequence[dict[str, Any]]], scheduler: str,
              finished: Callable[[int, _Chunk], None], base: _Base | None = None,
              rules: tuple[str, ...] = ()) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed  # untyped
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("the dask scheduler needs dask[distributed]: pip install 'postinit[sweep]'") from e
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)  # type: ignore[no-untyped-call]
    else:
        client = Client(scheduler)  # type: ignore[no-untyped-call]
    try:
        # the base is scattered to every worker once; each chunk's task names it (not a copy per task)
        shipped = client.scatter(base, broadcast=True) if base is not None else None  # type: ignore[no-untyped-call]
        futures = client.map(_run_chunk, list(chunks), shipped=shipped, rules=rules, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):  # type: ignore[no-untyped-call]
            finished(index[fut.key], fut.result())
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()


# -- rendering (the CLI's text format) -------------------------------------------------------------


def print_report(report: SweepReport, console: Any) -> None:
    """Render a report on a rich console: a summary table, the violation groups, quirks, rule coverage."""
    from rich.table import Table

    summary = Table(title=f"postinit sweep ({report.mode}, seed {report.seed}, {', '.join(report.platforms)})")
    summary.add_column("measure")
    summary.add_column("value", justify="right")
    rows = [
        ("inputs resolved", report.inputs),
        ("resolved without violation", report.resolved_ok),
        ("chunks", report.chunks),
        ("invariant violations", sum(g.count for g in report.violations)),
        *((f"  {inv}", n) for inv, n in report.violations_by_invariant().items()),
        ("known quirks hit (inputs)", sum(report.quirks.values())),
        *((f"  {q}", n) for q, n in report.quirks.items()),
        ("rules fired", f"{len(report.fired)}/{len(report.fired) + len(report.never_fired)}"),
        ("rules never fired", len(report.never_fired)),
        ("  of which cannot fire on these platforms", len(report.cannot_fire)),
        ("generator errors", sum(report.errors.values())),
    ]
    for k, v in rows:
        summary.add_row(str(k), str(v))
    console.print(summary)
    for g in report.violations:
        console.print(f"\n[bold red]{g.invariant}[/] x{g.count}: {g.problem}")
        console.print(f"  rules: {', '.join(g.rules) or '-'}")
        console.print(f"  smallest counterexample: {json_dumps(g.example)}")
    if report.quirk_examples:
        console.print("\n[bold]known quirks[/] (docs/quirks.md), smallest input each:")
        for q, ex in report.quirk_examples.items():
            console.print(f"  {q}: {json_dumps(ex)}")
    if report.never_fired:
        console.print("\n[bold]rules that never fired[/]:")
        for r in report.never_fired:
            flag = f"  [dim](cannot fire: {report.cannot_fire[r]}-only)[/]" if r in report.cannot_fire else ""
            console.print(f"  {r}{flag}")
    if report.site_rules:
        console.print("\n[bold]your rules[/] (inputs reached / fired):")
        for r in report.site_rules:
            flag = "  [bold red]never fired: its ensures= was never checked[/]" if not report.fired.get(r) else ""
            console.print(f"  {r}: {report.site_reached.get(r, 0)} / {report.fired.get(r, 0)}{flag}")
        if report.site_pairs:
            console.print("  your x vLLM's rules touching one path, fired on one input together:")
            for pair, n in report.site_pairs.items():
                console.print(f"    {pair}: {n}")
    for e, n in report.errors.items():
        console.print(f"[red]generator error[/] x{n}: {e}")


def json_dumps(obj: Any) -> str:
    import json

    return json.dumps(jsonable(obj), sort_keys=True)
