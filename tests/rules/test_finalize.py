"""Finalize-phase rules: steps 18-24 (reference §1.2, §5.5)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules import compilation, cudagraph, finalize, parallel, scheduler
from postinit.rules._kit import state
from postinit.schema import CompilationMode, CUDAGraphMode, Usage

VC = CompilationMode.VLLM_COMPILE
FAP = CUDAGraphMode.FULL_AND_PIECEWISE
PW = CUDAGraphMode.PIECEWISE
FULL = CUDAGraphMode.FULL
NONE = CUDAGraphMode.NONE


def _changes(out: Any) -> Any:
    return out.changes if isinstance(out, Outcome) else out


@pytest.mark.parametrize(
    ("mode", "partition", "fusion", "ops", "expected"),
    [
        (VC, False, False, None, list(compilation.ATTENTION_OPS)),
        (VC, True, False, None, list(compilation.ATTENTION_OPS)),
        (VC, True, True, ["x"], None),
        (VC, False, True, None, []),
        (VC, False, True, ["vllm::unified_attention"], []),
        (VC, False, False, ["x"], None),
        (CompilationMode.DYNAMO_TRACE_ONCE, False, False, None, None),
    ],
)
def test_splitting_ops(
    mode: CompilationMode, partition: bool, fusion: bool, ops: Any, expected: Any
) -> None:
    """§5.5: graph partition and None get the attention ops, attention fusion gets [], a user list stays."""
    s = state(
        {
            "compilation_config.mode": mode,
            "compilation_config.use_inductor_graph_partition": partition,
            "compilation_config.pass_config.enable_attn_fusion": fusion,
            "compilation_config.splitting_ops": ops,
        }
    )
    out = compilation.splitting_ops(s)
    assert (None if out is None else list(out["compilation_config.splitting_ops"])) == expected  # type: ignore[index]


def test_splitting_ops_empty_warns() -> None:
    """An empty user list is kept with vLLM's warning; V0 skips step 18."""
    s = state({"compilation_config.mode": VC, "compilation_config.splitting_ops": []})
    out = compilation.splitting_ops(s)
    assert (
        isinstance(out, Outcome)
        and out.message == "Using piecewise compilation with empty splitting_ops"
        and not out.changes
    )
    assert compilation.splitting_ops(state({"compilation_config.mode": VC}, env={"VLLM_USE_V1": "0"})) is None


@pytest.mark.parametrize(("cg", "expected"), [(FAP, FULL), (PW, FULL), (FULL, None), (NONE, None)])
def test_attn_fusion_forces_full(cg: CUDAGraphMode, expected: Any) -> None:
    """Attention fusion turns piecewise-containing modes into FULL."""
    s = state(
        {
            "compilation_config.mode": VC,
            "compilation_config.pass_config.enable_attn_fusion": True,
            "compilation_config.cudagraph_mode": cg,
        }
    )
    assert compilation.attn_fusion_forces_full(s) == (
        None if expected is None else {"compilation_config.cudagraph_mode": expected}
    )


@pytest.mark.parametrize(
    ("cg", "ops", "expected"),
    [(PW, [], NONE), (FAP, [], FULL), (FULL, [], None), (PW, ["x"], None), (PW, None, None)],
)
def test_empty_splitting_ops_mode(cg: CUDAGraphMode, ops: Any, expected: Any) -> None:
    """Empty splitting ops: PIECEWISE → NONE, FULL_AND_PIECEWISE → FULL, with vLLM's warnings."""
    s = state(
        {
            "compilation_config.mode": VC,
            "compilation_config.splitting_ops": ops,
            "compilation_config.cudagraph_mode": cg,
        }
    )
    out = compilation.empty_splitting_ops_mode(s)
    assert _changes(out) == (
        None if expected is None else {"compilation_config.cudagraph_mode": expected}
    )


@pytest.mark.parametrize(
    ("platform", "cg", "cascade", "fires"),
    [
        ("h100", FULL, False, True),
        ("h100", CUDAGraphMode.FULL_DECODE_ONLY, False, True),
        ("h100", FAP, False, False),
        ("h100", FULL, True, False),
        ("cpu", FULL, False, False),
    ],
)
def test_cascade_attn_warning(platform: str, cg: CUDAGraphMode, cascade: bool, fires: bool) -> None:
    """Full graphs without piecewise graphs warn about cascade attention (CUDA/ROCm, V1)."""
    s = state(
        {
            "model_config": True,
            "compilation_config.cudagraph_mode": cg,
            "model_config.disable_cascade_attn": cascade,
        },
        platform=platform,
    )
    assert ("cudagraph.cascade-attn-warning" in decide(cudagraph.STEP_19, s).rules) == fires


