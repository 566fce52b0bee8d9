"""Differential test: postinit's resolution of every golden case equals real vLLM's (exact seed d7fb10c57).

One test per case asserts ``compare(gc).matches`` (every compared field,
ok/error type). Cases that cannot match for a principled reason are listed in
``divergences.json`` (``{case: reason}``), run as ``xfail(strict=True)`` and
explained in ``docs/divergences.md``. A second group checks that the ``logs``
texts vLLM printed for the 59 shipped cases are produced by postinit
(``KNOWN_MISSING_LOGS`` lists accepted gaps, also in ``docs/divergences.md``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.corpus import GoldenCase, load_cases
from tests.golden.parity import Comparison, compare, log_report, missing_logs, norm_log, vllm_logs

HERE = Path(__file__).parent
DIVERGENCES: dict[str, str] = json.loads((HERE / "divergences.json").read_text())
DOCS = HERE.parents[1] / "docs" / "divergences.md"
CASES = load_cases()
BY_NAME = {gc.name: gc for gc in CASES}
SHIPPED = [gc for gc in CASES if gc.name[:2].isdigit()]

KNOWN_MISSING_LOGS: dict[str, str] = {}
"""Normalised vLLM log text (``norm_log``) -> why postinit does not print it. Keep in docs/divergences.md."""


def _param(gc: GoldenCase) -> object:
    reason = DIVERGENCES.get(gc.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(gc, id=gc.name, marks=marks)


def _describe(c: Comparison) -> str:
    lines = [f"{c.case}: postinit ok={c.ok}, vLLM ok={c.expected_ok}" + (f", {c.error}" if c.error else "")]
    lines += [f"  {path}: postinit={ours!r} vllm={theirs!r}" for path, (ours, theirs) in c.mismatches.items()]
    return "\n".join(lines)


@pytest.mark.parametrize("gc", [_param(gc) for gc in CASES])
def test_case_matches_vllm(gc: GoldenCase) -> None:
    """postinit's final values (or failure type) equal real vLLM's for this case."""
    c = compare(gc)
    assert c.matches, _describe(c)


def test_corpus_complete() -> None:
    """All 310 golden cases are collected (59 shipped + 251 generated)."""
    assert len(CASES) == 310
    assert len(SHIPPED) == 59


def test_divergences_are_known_and_documented() -> None:
    """Every divergence names a real case, has a reason, and is explained in docs/divergences.md."""
    docs = DOCS.read_text()
    for case, reason in DIVERGENCES.items():
        assert case in BY_NAME, f"divergences.json names unknown case {case}"
        assert reason.strip(), f"{case}: empty reason"
        assert case in docs, f"{case} is not explained in {DOCS}"
    for text in KNOWN_MISSING_LOGS:
        assert text in docs, f"known missing log {text!r} is not explained in {DOCS}"


@pytest.mark.parametrize("gc", SHIPPED, ids=[gc.name for gc in SHIPPED])
def test_shipped_case_logs(gc: GoldenCase) -> None:
    """Every log text vLLM printed for a shipped case is a postinit message (numbers normalised), or a known gap."""
    c = compare(gc)
    missing = [(level, msg) for level, msg in c.missing_logs if norm_log(msg) not in KNOWN_MISSING_LOGS]
    assert not missing, f"{gc.name}: vLLM logged, postinit did not:\n" + "\n".join(f"  {lv}: {m}" for lv, m in missing)
    assert not c.log_level_mismatches, f"{gc.name}: same text, other level: {c.log_level_mismatches}"


def test_log_report_sees_missing_messages() -> None:
    """The log comparison is not vacuous: without a resolution every vLLM record of a case is missing."""
    gc = BY_NAME["05-encoder-decoder-whisper"]
    assert vllm_logs(gc)
    assert missing_logs(gc, None) == vllm_logs(gc)
    report = log_report([Comparison(gc.name, True, True, missing_logs=missing_logs(gc, None))])
    assert f"{len(vllm_logs(gc))} records" in report[0]


def test_norm_log() -> None:
    """Numbers become N, hex addresses 0x?."""
    assert norm_log("Padding mamba page size by 26.32% at 0x7f3a ") == "Padding mamba page size by N% at 0x?"
