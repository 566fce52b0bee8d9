"""SchedulerConfig: its own ``__post_init__`` and ``verify_max_model_len`` (phase
``sub_configs``), steps 14-15 of ``VllmConfig.__post_init__`` (the chunked-prefill blockers,
the encoder budget and the off-switch, phase ``core``) with the quirks they leave (I5, I7,
I8), and step 22 (the hybrid KV cache manager switches, phase ``finalize``).
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
from postinit.rules.cache import fast_prefill_eagle, fast_prefill_warning
from postinit.rules.compilation import turing_fp32_warning
from postinit.rules.kv_events import events_without_prefix_caching, publisher_without_events

_V1 = "env.VLLM_USE_V1"
_HMA = "scheduler_config.disable_hybrid_kv_cache_manager"
_KV_CONNECTOR_WARNING = (
    "Turning off hybrid kv cache manager because `--kv-transfer-config` is set. This will reduce "
    "the performance of vLLM on LLMs with sliding window attention or Mamba attention. If you are "
    "a developer of kv connector, please consider supporting hybrid kv cache manager for your "
    "connector by making sure your connector is a subclass of `SupportsHMA` defined in "
    "kv_connector/v1/base.py."
)
_CHUNKED_LOCAL_WARNING = (
    "There is a latency regression when using chunked local attention with the hybrid KV cache "
    "manager. Disabling it, by default. To enable it, set the environment "
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1."
)

_SCH = "vllm/config/scheduler.py SchedulerConfig"

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


def _from_model(rule_id: str, field: str, what: str) -> Rule:
    """A rule copying ``model_config.<field>`` into ``scheduler_config.<field>`` (EngineArgs passes it)."""

    def copy(c: Mapping[str, Any]) -> RuleResult:
        if c["model_config"] and c[f"model_config.{field}"] is not None:
            return {f"{_S}{field}": c[f"model_config.{field}"]}
        return None

    copy.__doc__ = f"EngineArgs passes the model's {what} (the oracle's config mode too)."
    return make_rule(copy, rule_id, title=f"The scheduler's {field} is the model's", phase="sub_configs",
                     kind="derive", reads=("model_config", f"model_config.{field}"), writes=(f"{_S}{field}",),
                     source="vllm/engine/arg_utils.py EngineArgs.create_engine_config; ref 2.4", level="debug")


runner_type_from_model = _from_model("scheduler.runner-type-from-model", "runner_type", "runner type")
is_multimodal_from_model = _from_model("scheduler.is-multimodal-from-model", "is_multimodal_model",
                                       "whether the model is multimodal")
is_encoder_decoder_from_model = _from_model("scheduler.is-encoder-decoder-from-model", "is_encoder_decoder",
                                            "whether the model is encoder-decoder")


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
    "scheduler.async-scheduling-bool",
    title="async_scheduling must be a bool (a config built directly may not leave it None)",
    phase="sub_configs",
    kind="check",
    reads=("scheduler_config.async_scheduling",),
    source=f"{_SCH} (async_scheduling: bool = False, checked by pydantic); ref 2.4",
    message="1 validation error for SchedulerConfig\nasync_scheduling\n  Input should be a valid boolean ...",
)
def async_scheduling_bool(c: Mapping[str, Any]) -> RuleResult:
    """The seed's SchedulerConfig types the flag ``bool``; a None given to ``VllmConfig(...)`` is refused where the
    SchedulerConfig is built (EngineArgs always passes a bool)."""
    if c["scheduler_config.async_scheduling"] is None:
        return Violation("1 validation error for SchedulerConfig\nasync_scheduling\n  Input should be a valid boolean "
                         "[type=bool_type, input_value=None, input_type=NoneType]\n    For further information visit "
                         "https://errors.pydantic.dev/2.12/v/bool_type", error="ValidationError")
    return None


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



_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"
_CP = "scheduler_config.chunked_prefill_enabled"
_APC = "cache_config.enable_prefix_caching"
_EAGLE_METHODS = ("eagle", "eagle3", "mtp")
_NOT_LAST = 'Only "last" pooling supports chunked prefill and prefix caching; disabling both.'
_NOT_CAUSAL = "Only models using causal attention supports chunked prefill and prefix caching; disabling both."
_WHISPER = (
    "Whisper is known to have issues with forked workers. If startup is hanging, "
    "try setting 'VLLM_WORKER_MULTIPROC_METHOD' to 'spawn'."
)



# ---- step 14: chunked-prefill blockers and the encoder budget ------------------------------


def _not_last_pooling(c: Mapping[str, Any]) -> bool:
    if c["model_config"] is None or c["model_config.pooler_config"] is None:
        return False
    kind = c["model_config.pooler_config.pooling_type"]
    return kind is None or kind.lower() != "last"


def _not_causal(c: Mapping[str, Any]) -> bool:
    if c["model_config"] is None or c["model_config.pooler_config"] is None:
        return False
    causal = c["model_config.hf_config.is_causal"]
    return causal is not None and not causal  # absent from config.json: getattr default True


def _encoder_decoder_only(c: Mapping[str, Any]) -> bool:
    """vLLM's ``elif``: the encoder-decoder branch runs only for a model without a pooler_config."""
    return (
        c["model_config"] is not None and c["model_config.pooler_config"] is None
        and bool(c["model_config.is_encoder_decoder"])
    )


