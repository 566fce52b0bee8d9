"""Phase ``engine_args``: EngineArgs.create_engine_config defaults (ref 12.2, 12.3)."""

from __future__ import annotations

from typing import Any

import pytest

import postinit
from postinit.engine import Outcome, Violation, decide
from postinit.rules._kit import state
from postinit.rules.engine_args import (
    BATCH_DEFAULTS,
    CPU_ARCH_OVERRIDES,
    NON_POOLING_DEFAULTS,
    POOLING_DEFAULTS,
    async_scheduling_executor,
    async_scheduling_pipeline_parallel,
    async_scheduling_speculative,
    batch_defaults_cpu,
    batch_defaults_large_gpu,
    budget_without_chunked_prefill,
    cache_attention_free,
    cache_sliding_window,
    chunked_prefill_forced,
    cpu_arch_disables_chunked_prefill,
    cpu_arch_disables_prefix_caching,
    cpu_device_memory,
    data_parallel_lb,
    data_parallel_lb_check,
    draft_model_unsupported,
    lookahead_slots_from_speculative,
    pooling_chunked_prefill_default,
    pooling_prefix_caching_default,
    prefix_caching_default,
    tp_divisible_by_dcp,
    v1_oracle_fallback,
    v1_oracle_required,
)
from postinit.schema import Platform

EA = {"usage.via_engine_args": True, "usage.usage_context": "OPENAI_API_SERVER"}
LLM = {"usage.via_engine_args": True, "usage.usage_context": "LLM_CLASS"}
CP = "scheduler_config.enable_chunked_prefill"
APC = "cache_config.enable_prefix_caching"
TOK = "scheduler_config.max_num_batched_tokens"
SEQ = "scheduler_config.max_num_seqs"


def _changes(out: Any) -> Any:
    return out.changes if isinstance(out, Outcome) else out


# ---------------------------------------------------------------- V1 oracle


@pytest.mark.parametrize(
    ("values", "env", "feature"),
    [
        ({"model_config.logits_processor_pattern": "x.*"}, {}, "--logits-processor-pattern"),
        ({"scheduler_config.max_num_partial_prefills": 2}, {}, "Concurrent Partial Prefill"),
        ({"scheduler_config.max_long_partial_prefills": 2}, {}, "Concurrent Partial Prefill"),
        ({}, {"VLLM_ATTENTION_BACKEND": "IPEX"}, "VLLM_ATTENTION_BACKEND=IPEX"),
        ({"parallel_config.pipeline_parallel_size": 2, "parallel_config.distributed_executor_backend": "uni"}, {},
         "Pipeline Parallelism"),
        ({}, {}, None),
        ({}, {"VLLM_ATTENTION_BACKEND": "FLASHINFER"}, None),
        ({"parallel_config.pipeline_parallel_size": 2}, {}, None),
    ],
)
def test_v1_oracle_fallback(values: dict[str, Any], env: dict[str, str], feature: str | None) -> None:
    """An unsupported feature writes VLLM_USE_V1=False with vLLM's fallback warning; supported ones do nothing."""
    got = decide(v1_oracle_fallback, state({**EA, **values}, env=env))
    if feature is None:
        assert not got
    else:
        assert got.changes == {"env.VLLM_USE_V1": False}
        assert got.messages[0].startswith(feature)
        assert "is not supported by the V1 Engine. Falling back to V0." in got.messages[0]


def test_v1_oracle_cpu_sliding_window() -> None:
    """A sliding-window model on the CPU backend falls back to V0."""
    s = state({**EA, "model_config.hf_text_config.sliding_window": 4096}, platform="cpu")
    assert decide(v1_oracle_fallback, s).messages == [
        "sliding window (CPU backend) is not supported by the V1 Engine. Falling back to V0. "]


def test_v1_oracle_recommends_removing_backend() -> None:
    """A backend vLLM knows but V1 does not run (IPEX) gets the recommend-to-remove sentence."""
    got = decide(v1_oracle_fallback, state(EA, env={"VLLM_ATTENTION_BACKEND": "IPEX"}))
    assert got.messages[0].endswith(
        "We recommend to remove VLLM_ATTENTION_BACKEND=IPEX from your config in favor of the V1 Engine.")


