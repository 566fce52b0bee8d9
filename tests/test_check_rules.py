"""postinit.testing.check_rules: site rules property-tested with vLLM's rulebook; counterexamples one can run."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import postinit
from postinit import testing as vs
from postinit._checkrules import RulesCheckError, command_line
from postinit.engine import rule
from postinit.schema import CUDAGraphMode

POLICIES = Path(__file__).resolve().parents[1] / "examples" / "site-policies" / "policies.py"
_HEADER: dict[str, Any] = dict(
    phase="finalize", kind="override", reads=("lora_config", "compilation_config.cudagraph_mode"),
    writes=("compilation_config.cudagraph_mode",),
    after=("compilation.attn-fusion-forces-full", "compilation.empty-splitting-ops-mode"),
    ensures=lambda c: c["lora_config"] is None or not c["compilation_config.cudagraph_mode"].has_full_cudagraphs(),
)
LORA = vs.resolve_inputs(platform=("h100", "b200"), lora=True)


@rule("mysite.no-full-graphs-with-lora", title="LoRA keeps FULL cudagraphs off", **_HEADER)
def good(c: Mapping[str, Any]) -> Any:
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    return None


@rule("mysite.broken-sets-full", title="broken: sets FULL", **_HEADER)
def sets_full(c: Mapping[str, Any]) -> Any:
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.FULL}
    return None


@rule("mysite.never-fires", title="broken: tests the wrong mode", **_HEADER)
def never_fires(c: Mapping[str, Any]) -> Any:
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is CUDAGraphMode.NONE and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    return None


BROKEN_FILE = """
from postinit.engine import rule
from postinit.schema import CUDAGraphMode

@rule("mysite.broken-sets-full", title="broken: sets FULL", phase="finalize", kind="override",
      reads=("lora_config", "compilation_config.cudagraph_mode"), writes=("compilation_config.cudagraph_mode",),
      after=("compilation.attn-fusion-forces-full", "compilation.empty-splitting-ops-mode"))
def sets_full(c):
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.FULL}
    return None
"""


def test_the_docs_rule_passes_and_says_what_it_exercised() -> None:
    report = vs.check_rules([good], inputs=LORA, max_examples=20)
    assert report.ok and report.examples == 20
    (c,) = report.rules
    assert c.rule == "mysite.no-full-graphs-with-lora" and 0 < c.fired <= c.reached <= 20
    both = {i.vllm: i for i in report.interactions if i.how == "both write"}
    assert "cudagraph.default-mode" in both and both["cudagraph.default-mode"].together >= 1
    assert "exercised together" in str(report)


def test_a_rule_that_never_fires_is_reported_not_passed() -> None:
    with pytest.raises(RulesCheckError) as e:
        vs.check_rules([never_fires], inputs=LORA, max_examples=20)
    report = e.value.report
    assert report.failure is None and [c.rule for c in report.unfired] == ["mysite.never-fires"]
    assert "its condition was never true; its ensures= was never checked" in str(e.value)
    # accepted when said so
    assert vs.check_rules([never_fires], inputs=LORA, max_examples=5, allow_unfired=["mysite.never-fires"]).ok


def test_a_broken_rule_shrinks_fast_to_a_command_line_that_reproduces_it(tmp_path: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(RulesCheckError) as e:
        vs.check_rules([sets_full], inputs=LORA, max_examples=25)
    took = time.perf_counter() - start
    failure = e.value.report.failure
    assert failure is not None and failure.invariant == "postconditions"
    assert took < 10, f"shrinking took {took:.1f} s"
    assert failure.command.startswith("echo ") and "postinit resolve --config case.json" in failure.command
    assert "from tests.test_check_rules import sets_full" in failure.python
    # the Python call reproduces it: the broken rule sets FULL with LoRA on
    config, kwargs = failure.inputs
    r = postinit.resolve(config, rules=[sets_full], **kwargs)
    assert r.get("compilation_config.cudagraph_mode") is CUDAGraphMode.FULL and r.get("lora_config") is not None
    # and so does the command line, with the rule given as a file
    rule_file = tmp_path / "broken.py"
    rule_file.write_text(BROKEN_FILE)
    line = command_line(config, kwargs) + f" --rules {shlex.quote(str(rule_file))} --format json"
    out = subprocess.run(["bash", "-c", line.replace("postinit resolve", f"{sys.executable} -m postinit.cli resolve")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert '"cudagraph_mode": 1' in out.stdout or '"cudagraph_mode": "FULL"' in out.stdout, out.stderr[-500:]


def test_the_site_policies_example_keeps_every_invariant() -> None:
    report = vs.check_rules(str(POLICIES), max_examples=30, raise_on_problems=False)
    assert report.failure is None, report
    fired = {c.rule: c.fired for c in report.rules}
    assert fired["mysite.gpu-memory-utilization"] > 0 and fired["mysite.production-never-eager"] > 0
    assert report.to_dict()["examples"] == 30
    # whatever did not fire is named, not passed over
    assert {c.rule for c in report.unfired} == {r for r, n in fired.items() if n == 0}
    assert report.ok == (not report.unfired)