_POOL_READS = ("model_config", "model_config.pooler_config", "model_config.pooler_config.pooling_type")


@rule(
    "scheduler.pooling-type-blocks-cp",
    title="Pooling other than LAST blocks chunked prefill and prefix caching",
    phase="core",
    kind="check",
    reads=_POOL_READS,
    source=f"{_SRC}; ref step-14, 13.2:I8",
    message=_NOT_LAST,
    level="info",
)
def pooling_type_blocks_cp(c: Mapping[str, Any]) -> RuleResult:
    """Only LAST pooling reads a single token that a chunk boundary or a cached prefix cannot split.

    A missing pooling_type counts as not LAST. Logged by vLLM when the
    off-switch (step 15) fires, which it always does then.
    """
    return Outcome.log() if _not_last_pooling(c) else None


@rule(
    "scheduler.non-causal-blocks-cp",
    title="Non-causal attention blocks chunked prefill and prefix caching",
    phase="core",
    kind="check",
    reads=(*_POOL_READS[:2], "model_config.hf_config.is_causal"),
    source=f"{_SRC}; ref step-14, 13.1:P1",
    message=_NOT_CAUSAL,
    level="info",
)
def non_causal_blocks_cp(c: Mapping[str, Any]) -> RuleResult:
    """Bidirectional attention makes earlier tokens depend on later ones, so prefill cannot be chunked or cached.

    Only checked for pooling models; an hf_config without ``is_causal`` is causal.
    """
    return Outcome.log() if _not_causal(c) else None


@rule(
    "scheduler.encoder-budget",
    title="Encoder-decoder: encoder input budget = encoder length",
    phase="core",
    kind="override",
    reads=(
        *_POOL_READS[:2], "model_config.is_encoder_decoder", "model_config.is_multimodal_model",
        "model_config.hf_config.max_source_positions",
    ),
    writes=("scheduler_config.max_num_encoder_input_tokens",),
    source=(
        f"{_SRC}, vllm/multimodal/registry.py MultiModalRegistry.get_encdec_max_encoder_len; "
        "ref step-14, 13.2:I5"
    ),
    message="Encoder-decoder model detected: setting `max_num_encoder_input_tokens` to encoder length ({n})",
    level="debug",
)
def encoder_budget(c: Mapping[str, Any]) -> RuleResult:
    """An encoder-decoder model's encoder input is one whole item, so the budget is the encoder length.

    The registry asks the multimodal processor for the largest item (Whisper:
    ``max_source_positions`` audio tokens, 1500); a model that is not
    multimodal gets 0. ``encoder_cache_size`` is left as it was (I5).
    """
    if not _encoder_decoder_only(c):
        return None
    n = 0
    if c["model_config.is_multimodal_model"]:
        n = c["model_config.hf_config.max_source_positions"] or 0
    return Outcome.log({"scheduler_config.max_num_encoder_input_tokens": n}, n=n)


