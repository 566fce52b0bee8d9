"""Load test of the HTTP service: ``postinit serve`` on 127.0.0.1, driven by concurrent httpx clients.

    python benchmarks/loadtest.py [--seconds 30] [--clients 16] [--no-write]

Starts the service as a subprocess on a free loopback port, waits for
``/healthz``, then runs ``--clients`` async clients for ``--seconds`` over a
mix of realistic request bodies (resolve, why, why-not, what-if, diff, rules).
Prints throughput, p50/p99 latency and the error count, and replaces its own
section of ``benchmarks/RESULTS.md`` (between the loadtest markers).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

HOST = "127.0.0.1"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
START, END = "<!-- loadtest:start -->", "<!-- loadtest:end -->"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

# (method, path, body): what users of the service send, weighted by repetition.
MIX: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/v1/resolve", {"model": LLAMA, "platform": "h100", "argv": []}),
    ("POST", "/v1/resolve", {"model": LLAMA, "platform": "b200", "argv": ["--max-model-len", "200k"]}),
    ("POST", "/v1/resolve", {"model": "Qwen/Qwen3-8B", "platform": "a100", "argv": ["--enforce-eager"]}),
    ("POST", "/v1/resolve", {"model": "deepseek-ai/DeepSeek-V3", "platform": "h200", "argv": ["-tp", "8"]}),
    ("POST", "/v1/resolve", {"model": "ai21labs/AI21-Jamba-Mini-1.6", "platform": "mi300x",
                             "argv": ["--enable-prefix-caching"]}),
    ("POST", "/v1/resolve", {"config": {"model_config": {"model": "Qwen/Qwen3-0.6B"},
                                        "compilation_config": {"mode": 0}}, "platform": "cpu"}),
    ("POST", "/v1/resolve", {"model": "BAAI/bge-base-en-v1.5", "platform": "l40s", "usage": "llm"}),
    ("POST", "/v1/why", {"model": LLAMA, "platform": "h100", "argv": [],
                         "path": "compilation_config.cudagraph_mode"}),
    ("POST", "/v1/why-not", {"model": LLAMA, "platform": "h100", "argv": [],
                             "path": "compilation_config.cudagraph_mode", "value": "FULL"}),
    ("POST", "/v1/what-if", {"model": LLAMA, "platform": "h100", "argv": [],
                             "set": {"model_config.enforce_eager": True}}),
    ("POST", "/v1/diff", {"a": {"model": LLAMA, "platform": "h100", "argv": []},
                          "b": {"model": LLAMA, "platform": "b200", "argv": []}}),
    ("POST", "/v1/resolve", {"config": {"compilation_config": {"mod": 3}}}),  # a 422, on purpose
    ("GET", "/v1/rules", None),
    ("GET", "/healthz", None),
]
EXPECTED = {200, 422}


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    """``python -m postinit.service`` on 127.0.0.1:port, logs discarded."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.Popen(
        [sys.executable, "-m", "postinit.service", "--host", HOST, "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )


async def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Poll /healthz until the service answers."""
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base) as c:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the service exited with status {proc.returncode}")
            try:
                if (await c.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError("the service did not become ready in time")


async def client(base: str, worker: int, stop_at: float, latencies: list[float],
                 errors: list[str], statuses: dict[int, int]) -> None:
    """One client: requests from the mix, round-robin from its own offset, until the time is up."""
    i = worker
    async with httpx.AsyncClient(base_url=base, timeout=30.0) as c:
        while time.monotonic() < stop_at:
            method, path, body = MIX[i % len(MIX)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = await c.request(method, path, json=body)
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code not in EXPECTED:
                    errors.append(f"{method} {path}: {r.status_code}")
            except httpx.HTTPError as e:
                errors.append(f"{method} {path}: {type(e).__name__}")
            latencies.append(time.perf_counter() - t0)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of values."""
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def write_results(section: str) -> None:
    """Replace (or append) this benchmark's section of RESULTS.md; other sections are left alone."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    block = f"{START}\n{section.rstrip()}\n{END}"
    if START in text and END in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)


async def main(seconds: float, clients: int, write: bool) -> int:
    """Run the load test and report; the exit status is 1 when any request failed."""
    load_before = os.getloadavg()[0]
    port = free_port()
    base = f"http://{HOST}:{port}"
    proc = start_server(port)
    try:
        await wait_ready(base, proc)
        latencies: list[float] = []
        errors: list[str] = []
        statuses: dict[int, int] = {}
        t0 = time.monotonic()
        stop_at = t0 + seconds
        await asyncio.gather(*(client(base, w, stop_at, latencies, errors, statuses) for w in range(clients)))
        elapsed = time.monotonic() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    n = len(latencies)
    rps = n / elapsed
    p50, p99 = percentile(latencies, 50) * 1000, percentile(latencies, 99) * 1000
    status_text = ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
    print(f"{n} requests in {elapsed:.1f} s with {clients} clients: {rps:.1f} req/s, "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, errors {len(errors)} (statuses {status_text})")
    if write:
        section = f"""## HTTP service load test (`benchmarks/loadtest.py`)

`postinit serve` (1 worker) on 127.0.0.1; {clients} concurrent httpx async clients for {seconds:g} s over a
mix of {len(MIX)} request kinds (resolve ×7 incl. one rule violation, why, why-not, what-if, diff, one
invalid config (422 on purpose), GET /v1/rules, /healthz). Errors = transport errors or a status other than 200/422.

| requests | seconds | clients | throughput (req/s) | p50 (ms) | p99 (ms) | errors |
|---:|---:|---:|---:|---:|---:|---:|
| {n} | {elapsed:.1f} | {clients} | {rps:.1f} | {p50:.1f} | {p99:.1f} | {len(errors)} |

Statuses: {status_text}. Python {platform.python_version()}, {os.cpu_count()} CPUs (1-min load average
{load_before:.1f} before the run: other work shares the machine), {time.strftime('%Y-%m-%d')}.
"""
        write_results(section)
    return 1 if errors else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=30.0, help="how long to drive the service (default 30)")
    p.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    p.add_argument("--no-write", action="store_true", help="do not update benchmarks/RESULTS.md")
    a = p.parse_args()
    sys.exit(asyncio.run(main(a.seconds, a.clients, not a.no_write)))
