"""vLLM 0.34.0 as a delta over vLLM 0.11.1: the rules it adds, replaces and drops (partial).

**Partial model.** This version resolves with 0.11.1's rulebook edited by the rules
below; what it has not yet modelled is listed in ``docs/versions.md`` and the closing
note of issue 29, and every resolution as 0.34.0 carries a note saying the model is
partial (:data:`PARTIAL`), with its measured golden parity.

Why a delta over 0.11.1 and not a new base (measured on the 516-case corpus and the
wheel's dataclasses, see the issue's note): of the 513 sub-config fields the 0.34.0
oracle reports, 210 are 0.11.1's; 298 schema paths are new and 49 removed. A new base
would re-declare the whole facts layer (config.json facts, model inspection, the
platform, the model registry, ~150 of 0.11.1's 230 rules: model-config derivation,
parallel, speculative, pooling, quantization) that 0.34.0 decides as 0.11.1 does;
the delta re-states only what changed, and the schema/flag machinery
(``since``/``until`` over the version lineage) is a delta machinery.

Sources (``source=``) are files of the ``vllm==0.34.0`` wheel (``site-packages/vllm/``),
described step by step in ``docs/vllm-0.34.0.md``; every rule here carries the
reference tag ``v0.34.0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from postinit.engine import Outcome, RuleResult, Violation, first_match, rule, sequence
from postinit.rules import hashing_v0_34_0
from postinit.rules import model_config as mc
from postinit.rules import v0_34_0_models as spec
from postinit.rules.delta import patch
from postinit.rules.models import PAGE_READS, head_size, total_num_kv_heads
from postinit.rules.v0_34_0_errors import VLLM_EXECUTOR_CLASSES
from postinit.rules.v0_34_0_hooks import capability_family
from postinit.rules.verify import num_experts
from postinit.rules.versions import Delta
from postinit.schema import CompilationMode, CUDAGraphMode

__all__ = ["DELTA", "DROPS", "FIELDS_ADDED", "FIELDS_REMOVED"]

_MC = "model_config"


def _uniq(*paths: str) -> tuple[str, ...]:
    """A rule's reads, each path once (helpers that several rules share read overlapping paths)."""
    return tuple(dict.fromkeys(paths))


_TOK = "scheduler_config.max_num_batched_tokens"
_SEQ = "scheduler_config.max_num_seqs"
_TP = "parallel_config.tensor_parallel_size"

FIELDS_ADDED = (
    "attention_config.backend",
    "attention_config.backend_per_kind",
    "attention_config.disable_flashinfer_q_quantization",
    "attention_config.flash_attn_max_num_splits_for_cuda_graph",
    "attention_config.flash_attn_version",
    "attention_config.flex_attn_block_m",
    "attention_config.flex_attn_block_n",
    "attention_config.flex_attn_kv_block_size",
    "attention_config.flex_attn_q_block_size",
    "attention_config.hisparse_config",
    "attention_config.hisparse_config.device_buffer_size",
    "attention_config.hisparse_config.eager_host_mirror",
    "attention_config.indexer_decode_cp",
    "attention_config.indexer_kv_dtype",
    "attention_config.indexer_logits_dtype",
    "attention_config.indexer_sparse_logits",
    "attention_config.indexer_tp_shard_min_rows",
    "attention_config.minimax_m3_indexer_cp",
    "attention_config.minimax_m3_msa_decode_backend",
    "attention_config.mla_prefill_backend",
    "attention_config.sparse_mla_force_mqa",
    "attention_config.sparse_mla_prefill_workspace_factor",
    "attention_config.sparse_mla_shard_q",
    "attention_config.sparse_mla_shard_q_min_tokens",
    "attention_config.tokenspeed_mla_min_split_kv",
    "attention_config.tq_max_kv_splits_for_cuda_graph",
    "attention_config.trtllm_ragged_backend",
    "attention_config.use_non_causal",
    "attention_config.use_prefill_query_quantization",
    "attention_config.use_trtllm_attention",
    "aux_output_config.enable_return_routed_experts",
    "aux_output_config.max_bytes",
    "cache_config.cache_hit_alignment_tokens",
    "cache_config.effective_attention_block_size",
    "cache_config.enable_extensible_kv_cache",
    "cache_config.enable_mamba_shared_prefix_checkpoint",
    "cache_config.hash_block_size",
    "cache_config.kv_cache_dtype_skip_layers",
    "cache_config.kv_cache_layout",
    "cache_config.kv_cache_max_concurrency",
    "cache_config.kv_cache_size_tokens",
    "cache_config.mamba_cache_mode",
    "cache_config.prefix_cache_retention_interval",
    "cache_config.prefix_match_unit",
    "cache_config.replayssm_buffer_len",
    "cache_config.simple_cpu_offload_num_blocks",
    "cache_config.skip_page_size_padded",
    "cache_config.swa_bounded_replay",
    "cache_config.use_kda_recoverssm",
    "cache_config.use_replayssm",
    "cache_config.user_specified_block_size",
    "compilation_config.compile_ranges_endpoints",
    "compilation_config.cudagraph_decoder_replay",
    "compilation_config.cudagraph_mm_encoder",
    "compilation_config.decode_cudagraph_capture_request_sizes",
    "compilation_config.decoder_replay_cudagraph_capture_sizes",
    "compilation_config.decoder_replay_trim_threshold",
    "compilation_config.dynamic_shapes_config.assume_32_bit_indexing",
    "compilation_config.dynamic_shapes_config.evaluate_guards",
    "compilation_config.dynamic_shapes_config.type",
    "compilation_config.encoder_compilation_time",
    "compilation_config.encoder_cudagraph_max_frames_per_batch",
    "compilation_config.encoder_cudagraph_max_token_budget",
    "compilation_config.encoder_cudagraph_max_vision_items_per_batch",
    "compilation_config.encoder_cudagraph_token_budgets",
    "compilation_config.fast_moe_cold_start",
    "compilation_config.ir_enable_torch_wrap",
    "compilation_config.max_decode_cudagraph_capture_requests",
    "compilation_config.max_decode_cudagraph_capture_tokens",
    "compilation_config.max_prefill_cudagraph_capture_tokens",
    "compilation_config.pass_config.eliminate_noops",
    "compilation_config.pass_config.fuse_act_padding",
    "compilation_config.pass_config.fuse_act_quant",
    "compilation_config.pass_config.fuse_allreduce_rms",
    "compilation_config.pass_config.fuse_attn_quant",
    "compilation_config.pass_config.fuse_mla_dual_rms_norm",
    "compilation_config.pass_config.fuse_norm_quant",
    "compilation_config.pass_config.fuse_qk_norm_rope_kvcache",
    "compilation_config.pass_config.fuse_rope_kvcache",
    "compilation_config.pass_config.fuse_rope_kvcache_cat_mla",
    "compilation_config.pass_config.rope_kvcache_fusion_max_token_num",
    "compilation_config.prefill_cudagraph_capture_token_sizes",
    "compilation_config.static_all_moe_layers",
    "compilation_config.use_breakable_cudagraph",
    "diffusion_config",
    "diffusion_config.canvas_length",
    "diffusion_config.max_denoising_steps",
    "ec_manager_config.encoder_cache_manager_cls",
    "ec_manager_config.manager_config",
    "ec_transfer_config",
    "ec_transfer_config.ec_buffer_device",
    "ec_transfer_config.ec_buffer_size",
    "ec_transfer_config.ec_connector",
    "ec_transfer_config.ec_connector_extra_config",
    "ec_transfer_config.ec_connector_module_path",
    "ec_transfer_config.ec_ip",
    "ec_transfer_config.ec_port",
    "ec_transfer_config.ec_role",
    "ec_transfer_config.engine_id",
    "ec_transfer_config.mm_encoder_output_widths",
    "engram_config",
    "engram_config.cpu_offload",
    "engram_config.disk_offload",
    "engram_config.dp_shared_memory",
    "engram_config.embedding_across_dp",
    "engram_config.use_thp",
    "env.CUDA_VISIBLE_DEVICES",
    "env.INKLING_MULTIMEM_AR",
    "env.NCCL_GRAPH_REGISTER",
    "env.PYTORCH_CUDA_ALLOC_CONF",
    "env.TORCH_COMPILE_DISABLE",
    "env.VLLM_MORI_EP_V2",
    "env.VLLM_USE_BREAKABLE_CUDAGRAPH",
    "env.VLLM_RELOAD_MODE",
    "env.VLLM_USE_OINK_OPS",
    "env.VLLM_USE_SIMPLE_KV_OFFLOAD",
    "kernel_config.enable_cutedsl_warmup",
    "kernel_config.enable_flashinfer_autotune",
    "kernel_config.enable_jit_warmup",
    "kernel_config.enable_rocm_aiter_gemm_warmup",
    "kernel_config.enable_rocm_segmented_attn_autotune",
    "kernel_config.ir_op_priority.fused_add_rms_norm",
    "kernel_config.ir_op_priority.gelu_and_mul_sparse",
    "kernel_config.ir_op_priority.rms_norm",
    "kernel_config.linear_backend",
    "kernel_config.linear_backend_per_quant",
    "kernel_config.moe_backend",
    "kernel_config.monokernel",
    "kernel_config.rdna_hybrid_w4a16_prefill_dequant",
    "kernel_config.sparse_indexer_topk_backend",
    "kv_transfer_config.kv_load_failure_policy",
    "load_config.safetensors_prefetch_block_size",
    "load_config.safetensors_prefetch_num_threads",
    "load_config.shuffle_safetensors_files",
    "logging_config.configure_logging",
    "logging_config.formatter",
    "logging_config.log_level",
    "logging_config.pylogging_config_file",
    "lora_config.enable_mixed_moe_lora_format",
    "lora_config.enable_moe_shared_loras",
    "lora_config.enable_tower_connector_lora",
    "lora_config.max_lora_cls_labels",
    "lora_config.specialize_active_lora",
    "lora_config.target_modules",
    "mamba_config.backend",
    "mamba_config.enable_stochastic_rounding",
    "mamba_config.ssu_algorithm",
    "mamba_config.stochastic_rounding_philox_rounds",
    "model_config.allow_deprecated_quantization",
    "model_config.checkpoint_prepare_on_startup",
    "model_config.enable_cumem_allocator",
    "model_config.enable_nccl_comm_suspend",
    "model_config.enable_trace_replay",
    "model_config.is_mm_prefix_lm",
    "model_config.hf_config.is_mm_prefix_lm",
    "model_config.hf_text_config.is_mm_prefix_lm",
    "model_config.is_moe",
    "model_config.is_quantized",
    "model_config.is_submodel_config",
    "model_config.model_class_overrides",
    "model_config.override_pooler_config.enable_flash_late_interaction",
    "model_config.override_pooler_config.logit_mean",
    "model_config.override_pooler_config.logit_sigma",
    "model_config.override_pooler_config.seq_pooling_type",
    "model_config.override_pooler_config.task",
    "model_config.override_pooler_config.tok_pooling_type",
    "model_config.pooler_config.enable_flash_late_interaction",
    "model_config.pooler_config.logit_mean",
    "model_config.pooler_config.logit_sigma",
    "model_config.pooler_config.seq_pooling_type",
    "model_config.pooler_config.task",
    "model_config.pooler_config.tok_pooling_type",
    "model_config.quantization_config",
    "model_config.renderer_num_workers",
    "model_config.return_sampling_mask",
    "model_config.sleep_mode_backend",
    "model_config.sleep_mode_offload_cudagraph",
    "model_config.sleep_preserve_parameter_names",
    "model_config.use_fp64_gumbel",
    "model_config.word_embeddings_untied_by_checkpoint",
    "num_hash_lookahead_tokens",
    "observability_config.cudagraph_metrics",
    "observability_config.custom_histogram_buckets",
    "observability_config.enable_layerwise_nvtx_tracing",
    "observability_config.enable_logging_iteration_details",
    "observability_config.enable_mfu_metrics",
    "observability_config.enable_mm_processor_stats",
    "observability_config.jit_monitor_mode",
    "observability_config.jit_monitor_verbose",
    "observability_config.kv_cache_metrics",
    "observability_config.kv_cache_metrics_sample",
    "observability_config.per_request_spec_decode_metrics",
    "offload_config.offload_backend",
    "offload_config.prefetch.offload_group_size",
    "offload_config.prefetch.offload_num_in_group",
    "offload_config.prefetch.offload_params",
    "offload_config.prefetch.offload_prefetch_step",
    "offload_config.uva.cpu_offload_gb",
    "offload_config.uva.cpu_offload_params",
    "optimization_level",
    "parallel_config.assigned_physical_gpu_ids",
    "parallel_config.cp_kv_cache_interleave_size",
    "parallel_config.cpu_distributed_timeout_seconds",
    "parallel_config.data_parallel_index",
    "parallel_config.dcp_comm_backend",
    "parallel_config.dcp_q_replicate",
    "parallel_config.distributed_timeout_seconds",
    "parallel_config.dp_sync_interval",
    "parallel_config.elastic_ep_max_dp_size",
    "parallel_config.enable_batch_sharded_sampling",
    "parallel_config.enable_elastic_ep",
    "parallel_config.enable_ep_weight_filter",
    "parallel_config.enable_fault_tolerance",
    "parallel_config.enable_hc_sp",
    "parallel_config.enable_shm_tensor_arena",
    "parallel_config.eplb_config.communicator",
    "parallel_config.eplb_config.enable_migration_batching",
    "parallel_config.eplb_config.log_balancedness_interval",
    "parallel_config.eplb_config.policy",
    "parallel_config.eplb_config.use_async",
    "parallel_config.fault_tolerance_config.engine_recovery_timeout_sec",
    "parallel_config.is_moe_model",
    "parallel_config.mori_ep_v2",
    "parallel_config.numa_bind",
    "parallel_config.numa_bind_cpus",
    "parallel_config.numa_bind_nodes",
    "parallel_config.prefill_context_parallel_size",
    "parallel_config.ubatch_size",
    "performance_mode",
    "profiler_config.active_iterations",
    "profiler_config.capture_torch_profiler",
    "profiler_config.delay_iterations",
    "profiler_config.detailed_trace_annotation",
    "profiler_config.ignore_frontend",
    "profiler_config.max_iterations",
    "profiler_config.profiler",
    "profiler_config.proton_backend",
    "profiler_config.proton_context",
    "profiler_config.proton_data",
    "profiler_config.proton_graph_attribution",
    "profiler_config.proton_hook",
    "profiler_config.proton_mode",
    "profiler_config.proton_output_format",
    "profiler_config.proton_profiler_dir",
    "profiler_config.torch_profiler_activities",
    "profiler_config.torch_profiler_dir",
    "profiler_config.torch_profiler_dump_cuda_time_total",
    "profiler_config.torch_profiler_record_shapes",
    "profiler_config.torch_profiler_use_gzip",
    "profiler_config.torch_profiler_with_flops",
    "profiler_config.torch_profiler_with_memory",
    "profiler_config.torch_profiler_with_stack",
    "profiler_config.wait_iterations",
    "profiler_config.warmup_iterations",
    "reasoning_config",
    "reasoning_config.reasoning_end_str",
    "reasoning_config.reasoning_parser",
    "reasoning_config.reasoning_start_str",
    "scheduler_config.cache_aware_admission_threshold",
    "scheduler_config.cache_aware_admission_window",
    "scheduler_config.long_prefill_token_threshold_adaptive",
    "scheduler_config.max_num_active_seqs",
    "scheduler_config.max_num_inflight_kv_loads",
    "scheduler_config.max_num_queued_reqs",
    "scheduler_config.max_num_queued_tokens",
    "scheduler_config.max_num_scheduled_tokens",
    "scheduler_config.prefill_schedule_interval",
    "scheduler_config.scheduler_reserve_full_isl",
    "scheduler_config.watermark",
    "shutdown_timeout",
    "speculative_config.attention_backend",
    "speculative_config.custom_method",
    "speculative_config.disable_eagle_block_drop",
    "speculative_config.disable_lookahead_block_hashes",
    "speculative_config.draft_decode_context_parallel_size",
    "speculative_config.draft_lm_head_quantization",
    "speculative_config.draft_sample_method",
    "speculative_config.dspark_draft_topk",
    "speculative_config.enable_adaptive_verification",
    "speculative_config.fly_entropy_threshold",
    "speculative_config.fly_entropy_top_k",
    "speculative_config.fly_window_size",
    "speculative_config.index_share_for_mtp_iteration",
    "speculative_config.kv_cache_dtype",
    "speculative_config.moe_backend",
    "speculative_config.num_speculative_tokens_per_batch_size",
    "speculative_config.parallel_drafting",
    "speculative_config.rejection_sample_method",
    "speculative_config.speculator_options",
    "speculative_config.suffix_decoding_corpus_tokens",
    "speculative_config.synthetic_acceptance_length",
    "speculative_config.synthetic_acceptance_rates",
    "speculative_config.tensor_parallel_size",
    "speculative_config.use_local_argmax_reduction",
    "speculative_config.xpress_topc",
    "watchdog_config.check_interval",
    "watchdog_config.dump_dir",
    "watchdog_config.timeout",
    "watermark_config",
    "watermark_config.algorithm",
    "watermark_config.allow_target_only_watermarking",
    "watermark_config.alpha",
    "watermark_config.context_width",
    "watermark_config.deduplicate_contexts",
    "watermark_config.deduplicate_contexts_max_history",
    "watermark_config.enforce",
    "watermark_config.key",
    "watermark_config.prf",
    "weight_transfer_config",
    "weight_transfer_config.backend",
)
"""Schema paths 0.34.0 has and 0.11.1 does not (``since("0.34.0")`` in the schema)."""

FIELDS_REMOVED = (
    "cache_config.calculate_kv_scales",
    "cache_config.cpu_kvcache_space_bytes",
    "cache_config.cpu_offload_gb",
    "cache_config.swap_space",
    "compilation_config.bs_to_padded_graph_size",
    "compilation_config.level",
    "compilation_config.pass_config.enable_async_tp",
    "compilation_config.pass_config.enable_attn_fusion",
    "compilation_config.pass_config.enable_fi_allreduce_fusion",
    "compilation_config.pass_config.enable_fusion",
    "compilation_config.pass_config.enable_noop",
    "compilation_config.pass_config.enable_sequence_parallelism",
    "compilation_config.use_inductor",
    "kv_transfer_config.kv_buffer_size",
    "kv_transfer_config.kv_ip",
    "kv_transfer_config.kv_parallel_size",
    "kv_transfer_config.kv_rank",
    "lora_config.lora_extra_vocab_size",
    "lora_config.lora_vocab_padding_size",
    "model_config.config_updated",
    "model_config.logits_processor_pattern",
    "model_config.override_attention_dtype",
    "model_config.override_pooler_config",
    "model_config.override_pooler_config.activation",
    "model_config.override_pooler_config.logit_bias",
    "model_config.override_pooler_config.normalize",
    "model_config.override_pooler_config.softmax",
    "model_config.pooler_config.activation",
    "model_config.pooler_config.logit_bias",
    "model_config.pooler_config.normalize",
    "model_config.pooler_config.softmax",
    "model_config.supports_mamba_prefix_caching",
    "model_config.task",
    "parallel_config.eplb_log_balancedness",
    "parallel_config.eplb_step_interval",
    "parallel_config.eplb_window_size",
    "parallel_config.num_redundant_experts",
    "parallel_config.sd_worker_cls",
    "scheduler_config.is_encoder_decoder",
    "scheduler_config.max_long_partial_prefills",
    "scheduler_config.max_model_len",
    "scheduler_config.max_num_partial_prefills",
    "scheduler_config.num_lookahead_slots",
    "speculative_config.disable_by_batch_size",
    "speculative_config.disable_padded_drafter_batch",
    "speculative_config.speculative_token_tree",
    "structured_outputs_config.disable_fallback",
)
"""Schema paths 0.11.1 has and 0.34.0 does not (``until="0.11.1"`` in the schema)."""

_TODO = "not yet modelled for 0.34.0 (partial model): "

DROPS: dict[str, str] = {
    "engine-args.speculative-method-literal": "0.34.0's SpeculativeConfig refuses an unknown method in its field "
    "validator, with its own words (speculative.method-known)",
    "speculative.method-literal": "as engine-args.speculative-method-literal (speculative.method-known)",
    "speculative.suffix-arctic-inference": "0.34.0's suffix decoding does not need arctic-inference",
    "model.override-pooler-config": "0.34.0's ModelConfig has no override_pooler_config",
    "model.mm-input-cache-env": "0.34.0's envs.py has no VLLM_MM_INPUT_CACHE_GIB and create_model_config does not "
    "read it",
    "verify.modelopt-checkpoint-warning": "0.34.0's ModelOpt config classes no longer warn that the format is "
    "experimental (vllm/model_executor/layers/quantization/modelopt.py has no such log)",
    "engine-args.compilation-flag-given-twice": "0.34.0 refuses them with engine-args.capture-sizes-given-twice "
    "(vllm/engine/arg_utils.py:2872-2884; no --cuda-graph-sizes)",
    "model.multimodal-config-validators": "0.34.0's MultiModalConfig validators are model.multimodal-config-checks "
    "(vllm/config/multimodal.py:495-541)",
    "engine-args.tp-divisible-by-dcp": "create_engine_config no longer asserts it in 0.34.0; ParallelConfig's "
    "_validate_parallel_config raises it (vllm/config/parallel.py:641, parallel.dcp-divides-tp)",
    "cpu.block-size-default": "0.34.0's CPU hook picks no default block size (CacheConfig's 64 stays; "
    "vllm/platforms/cpu.py:292-315 only overrides it for MLA and DeepSeek-V4)",
    "cpu.fp8-kv-incompatible": "the CPU hook no longer checks the KV cache dtype in 0.34.0 (vllm/platforms/cpu.py:234)",
    "cpu.kv-cache-quantization-fallback": "the CPU hook no longer rewrites the KV cache dtype in 0.34.0",
    "cpu.disable-cascade-attn": "the CPU hook no longer touches cascade attention in 0.34.0 (disable_cascade_attn "
    "defaults to True)",
    "cuda.deepep-ht-disables-cudagraph": "CudaPlatform.check_and_update_config no longer disables CUDA graphs for "
    "DeepEP high-throughput in 0.34.0 (vllm/platforms/cuda.py:367; set_splitting_ops_for_v1 still does, under "
    "VLLM_COMPILE)",
    "parallel.all2all-backend-default": "VLLM_ALL2ALL_BACKEND is gone in 0.34.0 (envs.py); all2all_backend "
    "defaults to allgather_reducescatter (vllm/config/parallel.py:229)",
    "parallel.nnodes-disables-custom-all-reduce": "ParallelConfig no longer turns the custom all-reduce off for "
    "--nnodes > 1 in 0.34.0 (only the platform's use_custom_allreduce, vllm/config/parallel.py:1260-1265)",
    "parallel.batch-invariant-custom-allreduce": "ParallelConfig no longer reads VLLM_BATCH_INVARIANT in 0.34.0 "
    "(only the platform's use_custom_allreduce, vllm/config/parallel.py:1259)",
    "verify.external-launcher-seed": "ModelConfig.verify_with_parallel_config no longer checks the seed for "
    "external_launcher in 0.34.0 (vllm/config/model.py:1565; the seed defaults to 0)",
    # removed in 0.34.0: the fields these rules decide are gone from its configs
    "model.config-updated": "ModelConfig.config_updated is gone in 0.34.0 (vllm/config/model.py has no such field)",
    "models.config-updated": "ModelConfig.config_updated is gone in 0.34.0; the model hooks no longer flag it",
    "model.task": "--task / ModelConfig.task were removed in 0.34.0 (runner/convert only)",
    "engine-args.lookahead-slots-from-speculative": "SchedulerConfig.num_lookahead_slots was removed in 0.34.0",
    "parallel.eplb-deprecated-fields": "the deprecated ParallelConfig EPLB fields were removed in 0.34.0 (EPLBConfig only)",
    "scheduler.partial-prefill-limits": "max_num_partial_prefills / max_long_partial_prefills / num_lookahead_slots "
    "were removed from SchedulerConfig in 0.34.0",
    "speculative.token-tree": "SpeculativeConfig.speculative_token_tree was removed in 0.34.0",
    "speculative.disable-by-batch-size-bound": "SpeculativeConfig.disable_by_batch_size was removed in 0.34.0",
    "scheduler.field-bounds": "num_lookahead_slots and the partial-prefill limits were removed from SchedulerConfig in "
    "0.34.0",
    "compilation.async-tp-implies-sp": "the sequence-parallelism / async-TP passes and their pass_config keys were "
    "removed in 0.34.0 (docs/vllm-0.34.0.md section 1)",
    "compilation.sp-needs-rms-norm": "sequence parallelism was removed in 0.34.0",
    "cudagraph.sp-filters-capture-sizes": "sequence parallelism was removed in 0.34.0: no capture-size filter by TP",
    "compilation.level-to-mode": "CompilationConfig.level was removed in 0.34.0 (-O is the optimization level)",
    "compilation.use-inductor-backend": "CompilationConfig.use_inductor was removed in 0.34.0",
    "verify.swap-space": "CacheConfig.swap_space was removed in 0.34.0",
    "cpu.kvcache-space": "CacheConfig.cpu_kvcache_space_bytes was removed in 0.34.0",
    "engine-args.cpu-device-memory": "CpuPlatform.get_device_total_memory reads the memory node's size "
    "(get_memory_node_info, vllm/platforms/cpu.py:215-218) and no longer warns about VLLM_CPU_KVCACHE_SPACE, now "
    "a legacy setting the CPU hook reads only when set (:339-343; golden f304)",
    "cudagraph.padding-table": "CompilationConfig.bs_to_padded_graph_size was removed in 0.34.0",
    # moved or reshaped in 0.34.0: a replacement is still to be written
    "scheduler.max-model-len-from-model": "SchedulerConfig has no max_model_len in 0.34.0 (it reads ModelConfig's)",
    "scheduler.max-model-len-default": "SchedulerConfig has no max_model_len in 0.34.0",
    "scheduler.is-encoder-decoder-from-model": "SchedulerConfig has no is_encoder_decoder in 0.34.0",
    "scheduler.long-prefill-threshold-default": _TODO + "the partial-prefill fields are gone in 0.34.0",
    "quirk.budget-below-max-model-len": _TODO + "SchedulerConfig.max_model_len is gone in 0.34.0",
    "compilation.fusion-without-noop": "0.34.0's pass_config keys are fuse_* / eliminate_noops: "
    "compilation.pass-config-given",
    "compilation.qk-norm-rope-fusion-platform": "0.34.0 words it 'CUDA, ROCm or XPU': compilation.pass-config-given",
    "compilation.qk-norm-rope-rotary-op": "0.34.0's RoPE fusions (three of them) ask for the op after PassConfig's "
    "platform checks: compilation.pass-config-given",
    "compilation.attn-fusion-forces-full": _TODO + "enable_attn_fusion is fuse_attn_quant in 0.34.0",
    "scheduler.async-scheduling-supported": "0.34.0 turns async scheduling on by default (scheduler.async-scheduling-default and -explicit)",
    "scheduler.async-scheduling-auto": "0.34.0's default is None: scheduler.async-scheduling-default decides",
    # decisions 0.34.0 no longer takes in VllmConfig (docs/vllm-0.34.0.md sections 1 and 10)
    "cudagraph.dcp-forces-piecewise": "0.34.0 keeps full CUDA graphs with decode context parallelism",
    "cudagraph.cascade-attn-warning": "cascade attention is off by default in 0.34.0 (disable_cascade_attn=True); "
    "the warning is gone",
    "parallel.dbo-disables-cascade-attn": "0.34.0's DBO rules no longer touch cascade attention",
    "cudagraph.default-mode": "the optimisation level's table supplies the CUDA-graph mode in 0.34.0 "
    "(level.cudagraph-mode)",
    "compilation.empty-splitting-ops-mode": "part of compilation.splitting-ops in 0.34.0",
    "cudagraph.truncate-max-capture-size": "part of cudagraph.capture-sizes in 0.34.0",
    "cudagraph.user-capture-sizes-overridden": "part of cudagraph.capture-sizes in 0.34.0",
    "cuda.block-size-default": "0.34.0 picks the block size at worker start-up (update_block_size_for_backend); "
    "during config resolution it stays CacheConfig.DEFAULT_BLOCK_SIZE = 64",
    "rocm.block-size-default": "as on CUDA: block size 64 through config resolution in 0.34.0",
    "rocm.aiter-rms-norm": "RocmPlatform.check_and_update_config no longer appends '+rms_norm' for AITER in 0.34.0 "
    "(vllm/platforms/rocm.py:1194-1241); apply_config_platform_defaults adds it only under VLLM_BATCH_INVARIANT "
    "(:1157-1161, rocm.config-platform-defaults) and AITER's RMSNorm is picked through kernel_config.ir_op_priority",
    "quirk.rocm-rms-norm-under-eager": "the AITER '+rms_norm' append and its always-false eager guard are gone in "
    "0.34.0 (vllm/platforms/rocm.py:1194-1241)",
    "cuda.mla-backend-default": "0.34.0 chooses attention backends at worker start-up",
    "cuda.mla-block-size-flashmla": "0.34.0 chooses MLA block sizes at worker start-up",
    "cuda.mla-block-size-cutlass": "0.34.0 chooses MLA block sizes at worker start-up",
    "cuda.mla-block-size-flashinfer": "0.34.0 chooses MLA block sizes at worker start-up",
    "cuda.mla-block-size-sparse": "0.34.0 chooses MLA block sizes at worker start-up",
    "scheduler.hma-off-platform": "one rule in 0.34.0 (scheduler.hma: tri-state, explicit enable checked)",
    "scheduler.hma-off-kv-connector": "one rule in 0.34.0 (scheduler.hma; connectors with SupportsHMA keep it)",
    "scheduler.hma-off-kv-events": "KV events no longer turn the hybrid KV cache manager off in 0.34.0",
    "scheduler.hma-off-chunked-local-eagle": "one rule in 0.34.0 (scheduler.hma)",
    "scheduler.hma-off-chunked-local": "one rule in 0.34.0 (scheduler.hma)",
}
"""0.11.1 rules 0.34.0 does not have, each with the reason (``_TODO``: a replacement is still to be written)."""


DEFAULTS: dict[str, object] = {
    # dataclass defaults 0.34.0 declares differently from 0.11.1 (docs/vllm-0.34.0.md appendix B)
    "model_config.disable_cascade_attn": True,
    "model_config.seed": 0,
    "model_config.model_weights": "",
    "model_config.pooler_config.enable_chunked_processing": False,
    "cache_config.gpu_memory_utilization": None,
    "cache_config.kv_offloading_backend": "native",
    "parallel_config.all2all_backend": "allgather_reducescatter",
    "parallel_config.disable_nccl_for_dp_synchronization": None,
    "parallel_config.eplb_config.num_redundant_experts": None,
    "scheduler_config.async_scheduling": None,
    "scheduler_config.disable_hybrid_kv_cache_manager": None,
    "load_config.safetensors_load_strategy": None,
    "compilation_config.use_inductor_graph_partition": None,
    "compilation_config.pass_config.enable_qk_norm_rope_fusion": None,
    "kv_transfer_config.kv_buffer_device": None,  # a default factory: the platform's device type
    # envs.py defaults
    "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": True,
}
"""0.34.0's dataclass defaults where they differ from 0.11.1's (the schema holds the seed's)."""

CONFIG_DEFAULTS: dict[str, object] = {
    "cache_config.enable_prefix_caching": True,
}
"""CacheConfig's defaults that EngineArgs does not share (its own default is None, decided in create_engine_config)."""

_PAR = "vllm/config/parallel.py ParallelConfig"
_VLLM = "vllm/config/vllm.py VllmConfig"
_DP = "parallel_config.data_parallel_size"
_PCP = "parallel_config.prefill_context_parallel_size"
_DCP = "parallel_config.decode_context_parallel_size"
_NRE = "parallel_config.eplb_config.num_redundant_experts"

# =========================================================================== EngineArgs (phase engine_args)

_ARGS = "vllm/engine/arg_utils.py EngineArgs"
_EA = "usage.via_engine_args"
_CTX = "usage.usage_context"
_RUNNER = "model_config.runner_type"
_ECP = "scheduler_config.enable_chunked_prefill"
_APC = "cache_config.enable_prefix_caching"
_PT = "model_config.pooler_config."
_ATTN_READS = (_MC, "model_config.attn_type", "model_config.pooler_config", _PT + "seq_pooling_type",
               _PT + "tok_pooling_type")


