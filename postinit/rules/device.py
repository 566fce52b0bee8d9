"""DeviceConfig's own ``__post_init__`` (phase ``sub_configs``).
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
    "device.device-type",
    title="DeviceConfig.device_type from the platform ('auto') or the given device",
    phase="sub_configs",
    kind="derive",
    reads=("device_config.device", "platform.device_type"),
    writes=("device_config.device_type", "device_config.device"),
    source="vllm/config/device.py DeviceConfig.__post_init__; ref 2.5",
    level="debug",
)
def device_type(c: Mapping[str, Any]) -> RuleResult:
    """'auto' asks the platform; TPU processes inputs on the CPU, so its device becomes None.

    ``device`` becomes the device type's name (vLLM stores ``torch.device(device_type)``).
    """
    device = c["device_config.device"]
    dtype = c["platform.device_type"] if device in ("auto", None) else device
    if not dtype:
        return Violation("Failed to infer device type, please set the environment variable "
                         "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.",
                         error="RuntimeError")
    return {"device_config.device_type": dtype, "device_config.device": None if dtype == "tpu" else dtype}


