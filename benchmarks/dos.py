"""Denial-of-service reproductions against a real ``postinit serve``: answers, latency and the server's RSS.

    python -m benchmarks.dos [--rounds 5] [--no-write]

Starts the service on a free loopback port (``python -m postinit.service``: the bounded
HTTP protocol, one worker) and sends what once cost seconds, gigabytes or a worker:

* bodies, each alone, then all at once (four copies each), for ``--rounds`` rounds: 10,000 draft tokens, a 100M CUDA
  graph size, deep nesting, 5000-digit integers, NaN, a deep JSON flag; HF-config sizes
  (``num_labels`` 3,000,000 in ``hf_config`` — 113 bytes that cost 15 s and 2.4 GB —, 10**7
  through ``--hf-overrides``, 2**31 in ``config_json``, the caps themselves, an explicit
  ``id2label``, a config.json of junk keys); a 200,000-character variable name; an ordinary
  request behind them;
* 2,000 distinct small bodies (the caches once grew without bound: 200 bodies took RSS from
  158 to 365 MB);
* connections: a 64 MB and a 100 MB header line, 50 request heads sent a byte at a time,
  50 half-sent bodies, 50 clients leaving mid-body — each with ``/healthz`` asked while they
  are in flight.

Prints a table (status, slowest answer) and the server's peak resident memory (``VmHWM`` of
/proc, Linux), and replaces its own section of ``benchmarks/RESULTS.md``. A slow client is cut
at the service's time limit (10 s): that answer is slow by design, and what counts is that
everyone else is answered meanwhile. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.loadtest import HOST, LLAMA, RESULTS, free_port, start_server, wait_ready

START, END = "<!-- dos:start -->", "<!-- dos:end -->"
BASE_JSON = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 4096,
             "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "num_hidden_layers": 32,
             "vocab_size": 32000, "torch_dtype": "bfloat16"}


def _body(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


ATTACKS: list[tuple[str, bytes]] = [
    ("10,000 speculative tokens", _body({"model": "fixtures/llama", "config": {"speculative_config": {
        "method": "eagle", "model": "fixtures/llama_draft", "num_speculative_tokens": 10_000}}})),
    ("--cuda-graph-sizes 100000000", _body({"model": LLAMA, "argv": ["--cuda-graph-sizes", "100000000"]})),
    ("400 levels of nesting", b'{"config": {"additional_config": ' + b'{"a": ' * 400 + b"1" + b"}" * 400 + b"}}"),
    ("a 5000-digit integer", b'{"config": {"scheduler_config": {"max_num_seqs": ' + b"9" * 5000 + b"}}}"),
    ("NaN", b'{"platform": NaN}'),
    ("a deep JSON flag", _body({"model": LLAMA, "argv": ["--compilation-config", "[" * 16000]})),
    ("num_labels 3,000,000 in hf_config (113 B)",
     _body({"model": LLAMA, "config": {"model_config": {"hf_config": {"num_labels": 3_000_000}}}})),
    ("num_labels 10**7 via --hf-overrides", _body({"model": LLAMA, "argv": ["--hf-overrides",
                                                                           '{"num_labels": 10000000}']})),
    ("num_labels 2**31 in config_json", _body({"model": "my/model", "config_json": {**BASE_JSON,
                                                                                    "num_labels": 2**31}})),
    ("num_labels at the cap (4,096)", _body({"model": "my/model", "config_json": {**BASE_JSON, "num_labels": 4096}})),
    ("num_hidden_layers at the cap (4,096)", _body({"model": "my/model", "config_json": {
        **BASE_JSON, "num_hidden_layers": 4096}})),
    ("an id2label of 16,384 entries", _body({"model": "my/model", "config_json": {
        **BASE_JSON, "id2label": {str(i): f"L{i}" for i in range(16_384)}}})),
    ("a config.json of 16,000 junk keys (660 kB, over the 40,000-value cap)", _body({
        "model": "my/model", "config_json": {
            **BASE_JSON, "junk": {f"k{i}": list(range(10)) for i in range(16_000)}}})),
    ("a config.json at the value cap (3,600 junk keys, 39,600 values)", _body({"model": "my/model", "config_json": {
        **BASE_JSON, "junk": {f"k{i}": list(range(10)) for i in range(3_600)}}})),
    ("a 200,000-character env name", _body({"env": {"VLLM_" + "A" * 200_000: "1"}})),
    ("--rope-theta nan", _body({"model": LLAMA, "argv": ["--rope-theta", "nan"]})),
]
NORMAL = _body({"model": LLAMA, "platform": "h100", "argv": ["--max-model-len", "32k"]})


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _post(client: httpx.AsyncClient, body: bytes) -> tuple[int, float]:
    start = time.perf_counter()
    r = await client.post("/v1/resolve", content=body, headers={"content-type": "application/json"})
    return r.status_code, time.perf_counter() - start


async def _healthz(client: httpx.AsyncClient) -> tuple[int, float]:
    start = time.perf_counter()
    r = await client.get("/healthz")
    return r.status_code, time.perf_counter() - start


async def alone(client: httpx.AsyncClient, rounds: int) -> list[dict[str, Any]]:
    """Each body sent on its own, ``rounds`` times: what one such request costs (no queue in front of it)."""
    await _post(client, NORMAL)  # the worker's first request loads what every later one shares
    rows: list[dict[str, Any]] = []
    for name, body in ATTACKS:
        for _ in range(rounds):
            status, took = await _post(client, body)
            rows.append({"case": name, "status": [status], "max_s": 0.0, "alone_s": took})
    return rows


async def bodies(client: httpx.AsyncClient, rounds: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for _ in range(rounds):
        results = await asyncio.gather(*(_post(client, body) for _, body in ATTACKS for _ in range(4)),
                                       _post(client, NORMAL))
        for (name, _), i in zip(ATTACKS, range(0, 4 * len(ATTACKS), 4), strict=True):
            statuses = sorted({results[j][0] for j in range(i, i + 4)})
            rows.append({"case": name, "status": statuses, "max_s": max(results[j][1] for j in range(i, i + 4))})
        rows.append({"case": "an ordinary request behind them", "status": [results[-1][0]], "max_s": results[-1][1]})
    return rows


async def distinct(client: httpx.AsyncClient, pid: int, n: int = 2000) -> list[dict[str, Any]]:
    """``n`` distinct small bodies, 16 at a time: each a new inline model (a new HF config to hash)."""
    before = rss_mb(pid)
    sem = asyncio.Semaphore(16)
    seen: list[tuple[int, float]] = []

    async def one(i: int) -> None:
        async with sem:
            seen.append(await _post(client, _body({"model": f"my/model-{i}", "config_json": {
                **BASE_JSON, "hidden_size": 4096 + 128 * (i % 64), "vocab_size": 32_000 + i}})))

    await asyncio.gather(*(one(i) for i in range(n)))
    after = rss_mb(pid)
    return [{"case": f"{n:,} distinct small bodies, 16 at a time", "status": sorted({s for s, _ in seen}),
             "max_s": max(t for _, t in seen), "note": f"RSS {before:.0f} → {after:.0f} MB"}]


async def _raw(port: int, head: bytes, body: bytes = b"", *, chunk: int = 1 << 20, drip: float | None = None,
               leave: bool = False) -> tuple[int, float]:
    """Send ``head`` (+ ``body``) on a raw connection; the status of the answer and when it came."""
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        data = head + body
        try:
            if drip is not None:
                for i in range(len(data)):
                    writer.write(data[i:i + 1])
                    await writer.drain()
                    await asyncio.sleep(drip)
            else:
                for i in range(0, len(data), chunk):
                    writer.write(data[i:i + chunk])
                    await writer.drain()
        except (ConnectionResetError, BrokenPipeError):
            pass  # the server answered and closed before all was sent
        if leave:
            return 0, time.perf_counter() - start
        answer = await asyncio.wait_for(reader.read(200), timeout=60)
    except (ConnectionResetError, BrokenPipeError):
        answer = b""
    finally:
        writer.close()
    found = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return (int(found.group(1)) if found else 0), time.perf_counter() - start


async def connections(port: int, client: httpx.AsyncClient) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    post_head = (b"POST /v1/resolve HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                 b"content-length: 1000\r\n\r\n")

    async def during(name: str, attack: Any, note: str = "") -> None:
        task = asyncio.ensure_future(attack)
        await asyncio.sleep(0.3)
        health = [await _healthz(client) for _ in range(5)]
        results = await task
        results = results if isinstance(results, list) else [results]
        rows.append({"case": name, "status": sorted({s for s, _ in results}),
                     "max_s": max(t for _, t in results), "note": note})
        rows.append({"case": "  /healthz meanwhile (5 requests)", "status": sorted({s for s, _ in health}),
                     "max_s": max(t for _, t in health)})

    big = lambda n: b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * n + b"\r\n\r\n"  # noqa: E731
    await during("a 64 MB header line", _raw(port, big(64 << 20)))
    await during("a 100 MB header line", _raw(port, big(100 << 20)))
    await during("50 heads sent a byte at a time", asyncio.gather(*(
        _raw(port, b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: " + b"s" * 100, drip=0.5) for _ in range(50))),
        note="cut at the 10 s head limit")
    await during("50 bodies half sent", asyncio.gather(*(
        _raw(port, post_head, b'{"model": ') for _ in range(50))), note="cut at the 10 s body limit")
    await during("50 clients leaving mid-body", asyncio.gather(*(
        _raw(port, post_head, b'{"model": ', leave=True) for _ in range(50))), note="no answer to give")
    metrics = (await client.get("/metrics")).text
    errors = sum(float(m.group(1)) for m in re.finditer(r'_total\{[^}\n]*status="5\d\d"[^}\n]*\} ([0-9.e+]+)', metrics))
    rows.append({"case": "server errors (5xx) counted in /metrics", "status": [int(errors)], "max_s": 0.0})
    return rows


async def attack(port: int, rounds: int, proc: Any) -> list[dict[str, Any]]:
    await wait_ready(f"http://{HOST}:{port}", proc)
    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=60) as client:
        rows = await alone(client, rounds)
        rows += await bodies(client, rounds)
        rows += await distinct(client, proc.pid)
        rows += await connections(port, client)
    return rows


def table(rows: list[dict[str, Any]], rounds: int, peak: float) -> str:
    worst: dict[str, dict[str, Any]] = {}
    for row in rows:
        w = worst.setdefault(row["case"], {"status": set(), "max_s": 0.0, "alone_s": None,
                                           "note": row.get("note", "")})
        w["status"].update(row["status"])
        w["max_s"] = max(w["max_s"], row["max_s"])
        if "alone_s" in row:
            w["alone_s"] = max(w["alone_s"] or 0.0, row["alone_s"])
    out = ["| case | status | slowest answer alone | slowest, all bodies at once | note |", "|---|---|---:|---:|---|"]
    for name, w in worst.items():
        shown = "—" if name.startswith("server errors") else f"{w['max_s'] * 1000:,.1f} ms"
        single = "—" if w["alone_s"] is None else f"{w['alone_s'] * 1000:,.1f} ms"
        status = ", ".join(map(str, sorted(w["status"])))
        out.append(f"| {name} | {status} | {single} | {shown} | {w['note']} |")
    out.append(f"| server peak RSS (VmHWM) | | | | {peak:.0f} MB |")
    return "\n".join(out)


def write_section(text: str, rounds: int) -> None:
    load = os.getloadavg()[0]
    section = (f"{START}\n## Denial-of-service reproductions (`python -m benchmarks.dos`)\n\n"
               f"`postinit serve` (1 worker) on 127.0.0.1. Bodies: each sent alone {rounds} times (what one "
               f"such request costs), then all of them at once, 4 copies each and an ordinary request, {rounds} rounds, to "
               "`POST /v1/resolve` (one worker answers them one after another: the slowest waited for most of "
               "the others); then 2,000 distinct "
               "bodies; then hostile connections, with `/healthz` asked while they are in flight. A slow client "
               "is cut at the service's limit (10 s): its own answer is slow by design.\n\n"
               f"{text}\n\nPython {platform.python_version()}, {os.cpu_count()} CPUs (1-min load average "
               f"{load:.1f} after the run: other work shares the machine), {time.strftime('%Y-%m-%d')}.\n{END}")
    old = RESULTS.read_text() if RESULTS.exists() else ""
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    RESULTS.write_text(pattern.sub(lambda _: section, old) if pattern.search(old) else old.rstrip() + "\n\n" +
                       section + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    port = free_port()
    proc = start_server(port)
    try:
        rows = asyncio.run(attack(port, args.rounds, proc))
        peak = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    text = table(rows, args.rounds, peak)
    print(text)
    if not args.no_write:
        write_section(text, args.rounds)
        print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
