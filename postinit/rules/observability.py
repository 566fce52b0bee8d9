"""ObservabilityConfig's own validators (phase ``sub_configs``): the tracing settings and the hidden-metrics version.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from postinit.engine import RuleResult, Violation, rule

_OBS = "vllm/config/observability.py ObservabilityConfig"
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
