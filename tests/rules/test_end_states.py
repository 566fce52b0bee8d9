"""vLLM's inconsistent end states (reference §13.2 I1-I15, plus cheap P/O rows of §13.1), end to end.

Each test builds the input that produces the state, asserts vLLM's final
values, asserts the inconsistency is visible in the trace (a ``stale_read``
naming both rules and the path, or a named ``quirk.*`` warning), and then
resolves the same input with ``semantics="consistent"``.

Where the consistent resolution does not give a sensible answer (no fixed
point, or a rule re-reading a derived value as if the user had set it), the
consistent half is a separate ``xfail(strict=True)`` test whose reason names
the rules involved.
"""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.schema import CompilationMode, CUDAGraphMode

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
DSV3 = "deepseek-ai/DeepSeek-V3"
CC = "compilation_config."
SC = "scheduler_config."
MODE = CC + "cudagraph_mode"
SIZES = CC + "cudagraph_capture_sizes"
MAX = CC + "max_cudagraph_capture_size"
PAD = CC + "bs_to_padded_graph_size"
WARMUPS = CC + "cudagraph_num_of_warmups"
OPS = CC + "custom_ops"
APC = "cache_config.enable_prefix_caching"
CP = SC + "chunked_prefill_enabled"
HMA = SC + "disable_hybrid_kv_cache_manager"

DEEPEP_HT_DP2 = {
    "parallel_config": {
        "all2all_backend": "deepep_high_throughput",
        "data_parallel_size": 2,
        "enable_expert_parallel": True,
    }
}
# any input whose off-switch (step 15) fires makes the consistent fixed point oscillate
_CP_LOOP = (
    "consistent semantics: scheduler.chunked-prefill-enabled re-derives chunked_prefill_enabled from "
    "enable_chunked_prefill and scheduler.cp-off-switch clears it again, so there is no fixed point "
    "(NoFixedPoint) instead of chunked prefill off with the flags, budget and encoder budgets re-derived"
)


