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
    {"model": LLAMA, "platform": "h100", "vllm_version": "0.11.1"},
    {"model": "deepseek-ai/DeepSeek-V3", "platform": "b200", "argv": ["-tp", "8"], "vllm_version": "0.34.0"},
    {"config": {"model_config": {"model": LLAMA}, "scheduler_config": {"max_num_seqs": 8}}, "platform": "cpu",
     "vllm_version": "0.34.0"},
    {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100", "argv": ["-dp", "2", "-dpl", "1"],
     "vllm_version": "0.34.0"},
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
    {"parallel_config.data_parallel_hybrid_lb": True},
    {"parallel_config.data_parallel_external_lb": True},
    {"scheduler_config.max_num_seqs": -1},
    {"scheduler_config.max_num_seqs": "many"},
    {"compilation_config.pass_config": {"enable_fusion": False}},
    {"compilation_config": None},
    {"cache_config.block_size": 32},
    {"cache_config.gpu_memory_utilization": 0.8},
    {"compilation_config.cudagraph_capture_sizes": [1, 2, 4, 8]},
    {"compilation_config.max_cudagraph_capture_size": 64},
    {"parallel_config.data_parallel_size": 2},
    {"model_config.dtype": "float16"},
    {"scheduler_config.max_num_seqs": True},
    {"speculative_config.num_speculative_tokens": 2},
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
    """A change no rule reads keeps the recorded run whole (no phase followed, no rule run), stale reads included:
    equal to a scratch resolve; a change rules read re-runs only the evaluations that consulted what differs."""
    from postinit.engine import _incremental

    copied: list[tuple[int, int]] = []
    compared: list[str] = []
    real_copy, real_compare = _incremental._Replay.copy_to, _incremental._Replay.compare

    def copying(self: Any, b: int) -> None:
        if self.cursor < b:
            copied.append((self.cursor, b))
        real_copy(self, b)

    def comparing(self: Any, ix: Any, j: int, c: Any, n: int, out: Any) -> bool:
        compared.append(c.id)
        return real_compare(self, ix, j, c, n, out)  # type: ignore[no-any-return]

    monkeypatch.setattr(_incremental._Replay, "copy_to", copying)
    monkeypatch.setattr(_incremental._Replay, "compare", comparing)
    cfg = {"compilation_config": {"splitting_ops": [], "cudagraph_mode": "PIECEWISE"}}  # a stale read (I1)
    base = postinit._api.resolve_request(postinit.Request.build(config=cfg, model=LLAMA, platform="h100"),
                                         record=True)
    assert base.stale_reads
    rec = base.engine.recording
    assert rec is not None
    whole = [rec.bounds[k] for k in range(len(postinit.rulebook().phases)) if rec.bounds[k][0] < rec.bounds[k][1]]
    change = {"load_config.download_dir": "/models"}
    got = base.with_changes(change)
    assert not copied and not compared and whole
    assert got.engine.trace is base.engine.trace
    assert _everything(got) == _everything(postinit._api.resolve_request(base.request.changed(change)))
    copied.clear()
    real_change = {"scheduler_config.max_num_seqs": 64}  # read from the EngineArgs phase on
    got = base.with_changes(real_change)
    # the phases before the first reader are copied whole, and the later phases the change does not reach, each in
    # a slice that spans the recorded events up to the next evaluation that runs again
    def inside(lo: int, hi: int) -> bool:
        return any(a <= lo and hi <= b for a, b in copied)

    assert copied[0][0] == 0 and inside(*whole[0]) and inside(*rec.bounds[3]) and inside(*rec.bounds[6])
    assert 0 < len(compared) < 10, compared
    assert _everything(got) == _everything(postinit._api.resolve_request(base.request.changed(real_change)))


# --------------------------------------------------------------------------- the incremental front door

from postinit import _api  # noqa: E402
from postinit.rules import paths  # noqa: E402

_LEAVES = sorted(p for p in paths().paths
                 if p.split(".", 1)[0] not in ("env", "platform", "usage", "version", "draft") and "." in p
                 and not p.startswith(("model_config.hf_config", "model_config.hf_text_config"))
                 and not paths().info[p].presence)
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 70000), st.floats(allow_nan=False, width=32),
                    st.sampled_from(["auto", "FULL", "piecewise", "float16", "", "x", "1", "32k", "mp", "none"]),
                    st.lists(st.integers(-1, 600), max_size=4), st.dictionaries(st.sampled_from(["a", "b"]),
                                                                                  st.integers(0, 3), max_size=2))


def _whole(path: str, value: Any) -> Any:
    """The value the input door's validation of the whole sub-config gives the leaf (or the error type)."""
    top, rest = path.split(".", 1)
    try:
        obj = _api._field_adapter(top).validate_python(_api._nest(rest, value))
    except Exception as e:  # any refusal
        return ("refused", type(e).__name__)
    for part in rest.split("."):
        obj = getattr(obj, part)
    return postinit.engine.freeze(obj)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(_LEAVES), value=_VALUES)
def test_a_leaf_validated_alone_is_validated_as_its_sub_config_validates_it(path: str, value: Any) -> None:
    """The incremental door validates a changed leaf alone: the same value (or a refusal) as the whole part gives."""
    leaf = _api._leaf_validator(path)
    if leaf is None:
        return  # validated with its whole part
    try:
        alone = postinit.engine.freeze(leaf(value))
    except Exception as e:  # any refusal
        alone = ("refused", type(e).__name__)
    whole = _whole(path, value)
    assert alone == whole and type(alone) is type(whole)


@pytest.mark.parametrize("flag", ["parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb"])
def test_a_load_balancing_flag_change_goes_through_the_front_door(flag: str) -> None:
    """usage.given_on follows the hybrid / external LB flags as given, so changing one re-reads the input."""
    r0 = postinit._api.resolve_request(postinit.Request.build(**BASES[-1]))
    got = r0.with_changes({flag: True})
    expected = postinit._api.resolve_request(r0.request.changed({flag: True}))
    assert _everything(got) == _everything(expected)
    assert got.engine.initial["usage.given_on"] == (flag,)


def test_a_chain_of_changes_derives_each_front_from_the_last() -> None:
    """with_changes of a with_changes result (leaves, then a sub-model whose nested input the lazy front derives):
    each step equals a scratch resolve of the changed request, its front's input and flags included."""
    base = postinit._api.resolve_request(
        postinit.Request.build(model=LLAMA, platform="h100", argv=["--max-num-seqs", "32"]), record=True)
    for chain in ([{"scheduler_config.max_num_seqs": 64},
                   {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}],
                  [{"load_config.download_dir": "/m"}, {"load_config.download_dir": "/n"},
                   {"model_config.enforce_eager": True}, {"compilation_config.mode": 0}]):
        got, request = base, base.request
        assert request is not None
        for change in chain:
            got, request = got.with_changes(change), request.changed(change)
            expected = postinit._api.resolve_request(request)
            assert _everything(got) == _everything(expected)
            assert got.front is not None and expected.front is not None
            assert (got.front.data, got.front.flags) == (expected.front.data, expected.front.flags)
