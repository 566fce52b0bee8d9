"""``CpuPlatform.check_and_update_config`` (phase ``platform``, step 17, reference §7.6).

Every rule is conditioned on ``platform.kind == "cpu"``. The hook's effects
on the process environment are writes to ``env.*`` facts. Not modelled: the
Intel OpenMP ``KMP_*`` variables (when ``libiomp5.so`` is in ``LD_PRELOAD``)
and the Linux/ARM ``LD_PRELOAD`` libgomp append, which depend on the host's
``LD_PRELOAD`` and torch installation and change no config value.

Quirks made visible: the hook changes ``compilation_config.mode`` after the
custom-op default was chosen for the old mode (I4,
``quirk.cpu-mode-changed-after-custom-ops``) and the MLA rule's log claims
prefix caching is disabled although it is not (I6,
``quirk.cpu-mla-prefix-caching-still-on``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule, sequence
from postinit.rules.model_config import HEAD_DTYPE_READS, head_dtype_for
from postinit.schema import CompilationMode

__all__ = [
    "block_size_default",
    "block_size_requires_ipex",
    "capture_sizes_empty",
    "compile_mode_dynamo_trace_once",
    "dbo_off",
    "device_type_is_cpu",
    "disable_cascade_attn",
    "env_local_world_size",
    "env_multiproc_spawn",
    "env_shared_experts_stream",
    "env_thread_counts",
    "executor_backend_mp",
    "fp8_e4m3_to_e5m2",
    "fp8_kv_fp16_to_bf16",
    "fp8_kv_incompatible",
    "kvcache_space",
    "lora_disables_compile",
    "mla_disables_chunked_prefill",
    "mla_prefix_caching_still_on",
    "mode_changed_after_custom_ops",
    "worker_cls",
]

_SRC = "vllm/platforms/cpu.py CpuPlatform.check_and_update_config"
_KIND = "platform.kind"
_BS = "cache_config.block_size"
_DTYPE = "cache_config.cache_dtype"
_MODE = "compilation_config.mode"
_OPS = "compilation_config.custom_ops"
_GIB = 1 << 30
_DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
_CPU_INDUCTOR_CONFIG = {
    "dce": True,
    "size_asserts": False,
    "nan_asserts": False,
    "epilogue_fusion": True,
}


def _cpu(c: Mapping[str, Any]) -> bool:
    return bool(c[_KIND] == "cpu")


@rule(
    "cpu.disable-cascade-attn",
    title="CPU disables cascade attention",
    phase="platform",
    kind="override",
    reads=(_KIND, "model_config", "model_config.disable_cascade_attn"),
    writes=("model_config.disable_cascade_attn",),
    source=f"{_SRC}; ref step-17, 7.6#1",
)
def disable_cascade_attn(c: Mapping[str, Any]) -> RuleResult:
    """The CPU attention backend has no cascade attention."""
    if _cpu(c) and c["model_config"] is not None and not c["model_config.disable_cascade_attn"]:
        return {"model_config.disable_cascade_attn": True}
    return None


@rule(
    "cpu.block-size-default",
    title="CPU default KV cache block size (128 with IPEX, else 16)",
    phase="platform",
    kind="default",
    reads=(_KIND, _BS, "platform.ipex_available"),
    writes=(_BS,),
    source=f"{_SRC}; ref step-17, 7.6#2",
)
def block_size_default(c: Mapping[str, Any], *, without_ipex: int = 16) -> RuleResult:
    """IPEX's paged attention uses 128-token blocks; the torch SDPA fallback uses ``without_ipex`` (16)."""
    if _cpu(c) and c[_BS] is None:
        return {_BS: 128 if c["platform.ipex_available"] else without_ipex}
    return None


