"""engine_args: what ``EngineArgs.create_engine_config`` decides before the sub-configs exist.

Every rule here acts only when ``usage.via_engine_args`` is True (``vllm serve``
or ``LLM(...)``); a ``VllmConfig(...)`` built directly skips them all. The
order inside ``create_engine_config`` is: V1 oracle, ``_set_default_args``
(chunked prefill / prefix caching / batch defaults), the CPU-architecture
override, the CacheConfig copies, the DCP assertion, the async-scheduling
errors and the ParallelConfig/SchedulerConfig arguments.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    Rule,
    RuleResult,
    Violation,
    all_of,
    first_match,
    make_rule,
    rule,
    sequence,
)
from postinit.schema.configs import SPECULATIVE_METHODS_SEED
from postinit.schema.loaders.construct import literal_refusal

_SRC = "vllm/engine/arg_utils.py EngineArgs"
_EA = "usage.via_engine_args"
_RUNNER = "model_config.runner_type"
_CP = "scheduler_config.enable_chunked_prefill"
_APC = "cache_config.enable_prefix_caching"
_TOKENS = "scheduler_config.max_num_batched_tokens"
_SEQS = "scheduler_config.max_num_seqs"
_CTX = "usage.usage_context"
_CONTEXTS = ("LLM_CLASS", "OPENAI_API_SERVER")

# --------------------------------------------------------------------------- V1 oracle

_V1_BACKENDS = (
    "FLASH_ATTN", "PALLAS", "TRITON_ATTN", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA",
    "FLASH_ATTN_MLA", "FLASHINFER", "FLASHINFER_MLA", "ROCM_AITER_MLA", "TORCH_SDPA",
    "FLEX_ATTENTION", "TREE_ATTN", "XFORMERS", "ROCM_ATTN", "ROCM_AITER_UNIFIED_ATTN",
)  # fmt: skip
_ORACLE_READS = (
    _EA,
    "model_config.logits_processor_pattern",
    "scheduler_config.max_num_partial_prefills",
    "scheduler_config.max_long_partial_prefills",
    "env.VLLM_ATTENTION_BACKEND",
    "parallel_config.pipeline_parallel_size",
    "parallel_config.distributed_executor_backend",
    "platform.is_cpu",
    "model_config.hf_text_config.sliding_window",
    "env.VLLM_USE_V1",
    "env.use_v1_set",
)


def _v1_unsupported(c: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The first feature the V1 oracle rejects: (feature name, recommend to remove)."""
    if c["model_config.logits_processor_pattern"] is not None:
        return "--logits-processor-pattern", False
    if c["scheduler_config.max_num_partial_prefills"] != 1 or c["scheduler_config.max_long_partial_prefills"] != 1:
        return "Concurrent Partial Prefill", False
    backend = c["env.VLLM_ATTENTION_BACKEND"]
    if backend is not None and backend not in _V1_BACKENDS:
        return f"VLLM_ATTENTION_BACKEND={backend}", True
    executor = c["parallel_config.distributed_executor_backend"]
    if c["parallel_config.pipeline_parallel_size"] > 1 and executor not in (None, "ray", "mp", "external_launcher"):
        return ("Pipeline Parallelism without Ray distributed executor or multiprocessing "
                "executor or external launcher"), False
    if c["platform.is_cpu"] and c["model_config.hf_text_config.sliding_window"] is not None:
        return "sliding window (CPU backend)", False
    return None


@rule(
    "engine-args.v1-oracle-fallback",
    title="A feature V1 does not support falls back to V0 (VLLM_USE_V1=0)",
    phase="engine_args",
    kind="override",
    reads=_ORACLE_READS,
    writes=("env.VLLM_USE_V1",),
    source=f"{_SRC}._is_v1_supported_oracle, _raise_or_fallback; ref 12.3, 13.1:P4",
    message="{feature} is not supported by the V1 Engine. Falling back to V0. {advice}",
    level="warning",
)
def v1_oracle_fallback(c: Mapping[str, Any]) -> RuleResult:
    """When VLLM_USE_V1 is unset, an unsupported feature makes EngineArgs write VLLM_USE_V1=0 into the process env.

    Every V1 gate later in the pipeline (steps 8, 12, 18, 19, 22) then follows V0 rules.
    """
    if not c[_EA] or c["env.use_v1_set"]:
        return None
    found = _v1_unsupported(c)
    if found is None:
        return None
    name, remove = found
    advice = f"We recommend to remove {name} from your config in favor of the V1 Engine." if remove else ""
    return Outcome.log({"env.VLLM_USE_V1": False}, feature=name, advice=advice)


