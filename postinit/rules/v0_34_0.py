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
from typing import Any

from postinit.engine import Outcome, RuleResult, Violation, rule
from postinit.rules.versions import Delta

__all__ = ["DELTA", "DROPS", "FIELDS_ADDED", "FIELDS_REMOVED"]

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
    "model_config.video_pruning_rate",
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
    # removed in 0.34.0: the fields these rules decide are gone from its configs
    "model.config-updated": "ModelConfig.config_updated is gone in 0.34.0 (vllm/config/model.py has no such field)",
    "models.config-updated": "ModelConfig.config_updated is gone in 0.34.0; the model hooks no longer flag it",
    "model.task": "--task / ModelConfig.task were removed in 0.34.0 (runner/convert only)",
    "engine-args.lookahead-slots-from-speculative": "SchedulerConfig.num_lookahead_slots was removed in 0.34.0",
    "parallel.eplb-deprecated-fields": "the deprecated ParallelConfig EPLB fields were removed in 0.34.0 (EPLBConfig only)",
    "scheduler.partial-prefill-limits": "max_num_partial_prefills / max_long_partial_prefills / num_lookahead_slots "
    "were removed from SchedulerConfig in 0.34.0",
    "speculative.token-tree": "SpeculativeConfig.speculative_token_tree was removed in 0.34.0",
    "compilation.async-tp-implies-sp": "the sequence-parallelism / async-TP passes and their pass_config keys were "
    "removed in 0.34.0 (docs/vllm-0.34.0.md section 1)",
    "compilation.sp-needs-rms-norm": "sequence parallelism was removed in 0.34.0",
    "cudagraph.sp-filters-capture-sizes": "sequence parallelism was removed in 0.34.0: no capture-size filter by TP",
    "compilation.level-to-mode": "CompilationConfig.level was removed in 0.34.0 (-O is the optimization level)",
    "compilation.use-inductor-backend": "CompilationConfig.use_inductor was removed in 0.34.0",
    "verify.swap-space": "CacheConfig.swap_space was removed in 0.34.0",
    "cpu.kvcache-space": "CacheConfig.cpu_kvcache_space_bytes was removed in 0.34.0",
    "cudagraph.padding-table": "CompilationConfig.bs_to_padded_graph_size was removed in 0.34.0",
    "engine-args.unsupported-feature": "the features it refused (logits_processor_pattern, partial prefills) were "
    "removed in 0.34.0",
    # moved or reshaped in 0.34.0: a replacement is still to be written
    "model.class-interfaces": _TODO + "supports_mamba_prefix_caching is no ModelConfig field in 0.34.0",
    "models.mamba-prefix-caching": _TODO + "mamba prefix caching is mamba_cache_mode in 0.34.0",
    "model.pooler-config": _TODO + "PoolerConfig's normalize/softmax/activation/logit_bias became use_activation "
    "and seq/tok pooling types in 0.34.0",
    "model.pooler-use-activation": _TODO + "PoolerConfig's fields were reshaped in 0.34.0",
    "models.qwen2-rm-softmax": _TODO + "PoolerConfig.softmax is gone in 0.34.0",
    "models.jinavl-ranking": _TODO + "PoolerConfig.logit_bias is gone in 0.34.0",
    "models.nomic-bert-max-model-len": _TODO + "SchedulerConfig.max_model_len is gone in 0.34.0",
    "scheduler.max-model-len-from-model": "SchedulerConfig has no max_model_len in 0.34.0 (it reads ModelConfig's)",
    "scheduler.max-model-len-default": "SchedulerConfig has no max_model_len in 0.34.0",
    "scheduler.is-encoder-decoder-from-model": "SchedulerConfig has no is_encoder_decoder in 0.34.0",
    "scheduler.encoder-decoder-no-chunked-prefill": _TODO + "SchedulerConfig.is_encoder_decoder is gone in 0.34.0",
    "scheduler.long-prefill-threshold-default": _TODO + "the partial-prefill fields are gone in 0.34.0",
    "scheduler.budget-below-max-model-len": _TODO + "SchedulerConfig.max_model_len is gone in 0.34.0",
    "scheduler.budget-exceeds-seqs-times-len": _TODO + "SchedulerConfig.max_model_len is gone in 0.34.0",
    "quirk.budget-below-max-model-len": _TODO + "SchedulerConfig.max_model_len is gone in 0.34.0",
    "compilation.fusion-without-noop": _TODO + "the pass_config keys are fuse_* / eliminate_noops in 0.34.0",
    "compilation.splitting-ops": _TODO + "0.34.0's splitting ops (_set_splitting_ops) are not yet written",
    "compilation.attn-fusion-forces-full": _TODO + "enable_attn_fusion is fuse_attn_quant in 0.34.0",
    "compilation.empty-splitting-ops-mode": _TODO + "enable_attn_fusion is fuse_attn_quant in 0.34.0",
    "cudagraph.truncate-max-capture-size": _TODO + "0.34.0 splits capture sizes into prefill/decode sizes",
    "cudagraph.user-capture-sizes-overridden": _TODO + "0.34.0 splits capture sizes into prefill/decode sizes",
    "cudagraph.capture-sizes": _TODO + "0.34.0 splits capture sizes into prefill/decode sizes "
    "(_set_cudagraph_sizes, _split_cudagraph_capture_sizes)",
    "scheduler.async-scheduling-supported": _TODO + "0.34.0 turns async scheduling on by default",
}
"""0.11.1 rules 0.34.0 does not have, each with the reason (``_TODO``: a replacement is still to be written)."""


