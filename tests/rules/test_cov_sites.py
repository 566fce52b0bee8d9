"""Rules added for vLLM config sites the golden corpus reached only with the coverage cases (``n###``, issue 30).

Each test pins one decision as the seed (d7fb10c57) or 0.11.1 makes it; the golden cases named in the docstrings
are the real answers.
"""

from __future__ import annotations

import json
from typing import Any

import postinit
from postinit.engine import Outcome, Violation
from postinit.rules import engine_args, load, model_config, observability, parallel, speculative
from postinit.rules._kit import state
from postinit.rules.platforms import cpu

LLAMA = ["tests/golden/models/llama"]


def _message(result: Any) -> str | None:
    assert isinstance(result, Violation), result
    return result.message


def test_all2all_env_warning_only_outside_the_parser() -> None:
    """n008: ``vllm serve``'s parser already logged the warning_once; a config built directly logs it."""
    env = {"VLLM_ALL2ALL_BACKEND": "naive"}
    cli = parallel.all2all_backend_default(state(env=env, usage__via_engine_args=True))
    assert cli == {"parallel_config.all2all_backend": "naive"}
    direct = parallel.all2all_backend_default(state(env=env))
    assert isinstance(direct, Outcome) and direct.level == "warning" and "deprecated" in (direct.message or "")


def test_ray_is_taken_as_not_installed() -> None:
    """n010, n011, n014: the ray executor, nsight profiling and a world larger than the node all need Ray."""
    assert "Failed to import Ray" in (_message(parallel.ray_importable(
        state({"parallel_config.distributed_executor_backend": "ray"}))) or "")
    assert _message(parallel.ray_importable(state({"parallel_config.ray_workers_use_nsight": True}))) == \
        "Unable to use nsight profiling unless workers run with Ray."
    assert parallel.ray_importable(state()) is None
    big = state({"parallel_config.world_size": 16, "parallel_config.distributed_executor_backend": None},
                platform="h100")
    assert (_message(parallel.executor_backend_multi(big)) or "").startswith("Unable to load Ray")


def test_sleep_mode_platforms() -> None:
    """n027: the seed has sleep mode on CUDA only; 0.11.1 on ROCm too."""
    on = {"model_config": True, "model_config.enable_sleep_mode": True}
    assert _message(model_config.sleep_mode_platform(state(on, platform="cpu"))) == \
        "Sleep mode is not supported on current platform."
    assert model_config.sleep_mode_platform(state(on, platform="h100")) is None
    assert model_config.sleep_mode_platform(state(on, platform="rocm"), platforms=("cuda", "rocm")) is None
    r = postinit.resolve(argv=[*LLAMA, "--enable-sleep-mode"], platform="rocm", vllm_version="0.11.1")
    assert r.error is None


def test_default_mm_loras_need_a_multimodal_model() -> None:
    """n060: refused in create_engine_config for a text-only model."""
    s = state({"usage.via_engine_args": True, "model_config": True, "lora_config": True,
               "lora_config.default_mm_loras": {"image": "x"}})
    assert "non multimodal model" in (_message(engine_args.mm_loras_need_multimodal(s)) or "")
    r = postinit.resolve(argv=[*LLAMA, "--enable-lora", "--default-mm-loras", '{"image": "x"}'], platform="h100")
    assert r.error is not None and r.error.stage == "create_engine_config"


def test_bitsandbytes_checkpoint_load_format() -> None:
    """n030: a bitsandbytes checkpoint loads with the bitsandbytes loader."""
    s = state({"usage.via_engine_args": True, "model_config": True, "model_config.quantization": "bitsandbytes"})
    assert engine_args.bitsandbytes_load_format(s) == {"load_config.load_format": "bitsandbytes"}
    assert engine_args.bitsandbytes_load_format(state({"usage.via_engine_args": True, "model_config": True})) is None


