"""Phase ``core`` scheduler, KV-cache and KV-event rules (steps 13-16, I5, I7, I8)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules._kit import state
from postinit.rules.scheduler import (
    budget_below_max_model_len_unchecked,
    chunked_prefill_enabled_none,
    chunked_prefill_flags_disagree,
    cp_off_switch,
    encoder_budget,
    events_without_prefix_caching,
    fast_prefill_eagle,
    fast_prefill_warning,
    non_causal_blocks_cp,
    pooler_config_on_generate_runner,
    pooling_type_blocks_cp,
    publisher_without_events,
    whisper_spawn_warning,
)

CP = "scheduler_config.chunked_prefill_enabled"
APC = "cache_config.enable_prefix_caching"
OFF = {CP: False, "scheduler_config.long_prefill_token_threshold": 0, APC: False}
POOL = {"model_config": True, "model_config.pooler_config": True}
WHISPER = {"model_config": True, "model_config.is_encoder_decoder": True, "model_config.is_multimodal_model": True,
           "model_config.architecture": "WhisperForConditionalGeneration",
           "model_config.hf_config.max_source_positions": 1500}


@pytest.mark.parametrize(
    ("fast", "spec", "method", "fires"),
    [(True, True, "eagle", True), (True, True, "mtp", True), (True, True, "ngram", False), (True, None, "eagle", False),
     (False, True, "eagle3", False)],
)
def test_fast_prefill_eagle(fast: bool, spec: Any, method: str, fires: bool) -> None:
    """Step 13: fast prefill with eagle/eagle3/mtp is NotImplementedError."""
    s = state({"cache_config.kv_sharing_fast_prefill": fast, "speculative_config": spec,
               "speculative_config.method": method})
    out = fast_prefill_eagle(s)
    assert isinstance(out, Violation) is fires
    if isinstance(out, Violation):
        assert out.error == "NotImplementedError" and out.message.startswith("Fast prefill optimization")


@pytest.mark.parametrize(("fast", "fires"), [(True, True), (False, False)])
def test_fast_prefill_warning(fast: bool, fires: bool) -> None:
    """Step 13: otherwise a warning."""
    assert isinstance(fast_prefill_warning(state({"cache_config.kv_sharing_fast_prefill": fast})), Outcome) is fires


@pytest.mark.parametrize(
    ("values", "fires"),
    [({"model_config.pooler_config.pooling_type": "CLS"}, True), ({"model_config.pooler_config.pooling_type": None}, True),
     ({"model_config.pooler_config.pooling_type": "last"}, False), ({"model_config.pooler_config": None}, False)],
)
def test_pooling_type_blocks_cp(values: dict[str, Any], fires: bool) -> None:
    """Step 14: a pooling type other than LAST (case-insensitive; None counts) is a blocker."""
    assert isinstance(pooling_type_blocks_cp(state({**POOL, **values})), Outcome) is fires


@pytest.mark.parametrize(("causal", "pooler", "fires"), [(False, True, True), (True, True, False), (None, True, False),
                                                         (False, None, False)])
def test_non_causal_blocks_cp(causal: Any, pooler: Any, fires: bool) -> None:
    """Step 14: is_causal False blocks (pooling models only; absent = causal)."""
    s = state({"model_config": True, "model_config.pooler_config": pooler, "model_config.hf_config.is_causal": causal})
    assert isinstance(non_causal_blocks_cp(s), Outcome) is fires


@pytest.mark.parametrize(
    ("values", "expected"),
    [(WHISPER, 1500), ({**WHISPER, "model_config.is_multimodal_model": False}, 0),
     ({**WHISPER, "model_config.is_encoder_decoder": False}, None), ({**WHISPER, "model_config.pooler_config": True}, None)],
)
def test_encoder_budget(values: dict[str, Any], expected: int | None) -> None:
    """Step 14: enc-dec (no pooler) budget = encoder length (Whisper 1500; 0 when not multimodal)."""
    s = state({**values, "scheduler_config.max_num_encoder_input_tokens": -1})
    got = decide(encoder_budget, s)
    if expected is None:
        assert not got
    else:
        assert got.changes == {"scheduler_config.max_num_encoder_input_tokens": expected}
        assert got.messages == [
            f"Encoder-decoder model detected: setting `max_num_encoder_input_tokens` to encoder length ({expected})"]


@pytest.mark.parametrize(("method", "arch", "fires"), [(None, "WhisperForConditionalGeneration", True),
                                                      ("fork", "WhisperForConditionalGeneration", True),
                                                      ("spawn", "WhisperForConditionalGeneration", False),
                                                      (None, "BartForConditionalGeneration", False)])
def test_whisper_spawn_warning(method: str | None, arch: str, fires: bool) -> None:
    """Step 14: raw env — unset counts as not spawn (O20)."""
    env = {"VLLM_WORKER_MULTIPROC_METHOD": method} if method else {}
    s = state({**WHISPER, "model_config.architecture": arch}, env=env)
    assert isinstance(whisper_spawn_warning(s), Outcome) is fires


@pytest.mark.parametrize(
    ("values", "fires"),
    [
        ({**POOL, "model_config.pooler_config.pooling_type": "MEAN"}, True),
        ({**POOL, "model_config.pooler_config.pooling_type": "LAST", "model_config.hf_config.is_causal": False}, True),
        ({**POOL, "model_config.pooler_config.pooling_type": "LAST"}, False),
        ({"model_config": True, "model_config.is_encoder_decoder": True}, True),
        ({"scheduler_config.enable_chunked_prefill": False}, True),
        ({"scheduler_config.enable_chunked_prefill": False, APC: True}, False),
        ({"scheduler_config.enable_chunked_prefill": None}, False),
        ({"scheduler_config.enable_chunked_prefill": True, APC: False}, False),
    ],
)
def test_cp_off_switch(values: dict[str, Any], fires: bool) -> None:
    """Step 15: blockers, enc-dec, or explicit CP False without APC; never writes enable_chunked_prefill."""
    out = cp_off_switch(state({CP: True, "scheduler_config.long_prefill_token_threshold": 40, **values}))
    assert out == (OFF if fires else None)


@pytest.mark.parametrize(("present", "events", "apc", "fires"),
                         [(True, True, False, True), (True, True, True, False), (None, True, False, False)])
def test_events_without_prefix_caching(present: Any, events: bool, apc: bool, fires: bool) -> None:
    """Step 16: events on with APC off warns."""
    s = state({"kv_events_config": present, "kv_events_config.enable_kv_cache_events": events, APC: apc})
    assert isinstance(events_without_prefix_caching(s), Outcome) is fires


@pytest.mark.parametrize(("publisher", "events", "fires"), [("zmq", False, True), ("null", False, False), ("zmq", True, False),
                                                            (None, False, True)])
def test_publisher_without_events(publisher: str | None, events: bool, fires: bool) -> None:
    """Step 16: a non-'null' publisher with events disabled warns (None is not 'null')."""
    s = state({"kv_events_config": True, "kv_events_config.publisher": publisher,
               "kv_events_config.enable_kv_cache_events": events})
    assert isinstance(publisher_without_events(s), Outcome) is fires


@pytest.mark.parametrize(("enable", "effective", "fires"), [(True, False, True), (True, True, False), (None, False, False)])
def test_quirk_flags_disagree(enable: Any, effective: Any, fires: bool) -> None:
    """I5: enable_chunked_prefill True with chunked_prefill_enabled False."""
    s = state({"scheduler_config.enable_chunked_prefill": enable, CP: effective})
    assert isinstance(chunked_prefill_flags_disagree(s), Outcome) is fires


@pytest.mark.parametrize(("effective", "tokens", "fires"), [(False, 2048, True), (False, 8192, False), (True, 2048, False)])
def test_quirk_budget_below_max_model_len(effective: bool, tokens: int, fires: bool) -> None:
    """I5/P2: a budget below max_model_len once chunked prefill is off."""
    s = state({CP: effective, "scheduler_config.max_num_batched_tokens": tokens, "scheduler_config.max_model_len": 4096})
    assert isinstance(budget_below_max_model_len_unchecked(s), Outcome) is fires


@pytest.mark.parametrize(("effective", "fires"), [(None, True), (False, False), (True, False)])
def test_quirk_chunked_prefill_enabled_none(effective: Any, fires: bool) -> None:
    """I7: chunked_prefill_enabled None is made visible."""
    assert isinstance(chunked_prefill_enabled_none(state({CP: effective})), Outcome) is fires


@pytest.mark.parametrize(("runner", "pooler", "fires"), [("generate", True, True), ("pooling", True, False), ("generate", None, False)])
def test_quirk_pooler_config_on_generate_runner(runner: str, pooler: Any, fires: bool) -> None:
    """I8: a pooler_config on a generate runner."""
    s = state({"model_config": True, "model_config.pooler_config": pooler, "model_config.runner_type": runner})
    assert isinstance(pooler_config_on_generate_runner(s), Outcome) is fires


# ---- end to end (strict) ---------------------------------------------------------------------


def _resolve(config: dict[str, Any], **kw: Any) -> postinit.Resolution:
    base: dict[str, Any] = {
        "compilation_config": {"backend": "inductor"},
        "scheduler_config": {"max_num_seqs": 128, "max_num_batched_tokens": 2048, "max_model_len": 4096,
                             "enable_chunked_prefill": True},
    }
    for k, v in config.items():
        base[k] = {**base.get(k, {}), **v}
    return postinit.resolve(base, strict=True, **kw)


def test_end_to_end_no_cp_no_apc() -> None:
    """Case 30 shape: explicit CP False without APC → effective flag, threshold and APC off; the request flag stays."""
    r = _resolve({"scheduler_config": {"enable_chunked_prefill": False, "chunked_prefill_enabled": False,
                                       "max_num_batched_tokens": 8192}})
    assert r.get(CP) is False and r.get(APC) is False
    assert r.get("scheduler_config.enable_chunked_prefill") is False


def test_end_to_end_kv_events_after_off_switch() -> None:
    """Step 16 reads APC after the off-switch; the I5 quirk shows the disagreeing flags."""
    r = _resolve({"scheduler_config": {"chunked_prefill_enabled": True},
                  "kv_events_config": {"enable_kv_cache_events": True}, "cache_config": {"enable_prefix_caching": False}})
    rules = [f.rule for f in r.messages("warning")]
    assert "kv-events.events-without-prefix-caching" in rules
    assert r.get(CP) is True  # enable_chunked_prefill True: no off-switch
