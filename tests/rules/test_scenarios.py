"""End-to-end scenarios on the real catalog models: the decisions a vLLM user cares about, and who made them.

Every scenario goes through ``postinit.resolve(..., strict=True)`` with vLLM's
semantics and checks both the final value and the rule that set it
(``why(path)`` or the trace). ``argv=[...]`` resolves as ``vllm serve``.
"""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.schema import CompilationMode, CUDAGraphMode
from postinit.schema.loaders import list_catalog

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
DSV3 = "deepseek-ai/DeepSeek-V3"
SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
GPT_OSS = "openai/gpt-oss-120b"
CC = "compilation_config."
SC = "scheduler_config."
MODE = CC + "cudagraph_mode"
SIZES = CC + "cudagraph_capture_sizes"
MAX = CC + "max_cudagraph_capture_size"
OPS = CC + "custom_ops"
APC = "cache_config.enable_prefix_caching"
CP = SC + "chunked_prefill_enabled"
HMA = SC + "disable_hybrid_kv_cache_manager"
BLOCK = "cache_config.block_size"
CASCADE = "model_config.disable_cascade_attn"
LONG = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}
SIZES_512 = (1, 2, 4, *range(8, 256, 8), *range(256, 513, 16))


def _serve(*argv: str, **kw: Any) -> postinit.Resolution:
    """``vllm serve <model> <argv>`` on ``platform`` (H100 unless given)."""
    kw.setdefault("platform", "h100")
    return postinit.resolve(argv=list(argv), strict=True, **kw)


def _by(r: postinit.Resolution, path: str) -> str | None:
    """The rule that set ``path``'s final value (None for an input value)."""
    return r.why(path).provenance.rule


def _fired(r: postinit.Resolution, rule: str) -> list[Any]:
    return [f for f in r.trace.fired if f.rule == rule]


def _messages(r: postinit.Resolution, level: str | None = "warning") -> dict[str, str]:
    return {f.rule: f.message for f in r.messages(level)}


def test_scenario_models_are_in_the_catalog() -> None:
    """Every model named here is a real catalog entry, not a fixture."""
    ids = {e.id for e in list_catalog()}
    for m in (LLAMA, DSV3, SCOUT, GPT_OSS, "BAAI/bge-base-en-v1.5", "openai/whisper-large-v3",
              "ai21labs/AI21-Jamba-Mini-1.6", "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-8B-FP8"):
        assert m in ids, m


# --------------------------------------------------------------------------- defaults


def test_llama_default_serve_on_h100() -> None:
    """`vllm serve` Llama-3.1-8B on H100: budget 8192, 1024 seqs, FULL_AND_PIECEWISE, 51 sizes to 512, APC and CP on."""
    r = _serve(model=LLAMA)
    assert r.ok
    assert r.get(SC + "max_num_batched_tokens") == 8192 and r.get(SC + "max_num_seqs") == 1024
    assert _by(r, SC + "max_num_batched_tokens") == "engine-args.batch-defaults-large-gpu"
    assert r.get(CC + "mode") is CompilationMode.VLLM_COMPILE
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE and _by(r, MODE) == "cudagraph.default-mode"
    assert r.get(SIZES) == SIZES_512 and len(SIZES_512) == 51
    assert r.get(MAX) == 512 and _by(r, MAX) == "cudagraph.capture-sizes"
    assert r.get(APC) is True and _by(r, APC) == "engine-args.prefix-caching-default"
    assert r.get(CP) is True and r.get(SC + "enable_chunked_prefill") is True
    assert r.get(BLOCK) == 16 and _by(r, BLOCK) == "cuda.block-size-default"


def test_enforce_eager() -> None:
    """--enforce-eager: compilation mode NONE, no CUDA graphs, no capture sizes."""
    r = _serve("--enforce-eager", model=LLAMA)
    assert r.get(CC + "mode") is CompilationMode.NONE and _by(r, CC + "mode") == "compilation.default-mode"
    assert r.get(MODE) is CUDAGraphMode.NONE
    assert r.get(SIZES) == () and r.get(MAX) == 0
    assert _by(r, SIZES) == "cudagraph.eager-disables"
    assert r.get(OPS) == ("all",)