DEFAULTS: dict[str, object] = {
    # dataclass defaults 0.34.0 declares differently from 0.11.1 (docs/vllm-0.34.0.md appendix B)
    "model_config.disable_cascade_attn": True,
    "model_config.seed": 0,
    "model_config.model_weights": "",
    "model_config.pooler_config.enable_chunked_processing": False,
    "cache_config.gpu_memory_utilization": None,
    "cache_config.enable_prefix_caching": True,
    "cache_config.kv_offloading_backend": "native",
    "parallel_config.all2all_backend": "allgather_reducescatter",
    "parallel_config.disable_nccl_for_dp_synchronization": None,
    "parallel_config.eplb_config.num_redundant_experts": None,
    "scheduler_config.async_scheduling": None,
    "scheduler_config.disable_hybrid_kv_cache_manager": None,
    "load_config.safetensors_load_strategy": None,
    "compilation_config.use_inductor_graph_partition": None,
    "compilation_config.pass_config.enable_qk_norm_rope_fusion": None,
    "kv_transfer_config.kv_buffer_device": "",
}
"""0.34.0's dataclass defaults where they differ from 0.11.1's (the schema holds the seed's)."""

_PAR = "vllm/config/parallel.py ParallelConfig"
_VLLM = "vllm/config/vllm.py VllmConfig"
_TP = "parallel_config.tensor_parallel_size"
_DP = "parallel_config.data_parallel_size"
_PCP = "parallel_config.prefill_context_parallel_size"
_DCP = "parallel_config.decode_context_parallel_size"
_NRE = "parallel_config.eplb_config.num_redundant_experts"


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


# =========================================================================== VllmConfig.__post_init__ (phase core)

_KVT = "kv_transfer_config"


@rule(
    "kv-transfer.offloading",
    title="--kv-offloading-size configures a KV connector (native: OffloadingConnector; lmcache: LMCacheMPConnector)",
    phase="core",
    kind="derive",
    reads=("cache_config.kv_offloading_backend", "cache_config.kv_offloading_size", _KVT,
           f"{_KVT}.kv_connector_extra_config", "env.VLLM_USE_SIMPLE_KV_OFFLOAD"),
    writes=(_KVT, f"{_KVT}.kv_connector", f"{_KVT}.kv_connector_extra_config", f"{_KVT}.kv_role"),
    source=f"{_VLLM}._post_init_kv_transfer_config; ref v0.34.0",
)
def kv_offloading(c: Mapping[str, Any]) -> RuleResult:
    """0.34.0 activates offloading by the size alone (the backend defaults to native) and hands the whole
    buffer to the connector (``cpu_bytes_to_use``), before the hybrid KV cache manager is decided."""
    size = c["cache_config.kv_offloading_size"]
    if size is None:
        return None
    backend = c["cache_config.kv_offloading_backend"]
    out: dict[str, Any] = {_KVT: True, f"{_KVT}.kv_role": "kv_both"}
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


DELTA = Delta(
    replace=(eplb_requirements, kv_offloading),
    add=(eplb_no_redundant_experts, dcp_divides_tp),
    defaults=DEFAULTS,
    drop=DROPS,
    fields_added=FIELDS_ADDED,
    fields_removed=FIELDS_REMOVED,
)
