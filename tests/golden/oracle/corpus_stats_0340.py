#!/usr/bin/env python3
"""Statistics of the 0.34.0 golden corpus (Markdown on stdout).

    python3 tests/golden/oracle/corpus_stats_0340.py [--per-case]

Reads tests/golden/cases-0.34.0/*.json and tests/golden/expected-0.34.0/*.json
(no vLLM needed).  Prints: cases by part / mode / usage context / platform,
outcomes by stage and error type, errors by message, and for every decision
id of docs/vllm-0.34.0.md: how many cases are tagged with it and in how many
outputs its evidence (a log text, an error text, or a field change) shows.
With --per-case: one row per case (mode, platform, outcome, decisions).
"""
from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent
CASES = GOLDEN / "cases-0.34.0"
EXPECTED = GOLDEN / "expected-0.34.0"


def _logs(e):
    return [r["msg"] for r in (e.get("logs") or [])] + [
        r["msg"] for r in (e.get("logs_sub_configs") or [])]


def _err(e):
    return (e.get("error") or {}).get("message") or ""


def _chg(e, sub, field, pred=None):
    pre = ((e.get("pre") or {}).get(sub) or {})
    post = ((e.get("post") or {}).get(sub) or {})
    if field not in post:
        return False
    a, b = pre.get(field), post.get(field)
    return a != b and (pred is None or pred(a, b))


def _log_has(*subs):
    return lambda e: any(any(s in m for s in subs) for m in _logs(e))


def _err_has(*subs):
    return lambda e: any(s in _err(e) for s in subs)


def _any(*fs):
    return lambda e: any(f(e) for f in fs)


