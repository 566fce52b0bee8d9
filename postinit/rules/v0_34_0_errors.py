"""vLLM 0.34.0's refusals in ``EngineArgs.create_engine_config``: the part of its delta over 0.11.1 that raises.

0.34.0 reworded the data-parallel launch checks as ``ValueError``\\ s that name the flags (0.11.1 asserted),
and added checks of its own: fault tolerance needs external load balancing, a dense model has no external
data parallelism, a multi-node run's node rank is bounded. Each rule names the line of
``vllm/engine/arg_utils.py`` (the 0.34.0 wheel) whose statement it mirrors.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from typing import Any, get_args

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules import model_config as mc
from postinit.rules.delta import patch
from postinit.rules.v0_11_1 import dp_lb_outcome
from postinit.rules.versions import Delta
from postinit.schema.configs import DistributedExecutorBackend, SpeculativeMethod
from postinit.schema.loaders.construct import SAME_TYPES, refused_fields, schema_class

__all__ = ["DELTA"]

_ARGS = "vllm/engine/arg_utils.py EngineArgs"
_REF = "ref 12.2, v0.34.0"
_EA = "usage.via_engine_args"
_DP = "parallel_config.data_parallel_size"
_DPR, _DPL = "parallel_config.data_parallel_rank", "parallel_config.data_parallel_size_local"
_HYBRID, _EXTERNAL = "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb"
_OPTS = "Invalid data-parallel launch options: "

_DP_LB_CHECK_READS = (_EA, "usage.given", "usage.given_on", "usage.given_values", "usage.data_parallel_start_rank",
                      "usage.headless", _DPL, "parallel_config.data_parallel_backend", "parallel_config.nnodes",
                      "parallel_config.node_rank", "parallel_config.pipeline_parallel_size",
                      "parallel_config.tensor_parallel_size", "parallel_config.prefill_context_parallel_size",
                      "parallel_config.enable_fault_tolerance", "model_config.is_moe")
"""What create_engine_config's data-parallel checks read: the DP size and rank as given (``usage.given_values``),
not the config's, which ParallelConfig's rules rewrite from VLLM_DP_* before the checks run in postinit."""
_DP_LB_READS = (*_DP_LB_CHECK_READS, _DP, _DPR, _HYBRID, _EXTERNAL)


def _dp_lb(c: Mapping[str, Any]) -> Violation | tuple[dict[str, Any], list[tuple[str, str]]]:
    """0.34.0's create_engine_config on the data-parallel arguments (vllm/engine/arg_utils.py:2412-2560): its first
    refusal, or the values it passes to ParallelConfig with what it logs."""
    given = c["usage.given"] or ()
    rank_set, local_set = _DPR in given, _DPL in given
    headless, start = bool(c["usage.headless"]), int(c["usage.data_parallel_start_rank"] or 0)
    on = c["usage.given_on"] or ()  # the flags as given: this rule rewrites the config's (the autoswitch)
    hybrid, external_flag = _HYBRID in on, _EXTERNAL in on
    as_given = c["usage.given_values"] or {}  # the DP size and rank as given (ParallelConfig rewrites them later)
    dp, local, rank = as_given.get(_DP, 1), c[_DPL], as_given.get(_DPR, 0)
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
    return dp_lb_outcome(c, _dp_lb(c)) if c[_EA] else None


@rule(
    "engine-args.data-parallel-lb-check",
    title="create_engine_config's refusals of the data-parallel launch options",
    phase="sub_configs",  # after CacheConfig is built and logged (observed._ENGINE_ARGS_STEPS: before-parallel)
    kind="check",
    reads=_DP_LB_CHECK_READS,
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


@rule(
    "engine-args.unsupported-feature",
    title="Pipeline parallelism needs an executor that supports it",
    phase="engine_args",
    kind="check",
    reads=(_EA, "parallel_config.pipeline_parallel_size", "parallel_config.distributed_executor_backend"),
    source=f"{_ARGS}._check_feature_supported, _raise_unsupported_error (vllm/engine/arg_utils.py:2957-2974, "
    f"3311, called at :2318); ref 12.3, v0.34.0",
    message="<feature> is not supported. We recommend to remove <feature> from your config.",
)
def unsupported_feature(c: Mapping[str, Any]) -> RuleResult:
    """Only pipeline parallelism is left to refuse: the logits-processor pattern and concurrent partial prefills
    are gone from 0.34.0, and pipeline stages still need Ray, mp or an external launcher."""
    if not c[_EA]:
        return None
    if c["parallel_config.pipeline_parallel_size"] > 1 and c["parallel_config.distributed_executor_backend"] \
            not in (None, "ray", "mp", "external_launcher"):
        name = ("Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external "
                "launcher")
        return Violation(f"{name} is not supported. We recommend to remove {name} from your config.",
                         error="NotImplementedError", hint=f"remove {name}")
    return None


@rule(
    "engine-args.default-mm-loras-need-multimodal",
    title="Default modality-specific LoRAs need a multimodal model",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "model_config", "model_config.is_multimodal_model", "lora_config", "lora_config.default_mm_loras",
           "usage.default_mm_loras"),
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2722-2726, after SchedulerConfig); {_REF}",
    message="Default modality-specific LoRA(s) were provided for a non multimodal model",
)
def default_mm_loras_need_multimodal(c: Mapping[str, Any]) -> RuleResult:
    """A LoRA for images or audio has nothing to apply to in a text-only model (checked on EngineArgs' field, with
    or without --enable-lora)."""
    if not c[_EA] or c["model_config"] is None or c["model_config.is_multimodal_model"]:
        return None
    if c["usage.default_mm_loras"] or (c["lora_config"] is not None and c["lora_config.default_mm_loras"]):
        return Violation("Default modality-specific LoRA(s) were provided for a non multimodal model")
    return None


@rule(
    "engine-args.kda-prefill-backend-platform",
    title="The KDA prefill kernels exist on one platform each: flashkda on CUDA, fused on ROCm",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "additional_config", "platform.is_cuda", "platform.is_rocm"),
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2904-2916, --kda-prefill-backend into "
    f"additional_config); {_REF}",
    message="--kda-prefill-backend=<backend> is only available on <platform>.",
)
def kda_prefill_backend_platform(c: Mapping[str, Any]) -> RuleResult:
    """flashkda is a CUDA kernel and fused a ROCm one; vLLM checks the flag before it copies it into
    additional_config (postinit reads it there)."""
    if not c[_EA]:
        return None
    backend = (c["additional_config"] or {}).get("kda_prefill_backend")
    if backend == "flashkda" and not c["platform.is_cuda"]:
        return Violation("--kda-prefill-backend=flashkda is only available on CUDA.")
    if backend == "fused" and not c["platform.is_rocm"]:
        return Violation("--kda-prefill-backend=fused is only available on ROCm.")
    return None


_MB = "mamba_config."


def _enum_refusal(cls: str, field: str, value: Any, expected: str) -> str:
    """pydantic's text for a value of ``cls.field`` that is no member of the field's Enum."""
    from pydantic import ValidationError

    return str(ValidationError.from_exception_data(cls, [{
        "type": "enum", "loc": (field,), "input": value, "ctx": {"expected": expected}}]))


@rule(
    "mamba.backend-enum",
    title="The Mamba backend is a MambaBackendEnum member: a name given in any case is upper-cased",
    phase="sub_configs",
    kind="derive",
    reads=(_MB + "backend",),
    writes=(_MB + "backend",),
    source="vllm/config/mamba.py MambaConfig.validate_backend_before (a field validator; EngineArgs does the same "
    "for --mamba-backend, vllm/engine/arg_utils.py:2809); ref v0.34.0",
)
def mamba_backend_enum(c: Mapping[str, Any]) -> RuleResult:
    """``--mamba-backend flashinfer`` and ``{"backend": "flashinfer"}`` both name ``MambaBackendEnum.FLASHINFER``; another
    name is refused by the enum's ``__getitem__`` (vllm/config/mamba.py:14-24)."""
    backend = c[_MB + "backend"]
    if not isinstance(backend, str):
        # the validator passes it on: pydantic's enum check finds no member of that value
        return Violation(_enum_refusal("MambaConfig", "backend", backend, "'triton', 'flashinfer' or 'cpu'"),
                         error="ValidationError")
    if isinstance(backend, str) and backend.upper() not in ("TRITON", "FLASHINFER", "CPU"):
        return Violation(f"Unknown Mamba SSU backend: '{backend.upper()}'. Valid options are: TRITON, FLASHINFER, CPU")
    if isinstance(backend, str) and backend != backend.upper():
        return {_MB + "backend": backend.upper()}
    return None


_KV_CACHE_SPEC_KINDS = ("chunked_local_attention", "cross_attention", "encoder_only_attention", "full_attention",
                        "mamba", "mla_attention", "sink_full_attention", "sliding_window", "sliding_window_mla",
                        "unknown")
"""``KVCacheSpecKind``'s values (vllm/v1/kv_cache_interface.py), sorted as vLLM lists them."""


@rule(
    "attention.backend-per-kind",
    title="attention_config.backend_per_kind maps KV cache group kinds to backends",
    phase="sub_configs",
    kind="check",
    reads=("attention_config.backend_per_kind",),
    source="vllm/config/attention.py AttentionConfig.validate_backend_per_kind_before (vllm/config/attention.py:"
    "304-324, a field validator); ref v0.34.0",
    message="Unknown KV cache group kind '<kind>' in backend_per_kind. Valid kinds are: <kinds>.",
)
def attention_backend_per_kind(c: Mapping[str, Any]) -> RuleResult:
    """Partial model: the backend names are not checked against AttentionBackendEnum."""
    per_kind = c["attention_config.backend_per_kind"]
    if not isinstance(per_kind, Mapping):
        return None
    for kind in per_kind:
        if kind not in _KV_CACHE_SPEC_KINDS:
            return Violation(f"Unknown KV cache group kind '{kind}' in backend_per_kind. Valid kinds are: "
                             f"{', '.join(_KV_CACHE_SPEC_KINDS)}.")
    return None


_MSA_ALIASES = {"CUTLASS_MSA": "cutlass", "TRITON_MSA": "triton"}


@rule(
    "attention.indexer-cp-dtype",
    title="MiniMax M3 indexer context parallelism needs a bf16 or fp8 e4m3 index cache",
    phase="sub_configs",
    kind="check",
    reads=("attention_config.minimax_m3_indexer_cp", "attention_config.indexer_kv_dtype"),
    source="vllm/config/attention.py AttentionConfig.__post_init__ (vllm/config/attention.py:237-250); ref v0.34.0",
    message="minimax_m3_indexer_cp requires a bf16 or fp8 e4m3 index cache (indexer_kv_dtype 'auto', 'bf16', 'fp8' "
    "or 'fp8_e4m3'), got <dtype>",
)
def attention_indexer_cp_dtype(c: Mapping[str, Any]) -> RuleResult:
    """The two CP indexers (Triton for bf16, AITER MSA for fp8) cover those dtypes only."""
    dtype = c["attention_config.indexer_kv_dtype"]
    if c["attention_config.minimax_m3_indexer_cp"] and dtype not in ("auto", "bf16", "fp8", "fp8_e4m3"):
        return Violation("minimax_m3_indexer_cp requires a bf16 or fp8 e4m3 index cache (indexer_kv_dtype 'auto', "
                         f"'bf16', 'fp8' or 'fp8_e4m3'), got {dtype!r}")
    return None