def test_v1_oracle_respects_user_env_and_config_mode() -> None:
    """No fallback when the user set VLLM_USE_V1, nor outside EngineArgs."""
    vals = {"scheduler_config.max_num_partial_prefills": 2}
    assert v1_oracle_fallback(state({**EA, **vals}, env={"VLLM_USE_V1": "1"})) is None
    assert v1_oracle_fallback(state(vals)) is None


@pytest.mark.parametrize(("env", "raises"), [({"VLLM_USE_V1": "1"}, True), ({"VLLM_USE_V1": "0"}, False), ({}, False)])
def test_v1_oracle_required(env: dict[str, str], raises: bool) -> None:
    """VLLM_USE_V1=1 with an unsupported feature raises NotImplementedError; unset or 0 does not."""
    out = v1_oracle_required(state({**EA, "scheduler_config.max_num_partial_prefills": 2}, env=env))
    if raises:
        assert isinstance(out, Violation) and out.error == "NotImplementedError"
        assert out.message == "VLLM_USE_V1=1 is not supported with Concurrent Partial Prefill."
    else:
        assert out is None


@pytest.mark.parametrize(("method", "raises"), [("draft_model", True), ("ngram", False)])
def test_draft_model_unsupported(method: str, raises: bool) -> None:
    """Only the draft_model method is rejected by the oracle."""
    out = draft_model_unsupported(state({**EA, "speculative_config": True, "speculative_config.method": method}))
    assert isinstance(out, Violation) == raises
    if raises:
        assert isinstance(out, Violation) and out.error == "NotImplementedError"


# ---------------------------------------------------------------- _set_default_args


@pytest.mark.parametrize(
    ("runner", "user", "fires"),
    [("generate", False, True), ("generate", None, False), ("generate", True, False), ("pooling", False, False)],
)
def test_chunked_prefill_flag_ignored(runner: str, user: bool | None, fires: bool) -> None:
    """The quirk warns only about an explicit False on a non-pooling runner (the value chunked-prefill-forced overwrites)."""
    got = decide(NON_POOLING_DEFAULTS, state({**EA, "model_config.runner_type": runner, CP: user}))
    assert any("--no-enable-chunked-prefill" in m for m in got.messages) == fires
    assert ("quirk.chunked-prefill-flag-ignored" in got.rules) == fires


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({**EA, "model_config.runner_type": "generate", CP: False}, {CP: True}),
        ({**EA, "model_config.runner_type": "generate", CP: None}, {CP: True}),
        ({**EA, "model_config.runner_type": "pooling", CP: None}, None),
        ({"model_config.runner_type": "generate", CP: False}, None),
    ],
)
def test_chunked_prefill_forced(values: dict[str, Any], expected: Any) -> None:
    """Every non-pooling runner gets chunked prefill, even against the user's False; config mode is untouched."""
    assert (decide(NON_POOLING_DEFAULTS, state(values)).changes.get(CP), ) == ((expected or {}).get(CP),)
    assert chunked_prefill_forced(state(values)) == {CP: True}  # the member itself: the group's gate decides


@pytest.mark.parametrize(
    ("hybrid", "user", "expected"),
    [(False, None, {APC: True}), (True, None, {APC: False}), (False, False, None), (True, True, None)],
)
def test_prefix_caching_default(hybrid: bool, user: bool | None, expected: Any) -> None:
    """Unset prefix caching defaults to on, off for hybrid models; a user value stays."""
    s = state({**EA, "model_config.runner_type": "generate", "model_config.is_hybrid": hybrid, APC: user})
    assert prefix_caching_default(s) == expected
    assert decide(NON_POOLING_DEFAULTS, s).changes.get(APC) == (expected or {}).get(APC)


@pytest.mark.parametrize(
    ("ptype", "causal", "ok"),
    [("LAST", None, True), ("last", True, True), ("LAST", False, False), ("CLS", None, False), (None, None, False)],
)
def test_pooling_defaults(ptype: str | None, causal: bool | None, ok: bool) -> None:
    """Pooling runners get CP and APC only for LAST pooling on a causal model, with vLLM's log text."""
    s = state({**EA, "model_config.runner_type": "pooling", "model_config.pooler_config.pooling_type": ptype,
               "model_config.hf_config.is_causal": causal})
    word = "Enabling" if ok else "Disabling"
    got = decide(POOLING_DEFAULTS, s)
    assert got.changes == {CP: ok, APC: ok}
    assert got.messages == [f"({word}) chunked prefill by default", f"({word}) prefix caching by default"]