@rule(
    "engine-args.v1-oracle-required",
    title="VLLM_USE_V1=1 with a feature V1 does not support is an error",
    phase="engine_args",
    kind="check",
    reads=_ORACLE_READS,
    source=f"{_SRC}._is_v1_supported_oracle, _raise_or_fallback; ref 12.3",
    message="VLLM_USE_V1=1 is not supported with <feature>.",
)
def v1_oracle_required(c: Mapping[str, Any]) -> RuleResult:
    """A user who explicitly asked for V1 gets an error instead of a silent V0 fallback."""
    if not c[_EA] or not (c["env.use_v1_set"] and c["env.VLLM_USE_V1"]):
        return None
    found = _v1_unsupported(c)
    if found is None:
        return None
    return Violation(f"VLLM_USE_V1=1 is not supported with {found[0]}.", error="NotImplementedError",
                     hint="unset VLLM_USE_V1 or remove the feature")


_DRAFT_MSG = ("Draft model speculative decoding is not supported yet. Please consider using other "
              "speculative decoding methods such as ngram, medusa, eagle, or mtp.")


@rule(
    "engine-args.draft-model-unsupported",
    title="Draft-model speculative decoding is rejected",
    phase="engine_args",
    kind="check",
    reads=(_EA, "speculative_config", "speculative_config.method"),
    source=f"{_SRC}._is_v1_supported_oracle; ref 12.3",
    message=_DRAFT_MSG,
)
def draft_model_unsupported(c: Mapping[str, Any]) -> RuleResult:
    """The V1 engine has no draft-model proposer at this commit."""
    if c[_EA] and c["speculative_config"] and c["speculative_config.method"] == "draft_model":
        return Violation(_DRAFT_MSG, error="NotImplementedError", hint="use ngram, medusa, eagle or mtp")
    return None


# --------------------------------------------------------------------------- _set_default_args


_IGNORED_CP_MSG = (
    "--no-enable-chunked-prefill is ignored: EngineArgs._set_default_args sets "
    "enable_chunked_prefill=True for every non-pooling runner at this commit "
    "(vLLM 0.11.1 keeps the user's False)."
)


@rule(
    "quirk.chunked-prefill-flag-ignored",
    title="--no-enable-chunked-prefill is ignored for non-pooling models",
    phase="engine_args",
    kind="check",
    reads=(_CP,),
    source=f"{_SRC}._set_default_args; ref 12.2, 13.2:I5",
    message=_IGNORED_CP_MSG,
    level="warning",
)
def chunked_prefill_flag_ignored(c: Mapping[str, Any]) -> RuleResult:
    """vLLM overwrites the user's explicit False without a word; make it visible.

    Decided with ``engine-args.chunked-prefill-forced``, on the value it overwrites.
    """
    return Outcome.log() if c[_CP] is False else None


@rule(
    "engine-args.chunked-prefill-forced",
    title="Chunked prefill is forced on for non-pooling runners",
    phase="engine_args",
    kind="override",
    reads=(_CP,),
    writes=(_CP,),
    source=f"{_SRC}._set_default_args; ref 12.2",
    message="V1 uses chunked prefills by default for non-pooling tasks.",
    level="debug",
)
def chunked_prefill_forced(c: Mapping[str, Any]) -> RuleResult:
    """V1 uses chunked prefills by default for non-pooling tasks (unconditionally, at this commit)."""
    return {_CP: True}


@rule(
    "engine-args.prefix-caching-default",
    title="Prefix caching defaults on, except for hybrid models",
    phase="engine_args",
    kind="default",
    reads=(_APC, "model_config.is_hybrid"),
    writes=(_APC,),
    source=f"{_SRC}._set_default_args; ref 12.2",
    level="debug",
)
def prefix_caching_default(c: Mapping[str, Any]) -> RuleResult:
    """V1 enables prefix caching by default; hybrid models keep it off because it is still experimental there."""
    return {_APC: not c["model_config.is_hybrid"]} if c[_APC] is None else None


def _not_pooling(c: Mapping[str, Any]) -> bool:
    """``EngineArgs`` built the config (``vllm serve`` / ``LLM``) and the runner is not pooling."""
    return bool(c[_EA]) and c[_RUNNER] != "pooling"


def _pooling(c: Mapping[str, Any]) -> bool:
    """``EngineArgs`` built the config and the runner is pooling."""
    return bool(c[_EA]) and c[_RUNNER] == "pooling"


NON_POOLING_DEFAULTS = all_of(
    "engine-args.non-pooling-defaults", chunked_prefill_flag_ignored, chunked_prefill_forced, prefix_caching_default,
    title="Non-pooling runners: chunked prefill on, prefix caching on unless hybrid",
    when=_not_pooling, reads=(_EA, _RUNNER), source=f"{_SRC}._set_default_args",
)


_POOL_READS = ("model_config.pooler_config.pooling_type", "model_config.hf_config.is_causal")


def _incremental_prefill(c: Mapping[str, Any]) -> bool:
    """LAST pooling on a causal model can be prefilled in chunks and prefix-cached."""
    ptype = c["model_config.pooler_config.pooling_type"]
    causal = c["model_config.hf_config.is_causal"]
    return ptype is not None and ptype.lower() == "last" and (causal is None or bool(causal))


