"""Incremental re-resolution: ``Resolution.with_changes`` equals resolving the changed request from scratch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import postinit

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _everything(r: postinit.Resolution) -> tuple[Any, ...]:
    """All a user can observe: config, hash, changes, trace events, violations, stale reads, notes, inputs."""
    d = r.to_dict()
    e = r.engine
    return (d["config"], d["hash"], d["changes"], d["trace"], d["violations"], d["notes"], d["inputs"],
            [s.to_dict() for s in r.stale_reads], r.ok, e.initial, e.initial_provenance, e.state, e.provenance,
            e.history)


BASES = [
    {"model": LLAMA, "platform": "h100"},
    {"model": LLAMA, "platform": "b200", "argv": ["--max-model-len", "200k"],
     "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}},
    {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100", "argv": ["-tp", "8"]},
    {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "platform": "h200", "argv": ["-tp", "4"]},
    {"config": {"compilation_config": {"mode": 3}}, "model": "fixtures/jamba", "platform": "a100"},
    {"model": "ai21labs/AI21-Jamba-Mini-1.6", "platform": "mi300x", "usage": "llm"},
    {"model": "BAAI/bge-base-en-v1.5", "platform": "cpu"},
    {"model": LLAMA, "platform": "h100", "semantics": "consistent"},
    {"model": LLAMA, "platform": "h100", "argv": ["--max-num-seqs", "32", "--no-enable-prefix-caching"],
     "overrides": {"scheduler_config.max_num_batched_tokens": 4096, "kv_transfer_config.kv_role": "kv_both",
                   "kv_transfer_config.kv_connector": "NixlConnector"}},
]
CHANGES: list[dict[str, Any]] = [
    {"model_config.enforce_eager": True},
    {"compilation_config.cudagraph_mode": "PIECEWISE"},
    {"compilation_config.cudagraph_mode": "FULL"},
    {"scheduler_config.max_num_seqs": 64},
    {"scheduler_config.enable_chunked_prefill": False},
    {"cache_config.enable_prefix_caching": False},
    {"parallel_config.tensor_parallel_size": 2, "parallel_config.decode_context_parallel_size": 2},
    {"parallel_config.enable_dbo": True},
    {"parallel_config.enable_dbo": True, "parallel_config.all2all_backend": "deepep_low_latency"},
    {"model_config.model": "Qwen/Qwen3-8B"},
    {"model_config.max_model_len": 4096},
    {"env.VLLM_USE_V1": "0"},
    {"compilation_config.mode": 0},
    {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}},
    {"kv_transfer_config.kv_role": "kv_producer"},
    {"scheduler_config.max_num_batched_tokens": 2048},
    {"load_config.download_dir": "/models"},
    {"scheduler_config.max_num_seqs": -1},
    {"scheduler_config.max_num_seqs": "many"},
    {"compilation_config.pass_config": {"enable_fusion": False}},
    {"compilation_config": None},
]
OTHER = [{}, {"platform": "b200"}, {"platform": "cpu"}, {"model": "openai/gpt-oss-120b"}, {"usage": "llm"},
         {"argv": ["-O0"]}]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(BASES), changes=st.lists(st.sampled_from(CHANGES), min_size=0, max_size=3),
       other=st.sampled_from(OTHER), record=st.booleans())
def test_with_changes_equals_a_from_scratch_resolve(base: dict[str, Any], changes: list[dict[str, Any]],
                                                     other: dict[str, Any], record: bool) -> None:
    """Random bases × one- and multi-field changes (guards, the model, the platform): the same answer."""
    setting = {k: v for c in changes for k, v in c.items()}
    if not setting and not other:
        return
    r0 = postinit._api.resolve_request(postinit.Request.build(**base), record=record)
    try:
        expected = postinit._api.resolve_request(r0.request.replace(**other).changed(setting) if setting
                                                 else r0.request.replace(**other))
    except postinit.InputError:
        with pytest.raises(postinit.InputError):
            r0.with_changes(setting, **other)
        return
    got = r0.with_changes(setting, **other)
    assert _everything(got) == _everything(expected)
    assert got.request == expected.request


@pytest.mark.deep
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(BASES), changes=st.lists(st.sampled_from(CHANGES), min_size=0, max_size=3),
       other=st.sampled_from(OTHER), record=st.booleans())
def test_with_changes_deep(base: dict[str, Any], changes: list[dict[str, Any]], other: dict[str, Any],
                           record: bool) -> None:
    """The same over 10,000 examples (``pytest -m deep``)."""
    test_with_changes_equals_a_from_scratch_resolve.hypothesis.inner_test(base, changes, other, record)  # type: ignore[attr-defined]


def test_what_if_uses_the_incremental_path() -> None:
    """what_if's changed side is the base's with_changes: equal to a from-scratch resolve of the change."""
    w = postinit.what_if(model=LLAMA, platform="h100", set={"model_config.enforce_eager": True})
    scratch = postinit.resolve(model=LLAMA, platform="h100", overrides={"model_config.enforce_eager": True})
    assert _everything(w.changed) == _everything(scratch)
    assert w.base.engine.recording is not None, "the base was recorded"


def test_phases_nothing_reaches_are_copied_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change no rule reads copies every phase whole, stale reads included: equal to a scratch resolve."""
    from postinit.engine import _compiled

    copied: list[str] = []
    real = _compiled._PhaseCopy.copy_into

    def counting(self: Any, run: Any, phase: str, shift: int = 0) -> None:
        copied.append(phase)
        real(self, run, phase, shift)

    monkeypatch.setattr(_compiled._PhaseCopy, "copy_into", counting)
    cfg = {"compilation_config": {"splitting_ops": [], "cudagraph_mode": "PIECEWISE"}}  # a stale read (I1)
    base = postinit._api.resolve_request(postinit.Request.build(config=cfg, model=LLAMA, platform="h100"),
                                         record=True)
    assert base.stale_reads
    change = {"load_config.download_dir": "/models"}
    got = base.with_changes(change)
    assert copied == list(postinit.rulebook().phases)
    assert _everything(got) == _everything(postinit._api.resolve_request(base.request.changed(change)))
    copied.clear()
    real_change = {"scheduler_config.max_num_seqs": 64}  # read from the EngineArgs phase on
    got = base.with_changes(real_change)
    # the phase before the first reader is copied whole; after the phases the change reaches left the
    # schedule, the later phases it does not reach are copied whole again (renumbered)
    assert copied[0] == "model_config" and "validate" in copied
    assert _everything(got) == _everything(postinit._api.resolve_request(base.request.changed(real_change)))