@rule(
    "attention.backend-auto",
    title="An attention backend given as 'auto' (any case) means automatic selection (None); a speculative "
    "config's backend name is the enum member's",
    phase="sub_configs",
    kind="derive",
    reads=("attention_config.backend", "speculative_config", "speculative_config.attention_backend"),
    writes=("attention_config.backend", "attention_config.minimax_m3_msa_decode_backend",
            "speculative_config.attention_backend"),
    source="vllm/config/attention.py AttentionConfig.validate_backend_before (:280-290), "
    "vllm/config/speculative.py SpeculativeConfig._parse_attention_backend (:1636-1643); ref v0.34.0",
)
def attention_backend_auto(c: Mapping[str, Any]) -> RuleResult:
    """Both are field validators: "auto" becomes None, another name ``AttentionBackendEnum[name.upper()]``; the
    MiniMax sparse-decode aliases CUTLASS_MSA / TRITON_MSA pick that kernel and leave the backend automatic
    (AttentionConfig.__post_init__, vllm/config/attention.py:228-236)."""
    out: dict[str, Any] = {}
    backend = c["attention_config.backend"]
    if isinstance(backend, str) and backend.lower() == "auto":
        out["attention_config.backend"] = None
    elif isinstance(backend, str) and backend.upper() in _MSA_ALIASES:
        out["attention_config.backend"] = None
        out["attention_config.minimax_m3_msa_decode_backend"] = _MSA_ALIASES[backend.upper()]
    spec = c["speculative_config.attention_backend"] if c["speculative_config"] else None
    if isinstance(spec, str):
        value = None if spec.lower() == "auto" else spec.upper()
        if value != spec:
            out["speculative_config.attention_backend"] = value
    return Outcome(out, message="") if out else None


@rule(
    "mamba.stochastic-rounding-platform",
    title="Stochastic rounding of the Mamba cache: CUDA only, and with the Triton backend SM 10.x only",
    phase="sub_configs",
    kind="check",
    reads=(_MB + "enable_stochastic_rounding", _MB + "backend", "platform.is_cuda", "platform.capability"),
    source="vllm/config/mamba.py MambaConfig.__post_init__ (vllm/config/mamba.py:85-104); ref v0.34.0",
    message="Stochastic rounding for Mamba cache ... (not CUDA | triton backend below compute capability 10.0)",
)
def mamba_stochastic_rounding_platform(c: Mapping[str, Any]) -> RuleResult:
    """The Triton kernel rounds with the ``cvt.rs`` PTX instruction, which only data-center Blackwell has."""
    if not c[_MB + "enable_stochastic_rounding"]:
        return None
    if not c["platform.is_cuda"]:
        return Violation("Stochastic rounding for Mamba cache is only supported on NVIDIA CUDA platforms. Please do "
                         "not specify  `--enable-mamba-cache-stochastic-rounding`.")
    if str(c[_MB + "backend"]).upper() == "TRITON" and c["platform.capability"] // 10 != 10:
        return Violation("Stochastic rounding for Mamba cache with triton backend requires compute capability 10.0 "
                         "(data center Blackwell). The `cvt.rs` PTX instruction is not supported on your GPU. "
                         "Please do not specify `--enable-mamba-cache-stochastic-rounding`, or set "
                         "`--mamba-backend flashinfer`.")
    return None


_PR = "profiler_config."
_PROTON_DEFAULTS = (("proton_profiler_dir", ""), ("proton_context", "shadow"), ("proton_data", "tree"),
                    ("proton_backend", None), ("proton_mode", None), ("proton_hook", None),
                    ("proton_output_format", None), ("proton_graph_attribution", False))


@rule(
    "profiler.options-checks",
    title="ProfilerConfig: each profiler's options only with that profiler, and its output directory set",
    phase="sub_configs",
    kind="check",
    reads=(f"{_PR}profiler", f"{_PR}torch_profiler_activities", f"{_PR}torch_profiler_dir",
           *(_PR + name for name, _ in _PROTON_DEFAULTS), f"{_PR}capture_torch_profiler"),
    source="vllm/config/profiler.py ProfilerConfig._validate_profiler_config (vllm/config/profiler.py:205-289, a "
    "model_validator); ref v0.34.0",
    message="<ProfilerConfig's refusal>",
)
def profiler_options_checks(c: Mapping[str, Any]) -> RuleResult:
    """The torch profiler writes its traces to torch_profiler_dir and Proton to proton_profiler_dir: each needs its
    directory, and the other profiler's options mean nothing to it."""
    profiler = c[f"{_PR}profiler"]
    activities = c[f"{_PR}torch_profiler_activities"]
    if activities is not None:
        if profiler != "torch":
            return Violation("torch_profiler_activities is only applicable when profiler is set to 'torch'")
        if len(activities) != len(set(activities)):
            return Violation("torch_profiler_activities must not contain duplicates")
    torch_dir = c[f"{_PR}torch_profiler_dir"]
    if torch_dir and profiler != "torch":
        return Violation("torch_profiler_dir is only applicable when profiler is set to 'torch'")
    if profiler == "torch" and not torch_dir:
        return Violation("torch_profiler_dir must be set when profiler is 'torch'")
    proton = [name for name, default in _PROTON_DEFAULTS if c[_PR + name] != default]
    if profiler != "proton" and proton:
        return Violation(f"{', '.join(proton)} only applicable when profiler is set to 'proton'")
    proton_dir = c[f"{_PR}proton_profiler_dir"]
    if profiler == "proton" and not proton_dir:
        return Violation("proton_profiler_dir must be set when profiler is 'proton'")
    if proton_dir and "://" in str(proton_dir):
        return Violation("proton_profiler_dir must be a local directory")
    if profiler == "proton":
        data, out, mode = c[f"{_PR}proton_data"], c[f"{_PR}proton_output_format"], c[f"{_PR}proton_mode"]
        if c[f"{_PR}proton_graph_attribution"] and data != "tree":
            return Violation("proton_graph_attribution requires proton_data='tree'")
        if c[f"{_PR}proton_graph_attribution"] and mode and str(mode).split(":", 1)[0].lower() == "periodic_flushing":
            return Violation("proton_graph_attribution is incompatible with periodic_flushing: both manage Proton "
                             "data phases.")
        if out == "chrome_trace" and data != "trace":
            return Violation("chrome_trace output requires proton_data='trace'")
        if out in ("hatchet", "hatchet_msgpack") and data != "tree":
            return Violation(f"{out} output requires proton_data='tree'")
    if c[f"{_PR}capture_torch_profiler"] and profiler != "torch":  # :290-294
        return Violation("capture_torch_profiler is only applicable when profiler is set to 'torch'")
    return None


@rule(
    "profiler.warnings",
    title="ProfilerConfig warns about a bounded torch profile of the frontend and the deprecated capture flag",
    phase="sub_configs",
    kind="check",
    reads=(f"{_PR}profiler", f"{_PR}delay_iterations", f"{_PR}max_iterations", f"{_PR}ignore_frontend",
           f"{_PR}torch_profiler_activities", f"{_PR}capture_torch_profiler"),
    source="vllm/config/profiler.py ProfilerConfig._validate_profiler_config (vllm/config/profiler.py:206-222, "
    "295-299); ref v0.34.0",
    message="Using 'torch' profiler with delay_iterations or max_iterations while ignore_frontend is False may "
    "result in high overhead. / capture_torch_profiler is deprecated ...",
    level="warning",
)
def profiler_warnings(c: Mapping[str, Any]) -> RuleResult:
    """Profiling the frontend's CPU side has no iteration bound, so a delay or a cap leaves it running."""
    said = []
    bounded = c[f"{_PR}delay_iterations"] > 0 or c[f"{_PR}max_iterations"] > 0
    activities = c[f"{_PR}torch_profiler_activities"]
    frontend = (c[f"{_PR}profiler"] == "torch" and not c[f"{_PR}ignore_frontend"]
                and (activities is None or "CPU" in activities))
    if bounded and frontend:
        said.append("Using 'torch' profiler with delay_iterations or max_iterations while ignore_frontend is False "
                    "may result in high overhead.")
    if c[f"{_PR}capture_torch_profiler"]:
        said.append("capture_torch_profiler is deprecated and has no effect. It will be removed in a future release.")
    return Outcome(message="\n".join(said)) if said else None


@rule(
    "observability.layerwise-nvtx-deprecated",
    title="enable_layerwise_nvtx_tracing is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("observability_config.enable_layerwise_nvtx_tracing",),
    source="vllm/config/observability.py ObservabilityConfig._validate_tracing_config "
    "(vllm/config/observability.py:216-221); ref v0.34.0",
    message="enable_layerwise_nvtx_tracing is deprecated and no longer traces each layer; it only marks calls to the "
    "compiled model. It will be removed in a future release.",
    level="warning",
)
def layerwise_nvtx_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """The flag now only brackets the compiled model's calls."""
    return Outcome.log({}) if c["observability_config.enable_layerwise_nvtx_tracing"] else None


@rule(
    "vllm.nvfp4-kv-cache-mla",
    title="The nvfp4 KV cache: its MLA layout excludes decode context parallelism, the plain one excludes MLA",
    phase="validate",
    kind="check",
    reads=("cache_config.cache_dtype", "parallel_config.decode_context_parallel_size", "model_config",
           "model_config.use_mla"),
    source="vllm/config/vllm.py VllmConfig.validate_nvfp4_kv_cache_with_mla (vllm/config/vllm.py:3553-3580, a "
    "model_validator); ref step-25, v0.34.0",
    message="<nvfp4 KV cache refusal>",
)
def nvfp4_kv_cache_mla(c: Mapping[str, Any]) -> RuleResult:
    """The ds_mla layouts are MLA-only by construction (and their chunked-context gather is not validated under
    DCP); the plain nvfp4 layout (head_size/2 + head_size/16 bytes) does not fit MLA's latent cache."""
    dtype = str(c["cache_config.cache_dtype"])
    if dtype == "nvfp4_ds_mla" and c["parallel_config.decode_context_parallel_size"] > 1:
        return Violation("nvfp4_ds_mla KV cache is not supported with decode context parallelism: the "
                         "chunked-context prefill gather is not validated under DCP. Use "
                         "decode_context_parallel_size=1 or a different --kv-cache-dtype.")
    if c["model_config"] is None:
        return None
    if dtype.startswith("nvfp4") and not dtype.endswith("_ds_mla") and c["model_config.use_mla"]:
        return Violation("nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use "
                         "a different --kv-cache-dtype (e.g., 'fp8', 'auto', or 'nvfp4_ds_mla' with a sparse MLA "
                         "backend) for MLA models such as DeepSeek.")
    return None


