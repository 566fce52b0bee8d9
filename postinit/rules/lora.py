"""LoRAConfig's own default and check (phase ``sub_configs``).
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
    "lora.max-cpu-loras-default",
    title="max_cpu_loras defaults to max_loras",
    phase="sub_configs",
    kind="default",
    reads=("lora_config", "lora_config.max_cpu_loras", "lora_config.max_loras"),
    writes=("lora_config.max_cpu_loras",),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config; ref 2.7",
    level="debug",
)
def max_cpu_loras_default(c: Mapping[str, Any]) -> RuleResult:
    """The CPU LoRA cache holds at least the adapters that can be active at once."""
    if c["lora_config"] and c["lora_config.max_cpu_loras"] is None:
        return {"lora_config.max_cpu_loras": c["lora_config.max_loras"]}
    return None


@rule(
    "lora.max-cpu-loras-check",
    title="max_cpu_loras must be >= max_loras",
    phase="sub_configs",
    kind="check",
    reads=("lora_config", "lora_config.max_cpu_loras", "lora_config.max_loras"),
    source="vllm/config/lora.py LoRAConfig._validate_lora_config; ref 2.7",
    message="max_cpu_loras (<n>) must be >= max_loras (<m>)",
)
def max_cpu_loras_check(c: Mapping[str, Any], *, end: str = "") -> RuleResult:
    """Every active adapter must also fit into the CPU cache.

    ``end``: what closes vLLM's sentence (0.34.0 ends it with a period).
    """
    cpu, gpu = c["lora_config.max_cpu_loras"], c["lora_config.max_loras"]
    if c["lora_config"] and cpu is not None and cpu < gpu:
        return Violation(f"max_cpu_loras ({cpu}) must be >= max_loras ({gpu}){end}")
    return None