def _resolve(semantics: str = "vllm", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(strict=True, semantics=semantics, **kw)  # type: ignore[arg-type]


def _stale(r: postinit.Resolution, rule: str, path: str, by: str) -> list[Any]:
    """The stale_read events where ``by`` changed ``path`` after ``rule`` decided on it."""
    return [s for s in r.stale_reads if s.rule == rule and s.path == path and s.by == by]


def _quirk(r: postinit.Resolution, rule: str) -> list[Any]:
    """The warnings a named quirk rule emitted."""
    assert rule.startswith("quirk.")
    return [f for f in r.messages("warning") if f.rule == rule]


def _fired(r: postinit.Resolution, rule: str) -> list[Any]:
    return [f for f in r.trace.fired if f.rule == rule]


# --------------------------------------------------------------------------- I1


def test_i1_deepep_high_throughput_dp2_leaves_capture_sizes() -> None:
    """I1: DeepEP high-throughput with DP 2 on CUDA turns graphs off after step 12d sized them."""
    r = _resolve(config=DEEPEP_HT_DP2, model=DSV3, platform="h100")
    assert r.ok
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.why(MODE).provenance.rule == "cuda.deepep-ht-disables-cudagraph"
    assert len(r.get(SIZES)) == 35 and r.get(SIZES)[-1] == 256
    assert r.get(MAX) == 256
    assert r.get(WARMUPS) == 1
    assert len(r.get(PAD)) == 257
    stale = _stale(r, "cudagraph.capture-sizes", MODE, "cuda.deepep-ht-disables-cudagraph")
    assert stale and stale[0].read is CUDAGraphMode.FULL_AND_PIECEWISE and stale[0].now is CUDAGraphMode.NONE
    assert "35 capture sizes" in _quirk(r, "quirk.cudagraph-none-with-capture-sizes")[0].message

    c = _resolve("consistent", config=DEEPEP_HT_DP2, model=DSV3, platform="h100")
    assert c.ok and c.get(MODE) is CUDAGraphMode.NONE
    # sizes recomputed for the final mode: nothing to capture
    assert c.get(SIZES) == () and c.get(MAX) == 0 and c.get(PAD) == (0,)
    # step 12c sets one warmup whenever the model is not eager, whatever the mode: not an order effect
    assert c.get(WARMUPS) == 1
    assert not _quirk(c, "quirk.cudagraph-none-with-capture-sizes")


def test_i1_empty_splitting_ops_with_piecewise_leaves_capture_sizes() -> None:
    """I1: splitting_ops=[] turns a PIECEWISE mode into NONE in step 18, after the sizes were computed."""
    cfg = {"compilation_config": {"splitting_ops": [], "cudagraph_mode": "PIECEWISE"}}
    r = _resolve(config=cfg, model=LLAMA, platform="h100")
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.why(MODE).provenance.rule == "compilation.empty-splitting-ops-mode"
    assert len(r.get(SIZES)) == 35 and r.get(MAX) == 256 and r.get(WARMUPS) == 1
    assert len(r.get(PAD)) == 257
    assert _stale(r, "cudagraph.capture-sizes", MODE, "compilation.empty-splitting-ops-mode")
    assert _quirk(r, "quirk.cudagraph-none-with-capture-sizes")

    c = _resolve("consistent", config=cfg, model=LLAMA, platform="h100")
    assert c.get(MODE) is CUDAGraphMode.NONE
    assert c.get(SIZES) == () and c.get(MAX) == 0 and c.get(PAD) == (0,)
    assert not _quirk(c, "quirk.cudagraph-none-with-capture-sizes")


# --------------------------------------------------------------------------- I2


SP_NO_DIVISIBLE_SIZE = {
    "parallel_config": {"tensor_parallel_size": 4},
    "compilation_config": {
        "cudagraph_capture_sizes": [1, 2, 3, 5],
        "pass_config": {"enable_sequence_parallelism": True},
    },
}


def test_i2_sequence_parallelism_filters_every_size() -> None:
    """I2: SP with TP 4 removes every user size, yet the graph mode stays on (a missing check, single statement)."""
    r = _resolve(config=SP_NO_DIVISIBLE_SIZE, model=LLAMA, platform="h100")
    assert r.ok
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE
    assert r.get(SIZES) == () and r.get(MAX) == 0
    assert r.get(CC + "use_cudagraph") is True
    assert _fired(r, "cudagraph.sp-filters-capture-sizes")
    assert _quirk(r, "quirk.cudagraph-without-capture-sizes")


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "consistent semantics: compilation.migrate-deprecated-flags writes full_cuda_graph=True, which "
        "compilation.full-cuda-graph (sub_configs) re-reads as the user's deprecated flag and collapses the "
        "mode to FULL (I11): a genuine vLLM cycle, not a fill-once default, so retraction does not undo it"
    ),
)
def test_i2_consistent_keeps_mode_without_sizes() -> None:
    """I2 under consistent semantics: vLLM has no rule that turns the mode off, so nothing should change."""
    c = _resolve("consistent", config=SP_NO_DIVISIBLE_SIZE, model=LLAMA, platform="h100")
    assert c.ok
    assert c.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE and c.get(SIZES) == ()


def test_i2_no_model_with_user_mode_3() -> None:
    """I2: without a model_config step 12d computes no sizes, but mode 3 still defaults to FULL_AND_PIECEWISE."""
    cfg = {"compilation_config": {"mode": 3}}
    r = _resolve(config=cfg, platform="h100")
    assert r.ok and r.get("model_config") is None
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE
    assert r.get(SIZES) == () and r.get(MAX) == 0 and r.get(CC + "use_cudagraph") is True
    assert _quirk(r, "quirk.cudagraph-without-capture-sizes")

    c = _resolve("consistent", config=cfg, platform="h100")
    # still nothing to capture (no rule derives sizes without a model); the mode differs only by the I11 collapse
    assert c.get(SIZES) == () and c.get(MAX) == 0
    assert c.get(MODE) is CUDAGraphMode.FULL
    assert _quirk(c, "quirk.cudagraph-without-capture-sizes")