def _given_twice(rule_id: str, field: str, json_key: str, line: str, title: str) -> Any:
    """create_engine_config's refusal of the EngineArgs field ``field`` given beside ``json_key`` in its
    sub-config's JSON (``usage.given_twice``, recorded by the parser)."""

    @rule(
        rule_id,
        title=title,
        phase="sub_configs",
        kind="check",
        reads=(_EA, "usage.given_twice"),
        source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:{line}); {_REF}",
        message=f"{field} and {json_key} are mutually exclusive",
    )
    def given_twice(c: Mapping[str, Any]) -> RuleResult:
        """The flag is a shorthand for the sub-config's key: vLLM will not guess which of the two to keep."""
        if c[_EA] and field in (c["usage.given_twice"] or ()):
            return Violation(f"{field} and {json_key} are mutually exclusive")
        return None

    return given_twice


attention_backend_given_twice = _given_twice(
    "engine-args.attention-backend-given-twice", "attention_backend", "attention_config.backend", "2766-2770",
    "--attention-backend and --attention-config's backend exclude each other")
flashinfer_autotune_given_twice = _given_twice(
    "engine-args.flashinfer-autotune-given-twice", "enable_flashinfer_autotune",
    "kernel_config.enable_flashinfer_autotune", "2828-2832",
    "--enable-flashinfer-autotune and --kernel-config's enable_flashinfer_autotune exclude each other")


@rule(
    "engine-args.capture-sizes-given-twice",
    title="--cudagraph-capture-sizes / --max-cudagraph-capture-size exclude the same key in -cc",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "usage.given_twice"),
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2872-2884); {_REF}",
    message="<field> and compilation_config.<field> are mutually exclusive",
)
def capture_sizes_given_twice(c: Mapping[str, Any]) -> RuleResult:
    """The flags are shorthands for -cc's keys: vLLM will not guess which of the two to keep."""
    if not c[_EA]:
        return None
    for field in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
        if field in (c["usage.given_twice"] or ()):
            return Violation(f"{field} and compilation_config.{field} are mutually exclusive")
    return None


