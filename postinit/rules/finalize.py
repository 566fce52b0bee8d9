"""Steps 18-24 of ``VllmConfig.__post_init__`` (phase ``finalize``), after the platform hook.

18 splitting ops (``CompilationConfig.set_splitting_ops_for_v1``, §5.5) — V1
and ``mode == VLLM_COMPILE`` re-read after the hook; 19 final CUDA-graph
checks and the deprecated-flag migration (CUDA/ROCm, V1); 20 dual batch
overlap; 22 the hybrid KV cache manager switches; 23 the debug dump path;
24 blocked FP8 weights. Step 21 (the ``instance_id`` fallback) is dead code:
step 1 always sets a clock value, which a deterministic resolution leaves empty
(``vllm.instance-id`` says so; ``quirk.instance-id-ignored`` flags a user value).

Ordering: the steps are one ``sequence`` (:data:`FINALIZE`). Step 22's gate (``not
disable_hybrid_kv_cache_manager``) is evaluated once, before any reason turns the
manager off, and every applicable warning is logged: an ``all_of`` group under that
gate. The cascade-attention warning of step 19 reads ``disable_cascade_attn`` before
step 20 sets it (O16): the sequence's declared order.

Step 23: ``Path.absolute()`` depends on the working directory; here it is the
``usage.cwd`` fact (``os.getcwd()`` when the Usage is built). ``expanduser()``
runs after ``absolute()`` and so never expands a leading ``~`` (I14).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from postinit.engine import (
    Outcome,
    RuleResult,
    rule,
    sequence,
)
from postinit.rules.compilation import (
    attn_fusion_forces_full,
    blocked_fp8_adds_quant_fp8,
    debug_dump_path,
    debug_dump_path_env,
    empty_splitting_ops_mode,
    splitting_ops,
)
from postinit.rules.cudagraph import STEP_19
from postinit.rules.parallel import STEP_20
from postinit.rules.scheduler import STEP_22

_SRC = "vllm/config/vllm.py VllmConfig.__post_init__"

# --------------------------------------------------------------------------
# steps 1 and 21: instance id
# --------------------------------------------------------------------------


@rule(
    "vllm.instance-id",
    title="instance_id is drawn at run time",
    phase="finalize",
    kind="check",
    reads=("instance_id",),
    source=f"{_SRC}; ref step-1, step-21",
    message="instance_id is left empty: vLLM sets it to str(time.time_ns()) in step 1; the "
    "random_uuid()[:5] fallback of step 21 never runs.",
    level="debug",
)
def instance_id(c: Mapping[str, Any]) -> RuleResult:
    """Every VllmConfig gets a fresh id; a deterministic resolution cannot reproduce a clock value."""
    return Outcome.log() if c["instance_id"] == "" else None


@rule(
    "quirk.instance-id-ignored",
    title="A user-supplied instance_id is discarded",
    phase="finalize",
    kind="check",
    reads=("instance_id",),
    source=f"{_SRC}; ref step-1, 13.2:I14",
    level="warning",
)
def instance_id_ignored(c: Mapping[str, Any]) -> RuleResult:
    """Step 1 overwrites ``instance_id`` unconditionally, so the value given is never used."""
    if c["instance_id"] != "":
        return Outcome(
            message=f"quirk I14: instance_id {c['instance_id']!r} is discarded; vLLM always sets "
            "str(time.time_ns()) in step 1."
        )
    return None



FINALIZE = sequence(
    "vllm.finalize",
    splitting_ops, attn_fusion_forces_full, empty_splitting_ops_mode, STEP_19, STEP_20, STEP_22, debug_dump_path,
    debug_dump_path_env, blocked_fp8_adds_quant_fp8,
    title="Steps 18-24 in vLLM's order: splitting ops, the final CUDA-graph check, DBO, HMA, dump path, FP8",
    source=_SRC,
)
