"""KVEventsConfig: its publisher default (phase ``sub_configs``) and the KV-event warnings of
step 16 of ``VllmConfig.__post_init__`` (phase ``core``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    RuleResult,
    rule,
)

_APC = "cache_config.enable_prefix_caching"
_EVENTS_NO_APC = "KV cache events are on, but prefix caching is not enabled.Use --enable-prefix-caching to enable."
_PUBLISH_NO_EVENTS = (
    "KV cache events are disabled,but the scheduler is configured to publish them."
    "Modify KVEventsConfig.enable_kv_cache_events"
    "to True to enable."
)

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"

@rule(
    "kv-events.publisher-default",
    title="KV events publisher: zmq when events are on, else null",
    phase="sub_configs",
    kind="default",
    reads=("kv_events_config", "kv_events_config.publisher", "kv_events_config.enable_kv_cache_events"),
    writes=("kv_events_config.publisher",),
    source="vllm/config/kv_events.py KVEventsConfig.__post_init__; ref 2.11",
    level="debug",
)
def kv_events_publisher_default(c: Mapping[str, Any]) -> RuleResult:
    """Events need a real publisher only when they are enabled."""
    if c["kv_events_config"] and c["kv_events_config.publisher"] is None:
        return {"kv_events_config.publisher": "zmq" if c["kv_events_config.enable_kv_cache_events"] else "null"}
    return None



# ---- step 16: KV-event warnings --------------------------------------------------------------


@rule(
    "kv-events.events-without-prefix-caching",
    title="KV cache events need prefix caching",
    phase="core",
    kind="check",
    reads=("kv_events_config", "kv_events_config.enable_kv_cache_events", _APC),
    source=f"{_SRC}; ref step-16",
    message=_EVENTS_NO_APC,
    level="warning",
)
def events_without_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """KV cache events describe prefix-cache blocks, so without prefix caching none are published.

    Reads prefix caching after the off-switch (step 15).
    """
    if c["kv_events_config"] is not None and c["kv_events_config.enable_kv_cache_events"] and not c[_APC]:
        return Outcome.log()
    return None


@rule(
    "kv-events.publisher-without-events",
    title="A KV-event publisher with events disabled",
    phase="core",
    kind="check",
    reads=("kv_events_config", "kv_events_config.enable_kv_cache_events", "kv_events_config.publisher"),
    source=f"{_SRC}; ref step-16",
    message=_PUBLISH_NO_EVENTS,
    level="warning",
)
def publisher_without_events(c: Mapping[str, Any]) -> RuleResult:
    """A publisher other than "null" publishes nothing while events are disabled."""
    if (
        c["kv_events_config"] is not None and c["kv_events_config.publisher"] != "null"
        and not c["kv_events_config.enable_kv_cache_events"]
    ):
        return Outcome.log()
    return None