@rule(
    "engine-args.speculative-config-undeclared",
    title="--speculative-config's keys SpeculativeConfig does not declare are refused where it is built",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "usage.speculative_refusal"),
    source=f"{_ARGS}.create_speculative_config (SpeculativeConfig(**self.speculative_config), "
    f"vllm/engine/arg_utils.py:2133, called at :2669; the @config decorator forbids extra fields, vllm/config/utils.py:72); {_REF}",
    message="<pydantic's refusal: Unexpected keyword argument>",
)
def speculative_config_undeclared(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs keeps the flag's JSON as a dict (no dataclass parser for it): the 0.11-era keys
    (disable_by_batch_size, speculative_token_tree, ...) reach SpeculativeConfig only in create_engine_config."""
    if c[_EA] and c["usage.speculative_refusal"]:
        return Violation(c["usage.speculative_refusal"], error="ValidationError",
                         hint="drop the keys SpeculativeConfig no longer has")
    return None


_KV_CACHE_DTYPES = (
    "auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla", "nvfp4_ds_mla",
    "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc", "octave_k3v4", "octave_k3v3",
    "octave_k3v3_compact", "ultraquant_4bit", "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head",
    "nvfp4", "nvfp4_4over6",
)
"""vLLM 0.34.0's ``KV_CACHE_DTYPES`` in its order (vllm/config/cache.py:44-73)."""


@rule(
    "cache.cache-dtype-known",
    title="The KV cache dtype is one vLLM knows",
    phase="sub_configs",
    kind="check",
    reads=("usage.unheld",),
    source="vllm/config/cache.py CacheConfig._validate_cache_dtype (vllm/config/cache.py:503-510, a field validator); "
    "ref v0.34.0",
    message="Invalid kv_cache_dtype: <value>. Valid values are: [...]",
)
def cache_dtype_known(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0's --kv-cache-dtype takes any text (a platform may register its own dtype); CacheConfig refuses one
    no handler knows."""
    unheld = c["usage.unheld"] or {}
    if "cache_config.cache_dtype" in unheld:
        return Violation(f"Invalid kv_cache_dtype: {unheld['cache_config.cache_dtype']!r}. Valid values are: "
                         f"{list(_KV_CACHE_DTYPES)}", hint="pick one of the listed KV cache dtypes")
    return None


@rule(
    "compilation.custom-ops-conflicting",
    title="custom_ops does not both enable and disable one op",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.custom_ops",),
    source="vllm/config/compilation.py CompilationConfig.__post_init__ (vllm/config/compilation.py:1177-1184); "
    "ref 3.1, v0.34.0",
    message="custom_ops cannot both enable and disable the same operation(s): <ops>. Remove either the '+' or '-' "
    "directive",
)
def custom_ops_conflicting(c: Mapping[str, Any]) -> RuleResult:
    """'+op' and '-op' together leave the op's state to the order of a list: vLLM asks for one of them."""
    ops = list(c["compilation_config.custom_ops"] or ())
    both = sorted({op[1:] for op in ops if op.startswith("+")} & {op[1:] for op in ops if op.startswith("-")})
    if both:
        return Violation(f"custom_ops cannot both enable and disable the same operation(s): {', '.join(both)}. "
                         "Remove either the '+' or '-' directive")
    return None


@rule(
    "observability.detailed-traces-need-otlp",
    title="Detailed traces need an OTLP traces endpoint",
    phase="sub_configs",
    kind="check",
    reads=("observability_config.collect_detailed_traces", "observability_config.otlp_traces_endpoint"),
    source="vllm/config/observability.py ObservabilityConfig._validate_tracing_config "
    "(vllm/config/observability.py:210-215, a model_validator); ref v0.34.0",
    message="collect_detailed_traces requires `--otlp-traces-endpoint` to be set.",
)
def detailed_traces_need_otlp(c: Mapping[str, Any]) -> RuleResult:
    """The detailed spans are exported over OTLP: without an endpoint they would go nowhere."""
    if c["observability_config.collect_detailed_traces"] and not c["observability_config.otlp_traces_endpoint"]:
        return Violation("collect_detailed_traces requires `--otlp-traces-endpoint` to be set.")
    return None


@rule(
    "mamba.ssu-algorithm-backend",
    title="Choosing the Mamba SSU algorithm needs the FlashInfer backend",
    phase="sub_configs",
    kind="check",
    reads=(_MB + "ssu_algorithm", _MB + "backend"),
    source="vllm/config/mamba.py MambaConfig.validate_ssu_algorithm (vllm/config/mamba.py:66-81, called by "
    "__post_init__); ref v0.34.0",
    message="Mamba SSU algorithm selection is only supported with the FlashInfer backend. ...",
)
def mamba_ssu_algorithm_backend(c: Mapping[str, Any]) -> RuleResult:
    """Only FlashInfer's selective-state-update kernels come in several algorithms."""
    if c[_MB + "ssu_algorithm"] is not None and str(c[_MB + "backend"]).upper() != "FLASHINFER":
        return Violation("Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set "
                         "`--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.")
    return None


_SC = "speculative_config."


@rule(
    "speculative.verify-args",
    title="SpeculativeConfig: no tensor_parallel_size key, and a positive number of speculative tokens",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SC + "method", _SC + "tensor_parallel_size", _SC + "num_speculative_tokens"),
    source="vllm/config/speculative.py SpeculativeConfig._verify_args (vllm/config/speculative.py:1645-1665, a "
    "model_validator); ref v0.34.0",
    message="<SpeculativeConfig's refusal>",
)
def speculative_verify_args(c: Mapping[str, Any]) -> RuleResult:
    """The draft's TP is draft_tensor_parallel_size; n-gram and suffix drafting have no draft config whose
    n_predict could stand for a missing num_speculative_tokens."""
    if c["speculative_config"] is None:
        return None
    if c[_SC + "tensor_parallel_size"] is not None:
        return Violation("'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
                         "'draft_tensor_parallel_size' instead.")
    tokens = c[_SC + "num_speculative_tokens"]
    if tokens is None and c[_SC + "method"] in ("ngram", "suffix"):
        return Violation("num_speculative_tokens must be provided with speculative model unless the draft model "
                         "config contains an n_predict parameter.")
    if isinstance(tokens, int) and tokens <= 0:
        return Violation(f"Expected num_speculative_tokens to be greater than zero ({tokens}).")
    return None


_METHOD_OPTIONS = ("dspark_draft_topk", "draft_lm_head_quantization", "index_share_for_mtp_iteration", "xpress_topc",
                   "speculator_options")
_SYN_RATES, _SYN_LEN = _SC + "synthetic_acceptance_rates", _SC + "synthetic_acceptance_length"


def _synthetic_rates(n: int, rates: Any, length: Any) -> Violation | list[float]:
    """SpeculativeConfig._resolve_synthetic_acceptance_rates (vllm/config/speculative.py:647-680)."""
    if (rates is None) == (length is None):
        return Violation("rejection_sample_method='synthetic' requires exactly one of synthetic_acceptance_rates or "
                         "synthetic_acceptance_length.")
    if rates is not None:
        given = [float(r) for r in rates]
        if len(given) != n:
            return Violation(f"synthetic_acceptance_rates must have length {n}, got {given}.")
        if not all(0.0 <= r <= 1.0 for r in given):
            return Violation(f"synthetic_acceptance_rates entries must be in [0, 1], got {given}.")
        if any(given[i] > given[i - 1] for i in range(1, n)):
            return Violation(f"synthetic_acceptance_rates must be non-increasing, got {given}.")
        return given
    if not 1.0 <= float(length) <= float(n + 1):
        return Violation(f"synthetic_acceptance_length must be in [1, {n + 1}], got {float(length)}.")
    drafts = float(length) - 1  # the expected number of accepted drafts, as full positions then one partial
    full = int(drafts)
    return ([1.0] * full + [drafts - full] + [0.0] * (n - full - 1))[:n]


@rule(
    "speculative.sampling-options",
    title="SpeculativeConfig: method-specific options, synthetic acceptance rates, parallel drafting and FLy",
    phase="sub_configs",
    kind="override",
    reads=("speculative_config", _SC + "method", _SC + "num_speculative_tokens", _SC + "rejection_sample_method",
           _SYN_RATES, _SYN_LEN, _SC + "parallel_drafting", _SC + "fly_window_size",
           *(_SC + o for o in _METHOD_OPTIONS)),
    writes=(_SYN_RATES, _SYN_LEN, _SC + "fly_window_size"),
    after=("speculative.verify-args",),
    level="warning",
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (vllm/config/speculative.py:1394-1403) and "
    "_verify_args (vllm/config/speculative.py:1667-1722, a model_validator); ref v0.34.0",
    message="<SpeculativeConfig's refusal> / parallel_drafting is deprecated ... / FLy verification is lossy ...",
)
def speculative_sampling_options(c: Mapping[str, Any]) -> RuleResult:
    """Synthetic rejection sampling replays given acceptance rates (from a length: full positions, then one partial);
    FLy's window defaults to min(6, k - 1); n-gram drafting takes none of the model-specific draft options."""
    if c["speculative_config"] is None:
        return None
    method, n = c[_SC + "method"], c[_SC + "num_speculative_tokens"]
    if method == "ngram":
        for option in _METHOD_OPTIONS:
            if c[_SC + option] is not None:
                return Violation(f"{option} is not supported with speculative method {method!r}.")
    if not isinstance(n, int):
        return None
    out: dict[str, Any] = {}
    said: list[str] = []
    sampling = c[_SC + "rejection_sample_method"]
    if sampling == "synthetic":
        rates = _synthetic_rates(n, c[_SYN_RATES], c[_SYN_LEN])
        if isinstance(rates, Violation):
            return rates
        out.update({_SYN_RATES: tuple(rates), _SYN_LEN: None})
    elif c[_SYN_RATES] is not None or c[_SYN_LEN] is not None:
        return Violation("synthetic_acceptance_rates / synthetic_acceptance_length are only valid with "
                         "rejection_sample_method='synthetic'.")
    drafting = c[_SC + "parallel_drafting"]
    if drafting is not None:
        if drafting and method not in ("dflash", "dspark"):
            return Violation(f"parallel_drafting is only supported by the dflash and dspark methods, not {method!r}.")
        said.append("parallel_drafting is deprecated and has no effect: dflash and dspark always draft in parallel, "
                    "and no other method supports it. It will be removed in a future release.")
    if sampling == "fly":
        if method == "extract_hidden_states":  # its speculator's proposes_draft_tokens is False
            return Violation("FLy is not compatible with method='extract_hidden_states', which does not perform "
                             "speculative decoding.")
        if n < 2:
            return Violation("FLy requires num_speculative_tokens to be at least 2.")
        window = c[_SC + "fly_window_size"]
        if window is None:
            out[_SC + "fly_window_size"] = min(6, n - 1)
        elif window >= n:
            return Violation("FLy requires fly_window_size to be smaller than num_speculative_tokens.")
        said.append("FLy verification is a lossy speculative decoding method and may degrade model outputs.")
    if not out and not said:
        return None
    return Outcome(out, message="\n".join(said))


@rule(
    "engine-args.device-ids",
    title="--device-ids: no duplicates, not mixing indices and UUIDs; indices (into CUDA_VISIBLE_DEVICES when set) "
    "become the assigned GPU ids",
    phase="engine_args",
    kind="override",
    reads=(_EA, "usage.device_ids", "parallel_config.distributed_executor_backend", "platform.kind",
           "env.CUDA_VISIBLE_DEVICES"),
    writes=("parallel_config.assigned_physical_gpu_ids",),
    source="vllm/engine/arg_utils.py EngineArgs._resolve_device_ids (vllm/engine/arg_utils.py:2174-2212), "
    "Platform.device_control_id_to_physical_device_id (vllm/platforms/interface.py:278-286); ref v0.34.0",
    message="--device-ids has no effect when using the Ray executor. Use Ray placement groups for GPU selection "
    "instead.",
    level="warning",
)
def device_ids(c: Mapping[str, Any]) -> RuleResult:
    """The ids pick the GPUs the workers use. An id that is not a number goes through the platform's device
    mapping: on CUDA a probe of the real devices (NVML, left unset here); elsewhere only numbers are accepted. Under
    CUDA_VISIBLE_DEVICES (ROCm: the same variable) the ids index its devices."""
    text = c["usage.device_ids"]
    if not c[_EA] or not text:
        return None
    said = ("--device-ids has no effect when using the Ray executor. Use Ray placement groups for GPU selection "
            "instead." if c["parallel_config.distributed_executor_backend"] == "ray" else "")
    ids: list[int | str] = [int(x) if x.strip().isdigit() else x.strip() for x in str(text).split(",")]
    if len(set(ids)) != len(ids):
        return Violation(f"--device-ids must not contain duplicates: {ids}")
    kind = c["platform.kind"]

    def physical(x: str) -> int | Violation:
        try:
            return int(x)
        except ValueError:
            return Violation(f"Non-integer device ID {x!r} is not supported by {kind}.")

    if all(isinstance(i, str) for i in ids):
        if kind in ("rocm", "cpu"):
            for x in ids:
                got = physical(str(x))
                if isinstance(got, Violation):
                    return got
            return Outcome({"parallel_config.assigned_physical_gpu_ids": tuple(int(str(x)) for x in ids)},
                           message=said)
        return Outcome(message=said) if said else None
    if any(isinstance(i, str) for i in ids):
        return Violation("--device-ids must not mix integer IDs and UUIDs")
    cvd = c["env.CUDA_VISIBLE_DEVICES"] if kind in ("cuda", "rocm") else None
    if cvd and kind == "rocm":
        visible: list[int] = []
        for x in cvd.split(","):
            got = physical(x)
            if isinstance(got, Violation):
                return got
            visible.append(got)
        for i in ids:
            if not 0 <= int(i) < len(visible):
                return Violation(f"--device-ids index {i} is out of range for CUDA_VISIBLE_DEVICES={cvd} "
                                 f"({len(visible)} devices visible)")
        return Outcome({"parallel_config.assigned_physical_gpu_ids": tuple(visible[int(i)] for i in ids)},
                       message=said)
    return Outcome({"parallel_config.assigned_physical_gpu_ids": tuple(ids)}, message=said)


@rule(
    "engine-args.seed-without-multiprocessing",
    title="EngineArgs warns that the seed reaches the caller's process when engine multiprocessing is off",
    phase="engine_args",
    kind="check",
    reads=(_EA, "model_config.seed", "env.VLLM_ENABLE_V1_MULTIPROCESSING"),
    level="warning",
    source="vllm/engine/arg_utils.py EngineArgs.create_model_config (vllm/engine/arg_utils.py:2013-2021); "
    "ref v0.34.0",
    message="The global random seed is set to <seed>. Since VLLM_ENABLE_V1_MULTIPROCESSING is set to False, this may "
    "affect the random state of the Python process that launched vLLM.",
)
def seed_without_multiprocessing(c: Mapping[str, Any]) -> RuleResult:
    """The engine core then runs in the caller's process, and seeding it seeds the caller."""
    if not c[_EA] or c["env.VLLM_ENABLE_V1_MULTIPROCESSING"] in (None, True, 1, "1"):
        return None
    seed = c["model_config.seed"]
    return Outcome(message=f"The global random seed is set to {0 if seed is None else seed}. Since "
                           "VLLM_ENABLE_V1_MULTIPROCESSING is set to False, this may affect the random state of the "
                           "Python process that launched vLLM.")


_MC = "model_config."


@rule(
    "model.sleep-mode-checks",
    title="checkpoint_prepare_on_startup needs sleep mode; sleep mode needs CUDA or ROCm",
    phase="model_config",
    kind="check",
    reads=("model_config", _MC + "checkpoint_prepare_on_startup", _MC + "enable_sleep_mode", "platform.kind"),
    source="vllm/config/model.py ModelConfig.__post_init__ (vllm/config/model.py:681-685); ref v0.34.0",
    message="checkpoint_prepare_on_startup requires enable_sleep_mode / Sleep mode is not supported on current "
    "platform.",
)
def sleep_mode_checks(c: Mapping[str, Any]) -> RuleResult:
    """Sleep mode releases and restores GPU memory through the CUDA/ROCm allocator."""
    if not c["model_config"]:
        return None
    if c[_MC + "checkpoint_prepare_on_startup"] and not c[_MC + "enable_sleep_mode"]:
        return Violation("checkpoint_prepare_on_startup requires enable_sleep_mode")
    if c[_MC + "enable_sleep_mode"] and c["platform.kind"] not in ("cuda", "rocm"):
        return Violation("Sleep mode is not supported on current platform.")
    return None


@rule(
    "model.prompt-embeds-encoder-decoder",
    title="Prompt embeddings are not accepted by encoder-decoder models",
    phase="model_config",
    kind="check",
    reads=("model_config", _MC + "enable_prompt_embeds", _MC + "is_encoder_decoder"),
    source="vllm/config/model.py ModelConfig.validate_model_config_after (vllm/config/model.py:1096-1101, a "
    "model_validator); ref v0.34.0",
    message="--enable-prompt-embeds is not supported with encoder-decoder models.",
)
def prompt_embeds_encoder_decoder(c: Mapping[str, Any]) -> RuleResult:
    """Their decoders embed input_ids themselves."""
    if c["model_config"] and c[_MC + "enable_prompt_embeds"] and c[_MC + "is_encoder_decoder"]:
        return Violation("--enable-prompt-embeds is not supported with encoder-decoder models.")
    return None


@rule(
    "model.max-model-len-positive",
    title="max_model_len ends up a positive integer",
    phase="model_config",
    kind="check",
    reads=("model_config", _MC + "max_model_len"),
    source="vllm/config/model.py ModelConfig.validate_model_config_after (vllm/config/model.py:1090-1095, a "
    "model_validator, after __post_init__ derived and logged it); ref v0.34.0",
    message="max_model_len must be a positive integer, got <type>: <value>. Example: max_model_len=2048",
)
def max_model_len_positive(c: Mapping[str, Any]) -> RuleResult:
    """The field takes -1 (auto-fit, derived in __post_init__), so 0 reaches the end of __post_init__ as given (a
    length of nothing) and only the model validator refuses it."""
    value = c[_MC + "max_model_len"]
    if c["model_config"] and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        return Violation(f"max_model_len must be a positive integer, got {type(value).__name__}: {value!r}. "
                         "Example: max_model_len=2048", hint="give --max-model-len a positive length (or auto)")
    return None


_MEGA_MOE = ("deep_gemm_mega_moe", "flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm", "aiter_mega_moe")
_MOE_EP = ("flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm")
_MOE_EP_ARCHS = ("DeepSeekV4MTPModel", "DeepseekV41ForCausalLM", "DeepseekV4ForCausalLM")


@rule(
    "lora.mega-moe-backend",
    title="LoRA does not run with a MegaMoE backend",
    phase="verify",
    kind="check",
    reads=("lora_config", "kernel_config.moe_backend"),
    source="vllm/config/lora.py LoRAConfig.verify_with_kernel_config (vllm/config/lora.py:130-137), called by "
    "VllmConfig.__post_init__ (vllm/config/vllm.py:1539); ref v0.34.0",
    message="LoRA is not supported with moe_backend=<backend>. Disable LoRA or select a MoE backend that supports "
    "LoRA.",
)
def lora_mega_moe_backend(c: Mapping[str, Any]) -> RuleResult:
    """The megakernels fuse the expert GEMMs the LoRA wrappers would hook."""
    backend = c["kernel_config.moe_backend"]
    if c["lora_config"] and backend in _MEGA_MOE:
        return Violation(f"LoRA is not supported with moe_backend={backend!r}. Disable LoRA or select a MoE backend "
                         "that supports LoRA.")
    return None


@rule(
    "kernel.moe-ep-backend",
    title="FlashInfer MoE-EP backends: DeepGEMM only for DeepSeek-V4, and they dispatch themselves (passthrough "
    "all2all)",
    phase="core",
    kind="override",
    reads=("model_config", "kernel_config.moe_backend", "model_config.architectures", "parallel_config.all2all_backend"),
    writes=("parallel_config.all2all_backend",),
    level="info",
    source="vllm/config/kernel.py KernelConfig.set_platform_defaults, validate_flashinfer_moe_ep_model, "
    "bind_passthrough_all2all_backend (vllm/config/kernel.py:190-243, 488-496), called by VllmConfig.__post_init__ "
    "(vllm/config/vllm.py:1783); ref v0.34.0",
    message="moe_backend=<backend>: using all2all_backend='passthrough' (dispatch and combine run inside the MoE "
    "backend).",
)
def moe_ep_backend(c: Mapping[str, Any]) -> RuleResult:
    """A MoE-EP backend does its own dispatch and combine, so the framework's all2all steps aside."""
    backend = c["kernel_config.moe_backend"]
    archs = list(c["model_config.architectures"] or ())
    if c["model_config"] and backend == "flashinfer_moe_ep_mega_deep_gemm" \
            and not any(a in _MOE_EP_ARCHS for a in archs):
        return Violation(f"moe_backend={backend!r} is only supported for DeepSeek-V4 models ({sorted(_MOE_EP_ARCHS)}), "
                         f"but the model is {archs}.")
    a2a = c["parallel_config.all2all_backend"]
    if backend in _MOE_EP:
        if a2a == "passthrough":
            return None
        if a2a != "allgather_reducescatter":
            return Violation(f"moe_backend={backend!r} dispatches and combines itself and cannot be paired with "
                             f"all2all_backend={a2a!r}; leave --all2all-backend unset.")
        return Outcome({"parallel_config.all2all_backend": "passthrough"},
                       message=f"moe_backend={backend!r}: using all2all_backend='passthrough' (dispatch and combine "
                               "run inside the MoE backend).")
    if a2a == "passthrough":  # a config-mode value only: vLLM's parser does not offer it
        return Violation(f"all2all_backend={a2a!r} is only valid with a moe_backend that dispatches and combines "
                         f"itself ({sorted(_MOE_EP)}), got moe_backend={backend!r}.")
    return None


@rule(
    "structured-outputs.lm-format-enforcer-deprecated",
    title="The lm-format-enforcer structured outputs backend is deprecated",
    phase="sub_configs",
    kind="check",
    reads=("structured_outputs_config.backend",),
    level="warning",
    source="vllm/config/structured_outputs.py StructuredOutputsConfig._validate_structured_output_config "
    "(vllm/config/structured_outputs.py:68-75); ref v0.34.0",
    message="The lm-format-enforcer structured outputs backend is deprecated and will be removed in v0.35.0. Use "
    "auto, xgrammar, or guidance instead. See https://docs.vllm.ai/en/latest/features/structured_outputs/"
    "#migrating-from-lm-format-enforcer for migration guidance.",
)
def lm_format_enforcer_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """Warned once, whenever the backend is chosen."""
    return Outcome.log({}) if c["structured_outputs_config.backend"] == "lm-format-enforcer" else None


_PF = "offload_config.prefetch."


@rule(
    "offload.prefetch-bounds",
    title="Prefetch offloading: no more offloaded layers per group than the group has, a prefetch step of at least 1",
    phase="sub_configs",
    kind="check",
    reads=("offload_config.offload_backend", _PF + "offload_group_size", _PF + "offload_num_in_group",
           _PF + "offload_prefetch_step"),
    source="vllm/config/offload.py OffloadConfig.validate_offload_config (vllm/config/offload.py:97-114, a "
    "model_validator); ref v0.34.0",
    message="offload_num_in_group (<n>) must be <= offload_group_size (<g>) / offload_prefetch_step (<s>) must be >= 1",
)
def offload_prefetch_bounds(c: Mapping[str, Any]) -> RuleResult:
    """A group offloads some of its layers and prefetches them a few layers ahead."""
    group = c[_PF + "offload_group_size"]
    if c["offload_config.offload_backend"] != "prefetch" and group <= 0:
        return None
    num, step = c[_PF + "offload_num_in_group"], c[_PF + "offload_prefetch_step"]
    if num > group:
        return Violation(f"offload_num_in_group ({num}) must be <= offload_group_size ({group})")
    if step < 1:
        return Violation(f"offload_prefetch_step ({step}) must be >= 1 when prefetch offloading is enabled "
                         "(offload_group_size > 0)")
    return None


_MM_FIELDS = ("mm_encoder_attn_backend", "mm_processor_cache_type", "mm_shm_cache_max_object_size_mb",
              "mm_encoder_attn_dtype", "mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path")


@rule(
    "model.multimodal-config-checks",
    title="MultiModalConfig: no XFORMERS encoder backend, the shm object size only with the shm cache, FP8 scale "
    "paths only with FP8 encoder attention and not both",
    phase="model_config",
    kind="check",
    reads=("model_config", _MC + "is_multimodal_model", *(_MC + f for f in _MM_FIELDS)),
    after=("model.max-model-len-log",),
    source="vllm/config/multimodal.py MultiModalConfig._validate_mm_encoder_attn_backend, "
    "_validate_multimodal_config (vllm/config/multimodal.py:495-541, validators), built by ModelConfig.__post_init__ "
    "(vllm/config/model.py:900); ref v0.34.0",
    message="<MultiModalConfig's refusal>",
)
def multimodal_config_checks(c: Mapping[str, Any]) -> RuleResult:
    """A multimodal model builds its MultiModalConfig from ModelConfig's multimodal options. Whether the FP8 scale
    files exist (checked next, FileNotFoundError) is the file system's answer, not modelled."""
    if not c["model_config"] or not c[_MC + "is_multimodal_model"]:
        return None
    backend = c[_MC + "mm_encoder_attn_backend"]
    if isinstance(backend, str) and backend.upper() == "XFORMERS":
        return Violation("Attention backend 'XFORMERS' has been removed (See PR #29262 for details). Please select a "
                         "supported attention backend.")
    size = c[_MC + "mm_shm_cache_max_object_size_mb"]
    if (c[_MC + "mm_processor_cache_type"] or "lru") != "shm" and size is not None and size != 128:
        return Violation("'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' is "
                         "'shm'.")
    load, save = c[_MC + "mm_encoder_fp8_scale_path"], c[_MC + "mm_encoder_fp8_scale_save_path"]
    if c[_MC + "mm_encoder_attn_dtype"] != "fp8" and (load is not None or save is not None):
        return Violation("'mm_encoder_fp8_scale_path' and 'mm_encoder_fp8_scale_save_path' require "
                         "'mm_encoder_attn_dtype' to be 'fp8'.")
    if load is not None and save is not None:
        return Violation("'mm_encoder_fp8_scale_save_path' cannot be used with 'mm_encoder_fp8_scale_path' (saving "
                         "requires dynamic scaling).")
    return None


_TORCH_DEVICE = re.compile(r"(cpu|cuda|mps|xpu|xla|meta|hpu|mtia|privateuseone|ipu|mkldnn|opengl|opencl|ideep|hip|"
                           r"ve|fpga|maia|vulkan|metal|lazy)(:\d+)?")


_MMD = "model_config.multimodal_config"
_EC = "ec_transfer_config."


def _encode_only(c: Mapping[str, Any]) -> bool:
    """``ECTransferConfig.is_encode_only``: an EC producer that is not also a consumer."""
    return bool(c["ec_transfer_config"]) and c[_EC + "ec_connector"] is not None and c[_EC + "ec_role"] == "ec_producer"


def _processor_device(c: Mapping[str, Any]) -> Any:
    """``mm_processor_kwargs["device"]`` of the multimodal config (the flag's, before the config is built)."""
    mm = c[_MMD] if c["model_config"] else None
    kwargs = (mm.get("mm_processor_kwargs") if mm is not None else c[_MC + "mm_processor_kwargs"]) or {}
    return kwargs.get("device")


@rule(
    "vllm.epd-processor-device",
    title="An EPD encoder instance runs the multimodal processor on the GPU when tensors travel by torch_shm",
    phase="finalize",
    kind="default",
    reads=("model_config", _MMD, _MC + "mm_processor_kwargs", "platform.kind", "ec_transfer_config",
           _EC + "ec_connector", _EC + "ec_role"),
    writes=(_MMD,),
    source="vllm/config/vllm.py VllmConfig._resolve_mm_processor_device, _resolve_mm_video_decode_device "
    "(vllm/config/vllm.py:2986-3087, called at :2000-2001); ref v0.34.0",
    message="EPD encoder instance: ...",
)
def epd_processor_device(c: Mapping[str, Any]) -> RuleResult:
    """An encode-only instance runs no forward pass, so frontend work may use the accelerator: the processor moves
    there unless its output would be copied back to host bytes (any transport but torch_shm); video decoding
    would follow it onto NVDEC, but torchcodec with FFmpeg is not available (as on the oracle's host), so it stays
    on the CPU unless the user chose a video backend or device."""
    mm = c[_MMD] if c["model_config"] else None
    accelerator = {"cuda": "cuda", "rocm": "cuda"}.get(str(c["platform.kind"]))
    if mm is None or accelerator is None or not _encode_only(c):
        return None
    said, out = [], dict(mm)
    device = _processor_device(c)
    if device is None:
        if mm.get("mm_tensor_ipc") != "torch_shm":
            said.append(f"EPD encoder instance: keeping the multi-modal processor on CPU because "
                        f"mm_tensor_ipc={mm.get('mm_tensor_ipc')} cannot carry device tensors. Add "
                        "--mm-tensor-ipc=torch_shm to run it on the accelerator.")
        else:
            out["mm_processor_kwargs"] = {**(mm.get("mm_processor_kwargs") or {}), "device": accelerator}
            device = accelerator
            said.append(f"EPD encoder instance: running the multi-modal processor on {accelerator}. Override with "
                        "--mm-processor-device=cpu.")
    if isinstance(device, str) and device.split(":")[0] == accelerator:
        media = dict(out.get("media_io_kwargs") or {})
        video = dict(media.get("video") or {})
        media["video"] = video
        out["media_io_kwargs"] = media
        if "backend" not in video and "device" not in video:
            said.append("EPD encoder instance: keeping CPU video decoding because torchcodec is not available "
                        "(needs a CUDA build with FFmpeg).")
    changes = {_MMD: out} if out != mm else {}
    return Outcome(changes, message="\n".join(said)) if said or changes else None


@rule(
    "vllm.mm-processor-device",
    title="The multimodal processor runs on the accelerator only in an encode-only instance",
    phase="finalize",
    kind="check",
    reads=("model_config", _MC + "is_multimodal_model", _MMD, _MC + "mm_processor_kwargs", "platform.kind",
           "ec_transfer_config", _EC + "ec_connector", _EC + "ec_role"),
    after=("vllm.epd-processor-device",),
    source="vllm/config/multimodal.py MultiModalConfig.get_mm_processor_device_type, validate_mm_processor_device "
    "(vllm/config/multimodal.py:600-670), called by VllmConfig._validate_mm_processor_device "
    "(vllm/config/vllm.py:2002, 3100); ref v0.34.0",
    message="Invalid \"device\" in mm_processor_kwargs: ... / Cannot run the multi-modal processor on ... / Running "
    "the multi-modal processor on <device>. Override with --mm-processor-device=cpu.",
)
def mm_processor_device(c: Mapping[str, Any]) -> RuleResult:
    """The processor would share the device with the model's forward pass, outside the memory profiled for the KV
    cache; an encode/prefill/decode deployment's encode-only instance (an EC producer that is no consumer) may."""
    if not c["model_config"] or not c[_MC + "is_multimodal_model"]:
        return None
    device = _processor_device(c)
    if device is None:
        return None
    found = _TORCH_DEVICE.fullmatch(str(device)) if isinstance(device, str) else None
    if found is None:
        return Violation(f'Invalid "device" in mm_processor_kwargs: {device!r}. Expected a torch device such as '
                         '"cpu", "cuda" or "cuda:0".')
    kind = found.group(1)
    accelerator = {"cuda": "cuda", "rocm": "cuda"}.get(str(c["platform.kind"]), "cpu")
    if accelerator == "cpu" or kind != accelerator:
        return None
    if _encode_only(c):
        return Outcome(message=f"Running the multi-modal processor on {kind}. Override with --mm-processor-device=cpu.")
    return Violation(
        f"Cannot run the multi-modal processor on {kind!r}: this instance also runs the language model. The processor "
        "would share the device with the model's forward pass, so its transform kernels contend with that compute, "
        "and because it runs in the API-server process its allocations are outside the memory the engine profiled "
        "for its KV cache -- risking OOM or a silently shrunken cache.\nAccelerator preprocessing is only supported "
        "on an encode-only instance of an encode/prefill/decode deployment (an EC producer that is not also a "
        "consumer), which runs no forward pass and allocates no KV cache.\nUse --mm-processor-device=cpu, or drop "
        '"device" from --mm-processor-kwargs.')


_CC = "compilation_config."


@rule(
    "compilation.capture-and-encoder-bounds",
    title="Decoder replay capture sizes and the encoder CUDA-graph bounds are positive",
    phase="sub_configs",
    kind="check",
    reads=(_CC + "decoder_replay_cudagraph_capture_sizes", _CC + "cudagraph_mm_encoder",
           _CC + "encoder_cudagraph_max_vision_items_per_batch", _CC + "encoder_cudagraph_max_frames_per_batch",
           _CC + "encoder_cudagraph_max_token_budget", _CC + "encoder_cudagraph_token_budgets"),
    source="vllm/config/compilation.py CompilationConfig.__post_init__ (vllm/config/compilation.py:1197-1237); "
    "ref v0.34.0",
    message="<CompilationConfig's refusal of a non-positive size or budget>",
)
def capture_and_encoder_bounds(c: Mapping[str, Any]) -> RuleResult:
    """A capture size or token budget of 0 or less names no batch; the encoder item and frame caps are
    non-negative (0 / None = inferred), checked only when encoder CUDA graphs are on."""
    if any(s <= 0 for s in c[_CC + "decoder_replay_cudagraph_capture_sizes"] or ()):
        return Violation("All decoder_replay_cudagraph_capture_sizes must be positive")
    encoder = bool(c[_CC + "cudagraph_mm_encoder"])
    if encoder and c[_CC + "encoder_cudagraph_max_vision_items_per_batch"] < 0:
        return Violation("encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)")
    frames = c[_CC + "encoder_cudagraph_max_frames_per_batch"]
    if encoder and frames is not None and frames < 0:
        return Violation("encoder_cudagraph_max_frames_per_batch must be non-negative (None = auto-infer)")
    budget = c[_CC + "encoder_cudagraph_max_token_budget"]
    if budget is not None and budget <= 0:
        return Violation(f"encoder_cudagraph_max_token_budget must be positive (None = no limit), got {budget}")
    budgets = list(c[_CC + "encoder_cudagraph_token_budgets"] or ())
    if any(b <= 0 for b in budgets):
        return Violation(f"All encoder_cudagraph_token_budgets must be positive, got {budgets}")
    return None


_BUCKETS = "observability_config.custom_histogram_buckets"
_BUCKET_FAMILIES = ("inter_token_latency", "iteration_tokens", "kv_cache_residency", "request_latency",
                    "request_num_preemptions", "request_params_n", "request_tokens", "time_to_first_token")


@rule(
    "observability.custom-histogram-buckets",
    title="Custom histogram buckets: known families, non-empty, finite positive increasing bounds",
    phase="sub_configs",
    kind="check",
    reads=(_BUCKETS,),
    source="vllm/config/observability.py ObservabilityConfig._reject_bool_histogram_bounds, "
    "_validate_custom_histogram_buckets (vllm/config/observability.py:160-207, field validators); ref v0.34.0",
    message="custom_histogram_buckets[<family>]: ...",
)
def custom_histogram_buckets(c: Mapping[str, Any]) -> RuleResult:
    """The bucket bounds of a metric family replace its defaults, so they must describe a histogram."""
    value = c[_BUCKETS]
    if not isinstance(value, Mapping):
        return None
    for family, buckets in value.items():  # the before-validator: a boolean is not a number
        for bound in buckets if isinstance(buckets, (list, tuple)) else ():
            if isinstance(bound, bool):
                return Violation(f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be a number, not a "
                                 "boolean")
    for family, buckets in value.items():
        if family not in _BUCKET_FAMILIES:
            return Violation(f"custom_histogram_buckets: unknown bucket family {family!r}; known families: "
                             f"{sorted(_BUCKET_FAMILIES)}")
        bounds = [float(b) for b in buckets]
        if not bounds:
            return Violation(f"custom_histogram_buckets[{family!r}]: bucket list must not be empty")
        for bound in bounds:
            if not math.isfinite(bound) or bound <= 0:
                return Violation(f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be finite and greater "
                                 "than 0")
        if any(a >= b for a, b in itertools.pairwise(bounds)):
            return Violation(f"custom_histogram_buckets[{family!r}]: bounds {bounds} must be strictly increasing")
    return None


def _fields_refused(sub: str, cls: str, line: str, feedback: tuple[str, ...] = ()) -> Any:
    """The rule raising pydantic's refusal of the flags' values for ``sub`` where create_engine_config builds it."""

    @rule(
        f"engine-args.{sub.replace('_', '-')}-fields",
        title=f"{cls}(...) refuses a flag's value outside its field's bounds",
        phase="sub_configs",
        kind="check",
        reads=(_EA, "usage.refused_where_built", *(f"{sub}.{f}" for f in sorted(SAME_TYPES[cls] or ()))),
        source=f"{_ARGS}.create_engine_config ({cls}(...), vllm/engine/arg_utils.py:{line}: pydantic checks the "
        f"fields' bounds, Field(gt=, ge=, le=)); {_REF}",
        message=f"<pydantic's refusal: 1 validation error for {cls} ...>",
        feedback=feedback,  # the sub-config's own defaults (config mode) write the fields after it is refused
    )
    def fields_refused(c: Mapping[str, Any]) -> RuleResult:
        """A ValidationError of the sub-config's own field bounds: raised after the model config was built and
        logged, before the sub-configs that come after it."""
        text = (c["usage.refused_where_built"] or {}).get(sub) if c[_EA] else None
        if not text:
            return None
        # the door held the refused values in the state (EngineArgs computed with them, e.g. the batch defaults
        # from --max-num-seqs 0): pydantic's text for what the sub-config gets now
        given = {f: c[f"{sub}.{f}"] for f in sorted(SAME_TYPES[cls] or ()) if c[f"{sub}.{f}"] is not None}
        now, _ = refused_fields(schema_class(cls), given)
        return Violation(now or text, error="ValidationError", hint="pick a value inside the field's bounds")

    return fields_refused


cache_config_fields = _fields_refused("cache_config", "CacheConfig", "2340")
scheduler_config_fields = _fields_refused("scheduler_config", "SchedulerConfig", "2692",
                                          ("scheduler.max-num-batched-tokens-default", "scheduler.max-num-seqs-default"))


_SPECULATIVE_METHODS = (
    "bailing_hybrid_mtp", "bailing_hybrid_v3_mtp", "deepseek_mtp", "dflash", "dots3_note_mtp", "draft_model", "dspark",
    "eagle", "eagle3", "ernie_mtp", "exaone4_5_mtp", "exaone_moe_mtp", "extract_hidden_states", "gemma4_mtp",
    "glm4_moe_lite_mtp", "glm4_moe_mtp", "glm5_next_mtp", "glm_ocr_mtp", "hy_v3_mtp", "hy_v4_mtp", "inkling_mtp",
    "kimi_k3_mtp", "longcat_flash_mtp", "mimo_mtp", "mimo_v2_mtp", "minimax_m3_mtp", "mtp",
    "nemotron3_5_transcribe_mtp", "nemotron_h_mtp", "ngram", "ngram_gpu", "pangu_ultra_moe_mtp", "qwen3_5_mtp",
    "qwen3_next_mtp", "qwen4_exp_mtp", "step3p5_mtp", "step5_mtp", "suffix",
)
"""vLLM 0.34.0's ``SpeculativeMethod`` values, sorted as its error lists them (vllm/config/speculative.py:33-99);
0.11's medusa and mlp_speculator are gone."""
_UNMODELLED_METHODS = [m for m in _SPECULATIVE_METHODS if m not in get_args(SpeculativeMethod)]
"""The methods 0.34.0 accepts that postinit's schema has no value for (suffix, n-gram on GPU, DFlash, ...)."""


@rule(
    "speculative.method-known",
    title="The speculative method is one vLLM has (built in or registered)",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", "usage.unheld"),
    source="vllm/config/speculative.py SpeculativeConfig._validate_method (vllm/config/speculative.py:1622-1634, a "
    "field_validator: before __post_init__ and the model validators); ref v0.34.0",
    message="Unknown speculative method <method>. Built-in methods: [...]; registered custom methods: [].",
)
def speculative_method_known(c: Mapping[str, Any]) -> RuleResult:
    """A method vLLM has no drafter for, a typo or one an upgrade removed (medusa, mlp_speculator); plugins may
    register more (registered_speculative_methods()), none are in a plain install."""
    if c["speculative_config"] is None:
        return None
    method = (c["usage.unheld"] or {}).get(_SC + "method")  # the door hands every method 0.34.0 lacks over
    if method is None or method in _SPECULATIVE_METHODS:
        return None
    return Violation(f"Unknown speculative method {method!r}. Built-in methods: {list(_SPECULATIVE_METHODS)}; "
                     "registered custom methods: [].", hint="pick one of the built-in methods")


VLLM_EXECUTOR_CLASSES: dict[str, bool] = {
    "vllm.v1.executor.abstract.Executor": False,
    "vllm.v1.executor.cuda_checkpoint_executor.CUDACheckpointExecutor": True,
    "vllm.v1.executor.multiproc_executor.MultiprocExecutor": True,
    "vllm.v1.executor.uniproc_executor.UniProcExecutor": True,
    "vllm.v1.executor.uniproc_executor.ExecutorWithExternalLauncher": True,
}
"""vLLM 0.34.0's own executor classes (``vllm/v1/executor/``; the Ray one does not import here) by qualified name ->
their ``supports_async_scheduling()``."""


@rule(
    "parallel.executor-backend-class",
    title="A distributed executor backend that is no built-in name is a class's qualified name",
    phase="core",
    kind="check",
    reads=("parallel_config.distributed_executor_backend",),
    source="vllm/config/vllm.py VllmConfig.__post_init__ (Executor.get_class, vllm/config/vllm.py:1589-1590; "
    "vllm/v1/executor/abstract.py:64-100; resolve_obj_by_qualname, vllm/utils/import_utils.py:118-122); ref v0.34.0",
    message="not enough values to unpack (expected 2, got 1) | No module named '<module>'",
)
def executor_backend_class(c: Mapping[str, Any]) -> RuleResult:
    """ParallelConfig takes any text; VllmConfig imports it as ``module.Class`` when it picks the executor class:
    a bare word cannot be split, a dotted name whose module is not installed cannot be imported (postinit assumes
    it is not, except for vLLM's own executor classes)."""
    backend = c["parallel_config.distributed_executor_backend"]
    if not isinstance(backend, str) or backend in get_args(DistributedExecutorBackend) \
            or backend in VLLM_EXECUTOR_CLASSES:
        return None
    if "." not in backend:
        return Violation("not enough values to unpack (expected 2, got 1)",
                         hint="use ray, mp, uni or external_launcher, or a class as module.Class")
    return Violation(f"No module named {backend.split('.', 1)[0]!r}", error="ModuleNotFoundError",
                     hint="install the module of the executor class, or use ray, mp, uni or external_launcher")


@rule(
    "speculative.adaptive-verification-draft-logits",
    title="Adaptive verification from draft logits excludes local argmax reduction",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", _SC + "method", _SC + "enable_adaptive_verification",
           _SC + "use_local_argmax_reduction"),
    after=("speculative.sampling-options",),
    source="vllm/config/speculative.py SpeculativeConfig.__post_init__ (vllm/config/speculative.py:1405-1414; "
    "SpeculatorConfig.adaptive_verification_uses_draft_logits, False for the suffix and DSpark speculators); "
    "ref v0.34.0",
    message="Adaptive verification estimates per-position acceptance from the draft logits, which "
    "use_local_argmax_reduction never materializes. Disable one of them.",
)
def adaptive_verification_draft_logits(c: Mapping[str, Any]) -> RuleResult:
    """The draft logits adaptive verification reads are never materialized by a local argmax reduction; suffix
    decoding and DSpark estimate acceptance otherwise."""
    if c["speculative_config"] is None or c[_SC + "method"] in ("suffix", "dspark"):
        return None
    if c[_SC + "enable_adaptive_verification"] and c[_SC + "use_local_argmax_reduction"]:
        return Violation("Adaptive verification estimates per-position acceptance from the draft logits, which "
                         "use_local_argmax_reduction never materializes. Disable one of them.")
    return None


