"""vLLM 0.11.1 as a delta over the seed commit d7fb10c57: the rules it adds, replaces and drops.

Every rule here has the id of the decision it stands for. A rule whose id the
seed rulebook has *replaces* it (the same question, answered as 0.11.1 answers
it); a new id is a decision 0.11.1 *adds*; :data:`DROPS` lists the seed's
decisions 0.11.1 no longer makes, each with the reason. :data:`DELTA` is the
declaration :mod:`postinit.rules.versions` reads; ``docs/versions.md`` is
generated from it.

Sources are the files of the ``vllm==0.11.1`` wheel (``site-packages/vllm/``);
"the seed" is vLLM main ``d7fb10c57``.

Not copied, because the seed's rules already behave as 0.11.1 does: every
decision gated on ``VLLM_USE_V1``. 0.11.1 removed the variable (its
``envs.py`` does not define it, so ``env.VLLM_USE_V1`` keeps its default,
true, and a user's ``VLLM_USE_V1=0`` is reported as unknown), and the gated
rules then take the V1 branch that 0.11.1 kept unconditionally.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import RuleResult, rule
from postinit.rules import hashing
from postinit.rules.versions import Delta

_VLLM = "vllm/config/vllm.py VllmConfig.__post_init__ (0.11.1)"
_SCH = "vllm/config/scheduler.py SchedulerConfig (0.11.1)"
_ARGS = "vllm/engine/arg_utils.py EngineArgs (0.11.1)"
_CPU = "vllm/platforms/cpu.py CpuPlatform.check_and_update_config (0.11.1)"

_ECP = "scheduler_config.enable_chunked_prefill"
_TOK = "scheduler_config.max_num_batched_tokens"
_SEQ = "scheduler_config.max_num_seqs"
_LEN = "scheduler_config.max_model_len"
_APC = "cache_config.enable_prefix_caching"


# =========================================================================== SchedulerConfig


@rule(
    "scheduler.encoder-decoder-no-chunked-prefill",
    title="Encoder-decoder models disable chunked prefill",
    phase="sub_configs",
    kind="override",
    reads=("scheduler_config.is_encoder_decoder",),
    writes=("scheduler_config.disable_chunked_mm_input", _ECP, "scheduler_config.long_prefill_token_threshold"),
    source=f"{_SCH}.__post_init__; ref 2.4, v0.11.1",
    message="Encoder-decoder models do not support chunked prefill nor prefix caching; disabling both.",
)
def encoder_decoder_no_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """Chunked prefill should be disabled for encoder-decoder models (one flag now: chunked_prefill_enabled is its alias)."""
    if c["scheduler_config.is_encoder_decoder"]:
        return {"scheduler_config.disable_chunked_mm_input": True, _ECP: False,
                "scheduler_config.long_prefill_token_threshold": 0}
    return None


DROPS: dict[str, str] = {}

DELTA = Delta(
    replace=(encoder_decoder_no_chunked_prefill,),
    drop=DROPS,
    fields_added=(
        "cache_config.kv_offloading_size", "cache_config.kv_offloading_backend",
        "parallel_config.dcp_kv_cache_interleave_size", "parallel_config.master_addr", "parallel_config.master_port",
        "parallel_config.node_rank", "parallel_config.nnodes", "scheduler_config.stream_interval",
        "speculative_config.suffix_decoding_max_tree_depth", "speculative_config.suffix_decoding_max_cached_requests",
        "speculative_config.suffix_decoding_max_spec_factor", "speculative_config.suffix_decoding_min_token_prob",
        "structured_outputs_config.reasoning_parser_plugin", "compilation_config.compile_cache_save_format",
        "compilation_config.compile_mm_encoder", "compilation_config.pass_config.fi_allreduce_fusion_max_size_mb",
        "compilation_config.pass_config.enable_qk_norm_rope_fusion", "model_config.pooler_config.use_activation",
        "model_config.override_pooler_config.use_activation",
    ),
    fields_removed=(
        "model_config.rope_scaling", "model_config.rope_theta", "scheduler_config.chunked_prefill_enabled",
        "speculative_config.disable_logprobs", "speculative_config.enable_chunked_prefill",
        "speculative_config.disable_log_stats", "compilation_config.pass_config.fi_allreduce_fusion_max_token_num",
        "compilation_config.use_cudagraph", "compilation_config.full_cuda_graph",
    ),
    flags_added=(
        "reasoning_parser_plugin", "master_addr", "master_port", "nnodes", "node_rank",
        "dcp_kv_cache_interleave_size", "data_parallel_external_lb", "kv_offloading_size", "kv_offloading_backend",
        "stream_interval", "ec_transfer_config",
    ),
    flags_removed=("rope_scaling", "rope_theta"),
    hash=hashing.compute_hash,
)