def test_pooling_defaults_keep_user_values() -> None:
    """A user value and a non-pooling runner leave the pooling defaults silent."""
    s = state({**EA, "model_config.runner_type": "pooling", CP: True, APC: True})
    assert pooling_chunked_prefill_default(s) is None and pooling_prefix_caching_default(s) is None
    assert not decide(POOLING_DEFAULTS, state({**EA, "model_config.runner_type": "generate"}))


@pytest.mark.parametrize(("arch", "fires"), [("ppc64le", True), ("s390x", True), ("arm", True), ("riscv", True),
                                             ("x86_64", False)])
def test_cpu_arch_override(arch: str, fires: bool) -> None:
    """POWER/S390X/ARM/RISC-V CPUs turn chunked prefill and prefix caching off."""
    s = state({**EA, CP: True, APC: True}, platform=Platform(kind="cpu", cpu_arch=arch))
    assert decide(CPU_ARCH_OVERRIDES, s).changes == ({CP: False, APC: False} if fires else {})
    assert cpu_arch_disables_chunked_prefill(s) == {CP: False}
    assert cpu_arch_disables_prefix_caching(s) == {APC: False}


def test_cpu_arch_override_not_on_gpu() -> None:
    """GPUs are never affected by the CPU-architecture override."""
    assert not decide(CPU_ARCH_OVERRIDES, state({**EA, CP: True}))


# ---------------------------------------------------------------- batch defaults


@pytest.mark.parametrize(
    ("platform", "ctx", "tokens", "seqs"),
    [
        ("h100", "LLM_CLASS", 16384, 1024),
        ("h100", "OPENAI_API_SERVER", 8192, 1024),
        ("b200", "OPENAI_API_SERVER", 8192, 1024),
        ("a100", "LLM_CLASS", 8192, 256),
        ("a100", "OPENAI_API_SERVER", 2048, 256),
        ("l40s", "OPENAI_API_SERVER", 2048, 256),
        ("a10g", "LLM_CLASS", 8192, 256),
    ],
)
def test_gpu_batch_defaults(platform: str, ctx: str, tokens: int, seqs: int) -> None:
    """The usage-context x device table: >= 70 GiB non-A100 GPUs get the large row, others the small one."""
    s = state({"usage.via_engine_args": True, "usage.usage_context": ctx, CP: True}, platform=platform)
    got = decide(BATCH_DEFAULTS, s)
    assert len(got.decided) == 1 and got.changes == {TOK: tokens, SEQ: seqs}
    # vLLM logs two debug records (arg_utils.py _set_default_args): one message line each
    assert got.messages[0].splitlines() == [f"Setting max_num_batched_tokens to {tokens} for {ctx} usage context.",
                                            f"Setting max_num_seqs to {seqs} for {ctx} usage context."]
    assert batch_defaults_cpu(s) is None


@pytest.mark.parametrize(("ctx", "ws", "tokens", "seqs"),
                         [("OPENAI_API_SERVER", 2, 4096, 256), ("LLM_CLASS", 1, 4096, 256), ("LLM_CLASS", 2, 8192, 512)])
def test_cpu_batch_defaults(ctx: str, ws: int, tokens: int, seqs: int) -> None:
    """CPU defaults scale with pp x tp."""
    s = state({"usage.via_engine_args": True, "usage.usage_context": ctx, CP: True,
               "parallel_config.tensor_parallel_size": ws}, platform="cpu")
    got = decide(BATCH_DEFAULTS, s)
    assert got.rules == ["engine-args.batch-defaults-cpu"] and got.changes == {TOK: tokens, SEQ: seqs}


def test_batch_defaults_seqs_capped_by_budget() -> None:
    """max_num_seqs = min(default, budget) when the budget is small (e.g. max_model_len 512)."""
    s = state({**EA, CP: False, TOK: 512}, platform="h100")
    assert _changes(batch_defaults_large_gpu(s)) == {SEQ: 512}


@pytest.mark.parametrize("values", [{"usage.via_engine_args": True, "usage.usage_context": None, CP: True},
                                    {**EA, CP: True, TOK: 1000, SEQ: 10}, {CP: True}])