@rule(
    "lora.model-supported",
    title="LoRA needs a model class implementing SupportsLoRA",
    phase="verify",
    kind="check",
    reads=("lora_config", *mc.INFO_READS, "model_config.model"),
    source="vllm/config/lora.py LoRAConfig.verify_with_model_config (vllm/config/lora.py:140-148, called at "
    "vllm/config/vllm.py:1540); ref step-5, v0.34.0",
    message="LoRA is not supported for <architecture> (<model>). Supported models implement the `SupportsLoRA` "
    "interface. Run this model without `enable_lora`.",
)
def lora_model_supported(c: Mapping[str, Any]) -> RuleResult:
    """Adapters wrap the layers of a class that declares it can take them (a speculative drafter runs none)."""
    if c["lora_config"] is None or not c["model_config"] or c["model_config.runner_type"] == "draft":
        return None
    info = mc.resolved_info(c)
    if info is None or "lora" in info.interfaces:
        return None
    return Violation(f"LoRA is not supported for {c['model_config.architecture']} ({c['model_config.model']}). "
                     "Supported models implement the `SupportsLoRA` interface. Run this model without `enable_lora`.")


@rule(
    "lora.inkling-multimem-ar",
    title="LoRA for an Inkling model needs INKLING_MULTIMEM_AR=0",
    phase="verify",
    kind="check",
    reads=("lora_config", "model_config", "model_config.architectures", "env.INKLING_MULTIMEM_AR"),
    after=("lora.model-supported",),
    source="vllm/config/lora.py LoRAConfig.verify_with_model_config (vllm/config/lora.py:155-165, called at "
    "vllm/config/vllm.py:1540); ref v0.34.0",
    message="Inkling LoRA requires INKLING_MULTIMEM_AR=0: the Lamport fused-collective path bypasses the "
    "LoRA-wrapped wo_ud and dense down_proj layers on decode-sized batches, silently dropping their LoRA. Set "
    "INKLING_MULTIMEM_AR=0.",
)
def lora_inkling_multimem_ar(c: Mapping[str, Any]) -> RuleResult:
    """Any architecture naming Inkling; the variable is read from the process environment, unset = '1'."""
    if c["lora_config"] is None or not c["model_config"]:
        return None
    if not any("Inkling" in arch for arch in c["model_config.architectures"] or ()):
        return None
    if (c["env.INKLING_MULTIMEM_AR"] or "1") == "0":
        return None
    return Violation("Inkling LoRA requires INKLING_MULTIMEM_AR=0: the Lamport fused-collective path bypasses the "
                     "LoRA-wrapped wo_ud and dense down_proj layers on decode-sized batches, silently dropping their "
                     "LoRA. Set INKLING_MULTIMEM_AR=0.")


