"""Property tests of our site policies together with vLLM's rulebook (run by postinit's default suite).

Run them alone: ``pytest examples/site-policies/test_policies.py``.
"""

from pathlib import Path

import pytest

import postinit
from postinit import testing as vs
from postinit.testing import check_rules

POLICIES = str(Path(__file__).with_name("policies.py"))


def test_the_policies_keep_every_invariant_with_vllms_rules() -> None:
    """Determinism, termination, a complete trace, declared reads/writes, postconditions: over 40 inputs."""
    report = check_rules(POLICIES, max_examples=40, raise_on_problems=False)
    assert report.failure is None, report
    # the site default applies wherever vLLM leaves its own default
    gpu = next(c for c in report.rules if c.rule == "mysite.gpu-memory-utilization")
    assert gpu.fired == gpu.reached > 0


@pytest.mark.parametrize("platform", ["a100", "h100"])
def test_each_policy_fires_where_it_should(platform: str) -> None:
    """Aimed inputs make every policy fire at least once: its ensures= is checked, not skipped."""
    inputs = vs.resolve_inputs(platform=platform, usage="serve", kv_transfer=True, prefix_caching=False,
                               max_model_len=131072, model="meta-llama/Llama-3.1-8B-Instruct")
    allow = {"h100": ["mysite.a100-context-limit", "mysite.production-never-eager", "mysite.tp-divides-node",
                      "mysite.gpu-memory-utilization"],
             "a100": ["mysite.kv-connector-needs-prefix-caching", "mysite.production-never-eager",
                      "mysite.tp-divides-node", "mysite.gpu-memory-utilization"]}[platform]
    report = check_rules(POLICIES, inputs=inputs, max_examples=10, allow_unfired=allow)
    assert report.ok


def test_a_policy_violation_is_an_answer_not_an_error() -> None:
    r = postinit.resolve(argv=["--enforce-eager"], rules=POLICIES)
    assert not r.ok and r.violations[0].rule == "mysite.production-never-eager"
    assert r.violations[0].hint == "drop --enforce-eager (or use the staging cluster)"
