"""StructuredOutputsConfig's own checks (phase ``sub_configs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    RuleResult,
    Violation,
    rule,
)


@rule(
    "structured-outputs.any-whitespace-backend",
    title="disable_any_whitespace needs the xgrammar or guidance backend",
    phase="sub_configs",
    kind="check",
    reads=("usage.via_engine_args", "structured_outputs_config.disable_any_whitespace",
           "structured_outputs_config.backend"),
    source="vllm/config/structured_outputs.py StructuredOutputsConfig.__post_init__; ref 2.9",
    message="disable_any_whitespace is only supported for xgrammar and guidance backends.",
)
def structured_outputs_any_whitespace_backend(c: Mapping[str, Any]) -> RuleResult:
    """Only xgrammar and guidance can keep whitespace out of what they generate.

    With flags, argparse built the config from --structured-outputs-config alone and this check
    ran there (stage parse); the deprecated --guided-decoding-* flags are assigned afterwards, unchecked.
    """
    if c["usage.via_engine_args"] or not c["structured_outputs_config.disable_any_whitespace"]:
        return None
    if c["structured_outputs_config.backend"] in ("xgrammar", "guidance"):
        return None
    return Violation("disable_any_whitespace is only supported for xgrammar and guidance backends.")


@rule(
    "structured-outputs.additional-properties-backend",
    title="disable_additional_properties needs the guidance backend",
    phase="sub_configs",
    kind="check",
    reads=("usage.via_engine_args", "structured_outputs_config.disable_additional_properties",
           "structured_outputs_config.backend"),
    source="vllm/config/structured_outputs.py StructuredOutputsConfig.__post_init__; ref 2.9",
    message="disable_additional_properties is only supported for the guidance backend.",
)
def structured_outputs_additional_properties_backend(c: Mapping[str, Any]) -> RuleResult:
    """Only guidance lets a JSON schema's additionalProperties be switched off.

    With flags, argparse built the config from --structured-outputs-config alone and this check
    ran there (stage parse); the deprecated --guided-decoding-* flags are assigned afterwards, unchecked.
    """
    if c["usage.via_engine_args"] or not c["structured_outputs_config.disable_additional_properties"]:
        return None
    if c["structured_outputs_config.backend"] == "guidance":
        return None
    return Violation("disable_additional_properties is only supported for the guidance backend.")