def test_batch_defaults_silent(values: dict[str, Any]) -> None:
    """No usage context, user values or config mode: no batch defaults."""
    assert batch_defaults_large_gpu(state(values)) is None


@pytest.mark.parametrize(("cp", "tpu", "fires"), [(False, False, True), (True, False, False), (False, True, False)])
def test_budget_without_chunked_prefill(cp: bool, tpu: bool, fires: bool) -> None:
    """Without chunked prefill (non-TPU) the unset budget is the model's max_model_len."""
    s = state({**EA, CP: cp, "model_config.max_model_len": 512}, platform="tpu" if tpu else "h100")
    out = budget_without_chunked_prefill(s)
    assert _changes(out) == ({TOK: 512} if fires else None)


# ---------------------------------------------------------------- cache copies, checks


@pytest.mark.parametrize(
    ("layers", "window", "expected"),
    [(None, 4096, 4096), (["sliding_attention"], 4096, 4096), (["full_attention", "sliding_attention"], 4096, None),
     (None, None, None)],
)
def test_cache_sliding_window(layers: list[str] | None, window: int | None, expected: int | None) -> None:
    """Only an all-sliding-window model passes its window to CacheConfig."""
    s = state({**EA, "model_config.hf_text_config.layer_types": layers,
               "model_config.hf_text_config.sliding_window": window})
    out = cache_sliding_window(s)
    assert (out or {}).get("cache_config.sliding_window") == expected


def test_cache_copies_only_via_engine_args() -> None:
    """Config mode keeps CacheConfig's own values."""
    assert cache_sliding_window(state({"model_config.hf_text_config.sliding_window": 5})) is None
    assert cache_attention_free(state({"model_config.is_attention_free": True})) is None
    assert cache_attention_free(state({**EA, "model_config.is_attention_free": True})) == {
        "cache_config.is_attention_free": True}


@pytest.mark.parametrize(("tp", "dcp", "ok"), [(4, 2, True), (4, 3, False), (2, 4, False), (1, 1, True)])
def test_tp_divisible_by_dcp(tp: int, dcp: int, ok: bool) -> None:
    """EngineArgs asserts tp % dcp == 0 with vLLM's (space-less) text."""
    out = tp_divisible_by_dcp(state({**EA, "parallel_config.tensor_parallel_size": tp,
                                     "parallel_config.decode_context_parallel_size": dcp}))
    if ok:
        assert out is None
    else:
        assert isinstance(out, Violation) and out.error == "AssertionError"
        assert out.message == f"tp_size={tp} must be divisible bydcp_size={dcp}."


def test_async_scheduling_errors() -> None:
    """Async scheduling rejects pp > 1, speculative decoding and ray; plain mp/uni pass."""
    base = {**EA, "scheduler_config.async_scheduling": True}
    assert isinstance(async_scheduling_pipeline_parallel(state({**base, "parallel_config.pipeline_parallel_size": 2})),
                      Violation)
    assert async_scheduling_pipeline_parallel(state(base)) is None
    assert isinstance(async_scheduling_speculative(state({**base, "speculative_config": True})), Violation)
    assert async_scheduling_speculative(state(base)) is None
    out = async_scheduling_executor(state({**base, "parallel_config.distributed_executor_backend": "ray"}))
    assert isinstance(out, Violation) and out.message.endswith("but you choose `ray`.")
    assert async_scheduling_executor(state({**base, "parallel_config.distributed_executor_backend": "uni"})) is None


DPL, DPR = "parallel_config.data_parallel_size_local", "parallel_config.data_parallel_rank"
HYBRID, EXTERNAL = "parallel_config.data_parallel_hybrid_lb", "parallel_config.data_parallel_external_lb"