@rule(
    "scheduler.whisper-spawn-warning",
    title="Whisper with forked workers may hang",
    phase="core",
    kind="check",
    reads=(
        *_POOL_READS[:2], "model_config.is_encoder_decoder", "model_config.architecture",
        "env.VLLM_WORKER_MULTIPROC_METHOD",
    ),
    source=f"{_SRC}; ref step-14, 13.1:O20, 11",
    message=_WHISPER,
    level="warning",
)
def whisper_spawn_warning(c: Mapping[str, Any]) -> RuleResult:
    """Whisper is known to hang with forked workers.

    vLLM reads the raw process environment: unset is not "spawn", and a
    spawn the CPU hook forces later (step 17) does not count (O20).
    """
    if (
        _encoder_decoder_only(c) and c["model_config.architecture"] == "WhisperForConditionalGeneration"
        and c["env.VLLM_WORKER_MULTIPROC_METHOD"] != "spawn"
    ):
        return Outcome.log()
    return None


# ---- step 15: the final chunked-prefill / prefix-caching off-switch --------------------------


@rule(
    "scheduler.cp-off-switch",
    title="Chunked prefill and prefix caching off",
    phase="core",
    kind="override",
    reads=(
        *_POOL_READS, "model_config.hf_config.is_causal", "model_config.is_encoder_decoder",
        "scheduler_config.enable_chunked_prefill", _APC,
    ),
    writes=(_CP, "scheduler_config.long_prefill_token_threshold", _APC),
    source=f"{_SRC}; ref step-15, 13.1:P1, 13.1:P2, 13.1:O19, 13.2:I5",
    ensures=lambda c: c[_CP] is False and c[_APC] is False,
)
def cp_off_switch(c: Mapping[str, Any]) -> RuleResult:
    """Chunked prefill and prefix caching go off together for a collected blocker, an encoder-decoder model, or an explicit --no-enable-chunked-prefill without prefix caching requested.

    Not merely because the resolved flag is False: ``enable_chunked_prefill``
    must be ``False`` itself (None does not count). Only the effective flag
    ``chunked_prefill_enabled`` is cleared; ``enable_chunked_prefill``, the
    token budget and the encoder budgets are neither changed nor re-validated (P2, I5).
    """
    enc_dec = c["model_config"] is not None and c["model_config.is_encoder_decoder"]
    explicit_off = c["scheduler_config.enable_chunked_prefill"] is False and not c[_APC]
    if _not_last_pooling(c) or _not_causal(c) or enc_dec or explicit_off:
        return {_CP: False, "scheduler_config.long_prefill_token_threshold": 0, _APC: False}
    return None



STEPS_13_TO_16 = sequence(
    "scheduler.steps-7-to-16",
    turing_fp32_warning, fast_prefill_eagle, fast_prefill_warning, pooling_type_blocks_cp, non_causal_blocks_cp,
    encoder_budget, whisper_spawn_warning, cp_off_switch, events_without_prefix_caching, publisher_without_events,
    title="Steps 7 and 13-16 in vLLM's order: the Turing warning, KV-sharing fast prefill, the chunked-prefill "
    "blockers and the encoder budget, the off-switch, the KV-event warnings",
    source=_SRC,
)



# ---- quirks left by steps 12b, 14 and 15 ------------------------------------------------------


@rule(
    "quirk.chunked-prefill-flags-disagree",
    title="enable_chunked_prefill True but chunked prefill off",
    phase="core",
    kind="check",
    reads=("scheduler_config.enable_chunked_prefill", _CP),
    source=f"{_SRC}; ref 13.2:I5, 13.1:P2",
    message=("scheduler_config.enable_chunked_prefill is True but chunked_prefill_enabled is False: the "
             "off-switch cleared only the effective flag; vLLM schedules without chunked prefill and "
             "enable_chunked_prefill keeps saying True."),
    level="warning",
)
def chunked_prefill_flags_disagree(c: Mapping[str, Any]) -> RuleResult:
    """The off-switch clears only the effective flag, so the user's request and the outcome disagree."""
    if c["scheduler_config.enable_chunked_prefill"] is True and c[_CP] is False:
        return Outcome.log()
    return None


