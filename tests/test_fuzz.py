"""Fuzzing every input channel: any input resolves (to strict JSON) or is one documented InputError line.

Channels: config dicts, flag lists, env mappings, platform specs, model names, HTTP
bodies and CLI lines; and the classes of input that once cost seconds, gigabytes or a
traceback: HF-config sizes (``num_labels``, layers; in ``hf_config``, ``config_json``,
``--hf-overrides``), hostile YAML/JSON config files (deep, huge integers, alias bombs,
tags, NaN, binary), long names (models, variables, paths, flags), NaN/inf in numeric
flags, and vLLM 0.34.0's own spellings (``-O<n>``, ``-cc``, its removed flags) with every
spelling of ``vllm_version``. Property: within a time bound, the call either returns a
resolution whose ``to_dict()`` is strict JSON, or raises :class:`~postinit.InputError`
with a one-line message; the caller's objects are never mutated; HTTP never answers 500;
the CLI exits 0/1 with strict JSON or 2 with one ``error:`` line, never 3.
The default run draws a bounded budget; ``pytest -m deep`` draws the large one
(≥ 20,000 library inputs, ≥ 2,000 HTTP bodies, ≥ 5,000 CLI lines).
"""

from __future__ import annotations

import atexit
import copy
import hashlib
import json
import math
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import postinit
from postinit.errors import InputError
from postinit.schema import Env
from postinit.schema.loaders.argv import FLAGS

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

TIME_BOUND_S = 5.0
"""Any single input finishes well within this on 2 cores (a hang detector, not a benchmark)."""
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

# --------------------------------------------------------------------------- value strategies

class Huge(int):
    """A very large int that hypothesis can print (``repr`` of 10**5000 raises in CPython)."""

    def __repr__(self) -> str:
        return f"Huge(<{self.bit_length()} bits>)"


huge_ints = st.sampled_from([2**63, -(2**63) - 1, 2**127, 10**40, Huge(10**5000), Huge(-(10**400))])
odd_floats = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, 5e-324, -0.0])
odd_text = st.sampled_from(["", "\n", "a\nb", "\ud800", "x" * 20_000, "None", "null", "[[[[", "((", "5", "-1",
                            "1e400", "9" * 5000, "\x00", "../../etc/passwd", "∞"])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10**6), huge_ints, st.floats(allow_nan=True), odd_floats,
    st.text(max_size=30), odd_text,
)


def nested(depth: int) -> st.SearchStrategy[Any]:
    """A value nested exactly ``depth`` levels deep (lists and dicts alternating)."""
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return st.just(value)


json_like = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
odd_values = st.one_of(json_like, nested(30), nested(500), st.just((1, 2)), st.just({1, 2}), st.just(object()),
                       st.just(b"bytes"))

FIELDS = {
    "model_config": ["max_model_len", "enforce_eager", "dtype", "runner", "convert", "hf_config", "hf_text_config",
                     "model", "max_logprobs", "seed"],
    "cache_config": ["block_size", "enable_prefix_caching", "cache_dtype", "mamba_block_size"],
    "parallel_config": ["tensor_parallel_size", "decode_context_parallel_size", "enable_dbo", "all2all_backend",
                        "data_parallel_size", "eplb_config"],
    "scheduler_config": ["max_num_seqs", "max_num_batched_tokens", "enable_chunked_prefill"],
    "compilation_config": ["mode", "cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size",
                           "custom_ops", "pass_config", "compile_sizes", "level"],
    "speculative_config": ["method", "num_speculative_tokens", "speculative_token_tree", "model",
                           "prompt_lookup_max"],
    "kv_transfer_config": ["kv_connector", "kv_role"],
    "additional_config": ["x"],
}


@st.composite
def config_dicts(draw: st.DrawFn) -> Any:
    """A config dict: real sections and fields with odd values, unknown keys, wrong shapes."""
    out: dict[Any, Any] = {}
    for _ in range(draw(st.integers(0, 3))):
        section = draw(st.sampled_from([*FIELDS, "model_confg", 7, (1, 2)]))
        if draw(st.integers(0, 5)) == 0:
            out[section] = draw(odd_values)
            continue
        fields = FIELDS.get(section, ["x"]) if isinstance(section, str) else ["x"]
        body = {draw(st.sampled_from([*fields, "nope"])): draw(st.one_of(scalars, odd_values, json_like))
                for _ in range(draw(st.integers(0, 3)))}
        out[section] = body
    if draw(st.booleans()):
        return out
    return draw(st.one_of(st.just(out), odd_values))


