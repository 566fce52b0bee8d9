"""The rulebook as a whole: its reference coverage, its generated docs and its headers."""

from __future__ import annotations

import pathlib

import pytest

from postinit.rules import rulebook, versions
from postinit.rules._docs import REQUIRED, coverage, ref_tags, render
from postinit.rules._versions_docs import render as render_versions

ALL_RULES = sorted({(name, rid) for name in versions.names() for rid in rulebook(name).rules},
                   key=lambda x: (x[1], x[0]))
"""(version, rule id) of every rule of every modelled version (a rule two versions share appears twice)."""

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_reference_item_maps_to_a_rule() -> None:
    """Every step of §1.2, every row of §7.4-7.6 and every model rule of §8 is cited by at least one rule."""
    missing = [f"{k} ({REQUIRED[k]})" for k, rules in coverage().items() if not rules]
    assert missing == []


def test_docs_rules_md_is_generated_from_the_rulebook() -> None:
    """docs/rules.md is exactly what `python -m postinit.rules._docs` prints today."""
    assert (ROOT / "docs" / "rules.md").read_text() == render(), "run: python -m postinit.rules._docs > docs/rules.md"


def test_docs_versions_md_is_generated_from_the_deltas() -> None:
    """docs/versions.md is exactly what `python -m postinit.rules._versions_docs` prints today."""
    assert (ROOT / "docs" / "versions.md").read_text() == render_versions(), \
        "run: python -m postinit.rules._versions_docs > docs/versions.md"


@pytest.mark.parametrize(("version", "rule_id"), ALL_RULES, ids=[f"{v}:{r}" for v, r in ALL_RULES])
def test_rule_header_is_complete(version: str, rule_id: str) -> None:
    """Each rule of each version cites the reference, names its vLLM source and gives a reason."""
    r = rulebook(version)[rule_id]
    assert ref_tags(r.source), f"{rule_id}: source has no 'ref <tags>'"
    assert r.source.split(";")[0].strip(), f"{rule_id}: no vLLM file/function in source"
    assert r.doc, f"{rule_id}: no docstring (the reason)"


def test_every_rule_is_exercised_by_a_test() -> None:
    """Every rule function of every version is named in some test module."""
    text = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    untested = [f"{v}:{rid}" for v in versions.names() for rid, r in rulebook(v).rules.items()
                if rid not in text and r.fn.__name__ not in text]
    assert untested == []