def test_tracing_and_ignore_patterns() -> None:
    """n070, n067: detailed traces need an endpoint; non-default download patterns are logged as a list."""
    s = state({"observability_config.collect_detailed_traces": ["all"]})
    assert "otlp-traces-endpoint" in (_message(observability.detailed_traces_endpoint(s)) or "")
    logged = load.ignore_patterns_logged(state({"load_config.ignore_patterns": ["*.pt"]}))
    assert isinstance(logged, Outcome) and logged.args == {"patterns": "['*.pt']"}
    assert load.ignore_patterns_logged(state()) is None


def test_speculative_checks() -> None:
    """n074, n075, n078, n083: n-gram without a token count, pydantic's bounds, the MTP warning."""
    ngram = {"speculative_config": True, "speculative_config.method": "ngram"}
    assert "num_speculative_tokens must be provided" in (_message(speculative.num_tokens_required(state(ngram))) or "")
    zero = speculative.field_bounds(state({**ngram, "speculative_config.num_speculative_tokens": 0,
                                           "speculative_config.draft_tensor_parallel_size": 0}))
    assert isinstance(zero, Violation) and zero.error == "ValidationError"
    assert zero.message.startswith("2 validation errors for SpeculativeConfig\nnum_speculative_tokens\n  Input should "
                                   "be greater than 0 [type=greater_than, input_value=0, input_type=int]")
    one = speculative.disable_by_batch_size_bound(state({**ngram, "speculative_config.disable_by_batch_size": 1}))
    assert isinstance(one, Violation) and "greater than or equal to 2" in one.message
    mtp = state({"speculative_config": True, "speculative_config.method": "mtp", "model_config": True,
                 "speculative_config.num_speculative_tokens": 2, "model_config.hf_config.model_type": "deepseek_v3"})
    assert isinstance(speculative.mtp_several_tokens_warning(mtp), Outcome)


def test_cpu_fp16_cast_comes_after_the_fp8_check() -> None:
    """n089: with chunked prefill on, the FP8 check raises first: nothing is cast or logged."""
    s = state({"cache_config.cache_dtype": "fp8_e5m2", "model_config": True, "model_config.dtype": "float16",
               "scheduler_config.chunked_prefill_enabled": True}, platform="cpu")
    assert cpu.fp8_kv_fp16_to_bf16(s) is None


def test_hidden_metrics_version_is_pep440() -> None:
    """n169: packaging refuses a version string that is not PEP 440 (InvalidVersion, wrapped by pydantic)."""
    bad = observability.hidden_metrics_version(state({"observability_config.show_hidden_metrics_for_version": "x.y"}))
    assert isinstance(bad, Violation) and bad.error == "InvalidVersion" and bad.message == "Invalid version: 'x.y'"
    for good in ("0.10", "v1.2.3rc1", "2!1.0.post2.dev3+local.7"):
        assert observability.hidden_metrics_version(
            state({"observability_config.show_hidden_metrics_for_version": good})) is None


def test_0111_scheduler_bounds_before_post_init() -> None:
    """n021 (0.11.1): pydantic's bound on num_lookahead_slots fails in create_engine_config, unwrapped."""
    from postinit.rules import v0_11_1

    bad = v0_11_1.scheduler_field_bounds(state({"scheduler_config.num_lookahead_slots": -1}, version="0.11.1"))
    assert isinstance(bad, Violation) and bad.error == "ValidationError"
    assert bad.message.endswith("https://errors.pydantic.dev/2.12/v/greater_than_equal")
    r = postinit.resolve(argv=[*LLAMA, "--num-lookahead-slots", "-1"], platform="h100", vllm_version="0.11.1")
    assert r.error is not None and r.error.stage == "create_engine_config"


