"""What of a rule real vLLM lets an observer see: where its violation raises, and whether it logs.

Two facts about each rule that the differential tests against real vLLM
(``tests/golden/parity.py``) compare, kept here beside the rules:

**The stage** (:func:`stage_of`) at which vLLM raises the exception a rule's
``Violation`` stands for, named as the oracle names it: ``engine_args``
(``EngineArgs.__post_init__``), the sub-config whose construction raised
(``model_config``, ``cache_config``, ``parallel_config``, ``scheduler_config``,
``speculative_config``, ``lora_config``, ``compilation_config``,
``kv_transfer_config``, ...), ``create_engine_config`` (EngineArgs' own
checks) or ``vllm_config`` (``VllmConfig.__post_init__`` and every hook it
calls). It follows from the rule's phase and, for the phases that stand for
several vLLM objects, from the vLLM source the rule mirrors: ``model_config``
rules are ``ModelConfig.__post_init__``; a ``sub_configs`` rule belongs to the
sub-config of its source file (``vllm/config/scheduler.py`` →
``scheduler_config``); a rule whose source is ``vllm/engine/arg_utils.py`` is
``create_engine_config`` unless it is ``EngineArgs.__post_init__``; the phases
from ``model`` on are ``VllmConfig.__post_init__``. (A check vLLM runs inside an
earlier object belongs in that object's phase: the ROCm quantization checks run in
phase ``model_config``.) The vLLM rulebook sets each
rule's ``stage`` from it, and ``ViolationEvent.stage`` carries it in the trace.

**Explanations** (:data:`EXPLANATIONS`): the rules whose message is postinit's
own explanation of something vLLM does silently (``quirk.*`` warnings that make
an inconsistent end state visible, notes on values postinit cannot reproduce)
rather than one of vLLM's log records. Every other rule's message is vLLM's log
text, at vLLM's level; the golden tests hold postinit to that both ways.
"""

from __future__ import annotations

import re

from postinit.engine import Rule

__all__ = ["EXPLANATIONS", "VLLM_STAGES", "is_explanation", "stage_of"]

VLLM_STAGES = (
    "parse",
    "engine_args",
    "device_config",
    "model_config",
    "cache_config",
    "parallel_config",
    "speculative_config",
    "scheduler_config",
    "lora_config",
    "load_config",
    "structured_outputs_config",
    "observability_config",
    "compilation_config",
    "kv_transfer_config",
    "kv_events_config",
    "create_engine_config",
    "vllm_config",
    "compute_hash",
)
"""Where vLLM can fail, in the order ``vllm serve`` meets them (the oracle's ``stage`` values)."""

_VLLM_CONFIG_PHASES = frozenset({"model", "verify", "core", "platform", "finalize", "validate"})
_CONFIG_FILE = re.compile(r"vllm/config/(\w+)\.py")

EXPLANATIONS: frozenset[str] = frozenset({
    "vllm.instance-id",
    "engine-args.chunked-prefill-forced",
    "cuda.mla-backend-default",
    "verify.dual-chunk-attention",
    "model.task",  # vLLM warns with warnings.warn(DeprecationWarning), not its logger
})
"""Rules (besides every ``quirk.*`` rule) whose message explains a silent vLLM decision; not a vLLM log."""


def is_explanation(rule_id: str) -> bool:
    """True when the rule's message is postinit's explanation, not a record vLLM logs."""
    return rule_id.startswith("quirk.") or rule_id in EXPLANATIONS


def stage_of(rule: Rule) -> str:
    """The oracle's name for where vLLM raises the exception of ``rule``'s violation."""
    if rule.phase in _VLLM_CONFIG_PHASES:
        return "vllm_config"
    if rule.phase == "model_config":
        return "model_config"
    where = rule.source.split(";", 1)[0]
    if "vllm/engine/arg_utils.py" in where.split(" / ", 1)[0]:
        return "engine_args" if "EngineArgs.__post_init__" in where else "create_engine_config"
    match = _CONFIG_FILE.search(where)
    if match is None or match.group(1) == "vllm":
        raise ValueError(f"rule '{rule.id}' ({rule.phase}): no vLLM stage follows from its source {where!r}")
    return f"{match.group(1)}_config"
