"""postinit's generic rule engine: it knows rules, paths and phases, nothing of vLLM.

Declare rules with :func:`rule`, compile them into a :class:`Rulebook` over a
:class:`PathSpace` (the flat view of a pydantic model), and resolve a flat
state to a fixed point with :meth:`Rulebook.resolve`, which returns an
:class:`EngineResult` carrying the final values, provenance and the
:class:`Trace`.
"""

from typing import TYPE_CHECKING

from postinit.engine._effect import Decided, Decision, Effect, decide, effect_of
from postinit.engine._incremental import replay
from postinit.engine._lazy import lazy_getattr
from postinit.engine._paths import FrozenDict, PathInfo, PathSpace, freeze, thaw
from postinit.engine._resolve import resolve_flat
from postinit.engine._rule import (
    Group,
    GroupKind,
    Kind,
    Level,
    Outcome,
    Rule,
    RuleFn,
    RuleResult,
    Violation,
    all_of,
    first_match,
    make_rule,
    rule,
    rule_of,
    sequence,
    with_params,
)
from postinit.engine._rulebook import CompiledRule, Rulebook
from postinit.engine._run import EngineResult, Semantics, TraceLevel
from postinit.engine._trace import (
    TRACE_VERSION,
    Change,
    Evaluated,
    Event,
    Fired,
    Provenance,
    Source,
    StaleRead,
    Trace,
    ViolationEvent,
    jsonable,
)

if TYPE_CHECKING:
    from postinit.engine._explain import Candidate, Condition, Step, WhyNode, WhyNot

_LAZY = {"Candidate", "Condition", "Step", "WhyNode", "WhyNot"}
"""Names of the explanation module, imported on first use (``why``/``why_not`` need it)."""


__getattr__ = lazy_getattr(__name__, globals(), _LAZY, "postinit.engine._explain")


__all__ = [
    "TRACE_VERSION",
    "Candidate",
    "Change",
    "CompiledRule",
    "Condition",
    "Decided",
    "Decision",
    "Effect",
    "EngineResult",
    "Evaluated",
    "Event",
    "Fired",
    "FrozenDict",
    "Group",
    "GroupKind",
    "Kind",
    "Level",
    "Outcome",
    "PathInfo",
    "PathSpace",
    "Provenance",
    "Rule",
    "RuleFn",
    "RuleResult",
    "Rulebook",
    "Semantics",
    "Source",
    "StaleRead",
    "Step",
    "Trace",
    "TraceLevel",
    "Violation",
    "ViolationEvent",
    "WhyNode",
    "WhyNot",
    "all_of",
    "decide",
    "effect_of",
    "first_match",
    "freeze",
    "jsonable",
    "make_rule",
    "replay",
    "resolve_flat",
    "rule",
    "rule_of",
    "sequence",
    "thaw",
    "with_params",
]
