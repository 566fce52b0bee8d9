"""vLLM 0.34.0's refusals: undeclared keywords (its ``@config`` forbids extra fields) and create_engine_config's
checks (postinit/rules/v0_34_0_errors.py). The golden cases e### pin each against the wheel."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Violation
from postinit.errors import InputError, SubConfigError
from postinit.rules import v0_34_0_errors as e
from postinit.rules._kit import state
from postinit.schema.configs import CompilationConfig
from postinit.schema.loaders.construct import refusal
from postinit.schema.usage import ENGINE_ARGS_AS_GIVEN, ENGINE_ARGS_REWRITTEN
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")


def serve(*argv: str, version: str = "0.34.0", **kw: Any) -> postinit.Resolution:
    return postinit.resolve(model=LLAMA, argv=list(argv), vllm_version=version, platform="cuda:9.0", **kw)


# ---------------------------------------------------------------- undeclared keywords


def test_a_removed_key_is_pydantics_unexpected_keyword() -> None:
    """-cc.level, a field 0.34.0 removed, is refused while parsing with pydantic's text."""
    with pytest.raises(SubConfigError) as info:
        serve("-cc", '{"level": 3}')
    assert info.value.stage == "parse" and info.value.error == "ArgumentError"
    assert info.value.vllm_message == (
        "argument --compilation-config/-cc: 1 validation error for CompilationConfig\nlevel\n  Unexpected keyword "
        "argument [type=unexpected_keyword_argument, input_value=3, input_type=int]\n    For further information "
        "visit https://errors.pydantic.dev/2.14/v/unexpected_keyword_argument")


def test_fields_errors_come_first_then_the_keywords_in_input_order() -> None:
    """A dataclass validates its fields in order (a sub-config's own keywords at its place), then the rest."""
    text = refusal(CompilationConfig, json_text='{"full_cuda_graph": true, "pass_config": {"enable_noop": true}, '
                   '"compile_sizes": "abc", "level": 1}',
                   absent=["level", "full_cuda_graph", "pass_config.enable_noop"])
    assert text is not None
    locs = [line for line in text.splitlines()[1:] if not line.startswith(" ")]
    assert text.startswith("4 validation errors for CompilationConfig")
    assert locs == ["compile_sizes", "pass_config.enable_noop", "full_cuda_graph", "level"]
    assert "Input should be a valid array" in text  # JSON input's wording, as vLLM's parser validates JSON


def test_a_key_no_version_has_is_vllms_refusal_too() -> None:
    """A typo is refused as vLLM refuses it, not in postinit's words."""
    with pytest.raises(SubConfigError, match="cudagraph_capture_size: Unexpected keyword argument"):
        serve("-cc", '{"cudagraph_capture_size": [1, 2]}')


def test_older_versions_still_ignore_a_removed_key() -> None:
    """0.11.1's dataclasses ignore an undeclared keyword: the seed-era key is dropped with a note there."""
    r = postinit.resolve(config={"model_config": {"model": LLAMA}, "compilation_config": {"use_cudagraph": False}},
                         vllm_version="0.11.1", platform="cuda:9.0")
    assert r.ok and any(n.kind == "absent_field" for n in r.notes)