def _action(ok: bool) -> str:
    return "Enabling" if ok else "Disabling"


def _pooling_default(rule_id: str, path: str, what: str, source: str, doc: str) -> Rule:
    """A pooling runner's default for ``path`` (on or off together with incremental prefill, logged)."""

    def default(c: Mapping[str, Any]) -> RuleResult:
        if c[path] is not None:
            return None
        ok = _incremental_prefill(c)
        return Outcome.log({path: ok}, action=_action(ok))

    default.__doc__ = doc
    return make_rule(default, rule_id, title=f"Pooling runner: {what} only for LAST pooling on a causal model",
                     phase="engine_args", kind="default", reads=(*_POOL_READS, path), writes=(path,), source=source,
                     message=f"({{action}}) {what} by default")


pooling_chunked_prefill_default = _pooling_default(
    "engine-args.pooling-chunked-prefill-default", _CP, "chunked prefill",
    f"{_SRC}._set_default_args; ref 12.2, 13.1:P1",
    "Only LAST pooling of a causal model gives the same result when the prompt is processed in chunks.")

pooling_prefix_caching_default = _pooling_default(
    "engine-args.pooling-prefix-caching-default", _APC, "prefix caching", f"{_SRC}._set_default_args; ref 12.2",
    "Cached prefixes are only reusable when pooling looks at the last token of a causal model.")

POOLING_DEFAULTS = all_of(
    "engine-args.pooling-defaults", pooling_chunked_prefill_default, pooling_prefix_caching_default,
    title="Pooling runners: chunked prefill and prefix caching only for LAST pooling on a causal model",
    when=_pooling, reads=(_EA, _RUNNER), source=f"{_SRC}._set_default_args",
)

_NO_CP_ARCHS = ("ppc64le", "s390x", "arm", "riscv")


@rule(
    "engine-args.cpu-arch-disables-chunked-prefill",
    title="Chunked prefill off on POWER/S390X/ARM/RISC-V CPUs",
    phase="engine_args",
    kind="override",
    reads=("platform.cpu_arch",),
    writes=(_CP,),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    message=("Chunked prefill is not supported for ARM and POWER, S390X and RISC-V CPUs; "
             "disabling it for V1 backend."),
)
def cpu_arch_disables_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend has no chunked-prefill kernels for these architectures."""
    return {_CP: False}


@rule(
    "engine-args.cpu-arch-disables-prefix-caching",
    title="Prefix caching off on POWER/S390X/ARM/RISC-V CPUs",
    phase="engine_args",
    kind="override",
    reads=("platform.cpu_arch",),
    writes=(_APC,),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    message=("Prefix caching is not supported for ARM and POWER, S390X and RISC-V CPUs; "
             "disabling it for V1 backend."),
)
def cpu_arch_disables_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend has no prefix-caching support for these architectures."""
    return {_APC: False}


def _limited_cpu(c: Mapping[str, Any]) -> bool:
    """A POWER, S390X, ARM or RISC-V CPU, under ``EngineArgs``."""
    return bool(c[_EA]) and bool(c["platform.is_cpu"]) and c["platform.cpu_arch"] in _NO_CP_ARCHS


CPU_ARCH_OVERRIDES = all_of(
    "engine-args.cpu-arch-overrides", cpu_arch_disables_chunked_prefill, cpu_arch_disables_prefix_caching,
    title="No chunked prefill and no prefix caching on POWER/S390X/ARM/RISC-V CPUs",
    when=_limited_cpu, reads=(_EA, "platform.is_cpu", "platform.cpu_arch"), source=f"{_SRC}.create_engine_config",
)


# --------------------------------------------------------------------------- batch defaults


@rule(
    "engine-args.budget-without-chunked-prefill",
    title="Without chunked prefill the batch budget is max_model_len",
    phase="engine_args",
    kind="default",
    reads=(_EA, _CTX, _TOKENS, _CP, "platform.is_tpu", "model_config.max_model_len"),
    writes=(_TOKENS,),
    source=f"{_SRC}._set_default_args; ref 12.2",
    message="Setting max_num_batched_tokens to {n} for {context} usage context.",
    level="debug",
)
def budget_without_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """A whole prompt must fit in one step when it cannot be chunked."""
    if not c[_EA] or c[_CTX] not in _CONTEXTS or c[_TOKENS] is not None or c["platform.is_tpu"] or c[_CP]:
        return None
    n = c["model_config.max_model_len"]
    return Outcome.log({_TOKENS: n}, n=n, context=c[_CTX])


_BATCH_READS = (_EA, _CTX, _TOKENS, _SEQS, _CP, "platform.is_tpu", "platform.total_memory_gb",
                "platform.device_name")
_BATCH_MESSAGE = ("Setting max_num_batched_tokens to {tokens} for {context} usage context.\n"
                  "Setting max_num_seqs to {seqs} for {context} usage context.")


