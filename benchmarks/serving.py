"""HTTP: ``POST /v1/resolve`` through a real ``postinit serve`` (uvicorn) on 127.0.0.1.

For each number of worker processes: the single-request latency (one client, one request after
another on a kept-alive connection), against the same work done in this process without HTTP
(``resolve_request`` + ``to_dict`` + the JSON rendering the endpoint does) — the ratio is what HTTP,
the thread hop and the access log add; then throughput and p99 latency with concurrent clients.

The clients connect one after another, 20 ms apart, as clients arrive: uvicorn's worker processes
share one listening socket, and 16 connections opened in one burst were all accepted by one worker
in about half the runs (two workers then serve what one does); the CPU seconds of the busiest
processes are reported to show the split.

The load generator is a small keep-alive HTTP/1.1 client on asyncio streams (below), so that the
client spends little of the two cores the server needs: an httpx client costs ~1 ms of CPU per
request here, as much as the server's own work. Every answer's status is checked, and the first
answer of each run is parsed and checked to be the resolution (``ok``, the hash) the library gives.
The client's CPU time per request is reported beside the throughput.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._util import Results, Row, alternate

ROOT = Path(__file__).resolve().parent.parent
SECTION = "HTTP /v1/resolve"
HOST = "127.0.0.1"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
BODY = {"model": LLAMA, "platform": "h100", "argv": ["--max-model-len", "32k"]}
RPS_TARGET = 400.0
P99_TARGET_MS = 100.0


def _request(body: bytes) -> bytes:
    return (b"POST /v1/resolve HTTP/1.1\r\nhost: " + HOST.encode() + b"\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class Connection:
    """One kept-alive HTTP/1.1 connection: send a prepared request, read the status and the whole body."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer)

    async def send(self, request: bytes) -> tuple[int, bytes]:
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


def start(port: int, workers: int) -> subprocess.Popen[bytes]:
    """``python -m postinit.service`` on 127.0.0.1:port with ``workers`` processes, logs discarded."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "postinit.service", "--host", HOST, "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and its worker processes (its own process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.wait(timeout=5)


async def ready(port: int, proc: subprocess.Popen[bytes], workers: int, timeout: float = 90.0) -> None:
    """Wait until every worker answers (a fresh connection per try lands on any of them)."""
    deadline = time.monotonic() + timeout
    ok = 0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited with status {proc.returncode}")
        try:
            conn = await Connection.open(port)
            try:
                status, _ = await conn.send(_request(json.dumps(BODY).encode()))
            finally:
                conn.close()
            ok = ok + 1 if status == 200 else 0
            if ok >= 4 * workers:
                return
        except (OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.2)
    raise RuntimeError("the service did not become ready in time")


async def sequential(port: int, n: int) -> list[float]:
    """``n`` requests one after another on one connection: their latencies (seconds)."""
    request = _request(json.dumps(BODY).encode())
    conn = await Connection.open(port)
    out = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            status, _ = await conn.send(request)
            out.append(time.perf_counter() - t)
            if status != 200:
                raise RuntimeError(f"/v1/resolve answered {status}")
    finally:
        conn.close()
    return out


async def load(port: int, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` connections sending requests back to back for ``seconds``: counts and latencies."""
    request = _request(json.dumps(BODY).encode())
    latencies: list[float] = []
    errors: list[str] = []
    first: list[bytes] = []
    conns = []
    for _ in range(clients):  # one at a time, as clients arrive: a burst of connects can land on one worker
        conns.append(await Connection.open(port))
        await asyncio.sleep(0.02)
    stop_at = time.monotonic() + seconds

    async def one(conn: Connection) -> None:
        while time.monotonic() < stop_at:
            t = time.perf_counter()
            try:
                status, body = await conn.send(request)
            except (OSError, asyncio.IncompleteReadError) as e:
                errors.append(type(e).__name__)
                return
            latencies.append(time.perf_counter() - t)
            if status != 200:
                errors.append(str(status))
            elif not first:
                first.append(body)

    cpu, t0 = time.process_time(), time.monotonic()
    await asyncio.gather(*(one(c) for c in conns))
    elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu
    for c in conns:
        c.close()
    return {"latencies": latencies, "errors": errors, "seconds": elapsed, "client_cpu_s": cpu,
            "first": first[0] if first else b""}


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q / 100))] if s else float("nan")