def test_0340_seed_warning_and_head_dtype() -> None:
    """s-n044, s-n042 (0.34.0): the seed warning without multiprocessing; an fp32 lm_head for a generation model."""
    from postinit.rules import v0_34_0_errors

    s = state({"usage.via_engine_args": True}, env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}, version="0.34.0")
    assert v0_34_0_errors.seed_without_multiprocessing(s) is not None
    r = postinit.resolve(argv=[*LLAMA, "--hf-overrides", '{"head_dtype": "float32"}'], platform="h100",
                         vllm_version="0.34.0")
    assert r.config.model_config is not None and r.config.model_config.head_dtype == "float32"


# ---- the session of 2026-12-06 (n170-n293)


def test_compilation_flag_given_twice_refused_in_create_engine_config() -> None:
    """n171, n173, n055: a dedicated compilation flag beside the same key in -O is refused after the sub-configs
    create_engine_config builds first (the parser records it; the rule raises it)."""
    on = {"usage.via_engine_args": True, "usage.given_twice": ["max_cudagraph_capture_size"]}
    assert _message(engine_args.compilation_flag_given_twice(state(on))) == \
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive"
    assert engine_args.compilation_flag_given_twice(state({"usage.via_engine_args": True})) is None
    r = postinit.resolve(argv=[*LLAMA, "--cudagraph-capture-sizes", "8", "-O", '{"cudagraph_capture_sizes": [4]}'],
                         platform="h100")
    assert r.error is not None and "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes" in str(
        r.error)


def test_tensorizer_config_built_for_the_tensorizer_loader() -> None:
    """n183: the model directory as tensorizer_dir, and the extra config's TensorizerConfig keys copied."""
    s = state({"usage.via_engine_args": True, "model_config": True, "model_config.model": "m",
               "load_config.load_format": "tensorizer",
               "load_config.model_loader_extra_config": {"tensorizer_uri": "u", "other": 1}})
    out = engine_args.tensorizer_config(s)
    assert out == {"load_config.model_loader_extra_config": {
        "tensorizer_uri": "u", "other": 1, "tensorizer_config": {"tensorizer_dir": "m", "tensorizer_uri": "u"}}}
    assert engine_args.tensorizer_config(state({"usage.via_engine_args": True, "model_config": True})) is None


def test_multimodal_config_validators_and_limits() -> None:
    """n202-n205: per-modality limit options, the backend by enum name, an unknown backend and a shm size without
    the shm cache refused (0.11.1 with its own text)."""
    mm = {"model_config": True, "model_config.is_multimodal_model": True}
    bad = {**mm, "model_config.multimodal_config": {"mm_encoder_attn_backend": "nope", "mm_processor_cache_type": "lru",
                                                    "mm_shm_cache_max_object_size_mb": 128}}
    assert (_message(model_config.multimodal_config_validators(state(bad))) or "").startswith(
        "Invalid mm encoder attention backend. Expected one of: CUTLASS_MLA,")
    shm = {**mm, "model_config.multimodal_config": {"mm_processor_cache_type": "lru",
                                                    "mm_shm_cache_max_object_size_mb": 64}}
    assert "should only be set when" in (_message(model_config.multimodal_config_validators(state(shm))) or "")
    assert model_config.dummy_options("video", {"count": 1, "num_frames": 8}) == \
        {"count": 1, "num_frames": 8, "width": None, "height": None}
    assert model_config.dummy_options("image", 2) == {"count": 2, "width": None, "height": None}
    assert model_config.dummy_options("text", {"count": 1}) == {"count": 1}


def test_sentence_transformers_found_records() -> None:
    """n282: vLLM logs finding modules.json, its Pooling module and sentence_bert_config.json."""
    st = {"model_config": True, "model_config.runner": "auto", "model_config.hf_config.st_normalize": False,
          "model_config.hf_config.st_pooling_type": "MEAN", "model_config.hf_config.st_max_seq_length": 512}
    assert isinstance(model_config.st_modules_found(state(st)), Outcome)
    assert isinstance(model_config.st_pooling_found(state(st)), Outcome)
    assert isinstance(model_config.st_tokenize_found(state(st)), Outcome)
    assert model_config.st_modules_found(state({"model_config": True})) is None
    assert model_config.st_tokenize_found(state({"model_config": True})) is None


