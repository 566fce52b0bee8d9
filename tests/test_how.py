"""``Resolution.how(path, value)``: the smallest verified edits of the inputs that give a value.

Every answer is checked here again by resolving its request afresh: the path has the value and
vLLM accepts the config. The property tests draw random inputs and a random reachable target
(a scalar field's value after a random one- or two-flag edit) and require an answer with at most
that many edits; a string no rule and no input produces is reported unreachable, naming a rule.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import postinit
from postinit._api import Request, resolve_request
from postinit._how import HowAnswer, parse_target
from postinit.errors import InputError, InvalidValueError
from postinit.rules import versions
from postinit.schema.enums import CUDAGraphMode

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
NIXL = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'


def _verified(a: HowAnswer) -> None:
    """Each answer, resolved afresh from its request, gives the value and a config vLLM accepts."""
    for ans in [*a.answers, *a.platforms]:
        r = postinit.resolve(ans.request)
        assert r.ok, ans.line
        assert r.state[a.path] == a.value, ans.line


def _how(path: str, value: Any, **inputs: Any) -> HowAnswer:
    keep = inputs.pop("keep", ())
    max_edits = inputs.pop("max_edits", 2)
    r = resolve_request(Request.build(**inputs), record=True)
    a = r.how(path, value, max_edits=max_edits, keep=keep)
    _verified(a)
    return a


# --------------------------------------------------------------------------- the README's questions


def test_chunked_prefill_off_at_0_11_1_is_the_flag() -> None:
    """vLLM 0.11.1 honours --no-enable-chunked-prefill: one edit, the flag itself."""
    a = _how("scheduler_config.enable_chunked_prefill", False, model=LLAMA, vllm_version="0.11.1")
    first = a.answers[0]
    assert [e.text for e in first.edits] == ["add --no-enable-chunked-prefill"]
    assert first.line == f"vllm serve {LLAMA} --no-enable-chunked-prefill"
    assert first.decided_by == "your --no-enable-chunked-prefill"
    assert "engine-args.chunked-prefill-default" in first.stopped


def test_chunked_prefill_off_at_the_seed_needs_a_pooling_runner() -> None:
    """At the seed the flag is ignored: the only edits make the model a pooling one, and keeping the
    runner makes it unreachable, blocked by the forcing rule."""
    a = _how("scheduler_config.enable_chunked_prefill", False, model=LLAMA)
    assert a.answers and all("--no-enable-chunked-prefill" not in e.text for ans in a.answers for e in ans.edits)
    assert a.answers[0].decided_by.startswith("rule engine-args.pooling")
    b = _how("scheduler_config.enable_chunked_prefill", False, model=LLAMA, keep=["model_config.runner_type"])
    assert not b.reachable
    assert b.blockers[0].rule == "engine-args.chunked-prefill-forced"


def test_full_cuda_graphs_with_dcp() -> None:
    """FULL with -dcp 2 takes two edits, dropping DCP; keeping DCP it is unreachable, blocked by the DCP rule."""
    inputs: dict[str, Any] = {"model": "deepseek-ai/DeepSeek-V3", "argv": ["-tp", "8", "-dcp", "2"]}
    a = _how("compilation_config.cudagraph_mode", "FULL", **inputs)
    assert len(a.answers[0].edits) == 2
    assert {e.path for e in a.answers[0].edits} >= {"compilation_config.cudagraph_mode"}
    assert all("-dcp 2" not in ans.line for ans in a.answers)
    b = _how("compilation_config.cudagraph_mode", "FULL", keep=["parallel_config.decode_context_parallel_size"],
             **inputs)
    assert not b.reachable and b.blockers[0].rule == "cudagraph.dcp-forces-piecewise"
    assert ("parallel_config.decode_context_parallel_size", 2) in [(p, v) for p, v, _ in b.blockers[0].fixed]
    assert "not reachable with up to 2 edits" in str(b)


def test_hybrid_kv_cache_manager_with_nixl() -> None:
    """The hybrid KV cache manager comes back by dropping the connector; keeping it, the connector rule blocks."""
    inputs: dict[str, Any] = {"model": QWEN_NEXT, "argv": ["-tp", "4", "--kv-transfer-config", NIXL]}
    a = _how("scheduler_config.disable_hybrid_kv_cache_manager", False, **inputs)
    assert [e.text for e in a.answers[0].edits] == [f"remove --kv-transfer-config '{NIXL}'"]
    assert a.answers[0].stopped == ("scheduler.hma-off-kv-connector",)
    assert a.answers[0].side_effects == 0
    b = _how("scheduler_config.disable_hybrid_kv_cache_manager", False, keep=["kv_transfer_config.kv_connector"],
             **inputs)
    # keeping it, only the V0 engine (which has no hybrid manager to turn off) gets there
    assert b.answers and all([e.text for e in x.edits] == ["set VLLM_USE_V1=0"] for x in b.answers)
    c = _how("scheduler_config.disable_hybrid_kv_cache_manager", False,
             keep=["kv_transfer_config.kv_connector", "env.VLLM_USE_V1"], **inputs)
    assert not c.reachable and c.blockers[0].rule == "scheduler.hma-off-kv-connector"


@pytest.mark.parametrize("version", ["d7fb10c57", "0.11.1"])
def test_prefix_caching_on_qwen3_next_rests_on_the_architecture(version: str) -> None:
    """Keeping Qwen3-Next's architecture, prefix caching is not reachable at 0.11.1; the blocker rests on
    config.json (at the seed only a fall back to the V0 engine reaches it)."""
    a = _how("cache_config.enable_prefix_caching", True, model=QWEN_NEXT, argv=["-tp", "4"], vllm_version=version,
             keep=["model_config.architecture"])
    if version == "0.11.1":
        assert not a.reachable
        fixed = [p for b in a.blockers for p, _, _ in b.fixed]
        assert "model_config.hf_config.architectures" in fixed
    else:
        assert a.answers and len(a.answers[0].edits) == 2


# --------------------------------------------------------------------------- answers and their shape


def test_a_value_that_already_holds_needs_no_edit() -> None:
    """Asking for the current value says it holds and tries nothing."""
    a = _how("cache_config.enable_prefix_caching", True, model=LLAMA)
    assert a.holds and a.reachable and not a.answers and a.tried == 0
    assert "already holds" in str(a)


def test_answers_are_ranked_fewest_edits_then_fewest_side_effects() -> None:
    """The answers come sorted by (number of edits, number of side effects)."""
    a = _how("compilation_config.cudagraph_mode", "PIECEWISE", model=LLAMA)
    keys = [(len(x.edits), x.side_effects) for x in a.answers]
    assert keys == sorted(keys) and keys[0][0] == 1


def test_a_change_keeps_the_users_spelling() -> None:
    """Changing the user's own flag edits it in place, in the user's spelling."""
    a = _how("parallel_config.tensor_parallel_size", 4, model=LLAMA, argv=["-tp", "2"])
    first = a.answers[0]
    assert [(e.kind, e.before, e.after) for e in first.edits] == [("change", ("-tp", "2"), ("-tp", "4"))]
    assert first.line == f"vllm serve {LLAMA} -tp 4"


def test_env_edits_are_pasteable() -> None:
    """An environment variable edit prints as NAME=VALUE before the command."""
    a = _how("env.VLLM_USE_V1", False, model=LLAMA)
    assert f"VLLM_USE_V1=0 vllm serve {LLAMA}" in [x.line for x in a.answers]


def test_config_mode_edits_config_keys() -> None:
    """In config mode (a config dict, no flags) the edits are config keys."""
    a = _how("compilation_config.cudagraph_mode", "PIECEWISE",
             config={"compilation_config": {"mode": 3}, "model_config": {"model": "Qwen/Qwen3-8B"}})
    first = a.answers[0]
    assert first.edits[0].kind == "config" and first.request.config is not None
    assert first.request.config["compilation_config"]["cudagraph_mode"] == "PIECEWISE"


def test_consistent_semantics() -> None:
    """Under semantics='consistent' the answers are verified with that semantics too."""
    a = _how("compilation_config.cudagraph_mode", "FULL", argv=["--enforce-eager"], semantics="consistent")
    assert a.answers and all(x.request.semantics == "consistent" for x in a.answers)
    assert [e.text for e in a.answers[0].edits] in (["remove --enforce-eager"], ["change --enforce-eager to "
                                                                                 "--no-enforce-eager"])


def test_another_platform_is_a_separate_kind() -> None:
    """Other platforms are answers of their own kind (``platforms``), each verified, never mixed with edits."""
    from postinit._how import how

    r = resolve_request(Request.build(model=LLAMA), record=True)
    a = how(r, "model_config.dtype", "float16", platforms=True)
    _verified(a)
    assert a.platforms and all(x.platform and len(x.edits) == 1 for x in a.platforms)
    assert "t4" in [x.edits[0].after[0] for x in a.platforms]
    assert all(not x.platform for x in a.answers)
    assert "on another platform" in str(a)


def test_to_dict_is_json_and_deterministic() -> None:
    """The JSON answer has the question, the answers with their edits and lines, and the count tried."""
    import json

    a = _how("scheduler_config.enable_chunked_prefill", False, model=LLAMA, vllm_version="0.11.1")
    b = _how("scheduler_config.enable_chunked_prefill", False, model=LLAMA, vllm_version="0.11.1")
    d = a.to_dict()
    assert d == b.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["reachable"] and d["answers"][0]["line"].endswith("--no-enable-chunked-prefill")
    assert d["tried"] == a.tried > 0


def test_site_rules_take_part() -> None:
    """With site policies the search resolves with them: a value a policy refuses is unreachable, named."""
    from pathlib import Path

    policies = str(Path(__file__).resolve().parents[1] / "examples" / "site-policies" / "policies.py")
    r = resolve_request(Request.build(model=LLAMA), record=True, rules=policies)
    a = r.how("model_config.enforce_eager", True, max_edits=1)
    assert not a.reachable and a.blockers[0].rule == "mysite.production-never-eager"
    assert a.refused >= 1
    plain = _how("model_config.enforce_eager", True, model=LLAMA, max_edits=1)
    assert [e.text for e in plain.answers[0].edits] == ["add --enforce-eager"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("path", "value", "words"), [
    ("compilation_config.cudagraph_mode", "FUL", "Did you mean 'FULL'?"),
    ("scheduler_config.enable_chunked_prefill", "maybe", "allowed: true, false, None"),
    ("scheduler_config.max_num_seqs", "many", "'many' is not a valid value"),
    ("compilation_config.cudagraph_modes", "FULL", "Did you mean 'compilation_config.cudagraph_mode'?"),
])
def test_a_bad_value_is_one_line_naming_it(path: str, value: str, words: str) -> None:
    """A value the field's type refuses (or an unknown path) is one InputError line with what is allowed."""
    r = postinit.resolve(model=LLAMA)
    with pytest.raises(InputError) as e:
        r.how(path, value)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_values_are_parsed_as_a_user_types_them() -> None:
    """Enum names, true/false, None and 8k parse against the field's type."""
    assert parse_target("compilation_config.cudagraph_mode", "FULL") is CUDAGraphMode.FULL
    assert parse_target("scheduler_config.enable_chunked_prefill", "false") is False
    assert parse_target("model_config.max_model_len", "8k") == 8000
    assert parse_target("model_config.max_model_len", "None") is None