# --------------------------------------------------------------------------- I3


def test_i3_cpu_skips_the_cudagraph_block() -> None:
    """I3: on CPU step 12 and step 19 are skipped, so sizes stay unset and use_cudagraph stays True under NONE."""
    cfg = {"compilation_config": {"compile_sizes": ["cudagraph_capture_sizes"]}}
    r = _resolve(config=cfg, model=LLAMA, platform="cpu")
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.why(MODE).provenance.rule == "cudagraph.no-static-graph-support"
    assert r.get(PAD) is None and r.get(MAX) is None
    assert r.get(CC + "compile_sizes") == ("cudagraph_capture_sizes",)
    assert r.get(CC + "use_cudagraph") is True
    assert _quirk(r, "quirk.cudagraph-flags-not-migrated")

    c = _resolve("consistent", config=cfg, model=LLAMA, platform="cpu")
    # platform gates, not statement order: a consistent resolution skips the same steps
    for p in (MODE, PAD, MAX, CC + "compile_sizes", CC + "use_cudagraph"):
        assert c.get(p) == r.get(p), p


# --------------------------------------------------------------------------- I4


def test_i4_cpu_mode_changed_after_custom_ops() -> None:
    """I4: the CPU hook switches VLLM_COMPILE to DYNAMO_TRACE_ONCE after step 9 chose custom_ops for mode 3."""
    r = _resolve(config={}, model=LLAMA, platform="cpu")
    assert r.get(CC + "mode") is CompilationMode.DYNAMO_TRACE_ONCE
    assert r.get(OPS) == ("none",)
    stale = _stale(r, "compilation.default-custom-ops", CC + "mode", "cpu.compile-mode-dynamo-trace-once")
    assert stale and stale[0].read is CompilationMode.VLLM_COMPILE
    assert _quirk(r, "quirk.cpu-mode-changed-after-custom-ops")

    c = _resolve("consistent", config={}, model=LLAMA, platform="cpu")
    # re-deciding for mode 2 with the inductor backend gives 'none' again: the order does not matter here
    assert c.get(CC + "mode") is CompilationMode.DYNAMO_TRACE_ONCE and c.get(OPS) == ("none",)
    assert not c.stale_reads


def test_i4_cpu_lora_mode_none_with_custom_ops_none() -> None:
    """I4: CPU + LoRA ends with mode NONE yet custom_ops 'none' (every custom op off, no Inductor)."""
    r = _resolve(config={"lora_config": {}}, model=LLAMA, platform="cpu")
    assert r.get(CC + "mode") is CompilationMode.NONE
    assert r.why(CC + "mode").provenance.rule == "cpu.lora-disables-compile"
    assert r.get(OPS) == ("none",)
    assert _stale(r, "compilation.default-custom-ops", CC + "mode", "cpu.lora-disables-compile")
    assert "mode NONE" in _quirk(r, "quirk.cpu-mode-changed-after-custom-ops")[0].message


def test_i4_consistent_cpu_lora_enables_custom_ops() -> None:
    """I4 under consistent semantics: with mode NONE decided first, step 9 would append 'all'.

    compilation.default-custom-ops is a fill-once default: its 'none' (chosen for mode 3) is
    retracted before it re-decides for mode NONE, so it replaces its own value instead of keeping it.
    """
    c = _resolve("consistent", config={"lora_config": {}}, model=LLAMA, platform="cpu")
    assert c.get(CC + "mode") is CompilationMode.NONE
    assert c.get(OPS) == ("all",)
    assert c.why(OPS).provenance.rule == "compilation.default-custom-ops"
    own = [
        (ch.old, ch.new) for e in c.trace.fired if e.rule == "compilation.default-custom-ops"
        for ch in e.changes if ch.path == OPS
    ]
    assert own[-1] == (("none",), ("all",))


