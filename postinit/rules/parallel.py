"""ParallelConfig: its own ``__post_init__`` (phase ``sub_configs``), the batch-invariant
custom all-reduce switch vLLM makes while building the ModelConfig, and step 20 of
``VllmConfig.__post_init__`` (dual batch overlap, phase ``finalize``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    Rule,
    RuleResult,
    Violation,
    all_of,
    make_rule,
    rule,
    sequence,
)

_CASCADE = "model_config.disable_cascade_attn"
_DBO_MESSAGE = (
    "Microbatching currently only supports the deepep_low_latency and deepep_high_throughput "
    "all2all backend. {backend} is not supported. To fix use --all2all-backend=deepep_low_latency "
    "or --all2all-backend=deepep_high_throughput and install the DeepEP kernels."
)
_DEEPEP = ("deepep_low_latency", "deepep_high_throughput")

_PAR = "vllm/config/parallel.py ParallelConfig"
_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"

# =========================================================================== ParallelConfig

_A2A = "parallel_config.all2all_backend"


@rule(
    "parallel.all2all-backend-default",
    title="all2all_backend defaults to VLLM_ALL2ALL_BACKEND",
    phase="sub_configs",
    kind="default",
    reads=(_A2A, "env.VLLM_ALL2ALL_BACKEND", "env.all2all_backend_set", "usage.via_engine_args"),
    writes=(_A2A,),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="",
)
def all2all_backend_default(c: Mapping[str, Any]) -> RuleResult:
    """The env variable is the deprecated way to choose the MoE all2all backend; it still fills an unset value.

    The deprecation is a ``warning_once``: ``vllm serve`` builds its argument parser first, and the parser
    builds a default ParallelConfig for the flags' defaults, which logs it then; the config's own
    construction repeats nothing (golden case n008-all2all-env).
    """
    if c[_A2A] is not None:
        return None
    change = {_A2A: c["env.VLLM_ALL2ALL_BACKEND"]}
    if c["env.all2all_backend_set"] and not c["usage.via_engine_args"]:
        return Outcome(change, level="warning", message=(
            "VLLM_ALL2ALL_BACKEND environment variable is deprecated and will be removed in a future "
            "release. Please use the --all2all-backend command-line argument instead."))
    return change


_EPLB_FORWARD = (
    ("num_redundant_experts", "num_redundant_experts"),
    ("eplb_window_size", "window_size"),
    ("eplb_step_interval", "step_interval"),
    ("eplb_log_balancedness", "log_balancedness"),
)


@rule(
    "parallel.eplb-deprecated-fields",
    title="Deprecated EPLB fields are forwarded into eplb_config",
    phase="sub_configs",
    kind="override",
    reads=tuple(f"parallel_config.{old}" for old, _ in _EPLB_FORWARD),
    writes=tuple(f"parallel_config.eplb_config.{new}" for _, new in _EPLB_FORWARD),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="<field> is deprecated and has been replaced with eplb_config.<field>. This will be removed in "
    "v0.12.0. Changing this field after initialization will have no effect.",
    level="warning",
)
def eplb_deprecated_fields(c: Mapping[str, Any]) -> RuleResult:
    """The old top-level EPLB knobs moved into eplb_config; a set old field still wins."""
    changes = {f"parallel_config.eplb_config.{new}": c[f"parallel_config.{old}"]
               for old, new in _EPLB_FORWARD if c[f"parallel_config.{old}"] is not None}
    if not changes:
        return None
    msgs = [f"{old} is deprecated and has been replaced with eplb_config.{new}. This will be removed in "
            "v0.12.0. Changing this field after initialization will have no effect."
            for old, new in _EPLB_FORWARD if c[f"parallel_config.{old}"] is not None]
    return Outcome(changes, message="\n".join(msgs))  # one warning record per field in vLLM


@rule(
    "parallel.world-size",
    title="world_size = pipeline_parallel_size x tensor_parallel_size",
    phase="sub_configs",
    kind="derive",
    reads=("parallel_config.pipeline_parallel_size", "parallel_config.tensor_parallel_size",
           "parallel_config.data_parallel_size", "parallel_config.distributed_executor_backend"),
    writes=("parallel_config.world_size",),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="",
)
def world_size(c: Mapping[str, Any]) -> RuleResult:
    """One worker per pipeline stage and tensor shard; an external launcher also runs every DP rank itself."""
    ws = c["parallel_config.pipeline_parallel_size"] * c["parallel_config.tensor_parallel_size"]
    if c["parallel_config.distributed_executor_backend"] == "external_launcher":
        ws *= c["parallel_config.data_parallel_size"]
        return Outcome({"parallel_config.world_size": ws},
                       message="Using external launcher for distributed inference.")
    return {"parallel_config.world_size": ws}


_DP_ENV = (
    ("data_parallel_size", "VLLM_DP_SIZE"),
    ("data_parallel_rank", "VLLM_DP_RANK"),
    ("data_parallel_rank_local", "VLLM_DP_RANK_LOCAL"),
    ("data_parallel_master_ip", "VLLM_DP_MASTER_IP"),
    ("data_parallel_master_port", "VLLM_DP_MASTER_PORT"),
)


def _dp_given(c: Mapping[str, Any]) -> bool:
    return bool(c["parallel_config.data_parallel_size"] > 1 or c["parallel_config.data_parallel_size_local"] == 0)


@rule(
    "parallel.data-parallel-from-env",
    title="Without DP in the config, the VLLM_DP_* variables decide",
    phase="sub_configs",
    kind="override",
    reads=("parallel_config.data_parallel_size_local",
           *(f"parallel_config.{f}" for f, _ in _DP_ENV), *(f"env.{e}" for _, e in _DP_ENV)),
    writes=tuple(f"parallel_config.{f}" for f, _ in _DP_ENV),
    source=f"{_PAR}.__post_init__; ref 2.3",
    level="debug",
)
def data_parallel_from_env(c: Mapping[str, Any]) -> RuleResult:
    """Fall back to the env variables (e.g. for the offline SPMD case) when DP was not given in the engine args.

    A data_parallel_size <= 1 (with a local size other than 0) is overwritten by VLLM_DP_SIZE, the
    rank, local rank, master IP and port by VLLM_DP_RANK, _RANK_LOCAL, _MASTER_IP and _MASTER_PORT.
    """
    if _dp_given(c):
        return None
    return {f"parallel_config.{f}": c[f"env.{e}"] for f, e in _DP_ENV}


@rule(
    "parallel.external-launcher-dp-rank",
    title="An external launcher with data parallelism takes the DP rank from RANK",
    phase="sub_configs",
    kind="override",
    reads=("parallel_config.data_parallel_size", "parallel_config.data_parallel_size_local",
           "parallel_config.distributed_executor_backend", "parallel_config.world_size", "env.RANK"),
    writes=("parallel_config.data_parallel_rank",),
    after=("parallel.world-size",),
    # vLLM reads the backend as given, before it defaults one (which is never external_launcher)
    feedback=("parallel.executor-backend-multi", "parallel.executor-backend-uni"),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="Set data_parallel_rank to {rank} automatically.",
    level="info",
)
def external_launcher_dp_rank(c: Mapping[str, Any]) -> RuleResult:
    """Every process of a torchrun-style launch is one rank of the whole world: its DP rank is RANK // (world size
    per DP rank); vLLM reads ``os.environ["RANK"]``, so without it the ParallelConfig cannot be built (KeyError)."""
    if c["parallel_config.distributed_executor_backend"] != "external_launcher" or not _dp_given(c):
        return None
    text = c["env.RANK"]
    if text is None:
        return Violation("'RANK'", error="KeyError", hint="set RANK (torchrun sets it for each process)")
    try:
        value = int(text)
    except ValueError:
        return Violation(f"invalid literal for int() with base 10: {text!r}", error="ValueError")
    dp = c["parallel_config.data_parallel_size"]
    rank = value // (c["parallel_config.world_size"] // dp)
    return Outcome.log({"parallel_config.data_parallel_rank": rank}, rank=rank)


@rule(
    "parallel.data-parallel-rank-range",
    title="data_parallel_rank must be in [0, data_parallel_size)",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.data_parallel_size", "parallel_config.data_parallel_size_local",
           "parallel_config.data_parallel_rank"),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="data_parallel_rank (<rank>) must be in the range [0, <dp>)",
)
def data_parallel_rank_range(c: Mapping[str, Any]) -> RuleResult:
    """A DP rank outside the group cannot join it."""
    dp, rank = c["parallel_config.data_parallel_size"], c["parallel_config.data_parallel_rank"]
    if _dp_given(c) and not 0 <= rank < dp:
        return Violation(f"data_parallel_rank ({rank}) must be in the range [0, {dp})")
    return None


@rule(
    "parallel.data-parallel-size-local-range",
    title="data_parallel_size_local must be <= data_parallel_size",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.data_parallel_size", "parallel_config.data_parallel_size_local"),
    source=f"{_PAR}._validate_parallel_config; ref 2.3",
    message="data_parallel_size_local (<local>) must be <= data_parallel_size (<dp>)",
)
def data_parallel_size_local_range(c: Mapping[str, Any]) -> RuleResult:
    """This node cannot host more DP ranks than exist."""
    dp, local = c["parallel_config.data_parallel_size"], c["parallel_config.data_parallel_size_local"]
    if local > dp:
        return Violation(f"data_parallel_size_local ({local}) must be <= data_parallel_size ({dp})")
    return None


@rule(
    "parallel.external-lb-needs-dp",
    title="data_parallel_external_lb needs data_parallel_size > 1",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.data_parallel_size", "parallel_config.data_parallel_external_lb"),
    source=f"{_PAR}._validate_parallel_config; ref 2.3",
    message="data_parallel_external_lb can only be set when data_parallel_size > 1",
)
def external_lb_needs_dp(c: Mapping[str, Any]) -> RuleResult:
    """External load balancing distributes requests over several DP ranks."""
    if c["parallel_config.data_parallel_size"] <= 1 and c["parallel_config.data_parallel_external_lb"]:
        return Violation("data_parallel_external_lb can only be set when data_parallel_size > 1")
    return None


def eplb_rule(platform_fact: str, devices: str, title: str, source: str, doc: str) -> Rule:
    """``parallel.eplb-requirements`` for the platforms ``platform_fact`` admits (versions differ only there)."""

    def eplb_requirements(c: Mapping[str, Any]) -> RuleResult:
        tp, dp = c["parallel_config.tensor_parallel_size"], c["parallel_config.data_parallel_size"]
        if not c["parallel_config.enable_eplb"]:
            n = c["parallel_config.eplb_config.num_redundant_experts"]
            if n != 0:
                return Violation(f"num_redundant_experts is set to {n} but EPLB is not enabled. Either enable "
                                 "EPLB or unset num_redundant_experts.")
            return None
        if not c[platform_fact]:
            return Violation(f"Expert parallelism load balancing is only supported on {devices} now.")
        if not c["parallel_config.enable_expert_parallel"]:
            return Violation("enable_expert_parallel must be True to use EPLB.")
        if tp * dp <= 1:
            return Violation("EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, "
                             f"but got TP={tp},DP={dp}.")
        return None

    eplb_requirements.__doc__ = doc
    return make_rule(
        eplb_requirements, "parallel.eplb-requirements", title=title, phase="sub_configs", kind="check",
        reads=("parallel_config.enable_eplb", platform_fact, "parallel_config.enable_expert_parallel",
               "parallel_config.tensor_parallel_size", "parallel_config.data_parallel_size",
               "parallel_config.eplb_config.num_redundant_experts"),
        source=source, message=f"Expert parallelism load balancing is only supported on {devices} now.")


eplb_requirements = eplb_rule(
    "platform.is_cuda", "CUDA devices", "EPLB needs CUDA, expert parallelism and TP x DP > 1",
    f"{_PAR}._validate_parallel_config; ref 2.3",
    "Expert load balancing moves experts between GPUs, which needs EP over more than one CUDA rank.")


_EXEC = "parallel_config.distributed_executor_backend"


@rule(
    "parallel.executor-backend-multi",
    title="Several workers default to the mp executor (ray across nodes or for ray DP)",
    phase="sub_configs",
    kind="default",
    reads=(_EXEC, "parallel_config.world_size", "platform.is_cuda", "platform.device_count",
           "parallel_config.data_parallel_backend"),
    writes=(_EXEC,),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="Defaulting to use {backend} for distributed inference",
    level="debug",
)
def executor_backend_multi(c: Mapping[str, Any]) -> RuleResult:
    """Multiprocessing is used when the world fits on this node; Ray when it does not or DP uses Ray.

    postinit takes Ray as not installed (a plain ``pip install vllm``, and the oracle's environment): a world
    larger than this node's GPUs is then refused; no Ray placement group is active.
    """
    if c[_EXEC] is not None or c["parallel_config.world_size"] <= 1:
        return None
    backend = "mp"
    if c["platform.is_cuda"] and c["platform.device_count"] < c["parallel_config.world_size"]:
        return Violation(_RAY_MULTI_NODE)
    elif c["parallel_config.data_parallel_backend"] == "ray":
        return Outcome({_EXEC: "ray"}, message="Using ray distributed inference because data_parallel_backend is ray",
                       level="info")
    return Outcome.log({_EXEC: backend}, backend=backend)


_RAY_MULTI_NODE = ("Unable to load Ray: No module named 'ray'. Ray is required for multi-node inference, please "
                   "install Ray with `pip install ray`.")
_RAY_MISSING = "Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`."


@rule(
    "parallel.ray-importable",
    title="The ray executor, and nsight profiling of Ray workers, need Ray (taken as not installed)",
    phase="sub_configs",
    kind="check",
    reads=(_EXEC, "parallel_config.ray_workers_use_nsight"),
    source=f"{_PAR}._verify_args, vllm/v1/executor/ray_utils.py assert_ray_available; ref 2.3",
    message=_RAY_MISSING,
)
def ray_importable(c: Mapping[str, Any]) -> RuleResult:
    """``use_ray`` asserts Ray is importable; nsight profiling runs inside Ray workers only."""
    if c[_EXEC] == "ray":
        return Violation(_RAY_MISSING)
    if c["parallel_config.ray_workers_use_nsight"]:
        return Violation("Unable to use nsight profiling unless workers run with Ray.")
    return None


@rule(
    "parallel.executor-backend-uni",
    title="A single worker defaults to the uni executor",
    phase="sub_configs",
    kind="default",
    reads=(_EXEC, "parallel_config.world_size"),
    writes=(_EXEC,),
    source=f"{_PAR}.__post_init__; ref 2.3",
    level="debug",
)
def executor_backend_uni(c: Mapping[str, Any]) -> RuleResult:
    """One worker runs in the engine process itself."""
    if c[_EXEC] is None and c["parallel_config.world_size"] == 1:
        return {_EXEC: "uni"}
    return None


@rule(
    "parallel.external-launcher-disables-multiprocessing",
    title="The external launcher disables V1 multiprocessing",
    phase="sub_configs",
    kind="override",
    reads=(_EXEC,),
    writes=("env.VLLM_ENABLE_V1_MULTIPROCESSING",),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="Disabling V1 multiprocessing for external launcher.",
)
def external_launcher_disables_multiprocessing(c: Mapping[str, Any]) -> RuleResult:
    """Each externally launched process is one engine; vLLM writes VLLM_ENABLE_V1_MULTIPROCESSING=0 into os.environ."""
    if c[_EXEC] == "external_launcher":
        return {"env.VLLM_ENABLE_V1_MULTIPROCESSING": False}
    return None


@rule(
    "parallel.max-parallel-loading-workers-ignored",
    title="max_parallel_loading_workers is ignored",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.max_parallel_loading_workers",),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="max_parallel_loading_workers is currently not supported and will be ignored.",
    level="warning",
)
def max_parallel_loading_workers_ignored(c: Mapping[str, Any]) -> RuleResult:
    """The V1 engine loads weights without this knob."""
    return Outcome.log() if c["parallel_config.max_parallel_loading_workers"] is not None else None


_DCAR = "parallel_config.disable_custom_all_reduce"


@rule(
    "parallel.platform-disables-custom-all-reduce",
    title="No custom all-reduce where the platform lacks it",
    phase="sub_configs",
    kind="override",
    reads=("platform.use_custom_allreduce",),
    writes=(_DCAR,),
    after=("parallel.eplb-requirements",),  # _validate_parallel_config runs before _verify_args
    source=f"{_PAR}._verify_args; ref 2.3",
    message="Disabled the custom all-reduce kernel because it is not supported on current platform.",
    level="debug",
)
def platform_disables_custom_all_reduce(c: Mapping[str, Any]) -> RuleResult:
    """Only CUDA and MI300-class ROCm GPUs have the custom all-reduce kernel (logged even when it was off already)."""
    if not c["platform.use_custom_allreduce"]:
        return Outcome.log({_DCAR: True})
    return None


PARALLEL_POST_INIT = sequence(
    "parallel.post-init", world_size, executor_backend_multi, executor_backend_uni,
    title="ParallelConfig.__post_init__: the world size (from the backend as given), then the backend",
    source=f"{_PAR}.__post_init__",
)



@rule(
    "parallel.batch-invariant-custom-allreduce",
    title="VLLM_BATCH_INVARIANT disables custom all-reduce",
    phase="model_config",
    kind="override",
    reads=("env.VLLM_BATCH_INVARIANT",),
    writes=("parallel_config.disable_custom_all_reduce",),
    source="vllm/config/parallel.py ParallelConfig.__post_init__ (vllm_is_batch_invariant); ref 2.3",
)
def batch_invariant_custom_allreduce(c: Mapping[str, Any]) -> RuleResult:
    """Custom all-reduce is not batch invariant, so vLLM turns it off."""
    if c["env.VLLM_BATCH_INVARIANT"] != 0:
        return {"parallel_config.disable_custom_all_reduce": True}
    return None

# --------------------------------------------------------------------------
# step 20: dual batch overlap
# --------------------------------------------------------------------------


@rule(
    "parallel.dbo-requires-deepep",
    title="Dual batch overlap requires a DeepEP all2all backend",
    phase="finalize",
    kind="check",
    reads=("parallel_config.all2all_backend",),
    source=f"{_SRC}; ref step-20",
    message=_DBO_MESSAGE.format(backend="<backend>"),
    level="error",
)
def dbo_requires_deepep(c: Mapping[str, Any]) -> RuleResult:
    """Microbatching is only implemented for the DeepEP all2all kernels."""
    backend = c["parallel_config.all2all_backend"]
    if backend not in _DEEPEP:
        return Violation(
            _DBO_MESSAGE.format(backend=backend),
            hint="--all2all-backend=deepep_low_latency or deepep_high_throughput",
            error="AssertionError",
        )
    return None


@rule(
    "parallel.dbo-disables-cascade-attn",
    title="Dual batch overlap disables cascade attention",
    phase="finalize",
    kind="override",
    reads=("model_config", _CASCADE),
    writes=(_CASCADE,),
    source=f"{_SRC}; ref step-20, 13.1:O16",
    message="Disabling cascade attention when DBO is enabled.",
    level="warning",
)
def dbo_disables_cascade_attn(c: Mapping[str, Any]) -> RuleResult:
    """Cascade attention is not supported with microbatching.

    Without a model vLLM fails with an AttributeError here.
    """
    if c["model_config"] is None:
        return Violation(
            "'NoneType' object has no attribute 'disable_cascade_attn'",
            hint="enable_dbo needs a model_config",
            error="AttributeError",
        )
    if not c[_CASCADE]:
        return {_CASCADE: True}
    return None


def _dbo(c: Mapping[str, Any]) -> bool:
    """Dual batch overlap is on."""
    return bool(c["parallel_config.enable_dbo"])


STEP_20 = all_of(
    "parallel.dbo", dbo_requires_deepep, dbo_disables_cascade_attn,
    title="Step 20, dual batch overlap: a DeepEP all2all backend, no cascade attention",
    when=_dbo, reads=("parallel_config.enable_dbo",), source=f"{_SRC}; ref step-20",
)


