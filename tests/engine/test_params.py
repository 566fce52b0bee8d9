"""Rule parameters: a rule function's keyword-only arguments with defaults, re-bound by ``with_params``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from postinit.engine import RuleResult, make_rule, with_params
from postinit.errors import RuleDeclarationError


def _set(c: Mapping[str, Any], *, value: int = 1, also: str = "a") -> RuleResult:
    return {"y": (value, also)} if c["x"] else None


def test_parameters_are_the_keyword_only_arguments() -> None:
    r = make_rule(_set, "t.set", title="t", phase="p", kind="derive", reads="x", writes="y")
    assert r.params == (("value", 1), ("also", "a")) and r.fn({"x": True}) == {"y": (1, "a")}
    other = with_params(r, value=2)
    assert other.params == (("value", 2), ("also", "a")) and other.fn({"x": True}) == {"y": (2, "a")}
    assert r.fn({"x": True}) == {"y": (1, "a")}  # the original is unchanged
    assert other.location == r.location and other.fn.__name__ == "_set"


def test_a_parameter_needs_a_default_and_a_patch_a_known_name() -> None:
    def bad(c: Mapping[str, Any], *, value: int) -> RuleResult:
        return None

    with pytest.raises(RuleDeclarationError, match="parameter 'value' has no default"):
        make_rule(bad, "t.bad", title="t", phase="p", kind="check", reads="x")
    r = make_rule(_set, "t.set", title="t", phase="p", kind="derive", reads="x", writes="y")
    with pytest.raises(RuleDeclarationError, match=r"has no parameter 'valeu' \(its parameters: value, also\)"):
        with_params(r, valeu=3)
