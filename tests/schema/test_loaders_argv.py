"""Tests of the vllm serve command-line loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit.errors import InputError, InvalidValueError, SubConfigError, UnknownFlagError
from postinit.schema.loaders import human_readable_int, parse_vllm_args

CASES = Path("/work/shared/oracle/cases")

# flag argv (after the model) -> expected nested config (without model_config.model)
TABLE: list[tuple[list[str], dict[str, Any]]] = [
    (["--enforce-eager"], {"model_config": {"enforce_eager": True}}),
    (["--compilation-config", '{"mode": 3}'], {"compilation_config": {"mode": 3}}),
    (["-O", '{"mode": 2}'], {"compilation_config": {"mode": 2}}),
    (["--cudagraph-capture-sizes", "1", "2", "4"], {"compilation_config": {"cudagraph_capture_sizes": [1, 2, 4]}}),
    (["--max-cudagraph-capture-size", "256"], {"compilation_config": {"max_cudagraph_capture_size": 256}}),
    (["-tp", "2"], {"parallel_config": {"tensor_parallel_size": 2}}),
    (["--tensor-parallel-size", "4"], {"parallel_config": {"tensor_parallel_size": 4}}),
    (["-pp", "2"], {"parallel_config": {"pipeline_parallel_size": 2}}),
    (["-dp", "2"], {"parallel_config": {"data_parallel_size": 2}}),
    (["-dcp", "2"], {"parallel_config": {"decode_context_parallel_size": 2}}),
    (["--decode-context-parallel-size", "2"], {"parallel_config": {"decode_context_parallel_size": 2}}),
    (["--data-parallel-rank", "1"], {"parallel_config": {"data_parallel_rank": 1}}),
    (["--enable-dbo"], {"parallel_config": {"enable_dbo": True}}),
    (["--dbo-decode-token-threshold", "16"], {"parallel_config": {"dbo_decode_token_threshold": 16}}),
    (["--dbo-prefill-token-threshold", "256"], {"parallel_config": {"dbo_prefill_token_threshold": 256}}),
    (["--all2all-backend", "deepep_low_latency"], {"parallel_config": {"all2all_backend": "deepep_low_latency"}}),
    (["--all2all-backend", "None"], {"parallel_config": {"all2all_backend": None}}),
    (["--enable-expert-parallel"], {"parallel_config": {"enable_expert_parallel": True}}),
    (["--enable-eplb"], {"parallel_config": {"enable_eplb": True}}),
    (["--eplb-config", '{"window_size": 500}'], {"parallel_config": {"eplb_config": {"window_size": 500}}}),
    (["--distributed-executor-backend", "mp"], {"parallel_config": {"distributed_executor_backend": "mp"}}),
    (["--enable-prefix-caching"], {"cache_config": {"enable_prefix_caching": True}}),
    (["--no-enable-prefix-caching"], {"cache_config": {"enable_prefix_caching": False}}),
    (["--enable-chunked-prefill"], {"scheduler_config": {"enable_chunked_prefill": True}}),
    (["--no-enable-chunked-prefill"], {"scheduler_config": {"enable_chunked_prefill": False}}),
    (["--kv-transfer-config", '{"kv_connector": "X", "kv_role": "kv_both"}'],
     {"kv_transfer_config": {"kv_connector": "X", "kv_role": "kv_both"}}),
    (["--kv-events-config", '{"enable_kv_cache_events": true}'],
     {"kv_events_config": {"enable_kv_cache_events": True}}),
    (["--max-model-len", "32k"], {"model_config": {"max_model_len": 32000}}),
    (["--max-num-seqs", "64"], {"scheduler_config": {"max_num_seqs": 64}}),
    (["--max-num-batched-tokens", "4K"], {"scheduler_config": {"max_num_batched_tokens": 4096}}),
    (["--block-size", "32"], {"cache_config": {"block_size": 32}}),
    (["--kv-cache-dtype", "fp8"], {"cache_config": {"cache_dtype": "fp8"}}),
    (["--kv-sharing-fast-prefill"], {"cache_config": {"kv_sharing_fast_prefill": True}}),
    (["--mamba-block-size", "256"], {"cache_config": {"mamba_block_size": 256}}),
    (["--swap-space", "8"], {"cache_config": {"swap_space": 8.0}}),
    (["--cpu-offload-gb", "2.5"], {"cache_config": {"cpu_offload_gb": 2.5}}),
    (["--gpu-memory-utilization", "0.8"], {"cache_config": {"gpu_memory_utilization": 0.8}}),
    (["--disable-cascade-attn"], {"model_config": {"disable_cascade_attn": True}}),
    (["--dtype", "bfloat16"], {"model_config": {"dtype": "bfloat16"}}),
    (["-q", "fp8"], {"model_config": {"quantization": "fp8"}}),
    (["--quantization", "awq"], {"model_config": {"quantization": "awq"}}),
    (["--max-logprobs", "5"], {"model_config": {"max_logprobs": 5}}),
    (["--runner", "pooling"], {"model_config": {"runner": "pooling"}}),
    (["--convert", "embed"], {"model_config": {"convert": "embed"}}),
    (["--task", "embed"], {"model_config": {"task": "embed"}}),
    (["--pooler-config", '{"pooling_type": "LAST"}'], {"model_config": {"pooler_config": {"pooling_type": "LAST"}}}),
    (["--hf-overrides", '{"max_position_embeddings": 1024}'],
     {"model_config": {"hf_overrides": {"max_position_embeddings": 1024}}}),
    (["--disable-hybrid-kv-cache-manager"], {"scheduler_config": {"disable_hybrid_kv_cache_manager": True}}),
    (["--async-scheduling"], {"scheduler_config": {"async_scheduling": True}}),
    (["--max-num-partial-prefills", "2"], {"scheduler_config": {"max_num_partial_prefills": 2}}),
    (["--max-long-partial-prefills", "2"], {"scheduler_config": {"max_long_partial_prefills": 2}}),
    (["--long-prefill-token-threshold", "100"], {"scheduler_config": {"long_prefill_token_threshold": 100}}),
    (["--enable-lora"], {"lora_config": {}}),
    (["--enable-lora", "--max-loras", "4", "--max-lora-rank", "64"], {"lora_config": {"max_loras": 4, "max_lora_rank": 64}}),
    (["--enable-lora", "--max-cpu-loras", "8"], {"lora_config": {"max_cpu_loras": 8}}),
    (["--enable-lora", "--max-cpu-loras", "0"], {"lora_config": {"max_cpu_loras": None}}),
    (["--enable-lora", "--fully-sharded-loras"], {"lora_config": {"fully_sharded_loras": True}}),
    (["--enable-lora", "--lora-dtype", "float16"], {"lora_config": {"lora_dtype": "float16"}}),
    (["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}'],
     {"speculative_config": {"method": "ngram", "num_speculative_tokens": 3}}),
    (["--structured-outputs-config", '{"backend": "xgrammar"}'], {"structured_outputs_config": {"backend": "xgrammar"}}),
    (["--reasoning-parser", "qwen3"], {"structured_outputs_config": {"reasoning_parser": "qwen3"}}),
    (["--additional-config", '{"foo": 1}'], {"additional_config": {"foo": 1}}),
    (["--seed", "7"], {"model_config": {"seed": 7}}),
    (["--trust-remote-code"], {"model_config": {"trust_remote_code": True}}),
    (["--revision", "main"], {"model_config": {"revision": "main"}}),
    (["--disable-sliding-window"], {"model_config": {"disable_sliding_window": True}}),
    (["--model-impl", "transformers"], {"model_config": {"model_impl": "transformers"}}),
    (["--load-format", "dummy"], {"load_config": {"load_format": "dummy"}}),
    (["--served-model-name", "a", "b"], {"model_config": {"served_model_name": ["a", "b"]}}),
]


@pytest.mark.parametrize(("flags", "expected"), TABLE, ids=[" ".join(f)[:40] for f, _ in TABLE])
def test_flag_table(flags: list[str], expected: dict[str, Any]) -> None:
    """Each flag lands at its documented nested path with the converted value."""
    parsed = parse_vllm_args(["some/model", *flags])
    config = dict(parsed.config)
    model_config = dict(config.pop("model_config"))
    assert model_config.pop("model") == "some/model"
    if model_config:
        config["model_config"] = model_config
    assert config == expected


@pytest.mark.parametrize(
    "argv", [["-O3"], ["-O", "3"], ["-O=3"], ["-O.mode=3"], ["-O", '{"mode":3}'], ["--compilation-config.mode", "3"]]
)
def test_O_forms(argv: list[str]) -> None:
    """Every -O spelling sets compilation_config.mode to 3."""
    assert parse_vllm_args(["m", *argv]).config["compilation_config"] == {"mode": 3}


def test_dotted_merge_and_list_append() -> None:
    """Dotted -O keys merge into one dict and '+' keys take comma lists that concatenate."""
    parsed = parse_vllm_args(
        ["m", "-O.mode=3", "-O.pass_config.enable_noop=true", "-O.custom_ops+=+rms_norm,-silu", "-O.custom_ops+=none"]
    )
    assert parsed.config["compilation_config"] == {
        "mode": 3,
        "pass_config": {"enable_noop": True},
        "custom_ops": ["+rms_norm", "-silu", "none"],
    }
    assert parsed.flags["compilation_config.pass_config.enable_noop"] == "-O.pass_config.enable_noop=true"


def test_duplicate_scalar_warns() -> None:
    """A repeated dotted scalar keeps the last value and warns like vLLM."""
    parsed = parse_vllm_args(["m", "-O.mode=3", "-O.mode=1"])
    assert parsed.config["compilation_config"] == {"mode": 1}
    assert parsed.warnings == ["Found duplicate keys -O.mode"]


def test_dotted_replaces_json_with_advice() -> None:
    """Dotted keys replace a JSON value of the same flag, as vLLM appends them last; postinit says so as advice
    (vLLM logs nothing), never as one of vLLM's records."""
    parsed = parse_vllm_args(["m", "--compilation-config", '{"cudagraph_mode": "FULL"}', "-O3"])
    assert parsed.config["compilation_config"] == {"mode": 3}
    assert "drops the JSON" in parsed.advice[0] and parsed.warnings == []