FLAG_NAMES = [n for spec in FLAGS for n in spec.names] + ["-O", "-O3", "-O.level", "-O.mode", "--config", "--nope",
                                                            "-O.cudagraph_mode", "--cuda-graph-sizes", "serve"]
flag_values = st.one_of(
    odd_text, st.integers(-(10**20), 10**20).map(str), st.sampled_from(['{"a": 1}', "[" * 3000, '{"level": ' + "9" * 5000 + "}",
                                                                      '{"num_speculative_tokens": 30000, "method": "ngram"}',
                                                                      "-1", str(2**63), "100000000", "32k", "4K", "1.5K"]),
)


@st.composite
def flag_lists(draw: st.DrawFn) -> Any:
    args: list[Any] = []
    if draw(st.booleans()):
        args.append(draw(st.sampled_from([LLAMA, "vllm", "x" * 5000, "QWEN/qwen3-0.6b"])))
    for _ in range(draw(st.integers(0, 5))):
        args.append(draw(st.sampled_from(FLAG_NAMES)))
        if draw(st.integers(0, 3)):
            args.append(draw(flag_values))
    if draw(st.integers(0, 10)) == 0:
        return draw(st.one_of(st.just(" ".join(map(str, args))), st.just([1, None]), st.just(42)))
    return args


ENV_NAMES = [*Env.variable_names(), "VLLM_USE_STANDALONE_COMPILE", "VLLM_RPC_TIMEOUT", "VLLM_FOO", "PATH", ""]
envs = st.one_of(
    st.dictionaries(st.sampled_from(ENV_NAMES), st.one_of(st.none(), odd_text, st.sampled_from(["0", "1", "true", "x"])),
                    max_size=4),
    st.dictionaries(st.one_of(st.integers(), st.none()), st.text(max_size=3), max_size=2),
    st.just({"VLLM_USE_V1": 1}), st.just("VLLM_USE_V1=1"), st.just([("a", "b")]),
)
platforms = st.one_of(
    st.sampled_from(["h100", "b200", "cpu", "rocm", "rocm:gfx950", "cuda:9.0", "cuda:75", "cuda:99.9", "auto",
                     "H100", " h100 ", "", "cuda:", "rocm:gfx", "tpu", "x" * 5000, "\ud800"]),
    st.integers(), st.none(), st.just({"kind": "cuda", "capability": 90}), st.just({"kind": "nope"}), st.just([1]),
)
models = st.one_of(st.none(), st.sampled_from([LLAMA, "QWEN/qwen3-0.6b", "nope/nope", "x" * 5000, "/etc", "", "\x00",
                                               "fixtures/llama", "~", "a/" * 600]), st.integers())