_SERVE_READS = (_EA, "usage.usage_context", "usage.api_server_count", "usage.headless", "usage.given",
                "usage.given_on", "usage.given_values", "usage.data_parallel_start_rank", _DPL)


_LB_MODES = ("Cannot use more than one data parallel load balancing mode. Choose one of: "
             "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
             "--data-parallel-hybrid-lb (or --data-parallel-start-rank).")


def _serve_api_servers(c: Mapping[str, Any]) -> Violation | tuple[int, str] | None:
    """``ServeSubcommand.cmd``'s API server count before the Elastic-EP cap (vllm/entrypoints/cli/serve.py:79-130),
    with what it logs, or its refusal of two load-balancing modes; None outside ``vllm serve`` and in headless mode
    (no API server)."""
    if not c[_EA] or c["usage.usage_context"] != "OPENAI_API_SERVER":
        return None
    given, on = c["usage.given"] or (), c["usage.given_on"] or ()
    external = _EXTERNAL in on or _DPR in given
    hybrid = _HYBRID in on or bool(c["usage.data_parallel_start_rank"])
    if external and hybrid:
        return Violation(_LB_MODES)  # refused first by serve.load-balancing-modes
    if c["usage.headless"]:
        return None
    count = c["usage.api_server_count"]
    if count is not None:
        return count, ""
    if external:  # external LB: one server, the balancer in front spreads the load
        return 1, ""
    if hybrid:
        local = c[_DPL] or 1
        return local, (f"Defaulting api_server_count to data_parallel_size_local ({local}) for hybrid LB mode."
                       if local > 1 else "")
    dp = int((c["usage.given_values"] or {}).get(_DP, 1) or 1)
    return dp, f"Defaulting api_server_count to data_parallel_size ({dp})." if dp > 1 else ""


