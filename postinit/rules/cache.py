"""CacheConfig: the FP8 KV cache note of its ``__post_init__`` (phase ``sub_configs``) and step 13
of ``VllmConfig.__post_init__``: KV-sharing fast prefill (phase ``core``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    RuleResult,
    Violation,
    rule,
)

_EAGLE_METHODS = ("eagle", "eagle3", "mtp")
_FAST_PREFILL_EAGLE = (
    "Fast prefill optimization for KV sharing is not compatible with EAGLE as EAGLE requires correct logits "
    "for all tokens while fast prefill gives incorrect logits for prompt tokens."
)
_FAST_PREFILL = (
    "--kv-sharing-fast-prefill requires changes on model side for correctness and to realize prefill savings. "
)

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"

@rule(
    "cache.fp8-kv-cache-info",
    title="An fp8 KV cache saves memory but may cost accuracy",
    phase="sub_configs",
    kind="check",
    reads=("cache_config.cache_dtype",),
    source="vllm/config/cache.py CacheConfig._validate_cache_dtype; ref 2.2",
    message=("Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the "
             "performance. Meanwhile, it may cause accuracy drop without a proper scaling factor."),
)
def fp8_kv_cache_info(c: Mapping[str, Any]) -> RuleResult:
    """fp8 KV entries halve the cache, at the price of precision without scales."""
    return Outcome.log() if str(c["cache_config.cache_dtype"]).startswith("fp8") else None


fp8_kv_cache_info_msg = ("Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts "
                         "the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor.")



# ---- step 13: KV-sharing fast prefill --------------------------------------------------------


@rule(
    "cache.fast-prefill-eagle",
    title="KV-sharing fast prefill is incompatible with EAGLE",
    phase="core",
    kind="check",
    reads=("cache_config.kv_sharing_fast_prefill", "speculative_config", "speculative_config.method"),
    source=f"{_SRC}; ref step-13",
    message=_FAST_PREFILL_EAGLE,
    level="error",
)
def fast_prefill_eagle(c: Mapping[str, Any], *, error: str = "NotImplementedError") -> RuleResult:
    """EAGLE needs correct logits for every token, and fast prefill gives incorrect logits for prompt tokens.

    ``use_eagle()`` covers the methods eagle, eagle3 and mtp. ``error``: the exception vLLM raises.
    """
    if (
        c["cache_config.kv_sharing_fast_prefill"] and c["speculative_config"] is not None
        and c["speculative_config.method"] in _EAGLE_METHODS
    ):
        return Violation(_FAST_PREFILL_EAGLE, error=error)
    return None


@rule(
    "cache.fast-prefill-warning",
    title="KV-sharing fast prefill needs model support",
    phase="core",
    kind="check",
    reads=("cache_config.kv_sharing_fast_prefill",),
    source=f"{_SRC}; ref step-13",
    message=_FAST_PREFILL,
    level="warning",
)
def fast_prefill_warning(c: Mapping[str, Any]) -> RuleResult:
    """Fast prefill only saves work and stays correct if the model implements it."""
    return Outcome.log() if c["cache_config.kv_sharing_fast_prefill"] else None