# decision id -> evidence in an output
EVIDENCE = {
    "V-DEFAULTS": lambda e: e.get("ok") is True,
    "V-MODE-DEFAULT": lambda e: _chg(e, "compilation_config", "mode", lambda a, b: a is None),
    "V-CUSTOM-OPS-DEFAULT": lambda e: _chg(e, "compilation_config", "custom_ops"),
    "V-CG-SIZES": lambda e: _chg(e, "compilation_config", "cudagraph_capture_sizes"),
    "V-ASYNC-DEFAULT": lambda e: _chg(e, "scheduler_config", "async_scheduling",
                                      lambda a, b: a is None),
    "V-ASYNC-EXPLICIT": _any(_err_has("does not support async scheduling",
                                      "Async scheduling is not compatible"),
                             lambda e: ((e.get("pre") or {}).get("scheduler_config") or {})
                             .get("async_scheduling") is not None),
    "V-ASYNC-ROCM-DEEPEP-DBO": _any(_log_has("Async scheduling is disabled for ROCm"),
                                    _err_has("Async scheduling is not compatible")),
    "V-NCCL-DP-SYNC": lambda e: _chg(e, "parallel_config",
                                     "disable_nccl_for_dp_synchronization"),
    "V-OPT-LEVEL": lambda e: _chg(e, "kernel_config", "enable_flashinfer_autotune"),
    "V-FUSION-DEFAULTS": lambda e: ((e.get("post") or {}).get("compilation_config") or {})
    .get("pass_config", {}).get("fuse_allreduce_rms") is True,
    "V-PERF-MODE": _log_has("Performance mode set to"),
    "V-ENFORCE-EAGER": _log_has("Enforce eager set"),
    "V-EAGER-CG-OFF": _log_has("Cudagraph is disabled under eager mode"),
    "V-INDUCTOR-OFF-WARN": _log_has("Inductor compilation was disabled"),
    "V-TORCH-COMPILE-DISABLE": _log_has("TORCH_COMPILE_DISABLE is set"),
    "V-BREAKABLE-CG": lambda e: ((e.get("post") or {}).get("compilation_config") or {})
    .get("use_breakable_cudagraph") is True,
    "V-NORMALIZE-PIECEWISE": _log_has("is not compatible with compilation mode"),
    "V-FINAL-PIECEWISE-ASSERT": _err_has("Compilation mode should be CompilationMode"),
    "V-QUANT-FP8-OP": lambda e: "+quant_fp8" in (((e.get("post") or {}).get(
        "compilation_config") or {}).get("custom_ops") or []),
    "V-QUANT-CONFIG": lambda e: ((e.get("post") or {}).get("vllm_config") or {})
    .get("quant_config") is not None,
    "V-QUANT-MIN-CAP": _err_has("is not supported for the current GPU"),
    "V-QUANT-DTYPE": _err_has("is not supported for quantization method"),
    "V-DEEPGEMM-BLACKWELL": _log_has("Auto-disabled DeepGemm"),
    "V-KV-FLOAT-MISMATCH": _err_has("is incompatible with dtype="),
    "V-SPEC-METRICS": _err_has("--per-request-spec-decode-metrics requires"),
    "V-TURING-FP32": _log_has("Turing devices tensor cores"),
    "V-POOLING-FULL-CG": _log_has("Pooling models do not support full cudagraphs"),
    "V-ENCDEC-CG": _log_has("Encoder-decoder models do not support"),
    "V-WHISPER-FORK-WARN": _log_has("Whisper is known to have issues"),
    "V-TORCH-SHM": _err_has("torch_shm is known to fail"),
    "V-LM-ONLY-MM-CG": _err_has("--language-model-only is incompatible"),
    "V-MM-ENCODER-ONLY": _log_has("runs the multi-modal encoder only"),
    "V-FAST-PREFILL-EAGLE": _err_has("Fast prefill optimization for KV sharing"),
    "V-FAST-PREFILL-WARN": _log_has("--kv-sharing-fast-prefill requires changes"),
    "V-KV-EVENTS-NO-APC": _log_has("KV cache events are on, but prefix caching"),
    "V-KV-EVENTS-PUBLISHER": _log_has("KV cache events are disabled"),
    "V-HMA-CONNECTOR": _log_has("Turning off hybrid kv cache manager"),
    "V-HMA-CHUNKED-LOCAL": _log_has("latency regression when using chunked local"),
    "V-HMA-EXPLICIT": _any(_err_has("Hybrid KV cache manager was explicitly enabled"),
                           lambda e: ((e.get("pre") or {}).get("scheduler_config") or {})
                           .get("disable_hybrid_kv_cache_manager") is not None),
    "V-HMA-PLATFORM": lambda e: e.get("platform", {}).get("kind") == "cpu" and (
        (e.get("post") or {}).get("scheduler_config") or {}).get(
        "disable_hybrid_kv_cache_manager") is True,
    "V-NIXL-DCP": _err_has("NIXL transfer parallel size", "PD with decode_context"),
    "V-KV-OFFLOAD": lambda e: (((e.get("post") or {}).get("kv_transfer_config") or {})
                               .get("kv_connector") or "").endswith("OffloadConnector")
    or "OffloadingConnector" == (((e.get("post") or {}).get("kv_transfer_config") or {})
                                 .get("kv_connector")),
    "V-HISPARSE": _err_has("HiSparse"),
    "V-DEBUG-DUMP": lambda e: ((e.get("post") or {}).get("compilation_config") or {})
    .get("debug_dump_path") is not None,
    "V-MAMBA-SR": _any(_err_has("Stochastic rounding for Mamba cache requires"),
                       lambda e: ((e.get("post") or {}).get("mamba_config") or {})
                       .get("enable_stochastic_rounding") is True),
    "MB-SR-CAPABILITY": _err_has("requires compute capability 10.0"),
    "V-CG-SIZES-CONSISTENCY": _err_has("should be consistent with the max value"),
    "V-CG-LEGACY-WARN": _log_has("max_cudagraph_capture_size are deprecated"),
    "V-CG-SPLIT-SIZES": lambda e: (((e.get("post") or {}).get("compilation_config") or {})
                                   .get("prefill_cudagraph_capture_token_sizes")
                                   is not None) or "holds" in _err(e)
    or "cannot be combined" in _err(e),
    "V-UBATCH-BACKENDS": _any(_err_has("Microbatching currently only supports"),
                              lambda e: ((e.get("post") or {}).get("parallel_config") or {})
                              .get("use_ubatching") is True),
    "V-MOONEP": _any(_err_has("moonep"), _log_has("MoonEP")),
    "V-MODEL-RUNNER": _err_has("model runner does not support"),
    "V-DRAFT-MAXLEN": _log_has("The draft model's max_model_len"),
    "V-SAMPLING-REPLAY": _err_has("sampling distribution replay"),
    "V-ADAPTIVE-VERIFY": _err_has("Adaptive verification"),
    "V-WATERMARK": _err_has("watermarking", "Watermark"),
    "V-KV-TRANSFER-COMPAT": _err_has("sleep mode", "expandable_segments"),
    "V-DIFFUSION-SCHED": lambda e: "diffusion_scheduler" in str(
        ((e.get("post") or {}).get("scheduler_config") or {}).get("scheduler_cls")),
    "V-NVFP4-MLA": _err_has("nvfp4"),
    "V-REPLAYSSM": _err_has("replayssm", "ReplaySSM"),
    "V-DIRECT-RELOAD": _err_has("Direct reload"),
    "V-STOCK-COMPILE-CG": _log_has("CUDA graphs are not supported with stock torch.compile"),
    "V-SPLITTING-OPS": lambda e: _chg(e, "compilation_config", "splitting_ops"),
    "V-IR-TORCH-WRAP": lambda e: _chg(e, "compilation_config", "ir_enable_torch_wrap"),
    "V-KERNEL-DEFAULTS": _log_has("Final IR op priority after setting platform defaults"),
    "V-FAST-MOE-COLD-START": lambda e: _chg(e, "compilation_config", "fast_moe_cold_start"),
    "V-EXTENSIBLE-KV": lambda e: _chg(e, "cache_config", "enable_extensible_kv_cache"),
    "V-BATCH-SHARDED-SAMPLING": lambda e: _chg(e, "parallel_config",
                                               "enable_batch_sharded_sampling"),
    "V-NO-STATIC-GRAPH": lambda e: e.get("platform", {}).get("kind") == "cpu" and (
        (e.get("post") or {}).get("compilation_config") or {}).get("cudagraph_mode") == "NONE",
    "V-HASH-LOOKAHEAD": lambda e: ((e.get("post") or {}).get("vllm_config") or {})
    .get("num_hash_lookahead_tokens", 0) > 0,
    "PC-DCP": _err_has("Decode context parallelism", "decode-context-parallel-size",
                       "must be divisible by dcp_size"),
    "V-DCP-DEFAULTS": lambda e: ((e.get("post") or {}).get("parallel_config") or {})
    .get("decode_context_parallel_size", 1) > 1,
    "PC-ALL2ALL": _log_has("all2all backend has been removed"),
    "PC-WORLD-SIZE": _err_has("is larger than the number of available GPUs"),
    "PC-DP-NON-MOE": _err_has("non-MoE", "Non-MoE", "is_moe_model"),
    "M-TP-HEADS": _err_has("must be divisible by tensor parallel size"),
    "M-PP": _err_has("Pipeline parallelism is not supported"),
    "E-PP-SUPPORTED": _err_has("Pipeline parallelism is not supported"),
    "M-DTYPE-BF16-SM75": _err_has("Bfloat16 is only supported"),
    "M-MAX-LEN": _any(_err_has("max_model_len"), _log_has("Using max model len")),
    "M-HYBRID": lambda e: ((e.get("post") or {}).get("model_config") or {})
    .get("is_hybrid") is True,
    "M-MAMBA-APC": _any(_log_has("Mamba cache mode"), _err_has("Mamba prefix caching")),
    "M-MAMBA-BLOCK-SIZE": _any(_err_has("--mamba-block-size"),
                               lambda e: _chg(e, "cache_config", "mamba_block_size")),
    "M-GPT-OSS": _log_has("Overriding max cuda graph capture size to 1024"),
    "M-POOLING-CP-APC": lambda e: ((e.get("post") or {}).get("model_config") or {})
    .get("pooler_config") is not None,
    "M-DEEPSEEK": lambda e: ((e.get("post") or {}).get("model_config") or {})
    .get("use_mla") is True,
    "SC-BUDGET-LT-MAXLEN": _err_has("is smaller than max_model_len"),
    "SC-NO-CP": lambda e: ((e.get("post") or {}).get("scheduler_config") or {})
    .get("enable_chunked_prefill") is False,
    "V-SPARSE-MLA-FACTOR": lambda e: _chg(e, "attention_config",
                                          "sparse_mla_prefill_workspace_factor"),
    "V-SPEC-SCHED-TOKENS": lambda e: _chg(e, "scheduler_config", "max_num_scheduled_tokens"),
    "V-SPEC-LOOKAHEAD": _err_has("does not have enough slots"),
    "V-DYNAMIC-SD-DP": _log_has("Dynamic speculative decoding is not supported"),
    "V-LORA": lambda e: ((e.get("post") or {}).get("lora_config")) is not None,
    "V-PROFILER": _err_has("profiler", "Proton"),
    "V-AUX-OUTPUT": _err_has("AuxOutput"),
    "V-COMPILE-RANGES": lambda e: len(((e.get("post") or {}).get("compilation_config") or {})
                                      .get("compile_ranges_endpoints") or []) > 1,
    "V-MODEL-NONE": lambda e: (e.get("post") or {}).get("model_config") is None,
    "C-CACHE-DTYPE": _log_has("data type to store kv cache"),
    "P-CHECK-CUDA": lambda e: ((e.get("post") or {}).get("parallel_config") or {})
    .get("worker_cls") == "vllm.v1.worker.gpu_worker.Worker"
    and e.get("platform", {}).get("kind") == "cuda",
    "P-CHECK-ROCM": lambda e: e.get("platform", {}).get("kind") == "rocm"
    and e.get("ok") is True,
    "P-CHECK-CPU": lambda e: e.get("platform", {}).get("kind") == "cpu" and (
        e.get("ok") is True or "Triton" in _err(e)),
    "E-BATCH-DEFAULTS": lambda e: "max_num_batched_tokens" in (
        (e.get("engine_args") or {}).get("derived") or {}),
    "E-CP-APC-DEFAULTS": lambda e: "enable_prefix_caching" in (
        (e.get("engine_args") or {}).get("derived") or {}),
    "E-OPT-LEVEL": lambda e: "optimization_level" in (
        (e.get("engine_args") or {}).get("set") or {}),
    "E-CC-DOTTED": lambda e: "compilation_config" in (
        (e.get("engine_args") or {}).get("set") or {}),
    "E-CG-SIZES-EXCLUSIVE": _err_has("cudagraph_capture_sizes and compilation_config"),
    "E-ATTN-BACKEND": _any(_err_has("attention_backend and attention_config"),
                           lambda e: "attention_backend" in (
                               (e.get("engine_args") or {}).get("set") or {})),
    "E-MAMBA-CACHE-MODE": _err_has("--mamba-cache-mode"),
    "E-DP-LB": _err_has("data-parallel", "data parallel"),
    "E-FAULT-TOLERANCE": _err_has("Fault tolerance requires"),
    "E-LORA-SPEC-BUDGET": _err_has("Consider increasing max_num_batched_tokens"),
    "E-DEFAULT-MM-LORAS": _err_has("Default modality-specific LoRA"),
    "E-KDA-BACKEND": _err_has("--kda-prefill-backend"),
    "E-FI-AUTOTUNE": _err_has("enable_flashinfer_autotune and"),
}


