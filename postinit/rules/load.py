"""LoadConfig's own validators (phase ``sub_configs``): the weight download patterns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, rule

_LOAD = "vllm/config/load.py LoadConfig"
_DEFAULT_IGNORE = ["original/**/*"]


@rule(
    "load.ignore-patterns-logged",
    title="Weight download patterns other than the default are logged",
    phase="sub_configs",
    kind="check",
    reads=("load_config.ignore_patterns",),
    source=f"{_LOAD}._validate_ignore_patterns (a field_validator); ref 2.3",
    message="Ignoring the following patterns when downloading weights: {patterns}",
    level="info",
)
def ignore_patterns_logged(c: Mapping[str, Any]) -> RuleResult:
    """Non-default patterns change which checkpoint files are fetched: vLLM says which (as a Python list)."""
    patterns = c["load_config.ignore_patterns"]
    if isinstance(patterns, str):
        return Outcome.log(patterns=patterns) if patterns else None
    listed = list(patterns)
    if listed != _DEFAULT_IGNORE and listed:
        return Outcome.log(patterns=repr(listed))
    return None
