"""The generic rulebook invariants applied to the vLLM rulebook, with vLLM's known quirks named.

:mod:`postinit.engine.testing` states invariants any rulebook should keep
(determinism, termination, registration-order independence, a complete
trace, declared reads and writes, idempotence, postconditions). vLLM's own
``__post_init__`` breaks a few of them on purpose or by accident; each such
break is a :class:`KnownQuirk` here, with what is inconsistent, what vLLM
does and the test that pins it (``docs/quirks.md`` lists them).
:func:`check_vllm` runs every invariant and tolerates *exactly* the named
quirks: a violation is accepted only if a quirk explains every part of it
(every path an idempotence re-run changed, every rule of a non-terminating
loop, every rule whose postcondition a later rule broke, and that later
rule), otherwise the generic :class:`~postinit.engine.testing.InvariantViolation`
propagates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from postinit.engine import EngineResult, Rulebook
from postinit.engine import testing as kit
from postinit.errors import NoFixedPoint, UndeclaredReadError

__all__ = ["INVARIANTS", "KNOWN_QUIRKS", "KnownQuirk", "QuirkHit", "check_vllm", "postcondition_allow"]

INVARIANTS = (
    "determinism", "termination", "registration-order", "declared-writes", "declared-reads",
    "trace-completeness", "idempotence", "postconditions",
)


@dataclass(frozen=True)
class KnownQuirk:
    """One invariant that vLLM's behaviour breaks, named and explained."""

    name: str
    invariant: str
    summary: str
    """What is inconsistent."""
    vllm: str
    """What vLLM does (and where)."""
    rules: tuple[str, ...]
    """Rules involved (documentation; postconditions: the rules whose postcondition may break)."""
    paths: tuple[str, ...] = ()
    """Paths it explains: that differ on re-resolving (idempotence), that keep changing (termination)."""
    broken_by: tuple[str, ...] = ()
    """postconditions: the later rules that may break ``rules``' postconditions."""
    phase: str | None = None
    """termination: the phase that does not reach a fixed point."""
    reresolve_violations: tuple[str, ...] = ()
    """idempotence: check rules that may reject the resolved config when it is resolved again ..."""
    when: Callable[[Mapping[str, Any]], bool] | None = None
    """... provided this holds on the first resolution's final state."""
    test: str = ""
    """The test that pins it."""


_CUSTOM_OPS_WRITERS = (
    "compilation.default-custom-ops", "compilation.sp-needs-rms-norm", "rocm.aiter-rms-norm",
    "compilation.blocked-fp8-adds-quant-fp8",
)

def _graphs_without_sizes(c: Mapping[str, Any]) -> bool:
    mode = c["compilation_config.cudagraph_mode"]
    return bool(c["compilation_config.max_cudagraph_capture_size"] == 0 and mode is not None and mode.value != 0)


KNOWN_QUIRKS: tuple[KnownQuirk, ...] = (
    KnownQuirk(
        "custom-ops-append-not-idempotent", "idempotence",
        summary="re-resolving a resolved config appends '+rms_norm' / '+quant_fp8' to custom_ops again",
        vllm="VllmConfig.__post_init__ appends to compilation_config.custom_ops with list.append and no "
             "membership test (SP needs +rms_norm, blocked FP8 needs +quant_fp8, the default 'none'/'all' "
             "entry, ROCm AITER +rms_norm); feeding the resolved CompilationConfig back into VllmConfig "
             "grows the list by one entry per pass (reference §13.3)",
        rules=_CUSTOM_OPS_WRITERS, paths=("compilation_config.custom_ops",),
        test="tests/rules/test_properties.py::test_quirk_custom_ops_append_not_idempotent",
    ),
    KnownQuirk(
        "sp-emptied-capture-sizes-not-reresolvable", "idempotence",
        summary="a resolved config whose capture sizes sequence parallelism filtered away (max size 0, "
                "cudagraphs still on) is rejected when resolved again",
        vllm="with SP, VllmConfig keeps only capture sizes divisible by TP; when none is left the max "
             "capture size becomes 0 while cudagraph_mode stays on (quirk.cudagraph-without-capture-sizes). "
             "vLLM accepts that on the first pass, but _set_cudagraph_sizes asserts 'Maximum cudagraph size "
             "should be greater than or equal to 1 when using cuda graph.' when the max size 0 arrives as input",
        rules=("cudagraph.sp-filters-capture-sizes", "cudagraph.capture-sizes"),
        reresolve_violations=("cudagraph.capture-sizes",), when=_graphs_without_sizes,
        test="tests/rules/test_properties.py::test_quirk_sp_emptied_capture_sizes_not_reresolvable",
    ),
    KnownQuirk(
        "original-max-model-len-records-input", "idempotence",
        summary="re-resolving a resolved config sets model_config.original_max_model_len (None before)",
        vllm="ModelConfig.__post_init__ keeps the *user's* max_model_len as original_max_model_len before "
             "deriving the real one; a resolved config carries the derived max_model_len as if the user had "
             "set it, so the second pass records it",
        rules=("model.max-model-len",), paths=("model_config.original_max_model_len",),
        test="tests/rules/test_properties.py::test_quirk_original_max_model_len_records_input",
    ),
)