def test_mtp_n_predict_must_divide_more_tokens() -> None:
    """n256: 3 tokens over 2 MTP layers of the target's checkpoint are refused; 4 are not."""
    base = {"speculative_config": True, "speculative_config.method": "mtp", "speculative_config.model": "m",
            "model_config": True, "model_config.model": "m", "model_config.hf_config.model_type": "deepseek_v3",
            "model_config.hf_config.num_nextn_predict_layers": 2}
    assert _message(speculative.mtp_n_predict_divides(state({**base, "speculative_config.num_speculative_tokens": 3}))) \
        == "num_speculative_tokens:3 must be divisible by n_predict=2"
    assert speculative.mtp_n_predict_divides(state({**base, "speculative_config.num_speculative_tokens": 4})) is None


def test_modelopt_checkpoint_warning() -> None:
    """n192, n193: the ModelOpt config classes warn that the checkpoint format is experimental."""
    from postinit.rules import verify

    fp8 = {"model_config": True, "quant_config": True, "quant_config.method": "modelopt",
           "model_config.hf_config.quantization_config": {"quantization": {"quant_algo": "FP8"}}}
    out = verify.modelopt_checkpoint_warning(state(fp8))
    assert isinstance(out, Outcome)
    assert verify.modelopt_checkpoint_warning(state({**fp8, "quant_config.method": "fp8"})) is None


def test_kv_heads_of_mpt_and_dbrx() -> None:
    """n299, n301: MPT's attn_config keeps no kv_n_heads (transformers drops it), so its KV heads are its attention
    heads; DBRX's attn_config always has kv_n_heads (1 when config.json does not give it)."""
    from postinit.rules.models import total_num_kv_heads

    mpt = {"model_config.hf_config.model_type": "mpt", "model_config.hf_text_config.num_attention_heads": 8,
           "model_config.hf_config.attn_config": {"kv_n_heads": 2}}
    assert total_num_kv_heads(state(mpt)) == 8
    dbrx = {**mpt, "model_config.hf_config.model_type": "dbrx"}
    assert total_num_kv_heads(state(dbrx)) == 2
    assert total_num_kv_heads(state({**dbrx, "model_config.hf_config.attn_config": None})) == 1
    r = postinit.resolve(argv=["tests/golden/models/cvo_dbrx", "-tp", "4", "--decode-context-parallel-size", "2"])
    assert r.error is None
    r = postinit.resolve(argv=["tests/golden/models/cvo_mpt", "-tp", "4", "--decode-context-parallel-size", "2"])
    assert r.error is not None and "total num kv heads 8" in r.error.message


def test_kv_heads_fall_back_to_attention_heads() -> None:
    """n300: with every KV-head key unset the KV heads are the attention heads."""
    from postinit.rules.models import total_num_kv_heads

    s = {"model_config.hf_text_config.num_attention_heads": 8, "model_config.hf_text_config.num_key_value_heads": None}
    assert total_num_kv_heads(state(s)) == 8


def test_head_size_per_head() -> None:
    """n303: PLaMo2's hidden_size_per_head is the head size when head_dim is unset."""
    from postinit.rules.models import head_size

    s = {"model_config.hf_text_config.hidden_size": 256, "model_config.hf_text_config.num_attention_heads": 8}
    assert head_size(state(s)) == 32
    assert head_size(state({**s, "model_config.hf_text_config.hidden_size_per_head": 64})) == 64
    assert head_size(state({**s, "model_config.hf_text_config.hidden_size_per_head": 64,
                            "model_config.hf_text_config.head_dim": 16})) == 16


