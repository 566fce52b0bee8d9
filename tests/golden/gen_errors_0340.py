#!/usr/bin/env python3
"""Golden cases e### for vllm==0.34.0: its refusals, pinned from angles the seed's command lines miss.

    python3 tests/golden/gen_errors_0340.py      # (re)writes cases-0.34.0/e###-*.json only

Deterministic (no randomness, sorted JSON). Each case is answered by the 0.34.0 oracle
(tests/golden/oracle_cli.md: ``vllm_oracle.py cases-0.34.0/e*.json -o DIR --compact``, then
``oracle/strip_0340.py DIR expected-0.34.0``). Tags: ``part=errors``, ``decision=<what it pins>``.

- unknown / removed keys: 0.34.0's ``@config`` dataclasses forbid extra fields (vllm/config/utils.py:72),
  so a key of no field — a 0.11-era one or a typo — is pydantic's ``Unexpected keyword argument``: while
  parsing for the JSON-valued flags vLLM builds on the spot, where the sub-config is built otherwise
  (config mode, ``--speculative-config``), after the fields' own errors.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases-0.34.0"

CASES: list[tuple[str, dict]] = []


def case(slug: str, description: str, decision: str, *, argv: list[str] | None = None,
         config: dict | None = None, usage: str | None = "OPENAI_API_SERVER", platform: str = "cuda:90",
         env: dict | None = None) -> None:
    body: dict = {"description": description, "platform": platform, "env": env or {},
                  "tags": ["part=errors", f"decision={decision}"]}
    if argv is not None:
        body["argv"] = argv
        body["usage_context"] = usage
    else:
        body.update(config or {})
    CASES.append((f"e{len(CASES) + 1:03d}-{slug}", body))


UNDECLARED = "undeclared-keyword"
L = "models/llama"

# -- JSON-valued flags vLLM builds while parsing: ArgumentError, stage parse
case("cc-nested-and-top", "-cc: a removed pass_config key and a removed top-level key, with valid fields",
     UNDECLARED, argv=[L, "-cc", json.dumps({"cudagraph_capture_sizes": [1, 2], "use_cudagraph": True,
                                             "pass_config": {"fuse_norm_quant": True, "enable_noop": True}})])
case("cc-typo-key", "-cc: a key no version has (typo of cudagraph_capture_sizes)", UNDECLARED,
     argv=[L, "-cc", '{"cudagraph_capture_size": [1, 2, 4]}'])
case("cc-dotted-level", "-cc.level=3: the dotted form of a removed key", UNDECLARED,
     argv=[L, "-cc.level=3"])
case("cc-dotted-pass-config", "-cc.pass_config.enable_fusion=true: a removed nested key, dotted", UNDECLARED,
     argv=[L, "-cc.pass_config.enable_fusion=true", "-cc.mode=3"])
case("cc-type-error-and-extra", "-cc: a field of the wrong type and a removed key: the field's error first",
     UNDECLARED, argv=[L, "-cc", '{"full_cuda_graph": true, "compile_sizes": "abc"}'])
case("kv-transfer-removed", "--kv-transfer-config with 0.11's kv_buffer_size / kv_rank", UNDECLARED,
     argv=[L, "--kv-transfer-config", json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both",
                                                  "kv_buffer_size": 1e9, "kv_rank": 0})])
case("kv-events-unknown", "--kv-events-config with an unknown key", UNDECLARED,
     argv=[L, "--kv-events-config", '{"enable_kv_cache_events": true, "topic_name": "kv"}'])
case("structured-outputs-removed", "--structured-outputs-config with 0.11's disable_fallback", UNDECLARED,
     argv=[L, "--structured-outputs-config", '{"backend": "xgrammar", "disable_fallback": true}'])
case("eplb-unknown", "--eplb-config with an unknown key", UNDECLARED,
     argv=["models/deepseek_v3", "-tp", "2", "--enable-expert-parallel", "--eplb-config",
           '{"window_size": 100, "step_size": 10}'])
case("attention-config-unknown", "--attention-config with an unknown key", UNDECLARED,
     argv=[L, "--attention-config", '{"backend": "FLASH_ATTN", "use_triton": true}'])
case("speculative-removed", "--speculative-config with 0.11's disable_by_batch_size (built in create_engine_config)",
     UNDECLARED, argv=[L, "--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 2,
                                                             "prompt_lookup_max": 3, "disable_by_batch_size": 4})])
case("opt-level-json", "-O with 0.11's compilation JSON: -O is the optimization level in 0.34.0", UNDECLARED,
     argv=[L, "-O", '{"level": 3}'])
case("opt-dotted-level", "-O.level=3: 0.11's dotted -O key", UNDECLARED, argv=[L, "-O.level=3"])
# -- config mode: the sub-config refuses the keyword where VllmConfig's parts are built
case("config-cc-level", "config mode: compilation_config.level", UNDECLARED,
     config={"model": "llama", "compilation_config": {"level": 3}})
case("config-pass-config", "config mode: a removed pass_config key", UNDECLARED,
     config={"model": "llama", "compilation_config": {"pass_config": {"enable_fusion": True}}})
case("config-cache-swap", "config mode: cache_config.swap_space (removed) after a valid scheduler config",
     UNDECLARED, config={"model": "llama", "scheduler_config": {"max_num_seqs": 64},
                         "cache_config": {"swap_space": 4}})
case("config-scheduler-partial", "config mode: scheduler_config.max_num_partial_prefills (removed)", UNDECLARED,
     config={"model": "llama", "scheduler_config": {"max_num_partial_prefills": 2, "max_num_seqs": 8}})
case("config-parallel-unknown", "config mode: an unknown parallel_config key", UNDECLARED,
     config={"model": "llama", "parallel_config": {"tensor_parallel_size": 2, "tp_size": 2}})


def main() -> None:
    for old in OUT.glob("e[0-9][0-9][0-9]-*.json"):
        old.unlink()
    for name, body in CASES:
        (OUT / f"{name}.json").write_text(json.dumps({"name": name, **body}, indent=1, sort_keys=True) + "\n")
    print(f"{len(CASES)} cases -> {OUT}")


if __name__ == "__main__":
    main()