def _support(c: Mapping[str, Any]) -> tuple[bool, str | None, bool, str | None]:
    """``is_chunked_prefill_supported`` / ``is_prefix_caching_supported`` with the debug record each logs
    (None: it logs none), by ``ModelConfig.attn_type`` (``model.attn-type``)."""
    kind = c["model_config.attn_type"]
    if c["model_config.pooler_config"]:
        if kind == "encoder_only":
            return (False, "Pooling models with bidirectional attn do not support chunked prefill.", False,
                    "Pooling models with bidirectional attn do not support prefix caching.")
        if kind != "decoder":
            return kind != "encoder_decoder", None, False, None
        seq, tok = c[_PT + "seq_pooling_type"], c[_PT + "tok_pooling_type"]
        ok = seq not in ("MEAN", "CLS") and tok != "STEP"
        verb = "support" if ok else "do not support"
        return (ok, f"Pooling models with causal attn and {seq}/{tok} pooling {verb} chunked prefill.", ok,
                f"Pooling models with causal attn and {seq}/{tok} pooling {verb} prefix caching.")
    if kind == "encoder_decoder":
        return (False, "Encoder decoder models do not support chunked prefill.", False,
                "Encoder decoder models do not support prefix caching.")
    chunk = (True, "Generative models support chunked prefill.")
    if kind == "hybrid":
        return (*chunk, True, "Generative hybrid models support prefix caching.")
    if kind == "attention_free":
        return (*chunk, False, "Attention free models do not support prefix caching since the feature is still "
                               "experimental.")
    return (*chunk, True, "Generative models support prefix caching.")


@rule(
    "engine-args.chunked-prefill-prefix-caching-support",
    title="What the model supports: chunked prefill and prefix caching by attention type (logged)",
    phase="engine_args",
    kind="check",
    reads=(_EA, *_ATTN_READS),
    source="vllm/config/model.py ModelConfig.is_chunked_prefill_supported, is_prefix_caching_supported "
    f"(read by {_ARGS}._set_default_chunked_prefill_and_prefix_caching_args); ref v0.34.0",
    message="<the two support records>",
    level="debug",
)
def chunked_prefill_prefix_caching_support(c: Mapping[str, Any]) -> RuleResult:
    """Both properties are evaluated (and log) whenever EngineArgs builds a config, whatever the user set."""
    if not c[_EA] or c[_MC] is None:
        return None
    _, chunk_msg, _, cache_msg = _support(c)
    return Outcome(message="\n".join(m for m in (chunk_msg, cache_msg) if m))


@rule(
    "engine-args.chunked-prefill-default",
    title="Chunked prefill defaults to what the model supports",
    phase="engine_args",
    kind="default",
    reads=(_EA, *_ATTN_READS, _ECP),
    writes=(_ECP,),
    source=f"{_ARGS}._set_default_chunked_prefill_and_prefix_caching_args; ref v0.34.0",
    message="(Enabling|Disabling) chunked prefill by default",
    level="debug",
)
def chunked_prefill_default(c: Mapping[str, Any]) -> RuleResult:
    """Only an unset flag is filled."""
    if not c[_EA] or c[_MC] is None or c[_ECP] is not None:
        return None
    on = _support(c)[0]
    return Outcome({_ECP: on}, message=f"{'Enabling' if on else 'Disabling'} chunked prefill by default")


@rule(
    "engine-args.pooling-chunked-prefill-warning",
    title="A user's chunked-prefill choice against the model's support is kept, with a warning",
    phase="engine_args",
    kind="check",
    reads=(_EA, _RUNNER, *_ATTN_READS, _ECP),
    source=f"{_ARGS}._set_default_chunked_prefill_and_prefix_caching_args; ref v0.34.0",
    message="This model does not officially support (disabling )chunked prefill. (Disabling|Enabling) this manually "
    "may cause the engine to crash or produce incorrect outputs.",
    level="warning",
)
def pooling_chunked_prefill_warning(c: Mapping[str, Any]) -> RuleResult:
    """A generative model switched off, or a pooling model switched on against its support."""
    if not c[_EA] or c[_MC] is None or c[_ECP] is None:
        return None
    supported = _support(c)[0]
    if c[_RUNNER] == "generate" and not c[_ECP] and supported:
        return Outcome(message="This model does not officially support disabling chunked prefill. Disabling this "
                               "manually may cause the engine to crash or produce incorrect outputs.")
    if c[_RUNNER] == "pooling" and c[_ECP] and not supported:
        return Outcome(message="This model does not officially support chunked prefill. Enabling this manually may "
                               "cause the engine to crash or produce incorrect outputs.")
    return None


@rule(
    "engine-args.prefix-caching-default",
    title="Prefix caching defaults to what the model supports (hybrid models included)",
    phase="engine_args",
    kind="default",
    reads=(_EA, *_ATTN_READS, _APC),
    writes=(_APC,),
    source=f"{_ARGS}._set_default_chunked_prefill_and_prefix_caching_args; ref v0.34.0",
    message="(Enabling|Disabling) prefix caching by default",
    level="debug",
)
def prefix_caching_default(c: Mapping[str, Any]) -> RuleResult:
    """EngineArgs' own default is None (CacheConfig's, True, applies to a config built directly)."""
    if not c[_EA] or c[_MC] is None or c[_APC] is not None:
        return None
    on = _support(c)[2]
    return Outcome({_APC: on}, message=f"{'Enabling' if on else 'Disabling'} prefix caching by default")


@rule(
    "engine-args.pooling-prefix-caching-warning",
    title="A pooling model that does not support prefix caching has it switched on by the user",
    phase="engine_args",
    kind="check",
    reads=(_EA, _RUNNER, *_ATTN_READS, _APC),
    source=f"{_ARGS}._set_default_chunked_prefill_and_prefix_caching_args; ref v0.34.0",
    message="This model does not officially support prefix caching. Enabling this manually may cause the engine "
    "to crash or produce incorrect outputs.",
    level="warning",
)
def pooling_prefix_caching_warning(c: Mapping[str, Any]) -> RuleResult:
    """vLLM keeps the user's --enable-prefix-caching and warns."""
    if c[_EA] and c[_MC] is not None and c[_RUNNER] == "pooling" and c[_APC] and not _support(c)[2]:
        return Outcome.log()
    return None


_BATCH_READS = (_EA, _CTX, _TOK, _SEQ, _ECP, "platform.is_cpu", "platform.total_memory_gb", "platform.device_name",
                "platform.capability", "model_config.max_model_len", "performance_mode",
                "parallel_config.all2all_backend", "parallel_config.enable_expert_parallel", _DP)
BATCHED_DP_TOKENS = 256
"""``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP`` (vllm/config/scheduler.py:41)."""


def _batched_dp_moe(c: Mapping[str, Any]) -> bool:
    """``ParallelConfig.use_batched_dp_moe`` (vllm/config/parallel.py:888): a batched (low-latency) all2all
    backend with expert parallelism across more than one data-parallel rank."""
    return bool(c["parallel_config.all2all_backend"] in ("deepep_low_latency", "nixl_ep")
                and c["parallel_config.enable_expert_parallel"] and c[_DP] > 1)


def _batch(c: Mapping[str, Any], tokens: Mapping[str | None, int], seqs: Mapping[str | None, int]) -> RuleResult:
    """``_set_default_max_num_seqs_and_batched_tokens_args``: the usage default (2048 / 128 otherwise; 256 tokens
    for a batched data-parallel MoE, :func:`_batched_dp_moe`), doubled in
    throughput mode, raised to max_model_len without chunked prefill, capped at max_num_seqs x max_model_len; then
    max_num_seqs <= the budget."""
    if not c[_EA]:
        return None
    ctx = c[_CTX]
    orig_tok, orig_seq = c[_TOK], c[_SEQ]
    if orig_tok is not None and orig_seq is not None:
        return None
    length = c["model_config.max_model_len"]
    if orig_tok is not None:
        tok = orig_tok
    elif _batched_dp_moe(c):  # vllm/engine/arg_utils.py:3204: whatever the device
        tok = BATCHED_DP_TOKENS
    else:
        tok = tokens.get(ctx, 2048)
    seq = orig_seq if orig_seq is not None else seqs.get(ctx, 128)
    if c["performance_mode"] == "throughput":
        tok = tok * 2 if orig_tok is None else tok
        seq = seq * 2 if orig_seq is None else seq
    msgs, out = [], {}
    if orig_tok is None:
        if not c[_ECP]:
            tok = max(length, tok)
        try:  # a max_num_seqs vLLM's EngineArgs took unchecked (an override): Python's own TypeError, as vLLM's
            # (a sequence times max_model_len is a sequence of its type: its empty one compares the same)
            product = seq[:0] if isinstance(seq, (str, bytes, list, tuple)) else seq * length
            tok = min(product, tok)
        except TypeError as e:
            return Violation(str(e), error="TypeError")
        out[_TOK] = tok
        msgs.append(f"Defaulting max_num_batched_tokens to {tok} for {ctx} usage context.")
    if orig_seq is None:
        out[_SEQ] = min(seq, tok)
        msgs.append(f"Defaulting max_num_seqs to {out[_SEQ]} for {ctx} usage context.")
    return Outcome(out, message="\n".join(msgs))


def _huge_gpu(c: Mapping[str, Any]) -> bool:
    return bool(c["platform.total_memory_gb"] >= 160)


def _large_gpu(c: Mapping[str, Any]) -> bool:
    return bool(c["platform.total_memory_gb"] >= 70 and "a100" not in c["platform.device_name"].lower()
                and c["platform.capability"] != 121)


