"""The input errors about vLLM's own inputs: ``vllm serve`` flags, models and platform specs.

They belong to the schema that reads those inputs; the generic tree (and its
``InputError``) is :mod:`postinit.errors`, where these three can be imported too.
"""

from __future__ import annotations

from typing import Any

from postinit.errors import InputError, InvalidValueError

__all__ = ["ModelNotFoundError", "PlatformSpecError", "SubConfigError", "UnknownFlagError"]


class SubConfigError(InvalidValueError):
    """vLLM refuses to build a sub-config from the value given.

    For a JSON-valued flag vLLM's argument parser builds the sub-config on the spot
    (``--compilation-config``/``-O``, ``--kv-transfer-config``, ...): a value its class
    refuses is an ``argparse.ArgumentError`` (``.stage`` ``parse``) and ``vllm serve``
    prints its usage and exits 2. For a config dict the sub-config is built with the
    others (``.stage`` names it, ``.error`` is pydantic's ``ValidationError``). ``.rule``
    is the rule of the sub-config that refused the value (None when pydantic refused a
    field's type); ``.config`` the class, ``.flag`` the flag as vLLM names it.
    """

    def __init__(self, message: str, *, config: str, flag: str | None = None, trace: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.config = config
        self.flag = flag
        self.trace = trace
        """The trace of building the sub-config (``postinit.engine.Trace``): the rules that ran before the one
        that refused, their messages (what vLLM logs while parsing) and the violation; None when a field's
        type was refused."""
        # said_before (InputError's): what the sub-configs vLLM's parser built before this one logged; a refusal
        # at stage ``parse`` comes after the JSON-valued flags to its left were built (and logged)


class UnknownFlagError(InputError):
    """A command-line flag that vLLM does not have."""


class ModelNotFoundError(InputError):
    """A model that is neither a local directory/file nor a catalog entry."""


class PlatformSpecError(InputError):
    """A platform spec that names no known platform."""