def _large_gpu(c: Mapping[str, Any]) -> bool:
    return c["platform.total_memory_gb"] >= 70 and "a100" not in c["platform.device_name"].lower()


def _batch_defaults(c: Mapping[str, Any], tokens: dict[str, int], seqs: dict[str, int]) -> RuleResult:
    """Fill the unset budget (chunked prefill on, or TPU) and max_num_seqs = min(default, budget)."""
    ctx = c[_CTX]
    if not c[_EA] or ctx not in _CONTEXTS:
        return None
    changes: dict[str, int] = {}
    msgs = []
    budget = c[_TOKENS]
    if budget is None and (c[_CP] or c["platform.is_tpu"]):
        budget = changes[_TOKENS] = tokens[ctx]
        msgs.append(f"Setting max_num_batched_tokens to {budget} for {ctx} usage context.")
    if c[_SEQS] is None:
        changes[_SEQS] = min(seqs[ctx], budget or sys.maxsize)
        msgs.append(f"Setting max_num_seqs to {changes[_SEQS]} for {ctx} usage context.")
    # two debug records in vLLM, one message line each (either may be missing: not the header's template)
    return Outcome(changes, message="\n".join(msgs)) if changes else None


@rule(
    "engine-args.batch-defaults-cpu",
    title="CPU batch defaults scale with the world size",
    phase="engine_args",
    kind="default",
    reads=(*_BATCH_READS, "platform.is_cpu", "parallel_config.pipeline_parallel_size",
           "parallel_config.tensor_parallel_size"),
    writes=(_TOKENS, _SEQS),
    source=f"{_SRC}._set_default_args; ref 12.2",
    message=_BATCH_MESSAGE,
    level="debug",
)
def batch_defaults_cpu(c: Mapping[str, Any]) -> RuleResult:
    """On a CPU (platform.is_cpu, no device memory) the defaults are per worker, times pp x tp."""
    if not c["platform.is_cpu"]:
        return None
    ws = c["parallel_config.pipeline_parallel_size"] * c["parallel_config.tensor_parallel_size"]
    return _batch_defaults(c, {"LLM_CLASS": 4096 * ws, "OPENAI_API_SERVER": 2048 * ws},
                           {"LLM_CLASS": 256 * ws, "OPENAI_API_SERVER": 128 * ws})


@rule(
    "engine-args.batch-defaults-large-gpu",
    title="Batch defaults for GPUs with >= 70 GiB that are not A100s",
    phase="engine_args",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOKENS, _SEQS),
    source=f"{_SRC}._set_default_args; ref 12.2",
    message=_BATCH_MESSAGE,
    level="debug",
)
def batch_defaults_large_gpu(c: Mapping[str, Any]) -> RuleResult:
    """The device has >= 70 GiB (platform.total_memory_gb) and is not an A100 (platform.device_name): H100/H200/B200/MI300 get larger batches.

    A100s are excluded because a large budget reduces their throughput (vLLM PR #17885).
    """
    if not _large_gpu(c):
        return None
    return _batch_defaults(c, {"LLM_CLASS": 16384, "OPENAI_API_SERVER": 8192},
                           {"LLM_CLASS": 1024, "OPENAI_API_SERVER": 1024})


@rule(
    "engine-args.batch-defaults-other-device",
    title="Batch defaults for A100s and devices with < 70 GiB",
    phase="engine_args",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOKENS, _SEQS),
    source=f"{_SRC}._set_default_args; ref 12.2",
    message=_BATCH_MESSAGE,
    level="debug",
)
def batch_defaults_other_device(c: Mapping[str, Any]) -> RuleResult:
    """The device has < 70 GiB (platform.total_memory_gb) or is an A100 (platform.device_name): the untuned smaller defaults."""
    return _batch_defaults(c, {"LLM_CLASS": 8192, "OPENAI_API_SERVER": 2048},
                           {"LLM_CLASS": 256, "OPENAI_API_SERVER": 256})


BATCH_DEFAULTS = first_match(
    "engine-args.batch-defaults", batch_defaults_cpu, batch_defaults_large_gpu, batch_defaults_other_device,
    title="max_num_batched_tokens / max_num_seqs defaults by device: CPU, large GPU, other",
    source=f"{_SRC}._set_default_args",
)


# --------------------------------------------------------------------------- CacheConfig arguments


@rule(
    "engine-args.cache-sliding-window",
    title="CacheConfig.sliding_window from a model that is all sliding window",
    phase="engine_args",
    kind="derive",
    reads=(_EA, "model_config.hf_text_config.sliding_window", "model_config.hf_text_config.layer_types"),
    writes=("cache_config.sliding_window",),
    source=f"{_SRC}.create_engine_config; ref 2.2, 12.2",
    level="debug",
)
def cache_sliding_window(c: Mapping[str, Any]) -> RuleResult:
    """Only an all-sliding-window model sets it; on interleaved models it would override the global layers."""
    if not c[_EA]:
        return None
    layers = c["model_config.hf_text_config.layer_types"] or ()
    if {"full_attention", "sliding_attention"}.issubset(layers):
        return None
    return {"cache_config.sliding_window": c["model_config.hf_text_config.sliding_window"]}


