"""The HTTP service: every endpoint, every error status, and that it adds no logic of its own."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit.schema.limits import MAX_ARGS, MAX_ENV, MAX_STRING
from postinit.schema.loaders import list_catalog
from tests.service.conftest import LLAMA, TestClient, make_client

LONG_CONTEXT = {"model": LLAMA, "platform": "b200", "argv": ["--max-model-len", "200k"]}
SMALL = {"model": LLAMA, "platform": "h100", "argv": []}


def _error(r: object, status: int) -> dict[str, object]:
    from httpx import Response

    assert isinstance(r, Response)
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "message", "request_id", "path", "rule", "stage"}
    assert body["request_id"] == r.headers["x-request-id"]
    assert "Traceback" not in r.text
    return dict(body)


# --------------------------------------------------------------------------- resolve


def test_resolve_returns_the_library_resolution(client: TestClient) -> None:
    """POST /v1/resolve returns exactly Resolution.to_dict() of the same inputs."""
    r = client.post("/v1/resolve", json=SMALL)
    assert r.status_code == 200
    expected = postinit.resolve(None, platform="h100", model=LLAMA, argv=[]).to_dict()
    assert r.json() == json.loads(json.dumps(expected))


def test_resolve_takes_a_nested_config(client: TestClient) -> None:
    """A nested config dict is resolved like the JSON config file the CLI reads."""
    config = {"model_config": {"model": "Qwen/Qwen3-8B"}, "compilation_config": {"mode": 0}}
    r = client.post("/v1/resolve", json={"config": config, "platform": "h100"})
    assert r.status_code == 200
    assert r.json()["hash"] == postinit.resolve(config, platform="h100").hash


def test_violation_is_an_answer_not_an_error(client: TestClient) -> None:
    """A config that violates a rule is 200 with ok false and the violations."""
    r = client.post("/v1/resolve", json=LONG_CONTEXT)
    assert r.status_code == 200
    body = r.json()
    assert body["ok"] is False
    assert body["violations"]
    assert body["violations"][0]["rule"] == postinit.resolve(
        platform="b200", model=LLAMA, argv=["--max-model-len", "200k"]).violations[0].rule


def test_invalid_config_is_422_with_the_cli_message(client: TestClient) -> None:
    """An unknown field is 422 with the library's one-line message (the one the CLI prints)."""
    body = _error(client.post("/v1/resolve", json={"config": {"compilation_config": {"mod": 3}}}), 422)
    with pytest.raises(postinit.InputError) as exc:
        postinit.resolve({"compilation_config": {"mod": 3}})
    assert body["message"] == exc.value.message
    assert body["path"] == "compilation_config.mod"


def test_unknown_flag_is_422(client: TestClient) -> None:
    """An unknown vLLM flag is 422 with a did-you-mean."""
    body = _error(client.post("/v1/resolve", json={"argv": ["--max-model-lenn", "4k"]}), 422)
    assert "--max-model-lenn" in str(body["message"])
    assert body["stage"] == "parse"  # where vLLM's parser refuses it too


def test_bad_platform_is_422(client: TestClient) -> None:
    """A platform spec that names no platform is 422."""
    _error(client.post("/v1/resolve", json={"platform": "h1000"}), 422)


def test_request_model_bounds_are_422(client: TestClient) -> None:
    """Lists and strings over their bounds are 422 before the library runs."""
    _error(client.post("/v1/resolve", json={"argv": ["--x"] * (MAX_ARGS + 1)}), 422)
    _error(client.post("/v1/resolve", json={"argv": ["x" * (MAX_STRING + 1)]}), 422)
    _error(client.post("/v1/resolve", json={"env": {f"VLLM_{i}": "1" for i in range(MAX_ENV + 1)}}), 422)
    _error(client.post("/v1/resolve", json={"unknown": 1}), 422)
    _error(client.post("/v1/resolve", content=b"{not json", headers={"content-type": "application/json"}), 422)


# --------------------------------------------------------------------------- no server paths


