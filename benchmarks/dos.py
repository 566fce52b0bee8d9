"""Denial-of-service reproductions against a real ``postinit serve``: answers, latency and the server's RSS.

    python benchmarks/dos.py [--rounds 5]

Starts the service on a free loopback port and sends, concurrently, the bodies that
once cost seconds and gigabytes (10,000 draft tokens, a 100M CUDA graph size, deep
nesting, 5000-digit integers, NaN), then a normal request. Prints each answer's status
and latency, the normal request's latency behind them, and the server's peak resident
memory (``VmHWM`` of /proc, Linux). Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.loadtest import HOST, LLAMA, free_port, start_server, wait_ready

ATTACKS: list[tuple[str, bytes]] = [
    ("10,000 speculative tokens", json.dumps({"model": "fixtures/llama", "config": {"speculative_config": {
        "method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 10_000}}}).encode()),
    ("--cuda-graph-sizes 100000000", json.dumps({"model": LLAMA, "argv": ["--cuda-graph-sizes", "100000000"]}).encode()),
    ("400 levels of nesting", b'{"config": {"additional_config": ' + b'{"a": ' * 400 + b"1" + b"}" * 400 + b"}}"),
    ("a 5000-digit integer", b'{"config": {"scheduler_config": {"max_num_seqs": ' + b"9" * 5000 + b"}}}"),
    ("NaN", b'{"platform": NaN}'),
    ("a deep JSON flag", json.dumps({"model": LLAMA, "argv": ["--compilation-config", "[" * 16000]}).encode()),
]
NORMAL = json.dumps({"model": LLAMA, "platform": "h100", "argv": ["--max-model-len", "32k"]}).encode()


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _post(client: httpx.AsyncClient, body: bytes) -> tuple[int, float]:
    start = time.perf_counter()
    r = await client.post("/v1/resolve", content=body, headers={"content-type": "application/json"})
    return r.status_code, time.perf_counter() - start


async def attack(port: int, rounds: int, proc: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    await wait_ready(f"http://{HOST}:{port}", proc)
    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=60) as client:
        for _ in range(rounds):
            results = await asyncio.gather(*(_post(client, body) for _, body in ATTACKS for _ in range(4)),
                                           _post(client, NORMAL))
            for (name, _), i in zip(ATTACKS, range(0, 4 * len(ATTACKS), 4), strict=True):
                statuses = sorted({results[j][0] for j in range(i, i + 4)})
                rows.append({"attack": name, "status": statuses, "max_s": max(results[j][1] for j in range(i, i + 4))})
            rows.append({"attack": "normal request behind them", "status": [results[-1][0]], "max_s": results[-1][1]})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    port = free_port()
    proc = start_server(port)
    try:
        rows = asyncio.run(attack(port, args.rounds, proc))
        peak = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    worst: dict[str, dict[str, Any]] = {}
    for row in rows:
        w = worst.setdefault(row["attack"], {"status": set(), "max_s": 0.0})
        w["status"].update(row["status"])
        w["max_s"] = max(w["max_s"], row["max_s"])
    print(f"{'request (x4 concurrent, ' + str(args.rounds) + ' rounds)':45s} status   slowest")
    for name, w in worst.items():
        print(f"{name:45s} {','.join(map(str, sorted(w['status']))):8s} {w['max_s'] * 1000:7.1f} ms")
    print(f"server peak RSS: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
