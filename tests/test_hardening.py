"""Regressions of the hardening issue: every reproduction answers with one clear line, quickly, or as vLLM does."""

from __future__ import annotations

import importlib.util
import json
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app
from postinit.errors import InputError, InvalidValueError, RuleBodyError
from postinit.schema.configs import MAX_CAPTURE_SIZE, MAX_SPEC_TOKENS

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
runner = CliRunner()


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _one_line(call: Any, match: str) -> InputError:
    with pytest.raises(InputError, match=match) as info:
        call()
    assert "\n" not in str(info.value)
    return info.value


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


# --------------------------------------------------------------------------- the library


@pytest.mark.parametrize("depth", [300, 400, 5000])
def test_deep_nesting_is_refused_at_the_door(depth: int) -> None:
    """Nesting beyond 24 levels is one line (it was a RecursionError at 400, a to_dict failure at 300)."""
    _one_line(lambda: postinit.resolve({"additional_config": _nested(depth)}), "nested more than 24 levels")


def test_integers_over_4300_digits_are_refused_not_printed() -> None:
    """A 5000-digit integer is described by its size; formatting it would raise in CPython."""
    _one_line(lambda: postinit.resolve({"scheduler_config": {"max_num_seqs": 10**5000}}),
              r"max_num_seqs: an integer of about 5001 digits")
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["-O.level", "9" * 5000]), "not a usable JSON value")
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--max-num-seqs", "9" * 5000]), "more than 32 characters")


def test_json_flags_that_do_not_parse_are_one_line() -> None:
    """A JSON-valued flag nested too deeply, or holding a 5000-digit number, is an InputError naming the flag."""
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--compilation-config", "[" * 10_000]), "--compilation-config")
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--compilation-config", "[" * 100_000]), "longer than")
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--compilation-config", '{"level": ' + "9" * 5000 + "}"]),
              "--compilation-config")


def test_a_negative_capture_size_fails_as_vllm_does() -> None:
    """vLLM's padding loop raises IndexError on --cuda-graph-sizes -1 (the oracle shows it): so does postinit."""
    r = postinit.resolve(model=LLAMA, argv=["--cuda-graph-sizes", "-1"])
    assert not r.ok and r.violations[0].error == "IndexError"
    assert r.violations[0].rule == "cudagraph.padding-table"
    assert postinit.resolve(model=LLAMA, argv=["--cuda-graph-sizes", "0"]).ok  # vLLM accepts [0]


@pytest.mark.parametrize("size", [str(2**63), "100000000", str(MAX_CAPTURE_SIZE + 1)])
def test_capture_sizes_beyond_what_vllm_runs_are_refused_fast(size: str) -> None:
    """Sizes above 131072 are refused with the reason, in well under a second (100M took 5 s and 2.3 GB)."""
    start = time.perf_counter()
    e = _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--cuda-graph-sizes", size]),
                  "cudagraph_capture_sizes")
    assert "post_init_cudagraph_sizes" in str(e) and time.perf_counter() - start < 1.0
    assert postinit.resolve(model=LLAMA, argv=["--cuda-graph-sizes", str(MAX_CAPTURE_SIZE),
                                                "--max-num-batched-tokens", "131072"]).ok


