"""The minimal why, the why-not condition and the printable objects, on the library, the CLI and HTTP.

The DeepSeek-V3 prefix-caching answer is the issue's target: at most 12 lines, each a
decision, a value it consulted or the one line of folded defaults — checked here
without a golden file.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

runner = CliRunner()
DSV3 = "deepseek-ai/DeepSeek-V3"
APC = "cache_config.enable_prefix_caching"


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


@pytest.fixture(scope="module")
def dsv3() -> postinit.Resolution:
    return postinit.resolve(model=DSV3, argv=["-tp", "8"], platform="h100")


def test_prefix_caching_answer_fits_twelve_lines_and_every_line_says_something(dsv3: postinit.Resolution) -> None:
    """`why enable_prefix_caching` for DeepSeek-V3 -tp 8 on an H100 is ≤ 12 lines: the decision, the rule,
    what it consulted, one folded-defaults line per decision, and where the inputs came from."""
    res = cli("why", APC, DSV3, "-tp", "8", "--platform", "h100")
    assert res.exit_code == 0, res.output
    lines = res.output.rstrip("\n").splitlines()
    assert len(lines) <= 12, res.output
    assert lines[0] == f"{APC} = true — " + postinit.rulebook().rules["engine-args.prefix-caching-default"].title
    assert lines[1].strip().startswith("rule engine-args.prefix-caching-default (engine_args)")
    text = res.output
    # the values the rules consulted, each once, with where they came from
    assert "usage.via_engine_args = true  ← usage serve" in text
    assert "model_config.runner_type = generate  ← rule model.runner-type" in text
    assert 'model_config.hf_config.architectures = ["DeepseekV3ForCausalLM"]' in text
    # no default gets a line of its own: they fold into one "also read (defaults)" line per decision
    assert "← default" not in text
    assert text.count("also read (defaults):") == 2 and "model_config.is_hybrid=false" in text
    # the rule's re-read of the value it replaced is the "was", not a child
    assert f"{APC} = None" not in text and "was None (default)" in lines[1]
    assert res.output.rstrip("\n") == str(dsv3.why(APC))


def test_verbose_and_depth_are_the_same_on_every_face(dsv3: postinit.Resolution, http: TestClient) -> None:
    """`--verbose`/`--depth` (CLI), `verbose=`/`depth=` (library) and the `/v1/why` body give one tree."""
    for verbose, depth in ((False, None), (True, None), (False, 1), (True, 0)):
        lib = dsv3.why(APC, verbose=verbose, depth=depth).to_dict()
        args = ["why", APC, DSV3, "-tp", "8", "--platform", "h100", "--format", "json"]
        args += ["--verbose"] if verbose else []
        args += ["--depth", str(depth)] if depth is not None else []
        res = cli(*args)
        assert res.exit_code == 0, res.output
        body: dict[str, Any] = {"model": DSV3, "argv": ["-tp", "8"], "platform": "h100", "path": APC,
                                "verbose": verbose}
        if depth is not None:
            body["depth"] = depth
        got = http.post("/v1/why", json=body)
        assert got.status_code == 200, got.text
        assert json.loads(res.output) == lib == got.json()
    verbose_tree = dsv3.why(APC, verbose=True)
    assert all(not n.defaults for n in verbose_tree.walk())
    assert {c.path for c in verbose_tree.children} >= {"model_config.is_hybrid", APC}
    assert any(n.defaults for n in dsv3.why(APC).walk())


def test_bad_depth_is_one_line_on_every_face(http: TestClient) -> None:
    """A negative or non-numeric --depth is one `error:` line and exit 2; HTTP answers 422."""
    for bad in ("-1", "x", "201"):
        res = cli("why", APC, "--depth", bad)
        assert res.exit_code == 2 and res.output.count("\n") == 1 and "--depth" in res.output, res.output
    got = http.post("/v1/why", json={"path": APC, "depth": -1})
    assert got.status_code == 422 and "depth" in got.json()["message"]
    with pytest.raises(postinit.InputError):
        postinit.resolve().why(APC, depth=-1)


def test_why_not_names_the_failing_condition_on_every_face(http: TestClient) -> None:
    """`why-not` names the value the guard stopped at and where it came from: your --enforce-eager."""
    r = postinit.resolve(argv=["--enforce-eager"])
    w = r.why_not("compilation_config.cudagraph_mode", "FULL_AND_PIECEWISE")
    by = {c.rule: c for c in w.candidates}
    default_mode = by["cudagraph.default-mode"]
    assert default_mode.status == "other-value"
    assert by["cudagraph.eager-disables"].status in ("produced", "other-value", "not-fired")
    stopped = [c for c in w.candidates if c.condition is not None]
    assert stopped and all(c.status == "not-fired" for c in stopped)
    assert all(c.condition is not None and c.condition.path == list(c.reads)[-1] for c in stopped)
    res = cli("why-not", "compilation_config.cudagraph_mode", "FULL_AND_PIECEWISE", "--enforce-eager")
    assert res.exit_code == 0 and res.output.rstrip("\n") == str(w)
    got = http.post("/v1/why-not", json={"argv": ["--enforce-eager"], "path": "compilation_config.cudagraph_mode",
                                         "value": "FULL_AND_PIECEWISE"})
    assert got.json() == w.to_dict()


def test_why_not_condition_carries_the_user_flag() -> None:
    """A rule stopped by a value you set names your flag: hma-off-kv-connector stops at kv_transfer_config."""
    r = postinit.resolve(model="Qwen/Qwen3-Next-80B-A3B-Instruct", argv=["-tp", "4"])
    w = r.why_not("scheduler_config.disable_hybrid_kv_cache_manager", True)
    c = {c.rule: c for c in w.candidates}["scheduler.hma-off-kv-connector"]
    assert c.condition is not None and c.condition.path == "kv_transfer_config" and c.condition.value is None
    assert c.detail == "stopped at kv_transfer_config = None ← default"
