"""The kinds of fidelity miss issue 30 lists, each as a behaviour (the golden x### cases hold the exact records)."""

from __future__ import annotations

import json
import random

import pytest

import postinit
from postinit.engine import Violation
from postinit.rules._kit import state
from postinit.rules.parallel import external_launcher_dp_rank
from postinit.rules.speculative import plain_draft_model_refused
from postinit.schema.loaders._pyset import PySet, str_hash
from postinit.schema.loaders.argv import parse_vllm_args
from tests.golden.corpus import MODELS_DIR

LLAMA = str(MODELS_DIR / "llama")
ROPE2 = json.dumps({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})


def _messages(r: postinit.Resolution) -> list[str]:
    return [line for e in r.trace.fired if e.message for line in e.message.splitlines()]


# ------------------------------------------------------------------------------------------- usage contexts


@pytest.mark.parametrize(("usage", "context", "version"), [
    ("engine", "ENGINE_CONTEXT", "0.11.1"), ("none", "None", "0.11.1"), ("batch", "OPENAI_BATCH_RUNNER", "0.11.1"),
])
def test_usage_context_in_the_batch_default_records(usage: str, context: str, version: str) -> None:
    """An engine built from EngineArgs without a context of its own is ENGINE_CONTEXT; a bare create_engine_config()
    has none (0.11.1 prints both in its batch-default records)."""
    r = postinit.resolve(argv=[LLAMA], usage=usage, vllm_version=version)  # type: ignore[arg-type]
    assert f"Defaulting max_num_seqs to 128 for {context} usage context." in _messages(r)


# ------------------------------------------------------------------------------------------- advice and notes


def test_advice_is_a_note_never_a_vllm_record() -> None:
    """postinit's own advice (JSON and dotted keys for one flag) is an ``advice`` note; vLLM logged nothing."""
    r = postinit.resolve(argv=[LLAMA, "-O", '{"mode": 3}', "-O.cudagraph_mode=PIECEWISE"])
    kinds = {n.kind for n in r.notes if "dotted keys" in n.message}
    assert kinds == {"advice"}


def test_parse_time_records_survive_an_earlier_failure() -> None:
    """A JSON-valued flag's sub-config logs while vLLM parses: when create_engine_config then fails, those records
    are still said (a ``parse_log`` note), and only then."""
    argv = [LLAMA, "-O", '{"pass_config": {"enable_fusion": true}}']
    failed = postinit.resolve(argv=[*argv, "--data-parallel-hybrid-lb"])
    assert not failed.ok and failed.error is not None and failed.error.stage == "create_engine_config"
    said = [n for n in failed.notes if n.kind == "parse_log"]
    assert [n.level for n in said] == ["warning"] and "reshape elimination disabled" in said[0].message
    assert not [n for n in postinit.resolve(argv=argv).notes if n.kind == "parse_log"]


# ------------------------------------------------------------------------------------------- duplicate keys


def test_duplicate_keys_in_vllms_set_order() -> None:
    """"Found duplicate keys" joins a set: its order is CPython's for PYTHONHASHSEED=0, the oracle's seed."""
    parsed = parse_vllm_args(["m", "-O.mode=3", "-O.backend=inductor", "-O.cudagraph_mode=FULL", "-O.mode=1",
                              "-O.backend=eager", "-O.cudagraph_mode=NONE"])
    assert parsed.warnings == ["Found duplicate keys -O.backend, -O.mode, -O.cudagraph_mode"]


def test_pyset_is_cpythons_layout() -> None:
    """The hash is SipHash-1-3 with a zero key, the table CPython's (measured against PYTHONHASHSEED=0 runs)."""
    assert str_hash("a") == 4644417185603328019 and str_hash("-O.mode") == -207060522560819103
    assert str_hash("") == 0
    rng = random.Random(7)
    items = ["-O." + "".join(rng.choice("abcdef_.") for _ in range(rng.randint(1, 9))) for _ in range(30)]
    ours = PySet(items)
    assert sorted(ours) == sorted(set(items)) and len(ours) == len(set(items))
    merged = PySet(items[:5])
    merged.update(PySet(items[5:]))
    assert sorted(merged) == sorted(set(items))


# ------------------------------------------------------------------------------------------- earlier errors


