"""Facts about the vLLM version a request resolves as: the constants rules read that differ by version.

Rules read them as ``version.*`` paths, the way they read ``platform.*``: a seed rule
that decides the same way in a later vLLM with another constant reads the constant,
and the later version's delta only gives the fact another value
(:attr:`postinit.rules.delta.Delta.facts`). The defaults are the seed commit's.
"""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel, ConfigDict

from postinit.schema._fields import unhashed
from postinit.schema.configs import SPECULATIVE_METHODS_SEED, SpeculativeMethod

__all__ = ["VersionFacts"]


class VersionFacts(BaseModel):
    """The modelled vLLM version's constants (``version.*``); set by the version, never by the input."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = unhashed("d7fb10c57", description="the modelled version (postinit versions)")
    vllm_version: str = unhashed(
        "0.11.1", description="vllm.__version__ of the modelled vLLM: the first factor of VllmConfig.compute_hash() "
        "(the seed commit runs on the 0.11.1 wheel)")
    model_registry: str = unhashed(
        "model-registry-d7fb10c57.json",
        description="the architecture registry (postinit/rules/data/): ModelRegistry's architectures, their "
        "interfaces and the order of its supported-architectures list")
    capture_sizes_clip: bool = unhashed(
        False, description="whether a user's cudagraph_capture_sizes lose the sizes above max_num_batched_tokens "
        "(VllmConfig._set_cudagraph_sizes; vLLM 0.11.1 clips, the seed keeps them)")
    transformers: str = unhashed(
        ">=4.56.0,<5", description="the transformers versions the modelled vLLM runs with (its wheel's "
        "requirement; the seed ran over the 0.11.1 wheel): the hash includes transformers' HF config JSON, so "
        "postinit's hash is vLLM's only beside such a transformers")
    max_model_len_auto: bool = unhashed(
        False, description="whether ModelConfig's max_model_len takes -1 ('auto': derived, the engine auto-fits it "
        "later) and checks a value below 1 only in its model validator, after __post_init__ derived and logged it "
        "(vLLM 0.34.0: Field(ge=-1), validate_model_config_after); before, postinit's door refuses a value below 1")
    rope_override_standardized: bool = unhashed(
        False, description="whether a dict-valued hf_overrides rope_scaling is standardized in place as it is set "
        "(transformers 5's rope_scaling setter, vLLM 0.34.0: rope_type from a legacy type or 'default', rope_theta, "
        "original_max_position_embeddings for llama3/yarn/longrope); before, it is set as given")
    compilation_mode_enum: bool = unhashed(
        False, description="whether CompilationConfig.mode is an IntEnum pydantic validates when the config is built "
        "(vLLM 0.11.1 on: a mode outside 0-3 is refused there, while parsing a flag or building the sub-config); at "
        "the seed it is a plain int that VllmConfig.__post_init__ asserts in range (compilation.mode-range)")
    configs_forbid_extra: bool = unhashed(
        False, description="whether vLLM's config dataclasses refuse a keyword they do not declare (vLLM 0.34.0's "
        "@config decorator: ConfigDict(extra='forbid'), vllm/config/utils.py:72; before it they ignored one): a "
        "sub-config key the version has no field for is then pydantic's 'Unexpected keyword argument'")
    unmodelled_values: dict[str, list[str]] = unhashed(
        default_factory=dict, description="values of a checked_by_rules path the version's config class accepts "
        "but postinit does not model (vLLM 0.34.0's new speculative methods): refused at the door in postinit's "
        "words, not handed to the rule")
    refused_values: dict[str, list[str]] = unhashed(
        default_factory=lambda: {"speculative_config.method": [
            m for m in get_args(SpeculativeMethod) if m not in SPECULATIVE_METHODS_SEED]},
        description="values of a checked_by_rules path the schema holds that the version's "
        "config class refuses (vLLM 0.34.0 removed the medusa and mlp_speculator methods): handed to the rule "
        "like a value the schema cannot hold")
    refused_where_built: bool = unhashed(
        False, description="whether a field of vllm serve's flags that pydantic refuses in a sub-config EngineArgs "
        "builds (--gpu-memory-utilization 1.5) is refused by create_engine_config where it builds that sub-config, "
        "after what it logged before (the oracle's stage create_engine_config; vLLM 0.34.0), not at the door")
    engine_args_dicts: dict[str, str] = unhashed(
        default_factory=dict, description="the sub-configs EngineArgs.__post_init__ builds itself when a Python caller "
        "gives them as dicts (EngineArgs(compilation_config={...}); vLLM's parser hands it objects), as schema path -> "
        "vLLM class, in the order it builds them (vLLM 0.34.0: vllm/engine/arg_utils.py:891-927): a config dict "
        "resolved through EngineArgs is such a caller's keyword arguments, and pydantic's refusal of one of those dicts "
        "is raised there (stage engine_args), before create_engine_config; empty: not modelled for the version")
    engine_args_dict_rules: list[str] = unhashed(
        default_factory=list, description="the rules that stand for what EngineArgs.__post_init__ logs while it builds "
        "the dicts of engine_args_dicts (vLLM 0.34.0: the fault-tolerance warning): their records precede a refusal "
        "of a later dict, so the door asks them when it refuses one")
    checked_by_rules: list[str] = unhashed(
        default_factory=lambda: ["parallel_config.distributed_executor_backend", "speculative_config.method"],
        description="schema paths whose value the version's config class checks itself (a field "
        "validator with its own words, vLLM 0.34.0's CacheConfig._validate_cache_dtype) or takes as any text "
        "(ParallelConfig's executor backend, every version: a custom Executor's import path): a value the schema "
        "cannot hold is handed to the rules (usage.unheld), which raise vLLM's error where vLLM does, not refused at "
        "the door")
