"""Fuzzing every input channel: any input resolves (to strict JSON) or is one documented InputError line.

Channels: config dicts, flag lists, env mappings, platform specs, model names and
HTTP bodies. Property: within a time bound, the call either returns a resolution
whose ``to_dict()`` is strict JSON, or raises :class:`~postinit.InputError` with a
one-line message; the caller's objects are never mutated; HTTP never answers 500.
The default run draws a bounded budget; ``pytest -m deep`` draws the large one
(≥ 20,000 library inputs and ≥ 2,000 HTTP bodies).
"""

from __future__ import annotations

import copy
import json
import math
import re
import time
import warnings
from collections.abc import Iterator
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
    }).map(lambda d: json.dumps(d, allow_nan=True).encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"{", b"[]", b"null", b'{"argv": ' + b"[" * 5000 + b"]" * 5000 + b"}", b"\xff\xfe",
                     b'{"config": {"scheduler_config": {"max_num_seqs": ' + b"9" * 5000 + b"}}}",
                     b'{"platform": NaN}', b'{"platform": 1e400}', b'{"model": "\\ud800"}']),
)
ENDPOINTS = ["/v1/resolve", "/v1/why", "/v1/why-not", "/v1/what-if", "/v1/diff"]


def _post(client: TestClient, endpoint: str, body: bytes) -> None:
    start = time.perf_counter()
    r = client.post(endpoint, content=body, headers={"content-type": "application/json"})
    assert r.status_code in (200, 413, 422), (r.status_code, r.text[:300])
    event(f"HTTP {r.status_code}")
    out = r.json()
    if r.status_code != 200:
        assert "\n" not in out["message"]
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