@rule(
    "engine-args.cache-attention-free",
    title="CacheConfig.is_attention_free from the model",
    phase="engine_args",
    kind="derive",
    reads=(_EA, "model_config.is_attention_free"),
    writes=("cache_config.is_attention_free",),
    source=f"{_SRC}.create_engine_config; ref 2.2, 12.2",
    level="debug",
)
def cache_attention_free(c: Mapping[str, Any]) -> RuleResult:
    """An attention-free model needs no KV cache; EngineArgs passes the model's flag to CacheConfig."""
    if c[_EA]:
        return {"cache_config.is_attention_free": c["model_config.is_attention_free"]}
    return None


# --------------------------------------------------------------------------- checks and ParallelConfig arguments


@rule(
    "engine-args.tp-divisible-by-dcp",
    title="tensor_parallel_size must be divisible by decode_context_parallel_size",
    phase="engine_args",
    kind="check",
    reads=(_EA, "parallel_config.tensor_parallel_size", "parallel_config.decode_context_parallel_size"),
    source=f"{_SRC}.create_engine_config; ref 2.3",
    message="tp_size=<tp> must be divisible bydcp_size=<dcp>.",
)
def tp_divisible_by_dcp(c: Mapping[str, Any]) -> RuleResult:
    """DCP reuses the GPUs of one TP group, splitting it into tp_size // dcp_size DCP groups."""
    tp, dcp = c["parallel_config.tensor_parallel_size"], c["parallel_config.decode_context_parallel_size"]
    if c[_EA] and tp % dcp != 0:
        return Violation(f"tp_size={tp} must be divisible bydcp_size={dcp}.", error="AssertionError",
                         hint="choose -dcp dividing -tp")
    return None


_ASYNC_PP_MSG = "Async scheduling is not supported with pipeline-parallel-size > 1."
_ASYNC_SPEC_MSG = "Currently, speculative decoding is not supported with async scheduling."


@rule(
    "engine-args.async-scheduling-pipeline-parallel",
    title="Async scheduling does not support pipeline parallelism",
    phase="engine_args",
    kind="check",
    reads=(_EA, "scheduler_config.async_scheduling", "parallel_config.pipeline_parallel_size"),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    message=_ASYNC_PP_MSG,
)
def async_scheduling_pipeline_parallel(c: Mapping[str, Any]) -> RuleResult:
    """The async scheduler overlaps one engine step with the next, which pipeline stages cannot."""
    if c[_EA] and c["scheduler_config.async_scheduling"] and c["parallel_config.pipeline_parallel_size"] > 1:
        return Violation(_ASYNC_PP_MSG)
    return None


@rule(
    "engine-args.async-scheduling-speculative",
    title="Async scheduling does not support speculative decoding",
    phase="engine_args",
    kind="check",
    reads=(_EA, "scheduler_config.async_scheduling", "speculative_config"),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    message=_ASYNC_SPEC_MSG,
)
def async_scheduling_speculative(c: Mapping[str, Any]) -> RuleResult:
    """Speculative decoding is not implemented for the async scheduler yet."""
    if c[_EA] and c["scheduler_config.async_scheduling"] and c["speculative_config"]:
        return Violation(_ASYNC_SPEC_MSG)
    return None


CREATE_ENGINE_CONFIG = sequence(
    "engine-args.create-engine-config",
    v1_oracle_required, v1_oracle_fallback, draft_model_unsupported, NON_POOLING_DEFAULTS, POOLING_DEFAULTS, CPU_ARCH_OVERRIDES, budget_without_chunked_prefill, BATCH_DEFAULTS,
    tp_divisible_by_dcp, async_scheduling_pipeline_parallel, async_scheduling_speculative,
    title="create_engine_config: the V1 oracle, usage defaults, the CPU-architecture switch, then its checks",
    source=f"{_SRC}.create_engine_config",
)


@rule(
    "engine-args.async-scheduling-executor",
    title="Async scheduling needs the mp, uni or external_launcher executor",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "scheduler_config.async_scheduling", "parallel_config.distributed_executor_backend"),
    source=f"{_SRC}.create_engine_config (after ParallelConfig is built); ref 12.2",
    message=("Currently, async scheduling only supports `mp`, `uni` or `external_launcher` distributed "
             "executor backend, but you choose `<backend>`."),
)
def async_scheduling_executor(c: Mapping[str, Any]) -> RuleResult:
    """The async scheduler is only wired into these executors.

    Checked on the ParallelConfig's resolved backend, hence in phase sub_configs.
    """
    backend = c["parallel_config.distributed_executor_backend"]
    if c[_EA] and c["scheduler_config.async_scheduling"] and backend not in ("mp", "uni", "external_launcher"):
        return Violation(
            "Currently, async scheduling only supports `mp`, `uni` or `external_launcher` distributed "
            f"executor backend, but you choose `{backend}`."
        )
    return None