@rule(
    "cpu.block-size-requires-ipex",
    title="A CPU block size other than 16 requires IPEX",
    phase="platform",
    kind="check",
    reads=(_KIND, _BS, "platform.ipex_available"),
    source=f"{_SRC}; ref step-17, 7.6#3, 13.1:O2",
    message="--block-size=<n> requires intel_extension_for_pytorch",
    level="error",
)
def block_size_requires_ipex(c: Mapping[str, Any]) -> RuleResult:
    """Without intel_extension_for_pytorch only 16-token blocks are supported on CPU.

    A hybrid model's block size from step 2 hits this too (O2).
    """
    if _cpu(c) and not c["platform.ipex_available"] and c[_BS] != 16:
        return Violation(
            f"--block-size={c[_BS]} requires intel_extension_for_pytorch",
            hint="install intel_extension_for_pytorch or use --block-size 16",
            error="RuntimeError",
        )
    return None


@rule(
    "cpu.fp8-kv-incompatible",
    title="FP8 KV cache excludes chunked prefill and prefix caching on CPU",
    phase="platform",
    kind="check",
    reads=(
        _KIND,
        "scheduler_config.chunked_prefill_enabled",
        "cache_config.enable_prefix_caching",
        _DTYPE,
    ),
    source=f"{_SRC}; ref step-17, 7.6#4, 13.1:O14",
    message="Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.",
    level="error",
)
def fp8_kv_incompatible(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend's FP8 KV cache supports neither chunked prefill nor prefix caching.

    It sees the flags after step 15's off-switch (O14).
    """
    flags = c["scheduler_config.chunked_prefill_enabled"] or c["cache_config.enable_prefix_caching"]
    if _cpu(c) and flags and c[_DTYPE] != "auto":
        return Violation(
            "Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.",
            hint="disable chunked prefill and prefix caching, or use --kv-cache-dtype auto",
            error="RuntimeError",
        )
    return None


@rule(
    "cpu.fp8-e4m3-to-e5m2",
    title="CPU casts an fp8_e4m3 KV cache to fp8_e5m2",
    phase="platform",
    kind="override",
    reads=(_KIND, _DTYPE, "scheduler_config.chunked_prefill_enabled", "cache_config.enable_prefix_caching"),
    writes=(_DTYPE,),
    source=f"{_SRC}; ref step-17, 7.6#5",
    message="CPU backend doesn't support fp8_e4m3 KV cache type, cast to fp8_e5m2.",
    level="warning",
)
def fp8_e4m3_to_e5m2(c: Mapping[str, Any]) -> RuleResult:
    """The CPU backend has no fp8_e4m3 KV cache kernels.

    vLLM casts after its FP8 check (``cpu.fp8-kv-incompatible``): with chunked prefill or prefix caching on,
    that check raises first and nothing is cast (or logged)."""
    if c["scheduler_config.chunked_prefill_enabled"] or c["cache_config.enable_prefix_caching"]:
        return None
    if _cpu(c) and c[_DTYPE] == "fp8_e4m3":
        return {_DTYPE: "fp8_e5m2"}
    return None


@rule(
    "cpu.fp8-kv-fp16-to-bf16",
    title="CPU FP8 KV cache casts an fp16 model to bf16",
    phase="platform",
    kind="override",
    reads=(_KIND, _DTYPE, "model_config", "scheduler_config.chunked_prefill_enabled",
           "cache_config.enable_prefix_caching", *HEAD_DTYPE_READS),
    writes=("model_config.dtype", "model_config.head_dtype"),
    source=f"{_SRC}; ref step-17, 7.6#6, 13.1:O7",
    message="FP8 KV cache on the CPU backend only does not support fp16 for now, cast to bf16.",
    level="warning",
)
def fp8_kv_fp16_to_bf16(c: Mapping[str, Any]) -> RuleResult:
    """FP8 KV cache on CPU does not support fp16 models.

    The quantization checks of step 6 already validated the old dtype (O7). vLLM's
    ``head_dtype`` is a property of the model dtype, so it follows (golden t025). Like the e4m3 cast, it comes
    after the FP8 check: with chunked prefill or prefix caching on, nothing is cast or logged (golden n089).
    """
    if c["scheduler_config.chunked_prefill_enabled"] or c["cache_config.enable_prefix_caching"]:
        return None
    fp16 = c["model_config.dtype"] in ("float16", "half")
    if _cpu(c) and c[_DTYPE] != "auto" and c["model_config"] is not None and fp16:
        return {"model_config.dtype": "bfloat16", "model_config.head_dtype": head_dtype_for(c, "bfloat16")}
    return None


@rule(
    "cpu.kvcache-space",
    title="CPU KV cache space from VLLM_CPU_KVCACHE_SPACE",
    phase="platform",
    kind="derive",
    reads=(_KIND, "env.VLLM_CPU_KVCACHE_SPACE", "cache_config.cpu_kvcache_space_bytes"),
    writes=("cache_config.cpu_kvcache_space_bytes",),
    source="vllm/platforms/cpu.py CpuPlatform.get_device_total_memory; ref step-17, 7.6#7",
    message="Environment variable VLLM_CPU_KVCACHE_SPACE (GiB) for CPU backend is not set, using 4 by default.",
    level="warning",
)
def kvcache_space(c: Mapping[str, Any]) -> RuleResult:
    """The CPU KV cache lives in host memory sized by VLLM_CPU_KVCACHE_SPACE (GiB, default 4)."""
    if not _cpu(c):
        return None
    gib = c["env.VLLM_CPU_KVCACHE_SPACE"]
    space = (4 if gib is None else gib) * _GIB
    if space == c["cache_config.cpu_kvcache_space_bytes"]:
        return None
    if gib is None:
        return {"cache_config.cpu_kvcache_space_bytes": space}  # with vLLM's warning (the header message)
    return Outcome({"cache_config.cpu_kvcache_space_bytes": space}, message="")  # vLLM logs nothing


@rule(
    "cpu.executor-backend-mp",
    title="CPU falls back to the mp executor",
    phase="platform",
    kind="override",
    reads=(_KIND, "parallel_config.world_size", "parallel_config.distributed_executor_backend"),
    writes=("parallel_config.distributed_executor_backend",),
    source=f"{_SRC}; ref step-17, 7.6#8",
    message="{backend} is not supported on CPU, fallback to mp distributed executor backend.",
    level="warning",
)
def executor_backend_mp(c: Mapping[str, Any]) -> RuleResult:
    """Only the multiprocessing executor runs multi-worker CPU inference."""
    backend = c["parallel_config.distributed_executor_backend"]
    if _cpu(c) and c["parallel_config.world_size"] > 1 and backend is not None and backend != "mp":
        return Outcome.log({"parallel_config.distributed_executor_backend": "mp"}, backend=backend)
    return None


@rule(
    "cpu.worker-cls",
    title="CPU worker class",
    phase="platform",
    kind="default",
    reads=(_KIND, "parallel_config.worker_cls"),
    writes=("parallel_config.worker_cls",),
    source=f"{_SRC}; ref step-17, 7.6#9",
)
def worker_cls(c: Mapping[str, Any]) -> RuleResult:
    """The CPU platform runs the V1 CPU worker when ``worker_cls`` is "auto"."""
    if _cpu(c) and c["parallel_config.worker_cls"] == "auto":
        return {"parallel_config.worker_cls": "vllm.v1.worker.cpu_worker.CPUWorker"}
    return None


@rule(
    "cpu.dbo-off",
    title="CPU disables dual batch overlap",
    phase="platform",
    kind="override",
    reads=(_KIND, "parallel_config.enable_dbo"),
    writes=("parallel_config.enable_dbo",),
    source=f"{_SRC}; ref step-17, 7.6#10, 13.1:O15",
    message="Dual-Batch Overlap is not supported on CPU, disabled.",
    level="warning",
)
def dbo_off(c: Mapping[str, Any]) -> RuleResult:
    """Dual-batch overlap needs GPU streams; switched off before step 20 checks it (O15)."""
    if _cpu(c) and c["parallel_config.enable_dbo"]:
        return {"parallel_config.enable_dbo": False}
    return None


@rule(
    "cpu.capture-sizes-empty",
    title="CPU captures no CUDA graphs",
    phase="platform",
    kind="override",
    reads=(_KIND, "compilation_config.cudagraph_capture_sizes"),
    writes=("compilation_config.cudagraph_capture_sizes",),
    source=f"{_SRC}; ref step-17, 7.6#11, 13.2:I3",
)
def capture_sizes_empty(c: Mapping[str, Any]) -> RuleResult:
    """A workaround for the V1 GPU model runner, which the CPU runner reuses: no capture sizes.

    ``max_cudagraph_capture_size`` and ``bs_to_padded_graph_size`` are left as
    they are (I3).
    """
    if _cpu(c) and c["compilation_config.cudagraph_capture_sizes"] != ():
        return {"compilation_config.cudagraph_capture_sizes": []}
    return None


@rule(
    "cpu.compile-mode-dynamo-trace-once",
    title="CPU compiles with DYNAMO_TRACE_ONCE instead of VLLM_COMPILE",
    phase="platform",
    kind="override",
    reads=(_KIND, _MODE, "env.VLLM_CPU_CI_ENV", "compilation_config.inductor_compile_config"),
    writes=(_MODE, "compilation_config.backend", "compilation_config.inductor_compile_config"),
    source=f"{_SRC}; ref step-17, 7.6#12, 13.1:O9, 13.2:I4",
)
def compile_mode_dynamo_trace_once(c: Mapping[str, Any]) -> RuleResult:
    """Piecewise Inductor compilation takes too long on CPU; trace once with Dynamo instead.

    ``VLLM_CPU_CI_ENV`` (an internal CI switch, read raw) selects the eager
    backend. The custom-op default of step 9 was chosen for VLLM_COMPILE (I4).
    """
    if not _cpu(c) or c[_MODE] != CompilationMode.VLLM_COMPILE:
        return None
    backend = "eager" if c["env.VLLM_CPU_CI_ENV"] != "0" else "inductor"
    inductor = {**c["compilation_config.inductor_compile_config"], **_CPU_INDUCTOR_CONFIG}
    return {
        _MODE: CompilationMode.DYNAMO_TRACE_ONCE,
        "compilation_config.backend": backend,
        "compilation_config.inductor_compile_config": inductor,
    }


@rule(
    "cpu.lora-disables-compile",
    title="CPU with LoRA does not compile",
    phase="platform",
    kind="override",
    reads=(_KIND, "lora_config", _MODE),
    writes=(_MODE,),
    source=f"{_SRC}; ref step-17, 7.6#13, 13.1:O9, 13.2:I4",
)
def lora_disables_compile(c: Mapping[str, Any]) -> RuleResult:
    """LoRA on CPU runs without torch.compile."""
    if _cpu(c) and c["lora_config"] is not None and c[_MODE] != CompilationMode.NONE:
        return {_MODE: CompilationMode.NONE}
    return None


@rule(
    "cpu.device-type",
    title="CPU platform requires device type cpu",
    phase="platform",
    kind="check",
    reads=(_KIND, "device_config.device_type"),
    source=f"{_SRC}; ref step-17, 7.6#14",
    message='assert vllm_config.device_config.device_type == "cpu"',
    level="error",
)
def device_type_is_cpu(c: Mapping[str, Any]) -> RuleResult:
    """The CPU hook only configures CPU devices (a bare assert in vLLM)."""
    if _cpu(c) and c["device_config.device_type"] != "cpu":
        return Violation(
            "",
            hint=f"device_config.device_type is {c['device_config.device_type']!r}; the CPU platform "
            'asserts it is "cpu" (bare assert, empty message)',
            error="AssertionError",
        )
    return None


@rule(
    "cpu.env-multiproc-spawn",
    title="CPU workers start with spawn",
    phase="platform",
    kind="override",
    reads=(_KIND, "env.VLLM_WORKER_MULTIPROC_METHOD"),
    writes=("env.VLLM_WORKER_MULTIPROC_METHOD",),
    source=f"{_SRC}; ref step-17, 7.6#15, 13.1:O20",
)
def env_multiproc_spawn(c: Mapping[str, Any]) -> RuleResult:
    """The CPU executor needs spawned workers (``os.environ`` write; after step 14 read it, O20)."""
    if _cpu(c) and c["env.VLLM_WORKER_MULTIPROC_METHOD"] != "spawn":
        return {"env.VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
    return None


@rule(
    "cpu.env-thread-counts",
    title="CPU thread environment (NUMEXPR, OMP, Inductor compile threads)",
    phase="platform",
    kind="override",
    reads=(_KIND, "platform.cpu_count", "platform.torch_num_threads", "env.VLLM_CPU_OMP_THREADS_BIND"),
    writes=("env.NUMEXPR_MAX_THREADS", "env.OMP_NUM_THREADS", "env.TORCHINDUCTOR_COMPILE_THREADS"),
    source=f"{_SRC}; ref step-17, 7.6#15",
    message="",
    level="info",
)
def env_thread_counts(c: Mapping[str, Any], *, nobind: bool = False) -> RuleResult:
    """NUMEXPR may use every allowed core, OpenMP torch's thread count; Inductor must not compile asynchronously in daemonic processes.

    ``NUMEXPR_MAX_THREADS``/``OMP_NUM_THREADS`` are written only when the
    ``platform.cpu_count``/``platform.torch_num_threads`` facts are known. ``nobind`` (vLLM 0.11.1):
    ``VLLM_CPU_OMP_THREADS_BIND=nobind`` leaves OMP_NUM_THREADS to the user, which vLLM logs.
    """
    if not _cpu(c):
        return None
    out: dict[str, Any] = {"env.TORCHINDUCTOR_COMPILE_THREADS": "1"}
    if c["platform.cpu_count"] is not None:
        out["env.NUMEXPR_MAX_THREADS"] = str(c["platform.cpu_count"])
    if nobind and c["env.VLLM_CPU_OMP_THREADS_BIND"] == "nobind":
        return Outcome(out, message="Disabling binding processes to CPU cores...", level="info")
    if c["platform.torch_num_threads"] is not None:
        out["env.OMP_NUM_THREADS"] = str(c["platform.torch_num_threads"])
    return out


@rule(
    "cpu.env-shared-experts-stream",
    title="CPU disables the shared-experts stream",
    phase="platform",
    kind="override",
    reads=(_KIND,),
    writes=("env.VLLM_DISABLE_SHARED_EXPERTS_STREAM",),
    source=f"{_SRC}; ref step-17, 7.6#15",
)
def env_shared_experts_stream(c: Mapping[str, Any], *, value: str = "0") -> RuleResult:
    """There are no streams on CPU for the shared experts to overlap on (``value``: what vLLM writes)."""
    if _cpu(c):
        return {"env.VLLM_DISABLE_SHARED_EXPERTS_STREAM": value}
    return None


@rule(
    "cpu.env-local-world-size",
    title="CPU LOCAL_WORLD_SIZE = tensor parallel size",
    phase="platform",
    kind="override",
    reads=(_KIND, "parallel_config.tensor_parallel_size"),
    writes=("env.LOCAL_WORLD_SIZE",),
    source=f"{_SRC}; ref step-17, 7.6#15",
)
def env_local_world_size(c: Mapping[str, Any]) -> RuleResult:
    """Hints IPEX to use its shared-memory all-reduce among the tensor-parallel workers."""
    if _cpu(c):
        return {"env.LOCAL_WORLD_SIZE": str(c["parallel_config.tensor_parallel_size"])}
    return None


@rule(
    "cpu.mla-disables-chunked-prefill",
    title="MLA on CPU disables chunked prefill",
    phase="platform",
    kind="override",
    reads=(_KIND, "model_config", "model_config.use_mla", "scheduler_config.max_model_len"),
    writes=(
        "scheduler_config.enable_chunked_prefill",
        "scheduler_config.chunked_prefill_enabled",
        "scheduler_config.max_num_batched_tokens",
    ),
    source=f"{_SRC}; ref step-17, 7.6#16, 13.2:I6, 13.1:P2",
    message="MLA is enabled on a non-GPU platform; forcing chunked prefill and prefix caching to be disabled.",
    level="info",
)
def mla_disables_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The CPU MLA path cannot chunk prefills, so the whole prompt must fit one batch.

    Despite the log, prefix caching stays as it was (I6).
    """
    if not (_cpu(c) and c["model_config"] is not None and c["model_config.use_mla"]):
        return None
    budget = max(c["scheduler_config.max_model_len"] or 0, _DEFAULT_MAX_NUM_BATCHED_TOKENS)
    return {
        "scheduler_config.enable_chunked_prefill": False,
        "scheduler_config.chunked_prefill_enabled": False,
        "scheduler_config.max_num_batched_tokens": budget,
    }


@rule(
    "quirk.cpu-mla-prefix-caching-still-on",
    title="CPU MLA leaves prefix caching on despite its log",
    phase="platform",
    kind="check",
    reads=(_KIND, "model_config", "model_config.use_mla", "cache_config.enable_prefix_caching"),
    source=f"{_SRC}; ref 7.6#16, 13.2:I6",
    level="warning",
)
def mla_prefix_caching_still_on(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's log says prefix caching is disabled for MLA on CPU, but only chunked prefill is."""
    mla = c["model_config"] is not None and c["model_config.use_mla"]
    if _cpu(c) and mla and c["cache_config.enable_prefix_caching"]:
        return Outcome(
            message="quirk I6: MLA on CPU logs that prefix caching is disabled, but "
            "cache_config.enable_prefix_caching stays True (and long_prefill_token_threshold is not reset)."
        )
    return None


@rule(
    "quirk.cpu-mode-changed-after-custom-ops",
    title="CPU changes the compilation mode after custom ops were chosen",
    phase="platform",
    kind="check",
    reads=(
        _KIND,
        _MODE,
        _OPS,
        "compilation_config.backend",
        "compilation_config.inductor_compile_config",
        "lora_config",
    ),
    source=f"{_SRC}; ref 7.6#12, 7.6#13, 13.1:O9, 13.2:I4",
    level="warning",
)
def mode_changed_after_custom_ops(c: Mapping[str, Any]) -> RuleResult:
    """Step 9 chose the custom-op default for the mode before the CPU hook changed it, and is not re-run."""
    if not _cpu(c) or "none" not in c[_OPS]:
        return None
    traced = (
        c[_MODE] == CompilationMode.DYNAMO_TRACE_ONCE
        and c["compilation_config.inductor_compile_config"].get("dce") is True
    )
    lora = c["lora_config"] is not None and c[_MODE] == CompilationMode.NONE
    if not (traced or lora):
        return None
    return Outcome(
        message=f"quirk I4: custom_ops {list(c[_OPS])} were chosen for VLLM_COMPILE before the CPU hook set "
        f"mode {c[_MODE].name} (backend {c['compilation_config.backend']!r}); every custom op stays off."
    )


CHECK_AND_UPDATE_CONFIG = sequence(
    "cpu.check-and-update-config",
    block_size_requires_ipex, fp8_kv_incompatible, compile_mode_dynamo_trace_once, lora_disables_compile,
    title="CPU: the IPEX block-size check before the FP8 KV check; the compile mode before the LoRA switch",
    source=f"{_SRC}; ref step-17",
)
