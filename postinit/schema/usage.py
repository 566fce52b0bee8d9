"""How the config was built: facts about the caller, not about the config."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict

from postinit.schema._fields import unhashed

__all__ = ["Usage", "UsageContext"]

UsageContext = Literal["OPENAI_API_SERVER", "LLM_CLASS", "ENGINE_CONTEXT"]


class Usage(BaseModel):
    """Whether EngineArgs built the config (``vllm serve`` / ``LLM(...)``) and in which context."""

    model_config = ConfigDict(extra="forbid")

    via_engine_args: bool = unhashed(
        False, description="True when EngineArgs built the config from flags"
    )
    usage_context: UsageContext | None = unhashed(
        None, description="vllm serve = OPENAI_API_SERVER, LLM(...) = LLM_CLASS"
    )
    cwd: str = unhashed(
        default_factory=os.getcwd,
        description="the working directory vLLM's Path.absolute() resolves relative paths against (step 23)",
    )