@pytest.mark.parametrize(
    ("platform", "cg", "mode", "fails"),
    [
        ("h100", PW, CompilationMode.NONE, True),
        ("h100", FAP, CompilationMode.DYNAMO_TRACE_ONCE, True),
        ("h100", PW, VC, False),
        ("h100", FULL, CompilationMode.NONE, False),
        ("cpu", PW, CompilationMode.NONE, False),
    ],
)
def test_piecewise_needs_vllm_compile(
    platform: str, cg: CUDAGraphMode, mode: CompilationMode, fails: bool
) -> None:
    """Piecewise graphs require VLLM_COMPILE: vLLM's AssertionError with its text."""
    got = decide(cudagraph.STEP_19, state(
        {"compilation_config.cudagraph_mode": cg, "compilation_config.mode": mode}, platform=platform))
    out = got.violation
    assert (out is not None) == fails
    if out is not None:
        assert out.error == "AssertionError"
        assert out.message.endswith(f"piecewise cudagraphs is used, cudagraph_mode={cg.name}")
        assert not got.changes  # the flags are migrated after the assertion: never reached


@pytest.mark.parametrize(
    ("platform", "cg", "expected"),
    [
        ("h100", NONE, (False, False)),
        ("mi300x", FAP, (True, True)),
        ("h100", PW, (True, False)),
        ("cpu", NONE, None),
    ],
)
def test_migrate_deprecated_flags(platform: str, cg: CUDAGraphMode, expected: Any) -> None:
    """use_cudagraph/full_cuda_graph mirror the final mode on CUDA/ROCm only."""
    s = state({"compilation_config.cudagraph_mode": cg, "compilation_config.mode": VC,
               "compilation_config.use_cudagraph": None, "compilation_config.full_cuda_graph": None},
              platform=platform)
    changes = decide(cudagraph.STEP_19, s).changes
    got = (changes["compilation_config.use_cudagraph"], changes["compilation_config.full_cuda_graph"]) \
        if changes else None
    assert got == expected


@pytest.mark.parametrize(
    ("sizes", "top", "cg", "fires"),
    [([1, 2], 2, NONE, True), ([], 0, NONE, False), ([1, 2], 2, PW, False)],
)
def test_cudagraph_none_with_capture_sizes(
    sizes: list[int], top: int, cg: CUDAGraphMode, fires: bool
) -> None:
    """Quirk I1: NONE with capture sizes left from step 12d."""
    s = state(
        {
            "compilation_config.cudagraph_capture_sizes": sizes,
            "compilation_config.max_cudagraph_capture_size": top,
            "compilation_config.cudagraph_mode": cg,
        }
    )
    assert (cudagraph.cudagraph_none_with_capture_sizes(s) is not None) == fires


@pytest.mark.parametrize(
    ("platform", "use", "fires"),
    [("cpu", True, True), ("cpu", False, False), ("h100", True, False)],
)
def test_cudagraph_flags_not_migrated(platform: str, use: bool, fires: bool) -> None:
    """Quirk I3/I10: use_cudagraph stays True with mode NONE off CUDA/ROCm."""
    s = state(
        {"compilation_config.cudagraph_mode": NONE, "compilation_config.use_cudagraph": use},
        platform=platform,
    )
    assert (cudagraph.cudagraph_flags_not_migrated(s) is not None) == fires


@pytest.mark.parametrize(
    ("cg", "full", "fires"), [(FAP, True, True), (FULL, True, False), (FAP, False, False)]
)
def test_full_cuda_graph_not_idempotent(cg: CUDAGraphMode, full: bool, fires: bool) -> None:
    """Quirk I11: full_cuda_graph=True with FULL_AND_PIECEWISE does not round-trip."""
    s = state({"compilation_config.cudagraph_mode": cg, "compilation_config.full_cuda_graph": full})
    assert (cudagraph.full_cuda_graph_not_idempotent(s) is not None) == fires


