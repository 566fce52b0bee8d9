"""Step 25: ``VllmConfig.validate_mamba_block_size``, the after-validator (phase ``validate``).

Pydantic runs it after the whole ``__post_init__``, so it sees the final
prefix-caching switch, ``mamba_block_size`` and ``max_model_len`` (reference O22).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule

_READS = ("model_config", "cache_config.mamba_block_size", "model_config.max_model_len",
          "cache_config.enable_prefix_caching")


def _mamba_block_size_set(c: Mapping[str, Any]) -> bool:
    size = c["cache_config.mamba_block_size"]
    return bool(c["model_config"]) and size is not None and size != c["model_config.max_model_len"]


@rule(
    "quirk.mamba-block-size-without-apc",
    title="mamba_block_size set by the hybrid rule, prefix caching turned off later",
    phase="validate",
    kind="check",
    reads=(*_READS, "model_config.is_hybrid", "cache_config.block_size"),
    source="vllm/config/vllm.py VllmConfig.validate_mamba_block_size; ref 13.1:O3, 13.2:I9",
    message=(_QUIRK := "mamba_block_size was set to the attention block size by the hybrid model rule (step 2, "
             "prefix caching on) and prefix caching was turned off afterwards; vLLM's validator now rejects the "
             "config although the user never set --mamba-block-size."),
    level="warning",
)
def mamba_block_size_without_apc(c: Mapping[str, Any]) -> RuleResult:
    """vLLM's own step 2 value trips its after-validator when a later step turns prefix caching off.

    The hybrid rule gives mamba_block_size and block_size the same value, which
    tells this case from a user-set mamba_block_size; the off-switch's write is
    also a stale read of the hybrid rule in the trace.
    """
    if not _mamba_block_size_set(c) or c["cache_config.enable_prefix_caching"] or not c["model_config.is_hybrid"]:
        return None
    if c["cache_config.mamba_block_size"] == c["cache_config.block_size"]:
        return Outcome.log()
    return None


@rule(
    "validate.mamba-block-size-needs-prefix-caching",
    title="--mamba-block-size only with prefix caching",
    phase="validate",
    kind="check",
    reads=_READS,
    after=("quirk.mamba-block-size-without-apc",),
    source="vllm/config/vllm.py VllmConfig.validate_mamba_block_size; ref step-25",
)
def mamba_block_size_needs_prefix_caching(c: Mapping[str, Any]) -> RuleResult:
    """A mamba block size other than the whole sequence only matters for prefix caching.

    ``enable_prefix_caching`` None counts as off.
    """
    if _mamba_block_size_set(c) and not c["cache_config.enable_prefix_caching"]:
        return Violation("--mamba-block-size can only be set with --enable-prefix-caching")
    return None
