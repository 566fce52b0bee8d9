"""3. What-if: re-resolving after changing one input field, against a full resolve."""

from __future__ import annotations

import postinit
from benchmarks._inputs import kwargs
from benchmarks._util import Results, Row, paired

CHANGES = {
    "model_config.enforce_eager": True,
    "compilation_config.cudagraph_mode": "PIECEWISE",
    "scheduler_config.max_num_seqs": 64,
}


def run(res: Results, *, reps: int = 100, inner: int = 3) -> None:
    kw = kwargs("llama3-h100")
    for path, value in CHANGES.items():
        def full() -> object:
            return postinit.resolve(**kw)

        def whatif(path: str = path, value: object = value) -> object:
            return postinit.what_if(kw["config"], platform=kw["platform"], set={path: value})

        def changed_only(path: str = path, value: object = value) -> object:
            return postinit.resolve(**kw, overrides={path: value})

        t_full, t_w = paired(full, whatif, reps=reps, inner=inner)
        _, t_c = paired(full, changed_only, reps=reps, inner=inner)
        # the measure: re-resolving after one input field changed, against a full resolve
        res.add(Row("what-if", f"re-resolve with {path} = {value!r}", t_c * 1e6, "µs",
                    "full resolve", t_full * 1e6, "≤ 0.25× full resolve", t_c <= 0.25 * t_full,
                    note="no incremental engine: the changed input is resolved in full"))
        res.add(Row("what-if", f"  postinit.what_if(set={{{path}: {value!r}}})", t_w * 1e6, "µs",
                    "full resolve", t_full * 1e6, note="the API: base + changed resolution + diff + both hashes"))
