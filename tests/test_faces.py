"""One question, one answer: the library, the CLI and HTTP build the same Request and agree.

Each face only parses and renders; these tests ask the same question through all
three and compare the hash, the resolved config and the violations.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app
from postinit.schema.loaders.model import CATALOG_DIR, catalog_file_name

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
runner = CliRunner()


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


def _answer(d: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree: hash, ok, violations (rule and message) and the resolved config."""
    return (d["hash"], d["ok"], [(v["rule"], v["message"]) for v in d["violations"]], d["config"])


def library(request: dict[str, Any]) -> tuple[Any, ...]:
    return _answer(postinit.resolve(**request).to_dict())


def cli(request: dict[str, Any], tmp: Path) -> tuple[Any, ...]:
    args = ["resolve", "--format", "json"]
    if request.get("model") is not None:
        args += ["--model", request["model"]]
    if request.get("platform") is not None:
        args += ["--platform", request["platform"]]
    for k, v in (request.get("env") or {}).items():
        args += ["--env", f"{k}={v}"]
    if request.get("usage") is not None:
        args += ["--usage", request["usage"]]
    if request.get("vllm_version") is not None:
        args += ["--vllm-version", request["vllm_version"]]
    if request.get("config") is not None:
        path = tmp / "config.json"
        path.write_text(json.dumps(request["config"]))
        args += ["--config", str(path)]
    args += list(request.get("argv") or [])
    out = runner.invoke(cli_app, args)
    assert out.exit_code in (0, 1), out.output
    return _answer(json.loads(out.stdout))


def over_http(request: dict[str, Any], client: TestClient) -> tuple[Any, ...]:
    r = client.post("/v1/resolve", json={k: v for k, v in request.items() if v is not None})
    assert r.status_code == 200, r.text
    return _answer(r.json())


# --------------------------------------------------------------------------- the defaults


def test_a_model_alone_is_vllm_serve_on_every_face(http: TestClient, tmp_path: Path) -> None:
    """A model and no config means what `vllm serve MODEL` does, on all three faces (1024 seqs, 8192 tokens)."""
    request = {"model": LLAMA, "platform": "h100"}
    assert library(request) == cli(request, tmp_path) == over_http(request, http)
    config = postinit.resolve(**request).config
    assert (config.scheduler_config.max_num_seqs, config.scheduler_config.max_num_batched_tokens) == (1024, 8192)
    assert config.cache_config.enable_prefix_caching is True


def test_a_config_dict_alone_is_config_mode() -> None:
    """A config dict without flags builds VllmConfig(...) directly: no EngineArgs defaults."""
    r = postinit.resolve({}, model=LLAMA, platform="h100")
    assert r.inputs["usage"] is None and r.get("scheduler_config.max_num_seqs") == 128
    assert postinit.resolve({}, model=LLAMA, platform="h100", argv=["-tp", "1"]).inputs["usage"] == "serve"


# --------------------------------------------------------------------------- the README's questions

