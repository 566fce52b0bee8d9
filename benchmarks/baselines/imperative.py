"""The hand-written floor: VllmConfig.__post_init__'s steps 7-12 as plain ``if`` statements.

It takes the flat state as it stands when vLLM reaches step 7 (the state
postinit's ``core`` phase starts from: model facts, EngineArgs defaults and
sub-config post-inits already applied) and returns the values of the fields
it decides. ``tests/test_benchmarks_smoke.py`` checks that they equal what
postinit's ``core`` phase resolves on every benchmark input. No trace, no
provenance, no checks beyond the asserts vLLM makes on this path: the
fastest Python can make these decisions.

Decisions (25): compilation mode default; custom_ops default (all/none);
async-TP ⇒ SP; SP ⇒ +rms_norm; cudagraph mode default; DCP / pooling /
encoder-decoder / Blackwell-long-context downgrades to PIECEWISE; eager ⇒
NONE with no sizes; warm-ups; capture sizes (default ladder, user list
de-dup, SP filter by TP, max truncation, the two asserts); compile_sizes
expansion; the batch-size → padded-graph-size table; mode NONE without static graphs.
"""

from __future__ import annotations

from typing import Any

from postinit.schema import CompilationMode, CUDAGraphMode

_NONE, _PIECEWISE, _FAP = CUDAGraphMode.NONE, CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL_AND_PIECEWISE
_VC = CompilationMode.VLLM_COMPILE

FIELDS = (
    "compilation_config.mode",
    "compilation_config.custom_ops",
    "compilation_config.pass_config.enable_sequence_parallelism",
    "compilation_config.cudagraph_mode",
    "compilation_config.cudagraph_num_of_warmups",
    "compilation_config.max_cudagraph_capture_size",
    "compilation_config.cudagraph_capture_sizes",
    "compilation_config.compile_sizes",
    "compilation_config.bs_to_padded_graph_size",
)


def _full(mode: Any) -> bool:
    return mode is not None and mode.has_full_cudagraphs()


def post_init_core(s: dict[str, Any]) -> dict[str, Any]:
    """Steps 7-12 on a plain flat dict; returns ``{field: value}`` for :data:`FIELDS`."""
    has_model = s["model_config"] is not None
    eager = has_model and s["model_config.enforce_eager"]
    v1 = s["env.VLLM_USE_V1"]
    # step 7: compilation mode
    mode = s["compilation_config.mode"]
    if mode is None:
        mode = _VC if (v1 and has_model and not eager) else CompilationMode.NONE
    # step 8: custom ops
    ops = tuple(s["compilation_config.custom_ops"])
    if "all" not in ops and "none" not in ops:
        inductor = s["compilation_config.backend"] == "inductor" and mode > CompilationMode.NONE
        ops = (*ops, "none" if inductor else "all")
    # steps 10-11: sequence parallelism
    sp = s["compilation_config.pass_config.enable_sequence_parallelism"]
    if s["compilation_config.pass_config.enable_async_tp"]:
        sp = True
    if sp:
        ops = (*ops, "+rms_norm")
    # step 12: cudagraph mode
    static = s["platform.support_static_graph_mode"]
    cg = s["compilation_config.cudagraph_mode"]
    warmups = s["compilation_config.cudagraph_num_of_warmups"]
    mx = s["compilation_config.max_cudagraph_capture_size"]
    sizes = s["compilation_config.cudagraph_capture_sizes"]
    table = s["compilation_config.bs_to_padded_graph_size"]
    if static:
        if cg is None:
            cg = _FAP if (v1 and mode == _VC) else _NONE
        if _full(cg) and s["parallel_config.decode_context_parallel_size"] > 1:
            cg = _PIECEWISE
        if _full(cg) and has_model and s["model_config.pooler_config"] is not None:
            cg = _PIECEWISE
        if _full(cg) and has_model and s["model_config.is_encoder_decoder"]:
            cg = _PIECEWISE
        n = s["model_config.max_model_len"]
        if (
            _full(cg) and has_model and s["platform.is_cuda"] and s["platform.capability"] == 100
            and n is not None and n > 131072 and not s["model_config.use_mla"]
        ):
            cg = _PIECEWISE
        if eager:
            cg, mx, sizes = _NONE, 0, ()
        if not eager and v1:
            warmups = 1
        # step 12d: capture sizes
        if not has_model or eager or cg == _NONE:
            mx, sizes = 0, ()
        else:
            m = mx if mx is not None else min(s["scheduler_config.max_num_seqs"] * 2, 512)
            m = min(s["scheduler_config.max_num_batched_tokens"], m)
            if m < 1:
                raise AssertionError("Maximum cudagraph size should be greater than or equal to 1")
            if sizes is not None and not sizes:
                raise AssertionError("cudagraph_capture_sizes should contain at least one element")
            if sizes is not None:
                out = sorted(set(sizes))
            else:
                out = [i for i in (1, 2, 4) if i <= m]
                if m >= 8:
                    out += range(8, min(m + 1, 256), 8)
                if m >= 256:
                    out += range(256, m + 1, 16)
            tp = s["parallel_config.tensor_parallel_size"]
            if tp > 1 and sp:
                out = [x for x in out if x % tp == 0]
            valid = out[-1] if out else 0
            if mx is not None and mx != valid and sizes is not None:
                raise ValueError("customized max_cudagraph_capture_size should be consistent")
            mx, sizes = valid, tuple(out)
        # step 12e: compile sizes and the padding table
        given = s["compilation_config.compile_sizes"]
        csizes: list[Any] = []
        if given is not None:
            words = [x for x in given if isinstance(x, str)]
            csizes = list({x for x in given if not isinstance(x, str)}) + [x for _ in dict.fromkeys(words) for x in sizes]
        compile_sizes: Any = tuple(csizes)
        table_l = [0] * (mx + 1)
        ordered = sorted(sizes)
        for end, start in zip([*ordered, mx + 1], [0, *ordered], strict=False):
            for bs in range(start, end):
                table_l[bs] = start if bs == start else end
        table = tuple(table_l)
    else:
        cg = _NONE  # step 12-else: no static graph support
        compile_sizes = s["compilation_config.compile_sizes"]
    return {
        "compilation_config.mode": mode,
        "compilation_config.custom_ops": ops,
        "compilation_config.pass_config.enable_sequence_parallelism": sp,
        "compilation_config.cudagraph_mode": cg,
        "compilation_config.cudagraph_num_of_warmups": warmups,
        "compilation_config.max_cudagraph_capture_size": mx,
        "compilation_config.cudagraph_capture_sizes": sizes,
        "compilation_config.compile_sizes": compile_sizes,
        "compilation_config.bs_to_padded_graph_size": table,
    }
