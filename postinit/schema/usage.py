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
    config_updated_on_input: bool = unhashed(
        False,
        description=(
            "True when step 2 (try_verify_and_update_config) already ran on the model config handed in "
            "(vLLM's re-run through with_hf_config): the model-phase rules then skip. resolve() builds the "
            "ModelConfig from its input, whose __post_init__ resets config_updated to False, so it is False "
            "there; flat-state callers set it to model a re-run"
        ),
    )
    cwd: str = unhashed(
        default_factory=os.getcwd,
        description="the working directory vLLM's Path.absolute() resolves relative paths against (step 23)",
    )