# near-valid inputs: the right shapes with edge values, so that most reach the rules
sizes = st.lists(st.one_of(st.integers(-5, 600), st.integers(0, 131_072)), max_size=30)
edge_configs = st.fixed_dictionaries({}, optional={
    "model_config": st.fixed_dictionaries({}, optional={
        "max_model_len": st.one_of(st.integers(1, 8192), st.integers(1, 2**40)),
        "enforce_eager": st.booleans(), "dtype": st.sampled_from(["auto", "float16", "float32", "bfloat16"]),
        "runner": st.sampled_from(["auto", "pooling", "generate"])}),
    "parallel_config": st.fixed_dictionaries({}, optional={
        "tensor_parallel_size": st.integers(1, 16), "decode_context_parallel_size": st.integers(1, 8),
        "data_parallel_size": st.integers(1, 8), "enable_dbo": st.booleans(), "enable_expert_parallel": st.booleans(),
        "all2all_backend": st.sampled_from(["naive", "deepep_low_latency", "allgather_reducescatter"])}),
    "scheduler_config": st.fixed_dictionaries({}, optional={
        "max_num_seqs": st.integers(1, 2**31), "max_num_batched_tokens": st.integers(1, 2**40),
        "enable_chunked_prefill": st.booleans()}),
    "cache_config": st.fixed_dictionaries({}, optional={
        "block_size": st.integers(1, 4096), "enable_prefix_caching": st.booleans(),
        "mamba_block_size": st.integers(1, 4096)}),
    "compilation_config": st.fixed_dictionaries({}, optional={
        "mode": st.integers(0, 3), "cudagraph_capture_sizes": sizes,
        "max_cudagraph_capture_size": st.integers(0, 131_072),
        "cudagraph_mode": st.sampled_from(["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]),
        "custom_ops": st.lists(st.sampled_from(["all", "none", "+rms_norm", "-quant_fp8"]), max_size=3)}),
    "speculative_config": st.fixed_dictionaries(
        {"method": st.sampled_from(["ngram", "eagle", "mtp"])},
        optional={"num_speculative_tokens": st.integers(1, 128), "prompt_lookup_max": st.integers(1, 8),
                  "model": st.just("fixtures/llama_draft"),
                  "speculative_token_tree": st.one_of(odd_text, st.just("[(0,), (0, 0), (1,)]"))}),
})
edge_models = st.sampled_from([LLAMA, "fixtures/llama", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-Next-80B-A3B-Instruct",
                               "fixtures/whisper", "BAAI/bge-base-en-v1.5", "openai/gpt-oss-120b",
                               "state-spaces/mamba2-2.7b"])
edge_flags = st.lists(st.one_of(
    st.tuples(st.just("--cuda-graph-sizes"), st.lists(st.integers(-3, 131_072).map(str), min_size=1, max_size=5)),
    st.tuples(st.sampled_from(["-tp", "-dcp", "-dp", "--max-num-seqs"]), st.integers(1, 16).map(lambda n: [str(n)])),
    st.tuples(st.just("--max-model-len"), st.sampled_from([["1k"], ["32k"], ["128K"], ["200k"], ["1"]])),
    st.tuples(st.just("--speculative-config"), st.integers(1, 200).map(
        lambda n: [json.dumps({"method": "ngram", "num_speculative_tokens": n, "prompt_lookup_max": 3})])),
    st.tuples(st.sampled_from(["--enforce-eager", "--enable-dbo", "--no-enable-prefix-caching", "-O3", "-O0"]),
              st.just([])),
), max_size=4).map(lambda pairs: [a for flag, vals in pairs for a in (flag, *vals)])


# --------------------------------------------------------------------------- the classes of issue 27

VERSIONS = ["d7fb10c57", "0.11.1", "v0.11.1", "0.34.0", "v0.34.0", "d7fb10c", "0.34", "0.35.0", "", "latest",
            "x" * 2000, "\ud800", None]
vllm_versions = st.one_of(st.sampled_from(VERSIONS), st.integers(), st.just(["0.11.1"]))
HF_SIZE_KEYS = ["num_labels", "num_hidden_layers", "n_layer", "num_layers", "encoder_layers", "decoder_layers",
                "num_experts", "num_local_experts", "n_routed_experts", "vocab_size", "hidden_size",
                "num_attention_heads", "num_key_value_heads", "max_position_embeddings", "intermediate_size",
                "head_dim", "sliding_window", "num_experts_per_tok"]
hf_size_values = st.one_of(st.integers(-2, 70_000), st.sampled_from([2**31, 3_000_000, 10**7, 2**63, 10**30]),
                           st.integers(0, 2**40), huge_ints, odd_floats, st.just("3000000"))
hf_sized = st.dictionaries(st.sampled_from(HF_SIZE_KEYS), hf_size_values, min_size=1, max_size=3)
hf_models = st.sampled_from([LLAMA, "Qwen/Qwen3-8B-FP8", "openai/gpt-oss-120b", "fixtures/jamba", "fixtures/llama",
                             "BAAI/bge-base-en-v1.5", "deepseek-ai/DeepSeek-V3", "fixtures/llama_fp8_block"])
BASE_JSON = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 4096,
             "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "num_hidden_layers": 32,
             "vocab_size": 32000}


def _json_text(value: dict[str, Any]) -> str:
    """JSON text of a flat mapping, integers of any size written out in full (``json.dumps`` stops at 4300 digits)."""
    parts = []
    for k, v in value.items():
        if type(v) is not bool and isinstance(v, int) and v.bit_length() > 128:
            text = ("-" if v < 0 else "") + "9" * (int(v.bit_length() * 0.30103) + 1)
        else:
            text = json.dumps(v, allow_nan=True, default=str)
        parts.append(f"{json.dumps(k)}: {text}")
    return "{" + ", ".join(parts) + "}"


@st.composite
def hf_size_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """HF-config facts that size work, on each door: hf_config, hf_text_config, config_json, --hf-overrides."""
    sizes = draw(hf_sized)
    door = draw(st.sampled_from(["hf_config", "hf_text_config", "config_json", "hf_overrides", "override",
                                 "empty hf_config", "nested"]))
    model = draw(hf_models)
    if door == "config_json":
        return {"config_json": {**BASE_JSON, **sizes}, "model": draw(st.sampled_from(["my/model", "a" * 300]))}
    if door == "hf_overrides":
        return {"model": model, "argv": ["--hf-overrides", _json_text(sizes)]}
    if door == "override":
        return {"model": model, "overrides": {"model_config.hf_overrides": sizes}}
    if door == "empty hf_config":
        return {"model": model, "config": {"model_config": {"hf_config": draw(st.sampled_from(
            [{}, {"layers_block_type": []}, {"architectures": []}, {"text_config": {}}]))}}}
    if door == "nested":
        return {"model": model, "config_json": {**BASE_JSON, "text_config": sizes, "vision_config": sizes}}
    return {"model": model, "config": {"model_config": {door: sizes}}}


FLOAT_FLAGS = sorted({n for spec in FLAGS if spec.kind == "float" for n in spec.names})
INT_FLAGS = ["--max-num-seqs", "--max-model-len", "-tp", "--max-num-batched-tokens", "--block-size"]
non_finite = st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e-400",
                              "0x1p1024", "nan(1)", "1_000", " 1 ", "１", "", "\x00"])


