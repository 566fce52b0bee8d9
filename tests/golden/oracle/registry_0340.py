"""Print vLLM 0.34.0's model registry as postinit's data (``postinit/rules/data/model-registry-0.34.0.json``).

Run with the oracle's venv, from ``tests/golden``::

    $HOME/oracle-venv-0.34.0/bin/python oracle/registry_0340.py > ../../postinit/rules/data/model-registry-0.34.0.json

Every architecture of ``ModelRegistry.models`` (vllm/model_executor/models/registry.py, registration
order, the order vLLM's unsupported-architecture error lists them) with the ``_ModelInfo`` facts of
the class it loads (``_ModelInfo.from_model_cls``, each class inspected in a forked child of its own on a
simulated H100, as one case's oracle process inspects it), and ``_SUFFIX_TO_DEFAULTS`` of vllm/config/model.py.
A class that cannot be inspected here is listed with ``"error"`` and no interfaces. Nothing of vLLM's code is
printed: only the facts. ``--platform rocm:gfx942`` (or ``cpu``) prints another platform's view: on 2026-12-07
ROCm's was the same and CPU's differed only in K3DSparkModel / MuseSparkDSparkModel (not importable there).

Inspection is not loading: vLLM inspects a class through its model-info cache or a subprocess, while some config
code loads the class in the oracle's process (``resolve_model_cls``: the CPU platform's SSM backend choice, the
multimodal processor lookup), where a class whose kernels need a package missing here fails ("Error in loading
model architecture": the Triton-kernel classes on the simulated CPU, MiniMax-M3 VL without the CUTLASS DSL on
CUDA), which postinit does not model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vllm_oracle as oracle  # noqa: E402

_FLAGS = {
    "generate": "is_text_generation_model", "pooling": "is_pooling_model",
    "multimodal": "supports_multimodal", "hybrid": "is_hybrid", "attention_free": "is_attention_free",
    "inner_state": "has_inner_state", "pp": "supports_pp", "lora": "supports_lora",
    "replayssm": "supports_replayssm", "transcription": "supports_transcription",
    "multimodal_encoder_tp_data": "supports_multimodal_encoder_tp_data", "noops": "has_noops",
    "kv_cache_grouping": "supports_kv_cache_grouping", "raw_input_only": "supports_multimodal_raw_input_only",
    "mm_device_do_normalize": "supports_mm_device_do_normalize", "hc_sp": "supports_hc_sp",
}


def main() -> int:
    # another platform's view (`--platform rocm:gfx942`, `cpu`): a model package may pick its classes by platform
    platform = sys.argv[sys.argv.index("--platform") + 1] if "--platform" in sys.argv else "cuda:90"
    oracle.worker_setup(oracle.normalize_platform(platform), {"VLLM_CPU_KVCACHE_SPACE": "4"} if platform == "cpu" else {})
    import vllm.model_executor.models.registry as reg
    from vllm.config import model as model_cfg

    # each class inspected in a forked child of its own, as one case's oracle process imports it: in a single
    # process a class's import can fail or differ because of the modules an earlier class imported (at 0.34.0
    # MiniMax-M3's classes then failed on 'cutlass', DeepseekV4ForCausalLM's lora interface varied between runs)
    out = [oracle.run_in_fork(_entry, arch) for arch in reg.ModelRegistry.models]
    oracle.CAPTURE.records.clear()
    doc = {
        "vllm": "0.34.0",
        "source": "vllm/model_executor/models/registry.py (ModelRegistry.models, registration order) and each "
        "class's _ModelInfo (from_model_cls) - of the vllm==0.34.0 wheel, printed by "
        "tests/golden/oracle/registry_0340.py",
        "interfaces": {k: v for k, v in _FLAGS.items()},
        "architectures": out,
        "suffix_defaults_source": "vllm/config/model.py _SUFFIX_TO_DEFAULTS (first match wins)",
        "suffix_defaults": [{"suffix": s, "runner_type": r, "convert_type": c}
                            for s, (r, c) in model_cfg._SUFFIX_TO_DEFAULTS],
        "runner_converts": {k: list(v) for k, v in model_cfg._RUNNER_CONVERTS.items()},
    }
    print(render(doc))
    return 0


def _entry(arch: str) -> dict:
    """The registry facts of one architecture's class (``"error"`` where its module does not import)."""
    import vllm.model_executor.models.registry as reg

    entry: dict = {"architecture": arch}
    try:
        info = reg.ModelRegistry.models[arch].inspect_model_cls()
    except Exception as e:  # noqa: BLE001 - a class whose module does not import here
        entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        entry["interfaces"] = []
        return entry
    entry["interfaces"] = [k for k, attr in _FLAGS.items() if getattr(info, attr)]
    entry["attn_type"] = info.attn_type
    entry["seq_pooling_type"] = info.default_seq_pooling_type
    entry["tok_pooling_type"] = info.default_tok_pooling_type
    if info.supported_video_pruning_methods:
        entry["video_pruning_methods"] = list(info.supported_video_pruning_methods)
    if info.architecture != arch:  # the class's own name (_ModelInfo.architecture), where vLLM's errors show it
        entry["class"] = info.architecture
    return entry


def render(doc: dict) -> str:
    """The registry JSON with one architecture (and one suffix default) per line, as postinit's data files are."""
    head = {k: v for k, v in doc.items() if k not in ("architectures", "suffix_defaults")}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    for key in ("architectures", "suffix_defaults"):
        rows = [f"  {json.dumps(e)}" for e in doc[key]]
        lines += [f" {json.dumps(key)}: [", ",\n".join(rows), " ],"]
    lines[-1] = " ]"
    return "\n".join(lines + ["}"])


if __name__ == "__main__":
    sys.exit(main())