@rule(
    "quirk.budget-below-max-model-len",
    title="Token budget below max_model_len without chunked prefill",
    phase="core",
    kind="check",
    reads=(_CP, "scheduler_config.max_num_batched_tokens", "scheduler_config.max_model_len"),
    source=f"{_SRC}; ref 13.2:I5, 13.1:P1, 13.1:P2",
    message=("max_num_batched_tokens ({tokens}) is smaller than max_model_len ({length}) while chunked "
             "prefill is off; SchedulerConfig would have rejected this, but vLLM does not re-validate it, "
             "so prompts longer than the budget cannot be scheduled."),
    level="warning",
)
def budget_below_max_model_len_unchecked(c: Mapping[str, Any]) -> RuleResult:
    """The budget was sized for chunked prefill and is not re-validated when the off-switch clears it."""
    tokens, length = c["scheduler_config.max_num_batched_tokens"], c["scheduler_config.max_model_len"]
    if c[_CP] is False and tokens is not None and length is not None and tokens < length:
        return Outcome.log(tokens=tokens, length=length)
    return None


@rule(
    "quirk.chunked-prefill-enabled-none",
    title="chunked_prefill_enabled left None",
    phase="core",
    kind="check",
    reads=(_CP,),
    source=f"{_SRC}; ref 13.2:I7",
    message=("scheduler_config.chunked_prefill_enabled is None (enable_chunked_prefill was never set and "
             "the off-switch only fires on an explicit False); vLLM treats it as falsy: chunked prefill is "
             "off, but nothing was cleared."),
    level="warning",
)
def chunked_prefill_enabled_none(c: Mapping[str, Any]) -> RuleResult:
    """A default SchedulerConfig leaves enable_chunked_prefill None, and the off-switch's ``is False`` test skips it."""
    if c[_CP] is None:
        return Outcome.log()
    return None


@rule(
    "quirk.pooler-config-on-generate-runner",
    title="A pooler_config on a generative model",
    phase="core",
    kind="check",
    reads=("model_config", "model_config.pooler_config", "model_config.runner_type"),
    source=f"{_SRC}; ref 13.2:I8",
    message=("model_config.pooler_config is set but runner_type is 'generate': vLLM treats the model as a "
             "pooling model for CUDA graphs (full graphs downgraded to PIECEWISE) and, unless pooling_type is "
             "LAST, turns chunked prefill and prefix caching off."),
    level="warning",
)
def pooler_config_on_generate_runner(c: Mapping[str, Any]) -> RuleResult:
    """Steps 12b and 14 test ``pooler_config is not None``, not the runner type."""
    if (
        c["model_config"] is not None and c["model_config.pooler_config"] is not None
        and c["model_config.runner_type"] == "generate"
    ):
        return Outcome.log()
    return None

# --------------------------------------------------------------------------
# step 22: hybrid KV cache manager switches
# --------------------------------------------------------------------------

_CHUNKED = ("model_config", "model_config.attention_chunk_size")
_EAGLE = ("speculative_config", "speculative_config.method")


def _hma_open(c: Mapping[str, Any]) -> bool:
    """Step 22's gate: V1 and the hybrid KV cache manager not (yet) disabled."""
    return bool(c[_V1]) and not c[_HMA]


def _chunked_local(c: Mapping[str, Any]) -> bool:
    return c["model_config"] is not None and c["model_config.attention_chunk_size"] is not None


def _eagle(c: Mapping[str, Any]) -> bool:
    return c["speculative_config"] is not None and c["speculative_config.method"] in _EAGLE_METHODS


_HMA_OFF: dict[str, Any] = dict(phase="finalize", kind="override", writes=(_HMA,),
                                ensures=lambda c: c[_HMA] is True)
"""The header every reason to turn the hybrid KV cache manager off shares."""