@pytest.mark.parametrize(
    ("dbo", "backend", "fails"),
    [
        (True, "allgather_reducescatter", True),
        (True, "deepep_low_latency", False),
        (False, "naive", False),
    ],
)
def test_dbo_requires_deepep(dbo: bool, backend: str, fails: bool) -> None:
    """DBO needs a DeepEP all2all backend (vLLM's assertion text)."""
    out = decide(parallel.STEP_20, state(
        {"model_config": True, "parallel_config.enable_dbo": dbo, "parallel_config.all2all_backend": backend})
    ).violation
    assert (out is not None) == fails
    if out is not None:
        assert out.error == "AssertionError" and f"{backend} is not supported." in out.message


@pytest.mark.parametrize(
    ("dbo", "mc", "cascade", "expected"),
    [
        (True, True, False, {"model_config.disable_cascade_attn": True}),
        (True, True, True, None),
        (False, True, False, None),
    ],
)
def test_dbo_disables_cascade_attn(dbo: bool, mc: Any, cascade: bool, expected: Any) -> None:
    """DBO turns cascade attention off."""
    s = state(
        {
            "parallel_config.enable_dbo": dbo,
            "parallel_config.all2all_backend": "deepep_low_latency",
            "model_config": mc,
            "model_config.disable_cascade_attn": cascade,
        }
    )
    assert (decide(parallel.STEP_20, s).changes or None) == expected


def test_dbo_without_model() -> None:
    """Without a model vLLM fails with AttributeError."""
    out = parallel.dbo_disables_cascade_attn(
        state({"parallel_config.enable_dbo": True, "model_config": None})
    )
    assert isinstance(out, Violation) and out.error == "AttributeError"