@rule(
    "engine-args.speculative-method-literal",
    title="The speculative method is one of the version's SpeculativeConfig",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "usage.unheld"),
    source=f"{_SRC}.create_speculative_config (SpeculativeConfig(**speculative_config): pydantic checks the method "
    "against the version's Literal); ref 2.8",
    message="1 validation error for SpeculativeConfig / method / Input should be <the version's methods> "
    "[type=literal_error, ...]",
)
def speculative_method_literal(c: Mapping[str, Any], *,
                               methods: tuple[str, ...] = SPECULATIVE_METHODS_SEED) -> RuleResult:
    """``--speculative-config`` stays a dict until create_engine_config builds the SpeculativeConfig from it, after
    the ParallelConfig: a method outside the version's Literal (``methods``; a later version's, e.g. the seed given
    0.11.1's suffix) is pydantic's refusal there, not argparse's."""
    method = (c["usage.unheld"] or {}).get("speculative_config.method")
    if not c[_EA] or method is None:
        return None
    return Violation(literal_refusal("SpeculativeConfig", ("method",), method, methods), error="ValidationError")


_DPR, _DPL = "parallel_config.data_parallel_rank", "parallel_config.data_parallel_size_local"
_DP_LB_READS = (_EA, "usage.given", "usage.data_parallel_start_rank", "usage.headless",
                "parallel_config.data_parallel_size", _DPL, _DPR, "parallel_config.data_parallel_hybrid_lb",
                "parallel_config.data_parallel_external_lb")
_DP_LB_WRITES = (_DPL, _DPR, "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb")


def _dp_lb_facts(c: Mapping[str, Any]) -> tuple[bool, bool, bool, int]:
    """(rank given, local size given, headless, start rank): what create_engine_config reads besides the config."""
    given = c["usage.given"] or ()
    return _DPR in given, _DPL in given, bool(c["usage.headless"]), int(c["usage.data_parallel_start_rank"] or 0)


def _dp_lb_refusal(c: Mapping[str, Any]) -> Violation | None:
    """create_engine_config's assertions on the data-parallel arguments, in its order."""
    rank_given, local_given, headless, _ = _dp_lb_facts(c)
    hybrid = bool(c["parallel_config.data_parallel_hybrid_lb"])
    if headless and hybrid:
        return Violation("data_parallel_hybrid_lb is not applicable in headless mode", error="AssertionError")
    if rank_given and local_given and c[_DPL] != 1:
        return Violation("data_parallel_size_local must be 1 when data_parallel_rank is set", error="AssertionError")
    if not rank_given and not local_given and hybrid:
        return Violation("data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
                         error="AssertionError", hint="add --data-parallel-size-local")
    return None