def test_num_experts_as_a_list() -> None:
    """n302: a list-valued num_experts (Ernie VL's remote code) counts its first element."""
    r = postinit.resolve(argv=[*LLAMA, "--hf-overrides", '{"num_experts": [4, 4]}', "--enable-expert-parallel",
                               "-tp", "2"])
    assert r.error is None
    r = postinit.resolve(argv=[*LLAMA, "--hf-overrides", '{"num_experts": [0, 4]}', "--enable-expert-parallel",
                               "-tp", "2"])
    assert r.error is not None and "Number of experts" in r.error.message


def test_dtype_fallback_names_the_cpu() -> None:
    """n315: the CPU platform's get_device_name() is 'cpu', and it has no compute capability."""
    r = postinit.resolve(argv=["tests/golden/models/cvo_llama_f64"], platform="cpu",
                         env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert any("Your device 'cpu' doesn't support torch.float64" in (e.message or "") for e in r.trace.events
               if hasattr(e, "message"))


def test_mtp_needs_a_target_model() -> None:
    """n328: a config built without a model has no target to take the MTP layers from."""
    s = {"speculative_config": True, "speculative_config.method": "mtp", "speculative_config.num_speculative_tokens": 1,
         "model_config": False}
    assert _message(speculative.draft_model_from_method(state(s))) == "target_model_config must be present for mtp"


def test_nnodes_with_the_executor_left_unset() -> None:
    """n318, n163: 0.11.1 checks --nnodes after defaulting the executor: mp for several workers passes, uni for one
    does not."""
    ok = postinit.resolve(argv=[*LLAMA, "-tp", "8", "--nnodes", "2"], vllm_version="0.11.1")
    assert ok.error is None and ok.config.parallel_config.distributed_executor_backend == "mp"
    bad = postinit.resolve(argv=[*LLAMA, "-dp", "4", "--nnodes", "2", "--node-rank", "1"], vllm_version="0.11.1")
    assert bad.error is not None and "nnodes > 1 can only be set" in bad.error.message


def test_async_scheduling_left_none() -> None:
    """n336, n337: the seed's SchedulerConfig refuses None; 0.11.1's VllmConfig decides: on, or off with a warning
    under pipeline parallelism (or speculation)."""
    from postinit.rules import scheduler

    refused = scheduler.async_scheduling_bool(state({"scheduler_config.async_scheduling": None}))
    assert isinstance(refused, Violation) and refused.error == "ValidationError"
    assert "Input should be a valid boolean" in refused.message
    assert scheduler.async_scheduling_bool(state({"scheduler_config.async_scheduling": False})) is None
    llama = "tests/golden/models/llama"
    on = postinit.resolve(model=llama, config={"scheduler_config": {"async_scheduling": None}}, vllm_version="0.11.1")
    assert on.error is None and on.config.scheduler_config.async_scheduling is True
    off = postinit.resolve(model=llama, config={"scheduler_config": {"async_scheduling": None},
                                                "parallel_config": {"pipeline_parallel_size": 2}},
                           vllm_version="0.11.1")
    assert off.error is None and off.config.scheduler_config.async_scheduling is False
    seed = postinit.resolve(model=llama, config={"scheduler_config": {"async_scheduling": None}})
    assert seed.error is not None and seed.error.type == "ValidationError"
    from postinit.rules.v0_11_1 import async_scheduling_auto

    unset = {"scheduler_config.async_scheduling": None, "parallel_config.distributed_executor_backend": "ray"}
    out = async_scheduling_auto(state(unset, version="0.11.1"))
    assert isinstance(out, Outcome) and out.changes == {"scheduler_config.async_scheduling": False}
    assert "`ray` distributed executor backend" in (out.message or "")


def test_eagle_under_v0_refuses_chunked_prefill() -> None:
    """n335: the seed's V0 engine cannot chunk prefills for an EAGLE drafter; 0.11.1 has no V0."""
    spec = '{"model": "tests/golden/models/cvo_eagle-llama", "num_speculative_tokens": 2}'
    r = postinit.resolve(argv=[*LLAMA, "--speculative-config", spec], env={"VLLM_USE_V1": "0"})
    assert r.error is not None and r.error.message == "Chunked prefill and EAGLE are not compatible when using V0."
    r = postinit.resolve(argv=[*LLAMA, "--speculative-config", spec], env={"VLLM_USE_V1": "0"}, vllm_version="0.11.1")
    assert r.error is None
    eagle = {"speculative_config": True, "speculative_config.method": "eagle", "speculative_config.model": "d",
             "speculative_config.enable_chunked_prefill": True}
    assert _message(speculative.eagle_v0_chunked_prefill(state(eagle, env={"VLLM_USE_V1": "0"}))) == \
        "Chunked prefill and EAGLE are not compatible when using V0."
    assert speculative.eagle_v0_chunked_prefill(state(eagle)) is None


def test_mtp_draft_named_without_tokens() -> None:
    """n334: naming the MTP draft without num_speculative_tokens makes vLLM compare None with 1 (TypeError)."""
    r = postinit.resolve(argv=["tests/golden/models/deepseek_v3", "--speculative-config",
                               '{"method": "mtp", "model": "tests/golden/models/deepseek_v3"}'])
    assert r.error is not None and r.error.type == "TypeError"


def test_nomic_cap_logs_the_length_again() -> None:
    """n332: recalculate_max_model_len re-verifies the capped length and logs it (the seed and 0.11.1; 0.34.0 no
    longer caps it)."""
    argv = ["tests/golden/models/cvo_nomic_gelu", "--trust-remote-code", "--runner", "pooling"]
    for version, expected in (("d7fb10c57", ["8192", "2048"]), ("0.11.1", ["8192", "2048"]), ("0.34.0", ["8192"])):
        r = postinit.resolve(argv=argv, vllm_version=version)
        logged = [e.message.rsplit(" ", 1)[-1] for e in r.trace.events
                  if getattr(e, "message", None) and e.message.startswith("Using max model len")]
        assert logged == expected, (version, logged)
    from postinit.rules.models import nomic_bert_max_model_len_log

    assert nomic_bert_max_model_len_log(state({"model_config": True})) is None  # no architecture resolved yet


def test_mm_input_cache_env() -> None:
    """n345, n346: EngineArgs copies a VLLM_MM_INPUT_CACHE_GIB other than 4 into mm_processor_cache_gb, with the
    deprecation warning; not with --disable-mm-preprocessor-cache, nor in a config built directly."""
    env = {"VLLM_MM_INPUT_CACHE_GIB": "8"}
    out = model_config.mm_input_cache_env(state(env=env, usage__via_engine_args=True))
    assert isinstance(out, Outcome) and out.changes == {"model_config.mm_processor_cache_gb": 8}
    assert out.args == {"gib": 8}
    assert model_config.mm_input_cache_env(state(env=env)) is None
    assert model_config.mm_input_cache_env(state(env=env, usage__via_engine_args=True,
                                                 usage__disable_mm_preprocessor_cache=True)) is None
    assert model_config.mm_input_cache_env(state(usage__via_engine_args=True)) is None


def test_mm_encoder_tp_mode_fallback() -> None:
    """n347: Whisper's encoder has no data-parallel mode: --mm-encoder-tp-mode data falls back to weights."""
    r = postinit.resolve(argv=["tests/golden/models/whisper", "--mm-encoder-tp-mode", "data"])
    assert r.config.model_config.multimodal_config is not None
    assert r.config.model_config.multimodal_config["mm_encoder_tp_mode"] == "weights"
    assert any(e.rule == "model.mm-encoder-tp-mode" for e in r.trace.events)


def test_override_pooler_config() -> None:
    """n025, n348: the deprecated override_pooler_config replaces the pooler config on the pooling runner."""
    for version in ("d7fb10c57", "0.11.1"):
        r = postinit.resolve(argv=["tests/golden/models/bert", "--override-pooler-config", '{"pooling_type": "MEAN"}'],
                             vllm_version=version)
        assert r.config.model_config.pooler_config.pooling_type == "MEAN"
        assert any(e.rule == "model.override-pooler-config" for e in r.trace.events)
    assert model_config.override_pooler_config.fn(state({"model_config": True})) is None


def test_mode_by_name_per_version() -> None:
    """n343, n344: -O mode by name is the seed's pydantic int-parsing refusal; 0.11.1 takes a member name in any
    case and refuses another with its own text."""
    from postinit.errors import SubConfigError

    for version, name, refused in (("d7fb10c57", "vllm_compile", "unable to parse string as an integer"),
                                   ("0.11.1", "FAST", "Invalid compilation mode: FAST. Valid modes are: NONE, "
                                    "STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE")):
        try:
            postinit.resolve(argv=[*LLAMA, "-O", json.dumps({"mode": name})], vllm_version=version)
        except SubConfigError as e:
            assert refused in (e.vllm_message or "")
        else:
            raise AssertionError(f"{version} accepted mode {name!r}")
    r = postinit.resolve(argv=[*LLAMA, "-O", '{"mode": "vllm_compile"}'], vllm_version="0.11.1")
    assert int(r.config.compilation_config.mode) == 3


def test_medusa_draft_by_model_type() -> None:
    """n352: a draft checkpoint whose config.json says medusa is the Medusa method (not a refused plain draft model);
    MedusaConfig's own max_seq_len (2**20) is the draft's length before the target caps it."""
    for version in ("d7fb10c57", "0.11.1"):
        r = postinit.resolve(argv=[*LLAMA, "--speculative-config",
                                   '{"model": "tests/golden/models/cvo_medusa", "num_speculative_tokens": 2}'],
                             vllm_version=version)
        assert r.error is None and r.config.speculative_config.method == "medusa"
        logs = [e.message for e in r.trace.events if getattr(e, "rule", "") == "speculative.draft-max-model-len-log"]
        assert logs == ["Using max model len 1048576"]


def test_speculative_method_literal_per_version() -> None:
    """n156, n354: the seed's SpeculativeConfig refuses a method outside its Literal (0.11.1's suffix) with pydantic's
    text where create_engine_config builds it; 0.11.1 takes suffix and refuses it without Arctic Inference."""
    spec = ["--speculative-config", json.dumps({"method": "suffix", "num_speculative_tokens": 2})]
    seed = postinit.resolve(argv=[*LLAMA, *spec])
    assert seed.error is not None and seed.error.type == "ValidationError" and seed.error.stage == "create_engine_config"
    assert "Input should be 'ngram', 'eagle', 'eagle3'" in seed.error.message and "'mtp'" in seed.error.message
    v0111 = postinit.resolve(argv=[*LLAMA, *spec], vllm_version="0.11.1")
    assert v0111.error is not None and v0111.error.type == "ImportError"
    direct = speculative.method_literal(state(usage__unheld={"speculative_config.method": "suffix"}))
    assert isinstance(direct, Violation) and direct.error == "ValidationError"
    assert speculative.method_literal(state(usage__unheld={"speculative_config.method": "suffix"},
                                            usage__via_engine_args=True)) is None
    assert engine_args.speculative_method_literal(state(usage__via_engine_args=True)) is None


def test_suffix_needs_arctic_inference() -> None:
    """n156, n354 (0.11.1): suffix decoding is refused with vLLM's ImportError (Arctic Inference is not installed)."""
    from postinit.rules import v0_11_1

    out = v0_11_1.suffix_needs_arctic_inference(state({"speculative_config": True,
                                                       "speculative_config.method": "suffix"}))
    assert isinstance(out, Violation) and out.error == "ImportError"
    assert v0_11_1.suffix_needs_arctic_inference(state({"speculative_config": True,
                                                       "speculative_config.method": "ngram"})) is None
