"""vLLM 0.34.0 decisions modelled for issue 30's coverage cases k1300- (tests/golden/gen_cov_0340.py, batch 34):
a heterogeneous checkpoint's per_layer_config, a Python logging config file with logging configuration off, and
tied word embeddings in a checkpoint that has an lm_head of its own. The golden cases pin each against the wheel;
these tests pin each decision."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import postinit
from postinit.rules import v0_34_0_errors as e
from postinit.rules._kit import state
from postinit.schema.loaders.model import _checkpoint_has_lm_head
from tests.golden.parity import fixture_path

LLAMA = fixture_path("llama")
TIED = fixture_path("cov_llama_tied_lm_head")


def serve(*argv: str, model: str = LLAMA) -> postinit.Resolution:
    return postinit.resolve(model=model, argv=list(argv), vllm_version="0.34.0", platform="cuda:9.0")


def messages(r: postinit.Resolution) -> list[str]:
    return [line for f in r.trace.fired for line in (f.message or "").splitlines() if line]


def test_per_layer_config_without_layers_or_with_varying_architectures_is_refused() -> None:
    """model.per-layer-config: vLLM merges the per-layer views before anything else of the model is resolved."""
    r = serve("--hf-overrides", json.dumps({"num_hidden_layers": 0, "per_layer_config": {}}))
    assert not r.ok and r.error is not None and r.error.message == "a model must have at least one layer"
    assert r.error.stage == "model_config" and messages(r) == []
    r = serve("--hf-overrides", json.dumps({"per_layer_config": {"1": {"architectures": ["MistralForCausalLM"]}}}))
    assert not r.ok and r.error is not None
    assert r.error.message.startswith("'architectures' varies across layers and has no whole-model value: "
                                      "[\"['LlamaForCausalLM']\", \"['MistralForCausalLM']\"]. ")
    # a numeric field varies: vLLM keeps the largest (not refused); an override equal to the whole model's is none
    assert serve("--hf-overrides", json.dumps({"per_layer_config": {"1": {"head_dim": 64}}})).ok
    assert serve("--hf-overrides", json.dumps({"per_layer_config": {"1": {"architectures": ["LlamaForCausalLM"]}}})).ok


def test_a_logging_config_file_needs_logging_configuration_on() -> None:
    """engine-args.logging-config-file: --log-config-file is logging_config.pylogging_config_file; with
    configure_logging off (the oracle's VLLM_CONFIGURE_LOGGING=0) create_engine_config refuses it first."""
    r = serve("--log-config-file", "/tmp/log.json")
    assert not r.ok and r.error is not None and r.error.type == "RuntimeError"
    assert r.error.stage == "create_engine_config" and messages(r) == []
    base = {"usage.via_engine_args": True, "logging_config.pylogging_config_file": "/tmp/log.json"}
    assert e.logging_config_file(state({**base, "logging_config.configure_logging": True}, version="0.34.0")) is None
    assert e.logging_config_file(state({**base, "usage.via_engine_args": False}, version="0.34.0")) is None


def test_tied_embeddings_are_untied_when_the_checkpoint_has_an_lm_head(tmp_path: Path) -> None:
    """model.untie-word-embeddings: the safetensors headers name an lm_head.weight; dummy weights ask nothing."""
    r = serve(model=TIED)
    assert r.ok and r.config.model_config.word_embeddings_untied_by_checkpoint is True
    assert r.config.model_config.hf_config.tie_word_embeddings is False
    assert any(m.startswith("The config for ") and "says the word embeddings are tied" in m for m in messages(r))
    r = serve("--load-format", "dummy", model=TIED)
    assert r.ok and r.config.model_config.word_embeddings_untied_by_checkpoint is False
    assert not serve().config.model_config.word_embeddings_untied_by_checkpoint  # no safetensors file at all
    assert _checkpoint_has_lm_head(tmp_path) is None
    header = json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}})
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0\0")
    assert _checkpoint_has_lm_head(tmp_path) is False
    (tmp_path / "bad.safetensors").write_bytes(b"\1")
    assert _checkpoint_has_lm_head(tmp_path) is None


def test_a_checkpoint_header_rewritten_in_place_is_read_again(tmp_path: Path) -> None:
    """The local-model cache watches the *.safetensors files whose headers it read: a header rewritten in place
    (the directory's mtime unchanged) gives the new answer, not the cached one."""
    model = tmp_path / "tied"
    shutil.copytree(TIED, model)
    assert serve(model=str(model)).config.model_config.word_embeddings_untied_by_checkpoint is True
    header = json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}})
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0\0")
    assert serve(model=str(model)).config.model_config.word_embeddings_untied_by_checkpoint is False