@pytest.mark.parametrize("body", [
    {"model": "/etc"},
    {"model": "../models/llama"},
    {"model": "~/llama"},
    {"model": "C:\\models"},
    {"model": "config.json"},
    {"model": "not-in/the-catalog"},
    {"config": {"model_config": {"model": "/tmp"}}},
    {"config": {"model_config": {"model": 7}}},
    {"argv": ["/tmp/model"]},
    {"argv": ["--model", "/tmp/model"]},
    {"argv": ["--config", "/etc/passwd"]},
    {"argv": ["--config=/etc/passwd"]},
    {"platform": "auto"},
])
def test_server_paths_are_refused(client: TestClient, body: dict[str, object]) -> None:
    """Anything that would make the service read a server-side file (or probe its hardware) is 422."""
    _error(client.post("/v1/resolve", json=body), 422)


def test_what_if_cannot_set_a_model_path(client: TestClient) -> None:
    """what-if's set cannot smuggle a model path in either."""
    _error(client.post("/v1/what-if", json={**SMALL, "set": {"model_config.model": "/etc"}}), 422)


def test_inline_hf_config_needs_no_catalog(client: TestClient) -> None:
    """A model outside the catalog is accepted as inline config.json content."""
    facts = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 8192,
             "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
             "num_key_value_heads": 8, "vocab_size": 128256, "torch_dtype": "bfloat16"}
    config = {"model_config": {"model": "my-org/private-model", "hf_config": facts}}
    r = client.post("/v1/resolve", json={"config": config, "platform": "h100"})
    assert r.status_code == 200, r.text
    assert r.json()["hash"] == postinit.resolve(config, platform="h100").hash


# --------------------------------------------------------------------------- explain


def test_why(client: TestClient) -> None:
    """POST /v1/why returns Resolution.why(path).to_dict()."""
    path = "compilation_config.cudagraph_mode"
    r = client.post("/v1/why", json={**SMALL, "path": path})
    assert r.status_code == 200
    expected = postinit.resolve(platform="h100", model=LLAMA, argv=[]).why(path).to_dict()
    assert r.json() == json.loads(json.dumps(expected))


def test_why_unknown_path_is_422(client: TestClient) -> None:
    """Asking why of a path the schema does not have is 422 with a did-you-mean."""
    body = _error(client.post("/v1/why", json={**SMALL, "path": "compilation_config.cudagraph_mod"}), 422)
    assert "Did you mean" in str(body["message"])


def test_why_not(client: TestClient) -> None:
    """POST /v1/why-not returns Resolution.why_not(path, value).to_dict()."""
    path, value = "compilation_config.cudagraph_mode", "FULL"
    r = client.post("/v1/why-not", json={**SMALL, "path": path, "value": value})
    assert r.status_code == 200
    expected = postinit.resolve(platform="h100", model=LLAMA, argv=[]).why_not(path, value).to_dict()
    assert r.json() == json.loads(json.dumps(expected))


def test_what_if(client: TestClient) -> None:
    """POST /v1/what-if returns postinit.what_if(...).to_dict()."""
    change = {"model_config.enforce_eager": True}
    r = client.post("/v1/what-if", json={**SMALL, "set": change})
    assert r.status_code == 200
    expected = postinit.what_if(None, set=change, platform="h100", model=LLAMA, argv=[]).to_dict()
    assert r.json() == json.loads(json.dumps(expected))


def test_what_if_needs_a_set(client: TestClient) -> None:
    """what-if without anything to set is 422."""
    _error(client.post("/v1/what-if", json={**SMALL, "set": {}}), 422)


def test_diff(client: TestClient) -> None:
    """POST /v1/diff returns postinit.diff(resolve(a), resolve(b)).to_dict()."""
    b = {**SMALL, "platform": "b200"}
    r = client.post("/v1/diff", json={"a": SMALL, "b": b})
    assert r.status_code == 200
    ra = postinit.resolve(platform="h100", model=LLAMA, argv=[])
    rb = postinit.resolve(platform="b200", model=LLAMA, argv=[])
    assert r.json() == json.loads(json.dumps(postinit.diff(ra, rb, a_label="a", b_label="b").to_dict()))


