"""ObservabilityConfig's and LoadConfig's own validators (phase ``sub_configs``): the tracing settings and the
weight download patterns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule

_OBS = "vllm/config/observability.py ObservabilityConfig"
_LOAD = "vllm/config/load.py LoadConfig"
_DEFAULT_IGNORE = ["original/**/*"]
_PEP440 = re.compile(
    r"\s*v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*"                                     # epoch, release
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"                # pre-release
    r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"                             # post-release
    r"(?:[-_.]?dev[-_.]?[0-9]*)?"                                                # development release
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*", re.IGNORECASE)                    # local version
"""A version string as PEP 440 allows it (what ``packaging.version.parse`` accepts)."""


@rule(
    "observability.hidden-metrics-version",
    title="--show-hidden-metrics-for-version is a version number",
    phase="sub_configs",
    kind="check",
    reads=("observability_config.show_hidden_metrics_for_version",),
    source=f"{_OBS}._validate_show_hidden_metrics_for_version (a field_validator: packaging's parse); ref 2.3",
    message="Invalid version: '<value>'",
)
def hidden_metrics_version(c: Mapping[str, Any]) -> RuleResult:
    """The metrics hidden since a release are named by that release's number (PEP 440)."""
    value = c["observability_config.show_hidden_metrics_for_version"]
    if value is not None and not _PEP440.fullmatch(value):
        return Violation(f"Invalid version: {value!r}", error="InvalidVersion")
    return None


@rule(
    "observability.detailed-traces-endpoint",
    title="Detailed traces need an OTLP traces endpoint",
    phase="sub_configs",
    kind="check",
    reads=("observability_config.collect_detailed_traces", "observability_config.otlp_traces_endpoint"),
    source=f"{_OBS}._validate_tracing_config (a model_validator); ref 2.3",
    message="collect_detailed_traces requires `--otlp-traces-endpoint` to be set.",
)
def detailed_traces_endpoint(c: Mapping[str, Any]) -> RuleResult:
    """The detailed spans are exported over OTLP: without an endpoint they would go nowhere."""
    if c["observability_config.collect_detailed_traces"] and not c["observability_config.otlp_traces_endpoint"]:
        return Violation("collect_detailed_traces requires `--otlp-traces-endpoint` to be set.")
    return None


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