@pytest.mark.parametrize(("values", "expected"), [
    ({"parallel_config.data_parallel_size": 2}, {DPL: 2}),
    ({"parallel_config.data_parallel_size": 1}, None),
    ({"parallel_config.data_parallel_size": 4, DPL: 2, "usage.given": (DPL,)}, None),
    ({"parallel_config.data_parallel_size": 4, DPL: 2, "usage.given": (DPL,), "usage.data_parallel_start_rank": 2},
     {DPR: 2, HYBRID: True}),
    ({"parallel_config.data_parallel_size": 4, DPL: 1, "usage.given": (DPL,), HYBRID: True},
     {HYBRID: False, EXTERNAL: True}),
    ({"parallel_config.data_parallel_size": 2, DPR: 1, "usage.given": (DPR,)}, {EXTERNAL: True}),
])
def test_data_parallel_lb(values: dict[str, Any], expected: dict[str, Any] | None) -> None:
    """A given rank is external LB (one local rank); a given local size keeps it (a start rank: hybrid LB, which one
    local rank turns into external LB); without either every DP rank is local."""
    assert _changes(data_parallel_lb(state({**EA, **values}))) == expected


@pytest.mark.parametrize(("values", "message"), [
    ({HYBRID: True}, "data_parallel_size_local must be set to use data_parallel_hybrid_lb."),
    ({HYBRID: True, "usage.headless": True}, "data_parallel_hybrid_lb is not applicable in headless mode"),
    ({DPR: 1, DPL: 2, "usage.given": (DPR, DPL)}, "data_parallel_size_local must be 1 when data_parallel_rank is set"),
    ({}, None),
])
def test_data_parallel_lb_check(values: dict[str, Any], message: str | None) -> None:
    """create_engine_config asserts on the DP arguments (AssertionError); the defaulting rule then changes nothing."""
    out = data_parallel_lb_check(state({**EA, "parallel_config.data_parallel_size": 2, **values}))
    assert (out.message if isinstance(out, Violation) else None) == message
    if message is not None:
        assert out.error == "AssertionError" and data_parallel_lb(state({**EA, **values})) is None


@pytest.mark.parametrize(("platform", "env", "logs"), [("cpu", {}, True), ("cpu", {"VLLM_CPU_KVCACHE_SPACE": "8"}, False),
                                                      ("h100", {}, False)])
def test_cpu_device_memory(platform: str, env: dict[str, str], logs: bool) -> None:
    """EngineArgs' batch defaults ask a CPU its memory: without VLLM_CPU_KVCACHE_SPACE that warns, before any config."""
    out = cpu_device_memory(state(EA, platform=platform, env=env))
    assert isinstance(out, Outcome) is logs


@pytest.mark.parametrize(("spec", "n", "expected"), [(True, 3, 3), (True, None, None), (None, 3, None)])
def test_lookahead_slots(spec: bool | None, n: int | None, expected: int | None) -> None:
    """num_lookahead_slots follows num_speculative_tokens when speculative decoding is on."""
    out = lookahead_slots_from_speculative(state({**EA, "speculative_config": spec,
                                                  "speculative_config.num_speculative_tokens": n}))
    assert out == (None if expected is None else {"scheduler_config.num_lookahead_slots": expected})


# ---------------------------------------------------------------- end to end (vllm serve / LLM)

LLAMA = ["--model", "meta-llama/Llama-3.1-8B-Instruct"]


@pytest.mark.parametrize(
    ("usage", "platform", "tokens", "seqs"),
    [("serve", "h100", 8192, 1024), ("serve", "a100", 2048, 256), ("llm", "h100", 16384, 1024),
     ("llm", "a100", 8192, 256)],
)
def test_e2e_batch_defaults(usage: str, platform: str, tokens: int, seqs: int) -> None:
    """vllm serve / LLM(...) on H100 and A100 get vLLM's batch defaults, chunked prefill and prefix caching."""
    r = postinit.resolve(argv=LLAMA, usage=usage, platform=platform, strict=True)  # type: ignore[arg-type]
    assert r.ok, r.violations
    assert r.get(TOK) == tokens and r.get(SEQ) == seqs
    assert r.get(CP) is True and r.get("scheduler_config.chunked_prefill_enabled") is True
    assert r.get(APC) is True
    assert r.get("scheduler_config.max_model_len") == r.get("model_config.max_model_len")


def test_e2e_no_enable_chunked_prefill_is_ignored() -> None:
    """--no-enable-chunked-prefill: chunked prefill stays on and the quirk warning names the flag."""
    r = postinit.resolve(argv=[*LLAMA, "--no-enable-chunked-prefill"], platform="h100", strict=True)
    assert r.ok, r.violations
    assert r.get(CP) is True and r.get(TOK) == 8192
    msgs = [m for m in r.messages("warning") if m.rule == "quirk.chunked-prefill-flag-ignored"]
    assert len(msgs) == 1 and "--no-enable-chunked-prefill" in msgs[0].message