@st.composite
def non_finite_flags(draw: st.DrawFn) -> list[str]:
    """NaN, infinities and overflowing numbers in every numeric flag (``--rope-theta nan`` was accepted)."""
    args: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        flag = draw(st.sampled_from([*FLOAT_FLAGS, *INT_FLAGS]))
        value = draw(non_finite)
        args += [f"{flag}={value}"] if draw(st.booleans()) else [flag, value]
    return args


V034_WORDS = ["-O0", "-O1", "-O2", "-O3", "-O", "-O=2", "-O4", "-Ox", "-O.mode=3", "-O.cudagraph_mode=FULL",
              "--optimization-level", "-cc", "--compilation-config", "--performance-mode", "--kv-offloading-size",
              "--cuda-graph-sizes", "--swap-space", "--task", "--rope-theta", "--num-lookahead-slots",
              "--guided-decoding-backend", "--max-num-partial-prefills", "--override-pooler-config",
              "--calculate-kv-scales", "--eplb-window-size", "--num-redundant-experts", "-tp", "--enforce-eager"]
v034_values = st.sampled_from(["0", "1", "2", "3", "4", "-1", '{"mode": 3}', '{"level": 3}', '{"cudagraph_mode": "FULL"}',
                               "[1, 2]", "throughput", "interactivity", "balanced", "x", "", "None", "8", "1e309"])


@st.composite
def v034_lines(draw: st.DrawFn) -> list[str]:
    """0.34.0's command line: -O<n> as the optimisation level, -cc the compilation config, the 23 removed flags."""
    args: list[str] = []
    if draw(st.booleans()):
        args.append(draw(edge_models))
    for _ in range(draw(st.integers(1, 4))):
        args.append(draw(st.sampled_from(V034_WORDS)))
        if draw(st.integers(0, 2)):
            args.append(draw(v034_values))
    return args


LONG = st.sampled_from([300, 1_023, 1_024, 1_025, 4_096, 16_384, 16_385, 200_000])


