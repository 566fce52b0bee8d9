"""How the config was built: facts about the caller, not about the config."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from postinit.schema._fields import unhashed

__all__ = ["ENGINE_ARGS_AS_GIVEN", "ENGINE_ARGS_NONE_DEFAULTS", "ENGINE_ARGS_REWRITTEN", "Usage", "UsageContext"]

ENGINE_ARGS_NONE_DEFAULTS: tuple[str, ...] = (
    "parallel_config.data_parallel_rank", "parallel_config.data_parallel_size_local",
)
"""Config paths whose EngineArgs field defaults to None where the config's own default is a number (``usage.given``)."""

ENGINE_ARGS_REWRITTEN: tuple[str, ...] = (
    "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb",
)
"""Boolean config paths create_engine_config decides from the flags as given and then rewrites (``usage.given_on``)."""

ENGINE_ARGS_AS_GIVEN: tuple[str, ...] = (
    "parallel_config.data_parallel_size", "parallel_config.data_parallel_rank",
)
"""Config paths whose values create_engine_config checks as given, before ParallelConfig's own rules rewrite them
from VLLM_DP_* (``usage.given_values``)."""

UsageContext = Literal[
    "OPENAI_API_SERVER", "LLM_CLASS", "ENGINE_CONTEXT", "API_SERVER", "OPENAI_BATCH_RUNNER", "UNKNOWN_CONTEXT",
]
"""vLLM's ``UsageContext`` members (vllm/usage/usage_lib.py)."""


class Usage(BaseModel):
    """Whether EngineArgs built the config (``vllm serve`` / ``LLM(...)``) and in which context."""

    model_config = ConfigDict(extra="forbid")

    via_engine_args: bool = unhashed(
        False, description="True when EngineArgs built the config from flags"
    )
    usage_context: UsageContext | None = unhashed(
        None, description="vllm serve = OPENAI_API_SERVER, LLM(...) = LLM_CLASS, an engine built from EngineArgs "
        "without one = ENGINE_CONTEXT; None = create_engine_config() given no usage context"
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
    given: list[str] = unhashed(
        default_factory=list,
        description=(
            "the EngineArgs fields whose EngineArgs default is None that the input sets (flag, --config or --set), "
            "as config paths: create_engine_config tells a set data_parallel_rank / data_parallel_size_local from "
            "an unset one, which the config's own defaults (0, 1) cannot show"
        ),
    )
    given_on: list[str] = unhashed(
        default_factory=list,
        description=(
            "the boolean EngineArgs fields of ENGINE_ARGS_REWRITTEN that the input turns on, as config paths: "
            "create_engine_config reads --data-parallel-hybrid-lb / --data-parallel-external-lb as given and "
            "rewrites them (hybrid LB with one local rank autoswitches to external LB), so the rule that writes "
            "them reads the flags here, not its own answer"
        ),
    )
    given_values: dict[str, Any] = unhashed(
        default_factory=dict,
        description=(
            "the values of ENGINE_ARGS_AS_GIVEN paths as the input gives them (the DP size and rank): "
            "create_engine_config's data-parallel checks read these, after CacheConfig is built, while "
            "ParallelConfig's rules rewrite the config's from VLLM_DP_SIZE / VLLM_DP_RANK"
        ),
    )
    given_twice: list[str] = unhashed(
        default_factory=list,
        description=(
            "the EngineArgs fields given both as their own flag and inside their sub-config's JSON "
            "(attention_backend, enable_flashinfer_autotune, cudagraph_capture_sizes, max_cudagraph_capture_size): "
            "vLLM 0.34.0's create_engine_config refuses each as mutually exclusive"
        ),
    )
    speculative_refusal: str | None = unhashed(
        None,
        description=(
            "pydantic's refusal of the --speculative-config JSON's keys SpeculativeConfig does not declare (vLLM "
            "0.34.0's configs forbid them): create_engine_config raises it when it builds the SpeculativeConfig"
        ),
    )
    unheld: dict[str, Any] = unhashed(
        default_factory=dict,
        description=(
            "values the input gives for a path of version.checked_by_rules that the schema cannot hold (an unknown "
            "--kv-cache-dtype in vLLM 0.34.0), by path: the version's rule refuses them as its config class does"
        ),
    )
    refused_where_built: dict[str, str] = unhashed(
        default_factory=dict,
        description=(
            "pydantic's refusal of the flags' values for a sub-config EngineArgs builds, by sub-config "
            "(version.refused_where_built): create_engine_config raises it when it builds that sub-config"
        ),
    )
    cuda_graph_sizes: bool = unhashed(
        False, description="the deprecated --cuda-graph-sizes was given (the seed, 0.11.1): create_engine_config "
        "warns that it is deprecated where it applies it, after building the other sub-configs")
    disable_mm_preprocessor_cache: bool = unhashed(
        False, description="the deprecated --disable-mm-preprocessor-cache (an EngineArgs field only): "
        "create_model_config then sets mm_processor_cache_gb to 0 and does not read VLLM_MM_INPUT_CACHE_GIB")
    default_mm_loras: bool = unhashed(
        False, description="--default-mm-loras given without --enable-lora (EngineArgs keeps the field; no LoRA "
        "config is built)")
    environ: dict[str, str] = unhashed(
        default_factory=dict,
        description=(
            "the environment's VLLM_* variables the version's envs.py does not define, in the order given, with "
            "their values: vLLM 0.34.0's create_engine_config checks them (Platform.validate_environ)"
        ),
    )
    fail_on_environ_validation: bool = unhashed(
        False, description="--fail-on-environ-validation (an EngineArgs field only): an unknown VLLM_* variable is "
        "an error, not a warning (vLLM 0.34.0)")
    data_parallel_start_rank: int = unhashed(0, description="--data-parallel-start-rank (an EngineArgs field only)")
    headless: bool = unhashed(False, description="vllm serve --headless (the server's flag)")
    tokens_only: bool = unhashed(False, description="vllm serve --tokens-only (the server's flag, an EngineArgs "
                                 "field vLLM 0.34.0's from_cli_args copies)")
    api_server_count: int | None = unhashed(None, description="vllm serve --api-server-count as given (None: "
                                            "vllm serve picks it from the data-parallel launch)")
    api_process_count: int = unhashed(1, description="the API server processes vllm serve launches "
                                      "(EngineArgs._api_process_count: 1 for one server in its own process)")
    device_ids: str | None = unhashed(None, description="--device-ids as given (vLLM 0.34.0; an EngineArgs field only)")
    dicts: tuple[str, ...] = unhashed(
        (), description="the sub-configs a Python caller gave EngineArgs as dicts (a config dict resolved through "
        "EngineArgs: version.engine_args_dicts), which EngineArgs.__post_init__ builds itself; vLLM's parser hands it "
        "objects")
    ir_op_priority: dict[str, Any] | None = unhashed(
        None, description="--ir-op-priority as given (vLLM 0.34.0; an EngineArgs field that create_engine_config "
        "moves into kernel_config.ir_op_priority)")
    cwd: str = unhashed(
        default_factory=os.getcwd,
        description="the working directory vLLM's Path.absolute() resolves relative paths against (step 23)",
    )