def test_deepseek_v3_tp2_dcp2_forces_piecewise() -> None:
    """-tp 2 -dcp 2 on DeepSeek-V3: decode context parallel downgrades full graphs to PIECEWISE."""
    r = _serve("-tp", "2", "-dcp", "2", model=DSV3)
    assert r.ok
    assert r.get(MODE) is CUDAGraphMode.PIECEWISE and _by(r, MODE) == "cudagraph.dcp-forces-piecewise"
    assert "Decode context parallel (DCP) is enabled" in _messages(r, None)["cudagraph.dcp-forces-piecewise"]
    assert r.get("model_config.use_mla") is True
    assert r.get(BLOCK) == 64 and _by(r, BLOCK) == "cuda.mla-block-size-flashmla"


def test_pooling_model_bge() -> None:
    """BAAI/bge-base-en-v1.5: pooling runner, CLS pooling, PIECEWISE, chunked prefill and prefix caching off."""
    r = _serve(model="BAAI/bge-base-en-v1.5")
    assert r.get("model_config.runner_type") == "pooling" and _by(r, "model_config.runner_type") == "model.runner-type"
    assert r.get("model_config.pooler_config.pooling_type") == "CLS"
    assert r.get(MODE) is CUDAGraphMode.PIECEWISE and _by(r, MODE) == "cudagraph.pooling-forces-piecewise"
    assert r.get(CP) is False and r.get(APC) is False
    assert _by(r, APC) == "engine-args.pooling-prefix-caching-default"
    assert r.get(SC + "max_num_batched_tokens") == 512


def test_whisper_encoder_decoder() -> None:
    """Whisper large-v3: encoder-decoder, PIECEWISE, encoder budget 1500, CP/APC off, fork warning."""
    r = _serve(model="openai/whisper-large-v3")
    assert r.get("model_config.is_encoder_decoder") is True
    assert r.get(MODE) is CUDAGraphMode.PIECEWISE and _by(r, MODE) == "cudagraph.encoder-decoder-forces-piecewise"
    assert r.get(SC + "max_num_encoder_input_tokens") == 1500
    assert _by(r, SC + "max_num_encoder_input_tokens") == "scheduler.encoder-budget"
    assert r.get(CP) is False and r.get(APC) is False
    assert "scheduler.whisper-spawn-warning" in _messages(r)


# --------------------------------------------------------------------------- Blackwell


def test_deepseek_v3_on_b200_with_200k_context() -> None:
    """DeepSeek-V3 on B200 at 200k tokens: MLA exempts it from the Blackwell rule; CUTLASS_MLA with 128-token blocks.

    163840 is the catalog's limit, so 200000 needs VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
    """
    r = _serve("--max-model-len", "200000", model=DSV3, platform="b200", env=LONG)
    assert r.ok and r.get("model_config.max_model_len") == 200000
    assert r.get("model_config.use_mla") is True
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE
    assert not _fired(r, "cudagraph.blackwell-long-context-forces-piecewise")
    assert r.get("env.VLLM_ATTENTION_BACKEND") == "CUTLASS_MLA"
    assert _by(r, "env.VLLM_ATTENTION_BACKEND") == "cuda.mla-backend-default"
    assert r.get(BLOCK) == 128 and _by(r, BLOCK) == "cuda.mla-block-size-cutlass"


@pytest.mark.parametrize(
    ("platform", "max_len", "piecewise"),
    [("b200", 200000, True), ("b200", 131072, False), ("b300", 200000, False), ("cuda:10.3", 200000, False)],
)
def test_llama_long_context_on_blackwell(platform: str, max_len: int, piecewise: bool) -> None:
    """Llama at > 131072 tokens on exactly SM 10.0 is forced to PIECEWISE; 131072 or SM 10.3 keep FULL_AND_PIECEWISE.

    Llama-3.1-8B's catalog limit is 131072, so 200000 needs VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
    """
    r = _serve("--max-model-len", str(max_len), model=LLAMA, platform=platform, env=LONG)
    assert r.ok and r.get("model_config.max_model_len") == max_len
    if piecewise:
        assert r.get(MODE) is CUDAGraphMode.PIECEWISE
        assert _by(r, MODE) == "cudagraph.blackwell-long-context-forces-piecewise"
    else:
        assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE and _by(r, MODE) == "cudagraph.default-mode"
        assert not _fired(r, "cudagraph.blackwell-long-context-forces-piecewise")


