"""Deterministic generator of the extended golden corpus (``g###-*.json``).

Writes oracle case files (the format of /work/shared/oracle/README.md, "Case
format") into ``tests/golden/cases/``.  Run it with any Python 3.11+; it has no
dependencies and uses ``random.Random(20261202)`` only (no set iteration, no
hash-dependent order), so two runs write byte-identical files::

    python3 tests/golden/gen_cases.py            # writes tests/golden/cases/g*.json
    python3 tests/golden/gen_cases.py --dry-run  # prints counts only

Every case carries its factor assignment in ``tags`` (``"factor=level"``).

Parts:

* ``cfg``   random config-mode cases over all factors (85 % avoid the known
            early-failing combinations, 15 % may hit them);
* ``grid``  small full grids: Blackwell long context, pooling x CP x APC,
            DBO x all2all x DP, TP x DCP, SP/async TP x capture sizes,
            mode x cudagraph_mode, custom ops x platform on fp8, env switches;
* ``argv``  argv-mode cases (``vllm serve`` = OPENAI_API_SERVER and
            ``LLM(...)`` = LLM_CLASS) over the same factors.

Hard constraints (never generated): EAGLE drafts for non-LLaMA targets, MTP
for non-DeepSeek targets, max_model_len above the fixture's limit, pooling on
Whisper, speculative decoding / LoRA on pooling or encoder models,
tp * dp above the 8 simulated GPUs.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SEED = 20261202
HERE = Path(__file__).resolve().parent
OUT = HERE / "cases"

PLATFORMS = ["cuda:75", "cuda:80", "cuda:89", "cuda:90", "cuda:100", "cuda:103", "rocm", "cpu"]
MODELS = ["llama", "llama_long", "llama_fp8_block", "bert", "whisper", "deepseek_v3",
          "jamba", "qwen3_next", "llama4", None]
MAX_LEN = {"llama": 4096, "llama_long": 262144, "llama_fp8_block": 4096, "bert": 512,
           "whisper": 448, "deepseek_v3": 16384, "jamba": 8192, "qwen3_next": 262144,
           "llama4": 32768}
LLAMA_FAMILY = ("llama", "llama_long", "llama_fp8_block")
MOE = ("deepseek_v3", "qwen3_next")
MODES = [None, 0, 1, 2, 3]
CG_MODES = [None, "NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]
CUSTOM_OPS = {"default": None, "all": ["all"], "none": ["none"], "+rms_norm": ["+rms_norm"],
              "-rms_norm": ["-rms_norm"], "none,+quant_fp8": ["none", "+quant_fp8"]}
PARALLEL = {"tp1": (1, 1), "tp2": (2, 1), "tp4": (4, 1), "tp8": (8, 1), "tp2-dcp2": (2, 2),
            "tp4-dcp2": (4, 2), "tp4-dcp4": (4, 4), "tp8-dcp2": (8, 2), "tp8-dcp4": (8, 4),
            "tp2-dcp4": (2, 4)}
TRI = [None, True, False]
KV_EVENTS = {"absent": None,
             "enabled": {"enable_kv_cache_events": True, "publisher": "zmq"},
             "disabled": {"enable_kv_cache_events": False}}
KV_TRANSFER = {"kv_connector": "SharedStorageConnector", "kv_role": "kv_both",
               "kv_connector_extra_config": {"shared_storage_path": "local_storage"}}
CAPTURE = {
    "unset": {},
    "1-8": {"cudagraph_capture_sizes": [1, 2, 4, 8]},
    "odd": {"cudagraph_capture_sizes": [1, 3, 5, 7, 9, 12]},
    "sizes+max16": {"cudagraph_capture_sizes": [1, 2, 4, 8, 16], "max_cudagraph_capture_size": 16},
    "inconsistent": {"cudagraph_capture_sizes": [1, 2, 4, 8], "max_cudagraph_capture_size": 16},
    "max100": {"max_cudagraph_capture_size": 100},
    "4,3000": {"cudagraph_capture_sizes": [4, 3000]},
}
ALL2ALL = [None, "naive", "pplx", "deepep_high_throughput", "deepep_low_latency",
           "allgather_reducescatter", "flashinfer_all2allv"]
SPECS = ["none", "ngram", "eagle", "mtp"]
ENVS = {"unset": {}, "chunked_local=1": {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1"},
        "chunked_local=0": {"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"},
        "v0": {"VLLM_USE_V1": "0"}}
MAX_MODEL_LENS = [None, 4096, 131072, 131073, 200000]
POOLING = [None, "LAST", "CLS", "MEAN"]
DTYPES = ["auto", "float32", "float16"]
BUDGETS = [None, 128, 16384]


def spec_config(kind: str, argv: bool = False) -> dict | None:
    if kind == "ngram":
        return {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
    if kind == "eagle":
        return {"method": "eagle", "model": "models/llama_draft" if argv else "llama_draft",
                "num_speculative_tokens": 2}
    if kind == "mtp":
        return {"method": "deepseek_mtp", "num_speculative_tokens": 1}
    return None


def pick(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


def draw(rng: random.Random, avoid: bool) -> dict:
    """One random factor assignment (a dict of factor -> level), satisfying the
    hard constraints, and with ``avoid`` also the soft ones."""
    f: dict = {}
    f["platform"] = pick(rng, PLATFORMS)
    f["model"] = pick(rng, MODELS)
    m = f["model"]
    f["env"] = pick(rng, ["unset"] * 8 + ["chunked_local=1", "chunked_local=0"]
                    + (["v0"] if rng.random() < 0.3 else []))
    f["enforce_eager"] = pick(rng, TRI) if m else None
    f["mode"] = pick(rng, MODES)
    f["cudagraph_mode"] = pick(rng, CG_MODES)
    f["custom_ops"] = pick(rng, list(CUSTOM_OPS))
    par = pick(rng, list(PARALLEL))
    f["parallel"] = par
    f["chunked_prefill"] = pick(rng, TRI)
    f["prefix_caching"] = pick(rng, TRI)
    f["kv_transfer"] = rng.random() < 0.2
    f["kv_events"] = pick(rng, ["absent", "absent", "enabled", "disabled"])
    f["pass_config"] = pick(rng, ["none", "none", "none", "sp", "async_tp"])
    f["capture_sizes"] = pick(rng, list(CAPTURE))
    f["dbo"] = rng.random() < 0.2
    f["all2all"] = pick(rng, ALL2ALL) if (f["dbo"] or rng.random() < 0.25) else None
    f["dp"] = pick(rng, [1, 1, 1, 2])
    f["spec"] = pick(rng, SPECS)
    f["fast_prefill"] = rng.random() < 0.15
    f["lora"] = rng.random() < 0.12
    f["max_model_len"] = pick(rng, MAX_MODEL_LENS) if m else None
    f["pooling"] = pick(rng, POOLING) if rng.random() < 0.35 else None
    f["dtype"] = pick(rng, DTYPES) if m else "auto"
    f["budget"] = pick(rng, BUDGETS)
    return repair(rng, f, avoid)


def repair(rng: random.Random, f: dict, avoid: bool) -> dict:
    m = f["model"]
    tp, dcp = PARALLEL[f["parallel"]]
    # ---- hard constraints
    if m is None:
        f.update(enforce_eager=None, max_model_len=None, pooling=None, dtype="auto",
                 spec="none", lora=False, fast_prefill=False)
    if m is not None and f["max_model_len"] is not None and f["max_model_len"] > MAX_LEN[m]:
        f["max_model_len"] = None if rng.random() < 0.5 or MAX_LEN[m] < 4096 else 4096
    if m == "whisper":
        f["pooling"] = None
    if m == "bert" and f["pooling"] is None and rng.random() < 0.5:
        f["pooling"] = "native"
    if f["pooling"] or m in ("bert", "whisper"):
        f["spec"] = "none"
        f["lora"] = False
    if f["spec"] == "eagle" and m not in LLAMA_FAMILY:
        f["spec"] = "ngram" if m not in (None, "bert", "whisper") else "none"
    if f["spec"] == "eagle" and (f["max_model_len"] or 0) > 4096:
        f["max_model_len"] = None if m != "llama_long" else 4096
    if f["spec"] == "mtp" and m != "deepseek_v3":
        f["spec"] = "none"
    if f["spec"] != "none" and m == "llama_long" and f["max_model_len"] is None:
        f["max_model_len"] = 4096
    if tp * f["dp"] > 8:
        f["dp"] = 1
    if f["platform"] == "cpu":
        f["dbo"] = f["dbo"] and rng.random() < 0.5
    # ---- soft constraints (known early failures)
    if avoid:
        if f["dbo"] and f["all2all"] not in ("deepep_high_throughput", "deepep_low_latency"):
            f["all2all"] = pick(rng, ["deepep_high_throughput", "deepep_low_latency"])
        if dcp > 1 and m != "deepseek_v3":
            f["parallel"] = pick(rng, ["tp1", "tp2", "tp4", "tp8"])
            if PARALLEL[f["parallel"]][0] * f["dp"] > 8:
                f["dp"] = 1
        if f["pass_config"] != "none" and (
                f["mode"] not in (None, 3) or f["enforce_eager"] or m is None
                or f["platform"] == "cpu" or f["env"] == "v0"):
            f["pass_config"] = "none"
        if f["cudagraph_mode"] in ("PIECEWISE", "FULL_AND_PIECEWISE") and f["mode"] in (0, 1, 2):
            f["cudagraph_mode"] = pick(rng, [None, "NONE", "FULL", "FULL_DECODE_ONLY"])
        if f["capture_sizes"] == "inconsistent":
            f["capture_sizes"] = "sizes+max16"
        if f["dtype"] == "float32" and m == "llama_fp8_block":
            f["dtype"] = "auto"
        if m == "llama_fp8_block" and f["platform"] == "cuda:75":
            f["platform"] = "cuda:89"
        if f["fast_prefill"] and f["spec"] == "eagle":
            f["fast_prefill"] = False
        mml = f["max_model_len"] or (MAX_LEN[m] if m else 8192)
        if f["budget"] is not None and f["budget"] < mml and f["chunked_prefill"] is not True:
            f["chunked_prefill"] = True
    return f


def compilation(f: dict) -> dict:
    cc: dict = {}
    if f["mode"] is not None:
        cc["mode"] = f["mode"]
    if f["cudagraph_mode"] is not None:
        cc["cudagraph_mode"] = f["cudagraph_mode"]
    if CUSTOM_OPS[f["custom_ops"]] is not None:
        cc["custom_ops"] = CUSTOM_OPS[f["custom_ops"]]
    cc.update(CAPTURE[f["capture_sizes"]])
    if f["pass_config"] == "sp":
        cc["pass_config"] = {"enable_sequence_parallelism": True}
    elif f["pass_config"] == "async_tp":
        cc["pass_config"] = {"enable_async_tp": True}
    return cc


def tags(f: dict) -> list[str]:
    return [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in f.items()]


def platform_of(f: dict):
    return f["platform"]


def env_of(f: dict) -> dict:
    env = dict(ENVS[f["env"]])
    if f["platform"] == "cpu":
        env["VLLM_CPU_KVCACHE_SPACE"] = "4"
    return env


def config_case(f: dict, description: str) -> dict:
    m = f["model"]
    tp, dcp = PARALLEL[f["parallel"]]
    case: dict = {"description": description, "tags": tags(f),
                  "platform": platform_of(f), "env": env_of(f), "model": m}
    mc: dict = {}
    if f["enforce_eager"] is not None:
        mc["enforce_eager"] = f["enforce_eager"]
    if f["max_model_len"] is not None:
        mc["max_model_len"] = f["max_model_len"]
    if f["dtype"] != "auto":
        mc["dtype"] = f["dtype"]
    if m == "whisper":
        mc["skip_tokenizer_init"] = False
    if f["pooling"] == "native":
        mc["runner"] = "pooling"
    elif f["pooling"]:
        mc["runner"] = "pooling"
        if m != "bert":
            mc["convert"] = "embed"
        mc["pooler_config"] = {"pooling_type": f["pooling"]}
    if mc:
        case["model_config"] = mc
    cache: dict = {}
    if f["prefix_caching"] is not None:
        cache["enable_prefix_caching"] = f["prefix_caching"]
    if f["fast_prefill"]:
        cache["kv_sharing_fast_prefill"] = True
    if cache:
        case["cache_config"] = cache
    par: dict = {}
    if tp > 1:
        par["tensor_parallel_size"] = tp
    if dcp > 1:
        par["decode_context_parallel_size"] = dcp
    if f["dp"] > 1:
        par["data_parallel_size"] = f["dp"]
    if f["dbo"]:
        par["enable_dbo"] = True
    if f["all2all"]:
        par["all2all_backend"] = f["all2all"]
    if m in MOE and (f["dp"] > 1 or f["all2all"]):
        par["enable_expert_parallel"] = True
    if par:
        case["parallel_config"] = par
    sched: dict = {}
    if f["chunked_prefill"] is not None:
        sched["enable_chunked_prefill"] = f["chunked_prefill"]
    if f["budget"] is not None:
        sched["max_num_batched_tokens"] = f["budget"]
    elif f["chunked_prefill"] is False:
        # as EngineArgs would: without chunked prefill the budget covers a whole prompt
        mml = f["max_model_len"] or (MAX_LEN[m] if m else 8192)
        sched["max_num_batched_tokens"] = max(mml, 2048)
    if sched:
        case["scheduler_config"] = sched
    cc = compilation(f)
    if cc:
        case["compilation_config"] = cc
    if f["kv_transfer"]:
        case["kv_transfer_config"] = KV_TRANSFER
    if KV_EVENTS[f["kv_events"]] is not None:
        case["kv_events_config"] = KV_EVENTS[f["kv_events"]]
    sc = spec_config(f["spec"])
    if sc:
        case["speculative_config"] = sc
    if f["lora"]:
        case["lora_config"] = {"max_lora_rank": 16, "max_loras": 2}
    return case


def argv_case(f: dict, rng: random.Random, description: str) -> dict:
    m = f["model"] or "llama"
    f["model"] = m
    tp, dcp = PARALLEL[f["parallel"]]
    argv = [f"models/{m}"] if rng.random() < 0.3 else ["--model", f"models/{m}"]
    if tp > 1:
        argv += ["-tp", str(tp)]
    if dcp > 1:
        argv += ["-dcp", str(dcp)]
    if f["dp"] > 1:
        argv += ["--data-parallel-size", str(f["dp"])]
    if f["enforce_eager"]:
        argv += ["--enforce-eager"]
    if f["max_model_len"] is not None:
        mml = f["max_model_len"]
        argv += ["--max-model-len", "128k" if mml == 131072 and rng.random() < 0.5 else str(mml)]
    if f["budget"] is not None:
        argv += ["--max-num-batched-tokens", str(f["budget"])]
    if f["dtype"] != "auto":
        argv += ["--dtype", f["dtype"]]
    if f["prefix_caching"] is True:
        argv += ["--enable-prefix-caching"]
    elif f["prefix_caching"] is False:
        argv += ["--no-enable-prefix-caching"]
    if f["chunked_prefill"] is True:
        argv += ["--enable-chunked-prefill"]
    elif f["chunked_prefill"] is False:
        argv += ["--no-enable-chunked-prefill"]
    if f["fast_prefill"]:
        argv += ["--kv-sharing-fast-prefill"]
    if f["dbo"]:
        argv += ["--enable-dbo"]
    if f["all2all"]:
        argv += ["--all2all-backend", f["all2all"]]
    if m in MOE and (f["dp"] > 1 or f["all2all"]):
        argv += ["--enable-expert-parallel"]
    if f["pooling"] == "native":
        argv += ["--runner", "pooling"]
    elif f["pooling"]:
        argv += ["--runner", "pooling"]
        if m != "bert":
            argv += ["--convert", "embed"]
        argv += ["--pooler-config", json.dumps({"pooling_type": f["pooling"]})]
    cc = compilation(f)
    if list(cc) == ["mode"]:
        argv += pick(rng, [[f"-O{cc['mode']}"], ["-O", str(cc["mode"])], [f"-O.mode={cc['mode']}"]])
    elif set(cc) <= {"mode", "cudagraph_mode"} and cc:
        argv += [f"-O.{k}={v}" for k, v in cc.items()]
    elif cc:
        argv += ["--compilation-config", json.dumps(cc)]
    if f["kv_transfer"]:
        kt = dict(KV_TRANSFER)
        kt["kv_connector_extra_config"] = {"shared_storage_path": "/tmp/oracle-kv"}
        argv += ["--kv-transfer-config", json.dumps(kt)]
    if KV_EVENTS[f["kv_events"]] is not None:
        argv += ["--kv-events-config", json.dumps(KV_EVENTS[f["kv_events"]])]
    sc = spec_config(f["spec"], argv=True)
    if sc:
        argv += ["--speculative-config", json.dumps(sc)]
    if f["lora"]:
        argv += ["--enable-lora", "--max-lora-rank", "16", "--max-loras", "2"]
    uc = f["usage_context"]
    return {"description": description, "tags": tags(f), "argv": argv,
            "usage_context": uc, "platform": platform_of(f), "env": env_of(f)}


def base(**kw) -> dict:
    """A neutral assignment (everything unset) with overrides."""
    f = {"platform": "cuda:90", "model": "llama", "env": "unset", "enforce_eager": None,
         "mode": None, "cudagraph_mode": None, "custom_ops": "default", "parallel": "tp1",
         "chunked_prefill": None, "prefix_caching": None, "kv_transfer": False,
         "kv_events": "absent", "pass_config": "none", "capture_sizes": "unset", "dbo": False,
         "all2all": None, "dp": 1, "spec": "none", "fast_prefill": False, "lora": False,
         "max_model_len": None, "pooling": None, "dtype": "auto", "budget": None}
    f.update(kw)
    return f


def grids() -> list[tuple[str, dict]]:
    out: list[tuple[str, dict]] = []
    # Blackwell long-context rule (seed-only TRTLLM PIECEWISE) and the 131072 boundary
    for plat in ("cuda:90", "cuda:100", "cuda:103"):
        for mml in (131072, 131073, 200000):
            for cg in (None, "FULL_AND_PIECEWISE"):
                out.append(("blackwell", base(platform=plat, model="llama_long", max_model_len=mml,
                                              cudagraph_mode=cg, chunked_prefill=True, budget=16384)))
    # pooling x chunked prefill x prefix caching
    for m in ("llama", "bert", "jamba"):
        for pool in (("native",) if m == "bert" else ()) + ("LAST", "CLS", "MEAN"):
            for cp, apc in ((None, None), (True, True), (False, False)):
                out.append(("pooling", base(model=m, pooling=pool, chunked_prefill=cp,
                                            prefix_caching=apc)))
    # DBO x all2all x DP on the MLA MoE fixture
    for a2a in ALL2ALL:
        for dp in (1, 2):
            out.append(("dbo", base(model="deepseek_v3", dbo=True, all2all=a2a, dp=dp, parallel="tp2")))
    # TP x DCP on MLA and on LLaMA (GQA)
    for par in ("tp2-dcp2", "tp4-dcp2", "tp4-dcp4", "tp8-dcp4", "tp2-dcp4"):
        out.append(("dcp", base(model="deepseek_v3", parallel=par)))
    for par in ("tp2-dcp2", "tp4-dcp4"):
        out.append(("dcp", base(model="llama", parallel=par)))
    # SP / async TP x TP x capture sizes
    for pc in ("sp", "async_tp"):
        for par in ("tp2", "tp4"):
            for cs in ("unset", "odd"):
                out.append(("sp", base(pass_config=pc, parallel=par, capture_sizes=cs)))
    # mode x cudagraph_mode
    for mode in (0, 1, 2, 3):
        for cg in ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"):
            out.append(("mode-cg", base(mode=mode, cudagraph_mode=cg)))
    # custom ops x platform on the fp8 model
    for plat in ("cuda:80", "cuda:90", "rocm", "cpu"):
        for co in ("default", "none", "none,+quant_fp8"):
            out.append(("fp8-ops", base(model="llama_fp8_block", platform=plat, custom_ops=co)))
    # HMA switches: kv transfer x kv events x hybrid / chunked-local models, env
    for m in ("jamba", "llama4"):
        for kt in (False, True):
            for ke in ("absent", "enabled"):
                out.append(("hma", base(model=m, kv_transfer=kt, kv_events=ke)))
    for env in ("chunked_local=1", "chunked_local=0"):
        for kt in (False, True):
            out.append(("hma", base(model="llama4", env=env, kv_transfer=kt)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    rng = random.Random(SEED)
    cases: list[tuple[str, dict]] = []
    for part, f in grids():
        cases.append((f"grid-{part}", config_case(f, f"grid {part}")))
    n_cfg = 80
    for _ in range(n_cfg):
        avoid = rng.random() < 0.85
        f = draw(rng, avoid)
        cases.append(("cfg", config_case(f, f"random config-mode case ({'soft-valid' if avoid else 'may fail'})")))
    n_argv = 50
    for i in range(n_argv):
        avoid = rng.random() < 0.85
        f = draw(rng, avoid)
        if f["model"] is None:
            f["model"] = "llama"
            f = repair(rng, f, avoid)
        f["usage_context"] = "LLM_CLASS" if i % 2 else "OPENAI_API_SERVER"
        cases.append(("argv", argv_case(f, rng, f"random argv-mode case, {f['usage_context']}")))
    out = Path(args.out)
    if not args.dry_run:
        out.mkdir(parents=True, exist_ok=True)
        for old in sorted(out.glob("g[0-9][0-9][0-9]-*.json")):
            old.unlink()
    counts: dict[str, int] = {}
    for i, (part, case) in enumerate(cases, 1):
        stem = f"g{i:03d}-{part}"
        case = {"name": stem, **case}
        counts[part.split("-")[0]] = counts.get(part.split("-")[0], 0) + 1
        if not args.dry_run:
            (out / f"{stem}.json").write_text(json.dumps(case, indent=1) + "\n")
    print(json.dumps({"total": len(cases), **counts}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