# --------------------------------------------------------------------------- I5


EMBED_MEAN_CP = {
    "scheduler_config": {"enable_chunked_prefill": True},
    "model_config": {"runner": "pooling", "convert": "embed", "pooler_config": {"pooling_type": "MEAN"}},
}


def test_i5_off_switch_clears_only_the_effective_flag() -> None:
    """I5: the step-15 off-switch leaves enable_chunked_prefill True and the budget sized for chunked prefill."""
    r = _resolve(config=EMBED_MEAN_CP, model="Qwen/Qwen3-8B", platform="h100")
    assert r.ok and r.get("model_config.runner_type") == "pooling"
    assert r.get(SC + "enable_chunked_prefill") is True
    assert r.get(CP) is False and r.why(CP).provenance.rule == "scheduler.cp-off-switch"
    assert r.get(SC + "long_prefill_token_threshold") == 0
    assert r.get(APC) is False
    # budget and encoder budgets were derived for chunked prefill and are not re-derived
    assert r.get(SC + "max_num_batched_tokens") == 32768 < r.get("model_config.max_model_len") == 40960
    assert r.get(SC + "max_num_encoder_input_tokens") == 32768
    assert _quirk(r, "quirk.chunked-prefill-flags-disagree")
    assert "(32768) is smaller than max_model_len (40960)" in _quirk(r, "quirk.budget-below-max-model-len")[0].message


def test_i5_consistent_rejects_the_budget() -> None:
    """I5 under consistent semantics: checks run on the final state, so chunked prefill off with a budget below max_model_len is refused."""
    c = _resolve("consistent", config=EMBED_MEAN_CP, model="Qwen/Qwen3-8B", platform="h100")
    assert c.get(CP) is False
    # the budget rule reads enable_chunked_prefill (still True: the off-switch never writes it), so it stays 32768
    assert c.get(SC + "max_num_batched_tokens") == 32768 < c.get("model_config.max_model_len")
    assert not c.ok and c.violations[0].rule == "scheduler.budget-below-max-model-len"


# --------------------------------------------------------------------------- I6


CPU_MLA = {
    "cache_config": {"enable_prefix_caching": True},
    "scheduler_config": {"enable_chunked_prefill": True, "max_num_partial_prefills": 2},
}


def test_i6_cpu_mla_keeps_prefix_caching() -> None:
    """I6: MLA on CPU turns chunked prefill off but leaves prefix caching on and the long-prefill threshold set."""
    r = _resolve(config=CPU_MLA, model=DSV3, platform="cpu")
    assert r.ok
    assert r.get(CP) is False and r.why(CP).provenance.rule == "cpu.mla-disables-chunked-prefill"
    assert r.get(APC) is True
    assert r.get(SC + "long_prefill_token_threshold") == 6553
    assert r.get(SC + "max_num_batched_tokens") == 163840
    assert r.get(SC + "encoder_cache_size") == 2048  # derived from the pre-hook budget
    assert _stale(r, "scheduler.encoder-budgets", SC + "max_num_batched_tokens", "cpu.mla-disables-chunked-prefill")
    assert _quirk(r, "quirk.cpu-mla-prefix-caching-still-on")

    c = _resolve("consistent", config=CPU_MLA, model=DSV3, platform="cpu")
    # re-validating the scheduler after the hook rejects partial prefills without chunked prefill (P2)
    assert not c.ok
    assert c.violations[0].rule == "scheduler.partial-prefill-limits"
    assert c.get(SC + "encoder_cache_size") == 163840
    # the hook never touches prefix caching: a single statement, not an order effect
    assert c.get(APC) is True


# --------------------------------------------------------------------------- I7