@pytest.mark.parametrize(("text", "value"), [("4096", 4096), ("32k", 32000), ("25.6k", 25600), ("4K", 4096), ("1M", 2**20), ("2g", 2 * 10**9)])
def test_human_readable_int(text: str, value: int) -> None:
    """Decimal k/m/g and binary K/M/G suffixes convert as vLLM's human_readable_int does."""
    assert human_readable_int(text) == value


def test_provenance_text() -> None:
    """flags maps each nested path to the flag text that set it."""
    parsed = parse_vllm_args(["--model", "m", "--max-num-batched-tokens", "4K", "--no-enable-prefix-caching"])
    assert parsed.flags["scheduler_config.max_num_batched_tokens"] == "--max-num-batched-tokens 4K"
    assert parsed.flags["cache_config.enable_prefix_caching"] == "--no-enable-prefix-caching"
    assert parsed.flags["model_config.model"] == "--model m"


def test_underscore_and_equals_forms() -> None:
    """--max_model_len=4k is read like --max-model-len 4k."""
    assert parse_vllm_args(["m", "--max_model_len=4k"]).config["model_config"]["max_model_len"] == 4000


def test_serve_prefix_and_positional_model() -> None:
    """A leading 'serve' is dropped and the first bare token is the model."""
    parsed = parse_vllm_args(["serve", "org/model", "-tp", "2"])
    assert parsed.model == "org/model"
    assert parsed.config["parallel_config"] == {"tensor_parallel_size": 2}


