"""sub_configs: the sub-configs' own ``__post_init__``s and after-validators.

vLLM builds every sub-config (and runs its ``__post_init__``) before
``VllmConfig.__post_init__`` starts, both when EngineArgs builds them and when a
caller passes them directly. Covered here: ParallelConfig, SchedulerConfig,
CompilationConfig (+ PassConfig warnings), DeviceConfig, CacheConfig, LoRAConfig,
KVTransferConfig, KVEventsConfig and SpeculativeConfig's method normalization.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from postinit.engine import FrozenDict, Outcome, RuleResult, Violation, rule, rule_of, sequence
from postinit.rules import verify
from postinit.schema import CompilationMode, CUDAGraphMode

_PAR = "vllm/config/parallel.py ParallelConfig"
_SCH = "vllm/config/scheduler.py SchedulerConfig"
_CMP = "vllm/config/compilation.py CompilationConfig.__post_init__"

# =========================================================================== ParallelConfig

_A2A = "parallel_config.all2all_backend"


@rule(
    "parallel.all2all-backend-default",
    title="all2all_backend defaults to VLLM_ALL2ALL_BACKEND",
    phase="sub_configs",
    kind="default",
    reads=(_A2A, "env.VLLM_ALL2ALL_BACKEND", "env.all2all_backend_set"),
    writes=(_A2A,),
    source=f"{_PAR}.__post_init__; ref 2.3",
    message="",
)
def all2all_backend_default(c: Mapping[str, Any]) -> RuleResult:
    """The env variable is the deprecated way to choose the MoE all2all backend; it still fills an unset value."""
    if c[_A2A] is not None:
        return None
    change = {_A2A: c["env.VLLM_ALL2ALL_BACKEND"]}
    if c["env.all2all_backend_set"]:
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


@rule(
    "parallel.eplb-requirements",
    title="EPLB needs CUDA, expert parallelism and TP x DP > 1",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.enable_eplb", "platform.is_cuda", "parallel_config.enable_expert_parallel",
           "parallel_config.tensor_parallel_size", "parallel_config.data_parallel_size",
           "parallel_config.eplb_config.num_redundant_experts"),
    source=f"{_PAR}._validate_parallel_config; ref 2.3",
    message="Expert parallelism load balancing is only supported on CUDA devices now.",
)
def eplb_requirements(c: Mapping[str, Any]) -> RuleResult:
    """Expert load balancing moves experts between GPUs, which needs EP over more than one CUDA rank."""
    tp, dp = c["parallel_config.tensor_parallel_size"], c["parallel_config.data_parallel_size"]
    if not c["parallel_config.enable_eplb"]:
        n = c["parallel_config.eplb_config.num_redundant_experts"]
        if n != 0:
            return Violation(f"num_redundant_experts is set to {n} but EPLB is not enabled. Either enable "
                             "EPLB or unset num_redundant_experts.")
        return None
    if not c["platform.is_cuda"]:
        return Violation("Expert parallelism load balancing is only supported on CUDA devices now.")
    if not c["parallel_config.enable_expert_parallel"]:
        return Violation("enable_expert_parallel must be True to use EPLB.")
    if tp * dp <= 1:
        return Violation("EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, "
                         f"but got TP={tp},DP={dp}.")
    return None


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

    postinit assumes Ray is importable and no Ray placement group is active.
    """
    if c[_EXEC] is not None or c["parallel_config.world_size"] <= 1:
        return None
    backend = "mp"
    if c["platform.is_cuda"] and c["platform.device_count"] < c["parallel_config.world_size"]:
        backend = "ray"
    elif c["parallel_config.data_parallel_backend"] == "ray":
        return Outcome({_EXEC: "ray"}, message="Using ray distributed inference because data_parallel_backend is ray",
                       level="info")
    return Outcome.log({_EXEC: backend}, backend=backend)


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
    source=f"{_PAR}._verify_args; ref 2.3",
    message="Disabled the custom all-reduce kernel because it is not supported on current platform.",
    level="debug",
)
def platform_disables_custom_all_reduce(c: Mapping[str, Any]) -> RuleResult:
    """Only CUDA and MI300-class ROCm GPUs have the custom all-reduce kernel."""
    if not c["platform.use_custom_allreduce"]:
        return {_DCAR: True}
    return None


PARALLEL_POST_INIT = sequence(
    "parallel.post-init", world_size, executor_backend_multi, executor_backend_uni,
    title="ParallelConfig.__post_init__: the world size (from the backend as given), then the backend",
    source=f"{_PAR}.__post_init__",
)


# =========================================================================== SchedulerConfig

_S = "scheduler_config."
_LEN = "scheduler_config.max_model_len"
_TOK = "scheduler_config.max_num_batched_tokens"
_SEQ = "scheduler_config.max_num_seqs"
_CPE = "scheduler_config.chunked_prefill_enabled"
_ECP = "scheduler_config.enable_chunked_prefill"