def load():
    rows = []
    for p in sorted(CASES.glob("*.json")):
        c = json.loads(p.read_text())
        e_path = EXPECTED / p.name
        e = json.loads(e_path.read_text()) if e_path.exists() else None
        rows.append((p.stem, c, e))
    return rows


def outcome(e):
    if e is None:
        return "missing"
    if e.get("ok"):
        return "ok"
    err = e.get("error") or {}
    return f"{e.get('stage')}: {err.get('type')}"


def plat_label(c):
    p = c.get("platform", "cuda:90")
    if isinstance(p, dict):
        kind = p.get("kind", "cuda")
        if kind == "cuda":
            return f"cuda:{p.get('capability', 90)}"
        if kind == "rocm":
            return f"rocm:{p.get('gcn_arch', 'gfx942')}"
        return kind
    if p == "rocm":
        return "rocm:gfx942"
    return p


def main(argv):
    rows = load()
    part = collections.Counter()
    mode = collections.Counter()
    plat = collections.Counter()
    outc = collections.Counter()
    by_mode_out = collections.Counter()
    msgs = collections.Counter()
    tagged = collections.Counter()
    seen = collections.Counter()
    for name, c, e in rows:
        tags = c.get("tags", [])
        part.update(t.split("=", 1)[1] for t in tags if t.startswith("part="))
        m = ("argv " + str(c.get("usage_context"))) if "argv" in c else "config"
        mode[m] += 1
        plat[plat_label(c)] += 1
        o = outcome(e)
        outc[o] += 1
        by_mode_out[("argv" if "argv" in c else "config", "ok" if o == "ok" else "error")] += 1
        if e is not None and not e.get("ok"):
            msgs[(o, re.sub(r"\d+", "N", _err(e)).split("\n")[0][:120])] += 1
        for t in tags:
            if t.startswith("decision="):
                d = t.split("=", 1)[1]
                tagged[d] += 1
        if e is not None:
            for d, f in EVIDENCE.items():
                try:
                    if f(e):
                        seen[d] += 1
                except Exception:
                    pass
    print(f"{len(rows)} cases.\n")
    print("| part | cases |\n| --- | --- |")
    for k, v in sorted(part.items()):
        print(f"| {k} | {v} |")
    print("\n| mode | cases |\n| --- | --- |")
    for k, v in sorted(mode.items()):
        print(f"| {k} | {v} |")
    print("\n| platform | cases |\n| --- | --- |")
    for k, v in sorted(plat.items()):
        print(f"| {k} | {v} |")
    print("\n| outcome (stage: error type) | cases |\n| --- | --- |")
    for k, v in sorted(outc.items(), key=lambda x: (-x[1], x[0])):
        print(f"| {k} | {v} |")
    print("\n| mode | ok | error |\n| --- | --- | --- |")
    for m in ("config", "argv"):
        print(f"| {m} | {by_mode_out[(m, 'ok')]} | {by_mode_out[(m, 'error')]} |")
    print("\nErrors by message (digits as N):\n")
    print("| n | stage: type | message |\n| --- | --- | --- |")
    for (o, m), n in sorted(msgs.items(), key=lambda x: (-x[1], x[0])):
        print(f"| {n} | {o} | {m.replace('|', '/')} |")
    print("\nDecisions: cases tagged with the id / outputs showing its evidence "
          "(any case, tagged or not):\n")
    print("| decision | tagged | evidence in |\n| --- | --- | --- |")
    for d in sorted(set(tagged) | set(EVIDENCE)):
        ev = seen.get(d, 0) if d in EVIDENCE else "—"
        print(f"| {d} | {tagged.get(d, 0)} | {ev} |")
    if "--per-case" in argv:
        print("\n| case | mode | platform | outcome | decisions / factors |")
        print("| --- | --- | --- | --- | --- |")
        for name, c, e in rows:
            tags = c.get("tags", [])
            ds = [t.split("=", 1)[1] for t in tags if t.startswith("decision=")]
            if not ds:
                ds = [t for t in tags if not t.startswith("part=")][:6]
            m = ("argv " + str(c.get("usage_context"))) if "argv" in c else "config"
            print(f"| {name} | {m} | {plat_label(c)} | {outcome(e)} | "
                  f"{', '.join(ds).replace('|', '/')[:160]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
