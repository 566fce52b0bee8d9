"""What a body may be: JSON only, argv as a list or one string, pasted lines, bounded echoes, no server facts."""

from __future__ import annotations

import os

import pytest

import postinit
from tests.service.conftest import LLAMA, TestClient

PASTED = f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve {LLAMA} --max-model-len 200k"


@pytest.mark.parametrize("endpoint", ["/v1/resolve", "/v1/why", "/v1/report"])
@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"])
def test_a_body_not_declared_as_json_is_415(client: TestClient, endpoint: str, kind: str) -> None:
    """text/plain and form bodies were parsed as JSON; now they are 415 with what to send instead."""
    r = client.post(endpoint, content=b'{"model": "%s", "path": "model_config.max_model_len"}' % LLAMA.encode(),
                    headers={"content-type": kind})
    assert r.status_code == 415, r.text
    body = r.json()
    assert body["error"] == "unsupported_media_type" and "application/json" in body["message"]


@pytest.mark.parametrize("kind", [None, "application/json", "application/json; charset=utf-8",
                                  "application/problem+json"])
def test_json_bodies_are_taken(client: TestClient, kind: str | None) -> None:
    """A JSON body (or one with no declared type, as many scripts send it) is answered."""
    headers = {"content-type": kind} if kind else {}
    r = client.post("/v1/resolve", content=b'{"model": "%s"}' % LLAMA.encode(), headers=headers)
    assert r.status_code == 200, r.text


def test_argv_as_one_string_is_the_same_request(client: TestClient) -> None:
    """``argv`` takes one string as the library does: the same answer as the list."""
    as_list = client.post("/v1/resolve", json={"model": LLAMA, "argv": ["-tp", "2", "--max-model-len", "32k"]})
    as_text = client.post("/v1/resolve", json={"model": LLAMA, "argv": "-tp 2 --max-model-len 32k"})
    assert as_list.status_code == as_text.status_code == 200
    assert as_list.json()["hash"] == as_text.json()["hash"]
    assert as_text.json()["config"]["parallel_config"]["tensor_parallel_size"] == 2
    assert as_text.json()["hash"] == postinit.resolve(model=LLAMA, argv="-tp 2 --max-model-len 32k",
                                                      catalog_only=True).hash


def test_a_pasted_line_with_an_env_prefix_over_http(client: TestClient) -> None:
    """``VLLM_X=1 vllm serve M ...`` is env plus flags, on HTTP as in the library."""
    r = client.post("/v1/resolve", json={"argv": PASTED, "platform": "b200"})
    assert r.status_code == 200, r.text
    assert r.json()["config"]["model_config"]["max_model_len"] == 200_000
    assert r.json()["hash"] == postinit.resolve(argv=PASTED, platform="b200", catalog_only=True).hash


@pytest.mark.parametrize("query", [[("argv", "-tp"), ("argv", "4")], [("argv", "-tp 4")]])
def test_report_query_argv_in_both_shapes(client: TestClient, query: list[tuple[str, str]]) -> None:
    """``GET /v1/report?argv=-tp&argv=4`` and ``?argv=-tp 4`` are the same flags (the first was two models)."""
    r = client.get("/v1/report", params=[("model", LLAMA), *query])
    assert r.status_code == 200, r.text[:300]
    assert "tensor_parallel_size" in r.text and "two models" not in r.text


def test_an_error_path_is_bounded(client: TestClient) -> None:
    """A 200,000-character variable name is not echoed back whole (the answer was 201 KB)."""
    r = client.post("/v1/resolve", json={"env": {"VLLM_" + "A" * 200_000: "1"}})
    assert r.status_code == 422
    assert len(r.content) < 2_000
    assert len(r.json()["path"] or "") <= 200


@pytest.mark.parametrize(("variable", "expected"), [("~root", "$PWD/~root"), ("~/dumps", "$PWD/~/dumps"),
                                                     ("/abs/dumps", "/abs/dumps")])
def test_the_servers_directory_is_not_in_an_answer(client: TestClient, variable: str, expected: str) -> None:
    """VLLM_DEBUG_DUMP_PATH=~root was answered as <server cwd>/~root; the server's directory is never shown
    (vLLM's own working directory is written $PWD)."""
    r = client.post("/v1/resolve", json={"model": LLAMA, "env": {"VLLM_DEBUG_DUMP_PATH": variable}})
    assert r.status_code == 200
    assert r.json()["config"]["compilation_config"]["debug_dump_path"] == expected
    assert os.getcwd() not in r.text
    if variable.startswith("~/"):  # quirk I14 still said, in the service's words
        assert any(expected in (e.get("message") or "") for e in r.json()["trace"]["events"])
