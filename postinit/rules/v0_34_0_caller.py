"""vLLM 0.34.0 called from Python, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

A config dict resolved through EngineArgs (``postinit.resolve(config, usage="engine")``, ``"llm"``, ...) is what a
Python caller passes ``EngineArgs(**kwargs)`` (``LLM(...)``'s keyword arguments reach it the same way): a sub-config
given as a dict is built by ``EngineArgs.__post_init__`` itself (vllm/engine/arg_utils.py:887-927), where vLLM's
parser hands EngineArgs the object it has built. The door refuses such a dict where EngineArgs builds it
(``version.engine_args_dicts``, ``_stages.refuse_engine_args_dicts``: stage ``engine_args``); what
``__post_init__`` decides besides building them is here. The golden cases are issue 30's caller-mode ones
(k1000-k1099, ``caller`` in tests/golden/oracle_cli.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, rule
from postinit.rules.versions import Delta

__all__ = ["DELTA"]

_REF = "ref v0.34.0"
_FT = "parallel_config.fault_tolerance_config"

ENGINE_ARGS_DICTS = {
    "compilation_config": "CompilationConfig", "attention_config": "AttentionConfig",
    "aux_output_config": "AuxOutputConfig", "engram_config": "EngramConfig", "mamba_config": "MambaConfig",
    "kernel_config": "KernelConfig", "ec_manager_config": "EncoderCacheManagerConfig",
    "parallel_config.eplb_config": "EPLBConfig", "weight_transfer_config": "WeightTransferConfig",
    _FT: "FaultToleranceConfig", "watchdog_config": "WatchdogConfig",
}
"""EngineArgs.__post_init__'s ``if isinstance(self.<field>, dict): self.<field> = <Class>(**self.<field>)``, in its
order (vllm/engine/arg_utils.py:891-927; ``ir_op_priority``, :923, is an EngineArgs field no sub-config dict
holds: a caller's ``--ir-op-priority``)."""


@rule(
    "engine-args.fault-tolerance-dict",
    title="A fault tolerance config given to EngineArgs as a dict turns fault tolerance on",
    phase="engine_args",
    kind="override",
    reads=("usage.via_engine_args", "usage.dicts", "parallel_config.enable_fault_tolerance"),
    writes=("parallel_config.enable_fault_tolerance",),
    source="vllm/engine/arg_utils.py EngineArgs.__post_init__ (:913-922); " + _REF,
    message="--fault-tolerance-config was passed. Fault tolerance is being automatically enabled.",
    level="warning",
)
def fault_tolerance_dict(c: Mapping[str, Any]) -> RuleResult:
    """Only a dict: vLLM's parser builds --fault-tolerance-config's object, which __post_init__ leaves alone (a
    `vllm serve` with that flag and without --enable-fault-tolerance keeps fault tolerance off)."""
    if not c["usage.via_engine_args"] or _FT not in (c["usage.dicts"] or ()) \
            or c["parallel_config.enable_fault_tolerance"]:
        return None
    return Outcome.log({"parallel_config.enable_fault_tolerance": True})


DELTA = Delta(add=(fault_tolerance_dict,), facts={"engine_args_dicts": ENGINE_ARGS_DICTS,
                                                  "engine_args_dict_rules": ["engine-args.fault-tolerance-dict"]})
"""The Python-caller part of vLLM 0.34.0's delta over 0.11.1."""
