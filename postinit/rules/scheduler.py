"""Scheduler, KV-cache and KV-event decisions of ``VllmConfig.__post_init__`` (phase ``core``, steps 13-16).

KV-sharing fast prefill (13), the chunked-prefill blockers and the encoder
budget (14), the chunked-prefill / prefix-caching off-switch (15) and the
KV-event warnings (16), plus the quirks these steps leave behind (I5, I7, I8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule, sequence
from postinit.rules.compilation import turing_fp32_warning

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"
_CP = "scheduler_config.chunked_prefill_enabled"
_APC = "cache_config.enable_prefix_caching"
_EAGLE_METHODS = ("eagle", "eagle3", "mtp")
_FAST_PREFILL_EAGLE = (
    "Fast prefill optimization for KV sharing is not compatible with EAGLE as EAGLE requires correct logits "
    "for all tokens while fast prefill gives incorrect logits for prompt tokens."
)
_FAST_PREFILL = (
    "--kv-sharing-fast-prefill requires changes on model side for correctness and to realize prefill savings. "
)
_NOT_LAST = 'Only "last" pooling supports chunked prefill and prefix caching; disabling both.'
_NOT_CAUSAL = "Only models using causal attention supports chunked prefill and prefix caching; disabling both."
_WHISPER = (
    "Whisper is known to have issues with forked workers. If startup is hanging, "
    "try setting 'VLLM_WORKER_MULTIPROC_METHOD' to 'spawn'."
)
_EVENTS_NO_APC = "KV cache events are on, but prefix caching is not enabled.Use --enable-prefix-caching to enable."
_PUBLISH_NO_EVENTS = (
    "KV cache events are disabled,but the scheduler is configured to publish them."
    "Modify KVEventsConfig.enable_kv_cache_events"
    "to True to enable."
)


# ---- step 13: KV-sharing fast prefill --------------------------------------------------------


@rule(
    "kv_cache.fast-prefill-eagle",
    title="KV-sharing fast prefill is incompatible with EAGLE",
    phase="core",
    kind="check",
    reads=("cache_config.kv_sharing_fast_prefill", "speculative_config", "speculative_config.method"),
    source=f"{_SRC}; ref step-13",
    message=_FAST_PREFILL_EAGLE,
    level="error",
)
def fast_prefill_eagle(c: Mapping[str, Any]) -> RuleResult:
    """EAGLE needs correct logits for every token, and fast prefill gives incorrect logits for prompt tokens.

    ``use_eagle()`` covers the methods eagle, eagle3 and mtp.
    """
    if (
        c["cache_config.kv_sharing_fast_prefill"] and c["speculative_config"] is not None
        and c["speculative_config.method"] in _EAGLE_METHODS
    ):
        return Violation(_FAST_PREFILL_EAGLE, error="NotImplementedError")
    return None


@rule(
    "kv_cache.fast-prefill-warning",
    title="KV-sharing fast prefill needs model support",
    phase="core",
    kind="check",
    reads=("cache_config.kv_sharing_fast_prefill",),
    source=f"{_SRC}; ref step-13",
    message=_FAST_PREFILL,
    level="warning",
)
def fast_prefill_warning(c: Mapping[str, Any]) -> RuleResult:
    """Fast prefill only saves work and stays correct if the model implements it."""
    return Outcome.log() if c["cache_config.kv_sharing_fast_prefill"] else None


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


# ---- step 16: KV-event warnings --------------------------------------------------------------


@rule(
    "kv_events.events-without-prefix-caching",
    title="KV cache events need prefix caching",
    phase="core",
    kind="check",
    reads=("kv_events_config", "kv_events_config.enable_kv_cache_events", _APC),
    source=f"{_SRC}; ref step-16",
    message=_EVENTS_NO_APC,
    level="warning",
)
def events_without_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """KV cache events describe prefix-cache blocks, so without prefix caching none are published.

    Reads prefix caching after the off-switch (step 15).
    """
    if c["kv_events_config"] is not None and c["kv_events_config.enable_kv_cache_events"] and not c[_APC]:
        return Outcome.log()
    return None


@rule(
    "kv_events.publisher-without-events",
    title="A KV-event publisher with events disabled",
    phase="core",
    kind="check",
    reads=("kv_events_config", "kv_events_config.enable_kv_cache_events", "kv_events_config.publisher"),
    source=f"{_SRC}; ref step-16",
    message=_PUBLISH_NO_EVENTS,
    level="warning",
)
def publisher_without_events(c: Mapping[str, Any]) -> RuleResult:
    """A publisher other than "null" publishes nothing while events are disabled."""
    if (
        c["kv_events_config"] is not None and c["kv_events_config.publisher"] != "null"
        and not c["kv_events_config.enable_kv_cache_events"]
    ):
        return Outcome.log()
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
def budget_below_max_model_len(c: Mapping[str, Any]) -> RuleResult:
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