def test_speculative_tokens_beyond_the_rejection_sampler_are_refused() -> None:
    """30,000 draft tokens (quadratic before) is refused at once, citing vLLM's MAX_SPEC_LEN; 128 still resolves."""
    spec = {"method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 30_000}
    start = time.perf_counter()
    _one_line(lambda: postinit.resolve({"speculative_config": spec}, model="fixtures/llama"), "MAX_SPEC_LEN")
    assert time.perf_counter() - start < 1.0
    ok = postinit.resolve({"speculative_config": {**spec, "num_speculative_tokens": MAX_SPEC_TOKENS}},
                          model="fixtures/llama")
    assert ok.ok and len(ok.get("speculative_config.speculative_token_tree")) > MAX_SPEC_TOKENS


@pytest.mark.parametrize(("tree", "error"), [("((", "SyntaxError"), ("5", "TypeError"), ("foo", "ValueError")])
def test_a_bad_token_tree_fails_as_vllm_does(tree: str, error: str) -> None:
    """vLLM's literal_eval/sorted raise on a bad speculative_token_tree; postinit reports the same exception type."""
    spec = {"method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 2,
            "speculative_token_tree": tree}
    r = postinit.resolve({"speculative_config": spec}, model="fixtures/llama")
    assert not r.ok and r.violations[0].error == error and r.violations[0].rule == "speculative.token-tree"


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"config": {"model_config": "x"}, "model": LLAMA}, "model_config must be a mapping"),
    ({"model": "a" * 5000}, "at most 1024 characters"),
    ({"model": "a/" * 200 + "b"}, "neither a local directory"),
    ({"argv": ["--config", "a" * 5000 + ".yaml"]}, "config file not found"),
    ({"platform": 5}, "platform"),
    ({"env": {1: "1"}}, "variable names are strings"),
    ({"env": {"VLLM_USE_V1": 1}}, "values are strings"),
    ({"config": {(1, 2): 1}}, "keys must be strings"),
    ({"config": {"scheduler_config": {"max_num_seqs": float("nan")}}}, "not a finite number"),
    ({"argv": "--max-model-len '32k"}, "cannot split"),
    ({"config": 7}, "config must be"),
])
def test_odd_library_inputs_are_one_line(kwargs: dict[str, Any], match: str) -> None:
    """Inputs that raised TypeError, AttributeError or OSError now raise one InputError line."""
    _one_line(lambda: postinit.resolve(**kwargs), match)


def test_newlines_in_values_stay_on_one_line() -> None:
    """A value with newlines is quoted, never printed raw: the message stays one line."""
    e = _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--dtype", "fp32\nrm -rf /"]), "--dtype")
    assert "\\n" in str(e)


def test_config_of_a_refused_resolution_is_its_state_not_a_validation_error() -> None:
    """A not-ok resolution's config is the state at the violation, even where validation would refuse it."""
    r = postinit.resolve({"model_config": {"hf_config": {"architectures": ["LlamaForCausalLM"],
                                                         "max_position_embeddings": 0}}}, model=LLAMA)
    assert not r.ok
    assert r.config.model_config is not None
    json.dumps(r.to_dict(), allow_nan=False)


def test_a_rule_that_raises_is_named() -> None:
    """An exception in a rule body is a RuleBodyError naming the rule and what it read, never a bare traceback."""
    from postinit.engine import rule

    @rule("test.boom", title="boom", phase="core", kind="check", reads=("model_config.max_model_len",))
    def boom(c: Any) -> None:
        raise ZeroDivisionError("division by zero")

    book = postinit.rulebook().with_rules(boom)
    state, prov, _ = postinit._api.prepare(model=LLAMA)
    with pytest.raises(RuleBodyError, match=r"rule 'test.boom' .* raised ZeroDivisionError.*max_model_len=131072"):
        book.resolve(state, prov)


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    """A 9-level alias bomb (a few hundred bytes) is refused before it expands."""
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    _one_line(lambda: postinit.resolve(model=LLAMA, argv=["--config", str(bomb)]), "aliases")
    assert time.perf_counter() - start < 1.0


def test_the_caller_objects_are_never_mutated() -> None:
    """resolve() copies what it is given: a config, an env and a flag list come back as they went in."""
    config = {"compilation_config": {"cudagraph_capture_sizes": [4, 1, 2]}, "model_config": {"max_model_len": 2048}}
    env = {"VLLM_USE_V1": "1"}
    argv = ["-tp", "2"]
    before = json.dumps([config, env, argv])
    postinit.resolve(config, model=LLAMA, env=env)
    postinit.resolve(model=LLAMA, env=env, argv=argv)
    assert json.dumps([config, env, argv]) == before


# --------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("args", [
    ["resolve", "--model", LLAMA, "--cuda-graph-sizes", "100000000"],
    ["resolve", "--model", LLAMA, "--compilation-config", "[" * 5000],
    ["resolve", "--env", "VLLM_USE_V1=maybe"],
    ["resolve", "--platform", "x" * 5000],
    ["resolve", "--model", "x" * 5000],
    ["resolve", "--config", "/nonexistent/" + "a" * 5000 + ".yaml"],
    ["why", "nope.path"],
])
def test_cli_bad_input_exits_2_with_one_line(args: list[str]) -> None:
    """Bad input is exit 2 and one `error:` line (26 such inputs exited 3, "internal error", before)."""
    out = runner.invoke(cli_app, args)
    assert out.exit_code == 2, out.output
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")