@rule(
    "scheduler.max-model-len-from-model",
    title="The scheduler's max_model_len is the model's",
    phase="sub_configs",
    kind="default",
    reads=("model_config", "model_config.max_model_len", _LEN),
    writes=(_LEN,),
    source=f"vllm/engine/arg_utils.py EngineArgs.create_engine_config / {_SCH}; ref 2.4",
    level="debug",
)
def max_model_len_from_model(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs (and the oracle's config mode) build SchedulerConfig with the model's resolved length."""
    if c["model_config"] and c[_LEN] is None and c["model_config.max_model_len"] is not None:
        return {_LEN: c["model_config.max_model_len"]}
    return None


@rule(
    "scheduler.max-model-len-default",
    title="Scheduler max_model_len defaults to 8192",
    phase="sub_configs",
    kind="default",
    reads=(_LEN,),
    writes=(_LEN,),
    source=f"{_SCH}.__post_init__; ref 2.4",
    level="debug",
)
def max_model_len_default(c: Mapping[str, Any]) -> RuleResult:
    """Without a model there is no length to copy; 8192 is SchedulerConfig's own default."""
    return {_LEN: 8192} if c[_LEN] is None else None


def _copy_from_model(c: Mapping[str, Any], field: str) -> RuleResult:
    """``{scheduler_config.<field>: model_config.<field>}`` when there is a model and it has a value."""
    if c["model_config"] and c[f"model_config.{field}"] is not None:
        return {f"{_S}{field}": c[f"model_config.{field}"]}
    return None


@rule(
    "scheduler.runner-type-from-model",
    title="The scheduler's runner_type is the model's",
    phase="sub_configs",
    kind="derive",
    reads=("model_config", "model_config.runner_type"),
    writes=("scheduler_config.runner_type",),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config; ref 2.4",
    level="debug",
)
def runner_type_from_model(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs passes the model's runner type (the oracle's config mode too)."""
    return _copy_from_model(c, "runner_type")


@rule(
    "scheduler.is-multimodal-from-model",
    title="The scheduler's is_multimodal_model is the model's",
    phase="sub_configs",
    kind="derive",
    reads=("model_config", "model_config.is_multimodal_model"),
    writes=("scheduler_config.is_multimodal_model",),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config; ref 2.4",
    level="debug",
)
def is_multimodal_from_model(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs passes whether the model is multimodal (the oracle's config mode too)."""
    return _copy_from_model(c, "is_multimodal_model")


@rule(
    "scheduler.is-encoder-decoder-from-model",
    title="The scheduler's is_encoder_decoder is the model's",
    phase="sub_configs",
    kind="derive",
    reads=("model_config", "model_config.is_encoder_decoder"),
    writes=("scheduler_config.is_encoder_decoder",),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config; ref 2.4",
    level="debug",
)
def is_encoder_decoder_from_model(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs passes whether the model is encoder-decoder (the oracle's config mode too)."""
    return _copy_from_model(c, "is_encoder_decoder")


@rule(
    "scheduler.max-num-seqs-default",
    title="max_num_seqs defaults to 128",
    phase="sub_configs",
    kind="default",
    reads=(_SEQ,),
    writes=(_SEQ,),
    source=f"{_SCH}.__post_init__; ref 2.4",
    level="debug",
)
def max_num_seqs_default(c: Mapping[str, Any]) -> RuleResult:
    """SchedulerConfig's own default when EngineArgs did not choose one."""
    return {_SEQ: 128} if c[_SEQ] is None else None


@rule(
    "scheduler.encoder-decoder-no-chunked-prefill",
    title="Encoder-decoder models disable chunked prefill",
    phase="sub_configs",
    kind="override",
    reads=("scheduler_config.is_encoder_decoder",),
    writes=("scheduler_config.disable_chunked_mm_input", _CPE, _ECP,
            "scheduler_config.long_prefill_token_threshold"),
    source=f"{_SCH}.__post_init__; ref 2.4",
    message="Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both.",
)
def encoder_decoder_no_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """Chunked prefill should be disabled for encoder-decoder models."""
    if c["scheduler_config.is_encoder_decoder"]:
        return {"scheduler_config.disable_chunked_mm_input": True, _CPE: False, _ECP: False,
                "scheduler_config.long_prefill_token_threshold": 0}
    return None


@rule(
    "scheduler.max-num-batched-tokens-default",
    title="Default token budget: 2048 with chunked prefill, else max(max_model_len, 2048); pooling/multimodal minimums",
    phase="sub_configs",
    kind="default",
    reads=(_TOK, _ECP, _LEN, _SEQ, "scheduler_config.runner_type", "scheduler_config.is_multimodal_model"),
    writes=(_TOK,),
    source=f"{_SCH}.__post_init__; ref 2.4",
    level="debug",
)
def max_num_batched_tokens_default(c: Mapping[str, Any]) -> RuleResult:
    """Without chunked prefill a whole prompt must fit in one step; pooling/multimodal models need larger budgets.

    The result is capped at max_num_seqs x max_model_len (e.g. Whisper's embeddings are tied to its length).
    """
    if c[_TOK] is not None:
        return None
    n = 2048 if c[_ECP] else max(c[_LEN], 2048)
    if c["scheduler_config.runner_type"] == "pooling":
        n = max(n, 32768)
    if c["scheduler_config.is_multimodal_model"]:
        n = max(n, 5120)
    return {_TOK: min(c[_SEQ] * c[_LEN], n)}


@rule(
    "scheduler.encoder-budgets",
    title="Encoder budgets = max_num_batched_tokens",
    phase="sub_configs",
    kind="derive",
    reads=(_TOK,),
    writes=("scheduler_config.max_num_encoder_input_tokens", "scheduler_config.encoder_cache_size"),
    source=f"{_SCH}.__post_init__; ref 2.4",
    level="debug",
)
def encoder_budgets(c: Mapping[str, Any]) -> RuleResult:
    """The encoder compute and cache budgets start at the token budget (enc-dec overwrites the first in step 14)."""
    return {"scheduler_config.max_num_encoder_input_tokens": c[_TOK], "scheduler_config.encoder_cache_size": c[_TOK]}


@rule(
    "scheduler.chunked-prefill-enabled",
    title="chunked_prefill_enabled = enable_chunked_prefill",
    phase="sub_configs",
    kind="derive",
    reads=(_ECP, _TOK, _CPE),
    writes=(_CPE,),
    source=f"{_SCH}.__post_init__; ref 2.4, 13.2:I7",
    message="Chunked prefill is enabled with max_num_batched_tokens={n}.",
)
def chunked_prefill_enabled(c: Mapping[str, Any]) -> RuleResult:
    """The effective flag starts as the user's intent (None stays None: VllmConfig's off-switch tests `is False`)."""
    if c[_CPE] == c[_ECP] and (c[_CPE] is None) == (c[_ECP] is None):
        return None
    changes = {_CPE: c[_ECP]}
    return Outcome.log(changes, n=c[_TOK]) if c[_ECP] else changes


@rule(
    "scheduler.long-prefill-threshold-default",
    title="Concurrent partial prefills: long-prefill threshold defaults to 4% of max_model_len",
    phase="sub_configs",
    kind="default",
    reads=("scheduler_config.max_num_partial_prefills", "scheduler_config.max_long_partial_prefills",
           "scheduler_config.long_prefill_token_threshold", _LEN),
    writes=("scheduler_config.long_prefill_token_threshold",),
    source=f"{_SCH}.__post_init__; ref 2.4",
    message=("Concurrent partial prefills enabled with max_num_partial_prefills={n}, "
             "max_long_partial_prefills={long}, long_prefill_token_threshold={threshold}"),
)
def long_prefill_threshold_default(c: Mapping[str, Any]) -> RuleResult:
    """A prompt longer than the threshold counts as 'long' for the partial-prefill limits."""
    n = c["scheduler_config.max_num_partial_prefills"]
    if n <= 1:
        return None
    t = c["scheduler_config.long_prefill_token_threshold"] or int(c[_LEN] * 0.04)
    return Outcome.log({"scheduler_config.long_prefill_token_threshold": t}, n=n, threshold=t,
                       long=c["scheduler_config.max_long_partial_prefills"])


_SCHED_CLS = "scheduler_config.scheduler_cls"


@rule(
    "scheduler.scheduler-cls-default",
    title="scheduler_cls defaults to the V1 Scheduler",
    phase="sub_configs",
    kind="default",
    reads=(_SCHED_CLS,),
    writes=(_SCHED_CLS,),
    source=f"{_SCH} (field default); ref 2.4",
    level="debug",
)
def scheduler_cls_default(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's field default is the V1 scheduler's import path."""
    return {_SCHED_CLS: "vllm.v1.core.sched.scheduler.Scheduler"} if c[_SCHED_CLS] is None else None


@rule(
    "scheduler.async-scheduler-cls",
    title="async_scheduling selects the AsyncScheduler",
    phase="sub_configs",
    kind="override",
    reads=("scheduler_config.async_scheduling",),
    writes=(_SCHED_CLS,),
    source=f"{_SCH}.__post_init__; ref 2.4",
    level="debug",
)
def async_scheduler_cls(c: Mapping[str, Any]) -> RuleResult:
    """Async scheduling is implemented by a scheduler subclass (overrides a user scheduler_cls)."""
    if c["scheduler_config.async_scheduling"]:
        return {_SCHED_CLS: "vllm.v1.core.sched.async_scheduler.AsyncScheduler"}
    return None


_CHECK_READS = (_TOK, _LEN, _SEQ, _CPE, "scheduler_config.num_lookahead_slots",
                "scheduler_config.max_num_partial_prefills", "scheduler_config.max_long_partial_prefills",
                "scheduler_config.long_prefill_token_threshold")


@rule(
    "scheduler.budget-below-max-model-len",
    title="Without chunked prefill the budget must cover max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _LEN, _CPE),
    source=f"{_SCH}._verify_args; ref 2.4",
    message="max_num_batched_tokens (<n>) is smaller than max_model_len (<len>). ...",
)
def budget_below_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """A prompt that cannot be chunked must fit into one step's token budget."""
    tok, length = c[_TOK], c[_LEN]
    if tok < length and not c[_CPE]:
        return Violation(
            f"max_num_batched_tokens ({tok}) is smaller than max_model_len ({length}). This effectively "
            "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
            "sequences. Please increase max_num_batched_tokens or decrease max_model_len.",
            hint="enable chunked prefill, raise --max-num-batched-tokens or lower --max-model-len")
    return None


@rule(
    "scheduler.budget-below-max-num-seqs",
    title="The token budget must be >= max_num_seqs",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _SEQ),
    source=f"{_SCH}._verify_args; ref 2.4",
    message="max_num_batched_tokens (<n>) must be greater than or equal to max_num_seqs (<s>).",
)
def budget_below_max_num_seqs(c: Mapping[str, Any]) -> RuleResult:
    """Every scheduled sequence needs at least one token of the budget."""
    if c[_TOK] < c[_SEQ]:
        return Violation(f"max_num_batched_tokens ({c[_TOK]}) must be greater than or equal to "
                         f"max_num_seqs ({c[_SEQ]}).")
    return None


@rule(
    "scheduler.budget-exceeds-seqs-times-len",
    title="Warn when the budget exceeds max_num_seqs x max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _SEQ, _LEN),
    source=f"{_SCH}._verify_args; ref 2.4",
    message=("max_num_batched_tokens ({tokens}) exceeds max_num_seqs * max_model_len ({cap}). "
             "This may lead to unexpected behavior."),
    level="warning",
)
def budget_exceeds_seqs_times_len(c: Mapping[str, Any]) -> RuleResult:
    """A budget no batch can fill is suspicious."""
    cap = c[_SEQ] * c[_LEN]
    return Outcome.log(tokens=c[_TOK], cap=cap) if c[_TOK] > cap else None


@rule(
    "scheduler.partial-prefill-limits",
    title="Lookahead slots and partial-prefill limits must be consistent",
    phase="sub_configs",
    kind="check",
    reads=_CHECK_READS,
    source=f"{_SCH}._verify_args; ref 2.4",
    message="<one of SchedulerConfig's range errors>",
)
def partial_prefill_limits(c: Mapping[str, Any]) -> RuleResult:
    """Negative lookahead, < 1 partial prefills, partial prefills without chunked prefill and bad long limits are invalid."""
    slots, parts = c["scheduler_config.num_lookahead_slots"], c["scheduler_config.max_num_partial_prefills"]
    longs, thr = c["scheduler_config.max_long_partial_prefills"], c["scheduler_config.long_prefill_token_threshold"]
    if slots < 0:
        return Violation(f"num_lookahead_slots ({slots}) must be greater than or equal to 0.")
    if parts < 1:
        return Violation(f"max_num_partial_prefills ({parts}) must be greater than or equal to 1.")
    if parts > 1 and not c[_CPE]:
        return Violation("Chunked prefill must be enabled to set max_num_partial_prefills > 1.")
    if parts > 1 and thr > c[_LEN]:
        return Violation(f"long_prefill_token_threshold ({thr}) cannot be greater than the max_model_len ({c[_LEN]}).")
    if longs < 1 or longs > parts:
        return Violation(f"max_long_partial_prefills ({longs}) must be greater than or equal to 1 and less "
                         f"than or equal to max_num_partial_prefills ({parts}).")
    return None


SCHEDULER_POST_INIT = sequence(
    "scheduler.post-init",
    encoder_decoder_no_chunked_prefill, max_model_len_from_model, max_model_len_default, long_prefill_threshold_default,
    chunked_prefill_enabled, budget_below_max_model_len, budget_below_max_num_seqs, partial_prefill_limits,
    scheduler_cls_default, async_scheduler_cls,
    title="SchedulerConfig.__post_init__ and verify_max_model_len, in order (the first failing check is raised)",
    source=f"{_SCH}.__post_init__",
)


# =========================================================================== CompilationConfig

_MODE = "compilation_config.mode"
_CGM = "compilation_config.cudagraph_mode"
_BACKEND = "compilation_config.backend"
_ICC = "compilation_config.inductor_compile_config"
_OPS = "compilation_config.custom_ops"


@rule(
    "compilation.level-to-mode",
    title="The deprecated level fills mode",
    phase="sub_configs",
    kind="default",
    reads=("compilation_config.level", _MODE),
    writes=(_MODE,),
    source=f"{_CMP}; ref 3.1",
    message=("Level is deprecated and will be removed in the next release,either 0.12.0 or 0.11.2 whichever "
             "is soonest.Use mode instead.If both level and mode are given,only mode will be used."),
    level="warning",
)
def level_to_mode(c: Mapping[str, Any]) -> RuleResult:
    """level is the old name of mode; a given mode wins."""
    level = c["compilation_config.level"]
    if level is None:
        return None
    return Outcome.log({_MODE: CompilationMode(level)} if c[_MODE] is None else None)


level_to_mode_msg = ("Level is deprecated and will be removed in the next release,either 0.12.0 or 0.11.2 "
                     "whichever is soonest.Use mode instead.If both level and mode are given,only mode will be used.")


@rule(
    "compilation.custom-ops-all-none-count",
    title="custom_ops holds at most one of 'all' / 'none'",
    phase="sub_configs",
    kind="check",
    reads=(_OPS,),
    source=f"{_CMP}; ref 3.1",
    message="Can only specify 'none' or 'all'",
)
def custom_ops_all_none_count(c: Mapping[str, Any]) -> RuleResult:
    """'all' and 'none' are the global default switch; two of them contradict each other."""
    ops = list(c[_OPS])
    if ops.count("none") + ops.count("all") > 1:
        return Violation("Can only specify 'none' or 'all'", error="AssertionError")
    return None


@rule(
    "compilation.inductor-auto-functionalized-v2",
    title="Inductor: enable_auto_functionalized_v2 defaults to False",
    phase="sub_configs",
    kind="default",
    reads=(_ICC,),
    writes=(_ICC,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def inductor_auto_functionalized_v2(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's custom fusion passes rely on auto-functionalization V1 (and torch < 2.7 had a V2 bug)."""
    icc = c[_ICC]
    if "enable_auto_functionalized_v2" in icc:
        return None
    return {_ICC: FrozenDict({**icc, "enable_auto_functionalized_v2": False})}


@rule(
    "compilation.inductor-combo-kernels",
    title="Inductor: combo kernels on (torch >= 2.9)",
    phase="sub_configs",
    kind="default",
    reads=(_ICC,),
    writes=(_ICC,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def inductor_combo_kernels(c: Mapping[str, Any]) -> RuleResult:
    """Horizontal fusion helps fuse qk-norm and qk-rope when query and key shapes differ.

    Skipped when the user set either key. The oracle's torch is 2.9.
    """
    icc = c[_ICC]
    if "combo_kernels" in icc or "benchmark_combo_kernel" in icc:
        return None
    return {_ICC: FrozenDict({**icc, "combo_kernels": True, "benchmark_combo_kernel": True})}


_USE_CG_MSG = "use_cudagraph is deprecated, use cudagraph_mode=NONE instead."
_FULL_CG_MSG = "full_cuda_graph is deprecated, use cudagraph_mode=FULL instead."


@rule(
    "compilation.use-cudagraph-deprecated",
    title="use_cudagraph=False is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.use_cudagraph",),
    source=f"{_CMP}; ref 3.1",
    message=_USE_CG_MSG,
    level="warning",
)
def use_cudagraph_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """vLLM warns about the deprecated switch before it checks it against cudagraph_mode."""
    return None if c["compilation_config.use_cudagraph"] else Outcome.log()


@rule(
    "compilation.use-cudagraph-false",
    title="use_cudagraph=False means cudagraph_mode NONE",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.use_cudagraph", _CGM),
    writes=(_CGM,),
    source=f"{_CMP}; ref 3.1",
)
def use_cudagraph_false(c: Mapping[str, Any]) -> RuleResult:
    """use_cudagraph is the deprecated switch; a conflicting cudagraph_mode is an error.

    Its deprecation warning is ``compilation.use-cudagraph-deprecated`` (logged first, also
    when this rule then raises).
    """
    if c["compilation_config.use_cudagraph"]:
        return None
    mode = c[_CGM]
    if mode is not None and mode is not CUDAGraphMode.NONE:
        return Violation("use_cudagraph and cudagraph_mode are mutually exclusive, prefer cudagraph_mode "
                         "since use_cudagraph is deprecated.")
    return {_CGM: CUDAGraphMode.NONE}


@rule(
    "compilation.full-cuda-graph-deprecated",
    title="full_cuda_graph=True is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.full_cuda_graph",),
    source=f"{_CMP}; ref 3.1",
    message=_FULL_CG_MSG,
    level="warning",
)
def full_cuda_graph_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """vLLM warns about the deprecated switch, also when the mode already is FULL or conflicts with it."""
    return Outcome.log() if c["compilation_config.full_cuda_graph"] else None


@rule(
    "quirk.full-cuda-graph-collapses-mode",
    title="full_cuda_graph collapses FULL_AND_PIECEWISE / FULL_DECODE_ONLY to FULL",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.full_cuda_graph", _CGM),
    source=f"{_CMP}; ref 3.1, 13.2:I11",
    message=("cudagraph_mode={mode} with full_cuda_graph=True: vLLM silently replaces the mode with FULL "
             "(deprecated-flag migration, CompilationConfig.__post_init__)."),
    level="warning",
)
def full_cuda_graph_collapses_mode(c: Mapping[str, Any]) -> RuleResult:
    """A mode with full graphs passes the full_cuda_graph check but is then overwritten with plain FULL.

    This makes re-validating a resolved CompilationConfig (which has full_cuda_graph=True) non-idempotent.
    """
    mode = c[_CGM]
    if c["compilation_config.full_cuda_graph"] and mode is not None and mode.separate_routine():
        return Outcome.log(mode=mode.name)
    return None


@rule(
    "compilation.full-cuda-graph",
    title="full_cuda_graph=True means cudagraph_mode FULL",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.full_cuda_graph", _CGM),
    writes=(_CGM,),
    source=f"{_CMP}; ref 3.1, 13.2:I11",
)
def full_cuda_graph(c: Mapping[str, Any]) -> RuleResult:
    """full_cuda_graph is the deprecated switch for FULL; a mode without full graphs is an error.

    Its deprecation warning is ``compilation.full-cuda-graph-deprecated`` (logged first).
    """
    if not c["compilation_config.full_cuda_graph"]:
        return None
    mode = c[_CGM]
    if mode is not None and not mode.has_full_cudagraphs():
        return Violation("full_cuda_graph and cudagraph_mode are mutually exclusive, prefer cudagraph_mode "
                         "since full_cuda_graph is deprecated.")
    return None if mode is CUDAGraphMode.FULL else {_CGM: CUDAGraphMode.FULL}


@rule(
    "compilation.custom-op-syntax",
    title="custom_ops entries are 'all', 'none', '+op' or '-op'",
    phase="sub_configs",
    kind="check",
    reads=(_OPS,),
    source=f"{_CMP}; ref 3.1",
    message="Invalid syntax '<op>' for custom op, must be 'all', 'none', '+op' or '-op' (where 'op' is the registered op name)",
)
def custom_op_syntax(c: Mapping[str, Any]) -> RuleResult:
    """A custom-op switch names an op to enable (+) or disable (-), or sets the global default."""
    for op in c[_OPS]:
        if op[:1] not in ("+", "-") and op not in ("all", "none"):
            return Violation(f"Invalid syntax '{op}' for custom op, must be 'all', 'none', '+op' or '-op' "
                             "(where 'op' is the registered op name)")
    return None


@rule(
    "compilation.piecewise-backend",
    title="VLLM_COMPILE supports only the eager and inductor backends",
    phase="sub_configs",
    kind="check",
    reads=(_MODE, _BACKEND),
    source=f"{_CMP}; ref 3.1",
    message="Invalid backend for piecewise compilation: <backend>",
)
def piecewise_backend(c: Mapping[str, Any]) -> RuleResult:
    """Custom backends are not supported for piecewise compilation (checked on the given backend)."""
    if c[_MODE] == CompilationMode.VLLM_COMPILE and c[_BACKEND] not in ("", "eager", "inductor"):
        return Violation(f"Invalid backend for piecewise compilation: {c[_BACKEND]}")
    return None


@rule(
    "compilation.use-inductor-backend",
    title="The deprecated use_inductor chooses the backend",
    phase="sub_configs",
    kind="override",
    reads=("compilation_config.use_inductor",),
    writes=(_BACKEND,),
    source=f"{_CMP}; ref 3.1",
    message=("The 'use_inductor' flag is deprecated and will be removed in the next release (v0.12.0). "
             "Please use the 'backend' option instead."),
    level="warning",
)
def use_inductor_backend(c: Mapping[str, Any]) -> RuleResult:
    """use_inductor True/False is the old spelling of backend inductor/eager."""
    flag = c["compilation_config.use_inductor"]
    if flag is None:
        return None
    return {_BACKEND: "inductor" if flag else "eager"}


@rule(
    "compilation.backend-default",
    title="An empty backend becomes the platform's simple compile backend",
    phase="sub_configs",
    kind="default",
    reads=(_BACKEND, "platform.simple_compile_backend"),
    writes=(_BACKEND,),
    source=f"{_CMP}; ref 3.1",
    level="debug",
)
def backend_default(c: Mapping[str, Any]) -> RuleResult:
    """inductor on CUDA/ROCm/CPU/XPU, openxla on TPU."""
    if c[_BACKEND] == "":
        return {_BACKEND: c["platform.simple_compile_backend"]}
    return None


@rule(
    "compilation.fusion-without-noop",
    title="Fusion passes without no-op elimination may not work",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.pass_config.enable_noop", "compilation_config.pass_config.enable_fusion",
           "compilation_config.pass_config.enable_attn_fusion"),
    source="vllm/config/compilation.py PassConfig.__post_init__; ref 3.2",
    message="Fusion enabled but reshape elimination disabled. ...",
    level="warning",
)
def fusion_without_noop(c: Mapping[str, Any]) -> RuleResult:
    """The fusion patterns expect the reshapes to be eliminated first."""
    if c["compilation_config.pass_config.enable_noop"]:
        return None
    msgs = []
    if c["compilation_config.pass_config.enable_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. RMSNorm/SiluMul + quant (fp8) fusion might not work")
    if c["compilation_config.pass_config.enable_attn_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. Attention + quant (fp8) fusion might not work")
    return Outcome(message=" ".join(msgs)) if msgs else None


COMPILATION_POST_INIT = sequence(
    "compilation.post-init",
    custom_ops_all_none_count, custom_op_syntax, inductor_auto_functionalized_v2, inductor_combo_kernels,
    piecewise_backend, use_cudagraph_deprecated, use_cudagraph_false, full_cuda_graph_deprecated, use_inductor_backend,
    backend_default, full_cuda_graph_collapses_mode, full_cuda_graph,
    title="CompilationConfig.__post_init__: custom ops, inductor options, the backend and the deprecated graph flags",
    source=_CMP,
)


# =========================================================================== Device, Cache, LoRA, KV, speculative


@rule(
    "device.device-type",
    title="DeviceConfig.device_type from the platform ('auto') or the given device",
    phase="sub_configs",
    kind="derive",
    reads=("device_config.device", "platform.device_type"),
    writes=("device_config.device_type", "device_config.device"),
    source="vllm/config/device.py DeviceConfig.__post_init__; ref 2.5",
    level="debug",
)
def device_type(c: Mapping[str, Any]) -> RuleResult:
    """'auto' asks the platform; TPU processes inputs on the CPU, so its device becomes None.

    ``device`` becomes the device type's name (vLLM stores ``torch.device(device_type)``).
    """
    device = c["device_config.device"]
    dtype = c["platform.device_type"] if device in ("auto", None) else device
    if not dtype:
        return Violation("Failed to infer device type, please set the environment variable "
                         "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.",
                         error="RuntimeError")
    return {"device_config.device_type": dtype, "device_config.device": None if dtype == "tpu" else dtype}


@rule(
    "cache.fp8-kv-cache-info",
    title="An fp8 KV cache saves memory but may cost accuracy",
    phase="sub_configs",
    kind="check",
    reads=("cache_config.cache_dtype",),
    source="vllm/config/cache.py CacheConfig._validate_cache_dtype; ref 2.2",
    message=("Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the "
             "performance. Meanwhile, it may cause accuracy drop without a proper scaling factor."),
)
def fp8_kv_cache_info(c: Mapping[str, Any]) -> RuleResult:
    """fp8 KV entries halve the cache, at the price of precision without scales."""
    return Outcome.log() if str(c["cache_config.cache_dtype"]).startswith("fp8") else None


fp8_kv_cache_info_msg = ("Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts "
                         "the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.")


@rule(
    "lora.max-cpu-loras-default",
    title="max_cpu_loras defaults to max_loras",
    phase="sub_configs",
    kind="default",
    reads=("lora_config", "lora_config.max_cpu_loras", "lora_config.max_loras"),
    writes=("lora_config.max_cpu_loras",),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config; ref 2.7",
    level="debug",
)
def max_cpu_loras_default(c: Mapping[str, Any]) -> RuleResult:
    """The CPU LoRA cache holds at least the adapters that can be active at once."""
    if c["lora_config"] and c["lora_config.max_cpu_loras"] is None:
        return {"lora_config.max_cpu_loras": c["lora_config.max_loras"]}
    return None


@rule(
    "lora.max-cpu-loras-check",
    title="max_cpu_loras must be >= max_loras",
    phase="sub_configs",
    kind="check",
    reads=("lora_config", "lora_config.max_cpu_loras", "lora_config.max_loras"),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config; ref 2.7",
    message="max_cpu_loras (<n>) must be >= max_loras (<m>)",
)
def max_cpu_loras_check(c: Mapping[str, Any]) -> RuleResult:
    """Every active adapter must also fit into the CPU cache."""
    cpu, gpu = c["lora_config.max_cpu_loras"], c["lora_config.max_loras"]
    if c["lora_config"] and cpu is not None and cpu < gpu:
        return Violation(f"max_cpu_loras ({cpu}) must be >= max_loras ({gpu})")
    return None


@rule(
    "kv-events.publisher-default",
    title="KV events publisher: zmq when events are on, else null",
    phase="sub_configs",
    kind="default",
    reads=("kv_events_config", "kv_events_config.publisher", "kv_events_config.enable_kv_cache_events"),
    writes=("kv_events_config.publisher",),
    source="vllm/config/kv_events.py KVEventsConfig.__post_init__; ref 2.11",
    level="debug",
)
def kv_events_publisher_default(c: Mapping[str, Any]) -> RuleResult:
    """Events need a real publisher only when they are enabled."""
    if c["kv_events_config"] and c["kv_events_config.publisher"] is None:
        return {"kv_events_config.publisher": "zmq" if c["kv_events_config.enable_kv_cache_events"] else "null"}
    return None


@rule(
    "kv-transfer.role-required",
    title="A KV connector needs a kv_role",
    phase="sub_configs",
    kind="check",
    reads=("kv_transfer_config", "kv_transfer_config.kv_connector", "kv_transfer_config.kv_role"),
    source="vllm/config/kv_transfer.py KVTransferConfig.__post_init__; ref 2.11",
    message=("Please specify kv_role when kv_connector is set, supported roles are "
             "('kv_producer', 'kv_both', 'kv_consumer')"),
)
def kv_transfer_role_required(c: Mapping[str, Any]) -> RuleResult:
    """The connector must know whether this instance produces, consumes or both."""
    if c["kv_transfer_config"] and c["kv_transfer_config.kv_connector"] is not None \
            and c["kv_transfer_config.kv_role"] is None:
        return Violation("Please specify kv_role when kv_connector is set, supported roles are "
                         "('kv_producer', 'kv_both', 'kv_consumer')")
    return None


_MTP_TYPES = ("deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp", "longcat_flash_mtp")
_SM = "speculative_config.method"


@rule(
    "speculative.mtp-method-normalized",
    title="Model-specific MTP method names become 'mtp'",
    phase="sub_configs",
    kind="override",
    reads=("speculative_config", _SM),
    writes=(_SM,),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message="method `{method}` is deprecated and replaced with mtp.",
    level="warning",
)
def mtp_method_normalized(c: Mapping[str, Any]) -> RuleResult:
    """The per-model MTP spellings are deprecated aliases of the generic mtp method."""
    method = c[_SM]
    if c["speculative_config"] and method in _MTP_TYPES:
        return Outcome.log({_SM: "mtp"}, method=method)
    return None


@rule(
    "speculative.draft-model-from-method",
    title="mtp uses the target model as draft; ngram needs no model",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.num_speculative_tokens",
           "model_config.model"),
    writes=("speculative_config.model",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    message="",
    level="debug",
)
def draft_model_from_method(c: Mapping[str, Any]) -> RuleResult:
    """MTP layers live in the target checkpoint; n-gram lookup has no model; anything else must name one."""
    if not c["speculative_config"] or c["speculative_config.model"] is not None \
            or c["speculative_config.num_speculative_tokens"] is None:
        return None
    if c[_SM] == "mtp":
        return {"speculative_config.model": c["model_config.model"]}
    if c[_SM] in ("ngram", "[ngram]"):
        return {"speculative_config.model": "ngram"}
    return Violation("num_speculative_tokens was provided but without speculative model.")


_MTP_DRAFT_BY_TYPE = {
    "deepseek_v3": "DeepSeekMTPModel", "deepseek_v32": "DeepSeekMTPModel", "deepseek_mtp": "DeepSeekMTPModel",
    "ernie4_5_moe": "ErnieMTPModel", "ernie_mtp": "ErnieMTPModel",
    "qwen3_next": "Qwen3NextMTP", "qwen3_next_mtp": "Qwen3NextMTP",
    "longcat_flash": "LongCatFlashMTPModel",
}
_MTP_DRAFT_BY_ARCH = {"MiMoForCausalLM": "MiMoMTPModel", "Glm4MoeForCausalLM": "Glm4MoeMTPModel"}


@rule(
    "speculative.mtp-draft-architecture",
    title="The MTP draft is the target checkpoint loaded as its MTP architecture",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "model_config", "model_config.hf_config.model_type",
           "model_config.hf_config.architectures"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__, hf_config_override; ref 2.8",
    message="Resolved architecture: {architecture}",
    level="info",
)
def mtp_draft_architecture(c: Mapping[str, Any]) -> RuleResult:
    """SpeculativeConfig builds the draft's ModelConfig from the target checkpoint with ``hf_config_override``.

    The override renames the model type and architecture to the MTP head's, and the
    draft's ModelConfig logs the resolved architecture as every ModelConfig does.
    """
    if not c["speculative_config"] or c[_SM] != "mtp" or not c["model_config"]:
        return None
    archs = c["model_config.hf_config.architectures"] or ()
    arch = _MTP_DRAFT_BY_TYPE.get(c["model_config.hf_config.model_type"]) or (
        _MTP_DRAFT_BY_ARCH.get(archs[0]) if archs else None)
    return Outcome.log(architecture=arch) if arch else None


@rule(
    "speculative.method-from-model-name",
    title="The method is detected from the draft model's name (ngram, EAGLE, EAGLE-3)",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model"),
    writes=(_SM,),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def method_from_model_name(c: Mapping[str, Any]) -> RuleResult:
    """Without a method, "ngram" as model means n-gram lookup and EAGLE heads are recognised by name.

    Detection from the draft's config.json model_type (medusa, mlp_speculator, MTP) is not modelled.
    """
    model = c["speculative_config.model"]
    if not c["speculative_config"] or c[_SM] is not None or model is None:
        return None
    name = model.lower()
    if model in ("ngram", "[ngram]"):
        return {_SM: "ngram"}
    if "eagle-" in name:
        return {_SM: "eagle"}
    if "eagle3" in name:
        return {_SM: "eagle3"}
    return None



SPECULATIVE_METHOD = sequence(
    "speculative.method", mtp_method_normalized, draft_model_from_method, method_from_model_name,
    mtp_draft_architecture,
    title="SpeculativeConfig.__post_init__: MTP names normalised, the draft model, the method, the MTP architecture",
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__",
)

@rule(
    "speculative.prompt-lookup-defaults",
    title="n-gram lookup window defaults (5/5, or mirrored); 0/0 for other methods",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.prompt_lookup_min", "speculative_config.prompt_lookup_max"),
    writes=("speculative_config.prompt_lookup_min", "speculative_config.prompt_lookup_max"),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def prompt_lookup_defaults(c: Mapping[str, Any]) -> RuleResult:
    """n-gram matching needs a window; a single given bound is used for both; other methods do no lookup."""
    lo, hi = c["speculative_config.prompt_lookup_min"], c["speculative_config.prompt_lookup_max"]
    if not c["speculative_config"]:
        return None
    if c[_SM] != "ngram":
        new = (0, 0)
    elif lo is None and hi is None:
        new = (5, 5)
    else:
        new = (lo if lo is not None else hi, hi if hi is not None else lo)
        if new[0] > new[1]:
            return Violation(f"prompt_lookup_min={new[0]} must be <= prompt_lookup_max={new[1]}")
    return {"speculative_config.prompt_lookup_min": new[0], "speculative_config.prompt_lookup_max": new[1]}


def _model_based(c: Mapping[str, Any]) -> bool:
    """vLLM's ``else`` branch with a draft model: not n-gram, and a model (or MTP's target) to draft with."""
    return bool(c["speculative_config"]) and c[_SM] not in ("ngram", "[ngram]") \
        and c["speculative_config.model"] is not None


@rule(
    "speculative.token-tree",
    title="Speculative token tree: a chain of num_speculative_tokens, or the user's tree sorted breadth-first",
    phase="sub_configs",
    kind="derive",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.num_speculative_tokens",
           "speculative_config.speculative_token_tree"),
    writes=("speculative_config.speculative_token_tree",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8",
    level="debug",
)
def token_tree(c: Mapping[str, Any]) -> RuleResult:
    """Model-based drafters propose a tree of tokens; without one they propose a single chain.

    Not for n-gram lookup. The draft's ``n_predict`` default for an unset
    num_speculative_tokens is not modelled (the rule then does not fire).
    """
    if not _model_based(c):
        return None
    tree = c["speculative_config.speculative_token_tree"]
    if tree is None:
        n = c["speculative_config.num_speculative_tokens"]
        if n is None:
            return None
        return {"speculative_config.speculative_token_tree": str([(i + 1) * (0,) for i in range(n)])}
    try:
        choices = ast.literal_eval(tree)
        ordered = sorted(choices, key=lambda t: (len(t), t))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        # vLLM's SpeculativeConfig.__post_init__ raises the same: a SyntaxError/TypeError is not
        # wrapped by pydantic (only ValueError and AssertionError are)
        return Violation(str(e), error=type(e).__name__,
                         hint="speculative_token_tree is a Python literal: a list of tuples of ints")
    return {"speculative_config.speculative_token_tree": str(ordered)}


@rule(
    "speculative.draft-tensor-parallel-size",
    title="The draft model runs with the target's TP size (or 1)",
    phase="sub_configs",
    kind="default",
    reads=("speculative_config", _SM, "speculative_config.model", "speculative_config.draft_tensor_parallel_size",
           "parallel_config.tensor_parallel_size"),
    writes=("speculative_config.draft_tensor_parallel_size",),
    source="vllm/config/speculative.py SpeculativeConfig._verify_and_get_draft_tp; ref 2.8",
    level="debug",
)
def draft_tensor_parallel_size(c: Mapping[str, Any]) -> RuleResult:
    """A draft shards like its target unless told to run unsharded; any other size is refused.

    ``mlp_speculator`` drafts (always TP 1) are not modelled: postinit has no
    facts about the draft's config.json.
    """
    if not _model_based(c):
        return None
    draft, tp = c["speculative_config.draft_tensor_parallel_size"], c["parallel_config.tensor_parallel_size"]
    if draft is None:
        return {"speculative_config.draft_tensor_parallel_size": tp}
    if draft not in (1, tp):
        return Violation(f"speculative_draft_tensor_parallel_size={draft} cannot be other value than 1 or "
                         "target model tensor_parallel_size", error="ValueError",
                         hint=f"use draft_tensor_parallel_size 1 or {tp}")
    return None


def _reads(fn: Callable[..., Any]) -> tuple[str, ...]:
    spec = rule_of(fn)
    assert spec is not None, fn
    return spec.reads


class _Overlay(Mapping[str, Any]):
    """A read-only view of a state with a few paths replaced (reads go through, key by key)."""

    def __init__(self, base: Mapping[str, Any], top: Mapping[str, Any]) -> None:
        self.base, self.top = base, top

    def __getitem__(self, key: str) -> Any:
        return self.top[key] if key in self.top else self.base[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)


_DRAFT_CHECKS: tuple[Callable[[Mapping[str, Any]], RuleResult], ...] = (
    verify.external_launcher_seed,
    verify.heads_divisible_by_tp,
    verify.expert_parallel_needs_experts,
    verify.pipeline_parallel_supported,
    verify.dcp_kv_heads,
)
_DRAFT_CHECK_READS = tuple(dict.fromkeys(p for fn in _DRAFT_CHECKS for p in _reads(fn)))


@rule(
    "speculative.draft-verify-with-parallel-config",
    title="The draft model is verified against its parallel config while SpeculativeConfig is built",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SM, "speculative_config.draft_tensor_parallel_size", *_DRAFT_CHECK_READS),
    source="vllm/config/speculative.py SpeculativeConfig._verify_args "
    "(draft_model_config.verify_with_parallel_config); ref 2.8, 9",
)
def draft_verify_with_parallel_config(c: Mapping[str, Any]) -> RuleResult:
    """vLLM runs ``ModelConfig.verify_with_parallel_config`` on the draft before ``VllmConfig`` exists.

    For n-gram speculation the draft configs *are* the target's, so the checks of
    step 3 (``verify.*``) raise here, at the ``speculative_config`` stage, before any
    model hook of step 2 ran. An MTP draft is the target checkpoint on a fresh
    ParallelConfig (the draft TP size; no DCP, no expert parallelism). EAGLE and
    draft-model drafts are other checkpoints, whose config.json postinit does not
    hold: they are not checked here.
    """
    if not c["speculative_config"]:
        return None
    method = c[_SM]
    if method == "ngram":
        view: Mapping[str, Any] = c
        checks = _DRAFT_CHECKS
    elif method == "mtp":
        tp = c["speculative_config.draft_tensor_parallel_size"] or c["parallel_config.tensor_parallel_size"]
        view = _Overlay(c, {"parallel_config.tensor_parallel_size": tp,
                            "parallel_config.decode_context_parallel_size": 1,
                            "parallel_config.enable_expert_parallel": False})
        # the MTP head's own class decides SupportsPP, which postinit does not know
        checks = tuple(fn for fn in _DRAFT_CHECKS if fn is not verify.pipeline_parallel_supported)
    else:
        return None
    for check in checks:
        out = check(view)
        if isinstance(out, Violation):
            return out
    return None
