"""Suite-wide setup: hypothesis profiles and the ``deep`` marker."""

from __future__ import annotations

import os

import pytest

from postinit.engine.testing import register_profiles

register_profiles(load=os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``deep`` unless the ``-m`` expression mentions deep."""
    if "deep" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="deep run: select with -m deep")
    for item in items:
        if "deep" in item.keywords:
            item.add_marker(skip)
