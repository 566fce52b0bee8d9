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

# -- create_engine_config's data-parallel launch options (ValueErrors naming the flags)
DP = "data-parallel-launch"
DS = "models/deepseek_v3"
case("dp-node-rank-range", "--nnodes 2 with --node-rank 2: out of range", DP,
     argv=[DS, "--nnodes", "2", "--node-rank", "2", "-dp", "2"])
case("dp-external-infers-rank", "MoE, external LB over 2 nodes: the DP rank inferred from --node-rank", DP,
     argv=[DS, "--nnodes", "2", "--node-rank", "1", "-dp", "4", "--data-parallel-external-lb"])
case("dp-external-local-size", "an external DP rank with --data-parallel-size-local 2", DP,
     argv=[DS, "-dp", "2", "--data-parallel-rank", "1", "--data-parallel-size-local", "2"])
case("dp-nnodes-ambiguous", "external LB, 3 nodes for DP 2 x TP 3: the node rank cannot name the DP rank", DP,
     argv=[DS, "--nnodes", "3", "--node-rank", "0", "-dp", "2", "-tp", "3", "--data-parallel-external-lb"])
case("fault-tolerance-external", "--enable-fault-tolerance with a DP rank on a dense model at DP 1", DP,
     argv=[L, "--enable-fault-tolerance", "--data-parallel-rank", "0"])
case("dp-hybrid-llm", "LLM(...): hybrid LB without a local size", DP,
     argv=[DS, "-dp", "2", "--data-parallel-hybrid-lb"], usage="LLM_CLASS")
# -- other refusals of create_engine_config and the sub-configs it builds
CEC = "create-engine-config"
case("pp-uni", "pipeline parallelism on the uni executor (NotImplementedError)", CEC,
     argv=[L, "-pp", "2", "--distributed-executor-backend", "uni"])
case("kda-flashkda-cuda", "--kda-prefill-backend flashkda on CUDA: into additional_config", CEC,
     argv=[L, "--kda-prefill-backend", "flashkda", "--gdn-prefill-backend", "triton"])