@pytest.mark.parametrize("bad", [0, 4, True, "2"])
def test_max_edits_is_bounded(bad: Any) -> None:
    """max_edits is a whole number from 1 to 3."""
    with pytest.raises(InvalidValueError, match="max_edits"):
        postinit.resolve(model=LLAMA).how("scheduler_config.max_num_seqs", 64, max_edits=bad)


def test_keep_must_name_fields() -> None:
    """keep names known paths, not the path asked about."""
    r = postinit.resolve(model=LLAMA)
    with pytest.raises(InputError, match="Did you mean"):
        r.how("scheduler_config.max_num_seqs", 64, keep=["parallel_config.tensor_parallel_sise"])
    with pytest.raises(InputError, match="the path asked about"):
        r.how("scheduler_config.max_num_seqs", 64, keep=["scheduler_config.max_num_seqs"])


def test_the_request_is_never_mutated() -> None:
    """Searching edits leaves the base request and its argv as they were."""
    argv = ["-tp", "8", "-dcp", "2"]
    r = postinit.resolve(model="deepseek-ai/DeepSeek-V3", argv=argv)
    before = r.request
    r.how("compilation_config.cudagraph_mode", "FULL")
    assert argv == ["-tp", "8", "-dcp", "2"] and r.request == before


# --------------------------------------------------------------------------- properties