@rule(
    "engine-args.cpu-device-memory",
    title="The batch defaults ask a CPU platform its memory, which warns without VLLM_CPU_KVCACHE_SPACE",
    phase="engine_args",
    kind="check",
    reads=(_EA, "platform.is_cpu", "env.VLLM_CPU_KVCACHE_SPACE"),
    source=f"{_SRC}._set_default_args (current_platform.get_device_total_memory); ref 12.2",
    message="Environment variable VLLM_CPU_KVCACHE_SPACE (GiB) for CPU backend is not set, using 4 by default.",
    level="warning",
)
def cpu_device_memory(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs sizes its batch defaults by the device's memory; on a CPU that is the KV cache space, whose
    variable is read (and missed) already here, before any config is built (cpu.kvcache-space reads it again)."""
    if c[_EA] and c["platform.is_cpu"] and c["env.VLLM_CPU_KVCACHE_SPACE"] is None:
        return Outcome.log()
    return None


@rule(
    "engine-args.data-parallel-lb",
    title="Data-parallel load balancing: the local DP size, the rank, external or hybrid LB",
    phase="engine_args",
    kind="default",
    reads=_DP_LB_READS,
    writes=_DP_LB_WRITES,
    source=f"{_SRC}.create_engine_config; ref 12.2",
    level="debug",
)
def data_parallel_lb(c: Mapping[str, Any]) -> RuleResult:
    """A given --data-parallel-rank means external LB: one local rank. A given --data-parallel-size-local keeps it
    (with a start rank: hybrid LB, which one local rank turns into external LB and a single node turns off).
    Without either every DP rank runs on this node. (Arguments it refuses: ``engine-args.data-parallel-lb-check``.)"""
    if not c[_EA] or _dp_lb_refusal(c) is not None:
        return None
    rank_given, local_given, headless, start = _dp_lb_facts(c)
    hybrid = bool(c["parallel_config.data_parallel_hybrid_lb"])
    dp, local, rank = c["parallel_config.data_parallel_size"], c[_DPL], c[_DPR]
    external = rank_given
    if external:
        local, hybrid = 1, False
    elif local_given:
        if start and not headless:
            hybrid = True
        if hybrid and local == 1:
            external, hybrid = True, False
        if local == dp:
            hybrid = False
        rank = start
    else:
        local = dp
    out = {_DPL: local, _DPR: rank, "parallel_config.data_parallel_hybrid_lb": hybrid,
           "parallel_config.data_parallel_external_lb": external}
    return {k: v for k, v in out.items() if c[k] != v} or None


@rule(
    "engine-args.data-parallel-lb-check",
    title="Hybrid LB needs a local DP size; an external-LB rank one local rank; neither runs headless",
    phase="sub_configs",  # create_engine_config asserts after CacheConfig is built (observed._ENGINE_ARGS_STEPS)
    kind="check",
    reads=(_EA, "usage.given", "usage.headless", "usage.data_parallel_start_rank", _DPL,
           "parallel_config.data_parallel_hybrid_lb"),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    message="data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
)
def data_parallel_lb_check(c: Mapping[str, Any]) -> RuleResult:
    """Hybrid load balancing splits the DP ranks over nodes, so it needs to know this node's share."""
    return _dp_lb_refusal(c) if c[_EA] else None


@rule(
    "engine-args.lookahead-slots-from-speculative",
    title="num_lookahead_slots = num_speculative_tokens",
    phase="engine_args",
    kind="derive",
    reads=(_EA, "speculative_config", "speculative_config.num_speculative_tokens"),
    writes=("scheduler_config.num_lookahead_slots",),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    level="debug",
)
def lookahead_slots_from_speculative(c: Mapping[str, Any]) -> RuleResult:
    """Every speculative token must be scored, so the scheduler reserves one extra slot per token."""
    n = c["speculative_config.num_speculative_tokens"]
    if c[_EA] and c["speculative_config"] and n is not None:
        return {"scheduler_config.num_lookahead_slots": n}
    return None


@rule(
    "engine-args.observability-config",
    title="EngineArgs always builds an ObservabilityConfig",
    phase="engine_args",
    kind="default",
    reads=(_EA, "observability_config"),
    writes=("observability_config",),
    source=f"{_SRC}.create_engine_config; ref 12.2",
    level="debug",
)
def observability_config(c: Mapping[str, Any]) -> RuleResult:
    """The tracing and hidden-metrics options live in an ObservabilityConfig, built even when all are unset.

    A ``VllmConfig(...)`` built directly keeps vLLM's default of None.
    """
    if c[_EA] and not c["observability_config"]:
        return {"observability_config": True}
    return None


@rule(
    "engine-args.speculative-engine-flags",
    title="SpeculativeConfig gets EngineArgs' chunked-prefill and log-stats flags",
    phase="engine_args",
    kind="derive",
    reads=(_EA, "speculative_config", _CP),
    writes=("speculative_config.enable_chunked_prefill", "speculative_config.disable_log_stats"),
    source=f"{_SRC}.create_speculative_config; ref 12.2",
    level="debug",
)
def speculative_engine_flags(c: Mapping[str, Any]) -> RuleResult:
    """These two are not speculative-config options: EngineArgs passes its own values in when building it.

    ``enable_chunked_prefill`` is EngineArgs' value after the usage defaults
    (not the SchedulerConfig's later one); ``disable_log_stats`` is EngineArgs'
    default False (``--disable-log-stats`` is a server option postinit keeps
    out of the config, so it is not modelled). Both replace any value given
    in ``--speculative-config``, as vLLM's ``dict.update`` does.
    """
    if not c[_EA] or not c["speculative_config"]:
        return None
    return {"speculative_config.enable_chunked_prefill": c[_CP], "speculative_config.disable_log_stats": False}


@rule(
    "engine-args.mm-loras-need-multimodal",
    title="Default modality-specific LoRAs need a multimodal model",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "model_config", "model_config.is_multimodal_model", "lora_config", "lora_config.default_mm_loras"),
    source=f"{_SRC}.create_engine_config (after the SchedulerConfig); ref 12.3",
    message="Default modality-specific LoRA(s) were provided for a non multimodal model",
)
def mm_loras_need_multimodal(c: Mapping[str, Any]) -> RuleResult:
    """A default LoRA per modality (image, audio) has nothing to apply to in a text-only model."""
    if not c[_EA] or c["model_config"] is None or c["model_config.is_multimodal_model"]:
        return None
    if c["lora_config"] is not None and c["lora_config.default_mm_loras"]:
        return Violation("Default modality-specific LoRA(s) were provided for a non multimodal model")
    return None