README_REQUESTS = [
    {"model": LLAMA, "argv": ["--max-model-len", "200k"], "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
     "platform": "b200"},
    {"model": LLAMA, "platform": "h100"},
    {"model": LLAMA, "argv": ["--no-enable-chunked-prefill"]},
    {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100",
     "argv": ["-tp", "8", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend", "allgather_reducescatter"]},
    {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "argv": ["-tp", "4", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']},
    {"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "platform": "h200",
     "argv": ["-tp", "4", "--enable-prefix-caching", "-O3", "--max-num-batched-tokens", "4K"]},
    {"config": {"compilation_config": {"mode": 3}, "model_config": {"model": "Qwen/Qwen3-8B"}}, "platform": "h100"},
]


@pytest.mark.parametrize("request_", README_REQUESTS, ids=lambda r: " ".join([r.get("model") or "config",
                                                                             *r.get("argv", [])])[:60])
def test_readme_questions_agree_on_every_face(request_: dict[str, Any], http: TestClient, tmp_path: Path) -> None:
    """The README's questions give one hash, config and violation list through the library, the CLI and HTTP."""
    assert library(request_) == cli(request_, tmp_path) == over_http(request_, http)


@pytest.mark.parametrize("version", ["0.11.1", "0.34.0"])
@pytest.mark.parametrize("request_", README_REQUESTS, ids=lambda r: " ".join([r.get("model") or "config",
                                                                             *r.get("argv", [])])[:60])
def test_readme_questions_agree_on_every_face_as_another_vllm(request_: dict[str, Any], version: str,
                                                              http: TestClient, tmp_path: Path) -> None:
    """Asked as vLLM 0.11.1 or 0.34.0 (vllm_version / --vllm-version), the three faces still give one answer."""
    asked = {**request_, "vllm_version": version}
    assert library(asked) == cli(asked, tmp_path) == over_http(asked, http)
    assert postinit.resolve(**asked).vllm_version == version


# --------------------------------------------------------------------------- random requests

MODELS = [None, LLAMA, "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3", "microsoft/Phi-3-mini-4k-instruct",
          "ai21labs/AI21-Jamba-Mini-1.6"]
FLAGS = [[], ["-tp", "2"], ["--enforce-eager"], ["-O3"], ["--max-model-len", "8k"], ["--no-enable-prefix-caching"],
         ["-dcp", "2", "-tp", "2"], ["--enable-dbo"], ["--max-num-seqs", "64"], ["--cuda-graph-sizes", "1", "2", "4"],
         ["-O.cudagraph_mode=PIECEWISE"], ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']]
ENVS = [{}, {"VLLM_USE_V1": "0"}, {"VLLM_USE_STANDALONE_COMPILE": "0"}, {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
        {"VLLM_FOO_TYPO": "1"}]
CONFIGS = [None, {}, {"compilation_config": {"cudagraph_mode": "FULL"}}, {"model_config": {"enforce_eager": True}},
           {"scheduler_config": {"max_num_seqs": 32}, "parallel_config": {"tensor_parallel_size": 2}}]

requests = st.fixed_dictionaries({
    "model": st.sampled_from(MODELS),
    "platform": st.sampled_from(["h100", "a100", "b200", "t4", "cpu", "mi300x", "cuda:8.9"]),
    "argv": st.lists(st.sampled_from(FLAGS), max_size=2).map(lambda ls: [a for flags in ls for a in flags]),
    "env": st.sampled_from(ENVS),
    "usage": st.sampled_from([None, "serve", "llm"]),
    "config": st.sampled_from(CONFIGS),
})


def _agree(request_: dict[str, Any], http: TestClient, tmp_path: Path) -> None:
    expected = library(request_)
    assert cli(request_, tmp_path) == expected, json.dumps(request_)
    assert over_http(request_, http) == expected, json.dumps(request_)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request_=requests)
def test_random_requests_agree_on_every_face(request_: dict[str, Any], http: TestClient, tmp_path: Path) -> None:
    """Any request: the library, the CLI (in-process) and HTTP (TestClient) give the same answer."""
    _agree(request_, http, tmp_path)


@pytest.mark.deep
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request_=requests)
def test_random_requests_agree_on_every_face_deep(request_: dict[str, Any], http: TestClient, tmp_path: Path) -> None:
    """The same, over 1,000 requests (``pytest -m deep``)."""
    _agree(request_, http, tmp_path)


# --------------------------------------------------------------------------- config.json however it arrives

REAL = ["microsoft/Phi-3-mini-4k-instruct", "mistralai/Mistral-7B-Instruct-v0.3", "google/gemma-3-27b-it",
        "ibm-ai-platform/Bamba-9B"]


def _entry(model_id: str) -> dict[str, Any]:
    entry: dict[str, Any] = json.loads((CATALOG_DIR / catalog_file_name(model_id)).read_text())
    return entry


def _comparable(r: postinit.Resolution) -> dict[str, Any]:
    """The final state without the model's name and the loader's file names (a directory's listing, which a
    catalog id or an inline config.json has none of)."""
    return {p: v for p, v in r.state.items() if p not in ("model_config.model", "model_config.hf_config.dir_json_files")}


@pytest.mark.parametrize("model_id", REAL)
@pytest.mark.parametrize("argv", [[], ["-tp", "3"], ["--max-model-len", "2048"]])
def test_a_config_json_gives_one_answer_however_it_arrives(model_id: str, argv: list[str], tmp_path: Path) -> None:
    """A real config.json as a directory, a catalog id, inline config_json or config.model_config.hf_config:
    the same derived hf_text_config, the same max_model_len, the same violations."""
    entry = _entry(model_id)
    (tmp_path / "config.json").write_text(json.dumps(entry["config"]))
    if entry.get("tokenizer_config"):
        (tmp_path / "tokenizer_config.json").write_text(json.dumps(entry["tokenizer_config"]))
    by_id = postinit.resolve(model=model_id, argv=argv)
    by_dir = postinit.resolve(model=str(tmp_path), argv=argv)
    inline = postinit.resolve(model=model_id, config_json=entry["config"],
                              tokenizer_config_json=entry.get("tokenizer_config"), argv=argv)
    assert _comparable(by_dir) == _comparable(by_id) == _comparable(inline)
    assert inline.hash == by_id.hash
    assert [v.message for v in by_dir.violations] == [v.message for v in by_id.violations]


def test_phi3_inline_over_http_is_whole_and_right(http: TestClient) -> None:
    """The real Phi-3 config.json inline over HTTP: accepted in one round trip, 4096 tokens, -tp 3 refused."""
    entry = _entry("microsoft/Phi-3-mini-4k-instruct")
    body = {"model": "my-org/phi3", "config_json": entry["config"]}
    r = http.post("/v1/resolve", json=body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["ok"] and out["config"]["model_config"]["max_model_len"] == 4096
    assert out["config"]["model_config"]["hf_config"]["other"]["bos_token_id"] == 1
    bad = http.post("/v1/resolve", json={**body, "argv": ["-tp", "3"]}).json()
    assert not bad["ok"] and "divisible by tensor parallel size (3)" in bad["violations"][0]["message"]


def test_the_old_hf_config_door_goes_through_the_same_loader(http: TestClient) -> None:
    """config.model_config.hf_config is read as the model's config.json: text config derived, unknown keys kept."""
    entry = _entry("microsoft/Phi-3-mini-4k-instruct")
    config = {"model_config": {"model": "my-org/phi3", "hf_config": entry["config"]}}
    r = postinit.resolve(config, platform="h100")
    assert r.get("model_config.max_model_len") == 4096
    assert r.get("model_config.hf_text_config.num_attention_heads") == 32
    assert http.post("/v1/resolve", json={"config": config, "platform": "h100"}).json()["hash"] == r.hash


def test_a_catalog_id_in_another_case_never_reads_a_file(http: TestClient, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A case-changed catalog id names the catalog entry; a planted config.json in the working directory is never read."""
    planted = tmp_path / "QWEN" / "qwen3-0.6b"
    planted.mkdir(parents=True)
    (planted / "config.json").write_text(json.dumps({**_entry("Qwen/Qwen3-0.6B")["config"],
                                                     "max_position_embeddings": 1234}))
    monkeypatch.chdir(tmp_path)
    out = http.post("/v1/resolve", json={"model": "QWEN/qwen3-0.6b"}).json()
    assert out["config"]["model_config"]["max_model_len"] == 40960
    assert out["config"]["model_config"]["model"] == "Qwen/Qwen3-0.6B"


# --------------------------------------------------------------------------- refused while parsing

PARSE_FAILURES = [
    # (argv, rule that refused the value, vLLM's message without pydantic's tails)
    (["--kv-transfer-config", '{"kv_connector": "NixlConnector"}'], "kv-transfer.role-required",
     "argument --kv-transfer-config: 1 validation error for KVTransferConfig: Value error, Please specify kv_role "
     "when kv_connector is set, supported roles are ('kv_producer', 'kv_both', 'kv_consumer')"),
    (["-O.custom_ops+=all,none"], "compilation.custom-ops-all-none-count",
     "argument --compilation-config/-O: 1 validation error for CompilationConfig: Assertion failed, Can only "
     "specify 'none' or 'all'"),
    (["--kv-events-config", '{"publisher": "kafka"}'], None,
     "argument --kv-events-config: 1 validation error for KVEventsConfig: publisher: Input should be 'null' or 'zmq'"),
]


@pytest.mark.parametrize(("argv", "rule", "text"), PARSE_FAILURES, ids=[a[0] for a, _, _ in PARSE_FAILURES])
def test_a_flag_vllms_parser_refuses_is_one_answer_on_every_face(
    argv: list[str], rule: str | None, text: str, http: TestClient,
) -> None:
    """A JSON-valued flag whose sub-config refuses its value: InputError (stage parse, the rule) in the library,
    exit 2 with that one line from the CLI (as `vllm serve` exits 2), 422 with it over HTTP."""
    from postinit.errors import SubConfigError

    request = {"model": LLAMA, "argv": argv, "platform": "h100"}
    with pytest.raises(SubConfigError) as info:
        postinit.resolve(**request)
    e = info.value
    assert (e.stage, e.error, e.rule) == ("parse", "ArgumentError", rule)
    assert str(e).startswith(text) and "\n" not in str(e)
    assert e.vllm_message is not None and e.vllm_message.startswith(text.split(": ", 2)[0])
    out = runner.invoke(cli_app, ["resolve", "--model", LLAMA, "--platform", "h100", *argv])
    assert out.exit_code == 2
    assert out.stderr.strip().splitlines() == [f"error: {e.for_face('cli')}"]
    r = http.post("/v1/resolve", json=request)
    assert r.status_code == 422
    body = r.json()
    assert (body["message"], body["stage"], body["rule"]) == (e.for_face("http"), "parse", rule)


# --------------------------------------------------------------------------- site rules (rules=, --rules, serve --rules)

POLICIES = Path(__file__).resolve().parents[1] / "examples" / "site-policies" / "policies.py"
SITE_REQUESTS: list[dict[str, Any]] = [
    {"model": LLAMA, "platform": "h100", "argv": ["--enforce-eager"]},          # mysite.production-never-eager
    {"model": LLAMA, "platform": "h100", "argv": ["-tp", "6"]},                 # vLLM refuses first (heads % tp)
    {"model": LLAMA, "platform": "a100"},                                       # mysite.a100-context-limit
    {"model": LLAMA, "platform": "a100", "argv": ["--max-model-len", "32k"]},   # ok: the site default 0.85
    {"model": LLAMA, "platform": "h100", "argv": [
        "--kv-transfer-config", '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_both"}',
        "--no-enable-prefix-caching"]},                                         # mysite.kv-connector-needs-...
]


def _site_answer(d: dict[str, Any]) -> tuple[Any, ...]:
    owners = [(v["rule"], v.get("owner")) for v in d["violations"]]
    marked = sorted({(e["rule"], e.get("owner")) for e in d["trace"]["events"] if e.get("owner")})
    return (*_answer(d), owners, marked, d["config"]["cache_config"]["gpu_memory_utilization"])


@pytest.fixture(scope="module")
def http_site() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(rules=(str(POLICIES),))), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("request_", SITE_REQUESTS, ids=lambda r: " ".join([r["platform"], *r.get("argv", [])])[:60])
def test_site_policies_give_one_answer_on_every_face(request_: dict[str, Any], http_site: TestClient) -> None:
    """rules= (library), --rules (CLI) and serve --rules (HTTP) resolve the same policies to the same answer."""
    lib = _site_answer(postinit.resolve(**request_, rules=str(POLICIES)).to_dict())
    args = ["resolve", "--format", "json", "--rules", str(POLICIES), "--model", request_["model"],
            "--platform", request_["platform"], *request_.get("argv", [])]
    out = runner.invoke(cli_app, args)
    assert out.exit_code in (0, 1), out.output
    r = http_site.post("/v1/resolve", json=request_)
    assert r.status_code == 200, r.text
    assert _site_answer(json.loads(out.stdout)) == lib == _site_answer(r.json())


def test_why_and_what_if_with_site_policies_agree_on_every_face(http_site: TestClient) -> None:
    """why names the site's rule (marked with its owner) alike on every face; what-if keeps the rules on both sides."""
    request_ = SITE_REQUESTS[3]
    path = "cache_config.gpu_memory_utilization"
    lib = postinit.resolve(**request_, rules=str(POLICIES)).why(path).to_dict()
    assert lib["rule"] == "mysite.gpu-memory-utilization" and lib["owner"] == str(POLICIES)
    out = runner.invoke(cli_app, ["why", path, "--format", "json", "--rules", str(POLICIES), "--model", LLAMA,
                                  "--platform", "a100", *request_["argv"]])
    assert out.exit_code == 0, out.output
    r = http_site.post("/v1/why", json={**request_, "path": path})
    assert json.loads(out.stdout) == lib == r.json()
    w = postinit.what_if(**request_, set={"model_config.enforce_eager": True}, rules=str(POLICIES)).to_dict()
    out = runner.invoke(cli_app, ["what-if", "--format", "json", "--rules", str(POLICIES), "--model", LLAMA,
                                  "--platform", "a100", "--set", "model_config.enforce_eager=true", *request_["argv"]])
    r = http_site.post("/v1/what-if", json={**request_, "set": {"model_config.enforce_eager": True}})
    assert json.loads(out.stdout) == w == r.json()
    assert w["diff"]["b"]["violations"] == [f"mysite.production-never-eager [site rule of {POLICIES}]: enforce_eager is "
                                         "not allowed in production: it disables CUDA graphs and torch.compile"]


def test_site_policies_answers_are_the_sites(http_site: TestClient) -> None:
    """Each request's verdict is the one the policy file says; the hash stays vLLM's compute_hash of the values."""
    verdicts = []
    for request_ in SITE_REQUESTS:
        r = postinit.resolve(**request_, rules=str(POLICIES))
        verdicts.append(r.violations[0].rule if r.violations else None)
    assert verdicts == ["mysite.production-never-eager", "verify.heads-divisible-by-tp",
                        "mysite.a100-context-limit", None, "mysite.kv-connector-needs-prefix-caching"]
    ok = postinit.resolve(**SITE_REQUESTS[3], rules=str(POLICIES))
    assert ok.get("cache_config.gpu_memory_utilization") == 0.85
    assert ok.hash == postinit.resolve(**SITE_REQUESTS[3]).hash  # gpu_memory_utilization is not hashed by vLLM


def test_the_service_never_takes_rules_from_a_request(http_site: TestClient) -> None:
    """A request naming rules is refused (unknown field), whether the service has rules or not."""
    r = http_site.post("/v1/resolve", json={"model": LLAMA, "rules": str(POLICIES)})
    assert r.status_code == 422 and "rules" in r.json()["message"]


def test_the_services_rules_table_marks_the_sites_rules(http_site: TestClient) -> None:
    rows = http_site.get("/v1/rules").json()
    mine = {row["id"]: row.get("owner") for row in rows if row["id"].startswith("mysite.")}
    assert mine and set(mine.values()) == {str(POLICIES)}
    assert all("owner" not in row for row in rows if not row["id"].startswith("mysite."))
    one = http_site.get("/v1/rules/mysite.tp-divides-node").json()
    assert one["owner"] == str(POLICIES) and one["phase"] == "site"


# --------------------------------------------------------------------------- how (the README's "how do I" questions)

HOW_QUESTIONS = [
    # (inputs, path, value as typed, keep)
    ({"model": "deepseek-ai/DeepSeek-V3", "argv": ["-tp", "8", "-dcp", "2"]}, "compilation_config.cudagraph_mode",
     "FULL", []),
    ({"model": "deepseek-ai/DeepSeek-V3", "argv": ["-tp", "8", "-dcp", "2"]}, "compilation_config.cudagraph_mode",
     "FULL", ["parallel_config.decode_context_parallel_size"]),
    ({"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "argv": ["-tp", "4"], "vllm_version": "0.11.1"},
     "cache_config.enable_prefix_caching", "true", ["model_config.architecture"]),
    ({"model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
      "argv": ["-tp", "4", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']},
     "scheduler_config.disable_hybrid_kv_cache_manager", "false", []),
    ({"model": LLAMA}, "scheduler_config.enable_chunked_prefill", "false", []),
    ({"model": LLAMA}, "scheduler_config.enable_chunked_prefill", "false", ["model_config.runner_type"]),
    ({"model": LLAMA, "vllm_version": "0.11.1"}, "scheduler_config.enable_chunked_prefill", "false", []),
    ({"model": "Qwen/Qwen3-Next-80B-A3B-Instruct", "argv": ["-tp", "4"], "vllm_version": "0.11.1"},
     "cache_config.enable_prefix_caching", "true", []),
]


@pytest.mark.parametrize(("inputs", "path", "value", "keep"), HOW_QUESTIONS,
                         ids=[f"{q[1]}={q[2]} {' '.join(q[0].get('argv', []))} {q[0].get('vllm_version', '')} "
                              f"{' '.join(q[3])}"[:90] for q in HOW_QUESTIONS])
def test_how_gives_one_answer_on_every_face(inputs: dict[str, Any], path: str, value: str, keep: list[str],
                                            http: TestClient) -> None:
    """`how` asked through the library, the CLI (--format json) and HTTP (/v1/how): the same answers, lines,
    blockers and number of candidates tried."""
    from postinit._api import Request, resolve_request

    library_answer = resolve_request(Request.build(**inputs), record=True).how(path, value, keep=keep).to_dict()
    args = ["how", path, value, "--format", "json", "--model", inputs["model"]]
    if inputs.get("vllm_version"):
        args += ["--vllm-version", inputs["vllm_version"]]
    for k in keep:
        args += ["--keep", k]
    out = runner.invoke(cli_app, [*args, *inputs.get("argv", [])])
    assert out.exit_code == (0 if library_answer["reachable"] else 1), out.output
    r = http.post("/v1/how", json={**inputs, "path": path, "value": value, "keep": keep})
    assert r.status_code == 200, r.text
    assert json.loads(out.stdout) == library_answer == r.json()


def test_a_bad_how_value_is_one_line_on_every_face(http: TestClient) -> None:
    """A value the field's type refuses: one InputError line (did you mean) in the library, exit 2 with it from
    the CLI, 422 with it over HTTP."""
    with pytest.raises(postinit.InputError) as info:
        postinit.resolve(model=LLAMA).how("compilation_config.cudagraph_mode", "PIECEWIZE")
    message = info.value.for_face("cli")
    assert "Did you mean 'PIECEWISE'?" in message
    out = runner.invoke(cli_app, ["how", "compilation_config.cudagraph_mode", "PIECEWIZE", "--model", LLAMA])
    assert out.exit_code == 2 and out.stderr.strip().splitlines() == [f"error: {message}"]
    r = http.post("/v1/how", json={"model": LLAMA, "path": "compilation_config.cudagraph_mode", "value": "PIECEWIZE"})
    assert r.status_code == 422 and r.json()["message"] == info.value.for_face("http")


def test_how_with_site_policies_agrees_on_every_face(http_site: TestClient) -> None:
    """how names the site's rule that keeps a value away, marked with its owner, alike on every face."""
    path = "cache_config.gpu_memory_utilization"
    lib = postinit.resolve(model=LLAMA, rules=str(POLICIES)).how(path, 0.9)
    d = lib.to_dict()
    assert d["blockers"][0]["rule"] == "mysite.gpu-memory-utilization" and d["blockers"][0]["owner"] == str(POLICIES)
    out = runner.invoke(cli_app, ["how", path, "0.9", "--format", "json", "--rules", str(POLICIES), "--model", LLAMA])
    assert out.exit_code in (0, 1), out.output
    r = http_site.post("/v1/how", json={"model": LLAMA, "path": path, "value": 0.9})
    assert r.status_code == 200, r.text
    strip = lambda x: {k: v for k, v in x.items() if k not in ("seconds", "tried")}  # noqa: E731
    assert strip(json.loads(out.stdout)) == strip(d) == strip(r.json())
