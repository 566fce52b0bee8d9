"""CPU platform hook rules (reference §7.6)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules._kit import state
from postinit.rules.platforms import cpu
from postinit.schema import CompilationMode, Platform

GIB = 1 << 30


def cpu_state(
    values: dict[str, Any] | None = None,
    *,
    ipex: bool = True,
    env: dict[str, str] | None = None,
    **facts: Any,
) -> Any:
    return state(values, platform=Platform.cpu(ipex_available=ipex, **facts), env=env)


@pytest.mark.parametrize(
    ("platform", "mc", "expected"),
    [
        ("cpu", True, {"model_config.disable_cascade_attn": True}),
        ("cpu", None, None),
        ("h100", True, None),
    ],
)
def test_disable_cascade_attn(platform: str, mc: Any, expected: Any) -> None:
    """CPU with a model turns cascade attention off."""
    assert cpu.disable_cascade_attn(state({"model_config": mc}, platform=platform)) == expected


@pytest.mark.parametrize(
    ("bs", "ipex", "expected"), [(None, True, 128), (None, False, 16), (32, True, None)]
)
def test_block_size_default(bs: int | None, ipex: bool, expected: int | None) -> None:
    """Unset block size: 128 with IPEX, 16 without."""
    out = cpu.block_size_default(cpu_state({"cache_config.block_size": bs}, ipex=ipex))
    assert out == (None if expected is None else {"cache_config.block_size": expected})


@pytest.mark.parametrize(
    ("bs", "ipex", "fails"), [(128, False, True), (16, False, False), (128, True, False)]
)
def test_block_size_requires_ipex(bs: int, ipex: bool, fails: bool) -> None:
    """Without IPEX any block size but 16 is a RuntimeError."""
    out = cpu.block_size_requires_ipex(cpu_state({"cache_config.block_size": bs}, ipex=ipex))
    assert isinstance(out, Violation) == fails
    if isinstance(out, Violation):
        assert (out.error, out.message) == (
            "RuntimeError",
            f"--block-size={bs} requires intel_extension_for_pytorch",
        )


@pytest.mark.parametrize(
    ("cp", "apc", "dtype", "fails"),
    [
        (True, None, "fp8", True),
        (None, True, "fp8_e5m2", True),
        (False, False, "fp8", False),
        (True, True, "auto", False),
    ],
)
def test_fp8_kv_incompatible(cp: Any, apc: Any, dtype: str, fails: bool) -> None:
    """Chunked prefill or prefix caching with an FP8 KV cache is a RuntimeError on CPU."""
    s = cpu_state(
        {
            "scheduler_config.chunked_prefill_enabled": cp,
            "cache_config.enable_prefix_caching": apc,
            "cache_config.cache_dtype": dtype,
        }
    )
    out = cpu.fp8_kv_incompatible(s)
    assert isinstance(out, Violation) == fails
    assert not fails or out.error == "RuntimeError"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("fp8_e4m3", {"cache_config.cache_dtype": "fp8_e5m2"}), ("fp8", None), ("auto", None)],
)
def test_fp8_e4m3_to_e5m2(dtype: str, expected: Any) -> None:
    """fp8_e4m3 KV cache becomes fp8_e5m2 on CPU."""
    assert cpu.fp8_e4m3_to_e5m2(cpu_state({"cache_config.cache_dtype": dtype})) == expected


@pytest.mark.parametrize(
    ("kv", "dtype", "expected"),
    [
        ("fp8", "float16", {"model_config.dtype": "bfloat16", "model_config.head_dtype": "bfloat16"}),
        ("auto", "float16", None),
        ("fp8", "bfloat16", None),
    ],
)
def test_fp8_kv_fp16_to_bf16(kv: str, dtype: str, expected: Any) -> None:
    """An FP8 KV cache turns an fp16 model into bf16; the head dtype (a property of it) follows (t025)."""
    s = cpu_state(
        {"model_config": True, "cache_config.cache_dtype": kv, "model_config.dtype": dtype}
    )
    assert cpu.fp8_kv_fp16_to_bf16(s) == expected
    pooling = cpu_state({"model_config": True, "cache_config.cache_dtype": kv, "model_config.dtype": dtype,
                         "model_config.runner_type": "pooling"})
    if expected is not None:  # a pooling head stays float32
        assert cpu.fp8_kv_fp16_to_bf16(pooling) == {**expected, "model_config.head_dtype": "float32"}


@pytest.mark.parametrize(
    ("env", "expected", "warns"),
    [({}, 4 * GIB, True), ({"VLLM_CPU_KVCACHE_SPACE": "8"}, 8 * GIB, False)],
)
def test_kvcache_space(env: dict[str, str], expected: int, warns: bool) -> None:
    """VLLM_CPU_KVCACHE_SPACE GiB (default 4, with a warning) sizes the CPU KV cache."""
    out = cpu.kvcache_space(cpu_state(env=env))
    changes = out.changes if isinstance(out, postinit.engine.Outcome) else out
    assert changes == {"cache_config.cpu_kvcache_space_bytes": expected}
    assert isinstance(out, postinit.engine.Outcome) != warns


def test_kvcache_space_not_cpu() -> None:
    """Other platforms keep cpu_kvcache_space_bytes unset."""
    assert cpu.kvcache_space(state()) is None


@pytest.mark.parametrize(
    ("ws", "backend", "expected"),
    [(2, "ray", "mp"), (2, "mp", None), (2, None, None), (1, "ray", None)],
)
def test_executor_backend_mp(ws: int, backend: str | None, expected: str | None) -> None:
    """A multi-worker CPU config falls back to the mp executor."""
    s = cpu_state(
        {"parallel_config.world_size": ws, "parallel_config.distributed_executor_backend": backend}
    )
    out = cpu.executor_backend_mp(s)
    assert (
        None if out is None else out.changes["parallel_config.distributed_executor_backend"]
    ) == expected  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("value", "expected"), [("auto", "vllm.v1.worker.cpu_worker.CPUWorker"), ("x.W", None)]
)
def test_worker_cls(value: str, expected: str | None) -> None:
    """An "auto" worker class on CPU becomes the CPU worker."""
    out = cpu.worker_cls(cpu_state({"parallel_config.worker_cls": value}))
    assert out == (None if expected is None else {"parallel_config.worker_cls": expected})


@pytest.mark.parametrize(
    ("dbo", "expected"), [(True, {"parallel_config.enable_dbo": False}), (False, None)]
)
def test_dbo_off(dbo: bool, expected: Any) -> None:
    """Dual batch overlap is switched off on CPU."""
    assert cpu.dbo_off(cpu_state({"parallel_config.enable_dbo": dbo})) == expected


@pytest.mark.parametrize(
    ("sizes", "expected"), [(None, {"compilation_config.cudagraph_capture_sizes": []}), ([], None)]
)
def test_capture_sizes_empty(sizes: Any, expected: Any) -> None:
    """CPU always ends with an empty capture-size list."""
    assert (
        cpu.capture_sizes_empty(cpu_state({"compilation_config.cudagraph_capture_sizes": sizes}))
        == expected
    )


@pytest.mark.parametrize(
    ("mode", "ci", "backend"),
    [
        (CompilationMode.VLLM_COMPILE, "0", "inductor"),
        (CompilationMode.VLLM_COMPILE, "1", "eager"),
        (CompilationMode.NONE, "0", None),
    ],
)
def test_compile_mode_dynamo_trace_once(
    mode: CompilationMode, ci: str, backend: str | None
) -> None:
    """VLLM_COMPILE becomes DYNAMO_TRACE_ONCE; VLLM_CPU_CI_ENV != "0" picks the eager backend."""
    s = cpu_state(
        {
            "compilation_config.mode": mode,
            "compilation_config.inductor_compile_config": {"combo_kernels": True},
        },
        env={"VLLM_CPU_CI_ENV": ci},
    )
    out = cpu.compile_mode_dynamo_trace_once(s)
    if backend is None:
        assert out is None
        return
    assert out is not None
    assert out["compilation_config.mode"] is CompilationMode.DYNAMO_TRACE_ONCE  # type: ignore[index]
    assert out["compilation_config.backend"] == backend  # type: ignore[index]
    assert list(out["compilation_config.inductor_compile_config"]) == [
        "combo_kernels",
        "dce",
        "size_asserts",
        "nan_asserts",
        "epilogue_fusion",
    ]  # type: ignore[index]


@pytest.mark.parametrize(
    ("lora", "expected"), [(True, {"compilation_config.mode": CompilationMode.NONE}), (None, None)]
)
def test_lora_disables_compile(lora: Any, expected: Any) -> None:
    """LoRA on CPU sets mode NONE."""
    s = cpu_state(
        {"lora_config": lora, "compilation_config.mode": CompilationMode.DYNAMO_TRACE_ONCE}
    )
    assert cpu.lora_disables_compile(s) == expected


@pytest.mark.parametrize(("device_type", "fails"), [("cuda", True), ("cpu", False)])
def test_device_type(device_type: str, fails: bool) -> None:
    """The CPU hook asserts device_type == "cpu" (a bare AssertionError)."""
    out = cpu.device_type_is_cpu(cpu_state({"device_config.device_type": device_type}))
    assert isinstance(out, Violation) == fails
    assert not fails or out.error == "AssertionError"  # type: ignore[union-attr]


def test_env_writes() -> None:
    """The process-env effects become env.* writes; thread counts come from the platform facts."""
    s = cpu_state({"parallel_config.tensor_parallel_size": 2}, cpu_count=64, torch_num_threads=32)
    assert cpu.env_multiproc_spawn(s) == {"env.VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
    assert cpu.env_thread_counts(s) == {
        "env.TORCHINDUCTOR_COMPILE_THREADS": "1",
        "env.NUMEXPR_MAX_THREADS": "64",
        "env.OMP_NUM_THREADS": "32",
    }
    assert cpu.env_shared_experts_stream(s) == {"env.VLLM_DISABLE_SHARED_EXPERTS_STREAM": "0"}
    assert cpu.env_local_world_size(s) == {"env.LOCAL_WORLD_SIZE": "2"}
    unbound = cpu_state({"env.VLLM_CPU_OMP_THREADS_BIND": "nobind"}, cpu_count=64, torch_num_threads=32)
    assert cpu.env_thread_counts(unbound) == cpu.env_thread_counts(s)  # the seed has no nobind branch
    said = cpu.env_thread_counts(unbound, nobind=True)  # vLLM 0.11.1 (golden n166): OMP_NUM_THREADS is the user's
    assert isinstance(said, Outcome) and "env.OMP_NUM_THREADS" not in said.changes
    assert said.message == "Disabling binding processes to CPU cores..."


def test_env_writes_not_cpu() -> None:
    """No env writes on GPU platforms; unknown thread counts are not written."""
    s = state()
    assert [
        f(s)
        for f in (
            cpu.env_multiproc_spawn,
            cpu.env_thread_counts,
            cpu.env_shared_experts_stream,
            cpu.env_local_world_size,
        )
    ] == [None] * 4
    assert cpu.env_thread_counts(cpu_state()) == {"env.TORCHINDUCTOR_COMPILE_THREADS": "1"}


@pytest.mark.parametrize(
    ("mla", "max_len", "budget"), [(True, 4096, 4096), (True, 1024, 2048), (False, 4096, None)]
)
def test_mla_disables_chunked_prefill(mla: bool, max_len: int, budget: int | None) -> None:
    """MLA on CPU turns chunked prefill off and budgets max(max_model_len, 2048) tokens."""
    s = cpu_state(
        {
            "model_config": True,
            "model_config.use_mla": mla,
            "scheduler_config.max_model_len": max_len,
        }
    )
    out = cpu.mla_disables_chunked_prefill(s)
    if budget is None:
        assert out is None
    else:
        assert out == {
            "scheduler_config.enable_chunked_prefill": False,
            "scheduler_config.chunked_prefill_enabled": False,
            "scheduler_config.max_num_batched_tokens": budget,
        }


@pytest.mark.parametrize(("apc", "fires"), [(True, True), (False, False)])
def test_mla_prefix_caching_still_on(apc: bool, fires: bool) -> None:
    """Quirk I6: prefix caching stays on for MLA on CPU despite the log."""
    s = cpu_state(
        {
            "model_config": True,
            "model_config.use_mla": True,
            "cache_config.enable_prefix_caching": apc,
        }
    )
    assert (cpu.mla_prefix_caching_still_on(s) is not None) == fires


@pytest.mark.parametrize(
    ("mode", "icc", "lora", "fires"),
    [
        (CompilationMode.DYNAMO_TRACE_ONCE, {"dce": True}, None, True),
        (CompilationMode.NONE, {}, True, True),
        (CompilationMode.DYNAMO_TRACE_ONCE, {}, None, False),
        (CompilationMode.NONE, {}, None, False),
    ],
)
def test_mode_changed_after_custom_ops(
    mode: CompilationMode, icc: dict[str, Any], lora: Any, fires: bool
) -> None:
    """Quirk I4: the hook's mode change comes after custom_ops were defaulted for VLLM_COMPILE."""
    s = cpu_state(
        {
            "compilation_config.mode": mode,
            "compilation_config.custom_ops": ["none"],
            "compilation_config.inductor_compile_config": icc,
            "lora_config": lora,
        }
    )
    assert (cpu.mode_changed_after_custom_ops(s) is not None) == fires