def in_process() -> tuple[float, dict[str, Any]]:
    """The endpoint's work without HTTP, min over alternating samples (seconds), and the answer it gives."""
    from postinit import _api
    from postinit.service._app import parse_body, render_json
    from postinit.service._models import ResolveRequest

    raw = json.dumps(BODY).encode()

    def work() -> bytes:
        body = ResolveRequest.parse(parse_body(raw))
        return render_json(_api.resolve_request(body.plain(), allow_files=False, trace=body.trace).to_dict(), 1 << 24)

    t = alternate({"work": work}, reps=200)["work"]
    return t, json.loads(work())


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def server_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of a process and of each of its children (uvicorn's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(d.name) == pid or int(fields[1]) == pid:  # fields[1] is the parent's pid
            out[int(d.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def server_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and its children, summed (Linux)."""
    return sum(server_cpu(pid).values())


def measure(workers: int, *, n_single: int, clients: int, seconds: float) -> dict[str, Any]:
    port = _free_port()
    proc = start(port, workers)
    try:
        asyncio.run(ready(port, proc, workers))
        single = asyncio.run(sequential(port, n_single))
        cpu = server_cpu(proc.pid)
        loaded = asyncio.run(load(port, clients, seconds))
        after = server_cpu(proc.pid)
        spent = sorted((after[p] - cpu.get(p, 0.0) for p in after), reverse=True)
        loaded["server_cpu_s"] = sum(spent)
        loaded["busiest_s"] = spent[: max(workers, 1)]
        loaded["load_average"] = os.getloadavg()[0]
    finally:
        stop(proc)
    return {"single": single, **loaded}


def run(res: Results, *, workers: tuple[int, ...] = (1, 2), n_single: int = 300, clients: int = 16,
        seconds: float = 15.0) -> None:
    base, expected = in_process()
    for w in workers:
        try:
            m = measure(w, n_single=n_single, clients=clients, seconds=seconds)
        except (OSError, RuntimeError) as e:
            res.notes.append(f"{SECTION}: workers={w} skipped ({e}).")
            continue
        got = json.loads(m["first"]) if m["first"] else {}
        if got.get("hash") != expected["hash"] or got.get("ok") is not True:
            raise RuntimeError(f"the service's answer is not the library's (hash {got.get('hash')} vs {expected['hash']})")
        lat = m["latencies"]
        n = len(lat)
        rps = n / m["seconds"]
        p50, p99 = percentile(lat, 50) * 1e3, percentile(lat, 99) * 1e3
        tag = f"{w} worker{'s' if w > 1 else ''}"
        res.add(Row(SECTION, f"{tag}: one client, one request at a time (min)", min(m["single"]) * 1e6, "µs",
                    "same work in process", base * 1e6,
                    note=f"p50 {percentile(m['single'], 50) * 1e3:.2f} ms over {len(m['single'])} requests"))
        res.add(Row(SECTION, f"{tag}: throughput, {clients} concurrent clients, {m['seconds']:.0f} s", rps, "req/s",
                    target=f"≥ {RPS_TARGET:g} req/s", met=rps >= RPS_TARGET and not m["errors"],
                    short_by=f"{rps / RPS_TARGET:.2f}× the target ({RPS_TARGET - rps:,.0f} req/s short)",
                    why=WHY_RPS, profile=_profile,
                    note=f"{n} requests, {len(m['errors'])} errors; server CPU {m['server_cpu_s'] / max(n, 1) * 1e3:.2f} "
                         f"ms and load generator CPU {m['client_cpu_s'] / max(n, 1) * 1e3:.2f} ms per request; "
                         f"1-min load average {m['load_average']:.1f} after the run; CPU seconds of the busiest "
                         f"process(es): {', '.join(f'{x:.1f}' for x in m['busiest_s'])}"))
        res.add(Row(SECTION, f"{tag}: server CPU per request under load", m["server_cpu_s"] / max(n, 1) * 1e6,
                    "µs", "same work in process", base * 1e6,
                    note=f"{min(w, os.cpu_count() or 1)} core(s) given wholly to the server would serve "
                         f"≈ {min(w, os.cpu_count() or 1) / max(m['server_cpu_s'] / max(n, 1), 1e-9):,.0f} req/s"))
        res.add(Row(SECTION, f"{tag}: p99 latency under that load", p99, "ms", target=f"< {P99_TARGET_MS:g} ms",
                    met=p99 < P99_TARGET_MS, short_by=f"{p99 / P99_TARGET_MS:.2f}× the target",
                    why=WHY_P99, note=f"p50 {p50:.1f} ms"))
    res.notes.append(
        f"{SECTION}: `python -m postinit.service --workers N` (uvicorn with uvloop and httptools when installed) "
        f"on loopback; body {json.dumps(BODY)}; the in-process baseline is the endpoint's own work "
        f"(parse, resolve_request, to_dict, orjson) in the benchmark process. The load generator shares "
        f"the machine's {os.cpu_count()} cores with the server (and with whatever else runs there).")


def _profile() -> str:
    from benchmarks._util import profile_text
    from postinit import _api
    from postinit.service._app import parse_body, render_json
    from postinit.service._models import ResolveRequest

    raw = json.dumps(BODY).encode()

    def work() -> bytes:
        body = ResolveRequest.parse(parse_body(raw))
        return render_json(_api.resolve_request(body.plain(), allow_files=False, trace=body.trace).to_dict(), 1 << 24)

    return "The endpoint's work in process (the server adds HTTP, the thread hop and the access log):\n" + \
        profile_text(work, calls=300, top=18)


WHY_RPS = (
    "Each answer is a full resolution plus its JSON: the resolved config, the changes, the whole trace "
    "(every fired rule with the values it read) and the hash — ~1.3 ms of CPU in process. On a 2-core "
    "machine the server has at most two cores, minus the load generator's share and whatever else runs "
    "there; one worker process is bound by one core (the GIL), two workers by the two cores."
)
WHY_P99 = (
    "The p99 under load is queueing: 16 clients share the server's throughput, so each request waits "
    "for the ones ahead of it (p99 ≈ clients / throughput × a small factor)."
)