@rule(
    "scheduler.hma-off-platform",
    title="Hybrid KV cache manager off: platform without support",
    reads=("platform.support_hybrid_kv_cache",),
    source=f"{_SRC}; ref step-22",
    **_HMA_OFF,
)
def hma_off_platform(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager is not supported on this (non-GPU) platform."""
    return None if c["platform.support_hybrid_kv_cache"] else {_HMA: True}


@rule(
    "scheduler.hma-off-kv-connector",
    title="Hybrid KV cache manager off: KV connector configured",
    reads=("kv_transfer_config",),
    source=f"{_SRC}; ref step-22",
    message=_KV_CONNECTOR_WARNING,
    level="warning",
    **_HMA_OFF,
)
def hma_off_kv_connector(c: Mapping[str, Any]) -> RuleResult:
    """KV connectors do not support the hybrid KV cache manager yet (unless they implement SupportsHMA).

    Warned about even when an earlier reason turned the manager off already.
    """
    return Outcome.log({_HMA: True}) if c["kv_transfer_config"] is not None else None


@rule(
    "scheduler.hma-off-kv-events",
    title="Hybrid KV cache manager off: KV events config present",
    reads=("kv_events_config",),
    source=f"{_SRC}; ref step-22, 13.2:I13",
    **_HMA_OFF,
)
def hma_off_kv_events(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager is not compatible with KV cache events.

    vLLM tests only that a ``kv_events_config`` exists, even with events disabled (I13).
    """
    return {_HMA: True} if c["kv_events_config"] is not None else None


@rule(
    "scheduler.hma-off-chunked-local-eagle",
    title="Hybrid KV cache manager off: chunked local attention with EAGLE",
    reads=(*_CHUNKED, *_EAGLE),
    source=f"{_SRC}; ref step-22",
    **_HMA_OFF,
)
def hma_off_chunked_local_eagle(c: Mapping[str, Any]) -> RuleResult:
    """The hybrid KV cache manager does not yet support chunked local attention with EAGLE."""
    return {_HMA: True} if _chunked_local(c) and _eagle(c) else None


@rule(
    "scheduler.hma-off-chunked-local",
    title="Hybrid KV cache manager off: chunked local attention",
    reads=(*_CHUNKED, *_EAGLE, "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"),
    source=f"{_SRC}; ref step-22",
    message=_CHUNKED_LOCAL_WARNING,
    level="warning",
    **_HMA_OFF,
)
def hma_off_chunked_local(c: Mapping[str, Any]) -> RuleResult:
    """Chunked local attention regresses latency with the hybrid KV cache manager unless explicitly allowed."""
    allowed = c["env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"]
    if _chunked_local(c) and not _eagle(c) and not allowed:
        return Outcome.log({_HMA: True})
    return None


STEP_22 = all_of(
    "scheduler.hma-off", hma_off_platform, hma_off_kv_connector, hma_off_kv_events, hma_off_chunked_local_eagle,
    hma_off_chunked_local,
    title="Step 22: every reason that turns the hybrid KV cache manager off (gate tested once)",
    when=_hma_open, reads=(_V1, _HMA), source=f"{_SRC}; ref step-22",
)


@rule(
    "quirk.hma-off-by-disabled-kv-events",
    title="A disabled kv_events_config still turns the hybrid KV cache manager off",
    phase="finalize",
    kind="check",
    reads=(_V1, _HMA, "kv_events_config", "kv_events_config.enable_kv_cache_events"),
    source=f"{_SRC}; ref step-22, 6, 13.2:I13",
    level="warning",
)
def hma_kv_events_disabled(c: Mapping[str, Any]) -> RuleResult:
    """vLLM checks that the object exists, not that events are enabled; the config is also not a hash factor."""
    present = c["kv_events_config"] is not None
    if c[_V1] and present and not c["kv_events_config.enable_kv_cache_events"] and c[_HMA]:
        return Outcome(
            message="quirk I13: kv_events_config is set with enable_kv_cache_events=False, yet vLLM "
            "disables the hybrid KV cache manager for its mere presence (and does not hash it)."
        )
    return None


