"""Concurrent requests get the same answers as sequential ones."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.service.conftest import LLAMA, TestClient

BODIES: list[dict[str, Any]] = [
    {"model": LLAMA, "platform": "h100", "argv": []},
    {"model": LLAMA, "platform": "b200", "argv": ["--max-model-len", "200k"]},
    {"model": "Qwen/Qwen3-8B", "platform": "a100", "argv": ["--enforce-eager"]},
    {"model": "deepseek-ai/DeepSeek-V3", "platform": "h200", "argv": ["-tp", "8"]},
    {"config": {"model_config": {"model": "Qwen/Qwen3-0.6B"}, "compilation_config": {"mode": 0}}, "platform": "cpu"},
    {"model": "ai21labs/AI21-Jamba-Mini-1.6", "platform": "mi300x", "argv": ["--enable-prefix-caching"]},
    {"model": "BAAI/bge-base-en-v1.5", "platform": "l40s", "usage": "llm"},
    {"model": LLAMA, "platform": "h100", "argv": ["-O3"], "semantics": "consistent"},
]


def test_sixteen_threads_match_sequential(client: TestClient) -> None:
    """Resolutions from 16 threads return exactly what the same requests return one by one."""
    def post(body: dict[str, Any]) -> tuple[int, Any]:
        r = client.post("/v1/resolve", json=body)
        return r.status_code, r.json()

    sequential = [post(b) for b in BODIES]
    work = BODIES * 6
    with ThreadPoolExecutor(max_workers=16) as pool:
        concurrent = list(pool.map(post, work))
    for i, got in enumerate(concurrent):
        assert got == sequential[i % len(BODIES)], BODIES[i % len(BODIES)]
    assert all(status in (200, 422) for status, _ in sequential)
