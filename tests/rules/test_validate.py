"""Step 25 after-validator and the I9 quirk (postinit.rules.validate)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import validate as val
from postinit.rules._kit import state


@pytest.mark.parametrize("mbs, mml, apc, fails", [
    (256, 8192, False, True), (256, 8192, None, True), (8192, 8192, False, False), (256, 8192, True, False), (None, 8192, False, False)])
def test_mamba_block_size_needs_prefix_caching(mbs: Any, mml: int, apc: Any, fails: bool) -> None:
    """A mamba_block_size other than max_model_len needs prefix caching (None counts as off)."""
    s = state({"model_config": True, "cache_config.mamba_block_size": mbs, "model_config.max_model_len": mml,
               "cache_config.enable_prefix_caching": apc})
    out = val.mamba_block_size_needs_prefix_caching(s)
    assert isinstance(out, Violation) is fails
    if fails:
        assert out.message == "--mamba-block-size can only be set with --enable-prefix-caching"


def test_validator_without_model() -> None:
    """No model config: nothing to validate."""
    assert val.mamba_block_size_needs_prefix_caching(state({"cache_config.mamba_block_size": 4})) is None


@pytest.mark.parametrize("block, warns", [(528, True), (48, False)])
def test_quirk_mamba_block_size_without_apc(block: int, warns: bool) -> None:
    """The quirk warns when the hybrid rule's block (== block_size) outlived prefix caching, not for a user value."""
    s = state({"model_config": True, "model_config.is_hybrid": True, "cache_config.mamba_block_size": 528,
               "cache_config.block_size": block, "model_config.max_model_len": 8192,
               "cache_config.enable_prefix_caching": False})
    assert isinstance(val.mamba_block_size_without_apc(s), Outcome) is warns


def test_golden_36_end_to_end() -> None:
    """Golden 36: a user mamba_block_size with prefix caching off is vLLM's ValueError."""
    r = postinit.resolve({"model_config": {"model": "fixtures/jamba"},
                          "cache_config": {"mamba_block_size": 256, "enable_prefix_caching": False}},
                         platform="cuda:90", strict=True)
    assert not r.ok
    assert r.violations[0].message == "--mamba-block-size can only be set with --enable-prefix-caching"