# --------------------------------------------------------------------------- DBO, connectors, events


DBO = ("-dp", "2", "--enable-expert-parallel", "--enable-dbo")


def test_dbo_with_deepep_low_latency_disables_cascade() -> None:
    """DBO with DeepEP low-latency: accepted, cascade attention turned off."""
    r = _serve(*DBO, "--all2all-backend", "deepep_low_latency", model=DSV3)
    assert r.ok
    assert r.get(CASCADE) is True and _by(r, CASCADE) == "parallel.dbo-disables-cascade-attn"
    assert _messages(r)["parallel.dbo-disables-cascade-attn"] == "Disabling cascade attention when DBO is enabled."


def test_dbo_without_deepep_is_vllms_assertion() -> None:
    """DBO with the default all2all backend: vLLM's AssertionError, verbatim."""
    r = _serve(*DBO, model=DSV3)
    assert not r.ok
    v = r.violations[0]
    assert v.rule == "parallel.dbo-requires-deepep" and v.error == "AssertionError"
    assert v.message == (
        "Microbatching currently only supports the deepep_low_latency and deepep_high_throughput all2all "
        "backend. allgather_reducescatter is not supported. To fix use --all2all-backend=deepep_low_latency "
        "or --all2all-backend=deepep_high_throughput and install the DeepEP kernels."
    )


