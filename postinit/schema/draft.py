"""The speculative draft checkpoint's facts: its config.json, read the way the target model's is (``draft.*``).

vLLM's SpeculativeConfig builds a ModelConfig of its own for a draft checkpoint (EAGLE, EAGLE-3, a plain draft
model, DFlash, ...) from ``speculative_config.model``: it resolves the draft's architecture, derives its
max_model_len from its config.json and caps it by the target's. postinit reads that config.json through the
same loader as the target's (:func:`postinit.schema.loaders.load_model`: a local directory only where files may
be read, else a catalog id; the same size limits) and mounts what it found here, beside the config, as
``platform.*`` is; the rules read ``draft.*`` and write the draft's max_model_len.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from postinit.schema._fields import unhashed

__all__ = ["DraftModel"]


class DraftModel(BaseModel):
    """What postinit knows about the draft checkpoint of ``speculative_config.model`` (``draft.*``)."""

    model_config = ConfigDict(extra="forbid")

    loaded: bool = unhashed(
        False,
        description="True when postinit read the draft checkpoint's config.json (a local directory where files "
        "may be read, or a catalog id); False without one: no draft checkpoint (n-gram, suffix, MTP in the target "
        "checkpoint), or one postinit cannot find (a hub id outside the catalog: postinit never downloads)",
    )
    name: str | None = unhashed(None, description="the draft checkpoint read (speculative_config.model as found)")
    hf_config: dict[str, Any] = unhashed(
        default_factory=dict,
        description="its config.json as HFConfig validates it (every HFConfig field; None where absent)",
    )
    hf_text_config: dict[str, Any] = unhashed(
        default_factory=dict, description="its text view (text_config merged over the top level), as hf_config",
    )
    built_max_model_len: int | None = unhashed(
        None,
        description="the draft ModelConfig's max_model_len as it is built: derived from its config.json and "
        "speculative_config.max_model_len as the target's is (speculative.draft-max-model-len)",
    )
    max_model_len: int | None = unhashed(
        None,
        description="the draft's max_model_len once SpeculativeConfig capped it by the target's, or "
        "speculative_config.max_model_len when given (speculative.draft-max-model-len-override)",
    )
