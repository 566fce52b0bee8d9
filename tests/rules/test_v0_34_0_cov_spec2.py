"""Decisions modelled for issue 30's coverage cases k1200- (tests/golden/gen_cov_0340.py, batch 33): an inductor
pass named without its module, DeepSeek V4.1's Engram refusal of microbatching, FlashInfer ReplaySSM under
microbatching, the MTP draft of a Nemotron-H Omni checkpoint. The golden cases pin each against the 0.34.0 wheel;
these tests pin each decision."""

from __future__ import annotations

import json

import postinit
from postinit.engine import Violation
from postinit.rules import v0_34_0 as v
from postinit.rules import v0_34_0_models as m
from postinit.rules import v0_34_0_spec as mtp
from postinit.rules._kit import state
from postinit.rules.compilation import inductor_pass_module

V = "0.34.0"


def test_inductor_pass_without_a_module_part_is_refused() -> None:
    """``__import__("")`` of a pass name without a dot; a qualified name is the Python environment's business."""
    for version in ("d7fb10c57", "0.11.1", V):
        bad = state({"compilation_config.inductor_passes": {"p": "dedent"}}, version=version)
        assert inductor_pass_module(bad) == Violation("Empty module name")
        assert inductor_pass_module(state({"compilation_config.inductor_passes": {"p": ".dedent"}},
                                          version=version)) == Violation("Empty module name")
        ok = state({"compilation_config.inductor_passes": {"p": "textwrap.dedent"}}, version=version)
        assert inductor_pass_module(ok) is None
        assert inductor_pass_module(state({}, version=version)) is None


def test_deepseek_v41_engram_refuses_microbatching() -> None:
    """DBO or ubatch_size > 1 on DeepSeek V4.1 with Engram layers; other models and no layers pass."""
    dsv41 = {"model_config": True, "model_config.architecture": "DeepseekV41ForCausalLM",
             "model_config.hf_text_config.engram_layer_ids": [0]}
    msg = ("DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set --ubatch-size "
           "to 0.")
    assert v.engram_dsv41_ubatching(state({**dsv41, "parallel_config.ubatch_size": 2}, version=V)) == Violation(msg)
    assert v.engram_dsv41_ubatching(state({**dsv41, "parallel_config.enable_dbo": True}, version=V)) == Violation(msg)
    assert v.engram_dsv41_ubatching(state(dsv41, version=V)) is None
    no_layers = {**dsv41, "model_config.hf_text_config.engram_layer_ids": [], "parallel_config.ubatch_size": 2}
    assert v.engram_dsv41_ubatching(state(no_layers, version=V)) is None
    other = {**dsv41, "model_config.architecture": "DeepseekV4ForCausalLM", "parallel_config.ubatch_size": 2}
    assert v.engram_dsv41_ubatching(state(other, version=V)) is None


def test_flashinfer_replayssm_refuses_ubatch_size_as_well_as_dbo() -> None:
    """use_ubatching is DBO or ubatch_size > 1 (vllm/config/parallel.py:720)."""
    base = {"cache_config.use_replayssm": True, "mamba_config.backend": "flashinfer"}
    msg = Violation("FlashInfer ReplaySSM does not support microbatching")
    assert m.replayssm_supported(state({**base, "parallel_config.ubatch_size": 2}, version=V)) == msg
    assert m.replayssm_supported(state({**base, "parallel_config.enable_dbo": True}, version=V)) == msg
    assert m.replayssm_supported(state({**base, "parallel_config.ubatch_size": 1}, version=V)) is None


def test_nemotron_omni_mtp_draft_is_its_text_config_rewritten() -> None:
    """k1207: NemotronH_Omni_Reasoning_V3's text config is promoted, then drafted as Nemotron-H's MTP head; without
    MTP layers in the text config postinit names no draft (the rewrite keeps the Nemotron-H architecture)."""
    r = postinit.resolve(model="tests/golden/models/spec_nemotron_omni_mtp", vllm_version=V, argv=[
        "--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 1})])
    assert r.ok, r.error
    said = [e.message for e in r.messages() if e.rule == "speculative.mtp-draft-architecture"]
    assert said == ["Resolved architecture: NemotronHMTPModel"]
    omni = {"model_config.hf_config.architectures": ["NemotronH_Omni_Reasoning_V3"],
            "model_config.hf_config.model_type": "nemotron_h_omni",
            "model_config.hf_text_config.model_type": "nemotron_h"}
    assert mtp.mtp_draft(state({**omni, "model_config.hf_text_config.num_nextn_predict_layers": 2},
                               version=V)) == mtp.MtpDraft("NemotronHMTPModel", "nemotron_h_mtp", 2)
    assert mtp.mtp_draft(state(omni, version=V)) is None
