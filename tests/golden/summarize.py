"""Regenerate the generated sections of README.md and LOG_MESSAGES.md from the
stripped outputs in expected/ (exact seed) and expected-0.11.1/.

    python3 tests/golden/summarize.py

README.md keeps its hand-written text; only the blocks between
``<!-- BEGIN:<name> -->`` and ``<!-- END:<name> -->`` are replaced.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
VARIANTS = {"seed": HERE / "expected", "0.11.1": HERE / "expected-0.11.1"}

# Properties/derived attributes the oracle adds to a sub-config dump besides
# its dataclass fields (vllm_oracle.py MODEL_EXTRA_ATTRS etc.).
EXTRAS = {
    "model_config": ["architecture", "architectures", "runner_type", "convert_type",
                     "is_encoder_decoder", "is_hybrid", "use_mla", "attention_chunk_size",
                     "is_multimodal_model", "is_deepseek_mla", "has_inner_state",
                     "is_attention_free", "uses_mrope", "is_matryoshka", "max_model_len",
                     "head_dtype", "config_updated"],
    "scheduler_config": ["chunked_prefill_enabled", "max_num_encoder_input_tokens",
                         "encoder_cache_size"],
    "compilation_config": ["use_cudagraph", "full_cuda_graph", "level", "enabled_custom_ops",
                           "disabled_custom_ops", "bs_to_padded_graph_size"],
    "parallel_config": ["world_size", "world_size_across_dp", "use_ray",
                        "use_sequence_parallel_moe"],
    "speculative_config": ["method", "num_speculative_tokens", "use_eagle"],
}

NOTES = {
    "model_config.hf_config.model_type": "not a field: `hf_config.model_type` of the loaded HF config (literal dotted key)",
    "model_config.hf_config.is_causal": "not a field: `getattr(hf_config, 'is_causal', None)` (literal dotted key); decides the pooling CP/APC blocker",
    "model_config.dtype": "torch dtype written without `torch.` (`bfloat16`, `float32`, `float16`)",
    "model_config.head_dtype": "torch dtype, no `torch.` prefix",
    "model_config.model": "relative fixture path `models/<fixture>`",
    "model_config.tokenizer": "relative fixture path `models/<fixture>`",
    "model_config.max_model_len": "resolved max length (fixture limit or the user value)",
    "model_config.pooler_config": "PoolerConfig dumped as an object (`pooling_type`, `normalize`, ...) or null",
    "model_config.disable_cascade_attn": "set True by DBO (and by hybrid-model rules)",
    "model_config.enforce_eager": "user value (default false)",
    "model_config.skip_tokenizer_init": "config mode: oracle default true (false for Whisper cases)",
    "model_config.seed": "at the seed: null under VLLM_USE_V1=0, else 0",
    "model_config.config_updated": "set by try_verify_and_update_config",
    "cache_config.block_size": "null until a platform hook / model rule sets it (16 CUDA default, 64 FlashMLA, 128 CUTLASS MLA / CPU+IPEX, hybrid-aligned values)",
    "cache_config.enable_prefix_caching": "null = unset; the final off-switch writes false",
    "cache_config.mamba_page_size_padded": "hybrid models: padded mamba state page size",
    "cache_config.cache_dtype": "string (`auto`, `fp8`...)",
    "parallel_config.world_size": "property: pp * tp",
    "parallel_config.world_size_across_dp": "property: world_size * dp",
    "parallel_config.all2all_backend": "string backend name or null",
    "parallel_config.eplb_config": "nested EPLBConfig object",
    "parallel_config.worker_cls": "class path string, set by the platform hook (`auto` before)",
    "scheduler_config.chunked_prefill_enabled": "seed: its own field (may be null); the final off-switch writes only this one. 0.11.1: alias of enable_chunked_prefill",
    "scheduler_config.enable_chunked_prefill": "user intent; seed default null (counts as off)",
    "scheduler_config.max_model_len": "seed: a field (recalculate_max_model_len writes it); 0.11.1: init-var, listed in `_absent`",
    "scheduler_config.max_num_batched_tokens": "seed: derived when null (see README Derivations)",
    "scheduler_config.scheduler_cls": "class path string at the seed (null in 0.11.1)",
    "scheduler_config.disable_hybrid_kv_cache_manager": "HMA switch; VllmConfig sets it true (kv transfer/events, chunked local attn, platform)",
    "scheduler_config.max_num_encoder_input_tokens": "property/init=False; enc-dec: overwritten with the encoder length",
    "compilation_config.mode": "enum by NAME: NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE (plain ints 0-3 at the seed, written by name)",
    "compilation_config.level": "deprecated alias; null unless given",
    "compilation_config.cudagraph_mode": "CUDAGraphMode by NAME: NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE; null = unset",
    "compilation_config.custom_ops": "list of str in vLLM's append order (`none`/`all` default, `+rms_norm`, `+quant_fp8` appended)",
    "compilation_config.splitting_ops": "list of op names or null (set by set_splitting_ops_for_v1 only under VLLM_COMPILE)",
    "compilation_config.cudagraph_capture_sizes": "sorted ascending list of int (vLLM stores it ascending at the seed); [] when eager",
    "compilation_config.max_cudagraph_capture_size": "int or null; 0 when eager",
    "compilation_config.bs_to_padded_graph_size": "RUN-LENGTH: [[from_bs, to_bs, padded], ...], inclusive, contiguous from bs 0; null when never computed (no static graph platform). `corpus.decompress_padding`",
    "compilation_config.use_cudagraph": "seed only (deprecated flag migrated in the final check); 0.11.1: in `_absent`",
    "compilation_config.full_cuda_graph": "seed only; 0.11.1: in `_absent`",
    "compilation_config.pass_config": "nested PassConfig object (enable_sequence_parallelism, enable_async_tp, enable_fusion, ...)",
    "compilation_config.enabled_custom_ops": "Counter dumped as an object (empty: nothing compiled)",
    "compilation_config.disabled_custom_ops": "Counter dumped as an object",
    "compilation_config.cudagraph_num_of_warmups": "1 under V1 with cudagraphs, else 0",
    "compilation_config.backend": "platform default resolved from `\"\"` (`inductor`)",
    "compilation_config.static_forward_context": "empty object",
    "compilation_config._absent": "requested attributes missing in this vLLM version",
    "vllm_config.quant_config": "repr-string of the QuantizationConfig (fp8 fixture) or null",
    "vllm_config.additional_config": "object",
    "speculative_config.target_model_config": "nested ModelConfig dump (dataclass fields only, no extras)",
    "speculative_config.draft_model_config": "nested ModelConfig dump",
    "speculative_config.target_parallel_config": "nested ParallelConfig dump (volatile port fields left out)",
    "speculative_config.draft_parallel_config": "nested ParallelConfig dump",
    "kv_transfer_config.engine_id": "volatile (uuid): never in the dump",
}


def jtype(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        inner = sorted({jtype(x) for x in v})
        return f"list[{'|'.join(inner)}]" if inner else "list"
    return "object"


def load(variant: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(VARIANTS[variant].glob("*.json"))]


def outcome_key(d: dict) -> str:
    if d.get("ok"):
        return "ok"
    e = d.get("error") or d.get("oracle_crash") or {}
    return f"{d.get('stage')}: {e.get('type')}"


def outcomes(data: dict[str, list[dict]]) -> str:
    cnt = {v: Counter(outcome_key(d) for d in ds) for v, ds in data.items()}
    keys = sorted(set().union(*cnt.values()), key=lambda k: (k != "ok", -cnt["seed"][k], k))
    lines = ["| stage: error type | exact seed | 0.11.1 |", "| --- | --- | --- |"]
    for k in keys:
        lines.append(f"| {k} | {cnt['seed'][k]} | {cnt['0.11.1'][k]} |")
    lines.append(f"| **total** | {sum(cnt['seed'].values())} | {sum(cnt['0.11.1'].values())} |")
    # split shipped / generated / targeted
    for v, ds in data.items():
        g = Counter(outcome_key(d) for d in ds if d["name"].startswith("g"))
        t = Counter(outcome_key(d) for d in ds if d["name"].startswith("t"))
        s = Counter(outcome_key(d) for d in ds if d["name"][:1].isdigit())
        lines.append("")
        lines.append(f"{v}: shipped 01-59 {dict(sorted(s.items()))}; generated g### {dict(sorted(g.items()))}; "
                     f"targeted t### {dict(sorted(t.items()))}")
    msgs = Counter()
    for d in data["seed"]:
        if not d.get("ok"):
            e = d.get("error") or {}
            m = re.sub(r"\d+", "N", (e.get("message") or "").split("\n")[0])[:110]
            msgs[f"{d.get('stage')}: {e.get('type')}: {m}"] += 1
    lines += ["", "Exact-seed errors by message (digits normalised to N):", "",
              "| n | stage: type: message |", "| --- | --- |"]
    for m, n in msgs.most_common():
        lines.append(f"| {n} | {m.replace('|', '/')} |")
    return "\n".join(lines)


def field_map(seed: list[dict], v0111: list[dict]) -> str:
    types: dict[str, dict[str, Counter]] = {}
    values: dict[tuple[str, str], Counter] = {}
    only_0111: dict[str, set] = {}
    for d in seed:
        for sub, obj in (d.get("post") or {}).items():
            if not isinstance(obj, dict):
                continue
            for k, v in obj.items():
                types.setdefault(sub, {}).setdefault(k, Counter())[jtype(v)] += 1
                if not isinstance(v, (dict, list)):
                    values.setdefault((sub, k), Counter())[json.dumps(v)] += 1
    for d in v0111:
        for sub, obj in (d.get("post") or {}).items():
            if isinstance(obj, dict):
                for k in obj:
                    if k not in types.get(sub, {}):
                        only_0111.setdefault(sub, set()).add(k)
    out = []
    for sub in types:
        out.append(f"\n#### `{sub}`\n")
        out.append("| key | JSON type(s) | note / values seen (exact seed) |")
        out.append("| --- | --- | --- |")
        for k in sorted(types[sub]):
            ty = " \\| ".join(sorted(types[sub][k]))
            note = NOTES.get(f"{sub}.{k}", "")
            if k in EXTRAS.get(sub, []) and "property" not in note and "not a field" not in note:
                note = ("(oracle extra: property/derived attribute) " + note).strip()
            vals = values.get((sub, k))
            if vals and len(vals) <= 8:
                seen = ", ".join(f"`{x}`" for x, _ in sorted(vals.items()))
                note = f"{note}; seen: {seen}" if note else f"seen: {seen}"
            elif vals:
                note = f"{note}; {len(vals)} distinct values" if note else f"{len(vals)} distinct values"
            out.append(f"| `{k}` | {ty} | {note.replace('|', '/')} |")
        if only_0111.get(sub):
            out.append(f"\nOnly in 0.11.1 dumps: {', '.join(f'`{k}`' for k in sorted(only_0111[sub]))}.")
    return "\n".join(out)


def log_messages(data: dict[str, list[dict]], top: int = 60) -> str:
    rec = {v: Counter() for v in data}
    cases = {v: Counter() for v in data}
    level = {}
    for v, ds in data.items():
        for d in ds:
            seen = set()
            for r in [*(d.get("logs_sub_configs") or []), *(d.get("logs") or [])]:
                m = r["msg"]
                rec[v][m] += 1
                level.setdefault(m, r["level"])
                if m not in seen:
                    cases[v][m] += 1
                    seen.add(m)
    lines = [
        "# vLLM log messages in the golden corpus",
        "",
        "Generated by `python3 tests/golden/summarize.py` from `expected/` (exact seed) and",
        "`expected-0.11.1/`: the distinct `msg` texts of the records vLLM emitted while building the",
        "sub-configs (`logs_sub_configs`) and during `VllmConfig(...)` (`logs`; INFO+ always, DEBUG only",
        "from vllm.config*, vllm.platforms*,",
        "models.config, engine.arg_utils, multimodal.registry; hex addresses normalised to `0x?`).",
        "Messages are the fully formatted texts, so one template with different arguments",
        "appears as several rows. Our rules must reproduce these texts.",
        "",
        f"Distinct messages: exact seed {len(rec['seed'])}, 0.11.1 {len(rec['0.11.1'])}.",
        f"Top {top} by number of cases (exact seed):",
        "",
        "| # | level | cases (seed) | records (seed) | cases (0.11.1) | msg |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for i, (m, n) in enumerate(sorted(cases["seed"].items(), key=lambda kv: (-kv[1], kv[0]))[:top], 1):
        mm = m.replace("|", "\\|").replace("\n", " ⏎ ")
        lines.append(f"| {i} | {level[m]} | {n} | {rec['seed'][m]} | {cases['0.11.1'][m]} | `{mm}` |")
    only = sorted(set(cases["0.11.1"]) - set(cases["seed"]), key=lambda m: -cases["0.11.1"][m])
    lines += ["", f"Messages only 0.11.1 emits ({len(only)}; top 20):", ""]
    for m in only[:20]:
        lines.append(f"- ({cases['0.11.1'][m]} cases, {level[m]}) `{m.replace(chr(10), ' ⏎ ')}`")
    return "\n".join(lines) + "\n"


def replace_block(text: str, name: str, body: str) -> str:
    pat = re.compile(rf"(<!-- BEGIN:{name} -->\n).*?(<!-- END:{name} -->)", re.S)
    if not pat.search(text):
        raise SystemExit(f"README.md has no block {name}")
    return pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def main() -> int:
    data = {v: load(v) for v in VARIANTS}
    readme = HERE / "README.md"
    text = readme.read_text()
    text = replace_block(text, "outcomes", outcomes(data))
    text = replace_block(text, "fieldmap", field_map(data["seed"], data["0.11.1"]))
    readme.write_text(text)
    (HERE / "LOG_MESSAGES.md").write_text(log_messages(data))
    print("README.md and LOG_MESSAGES.md updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