@pytest.mark.parametrize(("rank", "expected"), [(None, "'RANK'"), ("x", "invalid literal"), ("3", 1)])
def test_external_launcher_takes_the_dp_rank_from_rank(rank: str | None, expected: str | int) -> None:
    """An external launcher with DP reads RANK: unset is a KeyError, a non-number a ValueError, else RANK // (TP x PP)."""
    env = {} if rank is None else {"RANK": rank}
    out = external_launcher_dp_rank(state({"parallel_config.distributed_executor_backend": "external_launcher",
                                           "parallel_config.data_parallel_size": 2, "parallel_config.world_size": 4},
                                          env=env))
    if isinstance(expected, str):
        assert isinstance(out, Violation) and out.message.startswith(expected)
    else:
        assert out is not None and out.changes == {"parallel_config.data_parallel_rank": expected}  # type: ignore[union-attr]


def test_external_launcher_without_rank_fails_in_parallel_config() -> None:
    """vLLM raises the KeyError while building the ParallelConfig, before anything later is checked."""
    r = postinit.resolve(argv=[LLAMA, "--distributed-executor-backend", "external_launcher", "-dp", "2"])
    assert r.error is not None and (r.error.type, r.error.stage, r.error.wrapped_by) == (
        "KeyError", "parallel_config", None)


# ------------------------------------------------------------------------------------------- speculation


@pytest.mark.parametrize(("spec", "refused"), [
    ({"model": "some/draft"}, True), ({"method": "draft_model", "model": "d"}, True),
    ({"method": "eagle", "model": "d"}, False), ({"model": "ngram"}, False), ({"method": "mtp", "model": "d"}, True),
])
def test_plain_draft_models_are_refused(spec: dict[str, str], refused: bool) -> None:
    """A draft model that is no EAGLE head or MTP layer is "draft_model", which this SpeculativeConfig refuses."""
    out = plain_draft_model_refused(state({"speculative_config": True,
                                           **{f"speculative_config.{k}": v for k, v in spec.items()}}))
    assert isinstance(out, Violation) is refused
    if refused:
        assert out.error == "NotImplementedError"  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------- hf_overrides


def test_hf_overrides_rope_scaling_doubles_max_model_len() -> None:
    """Dynamic rope scaling of factor 2 in hf_overrides doubles the 4096 positions; the seed's budget follows."""
    r = postinit.resolve({"model_config": {"model": LLAMA, "hf_overrides": json.loads(ROPE2)}})
    assert r.get("model_config.max_model_len") == 8192
    assert r.get("scheduler_config.max_num_batched_tokens") == 8192
    assert postinit.resolve(argv=[LLAMA, "--hf-overrides", ROPE2]).get("model_config.max_model_len") == 8192


def test_hf_overrides_legacy_type_key_is_not_patched() -> None:
    """A dict-valued override is set after vLLM patches rope scaling: a legacy ``type`` key alone is a KeyError."""
    r = postinit.resolve(argv=[LLAMA, "--hf-overrides",
                               json.dumps({"rope_scaling": {"type": "dynamic", "factor": 2.0}})])
    assert r.error is not None and (r.error.type, r.error.message, r.error.stage) == (
        "KeyError", "'rope_type'", "model_config")


def test_hf_overrides_as_text_is_refused_by_model_config() -> None:
    """A value that is no JSON object stays text in vLLM's parser, and ModelConfig refuses it (pydantic's words)."""
    with pytest.raises(postinit.InputError) as e:
        postinit.resolve(argv=[LLAMA, "--hf-overrides", "{bad"])
    assert (e.value.stage, e.value.error) == ("create_engine_config", "ValidationError")
    assert e.value.vllm_message is not None and e.value.vllm_message.startswith("2 validation errors for ModelConfig")


# ------------------------------------------------------------------------------------------- model facts


def test_multimodal_arguments_are_model_config_fields() -> None:
    """ModelConfig's multimodal InitVars are accepted (vLLM passes them to the MultiModalConfig of a multimodal
    class; other models ignore them)."""
    r = postinit.resolve({"model_config": {"model": LLAMA, "mm_encoder_attn_backend": "TORCH_SDPA"}})
    assert r.ok and r.get("model_config.multimodal_config") is None


