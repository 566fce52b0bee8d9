"""A request never reads a server file: ``postinit serve`` in a directory of planted ``config.json`` files.

The server runs as a real subprocess whose working directory holds ``config.json`` files under
the names requests use (a catalog id, an inline model's name, a ``--config`` file); an audit hook
installed in the server process reports every file it opens or lists under that directory. No
request may open one, and no answer may change with their content.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import postinit

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
INLINE = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 4096,
          "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "num_hidden_layers": 32,
          "vocab_size": 32000, "torch_dtype": "bfloat16"}

_LAUNCHER = r"""
import os, sys
root = os.path.abspath(sys.argv[1])
def hook(event, args):
    if event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
        path = os.path.abspath(os.fsdecode(args[0]))
        if (path == root or path.startswith(root + os.sep)) and os.path.lexists(path):
            sys.stderr.write(f"AUDIT {event} {path}\n")
            sys.stderr.flush()
        mode = args[1] if event == "open" and len(args) > 1 and isinstance(args[1], str) else ""
        flags = args[2] if event == "open" and len(args) > 2 and isinstance(args[2], int) else 0
        if any(m in mode for m in "wax+") or flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            sys.stderr.write(f"WRITE {path}\n")
            sys.stderr.flush()
sys.addaudithook(hook)
sys.argv = ["postinit", "serve", "--port", "0"]
from postinit.cli import main
main()
"""


def _plant(root: Path, layers: int) -> None:
    """config.json files where a request naming them would find them (their content varies per call)."""
    planted = {**INLINE, "num_hidden_layers": layers, "max_position_embeddings": 1024 * layers,
               "initializer_range": layers / 100, "secret": f"guess-{layers}"}
    for where in (LLAMA, "planted", "fixtures/llama"):
        (root / where).mkdir(parents=True, exist_ok=True)
        (root / where / "config.json").write_text(json.dumps(planted))
    (root / "conf.yaml").write_text(f"max-num-seqs: {layers}\n")


class Server:
    def __init__(self, proc: subprocess.Popen[str], url: str, log: Path) -> None:
        self.proc, self.url, self.log = proc, url, log

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def audited(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.startswith("AUDIT ")]

    def writes(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.startswith("WRITE ")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("planted")
    _plant(root, 7)
    log = tmp_path_factory.mktemp("log") / "stderr.txt"
    cache = tmp_path_factory.mktemp("cache")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HOME": str(root)}
    with log.open("w") as err:
        # -P: the launcher's own imports do not search the working directory
        proc = subprocess.Popen([sys.executable, "-P", "-c", _LAUNCHER, str(root)], cwd=root, env=env,
                                stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            found = re.search(r"listening on (http://[^ ]+)", log.read_text())
            url = found.group(1) if found else None
            time.sleep(0.1)
        assert url is not None, log.read_text()
        yield Server(proc, url, log)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    (root / "planted.txt").write_text(str(root))


BODIES: list[tuple[str, dict[str, Any]]] = [
    ("/v1/resolve", {"model": LLAMA}),
    ("/v1/resolve", {"model": "planted", "config_json": INLINE}),
    ("/v1/resolve", {"model": "fixtures/llama", "argv": ["-tp", "2"]}),
    ("/v1/resolve", {"argv": ["planted", "--max-model-len", "2048"]}),
    ("/v1/resolve", {"config": {"model_config": {"model": "planted"}}}),
    ("/v1/resolve", {"model": LLAMA, "argv": ["--config", "conf.yaml"]}),
    ("/v1/resolve", {"model": "~/planted"}),
    ("/v1/what-if", {"model": LLAMA, "set": {"model_config.model": "planted"}}),
    ("/v1/diff", {"a": {"model": LLAMA}, "b": {"model": "planted", "config_json": INLINE}}),
    ("/v1/why", {"model": LLAMA, "path": "model_config.max_model_len"}),
]


def _answers(server: Server) -> list[tuple[int, Any]]:
    out = []
    for path, body in BODIES:
        status, answer = server.post(path, body)
        if status == 200:
            keep = {k: answer.get(k) for k in ("hash", "ok", "a_hash", "b_hash")}
            keep["config"] = json.dumps(answer.get("config"), sort_keys=True)
            out.append((status, keep))
        else:
            out.append((status, answer.get("message")))
    return out


def test_no_request_opens_a_file_of_the_servers_directory(server: Server) -> None:
    """Catalog ids, inline models, flags and paths: no file under the server's cwd is opened or listed,
    and no request opens any file for writing (the HF config JSON cache stays off in the service)."""
    started = len(server.writes())
    first = _answers(server)
    assert server.audited() == []
    assert server.writes()[started:] == []
    statuses = [s for s, _ in first]
    assert statuses[:3] == [200, 200, 200] and 500 not in statuses, first
    assert first[5][0] == 422 and "--config" in str(first[5][1])


def test_answers_do_not_follow_planted_content(server: Server, tmp_path: Path) -> None:
    """Rewriting every planted config.json changes no answer; the hash is the library's catalog-only one."""
    root = Path(server.proc.args[-1])  # type: ignore[index]
    before = _answers(server)
    _plant(root, 3)
    after = _answers(server)
    assert before == after
    expected = postinit.resolve(model=LLAMA, catalog_only=True).hash
    assert before[0][1]["hash"] == expected  # type: ignore[index]
    inline = postinit.resolve(model="planted", config_json=INLINE, catalog_only=True).hash
    assert before[1][1]["hash"] == inline  # type: ignore[index]
    assert server.audited() == []
