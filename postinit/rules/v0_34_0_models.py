"""vLLM 0.34.0's model-specific decisions, as a part of its delta over 0.11.1 (``delta_parts`` in versions.json).

The version's delta is declared in two modules joined by :func:`postinit.rules.delta.combine`:
:mod:`postinit.rules.v0_34_0` (compilation and CUDA graphs, EngineArgs, errors, the parser,
parallel, KV, scheduler, platforms) and this one (hybrid / Mamba models, the pooler config,
multimodal / encoder-decoder models, speculative decoding, quantization facts and the model
hooks of ``vllm/model_executor/models/config.py``). No two parts edit the same rule.

Sources (``source=``) are files of the ``vllm==0.34.0`` wheel (``site-packages/vllm/``); every
rule here carries the reference tag ``v0.34.0``.
"""

from __future__ import annotations

from postinit.rules.versions import Delta

__all__ = ["DELTA"]


DELTA = Delta()
"""The model-specific part of vLLM 0.34.0's delta over 0.11.1."""