@rule(
    "engine-args.bitsandbytes-load-format",
    title="A bitsandbytes checkpoint loads with the bitsandbytes loader",
    phase="engine_args",
    kind="override",
    reads=(_EA, "model_config", "model_config.quantization"),
    writes=("load_config.load_format",),
    source=f"{_SRC}.create_engine_config (before create_load_config); ref 12.3",
)
def bitsandbytes_load_format(c: Mapping[str, Any]) -> RuleResult:
    """Pre-quantized bitsandbytes weights need their own loader, whatever --load-format says."""
    if c[_EA] and c["model_config"] is not None and c["model_config.quantization"] == "bitsandbytes":
        return {"load_config.load_format": "bitsandbytes"}
    return None


TENSORIZER_FIELDS = (
    "tensorizer_uri", "tensorizer_dir", "vllm_tensorized", "verify_hash", "num_readers", "encryption_keyfile",
    "s3_access_key_id", "s3_secret_access_key", "s3_endpoint", "lora_dir", "stream_kwargs", "serialization_kwargs",
    "deserialization_kwargs", "_extra_serialization_attrs", "model_class", "hf_config", "dtype", "_is_sharded")
"""``vllm/model_executor/model_loader/tensorizer.py`` ``TensorizerConfig._fields`` (every dataclass field)."""


@rule(
    "engine-args.tensorizer-config",
    title="The tensorizer loader's extra config gets a tensorizer_config: the model directory and the given "
    "TensorizerConfig keys",
    phase="engine_args",
    kind="derive",
    reads=(_EA, "model_config", "model_config.model", "load_config.load_format", "load_config.model_loader_extra_config"),
    writes=("load_config.model_loader_extra_config",),
    after=("engine-args.bitsandbytes-load-format",),
    source=f"{_SRC}.create_load_config, validate_tensorizer_args; ref 12.3",
)
def tensorizer_config(c: Mapping[str, Any], *, fields: tuple[str, ...] = TENSORIZER_FIELDS) -> RuleResult:
    """The tensorizer loader reads its settings from ``tensorizer_config`` inside the extra config: vLLM writes
    the model as ``tensorizer_dir`` and copies every key of the extra config that is a TensorizerConfig field
    (a given ``tensorizer_config`` is replaced)."""
    extra = c["load_config.model_loader_extra_config"]
    if not c[_EA] or c["model_config"] is None or c["load_config.load_format"] != "tensorizer" \
            or not isinstance(extra, Mapping):
        return None
    inner: dict[str, Any] = {"tensorizer_dir": c["model_config.model"]}
    for key in extra:
        if key in fields:
            inner[key] = extra[key]
    return {"load_config.model_loader_extra_config": {**extra, "tensorizer_config": inner}}


_CC_GIVEN_TWICE = (("cuda_graph_sizes", "cudagraph_capture_sizes"), ("cudagraph_capture_sizes", "cudagraph_capture_sizes"),
                   ("max_cudagraph_capture_size", "max_cudagraph_capture_size"))


@rule(
    "engine-args.cuda-graph-sizes-deprecated",
    title="--cuda-graph-sizes is deprecated: create_engine_config warns where it applies it",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "usage.cuda_graph_sizes"),
    after=("scheduler.chunked-prefill-enabled",),
    source=f"{_SRC}.create_engine_config (compilation config overrides, after the other sub-configs: "
    "vllm/engine/arg_utils.py:1647 at the seed, :1743 in 0.11.1); ref 12.3",
    message="--cuda-graph-sizes is deprecated and will be removed in v0.13.0 or v1.0.0, whichever is soonest. "
    "Please use --cudagraph-capture-sizes instead.",
    level="warning",
)
def cuda_graph_sizes_deprecated(c: Mapping[str, Any]) -> RuleResult:
    """Logged only once the model, cache, parallel and scheduler configs are built: a refusal before that
    (a mismatched --quantization, golden y070; a negative batch default, y047) leaves it unlogged."""
    return Outcome.log() if c[_EA] and c["usage.cuda_graph_sizes"] else None


@rule(
    "engine-args.compilation-flag-given-twice",
    title="--cuda-graph-sizes / --cudagraph-capture-sizes / --max-cudagraph-capture-size exclude the same key in -O",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "usage.given_twice"),
    after=("scheduler.chunked-prefill-enabled", "engine-args.cuda-graph-sizes-deprecated"),
    source=f"{_SRC}.create_engine_config (compilation config overrides, after the other sub-configs); ref 12.3",
    message="<flag> and compilation_config.<key> are mutually exclusive",
)
def compilation_flag_given_twice(c: Mapping[str, Any]) -> RuleResult:
    """The flags are shorthands for -O's keys (``--cuda-graph-sizes`` writes the key the next flag checks): vLLM
    will not guess which of the two to keep."""
    if not c[_EA]:
        return None
    twice = c["usage.given_twice"] or ()
    for flag, key in _CC_GIVEN_TWICE:
        if flag in twice:
            return Violation(f"{flag} and compilation_config.{key} are mutually exclusive")
    return None