# --------------------------------------------------------------------------- rulebook and reference


def test_rules(client: TestClient) -> None:
    """GET /v1/rules lists every rule's header in phase order."""
    r = client.get("/v1/rules")
    assert r.status_code == 200
    assert [x["id"] for x in r.json()] == [x["id"] for x in postinit.rulebook().describe()]


def test_one_rule(client: TestClient) -> None:
    """GET /v1/rules/{id} returns that rule's header."""
    first = postinit.rulebook().describe()[0]
    r = client.get(f"/v1/rules/{first['id']}")
    assert r.status_code == 200
    assert r.json() == first


def test_unknown_rule_is_404_with_did_you_mean(client: TestClient) -> None:
    """An unknown rule id is 404 naming the closest id."""
    rid = postinit.rulebook().describe()[0]["id"]
    body = _error(client.get(f"/v1/rules/{rid}x"), 404)
    assert f"Did you mean '{rid}'?" in str(body["message"])


@pytest.mark.parametrize(("fmt", "start", "ctype"), [
    ("dot", "digraph", "text/vnd.graphviz"),
    ("mermaid", "flowchart", "text/plain"),
])
def test_graph_text(client: TestClient, fmt: str, start: str, ctype: str) -> None:
    """GET /v1/graph renders DOT and Mermaid with the library's renderers."""
    r = client.get("/v1/graph", params={"format": fmt})
    assert r.status_code == 200
    assert r.text.lstrip().startswith(start)
    assert r.headers["content-type"].startswith(ctype)


def test_graph_bad_format_and_phase_are_422(client: TestClient) -> None:
    """An unknown format or phase is 422."""
    _error(client.get("/v1/graph", params={"format": "png"}), 422)
    _error(client.get("/v1/graph", params={"phase": "nope"}), 422)