def test_no_model() -> None:
    """Without a model the result has model None and no model_config."""
    parsed = parse_vllm_args(["-tp", "2"])
    assert parsed.model is None and "model_config" not in parsed.config


def test_lora_flags_without_enable_lora_advise() -> None:
    """LoRA flags without --enable-lora create no lora_config; postinit advises (vLLM is silent)."""
    parsed = parse_vllm_args(["m", "--max-loras", "4"])
    assert "lora_config" not in parsed.config
    assert "without --enable-lora" in parsed.advice[0] and parsed.warnings == []


def test_deprecated_cuda_graph_sizes() -> None:
    """--cuda-graph-sizes still sets the capture sizes, with argparse's deprecation warning; vLLM's own warning is
    logged where create_engine_config applies the flag (the rule engine-args.cuda-graph-sizes-deprecated)."""
    parsed = parse_vllm_args(["m", "--cuda-graph-sizes", "8", "16"])
    assert parsed.config["compilation_config"] == {"cudagraph_capture_sizes": [8, 16]}
    assert parsed.warnings == ["argument 'cuda_graph_sizes' is deprecated"]
    assert parsed.extra.get("cuda_graph_sizes_given") is True
    r = postinit.resolve(argv=["tests/golden/models/llama", "--cuda-graph-sizes", "8"])
    assert [e.rule for e in r.messages() if "--cuda-graph-sizes is deprecated" in (e.message or "")] == [
        "engine-args.cuda-graph-sizes-deprecated"]


def test_server_flags_are_extra() -> None:
    """Frontend flags like --port are accepted and kept out of the config."""
    parsed = parse_vllm_args(["m", "--port", "8001", "--enable-lora"])
    assert parsed.extra == {"port": 8001, "enable_lora": True}


