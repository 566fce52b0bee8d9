"""The upgrade check (``upgrade_check.py``): ``postinit upgrade`` held to two real vLLMs on every golden input
both answered (issues 29 and 30), and the check itself shown to catch what it is for."""

from __future__ import annotations

import copy
import dataclasses
from functools import cache

import pytest

import postinit
from postinit import _upgrade
from tests.golden.corpus import load_cases
from tests.golden.parity import divergences, inputs_of
from tests.golden.upgrade_check import (
    MINIMUM,
    PAIRS,
    PairReport,
    check_line,
    check_pair,
    common_lines,
)


@cache
def report(va: str, vb: str) -> PairReport:
    return check_pair(va, vb)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_upgrade_agrees_with_both_real_vllms(pair: tuple[str, str]) -> None:
    """On every common golden input that is no documented divergence: each side's outcome (accepted, or refused
    with vLLM's error type, message and stage) is the real one, when both accept it the fields reported as
    changing (and as one version's only) are exactly those whose real values differ, and the log lines listed as
    one version's only are exactly those only that real vLLM wrote."""
    r = report(*pair)
    bad = {x.name: x.problems[:3] for x in r.checked if x.problems}
    assert not bad, "\n".join(r.summary()) + f"\n{dict(list(bad.items())[:10])}"
    assert len(r.checked) >= MINIMUM[pair], r.summary()


def test_the_0_34_0_pairs_check_the_old_command_lines() -> None:
    """The 0.11-era u### lines (-O3, -O.mode=3, flags 0.34.0 removed) are checked across the 0.34.0 gap, those
    0.34.0 refuses among them, and every exclusion is a documented divergence or an input that differs."""
    r = report("0.11.1", "0.34.0")
    checked = {x.name for x in r.checked}
    assert {"u001-O3", "u006-O-mode-3", "u022-removed-swap-space"} <= checked
    refused = [x for x in r.checked if x.name.startswith("u") and x.outcome_changed]
    assert len(refused) >= 30
    for x in r.lines:
        if x.excluded is not None:
            assert x.excluded.startswith(("documented divergence", "different inputs: ")), x


def test_a_refused_line_names_0_34_0s_error() -> None:
    """-O.mode=3 written for 0.11: 0.34.0 reads an optimisation level '.mode=3' and refuses it (its ValidationError);
    --swap-space is gone (argparse's 'unrecognized arguments', stage parse). No field is compared."""
    (gc,) = load_cases("0.11.1", "u006-O-mode-3.json")
    config, kw = inputs_of(gc, version="0.11.1")
    u = postinit.upgrade(config, from_version="0.11.1", to_version="0.34.0", **kw)
    o = u.after_outcome
    assert u.before_outcome.ok and not o.ok and (o.error, o.stage) == ("ValidationError", "vllm_config")
    assert "input_value='.mode=3'" in (o.message or "") and not u.changes and not u.compared
    assert "refuses this input at vllm_config" in str(u)
    assert any("optimization_level (from --optimization-level .mode=3)" in n for n in u.notes)
    (gc,) = load_cases("0.11.1", "u022-removed-swap-space.json")
    config, kw = inputs_of(gc, version="0.11.1")
    u = postinit.upgrade(config, from_version="0.11.1", to_version="0.34.0", **kw)
    assert isinstance(u.after, _upgrade.Refused) and u.after_outcome.to_dict() == {
        "ok": False, "error": "ArgumentError", "message": "unrecognized arguments: --swap-space 8", "stage": "parse",
        "rule": None}
    d = u.to_dict()
    assert d["to"]["outcome"]["stage"] == "parse" and d["compared"] is False and d["changes"] == []


def _line(name: str, va: str, vb: str) -> tuple[str, object, object]:
    ((n, a, b),) = [t for t in common_lines(va, vb, f"{name}.json")]
    return n, a, b


def test_the_check_finds_the_chunked_prefill_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30's known miss: without 0.11.1's alias, upgrade lists chunked_prefill_enabled as the seed's only
    field while both real vLLMs have it and its value changes; the check says so."""
    name, a, b = _line("v001-no-chunked-prefill", "d7fb10c57", "0.11.1")
    known = (divergences("d7fb10c57"), divergences("0.11.1"))
    assert check_line(name, a, b, "d7fb10c57", "0.11.1", known).agrees
    monkeypatch.setattr(_upgrade, "FIELD_ALIASES", {})
    problems = check_line(name, a, b, "d7fb10c57", "0.11.1", known).problems
    assert any(p.startswith("scheduler_config.chunked_prefill_enabled: True -> False in real vLLM, not reported")
               for p in problems), problems


def test_the_check_finds_a_wrong_value_and_a_wrong_outcome() -> None:
    """A real answer perturbed: a field vLLM changes that upgrade does not report, an error that is not vLLM's
    and a log line only one vLLM writes that upgrade does not list are each a problem."""
    name, a, b = _line("01-llama-h100-default", "d7fb10c57", "0.11.1")
    known: tuple[dict[str, str], dict[str, str]] = ({}, {})
    assert check_line(name, a, b, "d7fb10c57", "0.11.1", known).agrees
    exp = copy.deepcopy(b.expected)
    exp["post"]["cache_config"]["block_size"] = 32
    problems = check_line(name, a, dataclasses.replace(b, expected=exp), "d7fb10c57", "0.11.1", known).problems
    assert problems == ["cache_config.block_size: 16 -> 32 in real vLLM, not reported"]
    exp = copy.deepcopy(b.expected)
    exp.update(ok=False, stage="parse", error={"type": "ArgumentError", "message": "unrecognized arguments: -x"})
    problems = check_line(name, a, dataclasses.replace(b, expected=exp), "d7fb10c57", "0.11.1", known).problems
    assert problems and problems[0].startswith("0.11.1: upgrade says ok, vLLM refused at parse")
    exp = copy.deepcopy(b.expected)
    exp["logs"] = [*exp["logs"], {"level": "WARNING", "msg": "Something new."}]
    problems = check_line(name, a, dataclasses.replace(b, expected=exp), "d7fb10c57", "0.11.1", known).problems
    assert problems == ["logged only by 0.11.1 in real vLLM, not in upgrade's report: warning: Something new."]
    ex = check_line(name, a, b, "d7fb10c57", "0.11.1", ({name: "x"}, {}))
    assert ex.excluded == "documented divergence of d7fb10c57" and not ex.agrees