@st.composite
def long_names(draw: st.DrawFn) -> dict[str, Any]:
    """Long names on every door: a model (with and without config_json), a variable, a path, a flag, a platform."""
    n = draw(LONG)
    name = draw(st.sampled_from(["a", "/", "ü", "-", "."])) * n
    door = draw(st.sampled_from(["model", "inline model", "env name", "env value", "flag", "flag value", "platform",
                                 "override path", "config key", "model dir", "version"]))
    if door == "model":
        return {"model": name}
    if door == "inline model":
        return {"model": name, "config_json": BASE_JSON}
    if door == "env name":
        return {"env": {"VLLM_" + name: "1"}}
    if door == "env value":
        return {"env": {"VLLM_DEBUG_DUMP_PATH": name}}
    if door == "flag":
        return {"argv": ["--" + name]}
    if door == "flag value":
        return {"argv": ["--served-model-name", name]}
    if door == "platform":
        return {"platform": name}
    if door == "override path":
        return {"overrides": {"model_config." + name: 1}}
    if door == "config key":
        return {"config": {"model_config": {name: 1}}}
    if door == "version":
        return {"vllm_version": name}
    return {"model": "/tmp/" + "/".join(["x" * 200] * max(1, n // 200))}


def _yaml_chain(depth: int) -> str:
    return "".join(f"{'  ' * i}a{i}:\n" for i in range(depth)) + "  " * depth + "x: 1\n"


def _alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


YAML_KEYS = ["max-num-seqs", "tensor-parallel-size", "model", "max-model-len", "compilation-config", "enforce-eager",
             "hf-overrides", "kv-transfer-config", "model_config", "scheduler_config", "compilation_config",
             "architectures", "nope", "-O", "gpu-memory-utilization"]
YAML_VALUES = ["1", "-1", "0", "true", "false", "null", "~", ".nan", ".inf", "-.inf", "1e400", "9" * 4301, "9" * 5000,
               "0x7fffffffffffffffff", "0o777", "1_000", "[]", "{}", "[1, [2, [3]]]", "{a: 1}", "!!binary aGVsbG8=",
               "!!python/object/apply:os.system ['true']", "!!set {a, b}", "!!timestamp 2001-12-14", "'x'",
               '"\\ud800"', "*undefined", "&anchor 1", "2001-12-14", "{mode: 3}", "{num_labels: 3000000}",
               "[" * 50 + "]" * 50, "{max_num_seqs: 128}", "|\n  block\n  text"]


@st.composite
def hostile_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A config file's name suffix and bytes: deep, huge, aliased, tagged, non-finite, binary, or just odd."""
    kind = draw(st.sampled_from(["pairs", "deep", "flow", "bomb", "raw", "json", "bytes", "docs"]))
    if kind == "pairs":
        body = "".join(f"{draw(st.sampled_from(YAML_KEYS))}: {draw(st.sampled_from(YAML_VALUES))}\n"
                       for _ in range(draw(st.integers(0, 5))))
    elif kind == "deep":
        body = _yaml_chain(draw(st.integers(1, 800)))
    elif kind == "flow":
        n = draw(st.integers(1, 5000))
        body = "a: " + "[" * n + "]" * n + "\n"
    elif kind == "bomb":
        body = _alias_bomb(draw(st.integers(2, 12)))
    elif kind == "json":
        body = draw(st.sampled_from(['{"max-num-seqs": NaN}', '{"model_config": {"max_model_len": Infinity}}',
                                    '[' * 3000, '{"a": ' + "9" * 5000 + "}", '{"model_config": 1}', '""', "[]",
                                    '{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}']))
    elif kind == "bytes":
        return draw(st.sampled_from([".yaml", ".json"])), draw(st.sampled_from(
            [b"\xff\xfe\x00", b"a: \x00\n", b"\xef\xbb\xbfmax-num-seqs: 4\n", b"a: b\r\n\tc: d\n",
             b"x" * (1 << 20) + b"\n"]))
    elif kind == "docs":
        body = "max-num-seqs: 4\n---\nmax-num-seqs: 8\n"
    else:
        body = draw(st.sampled_from(["", "---", "- 1\n- 2\n", "a", ": :", "a: b: c", "\t- x", "? [a]\n: 1\n",
                                     "%YAML 9.9\n---\na: 1\n", "a: 1\na: 2\n"]))
    suffix = draw(st.sampled_from([".yaml", ".yml", ".json", ".txt"])) if kind != "json" else ".json"
    return suffix, body.encode("utf-8", "surrogatepass")


_FILES = Path(tempfile.mkdtemp(prefix="postinit-fuzz-"))
atexit.register(shutil.rmtree, _FILES, ignore_errors=True)


def _written(file: tuple[str, bytes]) -> str:
    """The hostile file on disk (named by its content), as a path to hand to --config."""
    suffix, data = file
    path = _FILES / f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    if not path.exists():
        path.write_bytes(data)
    return str(path)



def _check(call: Any, *inputs: Any) -> None:
    """Resolve: a strict-JSON answer or one InputError line, within the bound, inputs untouched."""
    before = copy.deepcopy(inputs)
    start = time.perf_counter()
    try:
        r = call()
    except InputError as e:
        assert "\n" not in str(e) and str(e), repr(e)
        event(f"InputError ({type(e).__name__})")
    else:
        assert isinstance(r, postinit.Resolution)
        event("resolved, ok" if r.ok else "resolved, violation")
        json.dumps(r.to_dict(), allow_nan=False)
        repr(r)
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_BOUND_S, f"{elapsed:.1f} s"
    for a, b in zip(before, inputs, strict=True):
        assert _same(a, b), "the caller's input was mutated"


def _same(a: Any, b: Any) -> bool:
    """Equal as deep copies are: the same repr once object addresses are dropped (NaN equals NaN)."""
    return re.sub(r"0x[0-9a-f]+", "", repr(a)) == re.sub(r"0x[0-9a-f]+", "", repr(b))


def _channels() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    return st.one_of(
        config_dicts().map(lambda c: ("config", {"config": c})),
        st.tuples(config_dicts(), models).map(lambda t: ("config+model", {"config": t[0], "model": t[1]})),
        flag_lists().map(lambda a: ("argv", {"argv": a, "model": None})),
        envs.map(lambda e: ("env", {"env": e})),
        platforms.map(lambda p: ("platform", {"platform": p})),
        models.map(lambda m: ("model", {"model": m})),
        st.tuples(edge_configs, edge_models, platforms).map(
            lambda t: ("edge config", {"config": t[0], "model": t[1], "platform": t[2]})),
        st.tuples(edge_flags, edge_models, st.sampled_from(["h100", "b200", "a100", "mi300x", "cpu", "t4"])).map(
            lambda t: ("edge flags", {"argv": t[0], "model": t[1], "platform": t[2]})),
        hf_size_inputs().map(lambda kw: ("hf_config sizes", kw)),
        st.tuples(hostile_files(), st.sampled_from(["argv", "argv+flags"])).map(
            lambda t: ("hostile file", {"argv": ["--config", _written(t[0]), *(["-tp", "2"] if t[1] == "argv+flags"
                                                                                 else [])]})),
        long_names().map(lambda kw: ("long names", kw)),
        st.tuples(non_finite_flags(), edge_models, st.sampled_from(VERSIONS[:4])).map(
            lambda t: ("non-finite flags", {"argv": t[0], "model": t[1], "vllm_version": t[2]})),
        st.tuples(v034_lines(), st.sampled_from(["0.34.0", "v0.34.0", "0.11.1", "d7fb10c57"])).map(
            lambda t: ("0.34.0 lines", {"argv": t[0], "vllm_version": t[1]})),
        st.tuples(st.one_of(edge_configs, config_dicts()), vllm_versions).map(
            lambda t: ("vllm_version", {"config": t[0], "vllm_version": t[1]})),
    )


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
DEEP = settings(max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))


def _run(case: tuple[str, dict[str, Any]]) -> None:
    channel, kwargs = case
    event(f"channel {channel}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic may warn on odd objects; the answer is what counts
        _check(lambda: postinit.resolve(**kwargs), *kwargs.values())


@FUZZ
@given(case=_channels())
def test_every_library_input_resolves_or_is_one_input_error(case: tuple[str, dict[str, Any]]) -> None:
    """Config dicts, flags, env, platform and model: a resolution or one InputError line, never a crash."""
    _run(case)


@pytest.mark.deep
@DEEP
@given(case=_channels())
def test_every_library_input_deep(case: tuple[str, dict[str, Any]]) -> None:
    """The same property over 20,000 inputs (``pytest -m deep``)."""
    _run(case)


# --------------------------------------------------------------------------- HTTP bodies


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, allow_nan=True, default=str))
    except (ValueError, TypeError, RecursionError):
        return None


def _body_of(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A library call's keyword arguments as an HTTP body (``overrides`` is not a body field: ``set`` is)."""
    body = dict(kwargs)
    if "overrides" in body:
        body["set"] = body.pop("overrides")
    return body


bodies = st.one_of(
    st.fixed_dictionaries({}, optional={
        "config": config_dicts().map(_jsonable), "argv": flag_lists().map(_jsonable), "env": envs.map(_jsonable),
        "platform": platforms.map(_jsonable), "model": models.map(_jsonable),
        "usage": st.sampled_from(["serve", "llm", "engine", "x", None]),
        "config_json": st.one_of(json_like.map(_jsonable),
                                 st.just({"architectures": ["LlamaForCausalLM"], "num_attention_heads": 0})),
        "set": st.dictionaries(st.sampled_from(["model_config.enforce_eager", "env.VLLM_USE_V1", "x", "model_config.model"]),
                               scalars.map(_jsonable), max_size=2),
        "path": st.sampled_from(["compilation_config.cudagraph_mode", "nope", ""]),
        "value": scalars.map(_jsonable),
        "vllm_version": vllm_versions.map(_jsonable),
    }).map(lambda d: json.dumps(d, allow_nan=True).encode("utf-8", "surrogatepass")),
    st.one_of(hf_size_inputs(), long_names(),
              st.tuples(non_finite_flags(), st.sampled_from(VERSIONS[:4])).map(
                  lambda t: {"argv": t[0], "vllm_version": t[1]}),
              st.tuples(v034_lines(), st.sampled_from(["0.34.0", "v0.34.0", "0.11.1"])).map(
                  lambda t: {"argv": t[0], "vllm_version": t[1]}),
              ).map(lambda kw: {**_body_of(kw), "path": "compilation_config.cudagraph_mode", "value": "FULL",
                                "to": "0.34.0", "from": "0.11.1"}).map(
        lambda d: json.dumps(_jsonable(d), allow_nan=True).encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"{", b"[]", b"null", b'{"argv": ' + b"[" * 5000 + b"]" * 5000 + b"}", b"\xff\xfe",
                     b'{"config": {"scheduler_config": {"max_num_seqs": ' + b"9" * 5000 + b"}}}",
                     b'{"platform": NaN}', b'{"platform": 1e400}', b'{"model": "\\ud800"}',
                     b'{"argv": "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve x --max-model-len 200k"}',
                     b'{"argv": "-tp \'2"}', b'{"argv": "--platform"}', b'{"argv": "--rope-theta nan"}',
                     b'{"config": {"model_config": {"hf_config": {"num_labels": 3000000}}}, "model": "x"}']),
)
ENDPOINTS = ["/v1/resolve", "/v1/why", "/v1/why-not", "/v1/what-if", "/v1/diff", "/v1/how", "/v1/upgrade",
             "/v1/report"]


def _post(client: TestClient, endpoint: str, body: bytes) -> None:
    start = time.perf_counter()
    r = client.post(endpoint, content=body, headers={"content-type": "application/json"})
    assert r.status_code in (200, 413, 422), (r.status_code, r.text[:300])
    event(f"HTTP {r.status_code}")
    if r.status_code == 200 and endpoint == "/v1/report":
        assert r.text.startswith("<!DOCTYPE html>")
    else:
        out = r.json()
        if r.status_code != 200:
            assert "\n" not in out["message"] and len(r.content) < 4_000
    assert time.perf_counter() - start < TIME_BOUND_S


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(endpoint=st.sampled_from(ENDPOINTS), body=bodies)
def test_every_http_body_is_an_answer_or_422(http: TestClient, endpoint: str, body: bytes) -> None:
    """Any body on any POST endpoint: 200, 413 or 422 with one line, never a 500."""
    _post(http, endpoint, body)


@pytest.mark.deep
@settings(max_examples=2_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(endpoint=st.sampled_from(ENDPOINTS), body=bodies)
def test_every_http_body_deep(http: TestClient, endpoint: str, body: bytes) -> None:
    """The same over 2,000 bodies (``pytest -m deep``)."""
    _post(http, endpoint, body)


# --------------------------------------------------------------------------- CLI lines (in-process)

CLI_PATHS = ["compilation_config.cudagraph_mode", "scheduler_config.max_num_seqs", "model_config.max_model_len",
             "cache_config.enable_prefix_caching", "compilation_config.mode", "parallel_config.world_size",
             "scheduler_config.enable_chunked_prefill", "nope.nope", "", "x" * 2000, "compilation_config"]
CLI_VALUES = ["FULL", "FULLL", "true", "false", "None", "8k", "-1", "nan", "1e309", "[1, 2]", "{a: 1}", "", "x" * 300]
CLI_FORMATS = {"resolve": ["text", "json", "yaml", "md", "html"], "why": ["text", "json", "md"],
               "why-not": ["text", "json", "md"], "what-if": ["text", "json"], "diff": ["text", "json"],
               "upgrade": ["text", "json", "md"], "how": ["text", "json"], "rules": ["text", "json"],
               "models": ["text", "json"], "versions": ["text", "json"], "platforms": ["json"],
               "graph": ["dot", "mermaid"], "check": ["json"], "schema": []}
CLI_OPTIONS = ["--platform", "--env", "--vllm-version", "--usage", "--semantics", "--model", "--full", "--depth",
               "--verbose", "--config", "--keep", "--max-edits", "--phase", "--touching", "--around", "--log-level"]
option_values = st.one_of(st.sampled_from(["h100", "b200", "cpu", "cuda:9.0", "auto", "tpu", "0.34.0", "0.11.1", "x",
                                           "serve", "llm", "consistent", "VLLM_USE_V1=1", "A", "3", "-1", "300",
                                           "true", "core", "debug", ""]),
                          st.sampled_from(CLI_PATHS), st.sampled_from(VERSIONS[:6]))


@st.composite
def cli_lines(draw: st.DrawFn) -> tuple[list[str], bool]:
    """A ``postinit`` command line a user might type (and a wrong one); and whether JSON output was asked for."""
    command = draw(st.sampled_from(sorted(CLI_FORMATS)))
    args = [command]
    if command in ("why", "why-not", "how"):
        args.append(draw(st.sampled_from(CLI_PATHS)))
    if command in ("why-not", "how"):
        args.append(draw(st.sampled_from(CLI_VALUES)))
    if command == "how":
        args += ["--max-edits", "1"]
    if command == "what-if":
        args += ["--set", f"{draw(st.sampled_from(CLI_PATHS))}={draw(st.sampled_from(CLI_VALUES))}"]
    if command == "diff":
        args += [" ".join(draw(edge_flags)), " ".join(draw(st.one_of(edge_flags, non_finite_flags(), v034_lines())))]
    if command == "upgrade":
        args += ["--to", draw(st.sampled_from(["0.11.1", "0.34.0", "x", "d7fb10c57"]))]
    hostile = draw(st.integers(0, 2)) == 0  # a third of the lines go looking for trouble, the rest are plausible
    if command in ("resolve", "why", "why-not", "what-if", "how", "upgrade"):
        args.append(draw(edge_models))
        flags = draw(st.one_of(non_finite_flags(), v034_lines(), flag_lists().filter(
            lambda a: isinstance(a, list)).map(lambda a: [str(x) for x in a]))) if hostile else draw(edge_flags)
        args += flags
        if hostile and draw(st.integers(0, 3)) == 0:
            args += ["--config", _written(draw(hostile_files()))]
        if not hostile and draw(st.booleans()):
            args += ["--platform", draw(st.sampled_from(["h100", "b200", "a100", "cpu", "mi300x", "cuda:8.9"])),
                     "--vllm-version", draw(st.sampled_from(["d7fb10c57", "0.11.1", "0.34.0"]))]
    for _ in range(draw(st.integers(0, 2)) if hostile else 0):
        option = draw(st.sampled_from(CLI_OPTIONS))
        args.append(option)
        if option not in ("--full", "--verbose") and draw(st.integers(0, 8)):
            args.append(draw(option_values))
    json_out = False
    if CLI_FORMATS[command] and draw(st.booleans()):
        fmt = draw(st.sampled_from(CLI_FORMATS[command]))
        args += ["--format", fmt]
        json_out = fmt == "json"
    return [a.replace("\x00", "") for a in args], json_out


def _cli(line: tuple[list[str], bool]) -> None:
    from typer.testing import CliRunner

    from postinit.cli import app

    args, json_out = line
    event(f"command {args[0]}")
    start = time.perf_counter()
    res = CliRunner().invoke(app, args)
    elapsed = time.perf_counter() - start
    event(f"exit {res.exit_code}")
    assert res.exit_code in (0, 1, 2), (args, res.exit_code, res.stderr[-500:], repr(res.exception))
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.stderr[-500:])
        assert "internal error" not in lines[0]
    elif json_out and "--log-level" not in args:
        json.loads(res.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert elapsed < 3 * TIME_BOUND_S, f"{elapsed:.1f} s"


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(line=cli_lines())
def test_every_cli_line_is_an_answer_or_one_error_line(line: tuple[list[str], bool]) -> None:
    """Any command line: exit 0/1 (strict JSON with --format json) or exit 2 with one ``error:`` line; never 3."""
    _cli(line)


@pytest.mark.deep
@settings(max_examples=5_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(line=cli_lines())
def test_every_cli_line_deep(line: tuple[list[str], bool]) -> None:
    """The same over 5,000 command lines (``pytest -m deep``)."""
    _cli(line)