@rule(
    "serve.load-balancing-modes",
    title="vllm serve takes one data-parallel load-balancing mode",
    phase="model_config",
    kind="check",
    reads=_SERVE_READS,
    source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd (:79-105, before it builds EngineArgs); ref v0.34.0",
    message=_LB_MODES,
)
def serve_load_balancing_modes(c: Mapping[str, Any]) -> RuleResult:
    """External LB (or a rank given) and hybrid LB (or a start rank given) exclude each other; `vllm serve`
    refuses them before anything else is built."""
    found = _serve_api_servers(c)
    return found if isinstance(found, Violation) else None


@rule(
    "serve.api-server-count-default",
    title="vllm serve runs one API server per data-parallel rank unless told otherwise (it says so)",
    phase="model_config",
    kind="check",
    reads=_SERVE_READS,
    after=("serve.load-balancing-modes",),
    source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd (:79-130, before it builds EngineArgs); ref v0.34.0",
    message="Defaulting api_server_count to data_parallel_size (<n>). | Defaulting api_server_count to "
    "data_parallel_size_local (<n>) for hybrid LB mode.",
    level="info",
)
def serve_api_server_count_default(c: Mapping[str, Any]) -> RuleResult:
    """Logged by `vllm serve` itself, before create_engine_config builds (or refuses) anything: a model refusal
    comes after it (golden s-y233)."""
    found = _serve_api_servers(c)
    if not isinstance(found, tuple) or not found[1]:
        return None
    return Outcome(message=found[1])