MODELS = [LLAMA, "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3", QWEN_NEXT, "microsoft/Phi-3-mini-4k-instruct"]
BASES = [[], ["-tp", "2"], ["--enforce-eager"], ["--max-num-seqs", "64"], ["-O3"], ["--no-enable-prefix-caching"],
         ["--max-model-len", "8k"]]
EDITS = [["--enforce-eager"], ["-O.cudagraph_mode=PIECEWISE"], ["--no-enable-prefix-caching"],
         ["--enable-prefix-caching"], ["-tp", "2"], ["--max-model-len", "8k"], ["--no-enable-chunked-prefill"],
         ["--max-num-seqs", "64"], ["--async-scheduling"], ["--kv-cache-dtype", "fp8"],
         ["--disable-hybrid-kv-cache-manager"], ["-dcp", "2"], ["--enable-expert-parallel"], ["--enable-dbo"],
         ["-O0"], ["--block-size", "32"], ["--max-num-batched-tokens", "4096"]]
VERSIONS = list(versions.names())


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str, enum.Enum))


def _reachable(data: st.DataObject) -> None:
    model = data.draw(st.sampled_from(MODELS), label="model")
    base = data.draw(st.sampled_from(BASES), label="base flags")
    version = data.draw(st.sampled_from(VERSIONS), label="version")
    k = data.draw(st.sampled_from([1, 2]), label="edits")
    edits = data.draw(st.lists(st.sampled_from(EDITS), min_size=k, max_size=k, unique_by=tuple), label="edit")
    try:
        rb = resolve_request(Request.build(model=model, argv=base, vllm_version=version), record=True)
        re_ = postinit.resolve(model=model, argv=[*base, *(t for e in edits for t in e)], vllm_version=version)
    except InputError:
        assume(False)
        return
    assume(rb.ok and re_.ok)
    changed = sorted(p for p, v in re_.state.items()
                     if not p.startswith(("platform.", "usage.")) and _scalar(v) and rb.state.get(p) != v)
    assume(changed)
    path = data.draw(st.sampled_from(changed), label="path")
    value = re_.state[path]
    a = rb.how(path, value, max_edits=k)
    assert a.reachable, str(a)
    assert len(a.answers[0].edits) <= k
    _verified(a)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_a_target_one_or_two_flags_away_is_found_and_verified(data: st.DataObject) -> None:
    """A scalar value some one- or two-flag edit gives is found with at most that many edits, each verified."""
    _reachable(data)


