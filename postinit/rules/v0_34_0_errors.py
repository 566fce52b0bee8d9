"""vLLM 0.34.0's refusals in ``EngineArgs.create_engine_config``: the part of its delta over 0.11.1 that raises.

0.34.0 reworded the data-parallel launch checks as ``ValueError``\\ s that name the flags (0.11.1 asserted),
and added checks of its own: fault tolerance needs external load balancing, a dense model has no external
data parallelism, a multi-node run's node rank is bounded. Each rule names the line of
``vllm/engine/arg_utils.py`` (the 0.34.0 wheel) whose statement it mirrors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.versions import Delta

__all__ = ["DELTA"]

_ARGS = "vllm/engine/arg_utils.py EngineArgs"
_REF = "ref 12.2, v0.34.0"
_EA = "usage.via_engine_args"
_DP = "parallel_config.data_parallel_size"
_DPR, _DPL = "parallel_config.data_parallel_rank", "parallel_config.data_parallel_size_local"
_HYBRID, _EXTERNAL = "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb"
_OPTS = "Invalid data-parallel launch options: "

_DP_LB_READS = (_EA, "usage.given", "usage.data_parallel_start_rank", "usage.headless", _DP, _DPL, _DPR, _HYBRID,
                _EXTERNAL, "parallel_config.data_parallel_backend", "parallel_config.nnodes",
                "parallel_config.node_rank", "parallel_config.pipeline_parallel_size",
                "parallel_config.tensor_parallel_size", "parallel_config.prefill_context_parallel_size",
                "parallel_config.enable_fault_tolerance", "model_config.is_moe")


def _dp_lb(c: Mapping[str, Any]) -> Violation | tuple[dict[str, Any], list[tuple[str, str]]]:
    """0.34.0's create_engine_config on the data-parallel arguments (vllm/engine/arg_utils.py:2412-2560): its first
    refusal, or the values it passes to ParallelConfig with what it logs."""
    given = c["usage.given"] or ()
    rank_set, local_set = _DPR in given, _DPL in given
    headless, start = bool(c["usage.headless"]), int(c["usage.data_parallel_start_rank"] or 0)
    hybrid, external_flag = bool(c[_HYBRID]), bool(c[_EXTERNAL])
    dp, local, rank = c[_DP], c[_DPL], c[_DPR]
    nnodes, node_rank = c["parallel_config.nnodes"], c["parallel_config.node_rank"]
    backend = c["parallel_config.data_parallel_backend"]
    said: list[tuple[str, str]] = []
    if headless and hybrid:  # :2412
        return Violation("data_parallel_hybrid_lb is not applicable in headless mode", error="AssertionError")
    if hybrid and external_flag:  # :2415
        return Violation(_OPTS + "`--data-parallel-hybrid-lb` and `--data-parallel-external-lb` cannot be enabled "
                         "together. Enable only one load-balancing mode.")
    if nnodes > 1 and backend != "mp":  # :2422
        return Violation(_OPTS + f"`--nnodes {nnodes}` requires `--data-parallel-backend mp`; got "
                         f"`--data-parallel-backend {backend}`. Use the MP backend or set `--nnodes 1`.")
    inferred = 0
    if nnodes > 1:  # :2431
        within = (c["parallel_config.pipeline_parallel_size"] * c["parallel_config.tensor_parallel_size"]
                  * c["parallel_config.prefill_context_parallel_size"])
        world = dp * within
        if world % nnodes != 0:
            return Violation(_OPTS + f"`--nnodes {nnodes}` must evenly divide the total world size ({world}). "
                             "Adjust `--nnodes`, `--data-parallel-size`, `--pipeline-parallel-size`, "
                             "`--tensor-parallel-size`, or `--prefill-context-parallel-size`.")
        if not 0 <= node_rank < nnodes:
            return Violation(_OPTS + f"`--node-rank` must be between 0 and {nnodes - 1}; got `--node-rank "
                             f"{node_rank}`. Set it to this node's zero-based index.")
        local_world = world // nnodes
        inferred = node_rank * local_world // within
        if dp > 1 and external_flag:
            if not rank_set:
                if nnodes % dp != 0:
                    return Violation(_OPTS + "`--node-rank` cannot unambiguously identify external data-parallel "
                                     "ranks when `--nnodes` is not divisible by `--data-parallel-size`. Set a "
                                     "unique `--data-parallel-rank` for each external-LB process.")
                rank, rank_set = inferred, True
                said.append(("info", f"Inferred data_parallel_rank {rank} from node_rank {node_rank} for external lb"))
        elif not local_set:
            local, local_set = max(local_world // within, 1), True
    external = external_flag or rank_set  # :2481
    if c["parallel_config.enable_fault_tolerance"] and not external:  # :2484
        return Violation("Fault tolerance requires external load balancer mode (--data-parallel-external-lb or "
                         "--data-parallel-rank). Internal LB mode is not supported.")
    if dp > 1 and external and not c["model_config.is_moe"]:  # :2490
        return Violation("Non-MoE models do not support external data parallel mode. For external load balancing, "
                         "launch independent vLLM instances without --data-parallel-* arguments.")
    if external:  # :2500
        if not rank_set:
            return Violation(_OPTS + "`--data-parallel-external-lb` requires a data-parallel rank. Set "
                             "`--data-parallel-rank`, or set `--data-parallel-size` greater than 1 and use "
                             "`--nnodes` with `--node-rank` so the rank can be inferred.",
                             hint="give --data-parallel-rank")
        if local_set and local not in (1, None):
            return Violation(_OPTS + "an external data-parallel rank requires `--data-parallel-size-local 1`; got "
                             f"{local}. Set it to 1 or omit it.")
        local, hybrid = 1, False
    elif local_set:  # :2520
        if start and not headless:
            hybrid = True
        if hybrid and local == 1:
            said.append(("warning", "data_parallel_hybrid_lb is not eligible when data_parallel_size_local = 1, "
                                    "autoswitch to data_parallel_external_lb."))
            external, hybrid = True, False
        if local == dp:
            hybrid = False
        rank = start or inferred
        if nnodes > 1:
            said.append(("info", f"Inferred data_parallel_rank {rank} from node_rank {node_rank}"))
    else:  # :2553
        if hybrid:
            return Violation(_OPTS + "`--data-parallel-hybrid-lb` requires `--data-parallel-size-local`. Set it to "
                             "the number of data-parallel ranks on this node.", hint="add --data-parallel-size-local")
        local = dp
    return ({_DPL: local, _DPR: rank, _HYBRID: hybrid, _EXTERNAL: external}, said)


@rule(
    "engine-args.data-parallel-lb",
    title="Data-parallel load balancing: the local DP size, the rank, external or hybrid LB, multi-node inference",
    phase="engine_args",
    kind="default",
    reads=_DP_LB_READS,
    writes=(_DPL, _DPR, _HYBRID, _EXTERNAL),
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2412-2560); {_REF}",
    message="",  # what it infers or switches is said by each outcome (the two info / warning records)
    level="debug",
)
def data_parallel_lb(c: Mapping[str, Any]) -> RuleResult:
    """As in 0.11.1, with prefill context parallelism counted in a node's share of the world, and a rank
    inferred from --node-rank only where none was given."""
    if not c[_EA]:
        return None
    found = _dp_lb(c)
    if isinstance(found, Violation):
        return None  # engine-args.data-parallel-lb-check raises it
    out, said = found
    changes = {k: v for k, v in out.items() if c[k] != v}
    if not said:
        return changes or None
    level = "warning" if any(lv == "warning" for lv, _ in said) else "info"
    return Outcome(changes, message="\n".join(text for _, text in said), level=level)


@rule(
    "engine-args.data-parallel-lb-check",
    title="create_engine_config's refusals of the data-parallel launch options",
    phase="engine_args",
    kind="check",
    reads=_DP_LB_READS,
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2412-2560); {_REF}",
    message="<create_engine_config's refusal>",
)
def data_parallel_lb_check(c: Mapping[str, Any]) -> RuleResult:
    """Hybrid LB needs a local DP size and excludes external LB; external LB needs a rank (given, or inferred on a
    multi-node run) and a local DP size of 1; multi-node needs mp, a world the nodes divide and a node rank below
    the node count; fault tolerance needs external LB; a dense model cannot be data-parallel behind an external
    load balancer (it gains nothing over independent instances)."""
    if not c[_EA]:
        return None
    found = _dp_lb(c)
    return found if isinstance(found, Violation) else None


DELTA = Delta(
    replace=(data_parallel_lb, data_parallel_lb_check),
)
"""The refusals of vLLM 0.34.0's create_engine_config (a part of its delta over 0.11.1)."""
