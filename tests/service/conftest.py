"""Shared fixtures of the service tests: an app and a TestClient that never raises server errors."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

with warnings.catch_warnings():
    # Starlette deprecates httpx in its TestClient in favour of httpx2 (not a dependency here);
    # the warning fires once, at import, and says nothing about this code.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

__all__ = ["LLAMA", "TestClient", "make_client"]

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def make_client(**settings: object) -> TestClient:
    """A TestClient over a fresh app with these settings; server errors become 500 responses."""
    return TestClient(create_app(Settings.model_validate(settings)), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """One app per test module (its metrics registry is its own)."""
    with make_client() as c:
        yield c