@pytest.mark.parametrize(
    ("rule", "values", "platform", "env", "fires"),
    [
        (scheduler.hma_off_platform, {}, "tpu", None, True),
        (scheduler.hma_off_platform, {}, "cpu", None, False),
        (scheduler.hma_off_platform, {}, "tpu", {"VLLM_USE_V1": "0"}, False),
        (scheduler.hma_off_kv_connector, {"kv_transfer_config": True}, "h100", None, True),
        (scheduler.hma_off_kv_connector, {}, "h100", None, False),
        (scheduler.hma_off_kv_events, {"kv_events_config": True}, "h100", None, True),
        (scheduler.hma_off_kv_events, {}, "h100", None, False),
        (
            scheduler.hma_off_chunked_local_eagle,
            {
                "model_config": True,
                "model_config.attention_chunk_size": 8192,
                "speculative_config": True,
                "speculative_config.method": "eagle",
            },
            "h100",
            None,
            True,
        ),
        (
            scheduler.hma_off_chunked_local_eagle,
            {
                "model_config": True,
                "model_config.attention_chunk_size": 8192,
                "speculative_config": True,
                "speculative_config.method": "ngram",
            },
            "h100",
            None,
            False,
        ),
        (
            scheduler.hma_off_chunked_local,
            {"model_config": True, "model_config.attention_chunk_size": 8192},
            "h100",
            None,
            True,
        ),
        (
            scheduler.hma_off_chunked_local,
            {"model_config": True, "model_config.attention_chunk_size": 8192},
            "h100",
            {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1"},
            False,
        ),
        (
            scheduler.hma_off_chunked_local,
            {"model_config": True, "model_config.attention_chunk_size": None},
            "h100",
            None,
            False,
        ),
    ],
)
def test_hma_switches(
    rule: Any, values: dict[str, Any], platform: str, env: Any, fires: bool
) -> None:
    """Step 22: each reason turns the hybrid KV cache manager off (V1 only: the group's gate)."""
    got = decide(scheduler.STEP_22, state(values, platform=platform, env=env))
    assert (rule.__postinit_rule__.id in got.rules) == fires
    if fires:
        assert got.changes == {"scheduler_config.disable_hybrid_kv_cache_manager": True}


@pytest.mark.parametrize(
    ("disabled", "kv", "fires"), [(False, True, True), (True, True, False), (False, None, False)]
)
def test_hma_kv_connector_warning(disabled: bool, kv: Any, fires: bool) -> None:
    """The connector warning is printed only while the manager was still on."""
    s = state(
        {"scheduler_config.disable_hybrid_kv_cache_manager": disabled, "kv_transfer_config": kv}
    )
    warned = [m for m in decide(scheduler.STEP_22, s).messages if m.startswith("Turning off hybrid kv cache manager")]
    assert bool(warned) == fires


@pytest.mark.parametrize(
    ("eagle", "allow", "fires"), [(None, None, True), ("eagle3", None, False), (None, "1", False)]
)
def test_hma_chunked_local_warning(eagle: Any, allow: Any, fires: bool) -> None:
    """The latency-regression warning for chunked local attention without EAGLE or the env opt-in."""
    values = {
        "model_config": True,
        "model_config.attention_chunk_size": 8192,
        "speculative_config": True if eagle else None,
        "speculative_config.method": eagle,
    }
    env = {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": allow} if allow else None
    messages = decide(scheduler.STEP_22, state(values, env=env)).messages
    assert any(m.startswith("There is a latency regression") for m in messages) == fires


@pytest.mark.parametrize(("enabled", "fires"), [(False, True), (True, False)])
def test_hma_kv_events_disabled_quirk(enabled: bool, fires: bool) -> None:
    """Quirk I13: a disabled kv_events_config still turns HMA off."""
    s = state(
        {
            "kv_events_config": True,
            "kv_events_config.enable_kv_cache_events": enabled,
            "scheduler_config.disable_hybrid_kv_cache_manager": True,
        }
    )
    assert (scheduler.hma_kv_events_disabled(s) is not None) == fires


def test_hma_kv_transfer_and_chunked_local_both_warn() -> None:
    """vLLM evaluates the gate once: both warnings print although the first reason already turned HMA off."""
    r = postinit.resolve(
        {
            "model_config": {"model": "fixtures/llama4"},
            "kv_transfer_config": {"kv_connector": "SharedStorageConnector", "kv_role": "kv_both"},
        },
        strict=True,
    )
    texts = [e.message for e in r.messages("warning")]
    assert any(t.startswith("Turning off hybrid kv cache manager") for t in texts)
    assert any(t.startswith("There is a latency regression") for t in texts)
    assert r.get("scheduler_config.disable_hybrid_kv_cache_manager") is True


@pytest.mark.parametrize(
    ("path", "cwd", "expected"),
    [
        ("dump", "/work", "/work/dump"),
        ("/abs/dump/", "/work", "/abs/dump"),
        ("~/dump", "/work", "/work/~/dump"),
        (None, "/work", None),
    ],
)
def test_debug_dump_path(path: str | None, cwd: str, expected: str | None) -> None:
    """Step 23: absolute() against usage.cwd, then expanduser() (which never expands, I14)."""
    out = compilation.debug_dump_path(state({"compilation_config.debug_dump_path": path, "usage.cwd": cwd}))
    assert out == (None if expected is None else {"compilation_config.debug_dump_path": expected})


@pytest.mark.parametrize(("config", "warns"), [("/a", True), ("/w/envdump", True), (None, False)])
def test_debug_dump_path_env(config: str | None, warns: bool) -> None:
    """VLLM_DEBUG_DUMP_PATH overrides; a warning whenever a config value existed, even an equal one (t018)."""
    s = state(
        {"compilation_config.debug_dump_path": config, "usage.cwd": "/w"},
        env={"VLLM_DEBUG_DUMP_PATH": "envdump"},
    )
    got = decide(compilation.debug_dump_path_env, s)
    assert got.changes == ({"compilation_config.debug_dump_path": "/w/envdump"} if config != "/w/envdump" else {})
    assert got.messages == (
        ["Config-specified debug dump path is overridden by VLLM_DEBUG_DUMP_PATH to /w/envdump"] if warns else [])
    assert compilation.debug_dump_path_env(state({"compilation_config.debug_dump_path": config})) is None


@pytest.mark.parametrize(
    ("path", "fires"), [("/w/~/x", True), ("/w/x", False), ("/other/~/x", False)]
)
def test_debug_dump_path_tilde(path: str, fires: bool) -> None:
    """Quirk I14: an unexpanded ~ under the cwd is reported."""
    assert (
        compilation.debug_dump_path_tilde(
            state({"compilation_config.debug_dump_path": path, "usage.cwd": "/w"})
        )
        is not None
    ) == fires


def test_debug_dump_path_end_to_end() -> None:
    """Step 23 end to end with a working-directory fact and the I14 quirk."""
    cfg = {
        "model_config": {"model": "fixtures/llama"},
        "compilation_config": {"debug_dump_path": "~/dumps"},
    }
    r = postinit.resolve(cfg, strict=True)
    assert r.get("compilation_config.debug_dump_path") == f"{Usage().cwd.rstrip('/')}/~/dumps"
    assert any(e.rule == "quirk.debug-dump-path-tilde" for e in r.trace.fired)


@pytest.mark.parametrize(
    ("qc", "wbs", "method", "hf", "ops", "expected"),
    [
        (True, [128, 128], "fp8", None, ["none"], ["none", "+quant_fp8"]),
        (
            True,
            [128, 128],
            "fp8",
            None,
            ["none", "+quant_fp8"],
            ["none", "+quant_fp8", "+quant_fp8"],
        ),
        (True, [128, 128], "fp8", None, ["-quant_fp8"], None),
        (True, None, "fp8", {"weight_block_size": [128, 128]}, ["none"], ["none", "+quant_fp8"]),
        (
            True,
            None,
            "compressed-tensors",
            {"config_groups": {"g": {"weights": {"strategy": "block"}}}},
            ["none"],
            ["none", "+quant_fp8"],
        ),
        (
            True,
            None,
            "compressed-tensors",
            {"config_groups": {"g": {"weights": {"strategy": "channel"}}}},
            ["none"],
            None,
        ),
        (True, None, "fp8", None, ["none"], None),
        (None, None, "fp8", None, ["none"], None),
    ],
)
def test_blocked_fp8_adds_quant_fp8(
    qc: Any, wbs: Any, method: str, hf: Any, ops: list[str], expected: Any
) -> None:
    """Step 24: blocked FP8 weights append '+quant_fp8' unless '-quant_fp8' (no duplicate check)."""
    s = state(
        {
            "quant_config": qc,
            "quant_config.method": method,
            "quant_config.weight_block_size": wbs,
            "model_config.hf_config.quantization_config": hf,
            "compilation_config.custom_ops": ops,
        }
    )
    out = compilation.blocked_fp8_adds_quant_fp8(s)
    assert (None if out is None else list(out["compilation_config.custom_ops"])) == expected  # type: ignore[index]


def test_dbo_end_to_end_cascade_warning_then_disable() -> None:
    """O16: with DBO and FULL graphs the cascade warning prints, then DBO disables cascade attention."""
    cfg = {
        "model_config": {"model": "fixtures/deepseek_v3"},
        "compilation_config": {"cudagraph_mode": "FULL"},
        "parallel_config": {
            "enable_dbo": True,
            "all2all_backend": "deepep_low_latency",
            "data_parallel_size": 2,
            "enable_expert_parallel": True,
        },
    }
    r = postinit.resolve(cfg, strict=True)
    rules = [e.rule for e in r.trace.fired]
    assert rules.index("cudagraph.cascade-attn-warning") < rules.index(
        "parallel.dbo-disables-cascade-attn"
    )
    assert r.get("model_config.disable_cascade_attn") is True


def test_dbo_without_deepep_end_to_end() -> None:
    """Golden 08: DBO with the default backend is vLLM's AssertionError."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/llama"}, "parallel_config": {"enable_dbo": True}},
        strict=True,
    )
    assert (
        not r.ok
        and r.violations[0].rule == "parallel.dbo-requires-deepep"
        and r.violations[0].error == "AssertionError"
    )


def test_deepep_ht_end_to_end_quirk_i1() -> None:
    """Golden 22: DeepEP HT with DP 2 ends NONE with capture sizes kept (quirk I1), flags migrated."""
    cfg = {
        "model_config": {"model": "fixtures/deepseek_v3"},
        "parallel_config": {
            "all2all_backend": "deepep_high_throughput",
            "data_parallel_size": 2,
            "enable_expert_parallel": True,
        },
    }
    r = postinit.resolve(cfg, strict=True)
    assert r.get("compilation_config.cudagraph_mode") is NONE
    assert (
        r.get("compilation_config.use_cudagraph"),
        r.get("compilation_config.full_cuda_graph"),
    ) == (False, False)
    assert r.get("compilation_config.max_cudagraph_capture_size") == 256
    assert any(e.rule == "quirk.cudagraph-none-with-capture-sizes" for e in r.trace.fired)


@pytest.mark.parametrize(("value", "info", "quirk"), [("", True, False), ("abc", False, True)])
def test_instance_id(value: str, info: bool, quirk: bool) -> None:
    """Steps 1/21: an empty id is explained; a user id is flagged as discarded (I14)."""
    s = state({"instance_id": value})
    assert (finalize.instance_id(s) is not None) == info
    assert (finalize.instance_id_ignored(s) is not None) == quirk