def test_e2e_cpu_tp2() -> None:
    """CPU with -tp 2: ws-scaled server defaults 4096/256, mp executor, no custom all-reduce."""
    r = postinit.resolve(argv=[*LLAMA, "-tp", "2"], platform="cpu", strict=True)
    assert r.ok, r.violations
    assert r.get(TOK) == 4096 and r.get(SEQ) == 256
    assert r.get("parallel_config.world_size") == 2
    assert r.get("parallel_config.distributed_executor_backend") == "mp"
    assert r.get("parallel_config.disable_custom_all_reduce") is True


def test_e2e_pooling_model() -> None:
    """A CLS-pooling BERT: CP/APC default off, budget = max_model_len, seqs capped by it (golden case 48)."""
    r = postinit.resolve(argv=["--model", "fixtures/bert", "--runner", "pooling"], platform="h100", strict=True)
    assert r.ok, r.violations
    n = r.get("model_config.max_model_len")
    assert r.get(CP) is False and r.get(APC) is False
    assert r.get(TOK) == n and r.get(SEQ) == min(1024, n)
    assert r.get("scheduler_config.runner_type") == "pooling"
    assert any(m.message == "(Disabling) chunked prefill by default" for m in r.messages())


def test_e2e_tp_dcp_not_divisible() -> None:
    """-tp 4 -dcp 3 stops with EngineArgs' AssertionError (golden case 44's text shape)."""
    r = postinit.resolve(argv=[*LLAMA, "-tp", "4", "-dcp", "3"], platform="h100", strict=True)
    assert not r.ok and r.violations[0].rule == "engine-args.tp-divisible-by-dcp"


@pytest.mark.parametrize("via, present, fires", [(True, None, True), (True, True, False), (False, None, False)])
def test_observability_config(via: bool, present: bool | None, fires: bool) -> None:
    """EngineArgs always builds an ObservabilityConfig; VllmConfig(...) keeps None."""
    from postinit.rules.engine_args import observability_config
    s = state({"usage.via_engine_args": via, "observability_config": present})
    assert observability_config(s) == ({"observability_config": True} if fires else None)


@pytest.mark.parametrize("via, spec, cp, expected", [
    (True, True, True, {"speculative_config.enable_chunked_prefill": True, "speculative_config.disable_log_stats": False}),
    (True, True, None, {"speculative_config.enable_chunked_prefill": None, "speculative_config.disable_log_stats": False}),
    (True, None, True, None),
    (False, True, True, None),
])
def test_speculative_engine_flags(via: bool, spec: bool | None, cp: bool | None, expected: Any) -> None:
    """EngineArgs passes its chunked-prefill value and disable_log_stats=False into the SpeculativeConfig."""
    from postinit.rules.engine_args import speculative_engine_flags
    s = state({"usage.via_engine_args": via, "speculative_config": spec, "scheduler_config.enable_chunked_prefill": cp})
    assert speculative_engine_flags(s) == expected


def test_observability_and_speculative_flags_end_to_end() -> None:
    """vllm serve with an n-gram speculator: chunked prefill forced on reaches the speculative config."""
    r = postinit.resolve(argv=[*LLAMA, "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2}'],
                         platform="h100", strict=True)
    assert r.state["observability_config"] is True
    assert r.state["speculative_config.enable_chunked_prefill"] is True
    assert r.state["speculative_config.disable_log_stats"] is False


def test_tp_dcp_check_runs_after_the_default_args() -> None:
    """create_engine_config asserts tp % dcp after _set_default_args logged its budgets (golden 44-argv)."""
    r = postinit.resolve(argv=["--model", "fixtures/llama", "-tp", "2", "-dcp", "4"], platform="h100")
    assert not r.ok
    v = r.violations[0]
    assert (v.rule, v.stage, v.error) == ("engine-args.tp-divisible-by-dcp", "create_engine_config", "AssertionError")
    lines = [line for e in r.messages() for line in e.message.splitlines()]
    assert "Setting max_num_batched_tokens to 8192 for OPENAI_API_SERVER usage context." in lines
    assert "Setting max_num_seqs to 1024 for OPENAI_API_SERVER usage context." in lines