def test_config_yaml_cli_wins(tmp_path: Path) -> None:
    """--config FILE flags come first and the command line overrides them."""
    file = tmp_path / "c.yaml"
    file.write_text("tensor-parallel-size: 4\nenforce_eager: true\nmax-model-len: 8k\n")
    parsed = parse_vllm_args(["m", "--config", str(file), "-tp", "2"])
    assert parsed.config["parallel_config"] == {"tensor_parallel_size": 2}
    assert parsed.config["model_config"]["enforce_eager"] is True
    assert parsed.config["model_config"]["max_model_len"] == 8000


def test_config_nested_file_merged(tmp_path: Path) -> None:
    """A --config file in VllmConfig shape is merged under the command line."""
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"cache_config": {"block_size": 32}, "model_config": {"model": "x"}}))
    parsed = parse_vllm_args(["--config", str(file), "--block-size", "64"])
    assert parsed.config["cache_config"] == {"block_size": 64}
    assert parsed.model == "x"


ARGV_CASES = sorted(p for p in CASES.glob("*-argv-*.json"))


@pytest.mark.skipif(not CASES.is_dir(), reason="oracle cases not present")
@pytest.mark.parametrize("case", ARGV_CASES, ids=[p.stem for p in ARGV_CASES])
def test_oracle_argv_cases(case: Path) -> None:
    """The oracle's argv cases 38-59 parse; 57 (unknown flag) raises UnknownFlagError."""
    argv = json.loads(case.read_text())["argv"]
    if case.name.startswith("57-"):
        with pytest.raises(UnknownFlagError, match="unknown flag '--no-such-flag'"):
            parse_vllm_args(argv)
    else:
        assert parse_vllm_args(argv).model is not None


# ---- bad input: each message asserted
BAD: list[tuple[list[str], type[Exception], str]] = [
    (["m", "--max-num-sequences", "3"], UnknownFlagError, "unknown flag '--max-num-sequences'. Did you mean '--max-num-seqs'?"),
    (["m", "--enforce-eagre"], UnknownFlagError, "unknown flag '--enforce-eagre'. Did you mean '--enforce-eager'?"),
    (["m", "--compilation-config", "{bad"], SubConfigError,
     "argument --compilation-config/-O: 1 validation error for CompilationConfig: Invalid JSON: key must be a string "
     "at line 1 column 2"),
    (["m", "--speculative-config", "{bad"], InvalidValueError,
     "--speculative-config: invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes (got '{bad')"),
    (["m", "--kv-transfer-config", "[1]"], SubConfigError,  # vLLM validates the JSON text: pydantic's JSON-mode words
     "argument --kv-transfer-config: 1 validation error for KVTransferConfig: Input should be an object"),
    (["m", "--rope-scaling", "[1]"], InvalidValueError, "--rope-scaling: expected a JSON object"),
    (["m", "--max-model-len", "abc"], InvalidValueError,
     "--max-model-len: invalid value 'abc': expected an integer like 4096, 32k (=32000) or 4K (=4096)"),
    (["m", "--max-model-len", "2.5K"], InvalidValueError, "decimals are not allowed with binary suffixes like K; did you mean 2.5k?"),
    (["m", "-tp", "two"], InvalidValueError, "-tp: invalid value 'two': expected an integer"),
    (["m", "--kv-cache-dtype", "fp9"], InvalidValueError,
     "--kv-cache-dtype: 'fp9' is not allowed; allowed: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc. Did you mean 'fp8'?"),
    (["m", "--all2all-backend", "deepep"], InvalidValueError, "--all2all-backend: 'deepep' is not allowed; allowed: naive, pplx"),
    (["m", "--runner", "gen"], InvalidValueError, "--runner: 'gen' is not allowed; allowed: auto, generate, pooling, draft"),
    (["m", "--dtype", "fp16"], InvalidValueError, "--dtype: 'fp16' is not allowed; allowed: auto, half, float16, bfloat16, float, float32"),
    (["m", "--block-size", "48"], InvalidValueError, "--block-size: '48' is not allowed; allowed: 1, 8, 16, 32, 64, 128, 256"),
    (["m", "-O.cudagraph_capture_sizes=[1,2]", "--cudagraph-capture-sizes", "4"], InvalidValueError,
     "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive"),
    (["m", "-O", '{"max_cudagraph_capture_size": 8}', "--max-cudagraph-capture-size", "16"], InvalidValueError,
     "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive"),
    (["m", "--cuda-graph-sizes", "1", "--cudagraph-capture-sizes", "2"], InvalidValueError,
     "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive"),
    (["m", "--max-model-len.x=1"], InvalidValueError, "--max-model-len takes no dotted keys"),
    (["m", "--bogus.x=1"], UnknownFlagError, "unknown flag '--bogus'"),
    (["a", "--model", "b"], InputError, "the model is given twice: 'a' (positional) and '--model b'"),
    (["m", "extra-token"], InputError, "unexpected argument 'extra-token'"),
    (["m", "--config"], InputError, "--config: no config file given after it"),
    (["m", "--config", "/nonexistent/c.yaml"], InputError, "config file not found: '/nonexistent/c.yaml'"),
]