@pytest.mark.deep
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_a_target_one_or_two_flags_away_is_found_and_verified_deep(data: st.DataObject) -> None:
    """The same over 300 draws (``pytest -m deep``)."""
    _reachable(data)


def _unreachable(data: st.DataObject) -> None:
    model = data.draw(st.sampled_from(MODELS), label="model")
    base = data.draw(st.sampled_from(BASES), label="base flags")
    version = data.draw(st.sampled_from(VERSIONS), label="version")
    r = resolve_request(Request.build(model=model, argv=base, vllm_version=version), record=True)
    from postinit._how import _flag_tables

    by_path, _ = _flag_tables(version)
    ruled = sorted(p for p, v in r.state.items()
                   if isinstance(v, str) and p not in by_path and r.provenance(p).rule is not None
                   and postinit.paths().info[p].annotation in (str, str | None)
                   and "." in p and not p.startswith(("platform.", "usage.", "env.", "compilation_config.")))
    assume(ruled)
    path = data.draw(st.sampled_from(ruled), label="path")
    a = r.how(path, "no-rule-writes-this", max_edits=1)
    assert not a.reachable and not a.answers
    writers = {w.id for w in postinit.rulebook(version).writers_of(path)}
    assert any(b.rule in writers for b in a.blockers), a.blockers
    assert "not reachable with up to 1 edit " in str(a)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_a_value_nothing_produces_is_unreachable_and_names_a_rule(data: st.DataObject) -> None:
    """A string no rule writes and no flag sets: not reachable, and the answer names a blocking rule."""
    _unreachable(data)


# --------------------------------------------------------------------------- the HTTP door

how_bodies = st.fixed_dictionaries({"path": st.sampled_from([
    "compilation_config.cudagraph_mode", "scheduler_config.max_num_seqs", "model_config.architecture", "nope", "",
    "env.VLLM_USE_V1"])}, optional={
    "value": st.one_of(st.none(), st.booleans(), st.integers(-2, 2**70), st.floats(allow_nan=False),
                       st.sampled_from(["FULL", "FUL", "8k", "true", "", "x" * 300]), st.lists(st.integers(), max_size=3)),
    "max_edits": st.one_of(st.integers(-1, 5), st.just("2"), st.none()),
    "keep": st.one_of(st.lists(st.sampled_from(["parallel_config.tensor_parallel_size", "x", ""]), max_size=3),
                      st.just("parallel_config.tensor_parallel_size")),
    "argv": st.sampled_from([[], ["--enforce-eager"], ["-tp", "3"], ["--nope"]]),
    "model": st.sampled_from([LLAMA, "Qwen/Qwen3-8B", "no/such-model"]),
})


@pytest.fixture(scope="module")
def http() -> Iterator[Any]:
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    from postinit.service import Settings, create_app

    with TestClient(create_app(Settings()), raise_server_exceptions=False) as client:
        yield client


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=how_bodies)
def test_every_how_body_is_an_answer_or_one_line_422(http: Any, body: dict[str, Any]) -> None:
    """Any /v1/how body: 200 with an answer, or 422 with one line; never a 500."""
    r = http.post("/v1/how", json=body)
    assert r.status_code in (200, 422), (r.status_code, r.text[:300])
    if r.status_code == 422:
        assert "\n" not in r.json()["message"]
    else:
        assert set(r.json()) >= {"answers", "blockers", "reachable", "tried"}
