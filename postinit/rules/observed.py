"""What of a rule real vLLM lets an observer see: where and when its violation raises, and whether it logs.

Three facts about each rule that the differential tests against real vLLM
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

**The step** (:func:`step_of`, :data:`STEPS`): where in vLLM's statement order
the rule's decision sits — finer than the stage, because ``create_engine_config``
checks sit between the sub-configs it builds, and ``VllmConfig.__post_init__``
has 25 steps. ``vllm serve`` meets them in this order and raises the first
failure it meets, so the rulebook orders the rules of a phase that the data
leaves unordered by their step (``Rule.rank``, :func:`rank_of`): when several
checks fail, postinit reports the one vLLM raises. The first step, ``parse``,
is argparse itself: the type functions of the flags, which for the JSON-valued
flags of :data:`PARSED_SUB_CONFIGS` build the sub-config on the spot, so a
sub-config that refuses its JSON is an ``argparse.ArgumentError`` and
``vllm serve`` exits 2 (``postinit/_stages.py`` runs that step). In config mode
those sub-configs are built where their step says, from the dict.

**Explanations** (:data:`EXPLANATIONS`): the rules whose message is postinit's
own explanation of something vLLM does silently (``quirk.*`` warnings that make
an inconsistent end state visible, notes on values postinit cannot reproduce)
rather than one of vLLM's log records. Every other rule's message is vLLM's log
text, at vLLM's level; the golden tests hold postinit to that both ways.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from postinit.engine import Rule

__all__ = [
    "BUILT_INSIDE",
    "CONFIG_CLASSES",
    "EXPLANATIONS",
    "FIELD_VALIDATORS",
    "NESTED_POST_INITS",
    "PARSED_SUB_CONFIGS",
    "POST_INIT_CALLED",
    "STEPS",
    "VLLM_STAGES",
    "WRAPPED_IN",
    "Step",
    "field_of",
    "is_explanation",
    "rank_of",
    "stage_of",
    "step_of",
    "wrapped_by",
    "wrapped_in",
]

VLLM_STAGES = (
    "parse",
    "serve",
    "engine_args",
    "logging_config",
    "device_config",
    "model_config",
    "cache_config",
    "parallel_config",
    "speculative_config",
    "diffusion_config",
    "watermark_config",
    "scheduler_config",
    "lora_config",
    "attention_config",
    "mamba_config",
    "kernel_config",
    "load_config",
    "structured_outputs_config",
    "observability_config",
    "compilation_config",
    "offload_config",
    "aux_output_config",
    "engram_config",
    "kv_transfer_config",
    "kv_events_config",
    "ec_transfer_config",
    "ec_manager_config",
    "reasoning_config",
    "profiler_config",
    "weight_transfer_config",
    "watchdog_config",
    "create_engine_config",
    "vllm_config",
    "compute_hash",
)
"""Where vLLM can fail (the oracle's ``stage`` values); :data:`STEPS` puts them in vLLM's order."""


class Step(NamedTuple):
    """One place in vLLM's statement order where config resolution can fail."""

    name: str
    stage: str
    """The oracle's name for where the failure happens (one of :data:`VLLM_STAGES`)."""
    where: str
    """The vLLM code."""


_ECC = "vllm/engine/arg_utils.py EngineArgs.create_engine_config"

STEPS: tuple[Step, ...] = (
    Step("parse", "parse", "argparse (vllm/engine/arg_utils.py EngineArgs.add_cli_args): each flag's type function, "
         "in command-line order with the dotted keys last; the JSON-valued flags of PARSED_SUB_CONFIGS build their "
         "sub-config there; then the unknown flags"),
    Step("serve", "serve", "vllm/entrypoints/cli/serve.py: `vllm serve`'s validate and ServeSubcommand.cmd, before "
         "it builds EngineArgs (vLLM 0.34.0)"),
    Step("engine_args", "engine_args", "vllm/engine/arg_utils.py EngineArgs.__post_init__"),
    Step("logging_config", "logging_config", f"{_ECC}: create_logging_config (vLLM 0.34.0)"),
    Step("create_engine_config:logging", "create_engine_config",
         f"{_ECC}: configure_logging_if_needed, on the LoggingConfig just built (vLLM 0.34.0)"),
    Step("device_config", "device_config", f"{_ECC}: DeviceConfig(...)"),
    Step("create_engine_config:environ", "create_engine_config",
         f"{_ECC}: current_platform.validate_environ (vLLM 0.34.0)"),
    Step("model_config", "model_config", f"{_ECC}: create_model_config, ModelConfig(...)"),
    Step("create_engine_config:v1-oracle", "create_engine_config", f"{_ECC}: _is_v1_supported_oracle"),
    Step("create_engine_config:defaults", "create_engine_config",
         f"{_ECC}: _set_default_args, the CPU-architecture switches, the DCP divisibility assert"),
    Step("create_engine_config:cache-config-fields", "create_engine_config",
         f"{_ECC}: CacheConfig(...)'s field bounds (pydantic, before its validators)"),
    Step("cache_config", "cache_config", f"{_ECC}: CacheConfig(...)"),
    Step("create_engine_config:before-parallel", "create_engine_config",
         f"{_ECC}: the data-parallel asserts, async scheduling with pipeline parallelism or speculation"),
    Step("parallel_config", "parallel_config", f"{_ECC}: ParallelConfig(...)"),
    Step("create_engine_config:after-parallel", "create_engine_config",
         f"{_ECC}: async scheduling's executor backend, create_speculative_config's arguments"),
    Step("speculative_config:field-validators", "speculative_config",
         f"{_ECC}: SpeculativeConfig(...)'s field validators, before its __post_init__ (vLLM 0.34.0)"),
    Step("speculative_config:draft-model-config", "model_config",
         f"{_ECC}: SpeculativeConfig(...)'s __post_init__ builds the draft's ModelConfig (BUILT_INSIDE)"),
    Step("speculative_config", "speculative_config", f"{_ECC}: SpeculativeConfig(...)"),
    Step("diffusion_config", "diffusion_config", f"{_ECC}: create_diffusion_config (vLLM 0.34.0)"),
    Step("watermark_config", "watermark_config", f"{_ECC}: create_watermark_config (vLLM 0.34.0)"),
    Step("create_engine_config:before-scheduler", "create_engine_config",
         f"{_ECC}: num_lookahead_slots and the model facts SchedulerConfig gets"),
    Step("create_engine_config:scheduler-config-fields", "create_engine_config",
         f"{_ECC}: SchedulerConfig(...)'s field bounds (pydantic, before its validators)"),
    Step("scheduler_config", "scheduler_config", f"{_ECC}: SchedulerConfig(...)"),
    Step("create_engine_config:before-lora", "create_engine_config",
         f"{_ECC}: default_mm_loras on a model that is not multimodal"),
    Step("lora_config", "lora_config", f"{_ECC}: LoRAConfig(...)"),
    Step("create_engine_config:attention", "create_engine_config",
         f"{_ECC}: --attention-backend against --attention-config (vLLM 0.34.0)"),
    Step("attention_config", "attention_config", "AttentionConfig(...) (vLLM 0.34.0; with flags: built by argparse)"),
    Step("mamba_config", "mamba_config", f"{_ECC}: MambaConfig.__post_init__ (vLLM 0.34.0)"),
    Step("create_engine_config:kernel", "create_engine_config",
         f"{_ECC}: --enable-flashinfer-autotune against --kernel-config (vLLM 0.34.0)"),
    Step("kernel_config", "kernel_config", "KernelConfig(...) (vLLM 0.34.0; with flags: built by argparse)"),
    Step("load_config", "load_config", f"{_ECC}: create_load_config"),
    Step("structured_outputs_config", "structured_outputs_config",
         "StructuredOutputsConfig(...) (with flags: built by argparse, step parse)"),
    Step("observability_config", "observability_config", f"{_ECC}: ObservabilityConfig(...)"),
    Step("create_engine_config:compilation-overrides", "create_engine_config",
         f"{_ECC}: --cuda-graph-sizes, --cudagraph-capture-sizes, --max-cudagraph-capture-size against -O"),
    Step("compilation_config", "compilation_config", "CompilationConfig(...) (with flags: built by argparse)"),
    Step("offload_config", "offload_config", f"{_ECC}: OffloadConfig(...) (vLLM 0.34.0)"),
    Step("create_engine_config:additional-config", "create_engine_config",
         f"{_ECC}: the GDN / KDA kernel backends into additional_config (vLLM 0.34.0)"),
    Step("aux_output_config", "aux_output_config", "AuxOutputConfig(...) (vLLM 0.34.0)"),
    Step("engram_config", "engram_config", "EngramConfig(...) (vLLM 0.34.0)"),
    Step("kv_transfer_config", "kv_transfer_config", "KVTransferConfig(...) (with flags: built by argparse)"),
    Step("kv_events_config", "kv_events_config", "KVEventsConfig(...) (with flags: built by argparse)"),
    Step("ec_transfer_config", "ec_transfer_config", "ECTransferConfig(...) (vLLM 0.34.0)"),
    Step("ec_manager_config", "ec_manager_config", "EncoderCacheManagerConfig(...) (vLLM 0.34.0)"),
    Step("reasoning_config", "reasoning_config", "ReasoningConfig(...) (vLLM 0.34.0)"),
    Step("profiler_config", "profiler_config", "ProfilerConfig(...) (vLLM 0.34.0; with flags: built by argparse)"),
    Step("weight_transfer_config", "weight_transfer_config", "WeightTransferConfig(...) (vLLM 0.34.0)"),
    Step("watchdog_config", "watchdog_config", "WatchdogConfig(...) (vLLM 0.34.0)"),
    *(Step(f"vllm_config:step-{n}", "vllm_config", f"vllm/config/vllm.py VllmConfig.__post_init__ step {n}")
      for n in range(1, 26)),
    Step("compute_hash", "compute_hash", "vllm/config/vllm.py VllmConfig.compute_hash"),
)
"""Where vLLM can fail, in the order ``vllm serve`` meets the steps (``LLM(...)`` alike); config mode builds
the sub-configs in the same order, from the dict. Steps 1-25 are the reference's numbering of
``VllmConfig.__post_init__`` (docs/rules.md); the model hooks are step 2, the platform's step 17."""

_STEP_INDEX = {step.name: i for i, step in enumerate(STEPS)}

PARSED_SUB_CONFIGS: dict[str, str | None] = {
    "CompilationConfig": "compilation_config",
    "KVTransferConfig": "kv_transfer_config",
    "KVEventsConfig": "kv_events_config",
    "StructuredOutputsConfig": "structured_outputs_config",
    "EPLBConfig": None,
    "PoolerConfig": None,
    "ProfilerConfig": "profiler_config",  # vLLM 0.34.0: --profiler-config (its model_validator, profiler.py:205)
    "ECTransferConfig": "ec_transfer_config",  # vLLM 0.34.0: --ec-transfer-config (its __post_init__, ec_transfer.py:71)
    "EngramConfig": "engram_config",  # vLLM 0.34.0: --engram-config (its model_validator, engram.py:64)
}
"""The sub-configs vLLM's argument parser builds from a JSON-valued flag (``--compilation-config``/``-O``,
``--kv-transfer-config``, ``--kv-events-config``, ``--structured-outputs-config``, ``--eplb-config``,
``--pooler-config``, ``--override-pooler-config``: ``get_kwargs`` types a dataclass field with
``TypeAdapter(cls).validate_json``) -> the stage whose rules are its ``__post_init__`` (None: it has none).
``--speculative-config`` is only JSON-decoded there; its SpeculativeConfig is built in create_engine_config."""

NESTED_POST_INITS: dict[str, tuple[str, str]] = {
    "PoolerConfig": ("model_config.pooler_config", "vllm/config/pooler.py PoolerConfig.__post_init__"),
}
"""The classes of :data:`PARSED_SUB_CONFIGS` without a stage of their own whose ``__post_init__`` still checks and
logs (vLLM 0.34.0's PoolerConfig, vllm/config/pooler.py:140-167): the schema path the flag's value is mounted at,
and the source every rule standing for that ``__post_init__`` cites (phase ``model_config``: in config mode the
class is built inside ModelConfig). Where the parser builds it, those rules run there, on the flag's value alone."""

CONFIG_CLASSES: dict[str, str] = {
    "device_config": "DeviceConfig", "model_config": "ModelConfig", "cache_config": "CacheConfig",
    "parallel_config": "ParallelConfig", "speculative_config": "SpeculativeConfig",
    "scheduler_config": "SchedulerConfig", "lora_config": "LoRAConfig", "load_config": "LoadConfig",
    "structured_outputs_config": "StructuredOutputsConfig", "observability_config": "ObservabilityConfig",
    "compilation_config": "CompilationConfig", "kv_transfer_config": "KVTransferConfig",
    "kv_events_config": "KVEventsConfig", "vllm_config": "VllmConfig",
    # vLLM 0.34.0's
    "logging_config": "LoggingConfig", "diffusion_config": "DiffusionConfig", "watermark_config": "WatermarkConfig",
    "attention_config": "AttentionConfig", "mamba_config": "MambaConfig", "kernel_config": "KernelConfig",
    "offload_config": "OffloadConfig", "aux_output_config": "AuxOutputConfig", "engram_config": "EngramConfig",
    "ec_transfer_config": "ECTransferConfig", "ec_manager_config": "EncoderCacheManagerConfig",
    "reasoning_config": "ReasoningConfig", "profiler_config": "ProfilerConfig",
    "weight_transfer_config": "WeightTransferConfig", "watchdog_config": "WatchdogConfig",
}
"""The pydantic dataclass built at each stage of that name."""

_PYDANTIC_WRAPS = frozenset({"ValueError", "AssertionError", "InvalidVersion"})
"""The exceptions pydantic wraps when a validator raises them (``InvalidVersion`` is packaging's ValueError)."""

FIELD_VALIDATORS: dict[str, str] = {
    "structured-outputs.revalidated": "structured_outputs_config",  # vLLM 0.11.1 (postinit/rules/v0_11_1.py)
    "model.pooler-pooling-type": "pooler_config",  # vLLM 0.34.0 (postinit/rules/v0_34_0_models.py)
    "cache.cache-dtype-known": "cache_dtype",  # vLLM 0.34.0 (postinit/rules/v0_34_0_errors.py)
    "observability.hidden-metrics-version": "show_hidden_metrics_for_version",  # postinit/rules/observability.py
    "parallel.numa-bind-lists": "numa_bind_nodes|numa_bind_cpus",  # vLLM 0.34.0 (postinit/rules/v0_34_0.py)
    "model.multimodal-config-checks": "mm_encoder_attn_backend:Attention backend 'XFORMERS'",  # vLLM 0.34.0
    "model.multimodal-config-validators":  # postinit/rules/model_config.py (the seed; 0.11.1's message)
        "mm_encoder_attn_backend:Invalid mm encoder attention backend|mm_encoder_attn_backend:Unknown attention backend",
    "observability.custom-histogram-buckets": "custom_histogram_buckets",  # vLLM 0.34.0 (v0_34_0_errors.py)
    "speculative.method-known": "method",  # vLLM 0.34.0 (postinit/rules/v0_34_0_errors.py)
    "mamba.backend-enum": "backend",  # vLLM 0.34.0 (postinit/rules/v0_34_0_errors.py)
    "attention.backend-per-kind": "backend_per_kind",  # vLLM 0.34.0 (postinit/rules/v0_34_0_errors.py)
    "engine-args.quantization-config": "targets:targets",  # vLLM 0.34.0 (v0_34_0_quant.py; WRAPPED_IN)
}
"""Rules that stand for a validator VllmConfig runs on one of its fields: pydantic names that field in the
``ValidationError`` around the rule's exception. ``a|b``: one rule for the validators of several fields, the
one named is the field its message starts with; ``a:text``: field ``a`` when the message starts with ``text``; a
message matching none is the class's model validator's (see :func:`field_of`)."""


def field_of(rule: str, message: str) -> str | None:
    """The field pydantic names in the ``ValidationError`` around ``rule``'s exception (:data:`FIELD_VALIDATORS`)."""
    fields = FIELD_VALIDATORS.get(rule)
    if fields is None:
        return None
    if "|" not in fields and ":" not in fields:
        return fields
    for alt in fields.split("|"):
        name, _, prefix = alt.partition(":")
        if message.startswith(prefix or name):
            return name
    return None  # the rule's other refusals are its class's model validator's: no field named


WRAPPED_IN: dict[str, tuple[str, tuple[str, ...]]] = {
    "engine-args.quantization-config": ("QuantizationConfigArgs", ("quantization_config cannot change the weight",)),
}
"""Rules standing for a pydantic model vLLM builds outside the sub-configs -> ``(its class, the message prefixes of
the refusals raised outside it)``: what else they raise reaches the caller inside that class's ``ValidationError``
(vLLM 0.34.0: resolve_quantization_config builds QuantizationConfigArgs in EngineArgs.__post_init__, its validators
raising in it; merge_quantization_config's Hadamard refusal is raised by the function itself). The field pydantic
names is :func:`field_of`'s."""

POST_INIT_CALLED: frozenset[str] = frozenset({"mamba_config"})
"""The sub-configs EngineArgs copies, changes and re-checks by calling their ``__post_init__`` itself (vLLM 0.34.0:
``mamba_config.__post_init__()``, vllm/engine/arg_utils.py:2823): what that raises is not wrapped by pydantic."""


def wrapped_in(rule: str, error: str, message: str) -> str | None:
    """The class of :data:`WRAPPED_IN` whose ``ValidationError`` wraps ``rule``'s exception, or None."""
    inside = WRAPPED_IN.get(rule)
    if inside is None or error not in _PYDANTIC_WRAPS or message.startswith(inside[1]):
        return None
    return inside[0]


def wrapped_by(stage: str | None, error: str, engine_args: bool = False) -> str | None:
    """The exception pydantic wraps ``error`` in when vLLM raises it at ``stage`` (None: raised as it is).

    vLLM's configs are pydantic dataclasses: a ValueError or AssertionError raised while one is built
    (its ``__post_init__``, its validators, ``VllmConfig``'s hooks) reaches the caller as a
    ``ValidationError`` around it; other exceptions, and EngineArgs' own checks, pass unwrapped — and so does
    a ``__post_init__`` EngineArgs calls itself (``engine_args``: the config was built by EngineArgs;
    :data:`POST_INIT_CALLED`).
    """
    if engine_args and stage in POST_INIT_CALLED:
        return None
    return "ValidationError" if stage in CONFIG_CLASSES and error in _PYDANTIC_WRAPS else None


_ENGINE_ARGS_STEPS: dict[str, str] = {
    "engine-args.tp-divisible-by-dcp": "create_engine_config:defaults",
    "engine-args.data-parallel-lb": "create_engine_config:before-parallel",
    "engine-args.data-parallel-lb-check": "create_engine_config:before-parallel",
    "engine-args.device-ids": "create_engine_config:before-parallel",  # an argument of ParallelConfig(...)
    "engine-args.async-scheduling-pipeline-parallel": "create_engine_config:before-parallel",
    "engine-args.async-scheduling-speculative": "create_engine_config:before-parallel",
    "engine-args.async-scheduling-executor": "create_engine_config:after-parallel",
    "engine-args.speculative-method-literal": "create_engine_config:after-parallel",
    "engine-args.lookahead-slots-from-speculative": "create_engine_config:before-scheduler",
    "scheduler.is-encoder-decoder-from-model": "create_engine_config:before-scheduler",
    "scheduler.is-multimodal-from-model": "create_engine_config:before-scheduler",
    "scheduler.max-model-len-from-model": "create_engine_config:before-scheduler",
    "scheduler.runner-type-from-model": "create_engine_config:before-scheduler",
    "scheduler.field-bounds": "create_engine_config:before-scheduler",
    "engine-args.observability-config": "create_engine_config:before-lora",
    "engine-args.default-mm-loras-need-multimodal": "create_engine_config:before-lora",
    "engine-args.mm-loras-need-multimodal": "create_engine_config:before-lora",
    "engine-args.kda-prefill-backend-platform": "create_engine_config:additional-config",
    "engine-args.validate-environ": "create_engine_config:environ",
    "engine-args.logging-config-file": "create_engine_config:logging",
    "engine-args.cache-config-fields": "create_engine_config:cache-config-fields",
    "engine-args.scheduler-config-fields": "create_engine_config:scheduler-config-fields",
    "engine-args.attention-backend-given-twice": "create_engine_config:attention",
    "engine-args.flashinfer-autotune-given-twice": "create_engine_config:kernel",
    "engine-args.ir-op-priority": "create_engine_config:kernel",
    "engine-args.packed-kv-cache": "create_engine_config:attention",
    "engine-args.capture-sizes-given-twice": "create_engine_config:compilation-overrides",
    # vLLM 0.34.0 sets the batch defaults after ParallelConfig / SpeculativeConfig (phase sub_configs there)
    "engine-args.batch-defaults-cpu": "create_engine_config:before-scheduler",
    "engine-args.batch-defaults-large-gpu": "create_engine_config:before-scheduler",
    "engine-args.batch-defaults-other-device": "create_engine_config:before-scheduler",
}
"""Where in create_engine_config the rules sit that their source does not place (``_ENGINE_ARGS_BY_SOURCE``)."""
_FIELD_VALIDATOR_STEPS: dict[str, str] = {
    "speculative.method-known": "speculative_config:field-validators",
    "speculative.method-literal": "speculative_config:field-validators",
}
"""Rules standing for a sub-config's field validator that must come before its ``__post_init__``'s rules (which
read what they write): the step of their own."""
BUILT_INSIDE: dict[str, str] = {
    "speculative.draft-architecture": "speculative_config",
    "speculative.draft-max-model-len": "speculative_config",
    "speculative.draft-max-model-len-log": "speculative_config",
    "speculative.mtp-layer-types": "speculative_config",  # vLLM 0.34.0 (postinit/rules/v0_34_0_spec.py)
    "speculative.mtp-inkling-weights": "speculative_config",  # vLLM 0.34.0 (postinit/rules/v0_34_0_spec.py)
}
"""Rules standing for a config vLLM builds inside another's construction (the draft's ModelConfig, built by
SpeculativeConfig.__post_init__) -> the outer stage: their stage is the inner config's (the oracle names the class
that raised), pydantic's wrapper the outer's (``1 validation error for SpeculativeConfig``), their step the one
:data:`_BUILT_INSIDE_STEPS` names inside the outer's construction."""
_BUILT_INSIDE_STEPS = {"speculative_config": "speculative_config:draft-model-config"}
_ONLY_IN_SUB_CONFIGS = frozenset({"engine-args.batch-defaults-cpu", "engine-args.batch-defaults-large-gpu",
                                  "engine-args.batch-defaults-other-device"})
"""Rules ``_ENGINE_ARGS_STEPS`` places only where a version runs them in phase ``sub_configs`` (0.34.0); in phase
``engine_args`` (the seed, 0.11.1) they are ``_set_default_args``, before the data-parallel asserts."""

_ENGINE_ARGS_BY_SOURCE = (
    ("_is_v1_supported_oracle", "create_engine_config:v1-oracle"),
    ("_set_default_args", "create_engine_config:defaults"),
    ("create_speculative_config", "create_engine_config:after-parallel"),
)

WITHIN_STEPS: dict[str, tuple[str, ...]] = {
    "model_config": ("model.max-model-len-positive", "model.prompt-embeds-encoder-decoder"),  # a model_validator:
    # after __post_init__
    "mamba_config": ("mamba.backend-enum", "mamba.ssu-algorithm-backend", "mamba.stochastic-rounding-platform"),
    "parallel_config": ("parallel.external-launcher-dp-rank", "parallel.data-parallel-rank-range",
                        "parallel.external-launcher-disables-multiprocessing", "parallel.data-parallel-size-local-range",
                        "parallel.external-lb-needs-dp", "parallel.eplb-requirements", "parallel.ray-importable"),
    "scheduler_config": ("scheduler.budget-below-max-model-len", "scheduler.budget-below-max-num-seqs",
                         "scheduler.budget-exceeds-seqs-times-len", "scheduler.partial-prefill-limits"),
    "structured_outputs_config": ("structured-outputs.any-whitespace-backend",
                                  "structured-outputs.additional-properties-backend"),
    "compilation_config": (
        "compilation.fusion-without-noop", "compilation.level-to-mode", "compilation.custom-ops-all-none-count",
        "compilation.inductor-auto-functionalized-v2", "compilation.inductor-combo-kernels",
        "compilation.inductor-pass-module",
        "compilation.use-cudagraph-deprecated", "compilation.use-cudagraph-false",
        "compilation.full-cuda-graph-deprecated", "quirk.full-cuda-graph-collapses-mode",
        "compilation.full-cuda-graph", "compilation.custom-op-syntax", "compilation.piecewise-backend",
        "compilation.use-inductor-backend", "compilation.backend-default", "compilation.custom-ops-conflicting",
    ),
    "vllm_config:step-3": ("verify.external-launcher-seed", "verify.heads-divisible-by-tp",
                           "verify.expert-parallel-needs-experts", "verify.pipeline-parallel-supported",
                           "verify.dcp-kv-heads", "verify.dual-chunk-attention"),
    "vllm_config:step-5": ("verify.lora-cpu-offload-v0", "verify.lora-dtype"),
    "vllm_config:step-4": ("vllm.sampling-replay", "kv-transfer.nixl-dcp"),
    "vllm_config:step-6": ("verify.quant-config", "verify.quant-capability", "verify.quant-act-dtype",
                           "vllm.direct-reload", "model.untie-word-embeddings"),
}
"""vLLM's statement order inside a step, for the rules whose order there decides which failure comes
first (or which log a failure cuts off); the rules not listed come first."""

_FIRST_STEP = {"model": 2, "verify": 3, "core": 7, "platform": 17, "finalize": 18, "validate": 25}
_STEP_REF = re.compile(r"\bstep-(\d+)")

_VLLM_CONFIG_PHASES = frozenset({"model", "verify", "core", "platform", "finalize", "validate"})
_CONFIG_FILE = re.compile(r"vllm/config/(\w+)\.py")
_FILE_STAGES = {"watermarking": "watermark_config", "ec_manager_config": "ec_manager_config",
                "watchdog_config": "watchdog_config"}
"""vLLM 0.34.0's config modules whose stage is not ``<module>_config``."""

EXPLANATIONS: frozenset[str] = frozenset({
    "vllm.instance-id",
    "engine-args.chunked-prefill-forced",
    "cuda.mla-backend-default",
    "model.task",  # vLLM warns with warnings.warn(DeprecationWarning), not its logger
})
"""Rules (besides every ``quirk.*`` rule) whose message explains a silent vLLM decision; not a vLLM log."""


def is_explanation(rule_id: str) -> bool:
    """True when the rule's message is postinit's explanation, not a record vLLM logs."""
    return rule_id.startswith("quirk.") or rule_id in EXPLANATIONS


def stage_of(rule: Rule) -> str:
    """The oracle's name for where vLLM raises the exception of ``rule``'s violation."""
    where = rule.source.split(";", 1)[0]
    if where.startswith("vllm/entrypoints/cli/serve.py"):  # `vllm serve`'s own steps before EngineArgs (0.34.0)
        return "serve"
    if rule.phase in _VLLM_CONFIG_PHASES:
        return "vllm_config"
    if rule.phase == "model_config":
        # create_engine_config's checks before it builds ModelConfig run in this phase too (vLLM 0.34.0's
        # validate_environ), and EngineArgs.__post_init__'s (0.34.0's online quantization config): the ones whose
        # source is EngineArgs
        if not where.startswith("vllm/engine/arg_utils.py"):
            return "model_config"
        return "engine_args" if "EngineArgs.__post_init__" in where else "create_engine_config"
    if "vllm/engine/arg_utils.py" in where.split(" / ", 1)[0]:
        return "engine_args" if "EngineArgs.__post_init__" in where else "create_engine_config"
    match = _CONFIG_FILE.search(where)
    if match is None or match.group(1) == "vllm":
        raise ValueError(f"rule '{rule.id}' ({rule.phase}): no vLLM stage follows from its source {where!r}")
    return _FILE_STAGES.get(match.group(1), f"{match.group(1)}_config")


def step_of(rule: Rule) -> Step:
    """Where in vLLM's statement order ``rule``'s decision sits (see :data:`STEPS`).

    The stage's own step for a sub-config; the step of ``create_engine_config`` its source (or
    ``_ENGINE_ARGS_STEPS``) names; for ``VllmConfig.__post_init__`` the reference's step its source
    cites (``ref step-12b`` is step 12), else the first step of its phase.
    """
    stage = stage_of(rule)
    if rule.id in _FIELD_VALIDATOR_STEPS:
        return STEPS[_STEP_INDEX[_FIELD_VALIDATOR_STEPS[rule.id]]]
    if rule.id in BUILT_INSIDE:
        return STEPS[_STEP_INDEX[_BUILT_INSIDE_STEPS[BUILT_INSIDE[rule.id]]]]
    if stage == "vllm_config":
        cited = [int(n) for n in _STEP_REF.findall(rule.source)]
        n = max(cited) if cited else _FIRST_STEP[rule.phase]
        return STEPS[_STEP_INDEX[f"vllm_config:step-{n}"]]
    if stage == "create_engine_config":
        name = _ENGINE_ARGS_STEPS.get(rule.id)
        if rule.id in _ONLY_IN_SUB_CONFIGS and rule.phase != "sub_configs":
            name = None
        if name is None:
            name = next((step for where, step in _ENGINE_ARGS_BY_SOURCE if where in rule.source),
                        "create_engine_config:defaults")
        return STEPS[_STEP_INDEX[name]]
    return STEPS[_STEP_INDEX[stage]]


def rank_of(rule: Rule) -> int:
    """``rule``'s place in vLLM's statement order as a number (``Rule.rank``): its step, then its place in it."""
    step = step_of(rule).name
    within = WITHIN_STEPS.get(step, ())
    return _STEP_INDEX[step] * 100 + (within.index(rule.id) + 1 if rule.id in within else 0)