@rule(
    "engine-args.batch-defaults-large-gpu",
    title="Batch defaults for GPUs with >= 160 GiB, and for >= 70 GiB ones that are not A100s or GB10",
    phase="sub_configs",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_max_num_seqs_and_batched_tokens_args, get_batch_defaults; ref v0.34.0",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_large_gpu(c: Mapping[str, Any]) -> RuleResult:
    """B200/B300-class devices get 16384 tokens for both usages; H100/H200-class 16384 (LLM) / 8192 (serve);
    1024 sequences. Throughput mode doubles what the user left unset."""
    if c["platform.is_cpu"]:
        return None
    if _huge_gpu(c):
        return _batch(c, {"LLM_CLASS": 16384, "OPENAI_API_SERVER": 16384}, {"LLM_CLASS": 1024,
                                                                           "OPENAI_API_SERVER": 1024})
    if not _large_gpu(c):
        return None
    return _batch(c, {"LLM_CLASS": 16384, "OPENAI_API_SERVER": 8192}, {"LLM_CLASS": 1024, "OPENAI_API_SERVER": 1024})


@rule(
    "engine-args.batch-defaults-other-device",
    title="Batch defaults for A100s, GB10 and devices with < 70 GiB",
    phase="sub_configs",
    kind="default",
    reads=_BATCH_READS,
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_max_num_seqs_and_batched_tokens_args, get_batch_defaults; ref v0.34.0",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_other_device(c: Mapping[str, Any]) -> RuleResult:
    """8192 (LLM) / 2048 (serve) tokens and 256 sequences."""
    if c["platform.is_cpu"] or _huge_gpu(c) or _large_gpu(c):
        return None
    return _batch(c, {"LLM_CLASS": 8192, "OPENAI_API_SERVER": 2048}, {"LLM_CLASS": 256, "OPENAI_API_SERVER": 256})


@rule(
    "engine-args.batch-defaults-cpu",
    title="CPU batch defaults scale with the world size",
    phase="sub_configs",
    kind="default",
    reads=(*_BATCH_READS, "parallel_config.pipeline_parallel_size", _TP),
    writes=(_TOK, _SEQ),
    source=f"{_ARGS}._set_default_max_num_seqs_and_batched_tokens_args, get_batch_defaults; ref v0.34.0",
    message="Defaulting max_num_batched_tokens to <n> ...\nDefaulting max_num_seqs to <n> ...",
    level="debug",
)
def batch_defaults_cpu(c: Mapping[str, Any]) -> RuleResult:
    """Per worker, times pp x tp."""
    if not c["platform.is_cpu"]:
        return None
    ws = c["parallel_config.pipeline_parallel_size"] * c[_TP]
    return _batch(c, {"LLM_CLASS": 4096 * ws, "OPENAI_API_SERVER": 2048 * ws},
                  {"LLM_CLASS": 256 * ws, "OPENAI_API_SERVER": 128 * ws})


BATCH_DEFAULTS = first_match(
    "engine-args.batch-defaults", "engine-args.batch-defaults-cpu", "engine-args.batch-defaults-large-gpu",
    "engine-args.batch-defaults-other-device",
    title="max_num_batched_tokens / max_num_seqs defaults by device, set after ParallelConfig and SpeculativeConfig "
    "are built",
    source=f"{_ARGS}._set_default_max_num_seqs_and_batched_tokens_args (vllm/engine/arg_utils.py:3188, called at "
    ":2673)",
)


CREATE_ENGINE_CONFIG = sequence(
    "engine-args.create-engine-config",
    "engine-args.unsupported-feature",  # _check_feature_supported, right after create_model_config (:2318)
    "engine-args.draft-model-unsupported", "engine-args.chunked-prefill-prefix-caching-support",
    "engine-args.chunked-prefill-default", "engine-args.pooling-chunked-prefill-warning",
    "engine-args.prefix-caching-default", "engine-args.pooling-prefix-caching-warning",
    "engine-args.cpu-arch-overrides",
    title="create_engine_config: what the model supports (logged), the chunked-prefill / prefix-caching defaults "
    "or warnings, the batch defaults, the CPU-architecture switch and the DCP check",
    source=f"{_ARGS}.create_engine_config",
)



# =========================================================================== ParallelConfig (phase sub_configs)


@rule(
    "parallel.eplb-requirements",
    title="EPLB needs a CUDA-alike/XPU device, expert parallelism and TP, PCP or DP > 1",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.enable_eplb", "platform.is_cuda_alike", "parallel_config.enable_expert_parallel",
           _TP, _DP, _PCP, _NRE),
    source=f"{_PAR}._validate_parallel_config; ref v0.34.0",
    message="Expert parallelism load balancing is only supported on CUDA devices or ROCm devices or XPU devices now.",
)
def eplb_requirements(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 counts prefill context parallelism in the EP group; without EPLB an unset count becomes 0."""
    tp, dp, pcp = c[_TP], c[_DP], c[_PCP]
    if c["parallel_config.enable_eplb"]:
        if not c["platform.is_cuda_alike"]:
            return Violation("Expert parallelism load balancing is only supported on CUDA devices or ROCm devices "
                             "or XPU devices now.")
        if not c["parallel_config.enable_expert_parallel"]:
            return Violation("enable_expert_parallel must be True to use EPLB.")
        if tp * pcp * dp <= 1:
            return Violation(f"EPLB requires tensor, prefill-context, or data parallelism, but got TP={tp}, "
                             f"PCP={pcp}, DP={dp}.")
        return None
    n = c[_NRE]
    if n not in (None, 0):
        return Violation(f"num_redundant_experts is set to {n} but EPLB is not enabled. Either enable EPLB or unset "
                         "num_redundant_experts.")
    return None


@rule(
    "parallel.eplb-no-redundant-experts",
    title="Without EPLB the number of redundant experts is 0",
    phase="sub_configs",
    kind="default",
    reads=("parallel_config.enable_eplb", _NRE),
    writes=(_NRE,),
    source=f"{_PAR}._validate_parallel_config; ref v0.34.0",
)
def eplb_no_redundant_experts(c: Mapping[str, Any]) -> RuleResult:
    """Only EPLB needs the model's expert count to pick a default (compute_eplb_num_redundant_experts)."""
    return {_NRE: 0} if not c["parallel_config.enable_eplb"] and c[_NRE] is None else None

@rule(
    "parallel.offline-dp-dense",
    title="Data parallelism from VLLM_DP_SIZE (offline SPMD) needs a MoE model",
    phase="sub_configs",
    kind="check",
    reads=(_DP, "env.VLLM_DP_SIZE", "usage.via_engine_args", "model_config.is_moe", "parallel_config.is_moe_model"),
    after=("parallel.data-parallel-from-env",),
    source=f"{_PAR}.__post_init__ (vllm/config/parallel.py:1115-1127); ref v0.34.0",
    message="Offline data parallel mode is not supported/useful for dense models.",
)
def offline_dp_dense(c: Mapping[str, Any]) -> RuleResult:
    """Dense DP ranks share nothing: independent instances do the same. EngineArgs tells ParallelConfig whether the
    model is MoE; a ParallelConfig built directly knows only what it was given."""
    env = c["env.VLLM_DP_SIZE"]
    if env is None or int(env) <= 1 or c[_DP] != int(env):
        return None
    moe = c["model_config.is_moe"] if c["usage.via_engine_args"] else c["parallel_config.is_moe_model"]
    return Violation("Offline data parallel mode is not supported/useful for dense models.") if moe is False else None


@rule(
    "parallel.eplb-redundant-experts-default",
    title="With EPLB the number of redundant experts defaults to the fewest that make the experts divide the EP size",
    phase="verify",
    kind="default",
    reads=("model_config", "parallel_config.enable_eplb", _NRE, "parallel_config.tensor_parallel_size", _PCP, _DP,
           *(f"model_config.hf_text_config.{k}" for k in ("num_experts", "moe_num_experts", "n_routed_experts",
                                                           "num_local_experts"))),
    writes=(_NRE,),
    level="info",
    source=f"{_PAR}.compute_eplb_num_redundant_experts (vllm/config/parallel.py:652-681), called by "
    "VllmConfig.__post_init__ (vllm/config/vllm.py:1492-1496); ref v0.34.0",
    message="EPLB num_redundant_experts not specified, defaulting to minimum valid value: <n> "
    "(num_logical_experts=<e>, ep_size=<ep>)",
)
def eplb_redundant_experts_default(c: Mapping[str, Any]) -> RuleResult:
    """The EP group spans TP x PCP x DP ranks; the physical experts must divide evenly among them."""
    if not c["model_config"] or not c["parallel_config.enable_eplb"] or c[_NRE] is not None:
        return None
    ep = c["parallel_config.tensor_parallel_size"] * c[_PCP] * c[_DP]
    experts = num_experts(c)
    n = (ep - experts % ep) % ep
    return Outcome({_NRE: n}, message=f"EPLB num_redundant_experts not specified, defaulting to minimum valid value: "
                                      f"{n} (num_logical_experts={experts}, ep_size={ep})")


@rule(
    "parallel.elastic-ep-max-dp-size",
    title="The elastic-EP DP ceiling is the DP size unless elastic EP sets one (never below the DP size)",
    phase="sub_configs",
    kind="derive",
    reads=("parallel_config.elastic_ep_max_dp_size", "parallel_config.enable_elastic_ep", _DP),
    writes=("parallel_config.elastic_ep_max_dp_size",),
    source=f"{_PAR}.__post_init__; ref v0.34.0",
)
def elastic_ep_max_dp_size(c: Mapping[str, Any]) -> RuleResult:
    """Without elastic EP a user's value is replaced by the DP size."""
    given = c["parallel_config.elastic_ep_max_dp_size"]
    value = given if c["parallel_config.enable_elastic_ep"] and given is not None else c[_DP]
    if value < c[_DP]:
        return Violation("--elastic-ep-max-dp-size must be greater than or equal to the initial data_parallel_size "
                         f"({c[_DP]}).")
    return {"parallel_config.elastic_ep_max_dp_size": value}


@rule(
    "parallel.data-parallel-index",
    title="data_parallel_index is the DP rank",
    phase="sub_configs",
    kind="derive",
    reads=("parallel_config.data_parallel_rank",),
    writes=("parallel_config.data_parallel_index",),
    source=f"{_PAR}.__post_init__; ref v0.34.0",
)
def data_parallel_index(c: Mapping[str, Any]) -> RuleResult:
    """An init=False field copied from data_parallel_rank."""
    return {"parallel_config.data_parallel_index": c["parallel_config.data_parallel_rank"]}


_EXEC = "parallel_config.distributed_executor_backend"
_NNODES = "parallel_config.nnodes"


@rule(
    "parallel.executor-backend-multi",
    title="Several workers (DP included) default to the mp executor; more workers than this node's GPUs is an error",
    phase="sub_configs",
    kind="default",
    reads=(_EXEC, "parallel_config.world_size", _DP, "platform.is_cuda", "platform.device_count",
           "parallel_config.data_parallel_backend", _NNODES),
    writes=(_EXEC,),
    source=f"{_PAR}.__post_init__; ref v0.34.0",
    message="Defaulting to use <backend> for distributed inference",
    level="debug",
)
def executor_backend_multi(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 counts DP ranks (world_size_across_dp) and names both ways out of a too-large world.

    postinit assumes Ray is not importable (the oracle's environment; vLLM picks ray only when it is and a
    placement group is active).
    """
    world = c["parallel_config.world_size"]
    if c[_EXEC] is not None or world * c[_DP] <= 1:
        return None
    if c["platform.is_cuda"] and c[_NNODES] > 1:
        pass
    elif c["platform.is_cuda"] and c["platform.device_count"] < world:
        return Violation(f"World size ({world}) is larger than the number of available GPUs "
                         f"({c['platform.device_count']}) in this node. If this is intentional and you are using:\n"
                         "- ray, set '--distributed-executor-backend ray'.\n"
                         "- multiprocessing, set '--nnodes' appropriately.")
    elif c["parallel_config.data_parallel_backend"] == "ray":
        return Outcome({_EXEC: "ray"}, message="Using ray distributed inference because data_parallel_backend is ray",
                       level="info")
    return Outcome({_EXEC: "mp"}, message="Defaulting to use mp for distributed inference")


@rule(
    "parallel.nnodes-needs-mp",
    title="Multi-node (--nnodes > 1) needs the mp, uni or external_launcher executor",
    phase="sub_configs",
    kind="check",
    reads=(_EXEC, _NNODES),
    feedback=("parallel.executor-backend-multi", "parallel.executor-backend-uni"),
    source=f"{_PAR}.__post_init__; ref v0.34.0",
    message="nnodes > 1 can only be set when distributed executor backend is mp, uni or external_launcher.",
)
def nnodes_needs_mp(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 also allows uni and external_launcher (and fixed the message's typo)."""
    if c[_NNODES] > 1 and c[_EXEC] not in ("mp", "uni", "external_launcher"):
        return Violation("nnodes > 1 can only be set when distributed executor backend is mp, uni or "
                         "external_launcher.")
    return None


@rule(
    "parallel.world-size",
    title="world_size = pipeline x tensor x prefill-context parallel sizes (x DP under an external launcher)",
    phase="sub_configs",
    kind="derive",
    reads=("parallel_config.pipeline_parallel_size", _TP, _PCP, _DP, "parallel_config.distributed_executor_backend"),
    writes=("parallel_config.world_size",),
    source=f"{_PAR}.__post_init__ (vllm/config/parallel.py:1057-1065); ref v0.34.0",
    message="Using external launcher for distributed inference.",
    level="info",
)
def world_size(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 counts prefill context parallelism; an external launcher also runs every DP rank itself."""
    ws = c["parallel_config.pipeline_parallel_size"] * c[_TP] * c[_PCP]
    if c["parallel_config.distributed_executor_backend"] == "external_launcher":
        return Outcome.log({"parallel_config.world_size": ws * c[_DP]})
    return Outcome({"parallel_config.world_size": ws}, message="")


@rule(
    "parallel.elastic-ep-requirements",
    title="Elastic EP needs EPLB, no pipeline parallelism and no hybrid DP load balancing",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.enable_elastic_ep", "parallel_config.enable_eplb", "parallel_config.pipeline_parallel_size",
           "parallel_config.data_parallel_hybrid_lb", "parallel_config.eplb_config.use_async"),
    source=f"{_PAR}.__post_init__ (vllm/config/parallel.py:1067-1089); ref v0.34.0",
    message="Elastic EP is only supported with enable_eplb=True.",
)
def elastic_ep_requirements(c: Mapping[str, Any]) -> RuleResult:
    """Scaling experts elastically moves them with EPLB's machinery. Async EPLB needs NIXL, which postinit takes
    as not installed (the oracle's environment)."""
    if not c["parallel_config.enable_elastic_ep"]:
        return None
    pp = c["parallel_config.pipeline_parallel_size"]
    if not c["parallel_config.enable_eplb"]:
        return Violation("Elastic EP is only supported with enable_eplb=True.")
    if pp > 1:
        return Violation(f"Elastic EP is not supported with pipeline parallelism (pipeline_parallel_size={pp}).")
    if c["parallel_config.data_parallel_hybrid_lb"]:
        return Violation("Elastic EP is not compatible with data_parallel_hybrid_lb. Elastic EP supports a single API "
                         "server/core client path or data_parallel_external_lb, but not hybrid load balancing.",
                         error="NotImplementedError")
    if c["parallel_config.eplb_config.use_async"]:
        return Violation("Elastic EP with async EPLB requires the NIXL package. Either install NIXL or set "
                         "--eplb-config.use_async=false.")
    return None


_REMOVED_A2A = ("pplx", "naive")


@rule(
    "parallel.all2all-removed-backends",
    title="The removed 'naive' and 'pplx' all2all backends fall back to allgather_reducescatter",
    phase="sub_configs",
    kind="override",
    reads=("parallel_config.all2all_backend",),
    writes=("parallel_config.all2all_backend",),
    source=f"{_PAR}._validate_parallel_config (vllm/config/parallel.py:575); ref v0.34.0",
    message="The '<backend>' all2all backend has been removed. Falling back to 'allgather_reducescatter'.",
    level="warning",
)
def all2all_removed_backends(c: Mapping[str, Any]) -> RuleResult:
    """argparse still lists them; the config replaces them."""
    backend = c["parallel_config.all2all_backend"]
    if backend in _REMOVED_A2A:
        return Outcome({"parallel_config.all2all_backend": "allgather_reducescatter"},
                       message=f"The '{backend}' all2all backend has been removed. Falling back to "
                               "'allgather_reducescatter'.")
    return None


_NUMA = "parallel_config.numa_bind"
_NUMACTL_CPUSET = __import__("re").compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")


@rule(
    "parallel.numa-bind",
    title="NUMA binding lists imply numa_bind (and cannot go with numa_bind=False)",
    phase="sub_configs",
    kind="override",
    reads=(_NUMA, "parallel_config.numa_bind_nodes", "parallel_config.numa_bind_cpus"),
    writes=(_NUMA,),
    source=f"{_PAR}._validate_parallel_config (vllm/config/parallel.py:593-598); ref v0.34.0",
    message="NUMA binding lists cannot be combined with numa_bind=False.",
)
def numa_bind(c: Mapping[str, Any]) -> RuleResult:
    """Giving the nodes or CPUs to bind to asks for binding."""
    if c["parallel_config.numa_bind_nodes"] is None and c["parallel_config.numa_bind_cpus"] is None:
        return None
    if c[_NUMA] is False:
        return Violation("NUMA binding lists cannot be combined with numa_bind=False.")
    return Outcome({_NUMA: True}, message="")


@rule(
    "parallel.numa-bind-lists",
    title="numa_bind_nodes are non-negative node ids; numa_bind_cpus are numactl CPU lists",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.numa_bind_nodes", "parallel_config.numa_bind_cpus"),
    source=f"{_PAR}._validate_numa_bind_nodes, _validate_numa_bind_cpus (vllm/config/parallel.py:522-557, field "
    "validators); ref v0.34.0",
    message="numa_bind_nodes must not be empty.",
)
def numa_bind_lists(c: Mapping[str, Any]) -> RuleResult:
    """Field validators: they run before ParallelConfig's __post_init__."""
    nodes, cpus = c["parallel_config.numa_bind_nodes"], c["parallel_config.numa_bind_cpus"]
    if nodes is not None:
        if not nodes:
            return Violation("numa_bind_nodes must not be empty.")
        if any(n < 0 for n in nodes):
            return Violation("numa_bind_nodes must contain non-negative integers.")
    if cpus is not None:
        if not cpus:
            return Violation("numa_bind_cpus must not be empty.")
        for cpuset in cpus:
            if not cpuset:
                return Violation("numa_bind_cpus entries must not be empty.")
            if not _NUMACTL_CPUSET.fullmatch(cpuset):
                return Violation("numa_bind_cpus entries must use numactl CPU list syntax, for example '0-3' or "
                                 "'0,2,4-7'.")
            for part in cpuset.split(","):
                start, _, end = part.partition("-")
                if end and int(start) > int(end):
                    return Violation(f"numa_bind_cpus ranges must be ascending, but got '{cpuset}'.")
    return None


@rule(
    "parallel.eplb-communicator",
    title="EPLB's weight communicator defaults to torch_gloo (pynccl with elastic EP; NIXL is not installed)",
    phase="sub_configs",
    kind="default",
    reads=("parallel_config.enable_eplb", "parallel_config.eplb_config.communicator",
           "parallel_config.enable_elastic_ep"),
    writes=("parallel_config.eplb_config.communicator",),
    source=f"{_PAR}.__post_init__ (vllm/config/parallel.py:1209-1227); ref v0.34.0",
)
def eplb_communicator(c: Mapping[str, Any]) -> RuleResult:
    """vLLM prefers NIXL when importable; postinit takes it as absent (the oracle's environment)."""
    if not c["parallel_config.enable_eplb"] or c["parallel_config.eplb_config.communicator"] is not None:
        return None
    return {"parallel_config.eplb_config.communicator": "pynccl" if c["parallel_config.enable_elastic_ep"]
            else "torch_gloo"}


_RAY_MISSING = "Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`."


@rule(
    "parallel.ray-available",
    title="The ray executor needs Ray (postinit takes it as not installed)",
    phase="sub_configs",
    kind="check",
    reads=(_EXEC, "parallel_config.ray_workers_use_nsight"),
    source=f"{_PAR}._verify_args (vllm/config/parallel.py:1254-1271), vllm/v1/executor/ray_utils.py:46 "
    "assert_ray_available; ref v0.34.0",
    message=_RAY_MISSING,
)
def ray_available(c: Mapping[str, Any]) -> RuleResult:
    """The oracle's environment (and a plain pip install of vLLM) has no Ray; nsight profiling needs Ray workers."""
    if c[_EXEC] == "ray":
        return Violation(_RAY_MISSING)
    if c["parallel_config.ray_workers_use_nsight"]:
        return Violation("Unable to use nsight profiling unless workers run with Ray.")
    return None


@rule(
    "parallel.dbo-thresholds",
    title="Microbatching needs DBO thresholds of at least the number of microbatches",
    phase="sub_configs",
    kind="check",
    reads=("parallel_config.enable_dbo", "parallel_config.ubatch_size", "parallel_config.dbo_decode_token_threshold",
           "parallel_config.dbo_prefill_token_threshold"),
    source=f"{_PAR}._verify_args (vllm/config/parallel.py:1273-1281); ref v0.34.0",
    message="dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the number of "
    "microbatches (<n>).",
)
def dbo_thresholds(c: Mapping[str, Any]) -> RuleResult:
    """A batch below one token per microbatch cannot be split."""
    dbo, ubatch = c["parallel_config.enable_dbo"], c["parallel_config.ubatch_size"]
    if not (dbo or ubatch > 1):
        return None
    n = 2 if dbo else ubatch
    if min(c["parallel_config.dbo_decode_token_threshold"], c["parallel_config.dbo_prefill_token_threshold"]) < n:
        return Violation("dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the number of "
                         f"microbatches ({n}).")
    return None


PARALLEL_POST_INIT = sequence(
    "parallel.post-init",
    "parallel.numa-bind-lists", "parallel.world-size", "parallel.elastic-ep-requirements",
    "parallel.data-parallel-from-env", "parallel.data-parallel-rank-range", "parallel.elastic-ep-max-dp-size",
    "parallel.data-parallel-index", "parallel.external-launcher-disables-multiprocessing",
    "parallel.executor-backend-multi", "parallel.executor-backend-uni", "parallel.max-parallel-loading-workers-ignored",
    "parallel.nnodes-needs-mp", "parallel.eplb-communicator", "parallel.all2all-removed-backends",
    "parallel.data-parallel-size-local-range", "parallel.external-lb-needs-dp", "parallel.numa-bind",
    "parallel.eplb-requirements", "parallel.eplb-no-redundant-experts", "parallel.dcp-divides-tp",
    "parallel.ray-available", "parallel.platform-disables-custom-all-reduce", "parallel.dbo-thresholds",
    title="ParallelConfig of 0.34.0 in vLLM's order: field validators, __post_init__, then the model validators "
    "_validate_parallel_config and _verify_args (the first failing check is raised)",
    source=f"{_PAR} (vllm/config/parallel.py:514-1282)",
)


@rule(
    "kv-transfer.buffer-device-default",
    title="The KV buffer device defaults to the platform's device type",
    phase="sub_configs",
    kind="default",
    reads=("kv_transfer_config", "kv_transfer_config.kv_buffer_device", "platform.device_type"),
    writes=("kv_transfer_config.kv_buffer_device",),
    source="vllm/config/kv_transfer.py kv_buffer_device_default_factory; ref v0.34.0",
)
def kv_buffer_device_default(c: Mapping[str, Any]) -> RuleResult:
    """``current_platform.device_type``: 'cuda' on CUDA and ROCm, 'cpu' on CPU (0.11.1: always 'cuda')."""
    if not c["kv_transfer_config"] or c["kv_transfer_config.kv_buffer_device"] is not None:
        return None
    return {"kv_transfer_config.kv_buffer_device": c["platform.device_type"]}



# =========================================================================== SchedulerConfig (phase sub_configs)

_SCH = "vllm/config/scheduler.py SchedulerConfig"
_ACTIVE = "scheduler_config.max_num_active_seqs"
_LPT = "scheduler_config.long_prefill_token_threshold"


def _sched_len(c: Mapping[str, Any]) -> int:
    """The ``max_model_len`` SchedulerConfig receives (an InitVar): the model's, else ``default_factory``'s 8192."""
    return int(c["model_config.max_model_len"]) if c[_MC] is not None else 8192


@rule(
    "scheduler.budget-below-max-model-len",
    title="Without chunked prefill the token budget must cover max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _MC, "model_config.max_model_len", _ECP),
    source=f"{_SCH}.verify_max_model_len (vllm/config/scheduler.py:362); ref v0.34.0",
    message="max_num_batched_tokens (<n>) is smaller than max_model_len (<len>). This effectively limits the "
    "maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. Please increase "
    "max_num_batched_tokens or decrease max_model_len.",
)
def budget_below_max_model_len(c: Mapping[str, Any]) -> RuleResult:
    """A prompt that cannot be chunked must fit into one step's token budget (the model's max_model_len is read:
    SchedulerConfig has no field of its own in 0.34.0)."""
    tok, length = c[_TOK], _sched_len(c)
    if tok < length and not c[_ECP]:
        return Violation(
            f"max_num_batched_tokens ({tok}) is smaller than max_model_len ({length}). This effectively limits the "
            "maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. Please "
            "increase max_num_batched_tokens or decrease max_model_len.",
            hint="enable chunked prefill, raise --max-num-batched-tokens or lower --max-model-len")
    return None


@rule(
    "scheduler.max-num-active-seqs",
    title="max_num_active_seqs cannot exceed max_num_seqs",
    phase="sub_configs",
    kind="check",
    reads=(_ACTIVE, _SEQ),
    source=f"{_SCH}.verify_max_model_len (vllm/config/scheduler.py:381); ref v0.34.0",
    message="max_num_active_seqs (<a>) cannot be greater than max_num_seqs (<s>).",
)
def max_num_active_seqs(c: Mapping[str, Any]) -> RuleResult:
    """The admission limit lowers the running requests below the runner's size, never above it."""
    active = c[_ACTIVE]
    if active is not None and active > c[_SEQ]:
        return Violation(f"max_num_active_seqs ({active}) cannot be greater than max_num_seqs ({c[_SEQ]}).")
    return None


@rule(
    "scheduler.budget-exceeds-seqs-times-len",
    title="Warn when the token budget exceeds max_num_seqs x max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_TOK, _SEQ, _MC, "model_config.max_model_len"),
    source=f"{_SCH}.verify_max_model_len (vllm/config/scheduler.py:391); ref v0.34.0",
    message="max_num_batched_tokens (<n>) exceeds max_num_seqs * max_model_len (<cap>). This may lead to "
    "unexpected behavior.",
    level="warning",
)
def budget_exceeds_seqs_times_len(c: Mapping[str, Any]) -> RuleResult:
    """A budget no batch can fill is suspicious."""
    cap = c[_SEQ] * _sched_len(c)
    if c[_TOK] > cap:
        return Outcome(message=f"max_num_batched_tokens ({c[_TOK]}) exceeds max_num_seqs * max_model_len ({cap}). "
                               "This may lead to unexpected behavior.")
    return None


@rule(
    "scheduler.long-prefill-threshold-max",
    title="long_prefill_token_threshold cannot exceed max_model_len",
    phase="sub_configs",
    kind="check",
    reads=(_LPT, _MC, "model_config.max_model_len"),
    source=f"{_SCH}.verify_max_model_len (vllm/config/scheduler.py:399); ref v0.34.0",
    message="long_prefill_token_threshold (<t>) cannot be greater than the max_model_len (<len>).",
)
def long_prefill_threshold_max(c: Mapping[str, Any]) -> RuleResult:
    """A long prefill is one longer than the threshold: a threshold above any sequence means nothing."""
    threshold, length = c[_LPT], _sched_len(c)
    if threshold > length:
        return Violation(f"long_prefill_token_threshold ({threshold}) cannot be greater than the max_model_len "
                         f"({length}).")
    return None


SCHEDULER_POST_INIT = sequence(
    "scheduler.post-init",
    "scheduler.chunked-prefill-enabled", "scheduler.budget-below-max-model-len", "scheduler.budget-below-max-num-seqs",
    "scheduler.max-num-active-seqs", "scheduler.budget-exceeds-seqs-times-len", "scheduler.long-prefill-threshold-max",
    title="SchedulerConfig.__post_init__ and verify_max_model_len of 0.34.0, in order (the first failing check is "
    "raised)",
    source=f"{_SCH}.__post_init__ (vllm/config/scheduler.py:339)",
)


# =========================================================================== VllmConfig.__post_init__ (phase core)

_KVT = "kv_transfer_config"


@rule(
    "kv-transfer.offloading",
    title="--kv-offloading-size configures a KV connector (native: OffloadingConnector; lmcache: LMCacheMPConnector)",
    phase="finalize",
    kind="derive",
    reads=("cache_config.kv_offloading_backend", "cache_config.kv_offloading_size", _KVT,
           f"{_KVT}.kv_connector_extra_config", f"{_KVT}.kv_buffer_device", "env.VLLM_USE_SIMPLE_KV_OFFLOAD",
           "platform.device_type"),
    writes=(_KVT, f"{_KVT}.kv_connector", f"{_KVT}.kv_connector_extra_config", f"{_KVT}.kv_role",
            f"{_KVT}.kv_buffer_device"),
    source=f"{_VLLM}._post_init_kv_transfer_config (vllm/config/vllm.py:1072, called at :2132); ref v0.34.0",
)
def kv_offloading(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 activates offloading by the size alone (the backend defaults to native) and hands the whole
    buffer to the connector (``cpu_bytes_to_use``), after the splitting ops and before the hybrid KV cache
    manager is decided. A KVTransferConfig it creates has the platform's buffer device."""
    size = c["cache_config.kv_offloading_size"]
    if size is None:
        return None
    backend = c["cache_config.kv_offloading_backend"]
    out: dict[str, Any] = {_KVT: True, f"{_KVT}.kv_role": "kv_both"}
    if not c[_KVT]:
        out[f"{_KVT}.kv_buffer_device"] = c["platform.device_type"]
    if backend == "native":
        extra = dict(c[f"{_KVT}.kv_connector_extra_config"] or {}) if c[_KVT] else {}
        extra["cpu_bytes_to_use"] = size * (1 << 30)
        connector = "SimpleCPUOffloadConnector" if c["env.VLLM_USE_SIMPLE_KV_OFFLOAD"] else "OffloadingConnector"
        out.update({f"{_KVT}.kv_connector": connector, f"{_KVT}.kv_connector_extra_config": extra})
    elif backend == "lmcache":
        out[f"{_KVT}.kv_connector"] = "LMCacheMPConnector"
    return out


@rule(
    "parallel.dcp-divides-tp",
    title="Decode context parallelism divides TP (or spans PCP / TP x PCP when PCP is on)",
    phase="sub_configs",
    kind="check",
    reads=(_TP, _PCP, _DCP),
    source=f"{_PAR}._validate_parallel_config; ref v0.34.0",
    message="tp_size=<tp> must be divisible by dcp_size=<dcp>.",
)
def dcp_divides_tp(c: Mapping[str, Any]) -> RuleResult:
    """DCP reuses the TP ranks when PCP is off."""
    tp, pcp, dcp = c[_TP], c[_PCP], c[_DCP]
    if pcp == 1:
        if tp % dcp != 0:
            return Violation(f"tp_size={tp} must be divisible by dcp_size={dcp}.")
    elif dcp not in (1, pcp, tp * pcp):
        return Violation("When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP "
                         f"axis. Got TP={tp}, PCP={pcp}, DCP={dcp}; valid DCP sizes are {sorted({1, pcp, tp * pcp})}.")
    return None


# =========================================================================== VllmConfig.__post_init__ (phase core)
# in vLLM's statement order (docs/vllm-0.34.0.md section 3; a sequence below holds them to it)

_CC = "compilation_config"
_PC = f"{_CC}.pass_config"
_MODE = f"{_CC}.mode"
_CG = f"{_CC}.cudagraph_mode"
_OPS = f"{_CC}.custom_ops"
_BACKEND = f"{_CC}.backend"
_SIZES = f"{_CC}.cudagraph_capture_sizes"
_MAX = f"{_CC}.max_cudagraph_capture_size"
_SPLIT = f"{_CC}.splitting_ops"
_PARTITION = f"{_CC}.use_inductor_graph_partition"
_BREAKABLE = f"{_CC}.use_breakable_cudagraph"
_LEVEL = "optimization_level"
_EAGER = "model_config.enforce_eager"
_STATIC = "platform.support_static_graph_mode"
_KIND = "platform.kind"
_ASYNC = "scheduler_config.async_scheduling"
_PRIO = "kernel_config.ir_op_priority"
_IR_OPS = ("rms_norm", "fused_add_rms_norm", "gelu_and_mul_sparse")
_HT = "model_config.hf_text_config."
_EXPERT_KEYS = tuple(_HT + k for k in ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts"))
_SPEC = "speculative_config"
_NSPEC = "speculative_config.num_speculative_tokens"


def _op_enabled(ops: Any, op: str) -> bool:
    """``CompilationConfig.is_custom_op_enabled``: '-op' off under 'all', '+op' on under 'none'."""
    ops = tuple(ops)
    return f"-{op}" not in ops if "all" in ops else f"+{op}" in ops


@rule(
    "parallel.eplb-num-redundant-experts",
    title="With EPLB, the fewest redundant experts that make the experts divide across the EP group",
    phase="core",
    kind="default",
    reads=(_MC, "parallel_config.enable_eplb", _NRE, _TP, _PCP, _DP, *_EXPERT_KEYS),
    writes=(_NRE,),
    source=f"{_PAR}.compute_eplb_num_redundant_experts (vllm/config/parallel.py:652-684, called from "
    f"{_VLLM}.__post_init__ :1491 before verify_with_parallel_config); ref v0.34.0",
    message="EPLB num_redundant_experts not specified, defaulting to minimum valid value: {n} "
    "(num_logical_experts={experts}, ep_size={ep})",
    level="info",
)
def eplb_num_redundant_experts(c: Mapping[str, Any]) -> RuleResult:
    """The EP group spans TP x PCP x DP ranks; logical plus redundant experts must split evenly over it. Without
    EPLB, ParallelConfig already set 0 (parallel.eplb-no-redundant-experts); a user's count is kept."""
    if c[_MC] is None or not c["parallel_config.enable_eplb"] or c[_NRE] is not None:
        return None
    experts, ep = num_experts(c), c[_TP] * c[_PCP] * c[_DP]
    n = (ep - experts % ep) % ep
    return Outcome.log({_NRE: n}, n=n, experts=experts, ep=ep)


@rule(
    "parallel.dcp-defaults",
    title="DCP communication backend 'ag_rs' and no Q replication unless set",
    phase="core",
    kind="default",
    reads=("parallel_config.dcp_comm_backend", "parallel_config.dcp_q_replicate"),
    writes=("parallel_config.dcp_comm_backend", "parallel_config.dcp_q_replicate"),
    source=f"{_PAR}.set_dcp_defaults (called from {_VLLM}.__post_init__); ref V-DCP-DEFAULTS, v0.34.0",
)
def dcp_defaults(c: Mapping[str, Any]) -> RuleResult:
    """Models may pick their own DCP settings in their hook first; the rest get the stock ones."""
    out: dict[str, Any] = {}
    if c["parallel_config.dcp_comm_backend"] is None:
        out["parallel_config.dcp_comm_backend"] = "ag_rs"
    if c["parallel_config.dcp_q_replicate"] is None:
        out["parallel_config.dcp_q_replicate"] = False
    return out or None


@rule(
    "model.is-moe",
    title="A model with experts is a MoE model",
    phase="model_config",
    kind="derive",
    reads=(_MC, *_EXPERT_KEYS),
    writes=("model_config.is_moe",),
    source="vllm/config/model.py ModelConfig.is_moe; ref v0.34.0",
)
def model_is_moe(c: Mapping[str, Any]) -> RuleResult:
    """``get_num_experts() > 0`` (the first expert-count key of the text config)."""
    if c[_MC] is None:
        return None
    return {"model_config.is_moe": num_experts(c) > 0} if num_experts(c) > 0 else None


@rule(
    "parallel.is-moe-model",
    title="ParallelConfig learns whether the model is MoE",
    phase="core",
    kind="derive",
    reads=(_MC, "model_config.is_moe"),
    writes=("parallel_config.is_moe_model",),
    source=f"{_VLLM}.__post_init__; ref M-VERIFY-PARALLEL, v0.34.0",
)
def parallel_is_moe_model(c: Mapping[str, Any]) -> RuleResult:
    """Set from ModelConfig.is_moe when there is a model (left None without one)."""
    return {"parallel_config.is_moe_model": bool(c["model_config.is_moe"])} if c[_MC] is not None else None


def _rocm_deepep_ht_dbo(c: Mapping[str, Any]) -> bool:
    """``uses_rocm_deepep_ht_dbo`` (vllm/config/vllm.py:1595)."""
    return bool(c[_KIND] == "rocm" and c["parallel_config.enable_dbo"]
                and c["parallel_config.all2all_backend"] == "deepep_high_throughput")


_ASYNC_READS = (_ASYNC, _MC, "model_config.runner_type", "parallel_config.distributed_executor_backend", _KIND,
                "parallel_config.enable_dbo", "parallel_config.all2all_backend")


def _executor_supports_async(backend: Any) -> bool:
    """``Executor.get_class(...).supports_async_scheduling()``: the mp, uni and external_launcher executors and
    vLLM's own classes that say so (by qualified name); not ray nor the base Executor."""
    return backend in (None, "mp", "uni", "external_launcher") or VLLM_EXECUTOR_CLASSES.get(backend, False)


@rule(
    "scheduler.async-scheduling-default",
    title="Async scheduling defaults on, except for pooling models, executors without support and ROCm DeepEP-HT DBO",
    phase="core",
    kind="default",
    reads=_ASYNC_READS,
    writes=(_ASYNC,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1615-1640); ref V-ASYNC-DEFAULT, v0.34.0",
    message="Disabling asynchronous scheduling by default for pooling model.",
    level="debug",
)
def async_scheduling_default(c: Mapping[str, Any]) -> RuleResult:
    """The mp, uni and external_launcher executors support it; ray does not (warned)."""
    if c[_ASYNC] is not None:
        return None
    if c[_MC] is not None and c["model_config.runner_type"] == "pooling":
        return Outcome.log({_ASYNC: False})
    backend = c["parallel_config.distributed_executor_backend"]
    if not _executor_supports_async(backend):
        return Outcome({_ASYNC: False}, message=f"Async scheduling will be disabled because it is not supported "
                                               f"with the `{backend}` distributed executor backend. ",
                       level="warning")
    if _rocm_deepep_ht_dbo(c):
        return Outcome({_ASYNC: False}, message="Async scheduling is disabled for ROCm DeepEP high-throughput DBO "
                                               "because that combination can corrupt DP+EP generation accuracy.",
                       level="warning")
    return Outcome({_ASYNC: True}, message="")


@rule(
    "scheduler.async-scheduling-explicit",
    title="Async scheduling asked for needs an executor that supports it (and no ROCm DeepEP-HT DBO)",
    phase="core",
    kind="check",
    reads=_ASYNC_READS,
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1601-1613); ref V-ASYNC-EXPLICIT, v0.34.0",
    message="`<backend>` does not support async scheduling yet.",
)
def async_scheduling_explicit(c: Mapping[str, Any]) -> RuleResult:
    """The ray executor (the base Executor class) does not support async scheduling yet."""
    if not c[_ASYNC]:
        return None
    if _rocm_deepep_ht_dbo(c):
        return Violation("Async scheduling is not compatible with ROCm DeepEP high-throughput DBO. Please use "
                         "--no-async-scheduling or select a different all2all backend.")
    backend = c["parallel_config.distributed_executor_backend"]
    if not _executor_supports_async(backend):
        return Violation(f"`{backend}` does not support async scheduling yet.")
    return None


_NCCL = "parallel_config.disable_nccl_for_dp_synchronization"


@rule(
    "parallel.nccl-dp-sync-default",
    title="No NCCL for DP synchronization under async scheduling or with fault tolerance",
    phase="core",
    kind="default",
    reads=(_NCCL, _ASYNC, _DP, _MC, "model_config.is_moe", "parallel_config.enable_fault_tolerance"),
    writes=(_NCCL,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1642-1665); ref V-NCCL-DP-SYNC, v0.34.0",
    message="Disabling NCCL for DP synchronization when using async scheduling.",
    level="info",
)
def nccl_dp_sync_default(c: Mapping[str, Any]) -> RuleResult:
    """Logged only where it matters: DP > 1 with a MoE model (or none). Fault tolerance rebuilds only the CPU
    group, so it never syncs DP over NCCL."""
    value = c[_NCCL]
    messages: list[str] = []
    if value is None:
        value = bool(c[_ASYNC])
        if value and c[_DP] > 1 and (c[_MC] is None or c["model_config.is_moe"]):
            messages.append("Disabling NCCL for DP synchronization when using async scheduling.")
    if c["parallel_config.enable_fault_tolerance"] and not value:
        value = True
        messages.append("Disabling NCCL for DP synchronization because fault tolerance is enabled.")
    if value == c[_NCCL] and not messages:
        return None
    return Outcome({_NCCL: value}, message="\n".join(messages))


@rule(
    "observability.spec-metrics-need-spec",
    title="Per-request speculative decoding metrics need speculative decoding",
    phase="core",
    kind="check",
    reads=("observability_config.per_request_spec_decode_metrics", _SPEC),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1667-1674); ref V-SPEC-METRICS, v0.34.0",
    message="--per-request-spec-decode-metrics requires speculative decoding to be enabled (via "
    "--speculative-config).",
)
def spec_metrics_need_spec(c: Mapping[str, Any]) -> RuleResult:
    """There are no drafts to measure without a speculative config."""
    if c["observability_config.per_request_spec_decode_metrics"] != "none" and not c[_SPEC]:
        return Violation("--per-request-spec-decode-metrics requires speculative decoding to be enabled (via "
                         "--speculative-config).")
    return None


@rule(
    "compilation.enforce-eager",
    title="--enforce-eager: no torch.compile, no CUDA graphs, no JIT kernel warm-up",
    phase="core",
    kind="override",
    reads=(_MC, _EAGER, "parallel_config.enable_fault_tolerance"),
    writes=(_MODE, _CG, "kernel_config.enable_jit_warmup"),
    source=f"{_VLLM}.__post_init__; ref V-ENFORCE-EAGER, v0.34.0",
    message="Enforce eager set, disabling torch.compile, CUDAGraphs, and JIT kernel warmup. This is equivalent to "
    "setting -cc.mode=none -cc.cudagraph_mode=none and --kernel_config.enable_jit_warmup=False",
    level="warning",
)
def enforce_eager(c: Mapping[str, Any]) -> RuleResult:
    """With fault tolerance the JIT warm-up stays on (and the warning says less)."""
    if c[_MC] is None or not c[_EAGER]:
        return None
    out: dict[str, Any] = {_MODE: CompilationMode.NONE, _CG: CUDAGraphMode.NONE}
    if c["parallel_config.enable_fault_tolerance"]:
        return Outcome(out, message="Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent "
                                    "to setting -cc.mode=none -cc.cudagraph_mode=none", level="warning")
    out["kernel_config.enable_jit_warmup"] = False
    return Outcome.log(out)


@rule(
    "compilation.torch-compile-disable",
    title="TORCH_COMPILE_DISABLE=1 turns torch.compile off",
    phase="core",
    kind="override",
    reads=("env.TORCH_COMPILE_DISABLE",),
    writes=(_MODE,),
    source=f"{_VLLM}.__post_init__; ref V-TORCH-COMPILE-DISABLE, v0.34.0",
    message="TORCH_COMPILE_DISABLE is set, disabling torch.compile. This is equivalent to setting -cc.mode=none",
    level="warning",
)
def torch_compile_disable(c: Mapping[str, Any]) -> RuleResult:
    """torch's own switch, honoured by vLLM's compilation mode."""
    return Outcome.log({_MODE: CompilationMode.NONE}) if c["env.TORCH_COMPILE_DISABLE"] == "1" else None


_QWEN3_5_ARCHITECTURES = frozenset({
    "Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MTP", "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeMTP",
})
"""``_QWEN3_5_ARCHITECTURES`` (vllm/config/vllm.py:88): breakable CUDA graphs by default on NVIDIA only."""

BREAKABLE_ARCHITECTURES = frozenset({
    "AliceAIForCausalLM", "BeamForCausalLM", "DeepseekV32MTPModel", "DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM",
    "DeepseekV4ForConditionalGeneration", "DeepSeekV4MTPModel", "DeepseekV41ForCausalLM", "Dots3NoteForCausalLM",
    "Dots3NoteMTPModel", "Glm5NextForCausalLM", "Glm5NextForConditionalGeneration", "Glm5NextMTPModel",
    "GlmMoeDsaForCausalLM", "HYV4ForCausalLM", "HYV4MTPModel", "InklingForCausalLM",
    "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration", "KimiK3MTPModel",
    "KimiK31ForConditionalGeneration", "KimiLinearForCausalLM", "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration", "MistralLarge4ForCausalLM", "MuseSparkForCausalLM",
    "MuseSparkForConditionalGeneration", "Qwen4ExpForCausalLM", "Qwen4ExpForConditionalGeneration", "Qwen4ExpMTP",
    "Step5ForCausalLM", "Step5ForConditionalGeneration",
})
"""``DEFAULT_BREAKABLE_CUDAGRAPH_ARCHITECTURES`` (vllm/config/vllm.py:99)."""

ROCM_BREAKABLE_ARCHITECTURES = frozenset({"DeepseekV41ForCausalLM", "HYV4ForCausalLM", "HYV4MTPModel"})
"""What ``default_breakable_cudagraph_architectures`` answers on ROCm (vllm/config/vllm.py:139)."""

BATCH_INVARIANT_TUNED_SHAPES: Mapping[str, frozenset[tuple[int, int]]] = {
    "ada": frozenset({(2048, 2048), (2048, 6144), (4096, 2048), (12288, 2048), (151936, 2048)}),
    "hopper": frozenset({(2048, 2048), (2048, 6144), (4096, 2048), (4096, 4096), (4096, 12288), (4096, 14336),
                         (6144, 4096), (12288, 2048), (24576, 4096), (28672, 4096), (128256, 4096), (151936, 2048),
                         (151936, 4096)}),
    "blackwell": frozenset({(2048, 2048), (2048, 6144), (4096, 2048), (12288, 2048), (151936, 2048)}),
    "sm120": frozenset({
        (512, 2048), (768, 2560), (768, 4096), (1024, 2048), (1536, 2048), (1536, 2560), (1536, 4096), (2048, 256),
        (2048, 512), (2048, 768), (2048, 1024), (2048, 1536), (2048, 2048), (2048, 3072), (2048, 6144),
        (2432, 2560), (2560, 512), (2560, 1024), (2560, 1216), (2560, 2048), (2560, 2432), (2560, 4096),
        (2560, 4864), (2560, 9728), (3072, 2048), (3072, 2560), (3072, 4096), (4096, 512), (4096, 1024),
        (4096, 1536), (4096, 2048), (4096, 3072), (4096, 4096), (4096, 6144), (4096, 12288), (4864, 2560),
        (6144, 2048), (6144, 2560), (6144, 4096), (9728, 2560), (12288, 2048), (12288, 4096), (18992, 2048),
        (18992, 2560), (18992, 4096), (19456, 2560), (24576, 4096), (37984, 2048), (37984, 2560), (37984, 4096),
        (75968, 2048), (75968, 2560), (75968, 4096), (151936, 2048), (151936, 2560), (151936, 4096)}),
}
"""The (N, K) weight shapes of ``_BATCH_INVARIANT_MATMUL_TUNED_CONFIGS`` per architecture family
(vllm/model_executor/determinism/batch_invariant_configs.py:23; the tile values are not needed)."""

_ARCH_READS = ("model_config.architectures", "model_config.hf_text_config.architectures")
_BI_READS = tuple(dict.fromkeys((
    "env.VLLM_BATCH_INVARIANT", _EAGER, "model_config.dtype", "model_config.quantization", "platform.capability",
    "model_config.hf_text_config.intermediate_size", "model_config.hf_text_config.num_attention_heads",
    *PAGE_READS)))


def _tuned_family(capability: int | None) -> str | None:
    """``_get_tuned_matmul_arch_family`` (batch_invariant_configs.py:1227)."""
    if capability is None:
        return None
    major, minor = divmod(capability, 10)
    return {12: "sm120", 10: "blackwell", 9: "hopper"}.get(major) or ("ada" if (major, minor) == (8, 9) else None)


def _breakable_for_batch_invariance(c: Mapping[str, Any]) -> bool:
    """``VllmConfig._uses_breakable_cudagraph_for_batch_invariance`` (vllm/config/vllm.py:775): a bf16,
    unquantized model on CUDA whose attention or MLP weight shapes have tuned batch-invariant tiles."""
    if not c["env.VLLM_BATCH_INVARIANT"] or c[_MC] is None or c[_EAGER] or c["model_config.dtype"] != "bfloat16" \
            or c["model_config.quantization"] is not None or c[_KIND] != "cuda":
        return False
    family = _tuned_family(c["platform.capability"])
    if family is None:
        return False
    tp = c[_TP]
    hidden = int(c[_HT + "hidden_size"] or 0)
    head = head_size(c)
    heads = int(c[_HT + "num_attention_heads"] or 0) // tp
    kv_heads = max(1, total_num_kv_heads(c) // tp)
    shapes = [((heads + 2 * kv_heads) * head, hidden), (hidden, heads * head)]
    inter = c[_HT + "intermediate_size"]
    if isinstance(inter, int) and not isinstance(inter, bool):
        shapes += [(2 * inter // tp, hidden), (hidden, inter // tp)]
    return any(shape in BATCH_INVARIANT_TUNED_SHAPES[family] for shape in shapes)


@rule(
    "compilation.breakable-cudagraph",
    title="Breakable CUDA graphs: VLLM_USE_BREAKABLE_CUDAGRAPH when set, else on for the architectures that "
    "default to them and, under VLLM_BATCH_INVARIANT, for tuned bf16 models",
    phase="core",
    kind="derive",
    reads=_uniq("env.VLLM_USE_BREAKABLE_CUDAGRAPH", "env.explicit", _MC, _KIND, *_ARCH_READS, *_BI_READS),
    writes=(_BREAKABLE, _MODE),
    source=f"{_VLLM}._maybe_enable_breakable_cudagraph (vllm/config/vllm.py:810, called at :1724), "
    "default_breakable_cudagraph_architectures (:138); ref V-BREAKABLE-CG, v0.34.0",
    message="Auto-enabling VLLM_USE_BREAKABLE_CUDAGRAPH=1. Set VLLM_USE_BREAKABLE_CUDAGRAPH=0 to opt out.",
    level="info",
)
def breakable_cudagraph(c: Mapping[str, Any]) -> RuleResult:
    """Enabled breakable graphs replace compilation: the mode becomes NONE. A variable that is set decides
    alone (only ``"1"`` enables), whatever the model."""
    if "VLLM_USE_BREAKABLE_CUDAGRAPH" in c["env.explicit"]:
        on, message = c["env.VLLM_USE_BREAKABLE_CUDAGRAPH"] == "1", ""
    elif _breakable_by_default(c):
        on, message = True, ("Auto-enabling VLLM_USE_BREAKABLE_CUDAGRAPH=1. Set VLLM_USE_BREAKABLE_CUDAGRAPH=0 to "
                             "opt out.")
    elif _breakable_for_batch_invariance(c):
        on, message = True, ("VLLM_BATCH_INVARIANT=1: auto-enabling VLLM_USE_BREAKABLE_CUDAGRAPH=1. Set "
                             "VLLM_USE_BREAKABLE_CUDAGRAPH=0 to opt out.")
    else:
        on, message = False, ""
    return Outcome({_BREAKABLE: True, _MODE: CompilationMode.NONE} if on else {_BREAKABLE: False}, message=message)


def _breakable_by_default(c: Mapping[str, Any]) -> bool:
    """``_uses_breakable_cudagraph_by_default`` (vllm/config/vllm.py:764): the model's or its text model's
    architectures against the platform's list."""
    if c[_MC] is None:
        return False
    archs = {*(c["model_config.architectures"] or ()), *(c["model_config.hf_text_config.architectures"] or ())}
    table = (ROCM_BREAKABLE_ARCHITECTURES if c[_KIND] == "rocm" else
             BREAKABLE_ARCHITECTURES | _QWEN3_5_ARCHITECTURES if c[_KIND] == "cuda" else BREAKABLE_ARCHITECTURES)
    return bool(archs & table)


def _breakable_enabled(c: Mapping[str, Any]) -> bool:
    """Whether ``_maybe_enable_breakable_cudagraph`` enables them (what later steps test)."""
    if "VLLM_USE_BREAKABLE_CUDAGRAPH" in c["env.explicit"]:
        return bool(c["env.VLLM_USE_BREAKABLE_CUDAGRAPH"] == "1")
    return _breakable_by_default(c) or _breakable_for_batch_invariance(c)


@rule(
    "compilation.inductor-off-warning",
    title="Inductor-only optimisation settings are ignored when the user turned Inductor off",
    phase="verify",
    kind="check",
    reads=_uniq("env.VLLM_USE_BREAKABLE_CUDAGRAPH", "env.explicit", _BACKEND, _MODE, _MC, _EAGER,
                "env.TORCH_COMPILE_DISABLE", _KIND, *_ARCH_READS, *_BI_READS),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1726-1737, after the parallel/LoRA/quantization checks); "
    "ref step-7, V-INDUCTOR-OFF-WARN, v0.34.0",
    message="Inductor compilation was disabled by user settings, optimizations settings that are only active "
    "during inductor compilation will be ignored.",
    level="warning",
)
def inductor_off_warning(c: Mapping[str, Any]) -> RuleResult:
    """Backend 'eager', or a mode set below VLLM_COMPILE by then: the user's, enforce-eager's or
    TORCH_COMPILE_DISABLE's NONE (not the optimisation level's default, which comes later). Decided before the
    compilation steps run (phase verify) on the mode they will have set, so no later write re-decides it."""
    if _breakable_enabled(c):
        return None
    mode = c[_MODE]
    if (c[_MC] is not None and c[_EAGER]) or c["env.TORCH_COMPILE_DISABLE"] == "1":
        mode = CompilationMode.NONE
    if c[_BACKEND] == "eager" or (mode is not None and mode != CompilationMode.VLLM_COMPILE):
        return Outcome.log()
    return None


@rule(
    "compilation.default-mode",
    title="Default compilation mode: VLLM_COMPILE above -O0, else NONE",
    phase="core",
    kind="default",
    reads=(_MODE, _LEVEL),
    writes=(_MODE,),
    source=f"{_VLLM}.__post_init__; ref V-MODE-DEFAULT, v0.34.0",
)
def default_mode(c: Mapping[str, Any]) -> RuleResult:
    """The optimisation level decides an unset mode (there is no model or V1 condition any more)."""
    if c[_MODE] is not None:
        return None
    return {_MODE: CompilationMode.VLLM_COMPILE if c[_LEVEL] > 0 else CompilationMode.NONE}


@rule(
    "compilation.ir-enable-torch-wrap",
    title="IR ops are wrapped for torch when Inductor compiles",
    phase="core",
    kind="default",
    reads=(f"{_CC}.ir_enable_torch_wrap", _MODE, _BACKEND),
    writes=(f"{_CC}.ir_enable_torch_wrap",),
    source=f"{_VLLM}.__post_init__; ref V-IR-TORCH-WRAP, v0.34.0",
)
def ir_enable_torch_wrap(c: Mapping[str, Any]) -> RuleResult:
    """``mode == VLLM_COMPILE and backend == "inductor"`` when unset."""
    if c[f"{_CC}.ir_enable_torch_wrap"] is not None:
        return None
    return {f"{_CC}.ir_enable_torch_wrap": c[_MODE] == CompilationMode.VLLM_COMPILE and c[_BACKEND] == "inductor"}


def _platform_ir_priority(c: Mapping[str, Any]) -> dict[str, list[str]]:
    """``current_platform.get_default_ir_op_priority``: native under Inductor, else vllm_c first (CUDA/ROCm)."""
    kind = c[_KIND]
    if kind not in ("cuda", "rocm"):
        return {op: ["native"] for op in _IR_OPS}
    inductor = c[_BACKEND] == "inductor" and c[_MODE] != CompilationMode.NONE
    default = ["native"] if inductor else ["vllm_c", "native"]
    rms = list(default)
    if kind == "cuda":
        if c["env.VLLM_USE_OINK_OPS"]:
            rms = ["oink", *default]
        return {"rms_norm": rms, "fused_add_rms_norm": rms, "gelu_and_mul_sparse": ["triton", "native"]}
    aiter = c[_CG] != CUDAGraphMode.NONE and c["env.VLLM_ROCM_USE_AITER"] and c["env.VLLM_ROCM_USE_AITER_RMSNORM"] \
        and c["platform.gcn_arch"] != "gfx90a"
    if aiter:
        rms = ["aiter", *default]
    return {"rms_norm": rms, "fused_add_rms_norm": rms, "gelu_and_mul_sparse": ["native"]}


def _show_priority(prio: Mapping[str, Any]) -> str:
    return "IrOpPriorityConfig(" + ", ".join(f"{op}={list(prio[op])!r}" for op in _IR_OPS) + ")"


_IR_READS = (_KIND, _BACKEND, _MODE, _CG, "env.VLLM_USE_OINK_OPS", "env.VLLM_ROCM_USE_AITER",
             "env.VLLM_ROCM_USE_AITER_RMSNORM", "platform.gcn_arch", *(f"{_PRIO}.{op}" for op in _IR_OPS))
_IR_SOURCE = ("vllm/config/kernel.py KernelConfig.set_platform_defaults, vllm/platforms/*.py "
              "get_default_ir_op_priority; ref V-KERNEL-DEFAULTS, v0.34.0")


@rule(
    "kernel.ir-op-priority",
    title="The platform's IR op priorities are appended to the user's",
    phase="core",
    kind="derive",
    reads=_IR_READS,
    writes=tuple(f"{_PRIO}.{op}" for op in _IR_OPS),
    source=_IR_SOURCE,
    message="Setting platform-specific IR op priority defaults: <platform>, user-defined: <user>",
    level="debug",
)
def ir_op_priority(c: Mapping[str, Any]) -> RuleResult:
    """Each op keeps the user's order with the platform's entries appended. On ROCm the CUDA-graph mode it
    reads is the one set before the optimisation level fills it in."""
    platform = _platform_ir_priority(c)
    user = {op: list(c[f"{_PRIO}.{op}"] or []) for op in _IR_OPS}
    final = {op: [*user[op], *(x for x in platform[op] if x not in user[op])] for op in _IR_OPS}
    changes = {f"{_PRIO}.{op}": tuple(final[op]) for op in _IR_OPS if final[op] != user[op]}
    if not changes:
        # also its own re-run on the merged lists; a user whose lists already hold every platform entry
        # misses vLLM's debug record here (partial model)
        return None
    return Outcome(changes, message=f"Setting platform-specific IR op priority defaults: {_show_priority(platform)}, "
                                    f"user-defined: {_show_priority(user)}")


@rule(
    "kernel.ir-op-priority-final",
    title="The final IR op priorities are logged",
    phase="core",
    kind="check",
    reads=tuple(f"{_PRIO}.{op}" for op in _IR_OPS),
    after=("kernel.ir-op-priority",),
    source=_IR_SOURCE,
    message="Final IR op priority after setting platform defaults: <final>",
    level="info",
)
def ir_op_priority_final(c: Mapping[str, Any]) -> RuleResult:
    """Logged in every resolved config."""
    final = {op: list(c[f"{_PRIO}.{op}"] or []) for op in _IR_OPS}
    return Outcome(message=f"Final IR op priority after setting platform defaults: {_show_priority(final)}")

# ---- the optimisation level's defaults (OPTIMIZATION_LEVEL_00..03, vllm/config/vllm.py:283-374)


def _fuse_norm_quant(c: Mapping[str, Any]) -> bool:
    """enable_norm_fusion: the rms_norm or quant_fp8 custom op is on, or rms_norm's IR priority is not native."""
    prio = c[f"{_PRIO}.rms_norm"]
    return _op_enabled(c[_OPS], "rms_norm") or _op_enabled(c[_OPS], "quant_fp8") or bool(prio and prio[0] != "native")


def _fuse_act_quant(c: Mapping[str, Any]) -> bool:
    """enable_act_fusion: silu_and_mul or quant_fp8 custom op on, or an NVFP4 model (FP4 quant is always a custom
    op, so Inductor cannot fuse it): ModelConfig.is_nvfp4_quantized, vllm/config/model.py:2345-2366 (ModelOpt NVFP4,
    or compressed-tensors in an nvfp4 format, or a ModelOpt MIXED_PRECISION checkpoint with an NVFP4 layer in its
    top-level quantized_layers)."""
    return _op_enabled(c[_OPS], "silu_and_mul") or _op_enabled(c[_OPS], "quant_fp8") or _nvfp4(c)


def _nvfp4(c: Mapping[str, Any]) -> bool:
    if c[_MC] is None:
        return False
    method = c["model_config.quantization"]
    if method == "modelopt_fp4":
        return True
    cfg = c["model_config.hf_config.quantization_config"] or c["model_config.hf_config.compression_config"] or {}
    if method == "modelopt_mixed":  # _modelopt_mixed_has_nvfp4 (vllm/config/model.py:136-149)
        layers = cfg.get("quantized_layers")
        return isinstance(layers, dict) and any(
            isinstance(info, dict) and info.get("quant_algo") == "NVFP4" for info in layers.values())
    return method == "compressed-tensors" and "nvfp4" in str(cfg.get("format") or "").lower()


def _aiter(c: Mapping[str, Any]) -> bool | None:
    """``rocm_aiter_ops.is_enabled()``: VLLM_ROCM_USE_AITER on ROCm gfx9 with the aiter package; **None**
    elsewhere (its ``if_aiter_supported`` decorator returns None), which the level table then writes as is."""
    if c[_KIND] != "rocm" or not c["platform.aiter_found"] or not str(c["platform.gcn_arch"] or "").startswith("gfx9"):
        return None
    return bool(c["env.VLLM_ROCM_USE_AITER"])


def _fuse_allreduce_rms(c: Mapping[str, Any]) -> bool | None:
    """enable_allreduce_rms_fusion: TP > 1 on Hopper/Blackwell with FlashInfer; ROCm: AITER and TP > 1."""
    if c["env.VLLM_BATCH_INVARIANT"]:
        return False
    tp = c[_TP]
    if c[_KIND] == "rocm":
        aiter = _aiter(c)
        return aiter and tp > 1
    cap = c["platform.capability"] or 0
    return tp > 1 and c[_KIND] == "cuda" and bool(c["platform.flashinfer_available"]) and (
        cap // 10 == 10 or cap == 90)


def _kv_update_split(c: Mapping[str, Any]) -> bool:
    """``splitting_ops_contain_kv_cache_update`` as it stands before the splitting ops are set."""
    ops = c[_SPLIT]
    if not c[_PARTITION] and ops is None and not c[f"{_PC}.fuse_attn_quant"]:
        return True
    return ops is not None and all(o in ops for o in ("vllm::unified_kv_cache_update",
                                                      "vllm::unified_mla_kv_cache_update"))


def _fuse_rope_kvcache(c: Mapping[str, Any]) -> bool | None:
    aiter = _aiter(c)
    return aiter and _op_enabled(c[_OPS], "rotary_embedding") and (bool(c[_PARTITION]) or not _kv_update_split(c))


def _fuse_rope_kvcache_cat_mla(c: Mapping[str, Any]) -> bool:
    return bool(c[_PARTITION]) or not _kv_update_split(c)


def _fuse_act_padding(c: Mapping[str, Any]) -> bool:
    prio = c[f"{_PRIO}.fused_add_rms_norm"]
    return bool(prio) and prio[0] == "aiter" and c[_MC] is not None and c[_HT + "hidden_size"] == 2880


def _fuse_qk_norm_rope_kvcache(c: Mapping[str, Any]) -> bool:
    return bool(_aiter(c)) and _op_enabled(c[_OPS], "rotary_embedding")


_FN_READS = {
    "fuse_norm_quant": (_OPS, f"{_PRIO}.rms_norm"),
    "fuse_act_quant": (_OPS, _MC, "model_config.quantization", "model_config.hf_config.quantization_config",
                       "model_config.hf_config.compression_config"),
    "fuse_allreduce_rms": ("env.VLLM_BATCH_INVARIANT", _TP, _KIND, "env.VLLM_ROCM_USE_AITER", "platform.aiter_found",
                           "platform.gcn_arch",
                           "platform.capability", "platform.flashinfer_available"),
    "fuse_act_padding": (f"{_PRIO}.fused_add_rms_norm", _MC, _HT + "hidden_size"),
    "fuse_mla_dual_rms_norm": (_KIND, "env.VLLM_ROCM_USE_AITER", "platform.aiter_found", "platform.gcn_arch"),
    "fuse_rope_kvcache": (_KIND, "env.VLLM_ROCM_USE_AITER", "platform.aiter_found", "platform.gcn_arch", _OPS, _PARTITION, _SPLIT,
                          f"{_PC}.fuse_attn_quant"),
    "fuse_qk_norm_rope_kvcache": (_KIND, "env.VLLM_ROCM_USE_AITER", "platform.aiter_found", "platform.gcn_arch", _OPS),
    "fuse_rope_kvcache_cat_mla": (_PARTITION, _SPLIT, f"{_PC}.fuse_attn_quant"),
}
_LEVELS: dict[str, tuple[Any, Any, Any, Any]] = {
    # key: (O0, O1, O2, O3); a callable is evaluated on the config as it stands
    f"{_PC}.fuse_norm_quant": (False, _fuse_norm_quant, _fuse_norm_quant, _fuse_norm_quant),
    f"{_PC}.fuse_act_quant": (False, _fuse_act_quant, _fuse_act_quant, _fuse_act_quant),
    f"{_PC}.fuse_allreduce_rms": (False, False, _fuse_allreduce_rms, _fuse_allreduce_rms),
    f"{_PC}.fuse_attn_quant": (False, False, False, False),
    f"{_PC}.fuse_act_padding": (False, _fuse_act_padding, _fuse_act_padding, _fuse_act_padding),
    f"{_PC}.fuse_mla_dual_rms_norm": (False, _aiter, _aiter, _aiter),
    f"{_PC}.fuse_rope_kvcache": (False, False, _fuse_rope_kvcache, _fuse_rope_kvcache),
    f"{_PC}.fuse_qk_norm_rope_kvcache": (False, False, _fuse_qk_norm_rope_kvcache, _fuse_qk_norm_rope_kvcache),
    f"{_PC}.enable_qk_norm_rope_fusion": (False, False, False, False),
    f"{_PC}.fuse_rope_kvcache_cat_mla": (False, False, _fuse_rope_kvcache_cat_mla, _fuse_rope_kvcache_cat_mla),
    _CG: (CUDAGraphMode.NONE, CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL_AND_PIECEWISE,
          CUDAGraphMode.FULL_AND_PIECEWISE),
    _PARTITION: (False, False, False, False),
    "kernel_config.enable_flashinfer_autotune": (False, True, True, True),
}


def _level_rule(path: str, values: tuple[Any, Any, Any, Any]) -> Any:
    from postinit.engine import make_rule

    short = path.rsplit(".", 1)[1]
    extra = next((r for k, r in _FN_READS.items() if k == short), ())

    def level_default(c: Mapping[str, Any]) -> RuleResult:
        if c[path] is not None:
            return None
        value = values[int(c[_LEVEL])]
        return {path: value(c) if callable(value) else value}

    shown = ", ".join(f"O{i}: {getattr(v, '__name__', v)}".replace("_fuse_", "enable_").lstrip("_")
                      for i, v in enumerate(values))
    level_default.__doc__ = f"The optimisation level's default for {short} where the user set none ({shown})."
    level_default.__name__ = f"level_{short}"
    return make_rule(
        level_default, f"level.{short.replace('_', '-')}", title=f"-O<level> default for {path}",
        phase="core", kind="default", reads=(_LEVEL, path, *extra), writes=(path,),
        source=f"{_VLLM}._apply_optimization_level_defaults, OPTIMIZATION_LEVEL_00..03; ref V-OPT-LEVEL, v0.34.0")


LEVEL_RULES = tuple(_level_rule(p, v) for p, v in _LEVELS.items())
"""One rule per key of the optimisation-level tables: each default a level supplies is a firing the trace names."""


_NOOP_OFF = (("fuse_norm_quant", "fuse_act_quant", "RMSNorm/SiluMul + quant (fp8)"),
             ("fuse_attn_quant", None, "Attention + quant (fp8)"),
             ("fuse_allreduce_rms", None, "Allreduce + rms norm + quant (fp8)"),
             ("fuse_act_padding", None, "RMSNorm + padding"))
_PLATFORM_FUSIONS = (  # key, the platform kinds that keep it, vLLM's warning
    ("enable_qk_norm_rope_fusion", ("cuda", "rocm"),
     "QK Norm + RoPE fusion enabled but the current platform is not CUDA, ROCm or XPU. The fusion will be disabled."),
    ("fuse_act_padding", ("rocm",),
     "Padding fusion enabled but the current platform is not ROCm. The fusion will be disabled."),
    ("fuse_mla_dual_rms_norm", ("rocm",),
     "MLA dual RMS norm fusion requires ROCm/AITER. The fusion will be disabled."),
    ("fuse_rope_kvcache", ("rocm",), "KV cache fusion currently only enabled on ROCm. The fusion will be disabled."),
    ("fuse_qk_norm_rope_kvcache", ("rocm",),
     "QK-Norm+RoPE+KVCache fusion requires ROCm with AITER. The fusion will be disabled."),
    ("fuse_rope_kvcache_cat_mla", ("cuda", "rocm"),
     "MLA KV cache update with RoPE fusion enabled but the current platform is not CUDA or ROCm. The fusion will be "
     "disabled."),
)
_ROPE_FUSIONS = ("enable_qk_norm_rope_fusion", "fuse_rope_kvcache", "fuse_qk_norm_rope_kvcache")


@rule(
    "compilation.pass-config-given",
    title="The fusions the user turned on: warnings without no-op elimination, off on platforms without them, "
    "RoPE fusions enable the rotary_embedding custom op",
    phase="sub_configs",
    kind="override",
    reads=(_KIND, _OPS, f"{_PC}.eliminate_noops", f"{_PC}.fuse_norm_quant", f"{_PC}.fuse_act_quant",
           f"{_PC}.fuse_attn_quant", f"{_PC}.fuse_allreduce_rms",
           *(f"{_PC}.{k}" for k, _kinds, _msg in _PLATFORM_FUSIONS)),
    writes=(_OPS, *(f"{_PC}.{k}" for k, _kinds, _msg in _PLATFORM_FUSIONS)),
    level="warning",
    source="vllm/config/compilation.py PassConfig.__post_init__ (vllm/config/compilation.py:314-375) and "
    "CompilationConfig.__post_init__ (vllm/config/compilation.py:1114-1134); ref v0.34.0",
    message="Fusion enabled but reshape elimination disabled. ... / <fusion> ... The fusion will be disabled.",
)
def pass_config_given(c: Mapping[str, Any]) -> RuleResult:
    """PassConfig's own __post_init__ sees only what the user gave (the -O level fills the unset fusions later,
    in VllmConfig): each fusion a platform lacks is switched off with a warning, and a RoPE fusion still on asks
    CompilationConfig for the rotary_embedding custom op (its pattern matches that op, not the native code)."""
    said: list[str] = []
    out: dict[str, Any] = {}
    if not c[f"{_PC}.eliminate_noops"]:
        for key, other, what in _NOOP_OFF:
            if c[f"{_PC}.{key}"] or (other is not None and c[f"{_PC}.{other}"]):
                said.append(f"Fusion enabled but reshape elimination disabled. {what} fusion might not work")
    for key, kinds, warning in _PLATFORM_FUSIONS:
        if c[f"{_PC}.{key}"] and c[_KIND] not in kinds:
            said.append(warning)
            out[f"{_PC}.{key}"] = False
    ops = list(c[_OPS] or ())
    if any(out.get(f"{_PC}.{k}", c[f"{_PC}.{k}"]) for k in _ROPE_FUSIONS) and "+rotary_embedding" not in ops:
        out[_OPS] = (*ops, "+rotary_embedding")
    if not said and not out:
        return None
    return Outcome(out, message="\n".join(said))  # "": no record


@rule(
    "attention.sparse-mla-workspace-factor",
    title="Sparse-MLA prefill workspace factor: 5 up to 256K tokens of context, else 2",
    phase="core",
    kind="default",
    reads=("attention_config.sparse_mla_prefill_workspace_factor", _MC, "model_config.max_model_len"),
    writes=("attention_config.sparse_mla_prefill_workspace_factor",),
    source=f"{_VLLM}.__post_init__; ref V-SPARSE-MLA-FACTOR, v0.34.0",
)
def sparse_mla_workspace_factor(c: Mapping[str, Any]) -> RuleResult:
    """Only with a model (the factor scales the prefill workspace by the context length)."""
    if c["attention_config.sparse_mla_prefill_workspace_factor"] is not None or c[_MC] is None:
        return None
    return {"attention_config.sparse_mla_prefill_workspace_factor": 5 if c["model_config.max_model_len"] <= 262144
            else 2}


def _without_piecewise(mode: CUDAGraphMode) -> CUDAGraphMode:
    """``CUDAGraphMode.without_piecewise`` (vllm/config/compilation.py:156): PIECEWISE -> NONE,
    FULL_AND_PIECEWISE -> FULL_DECODE_ONLY (the full graphs it keeps are the decode ones)."""
    return {CUDAGraphMode.PIECEWISE: CUDAGraphMode.NONE,
            CUDAGraphMode.FULL_AND_PIECEWISE: CUDAGraphMode.FULL_DECODE_ONLY}.get(mode, mode)


def _normalize(c: Mapping[str, Any]) -> RuleResult:
    mode = c[_CG]
    if mode is None or not mode.requires_piecewise_compilation() or c[_MODE] == CompilationMode.VLLM_COMPILE \
            or c[_BREAKABLE]:
        return None
    fallback = _without_piecewise(mode)
    out: dict[str, Any] = {_CG: fallback}
    if fallback == CUDAGraphMode.NONE:
        out.update({_MAX: 0, _SIZES: ()})
    return Outcome(out, message=f"Cudagraph mode {mode} is not compatible with compilation mode {int(c[_MODE])}. "
                                f"Overriding to {fallback}.")


_NORMALIZE: dict[str, Any] = dict(
    kind="override", reads=(_CG, _MODE, _BREAKABLE), writes=(_CG, _MAX, _SIZES), level="info",
    message="Cudagraph mode <m> is not compatible with compilation mode <c>. Overriding to <fallback>.")


@rule(
    "cudagraph.normalize-piecewise",
    title="Piecewise CUDA graphs without VLLM_COMPILE fall back to their full part (or none)",
    phase="core",
    source=f"{_VLLM}._normalize_piecewise_cudagraph_mode; ref V-NORMALIZE-PIECEWISE, v0.34.0",
    **_NORMALIZE,
)
def normalize_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """PIECEWISE becomes NONE (and no capture sizes), FULL_AND_PIECEWISE becomes FULL_DECODE_ONLY (0.11.1
    asserted)."""
    return _normalize(c)


@rule(
    "cudagraph.normalize-piecewise-after-platform",
    title="The same normalisation again, after the platform hook",
    phase="finalize",
    source=f"{_VLLM}.__post_init__ (second call); ref V-NORMALIZE-PIECEWISE, v0.34.0",
    **_NORMALIZE,
)
def normalize_piecewise_after_platform(c: Mapping[str, Any]) -> RuleResult:
    """A platform hook may lower the compilation mode (CPU with LoRA) after the first normalisation."""
    return _normalize(c)


@rule(
    "compilation.fast-moe-cold-start",
    title="fast_moe_cold_start is off (torch >= 2.11 has opaque objects)",
    phase="core",
    kind="override",
    reads=(f"{_CC}.fast_moe_cold_start",),
    writes=(f"{_CC}.fast_moe_cold_start",),
    source=f"{_VLLM}.__post_init__ (HAS_OPAQUE_TYPE, torch 2.14 in vllm==0.34.0's pins); ref V-FAST-MOE-COLD-START, "
    "v0.34.0",
)
def fast_moe_cold_start(c: Mapping[str, Any]) -> RuleResult:
    """The hoisted OpaqueObject approach supersedes it, so it is forced off whatever the user set."""
    return {f"{_CC}.fast_moe_cold_start": False}


@rule(
    "cudagraph.no-static-graph-support",
    title="No static graph support: CUDA graphs off",
    phase="core",
    kind="override",
    reads=(_STATIC,),
    writes=(_CG,),
    source=f"{_VLLM}.__post_init__; ref V-NO-STATIC-GRAPH, v0.34.0",
)
def no_static_graph_support(c: Mapping[str, Any]) -> RuleResult:
    """Platforms without static graph mode (CPU) capture no CUDA graphs; nothing else of the step runs."""
    return {_CG: CUDAGraphMode.NONE} if not c[_STATIC] else None


@rule(
    "cudagraph.pooling-forces-piecewise",
    title="Pooling models force PIECEWISE",
    phase="core",
    kind="override",
    reads=(_STATIC, _MC, "model_config.pooler_config", _CG),
    writes=(_CG,),
    source=f"{_VLLM}.__post_init__; ref V-POOLING-FULL-CG, v0.34.0",
    message="Pooling models do not support full cudagraphs. Overriding cudagraph_mode to PIECEWISE.",
    level="warning",
)
def pooling_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """vLLM tests ``pooler_config is not None``, not the runner type."""
    mode = c[_CG]
    if c[_STATIC] and c[_MC] is not None and mode is not None and mode.has_full_cudagraphs() \
            and c["model_config.pooler_config"] is not None:
        return Outcome.log({_CG: CUDAGraphMode.PIECEWISE})
    return None


@rule(
    "cudagraph.encoder-decoder-forces-piecewise",
    title="Encoder-decoder models capture decode graphs only (FULL_DECODE_ONLY)",
    phase="core",
    kind="override",
    reads=(_STATIC, _MC, "model_config.pooler_config", "model_config.is_encoder_decoder", _CG),
    writes=(_CG,),
    after=("cudagraph.pooling-forces-piecewise",),
    source=f"{_VLLM}.__post_init__; ref V-ENCDEC-CG, v0.34.0",
    message="Encoder-decoder models do not support <mode>. Overriding cudagraph_mode to FULL_DECODE_ONLY.",
    level="info",
)
def encoder_decoder_forces_piecewise(c: Mapping[str, Any]) -> RuleResult:
    """0.11.1 chose PIECEWISE; 0.34.0 keeps full decode graphs (the elif of the pooling test)."""
    mode = c[_CG]
    if not c[_STATIC] or c[_MC] is None or mode is None or not c["model_config.is_encoder_decoder"]:
        return None
    if mode.has_full_cudagraphs() and c["model_config.pooler_config"] is not None:
        return None
    if mode in (CUDAGraphMode.NONE, CUDAGraphMode.FULL_DECODE_ONLY):
        return None
    return Outcome({_CG: CUDAGraphMode.FULL_DECODE_ONLY}, message=f"Encoder-decoder models do not support "
                                                                   f"{mode.name}. Overriding cudagraph_mode to "
                                                                   f"FULL_DECODE_ONLY.")


@rule(
    "cudagraph.eager-disables",
    title="enforce_eager disables CUDA graphs",
    phase="core",
    kind="override",
    reads=(_STATIC, _MC, _EAGER),
    writes=(_CG, _MAX, _SIZES),
    source=f"{_VLLM}.__post_init__; ref V-EAGER-CG-OFF, v0.34.0",
    message="Cudagraph is disabled under eager mode",
    level="info",
)
def eager_disables(c: Mapping[str, Any]) -> RuleResult:
    """Logged even when nothing changes (the mode is already NONE from the eager step)."""
    if c[_STATIC] and c[_MC] is not None and c[_EAGER]:
        return Outcome.log({_CG: CUDAGraphMode.NONE, _MAX: 0, _SIZES: ()})
    return None


@rule(
    "cudagraph.warmups",
    title="One CUDA graph warm-up run unless the model runs eagerly",
    phase="core",
    kind="derive",
    reads=(_STATIC, _MC, _EAGER),
    writes=(f"{_CC}.cudagraph_num_of_warmups",),
    source=f"{_VLLM}.__post_init__; ref V-EAGER-CG-OFF, v0.34.0",
)
def warmups(c: Mapping[str, Any]) -> RuleResult:
    """Set even when the mode is NONE (no V1 condition any more)."""
    if c[_STATIC] and not (c[_MC] is not None and c[_EAGER]):
        return {f"{_CC}.cudagraph_num_of_warmups": 1}
    return None


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _walk_grid(limit: int, step: Any) -> list[int]:
    """Sizes 1 .. limit, each the next multiple of the largest power of two not above step(size)."""
    import math

    grid, size = [], 1
    while size < limit:
        grid.append(size)
        stride = 1 << max(0, math.floor(math.log2(max(1.0, step(size)))))
        size = (size // stride + 1) * stride
    return [*grid, limit] if limit else []


def prefill_grid(max_tokens: int, dense_head: bool = False) -> list[int]:
    """``prefill_cudagraph_capture_grid`` (vllm/config/compilation.py)."""
    grid = _walk_grid(max_tokens, lambda t: min(t, max(8, t / 4), 0.07 * max(t, 4096)))
    if dense_head:
        grid = sorted({*grid, *(t for t in range(1, 33) if t < max_tokens)})
    return grid


def varlen_decode_grid(max_tokens: int, dense_head: bool = False) -> list[int]:
    """``varlen_decode_cudagraph_capture_grid`` (vllm/config/compilation.py:102-119): adaptive verification's
    token grid, finer than prefill's (it picks its verify budget from the captured sizes)."""
    grid = set(range(1, 33)) if dense_head else {1, 2, 4}
    low = 8
    grid.add(low)
    while low < 1024:
        grid.update(range(low + low // 4, 2 * low + 1, low // 4))
        low *= 2
    grid.update(range(1024, 4096, 128), range(4096, max_tokens, 256))
    return sorted({s for s in grid if s < max_tokens} | {max_tokens}) if max_tokens else []


def _request_counts(max_reqs: int, ceiling: int) -> list[int]:
    """The request counts of a speculative decode tier (``request_counts`` in _set_cudagraph_sizes,
    vllm/config/vllm.py:2425-2431): at most the platform's default number of requests."""
    max_reqs = min(max_reqs, ceiling)
    counts = [n for n in (1, 2, 4) if n <= max_reqs]
    counts += [*range(8, min(max_reqs + 1, 256), 8), *range(256, max_reqs + 1, 16)]
    return sorted({*counts, max_reqs})


def decode_grid(max_requests: int) -> list[int]:
    """``decode_cudagraph_capture_grid`` (vllm/config/compilation.py)."""
    return _walk_grid(max_requests, lambda n: 0.65 * n ** (2 / 3))


def decode_shapes(sizes: Any, query_lens: Mapping[int, int], max_tokens: int) -> list[tuple[int, int]]:
    """``decode_cudagraph_capture_shapes``: (requests, query length) uniform decode graphs."""
    import bisect

    ordered = sorted(set(sizes))
    shapes: set[tuple[int, int]] = set()
    for q, max_reqs in query_lens.items():
        limit = min(max_reqs, max_tokens // q)
        reachable = ordered[: bisect.bisect_left(ordered, limit) + 1]
        shapes.update((min(n, limit), q) for n in reachable if limit >= 1)
    return sorted(shapes, key=lambda s: (s[1], s[0]))


_SPLIT_FIELDS = ("prefill_cudagraph_capture_token_sizes", "max_prefill_cudagraph_capture_tokens",
                 "decode_cudagraph_capture_request_sizes", "max_decode_cudagraph_capture_requests")
_SIZE_READS = _uniq(_MC, _EAGER, _CG, _MAX, _SIZES, _SEQ, _TOK, "performance_mode", "platform.capability", _KIND,
                    _SPEC, _NSPEC, "speculative_config.method", "speculative_config.enable_adaptive_verification",
                    *spec.QUERY_LEN_READS, *spec.MULTI_MODULE_MTP_READS, *(f"{_CC}.{f}" for f in _SPLIT_FIELDS),
                    f"{_CC}.max_decode_cudagraph_capture_tokens", _STATIC)
_SIZE_WRITES = (_MAX, _SIZES, _CG, *(f"{_CC}.{f}" for f in _SPLIT_FIELDS), f"{_CC}.max_decode_cudagraph_capture_tokens")


@rule(
    "cudagraph.capture-sizes",
    title="CUDA graph capture sizes: the shared grid, then prefill token sizes and decode request sizes",
    phase="core",
    kind="derive",
    reads=_SIZE_READS,
    writes=_SIZE_WRITES,
    source=f"{_VLLM}._set_cudagraph_sizes, _split_cudagraph_capture_sizes; ref V-CG-SIZES, V-CG-SPLIT-SIZES, "
    "v0.34.0",
    message="<the truncation / override / deprecation / drop warnings>",
    level="warning",
)
def capture_sizes(c: Mapping[str, Any]) -> RuleResult:
    """Default max ``min(max_num_seqs * qlen * 2, 1024 on sm10x else 512)``, capped at the token budget.

    ``qlen`` is ``uniform_decode_query_len``: one token plus the speculative tokens (a diffusion model's canvas
    length); dynamic speculative decoding gives each draft width a tier of its own (``get_decode_cudagraph_query_lens``).
    The decode graphs add the one-token draft steps of EAGLE-style drafters and adaptive verification's
    mixed-length grid (``get_draft_decode_cudagraph_request_sizes``, ``get_varlen_decode_cudagraph_token_sizes``,
    vllm/config/vllm.py:708-750).
    """
    if not c[_STATIC]:
        return None
    mode = c[_CG]
    if c[_MC] is None or c[_EAGER] or mode is None or mode == CUDAGraphMode.NONE:
        return Outcome({_MAX: 0, _SIZES: ()}, message="")
    warnings: list[str] = []
    errors: list[str] = []
    seqs, tokens = c[_SEQ], c[_TOK]
    qlen = 1 + spec.num_speculative_tokens(c)
    query_lens = spec.decode_query_lens(c)
    user_max, user_sizes = c[_MAX], c[_SIZES]
    legacy = user_max is not None or user_sizes is not None
    sm10x = capability_family(c, 10)
    uniform: list[int] = []
    max_size = user_max
    if max_size is None:
        ceiling = 1024 if sm10x else 512
        max_size = min(seqs * qlen * 2, ceiling)
        if qlen > 1:
            uniform = sorted({n * q for q, tier in query_lens.items() for n in _request_counts(tier, ceiling)
                              if n * q <= max_size})
        elif seqs <= max_size:
            uniform = [seqs]
    max_size = min(tokens, max_size)
    if max_size < 1:
        return Violation("Maximum cudagraph size should be greater than or equal to 1 when using cuda graph.",
                         error="AssertionError")
    if user_sizes is not None:
        if not user_sizes:
            return Violation("cudagraph_capture_sizes should contain at least one element when using cuda graph.",
                             error="AssertionError")
        sizes = sorted(s for s in set(user_sizes) if s <= tokens)
    else:
        if c["performance_mode"] == "interactivity":
            sizes = list(range(1, min(max_size, 32) + 1))
        else:
            sizes = [i for i in (1, 2, 4) if i <= max_size]
        if max_size >= 8:
            sizes += list(range(8, min(max_size + 1, 256), 8))
        if max_size >= 256:
            sizes += list(range(256, max_size + 1, 16))
        if tokens <= max_size and tokens not in sizes:
            sizes.append(tokens)
        sizes += [s for s in uniform if s <= tokens]
        sizes = sorted(set(sizes))
    valid_max = sizes[-1] if sizes else 0
    if user_max is not None and user_max != valid_max:
        if user_sizes is not None:
            return Violation(f"customized max_cudagraph_capture_size(={user_max}) should be consistent with the max "
                             f"value of cudagraph_capture_sizes(={valid_max})")
        warnings.append(f"Truncating max_cudagraph_capture_size to {valid_max}")
    if user_sizes is not None and len(sizes) < len(user_sizes):
        warnings.append(f"cudagraph_capture_sizes specified in compilation_config {list(user_sizes)} is overridden "
                        f"by config {sizes}")
    # _split_cudagraph_capture_sizes
    cc = {f: c[f"{_CC}.{f}"] for f in _SPLIT_FIELDS}
    prefill, max_prefill = cc["prefill_cudagraph_capture_token_sizes"], cc["max_prefill_cudagraph_capture_tokens"]
    decode, max_decode = cc["decode_cudagraph_capture_request_sizes"], cc["max_decode_cudagraph_capture_requests"]
    split = any(v is not None for v in cc.values())
    if legacy and not split:
        warnings.append("cudagraph_capture_sizes and max_cudagraph_capture_size are deprecated. Set the token counts "
                        "of prefill CUDA graphs with prefill_cudagraph_capture_token_sizes or "
                        "max_prefill_cudagraph_capture_tokens, and the request counts of decode CUDA graphs with "
                        "decode_cudagraph_capture_request_sizes or max_decode_cudagraph_capture_requests.")
    wide = not legacy and sm10x
    max_decode_tokens = c[f"{_CC}.max_decode_cudagraph_capture_tokens"]
    out: dict[str, Any] = {}
    if wide and max_decode_tokens is None:
        max_decode_tokens = 8192
        out[f"{_CC}.max_decode_cudagraph_capture_tokens"] = 8192

    def explicit(given: Any, limit: int, cap: int | None, name: str, cap_name: str) -> list[int]:
        kept = sorted({s for s in given if 1 <= s <= limit})
        if len(kept) < len(set(given)):
            warnings.append(f"Dropping {sorted(set(given) - set(kept))} from {name}: outside [1, {limit}].")
        if cap is not None and kept and kept[-1] > cap:
            errors.append(f"{name} holds {kept[-1]}, above {cap_name}={cap}.")
        return kept

    if prefill is not None:
        prefill = explicit(prefill, tokens, max_prefill, "prefill_cudagraph_capture_token_sizes",
                           "max_prefill_cudagraph_capture_tokens")
    elif max_prefill is not None or wide:
        prefill = prefill_grid(min(8192 if max_prefill is None else max_prefill, tokens),
                               c["performance_mode"] == "interactivity")
    else:
        prefill = list(sizes)
    if decode is not None:
        decode = explicit(decode, seqs, max_decode, "decode_cudagraph_capture_request_sizes",
                          "max_decode_cudagraph_capture_requests")
    elif max_decode is not None or wide:
        decode = decode_grid(seqs if max_decode is None else min(max_decode, seqs))
    else:
        decode = sorted({min(_cdiv(s, q), seqs) for s in sizes for q in query_lens if _cdiv(s, q) * q <= valid_max})
    if errors:
        return Violation(errors[0])
    decode_max_tokens = min(tokens, max_decode_tokens or tokens)
    token_sizes = {n * q for n, q in decode_shapes(decode, query_lens, decode_max_tokens)}
    if c[_SPEC] and qlen - 1 >= 2 and decode and c["speculative_config.method"] in (
            "eagle", "eagle3", "mtp", "draft_model") and not spec.multi_module_mtp(c):
        token_sizes.update(n for n, _ in decode_shapes(decode_grid(seqs), {1: seqs}, decode_max_tokens))
    if c[_SPEC] and c["speculative_config.enable_adaptive_verification"]:
        max_requests = max(decode, default=0)
        token_sizes.update(varlen_decode_grid(
            min(max_requests * qlen, tokens, max_decode_tokens or max_requests * qlen),
            c["performance_mode"] == "interactivity"))
    decode_tokens = set(token_sizes)
    token_sizes.update(prefill)
    if not (legacy and not split) and mode.mixed_mode() == CUDAGraphMode.NONE:
        token_sizes = set(decode_tokens)
    if legacy and split:
        if list(sizes) not in (sorted(decode_tokens | set(prefill)), sorted(decode_tokens)):
            return Violation("The deprecated cudagraph_capture_sizes and max_cudagraph_capture_size cannot be "
                             "combined with the prefill and decode CUDA graph capture sizes; set only the latter.")
        token_sizes = set(sizes)
    out.update({
        f"{_CC}.prefill_cudagraph_capture_token_sizes": tuple(prefill),
        f"{_CC}.max_prefill_cudagraph_capture_tokens": max(prefill, default=0),
        f"{_CC}.decode_cudagraph_capture_request_sizes": tuple(decode),
        f"{_CC}.max_decode_cudagraph_capture_requests": max(decode, default=0),
        _SIZES: tuple(sorted(token_sizes)), _MAX: max(token_sizes, default=0),
    })
    if not token_sizes:
        out[_CG] = CUDAGraphMode.NONE
        if not warnings:  # vLLM logs this one at info level (vllm/config/vllm.py:2734, info_once)
            return Outcome(out, message="No CUDA graph capture sizes are left; setting cudagraph_mode to NONE.",
                           level="info")
        warnings.append("No CUDA graph capture sizes are left; setting cudagraph_mode to NONE.")
    return Outcome(out, message="\n".join(warnings))

@rule(
    "compilation.blocked-fp8-adds-quant-fp8-early",
    title="Blocked FP8 weights enable the quant_fp8 custom op (first of vLLM's two appends)",
    phase="core",
    kind="override",
    reads=("quant_config", "quant_config.weight_block_size", "quant_config.method",
           "model_config.hf_config.quantization_config", _OPS),
    writes=(_OPS,),
    source=f"{_VLLM}.__post_init__ (before apply_config_platform_defaults); ref V-QUANT-FP8-OP, v0.34.0",
)
def blocked_fp8_adds_quant_fp8_early(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 appends '+quant_fp8' here and again at the end of __post_init__: the op can appear twice."""
    from postinit.rules.compilation import _blocked_weights

    ops = tuple(c[_OPS])
    if _blocked_weights(c) and "-quant_fp8" not in ops:
        return {_OPS: (*ops, "+quant_fp8")}
    return None


_AITER_SHARED_EXPERTS = ("VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS is enabled, which requires the 'grouped_topk' "
                         "custom op. Overriding the user-provided '-grouped_topk'.")


@rule(
    "rocm.config-platform-defaults",
    title="ROCm's platform defaults: the sparse-attention indexer op always, gated RMSNorm for unquantized models "
    "(and AITER's ops when AITER is on)",
    phase="core",
    kind="override",
    reads=(_KIND, _OPS, _MC, "model_config.quantization", "env.VLLM_BATCH_INVARIANT", "env.VLLM_ROCM_USE_AITER",
           "env.VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS", "platform.aiter_found", "platform.gcn_arch"),
    writes=(_OPS,),
    source="vllm/platforms/rocm.py RocmPlatform.apply_config_platform_defaults; ref P-DEFAULTS, v0.34.0",
)
def rocm_config_platform_defaults(c: Mapping[str, Any]) -> RuleResult:
    """Partial model: with AITER on, its FP8-linear and fused-MoE switches are taken as on (their env defaults).
    AITER's fused shared experts need the grouped_topk op: a '-grouped_topk' the user gave is dropped, with a
    warning (vllm/platforms/rocm.py:1163-1169)."""
    if c[_KIND] != "rocm":
        return None
    ops = list(c[_OPS])
    aiter = bool(_aiter(c))
    warning = None
    if aiter and "-quant_fp8" not in ops:
        ops.append("+quant_fp8")
    if c["env.VLLM_BATCH_INVARIANT"] and "-rms_norm" not in ops:
        ops.append("+rms_norm")
    if aiter and c["env.VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS"] and "-grouped_topk" in ops:
        ops.remove("-grouped_topk")
        warning = _AITER_SHARED_EXPERTS
    if aiter and "+grouped_topk" not in ops and "-grouped_topk" not in ops:
        ops.append("+grouped_topk")
    ops.append("+sparse_attn_indexer")
    if c[_MC] is not None and c["model_config.quantization"] is None and "+rms_norm_gated" not in ops \
            and "-rms_norm_gated" not in ops:
        ops.append("+rms_norm_gated")
    if warning is not None:
        return Outcome({_OPS: tuple(ops)}, message=warning, level="warning")
    return {_OPS: tuple(ops)}


_PASS_FIELDS = ("fuse_norm_quant", "fuse_act_quant", "fuse_attn_quant", "eliminate_noops", "fuse_allreduce_rms",
                "enable_qk_norm_rope_fusion", "fuse_rope_kvcache_cat_mla", "fuse_act_padding", "fuse_mla_dual_rms_norm",
                "fuse_rope_kvcache", "fuse_qk_norm_rope_kvcache", "rope_kvcache_fusion_max_token_num",
                "fi_allreduce_fusion_max_size_mb")
"""PassConfig's fields in declaration order (vllm/config/compilation.py)."""


@rule(
    "compilation.log-enabled-passes",
    title="The enabled fusion passes are logged",
    phase="validate",
    kind="check",
    reads=tuple(f"{_PC}.{f}" for f in _PASS_FIELDS),
    source="vllm/config/compilation.py PassConfig.log_enabled_passes (end of VllmConfig.__post_init__); "
    "ref V-LOG-PASSES, v0.34.0",
    message="Enabled custom fusions: <names>",
    level="info",
)
def log_enabled_passes(c: Mapping[str, Any]) -> RuleResult:
    """Every truthy fuse_* / enable_* field, its prefix dropped, in declaration order."""
    names = [f.removeprefix("fuse_").removeprefix("enable_") for f in _PASS_FIELDS
             if f.startswith(("fuse_", "enable_")) and c[f"{_PC}.{f}"]]
    return Outcome(message=f"Enabled custom fusions: {', '.join(names)}") if names else None


@rule(
    "platform.mm-prefix-disables-chunked-mm-input",
    title="CUDA and ROCm prefill a multimodal item whole for a model with bidirectional attention over it",
    phase="platform",
    kind="override",
    reads=(_KIND, _MC, "model_config.is_mm_prefix_lm", "scheduler_config.is_multimodal_model",
           "scheduler_config.disable_chunked_mm_input"),
    writes=("scheduler_config.disable_chunked_mm_input",),
    source="vllm/platforms/cuda.py CudaPlatformBase.check_and_update_config (:374-386), vllm/platforms/rocm.py "
    "RocmPlatform.check_and_update_config (:1216-1228); ref P-CHECK, v0.34.0",
    message="Forcing --disable_chunked_mm_input for models with multimodal-bidirectional attention.",
    level="warning",
)
def mm_prefix_disables_chunked_mm_input(c: Mapping[str, Any]) -> RuleResult:
    """An image attended bidirectionally must be in one prefill chunk."""
    if c[_KIND] not in ("cuda", "rocm") or c[_MC] is None or not c["model_config.is_mm_prefix_lm"] \
            or not c["scheduler_config.is_multimodal_model"] or c["scheduler_config.disable_chunked_mm_input"]:
        return None
    return Outcome.log({"scheduler_config.disable_chunked_mm_input": True})


_DEEPGEMM_BLACKWELL_EXCLUDED = {"qwen3_5_text": (100, 120), "qwen3_5_moe_text": (100, 120), "kolibri1": (120,)}
"""``_DEEPGEMM_BLACKWELL_EXCLUDED_MODEL_TYPES`` of vLLM 0.34.0 (vllm/utils/deep_gemm.py:31-37): model type -> the
device capability families DeepGEMM is turned off on."""
_FP8_CONFIG_CLASSES = ("Fp8Config", "W4AFP8Config", "DeepseekV4FP8Config")
"""The quantization config classes with a ``use_deep_gemm`` attribute (Fp8Config and its subclasses)."""


@rule(
    "vllm.deep-gemm-auto-disable",
    title="DeepGEMM is turned off for the model types it hurts on Blackwell (an FP8 checkpoint's config)",
    phase="verify",
    kind="check",
    reads=("quant_config", "quant_config.class_name", "model_config", "model_config.hf_text_config.model_type",
           "platform.capability"),
    after=("verify.quant-config",),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1570-1585), should_auto_disable_deep_gemm "
    "(vllm/utils/deep_gemm.py:46-57); ref v0.34.0",
    message="Auto-disabled DeepGemm for model_type=<type> on Blackwell. To disable DeepGemm globally, set "
    "VLLM_USE_DEEP_GEMM=0.",
    level="warning",
)
def deep_gemm_auto_disable(c: Mapping[str, Any]) -> RuleResult:
    """Only a quantization config that has ``use_deep_gemm`` (still None: nothing set it before) is changed;
    ``is_device_capability_family(f)`` compares the capability's tens (10.x, 12.x)."""
    if not c["quant_config"] or not c["model_config"] or c["quant_config.class_name"] not in _FP8_CONFIG_CLASSES:
        return None
    model_type = c["model_config.hf_text_config.model_type"]
    cap = c["platform.capability"]
    families = _DEEPGEMM_BLACKWELL_EXCLUDED.get(model_type, ()) if isinstance(model_type, str) else ()
    if cap is None or not any(cap // 10 == f // 10 for f in families):
        return None
    return Outcome(message=f"Auto-disabled DeepGemm for model_type={model_type} on Blackwell. To disable DeepGemm "
                   "globally, set VLLM_USE_DEEP_GEMM=0.")


@rule(
    "model.is-quantized",
    title="A checkpoint with a quantization_config is quantized",
    phase="model_config",
    kind="derive",
    reads=(_MC, "model_config.hf_config.quantization_config", "model_config.hf_config.text_config",
           "model_config.hf_text_config.quantization_config"),
    writes=("model_config.is_quantized",),
    source="vllm/config/model.py ModelConfig.is_quantized (ModelArchConfigConvertorBase.get_quantization_config: "
    "vllm/transformers_utils/model_arch_config_convertor.py:285-292); ref v0.34.0",
)
def model_is_quantized(c: Mapping[str, Any]) -> RuleResult:
    """``model_arch_config.quantization_config is not None`` (the checkpoint's, not --quantization): the config's,
    else, for a config with a ``text_config``, the text config's (a multimodal model's)."""
    if c[_MC] is None:
        return None
    if c["model_config.hf_config.quantization_config"] is None and (
            c["model_config.hf_config.text_config"] is None
            or c["model_config.hf_text_config.quantization_config"] is None):
        return None
    return {"model_config.is_quantized": True}


def _level_refusal(value: Any) -> str:
    """pydantic's text for a VllmConfig whose ``optimization_level`` is not one of OptimizationLevel's values."""
    from pydantic import ValidationError

    return str(ValidationError.from_exception_data("VllmConfig", [{
        "type": "enum", "loc": ("optimization_level",), "input": value, "ctx": {"expected": "0, 1, 2 or 3"}}]))


@rule(
    "vllm.optimization-level",
    title="The optimization level is one of 0, 1, 2, 3 (pydantic refuses VllmConfig otherwise)",
    phase="model",
    kind="check",
    reads=(_LEVEL,),
    source=f"{_VLLM} (field optimization_level: OptimizationLevel, vllm/config/vllm.py:483), validated when "
    "create_engine_config builds VllmConfig (vllm/engine/arg_utils.py:2920); ref step-1, v0.34.0",
    message="1 validation error for VllmConfig\noptimization_level\n  Input should be 0, 1, 2 or 3 [type=enum, "
    "input_value=<value>, input_type=<type>]",
)
def optimization_level(c: Mapping[str, Any]) -> RuleResult:
    """``-O`` is the level in 0.34.0, typed as text by the parser: ``-O.mode=3`` (a 0.11 spelling) reaches
    VllmConfig as the level ``".mode=3"``, refused after every sub-config was built."""
    value = c[_LEVEL]
    if isinstance(value, int) and value in (0, 1, 2, 3):
        return None
    return Violation(_level_refusal(value), error="ValidationError")


@rule(
    "vllm.performance-mode",
    title="A performance mode other than balanced is announced",
    phase="model",
    kind="check",
    reads=("performance_mode",),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1477-1478, before the model hooks of "
    "try_verify_and_update_config); ref step-1, V-PERF-MODE, v0.34.0",
    message="Performance mode set to '{mode}'.",
    level="info",
)
def performance_mode(c: Mapping[str, Any]) -> RuleResult:
    """The mode also changes the capture sizes (interactivity) and the EngineArgs budgets (throughput)."""
    mode = c["performance_mode"]
    return Outcome.log(mode=mode) if mode != "balanced" else None



_KVC = "kv_transfer_config.kv_connector"


_CONNECTORS = frozenset({
    "ExampleConnector", "ExampleHiddenStatesConnector", "LMCacheConnectorV1", "LMCacheMPConnector", "NixlConnector",
    "NixlPullConnector", "NixlPushConnector", "MultiConnector", "HiSparseConnector", "MoRIIOConnector",
    "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "MooncakeStoreConnector",
    "UMBPStoreConnector", "FlexKVConnectorV1", "SimpleCPUOffloadConnector", "HF3FSKVConnector",
})
"""The connectors ``KVConnectorFactory`` registers in vllm==0.34.0 (kv_connector/factory.py:176-277; no
``SharedStorageConnector``: renamed ``ExampleConnector``)."""

_HMA_CONNECTORS = frozenset({
    "MultiConnector", "ExampleHiddenStatesConnector", "MooncakeConnector", "MooncakeStoreConnector",
    "MoRIIOConnector", "SimpleCPUOffloadConnector", "HiSparseConnector", "OffloadingConnector",
    "UMBPStoreConnector", "DecodeBenchConnector", "NixlPullConnector", "NixlPushConnector",
})
"""The connector classes that implement ``SupportsHMA`` in vllm==0.34.0 (kv_connector/v1/*.py)."""

_REGISTERS = frozenset({"MooncakeConnector", "MooncakeStoreConnector", "MoRIIOConnector", "UMBPStoreConnector"})
"""Connectors whose ``kv_cache_access`` is ``REGISTERS`` (they register the KV cache with an RDMA engine)."""


class _Connector(NamedTuple):
    """One configured KV connector as vLLM's factory resolves it (a MultiConnector's children each)."""

    name: str
    """The class the factory returns (``NixlConnector`` is ``NixlPullConnector`` or ``NixlPushConnector``)."""
    extra: Mapping[str, Any]
    buffer_device: str | None


def _connector(name: Any, extra: Any, device: Any, external: bool) -> _Connector | Violation:
    """``KVConnectorFactory.get_connector_class`` (factory.py:96): an unregistered name is an error."""
    extra = extra if isinstance(extra, Mapping) else {}
    if name is None:
        return Violation("Connector name is not set in KVTransferConfig")
    if external:
        return _Connector(str(name), extra, device)
    if name not in _CONNECTORS:
        return Violation(f"Unsupported connector type: {name}")
    if name == "NixlConnector":
        mode = extra.get("transfer_mode", "pull")
        if mode not in ("pull", "push"):
            return Violation(f"Invalid NixlConnector transfer_mode: {mode!r}")
        name = f"Nixl{str(mode).capitalize()}Connector"
    return _Connector(str(name), extra, device)


def _connectors(c: Mapping[str, Any]) -> tuple[_Connector, list[_Connector]] | Violation:
    """The configured connector and its children (MultiConnector's ``connectors``; itself otherwise)."""
    top = _connector(c[_KVC], c[f"{_KVT}.kv_connector_extra_config"], c[f"{_KVT}.kv_buffer_device"],
                     bool(c["kv_transfer_config.kv_connector_module_path"]))
    if isinstance(top, Violation):
        return top
    if top.name != "MultiConnector":
        return top, [top]
    children: list[_Connector] = []
    for child in top.extra.get("connectors", ()) or ():
        child = child if isinstance(child, Mapping) else {}
        one = _connector(child.get("kv_connector"), child.get("kv_connector_extra_config", {}),
                         child.get("kv_buffer_device", c["platform.device_type"]),
                         bool(child.get("kv_connector_module_path")))
        if isinstance(one, Violation):
            return one
        children.append(one)
    return top, children


def _access(conn: _Connector) -> set[str]:
    """``kv_cache_access`` of one connector class (KVCacheAccess flags by name)."""
    if conn.name in ("NixlPullConnector", "NixlPushConnector"):
        return set() if conn.buffer_device == "cpu" else {"REGISTERS", "EXPORTS_FABRIC"}
    if conn.name in _REGISTERS:
        return {"REGISTERS"}
    if conn.name == "LMCacheMPConnector":
        return {"LEGACY_IPC"}
    return set()


def _requires_piecewise(conn: _Connector, children: list[_Connector]) -> bool:
    """``requires_piecewise_for_cudagraph``: LMCache's layerwise mode (MultiConnector: any child's)."""
    if conn.name == "MultiConnector":
        return any(_requires_piecewise(child, []) for child in children)
    return conn.name == "LMCacheConnectorV1" and bool(conn.extra.get("use_layerwise", False))


def _supports_hma(conn: _Connector, children: list[_Connector]) -> bool:
    """``KVConnectorFactory.supports_hma_config``: MultiConnector needs children, all of them supporting it."""
    if conn.name == "MultiConnector":
        return bool(children) and all(child.name in _HMA_CONNECTORS for child in children)
    return conn.name in _HMA_CONNECTORS


def _supports_sleep(conn: _Connector, children: list[_Connector]) -> bool:
    """``supports_sleep_mode``: push NIXL and MoRIIO do not; pull NIXL only over UCX; Mooncake only over RDMA
    (its MC_* variables are taken as unset)."""
    if conn.name == "MultiConnector":
        return bool(children) and all(_supports_sleep(child, []) for child in children)
    if conn.name in ("NixlPushConnector", "MoRIIOConnector"):
        return False
    if conn.name == "NixlPullConnector":
        return list(conn.extra.get("backends", ["UCX"])) == ["UCX"]
    if conn.name == "MooncakeConnector":
        return bool(conn.extra.get("mooncake_protocol", "rdma") == "rdma")
    return True


_KVT_READS = (_KVT, _KVC, f"{_KVT}.kv_connector_extra_config", f"{_KVT}.kv_buffer_device",
              "kv_transfer_config.kv_connector_module_path", "platform.device_type")


@rule(
    "kv-transfer.connector-class-for-graphs",
    title="A KV connector with layerwise async operations forces PIECEWISE CUDA graphs",
    phase="core",
    kind="override",
    reads=(*_KVT_READS, "kv_transfer_config.kv_role", _CG, _STATIC),
    writes=(_CG,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1892-1919), KVConnectorFactory.get_connector_class "
    "(kv_connector/factory.py:96), requires_piecewise_for_cudagraph (v1/lmcache_connector.py:70, "
    "v1/multi_connector.py:143); ref V-KV-CONNECTOR-PIECEWISE, v0.34.0",
    message="KV connector <cls> requires PIECEWISE CUDA graph mode due to layerwise async operations that cannot "
    "be captured in CUDA graphs. Overriding cudagraph_mode from <mode> to PIECEWISE.",
    level="warning",
)
def connector_class_for_graphs(c: Mapping[str, Any]) -> RuleResult:
    """Only a KV-transfer instance (a connector and a role) with full graphs looks its class up; an unknown
    connector name fails here."""
    mode = c[_CG]
    if not c[_STATIC] or not c[_KVT] or c[_KVC] is None or c["kv_transfer_config.kv_role"] is None \
            or mode is None or not mode.has_full_cudagraphs():
        return None
    found = _connectors(c)
    if isinstance(found, Violation):
        return found
    conn, children = found
    if not _requires_piecewise(conn, children):
        return None
    return Outcome({_CG: CUDAGraphMode.PIECEWISE}, message=f"KV connector {conn.name} requires PIECEWISE CUDA graph "
                   "mode due to layerwise async operations that cannot be captured in CUDA graphs. Overriding "
                   f"cudagraph_mode from {mode.name} to PIECEWISE.")


def _imports_nixl(c: Mapping[str, Any]) -> bool:
    """Whether looking the configured connector up imports vLLM's NIXL connector package (a built-in Nixl*
    connector, itself or as a MultiConnector child): its worker module loads ``vllm.distributed.nixl_utils``'
    ``NixlWrapper`` and ``nixl_agent_config`` at import (kv_connector/v1/nixl/base_worker.py:71)."""
    if not c[_KVT] or c[_KVC] is None or c["kv_transfer_config.kv_connector_module_path"]:
        return False
    found = _connectors(c)
    if isinstance(found, Violation):
        return False
    conn, children = found
    return any(one.name.startswith("Nixl") for one in (conn, *children))


_NIXL_READS = _KVT_READS


@rule(
    "kv-transfer.nixl-ucx-rcache",
    title="Importing the NIXL connector caps UCX's unreleased registration cache",
    phase="finalize",
    kind="check",
    reads=_NIXL_READS,
    source="vllm/distributed/nixl_utils.py _maybe_set_ucx_rcache_limit (:21-37), called by _load_nixl_attr on the "
    "first NixlWrapper / nixl_agent_config lookup; ref V-EXTENSIBLE-KV, v0.34.0",
    message="Setting UCX_RCACHE_MAX_UNRELEASED to '1024' to avoid a rare memory leak in UCX when using NIXL.",
    level="info",
)
def nixl_ucx_rcache(c: Mapping[str, Any]) -> RuleResult:
    """The connector class is first looked up by the extensible-KV-cache step (every configured connector; earlier
    lookups, for full CUDA graphs or lookahead hashes, import the same module once). vLLM sets the variable in its
    own process unless the user did (postinit reads no UCX_* variable: taken as unset)."""
    return Outcome.log() if _imports_nixl(c) else None


@rule(
    "kv-transfer.nixl-unavailable",
    title="Importing the NIXL connector without the nixl package warns that NIXL is missing",
    phase="finalize",
    kind="check",
    reads=_NIXL_READS,
    after=("kv-transfer.nixl-ucx-rcache",),
    source="vllm/distributed/nixl_utils.py _load_nixl_attr (:51-79): the nixl (ROCm: nixl_rocm) package's _api "
    "module cannot be imported; ref V-EXTENSIBLE-KV, v0.34.0",
    message="NIXL is not available\nNIXL agent config is not available",
    level="warning",
)
def nixl_unavailable(c: Mapping[str, Any]) -> RuleResult:
    """postinit takes the NIXL package as absent (the oracle's environment, as for the IMEX channel): both lazy
    attributes the worker module imports resolve to None, each with a warning."""
    return Outcome.log() if _imports_nixl(c) else None


_EXTENSIBLE = "cache_config.enable_extensible_kv_cache"
_NO_IMEX = ("Extensible KV cache off: without an IMEX channel, KV transfers within a host (e.g. NIXL) would lose "
            "NVLink and fall back to RDMA or TCP. If transfers only cross hosts, pass --enable-extensible-kv-cache.")


@rule(
    "cache.extensible-kv-cache",
    title="The extensible KV cache is on where supported (CUDA/ROCm, measured memory, no elastic EP, connectors "
    "that can use driver-mapped memory, an IMEX channel for FABRIC exports)",
    phase="finalize",
    kind="default",
    reads=(_EXTENSIBLE, "platform.is_cuda_alike", _KIND, "cache_config.kv_cache_memory_bytes",
           "cache_config.num_gpu_blocks_override", "parallel_config.enable_elastic_ep", *_KVT_READS),
    writes=(_EXTENSIBLE,),
    source=f"{_VLLM}._resolve_extensible_kv_cache (vllm/config/vllm.py:3180, called at :2006), "
    "KVCacheAccess (vllm/config/kv_transfer.py:50); ref V-EXTENSIBLE-KV, v0.34.0",
    message=_NO_IMEX,
    level="info",
)
def extensible_kv_cache(c: Mapping[str, Any]) -> RuleResult:
    """Connectors that export the cache through FABRIC handles (NIXL on the GPU) need an IMEX channel, which
    postinit takes as absent (the oracle's environment): the default is then off, with vLLM's info record.
    An unknown connector name fails here (the connector class is looked up)."""
    access: set[str] = set()
    custom_pool = False
    if c[_KVT] and c[_KVC] is not None:
        found = _connectors(c)
        if isinstance(found, Violation):
            return found
        conn, children = found
        for child in children:
            access |= _access(child)
        pools = [conn.extra, *(child.extra for child in children if conn.name == "MultiConnector")]
        custom_pool = any(pool.get("custom_mem_pool") for pool in pools)
    unsupported = None
    if not c["platform.is_cuda_alike"]:
        unsupported = "it is only supported on CUDA and ROCm"
    elif c["cache_config.kv_cache_memory_bytes"] is not None:
        unsupported = "it sizes the KV cache from measured memory, which kv_cache_memory_bytes overrides"
    elif c["cache_config.num_gpu_blocks_override"] is not None:
        unsupported = "it sizes the KV cache from measured memory, which num_gpu_blocks_override overrides"
    elif c["parallel_config.enable_elastic_ep"]:
        unsupported = ("elastic EP scale-up skips warmup and reuses the profiled KV cache size, so no measurement "
                       "would size the cache")
    elif "LEGACY_IPC" in access:
        unsupported = ("a KV connector (e.g. LMCacheMPConnector) shares the KV cache through legacy CUDA IPC, which "
                       "cannot export driver-mapped memory")
    elif custom_pool:
        unsupported = ("custom_mem_pool allocates the KV cache from a connector's memory pool, which a driver-mapped "
                       "cache cannot use")
    elif c[_KIND] == "rocm" and access & {"REGISTERS", "EXPORTS_FD", "EXPORTS_FABRIC"}:
        unsupported = ("on ROCm, UCX and RDMA cannot yet register driver-mapped memory, which connectors that "
                       "register the KV cache (e.g. NIXL, Mooncake, MoRIIO, UMBP) require")
    no_imex = "EXPORTS_FABRIC" in access
    requested = c[_EXTENSIBLE]
    if requested is None:
        enabled = unsupported is None and not no_imex
        message = _NO_IMEX if unsupported is None and not enabled else ""
        return Outcome({_EXTENSIBLE: enabled}, message=message)
    if requested and unsupported is not None:
        return Violation(f"enable_extensible_kv_cache: {unsupported}.")
    if requested and no_imex:
        return Outcome(message="No IMEX channel: with the extensible KV cache, KV transfers within a host (e.g. NIXL) "
                               "fall back to TCP. Transfers across hosts use RDMA.", level="warning")
    return None


@rule(
    "scheduler.diffusion-scheduler",
    title="A diffusion model runs the diffusion scheduler (its async variant under async scheduling)",
    phase="finalize",
    kind="default",
    reads=("diffusion_config", "scheduler_config.scheduler_cls", _ASYNC),
    writes=("scheduler_config.scheduler_cls",),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1981-1993, after the platform hook); ref v0.34.0",
)
def diffusion_scheduler(c: Mapping[str, Any]) -> RuleResult:
    """Denoising a canvas block is scheduled like a speculative step; after the platform hook, which has the last
    word on async scheduling, so the class matches it. A scheduler class the user named is kept."""
    if not c["diffusion_config"] or c["scheduler_config.scheduler_cls"] is not None:
        return None
    name = "DiffusionAsyncScheduler" if c[_ASYNC] else "DiffusionScheduler"
    return {"scheduler_config.scheduler_cls": f"vllm.v1.core.sched.diffusion_scheduler.{name}"}


@rule(
    "cudagraph.stock-compile-disables",
    title="Stock torch.compile (mode 2) captures no CUDA graphs",
    phase="finalize",
    kind="override",
    reads=(_MODE, _CG),
    writes=(_CG, _MAX, _SIZES),
    source=f"{_VLLM}._disable_cudagraphs_for_stock_torch_compile (vllm/config/vllm.py:3439, called at :2004); "
    "ref V-STOCK-COMPILE-CG, v0.34.0",
    message="CUDA graphs are not supported with stock torch.compile. Overriding cudagraph_mode <mode> to NONE.",
    level="info",
)
def stock_compile_disables(c: Mapping[str, Any]) -> RuleResult:
    """The CUDA graph manager would otherwise capture around the stock-compiled model."""
    mode = c[_CG]
    if c[_MODE] != CompilationMode.STOCK_TORCH_COMPILE or mode is None or mode == CUDAGraphMode.NONE:
        return None
    return Outcome({_CG: CUDAGraphMode.NONE, _MAX: 0, _SIZES: ()},
                   message=f"CUDA graphs are not supported with stock torch.compile. Overriding cudagraph_mode "
                           f"{mode.name} to NONE.")


def _mm_encoder_only(c: Mapping[str, Any]) -> bool:
    """``VllmConfig.is_mm_encoder_only`` (vllm/config/vllm.py:551)."""
    mm = c["model_config.multimodal_config"] if c[_MC] is not None else None
    return bool(isinstance(mm, Mapping) and mm.get("mm_encoder_only"))


_RUNNER_READS = (_EXEC, "parallel_config.pipeline_parallel_size", "parallel_config.enable_dbo",
                 "parallel_config.ubatch_size", "lora_config", _PCP, _MC, "model_config.is_multimodal_model",
                 "model_config.is_encoder_decoder", "model_config.is_hybrid", "model_config.multimodal_config", _CG,
                 _KIND, "platform.triton_available", "platform.cpu_arch", _SPEC, "model_config.enable_prompt_embeds",
                 "model_config.logits_processors", _DCP, "parallel_config.enable_batch_sharded_sampling",
                 "parallel_config.enable_eplb", "aux_output_config.enable_return_routed_experts",
                 "lora_config.enable_tower_connector_lora")


@rule(
    "vllm.model-runner",
    title="The model runner refuses what it cannot run (PP under external_launcher, what DBO cannot split; the "
    "standalone CPU runner's own list)",
    phase="finalize",
    kind="check",
    reads=_RUNNER_READS,
    source=f"{_VLLM}._validate_model_runner (vllm/config/vllm.py:3457, called at :2005), "
    "_get_model_runner_unsupported_features (:3123), _get_dbo_unsupported_features (:3378), "
    "_get_standalone_cpu_model_runner_unsupported_features (:3139); ref V-MODEL-RUNNER, v0.34.0",
    message="The GPU model runner does not support: <features>",
)
def model_runner(c: Mapping[str, Any]) -> RuleResult:
    """One ValueError listing every unsupported feature. The standalone CPU runner is the one of non-x86 CPUs
    without Triton (``CpuPlatform.uses_standalone_cpu_model_runner``, platforms/cpu.py:652)."""
    unsupported: list[str] = []
    pp = c["parallel_config.pipeline_parallel_size"]
    if c[_EXEC] == "external_launcher" and pp > 1:
        unsupported.append("pipeline parallelism with external_launcher")
    ubatching = bool(c["parallel_config.enable_dbo"]) or c["parallel_config.ubatch_size"] > 1
    model = c[_MC] is not None
    if ubatching:
        if c["lora_config"]:
            unsupported.append("dual batch overlap with LoRA")
        if pp > 1:
            unsupported.append("dual batch overlap with pipeline parallelism")
        if c[_PCP] > 1:
            unsupported.append("dual batch overlap with prefill context parallelism")
        if model and (c["model_config.is_multimodal_model"] or c["model_config.is_encoder_decoder"]):
            unsupported.append("dual batch overlap with multimodal models")
        if model and c["model_config.is_hybrid"]:
            unsupported.append("dual batch overlap with hybrid models")
        if c[_CG] == CUDAGraphMode.PIECEWISE:
            unsupported.append("dual batch overlap with PIECEWISE CUDA graphs")
        if _mm_encoder_only(c):
            unsupported.append("dual batch overlap with encoder only models")
    if unsupported:
        return Violation(f"The GPU model runner does not support: {', '.join(unsupported)}")
    if c[_KIND] != "cpu" or c["platform.triton_available"] or c["platform.cpu_arch"] == "x86_64":
        return None
    checks = (
        (_mm_encoder_only(c), "multimodal encoder-only instances"),
        (bool(c[_SPEC]), "speculative decoding"),
        (model and c["model_config.enable_prompt_embeds"], "prompt embeddings"),
        (model and bool(c["model_config.logits_processors"]), "custom logits processors"),
        (c[_DCP] > 1, "decode context parallelism"),
        (c[_PCP] > 1, "prefill context parallelism"),
        (bool(c["parallel_config.enable_batch_sharded_sampling"]), "batch-sharded sampling"),
        (ubatching, "microbatching"),
        (bool(c["parallel_config.enable_eplb"]), "expert parallel load balancing"),
        (bool(c["aux_output_config.enable_return_routed_experts"]), "routed-expert auxiliary outputs"),
        (bool(c["lora_config"]) and bool(c["lora_config.enable_tower_connector_lora"]),
         "multimodal tower and connector LoRA"),
    )
    cpu = [name for hit, name in checks if hit]
    if cpu:
        return Violation(f"The CPU model runner without Triton does not yet support: {', '.join(cpu)}")
    return None


_PROF = "profiler_config."


@rule(
    "profiler.proton-checks",
    title="The Proton profiler needs CUDA, and with CUDA graphs graph attribution and no PC sampling",
    phase="finalize",
    kind="check",
    reads=(f"{_PROF}profiler", _KIND, _CG, f"{_CC}.cudagraph_mm_encoder", _MC, _EAGER, f"{_PROF}proton_mode",
           f"{_PROF}proton_graph_attribution"),
    source=f"{_VLLM}._validate_profiler_config (vllm/config/vllm.py:3410, called at :2008); ref V-PROFILER, v0.34.0",
    message="The Proton profiler currently supports NVIDIA CUDA only",
)
def proton_checks(c: Mapping[str, Any]) -> RuleResult:
    """Replayed graph kernels are only seen with graph attribution; PC sampling cannot run under graphs."""
    if c[f"{_PROF}profiler"] != "proton":
        return None
    if c[_KIND] != "cuda":
        return Violation("The Proton profiler currently supports NVIDIA CUDA only")
    eager = c[_MC] is not None and c[_EAGER]
    if not (c[_CG] != CUDAGraphMode.NONE or (c[f"{_CC}.cudagraph_mm_encoder"] and not eager)):
        return None
    mode = c[f"{_PROF}proton_mode"]
    if mode and str(mode).split(":", 1)[0].lower() == "pcsampling":
        return Violation("Proton PC sampling requires CUDA graphs to be disabled. Use --enforce-eager.")
    if not c[f"{_PROF}proton_graph_attribution"]:
        return Violation("Proton profiling with CUDA graphs requires proton_graph_attribution=True to capture "
                         "replayed kernels. Enable attribution or use --enforce-eager.")
    return None


@rule(
    "parallel.batch-sharded-sampling-default",
    title="Batch-sharded sampling is off unless asked for; asked for, it needs TP > 1 and enough sequences",
    phase="finalize",
    kind="default",
    reads=("parallel_config.enable_batch_sharded_sampling", _TP, _SEQ, _MC, "model_config.max_logprobs",
           "model_config.return_sampling_mask"),
    writes=("parallel_config.enable_batch_sharded_sampling",),
    source=f"{_VLLM}._validate_batch_sharded_sampling (vllm/config/vllm.py:3316, called at :2009); "
    "ref V-BATCH-SHARDED-SAMPLING, v0.34.0",
    message="Batch-sharded sampling was explicitly enabled via the --enable-batch-sharded-sampling flag, but is not "
    "supported in this configuration for the following reason(s): <reasons>.",
)
def batch_sharded_sampling_default(c: Mapping[str, Any]) -> RuleResult:
    """Requests are assigned to ranks whole; the logprobs gather has a fixed width; masks are not gathered."""
    if not c["parallel_config.enable_batch_sharded_sampling"]:
        return Outcome({"parallel_config.enable_batch_sharded_sampling": False}, message="")
    blockers: list[str] = []
    tp, seqs = c[_TP], c[_SEQ]
    if tp <= 1:
        blockers.append("tensor_parallel_size is 1, so there is nothing to shard")
    elif seqs < tp:
        blockers.append(f"max_num_seqs ({seqs}) is below tensor_parallel_size ({tp})")
    if c[_MC] is not None and c["model_config.max_logprobs"] < 0:
        blockers.append("max_logprobs is -1, allowing vocab-size logprob requests")
    if c[_MC] is not None and c["model_config.return_sampling_mask"]:
        blockers.append("return_sampling_mask is set and the batch-sharded gather does not forward sampling masks")
    if blockers:
        return Violation("Batch-sharded sampling was explicitly enabled via the --enable-batch-sharded-sampling flag, "
                         "but is not supported in this configuration for the following reason(s): "
                         f"{'; '.join(blockers)}.")
    return None


@rule(
    "speculative.adaptive-verification",
    title="Adaptive verification needs full CUDA graphs with decode graphs, and no LoRA or pipeline parallelism",
    phase="finalize",
    kind="check",
    reads=(_SPEC, "speculative_config.enable_adaptive_verification", "lora_config", _CG,
           f"{_CC}.decode_cudagraph_capture_request_sizes", "parallel_config.pipeline_parallel_size"),
    source=f"{_VLLM}._validate_adaptive_verification (vllm/config/vllm.py:3271, called at :2010); "
    "ref V-ADAPTIVE-VERIFY, v0.34.0",
    message="Adaptive verification is not currently compatible with LoRA",
)
def adaptive_verification(c: Mapping[str, Any]) -> RuleResult:
    """Its step costs are profiled by replaying the decode graphs."""
    if not c[_SPEC] or not c["speculative_config.enable_adaptive_verification"]:
        return None
    if c["lora_config"]:
        return Violation("Adaptive verification is not currently compatible with LoRA")
    mode = c[_CG]
    if mode is None or not mode.has_full_cudagraphs():
        return Violation("Adaptive verification requires full CUDA graphs. Use cudagraph mode FULL, FULL_DECODE_ONLY, "
                         "or FULL_AND_PIECEWISE, or disable adaptive verification.")
    decode = c[f"{_CC}.decode_cudagraph_capture_request_sizes"]
    if decode is not None and not decode and mode.separate_routine() and mode.decode_mode() == CUDAGraphMode.FULL:
        return Violation("Adaptive verification needs decode CUDA graphs, but decode_cudagraph_capture_request_sizes "
                         "is empty. Capture decode graphs, or disable adaptive verification (e.g. on a prefill-only "
                         "kv_producer instance, which never verifies drafts).")
    if c["parallel_config.pipeline_parallel_size"] > 1:
        return Violation("Adaptive verification is not currently compatible with pipeline parallelism")
    return None


FI_ALLREDUCE_FUSION_MAX_SIZE_MB: Mapping[int, Mapping[int, float]] = {
    90: {2: 64, 4: 2, 8: 0.5},
    100: {2: 64, 4: 32, 8: 1, 16: 64},
    103: {2: 64, 4: 64, 8: 4, 16: 64},
    107: {2: 64, 4: 64, 8: 2},
}
"""FlashInfer's fused all-reduce size limits (MB) per capability and world size
(vllm/compilation/passes/fusion/allreduce_rms_fusion.py:104)."""


def _flashinfer_max_size(c: Mapping[str, Any]) -> int | None:
    """``PassConfig.flashinfer_max_size(tp)`` (vllm/config/compilation.py:258), bytes."""
    tp = c[_TP]
    if tp not in (2, 4, 8, 16):
        return None
    mb = c[f"{_PC}.fi_allreduce_fusion_max_size_mb"]
    if mb is None:
        table = FI_ALLREDUCE_FUSION_MAX_SIZE_MB.get(c["platform.capability"] or -1, {}) if c[_KIND] == "cuda" else {}
        mb = table.get(tp)
    return int(mb * 1024 * 1024) if mb is not None else None


AITER_CUSTOM_AR_MAX_SIZE = 8192 * 1024 * 8 * 2 // 2
"""``AiterCustomAllreduce.effective_max_size()``: half its MAX_SIZE, in bytes."""


@rule(
    "compilation.compile-ranges",
    title="Compile ranges end at the token budget, with the fusions' token limits and the user's endpoints below it",
    phase="finalize",
    kind="derive",
    reads=(_TOK, f"{_PC}.fuse_allreduce_rms", f"{_PC}.fuse_rope_kvcache", f"{_PC}.fuse_qk_norm_rope_kvcache",
           f"{_PC}.rope_kvcache_fusion_max_token_num", f"{_CC}.compile_ranges_endpoints", _TP, _KIND,
           "platform.capability", f"{_PC}.fi_allreduce_fusion_max_size_mb", _MC, _HT + "hidden_size",
           "model_config.dtype", "platform.aiter_found", "platform.gcn_arch", "env.VLLM_ROCM_USE_AITER",
           "env.VLLM_ROCM_USE_AITER_CUSTOM_AR"),
    writes=(f"{_CC}.compile_ranges_endpoints",),
    source=f"{_VLLM}._set_compile_ranges (vllm/config/vllm.py:2739, called at :2014); ref V-COMPILE-RANGES, v0.34.0",
    message="<the fusion-threshold debug records>",
    level="debug",
)
def compile_ranges(c: Mapping[str, Any]) -> RuleResult:
    """The all-reduce + RMSNorm fusion stops at FlashInfer's size limit (``max_size // (hidden x dtype bytes)``
    tokens), or on ROCm with AITER's custom all-reduce at its limit (``AiterCustomAllreduce.effective_max_size()``,
    vllm/distributed/device_communicators/aiter_custom_all_reduce.py:21-26); the RoPE + KV cache fusions at
    rope_kvcache_fusion_max_token_num."""
    from postinit.rules.models import dtype_bytes

    end = c[_TOK]
    points = [end] if end is not None else []
    notes: list[str] = []
    if c[f"{_PC}.fuse_allreduce_rms"]:
        if _aiter(c) and c["env.VLLM_ROCM_USE_AITER_CUSTOM_AR"]:  # rocm_aiter_ops.is_custom_all_reduce_enabled()
            size: int | None = AITER_CUSTOM_AR_MAX_SIZE
        else:
            size = _flashinfer_max_size(c) if c[_KIND] != "rocm" else None
        if size is not None and c[_MC] is not None:
            tokens = size // (int(c[_HT + "hidden_size"]) * dtype_bytes(c["model_config.dtype"]))
            if end is not None and tokens < end:
                points.append(tokens)
            else:
                notes.append("Max num batched tokens below allreduce-rms fusion threshold, allreduce-rms fusion will "
                             "be enabled for all num_tokens.")
    limit = c[f"{_PC}.rope_kvcache_fusion_max_token_num"]
    for fused, note in ((f"{_PC}.fuse_rope_kvcache", "Max num batched tokens below rope+kvcache fusion threshold, "
                         f"rope+kvcache fusion enabled for num_tokens <= {end}."),
                        (f"{_PC}.fuse_qk_norm_rope_kvcache", "Max num batched tokens below qk_norm+rope+kvcache fusion "
                         f"threshold, fusion enabled for num_tokens <= {end}.")):
        if c[fused] and limit is not None:
            if end is not None and limit < end:
                points.append(limit)
            else:
                notes.append(note)
    for x in c[f"{_CC}.compile_ranges_endpoints"] or ():
        if x <= 0:
            return Violation(f"Invalid compile range endpoint: {x}", error="AssertionError")
        if end is not None and 1 < x < end:
            points.append(x)
    return Outcome({f"{_CC}.compile_ranges_endpoints": tuple(sorted(points))}, message="\n".join(notes))


def _use_all2all(c: Mapping[str, Any]) -> bool:
    """``ParallelConfig.use_all2all`` (vllm/config/parallel.py:880)."""
    sp_moe = c["parallel_config.all2all_backend"] in (
        "allgather_reducescatter", "deepep_high_throughput", "deepep_low_latency", "deepep_v2",
        "flashinfer_nvlink_one_sided", "passthrough", "mori_high_throughput", "mori_low_latency", "mori", "nixl_ep",
    ) and c["parallel_config.enable_expert_parallel"] and c[_TP] > 1 and c[_DP] > 1
    return bool(c[_DP] > 1 or sp_moe or (c["parallel_config.enable_expert_parallel"] and c[_PCP] > 1))


@rule(
    "parallel.moonep",
    title="The moonep all2all backend: unquantized BF16 models, no EPLB, linear expert placement, eager only",
    phase="finalize",
    kind="override",
    reads=("parallel_config.all2all_backend", _MC, "model_config.quantization", "model_config.dtype",
           "parallel_config.enable_eplb", "parallel_config.expert_placement_strategy", _DP, _TP, _PCP,
           "parallel_config.enable_expert_parallel", _CG),
    writes=(_CG,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2016-2064); ref V-MOONEP, v0.34.0",
    message="MoonEP: Disabling CUDA Graphs since the MoonEP integration is currently eager-only.",
    level="info",
)
def moonep(c: Mapping[str, Any]) -> RuleResult:
    """Checked after the compile ranges, before the splitting ops (which it leaves to see NONE)."""
    if c["parallel_config.all2all_backend"] != "moonep":
        return None
    if c[_MC] is not None and c["model_config.quantization"] is not None:
        return Violation("The moonep all2all backend currently supports unquantized BF16 models only; got "
                         f"quantization={c['model_config.quantization']!r}. Use a different --all2all-backend for "
                         "quantized models.")
    if c[_MC] is not None and c["model_config.dtype"] != "bfloat16":
        return Violation("The moonep all2all backend currently supports BF16 models only; got "
                         f"dtype=torch.{c['model_config.dtype']}. Use a different --all2all-backend or --dtype "
                         "bfloat16.")
    if c["parallel_config.enable_eplb"]:
        return Violation("The moonep all2all backend does not support EPLB yet: EPLB rearranges expert parameters in "
                         "a layout MoonEP's replicated [E+B] weights do not follow. Disable --enable-eplb or use a "
                         "different --all2all-backend.")
    placement = c["parallel_config.expert_placement_strategy"]
    if placement != "linear":
        return Violation("The moonep all2all backend requires linear expert placement: its load-time all-gather "
                         "assumes each rank holds a contiguous chunk of the global expert range. Got "
                         f"--expert-placement-strategy {placement!r}.")
    if _use_all2all(c) and c[_CG] != CUDAGraphMode.NONE:
        return Outcome.log({_CG: CUDAGraphMode.NONE})
    return None


@rule(
    "kv-transfer.sleep-mode",
    title="Sleep mode needs a KV connector that follows the KV cache remap",
    phase="finalize",
    kind="check",
    reads=(*_KVT_READS, _MC, "model_config.enable_sleep_mode", "model_config.enable_cumem_allocator",
           "env.PYTORCH_CUDA_ALLOC_CONF"),
    source=f"{_VLLM}._verify_kv_transfer_compat (vllm/config/vllm.py:1204-1262, called at :2250), "
    "supports_sleep_mode (kv_connector/v1/base.py:228, nixl/connector.py:159,387, mooncake_connector.py:904, "
    "moriio_connector.py:287, multi_connector.py:254); ref V-KV-TRANSFER-COMPAT, v0.34.0",
    message="<connector> does not support sleep mode.",
)
def kv_transfer_sleep_mode(c: Mapping[str, Any]) -> RuleResult:
    """Then (:1227-1262) PyTorch's expandable-segments allocator (PYTORCH_CUDA_ALLOC_CONF, torch's variable) may
    remap the KV cache a connector pinned: refused with any connector unless the cumem allocator is on."""
    if not c[_KVT] or c[_KVC] is None:
        return None
    if c[_MC] is not None and c["model_config.enable_sleep_mode"]:
        found = _connectors(c)
        if isinstance(found, Violation):
            return found
        if not _supports_sleep(*found):
            return Violation(f"{c[_KVC]} does not support sleep mode.")
    if "expandable_segments:True" not in (c["env.PYTORCH_CUDA_ALLOC_CONF"] or ""):
        return None
    if c[_MC] is not None and c["model_config.enable_cumem_allocator"]:
        return None
    return Violation(_EXPANDABLE.format(connector=c[_KVC]))


_EXPANDABLE = (
    "KV connector {connector} is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless "
    "enable_cumem_allocator is also enabled. PyTorch's CUDA VMM allocator can remap KV cache virtual addresses to "
    "different physical pages, invalidating any pinned/registered KV memory (e.g. IB memory regions registered by "
    "NIXL or Mooncake). Either unset expandable_segments:True or enable the cumem allocator (sleep mode does this "
    "automatically and also routes KV allocations through CuMemAllocator's pool, where expandable_segments is "
    "automatically disabled).")


_ATTENTION_OPS = (
    "vllm::unified_attention_with_output", "vllm::unified_mla_attention_with_output", "vllm::mamba_mixer2",
    "vllm::mamba_mixer", "vllm::short_conv", "vllm::zaya_cca", "vllm::qwen4_exp_ple_short_conv",
    "vllm::qwen4_exp_qsa_with_output", "vllm::qwen4_exp_qsa_prepare_with_output", "vllm::linear_attention",
    "vllm::qwen_gdn_attention_core", "vllm::qwen_gdn_attention_core_fused_norm_packed",
    "vllm::gdn_attention_core_xpu", "vllm::olmo_hybrid_gdn_full_forward", "vllm::sparse_attn_indexer",
    "vllm::rocm_aiter_sparse_attn_indexer", "vllm::deepseek_v4_attention", "vllm::hpc_rope_norm_forward",
    "vllm::step5_csa_attention",
)
"""``CompilationConfig._attention_ops`` of vllm==0.34.0 (vllm/config/compilation.py:925)."""


@rule(
    "compilation.splitting-ops",
    title="Splitting ops: the attention ops (and the KV-cache update ops without Inductor partitioning)",
    phase="finalize",
    kind="derive",
    reads=(_MODE, _SPLIT, _PARTITION, f"{_PC}.fuse_attn_quant", f"{_PC}.fuse_rope_kvcache",
           f"{_PC}.fuse_qk_norm_rope_kvcache", _CG, "parallel_config.all2all_backend",
           "parallel_config.data_parallel_size", _MC, "model_config.is_moe"),
    writes=(_SPLIT, _CG, f"{_PC}.fuse_rope_kvcache", f"{_PC}.fuse_qk_norm_rope_kvcache"),
    source="vllm/config/compilation.py CompilationConfig.set_splitting_ops_for_v1; ref V-SPLITTING-OPS, v0.34.0",
    message="<the splitting-op warnings, the DeepEP high-throughput info>",
    level="warning",
)
def splitting_ops(c: Mapping[str, Any]) -> RuleResult:
    """Not VLLM_COMPILE: an unset list becomes []. DP counts only for MoE models (or without a model)."""
    ops, mode = c[_SPLIT], c[_CG]
    out: dict[str, Any] = {}
    warnings: list[str] = []
    if c[_MODE] != CompilationMode.VLLM_COMPILE:
        return Outcome({_SPLIT: ()}, message="") if ops is None else None
    if c[f"{_PC}.fuse_attn_quant"] and not c[_PARTITION]:
        if ops is None:
            out[_SPLIT] = ()
            if mode is not None and mode.has_piecewise_cudagraphs():
                warnings.append(
                    "fuse_attn_quant is incompatible with piecewise cudagraph when use_inductor_graph_partition is "
                    "off. In this case, splitting_ops will be set to empty list, and cudagraph_mode will be set to "
                    "FULL. Please ensure you are using attention backends that support cudagraph or set "
                    "cudagraph_mode to NONE explicitly if encountering any problems.")
                out[_CG] = mode = CUDAGraphMode.FULL
    elif ops is None:
        new = list(_ATTENTION_OPS)
        if not c[_PARTITION]:
            if c[f"{_PC}.fuse_rope_kvcache"]:
                warnings.append("fuse_rope_kvcache is enabled, but splitting_ops is None and Inductor graph "
                                "partition is not enabled.Disabling fuse_rope_kvcache.Please either set "
                                "splitting_ops to an empty list []or set use_inductor_graph_partition to True to "
                                "enable RoPE+KV cache fusion.")
                out[f"{_PC}.fuse_rope_kvcache"] = False
            if c[f"{_PC}.fuse_qk_norm_rope_kvcache"]:
                warnings.append("fuse_qk_norm_rope_kvcache is enabled, but splitting_ops is None and Inductor graph "
                                "partition is not enabled. Disabling fuse_qk_norm_rope_kvcache. Please either set "
                                "splitting_ops to an empty list [] or set use_inductor_graph_partition to True to "
                                "enable QK-Norm+RoPE+KV cache fusion.")
                out[f"{_PC}.fuse_qk_norm_rope_kvcache"] = False
            new += ["vllm::unified_kv_cache_update", "vllm::unified_mla_kv_cache_update"]
        out[_SPLIT] = tuple(new)
    elif len(ops) == 0:
        if mode in (CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL_AND_PIECEWISE):
            warnings.append("Using piecewise cudagraph with empty splitting_ops")
        if mode == CUDAGraphMode.PIECEWISE:
            warnings.append("Piecewise compilation with empty splitting_ops does not contain piecewise cudagraph. "
                            "Setting cudagraph_mode to NONE. Hint: If you are using attention backends that support "
                            "cudagraph, consider manually setting cudagraph_mode to FULL or FULL_DECODE_ONLY to "
                            "enable full cudagraphs.")
            out[_CG] = mode = CUDAGraphMode.NONE
        elif mode == CUDAGraphMode.FULL_AND_PIECEWISE:
            warnings.append("Piecewise compilation with empty splitting_ops does not contain piecewise cudagraph. "
                            "Setting cudagraph_mode to FULL.")
            out[_CG] = mode = CUDAGraphMode.FULL
    dp = c["parallel_config.data_parallel_size"] if c[_MC] is None or c["model_config.is_moe"] else 1
    if c["parallel_config.all2all_backend"] == "deepep_high_throughput" and dp > 1 and mode != CUDAGraphMode.NONE:
        out[_CG] = CUDAGraphMode.NONE
        return Outcome(out, message="DeepEP: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized "
                                    "for prefill and are incompatible with CUDA Graphs. In order to use CUDA Graphs "
                                    "for decode-optimized workloads, use --all2all-backend with another option, such "
                                    "as deepep_low_latency, nixl_ep, or allgather_reducescatter.", level="info")
    return Outcome(out, message="\n".join(warnings)) if warnings else (Outcome(out, message="") if out else None)


@rule(
    "cudagraph.piecewise-needs-vllm-compile",
    title="Piecewise CUDA graphs require VLLM_COMPILE (or breakable graphs) on CUDA-alike platforms",
    phase="finalize",
    kind="check",
    reads=("platform.is_cuda_alike", _CG, _MODE, _BREAKABLE),
    after=("compilation.splitting-ops",),
    source=f"{_VLLM}.__post_init__; ref V-FINAL-PIECEWISE-ASSERT, v0.34.0",
    message="Compilation mode should be CompilationMode.VLLM_COMPILE when cudagraph_mode piecewise cudagraphs is "
    "used, cudagraph_mode=<mode>",
    level="error",
)
def piecewise_needs_vllm_compile(c: Mapping[str, Any]) -> RuleResult:
    """Reachable only when a platform hook raised the mode again after the normalisation."""
    mode = c[_CG]
    if not c["platform.is_cuda_alike"] or mode is None or not mode.requires_piecewise_compilation():
        return None
    if c[_MODE] == CompilationMode.VLLM_COMPILE or c[_BREAKABLE]:
        return None
    return Violation("Compilation mode should be CompilationMode.VLLM_COMPILE when cudagraph_mode piecewise "
                     f"cudagraphs is used, cudagraph_mode={mode}", error="AssertionError")


_HMA = "scheduler_config.disable_hybrid_kv_cache_manager"


def _chunked_local_attention_disables_hma(c: Mapping[str, Any]) -> bool | None:
    """With chunked local attention: True when the hybrid KV cache manager must be off for it (EAGLE-style drafts
    always, otherwise unless the env allows it), None without chunked local attention."""
    if c[_MC] is None or c["model_config.attention_chunk_size"] is None:
        return None
    if c[_SPEC] and c["speculative_config.method"] in _EAGLE_TYPES:
        return True
    return not c["env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"]


_CHUNKED_READS = (_MC, "model_config.attention_chunk_size", _SPEC, "speculative_config.method",
                  "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE")


@rule(
    "scheduler.hma-chunked-local-attention-warning",
    title="Chunked local attention turns the hybrid KV cache manager off by default (warned before it is decided)",
    phase="finalize",
    kind="check",
    reads=_CHUNKED_READS,
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2156-2176, before the explicit-enable check at "
    ":2205-2214); ref V-HMA-*, v0.34.0",
    message="There is a latency regression when using chunked local attention with the hybrid KV cache manager. "
    "Disabling it, by default. To enable it, set the environment VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1.",
    level="warning",
)
def hma_chunked_local_attention_warning(c: Mapping[str, Any]) -> RuleResult:
    """vLLM warns as soon as it sees chunked local attention without the env switch (not with an EAGLE-style
    draft, which turns the manager off silently): the warning stands even when an explicit
    --enable-hybrid-kv-cache-manager then makes it an error."""
    if _chunked_local_attention_disables_hma(c) and not (c[_SPEC] and c["speculative_config.method"] in _EAGLE_TYPES):
        return Outcome.log()
    return None


@rule(
    "scheduler.hma",
    title="The hybrid KV cache manager: on unless chunked local attention, EAGLE with it, or a connector without "
    "HMA support turn it off",
    phase="finalize",
    kind="derive",
    reads=(_HMA, _KIND, _MC, "model_config.attention_chunk_size", _SPEC, "speculative_config.method",
           "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", *_KVT_READS),
    writes=(_HMA,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2144-2218); ref V-HMA-*, v0.34.0",
    message="<the KV-connector warning>",
    level="warning",
    after=("scheduler.hma-chunked-local-attention-warning",),
)
def hybrid_kv_cache_manager(c: Mapping[str, Any]) -> RuleResult:
    """Tri-state: None lets vLLM decide, False (explicit enable) is an error where it must be off.

    CPU keeps it (``CpuPlatform.support_hybrid_kv_cache()`` is True in 0.34.0, platforms/cpu.py:648). The
    chunked-local-attention warning is scheduler.hma-chunked-local-attention-warning's (logged first).
    """
    need_off = c[_KIND] not in ("cuda", "rocm", "cpu") or bool(_chunked_local_attention_disables_hma(c))
    warnings: list[str] = []
    value = c[_HMA]
    if value is None:
        found = _connectors(c) if c["kv_transfer_config"] else None
        if isinstance(found, Violation):
            return found
        if found is not None and not _supports_hma(*found):
            need_off = True
            warnings.append(
                "Turning off hybrid kv cache manager because `--kv-transfer-config` selects a KV connector that does "
                "not support it. Impact: hybrid SSM models (e.g. Jamba, Bamba) require HMA and will fail at startup "
                "without it; models with sliding window attention will run with reduced performance. To add HMA "
                "support to a KV connector, subclass `SupportsHMA` defined in kv_connector/v1/base.py (for "
                "MultiConnector, all child connectors must support HMA).")
        return Outcome({_HMA: need_off}, message="\n".join(warnings))
    if value is False and need_off:
        return Violation("Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. "
                         "Consider omitting the --enable-hybrid-kv-cache-manager flag to let vLLM decide "
                         "automatically.")
    return Outcome(message="\n".join(warnings)) if warnings else None


_EAGLE_TYPES = ("eagle", "eagle3", "deepseek_mtp", "mimo_mtp", "glm4_moe_mtp", "ernie_mtp", "qwen3_next_mtp",
                "longcat_flash_mtp", "mtp", "pangu_ultra_moe_mtp", "dflash")
"""Speculative methods whose drafter reads the target's hidden states (``uses_target_hidden_states``)."""



def _use_ubatching(c: Mapping[str, Any]) -> bool:
    return bool(c["parallel_config.enable_dbo"]) or c["parallel_config.ubatch_size"] > 1


@rule(
    "parallel.dbo-requires-deepep",
    title="Microbatching (DBO or ubatch_size > 1) needs a DeepEP or NIXL-EP all2all backend (ROCm: also "
    "allgather_reducescatter)",
    phase="finalize",
    kind="check",
    reads=("parallel_config.enable_dbo", "parallel_config.ubatch_size", "parallel_config.all2all_backend", _KIND),
    source=f"{_VLLM}.__post_init__; ref V-UBATCH-BACKENDS, v0.34.0",
    message="Microbatching currently only supports the <backends> all2all backends on this platform. <b> is not "
    "supported. To fix use one of <flags> and install the matching kernels.",
    level="error",
)
def dbo_requires_deepep(c: Mapping[str, Any]) -> RuleResult:
    """The backends whose prepare/finalize run on the communication stream under microbatching."""
    if not _use_ubatching(c):
        return None
    backends = ["deepep_low_latency", "deepep_high_throughput", "nixl_ep"]
    if c[_KIND] == "rocm":
        backends.append("allgather_reducescatter")
    backend = c["parallel_config.all2all_backend"]
    if backend in backends:
        return None
    flags = ", ".join("--all2all-backend=" + b for b in backends)
    return Violation(f"Microbatching currently only supports the {', '.join(backends)} all2all backends on this "
                     f"platform. {backend} is not supported. To fix use one of {flags} and install the matching "
                     "kernels.", error="AssertionError")





# =========================================================================== CpuPlatform.check_and_update_config

_CPU = "vllm/platforms/cpu.py CpuPlatform.check_and_update_config"
_ICC = "compilation_config.inductor_compile_config"


@rule(
    "compilation.inductor-combo-kernels",
    title="Inductor: combo kernels on (torch >= 2.9), except on CPU",
    phase="sub_configs",
    kind="default",
    reads=(_ICC, _KIND),
    writes=(_ICC,),
    source="vllm/config/compilation.py CompilationConfig.__post_init__; ref v0.34.0",
    level="debug",
)
def inductor_combo_kernels(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 skips the combo kernels on CPU ("combo kernel does not support cpu yet")."""
    from postinit.engine import FrozenDict

    icc = c[_ICC]
    if c[_KIND] == "cpu" or "combo_kernels" in icc or "benchmark_combo_kernel" in icc:
        return None
    return {_ICC: FrozenDict({**icc, "combo_kernels": True, "benchmark_combo_kernel": True})}


@rule(
    "cpu.async-scheduling-off",
    title="CPU runs without async scheduling",
    phase="platform",
    kind="override",
    reads=(_KIND,),
    writes=(_ASYNC,),
    source=f"{_CPU}; ref P-CHECK-CPU, v0.34.0",
)
def cpu_async_scheduling_off(c: Mapping[str, Any]) -> RuleResult:
    """Set False whatever the user or the default chose."""
    return {_ASYNC: False} if c[_KIND] == "cpu" else None


@rule(
    "cpu.kv-cache-memory-bytes",
    title="VLLM_CPU_KVCACHE_SPACE (GiB) sizes the CPU KV cache",
    phase="platform",
    kind="override",
    reads=(_KIND, "env.VLLM_CPU_KVCACHE_SPACE"),
    writes=("cache_config.kv_cache_memory_bytes",),
    source=f"{_CPU}; ref P-CHECK-CPU, v0.34.0",
)
def cpu_kv_cache_memory_bytes(c: Mapping[str, Any]) -> RuleResult:
    """Only a variable that is set (and not empty) counts; 0.34.0 has no swap space or cpu_kvcache_space_bytes."""
    space = c["env.VLLM_CPU_KVCACHE_SPACE"]
    if c[_KIND] != "cpu" or space is None:
        return None
    return {"cache_config.kv_cache_memory_bytes": int(space) * (1 << 30)}


@rule(
    "cpu.profiler-no-cuda-time",
    title="The CPU profiler dumps no CUDA time",
    phase="platform",
    kind="override",
    reads=(_KIND,),
    writes=("profiler_config.torch_profiler_dump_cuda_time_total",),
    source=f"{_CPU}; ref P-CHECK-CPU, v0.34.0",
)
def cpu_profiler_no_cuda_time(c: Mapping[str, Any]) -> RuleResult:
    """There is no CUDA time to dump on a CPU."""
    return {"profiler_config.torch_profiler_dump_cuda_time_total": False} if c[_KIND] == "cpu" else None


@rule(
    "cpu.compile-mode-dynamo-trace-once",
    title="CPU compiles with DYNAMO_TRACE_ONCE instead of VLLM_COMPILE (Inductor options, no torch wrap of IR ops)",
    phase="platform",
    kind="override",
    reads=(_KIND, _MODE, "env.VLLM_CPU_CI_ENV", _ICC),
    writes=(_MODE, _BACKEND, _ICC, f"{_CC}.ir_enable_torch_wrap"),
    source=f"{_CPU}; ref P-CHECK-CPU, v0.34.0",
)
def cpu_compile_mode_dynamo_trace_once(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 also turns ir_enable_torch_wrap off."""
    from postinit.engine import FrozenDict

    if c[_KIND] != "cpu" or c[_MODE] != CompilationMode.VLLM_COMPILE:
        return None
    backend = "eager" if c["env.VLLM_CPU_CI_ENV"] != "0" else "inductor"
    icc = {**c[_ICC], "dce": True, "size_asserts": False, "nan_asserts": False, "epilogue_fusion": True,
           "cpp.dynamic_threads": True}
    return {_MODE: CompilationMode.DYNAMO_TRACE_ONCE, _BACKEND: backend, _ICC: FrozenDict(icc),
            f"{_CC}.ir_enable_torch_wrap": False}




@rule(
    "cpu.executor-backend-mp",
    title="CPU runs the uni executor as mp (with V1 multiprocessing on)",
    phase="platform",
    kind="override",
    reads=(_KIND, "env.VLLM_ENABLE_V1_MULTIPROCESSING", _EXEC),
    writes=(_EXEC,),
    source=f"{_CPU}; ref P-CHECK-CPU, v0.34.0",
)
def cpu_executor_backend_mp(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 swaps uni for mp silently (0.11.1 warned about other backends on several workers)."""
    if c[_KIND] == "cpu" and c["env.VLLM_ENABLE_V1_MULTIPROCESSING"] and c[_EXEC] == "uni":
        return {_EXEC: "mp"}
    return None


_T = "model_config.hf_text_config."
_LAYER_FIELDS = ("num_hidden_layers", "other", "hybrid_override_pattern", "layers_block_type", "full_attention_interval",
                 "attn_layer_period", "attn_layer_offset")


def _linear_by_default(c: Mapping[str, Any]) -> bool:
    """Whether transformers 5's config class (vLLM 0.34.0's) fills ``layer_types`` with a ``linear_attention`` layer
    when config.json gives none: each class derives its schedule from its own fields (bamba's attention indices,
    jamba's period and offset, Nemotron-H's pattern, Qwen3-Next's interval, ...). Kimi-Linear's is vLLM's own
    KimiLinearConfig (vllm/transformers_utils/configs), which has no ``layer_types``: its KDA layers are no
    'linear_attention' to the CPU backend choice (golden k771, k779)."""
    mt = c[_T + "model_type"]
    n = c[_T + "num_hidden_layers"] or 0
    other = c[_T + "other"] or {}
    if mt in ("mamba", "mamba2", "falcon_mamba", "granitemoehybrid", "olmo_hybrid"):
        return True
    if mt == "bamba":
        attn = other.get("attn_layer_indices")
        return any(not (attn and i in attn) for i in range(n))
    if mt == "jamba":
        period, offset = c[_T + "attn_layer_period"] or 8, c[_T + "attn_layer_offset"]
        offset = 4 if offset is None else offset
        return any(i % period != offset for i in range(n))
    if mt == "nemotron_h":
        pattern = c[_T + "hybrid_override_pattern"]
        return c[_T + "layers_block_type"] is None and (pattern is None or "M" in pattern)
    if mt in ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text"):
        interval = c[_T + "full_attention_interval"] or 4
        return any((i + 1) % interval for i in range(n))
    if mt == "glm5_next_text":
        return n > 0
    if mt == "bailing_hybrid":
        group = other.get("layer_group_size", 5)
        return any((i + 1) % group for i in range(n))
    if mt == "minimax":
        return n > 1
    return False


_REPLAYSSM_RING_ARCHS = frozenset({
    "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
    "NemotronH_Super_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3"})
"""The classes whose state dtypes append ReplaySSM's ring when ``use_replayssm`` is on (NemotronHForCausalLM.
get_mamba_state_dtype_from_config, vllm/model_executor/models/nemotron_h.py:762-777; the VL ones delegate to it)."""


_CONV_DTYPE_STATE_ARCHS = frozenset({"ZayaForCausalLM"})
"""Classes whose two state dtypes are both the conv state's (ZAYA1's CCA: ``_cca_state_dtypes``,
vllm/model_executor/models/zaya.py:50-54)."""


def _conv_state_dtype(c: Mapping[str, Any]) -> str:
    """``get_kv_cache_torch_dtype(mamba_cache_dtype, model_dtype)``'s name: the mamba cache dtype, else the model's."""
    cache = c["cache_config.mamba_cache_dtype"]
    return str(c["model_config.dtype"] if cache in (None, "auto") else cache).removeprefix("torch.")


@rule(
    "cpu.mamba-ssm-cache-float32",
    title="CPUs with AVX512-BF16 keep SSM state in float32 (except the accelerated GDN backend's half types)",
    phase="platform",
    kind="override",
    reads=(_KIND, "platform.cpu_avx512_bf16", "cache_config.mamba_ssm_cache_dtype", _MC,
           "model_config.has_inner_state", "model_config.hf_text_config.model_type",
           "model_config.hf_text_config.layer_types", "model_config.architecture", *(_T + f for f in _LAYER_FIELDS),
           "cache_config.use_replayssm", "cache_config.mamba_cache_dtype", "model_config.dtype"),
    writes=("cache_config.mamba_ssm_cache_dtype",),
    source=f"{_CPU} (vllm/platforms/cpu.py:317-337), _cpu_mamba_backend (:44); ref P-CHECK-CPU, v0.34.0",
    message="Reset SSM cache type to float32 for accelerated GDN mamba backend '<backend>'.",
    level="warning",
)
def cpu_mamba_ssm_cache_float32(c: Mapping[str, Any]) -> RuleResult:
    """Logged for every model, mamba or not (the backend is 'none' without inner state).

    Partial model: a linear-attention model's backend is 'gdn' when its SSM cache dtype is a half type (vLLM
    compares it with the model class's state dtype), except for a Nemotron-H class with ReplaySSM, whose state dtypes
    carry the ring's two more (not a (conv, temporal) pair: the fallback backend), and for ZAYA1, whose temporal
    state is its conv state's dtype (the mamba cache dtype, else the model's), whatever the SSM cache dtype.
    """
    dtype = c["cache_config.mamba_ssm_cache_dtype"]
    if c[_KIND] != "cpu" or not c["platform.cpu_avx512_bf16"] or dtype == "float32":
        return None
    layers = c["model_config.hf_text_config.layer_types"] if c[_MC] is not None else None
    if layers is None and c[_MC] is not None and _linear_by_default(c):
        layers = ("linear_attention",)
    linear = isinstance(layers, (list, tuple)) and "linear_attention" in layers
    if c[_MC] is None or not (c["model_config.has_inner_state"] or linear):
        backend = "none"
    else:
        backend = str(c["model_config.hf_text_config.model_type"] or c["model_config.architecture"] or "unknown").lower()
        arch = c["model_config.architecture"]
        if linear and dtype in ("float16", "bfloat16") and not (
                c["cache_config.use_replayssm"] and arch in _REPLAYSSM_RING_ARCHS) and (
                arch not in _CONV_DTYPE_STATE_ARCHS or _conv_state_dtype(c) == dtype):
            backend = "gdn"
    if dtype in ("float16", "bfloat16") and backend == "gdn":
        return Outcome(message=f"Using {dtype} SSM state storage for the CPU accelerated GDN backend.", level="info")
    return Outcome({"cache_config.mamba_ssm_cache_dtype": "float32"},
                   message=f"Reset SSM cache type to float32 for accelerated GDN mamba backend '{backend}'.")


@rule(
    "cpu.triton-required",
    title="vLLM on x86 CPUs requires Triton (triton-cpu)",
    phase="platform",
    kind="check",
    reads=(_KIND, "platform.cpu_arch", "platform.triton_available"),
    source=f"{_CPU} (vllm/platforms/cpu.py:239-243); ref P-CHECK-CPU, v0.34.0",
    message="vLLM on x86 CPUs requires Triton (triton-cpu).",
)
def cpu_triton_required(c: Mapping[str, Any]) -> RuleResult:
    """Non-x86 CPUs without Triton run the standalone CPU model runner instead."""
    if c[_KIND] == "cpu" and c["platform.cpu_arch"] == "x86_64" and not c["platform.triton_available"]:
        return Violation("vLLM on x86 CPUs requires Triton (triton-cpu).", error="RuntimeError")
    return None


_BS = "cache_config.block_size"
_USER_BS = "cache_config.user_specified_block_size"
_CPU_MLA_READS = (_KIND, _MC, "model_config.use_mla", "model_config.hf_config.model_type", "platform.cpu_arch",
                  "platform.cpu_amx", "attention_config.backend")


def _cpu_dsv4(c: Mapping[str, Any]) -> bool:
    return c[_MC] is not None and c["model_config.hf_config.model_type"] == "deepseek_v4"


def _cpu_amx_mla_or_dsv4(c: Mapping[str, Any]) -> tuple[bool, bool]:
    """``(reference CPU MLA, AMX MLA or DeepSeek-V4)``: vllm/platforms/cpu.py:262-291."""
    amx = c["platform.cpu_arch"] == "x86_64" and bool(c["platform.cpu_amx"])
    mla = not _cpu_dsv4(c) and c[_MC] is not None and bool(c["model_config.use_mla"])
    amx_mla = mla and amx and str(c["attention_config.backend"] or "").upper() != "CPU_MLA"
    return mla and not amx_mla, amx_mla or (_cpu_dsv4(c) and amx)


@rule(
    "cpu.block-size-multiple-of-32",
    title="CPU block sizes: 16 for the reference MLA kernel, 256 for DeepSeek-V4, else multiples of 32 preferred",
    phase="platform",
    kind="override",
    reads=(*_CPU_MLA_READS, _BS, _USER_BS),
    writes=(_BS,),
    source=f"{_CPU} (vllm/platforms/cpu.py:292-315); ref P-CHECK-CPU, v0.34.0",
    message="CPU backend prefers block_size is multiples of 32, otherwise the performance is not optimized.",
    level="warning",
)
def cpu_block_size(c: Mapping[str, Any]) -> RuleResult:
    """Only a block size the user gave is judged (the default, 64, is left)."""
    if c[_KIND] != "cpu":
        return None
    reference_mla, _ = _cpu_amx_mla_or_dsv4(c)
    size, given = c[_BS], c[_USER_BS]
    if reference_mla or _cpu_dsv4(c):
        need, who = (16, "CPU MLA backend") if reference_mla else (256, "DeepSeek-V4 CPU backend")
        message = f"{who} requires block_size={need}, overriding user-specified block_size={size}." \
            if given and size != need else ""
        return Outcome({_BS: need}, message=message)
    if given and size % 32 != 0:
        return Outcome(message="CPU backend prefers block_size is multiples of 32, otherwise the performance is not "
                               "optimized.")
    return None


@rule(
    "cpu.mla-disables-chunked-prefill",
    title="MLA on CPU without the AMX kernels disables chunked prefill and prefix caching",
    phase="platform",
    kind="override",
    reads=(*_CPU_MLA_READS, "model_config.max_model_len"),
    writes=(_ECP, _APC, _TOK),
    source=f"{_CPU} (vllm/platforms/cpu.py:531-544); ref P-CHECK-CPU, v0.34.0",
    message="MLA is enabled on a non-GPU platform; forcing chunked prefill and prefix caching to be disabled.",
    level="info",
)
def cpu_mla_disables_chunked_prefill(c: Mapping[str, Any]) -> RuleResult:
    """The AMX MLA and DeepSeek-V4 kernels chunk prefills; the reference kernel does not, so a whole prompt must
    fit one batch."""
    if c[_KIND] != "cpu" or c[_MC] is None or not c["model_config.use_mla"] or _cpu_amx_mla_or_dsv4(c)[1]:
        return None
    return Outcome.log({_ECP: False, _APC: False, _TOK: max(c["model_config.max_model_len"] or 0, 2048)})


@rule(
    "scheduler.max-num-scheduled-tokens",
    title="With speculative decoding the scheduled-token budget defaults to max_num_batched_tokens",
    phase="core",
    kind="default",
    reads=(_SPEC, "scheduler_config.max_num_scheduled_tokens", _TOK),
    writes=("scheduler_config.max_num_scheduled_tokens",),
    source=f"{_VLLM}._set_max_num_scheduled_tokens; ref V-SPEC-SCHED-TOKENS, v0.34.0",
    message="max_num_scheduled_tokens is set to <n> based on the speculative decoding settings. This may lead to "
    "suboptimal performance. ...",
    level="warning",
)
def max_num_scheduled_tokens(c: Mapping[str, Any]) -> RuleResult:
    """Below 8192 it warns; 0 or less is an error. Partial model: the draft-pass request limit and the
    lookahead-slot check are not modelled."""
    if not c[_SPEC]:
        return None
    n = c["scheduler_config.max_num_scheduled_tokens"]
    n = c[_TOK] if n is None else n
    if n <= 0:
        return Violation(f"max_num_scheduled_tokens is set to {n} based on the speculative decoding settings, which "
                         "does not allow any tokens to be scheduled. Increase max_num_batched_tokens to accommodate "
                         "the additional draft token slots, or decrease num_speculative_tokens.")
    out = {"scheduler_config.max_num_scheduled_tokens": n}
    if n < 8192:
        return Outcome(out, message=f"max_num_scheduled_tokens is set to {n} based on the speculative decoding "
                                    "settings. This may lead to suboptimal performance. Consider increasing "
                                    "max_num_batched_tokens to accommodate the additional draft token slots, or "
                                    "decrease num_speculative_tokens.")
    return Outcome(out, message="")



def _kv_quant_mode(dtype: str) -> str:
    """``get_kv_quant_mode`` (vllm/v1/kv_cache_interface.py:110), by kind: none, per-token-head or other."""
    if dtype in ("int4_per_token_head", "int8_per_token_head", "fp8_per_token_head"):
        return "per_token_head"
    if dtype.startswith(("nvfp4", "turboquant_", "octave_", "fp8")) or dtype == "ultraquant_4bit":
        return "quantized"
    return "none"


@rule(
    "cache.fp8-kv-cache-info",
    title="A quantized KV cache saves memory (with scales per token head, or at an accuracy risk)",
    phase="sub_configs",
    kind="check",
    reads=("cache_config.cache_dtype",),
    source="vllm/config/cache.py CacheConfig._validate_cache_dtype (vllm/config/cache.py:503, a field validator); "
    "ref v0.34.0",
    message="Using <dtype> data type to store kv cache. It reduces the GPU memory footprint and boosts the "
    "performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
    level="info",
)
def quantized_kv_cache_info(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 names the dtype and covers every quantized KV cache dtype (0.11.1: fp8 only)."""
    dtype = str(c["cache_config.cache_dtype"])
    kind = _kv_quant_mode(dtype)
    if kind == "per_token_head":
        return Outcome(message=f"Using {dtype} data type to store kv cache. It reduces the GPU memory footprint and "
                               "boosts the performance. Dynamic per-token-head scales will be computed at runtime.")
    if kind == "quantized":
        return Outcome(message=f"Using {dtype} data type to store kv cache. It reduces the GPU memory footprint and "
                               "boosts the performance. Meanwhile, it may cause accuracy drop without a proper "
                               "scaling factor")
    return None


@rule(
    "cache.kv-float-mismatch",
    title="An explicit float16/bfloat16 KV cache dtype must be the model's dtype",
    phase="verify",
    kind="check",
    reads=(_MC, "cache_config.cache_dtype", "model_config.dtype"),
    source=f"{_VLLM}._reject_mismatched_float_kv_cache (vllm/config/vllm.py:1431, called at :1484); "
    "ref step-2, V-KV-FLOAT-MISMATCH, v0.34.0",
    message='kv_cache_dtype="<c>" is incompatible with dtype="<m>". Please set `--kv-cache-dtype` to <allowed>.',
)
def kv_float_mismatch(c: Mapping[str, Any]) -> RuleResult:
    """Checked right after the model hooks (equal dtypes pass)."""
    cache = c["cache_config.cache_dtype"]
    if c[_MC] is None or cache not in ("float16", "bfloat16"):
        return None
    model = c["model_config.dtype"]
    if model == cache:
        return None
    allowed = f"`auto` or `{model}`" if model in ("float16", "bfloat16") else "`auto`"
    return Violation(f'kv_cache_dtype="{cache}" is incompatible with dtype="{model}". Please set `--kv-cache-dtype` '
                     f"to {allowed}.")


@rule(
    "vllm.sampling-replay",
    title="Sampling distribution replay needs fixed verification boundaries, no custom logits processors and "
    "processed logprobs",
    phase="verify",
    kind="check",
    reads=(_MC, "model_config.return_sampling_mask", _SPEC, "speculative_config.enable_adaptive_verification",
           "model_config.hf_config.model_type", "model_config.hf_config.other", "model_config.logits_processors",
           "model_config.logprobs_mode"),
    source=f"{_VLLM}._verify_sampling_replay_config (vllm/config/vllm.py:1262, called at :1516); "
    "ref step-4, V-SAMPLING-REPLAY, v0.34.0",
    message="sampling distribution replay requires logprobs_mode='processed_logprobs' so that returned logprobs are "
    "normalized over the same nucleus as the sampling mask",
)
def sampling_replay(c: Mapping[str, Any]) -> RuleResult:
    """``ModelConfig.is_diffusion`` is ``hf_config.canvas_length is not None`` (vllm/config/model.py:1983):
    given in config.json, or transformers' DiffusionGemmaConfig default (256)."""
    if c[_MC] is None or not c["model_config.return_sampling_mask"]:
        return None
    if c[_SPEC] and c["speculative_config.enable_adaptive_verification"]:
        return Violation("sampling distribution replay with speculative decoding requires fixed verification "
                         "boundaries; disable adaptive verification")
    other = c["model_config.hf_config.other"] or {}
    if c["model_config.hf_config.model_type"] == "diffusion_gemma" or other.get("canvas_length") is not None:
        return Violation("sampling distribution replay does not support diffusion models")
    if c["model_config.logits_processors"]:
        return Violation("sampling distribution replay does not support custom logits processors")
    if c["model_config.logprobs_mode"] != "processed_logprobs":
        return Violation("sampling distribution replay requires logprobs_mode='processed_logprobs' so that returned "
                         "logprobs are normalized over the same nucleus as the sampling mask")
    return None


def _has_connector(c: Mapping[str, Any], name: str) -> bool:
    """``KVTransferConfig.has_connector`` (vllm/config/kv_transfer.py:208): directly or in MultiConnector."""
    if not c[_KVT]:
        return False
    if c[_KVC] == name:
        return True
    extra = c[f"{_KVT}.kv_connector_extra_config"] or {}
    return c[_KVC] == "MultiConnector" and any(
        isinstance(child, Mapping) and child.get("kv_connector") == name for child in extra.get("connectors", ()))


@rule(
    "kv-transfer.nixl-dcp",
    title="NIXL P/D: DCP is 1 or the transfer parallel size, and only on MLA models",
    phase="verify",
    kind="check",
    reads=(_KVT, _KVC, f"{_KVT}.kv_connector_extra_config", _DCP, _TP, _PCP, _MC, "model_config.use_mla"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1519-1537); ref step-4, V-NIXL-DCP, v0.34.0",
    message="decode_context_parallel_size=<dcp> must be 1 or equal to the NIXL transfer parallel size=<n>.",
)
def nixl_dcp(c: Mapping[str, Any]) -> RuleResult:
    """A NIXL side is either fully replicated or fully DCP-sharded."""
    if not _has_connector(c, "NixlConnector"):
        return None
    dcp, size = c[_DCP], max(c[_TP], c[_PCP])
    if dcp not in (1, size):
        return Violation(f"decode_context_parallel_size={dcp} must be 1 or equal to the NIXL transfer parallel "
                         f"size={size}.", error="AssertionError")
    if c[_MC] is not None and not c["model_config.use_mla"] and dcp != 1:
        return Violation("PD with decode_context_parallel_size > 1 is only supported for MLA models.",
                         error="AssertionError")
    return None


@rule(
    "vllm.direct-reload",
    title="VLLM_RELOAD_MODE=direct refuses weight offloading, torchao, LoRA and a quantized draft lm-head",
    phase="verify",
    kind="check",
    reads=("env.VLLM_RELOAD_MODE", "offload_config.offload_backend", "offload_config.prefetch.offload_group_size",
           "offload_config.uva.cpu_offload_gb", _MC, "model_config.quantization", "quant_config",
           "quant_config.class_name", "model_config.quantization_config", "lora_config", _SPEC,
           "speculative_config.draft_lm_head_quantization", "weight_transfer_config",
           "weight_transfer_config.backend"),
    source=f"{_VLLM}._verify_direct_reload_compat (vllm/config/vllm.py:1155, called at :1558); "
    "ref step-6, V-DIRECT-RELOAD, v0.34.0",
    message="Direct reload does not support weight offloading.",
)
def direct_reload(c: Mapping[str, Any]) -> RuleResult:
    """Online quantization is an OnlineQuantizationConfig, or a checkpoint's config composed with the user's
    --quantization-config (its ``online_quantization_config``)."""
    if c["env.VLLM_RELOAD_MODE"] != "direct":
        return None
    if c["offload_config.offload_backend"] != "auto" or c["offload_config.prefetch.offload_group_size"] > 0 \
            or c["offload_config.uva.cpu_offload_gb"] > 0:
        return Violation("Direct reload does not support weight offloading.")
    if c[_MC] is not None and c["model_config.quantization"] == "torchao":
        return Violation("Direct reload does not support torchao quantization.")
    if c["quant_config"] and (c["quant_config.class_name"] == "OnlineQuantizationConfig"
                              or c["model_config.quantization_config"] is not None):
        return Violation("Direct reload does not support online quantization.")
    if c["lora_config"]:
        return Violation("Direct reload does not support LoRA.")
    if c[_SPEC] and c["speculative_config.draft_lm_head_quantization"] is not None:
        return Violation("Direct reload does not support draft_lm_head_quantization.")
    if c["weight_transfer_config"] and c["weight_transfer_config.backend"] == "sharded_rdt":
        return Violation("Direct reload does not support the sharded_rdt weight-transfer backend. Use "
                         "VLLM_RELOAD_MODE=layerwise or another backend.")
    return None


@rule(
    "aux-output.compatibility",
    title="Routed-expert auxiliary outputs need a generating MoE model with prefix caching, no PP, CP or P/D "
    "connectors",
    phase="finalize",
    kind="check",
    reads=("aux_output_config.enable_return_routed_experts", _MC, "model_config.runner_type", "model_config.is_moe",
           _APC, _SPEC, "speculative_config.enable_adaptive_verification", "parallel_config.pipeline_parallel_size",
           _DCP, _PCP, _KVT, _KVC, f"{_KVT}.kv_connector_extra_config"),
    source=f"{_VLLM}._verify_aux_output_compatibility (vllm/config/vllm.py:1108, called at :2142); "
    "ref V-AUX-OUTPUT, v0.34.0",
    message="AuxOutput Connector only supports MoE models.",
)
def aux_output_compatibility(c: Mapping[str, Any]) -> RuleResult:
    """Without a model vLLM fails on ``None.runner_type`` (an AttributeError)."""
    if not c["aux_output_config.enable_return_routed_experts"]:
        return None
    if c[_MC] is None:
        return Violation("'NoneType' object has no attribute 'runner_type'", error="AttributeError")
    if c["model_config.runner_type"] != "generate":
        return Violation("AuxOutput Connector only supports generate runners.")
    if not c["model_config.is_moe"]:
        return Violation("AuxOutput Connector only supports MoE models.")
    if not c[_APC]:
        return Violation("AuxOutput Connector requires prefix caching.")
    if c[_SPEC] and c["speculative_config.enable_adaptive_verification"]:
        return Violation("--enable-return-routed-experts is incompatible with adaptive speculative verification.")
    if c["parallel_config.pipeline_parallel_size"] > 1:
        return Violation("--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).")
    if c[_DCP] > 1 or c[_PCP] > 1:
        return Violation("--enable-return-routed-experts is incompatible with context parallelism (DCP/PCP > 1).")
    for name in ("NixlConnector", "NixlPullConnector", "NixlPushConnector", "MoRIIOConnector", "MooncakeConnector"):
        if _has_connector(c, name):
            return Violation(f"--enable-return-routed-experts is incompatible with {name}; PD auxiliary output is "
                             "not supported.")
    return None


_HISPARSE = "attention_config.hisparse_config"


def _hisparse(c: Mapping[str, Any]) -> bool:
    """A HiSparse config given, or implied by a HiSparseConnector (vllm/config/vllm.py:1807-1812)."""
    return bool(c[_HISPARSE]) or _has_connector(c, "HiSparseConnector")


@rule(
    "attention.hisparse",
    title="HiSparse needs CUDA, no PP or DCP, no FULL-only graphs, reserved full ISL and a DSA model",
    phase="core",
    kind="derive",
    reads=(_HISPARSE, _KVT, _KVC, f"{_KVT}.kv_connector_extra_config", _KIND, "parallel_config.pipeline_parallel_size",
           _DCP, _CG, "scheduler_config.scheduler_reserve_full_isl", _MC, "model_config.hf_config.index_topk"),
    writes=(_HISPARSE,),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1807-1842), get_hisparse_backend_cls "
    "(vllm/platforms/cuda.py:274); ref V-HISPARSE, v0.34.0",
    message="The current platform does not support HiSparse.",
)
def hisparse(c: Mapping[str, Any]) -> RuleResult:
    """Decided after the optimisation level's CUDA-graph mode, before the piecewise normalisation."""
    if not _hisparse(c):
        return None
    out = {} if c[_HISPARSE] else {_HISPARSE: True}
    if c[_KIND] != "cuda":
        return Violation("The current platform does not support HiSparse.")
    if c["parallel_config.pipeline_parallel_size"] > 1:
        return Violation("HiSparse does not support pipeline parallelism.")
    if c[_DCP] > 1:
        return Violation("HiSparse does not support decode context parallelism.")
    if c[_CG] == CUDAGraphMode.FULL:
        return Violation("HiSparse does not support cudagraph_mode=FULL; use FULL_AND_PIECEWISE (the default), which "
                         "captures FULL graphs for decode batches.")
    if not c["scheduler_config.scheduler_reserve_full_isl"]:
        return Violation("HiSparse requires --scheduler-reserve-full-isl; remove --no-scheduler-reserve-full-isl.")
    if c[_MC] is not None and c["model_config.hf_config.index_topk"] is None:
        return Violation("HiSparse is only supported for DSA models with index_topk.")
    return Outcome(out, message="") if out else None



# =========================================================================== issue 30's coverage cases, batch 3 (k140-)

@rule(
    "parallel.dbo-spec-thresholds",
    title="Under microbatching with speculative decoding, DBO thresholds below microbatches x decode query length "
    "are raised to it",
    phase="finalize",
    kind="derive",
    reads=("parallel_config.enable_dbo", "parallel_config.ubatch_size", "parallel_config.dbo_decode_token_threshold",
           "parallel_config.dbo_prefill_token_threshold", _SPEC, "speculative_config.num_speculative_tokens",
           "diffusion_config", "diffusion_config.canvas_length"),
    writes=("parallel_config.dbo_decode_token_threshold", "parallel_config.dbo_prefill_token_threshold"),
    source=f"{_VLLM}._raise_dbo_thresholds_for_spec_decode (vllm/config/vllm.py:3353-3376, called at :2116 after "
    "the microbatching backend check); uniform_decode_query_len (:657-675); ref v0.34.0",
    message="Raising <name> from <old> to <new>, the number of microbatches times the decode query length.",
    level="warning",
)
def dbo_spec_thresholds(c: Mapping[str, Any]) -> RuleResult:
    """A uniform decode batch below one request per microbatch cannot be split on a request boundary."""
    if not _use_ubatching(c):
        return None
    n = 2 if c["parallel_config.enable_dbo"] else c["parallel_config.ubatch_size"]
    least = n * (1 + spec.num_speculative_tokens(c))
    out: dict[str, Any] = {}
    said: list[str] = []
    for name in ("dbo_decode_token_threshold", "dbo_prefill_token_threshold"):
        old = c[f"parallel_config.{name}"]
        if old < least:
            out[f"parallel_config.{name}"] = least
            said.append(f"Raising {name} from {old} to {least}, the number of microbatches times the decode query "
                        "length.")
    return Outcome(out, message="\n".join(said)) if out else None


def _hisparse_host_pool_gib(c: Mapping[str, Any]) -> Violation | float | None:
    """``hisparse_host_pool_gib`` (vllm/config/kv_transfer.py:16-47): the one HiSparseConnector's host pool."""
    if not c[_KVT]:
        return None
    extra = c[f"{_KVT}.kv_connector_extra_config"] or {}
    if c[_KVC] == "MultiConnector":
        connectors = [x for x in extra.get("connectors", ()) if isinstance(x, Mapping)]
    else:
        connectors = [{"kv_connector": c[_KVC], "kv_connector_extra_config": extra}]
    entries = [x.get("kv_connector_extra_config", {}) for x in connectors if x.get("kv_connector") == "HiSparseConnector"]
    if len(entries) > 1:
        return Violation("Only one HiSparseConnector may be configured")
    if not entries:
        return None
    gib = entries[0].get("host_pool_gib")
    if gib is None:
        return Violation("HiSparseConnector requires host_pool_gib")
    if float(gib) <= 0:
        return Violation("HiSparseConnector host_pool_gib must be positive")
    return float(gib)


@rule(
    "attention.hisparse-host-pool",
    title="HiSparse needs one HiSparseConnector with a positive host_pool_gib",
    phase="finalize",
    kind="check",
    reads=(_HISPARSE, _KVT, _KVC, f"{_KVT}.kv_connector_extra_config"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2133-2141, after _post_init_kv_transfer_config), "
    "hisparse_host_pool_gib (vllm/config/kv_transfer.py:16-47); ref V-HISPARSE, v0.34.0",
    message="HiSparse requires a KV transfer config with HiSparseConnector and host_pool_gib; to combine it with "
    "another connector, nest both in MultiConnector instead of using --kv-offloading-size.",
)
def hisparse_host_pool(c: Mapping[str, Any]) -> RuleResult:
    """The connector holds the host-side pool HiSparse offloads the KV cache to."""
    if c[_HISPARSE] is None:
        return None
    gib = _hisparse_host_pool_gib(c)
    if isinstance(gib, Violation):
        return gib
    if gib is None:
        return Violation("HiSparse requires a KV transfer config with HiSparseConnector and host_pool_gib; to "
                         "combine it with another connector, nest both in MultiConnector instead of using "
                         "--kv-offloading-size.")
    return None


@rule(
    "attention.hisparse-needs-hma",
    title="HiSparse needs the hybrid KV cache manager",
    phase="finalize",
    kind="check",
    reads=(_HISPARSE, _HMA),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2217-2225, after the hybrid KV cache manager is decided); "
    "ref V-HISPARSE, v0.34.0",
    message="HiSparse requires the hybrid KV cache manager; remove --disable-hybrid-kv-cache-manager or use "
    "connectors that support HMA.",
)
def hisparse_needs_hma(c: Mapping[str, Any]) -> RuleResult:
    """Its KV cache groups are the hybrid manager's."""
    if c[_HISPARSE] is not None and c[_HMA]:
        return Violation("HiSparse requires the hybrid KV cache manager; remove --disable-hybrid-kv-cache-manager "
                         "or use connectors that support HMA.")
    return None


_NGRAM_LAYER_FIELDS = {"DeepseekV41ForCausalLM": "engram_layer_ids", "Qwen4ExpForCausalLM": "ple_layer_ids",
                       "Qwen4ExpForConditionalGeneration": "ple_layer_ids"}
"""``_NGRAM_LAYER_FIELDS`` (vllm/config/engram.py:16-20): where an architecture lists its n-gram embedding layers."""
_EG = "engram_config."
_ENGRAM_FIELDS = ("cpu_offload", "disk_offload", "embedding_across_dp", "dp_shared_memory", "use_thp")
"""EngramConfig's fields in declaration order (its repr, vllm/config/engram.py:33-62)."""
_ENGRAM_SRC = f"{_VLLM}._resolve_and_verify_engram_config (vllm/config/vllm.py:1401-1429, called at :1485)"


def _ngram_layer_field(c: Mapping[str, Any]) -> str | None:
    """The hf_text_config field naming the model's n-gram layers, if the architecture has one and it lists some."""
    field = _NGRAM_LAYER_FIELDS.get(c["model_config.architecture"]) if c[_MC] else None
    return field if field is not None and c[_HT + field] else None


@rule(
    "engram.dsv41-ubatching",
    title="DeepSeek V4.1 with Engram layers refuses DBO and microbatching",
    phase="verify",
    kind="check",
    reads=(_MC, "model_config.architecture", _HT + "engram_layer_ids", "parallel_config.enable_dbo",
           "parallel_config.ubatch_size"),
    source=f"{_ENGRAM_SRC}: its first check (vllm/config/vllm.py:1412-1421), before any Engram config is made; "
    "ref v0.34.0",
    message="DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set --ubatch-size "
    "to 0.",
)
def engram_dsv41_ubatching(c: Mapping[str, Any]) -> RuleResult:
    """Checked on the target's model config whatever the Engram config says (a draft may turn n-gram embeddings
    off, the target's communication groups are the ones shared)."""
    if c[_MC] and c["model_config.architecture"] == "DeepseekV41ForCausalLM" and c[_HT + "engram_layer_ids"] \
            and (c["parallel_config.enable_dbo"] or c["parallel_config.ubatch_size"] > 1):
        return Violation("DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set "
                         "--ubatch-size to 0.")
    return None


@rule(
    "engram.default-config",
    title="A model with n-gram embedding layers gets a default Engram config",
    phase="verify",
    kind="default",
    reads=("engram_config", _MC, "model_config.architecture", _HT + "engram_layer_ids", _HT + "ple_layer_ids"),
    writes=("engram_config", *(_EG + f for f in _ENGRAM_FIELDS)),
    after=("engram.dsv41-ubatching",),
    source=f"{_ENGRAM_SRC}, model_has_engram_layers (vllm/config/engram.py:23-30); ref v0.34.0",
)
def engram_default_config(c: Mapping[str, Any]) -> RuleResult:
    """Without an Engram config a model whose n-gram layers are listed gets ``EngramConfig()``; any other model
    keeps none (and skips every Engram check)."""
    if c["engram_config"] is not None or _ngram_layer_field(c) is None:
        return None
    return {"engram_config": True, _EG + "cpu_offload": True, _EG + "disk_offload": False,
            _EG + "embedding_across_dp": False, _EG + "dp_shared_memory": None, _EG + "use_thp": False}


@rule(
    "engram.shared-memory-fields",
    title="Engram: DP shared memory and transparent huge pages need CPU offload; THP excludes shared memory",
    phase="sub_configs",
    kind="check",
    reads=("engram_config", _EG + "cpu_offload", _EG + "dp_shared_memory", _EG + "use_thp"),
    source="vllm/config/engram.py EngramConfig._validate_shared_memory (64-72; a model_validator: pydantic wraps "
    "its ValueError); ref v0.34.0",
    message="dp_shared_memory requires cpu_offload=True",
)
def engram_shared_memory_fields(c: Mapping[str, Any]) -> RuleResult:
    """Shared host tables and huge pages are ways of holding the CPU-offloaded tables."""
    if c["engram_config"] is None:
        return None
    if c[_EG + "dp_shared_memory"] and not c[_EG + "cpu_offload"]:
        return Violation("dp_shared_memory requires cpu_offload=True")
    if c[_EG + "use_thp"] and (not c[_EG + "cpu_offload"] or c[_EG + "dp_shared_memory"]):
        return Violation("use_thp requires cpu_offload=True and dp_shared_memory=False")
    return None


@rule(
    "engram.verify-model",
    title="An Engram config needs a model with n-gram embedding layers (disk offload: a Qwen4Exp model on CUDA)",
    phase="verify",
    kind="check",
    reads=("engram_config", _EG + "disk_offload", _MC, "model_config.architecture",
           _HT + "engram_layer_ids", _HT + "ple_layer_ids", _KIND),
    after=("engram.default-config",),
    source=f"{_ENGRAM_SRC}, EngramConfig.verify_model_config (vllm/config/engram.py:74-94); ref v0.34.0",
    message="EngramConfig requires a model with supported Engram embeddings and non-empty n-gram layer ids.",
)
def engram_verify_model(c: Mapping[str, Any]) -> RuleResult:
    """The model must list n-gram layers (the architecture's field); disk offload is Qwen4Exp's on CUDA only."""
    if c["engram_config"] is None:
        return None
    field = _ngram_layer_field(c)
    if field is None:
        return Violation("EngramConfig requires a model with supported Engram embeddings and non-empty n-gram layer "
                         "ids.")
    if c[_EG + "disk_offload"] and (field != "ple_layer_ids" or c[_KIND] != "cuda"):
        return Violation("disk_offload requires a Qwen4Exp model on CUDA")
    return None


@rule(
    "engram.dp-shared-memory",
    title="Engram host tables are shared between co-located DP replicas whenever the settings allow it",
    phase="verify",
    kind="default",
    reads=("engram_config", _EG + "dp_shared_memory", _EG + "cpu_offload", _EG + "use_thp", _DP,
           "parallel_config.enable_elastic_ep"),
    writes=(_EG + "dp_shared_memory",),
    after=("engram.verify-model",),
    source="vllm/config/engram.py EngramConfig.resolve_dp_shared_memory (96-104, called at vllm/config/vllm.py:1427); "
    "ref v0.34.0",
)
def engram_dp_shared_memory(c: Mapping[str, Any]) -> RuleResult:
    """Unset: on with CPU offload, without huge pages, with more than one DP replica and without elastic EP."""
    if not c["engram_config"] or c[_EG + "dp_shared_memory"] is not None:
        return None
    return {_EG + "dp_shared_memory": bool(c[_EG + "cpu_offload"] and not c[_EG + "use_thp"] and c[_DP] > 1
                                           and not c["parallel_config.enable_elastic_ep"])}


@rule(
    "engram.verify-parallel",
    title="Engram: shared host tables need DP > 1 and no elastic EP; elastic EP excludes DP-sharded embeddings "
    "and disk offload",
    phase="verify",
    kind="check",
    reads=("engram_config", _EG + "dp_shared_memory", _EG + "embedding_across_dp", _EG + "disk_offload", _DP,
           "parallel_config.enable_elastic_ep"),
    after=("engram.dp-shared-memory",),
    source="vllm/config/engram.py EngramConfig.verify_parallel_config (106-122, called at vllm/config/vllm.py:1428); "
    "ref v0.34.0",
    message="dp_shared_memory requires data_parallel_size > 1.",
)
def engram_verify_parallel(c: Mapping[str, Any]) -> RuleResult:
    """Elastic EP changes the DP group at run time, which neither a shared nor a DP-sharded table follows yet."""
    if c["engram_config"] is None:
        return None
    elastic = c["parallel_config.enable_elastic_ep"]
    if c[_EG + "dp_shared_memory"]:
        if c[_DP] <= 1:
            return Violation("dp_shared_memory requires data_parallel_size > 1.")
        if elastic:
            return Violation("dp_shared_memory is not supported with elastic EP.")
    if c[_EG + "embedding_across_dp"] and c[_DP] > 1 and elastic:
        return Violation("Engram embedding_across_dp is not supported with elastic EP yet.")
    if c[_EG + "disk_offload"] and elastic:
        return Violation("disk_offload is not supported with elastic EP.")
    return None


@rule(
    "engram.resolved",
    title="The resolved Engram config is logged",
    phase="verify",
    kind="check",
    reads=("engram_config", *(_EG + f for f in _ENGRAM_FIELDS)),
    after=("engram.verify-parallel",),
    source=f"{_ENGRAM_SRC}; ref v0.34.0",
    message="Resolved Engram configuration: {config}",
)
def engram_resolved(c: Mapping[str, Any]) -> RuleResult:
    """The config's repr, its fields in declaration order."""
    if c["engram_config"] is None:
        return None
    fields = ", ".join(f"{f}={c[_EG + f]!r}" for f in _ENGRAM_FIELDS)
    return Outcome.log(config=f"EngramConfig({fields})")


@rule(
    "model.hc-sp",
    title="--enable-hc-sp with TP > 1 needs CUDA or ROCm, a model implementing it (SupportsHCSP) and PP=1",
    phase="verify",
    kind="check",
    reads=("parallel_config.enable_hc_sp", _TP, _KIND, "parallel_config.pipeline_parallel_size", *mc.INFO_READS),
    source="vllm/config/model.py ModelConfig.verify_with_parallel_config (vllm/config/model.py:1569-1576), "
    "ModelRegistry.is_hc_sp_supported_model (vllm/model_executor/models/registry.py:1593: the class's SupportsHCSP; "
    "the registry's hc_sp, Qwen4-Exp's classes in 0.34.0); ref v0.34.0",
    message="--enable-hc-sp currently requires CUDA or ROCm / --enable-hc-sp is not supported for this model / "
    "--enable-hc-sp requires PP=1",
)
def hc_sp(c: Mapping[str, Any]) -> RuleResult:
    """Head-count sequence parallelism splits the sequence across the TP ranks of one pipeline stage."""
    if not c[_MC] or not c["parallel_config.enable_hc_sp"] or c[_TP] <= 1:
        return None
    if c[_KIND] not in ("cuda", "rocm"):
        return Violation("--enable-hc-sp currently requires CUDA or ROCm")
    info = mc.resolved_info(c)
    if info is None or "hc_sp" not in info.interfaces:
        return Violation("--enable-hc-sp is not supported for this model")
    if c["parallel_config.pipeline_parallel_size"] != 1:
        return Violation("--enable-hc-sp requires PP=1")
    return None


@rule(
    "model.torch-shm-single-process",
    title="mm_tensor_ipc torch_shm needs one process (no TP, PP, PCP or DP)",
    phase="verify",
    kind="check",
    reads=(_MC, "model_config.multimodal_config", _TP, "parallel_config.pipeline_parallel_size", _PCP, _DP),
    source="vllm/config/model.py ModelConfig.verify_with_parallel_config (vllm/config/model.py:1630-1642: "
    "world_size_across_dp, vllm/config/parallel.py:702); ref v0.34.0",
    message="mm_tensor_ipc='torch_shm' is not supported with data_parallel_size > 1 or tensor_parallel_size > 1 or "
    "pipeline_parallel_size > 1.",
)
def torch_shm_single_process(c: Mapping[str, Any]) -> RuleResult:
    """API servers cannot know which engine gets the work, and TP ranks would need the tensors broadcast."""
    mm = c["model_config.multimodal_config"] if c[_MC] else None
    world = c[_TP] * c["parallel_config.pipeline_parallel_size"] * c[_PCP] * c[_DP]
    if mm and mm.get("mm_tensor_ipc") == "torch_shm" and world > 1:
        return Violation("mm_tensor_ipc='torch_shm' is not supported with data_parallel_size > 1 or "
                         "tensor_parallel_size > 1 or pipeline_parallel_size > 1.")
    return None


@rule(
    "vllm.cumem-graph-pool-nccl",
    title="CUDA graphs in the sleep-offloaded cuMem pool: NCCL graph registration off unless set",
    phase="finalize",
    kind="check",
    reads=(_MC, "model_config.sleep_mode_offload_cudagraph", "model_config.enable_sleep_mode",
           "model_config.sleep_mode_backend", _CG, _KIND, "env.NCCL_GRAPH_REGISTER"),
    source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:2251-2259: os.environ.setdefault), "
    "use_cumem_cudagraph_pool (:752-762); ref v0.34.0",
    message="NCCL_GRAPH_REGISTER=<value> pins the CUDA graph pool during sleep.",
    level="warning",
)
def cumem_graph_pool_nccl(c: Mapping[str, Any]) -> RuleResult:
    """vLLM writes NCCL_GRAPH_REGISTER=0 into the process environment when unset (workers inherit it); a value
    given other than 0 is kept, with this warning."""
    if not (c[_MC] and c["model_config.sleep_mode_offload_cudagraph"] and c["model_config.enable_sleep_mode"]
            and c["model_config.sleep_mode_backend"] == "cumem" and c[_CG] != CUDAGraphMode.NONE
            and c[_KIND] in ("cuda", "rocm")):
        return None
    value = c["env.NCCL_GRAPH_REGISTER"]
    if value is None or value == "0":
        return None
    return Outcome(message=f"NCCL_GRAPH_REGISTER={value} pins the CUDA graph pool during sleep.")


_MORI_MISSING = "this MoRI (MoRI is not installed; upgrade MoRI)"
"""``_mori_epv2_unsupported_reason``'s first answer where the ``mori`` package is absent (the modelled host)."""


@rule(
    "rocm.pcp-disables-full-graphs",
    title="On ROCm, prefill context parallelism turns full CUDA graphs into PIECEWISE",
    phase="platform",
    kind="override",
    reads=(_KIND, _CG, _PCP),
    writes=(_CG,),
    source="vllm/platforms/rocm.py RocmPlatform.check_and_update_config (:1195-1205); ref v0.34.0",
    message="Prefill context parallel (PCP) is enabled, which is incompatible with full CUDA graphs. Overriding "
    "cudagraph_mode to PIECEWISE.",
    level="warning",
)
def rocm_pcp_disables_full_graphs(c: Mapping[str, Any]) -> RuleResult:
    """Its first statement: prefill context parallelism does not support full CUDA graphs there."""
    mode = c[_CG]
    full = mode in (CUDAGraphMode.FULL, CUDAGraphMode.FULL_DECODE_ONLY, CUDAGraphMode.FULL_AND_PIECEWISE)
    if c[_KIND] != "rocm" or not full or c[_PCP] <= 1:
        return None
    return Outcome.log({_CG: CUDAGraphMode.PIECEWISE})


@rule(
    "rocm.mori-ep-v2",
    title="The mori all2all backend runs MoRI EPv2 or EPv1 (VLLM_MORI_EP_V2; EPv1 without a MoRI with EPv2)",
    phase="platform",
    kind="derive",
    reads=(_KIND, "parallel_config.all2all_backend", "parallel_config.mori_ep_v2", "env.VLLM_MORI_EP_V2"),
    writes=("parallel_config.mori_ep_v2",),
    source="vllm/platforms/rocm.py RocmPlatform.check_and_update_config (:1232-1242) -> resolve_mori_all2all, "
    "_resolve_mori_ep_v2, _mori_epv2_unsupported_reason (vllm/config/parallel.py:1296-1411), "
    "mori_epv2_unavailable_reason (vllm/utils/import_utils.py:641-660); ref v0.34.0",
    message="MORI EPv2 does not support <reason>; falling back to MORI EPv1. Set VLLM_MORI_EP_V2=1 to force EPv2, "
    "or 0 to select EPv1.",
    level="warning",
)
def mori_ep_v2(c: Mapping[str, Any]) -> RuleResult:
    """Partial model: the host has no ``mori`` package, so EPv2 is never supported and the later reasons (GPU
    architecture, EP across hosts, SDMA, MegaMoE, dtype, per-tensor FP8) are never reached."""
    if c[_KIND] != "rocm" or c["parallel_config.all2all_backend"] != "mori" \
            or c["parallel_config.mori_ep_v2"] is not None:
        return None
    forced = c["env.VLLM_MORI_EP_V2"]
    if forced is False:
        return Outcome({"parallel_config.mori_ep_v2": False}, message="")
    if forced:
        return Outcome({"parallel_config.mori_ep_v2": True},
                       message=f"VLLM_MORI_EP_V2=1 is set explicitly, so MORI EPv2 is used even though it does not "
                       f"support {_MORI_MISSING}.")
    return Outcome({"parallel_config.mori_ep_v2": False},
                   message=f"MORI EPv2 does not support {_MORI_MISSING}; falling back to MORI EPv1. Set "
                   "VLLM_MORI_EP_V2=1 to force EPv2, or 0 to select EPv1.")


@rule(
    "rocm.mori-all2all",
    title="The mori all2all backend logs which MoRI EP version it runs",
    phase="platform",
    kind="check",
    reads=(_KIND, "parallel_config.all2all_backend", "parallel_config.mori_ep_v2"),
    after=("rocm.mori-ep-v2",),
    source="vllm/config/parallel.py resolve_mori_all2all (:1296-1324); ref v0.34.0",
    message="MoRI all2all: EP<v1|v2>",
    level="info",
)
def mori_all2all(c: Mapping[str, Any]) -> RuleResult:
    """Logged once per process (info_once)."""
    if c[_KIND] != "rocm" or c["parallel_config.all2all_backend"] != "mori":
        return None
    return Outcome(message=f"MoRI all2all: EP{'v2' if c['parallel_config.mori_ep_v2'] else 'v1'}")


CPU_CHECK_AND_UPDATE = sequence(
    "cpu.check-and-update-config",
    "cpu.triton-required", "cpu.block-size-multiple-of-32", "cpu.mamba-ssm-cache-float32", "cpu.kv-cache-memory-bytes",
    "cpu.async-scheduling-off", "cpu.executor-backend-mp", "cpu.dbo-off", "cpu.capture-sizes-empty",
    "cpu.compile-mode-dynamo-trace-once", "cpu.lora-disables-compile", "cpu.profiler-no-cuda-time", "cpu.device-type",
    "cpu.mla-disables-chunked-prefill",
    title="CpuPlatform.check_and_update_config of 0.34.0, in its statement order",
    source=f"{_CPU} (vllm/platforms/cpu.py:234-544)",
)


@rule(
    "cache.block-size-default",
    title="The KV cache block size defaults to 64 (DEFAULT_BLOCK_SIZE); a given one is marked user-specified",
    phase="sub_configs",
    kind="default",
    reads=(_BS,),
    writes=(_BS, _USER_BS),
    source="vllm/config/cache.py CacheConfig._apply_block_size_default (vllm/config/cache.py:481, a model "
    "validator); ref v0.34.0",
)
def cache_block_size_default(c: Mapping[str, Any]) -> RuleResult:
    """The platform may pick another size at worker start-up (update_block_size_for_backend), not here."""
    if c[_BS] is None:
        return {_BS: 64, _USER_BS: False}
    return {_USER_BS: True}


CORE = sequence(
    "vllm.post-init-0340",
    "parallel.dcp-defaults", "parallel.eplb-num-redundant-experts", "parallel.is-moe-model", "scheduler.async-scheduling-explicit",
    "scheduler.async-scheduling-default", "parallel.nccl-dp-sync-default", "observability.spec-metrics-need-spec",
    "compilation.enforce-eager",
    "compilation.torch-compile-disable", "compilation.breakable-cudagraph",
    "compilation.blocked-fp8-adds-quant-fp8-early", "rocm.config-platform-defaults", "compilation.default-mode", "compilation.ir-enable-torch-wrap", "compilation.default-custom-ops",
    "kernel.moe-ep-backend", "kernel.ir-op-priority", "kernel.ir-op-priority-final", *(r.id for r in LEVEL_RULES),
    "attention.sparse-mla-workspace-factor", "attention.hisparse", "cudagraph.normalize-piecewise", "compilation.fast-moe-cold-start",
    "scheduler.max-num-scheduled-tokens", "cudagraph.pooling-forces-piecewise", "kv-transfer.connector-class-for-graphs", "cudagraph.encoder-decoder-forces-piecewise", "cudagraph.eager-disables",
    "cudagraph.warmups", "cudagraph.capture-sizes", "cudagraph.no-static-graph-support",
    title="VllmConfig.__post_init__ of 0.34.0 up to the platform hook, in its statement order",
    source=_VLLM,
)
FINALIZE = sequence(
    "vllm.finalize-0340",
    "scheduler.diffusion-scheduler", "cudagraph.normalize-piecewise-after-platform", "cudagraph.stock-compile-disables", "vllm.model-runner",
    "kv-transfer.nixl-ucx-rcache", "kv-transfer.nixl-unavailable", "cache.extensible-kv-cache", "profiler.proton-checks", "parallel.batch-sharded-sampling-default",
    "speculative.adaptive-verification", "compilation.compile-ranges", "parallel.moonep", "compilation.splitting-ops",
    "cudagraph.piecewise-needs-vllm-compile", "parallel.dbo-requires-deepep", "parallel.dbo-spec-thresholds",
    "kv-transfer.offloading", "attention.hisparse-host-pool", "aux-output.compatibility", "scheduler.hma",
    "attention.hisparse-needs-hma",
    "compilation.debug-dump-path", "compilation.debug-dump-path-env", "compilation.blocked-fp8-adds-quant-fp8",
    "kv-transfer.sleep-mode", "vllm.cumem-graph-pool-nccl",
    title="VllmConfig.__post_init__ of 0.34.0 after the platform hook, in its statement order",
    source=_VLLM,
)
_DROP_GROUPS = {
    "engine-args.chunked-prefill": "statements of engine-args.create-engine-config in 0.34.0 (the support "
    "properties log first, then default or warning)",
    "engine-args.prefix-caching": "statements of engine-args.create-engine-config in 0.34.0",
    "cudagraph.step-12": "0.34.0's CUDA-graph steps are in vllm.post-init-0340",
    "compilation.steps-8-to-11": "0.34.0's compilation steps are in vllm.post-init-0340",
    "vllm.finalize": "0.34.0's final steps are in vllm.finalize-0340",
    "scheduler.hma-off": "one rule in 0.34.0 (scheduler.hma)",
    "cudagraph.full-graph-support": "0.34.0 tests pooling, then encoder-decoder (an if/elif of two rules)",
    "cudagraph.final-check": "the cascade-attention warning is gone in 0.34.0",
    "platform.block-size-default": "block sizes are chosen at worker start-up in 0.34.0",
    "platform.cuda-mla-block-size": "block sizes are chosen at worker start-up in 0.34.0",
    "parallel.dbo": "one rule in 0.34.0 (parallel.dbo-requires-deepep, gated on use_ubatching)",
}



_MODEL_PY = "vllm/config/model.py ModelConfig"

PATCHES = (
    patch("cpu.env-thread-counts", nobind=False, source="vllm/platforms/cpu.py CpuPlatform.check_and_update_config "
          "(vllm/platforms/cpu.py:420-440); ref step-17, 7.6#15, v0.34.0",
          why="0.34.0 has no VLLM_CPU_OMP_THREADS_BIND=nobind branch (nor its record)"),
    patch("speculative.mtp-several-tokens-warning",
          message="Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which "
          "may result in lower acceptance rate",
          source="vllm/config/speculative.py SpeculativeConfig.__post_init__; ref 2.8, v0.34.0",
          why="0.34.0 put the missing space between 'run' and 'multiple' into the warning's text"),
    patch("kv-events.events-without-prefix-caching",
          message="KV cache events are on, but prefix caching is not enabled. Use --enable-prefix-caching to enable.",
          source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1940-1948); ref step-16, v0.34.0",
          why="0.34.0 fixed the missing space in the text"),
    patch("kv-events.publisher-without-events",
          message="KV cache events are disabled, but the scheduler is configured to publish them. Modify "
          "KVEventsConfig.enable_kv_cache_events to True to enable.",
          source=f"{_VLLM}.__post_init__ (vllm/config/vllm.py:1949-1958); ref step-16, v0.34.0",
          why="0.34.0 fixed the missing spaces in the text"),
    patch("verify.dcp-kv-heads", error="ValueError",
          too_few="Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be greater "
          "than the model's total number of KV heads ({kv}). Increase `--tensor-parallel-size` or set "
          "`--decode-context-parallel-size 1`.",
          too_many="`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value ({max_dcp}) for "
          "`--tensor-parallel-size` ({tp}) and {kv} model KV heads.",
          uneven="The model's number of query heads per KV head ({q_per_kv}) must be divisible by "
          "`--decode-context-parallel-size` ({dcp}) for GQA/MQA.",
          source=f"{_MODEL_PY}.verify_with_parallel_config (vllm/config/model.py:1597-1627); ref step-3, v0.34.0",
          why="0.34.0 raises ValueErrors with new texts (0.11.1: AssertionErrors)"),
)
"""0.11.1 rules 0.34.0 keeps with other values (``patch``: the logic is the parent's)."""

DELTA = Delta(
    facts={"vllm_version": "0.34.0", "transformers": hashing_v0_34_0.FACTS["transformers"],
           "configs_forbid_extra": True, "refused_where_built": True},  # checked_by_rules: v0_34_0_errors  # vllm/config/utils.py:72: @config classes forbid extra fields
    hash=hashing_v0_34_0.compute_hash,
    sub_hashes=hashing_v0_34_0.sub_hashes,
    hash_reason=hashing_v0_34_0.inexact_reason,
    defaults=DEFAULTS,
    patch=PATCHES,
    config_defaults=CONFIG_DEFAULTS,
    replace=(quantized_kv_cache_info, cpu_block_size, cpu_mla_disables_chunked_prefill, world_size, budget_below_max_model_len, budget_exceeds_seqs_times_len, chunked_prefill_default, pooling_chunked_prefill_warning, prefix_caching_default,
             pooling_prefix_caching_warning, batch_defaults_large_gpu, batch_defaults_other_device, batch_defaults_cpu,
             eplb_requirements, executor_backend_multi, nnodes_needs_mp, inductor_combo_kernels,
             cpu_compile_mode_dynamo_trace_once, cpu_executor_backend_mp, kv_offloading, default_mode, no_static_graph_support, pooling_forces_piecewise,
             encoder_decoder_forces_piecewise, eager_disables, warmups, capture_sizes, splitting_ops,
             piecewise_needs_vllm_compile, dbo_requires_deepep),
    add=(nixl_ucx_rcache, nixl_unavailable, diffusion_scheduler, sampling_replay, nixl_dcp, direct_reload, aux_output_compatibility, hisparse, spec_metrics_need_spec, kv_float_mismatch, cache_block_size_default, cpu_triton_required, stock_compile_disables, model_runner, proton_checks, adaptive_verification, moonep, kv_transfer_sleep_mode,
         pass_config_given, eplb_redundant_experts_default, offline_dp_dense,  # issue 30's coverage cases (k###)
         elastic_ep_requirements, all2all_removed_backends, numa_bind, numa_bind_lists, eplb_communicator,
         ray_available, dbo_thresholds, max_num_active_seqs, long_prefill_threshold_max, chunked_prefill_prefix_caching_support, kv_buffer_device_default, eplb_no_redundant_experts, dcp_divides_tp, elastic_ep_max_dp_size, data_parallel_index, dcp_defaults, eplb_num_redundant_experts, model_is_moe, parallel_is_moe_model,
         async_scheduling_default, async_scheduling_explicit, nccl_dp_sync_default, enforce_eager,
         torch_compile_disable, breakable_cudagraph, inductor_off_warning, ir_enable_torch_wrap,
         ir_op_priority, ir_op_priority_final, *LEVEL_RULES, sparse_mla_workspace_factor, normalize_piecewise,
         normalize_piecewise_after_platform, fast_moe_cold_start, extensible_kv_cache,
         batch_sharded_sampling_default, compile_ranges, hma_chunked_local_attention_warning, hybrid_kv_cache_manager, connector_class_for_graphs,
         blocked_fp8_adds_quant_fp8_early, rocm_config_platform_defaults, log_enabled_passes,
         model_is_quantized, deep_gemm_auto_disable, mm_prefix_disables_chunked_mm_input, optimization_level, performance_mode, cpu_async_scheduling_off,
         cpu_kv_cache_memory_bytes,
         cpu_profiler_no_cuda_time, cpu_mamba_ssm_cache_float32, max_num_scheduled_tokens,
         dbo_spec_thresholds, hisparse_host_pool, cumem_graph_pool_nccl, mori_ep_v2, mori_all2all,
         hisparse_needs_hma, engram_dsv41_ubatching, engram_default_config, engram_shared_memory_fields,
         engram_verify_model,
         engram_dp_shared_memory, engram_verify_parallel, engram_resolved, hc_sp, torch_shm_single_process,
         rocm_pcp_disables_full_graphs),
    drop=DROPS,
    groups=(CREATE_ENGINE_CONFIG, BATCH_DEFAULTS, CPU_CHECK_AND_UPDATE, PARALLEL_POST_INIT, SCHEDULER_POST_INIT, CORE, FINALIZE),
    drop_groups=_DROP_GROUPS,
    after={  # SchedulerConfig's own field defaults apply only where EngineArgs set none (it is built after them)
        **{rid: ("engine-args.batch-defaults-cpu", "engine-args.batch-defaults-large-gpu",
                 "engine-args.batch-defaults-other-device")
           for rid in ("scheduler.max-num-batched-tokens-default", "scheduler.max-num-seqs-default")},
        # ModelConfig refuses sleep mode off CUDA/ROCm before it reads config.json (golden s-n027)
        "model.architecture": ("model.sleep-mode-platform", "serve.load-balancing-modes"),
        # verify_with_parallel_config (:1498) runs before the spawn check (:1674)
        "vllm.torch-shm-needs-spawn": ("model.torch-shm-single-process",)},
    fields_added=FIELDS_ADDED,
    fields_removed=FIELDS_REMOVED,
    flags_added=("optimization_level", "performance_mode", "custom_histogram_buckets", "model_class_overrides"),
    flags_removed=(
        "calculate_kv_scales", "cuda_graph_sizes", "disable_mm_preprocessor_cache",
        "enable_multimodal_encoder_data_parallel", "eplb_log_balancedness", "eplb_step_interval", "eplb_window_size",
        "guided_decoding_backend", "guided_decoding_disable_additional_properties",
        "guided_decoding_disable_any_whitespace", "guided_decoding_disable_fallback", "logits_processor_pattern",
        "lora_extra_vocab_size", "max_long_partial_prefills", "max_num_partial_prefills", "num_lookahead_slots",
        "num_redundant_experts", "override_attention_dtype", "override_pooler_config", "swap_space", "task",
    ),
)