def test_kv_connector_turns_hma_off() -> None:
    """A KV connector turns the hybrid KV cache manager off, with vLLM's warning."""
    r = _serve("--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}', model=LLAMA)
    assert r.get(HMA) is True and _by(r, HMA) == "scheduler.hma-off-kv-connector"
    assert _messages(r)["scheduler.hma-off-kv-connector"].startswith(
        "Turning off hybrid kv cache manager because `--kv-transfer-config` is set."
    )


def test_kv_events_without_prefix_caching() -> None:
    """KV events without prefix caching warn; HMA is off, and stays off when events are disabled."""
    r = _serve("--no-enable-prefix-caching", "--kv-events-config", '{"enable_kv_cache_events": true}', model=LLAMA)
    assert r.get(APC) is False
    assert "prefix caching is not enabled" in _messages(r)["kv-events.events-without-prefix-caching"]
    assert r.get(HMA) is True and _by(r, HMA) == "scheduler.hma-off-kv-events"
    off = _serve("--kv-events-config", '{"enable_kv_cache_events": false}', model=LLAMA)
    assert off.get(HMA) is True and _by(off, HMA) == "scheduler.hma-off-kv-events"
    assert "quirk.hma-off-by-disabled-kv-events" in _messages(off)


def test_async_tp_with_tp4_and_explicit_sizes() -> None:
    """Async TP with TP 4: SP forced on, '+rms_norm' appended, sizes not divisible by 4 dropped with a warning."""
    opts = '{"pass_config": {"enable_async_tp": true}, "cudagraph_capture_sizes": [1, 2, 4, 6, 8, 12, 16]}'
    r = _serve("-tp", "4", "-O", opts, model=LLAMA)
    sp = CC + "pass_config.enable_sequence_parallelism"
    assert r.get(sp) is True and _by(r, sp) == "compilation.async-tp-implies-sp"
    assert r.get(OPS) == ("none", "+rms_norm") and _by(r, OPS) == "compilation.sp-needs-rms-norm"
    assert r.get(SIZES) == (4, 8, 12, 16) and r.get(MAX) == 16
    assert _messages(r)["cudagraph.sp-filters-capture-sizes"] == (
        "Batch sizes [1, 2, 6] are removed because they are not multiple of tp_size 4 when sequence "
        "parallelism is enabled"
    )


# --------------------------------------------------------------------------- platforms


def test_cpu_platform() -> None:
    """CPU: DYNAMO_TRACE_ONCE, no CUDA graphs, 128-token blocks, cascade off, spawn written to the env."""
    r = _serve(model=LLAMA, platform="cpu")
    assert r.ok
    assert r.get(CC + "mode") is CompilationMode.DYNAMO_TRACE_ONCE
    assert _by(r, CC + "mode") == "cpu.compile-mode-dynamo-trace-once"
    assert r.get(MODE) is CUDAGraphMode.NONE and _by(r, MODE) == "cudagraph.no-static-graph-support"
    assert r.get(BLOCK) == 128 and _by(r, BLOCK) == "cpu.block-size-default"
    assert r.get(CASCADE) is True and _by(r, CASCADE) == "cpu.disable-cascade-attn"
    assert r.get("env.VLLM_WORKER_MULTIPROC_METHOD") == "spawn"
    assert _by(r, "env.VLLM_WORKER_MULTIPROC_METHOD") == "cpu.env-multiproc-spawn"
    assert r.env.VLLM_WORKER_MULTIPROC_METHOD == "spawn"
    assert r.get(SC + "max_num_batched_tokens") == 2048 and r.get(SC + "max_num_seqs") == 128
    assert _by(r, SC + "max_num_seqs") == "engine-args.batch-defaults-cpu"


def test_rocm_mi300x() -> None:
    """ROCm MI300X: the V1 GPU worker, 16-token blocks, FULL_AND_PIECEWISE; AITER adds '+rms_norm'."""
    r = _serve(model=LLAMA, platform="mi300x")
    assert r.ok
    assert r.get("parallel_config.worker_cls") == "vllm.v1.worker.gpu_worker.Worker"
    assert _by(r, "parallel_config.worker_cls") == "rocm.worker-cls"
    assert r.get(BLOCK) == 16 and _by(r, BLOCK) == "rocm.block-size-default"
    assert r.get(MODE) is CUDAGraphMode.FULL_AND_PIECEWISE
    assert r.get(OPS) == ("none",)
    aiter = _serve(model=LLAMA, platform="mi300x", env={"VLLM_ROCM_USE_AITER": "1"})
    assert aiter.get(OPS) == ("none", "+rms_norm") and _by(aiter, OPS) == "rocm.aiter-rms-norm"


# --------------------------------------------------------------------------- model families


def test_jamba_hybrid() -> None:
    """Jamba Mini: APC off by default (hybrid), block size raised, mamba page padded, cascade off."""
    r = _serve(model="ai21labs/AI21-Jamba-Mini-1.6")
    assert r.ok and r.get("model_config.is_hybrid") is True
    assert r.get(APC) is False and _by(r, APC) == "engine-args.prefix-caching-default"
    assert r.get(BLOCK) == 80 and _by(r, BLOCK) == "models.hybrid-attention-block-size"
    assert r.get("cache_config.mamba_page_size_padded") == 327680
    assert _by(r, "cache_config.mamba_page_size_padded") == "models.hybrid-mamba-page-padding"
    assert r.get(CASCADE) is True and _by(r, CASCADE) == "models.mamba-cascade-off"


def test_qwen3_next_hybrid() -> None:
    """Qwen3-Next: hybrid block size 544, padded mamba page, cascade off; --enable-prefix-caching is turned off again."""
    r = _serve(model="Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert r.ok
    assert r.get(APC) is False
    assert r.get(BLOCK) == 544 and _by(r, BLOCK) == "models.hybrid-attention-block-size"
    assert r.get("cache_config.mamba_page_size_padded") == 1114112
    assert r.get(CASCADE) is True and _by(r, CASCADE) == "models.mamba-cascade-off"
    apc = _serve("--enable-prefix-caching", model="Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert apc.get(APC) is False and _by(apc, APC) == "models.mamba-prefix-caching"


def test_llama4_scout_chunked_local_attention() -> None:
    """Llama-4 Scout: chunked local attention turns HMA off, unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1."""
    r = _serve(model=SCOUT)
    assert r.get("model_config.attention_chunk_size") == 8192
    assert r.get(HMA) is True and _by(r, HMA) == "scheduler.hma-off-chunked-local"
    assert "scheduler.hma-off-chunked-local" in _messages(r)
    allowed = _serve(model=SCOUT, env={"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1"})
    assert allowed.get(HMA) is False
    assert not _fired(allowed, "scheduler.hma-off-chunked-local")


def test_gpt_oss_reasoning_parser_and_992_capture_size() -> None:
    """GPT-OSS: openai_gptoss reasoning parser and max capture size 992 (81 sizes); a 512 budget truncates it."""
    r = _serve(model=GPT_OSS)
    parser = "structured_outputs_config.reasoning_parser"
    assert r.get(parser) == "openai_gptoss" and _by(r, parser) == "models.gptoss-reasoning-parser"
    assert r.get(MAX) == 992 and _by(r, MAX) == "models.gptoss-max-capture-size"
    assert len(r.get(SIZES)) == 81 and r.get(SIZES)[-1] == 992
    small = _serve("--max-num-batched-tokens", "512", "--max-num-seqs", "256", model=GPT_OSS)
    assert small.get(MAX) == 512 and len(small.get(SIZES)) == 51
    assert _messages(small)["cudagraph.truncate-max-capture-size"] == "Truncating max_cudagraph_capture_size to 512"


def test_fp8_block_quantized_weights() -> None:
    """Qwen3-8B-FP8: an fp8 quant_config with 128x128 blocks, and '+quant_fp8' appended to custom_ops."""
    r = _serve(model="Qwen/Qwen3-8B-FP8")
    assert r.get("model_config.quantization") == "fp8"
    assert r.get("quant_config") is True and _by(r, "quant_config") == "verify.quant-config"
    assert r.get("quant_config.weight_block_size") == (128, 128)
    assert r.get(OPS) == ("none", "+quant_fp8") and _by(r, OPS) == "compilation.blocked-fp8-adds-quant-fp8"


def test_lora() -> None:
    """--enable-lora: lora_dtype follows the model dtype; on CPU the compilation mode becomes NONE."""
    r = _serve("--enable-lora", model=LLAMA)
    assert r.get("lora_config.lora_dtype") == r.get("model_config.dtype") == "bfloat16"
    assert _by(r, "lora_config.lora_dtype") == "verify.lora-dtype"
    assert r.get(CC + "mode") is CompilationMode.VLLM_COMPILE
    cpu = _serve("--enable-lora", model=LLAMA, platform="cpu")
    assert cpu.get(CC + "mode") is CompilationMode.NONE and _by(cpu, CC + "mode") == "cpu.lora-disables-compile"
    assert cpu.get(MODE) is CUDAGraphMode.NONE


def test_v0_engine() -> None:
    """VLLM_USE_V1=0 (golden 32-env-v0): mode NONE, cudagraph NONE, no sizes, custom ops 'all', HMA untouched."""
    r = postinit.resolve({}, model=LLAMA, platform="h100", env={"VLLM_USE_V1": "0"}, strict=True)
    assert r.ok and r.get("env.VLLM_USE_V1") is False
    assert r.get(CC + "mode") is CompilationMode.NONE and _by(r, CC + "mode") == "compilation.default-mode"
    assert r.get(MODE) is CUDAGraphMode.NONE and _by(r, MODE) == "cudagraph.default-mode"
    assert r.get(SIZES) == () and r.get(MAX) == 0
    assert r.get(CC + "cudagraph_num_of_warmups") == 0
    assert r.get(OPS) == ("all",) and r.get(CC + "splitting_ops") is None
    assert r.get(HMA) is False
    assert not [f for f in r.trace.fired if f.rule.startswith("scheduler.hma-off")]
    assert r.get(CC + "use_cudagraph") is True  # never migrated under V0 (I10)


@pytest.mark.parametrize(
    ("platform", "usage", "budget", "seqs", "rule"),
    [
        ("h100", "serve", 8192, 1024, "engine-args.batch-defaults-large-gpu"),
        ("h100", "llm", 16384, 1024, "engine-args.batch-defaults-large-gpu"),
        ("a100", "serve", 2048, 256, "engine-args.batch-defaults-other-device"),
        ("a100", "llm", 8192, 256, "engine-args.batch-defaults-other-device"),
    ],
)
def test_serve_vs_llm_class(platform: str, usage: str, budget: int, seqs: int, rule: str) -> None:
    """`vllm serve` and `LLM(...)` get different batch defaults; H100 (>= 70 GiB) and A100 differ too."""
    r = postinit.resolve(model=LLAMA, platform=platform, usage=usage, strict=True)  # type: ignore[arg-type]
    assert r.get(SC + "max_num_batched_tokens") == budget and r.get(SC + "max_num_seqs") == seqs
    assert _by(r, SC + "max_num_batched_tokens") == rule and _by(r, SC + "max_num_seqs") == rule
    assert r.get(MAX) == 512