def test_i7_default_scheduler_config_leaves_chunked_prefill_none() -> None:
    """I7: a VllmConfig built directly keeps chunked_prefill_enabled None (the off-switch tests ``is False``)."""
    r = _resolve(config={}, model=LLAMA, platform="h100")
    assert r.get(SC + "enable_chunked_prefill") is None and r.get(CP) is None
    assert _quirk(r, "quirk.chunked-prefill-enabled-none")

    c = _resolve("consistent", config={}, model=LLAMA, platform="h100")
    # an identity test in one statement, not an order effect
    assert c.get(SC + "enable_chunked_prefill") is None and c.get(CP) is None
    assert _quirk(c, "quirk.chunked-prefill-enabled-none")


# --------------------------------------------------------------------------- I8


def test_i8_pooler_config_on_a_generate_runner() -> None:
    """I8: a --pooler-config on a generative model downgrades full graphs as if it were a pooling model."""
    cfg = {"model_config": {"pooler_config": {"pooling_type": "LAST"}}}
    r = _resolve(config=cfg, model=LLAMA, platform="h100", usage="serve")
    assert r.get("model_config.runner_type") == "generate"
    assert r.get(MODE) is CUDAGraphMode.PIECEWISE
    assert r.why(MODE).provenance.rule == "cudagraph.pooling-forces-piecewise"
    assert r.get(CP) is True and r.get(APC) is True  # LAST pooling of a causal model keeps both
    assert _quirk(r, "quirk.pooler-config-on-generate-runner")

    mean = _resolve(config={"model_config": {"pooler_config": {"pooling_type": "MEAN"}}}, model=LLAMA,
                    platform="h100", usage="serve")
    assert mean.get(CP) is False and mean.get(APC) is False
    assert mean.why(CP).provenance.rule == "scheduler.cp-off-switch"

    c = _resolve("consistent", config=cfg, model=LLAMA, platform="h100", usage="serve")
    # steps 12b/14 test ``pooler_config is not None`` in one statement: consistent semantics agree
    assert c.get(MODE) is CUDAGraphMode.PIECEWISE and c.get(CP) is True and c.get(APC) is True
    assert _quirk(c, "quirk.pooler-config-on-generate-runner")


# --------------------------------------------------------------------------- I9

HYBRID_POOLING_APC = {
    "cache_config": {"enable_prefix_caching": True},
    "model_config": {"runner": "pooling", "pooler_config": {"pooling_type": "MEAN"}},
}


def test_i9_hybrid_mamba_block_size_without_prefix_caching() -> None:
    """I9: the hybrid rule sets mamba_block_size with APC on, the off-switch turns APC off, the validator rejects it."""
    r = _resolve(config=HYBRID_POOLING_APC, model="ibm-ai-platform/Bamba-9B", platform="h100")
    assert not r.ok
    v = r.violations[0]
    assert v.rule == "validate.mamba-block-size-needs-prefix-caching" and v.error == "ValueError"
    assert v.message == "--mamba-block-size can only be set with --enable-prefix-caching"
    assert r.get("cache_config.mamba_block_size") == r.get("cache_config.block_size") == 768
    assert r.get(APC) is False
    stale = _stale(r, "models.hybrid-attention-block-size", APC, "scheduler.cp-off-switch")
    assert stale and stale[0].read is True and stale[0].now is False
    assert _quirk(r, "quirk.mamba-block-size-without-apc")


def test_i9_consistent_accepts_the_config() -> None:
    """I9 under consistent semantics: with APC off decided first, mamba_block_size is the whole sequence.

    The hybrid rule reads the input fact ``usage.config_updated_on_input``, not the flag its guard
    sets, so it re-decides once the off-switch turned APC off.
    """
    c = _resolve("consistent", config=HYBRID_POOLING_APC, model="ibm-ai-platform/Bamba-9B", platform="h100")
    assert c.ok
    assert c.get("cache_config.mamba_block_size") == c.get("model_config.max_model_len")


