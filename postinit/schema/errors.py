"""The input errors about vLLM's own inputs: ``vllm serve`` flags, models and platform specs.

They belong to the schema that reads those inputs; the generic tree (and its
``InputError``) is :mod:`postinit.errors`, where these three can be imported too.
"""

from __future__ import annotations

from postinit.errors import InputError

__all__ = ["ModelNotFoundError", "PlatformSpecError", "UnknownFlagError"]


class UnknownFlagError(InputError):
    """A command-line flag that vLLM does not have."""


class ModelNotFoundError(InputError):
    """A model that is neither a local directory/file nor a catalog entry."""


class PlatformSpecError(InputError):
    """A platform spec that names no known platform."""