def postcondition_allow() -> dict[str, set[str]]:
    """``{rule: {later rules allowed to break its postcondition}}`` from :data:`KNOWN_QUIRKS`."""
    out: dict[str, set[str]] = {}
    for q in KNOWN_QUIRKS:
        if q.invariant == "postconditions":
            for r in q.rules:
                out.setdefault(r, set()).update(q.broken_by)
    return out


@dataclass(frozen=True)
class QuirkHit:
    """A known quirk that showed up for one input."""

    quirk: str
    invariant: str
    detail: str


def _quirks(invariant: str) -> list[KnownQuirk]:
    return [q for q in KNOWN_QUIRKS if q.invariant == invariant]


def _oscillating(v: kit.InvariantViolation) -> set[str]:
    """The paths a :class:`NoFixedPoint` saw take more than two values (the ones that kept changing)."""
    cause = v.__cause__
    flips = cause.flips if isinstance(cause, NoFixedPoint) else {}
    return {p for p, values in flips.items() if len(values) > 2}


def _explain_termination(v: kit.InvariantViolation) -> list[QuirkHit] | None:
    """A consistent resolution's loop is known when every path that kept changing belongs to a termination quirk.

    (Under ``semantics="consistent"`` the phases collapse, so two quirks'
    loops can show up as one; phases and rule lists are not compared, the
    oscillating paths are.)
    """
    paths = _oscillating(v)
    quirks = [q for q in _quirks("termination") if paths & set(q.paths)]
    if not paths or not paths <= {p for q in quirks for p in q.paths}:
        return None
    return [QuirkHit(q.name, "termination", ", ".join(sorted(paths & set(q.paths)))) for q in quirks]


def _explain_idempotence(book: Rulebook, state: Mapping[str, Any]) -> list[QuirkHit] | None:
    first = book.resolve(state, semantics="consistent", trace="minimal")
    again = book.resolve(first.state, semantics="consistent", trace="minimal")
    return explain_idempotence(first.state, again)


def explain_idempotence(first: Mapping[str, Any], again: EngineResult) -> list[QuirkHit] | None:
    """The known quirks that explain why re-resolving ``first`` (a consistent resolution's state) gave
    ``again`` (its consistent re-resolution); None when none fully does."""
    if not again.ok:  # the second pass stopped early: only a known rejection explains it
        rule = again.violations[0].rule
        for q in _quirks("idempotence"):
            if rule in q.reresolve_violations and (q.when is None or q.when(first)):
                return [QuirkHit(q.name, "idempotence", f"re-resolving raised {rule}")]
        return None
    changed = {p for p in first if not kit._same(first[p], again.state.get(p))}
    hits, explained = [], set()
    for q in _quirks("idempotence"):
        mine = changed & set(q.paths)
        if mine:
            explained |= mine
            hits.append(QuirkHit(q.name, "idempotence", ", ".join(sorted(mine))))
    return hits if changed and changed <= explained else None


def check_vllm(book: Rulebook, state: Mapping[str, Any], *, permutations: int = 2) -> list[QuirkHit]:
    """Run every invariant of :mod:`postinit.engine.testing` on one input; return the known quirks it hit.

    Raises :class:`~postinit.engine.testing.InvariantViolation` for any
    violation no :data:`KNOWN_QUIRKS` entry fully explains.
    """
    hits: list[QuirkHit] = []
    result = kit.check_determinism(book, state)
    kit.check_termination(book, state, semantics=("ordered",))
    consistent_ok = True
    try:
        kit.check_termination(book, state, semantics=("consistent",))
    except kit.InvariantViolation as v:
        known = _explain_termination(v)
        if known is None:
            raise
        hits += known
        consistent_ok = False  # idempotence needs a consistent fixed point
    if permutations:
        kit.check_registration_order(book, state, permutations)
    kit.check_declared_writes(book, state)
    if consistent_ok:
        kit.check_declared_reads(book, state)
    else:  # only the vllm semantics terminates
        try:
            book.resolve(state, strict=True)
        except UndeclaredReadError as e:
            raise kit.InvariantViolation(
                "declared-reads", f"{type(e).__name__}: {e}", book=book, state=state, rules=[e.rule or ""],
            ) from e
    kit.check_trace_completeness(result)
    if consistent_ok:
        try:
            kit.check_trace_completeness(kit.check_idempotence(book, state))
        except kit.InvariantViolation as v:
            if v.invariant != "idempotence":
                raise
            known = _explain_idempotence(book, state)
            if known is None:
                raise
            hits += known
    allow = postcondition_allow()
    for rid, by in kit.check_postconditions(result, allow=allow):
        if by not in allow.get(rid, ()):
            raise kit.InvariantViolation(
                "postconditions", f"rule {rid}'s postcondition broken by {by}, which no known quirk allows",
                book=book, state=state, result=result, rules=[rid, by],
            )
        name = next(q.name for q in _quirks("postconditions") if rid in q.rules and by in q.broken_by)
        hits.append(QuirkHit(name, "postconditions", f"{rid} broken by {by}"))
    return hits