# --------------------------------------------------------------------------- I10


def test_i10_deprecated_flags_not_migrated_under_v0() -> None:
    """I10: under V0 step 19 does not run, so use_cudagraph stays True with cudagraph_mode NONE."""
    env = {"VLLM_USE_V1": "0"}
    r = _resolve(config={}, model=LLAMA, platform="h100", env=env)
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.get(CC + "use_cudagraph") is True and r.get(CC + "full_cuda_graph") is False
    assert "use_cudagraph=True" in _quirk(r, "quirk.cudagraph-flags-not-migrated")[0].message

    c = _resolve("consistent", config={}, model=LLAMA, platform="h100", env=env)
    # the migration is gated on V1 and CUDA/ROCm, not ordered: consistent semantics leave it alone
    assert c.get(MODE) is CUDAGraphMode.NONE and c.get(CC + "use_cudagraph") is True
    assert _quirk(c, "quirk.cudagraph-flags-not-migrated")


# --------------------------------------------------------------------------- I11


def test_i11_full_cuda_graph_mirror_is_not_idempotent() -> None:
    """I11: step 19 writes full_cuda_graph=True next to FULL_AND_PIECEWISE, which re-validation collapses to FULL."""
    r = _resolve(config={}, model=LLAMA, platform="h100")
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE and r.get(CC + "full_cuda_graph") is True
    assert r.why(CC + "full_cuda_graph").provenance.rule == "compilation.migrate-deprecated-flags"
    assert _quirk(r, "quirk.full-cuda-graph-not-idempotent")
    again = _resolve(config=r.config, platform="h100")
    assert again.get(MODE) is CUDAGraphMode.FULL

    c = _resolve("consistent", config={}, model=LLAMA, platform="h100")
    # the consistent fixed point is the re-validated one (compilation.full-cuda-graph re-runs on the mirror)
    assert c.get(MODE) is CUDAGraphMode.FULL and c.get(CC + "full_cuda_graph") is True
    assert not _quirk(c, "quirk.full-cuda-graph-not-idempotent")


# --------------------------------------------------------------------------- I12


def test_i12_rms_norm_disabled_and_enabled() -> None:
    """I12: a user '-rms_norm' plus sequence parallelism ends with both '-rms_norm' and '+rms_norm'."""
    cfg = {"compilation_config": {"custom_ops": ["-rms_norm"], "pass_config": {"enable_sequence_parallelism": True}}}
    r = _resolve(config=cfg, model=LLAMA, platform="h100")
    assert r.get(OPS) == ("-rms_norm", "none", "+rms_norm")
    assert _quirk(r, "quirk.rms-norm-both-signs")

    c = _resolve("consistent", config=cfg, model=LLAMA, platform="h100")
    # step 11 appends without looking for '-rms_norm': one statement, same result
    assert c.get(OPS) == r.get(OPS)
    assert _quirk(c, "quirk.rms-norm-both-signs")


# --------------------------------------------------------------------------- I13


def test_i13_disabled_kv_events_turn_hma_off() -> None:
    """I13: a kv_events_config with events disabled still turns HMA off, and it is not part of the hash."""
    off = {"kv_events_config": {"enable_kv_cache_events": False}}
    r = _resolve(config=off, model=LLAMA, platform="h100")
    assert r.get(HMA) is True and r.why(HMA).provenance.rule == "scheduler.hma-off-kv-events"
    assert _quirk(r, "quirk.hma-off-by-disabled-kv-events")
    on = _resolve(config={"kv_events_config": {"enable_kv_cache_events": True}}, model=LLAMA, platform="h100")
    assert on.hash == r.hash

    c = _resolve("consistent", config=off, model=LLAMA, platform="h100")
    # a presence test in one statement: consistent semantics agree
    assert c.get(HMA) is True
    assert _quirk(c, "quirk.hma-off-by-disabled-kv-events")