@rule(
    "serve.api-server-count",
    title="vllm serve's API server count is EngineArgs' _api_process_count (capped to one with Elastic EP)",
    phase="engine_args",
    kind="derive",
    reads=(*_SERVE_READS, "parallel_config.enable_elastic_ep"),
    writes=("usage.api_process_count",),
    source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd (:79-157: the default count, the Elastic-EP cap, "
    "run_multi_api_server passing it as EngineArgs._api_process_count); ref v0.34.0",
)
def serve_api_server_count(c: Mapping[str, Any]) -> RuleResult:
    """Several API servers are several processes (``_api_process_count``); one runs in the server's own process.
    What `vllm serve` logs about the count is serve.api-server-count-default's and
    serve.api-server-count-elastic-ep's. Partial model: the Rust frontend (VLLM_RUST_FRONTEND_PATH) and the
    multi-port external LB supervisor, which pick one server, are not modelled."""
    found = _serve_api_servers(c)
    if found is None or isinstance(found, Violation):
        return found
    count = found[0]
    if c["parallel_config.enable_elastic_ep"] and count > 1:
        count = 1
    return Outcome({"usage.api_process_count": max(count, 1)})


@rule(
    "serve.api-server-count-elastic-ep",
    title="Elastic EP runs with at most one API server",
    phase="model_config",
    kind="check",
    reads=(*_SERVE_READS, "parallel_config.enable_elastic_ep"),
    after=("serve.api-server-count-default",),
    source="vllm/entrypoints/cli/serve.py ServeSubcommand.cmd (:138-145, before it builds EngineArgs); ref v0.34.0",
    message="Elastic EP only supports running with with at most one API server. Capping api_server_count from <n> "
    "to 1.",
    level="warning",
)
def serve_api_server_count_elastic_ep(c: Mapping[str, Any]) -> RuleResult:
    """Scaling the engines up and down is coordinated from one API server."""
    found = _serve_api_servers(c)
    if not isinstance(found, tuple) or not c["parallel_config.enable_elastic_ep"] or found[0] <= 1:
        return None
    return Outcome(message=f"Elastic EP only supports running with with at most one API server. Capping "
                   f"api_server_count from {found[0]} to 1.")


@rule(
    "parallel.fault-tolerance-one-api-server",
    title="Fault tolerance needs a single API server process",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.enable_fault_tolerance", "usage.api_process_count"),
    after=("parallel.executor-backend-multi",),  # ParallelConfig.__post_init__ runs before its model validator
    source="vllm/config/parallel.py ParallelConfig._validate_parallel_config (:568-573, a model validator); "
    "ref v0.34.0",
    message="Fault tolerance requires a single API server process (--api-server-count=1), but got <n>. The FT "
    "system assumes one AsyncMPClient manages all engines.",
)
def fault_tolerance_one_api_server(c: Mapping[str, Any]) -> RuleResult:
    """The fault-tolerance client watches every engine from one process."""
    count = c["usage.api_process_count"] or 1
    if c["parallel_config.enable_fault_tolerance"] and count > 1:
        return Violation(f"Fault tolerance requires a single API server process (--api-server-count=1), but got "
                         f"{count}. The FT system assumes one AsyncMPClient manages all engines.")
    return None


@rule(
    "serve.tokens-only",
    title="vllm serve --tokens-only skips the tokenizer",
    phase="engine_args",
    kind="override",
    reads=(_EA, "usage.tokens_only", "model_config", "model_config.skip_tokenizer_init"),
    writes=("model_config.skip_tokenizer_init",),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (:2599-2601; tokens_only is the server's "
    "flag, an EngineArgs field from_cli_args copies); ref v0.34.0",
    message="Skipping tokenizer initialization for tokens-only mode.",
    level="info",
)
def serve_tokens_only(c: Mapping[str, Any]) -> RuleResult:
    """A tokens-in, tokens-out server needs no tokenizer (set after the model config was built: its tokenizer
    path stays)."""
    if c[_EA] and c["usage.tokens_only"] and c["model_config"] and not c["model_config.skip_tokenizer_init"]:
        return Outcome.log({"model_config.skip_tokenizer_init": True})
    return None


_REMOVED_ENV = {
    "VLLM_MARLIN_INPUT_DTYPE": "Marlin no longer supports 8-bit activations. Use `--quantization humming` and set "
    "the activation dtype with VLLM_HUMMING_INPUT_QUANT_CONFIG, e.g. '{\"dtype\":\"int8\"}'.",
}
"""vLLM 0.34.0's ``removed_environment_variables`` (vllm/envs.py:654-660): a removed name -> what to do instead."""


@rule(
    "engine-args.logging-config-file",
    title="A Python logging config file needs logging configuration on",
    phase="model_config",
    kind="check",
    reads=(_EA, "logging_config.pylogging_config_file", "logging_config.configure_logging"),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (configure_logging_if_needed, "
    "vllm/engine/arg_utils.py:2287-2288, its first statements; _configure_vllm_root_logger, vllm/logger.py:221-226); "
    "ref v0.34.0",
    message="Logging configuration is disabled, but a Python logging config file was given. pylogging_config_file "
    "requires configure_logging to be enabled.",
)
def logging_config_file(c: Mapping[str, Any]) -> RuleResult:
    """create_engine_config first applies its logging config: a dictConfig file (``--log-config-file``,
    ``--logging-config.pylogging_config_file`` or VLLM_LOGGING_CONFIG_PATH) with configure_logging off
    (VLLM_CONFIGURE_LOGGING=0) is refused before any sub-config is built."""
    if c[_EA] and c["logging_config.pylogging_config_file"] and not c["logging_config.configure_logging"]:
        return Violation("Logging configuration is disabled, but a Python logging config file was given. "
                         "pylogging_config_file requires configure_logging to be enabled.", error="RuntimeError",
                         hint="set VLLM_CONFIGURE_LOGGING=1 (or --logging-config.configure_logging true), or drop the "
                         "logging config file")
    return None


@rule(
    "engine-args.validate-environ",
    title="The VLLM_* variables vLLM does not define: a warning each, or an error",
    phase="model_config",
    kind="check",
    reads=(_EA, "usage.environ", "usage.fail_on_environ_validation"),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config (current_platform.validate_environ, "
    "vllm/engine/arg_utils.py:2294, before ModelConfig is built; Platform.validate_environ, "
    "vllm/platforms/interface.py:1475-1502); ref v0.34.0",
    message="Unknown vLLM environment variable detected: <name>",
    level="warning",
)
def validate_environ(c: Mapping[str, Any]) -> RuleResult:
    """A VLLM_* name envs.py does not define is usually a typo or a variable an upgrade removed (VLLM_USE_V1,
    VLLM_ATTENTION_BACKEND): vLLM warns of each one (raises with --fail-on-environ-validation), refuses the
    variables it removed with a hint, and refuses VLLM_USE_V2_MODEL_RUNNER other than 1 (the V1 runner is gone)."""
    if not c[_EA]:
        return None
    said: list[str] = []
    for name, value in (c["usage.environ"] or {}).items():
        if name == "VLLM_USE_V2_MODEL_RUNNER":
            if value != "1":
                return Violation(f"VLLM_USE_V2_MODEL_RUNNER={value} is no longer supported: Model Runner V1 has "
                                 "been removed. Unset this variable.", hint="unset VLLM_USE_V2_MODEL_RUNNER")
            said.append("VLLM_USE_V2_MODEL_RUNNER=1 is redundant and can be unset: Model Runner V1 has been removed.")
            continue
        if name in _REMOVED_ENV:
            return Violation(f"{name} has been removed. {_REMOVED_ENV[name]}", hint=f"unset {name}")
        if c["usage.fail_on_environ_validation"]:
            return Violation(f"Unknown vLLM environment variable detected: {name}",
                             hint=f"unset {name}, or drop --fail-on-environ-validation")
        said.append(f"Unknown vLLM environment variable detected: {name}")
    return Outcome(message="\n".join(said)) if said else None


DELTA = Delta(
    facts={"checked_by_rules": ["cache_config.cache_dtype", _SC + "method", "parallel_config.distributed_executor_backend"],
           "unmodelled_values": {_SC + "method": _UNMODELLED_METHODS},
           "refused_values": {_SC + "method": [m for m in get_args(SpeculativeMethod) if m not in _SPECULATIVE_METHODS]}},
    replace=(data_parallel_lb, data_parallel_lb_check, unsupported_feature),
    add=(default_mm_loras_need_multimodal, kda_prefill_backend_platform, mamba_backend_enum,
         mamba_stochastic_rounding_platform,
         profiler_options_checks, nvfp4_kv_cache_mla, attention_backend_given_twice, flashinfer_autotune_given_twice,
         capture_sizes_given_twice, speculative_config_undeclared, cache_dtype_known, custom_ops_conflicting,
         detailed_traces_need_otlp, mamba_ssu_algorithm_backend, speculative_verify_args, validate_environ,
         logging_config_file,
         cache_config_fields, scheduler_config_fields, speculative_method_known, executor_backend_class,
         # issue 30's coverage cases (k###)
         capture_and_encoder_bounds, custom_histogram_buckets, speculative_sampling_options, device_ids,
         seed_without_multiprocessing, sleep_mode_checks, prompt_embeds_encoder_decoder,
         lora_mega_moe_backend, moe_ep_backend, lm_format_enforcer_deprecated, offload_prefetch_bounds,
         multimodal_config_checks, epd_processor_device, mm_processor_device, profiler_warnings,
         adaptive_verification_draft_logits, lora_model_supported, lora_inkling_multimem_ar,
         serve_load_balancing_modes, serve_api_server_count_default, serve_api_server_count,
         serve_api_server_count_elastic_ep, fault_tolerance_one_api_server,
         serve_tokens_only,
         layerwise_nvtx_deprecated, attention_backend_per_kind, attention_backend_auto,
         attention_indexer_cp_dtype, max_model_len_positive),
    patch=(
        patch("compilation.custom-ops-all-none-count", error="ValueError",
              text="custom_ops can contain only one base mode: 'all' or 'none'",
              message="custom_ops can contain only one base mode: 'all' or 'none'",
              source="vllm/config/compilation.py CompilationConfig.__post_init__ (vllm/config/compilation.py:1171-1175); "
              "ref 3.1, v0.34.0",
              why="0.34.0 raises a ValueError in its own words (0.11.1: an AssertionError)"),
        patch("lora.max-cpu-loras-check", end=".", message="max_cpu_loras (<n>) must be >= max_loras (<m>).",
              source="vllm/config/lora.py LoRAConfig._validate_lora_config (vllm/config/lora.py:115-118); ref 2.7, "
              "v0.34.0", why="0.34.0 ends the sentence with a period"),
    ),
    drop={
        "parallel.dcp-interleave-block-size": "0.34.0 checks the block size against cp_kv_cache_interleave_size in "
        "VllmConfig.validate_block_size, which the engine core calls at start-up after the attention backend "
        "chose the block size (vllm/config/vllm.py:3522, vllm/v1/engine/core.py:386), not while resolving the config",
        "parallel.dcp-interleave-speculative": "0.34.0 no longer refuses speculative decoding with a DCP interleave "
        "size above 1 (vllm/config/vllm.py has no such check)",
    },
    flags_added=("enable_fault_tolerance", "gdn_prefill_backend", "kda_prefill_backend", "kda_decode_backend"),
)
"""The refusals of vLLM 0.34.0's create_engine_config (a part of its delta over 0.11.1)."""