def test_awq_checkpoints_run_with_marlin_on_ampere_and_newer() -> None:
    """An AWQ checkpoint on sm80+ CUDA is converted to awq_marlin (logged); on CPU it is IPEX's."""
    awq = str(MODELS_DIR / "llama_awq")
    r = postinit.resolve(argv=[awq], platform="h100")
    assert r.ok and r.get("model_config.quantization") == "awq_marlin"
    assert "The model is convertible to awq_marlin during runtime. Using awq_marlin kernel." in _messages(r)
    cpu = postinit.resolve(argv=[awq], platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert cpu.get("model_config.quantization") == "ipex" and cpu.get("quant_config.class_name") == "IPEXConfig"


def test_cascade_attention_off_is_said_for_every_hybrid_model() -> None:
    """vLLM logs turning cascade attention off for a hybrid model even when it was off already."""
    r = postinit.resolve(argv=[str(MODELS_DIR / "jamba"), "--disable-cascade-attn"])
    assert "Disabling cascade attention since it is not supported for hybrid models." in _messages(r)


def test_every_documented_oracle_run_pins_the_hash_seed() -> None:
    """Each oracle command the project documents runs with PYTHONHASHSEED=0 (vLLM joins sets into some texts)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for doc in (root / "tests/golden/oracle_cli.md", root / "tests/golden/oracle/README.md"):
        for line in doc.read_text().splitlines():
            if ("vllm_oracle.py" in line or "flags_dump.py" in line) and "bin/python" in line:
                assert "PYTHONHASHSEED=0" in line, (doc.name, line)
    oracle = (root / "tests/golden/oracle/vllm_oracle.py").read_text()
    assert '"PYTHONHASHSEED": "0"' in oracle  # the 0.34.0 oracle re-runs itself under it


@pytest.mark.parametrize("version", ["0.11.1", "0.34.0"])
def test_hybrid_lb_with_one_local_rank_autoswitches_to_external_lb(version: str) -> None:
    """create_engine_config reads --data-parallel-hybrid-lb as given (``usage.given_on``): with one local DP rank it
    switches to external LB with rank 0 and resolves; its own rewrite (hybrid off, external on, no rank given) is
    not checked again as if the user had asked for external LB without a rank (golden k093, n161)."""
    argv = ["deepseek-ai/DeepSeek-V3", "-dp", "2", "-dpl", "1", "--data-parallel-hybrid-lb"]
    r = postinit.resolve(argv=argv, platform="h100", vllm_version=version)
    assert r.ok, r.error
    assert r.engine.initial["usage.given_on"] == ("parallel_config.data_parallel_hybrid_lb",)
    assert (r.get("parallel_config.data_parallel_external_lb"), r.get("parallel_config.data_parallel_hybrid_lb"),
            r.get("parallel_config.data_parallel_rank"), r.get("parallel_config.data_parallel_size_local")) \
        == (True, False, 0, 1)
    assert "autoswitch to data_parallel_external_lb" in " ".join(_messages(r))
    external = postinit.resolve(argv=[*argv[:-1], "--data-parallel-external-lb"], platform="h100",
                                vllm_version=version)
    assert not external.ok  # asked for external LB without a rank: refused


# ------------------------------------------------------------------------------------- the draft's config.json

_DRAFT = str(MODELS_DIR / "llama_draft")


def _spec(**kw: object) -> list[str]:
    return ["--speculative-config", json.dumps({"num_speculative_tokens": 2, **kw})]


def test_the_draft_checkpoint_is_read_where_the_target_would_be() -> None:
    """vLLM 0.34.0 builds the draft's ModelConfig from its config.json: postinit reads it through the target's
    loader (``draft.*``): a local directory where files may be read, else only a catalog id."""
    argv = [LLAMA, *_spec(method="eagle", model=_DRAFT)]
    r = postinit.resolve(argv=argv, vllm_version="0.34.0")
    assert r.ok and r.engine.initial["draft.loaded"] and r.engine.initial["draft.name"] == _DRAFT
    assert r.get("draft.built_max_model_len") == 4096 and r.get("draft.max_model_len") == 4096
    served = postinit.resolve(argv=["fixtures/llama", *argv[1:]], vllm_version="0.34.0",
                              catalog_only=True)  # the service: no files
    assert not served.engine.initial["draft.loaded"]
    assert [n.subject for n in served.notes if n.kind == "draft"] == [_DRAFT]
    catalog = postinit.resolve(argv=["fixtures/llama", *_spec(method="eagle", model="fixtures/llama_draft")],
                               vllm_version="0.34.0", catalog_only=True)
    assert catalog.engine.initial["draft.loaded"]


def test_the_draft_max_model_len_is_capped_by_the_target() -> None:
    """SpeculativeConfig caps the draft's length by the target's (logged); a speculative max_model_len may exceed
    neither (with VLLM_ALLOW_LONG_MAX_MODEL_LEN the draft's ModelConfig takes it, SpeculativeConfig refuses it)."""
    r = postinit.resolve(argv=[LLAMA, "--max-model-len", "2000", *_spec(method="eagle", model=_DRAFT)],
                         vllm_version="0.34.0")
    assert r.get("draft.max_model_len") == 2000 and r.get("model_config.max_model_len") == 2000
    assert "Overriding draft model max model len from 4096 to 2000" in _messages(r)
    long = postinit.resolve(argv=[LLAMA, *_spec(method="eagle", model=_DRAFT, max_model_len=100000)],
                            vllm_version="0.34.0", env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
    assert long.error is not None and long.error.stage == "speculative_config"
    assert long.error.message == "speculative_max_model_len=100000 cannot be larger than target_max_model_len=4096"
    refused = postinit.resolve(argv=[LLAMA, *_spec(method="eagle", model=_DRAFT, max_model_len=100000)],
                               vllm_version="0.34.0")
    assert refused.error is not None and refused.error.stage == "model_config"  # the draft's ModelConfig
    assert refused.error.wrapper_message is not None
    assert refused.error.wrapper_message.startswith("1 validation error for SpeculativeConfig")


def _fired(r: postinit.Resolution) -> list[str]:
    return [e.rule for e in r.trace.fired if e.changes or e.message] + [v.rule for v in r.violations]


def test_the_draft_model_config_rules_in_vllms_order() -> None:
    """0.34.0: the draft's architecture and length records, then SpeculativeConfig's cap; an EAGLE draft shorter
    than a long target has its max_position_embeddings raised (no cap on the target: its RoPE is cache-only)."""
    r = postinit.resolve(argv=[LLAMA, "--max-model-len", "2000", *_spec(method="eagle", model=_DRAFT)],
                         vllm_version="0.34.0")
    ours = ("speculative.draft-architecture", "speculative.draft-max-model-len", "speculative.draft-max-model-len-log",
            "speculative.draft-max-model-len-override")
    draft = [x for x in _fired(r) if x in ours]
    assert draft == list(ours)
    long = postinit.resolve(argv=[str(MODELS_DIR / "llama_long"), *_spec(method="eagle", model=_DRAFT)],
                            vllm_version="0.34.0")
    assert "speculative.draft-max-position-embeddings" in _fired(long)
    assert long.get("model_config.max_model_len") == 262144 and long.get("draft.max_model_len") == 4096
    plain = postinit.resolve(argv=[str(MODELS_DIR / "llama_long"), *_spec(model=_DRAFT)], vllm_version="0.34.0")
    assert plain.get("model_config.max_model_len") == 4096  # a plain draft's own limit caps the target (s-x207)
    assert "speculative.draft-max-position-embeddings" not in _fired(plain)


@pytest.mark.parametrize("version", ["d7fb10c57", "0.11.1"])
def test_eagle3_needs_a_supported_target_before_0_34_0(version: str) -> None:
    """The seed and 0.11.1 refuse EAGLE-3 on a target family without its auxiliary hidden states, after the
    draft's ModelConfig logged (golden n082); 0.34.0 dropped the check (s-n082)."""
    argv = [str(MODELS_DIR / "mistral_sw"), *_spec(method="eagle3", model=_DRAFT)]
    r = postinit.resolve(argv=argv, vllm_version=version)
    assert r.error is not None and r.error.rule == "speculative.eagle3-target-type"
    assert r.error.message.startswith("Eagle3 is only supported for ['llama', 'qwen', 'minicpm', 'gpt_oss'] models")
    assert "Resolved architecture: LlamaForCausalLM" in _messages(r)
    assert postinit.resolve(argv=argv, vllm_version="0.34.0").ok


def test_a_max_model_len_below_one_in_0_34_0() -> None:
    """vLLM 0.34.0's ModelConfig takes -1 ('auto': derived as if unset), derives and logs 0 and then refuses it in
    its model validator (golden e070), and refuses -2 by its field's bound where create_engine_config builds it
    (e104). The seed's ModelConfig takes any int (SkipValidation) and keeps it (golden y039)."""
    auto = postinit.resolve({"model_config": {"max_model_len": -1}}, model=LLAMA, vllm_version="0.34.0")
    assert auto.ok and auto.get("model_config.max_model_len") == 4096
    assert auto.get("model_config.original_max_model_len") == -1
    zero = postinit.resolve({"model_config": {"max_model_len": 0}}, model=LLAMA, vllm_version="0.34.0")
    assert zero.error is not None and zero.error.rule == "model.max-model-len-positive"
    assert zero.error.stage == "model_config" and "Using max model len 0" in _messages(zero)
    with pytest.raises(postinit.InputError) as refused:
        postinit.resolve({"model_config": {"max_model_len": -2}}, model=LLAMA, vllm_version="0.34.0")
    assert refused.value.stage == "model_config" and "greater than or equal to -1" in str(refused.value)
    kept = postinit.resolve({"model_config": {"max_model_len": -1}}, model=LLAMA)
    assert kept.get("model_config.max_model_len") == -1
    again = postinit.resolve(argv=[LLAMA, "--max-model-len", "2048"], vllm_version="0.34.0")
    assert again.with_changes({"model_config.max_model_len": 0}).error is not None  # the whole front door


def test_legacy_rope_attribute_names_of_a_remote_code_config_are_warned_about() -> None:
    """vLLM 0.34.0's patch_rope_parameters reads rotary_emb_base / rotary_emb_fraction under the standard names
    and warns (golden s-n100); a config without them, or a transformers class's, says nothing."""
    r = postinit.resolve(argv=[str(MODELS_DIR / "nomic"), "--trust-remote-code", "--runner", "pooling"],
                         vllm_version="0.34.0")
    said = [m for m in _messages(r) if "deprecated attribute name" in m]
    assert said == ["NomicBertConfig contains a deprecated attribute name 'rotary_emb_base'. Please use the preferred "
                    "attribute name 'rope_theta' instead.",
                    "NomicBertConfig contains a deprecated attribute name 'rotary_emb_fraction'. Please use the "
                    "preferred attribute name 'partial_rotary_factor' instead."]
    assert "models.rope-deprecated-names" in _fired(r)
    assert "models.rope-deprecated-names" not in _fired(postinit.resolve(argv=[LLAMA], vllm_version="0.34.0"))


def test_the_encoder_cache_transfer_config_is_built_by_0_34_0s_parser() -> None:
    """vLLM 0.34.0's parser builds --ec-transfer-config's ECTransferConfig: a role it does not know, or a connector
    without a role (ec-transfer.role-required, its __post_init__), is an ArgumentError (golden s-n151, s-n152);
    0.11.1's flag stays an unchecked extra (its roles differ)."""
    for value, text in (('{"ec_connector": "C", "ec_role": "ec_nobody"}', "Input should be 'ec_producer'"),
                        ('{"ec_connector": "C"}', "Please specify ec_role when ec_connector is set")):
        with pytest.raises(postinit.InputError, match=text) as refused:
            postinit.resolve(argv=[LLAMA, "--ec-transfer-config", value], vllm_version="0.34.0")
        assert refused.value.stage == "parse"
    assert postinit.resolve(argv=[LLAMA, "--ec-transfer-config", '{"ec_connector": "C", "ec_role": "ec_both"}'],
                            vllm_version="0.34.0").ok
    assert postinit.resolve(argv=[LLAMA, "--ec-transfer-config", '{"ec_connector": "C"}'], vllm_version="0.11.1").ok


def test_a_tokenizer_mode_of_any_name_from_0_34_0() -> None:
    """vLLM 0.34.0's tokenizer_mode is any text (a registered tokenizer's name; golden e101); the seed and 0.11.1
    take their four modes, refused by the parser's choices or, in a config, by the door, also on with_changes."""
    assert postinit.resolve(argv=[LLAMA, "--tokenizer-mode", "fast"], vllm_version="0.34.0").get(
        "model_config.tokenizer_mode") == "fast"
    for version in ("d7fb10c57", "0.11.1"):
        with pytest.raises(postinit.InputError, match="invalid choice: 'fast'"):
            postinit.resolve(argv=[LLAMA, "--tokenizer-mode", "fast"], vllm_version=version)
        with pytest.raises(postinit.InputError, match="'fast' is not allowed; allowed: auto, slow, mistral, custom"):
            postinit.resolve({"model_config": {"tokenizer_mode": "fast"}}, model=LLAMA, vllm_version=version)
        with pytest.raises(postinit.InputError, match="'fast' is not allowed"):
            postinit.resolve(argv=[LLAMA], vllm_version=version).with_changes({"model_config.tokenizer_mode": "fast"})