def test_cpu_end_to_end() -> None:
    """Golden 13: DYNAMO_TRACE_ONCE, block 128, 4 GiB, CPU worker, cascade off, env writes."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/llama"}},
        platform="cpu",
        env={"VLLM_CPU_KVCACHE_SPACE": "4"},
        strict=True,
    )
    assert r.ok
    assert r.get("compilation_config.mode") is CompilationMode.DYNAMO_TRACE_ONCE
    assert r.get("cache_config.block_size") == 128
    assert r.get("cache_config.cpu_kvcache_space_bytes") == 4 * GIB
    assert r.get("parallel_config.worker_cls") == "vllm.v1.worker.cpu_worker.CPUWorker"
    assert r.get("model_config.disable_cascade_attn") is True
    assert r.get("compilation_config.cudagraph_capture_sizes") == ()
    assert r.get("env.VLLM_WORKER_MULTIPROC_METHOD") == "spawn"
    assert r.get("env.LOCAL_WORLD_SIZE") == "1"
    assert any(e.rule == "quirk.cpu-mode-changed-after-custom-ops" for e in r.trace.fired)


def test_cpu_without_ipex_hybrid_fails() -> None:
    """O2: a hybrid model's block size from step 2 hits the IPEX RuntimeError on CPU without IPEX."""
    r = postinit.resolve(
        {"model_config": {"model": "fixtures/jamba"}},
        platform=Platform.cpu(ipex_available=False),
        strict=True,
    )
    assert not r.ok
    assert r.violations[0].error == "RuntimeError"