def test_config_mode_refuses_where_the_sub_config_is_built() -> None:
    """Config mode: the sub-config's stage, pydantic's ValidationError."""
    with pytest.raises(InputError) as info:
        postinit.resolve(config={"model_config": {"model": LLAMA}, "cache_config": {"swap_space": 4}},
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert info.value.stage == "cache_config" and info.value.error == "ValidationError"
    assert "swap_space\n  Unexpected keyword argument" in str(info.value.vllm_message)


def test_a_dataclass_flag_postinit_keeps_as_an_extra_is_validated_while_parsing() -> None:
    """--attention-config builds an AttentionConfig in vLLM's parser: an unknown key is a parse error."""
    with pytest.raises(SubConfigError, match="use_triton: Unexpected keyword argument"):
        serve("--attention-config", '{"backend": "FLASH_ATTN", "use_triton": true}')


# ---------------------------------------------------------------- data-parallel launch options


def _dp(**kw: Any) -> dict[str, Any]:
    base = {"usage.via_engine_args": True, "usage.given": (), "usage.data_parallel_start_rank": 0,
            "usage.headless": False, "parallel_config.data_parallel_size": 1,
            "parallel_config.data_parallel_size_local": 1, "parallel_config.data_parallel_rank": 0,
            "parallel_config.data_parallel_hybrid_lb": False, "parallel_config.data_parallel_external_lb": False,
            "parallel_config.data_parallel_backend": "mp", "parallel_config.nnodes": 1,
            "parallel_config.node_rank": 0, "parallel_config.pipeline_parallel_size": 1,
            "parallel_config.tensor_parallel_size": 1, "parallel_config.prefill_context_parallel_size": 1,
            "parallel_config.enable_fault_tolerance": False, "model_config.is_moe": False}
    merged = {**base, **kw}
    # the door records the load-balancing flags as given (usage.given_on): the rule reads those, not the config's
    merged["usage.given_on"] = tuple(p for p in ENGINE_ARGS_REWRITTEN if merged.get(p))
    merged["usage.given_values"] = {p: merged[p] for p in ENGINE_ARGS_AS_GIVEN}  # and the DP size and rank
    return state(merged)


@pytest.mark.parametrize(("given", "start"), [
    ({"parallel_config.data_parallel_hybrid_lb": True, "parallel_config.data_parallel_external_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` and `--data-parallel-external-lb`"),
    ({"parallel_config.nnodes": 2, "parallel_config.data_parallel_backend": "ray"},
     "Invalid data-parallel launch options: `--nnodes 2` requires `--data-parallel-backend mp`"),
    ({"parallel_config.nnodes": 2}, "Invalid data-parallel launch options: `--nnodes 2` must evenly divide"),
    ({"parallel_config.nnodes": 2, "parallel_config.data_parallel_size": 2, "parallel_config.node_rank": 2},
     "Invalid data-parallel launch options: `--node-rank` must be between 0 and 1"),
    ({"parallel_config.enable_fault_tolerance": True}, "Fault tolerance requires external load balancer mode"),
    ({"parallel_config.data_parallel_size": 2, "usage.given": ("parallel_config.data_parallel_rank",)},
     "Non-MoE models do not support external data parallel mode."),
    ({"parallel_config.data_parallel_external_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-external-lb` requires a data-parallel rank."),
    ({"parallel_config.data_parallel_hybrid_lb": True},
     "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` requires `--data-parallel-size-local`."),
])
def test_the_data_parallel_launch_refusals(given: dict[str, Any], start: str) -> None:
    """Each of 0.34.0's data-parallel refusals is a ValueError naming the flags."""
    out = e.data_parallel_lb_check(_dp(**given))
    assert isinstance(out, Violation) and out.error == "ValueError" and out.message.startswith(start)


def test_a_moe_model_may_be_data_parallel_behind_an_external_balancer() -> None:
    """An external DP rank on a MoE model is accepted: one local rank, no hybrid LB."""
    c = _dp(**{"parallel_config.data_parallel_size": 2, "model_config.is_moe": True,
               "usage.given": ("parallel_config.data_parallel_rank",), "parallel_config.data_parallel_rank": 1,
               "parallel_config.data_parallel_size_local": 2})
    assert e.data_parallel_lb_check(c) is None
    assert e.data_parallel_lb(c) == {"parallel_config.data_parallel_size_local": 1,
                                     "parallel_config.data_parallel_external_lb": True}


# ---------------------------------------------------------------- create_engine_config and its sub-configs


def test_pipeline_parallelism_needs_an_executor_that_supports_it() -> None:
    """-pp 2 on the uni executor is NotImplementedError, before the chunked-prefill defaults are logged."""
    r = serve("-pp", "2", "--distributed-executor-backend", "uni")
    assert r.error is not None and r.error.type == "NotImplementedError"
    assert not any(e.rule == "engine-args.chunked-prefill-default" for e in r.trace.fired)


@pytest.mark.parametrize(("platform", "backend", "refused"), [
    ("cuda:9.0", "flashkda", False), ("rocm", "flashkda", True), ("rocm", "fused", False), ("cuda:9.0", "fused", True),
])
def test_kda_prefill_backends_by_platform(platform: str, backend: str, refused: bool) -> None:
    """flashkda is CUDA's, fused ROCm's; the choice lands in additional_config (a hash factor)."""
    r = postinit.resolve(model=LLAMA, argv=["--kda-prefill-backend", backend], vllm_version="0.34.0",
                         platform=platform)
    assert (r.error is not None) == refused
    if not refused:
        assert r.config.additional_config == {"kda_prefill_backend": backend}


@pytest.mark.parametrize(("kind", "cap", "backend", "refused"), [
    (True, 90, "TRITON", True), (True, 100, "TRITON", False), (True, 90, "flashinfer", False), (False, 0, "TRITON", True),
])
def test_mamba_stochastic_rounding_platform(kind: bool, cap: int, backend: str, refused: bool) -> None:
    """Stochastic rounding: CUDA only, and with Triton SM 10.x only."""
    c = state({"mamba_config.enable_stochastic_rounding": True, "mamba_config.backend": backend,
               "platform.is_cuda": kind, "platform.capability": cap})
    assert isinstance(e.mamba_stochastic_rounding_platform(c), Violation) == refused


@pytest.mark.parametrize(("profiler", "refusal"), [
    ({"profiler": "torch"}, "torch_profiler_dir must be set when profiler is 'torch'"),
    ({"torch_profiler_dir": "/p"}, "torch_profiler_dir is only applicable when profiler is set to 'torch'"),
    ({"profiler": "torch", "torch_profiler_dir": "/p", "proton_data": "trace"},
     "proton_data only applicable when profiler is set to 'proton'"),
    ({"profiler": "torch", "torch_profiler_dir": "/p"}, None),
])
def test_profiler_options(profiler: dict[str, Any], refusal: str | None) -> None:
    """Each profiler's options only with it, and its directory set (profiler.options-checks at ProfilerConfig's stage)."""
    r = postinit.resolve(config={"model_config": {"model": LLAMA}, "profiler_config": profiler},
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert (r.error.message if r.error else None) == refusal
    if refusal:
        assert r.error is not None and r.error.stage == "profiler_config" and r.error.wrapped_by == "ValidationError"


@pytest.mark.parametrize("argv", [
    ("--attention-backend", "FLASH_ATTN", "--attention-config", '{"backend": "TRITON_ATTN"}'),
    ("--enable-flashinfer-autotune", "--kernel-config", '{"enable_flashinfer_autotune": false}'),
    ("--cudagraph-capture-sizes", "1", "2", "-cc", '{"cudagraph_capture_sizes": [1]}'),
])
def test_a_field_given_twice_is_refused_in_create_engine_config(argv: tuple[str, ...]) -> None:
    """A flag and the same key in its sub-config's JSON: a ValueError of create_engine_config, not of the parser."""
    r = serve(*argv)
    assert r.error is not None and r.error.stage == "create_engine_config"
    assert r.error.message.endswith("are mutually exclusive")


def test_max_model_len_auto_is_the_derived_length() -> None:
    """--max-model-len -1 / auto: ModelConfig derives the length, as for an unset one."""
    assert serve("--max-model-len", "auto").config.model_config.max_model_len == 4096
    assert serve("--max-model-len", "-1").config.model_config.max_model_len == 4096


@pytest.mark.parametrize(("dtype", "mla", "dcp", "refused"), [
    ("nvfp4", True, 1, True), ("nvfp4", False, 1, False), ("nvfp4_ds_mla", True, 1, False),
    ("nvfp4_ds_mla", True, 2, True), ("fp8", True, 2, False),
])
def test_nvfp4_kv_cache_mla(dtype: str, mla: bool, dcp: int, refused: bool) -> None:
    """The plain nvfp4 layout does not fit MLA; the ds_mla one excludes DCP."""
    c = state({"cache_config.cache_dtype": dtype, "parallel_config.decode_context_parallel_size": dcp,
               "model_config": True, "model_config.use_mla": mla})
    assert isinstance(e.nvfp4_kv_cache_mla(c), Violation) == refused


def test_default_mm_loras_need_a_multimodal_model() -> None:
    """A modality's default LoRA on a text-only model is refused after SchedulerConfig is built."""
    c = state({"usage.via_engine_args": True, "model_config": True, "model_config.is_multimodal_model": False,
               "lora_config": True, "lora_config.default_mm_loras": {"image": "/x"}})
    assert isinstance(e.default_mm_loras_need_multimodal(c), Violation)
    assert e.default_mm_loras_need_multimodal({**c, "model_config.is_multimodal_model": True}) is None


def test_the_mamba_backend_is_the_enum_name() -> None:
    """--mamba-backend flashinfer is MambaBackendEnum.FLASHINFER."""
    assert e.mamba_backend_enum(state({"mamba_config.backend": "flashinfer"})) == {"mamba_config.backend": "FLASHINFER"}


@pytest.mark.parametrize("rule_id", [
    "engine-args.unsupported-feature", "engine-args.default-mm-loras-need-multimodal",
    "engine-args.attention-backend-given-twice", "engine-args.flashinfer-autotune-given-twice",
    "engine-args.capture-sizes-given-twice", "engine-args.kda-prefill-backend-platform",
])
def test_create_engine_configs_refusals_raise_there(rule_id: str) -> None:
    """Each is create_engine_config's own ValueError (or NotImplementedError): no pydantic wrapper."""
    r = postinit.rules.rulebook("0.34.0")[rule_id]
    assert r.stage == "create_engine_config"


def test_a_removed_speculative_key_is_refused_in_create_engine_config() -> None:
    """--speculative-config is a plain dict until create_engine_config builds SpeculativeConfig(**it)."""
    r = serve("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, '
              '"disable_by_batch_size": 4}')
    assert r.error is not None and (r.error.type, r.error.stage) == ("ValidationError", "create_engine_config")
    assert r.error.rule == "engine-args.speculative-config-undeclared"
    assert "disable_by_batch_size\n  Unexpected keyword argument" in r.error.message


def test_a_legacy_rope_type_key_is_standardized_in_0_34_0() -> None:
    """transformers 5 reads a legacy rope_scaling 'type' as rope_type: no KeyError, dynamic scaling applies."""
    r = serve("--hf-overrides", '{"rope_scaling": {"type": "dynamic", "factor": 2.0}}')
    assert r.ok and r.config.model_config.max_model_len == 8192


# ---------------------------------------------------------------- the Transformers backend asks transformers


@pytest.mark.parametrize("version", ["d7fb10c57", "0.11.1", "0.34.0"])
def test_an_architecture_transformers_lacks_is_refused(version: str) -> None:
    """FooBarForCausalLM is no transformers class: model_impl auto refuses it as unsupported, transformers as
    'Cannot find model module' (model.architecture-supported, as vLLM's registry asks transformers)."""
    pytest.importorskip("transformers")
    model = fixture_path("llama_unknown_arch")
    auto = postinit.resolve(model=model, argv=[], vllm_version=version, platform="cuda:9.0")
    assert auto.error is not None and "are not supported for now" in auto.error.message
    forced = postinit.resolve(model=model, argv=["--model-impl", "transformers"], vllm_version=version,
                              platform="cuda:9.0")
    assert forced.error is not None and forced.error.message.startswith("Cannot find model module.")


def test_a_transformers_class_loads_through_the_backend() -> None:
    """LlamaForCausalLM with --model-impl transformers: the Transformers backend class."""
    pytest.importorskip("transformers")
    r = serve("--model-impl", "transformers")
    assert r.ok and r.config.model_config.architecture == "TransformersForCausalLM"


def test_an_unknown_kv_cache_dtype_is_cache_configs_refusal() -> None:
    """0.34.0's parser takes any --kv-cache-dtype; CacheConfig's field validator refuses an unknown one
    (cache.cache-dtype-known), after the model config's records."""
    r = serve("--kv-cache-dtype", "int4")
    assert r.error is not None and (r.error.stage, r.error.type, r.error.wrapped_by) == (
        "cache_config", "ValueError", "ValidationError")
    assert r.error.message.startswith("Invalid kv_cache_dtype: 'int4'. Valid values are: ['auto', 'float16'")
    assert any(e.rule == "model.architecture" for e in r.trace.fired)


def test_custom_ops_base_modes_are_a_value_error_in_0_34_0() -> None:
    """custom_ops with 'all' and 'none': 0.34.0's ValueError in its own words."""
    r = postinit.resolve(config={"model_config": {"model": LLAMA}, "compilation_config": {"custom_ops": ["all", "none"]}},
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert r.error is not None and r.error.type == "ValueError"
    assert r.error.message == "custom_ops can contain only one base mode: 'all' or 'none'"


def test_a_removed_pooler_parameter_is_named_by_poolerconfig() -> None:
    """PoolerConfig's before-validator names the removed normalize before pydantic sees the keyword."""
    with pytest.raises(SubConfigError, match=r"Parameter `normalize` was removed; use `use_activation` instead\."):
        serve("--pooler-config", '{"normalize": true}')


@pytest.mark.parametrize(("argv", "stage", "error", "start"), [
    (("-cc", '{"custom_ops": ["+rms_norm", "-rms_norm"]}'), "parse", "ArgumentError",
     "argument --compilation-config/-cc: 1 validation error for CompilationConfig\n  Value error, custom_ops cannot "
     "both enable and disable the same operation(s): rms_norm."),
    (("-cc", '{"mode": "fast"}'), "parse", "ArgumentError",
     "argument --compilation-config/-cc: 1 validation error for CompilationConfig\nmode\n  Value error, Invalid "
     "compilation mode: fast."),
    (("-cc", '{"cudagraph_mode": "SOMETIMES"}'), "parse", "KeyError", "'SOMETIMES'"),
    (("--collect-detailed-traces", "all"), "observability_config", "ValueError",
     "collect_detailed_traces requires `--otlp-traces-endpoint` to be set."),
    (("--speculative-config", '{"method": "ngram", "prompt_lookup_max": 3}'), "speculative_config", "ValueError",
     "num_speculative_tokens must be provided"),
])
def test_common_mistakes_are_refused_as_vllm_refuses_them(argv: tuple[str, ...], stage: str, error: str,
                                                        start: str) -> None:
    """compilation.custom-ops-conflicting, the mode names, observability.detailed-traces-need-otlp,
    speculative.verify-args: vLLM's exception, text and stage."""
    try:
        r = serve(*argv)
    except InputError as e:
        got = (e.stage, e.error, str(e.vllm_message))
    else:
        assert r.error is not None
        got = (r.error.stage, r.error.type, r.error.message)
    assert got[:2] == (stage, error) and got[2].startswith(start)


def test_the_ssu_algorithm_needs_flashinfer() -> None:
    """mamba.ssu-algorithm-backend: EngineArgs re-runs MambaConfig's checks, so the error is not wrapped."""
    r = postinit.resolve(model=fixture_path("jamba"), argv=["--mamba-ssu-algorithm", "simple"],
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert r.error is not None and (r.error.stage, r.error.wrapped_by) == ("mamba_config", None)


# ---------------------------------------------------------------- refused where vLLM refuses it, after its records


def _fired(r: postinit.Resolution) -> set[str]:
    return {e.rule for e in r.trace.fired}


def test_a_cache_bound_is_refused_where_create_engine_config_builds_cacheconfig() -> None:
    """engine-args.cache-config-fields: --gpu-memory-utilization 1.5 is pydantic's ValidationError (not wrapped),
    at stage create_engine_config, after the model config and the chunked-prefill defaults logged."""
    r = serve("--gpu-memory-utilization", "1.5")
    assert r.error is not None and (r.error.stage, r.error.type, r.error.wrapped_by, r.error.rule) == (
        "create_engine_config", "ValidationError", None, "engine-args.cache-config-fields")
    assert r.error.message.startswith("1 validation error for CacheConfig\ngpu_memory_utilization\n  Input should be "
                                      "less than or equal to 1 [type=less_than_equal, input_value=1.5")
    assert {"model.max-model-len-log", "engine-args.chunked-prefill-default"} <= _fired(r)
    assert "engine-args.batch-defaults-large-gpu" not in _fired(r)  # set after CacheConfig in 0.34.0


def test_a_scheduler_bound_is_refused_where_schedulerconfig_is_built() -> None:
    """engine-args.scheduler-config-fields: --max-num-seqs 0 after the batch defaults logged; EngineArgs defaulted
    the token budget from it (0), so SchedulerConfig refuses both."""
    r = serve("--max-num-seqs", "0")
    assert r.error is not None and (r.error.stage, r.error.type, r.error.rule) == (
        "create_engine_config", "ValidationError", "engine-args.scheduler-config-fields")
    assert r.error.message.startswith("2 validation errors for SchedulerConfig\nmax_num_batched_tokens\n  Input "
                                      "should be greater than or equal to 1")
    assert "\nmax_num_seqs\n" in r.error.message


def test_older_versions_refuse_a_bound_at_the_door() -> None:
    """0.11.1 keeps the door's refusal (version.refused_where_built is 0.34.0's)."""
    with pytest.raises(InputError):
        serve("--gpu-memory-utilization", "1.5", version="0.11.1")


def test_config_mode_refuses_a_cache_bound_as_cacheconfig() -> None:
    """In config mode the sub-config is built from the dict: stage cache_config, pydantic's text."""
    with pytest.raises(SubConfigError) as info:
        postinit.resolve(config={"model_config": {"model": LLAMA}, "cache_config": {"gpu_memory_utilization": 0}},
                         vllm_version="0.34.0", platform="cuda:9.0")
    assert (info.value.stage, info.value.error) == ("cache_config", "ValidationError")
    assert "Input should be greater than 0" in str(info.value.vllm_message)


@pytest.mark.parametrize("method", ["foo", "medusa", "mlp_speculator"])
def test_a_method_0_34_0_lacks_is_the_field_validators_refusal(method: str) -> None:
    """speculative.method-known: an unknown method, or one 0.34.0 removed, before SpeculativeConfig's own checks."""
    r = serve("--speculative-config", f'{{"method": "{method}", "num_speculative_tokens": 2}}')
    assert r.error is not None and (r.error.stage, r.error.rule, r.error.wrapped_by) == (
        "speculative_config", "speculative.method-known", "ValidationError")
    assert r.error.message.startswith(f"Unknown speculative method {method!r}. Built-in methods: "
                                      "['bailing_hybrid_mtp', ")
    assert r.error.wrapper_message is not None and "\nmethod\n  Value error, " in r.error.wrapper_message
    assert e.speculative_method_known.__name__ == "speculative_method_known"


def test_every_method_0_34_0_has_is_modelled() -> None:
    """version.unmodelled_values is empty for the speculative method since postinit models 0.34.0's suffix,
    ngram_gpu, DFlash, DSpark, ... (the door would refuse a method vLLM has and postinit does not)."""
    from postinit.rules import v0_34_0_errors

    assert v0_34_0_errors._UNMODELLED_METHODS == []
    r = serve("--speculative-config", '{"method": "suffix", "num_speculative_tokens": 2}')
    assert r.ok and r.state["speculative_config.method"] == "suffix"


@pytest.mark.parametrize(("backend", "error", "message"), [
    ("foo", "ValueError", "not enough values to unpack (expected 2, got 1)"),
    ("my_pkg.MyExecutor", "ModuleNotFoundError", "No module named 'my_pkg'"),
])
def test_an_executor_backend_is_imported_as_a_class(backend: str, error: str, message: str) -> None:
    """parallel.executor-backend-class: ParallelConfig takes any text; VllmConfig imports it when it picks the
    executor class."""
    r = serve("--distributed-executor-backend", backend)
    assert r.error is not None and (r.error.stage, r.error.type, r.error.message, r.error.rule) == (
        "vllm_config", error, message, "parallel.executor-backend-class")


def test_unknown_vllm_variables_are_warned_of_before_the_model_config() -> None:
    """engine-args.validate-environ: one warning per VLLM_* name envs.py does not define."""
    r = serve(env={"VLLM_USE_V1": "0", "VLLM_ATTENTION_BACKEND": "FLASH_ATTN"})
    assert r.ok
    said = [e.message for e in r.trace.fired if e.rule == "engine-args.validate-environ"]
    assert said == ["Unknown vLLM environment variable detected: VLLM_USE_V1\n"
                    "Unknown vLLM environment variable detected: VLLM_ATTENTION_BACKEND"]


@pytest.mark.parametrize(("env", "argv", "message"), [
    ({"VLLM_USE_V1": "0"}, ("--fail-on-environ-validation",), "Unknown vLLM environment variable detected: VLLM_USE_V1"),
    ({"VLLM_USE_V2_MODEL_RUNNER": "0"}, (), "VLLM_USE_V2_MODEL_RUNNER=0 is no longer supported: Model Runner V1 has "
     "been removed. Unset this variable."),
    ({"VLLM_MARLIN_INPUT_DTYPE": "int8"}, (), "VLLM_MARLIN_INPUT_DTYPE has been removed. Marlin no longer supports"),
])
def test_environ_errors_come_before_the_model_config(env: dict[str, str], argv: tuple[str, ...],
                                                     message: str) -> None:
    """validate_environ raises (not wrapped) before ModelConfig is built: no model record."""
    r = serve(*argv, env=env)
    assert r.error is not None and (r.error.stage, r.error.type, r.error.wrapped_by) == (
        "create_engine_config", "ValueError", None)
    assert r.error.message.startswith(message)
    assert "model.architecture" not in _fired(r)
    assert e.validate_environ.__name__ == "validate_environ"


def test_the_v2_runner_switch_at_1_is_only_redundant() -> None:
    """VLLM_USE_V2_MODEL_RUNNER=1 is a warning."""
    r = serve(env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert r.ok and any("is redundant and can be unset" in (ev.message or "") for ev in r.trace.fired)


def test_older_versions_do_not_validate_the_environment() -> None:
    """0.11.1 has no validate_environ: an unknown variable is only postinit's note."""
    r = serve(env={"VLLM_USE_V2_MODEL_RUNNER": "0"}, version="0.11.1")
    assert r.ok


def test_poolerconfig_checks_and_logs_while_parsing() -> None:
    """model.pooler-logit-sigma-nonzero: --pooler-config's PoolerConfig runs its __post_init__ in the parser."""
    bert = fixture_path("bert")
    with pytest.raises(SubConfigError) as info:
        postinit.resolve(model=bert, argv=["--pooler-config", '{"logit_sigma": 0}'], vllm_version="0.34.0",
                         platform="cuda:9.0")
    assert (info.value.stage, info.value.error) == ("parse", "ArgumentError")
    assert str(info.value.vllm_message).startswith("argument --pooler-config: 1 validation error for PoolerConfig\n"
                                                   "  Value error, logit_sigma cannot be 0 (division by zero)")


def test_a_later_flags_refusal_keeps_what_earlier_flags_logged() -> None:
    """SubConfigError.said_before: --pooler-config logged its resolution before -cc was refused."""
    with pytest.raises(SubConfigError) as info:
        serve("--runner", "pooling", "--convert", "embed", "--pooler-config", '{"pooling_type": "MEAN"}',
              "-cc", '{"level": 3}')
    assert ("model.pooler-pooling-type", "debug", "Resolved `pooling_type='MEAN'` to `seq_pooling_type='MEAN'`.") \
        in info.value.said_before


def test_the_chunked_local_attention_warning_stands_before_the_explicit_enable_error() -> None:
    """scheduler.hma-chunked-local-attention-warning: vLLM warns before --enable-hybrid-kv-cache-manager makes it
    an error (the record is kept)."""
    r = postinit.resolve(model=fixture_path("llama4"), argv=["--enable-hybrid-kv-cache-manager"],
                         vllm_version="0.34.0", platform="cuda:9.0", env={"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"})
    assert r.error is not None and r.error.message.startswith("Hybrid KV cache manager was explicitly enabled")
    assert any(e.rule == "scheduler.hma-chunked-local-attention-warning" and e.message for e in r.trace.fired)


def test_default_mm_loras_are_checked_without_enable_lora() -> None:
    """engine-args.default-mm-loras-need-multimodal reads EngineArgs' field: no --enable-lora needed."""
    r = serve("--default-mm-loras", '{"image": "/tmp/x"}')
    assert r.error is not None and r.error.rule == "engine-args.default-mm-loras-need-multimodal"


def test_a_generation_head_dtype_is_not_logged_in_0_34_0() -> None:
    """model.head-dtype (0.34.0): a property nothing reads while resolving, so no record; fallback kept."""
    r = postinit.resolve(model=LLAMA, argv=["--dtype", "bfloat16"], vllm_version="0.34.0", platform="t4")
    assert r.config.model_config.head_dtype == r.config.model_config.dtype
    assert not any(e.rule == "model.head-dtype" and e.message for e in r.trace.fired)


def test_the_data_parallel_checks_read_the_dp_size_and_rank_as_given() -> None:
    """They run after CacheConfig (golden s-x209: its fp8 record comes first), where ParallelConfig's rules have
    rewritten the DP size from VLLM_DP_SIZE: the size the flags gave decides (usage.given_values)."""
    rank_given = {"usage.given": ("parallel_config.data_parallel_rank",)}
    env_sized = {**dict(_dp(**rank_given)), "parallel_config.data_parallel_size": 2}  # the env's, after the flags'
    assert e.data_parallel_lb_check(state(env_sized)) is None
    flag_sized = _dp(**rank_given, **{"parallel_config.data_parallel_size": 2})
    out = e.data_parallel_lb_check(flag_sized)
    assert isinstance(out, Violation) and out.message.startswith("Non-MoE models do not support external data")
    assert postinit.rules.rulebook("0.34.0")["engine-args.data-parallel-lb-check"].phase == "sub_configs"


def test_a_max_num_seqs_engine_args_took_unchecked_is_pythons_type_error() -> None:
    """An override EngineArgs takes unchecked (max_num_seqs="many") meets vLLM 0.34.0's default budget arithmetic
    (``min(max_num_seqs * max_model_len, budget)``): Python's TypeError, raised by create_engine_config, not a
    failure of postinit's rule (the deep with_changes property found it)."""
    res = serve(overrides={"scheduler_config.max_num_seqs": "many"})
    assert not res.ok and res.error is not None
    assert res.error.type == "TypeError" and res.error.stage == "create_engine_config"
    assert res.error.message == "'<' not supported between instances of 'int' and 'str'"
