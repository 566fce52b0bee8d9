"""vLLM 0.11.1 as a delta over the seed commit d7fb10c57: the rules it adds, replaces and drops.

Every rule here has the id of the decision it stands for. A rule whose id the
seed rulebook has *replaces* it (the same question, answered as 0.11.1 answers
it); a new id is a decision 0.11.1 *adds*; :data:`DROPS` lists the seed's
decisions 0.11.1 no longer makes, each with the reason. :data:`DELTA` is the
declaration :mod:`postinit.rules.versions` reads; ``docs/versions.md`` is
generated from it (``python -m postinit.rules._docs --versions``).

Sources (``source=``) are files of the ``vllm==0.11.1`` wheel (``site-packages/vllm/``);
every rule here carries the reference tag ``v0.11.1``. "The seed" is vLLM main ``d7fb10c57``.

Not copied, because the seed's rules already behave as 0.11.1 does: every
decision gated on ``VLLM_USE_V1``. 0.11.1 removed the variable (its
``envs.py`` does not define it, so ``env.VLLM_USE_V1`` keeps its default,
true, and a user's ``VLLM_USE_V1=0`` is reported as unknown), and the gated
rules then take the V1 branch that 0.11.1 kept unconditionally.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, get_args

from postinit.engine import (
    Outcome,
    Rule,
    RuleResult,
    Violation,
    first_match,
    make_rule,
    rule,
    sequence,
)
from postinit.rules import hashing, model_config
from postinit.rules.delta import Delta, patch
from postinit.rules.model_config import (
    _INFO_READS,
    SEED_POOLER_FIELDS,
    config_model_types,
    override_pooler_rule,
)
from postinit.rules.models import (
    _HYBRID_ON,
    KV_HEAD_READS,
    _cdiv,
    _hybrid_on,
    dtype_bytes,
    head_size,
    kv_heads_known,
    mamba_page_size,
    pooler_default_rule,
    total_num_kv_heads,
)
from postinit.rules.parallel import eplb_rule
from postinit.schema import CompilationMode, CUDAGraphMode
from postinit.schema.configs import SPECULATIVE_METHODS_0111, SpeculativeMethod

__all__ = ["DELTA", "DROPS"]

_VLLM = "vllm/config/vllm.py VllmConfig.__post_init__"
_SCH = "vllm/config/scheduler.py SchedulerConfig"
_ARGS = "vllm/engine/arg_utils.py EngineArgs"
_CPU = "vllm/platforms/cpu.py CpuPlatform.check_and_update_config"
_MODELS = "vllm/model_executor/models/config.py"
_CMP = "vllm/config/compilation.py"
_PAR = "vllm/config/parallel.py ParallelConfig"

_EA = "usage.via_engine_args"
_CTX = "usage.usage_context"
_RUNNER = "model_config.runner_type"
_ECP = "scheduler_config.enable_chunked_prefill"
_TOK = "scheduler_config.max_num_batched_tokens"
_SEQ = "scheduler_config.max_num_seqs"
_LEN = "scheduler_config.max_model_len"
_APC = "cache_config.enable_prefix_caching"
_CG = "compilation_config.cudagraph_mode"
_MODE = "compilation_config.mode"
_OPS = "compilation_config.custom_ops"
_SPLIT = "compilation_config.splitting_ops"
_PARTITION = "compilation_config.use_inductor_graph_partition"
_ATTN_FUSION = "compilation_config.pass_config.enable_attn_fusion"
_SP = "compilation_config.pass_config.enable_sequence_parallelism"
_KIND = "platform.kind"
_BS = "cache_config.block_size"
_DTYPE = "cache_config.cache_dtype"
_EAGLE_TYPES = ("eagle", "eagle3", "deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp",
                "longcat_flash_mtp", "mtp", "pangu_ultra_moe_mtp")
"""``EagleModelTypes`` of vllm/config/speculative.py (0.11.1): the methods async scheduling supports."""


def _cpu(c: Mapping[str, Any]) -> bool:
    return bool(c[_KIND] == "cpu")


# =========================================================================== EngineArgs (phase engine_args)

_UNSUPPORTED_READS = (
    _EA, "model_config.logits_processor_pattern", "scheduler_config.max_num_partial_prefills",
    "scheduler_config.max_long_partial_prefills", "parallel_config.pipeline_parallel_size",
    "parallel_config.distributed_executor_backend",
)


@rule(
    "engine-args.unsupported-feature",
    title="Features the engine does not support are an error",
    phase="engine_args",
    kind="check",
    reads=_UNSUPPORTED_READS,
    source=f"{_ARGS}._check_feature_supported, _raise_unsupported_error; ref 12.3, v0.11.1",
    message="<feature> is not supported. We recommend to remove <feature> from your config.",
)
def unsupported_feature(c: Mapping[str, Any]) -> RuleResult:
    """With V0 gone there is nothing to fall back to: a logits-processor pattern, concurrent partial prefills or pipeline parallelism on an executor without it fail outright.

    The seed fell back to V0 instead (``engine-args.v1-oracle-fallback``); the
    attention-backend and CPU sliding-window conditions of its oracle are gone.
    """
    if not c[_EA]:
        return None
    name = None
    if c["model_config.logits_processor_pattern"] is not None:
        name = "--logits-processor-pattern"
    elif c["scheduler_config.max_num_partial_prefills"] != 1 or c["scheduler_config.max_long_partial_prefills"] != 1:
        name = "Concurrent Partial Prefill"
    elif c["parallel_config.pipeline_parallel_size"] > 1 and c["parallel_config.distributed_executor_backend"] \
            not in (None, "ray", "mp", "external_launcher"):
        name = ("Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external "
                "launcher")
    if name is None:
        return None
    return Violation(f"{name} is not supported. We recommend to remove {name} from your config.",
                     error="NotImplementedError", hint=f"remove {name}")


def _incremental_prefill(c: Mapping[str, Any]) -> bool:
    """LAST pooling on a causal model can be prefilled in chunks and prefix-cached."""
    ptype = c["model_config.pooler_config.pooling_type"]
    causal = c["model_config.hf_config.is_causal"]
    return ptype is not None and ptype.lower() == "last" and (causal is None or bool(causal))


_DEFAULTS_READS = (_EA, _RUNNER, "model_config.is_hybrid", "model_config.pooler_config.pooling_type",
                   "model_config.hf_config.is_causal")


def _defaults(c: Mapping[str, Any]) -> tuple[bool, bool]:
    """``get_chunked_prefill_prefix_caching_defaults``: (chunked prefill, prefix caching)."""
    if c[_RUNNER] != "pooling":
        return True, not c["model_config.is_hybrid"]
    ok = _incremental_prefill(c)
    return ok, ok


@rule(
    "engine-args.chunked-prefill-default",
    title="Chunked prefill defaults on, for pooling runners only with LAST pooling on a causal model",
    phase="engine_args",
    kind="default",
    reads=(*_DEFAULTS_READS, _ECP),
    writes=(_ECP,),
    source=f"{_ARGS}._set_default_args, get_chunked_prefill_prefix_caching_defaults; ref 12.2, v0.11.1",
    message="(Enabling|Disabling) chunked prefill by default",
    level="debug",
)
def chunked_prefill_default(c: Mapping[str, Any]) -> RuleResult:
    """Only an unset flag is filled: a user's --no-enable-chunked-prefill is kept (the seed forced it on).

    Generative runners chunk prompts by default; a pooling model only when it pools
    the last token of a causal model, where chunked and whole prefill agree.
    """
    if not c[_EA] or c[_ECP] is not None:
        return None
    on = _defaults(c)[0]
    return Outcome({_ECP: on}, message=f"{'Enabling' if on else 'Disabling'} chunked prefill by default")


@rule(
    "engine-args.prefix-caching-default",
    title="Prefix caching defaults on, except for hybrid models and pooling other than LAST/causal",
    phase="engine_args",
    kind="default",
    reads=(*_DEFAULTS_READS, _APC),
    writes=(_APC,),
    source=f"{_ARGS}._set_default_args, get_chunked_prefill_prefix_caching_defaults; ref 12.2, v0.11.1",
    message="(Enabling|Disabling) prefix caching by default",
    level="debug",
)
def prefix_caching_default(c: Mapping[str, Any]) -> RuleResult:
    """Cached prefixes are reusable for generative models (hybrids excluded: still experimental) and for LAST pooling of a causal model.

    One rule for both runners now, logging at debug (the seed logged the pooling
    case at info as "(Enabling) prefix caching by default").
    """
    if not c[_EA] or c[_APC] is not None:
        return None
    on = _defaults(c)[1]
    return Outcome({_APC: on}, message=f"{'Enabling' if on else 'Disabling'} prefix caching by default")


_NOT_OFFICIAL = ("This model does not officially support {what}. Enabling this manually may cause the engine to "
                 "crash or produce incorrect outputs.")


def _pooling_warning(rule_id: str, path: str, index: int, what: str, doc: str) -> Rule:
    """A pooling model whose default for ``path`` is off (``_defaults(c)[index]``) has it switched on by the user."""

    def warning(c: Mapping[str, Any]) -> RuleResult:
        if c[_EA] and c[_RUNNER] == "pooling" and c[path] and not _defaults(c)[index]:
            return Outcome.log()
        return None

    warning.__doc__ = doc
    return make_rule(warning, rule_id, title=f"A pooling model that does not support {what} has it switched on "
                     "by the user", phase="engine_args", kind="check", reads=(*_DEFAULTS_READS, path),
                     source=f"{_ARGS}._set_default_args; ref 12.2, v0.11.1", message=_NOT_OFFICIAL.format(what=what),
                     level="warning")


pooling_chunked_prefill_warning = _pooling_warning(
    "engine-args.pooling-chunked-prefill-warning", _ECP, 0, "chunked prefill",
    "vLLM keeps the user's --enable-chunked-prefill for a model it would not chunk, and warns.")

pooling_prefix_caching_warning = _pooling_warning(
    "engine-args.pooling-prefix-caching-warning", _APC, 1, "prefix caching",
    "vLLM keeps the user's --enable-prefix-caching for a model it would not cache, and warns.")

_BATCH_READS = (_EA, _CTX, _TOK, _SEQ, _ECP, "platform.is_cpu", "platform.total_memory_gb",
                "platform.device_name", "model_config.max_model_len")


def _large_gpu(c: Mapping[str, Any]) -> bool:
    return c["platform.total_memory_gb"] >= 70 and "a100" not in c["platform.device_name"].lower()


def _batch(c: Mapping[str, Any], tokens: Mapping[str | None, int], seqs: Mapping[str | None, int]) -> RuleResult:
    """``_set_default_args``' budget: the usage default (2048 / 128 otherwise), raised to max_model_len without chunked prefill, capped at max_num_seqs x max_model_len; then max_num_seqs <= the budget."""
    if not c[_EA]:
        return None
    ctx = c[_CTX]
    budget, n_seqs = c[_TOK], c[_SEQ]
    if budget is not None and n_seqs is not None:
        return None
    length = c["model_config.max_model_len"]
    msgs, out = [], {}
    seqs_default = seqs.get(ctx, 128)
    if budget is None:
        budget = tokens.get(ctx, 2048)
        if not c[_ECP]:
            budget = max(length, budget)
        budget = min((n_seqs if n_seqs is not None else seqs_default) * length, budget)
        out[_TOK] = budget
        msgs.append(f"Defaulting max_num_batched_tokens to {budget} for {ctx} usage context.")
    if n_seqs is None:
        out[_SEQ] = min(seqs_default, budget)
        msgs.append(f"Defaulting max_num_seqs to {out[_SEQ]} for {ctx} usage context.")
    return Outcome(out, message="\n".join(msgs))  # two debug records in vLLM