case("kda-fused-cpu", "--kda-prefill-backend fused on CPU", CEC, argv=[L, "--kda-prefill-backend", "fused"],
     platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
case("mamba-sr-cpu", "Mamba stochastic rounding on CPU", CEC,
     argv=["models/jamba", "--mamba-ssm-cache-dtype", "float16", "--enable-mamba-cache-stochastic-rounding"],
     platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
case("mamba-sr-blackwell", "Mamba stochastic rounding on SM 10.0 with the triton backend", CEC,
     argv=["models/jamba", "--mamba-ssm-cache-dtype", "float16", "--enable-mamba-cache-stochastic-rounding"],
     platform="cuda:100")
case("mamba-sr-flashinfer-hopper", "Mamba stochastic rounding on Hopper with the flashinfer backend", CEC,
     argv=["models/jamba", "--mamba-ssm-cache-dtype", "float16", "--enable-mamba-cache-stochastic-rounding",
           "--mamba-backend", "flashinfer"])
case("profiler-activities-no-torch", "--profiler-config with torch activities but no profiler", CEC,
     argv=[L, "--profiler-config", '{"torch_profiler_activities": ["CPU"]}'])
case("profiler-proton-option", "config mode: a Proton option without the Proton profiler", CEC,
     config={"model": "llama", "profiler_config": {"profiler": "torch", "torch_profiler_dir": "/tmp/prof",
                                                   "proton_data": "trace"}})
case("nvfp4-mla-argv", "--kv-cache-dtype nvfp4 on an MLA model", CEC, argv=[DS, "--kv-cache-dtype", "nvfp4"])
case("nvfp4-ds-mla-dcp", "nvfp4_ds_mla with decode context parallelism", CEC,
     argv=[DS, "-tp", "2", "-dcp", "2", "--kv-cache-dtype", "nvfp4_ds_mla"])
case("max-capture-size-twice", "--max-cudagraph-capture-size beside -cc's", CEC,
     argv=[L, "--max-cudagraph-capture-size", "64", "-cc", '{"max_cudagraph_capture_size": 32}'])
case("attention-backend-dotted-twice", "--attention-backend beside --attention-config.backend (dotted)", CEC,
     argv=[L, "--attention-backend", "FLASH_ATTN", "--attention-config.backend=TRITON_ATTN"])
case("default-mm-loras-no-lora", "--default-mm-loras on a text model without --enable-lora", CEC,
     argv=[L, "--default-mm-loras", '{"image": "/tmp/x"}'])
case("max-model-len-auto", "--max-model-len auto on a long-context model", CEC,
     argv=["models/llama_long", "--max-model-len", "auto"])

# -- a value of the wrong type in one of the sub-configs 0.34.0 added: pydantic's text, where vLLM builds it
TYPES = "new-config-types"
case("config-attention-fa-version", "config mode: attention_config.flash_attn_version 5", TYPES,
     config={"model": "llama", "attention_config": {"flash_attn_version": 5}})
case("config-kernel-moe-backend", "config mode: kernel_config.moe_backend not a backend", TYPES,
     config={"model": "llama", "kernel_config": {"moe_backend": "fast"}})
case("attention-config-fa-version", "--attention-config with flash_attn_version 5", TYPES,
     argv=[L, "--attention-config", '{"flash_attn_version": 5}'])
case("kernel-config-moe-backend", "--kernel-config with a moe_backend that is none", TYPES,
     argv=[L, "--kernel-config", '{"moe_backend": "fast"}'])
case("profiler-config-profiler", "--profiler-config with a profiler vLLM does not have", TYPES,
     argv=[L, "--profiler-config", '{"profiler": "nsight"}'])
case("config-profiler-profiler", "config mode: profiler_config.profiler not a profiler", TYPES,
     config={"model": "llama", "profiler_config": {"profiler": "nsight"}})
case("kernel-config-type-and-extra", "--kernel-config: a bool that is none and an unknown key", TYPES,
     argv=[L, "--kernel-config", '{"enable_flashinfer_autotune": "maybe", "autotune": true}'])

# -- a value the config class checks itself, in its own words
OWN = "own-validator"
case("kv-cache-dtype-fp16", "--kv-cache-dtype fp16 (0.34.0's parser takes any text; CacheConfig refuses it)", OWN,
     argv=[L, "--kv-cache-dtype", "fp16", "-tp", "2"])
case("config-cache-dtype-int8", "config mode: cache_config.cache_dtype int8", OWN,
     config={"model": "llama", "cache_config": {"cache_dtype": "int8"}})
case("config-custom-ops-all-none", "config mode: custom_ops with both base modes", OWN,
     config={"model": "llama", "compilation_config": {"custom_ops": ["none", "+rms_norm", "all"]}})
case("pooler-normalize-removed", "--pooler-config with 0.11's normalize (a removed parameter, its own message)", OWN,
     argv=["models/bert", "--pooler-config", '{"pooling_type": "CLS", "normalize": false}'])
case("dcp-interleave-block", "-dcp 2 with an interleave size the block size does not divide (checked at engine start)",
     OWN, argv=[DS, "-tp", "2", "-dcp", "2", "--dcp-kv-cache-interleave-size", "48"])

# -- common mistakes on a 0.34.0 command line, each refused somewhere in vLLM's order
MIS = "mistake"
for slug, argv in (
    ("cc-custom-op-syntax", ["-cc", '{"custom_ops": ["rms_norm"]}']),
    ("cc-custom-op-both", ["-cc", '{"custom_ops": ["+rms_norm", "-rms_norm"]}']),
    ("cc-mode-name", ["-cc", '{"mode": "fast"}']),
    ("cc-cudagraph-mode-name", ["-cc", '{"cudagraph_mode": "SOMETIMES"}']),
    ("cc-save-format", ["-cc", '{"compile_cache_save_format": "zip"}']),
    ("budget-below-len", ["--max-num-batched-tokens", "100", "--no-enable-chunked-prefill"]),
    ("budget-below-seqs", ["--max-num-seqs", "300", "--max-num-batched-tokens", "256"]),
    ("lora-cpu-below-max", ["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2"]),
    ("detailed-traces-no-otlp", ["--collect-detailed-traces", "all"]),
    ("kv-role-unknown", ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "producer"}']),
    ("tp-heads", ["-tp", "3"]),
    ("quantization-unknown", ["--quantization", "foo"]),
    ("spec-method-unknown", ["--speculative-config", '{"method": "foo", "num_speculative_tokens": 2}']),
    ("spec-no-tokens", ["--speculative-config", '{"method": "ngram", "prompt_lookup_max": 3}']),
    ("dp-local-above", ["-dp", "2", "--data-parallel-size-local", "4"]),
    ("gpu-mem-above-one", ["--gpu-memory-utilization", "1.5"]),
    ("block-size-odd", ["--block-size", "7"]),
    ("executor-unknown", ["--distributed-executor-backend", "foo"]),
    ("eplb-no-ep", ["--enable-eplb"]),
    ("max-model-len-zero", ["--max-model-len", "0"]),
):
    case(slug, f"a common mistake: {' '.join(argv)}", MIS, argv=[L, *argv])
case("mamba-ssu-without-flashinfer", "--mamba-ssu-algorithm simple with the triton backend", MIS,
     argv=["models/jamba", "--mamba-ssu-algorithm", "simple"])
case("pooler-logit-sigma-zero", "--pooler-config logit_sigma 0", MIS,
     argv=["models/bert", "--pooler-config", '{"logit_sigma": 0}'])

# -- refused where create_engine_config builds the sub-config, after the model config's records
WB = "refused-where-built"
for slug, argv in (
    ("gpu-mem-zero", ["--gpu-memory-utilization", "0"]),
    ("gpu-mem-percent", ["--gpu-memory-utilization", "90"]),
    ("max-num-seqs-zero", ["--max-num-seqs", "0"]),
    ("budget-zero", ["--max-num-batched-tokens", "0"]),
    ("spec-method-medusa", ["--speculative-config", '{"method": "medusa", "num_speculative_tokens": 2}']),
    ("spec-method-mlp", ["--speculative-config", '{"method": "mlp_speculator", "model": "models/llama"}']),
    ("executor-dotted", ["--distributed-executor-backend", "my_pkg.executor.MyExecutor", "-tp", "2"]),
):
    case(slug, f"a common mistake: {' '.join(argv)}", WB, argv=[L, *argv])
case("config-gpu-mem-above-one", "config mode: cache_config.gpu_memory_utilization 1.2", WB,
     config={"model": "llama", "cache_config": {"gpu_memory_utilization": 1.2}})
case("config-max-num-seqs-zero", "config mode: scheduler_config.max_num_seqs 0", WB,
     config={"model": "llama", "scheduler_config": {"max_num_seqs": 0}})
# -- the environment 0.34.0 validates before the model config (Platform.validate_environ)
ENV = "validate-environ"
case("env-use-v1", "VLLM_USE_V1=0 (a 0.11-era variable): a warning", ENV, argv=[L], env={"VLLM_USE_V1": "0"})
case("env-attention-backend", "VLLM_ATTENTION_BACKEND (replaced by --attention-backend): a warning", ENV,
     argv=[L, "-tp", "2"], env={"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"})
case("env-fail-on-unknown", "--fail-on-environ-validation with an unknown variable", ENV,
     argv=[L, "--fail-on-environ-validation"], env={"VLLM_USE_V1": "1"})
case("env-v2-runner-off", "VLLM_USE_V2_MODEL_RUNNER=0", ENV, argv=[L], env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
case("env-v2-runner-on", "VLLM_USE_V2_MODEL_RUNNER=1 (redundant)", ENV, argv=[L],
     env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
case("env-marlin-removed", "VLLM_MARLIN_INPUT_DTYPE (removed)", ENV, argv=[L], env={"VLLM_MARLIN_INPUT_DTYPE": "int8"})
# -- PoolerConfig's __post_init__ while parsing --pooler-config
case("pooler-both-types", "--pooler-config with pooling_type and seq_pooling_type", MIS,
     argv=["models/bert", "--pooler-config", '{"pooling_type": "CLS", "seq_pooling_type": "MEAN"}'])
case("pooler-then-bad-cc", "--pooler-config logs its pooling type, then -cc is refused", MIS,
     argv=["models/bert", "--pooler-config", '{"pooling_type": "MEAN"}', "-cc", '{"level": 3}'])

# -- argparse's own refusals of commonly used flags (a bad choice, a bad number, a removed flag)
AP = "argparse"
for slug, argv in (
    ("dtype-choice", ["--dtype", "fp16"]),
    ("tp-not-int", ["-tp", "two"]),
    ("gpu-mem-not-float", ["--gpu-memory-utilization", "90%"]),
    ("max-model-len-bad", ["--max-model-len", "4kb"]),
    ("block-size-choice", ["--block-size", "abc"]),
    ("load-format-choice", ["--load-format", "gguf2"]),
    ("kv-cache-dtype-empty", ["--kv-cache-dtype", ""]),
    ("removed-num-scheduler-steps", ["--num-scheduler-steps", "8"]),
    ("removed-disable-log-requests", ["--disable-log-requests"]),
    ("removed-swap-space", ["--swap-space", "4"]),
    ("removed-use-v2-block-manager", ["--use-v2-block-manager"]),
    ("tokenizer-mode-choice", ["--tokenizer-mode", "fast"]),
    ("runner-choice", ["--runner", "embed"]),
    ("speculative-not-json", ["--speculative-config", "{method: ngram}"]),
    ("max-model-len-negative", ["--max-model-len", "-2"]),
):
    case(slug, f"a common mistake: {' '.join(argv)}", AP, argv=[L, *argv])


def main() -> None:
    for old in OUT.glob("e[0-9][0-9][0-9]-*.json"):
        old.unlink()
    for name, body in CASES:
        (OUT / f"{name}.json").write_text(json.dumps({"name": name, **body}, indent=1, sort_keys=True) + "\n")
    print(f"{len(CASES)} cases -> {OUT}")


if __name__ == "__main__":
    main()
