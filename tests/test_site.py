"""Site rules on top of vLLM's: loading, the static checks over the combined rulebook, marking, caching."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app
from postinit.engine import Violation, rule
from postinit.errors import (
    InputError,
    RuleDeclarationError,
    UnknownPathError,
    UnorderedWritersError,
)
from postinit.schema import CUDAGraphMode
from postinit.site import SITE_PHASE, load, policy, site_rulebook

POLICIES = Path(__file__).resolve().parents[1] / "examples" / "site-policies" / "policies.py"
runner = CliRunner()


@rule(
    "mysite.lora-piecewise",
    title="Our LoRA serving keeps FULL cudagraphs off",
    phase="core",
    kind="override",
    reads=("lora_config", "compilation_config.cudagraph_mode"),
    writes=("compilation_config.cudagraph_mode",),
    source="our deployment policy",
)
def unordered_cudagraph_writer(c: Mapping[str, Any]) -> Any:
    """Written into vLLM's core phase with no after=: unordered with vLLM's writers of the mode."""
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    return None


def _lora_body(c: Mapping[str, Any]) -> Any:
    mode = c["compilation_config.cudagraph_mode"]
    if c["lora_config"] is not None and mode is not None and mode.has_full_cudagraphs():
        return {"compilation_config.cudagraph_mode": CUDAGraphMode.PIECEWISE}
    return None


def test_a_site_rule_writing_cudagraph_mode_unordered_with_vllms_writers_is_refused_naming_both() -> None:
    with pytest.raises(UnorderedWritersError) as e:
        site_rulebook(rules=[unordered_cudagraph_writer])
    text = str(e.value)
    assert "mysite.lora-piecewise (rule of tests.test_site" in text
    assert "compilation_config.cudagraph_mode" in text and "phase 'core'" in text
    vllm_writer = next(r.id for r in postinit.rulebook().writers_of("compilation_config.cudagraph_mode")
                       if r.id in text)
    assert vllm_writer.startswith(("cudagraph.", "compilation.")), text
    # the advice edits the site's rule, never vLLM's
    assert f"add after=('{vllm_writer}',) to 'mysite.lora-piecewise'" in text
    assert e.value.rule == "mysite.lora-piecewise"


def test_the_same_rule_in_the_site_phase_runs_after_vllms_and_is_ordered() -> None:
    """In its own phase the rule is ordered after every vLLM writer: no conflict, and it decides last."""
    moved = policy("mysite.lora-piecewise-late", title="LoRA keeps FULL cudagraphs off",
                   reads=("lora_config", "compilation_config.cudagraph_mode"),
                   writes=("compilation_config.cudagraph_mode",))(_lora_body)
    r = postinit.resolve(argv=["--enable-lora"], rules=[moved])
    assert r.ok and r.get("compilation_config.cudagraph_mode") is CUDAGraphMode.PIECEWISE
    assert r.why("compilation_config.cudagraph_mode").rule == "mysite.lora-piecewise-late"
    assert postinit.resolve(argv=["--enable-lora"]).get("compilation_config.cudagraph_mode").has_full_cudagraphs()


def test_a_site_rule_with_vllms_id_an_unknown_path_or_a_cycle_is_refused() -> None:
    @policy("cudagraph.default-mode", title="clash", reads=("model_config.enforce_eager",))
    def clash(c: Mapping[str, Any]) -> None:
        return None

    with pytest.raises(RuleDeclarationError, match=r"has the id of vLLM's rule cudagraph\.default-mode"):
        site_rulebook(rules=[clash])

    @policy("mysite.typo", title="typo", reads=("model_config.enforce_eagr",))
    def typo(c: Mapping[str, Any]) -> None:
        return None

    with pytest.raises(UnknownPathError, match=r"enforce_eagr.*Did you mean 'model_config\.enforce_eager'"):
        site_rulebook(rules=[typo])


def test_undeclared_reads_of_a_site_rule_are_caught_in_strict_mode() -> None:
    @policy("mysite.sneaky", title="reads more than it says", reads=("model_config.enforce_eager",))
    def sneaky(c: Mapping[str, Any]) -> None:
        c["parallel_config.tensor_parallel_size"]
        return None

    from postinit.errors import UndeclaredReadError

    with pytest.raises(UndeclaredReadError, match=r"mysite\.sneaky"):
        postinit.resolve(rules=[sneaky], strict=True)


def test_combined_rulebooks_are_cached_per_version_and_rules() -> None:
    site = load(str(POLICIES))
    a = site_rulebook("d7fb10c57", site)
    assert site_rulebook("d7fb10c57", load(str(POLICIES))) is a
    assert site_rulebook("0.11.1", site) is not a and "mysite.tp-divides-node" in site_rulebook("0.11.1", site)
    assert site_rulebook("d7fb10c57", None) is postinit.rulebook()
    assert a.phases[-1] == SITE_PHASE and a.rules["mysite.tp-divides-node"].owner == str(POLICIES)
    assert all(r.owner is None for r in postinit.rulebook().rules.values())


def test_rules_load_from_a_module_name_a_module_a_file_and_functions(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mysite_policies.py").write_text(POLICIES.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    by_name = load("mysite_policies")
    assert by_name.sources == ("mysite_policies",) and len(by_name.rules) == 5
    module = sys.modules["mysite_policies"]
    assert load(module).ids == by_name.ids == load(str(POLICIES)).ids
    assert load([module.tp_divides_node]).ids == ("mysite.tp-divides-node",)
    answers = {postinit.resolve(argv=["-tp", "6"], platform="h200", rules=spec).violations[0].rule
               for spec in ("mysite_policies", module, str(POLICIES), [module.tp_divides_node])}
    assert answers == {"verify.heads-divisible-by-tp"}  # vLLM refuses TP 6 first (32 heads)


@pytest.mark.parametrize(("spec", "text"), [
    ("no_such_site.policies", "--rules no_such_site.policies: no module named 'no_such_site'"),
    ("/nonexistent/policies.py", "--rules /nonexistent/policies.py: no such file"),
    ("json", "--rules json: defines no rule"),
])
def test_a_bad_rules_spec_is_one_line(spec: str, text: str) -> None:
    with pytest.raises(InputError) as e:
        postinit.resolve(rules=spec)
    assert str(e.value).startswith(text) and "\n" not in str(e.value)
    out = runner.invoke(cli_app, ["resolve", "--rules", spec])
    assert out.exit_code == 2 and out.stderr.startswith(f"error: {text}")


def test_a_conflict_on_the_command_line_is_one_line_naming_both_rules(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from postinit.engine import rule\n"
        "from postinit.schema import CUDAGraphMode\n"
        "@rule('mysite.piecewise', title='t', phase='core', kind='override',\n"
        "      reads=('compilation_config.cudagraph_mode',), writes=('compilation_config.cudagraph_mode',))\n"
        "def piecewise(c):\n"
        "    return {'compilation_config.cudagraph_mode': CUDAGraphMode.PIECEWISE}\n")
    out = runner.invoke(cli_app, ["resolve", "--rules", str(bad)])
    assert out.exit_code == 3, out.output
    line = out.stderr.strip()
    assert line.count("\n") == 0 and "mysite.piecewise (rule of" in line and "cudagraph." in line
    assert line.endswith("(this is a problem in your --rules, not your input)")


def test_site_firings_are_marked_in_the_trace_why_why_not_and_report() -> None:
    r = postinit.resolve(platform="a100", argv=["--max-model-len", "32k"], rules=str(POLICIES))
    d = r.to_dict()
    assert [s["id"] for s in d["site_rules"]] == list(load(str(POLICIES)).ids)
    assert "not part of it" in d["hash_covers"]
    fired = [e for e in d["trace"]["events"] if e.get("owner")]
    assert [e["rule"] for e in fired] == ["mysite.gpu-memory-utilization"]
    assert all(e["phase"] != SITE_PHASE for e in d["trace"]["events"] if not e.get("owner"))
    why = r.why("cache_config.gpu_memory_utilization")
    assert why.owner == str(POLICIES) and f"site rule of {POLICIES}" in str(why)
    w = r.why_not("cache_config.gpu_memory_utilization", 0.9)
    assert [c.owner for c in w.candidates] == [str(POLICIES)] and f"site rule of {POLICIES}" in str(w)
    from postinit.report import html_report

    page = html_report(r)
    assert "mysite.gpu-memory-utilization" in page and "site rule of" in page


def test_with_changes_and_upgrade_keep_the_site_rules() -> None:
    r = postinit.resolve(platform="a100", argv=["--max-model-len", "32k"], rules=str(POLICIES))
    eager = r.with_changes({"model_config.enforce_eager": True})
    assert eager.violations[0].rule == "mysite.production-never-eager" and eager.rules == r.rules
    other = r.with_changes(vllm_version="0.11.1")
    assert other.get("cache_config.gpu_memory_utilization") == 0.85
    up = postinit.upgrade(platform="a100", argv=["--max-model-len", "32k"], to_version="0.11.1",
                          rules=str(POLICIES))
    assert up.before.get("cache_config.gpu_memory_utilization") == up.after.get(
        "cache_config.gpu_memory_utilization") == 0.85
    up = postinit.upgrade(platform="a100", to_version="0.11.1", rules=str(POLICIES))
    assert f"in rule mysite.a100-context-limit [site rule of {POLICIES}]:" in " ".join(str(up).split())


def test_a_violating_site_rule_is_vllms_error_shape_but_named_the_sites() -> None:
    r = postinit.resolve(argv=["--enforce-eager"], rules=str(POLICIES))
    assert not r.ok and r.error is not None and r.error.rule == "mysite.production-never-eager"
    with pytest.raises(postinit.ViolationError, match=r"mysite\.production-never-eager"):
        r.raise_for_violations()
    assert "your site's rules refuse this config" in _text(r)


def _text(r: postinit.Resolution) -> str:
    from postinit.engine._show import plain

    return plain(r.__rich__())


def test_site_rules_never_change_vllms_own_answers() -> None:
    """A site check that never fires leaves vLLM's config, trace and hash exactly as they are."""
    @policy("mysite.never", title="never fires", reads=("model_config.enforce_eager",))
    def never(c: Mapping[str, Any]) -> Violation | None:
        return None

    a = postinit.resolve(argv=["-tp", "2"], platform="b200")
    b = postinit.resolve(argv=["-tp", "2"], platform="b200", rules=[never])
    assert a.hash == b.hash and a.state == b.state
    assert [e.to_dict() for e in a.trace.events] == [e.to_dict() for e in b.trace.events if e.rule != "mysite.never"]


def test_sweep_with_site_rules_reports_what_they_did() -> None:
    from postinit import sweep as sweeping

    report = sweeping.sweep("random", n=24, seed=3, chunk_size=12, rules=(str(POLICIES),))
    d = report.to_dict()
    assert d["ok"], d["violations"]
    assert list(d["site_rules"]) == list(load(str(POLICIES)).ids)
    gpu = d["site_rules"]["mysite.gpu-memory-utilization"]
    assert gpu["reached"] == gpu["fired"] > 0  # the site default applies whenever it is reached
    assert set(d["site_never_fired"]) == {r for r, v in d["site_rules"].items() if not v["fired"]}
    out = runner.invoke(cli_app, ["sweep", "--random", "24", "--seed", "3", "--chunk-size", "12",
                                  "--rules", str(POLICIES), "--format", "json"])
    assert out.exit_code == (1 if d["site_never_fired"] else 0), out.output
    assert json.loads(out.stdout)["site_rules"] == d["site_rules"]
