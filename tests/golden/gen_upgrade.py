"""Deterministic generator of the upgrade cases (``u###-*.json``): 0.11-era command lines for the 0.34.0 upgrade.

``postinit upgrade --from 0.11.1 --to 0.34.0`` (and ``--from d7fb10c57``) must name every decision that
changes for a user's command line, including a line 0.34.0's parser now refuses or reads otherwise
(issue 29). These are command lines as a user of vLLM 0.11 wrote them: ``-O3`` / ``-O 3`` (compilation
mode 3 then, optimisation level 3 in 0.34.0), ``-O.mode=3`` and other dotted ``-O.<key>`` (a compilation
field then, an optimisation level that is no level in 0.34.0), ``-O '{json}'``, and the flags 0.34.0
removed (``--swap-space``, ``--num-lookahead-slots``, ``--task``, ``--cuda-graph-sizes``, the
``--guided-decoding-*`` family, ...). The first part is written by hand, one kind per case (``tags``:
``kind=<what>``); the second is seeded random command lines over the same ingredients
(``random.Random(20261206)``, no set iteration). Every case is answered by all three oracles (the seed
and 0.11.1 into ``expected/`` and ``expected-0.11.1/``; 0.34.0 as ``s-u###`` of its own corpus, copied by
``gen_cases_0340.py``; see ``oracle_cli.md``, section 7)::

    python3 tests/golden/gen_upgrade.py            # writes tests/golden/cases/u*.json
    python3 tests/golden/gen_upgrade.py --dry-run  # prints the count only
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases"
RNG = random.Random(20261206)
H100 = "cuda:90"
A100 = {"kind": "cuda", "capability": 80, "device_name": "NVIDIA A100-SXM4-80GB", "total_memory_gb": 80}
L40S = "cuda:89"
B200 = "cuda:100"
SERVE, LLM = "OPENAI_API_SERVER", "LLM_CLASS"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "4"}
"""Every CPU case sets it (0.34.0's corpus generator adds it to a CPU case without one: the inputs stay equal)."""


def argv(kind: str, description: str, args: list[str], *, platform: Any = H100,
         env: dict[str, str] | None = None, usage_context: str = SERVE) -> dict[str, Any]:
    """An argv-mode case (``vllm serve`` flags through EngineArgs)."""
    env = dict(env or {})
    if platform == "cpu":
        env = {**CPU_ENV, **env}
    return {"description": description, "tags": [f"kind={k}" for k in kind.split()], "argv": args,
            "usage_context": usage_context, "platform": platform, "env": env}


LLAMA = "models/llama"
REMOVED: tuple[tuple[str, list[str]], ...] = (
    ("swap-space", ["--swap-space", "8"]),
    ("num-lookahead-slots", ["--num-lookahead-slots", "2"]),
    ("partial-prefills", ["--max-num-partial-prefills", "2", "--max-long-partial-prefills", "1"]),
    ("calculate-kv-scales", ["--kv-cache-dtype", "fp8", "--calculate-kv-scales"]),
    ("no-calculate-kv-scales", ["--no-calculate-kv-scales"]),
    ("cuda-graph-sizes", ["--cuda-graph-sizes", "8", "16", "32"]),
    ("guided-decoding-backend", ["--guided-decoding-backend", "xgrammar"]),
    ("guided-decoding-whitespace", ["--guided-decoding-disable-any-whitespace", "true"]),
    ("logits-processor-pattern", ["--logits-processor-pattern", ".*"]),
    ("override-attention-dtype", ["--override-attention-dtype", "float32"]),
    ("task-generate", ["--task", "generate"]),
    ("lora-extra-vocab", ["--enable-lora", "--lora-extra-vocab-size", "256"]),
    ("mm-preprocessor-cache", ["--disable-mm-preprocessor-cache"]),
    ("mm-encoder-dp", ["--enable-multimodal-encoder-data-parallel"]),
)
"""0.11.1 flags vLLM 0.34.0's parser no longer has (``flags-0.11.1.json`` minus ``flags-0.34.0.json``)."""

O_FORMS: tuple[tuple[str, list[str]], ...] = (
    ("O3", ["-O3"]), ("O-space-3", ["-O", "3"]), ("O0", ["-O0"]), ("O1", ["-O1"]), ("O2", ["-O2"]),
    ("O-mode-3", ["-O.mode=3"]), ("O-mode-0", ["-O.mode=0"]), ("O-level-3", ["-O.level=3"]),
    ("O-cudagraph-mode", ["-O.cudagraph_mode=PIECEWISE"]),
    ("O-json-mode", ["-O", json.dumps({"mode": 3})]),
    ("O-json-level", ["-O", json.dumps({"level": 3})]),
    ("cc-json-mode", ["--compilation-config", json.dumps({"mode": 3})]),
    ("cc-json-cudagraph", ["--compilation-config", json.dumps({"cudagraph_mode": "FULL_DECODE_ONLY"})]),
    ("cc-int", ["--compilation-config", "3"]),
)
"""How a 0.11 user asked for a compilation mode or level."""


def targeted() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for slug, args in O_FORMS:
        out.append((slug, argv("optimization", f"0.11-era `{' '.join(args)}`", [LLAMA, *args])))
    for slug, args in (("O3-llm", ["-O3"]), ("O-mode-3-llm", ["-O.mode=3"]), ("O3-eager", ["-O3", "--enforce-eager"]),
                       ("O-mode-3-piecewise", ["-O.mode=3", "-O.cudagraph_mode=PIECEWISE"]),
                       ("O3-a100", ["-O3"]), ("O3-cpu", ["-O3"]), ("O-mode-3-cpu", ["-O.mode=3"])):
        plat = A100 if slug.endswith("a100") else ("cpu" if slug.endswith("cpu") else H100)
        usage = LLM if slug.endswith("llm") else SERVE
        out.append((slug, argv("optimization", f"0.11-era `{' '.join(args)}`", [LLAMA, *args], platform=plat,
                               usage_context=usage)))
    for slug, args in REMOVED:
        out.append((f"removed-{slug}", argv("removed-flag", f"a flag vLLM 0.34.0 removed: `{' '.join(args)}`",
                                            [LLAMA, *args])))
    return out


# ---------------------------------------------------------------------------------------- random

GENERATE = ("llama", "llama", "llama", "llama", "llama_long", "deepseek_v3", "qwen3_next", "jamba", "llama4",
            "gemma3_text", "mistral_sw", "llama_fp8_block")
MAX_LEN = {"llama": 4096, "llama_long": 262144, "deepseek_v3": 16384, "qwen3_next": 262144, "jamba": 8192,
           "llama4": 32768, "gemma3_text": 32768, "mistral_sw": 32768, "llama_fp8_block": 4096}
PLATFORMS: tuple[Any, ...] = (H100, H100, H100, A100, L40S, B200, "cuda:80", "rocm", "cpu")
MOE = {"deepseek_v3", "qwen3_next", "jamba", "llama4"}


def random_line(rng: random.Random) -> tuple[str, dict[str, Any]]:
    model = rng.choice(GENERATE)
    plat = rng.choice(PLATFORMS)
    cpu = plat == "cpu"
    args: list[str] = [f"models/{model}"]
    kinds = ["random"]
    tp = 1
    if rng.random() < 0.3 and not cpu:
        tp = rng.choice([2, 4])
        args += [rng.choice(["-tp", "--tensor-parallel-size"]), str(tp)]
    if rng.random() < 0.3:
        limit = MAX_LEN[model]
        args += ["--max-model-len", rng.choice([str(min(limit, 2048)), str(min(limit, 4096)), "2k"])]
    if rng.random() < 0.2:
        args += ["--gpu-memory-utilization", rng.choice(["0.8", "0.95"])]
    if rng.random() < 0.15:
        args.append("--enforce-eager")
    if rng.random() < 0.15 and not cpu:
        args += ["--kv-cache-dtype", rng.choice(["fp8", "auto"])]
    if rng.random() < 0.25:
        args.append(rng.choice(["--enable-prefix-caching", "--no-enable-prefix-caching"]))
    if rng.random() < 0.25:
        args.append(rng.choice(["--enable-chunked-prefill", "--no-enable-chunked-prefill"]))
    if rng.random() < 0.25:
        args += ["--max-num-seqs", rng.choice(["16", "128", "256"])]
    if rng.random() < 0.2:
        args += ["--max-num-batched-tokens", rng.choice(["4096", "8192", "16k"])]
    if rng.random() < 0.45:
        _slug, forms = rng.choice(O_FORMS)
        args += forms
        kinds.append("optimization")
    if rng.random() < 0.3:
        _slug, forms = rng.choice(REMOVED)
        args += forms
        kinds.append("removed-flag")
    if rng.random() < 0.1 and model in MOE and tp > 1:
        args.append("--enable-expert-parallel")
    if rng.random() < 0.1:
        args += ["--block-size", rng.choice(["16", "32"])]
    if rng.random() < 0.1:
        args += ["--dtype", rng.choice(["float16", "bfloat16"])]
    if rng.random() < 0.08:
        args += ["--seed", str(rng.randint(0, 99))]
    if rng.random() < 0.08:
        args.append("--async-scheduling")
    if rng.random() < 0.06:
        args += ["--scheduling-policy", "priority"]
    if rng.random() < 0.06:
        args.append("--disable-custom-all-reduce")
    usage = rng.choice([SERVE, SERVE, SERVE, LLM])
    where = plat if isinstance(plat, str) else "a100"
    return "rand", argv(" ".join(kinds), f"random 0.11-era command line ({model} on {where})", args,
                        platform=plat, usage_context=usage)


def cases() -> list[tuple[str, dict[str, Any]]]:
    out = targeted()
    out += [random_line(RNG) for _ in range(110)]
    return out


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true")
    ns = parser.parse_args(args)
    found = cases()
    if not ns.dry_run:
        for old in OUT.glob("u[0-9][0-9][0-9]-*.json"):
            old.unlink()
        for n, (slug, case) in enumerate(found, start=1):
            name = f"u{n:03d}-{slug}"
            (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1) + "\n")
    print(f"{len(found)} upgrade cases{'' if ns.dry_run else f' written to {OUT}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
