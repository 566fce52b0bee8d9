"""vLLM 0.34.0's refusals in ``EngineArgs.create_engine_config``: the part of its delta over 0.11.1 that raises.

0.34.0 reworded the data-parallel launch checks as ``ValueError``\\ s that name the flags (0.11.1 asserted),
and added checks of its own: fault tolerance needs external load balancing, a dense model has no external
data parallelism, a multi-node run's node rank is bounded. Each rule names the line of
``vllm/engine/arg_utils.py`` (the 0.34.0 wheel) whose statement it mirrors.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.delta import patch
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
    reads=(_EA, "model_config", "model_config.is_multimodal_model", "lora_config", "lora_config.default_mm_loras"),
    source=f"{_ARGS}.create_engine_config (vllm/engine/arg_utils.py:2722-2726, after SchedulerConfig); {_REF}",
    message="Default modality-specific LoRA(s) were provided for a non multimodal model",
)
def default_mm_loras_need_multimodal(c: Mapping[str, Any]) -> RuleResult:
    """A LoRA for images or audio has nothing to apply to in a text-only model."""
    if not c[_EA] or c["model_config"] is None or c["model_config.is_multimodal_model"]:
        return None
    if c["lora_config"] is not None and c["lora_config.default_mm_loras"]:
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
    """``--mamba-backend flashinfer`` and ``{"backend": "flashinfer"}`` both name ``MambaBackendEnum.FLASHINFER``."""
    backend = c[_MB + "backend"]
    if isinstance(backend, str) and backend != backend.upper():
        return {_MB + "backend": backend.upper()}
    return None


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


DELTA = Delta(
    replace=(data_parallel_lb, data_parallel_lb_check, unsupported_feature),
    add=(default_mm_loras_need_multimodal, kda_prefill_backend_platform, mamba_backend_enum,
         mamba_stochastic_rounding_platform,
         profiler_options_checks, nvfp4_kv_cache_mla, attention_backend_given_twice, flashinfer_autotune_given_twice,
         capture_sizes_given_twice, speculative_config_undeclared, cache_dtype_known, custom_ops_conflicting,
         detailed_traces_need_otlp, mamba_ssu_algorithm_backend, speculative_verify_args,
         # issue 30's coverage cases (k###)
         capture_and_encoder_bounds, custom_histogram_buckets, profiler_warnings,
         layerwise_nvtx_deprecated),
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
