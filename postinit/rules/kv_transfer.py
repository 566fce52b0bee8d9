"""KVTransferConfig's own check (phase ``sub_configs``).
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
    "kv-transfer.role-required",
    title="A KV connector needs a kv_role",
    phase="sub_configs",
    kind="check",
    reads=("kv_transfer_config", "kv_transfer_config.kv_connector", "kv_transfer_config.kv_role"),
    source="vllm/config/kv_transfer.py KVTransferConfig.__post_init__; ref 2.11",
    message=("Please specify kv_role when kv_connector is set, supported roles are "
             "('kv_producer', 'kv_both', 'kv_consumer')"),
)
def kv_transfer_role_required(c: Mapping[str, Any]) -> RuleResult:
    """The connector must know whether this instance produces, consumes or both."""
    if c["kv_transfer_config"] and c["kv_transfer_config.kv_connector"] is not None \
            and c["kv_transfer_config.kv_role"] is None:
        return Violation("Please specify kv_role when kv_connector is set, supported roles are "
                         "('kv_producer', 'kv_both', 'kv_consumer')")
    return None