def test_cli_serve_refuses_a_bad_port() -> None:
    """`postinit serve --port 99999` is one line and exit 2 (it was a traceback)."""
    out = runner.invoke(cli_app, ["serve", "--port", "99999"])
    assert out.exit_code == 2 and out.stderr.strip() == "error: --port 99999: a TCP port is 0-65535"


def test_cli_version_works_alone() -> None:
    """`postinit --version` prints the version (it said "Missing command")."""
    out = runner.invoke(cli_app, ["--version"])
    assert out.exit_code == 0 and out.stdout.strip() == f"postinit {postinit.__version__}"


# --------------------------------------------------------------------------- HTTP


@pytest.mark.parametrize("body", [
    b'{"platform": NaN}', b'{"platform": Infinity}', b'{"config": {"scheduler_config": {"max_num_seqs": 1e400}}}',
    b'{"model": "\\ud800"}', b"{not json", b"", b"[1, 2]", b"\xff\xfe{}",
    b'{"config": {"scheduler_config": {"max_num_seqs": ' + b"9" * 5000 + b"}}}",
    b'{"argv": ' + b"[" * 5000 + b"]" * 5000 + b"}",
])
def test_http_bodies_that_do_not_parse_are_422(http: TestClient, body: bytes) -> None:
    """NaN, Infinity, 1e400, lone surrogates and broken JSON are 422 with one line (they were 400 or 500)."""
    r = http.post("/v1/resolve", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert "\n" not in r.json()["message"]


def test_http_dos_reproductions_answer_fast(http: TestClient) -> None:
    """The 167-byte body with 10,000 draft tokens (450 MB, 7 s before) is a 422 within a second."""
    body = {"model": "fixtures/llama", "config": {"speculative_config": {
        "method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 10_000}}}
    for payload in (body, {"model": LLAMA, "argv": ["--cuda-graph-sizes", "100000000"]}):
        start = time.perf_counter()
        r = http.post("/v1/resolve", json=payload)
        assert r.status_code == 422 and time.perf_counter() - start < 1.0, r.text


def test_http_in_flight_bound_answers_503(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request beyond the in-flight bound is refused with 503 and Retry-After instead of queueing without end."""
    import threading

    started, release = threading.Event(), threading.Event()
    real = postinit._api.resolve_request

    def held(*args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait(120)  # held until the second request is answered (a generous bound: a loaded CI box is slow)
        return real(*args, **kwargs)

    monkeypatch.setattr(postinit._api, "resolve_request", held)
    with TestClient(create_app(Settings(max_in_flight=1)), raise_server_exceptions=False) as c:
        first: list[int] = []
        worker = threading.Thread(target=lambda: first.append(c.post("/v1/resolve", json={"model": LLAMA}).status_code))
        worker.start()
        assert started.wait(120)
        second = c.post("/v1/resolve", json={"model": LLAMA})
        release.set()
        worker.join(120)
    assert second.status_code == 503 and second.headers["retry-after"] == "1"
    assert first == [200]


def test_http_response_size_is_bounded() -> None:
    """An answer larger than max_response_bytes is a 422 naming the limit, not a giant response."""
    with TestClient(create_app(Settings(max_response_bytes=1000)), raise_server_exceptions=False) as c:
        r = c.post("/v1/resolve", json={"model": LLAMA})
    assert r.status_code == 422 and "over the service's limit of 1000" in r.json()["message"]


def test_invalid_value_error_is_an_input_error() -> None:
    """The documented tree: every refusal above is an InputError (InvalidValueError among them)."""
    assert issubclass(InvalidValueError, InputError)


# --------------------------------------------------------------------------- issue 27: crashes, sizes, hash exactness


def _raw(model: str, **changes: Any) -> dict[str, Any]:
    from postinit.schema.loaders.model import load_model

    return {**load_model(model, allow_files=False).raw, **changes}


@pytest.mark.parametrize("model", ["Qwen/Qwen3-8B-FP8", "openai/gpt-oss-120b", "fixtures/llama_fp8_block"])
def test_an_empty_hf_config_hashes(model: str) -> None:
    """``hf_config: {}`` is the model's config.json (empty): the hash is the stand-in, not an AttributeError."""
    r = postinit.resolve({"model_config": {"hf_config": {}}}, model=model)
    assert len(r.hash) == 10 and not r.hash_exact and r.hash_reason


@pytest.mark.parametrize("how", ["config_json", "hf_overrides"])
def test_a_value_transformers_cannot_set_is_no_exact_hash(how: str) -> None:
    """Jamba's layers_block_type is a read-only property in transformers: no crash, the hash says why it is not vLLM's."""
    pytest.importorskip("transformers")
    if how == "config_json":
        r = postinit.resolve(model="fixtures/jamba", config_json=_raw("fixtures/jamba", layers_block_type=[]))
    else:
        r = postinit.resolve(model="fixtures/jamba", argv=["--hf-overrides", json.dumps({"layers_block_type": []})])
    assert len(r.hash) == 10 and not r.hash_exact
    assert "transformers" in str(r.hash_reason) and "AttributeError" in str(r.hash_reason)


def test_a_capture_size_beyond_64_bits_is_vllms_index_error() -> None:
    """vLLM's padding loop indexes a list with the size: CPython's IndexError, as a violation (was OverflowError)."""
    r = postinit.resolve(argv=["--cuda-graph-sizes", str(-10**20)])
    assert not r.ok and r.error is not None
    assert (r.error.type, r.error.message) == ("IndexError", "cannot fit 'int' into an index-sized integer")
    assert r.error.rule == "cudagraph.padding-table"


def test_a_long_inline_model_name_is_not_a_path() -> None:
    """model='a'*300 with config_json never becomes a file name (was OSError: File name too long)."""
    r = postinit.resolve(model="a" * 300, config_json=_raw("fixtures/llama"))
    assert r.ok and len(r.hash) == 10
    from postinit.rules import hashing

    assert len(hashing.compute_hash(r.state)) == 10  # the flat-state function too


@pytest.mark.parametrize(("flag", "value"), [("--rope-theta", "nan"), ("--swap-space", "1e309"),
                                             ("--gpu-memory-utilization", "inf"), ("--cpu-offload-gb", "Infinity")])
def test_non_finite_flag_numbers_are_refused(flag: str, value: str) -> None:
    """NaN and infinities are one line (they were accepted and printed as NaN, invalid JSON)."""
    _one_line(lambda: postinit.resolve(argv=[flag, value]), f"{flag}: '{value}' is not a finite number")
    out = runner.invoke(cli_app, ["resolve", flag, value, "--format", "json"])
    assert out.exit_code == 2 and "NaN" not in out.output and "not a finite number" in out.output


def test_cli_json_output_is_strict_json() -> None:
    """`--format json` parses with a parser that refuses NaN/Infinity."""
    out = runner.invoke(cli_app, ["resolve", "--swap-space", "8", "--format", "json"])
    assert out.exit_code == 0
    json.loads(out.output, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))


def _yaml_chain(depth: int) -> str:
    return "".join("  " * i + f"a{i}:\n" for i in range(depth)) + "  " * depth + "x: 1\n"


@pytest.mark.parametrize("text", [_yaml_chain(400), "a: " + "[" * 400 + "]" * 400 + "\n", _yaml_chain(30)])
def test_deep_yaml_config_is_one_line(text: str, tmp_path: Path) -> None:
    """A --config YAML nested 400 levels (block or flow) is refused at 24 levels (was a RecursionError)."""
    f = tmp_path / "deep.yaml"
    f.write_text(text)
    _one_line(lambda: postinit.resolve(argv=["--config", str(f)]), "nested more than 24 levels")
    out = runner.invoke(cli_app, ["resolve", "--config", str(f)])
    assert out.exit_code == 2 and "internal error" not in out.output and "nested more than 24" in out.output


def test_huge_yaml_integer_is_one_line(tmp_path: Path) -> None:
    """A 4,301-digit YAML integer is refused (was ValueError from int())."""
    f = tmp_path / "big.yaml"
    f.write_text("max-num-seqs: " + "9" * 4301 + "\n")
    _one_line(lambda: postinit.resolve(argv=["--config", str(f)]), "invalid YAML: Exceeds the limit")
    out = runner.invoke(cli_app, ["resolve", "--config", str(f)])
    assert out.exit_code == 2 and "internal error" not in out.output


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x]"] + [f"a{i}: &a{i} [*a{i-1}, *a{i-1}]" for i in range(1, 40)]
    f.write_text("\n".join(lines) + "\n")
    _one_line(lambda: postinit.resolve(argv=["--config", str(f)]), "aliases")


HF_SIZE_BODIES = [
    {"config": {"model_config": {"hf_config": {"num_labels": 3_000_000}}}},
    {"config_json": {"model_type": "llama", "num_labels": 10**7}},
    {"config_json": {"model_type": "llama", "text_config": {"num_hidden_layers": 2**31}}},
    {"argv": ["--hf-overrides", json.dumps({"num_labels": 3_000_000})]},
    {"argv": ["--hf-overrides", json.dumps({"text_config": {"num_hidden_layers": 10**6}})]},
    {"overrides": {"model_config.hf_config.num_hidden_layers": 10**7}},
    {"overrides": {"model_config.hf_overrides": {"num_labels": 2**31}}},
]


@pytest.mark.parametrize("body", HF_SIZE_BODIES, ids=range(len(HF_SIZE_BODIES)))
def test_hf_config_sizes_are_bounded_at_the_door(body: dict[str, Any], http: TestClient) -> None:
    """num_labels 3e6 cost 15 s and 2.4 GB (transformers' id2label); layers build per-layer lists: capped, one line, fast."""
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"is over the .* postinit models") as info:
        postinit.resolve(model=LLAMA, **body).hash  # noqa: B018
    assert "\n" not in str(info.value)
    r = http.post("/v1/resolve", json={"model": LLAMA, **body})
    assert r.status_code == 422 and "postinit models" in r.json()["message"]
    assert time.perf_counter() - start < 2.0


def test_hf_config_sizes_below_the_caps_resolve() -> None:
    from postinit.schema.configs import MAX_HF_LABELS

    r = postinit.resolve(model=LLAMA, argv=["--hf-overrides", json.dumps({"num_labels": 64})])
    assert r.ok and len(r.hash) == 10
    with pytest.raises(InputError):
        postinit.resolve(model=LLAMA, argv=["--hf-overrides", json.dumps({"num_labels": MAX_HF_LABELS + 1})])


def test_hf_json_caches_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process memo keeps at most MEMO_ENTRIES results; the disk cache at most DISK_ENTRIES files."""
    pytest.importorskip("transformers")
    from postinit.rules import hashing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(hashing, "_MEMO", {})
    monkeypatch.setattr(hashing, "_MEMO_SIZE", [0])
    monkeypatch.setattr(hashing, "MEMO_ENTRIES", 3)
    monkeypatch.setattr(hashing, "DISK_ENTRIES", 2)
    hashes = [postinit.resolve(model=LLAMA, argv=["--max-model-len", str(1000 + i),
                                                  "--hf-overrides", json.dumps({"initializer_range": i})]).hash
              for i in range(6)]
    assert len(set(hashes)) == 6
    assert len(hashing._MEMO) == 3
    assert len(list((tmp_path / "postinit" / "hf-json").glob("*.json"))) == 2


@pytest.mark.parametrize("how", ["catalog_only", "set_disk_cache"])
def test_no_disk_cache_without_permission(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolution that may not touch files (catalog_only, every HTTP request) builds an exact hash without
    reading or writing the disk cache; set_disk_cache(False) turns it off for the library too."""
    pytest.importorskip("transformers")
    from postinit.rules import hashing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(hashing, "_MEMO", {})
    old = hashing.set_disk_cache(how != "set_disk_cache")
    try:
        r = postinit.resolve(model=LLAMA, argv=["--hf-overrides", json.dumps({"initializer_range": 0.5})],
                             catalog_only=how == "catalog_only")
        assert r.hash_exact
    finally:
        hashing.set_disk_cache(old)
    assert not (tmp_path / "postinit" / "hf-json").exists()


# --------------------------------------------------------------------------- hash exactness on every face

INEXACT = "deepseek-ai/DeepSeek-V3"


def test_hash_exactness_in_the_library_and_json() -> None:
    exact, inexact = postinit.resolve(model=LLAMA), postinit.resolve(model=INEXACT)
    if importlib.util.find_spec("transformers") is not None:
        assert exact.hash_exact and exact.hash_reason is None
        assert exact.to_dict()["hash_exact"] is True and exact.to_dict()["hash_reason"] is None
    assert not inexact.hash_exact and "deepseek_v3" in str(inexact.hash_reason)
    d = inexact.to_dict()
    assert d["hash_exact"] is False and d["hash_reason"] == inexact.hash_reason
    assert postinit.resolve({"model_config": None}).hash_exact  # no model: vLLM's value


def test_hash_without_transformers_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from postinit.rules import hashing

    monkeypatch.setattr(hashing, "_transformers_version", lambda: None)
    r = postinit.resolve(model=LLAMA)
    assert not r.hash_exact and "pip install 'postinit[hash]'" in str(r.hash_reason)


def test_hash_exactness_in_the_text_output() -> None:
    out = runner.invoke(cli_app, ["resolve", "--model", INEXACT])
    assert out.exit_code == 0
    head = out.output.splitlines()[:4]
    assert "(postinit's, not vLLM's)" in head[0]
    assert any("not vLLM's compute_hash()" in line and "deepseek_v3" in line for line in head)
    js = json.loads(runner.invoke(cli_app, ["resolve", "--model", INEXACT, "--format", "json"]).output)
    assert js["hash_exact"] is False and "deepseek_v3" in js["hash_reason"]


def test_hash_exactness_in_the_html_report() -> None:
    from postinit.report import html_report

    page = html_report(postinit.resolve(model=INEXACT))
    assert "not vLLM&#x27;s compute_hash()" in page or "not vLLM's compute_hash()" in page
    assert "vLLM config hash" not in page


def test_hash_exactness_over_http(http: TestClient) -> None:
    r = http.post("/v1/resolve", json={"model": INEXACT}).json()
    assert r["hash_exact"] is False and "deepseek_v3" in r["hash_reason"]
    page = http.get("/v1/report", params={"model": INEXACT}).text
    assert "compute_hash()" in page and "deepseek_v3" in page
    d = http.post("/v1/diff", json={"a": {"model": LLAMA}, "b": {"model": INEXACT}}).json()
    assert d["b"]["hash_exact"] is False and d["b"]["hash_reason"]


@pytest.mark.parametrize("version", [None, "0.11.1"])
def test_a_zero_head_size_hybrid_is_vllms_zero_division(version: str | None) -> None:
    """More heads than hidden units: head size 0, vLLM's cdiv by the 0-byte attention page (was a RuleBodyError)."""
    r = postinit.resolve(model="fixtures/jamba", config_json=_raw("fixtures/jamba", num_attention_heads=10**6),
                         vllm_version=version)
    assert r.error is not None and (r.error.type, r.error.rule) == ("ZeroDivisionError",
                                                                    "models.hybrid-attention-block-size")


def test_a_config_json_over_the_value_cap_is_refused_and_one_under_it_resolves() -> None:
    """Every value of a config.json is converted and compared for the hash: the 40,000-value cap bounds that
    work (a 660 kB body of 16,000 junk keys once took a worker 10 s); a config.json just under it resolves."""
    from postinit.schema.limits import MAX_NODES

    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
            "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 128, "max_position_embeddings": 512}
    over = {**base, "junk": {f"k{i}": list(range(10)) for i in range(MAX_NODES // 11 + 1)}}
    with pytest.raises(InvalidValueError, match=f"holds more than {MAX_NODES} values"):
        postinit.resolve(model="my/over-cap", config_json=over)
    under = {**base, "junk": {f"k{i}": list(range(10)) for i in range(MAX_NODES // 11 - 40)}}
    r = postinit.resolve(model="my/under-cap", config_json=under)
    assert r.ok and len(r.hash) == 10


def test_a_zero_context_from_hf_overrides_resolves_to_a_dict_not_a_crash() -> None:
    """Found by the deep fuzz run: ``max_position_embeddings`` 0 gives ``max_model_len`` 0, which vLLM does not
    validate (``SkipValidation``) and the seed accepts; ``to_dict()`` and the hash keep the value as it is."""
    r = postinit.resolve(model="meta-llama/Llama-3.1-8B-Instruct",
                         argv=["--hf-overrides", '{"num_labels": 0, "max_position_embeddings": 0}'])
    assert r.ok
    d = r.to_dict()
    assert d["config"]["model_config"]["max_model_len"] == 0
    json.dumps(d, allow_nan=False)
    assert len(r.hash) == 10