def test_graph_svg_without_dot_is_501(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """SVG without Graphviz's dot on PATH is 501 with a message saying what to install."""
    monkeypatch.setenv("PATH", "/nonexistent")
    body = _error(client.get("/v1/graph", params={"format": "svg", "phase": "validate"}), 501)
    assert "dot" in str(body["message"])


def test_schema(client: TestClient) -> None:
    """GET /v1/schema is the JSON Schema of the nested config."""
    r = client.get("/v1/schema")
    assert r.status_code == 200
    assert "model_config" in r.json()["properties"]


def test_models(client: TestClient) -> None:
    """GET /v1/models is the built-in catalog."""
    r = client.get("/v1/models")
    assert r.status_code == 200
    assert [m["id"] for m in r.json()] == [e.id for e in list_catalog()]


def test_healthz(client: TestClient) -> None:
    """GET /healthz says ok with the version and the number of rules."""
    r = client.get("/healthz")
    assert r.json() == {"status": "ok", "version": postinit.__version__, "rules": len(postinit.rulebook())}


def test_openapi_has_examples_everywhere(client: TestClient) -> None:
    """Every operation of the OpenAPI document carries an example (request body or response)."""
    doc = client.get("/openapi.json").json()
    text = json.dumps(doc)
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            blob = json.dumps(op)
            refs = re.findall(r'#/components/schemas/(\w+)', blob)
            has = "example" in blob or any(
                "examples" in json.dumps(doc["components"]["schemas"][ref]) for ref in refs)
            assert has, f"{method.upper()} {path} has no example"
    assert "/v1/resolve" in text


# --------------------------------------------------------------------------- edge


def test_request_id_is_echoed_or_generated(client: TestClient) -> None:
    """X-Request-ID is echoed when given and generated otherwise."""
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"] == "abc-123"
    first, second = (client.get("/healthz").headers["x-request-id"] for _ in range(2))
    assert re.fullmatch(r"[0-9a-f]{17,}", first) and first != second  # a random per-process prefix and a serial
    assert client.get("/healthz", headers={"X-Request-ID": "bad id\t!"}).headers["x-request-id"] != "bad id\t!"


def test_body_over_the_limit_is_413_by_content_length() -> None:
    """A body whose Content-Length is over the limit is 413."""
    with make_client(max_body_bytes=1000) as c:
        _error(c.post("/v1/resolve", json={"env": {"VLLM_X": "y" * 2000}}), 413)


def test_streamed_body_over_the_limit_is_413() -> None:
    """A chunked body with no Content-Length is counted as it streams and cut at the limit."""
    def chunks() -> Iterator[bytes]:
        yield b'{"argv": ["'
        for _ in range(10):
            yield b"x" * 500
        yield b'"]}'

    with make_client(max_body_bytes=1000) as c:
        r = c.post("/v1/resolve", content=chunks(), headers={"content-type": "application/json"})
        assert "content-length" not in r.request.headers
        _error(r, 413)


def test_slow_resolution_is_504(monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolution over the time limit is 504."""
    real = postinit._api.resolve_request

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)  # deterministic: the worker cannot finish before the limit, whatever the load
        return real(*args, **kwargs)

    monkeypatch.setattr(postinit._api, "resolve_request", slow)
    with make_client(request_timeout_s=0.05) as c:
        body = _error(c.post("/v1/resolve", json=SMALL), 504)
        assert "longer than" in str(body["message"])


def test_unexpected_error_is_a_generic_500(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception is 500 with a generic message and the request id, never a traceback."""
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret detail /srv/internal")

    monkeypatch.setattr(postinit._api, "resolve_request", boom)
    body = _error(client.post("/v1/resolve", json=SMALL, headers={"X-Request-ID": "req-500"}), 500)
    assert body["request_id"] == "req-500"
    assert "secret" not in json.dumps(body)


def test_unknown_route_is_404(client: TestClient) -> None:
    """An unknown URL is 404 in the same error shape."""
    _error(client.get("/v1/nope"), 404)


def test_metrics() -> None:
    """GET /metrics counts requests by endpoint and status, resolutions and violations by rule."""
    with make_client() as c:
        c.post("/v1/resolve", json=SMALL)
        c.post("/v1/resolve", json=LONG_CONTEXT)
        c.get("/v1/rules/nope")
        text = c.get("/metrics").text
        rule = postinit.resolve(platform="b200", model=LLAMA, argv=["--max-model-len", "200k"]).violations[0].rule
    assert 'postinit_http_requests_total{endpoint="/v1/resolve",method="POST",status="200"} 2.0' in text
    assert 'postinit_http_requests_total{endpoint="/v1/rules/{rule_id}",method="GET",status="404"} 1.0' in text
    assert 'postinit_resolutions_total{outcome="ok"} 1.0' in text
    assert 'postinit_resolutions_total{outcome="violation"} 1.0' in text
    assert f'postinit_violations_total{{rule="{rule}"}} 1.0' in text
    assert "postinit_http_request_duration_seconds_bucket" in text


def test_apps_do_not_share_metrics() -> None:
    """Each app has its own registry: a fresh app has counted nothing."""
    with make_client() as a, make_client() as b:
        a.get("/healthz")
        assert 'endpoint="/healthz"' not in b.get("/metrics").text


def test_catalog_id_never_reads_a_server_directory(client: TestClient, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory in the server's working directory named like a catalog id is never read."""
    decoy = tmp_path / "meta-llama" / "Llama-3.1-8B-Instruct"
    decoy.mkdir(parents=True)
    (decoy / "config.json").write_text('{"architectures": ["BertModel"], "model_type": "bert"}')
    monkeypatch.chdir(tmp_path)
    r = client.post("/v1/resolve", json={"model": "meta-llama/Llama-3.1-8B-Instruct", "platform": "h100"})
    assert r.status_code == 200
    assert r.json()["config"]["model_config"]["architecture"] == "LlamaForCausalLM"