@rule(
    "engine-args.batch-defaults-large-gpu",
    title="Batch defaults for GPUs with >= 70 GiB that are not A100s",
    phase="engine_args",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_args, get_batch_defaults; ref 12.2, v0.11.1",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_large_gpu(c: Mapping[str, Any], *, serve_tokens: int = 8192, llm_tokens: int = 16384,
                             max_num_seqs: int = 1024) -> RuleResult:
    """H100/H200/B200/MI300-class devices get 16384 (LLM) / 8192 (serve) tokens, at least max_model_len without chunked prefill, and 1024 sequences.

    Without chunked prefill the budget is at least max_model_len, and it never
    exceeds max_num_seqs x max_model_len; another usage context gets SchedulerConfig's
    2048 / 128. (The seed set the budget to max_model_len without chunked prefill and
    left an unknown usage context to SchedulerConfig.)
    """
    if c["platform.is_cpu"] or not _large_gpu(c):
        return None
    return _batch(c, {"LLM_CLASS": llm_tokens, "OPENAI_API_SERVER": serve_tokens},
                  {"LLM_CLASS": max_num_seqs, "OPENAI_API_SERVER": max_num_seqs})


@rule(
    "engine-args.batch-defaults-other-device",
    title="Batch defaults for A100s and devices with < 70 GiB",
    phase="engine_args",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_args, get_batch_defaults; ref 12.2, v0.11.1",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_other_device(c: Mapping[str, Any]) -> RuleResult:
    """Smaller devices and A100s get 8192 (LLM) / 2048 (serve) tokens, at least max_model_len without chunked prefill, and 256 sequences."""
    if c["platform.is_cpu"] or _large_gpu(c):
        return None
    return _batch(c, {"LLM_CLASS": 8192, "OPENAI_API_SERVER": 2048}, {"LLM_CLASS": 256, "OPENAI_API_SERVER": 256})


@rule(
    "engine-args.batch-defaults-cpu",
    title="CPU batch defaults scale with the world size",
    phase="engine_args",
    kind="default",
    reads=(*_BATCH_READS, "parallel_config.pipeline_parallel_size", "parallel_config.tensor_parallel_size"),
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_args, get_batch_defaults; ref 12.2, v0.11.1",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_cpu(c: Mapping[str, Any]) -> RuleResult:
    """On a CPU the defaults are per worker, times pp x tp, with the same adjustments."""
    if not c["platform.is_cpu"]:
        return None
    ws = c["parallel_config.pipeline_parallel_size"] * c["parallel_config.tensor_parallel_size"]
    return _batch(c, {"LLM_CLASS": 4096 * ws, "OPENAI_API_SERVER": 2048 * ws},
                  {"LLM_CLASS": 256 * ws, "OPENAI_API_SERVER": 128 * ws})


CHUNKED_PREFILL = first_match(
    "engine-args.chunked-prefill", chunked_prefill_default, pooling_chunked_prefill_warning,
    title="Chunked prefill: fill an unset flag, or warn about a pooling model that does not support it",
    source=f"{_ARGS}._set_default_args",
)
PREFIX_CACHING = first_match(
    "engine-args.prefix-caching", prefix_caching_default, pooling_prefix_caching_warning,
    title="Prefix caching: fill an unset flag, or warn about a pooling model that does not support it",
    source=f"{_ARGS}._set_default_args",
)
CREATE_ENGINE_CONFIG = sequence(
    "engine-args.create-engine-config",
    unsupported_feature, "engine-args.draft-model-unsupported", CHUNKED_PREFILL, PREFIX_CACHING,
    "engine-args.batch-defaults", "engine-args.cpu-arch-overrides", "engine-args.tp-divisible-by-dcp",
    title="create_engine_config: unsupported features, usage defaults and batch defaults, then the "
    "CPU-architecture switch and the DCP check",
    source=f"{_ARGS}.create_engine_config",
)


@rule(
    "engine-args.observability-config",
    title="There is always an ObservabilityConfig",
    phase="engine_args",
    kind="default",
    reads=("observability_config",),
    writes=("observability_config",),
    source="vllm/engine/arg_utils.py EngineArgs.create_engine_config / vllm/config/vllm.py "
    "VllmConfig.observability_config (default_factory); ref 12.2, v0.11.1",
    level="debug",
)
def observability_config(c: Mapping[str, Any]) -> RuleResult:
    """VllmConfig builds a default ObservabilityConfig now, so a config built directly has one too (the seed kept None)."""
    return None if c["observability_config"] else {"observability_config": True}


@rule(
    "engine-args.lora-speculative-budget",
    title="LoRA with speculative decoding needs max_num_seqs x (k + 1) tokens per step",
    phase="sub_configs",
    kind="check",
    reads=(_EA, "lora_config", "speculative_config", "speculative_config.num_speculative_tokens", _TOK, _SEQ),
    after=("scheduler.chunked-prefill-enabled",),  # create_engine_config checks it after building SchedulerConfig
    source=f"{_ARGS}.create_engine_config; ref 12.2, v0.11.1",
    message="Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens",
)
def lora_speculative_budget(c: Mapping[str, Any]) -> RuleResult:
    """Each sequence may verify k draft tokens plus one in a step; the LoRA kernels are sized for the whole budget."""
    k = c["speculative_config.num_speculative_tokens"]
    if c[_EA] and c["lora_config"] and c["speculative_config"] and k is not None and c[_TOK] < c[_SEQ] * (k + 1):
        return Violation("Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens")
    return None


# =========================================================================== SchedulerConfig (phase sub_configs)


@rule(
    "scheduler.chunked-prefill-default",
    title="SchedulerConfig's enable_chunked_prefill defaults to True",
    phase="sub_configs",
    kind="default",
    reads=(_ECP,),
    writes=(_ECP,),
    source=f"{_SCH} (field default); ref 2.4, v0.11.1",
    level="debug",
)
def scheduler_chunked_prefill_default(c: Mapping[str, Any]) -> RuleResult:
    """A SchedulerConfig built directly chunks prefills (the seed's default None counted as off)."""
    return {_ECP: True} if c[_ECP] is None else None


@rule(
    "scheduler.max-num-batched-tokens-default",
    title="SchedulerConfig's max_num_batched_tokens defaults to 2048",
    phase="sub_configs",
    kind="default",
    reads=(_TOK,),
    writes=(_TOK,),
    source=f"{_SCH} (field default DEFAULT_MAX_NUM_BATCHED_TOKENS); ref 2.4, v0.11.1",
    level="debug",
)
def max_num_batched_tokens_default(c: Mapping[str, Any]) -> RuleResult:
    """A plain default now: no derivation from max_model_len, the runner or multimodality as at the seed."""
    return {_TOK: 2048} if c[_TOK] is None else None


@rule(
    "scheduler.encoder-decoder-no-chunked-prefill",
    title="Encoder-decoder models disable chunked prefill",
    phase="sub_configs",
    kind="override",
    reads=("scheduler_config.is_encoder_decoder",),
    writes=("scheduler_config.disable_chunked_mm_input", _ECP, "scheduler_config.long_prefill_token_threshold"),
    after=("scheduler.chunked-prefill-default",),
    source=f"{_SCH}.__post_init__; ref 2.4, v0.11.1",
    message="Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both.",
)
def encoder_decoder_no_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """Chunked prefill should be disabled for encoder-decoder models (one flag now: chunked_prefill_enabled is its alias)."""
    if c["scheduler_config.is_encoder_decoder"]:
        return {"scheduler_config.disable_chunked_mm_input": True, _ECP: False,
                "scheduler_config.long_prefill_token_threshold": 0}
    return None


@rule(
    "scheduler.chunked-prefill-enabled",
    title="Chunked prefill is on: vLLM logs the token budget",
    phase="sub_configs",
    kind="check",
    reads=(_ECP, _TOK),
    after=("speculative.draft-model-from-method", "speculative.draft-tensor-parallel-size",
           "speculative.prompt-lookup-defaults", "speculative.draft-verify-with-parallel-config",
           "speculative.token-tree", "speculative.mtp-draft-architecture", "scheduler.field-bounds"),
    feedback=("scheduler.encoder-decoder-no-chunked-prefill",),
    source=f"{_SCH}.__post_init__; ref 2.4, v0.11.1",
    message="Chunked prefill is enabled with max_num_batched_tokens=<n>.",
)
def chunked_prefill_enabled(c: Mapping[str, Any]) -> RuleResult:
    """One flag: ``chunked_prefill_enabled`` is a deprecated property aliasing ``enable_chunked_prefill`` (the seed copied it into a field of its own)."""
    if c[_ECP]:
        return Outcome(message=f"Chunked prefill is enabled with max_num_batched_tokens={c[_TOK]}.")
    return None


@rule(
    "scheduler.budget-below-max-model-len",
    title="Without chunked prefill the budget must cover max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _LEN, _ECP),
    after=("scheduler.chunked-prefill-enabled",),
    source=f"{_SCH}.verify_max_model_len; ref 2.4, v0.11.1",
    message="max_num_batched_tokens (<n>) is smaller than max_model_len (<len>). ...",
)
def budget_below_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """A prompt that cannot be chunked must fit into one step's token budget."""
    tok, length = c[_TOK], c[_LEN]
    if tok < length and not c[_ECP]:
        return Violation(
            f"max_num_batched_tokens ({tok}) is smaller than max_model_len ({length}). This effectively "
            "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
            "sequences. Please increase max_num_batched_tokens or decrease max_model_len.",
            hint="enable chunked prefill, raise --max-num-batched-tokens or lower --max-model-len")
    return None


_SCHEDULER_BOUNDS = (("max_num_batched_tokens", 1), ("max_num_seqs", 1), ("max_num_partial_prefills", 1),
                     ("max_long_partial_prefills", 1), ("num_lookahead_slots", 0), ("stream_interval", 1))
"""SchedulerConfig's ``Field(ge=...)`` bounds, in its declaration order (pydantic reports them in that order)."""


@rule(
    "scheduler.field-bounds",
    title="SchedulerConfig's pydantic lower bounds (the budget, the sequences, lookahead slots, partial prefills)",
    phase="sub_configs",
    kind="check",
    reads=tuple(f"scheduler_config.{name}" for name, _ in _SCHEDULER_BOUNDS),
    source=f"{_ARGS}.create_engine_config (SchedulerConfig(...): {_SCH} Field(ge=...)); ref 2.4, v0.11.1",
    message="1 validation error for SchedulerConfig ... greater than or equal to ...",
)
def scheduler_field_bounds(c: Mapping[str, Any]) -> RuleResult:
    """pydantic checks the bounds when create_engine_config builds the SchedulerConfig, before its __post_init__
    runs (and logs): the ValidationError reaches the caller unwrapped (golden case n021-lookahead-negative). A
    max_model_len of -1 (which 0.11.1's ModelConfig keeps) makes EngineArgs' batch defaults negative: both
    refused at once (golden y039)."""
    values = [(name, c[f"scheduler_config.{name}"], bound) for name, bound in _SCHEDULER_BOUNDS]
    bad = [(name, value, bound) for name, value, bound in values if value is not None and value < bound]
    if not bad:
        return None
    count = "1 validation error" if len(bad) == 1 else f"{len(bad)} validation errors"
    lines = [f"{count} for SchedulerConfig"]
    for name, value, bound in bad:
        lines += [name, f"  Input should be greater than or equal to {bound} [type=greater_than_equal, "
                        f"input_value={value}, input_type=int]",
                  "    For further information visit https://errors.pydantic.dev/2.12/v/greater_than_equal"]
    return Violation("\n".join(lines), error="ValidationError")


@rule(
    "scheduler.partial-prefill-limits",
    title="Lookahead slots and partial-prefill limits must be consistent",
    phase="sub_configs",
    kind="check",
    reads=("scheduler_config.max_num_partial_prefills",
           "scheduler_config.max_long_partial_prefills", "scheduler_config.long_prefill_token_threshold", _LEN,
           _ECP),
    after=("scheduler.budget-below-max-num-seqs",),
    source=f"{_SCH}.verify_max_model_len, Field(ge=...); ref 2.4, v0.11.1",
    message="<one of SchedulerConfig's range errors>",
)
def partial_prefill_limits(c: Mapping[str, Any]) -> RuleResult:
    """Partial prefills need chunked prefill and a threshold within max_model_len (the lower bounds are pydantic
    field constraints now: ``scheduler.field-bounds``, checked before)."""
    parts = c["scheduler_config.max_num_partial_prefills"]
    longs, thr = c["scheduler_config.max_long_partial_prefills"], c["scheduler_config.long_prefill_token_threshold"]
    if parts > 1 and not c[_ECP]:
        return Violation("Chunked prefill must be enabled to set max_num_partial_prefills > 1.")
    if parts > 1 and thr > c[_LEN]:
        return Violation(f"long_prefill_token_threshold ({thr}) cannot be greater than the max_model_len ({c[_LEN]}).")
    if longs > parts:
        return Violation(f"self.max_long_partial_prefills={longs} must be less than or equal to "
                         f"self.max_num_partial_prefills={parts}.")
    return None


# =========================================================================== ParallelConfig (phase sub_configs)

_EXEC = "parallel_config.distributed_executor_backend"
_NNODES = "parallel_config.nnodes"


eplb_requirements = eplb_rule(
    "platform.is_cuda_alike", "CUDA devices or ROCm devices", "EPLB needs CUDA or ROCm, expert parallelism and TP x DP > 1",
    f"{_PAR}._validate_parallel_config; ref 2.3, v0.11.1",
    "Expert load balancing moves experts between GPUs: EP over more than one rank, now on ROCm too.")


@rule(
    "parallel.executor-backend-multi",
    title="Several workers default to the mp executor (more workers than GPUs is an error)",
    phase="sub_configs",
    kind="default",
    reads=(_EXEC, "parallel_config.world_size", "platform.is_cuda", "platform.device_count",
           "parallel_config.data_parallel_backend", _NNODES),
    writes=(_EXEC,),
    source=f"{_PAR}.__post_init__; ref 2.3, v0.11.1",
    message="Defaulting to use <backend> for distributed inference",
    level="debug",
)
def executor_backend_multi(c: Mapping[str, Any]) -> RuleResult:
    """Multi-node runs use mp (--nnodes); a CUDA world larger than this node's GPUs is refused instead of going to Ray as at the seed."""
    if c[_EXEC] is not None or c["parallel_config.world_size"] <= 1:
        return None
    world = c["parallel_config.world_size"]
    if c["platform.is_cuda"] and c[_NNODES] > 1:
        pass
    elif c["platform.is_cuda"] and c["platform.device_count"] < world:
        return Violation(f"Tensor parallel size ({world}) cannot be larger than the number of available GPUs "
                         f"({c['platform.device_count']}).")
    elif c["parallel_config.data_parallel_backend"] == "ray":
        return Outcome({_EXEC: "ray"}, message="Using ray distributed inference because data_parallel_backend is ray",
                       level="info")
    return Outcome({_EXEC: "mp"}, message="Defaulting to use mp for distributed inference")


_DPR, _DPL = "parallel_config.data_parallel_rank", "parallel_config.data_parallel_size_local"
_DP_LB_CHECK_READS = (_EA, "usage.given", "usage.given_on", "usage.given_values", "usage.data_parallel_start_rank",
                      "usage.headless", _DPL, "parallel_config.data_parallel_backend", "parallel_config.nnodes",
                      "parallel_config.node_rank", "parallel_config.pipeline_parallel_size",
                      "parallel_config.tensor_parallel_size")
"""What create_engine_config's data-parallel assertions read: the DP size and rank as given (``usage.given_values``),
not the config's, which ParallelConfig's rules rewrite from VLLM_DP_* before the checks run in postinit."""
_DP_LB_READS = (*_DP_LB_CHECK_READS, "parallel_config.data_parallel_size", _DPR,
                "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb")


def _dp_lb(c: Mapping[str, Any]) -> Violation | tuple[dict[str, Any], list[tuple[str, str]]]:
    """0.11.1's create_engine_config on the data-parallel arguments: its first failed assertion, or the values it
    passes to ParallelConfig (with what it logs). --data-parallel-external-lb and --nnodes / --node-rank are new:
    a multi-node run infers the DP rank (external LB) or the local DP size from the node's share of the world."""
    given = c["usage.given"] or ()
    rank_set, local_set = _DPR in given, _DPL in given
    headless, start = bool(c["usage.headless"]), int(c["usage.data_parallel_start_rank"] or 0)
    on = c["usage.given_on"] or ()  # the flags as given: this rule rewrites the config's (the autoswitch)
    hybrid = "parallel_config.data_parallel_hybrid_lb" in on
    external_flag = "parallel_config.data_parallel_external_lb" in on
    as_given = c["usage.given_values"] or {}  # the DP size and rank as given (ParallelConfig rewrites them later)
    dp, local, rank = as_given.get("parallel_config.data_parallel_size", 1), c[_DPL], as_given.get(_DPR, 0)
    nnodes, node_rank = c["parallel_config.nnodes"], c["parallel_config.node_rank"]
    said: list[tuple[str, str]] = []
    if headless and hybrid:
        return Violation("data_parallel_hybrid_lb is not applicable in headless mode", error="AssertionError")
    if hybrid and external_flag:
        return Violation("data_parallel_hybrid_lb and data_parallel_external_lb cannot both be True.",
                         error="AssertionError")
    if c["parallel_config.data_parallel_backend"] != "mp" and nnodes != 1:
        return Violation("nnodes > 1 is only supported with data_parallel_backend=mp", error="AssertionError")
    inferred = 0
    if nnodes > 1:
        within = c["parallel_config.pipeline_parallel_size"] * c["parallel_config.tensor_parallel_size"]
        world = dp * within
        local_world = world // nnodes
        if world % nnodes != 0:
            return Violation(f"world_size={world} must be divisible by nnodes={nnodes}.", error="AssertionError")
        if node_rank >= nnodes:
            return Violation(f"node_rank={node_rank} must be less than nnodes={nnodes}.", error="AssertionError")
        inferred = node_rank * local_world // within
        if dp > 1 and external_flag:
            rank, rank_set = inferred, True
            said.append(("info", f"Inferred data_parallel_rank {rank} from node_rank {node_rank} for external lb"))
        elif not local_set:
            local, local_set = max(local_world // within, 1), True
    external = external_flag or rank_set
    if external:
        if not rank_set:
            return Violation("data_parallel_rank or node_rank must be spefified if data_parallel_external_lb is "
                             "enable.", error="AssertionError", hint="give --data-parallel-rank or --node-rank")
        if local_set and local != 1:
            return Violation("data_parallel_size_local must be 1 or None when data_parallel_rank is set",
                             error="AssertionError")
        local, hybrid = 1, False
    elif local_set:
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
    else:
        if hybrid:
            return Violation("data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
                             error="AssertionError", hint="add --data-parallel-size-local")
        local = dp
    return ({_DPL: local, _DPR: rank, "parallel_config.data_parallel_hybrid_lb": hybrid,
             "parallel_config.data_parallel_external_lb": external}, said)


@rule(
    "engine-args.data-parallel-lb",
    title="Data-parallel load balancing: the local DP size, the rank, external or hybrid LB, multi-node inference",
    phase="engine_args",
    kind="default",
    reads=_DP_LB_READS,
    writes=(_DPL, _DPR, "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb"),
    source=f"{_ARGS}.create_engine_config; ref 12.2, v0.11.1",
    message="",  # what it infers or switches is said by each outcome (the two info / warning records)
    level="debug",
)
def data_parallel_lb(c: Mapping[str, Any]) -> RuleResult:
    """As at the seed, plus --data-parallel-external-lb (a rank is then required: given, or inferred from
    --node-rank) and --nnodes (each node's share of the world gives its DP rank or its local DP size)."""
    return dp_lb_outcome(c, _dp_lb(c)) if c[_EA] else None


def dp_lb_outcome(c: Mapping[str, Any], found: Violation | tuple[dict[str, Any], list[tuple[str, str]]]) -> RuleResult:
    """What ``engine-args.data-parallel-lb`` makes of a version's ``_dp_lb`` answer (0.34.0's too): the values that
    differ from the config's, with the records vLLM logs on the way; nothing for a refusal, which
    ``engine-args.data-parallel-lb-check`` raises after CacheConfig is built."""
    if isinstance(found, Violation):
        return None
    out, said = found
    changes = {k: v for k, v in out.items() if c[k] != v}
    if not said:
        return changes or None
    level = "warning" if any(lv == "warning" for lv, _ in said) else "info"
    return Outcome(changes, message="\n".join(text for _, text in said), level=level)


@rule(
    "engine-args.data-parallel-lb-check",
    title="create_engine_config's assertions on the data-parallel arguments",
    # after CacheConfig is built and logged; it reads the DP size and rank as given (usage.given_values), which
    # ParallelConfig's own rules rewrite (from VLLM_DP_*, RANK)
    phase="sub_configs",
    kind="check",
    reads=_DP_LB_CHECK_READS,
    source=f"{_ARGS}.create_engine_config; ref 12.2, v0.11.1",
    message="<create_engine_config's assertion>",
)
def data_parallel_lb_check(c: Mapping[str, Any]) -> RuleResult:
    """Hybrid LB needs a local DP size and excludes external LB; external LB needs a rank; multi-node needs mp,
    a world the nodes divide and a node rank below the node count."""
    if not c[_EA]:
        return None
    found = _dp_lb(c)
    return found if isinstance(found, Violation) else None


@rule(
    "parallel.nnodes-needs-mp",
    title="Multi-node (--nnodes > 1) needs the mp executor",
    phase="sub_configs",
    kind="check",
    reads=(_EXEC, _NNODES, "parallel_config.world_size"),
    feedback=("parallel.executor-backend-multi", "parallel.executor-backend-uni"),
    source=f"{_PAR}.__post_init__; ref 2.3, v0.11.1",
    message="nnodes > 1 can only be set when distributed exectuor backend is mp.",
)
def nnodes_needs_mp(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's own multi-node launcher is the multiprocessing executor. ParallelConfig checks it after defaulting an
    unset backend (uni for one worker; for several, mp or what the default rule picks, judged once it is in:
    feedback)."""
    backend = "uni" if c[_EXEC] is None and c["parallel_config.world_size"] <= 1 else c[_EXEC]
    if c[_NNODES] > 1 and backend is not None and backend != "mp":
        return Violation("nnodes > 1 can only be set when distributed exectuor backend is mp.")
    return None


@rule(
    "parallel.nnodes-disables-custom-all-reduce",
    title="Multi-node runs disable the custom all-reduce",
    phase="sub_configs",
    kind="override",
    reads=(_NNODES,),
    writes=("parallel_config.disable_custom_all_reduce",),
    after=("parallel.platform-disables-custom-all-reduce",),
    source=f"{_PAR}._verify_args; ref 2.3, v0.11.1",
    message="Disabled the custom all-reduce since we are running on multi-node.",
    level="debug",
)
def nnodes_disables_custom_all_reduce(c: Mapping[str, Any]) -> RuleResult:
    """The custom all-reduce kernel works within one node only."""
    return {"parallel_config.disable_custom_all_reduce": True} if c[_NNODES] > 1 else None


# =========================================================================== Compilation and pooler sub-configs


@rule(
    "compilation.fusion-without-noop",
    title="Fusion passes without no-op elimination may not work",
    phase="sub_configs",
    kind="check",
    reads=("compilation_config.pass_config.enable_noop", "compilation_config.pass_config.enable_fusion",
           "compilation_config.pass_config.enable_attn_fusion",
           "compilation_config.pass_config.enable_fi_allreduce_fusion"),
    source=f"{_CMP} PassConfig.__post_init__; ref 3.2, v0.11.1",
    message="Fusion enabled but reshape elimination disabled. ...",
    level="warning",
)
def fusion_without_noop(c: Mapping[str, Any]) -> RuleResult:
    """The fusion patterns expect the reshapes to be eliminated first (the flashinfer all-reduce fusion too, now)."""
    p = "compilation_config.pass_config."
    if c[p + "enable_noop"]:
        return None
    msgs = []
    if c[p + "enable_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. RMSNorm/SiluMul + quant (fp8) fusion might not work")
    if c[p + "enable_attn_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. Attention + quant (fp8) fusion might not work")
    if c[p + "enable_fi_allreduce_fusion"]:
        msgs.append("Fusion enabled but reshape elimination disabled. Allreduce + rms norm + quant (fp8) fusion "
                    "might not work")
    return Outcome(message="\n".join(msgs)) if msgs else None


_QK = "compilation_config.pass_config.enable_qk_norm_rope_fusion"


@rule(
    "compilation.qk-norm-rope-fusion-platform",
    title="Q/K norm + RoPE fusion only on CUDA and ROCm",
    phase="sub_configs",
    kind="override",
    reads=(_QK, "platform.is_cuda_alike"),
    writes=(_QK,),
    source=f"{_CMP} PassConfig.__post_init__; ref 3.2, v0.11.1",
    message="QK Norm + RoPE fusion enabled but the current platform is not CUDA or ROCm. The fusion will be disabled.",
    level="warning",
)
def qk_norm_rope_fusion_platform(c: Mapping[str, Any]) -> RuleResult:
    """The fused kernel exists for CUDA and ROCm only."""
    return {_QK: False} if c[_QK] and not c["platform.is_cuda_alike"] else None


@rule(
    "compilation.qk-norm-rope-rotary-op",
    title="Q/K norm + RoPE fusion enables the rotary_embedding custom op",
    phase="sub_configs",
    kind="derive",
    reads=(_QK, _OPS),
    writes=(_OPS,),
    source=f"{_CMP} CompilationConfig.__post_init__; ref 3.1, v0.11.1",
)
def qk_norm_rope_rotary_op(c: Mapping[str, Any]) -> RuleResult:
    """The fusion pattern matches the custom rotary op, not the native forward (vLLM issue 28042).

    CompilationConfig appends it before PassConfig's platform check can turn the fusion off.
    """
    if c[_QK] and "+rotary_embedding" not in c[_OPS]:
        return {_OPS: (*c[_OPS], "+rotary_embedding")}
    return None


_SAVE = "compilation_config.compile_cache_save_format"


@rule(
    "compilation.compile-cache-save-format-default",
    title="compile_cache_save_format defaults to VLLM_COMPILE_CACHE_SAVE_FORMAT",
    phase="sub_configs",
    kind="default",
    reads=(_SAVE, "env.VLLM_COMPILE_CACHE_SAVE_FORMAT"),
    writes=(_SAVE,),
    source=f"{_CMP} CompilationConfig.compile_cache_save_format (default_factory); ref 3.1, v0.11.1",
    level="debug",
)
def compile_cache_save_format_default(c: Mapping[str, Any]) -> RuleResult:
    """The field's default comes from the environment ("binary" unless the variable says "unpacked").

    postinit cannot tell an explicit "binary" from the default one: the variable wins over both.
    """
    env = c["env.VLLM_COMPILE_CACHE_SAVE_FORMAT"]
    return {_SAVE: env} if env is not None and c[_SAVE] == "binary" and env != "binary" else None


_PC = "model_config.pooler_config."


@rule(
    "model.pooler-use-activation",
    title="PoolerConfig.use_activation from the deprecated softmax / activation",
    phase="model_config",
    kind="derive",
    reads=("model_config.pooler_config", _PC + "softmax", _PC + "activation", _PC + "use_activation"),
    writes=(_PC + "use_activation", _PC + "softmax", _PC + "activation"),
    source="vllm/config/pooler.py PoolerConfig.__post_init__, get_use_activation; ref 2.1, v0.11.1",
    message="softmax will be deprecated, please use use_activation instead.",
    level="warning",
)
def pooler_use_activation(c: Mapping[str, Any]) -> RuleResult:
    """A set softmax or activation makes use_activation True, whatever its value.

    vLLM's ``if softmax := getattr(o, "softmax", None) is not None`` binds the
    comparison, not the value: ``softmax=False`` yields ``use_activation=True``.
    0.11.1 declares both deprecated fields ``float | None``: pydantic keeps a given ``False`` as ``0.0``
    (golden cases n154, n155).
    """
    if not c["model_config.pooler_config"]:
        return None
    floats = {_PC + name: float(c[_PC + name]) for name in ("softmax", "activation") if c[_PC + name] is not None}
    for name in ("softmax", "activation"):
        if c[_PC + name] is not None:
            return Outcome({_PC + "use_activation": True, **floats},
                           message=f"{name} will be deprecated, please use use_activation instead.")
    return None


# =========================================================================== model hooks (phase model)


jamba_cls_activation = pooler_default_rule(
    "models.jamba-cls-activation", "JambaForSequenceClassification", "use_activation", False,
    f"{_MODELS} JambaForSequenceClassificationConfig; ref 8.1:JambaForSequenceClassification, v0.11.1",
    "Jamba's classifier head returns raw scores (the field is use_activation now, not activation).")


def _attn_page_1_token(c: Mapping[str, Any]) -> int:
    """Bytes of one token of an attention layer on one rank: K and V, or one latent vector for MLA (MLAAttentionSpec)."""
    tp: int = c["parallel_config.tensor_parallel_size"]
    cache = c[_DTYPE]
    kv_bytes = dtype_bytes(c["model_config.dtype"] if cache == "auto" else cache)
    if c["model_config.use_mla"]:
        return head_size(c) * kv_bytes
    return 2 * max(1, total_num_kv_heads(c) // tp) * head_size(c) * kv_bytes


def _alignment(c: Mapping[str, Any]) -> int:
    """Kernel block alignment: MLA 128 (CUTLASS_MLA) / 64; 32 for head size 256 with FlashInfer on SM 10.0; else 16."""
    backend = c["env.VLLM_ATTENTION_BACKEND"]
    if c["model_config.use_mla"]:
        return 128 if backend == "CUTLASS_MLA" else 64
    if c["platform.capability"] == 100 and head_size(c) == 256 and backend in (None, "FLASHINFER"):
        return 32
    return 16


_HYBRID_READS = (*_HYBRID_ON, "platform.capability")


@rule(
    "models.hybrid-attention-block-size",
    title="Hybrid models: attention block size so that a page holds one mamba state",
    phase="model",
    kind="override",
    reads=(*_HYBRID_READS, _APC, "cache_config.mamba_block_size", _BS,
           "model_config.hf_text_config.mamba_chunk_size", "model_config.hf_text_config.chunk_size"),
    writes=(_BS, "cache_config.mamba_block_size"),
    after=("models.mamba-cascade-off",),
    source=f"{_MODELS} HybridAttentionMambaModelConfig, vllm/config/model.py get_mamba_chunk_size; ref 8.3, v0.11.1",
    message="Setting attention block size to {n} tokens to ensure that attention page size is >= mamba page size.",
    level="info",
)
def hybrid_attention_block_size(c: Mapping[str, Any]) -> RuleResult:
    """Attention and mamba layers share one page size, so an attention page must fit a mamba state.

    With prefix caching the block is a multiple of lcm(mamba chunk, alignment) and
    becomes the mamba block size; a model without a chunk size (Mamba v1 layers) now
    uses 2048 where the seed failed. MLA pages hold one latent vector per token, and
    head size 256 on Blackwell FlashInfer aligns to 32.
    """
    if not _hybrid_on(c):
        return None
    mamba = mamba_page_size(c)
    if mamba is None:
        return Outcome(message=f"postinit does not model the mamba state shapes of {c['model_config.architecture']}; "
                       "attention block size not adjusted", level="warning")
    if mamba == 0:
        return None
    attn_1, a, out = _attn_page_1_token(c), _alignment(c), {}
    if attn_1 == 0:  # a head size of 0 (more heads than hidden units): vLLM's cdiv divides by it
        return Violation("integer division or modulo by zero", error="ZeroDivisionError",
                         hint="the attention page of one token is 0 bytes: check hidden_size and num_attention_heads")
    if c[_APC]:
        ht = "model_config.hf_text_config."
        base = c["cache_config.mamba_block_size"] or c[ht + "mamba_chunk_size"] or c[ht + "chunk_size"] or 2048
        chunk = math.lcm(base, a)
        block = chunk * _cdiv(_cdiv(mamba, attn_1), chunk)
        if block != c["cache_config.mamba_block_size"]:
            out["cache_config.mamba_block_size"] = block
    else:
        block = a * _cdiv(mamba, a * attn_1)
    size = c[_BS]
    if size is None or size < block:
        out[_BS] = block
        return Outcome(out, message=f"Setting attention block size to {block} tokens to ensure that attention "
                       "page size is >= mamba page size.")
    return Outcome(out, message="") if out else None


@rule(
    "models.hybrid-mamba-page-padding",
    title="Hybrid models: pad the mamba page to the attention page",
    phase="model",
    kind="derive",
    reads=(*_HYBRID_READS, _BS, "cache_config.mamba_page_size_padded"),
    writes=("cache_config.mamba_page_size_padded",),
    source=f"{_MODELS} HybridAttentionMambaModelConfig; ref 8.3, v0.11.1",
    message="Padding mamba page size by {pct}% to ensure that mamba page size and attention page size are exactly equal.",
    level="info",
)
def hybrid_mamba_page_padding(c: Mapping[str, Any]) -> RuleResult:
    """The KV cache manager needs exactly equal page sizes; a larger attention page pads the mamba one (MLA pages as above)."""
    if not _hybrid_on(c):
        return None
    mamba = mamba_page_size(c)
    if not mamba or c[_BS] is None:
        return None
    page = c[_BS] * _attn_page_1_token(c)
    if page < mamba:
        return Violation("", hint=f"attention page {page} < mamba page {mamba}", error="AssertionError")
    if page == mamba or c["cache_config.mamba_page_size_padded"] == page:
        return None
    pct = 100 * (page - mamba) / mamba
    return Outcome({"cache_config.mamba_page_size_padded": page},
                   message=f"Padding mamba page size by {pct:.2f}% to ensure that mamba page size and attention "
                   "page size are exactly equal.")


# --------------------------------------------------------------------------- the model registry

_M = "model_config."


@rule(
    "model.class-interfaces",
    title="hybrid / attention-free / inner-state flags of the model class",
    phase="model_config",
    kind="derive",
    reads=(*_INFO_READS, _M + "hf_config.layer_types"),
    writes=(_M + "is_hybrid", _M + "is_attention_free", _M + "has_inner_state", _M + "supports_mamba_prefix_caching"),
    source="vllm/model_executor/models/registry.py _ModelInfo; ref 2.1.1, v0.11.1",
)
def class_interfaces(c: Mapping[str, Any]) -> RuleResult:
    """The model class's markers in the version's registry, as at the seed, except that a hybrid config whose ``layer_types`` are all attention (granite-4.0-micro) is not hybrid."""
    out = model_config.class_interfaces(c)
    layers = c[_M + "hf_config.layer_types"]
    if isinstance(out, Mapping) and layers is not None and all(layer == "attention" for layer in layers):
        return {**out, _M + "is_hybrid": False}
    return out


# =========================================================================== VllmConfig's field validation (phase model)

_SO = "structured_outputs_config."


@rule(
    "structured-outputs.revalidated",
    title="VllmConfig re-runs StructuredOutputsConfig's backend checks",
    phase="model",
    kind="check",
    reads=("usage.via_engine_args", _SO + "disable_any_whitespace", _SO + "disable_additional_properties",
           _SO + "backend"),
    source="vllm/config/structured_outputs.py StructuredOutputsConfig._validate_structured_output_config "
    "(model_validator, run again when VllmConfig validates its field); ref step-1, v0.11.1",
    message="disable_any_whitespace is only supported for xgrammar and guidance backends. | ...",
)
def structured_outputs_revalidated(c: Mapping[str, Any]) -> RuleResult:
    """The backend checks are a pydantic after-validator now, so VllmConfig runs them again on the config it is given.

    With flags the deprecated --guided-decoding-* values are assigned after argparse built the
    config, so this second run is where vLLM refuses them (the seed never checked them). A config
    built directly was refused when it was built (``structured-outputs.any-whitespace-backend``).
    """
    if not c["usage.via_engine_args"]:
        return None
    backend = c[_SO + "backend"]
    if c[_SO + "disable_any_whitespace"] and backend not in ("xgrammar", "guidance"):
        return Violation("disable_any_whitespace is only supported for xgrammar and guidance backends.")
    if c[_SO + "disable_additional_properties"] and backend != "guidance":
        return Violation("disable_additional_properties is only supported for the guidance backend.")
    return None


# =========================================================================== verify (phase verify)


@rule(
    "verify.dcp-kv-heads",
    title="Decode context parallel vs KV heads (GQA/MQA)",
    phase="verify",
    kind="check",
    reads=("model_config", "model_config.use_mla", "parallel_config.decode_context_parallel_size",
           "parallel_config.tensor_parallel_size", *KV_HEAD_READS),
    after=("verify.pipeline-parallel-supported",),
    source="vllm/config/model.py ModelConfig.verify_with_parallel_config; ref step-3, 9:dcp, v0.11.1",
)
def dcp_kv_heads(
    c: Mapping[str, Any], *, error: str = "AssertionError",
    too_few: str = ("tensor parallel size {tp} must be greater than total num kv heads {kv} when enable decode context "
                    "parallel for GQA/MQA"),
    too_many: str = ("decode context parallel size must less than or equal to (tensor parallel size {tp} // total num "
                     "kv heads {kv}) = {max_dcp}, but got {dcp}"),
    uneven: str = ("Total number of q per kv attn heads ({q_per_kv}) must be divisible by dcp world size when enable "
                   "decode context parallel for GQA ({dcp})."),
) -> RuleResult:
    """DCP shards the KV cache of replicated KV heads, so TP must exceed the KV heads by the DCP factor, and the query
    heads per KV head must split evenly (new in 0.11.1). ``error`` and the three texts are what vLLM raises."""
    dcp, tp = c["parallel_config.decode_context_parallel_size"], c["parallel_config.tensor_parallel_size"]
    if not c["model_config"] or dcp <= 1 or c["model_config.use_mla"]:
        return None
    if not kv_heads_known(c):
        return Violation("Couldn't determine number of kv heads", error="RuntimeError")
    kv = total_num_kv_heads(c)
    if tp <= kv:
        return Violation(too_few.format(tp=tp, kv=kv), error=error)
    if kv == 0:
        return Violation("integer division or modulo by zero", error="ZeroDivisionError",
                         hint="the model config has no attention/KV head count")
    if dcp > tp // kv:
        return Violation(too_many.format(tp=tp, kv=kv, max_dcp=tp // kv, dcp=dcp), error=error)
    q_per_kv = (c["model_config.hf_text_config.num_attention_heads"] or 0) // kv
    if q_per_kv % dcp != 0:
        return Violation(uneven.format(q_per_kv=q_per_kv, dcp=dcp), error=error)
    return None


_ASYNC = "scheduler_config.async_scheduling"
_ASYNC_READS = (_ASYNC, "parallel_config.pipeline_parallel_size", "speculative_config", "speculative_config.method",
                "speculative_config.disable_padded_drafter_batch", _EXEC)


@rule(
    "scheduler.async-scheduling-supported",
    title="Async scheduling: no pipeline parallelism, EAGLE/MTP speculation only, an mp/uni/external_launcher executor",
    phase="verify",
    kind="check",
    reads=_ASYNC_READS,
    after=("verify.quant-config",),
    source=f"{_VLLM}; ref step-6, v0.11.1",
    message="Async scheduling is not yet compatible with pipeline_parallel_size > 1. | ...",
)
def async_scheduling_supported(c: Mapping[str, Any]) -> RuleResult:
    """The async scheduler overlaps one step with the next; pipeline stages, non-EAGLE drafters, an unpadded drafter batch and other executors cannot.

    Checked by VllmConfig now (the seed checked in EngineArgs, so a config built
    directly was never checked). ``async_scheduling=None`` (decide automatically) is
    not modelled: the schema's flag is a bool, as EngineArgs passes it.
    """
    if not c[_ASYNC]:
        return None
    if c["parallel_config.pipeline_parallel_size"] > 1:
        return Violation("Async scheduling is not yet compatible with pipeline_parallel_size > 1.")
    if c["speculative_config"]:
        if c["speculative_config.method"] not in _EAGLE_TYPES:
            return Violation("Currently, async scheduling is only supported with EAGLE/MTP kind of speculative "
                             "decoding")
        if c["speculative_config.disable_padded_drafter_batch"]:
            return Violation("async scheduling for EAGLE/MTP kind of speculative decoding is enabled, but "
                             "disable_padded_drafter_batch=True disable_padded_drafter_batch=True is not supported "
                             "for this situation now. please set disable_padded_drafter_batch=Fasle")
    backend = c[_EXEC]
    if backend not in ("mp", "uni", "external_launcher"):
        return Violation("Currently, async scheduling only supports `mp`, `uni`, or `external_launcher` distributed "
                         f"executor backend, but you chose `{backend}`.")
    return None


_ASYNC_OFF_SPEC_PP = ("Async scheduling is not yet supported with speculative decoding  or pipeline_parallel_size > 1 "
                      "and will be disabled.")


@rule(
    "scheduler.async-scheduling-auto",
    title="async_scheduling left None (VllmConfig(...) only): on, unless PP, speculation or the executor rule it out",
    phase="verify",
    kind="default",
    reads=_ASYNC_READS,
    writes=(_ASYNC,),
    source=f"{_VLLM}.__post_init__ (async_scheduling is None); ref step-6, v0.11.1",
    message=f"{_ASYNC_OFF_SPEC_PP} | Async scheduling will be disabled because it is not supported with the "
    "`<backend>` distributed executor backend (only `mp`, `uni`, and `external_launcher` are supported).",
    level="warning",
)
def async_scheduling_auto(c: Mapping[str, Any]) -> RuleResult:
    """0.11.1's SchedulerConfig lets a directly built config leave the flag None (``_skip_none_validation``); VllmConfig
    then turns async scheduling on where nothing rules it out and off, with a warning, where something does
    (EngineArgs always passes a bool)."""
    if c[_ASYNC] is not None:
        return None
    if c["parallel_config.pipeline_parallel_size"] > 1 or c["speculative_config"]:
        return Outcome({_ASYNC: False}, message=_ASYNC_OFF_SPEC_PP)
    backend = c[_EXEC]
    if backend not in ("mp", "uni", "external_launcher"):
        return Outcome({_ASYNC: False}, message=f"Async scheduling will be disabled because it is not supported with "
                       f"the `{backend}` distributed executor backend (only `mp`, `uni`, and `external_launcher` are "
                       "supported).")
    return Outcome({_ASYNC: True}, message="")


# =========================================================================== core (steps 7-16)

_TURING = ("Turing devices tensor cores do not support float32 matmul. To workaround this limitation, vLLM will "
           "set 'ieee' input precision for chunked prefill triton kernels.")


@rule(
    "compilation.turing-fp32-warning",
    title="Turing GPUs run float32 chunked prefill with 'ieee' precision",
    phase="core",
    kind="check",
    reads=("model_config", _ECP, "model_config.dtype", "platform.capability"),
    feedback=("scheduler.cp-off-switch",),
    source=f"{_VLLM}; ref step-7, v0.11.1",
    message=_TURING,
    level="warning",
)
def turing_fp32_warning(c: Mapping[str, Any]) -> RuleResult:
    """Turing (SM 7.5) tensor cores have no float32 matmul, so the triton kernels fall back to 'ieee' (reads the one chunked-prefill flag)."""
    if c["model_config"] is not None and c[_ECP] and c["model_config.dtype"] == "float32" \
            and c["platform.capability"] == 75:
        return Outcome(message=_TURING)
    return None


_NOT_CAUSAL = "Only models using causal attention support chunked prefill and prefix caching; disabling both."
_POOL_READS = ("model_config", "model_config.pooler_config", "model_config.pooler_config.pooling_type")


def _not_causal(c: Mapping[str, Any]) -> bool:
    if c["model_config"] is None or c["model_config.pooler_config"] is None:
        return False
    causal = c["model_config.hf_config.is_causal"]
    return causal is not None and not causal


def _not_last_pooling(c: Mapping[str, Any]) -> bool:
    if c["model_config"] is None or c["model_config.pooler_config"] is None:
        return False
    kind = c["model_config.pooler_config.pooling_type"]
    return kind is None or kind.lower() != "last"


@rule(
    "scheduler.cp-off-switch",
    title="Chunked prefill and prefix caching off",
    phase="core",
    kind="override",
    reads=(*_POOL_READS, "model_config.hf_config.is_causal", "model_config.is_encoder_decoder", _ECP, _APC),
    writes=(_ECP, "scheduler_config.long_prefill_token_threshold", _APC),
    after=("compilation.turing-fp32-warning", "scheduler.pooling-type-blocks-cp", "scheduler.non-causal-blocks-cp",
           "scheduler.whisper-spawn-warning"),
    source=f"{_VLLM}; ref step-15, v0.11.1",
    ensures=lambda c: c[_ECP] is False and c[_APC] is False,
)
def cp_off_switch(c: Mapping[str, Any]) -> RuleResult:
    """Chunked prefill and prefix caching go off together for a collected blocker, an encoder-decoder model, or --no-enable-chunked-prefill without prefix caching.

    The switch writes ``enable_chunked_prefill`` itself now (the seed cleared a
    separate ``chunked_prefill_enabled`` and left the user's flag as it was). The
    token and encoder budgets are still not re-validated.
    """
    enc_dec = c["model_config"] is not None and c["model_config.is_encoder_decoder"]
    explicit_off = c[_ECP] is False and not c[_APC]
    if _not_last_pooling(c) or _not_causal(c) or enc_dec or explicit_off:
        return {_ECP: False, "scheduler_config.long_prefill_token_threshold": 0, _APC: False}
    return None


@rule(
    "quirk.budget-below-max-model-len",
    title="Token budget below max_model_len without chunked prefill",
    phase="core",
    kind="check",
    reads=(_ECP, _TOK, _LEN),
    source=f"{_VLLM}; ref 13.2:I5, v0.11.1",
    message="max_num_batched_tokens < max_model_len while chunked prefill is off",
    level="warning",
)
def quirk_budget_below_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """The budget was sized for chunked prefill and is not re-validated when the off-switch clears it."""
    tokens, length = c[_TOK], c[_LEN]
    if c[_ECP] is False and tokens is not None and length is not None and tokens < length:
        return Outcome(message=(
            f"max_num_batched_tokens ({tokens}) is smaller than max_model_len ({length}) while chunked "
            "prefill is off; SchedulerConfig would have rejected this, but vLLM does not re-validate it, "
            "so prompts longer than the budget cannot be scheduled."))
    return None


# =========================================================================== CPU platform (phase platform)


_CPU_BS_WARN = "CPU backend prefers block_size is multiples of 32, otherwise the performance is not optimized."


@rule(
    "cpu.block-size-multiple-of-32",
    title="CPU prefers block sizes that are multiples of 32",
    phase="platform",
    kind="check",
    reads=(_KIND, _BS),
    after=("cpu.block-size-default",),
    source=f"{_CPU}; ref step-17, 7.6#3, v0.11.1",
    message=_CPU_BS_WARN,
    level="warning",
)
def cpu_block_size_multiple_of_32(c: Mapping[str, Any]) -> RuleResult:
    """Any block size runs on CPU now; sizes that are no multiple of 32 run slower (the seed refused them without IPEX)."""
    return Outcome(message=_CPU_BS_WARN) if _cpu(c) and c[_BS] is not None and c[_BS] % 32 else None


@rule(
    "cpu.fp8-kv-incompatible",
    title="A quantized KV cache excludes chunked prefill and prefix caching on CPU",
    phase="platform",
    kind="check",
    reads=(_KIND, _ECP, _APC, _DTYPE),
    after=("cpu.block-size-multiple-of-32",),
    feedback=("cpu.kv-cache-quantization-fallback",),
    source=f"{_CPU}; ref step-17, 7.6#4, v0.11.1",
    message="Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.",
    level="error",
)
def cpu_fp8_kv_incompatible(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend's quantized KV cache supports neither chunked prefill nor prefix caching (checked on the one flag)."""
    if _cpu(c) and (c[_ECP] or c[_APC]) and c[_DTYPE] != "auto":
        return Violation("Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.",
                         hint="disable chunked prefill and prefix caching, or use --kv-cache-dtype auto",
                         error="RuntimeError")
    return None


@rule(
    "cpu.kv-cache-quantization-fallback",
    title="CPU falls back to an unquantized KV cache",
    phase="platform",
    kind="override",
    reads=(_KIND, _DTYPE),
    writes=(_DTYPE,),
    after=("cpu.fp8-kv-incompatible",),
    source=f"{_CPU}; ref step-17, 7.6#5, v0.11.1",
    message="CPU backend doesn't support KV cache quantization fallback to auto.",
    level="warning",
)
def cpu_kv_cache_quantization_fallback(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend has no quantized KV cache kernels at all now: any cache dtype becomes auto (the seed cast fp8_e4m3 to fp8_e5m2)."""
    return {_DTYPE: "auto"} if _cpu(c) and c[_DTYPE] != "auto" else None


@rule(
    "cpu.mla-disables-chunked-prefill",
    title="MLA on CPU disables chunked prefill",
    phase="platform",
    kind="override",
    reads=(_KIND, "model_config", "model_config.use_mla", "model_config.max_model_len"),
    writes=(_ECP, _TOK),
    source=f"{_CPU}; ref step-17, 7.6#16, v0.11.1",
    message="MLA is enabled on a non-GPU platform; forcing chunked prefill and prefix caching to be disabled.",
    level="info",
)
def cpu_mla_disables_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The CPU MLA path cannot chunk prefills, so the whole prompt must fit one batch (the model's max_model_len now).

    Despite the log, prefix caching stays as it was.
    """
    if not (_cpu(c) and c["model_config"] is not None and c["model_config.use_mla"]):
        return None
    return {_ECP: False, _TOK: max(c["model_config.max_model_len"] or 0, 2048)}


# =========================================================================== finalize (steps 18-24 and after)

_DCP = "parallel_config.decode_context_parallel_size"
_INTERLEAVE = "parallel_config.dcp_kv_cache_interleave_size"


@rule(
    "parallel.dcp-interleave-block-size",
    title="DCP: the KV block size is a multiple of dcp_kv_cache_interleave_size",
    phase="finalize",
    kind="check",
    reads=(_DCP, _INTERLEAVE, _BS),
    source=f"{_VLLM}; ref step-17, v0.11.1",
    message="Block_size(<b>) should be greater than or equal to and divisible by dcp_kv_cache_interleave_size (<i>).",
)
def dcp_interleave_block_size(c: Mapping[str, Any]) -> RuleResult:
    """Interleaved KV storage fills whole interleave units inside a block, so the block must hold a whole number of them."""
    size, step = c[_BS], c[_INTERLEAVE]
    if c[_DCP] > 1 and size is not None and not (step <= size and size % step == 0):
        return Violation(f"Block_size({size}) should be greater than or equal to and divisible by "
                         f"dcp_kv_cache_interleave_size ({step}).", error="AssertionError")
    return None


@rule(
    "parallel.dcp-interleave-speculative",
    title="A DCP interleave size above 1 excludes speculative decoding",
    phase="finalize",
    kind="check",
    reads=(_INTERLEAVE, "speculative_config"),
    source=f"{_VLLM}; ref step-17, v0.11.1",
    message="MTP with dcp_kv_cache_interleave_size > 1 is not supported now.",
)
def dcp_interleave_speculative(c: Mapping[str, Any]) -> RuleResult:
    """The MTP drafter assumes token-level KV interleaving."""
    if c[_INTERLEAVE] != 1 and c["speculative_config"]:
        return Violation("MTP with dcp_kv_cache_interleave_size > 1 is not supported now.", error="AssertionError")
    return None


ATTENTION_OPS_0_11_1: tuple[str, ...] = (
    "vllm::unified_attention",
    "vllm::unified_attention_with_output",
    "vllm::unified_mla_attention",
    "vllm::unified_mla_attention_with_output",
    "vllm::mamba_mixer2",
    "vllm::mamba_mixer",
    "vllm::short_conv",
    "vllm::linear_attention",
    "vllm::plamo2_mamba_mixer",
    "vllm::gdn_attention_core",
    "vllm::kda_attention",
    "vllm::sparse_attn_indexer",
)
"""``CompilationConfig._attention_ops`` of 0.11.1: ``gdn_attention`` became ``gdn_attention_core``; ``kda_attention`` is new."""

_SPLIT_SRC = "vllm/config/compilation.py CompilationConfig.set_splitting_ops_for_v1"


def _splitting(c: Mapping[str, Any]) -> bool:
    return bool(c[_MODE] == CompilationMode.VLLM_COMPILE)


@rule(
    "compilation.splitting-ops",
    title="Splitting ops for piecewise compilation",
    phase="finalize",
    kind="derive",
    reads=(_MODE, _PARTITION, _ATTN_FUSION, _SPLIT),
    writes=(_SPLIT,),
    source=f"{_SPLIT_SRC}; ref step-18, 5.5, v0.11.1",
)
def splitting_ops(c: Mapping[str, Any]) -> RuleResult:
    """Piecewise compilation splits the graph at the attention ops (0.11.1's list) unless the user chose the split; attention fusion empties only an unset list."""
    if not _splitting(c):
        return None
    ops = c[_SPLIT]
    if not c[_PARTITION] and c[_ATTN_FUSION]:
        return {_SPLIT: []} if ops is None else None
    if ops is None:
        return {_SPLIT: list(ATTENTION_OPS_0_11_1)}
    if len(ops) == 0 and not c[_PARTITION]:
        return Outcome(message="Using piecewise compilation with empty splitting_ops", level="warning")
    return None


_ATTN_FUSION_MSG = (
    "enable_attn_fusion is incompatible with piecewise cudagraph when use_inductor_graph_partition is off. In this "
    "case, splitting_ops will be set to empty list, and cudagraph_mode will be set to FULL. Please ensure you are "
    "using attention backends that support cudagraph or set cudagraph_mode to NONE explicitly if encountering any "
    "problems.")


@rule(
    "compilation.attn-fusion-forces-full",
    title="Attention fusion forces FULL CUDA graphs (when it empties the splitting ops)",
    phase="finalize",
    kind="override",
    reads=(_MODE, _PARTITION, _ATTN_FUSION, _SPLIT, _CG),
    writes=(_CG,),
    source=f"{_SPLIT_SRC}, set_splitting_ops_for_attn_fusion; ref step-18, 5.5, v0.11.1",
    message=_ATTN_FUSION_MSG,
    level="warning",
)
def attn_fusion_forces_full(c: Mapping[str, Any]) -> RuleResult:
    """Fused attention cannot be a split point, so piecewise graphs are impossible; FULL graphs remain.

    Only when the splitting ops were unset: a user list is kept (the seed emptied it) and the mode too.
    """
    mode = c[_CG]
    fusion = _splitting(c) and not c[_PARTITION] and c[_ATTN_FUSION] and c[_SPLIT] is None
    if fusion and mode is not None and mode.has_piecewise_cudagraphs():
        return {_CG: CUDAGraphMode.FULL}
    return None


_SP_RMS = "Sequence parallelism not supported withnative rms_norm when using {regime}, this will likely lead to an error."


@rule(
    "compilation.sp-needs-rms-norm",
    title="Sequence parallelism enables the rms_norm custom op under pipeline parallelism or piecewise splitting",
    phase="finalize",
    kind="derive",
    reads=(_SP, _PARTITION, _SPLIT, "parallel_config.pipeline_parallel_size", _OPS),
    writes=(_OPS,),
    source=f"{_VLLM}; ref step-18, v0.11.1",
    message=_SP_RMS.format(regime="<Dynamo partition|pipeline parallelism>"),
    level="warning",
)
def sp_needs_rms_norm(c: Mapping[str, Any]) -> RuleResult:
    """Native rms_norm traces with a wrong residual shape under pipeline parallelism or Dynamo partitioning, so the custom op is used (vLLM issue 27894).

    Decided after the splitting ops now (the seed appended '+rms_norm' right
    away): only with PP > 1 or a non-empty split, never over a user '-rms_norm'
    (a warning instead). With unset splitting ops (mode not VLLM_COMPILE) vLLM's
    ``len(splitting_ops)`` raises TypeError.
    """
    if not c[_SP]:
        return None
    ops = c[_SPLIT]
    if not c[_PARTITION] and ops is None:
        return Violation("object of type 'NoneType' has no len()", error="TypeError",
                         hint="sequence parallelism needs compilation mode 3 (VLLM_COMPILE) in vLLM 0.11.1")
    fullgraph = c[_PARTITION] or len(ops) == 0
    if c["parallel_config.pipeline_parallel_size"] <= 1 and fullgraph:
        return None
    if "-rms_norm" in c[_OPS]:
        regime = "Dynamo partition" if not fullgraph else "pipeline parallelism"
        return Outcome(message=_SP_RMS.format(regime=regime))
    return Outcome({_OPS: (*c[_OPS], "+rms_norm")}, message="")


STEPS_8_TO_11 = sequence(
    "compilation.steps-8-to-11", "compilation.default-mode", "compilation.default-custom-ops",
    "compilation.async-tp-implies-sp",
    title="Steps 8-10: the compilation mode and the default custom ops, async TP implies sequence parallelism "
    "(no range assertion; sequence parallelism's rms_norm moved after the splitting ops)",
    source=_VLLM,
)
FINALIZE = sequence(
    "vllm.finalize",
    dcp_interleave_block_size, dcp_interleave_speculative, attn_fusion_forces_full, splitting_ops,
    "compilation.empty-splitting-ops-mode", sp_needs_rms_norm, "cudagraph.final-check", "parallel.dbo",
    "scheduler.hma-off", "compilation.debug-dump-path", "compilation.debug-dump-path-env",
    "compilation.blocked-fp8-adds-quant-fp8",
    title="After the platform hook, in vLLM 0.11.1's order: the DCP checks, the splitting ops, the "
    "sequence-parallel rms_norm, the final CUDA-graph check, DBO, HMA, dump path, FP8",
    source=_VLLM,
)

_KVT = "kv_transfer_config"


@rule(
    "kv-transfer.offloading",
    title="KV offloading configures a KV connector",
    phase="validate",
    kind="derive",
    reads=("cache_config.kv_offloading_backend", "cache_config.kv_offloading_size", _KVT,
           f"{_KVT}.kv_connector_extra_config", "parallel_config.tensor_parallel_size",
           "parallel_config.pipeline_parallel_size"),
    writes=(_KVT, f"{_KVT}.kv_connector", f"{_KVT}.kv_connector_extra_config", f"{_KVT}.kv_role"),
    source="vllm/config/vllm.py VllmConfig._post_init_kv_transfer_config; ref step-24, v0.11.1",
)
def kv_offloading(c: Mapping[str, Any]) -> RuleResult:
    """--kv-offloading-backend turns into a KV connector (native: OffloadingConnector; lmcache: LMCacheConnectorV1) with the buffer split over the TP x PP ranks.

    It is the last statement of ``__post_init__``, after the hybrid KV cache manager
    was decided on the config without a connector (hence phase ``validate``): the
    connector it creates does not turn the manager off, as it would had the user
    passed --kv-transfer-config.
    """
    backend = c["cache_config.kv_offloading_backend"]
    if backend is None:
        return None
    size = c["cache_config.kv_offloading_size"]
    if size is None:
        return Violation("You must set kv_offloading_size when kv_offloading_backend is set.")
    ranks = c["parallel_config.tensor_parallel_size"] * c["parallel_config.pipeline_parallel_size"]
    out: dict[str, Any] = {_KVT: True, f"{_KVT}.kv_role": "kv_both"}
    if backend == "native":
        extra = dict(c[f"{_KVT}.kv_connector_extra_config"] or {}) if c[_KVT] else {}
        extra.update({"kv_bytes_per_rank": size * (1 << 30) / ranks, "num_cpu_blocks": 0})
        out.update({f"{_KVT}.kv_connector": "OffloadingConnector", f"{_KVT}.kv_connector_extra_config": extra})
    else:
        out.update({f"{_KVT}.kv_connector": "LMCacheConnectorV1",
                    f"{_KVT}.kv_connector_extra_config": {"lmcache.local_cpu": True,
                                                          "lmcache.max_local_cpu_size": size / ranks}})
    return out


# =========================================================================== the hash


_PASS_FIELDS = ("enable_fusion", "enable_attn_fusion", "enable_noop", "enable_sequence_parallelism",
                "enable_async_tp", "enable_fi_allreduce_fusion", "fi_allreduce_fusion_max_size_mb",
                "enable_qk_norm_rope_fusion")
"""0.11.1's PassConfig fields: ``uuid()`` hashes all of them (fi_allreduce_fusion_max_token_num is gone)."""
_MODEL_FACTORS = tuple(n for n in hashing._MODEL_FACTORS if n not in ("rope_scaling", "rope_theta"))
"""0.11.1's ModelConfig factors: the seed's without rope_scaling / rope_theta (removed fields)."""


def model_hash(state: Mapping[str, Any]) -> str:
    """``ModelConfig.compute_hash`` of 0.11.1 (the seed's, without the rope factors; see ``hashing.model_hash``)."""
    factors: list[Any] = [hashing._py(state[f"model_config.{n}"]) for n in _MODEL_FACTORS]
    exact = hashing.hf_config_json(state)
    if exact is not None:
        factors[1] = hashing._Repr(hashing._torch_dtype(str(factors[1])))
        factors.append(exact)
        return hashing._sha256(factors)
    hf = {key: hashing._py(v) for path, key in hashing._hf_paths() if (v := state.get(path)) is not None}
    factors.append(json.dumps(hf, sort_keys=True, default=str))
    return hashing._sha256(factors)


def compilation_hash(state: Mapping[str, Any]) -> str:
    """``CompilationConfig.compute_hash`` of 0.11.1: the mode is an IntEnum (hashed by its repr), the 0.11.1 PassConfig, and compile_cache_save_format last.

    A mode that came from the deprecated ``level`` is the plain int vLLM assigned without validation; a mode given
    beside a level is validated (its repr is the enum's). A mode equal to the level is taken as the level's
    (the final state cannot tell one given as well from the level's copy).
    """
    c = "compilation_config."
    mode = state[c + "mode"]
    level = state[c + "level"]
    if mode is None or (level is not None and int(mode) == int(level)):
        first: Any = None if mode is None else int(mode)  # the deprecated level is assigned unvalidated: an int
    else:
        first = hashing._Repr(repr(CompilationMode(mode)))
    factors: list[Any] = [first]
    factors += [hashing._py(state[c + n]) for n in ("backend", "custom_ops", "splitting_ops", "use_inductor",
                                                     "use_inductor_graph_partition", "inductor_compile_config",
                                                     "inductor_passes")]
    passes = {n: state[f"{c}pass_config.{n}"] for n in _PASS_FIELDS}
    factors.append(hashlib.sha256(json.dumps(passes, sort_keys=True).encode("utf-8")).hexdigest())
    factors.append(state[c + "compile_cache_save_format"])
    return hashing._sha256(factors)


def sub_hashes(state: Mapping[str, Any]) -> dict[str, str | None]:
    """Each sub-config's ``compute_hash()`` in 0.11.1 (None when absent), keyed like the oracle's ``sub_hashes``."""
    out = hashing.sub_hashes(state)
    out["model_config"] = model_hash(state) if state.get("model_config") else None
    out["compilation_config"] = compilation_hash(state)
    out["observability_config"] = hashing._CONSTANT  # always present now
    return out


def compute_hash(state: Mapping[str, Any]) -> str:
    """``VllmConfig.compute_hash()`` of 0.11.1: ``md5(str([factors]))[:10]`` without the seed's ``VLLM_USE_V1`` factor, with ObservabilityConfig always hashed and an ``ec_transfer_config`` factor (always "None" here) after the KV-transfer one."""
    subs = sub_hashes(state)
    factors: list[Any] = [state["version.vllm_version"]]
    for sub in ("model_config", "cache_config", "parallel_config", "scheduler_config", "device_config",
                "load_config"):
        factors.append(subs[sub] or "None")
    if subs["lora_config"] is not None:
        factors += [subs["lora_config"], str(state["scheduler_config.max_num_batched_tokens"])]
    else:
        factors.append("None")
    for sub in ("speculative_config", "structured_outputs_config", "observability_config", "compilation_config",
                "kv_transfer_config"):
        factors.append(subs[sub] or "None")
    factors.append("None")  # ec_transfer_config: not modelled, never set
    extra = hashing._py(state["additional_config"])
    factors.append(hashlib.md5(json.dumps(extra, sort_keys=True).encode(), usedforsecurity=False).hexdigest()
                   if extra else "None")
    return hashing._md5([factors])[:10]


# =========================================================================== the delta

DROPS: dict[str, str] = {
    "model.batch-invariant-eager": "ModelConfig.__post_init__ no longer forces enforce_eager under "
    "VLLM_BATCH_INVARIANT (vllm/config/model.py)",
    "model.v0-interleaved-disables-sliding-window": "the V0 engine and its XFORMERS/FLASHINFER interleaved-attention "
    "check are gone (vllm/config/model.py)",
    "engine-args.v1-oracle-fallback": "no V0 to fall back to: unsupported features raise instead "
    "(engine-args.unsupported-feature; vllm/engine/arg_utils.py _check_feature_supported)",
    "engine-args.v1-oracle-required": "VLLM_USE_V1 no longer exists (engine-args.unsupported-feature)",
    "quirk.chunked-prefill-flag-ignored": "EngineArgs keeps the user's --no-enable-chunked-prefill "
    "(engine-args.chunked-prefill-default; vllm/engine/arg_utils.py _set_default_args)",
    "engine-args.chunked-prefill-forced": "EngineArgs only fills an unset flag (engine-args.chunked-prefill-default)",
    "engine-args.pooling-chunked-prefill-default": "one default for every runner (engine-args.chunked-prefill-default, "
    "get_chunked_prefill_prefix_caching_defaults)",
    "engine-args.pooling-prefix-caching-default": "one default for every runner (engine-args.prefix-caching-default)",
    "engine-args.budget-without-chunked-prefill": "folded into the batch defaults: without chunked prefill the budget "
    "is max(max_model_len, default), capped at max_num_seqs x max_model_len (vllm/engine/arg_utils.py "
    "_set_default_args)",
    "engine-args.async-scheduling-pipeline-parallel": "checked by VllmConfig now "
    "(scheduler.async-scheduling-supported; vllm/config/vllm.py VllmConfig.__post_init__)",
    "engine-args.async-scheduling-speculative": "checked by VllmConfig now, and EAGLE/MTP speculation is allowed "
    "(scheduler.async-scheduling-supported)",
    "engine-args.async-scheduling-executor": "checked by VllmConfig now (scheduler.async-scheduling-supported)",
    "engine-args.speculative-engine-flags": "SpeculativeConfig lost enable_chunked_prefill and disable_log_stats "
    "(vllm/config/speculative.py; vllm/engine/arg_utils.py create_speculative_config)",
    "scheduler.scheduler-cls-default": "scheduler_cls defaults to None; the class is chosen at engine start "
    "(vllm/config/scheduler.py SchedulerConfig.get_scheduler_cls)",
    "scheduler.async-scheduler-cls": "SchedulerConfig no longer writes the AsyncScheduler path into scheduler_cls "
    "(get_scheduler_cls picks it at engine start)",
    "compilation.use-cudagraph-deprecated": "CompilationConfig.use_cudagraph was removed (vllm/config/compilation.py)",
    "compilation.use-cudagraph-false": "CompilationConfig.use_cudagraph was removed",
    "compilation.full-cuda-graph-deprecated": "CompilationConfig.full_cuda_graph was removed",
    "compilation.full-cuda-graph": "CompilationConfig.full_cuda_graph was removed",
    "quirk.full-cuda-graph-collapses-mode": "CompilationConfig.full_cuda_graph was removed",
    "compilation.migrate-deprecated-flags": "VllmConfig no longer mirrors cudagraph_mode into use_cudagraph / "
    "full_cuda_graph (vllm/config/vllm.py)",
    "quirk.cudagraph-flags-not-migrated": "the deprecated flags are gone",
    "quirk.full-cuda-graph-not-idempotent": "the deprecated flags are gone",
    "compilation.mode-range": "the assertion is gone: CompilationMode is an IntEnum that pydantic validates when "
    "CompilationConfig is built (vllm/config/compilation.py)",
    "cudagraph.blackwell-long-context-forces-piecewise": "the SM 10.0 / max_model_len > 131072 downgrade to PIECEWISE "
    "was removed (vllm/config/vllm.py)",
    "quirk.chunked-prefill-enabled-none": "chunked_prefill_enabled is an alias of enable_chunked_prefill, which "
    "defaults to True",
    "quirk.chunked-prefill-flags-disagree": "one chunked-prefill flag: the two can no longer disagree",
    "speculative.eagle-v0-chunked-prefill": "there is no V0 engine any more (vllm/config/speculative.py)",
    "scheduler.async-scheduling-bool": "SchedulerConfig lets async_scheduling be None (its _skip_none_validation; "
    "VllmConfig decides, scheduler.async-scheduling-auto)",
    "quirk.rms-norm-both-signs": "'+rms_norm' is not appended over a user '-rms_norm' any more "
    "(compilation.sp-needs-rms-norm warns instead)",
    "verify.lora-cpu-offload-v0": "VllmConfig no longer calls LoRAConfig.verify_with_cache_config (vllm/config/lora.py)",
    "cpu.block-size-requires-ipex": "any CPU block size is accepted (cpu.block-size-multiple-of-32 warns; "
    "vllm/platforms/cpu.py)",
    "cpu.fp8-e4m3-to-e5m2": "every quantized KV cache falls back to auto on CPU (cpu.kv-cache-quantization-fallback)",
    "cpu.fp8-kv-fp16-to-bf16": "the CPU hook no longer changes the model dtype for an fp8 KV cache",
}

_ATTENTION_BACKENDS_0111 = (
    "FLASH_ATTN", "TRITON_ATTN", "XFORMERS", "ROCM_ATTN", "ROCM_AITER_MLA", "ROCM_AITER_FA", "TORCH_SDPA", "FLASHINFER",
    "FLASHINFER_MLA", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA", "FLASHMLA_SPARSE", "FLASH_ATTN_MLA", "PALLAS", "IPEX",
    "NO_ATTENTION", "FLEX_ATTENTION", "TREE_ATTN", "ROCM_AITER_UNIFIED_ATTN", "CPU_ATTN")
"""0.11.1's attention backend enum members in declaration order (its refusal lists them so)."""

@rule(
    "speculative.suffix-arctic-inference",
    title="Suffix decoding needs the arctic-inference package",
    phase="sub_configs",
    kind="check",
    reads=("speculative_config", "speculative_config.method"),
    after=("speculative.draft-model-from-method",),
    source="vllm/config/speculative.py SpeculativeConfig._validate_suffix_decoding; ref 2.8, v0.11.1",
    message="Arctic Inference is required for suffix decoding. Install via `pip install arctic-inference==0.1.1`.",
)
def suffix_needs_arctic_inference(c: Mapping[str, Any]) -> RuleResult:
    """Suffix decoding's tree lives in Arctic Inference, an optional package vLLM 0.11.1 checks for first; postinit
    takes it as not installed (no oracle venv has it), as it takes any optional package vLLM imports."""
    if c["speculative_config"] and c["speculative_config.method"] == "suffix":
        return Violation("Arctic Inference is required for suffix decoding. Install via "
                         "`pip install arctic-inference==0.1.1`.", error="ImportError",
                         hint="pip install arctic-inference==0.1.1, or another speculative method")
    return None


DELTA = Delta(
    facts={
        # the seed's with SupportsMambaPrefixCaching on the Mamba v1 mixer models (Mamba, FalconMamba, Jamba) and
        # seven new architectures (Afmoe, Kimi-Linear, Ouro, two Pangu models, PaddleOCR-VL, the OpenPangu MTP head)
        "model_registry": "model-registry-0.11.1.json",
        # the schema's speculative methods 0.11.1's SpeculativeConfig refuses (its rules name them in vLLM's words)
        "refused_values": {"speculative_config.method": [
            m for m in get_args(SpeculativeMethod) if m not in SPECULATIVE_METHODS_0111]},
        "capture_sizes_clip": True,  # VllmConfig._set_cudagraph_sizes drops user sizes above the token budget
        "compilation_mode_enum": True,  # CompilationConfig.mode: CompilationMode (an IntEnum), no longer a plain int
    },
    patch=(
        patch("model.model-type-known", known=config_model_types("config-model-types-0.11.1.json"),
              why="0.11.1's own config classes (vllm/transformers_utils/config.py _CONFIG_REGISTRY) differ from the "
              "seed's; transformers is 4.57.1 as there"),
        patch("cache.fast-prefill-eagle", error="ValueError", source=f"{_VLLM}; ref step-13, v0.11.1"),
        patch("engine-args.speculative-method-literal", methods=SPECULATIVE_METHODS_0111,
              source="vllm/engine/arg_utils.py EngineArgs.create_speculative_config (SpeculativeConfig(...): pydantic "
              "checks the method against the version's Literal); ref 2.8, v0.11.1",
              why="0.11.1's Literal adds suffix, glm4_moe_mtp and pangu_ultra_moe_mtp, in another order"),
        patch("speculative.method-literal", methods=SPECULATIVE_METHODS_0111,
              source="vllm/config/speculative.py SpeculativeConfig (method: SpeculativeMethod | None); ref 2.8, v0.11.1",
              why="0.11.1's Literal adds suffix, glm4_moe_mtp and pangu_ultra_moe_mtp, in another order"),
        patch("cpu.env-shared-experts-stream", value="1", source=f"{_CPU}; ref step-17, 7.6#15, v0.11.1",
              why="0.11.1 disables the stream with '1' (the seed wrote '0')"),
        patch("cpu.env-thread-counts", nobind=True, source=f"{_CPU} (vllm/platforms/cpu.py:277-283); ref step-17, "
              "7.6#15, v0.11.1", why="VLLM_CPU_OMP_THREADS_BIND=nobind leaves OMP_NUM_THREADS to the user (logged)"),
        patch("models.gptoss-max-capture-size", size=1024, title="GptOssForCausalLM: max cudagraph capture size 1024",
              message="Overriding max cuda graph capture size to 1024 for performance.",
              source=f"{_MODELS} GptOssForCausalLMConfig; ref 8.1:GptOssForCausalLM, v0.11.1",
              why="83 graphs up to 1024 (the seed's 992 was an FA3 limit)"),
        patch("models.mamba-prefix-caching", layers="Mamba", source=f"{_MODELS} MambaModelConfig; ref 8.2, v0.11.1",
              why="Mamba v1 and Jamba support it now, and the warning says Mamba"),
        patch("cpu.block-size-default", without_ipex=128, title="CPU default KV cache block size 128",
              source=f"{_CPU}; ref step-17, 7.6#2, v0.11.1", why="128-token blocks whether or not IPEX is installed"),
        patch("scheduler.non-causal-blocks-cp", message=_NOT_CAUSAL, source=f"{_VLLM}; ref step-14, v0.11.1",
              why="vLLM fixed its log's grammar (support, not supports)"),
        patch("model.multimodal-config-validators", backends=_ATTENTION_BACKENDS_0111,
              refusal="Unknown attention backend: '{name}'. Valid options are: {ordered}, TORCH_SDPA",
              source="vllm/config/multimodal.py MultiModalConfig._validate_mm_encoder_attn_backend "
              "(vllm/attention/backends/registry.py AttentionBackendEnum[...]), _validate_multimodal_config; "
              "ref 2.1.1, v0.11.1",
              why="0.11.1 names the unknown backend and lists the enum in its own order (with CPU_ATTN), ending in "
              "TORCH_SDPA once more"),
        patch("model.sleep-mode-platform", platforms=("cuda", "rocm"), title="Sleep mode needs CUDA or ROCm",
              source="vllm/config/model.py ModelConfig.__post_init__, vllm/platforms/interface.py "
              "Platform.is_sleep_mode_available; ref 2.1, v0.11.1",
              why="is_sleep_mode_available is True on ROCm too (every ROCm GPU, for want of a stateless MI300 probe)"),
    ),
    add=(
        scheduler_field_bounds, unsupported_feature, chunked_prefill_default, pooling_chunked_prefill_warning,
        pooling_prefix_caching_warning, lora_speculative_budget, scheduler_chunked_prefill_default, nnodes_needs_mp,
        nnodes_disables_custom_all_reduce, qk_norm_rope_fusion_platform, qk_norm_rope_rotary_op,
        compile_cache_save_format_default, pooler_use_activation, structured_outputs_revalidated,
        async_scheduling_supported, async_scheduling_auto,
        cpu_block_size_multiple_of_32, cpu_kv_cache_quantization_fallback, dcp_interleave_block_size,
        dcp_interleave_speculative, kv_offloading, suffix_needs_arctic_inference,
    ),
    replace=(
        data_parallel_lb, data_parallel_lb_check, prefix_caching_default, batch_defaults_large_gpu, batch_defaults_other_device, batch_defaults_cpu,
        observability_config, max_num_batched_tokens_default, encoder_decoder_no_chunked_prefill,
        chunked_prefill_enabled, budget_below_max_model_len, partial_prefill_limits, eplb_requirements,
        executor_backend_multi, fusion_without_noop, jamba_cls_activation, hybrid_attention_block_size,
        hybrid_mamba_page_padding, class_interfaces, dcp_kv_heads, turing_fp32_warning, cp_off_switch,
        quirk_budget_below_max_model_len, cpu_fp8_kv_incompatible, cpu_mla_disables_chunked_prefill,
        splitting_ops, attn_fusion_forces_full, sp_needs_rms_norm,
        override_pooler_rule((*SEED_POOLER_FIELDS, "use_activation")),
    ),
    drop=DROPS,
    groups=(CHUNKED_PREFILL, PREFIX_CACHING, CREATE_ENGINE_CONFIG, STEPS_8_TO_11, FINALIZE),
    drop_groups={
        "engine-args.non-pooling-defaults": "one default for every runner now (engine-args.chunked-prefill, "
        "engine-args.prefix-caching; vllm/engine/arg_utils.py get_chunked_prefill_prefix_caching_defaults)",
        "engine-args.pooling-defaults": "one default for every runner now (engine-args.chunked-prefill, "
        "engine-args.prefix-caching)",
    },
    after={
        "scheduler.non-causal-blocks-cp": ("scheduler.pooling-type-blocks-cp",),
        "cpu.block-size-default": ("rocm.block-size-default",),
        # ModelConfig.__post_init__: max_model_len is verified after the architecture, the runner and the
        # dtype, and the quantization after it (the seed's order followed from the V0 sliding-window rule)
        "model.max-model-len": ("model.architecture", "model.runner-supported", "model.dtype-float16-unsupported",
                                "model.pooler-use-activation", "model.use-mla", "model.uses-mrope"),
        "model.quantization": ("model.max-model-len-log",),
        "model.pooler-use-activation": ("model.override-pooler-config",),  # on the override's PoolerConfig
        # SpeculativeConfig.__post_init__ checks for Arctic Inference before its _verify_args model validator runs
        "speculative.num-tokens-required": ("speculative.suffix-arctic-inference",),
        # sub-configs are built in EngineArgs' order: the SchedulerConfig (which logs the budget) before
        # LoRA, compilation and KV transfer
        "compilation.custom-op-syntax": ("scheduler.chunked-prefill-enabled",),
        "compilation.custom-ops-all-none-count": ("scheduler.chunked-prefill-enabled",),
        "compilation.piecewise-backend": ("scheduler.chunked-prefill-enabled",),
        "kv-transfer.role-required": ("scheduler.chunked-prefill-enabled",),
        "lora.max-cpu-loras-check": ("scheduler.chunked-prefill-enabled",),
    },
    fields_added=(
        "cache_config.kv_offloading_size", "cache_config.kv_offloading_backend",
        "parallel_config.dcp_kv_cache_interleave_size", "parallel_config.master_addr", "parallel_config.master_port",
        "parallel_config.node_rank", "parallel_config.nnodes", "scheduler_config.stream_interval",
        "speculative_config.suffix_decoding_max_tree_depth", "speculative_config.suffix_decoding_max_cached_requests",
        "speculative_config.suffix_decoding_max_spec_factor", "speculative_config.suffix_decoding_min_token_prob",
        "structured_outputs_config.reasoning_parser_plugin", "compilation_config.compile_cache_save_format",
        "compilation_config.compile_mm_encoder", "compilation_config.pass_config.fi_allreduce_fusion_max_size_mb",
        "compilation_config.pass_config.enable_qk_norm_rope_fusion", "model_config.pooler_config.use_activation",
        "model_config.override_pooler_config.use_activation",
    ),
    fields_removed=(
        "model_config.rope_scaling", "model_config.rope_theta", "scheduler_config.chunked_prefill_enabled",
        "speculative_config.disable_logprobs", "speculative_config.enable_chunked_prefill",
        "speculative_config.disable_log_stats", "compilation_config.pass_config.fi_allreduce_fusion_max_token_num",
        "compilation_config.use_cudagraph", "compilation_config.full_cuda_graph",
    ),
    flags_added=(
        "reasoning_parser_plugin", "master_addr", "master_port", "nnodes", "node_rank",
        "dcp_kv_cache_interleave_size", "data_parallel_external_lb", "kv_offloading_size", "kv_offloading_backend",
        "stream_interval", "ec_transfer_config",
    ),
    flags_removed=("rope_scaling", "rope_theta"),
    hash=compute_hash,
    sub_hashes=sub_hashes,
    notes=(
        "VLLM_USE_V1 is gone: 0.11.1's envs.py does not define it, so env.VLLM_USE_V1 keeps its default (true) and "
        "every V1-gated rule of the seed takes the branch 0.11.1 runs unconditionally.",
        "SchedulerConfig.max_model_len is an InitVar: the input still bounds the budget checks but is not stored "
        "(recalculate_max_model_len no longer writes it).",
        "Not modelled: the seven architectures 0.11.1 adds are accepted but otherwise treated as unregistered; "
        "async_scheduling=None (automatic); ec_transfer_config; --tokens-only. Suffix decoding is refused as vLLM "
        "0.11.1 refuses it without the arctic-inference package (postinit takes it as not installed).",
    ),
)