@pytest.mark.parametrize(("argv", "error", "text"), BAD, ids=[" ".join(a)[:40] for a, _, _ in BAD])
def test_bad_input_messages(argv: list[str], error: type[Exception], text: str) -> None:
    """Bad command lines raise the right InputError subclass with a one-line message."""
    with pytest.raises(error) as info:
        parse_vllm_args(argv)
    assert text in str(info.value)
    assert "\n" not in str(info.value)


def test_nothing_to_parse_skips_the_parser_with_the_same_result() -> None:
    """With no flags left, the parser is not built: it would only return its (None) defaults."""
    from postinit.schema.loaders import argv as loader

    namespace, unknown = loader._build_parser().parse_known_args([])
    assert unknown == [] and not any(isinstance(v, loader._Given) for v in vars(namespace).values())
    assert parse_vllm_args([]) == loader.ParsedArgs()
    assert parse_vllm_args(["serve", "meta-llama/Llama-3.1-8B-Instruct"]).config == {
        "model_config": {"model": "meta-llama/Llama-3.1-8B-Instruct"}
    }
    dotted = parse_vllm_args(["--compilation-config.mode", "3"])  # only dotted keys: nothing left to parse
    assert dotted.config == {"compilation_config": {"mode": 3}}


def test_guided_decoding_backend_is_a_visible_no_op() -> None:
    """vLLM stores --guided-decoding-backend where nothing reads it: the backend is untouched, and postinit says so."""
    parsed = parse_vllm_args(["m", "--guided-decoding-backend", "xgrammar"])
    assert "structured_outputs_config" not in parsed.config
    assert parsed.warnings == ["argument 'guided_decoding_backend' is deprecated"]
    assert len(parsed.quirks) == 1 and "has no effect" in parsed.quirks[0]


def test_deprecated_flag_warns_when_its_value_is_not_the_argparse_default() -> None:
    """vLLM warns when the parsed value differs from the argparse default: None for most, False for two."""
    assert parse_vllm_args(["m", "--num-redundant-experts", "0"]).warnings == [
        "argument 'num_redundant_experts' is deprecated"]
    assert parse_vllm_args(["m", "--no-eplb-log-balancedness"]).warnings == [
        "argument 'eplb_log_balancedness' is deprecated"]
    assert parse_vllm_args(["m", "--no-enable-multimodal-encoder-data-parallel"]).warnings == []


def test_0_34_0_flags_land_in_their_sub_configs() -> None:
    """In 0.34.0 the flags create_engine_config copies into a config (PCP, the scheduler's token caps, the JSON
    sub-configs) write there, and the attention / kernel shorthands apply over their sub-config's JSON only when
    set; an older version's parser keeps the same spelling out of its configs."""
    parsed = parse_vllm_args(["m", "--prefill-context-parallel-size", "2", "--max-num-scheduled-tokens", "1k",
                              "-ac", '{"flash_attn_version": 3}', "--attention-backend", "flashinfer",
                              "--kernel-config", '{"moe_backend": "triton"}', "--moe-backend", "auto",
                              "--linear-backend", "cutlass", "--no-enable-flashinfer-autotune"], version="0.34.0",
                             scope="engine")
    c = parsed.config
    assert c["parallel_config"]["prefill_context_parallel_size"] == 2
    assert c["scheduler_config"]["max_num_scheduled_tokens"] == 1000  # k is decimal
    assert c["attention_config"] == {"flash_attn_version": 3, "backend": "FLASHINFER"}
    assert c["kernel_config"] == {"moe_backend": "triton", "linear_backend": "cutlass",
                                  "enable_flashinfer_autotune": False}
    assert parsed.flags["attention_config.backend"] == "--attention-backend"
    auto = parse_vllm_args(["m", "--attention-backend", "auto"], version="0.34.0", scope="engine")
    assert auto.config["attention_config"] == {"backend": None}
    twice = parse_vllm_args(["m", "-ac", '{"backend": "FLASH_ATTN"}', "--attention-backend", "FLASHINFER"],
                            version="0.34.0", scope="engine")
    assert twice.given_twice == ["attention_backend"] and twice.config["attention_config"] == {"backend": "FLASH_ATTN"}