# --------------------------------------------------------------------------- I14


def test_i14_instance_id_and_debug_dump_path() -> None:
    """I14: a user instance_id is discarded and a leading '~' in debug_dump_path becomes '<cwd>/~/...'."""
    cfg = {"instance_id": "mine", "compilation_config": {"debug_dump_path": "~/dumps"}}
    r = _resolve(config=cfg, model=LLAMA, platform="h100")
    cwd = r.get("usage.cwd")
    assert r.get(CC + "debug_dump_path") == f"{cwd}/~/dumps"
    assert _quirk(r, "quirk.instance-id-ignored")
    assert _quirk(r, "quirk.debug-dump-path-tilde")

    c = _resolve("consistent", config=cfg, model=LLAMA, platform="h100")
    # absolute() before expanduser() and the unconditional step 1 are single statements
    assert c.get(CC + "debug_dump_path") == r.get(CC + "debug_dump_path")
    assert _quirk(c, "quirk.instance-id-ignored") and _quirk(c, "quirk.debug-dump-path-tilde")


# --------------------------------------------------------------------------- I15


def test_i15_rocm_aiter_rms_norm_under_eager() -> None:
    """I15: ROCm with AITER appends '+rms_norm' even under --enforce-eager (the eager guard is always False)."""
    kw: dict[str, Any] = {
        "config": {"model_config": {"enforce_eager": True}},
        "model": LLAMA,
        "platform": "mi300x",
        "env": {"VLLM_ROCM_USE_AITER": "1"},
    }
    r = _resolve(**kw)
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.get(OPS) == ("all", "+rms_norm")
    assert r.why(OPS).provenance.rule == "rocm.aiter-rms-norm"
    assert _quirk(r, "quirk.rocm-rms-norm-under-eager")

    c = _resolve("consistent", **kw)
    # a broken comparison in one statement, not an order effect
    assert c.get(OPS) == ("all", "+rms_norm")
    assert _quirk(c, "quirk.rocm-rms-norm-under-eager")


# --------------------------------------------------------------------------- P / O rows


def test_o16_cascade_warning_then_dbo_disables_cascade() -> None:
    """O16: the step-19 cascade warning is printed for FULL, then DBO disables cascade attention anyway."""
    argv = ["-dp", "2", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend", "deepep_low_latency",
            "-O", '{"cudagraph_mode": "FULL"}']
    r = _resolve(argv=argv, model=DSV3, platform="h100")
    warn = _fired(r, "cudagraph.cascade-attn-warning")
    off = _fired(r, "parallel.dbo-disables-cascade-attn")
    assert warn and off and warn[0].seq < off[0].seq
    assert r.get("model_config.disable_cascade_attn") is True


def test_o20_whisper_on_cpu_warns_then_forces_spawn() -> None:
    """O20: the Whisper fork warning reads the env before the CPU hook forces spawn."""
    r = _resolve(config={}, model="openai/whisper-large-v3", platform="cpu")
    assert _fired(r, "scheduler.whisper-spawn-warning")
    assert r.get("env.VLLM_WORKER_MULTIPROC_METHOD") == "spawn"
    assert _stale(r, "scheduler.whisper-spawn-warning", "env.VLLM_WORKER_MULTIPROC_METHOD", "cpu.env-multiproc-spawn")

    c = _resolve("consistent", config={}, model="openai/whisper-large-v3", platform="cpu")
    # with spawn decided first the warning has nothing to warn about
    assert not _fired(c, "scheduler.whisper-spawn-warning")


def test_p3_mamba2_keeps_prefix_caching() -> None:
    """P3: EngineArgs defaults APC on; Mamba2ForCausalLM supports mamba prefix caching, so it stays on."""
    r = _resolve(argv=[], model="state-spaces/mamba2-2.7b", platform="h100")
    assert r.get(APC) is True
    assert r.why(APC).provenance.rule == "engine-args.prefix-caching-default"
