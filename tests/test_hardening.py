"""Regressions of the hardening issue: every reproduction answers with one clear line, quickly, or as vLLM does."""

from __future__ import annotations

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
        release.wait(5)
        return real(*args, **kwargs)

    monkeypatch.setattr(postinit._api, "resolve_request", held)
    with TestClient(create_app(Settings(max_in_flight=1)), raise_server_exceptions=False) as c:
        first: list[int] = []
        worker = threading.Thread(target=lambda: first.append(c.post("/v1/resolve", json={"model": LLAMA}).status_code))
        worker.start()
        assert started.wait(5)
        second = c.post("/v1/resolve", json={"model": LLAMA})
        release.set()
        worker.join(5)
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
