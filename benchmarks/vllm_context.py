"""Context: real vLLM's own config resolution timed on this machine (through the vLLM oracle).

Not a postinit measurement and no target: it puts the issue's "real vLLM's ``VllmConfig(...)`` takes about
100 µs for Llama on H100" next to our numbers, measured here. A subprocess in the oracle's venv (real vLLM on
a simulated H100, see ``shared/oracle/README.md``) times, for Llama-3.1-8B-Instruct with default settings:

(a) ``VllmConfig(**sub_configs)`` from already-built sub-configs: ``VllmConfig.__post_init__`` with pydantic
    validation and the platform's ``check_and_update_config``. It mutates the sub-configs it is given, so each
    repetition gets fresh deep copies, made outside the timed region;
(b) ``EngineArgs(model=...).create_engine_config(UsageContext.LLM_CLASS)``, what ``LLM(model=...)`` does to
    get its config: ``ModelConfig`` (reading ``config.json``), every sub-config, then ``VllmConfig``.

The script only calls vLLM and the oracle's helpers; no vLLM code is in this repository. The model is
postinit's catalogue copy of Llama-3.1-8B-Instruct's ``config.json`` written to a temporary folder (or the
oracle's small ``models/llama`` fixture if that catalogue file is missing). Skipped, with a note, when no
oracle venv is found.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from benchmarks._util import Results, Row

ROOT = Path(__file__).resolve().parent.parent
SECTION = "context: real vLLM"
CATALOG = ROOT / "postinit" / "schema" / "catalog" / "meta-llama--Llama-3.1-8B-Instruct.json"
MARK = "VLLM_CONTEXT_JSON "

# Runs in the oracle venv. stdin: {"mark", "oracle_dir", "model": {"config", "tokenizer_config"} | null, "reps", "reps_engine"}.
_SCRIPT = r'''
import copy, gc, json, logging, os, shutil, statistics, sys, tempfile, time, warnings
p = json.load(sys.stdin)
sys.path.insert(0, p["oracle_dir"])
import vllm_oracle as O

t_setup = time.perf_counter()
case = O.normalize_case({"model": "llama", "platform": {"kind": "cuda", "capability": 90}}, "llama-h100")
O.worker_setup(case["platform"], case["env"])  # env, driver stub, simulated platform, vLLM import
O.install_platform(case["platform"])
O.CAPTURE.enabled = False
logging.getLogger("vllm").setLevel(logging.INFO)  # vLLM's default level (the oracle keeps DEBUG records)
warnings.simplefilter("ignore")
import vllm
from vllm.engine.arg_utils import EngineArgs
from vllm.usage.usage_lib import UsageContext
t_setup = time.perf_counter() - t_setup

tmp = None
if p["model"]:
    tmp = tempfile.mkdtemp(prefix="vllm-context-llama31-")
    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(p["model"]["config"], f)
    if p["model"].get("tokenizer_config"):
        with open(os.path.join(tmp, "tokenizer_config.json"), "w") as f:
            json.dump(p["model"]["tokenizer_config"], f)
    model = tmp
else:
    model = "models/llama"  # relative to the oracle folder (worker_setup chdirs there)
case["model"] = model
case["model_config"] = {"skip_tokenizer_init": False}  # vLLM's default (the oracle's is True)


def stats(xs):
    xs = sorted(xs)
    return {"median_us": statistics.median(xs) * 1e6, "p10_us": xs[len(xs) // 10] * 1e6,
            "p90_us": xs[(len(xs) * 9) // 10] * 1e6, "min_us": xs[0] * 1e6, "n": len(xs)}


def timed(make_args, fn, reps):
    out = []
    for _ in range(reps):
        args = make_args()
        gc.disable()
        t = time.perf_counter()
        fn(args)
        out.append(time.perf_counter() - t)
        gc.enable()
    return out


try:
    stage = ["setup"]
    base = O.build_sub_configs(case, stage)
    # Does VllmConfig(...) mutate the sub-configs it is given? (It does: hence fresh copies per repetition.)
    objs = copy.deepcopy(base)
    before = {k: json.dumps(O.snapshot(v, k), sort_keys=True, default=str) for k, v in objs.items()}
    t = time.perf_counter()
    vc = O.make_vllm_config(objs, case)
    first_us = (time.perf_counter() - t) * 1e6
    mutated = sorted(k for k, v in objs.items()
                     if json.dumps(O.snapshot(v, k), sort_keys=True, default=str) != before[k])
    for _ in range(20):  # warm-up: lazy imports and first-call caches inside __post_init__
        O.make_vllm_config(copy.deepcopy(base), case)
    gc.collect()
    gc.freeze()  # the collections the copies trigger (outside the timed region) then skip vLLM/torch
    t = time.perf_counter()
    a = timed(lambda: copy.deepcopy(base), lambda o: O.make_vllm_config(o, case), p["reps"])
    a_wall = time.perf_counter() - t

    def engine(_):
        return EngineArgs(model=model).create_engine_config(usage_context=UsageContext.LLM_CLASS)

    ve = engine(None)
    for _ in range(3):
        engine(None)
    t = time.perf_counter()
    b = timed(lambda: None, engine, p["reps_engine"])
    b_wall = time.perf_counter() - t
    out = {
        "vllm": vllm.__version__, "variant": O.VARIANT, "python": sys.version.split()[0],
        "model": "meta-llama/Llama-3.1-8B-Instruct config.json" if tmp else "oracle fixture models/llama",
        "architecture": vc.model_config.architecture, "max_model_len": vc.model_config.max_model_len,
        "device_name": case["platform"]["device_name"],
        "cudagraph_mode": str(vc.compilation_config.cudagraph_mode),
        "mutated_sub_configs": mutated, "first_vllm_config_us": first_us,
        "vllm_config": stats(a), "vllm_config_loop_s": a_wall,
        "engine": stats(b), "engine_loop_s": b_wall,
        "engine_max_num_batched_tokens": ve.scheduler_config.max_num_batched_tokens,
        "setup_s": t_setup,
    }
finally:
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
sys.stdout.write(p["mark"] + json.dumps(out) + "\n")
'''


def oracle_dir() -> Path:
    return Path(os.environ.get("POSTINIT_ORACLE_DIR") or ROOT.parent / "shared" / "oracle")


def oracle_python() -> Path | None:
    home = Path.home()
    cands = [os.environ.get("POSTINIT_ORACLE_PYTHON"), home / "oracle-venv-seed" / "bin" / "python",
             home / "oracle-venv" / "bin" / "python"]
    for c in cands:
        if c and Path(c).is_file():
            return Path(c)
    return None


def _model() -> dict | None:
    try:
        entry = json.loads(CATALOG.read_text())
    except (OSError, ValueError):
        return None
    return {"config": entry["config"], "tokenizer_config": entry.get("tokenizer_config")}


def measure(*, reps: int, reps_engine: int, timeout: float = 300) -> dict:
    """Run the timing script in the oracle venv; its JSON result (raises on failure)."""
    py, odir = oracle_python(), oracle_dir()
    if py is None:
        raise FileNotFoundError("no oracle python (POSTINIT_ORACLE_PYTHON, ~/oracle-venv-seed, ~/oracle-venv)")
    if not (odir / "vllm_oracle.py").is_file():
        raise FileNotFoundError(f"no vllm_oracle.py in {odir} (set POSTINIT_ORACLE_DIR)")
    params = {"mark": MARK, "oracle_dir": str(odir), "model": _model(), "reps": reps, "reps_engine": reps_engine}
    t = time.perf_counter()
    proc = subprocess.run([str(py), "-c", _SCRIPT], input=json.dumps(params), capture_output=True, text=True,
                          cwd=odir, timeout=timeout, check=False)
    wall = time.perf_counter() - t
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"oracle timing script failed (exit {proc.returncode}): {' | '.join(tail)}")
    out = json.loads(lines[-1][len(MARK):])
    out["python_path"], out["subprocess_s"] = str(py), wall
    return out


def run(res: Results, *, reps: int = 2000) -> None:
    """(a) ``VllmConfig(...)`` over ``reps`` repetitions, (b) ``create_engine_config`` over ``reps // 10``."""
    try:
        m = measure(reps=max(reps, 3), reps_engine=max(reps // 10, 3))
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
        res.notes.append(f"{SECTION}: rows skipped ({e}).")
        return
    where = (f"vLLM {m['vllm']} ({m['variant']}), {m['model']}, simulated {m['device_name']}, "
             f"oracle venv {m['python_path']}")
    a, b = m["vllm_config"], m["engine"]
    res.add(Row(SECTION, "real vLLM: VllmConfig(...) from built sub-configs (__post_init__), Llama-3.1-8B H100",
                a["median_us"], "µs",
                note=f"median of {a['n']} (p10-p90 {a['p10_us']:.0f}-{a['p90_us']:.0f} µs), fresh deep copies "
                     f"outside the timing; {where}"))
    res.add(Row(SECTION, "real vLLM: EngineArgs(model=...).create_engine_config(LLM_CLASS), Llama-3.1-8B H100",
                b["median_us"], "µs",
                note=f"median of {b['n']} (p10-p90 {b['p10_us']:.0f}-{b['p90_us']:.0f} µs), incl. ModelConfig "
                     f"reading config.json; {where}"))
    res.notes.append(
        f"{SECTION}: real vLLM {m['vllm']} ({m['variant']}) on a simulated {m['device_name']} via the oracle "
        f"(benchmarks/vllm_context.py), {m['model']} (max_model_len {m['max_model_len']}, resolved "
        f"cudagraph_mode {m['cudagraph_mode']}). VllmConfig(...) mutates the sub-configs it is given "
        f"({', '.join(m['mutated_sub_configs']) or 'none'}), so each repetition times fresh deep copies; "
        f"the first VllmConfig in the process took {m['first_vllm_config_us']:.0f} µs; vLLM logger at INFO, "
        f"records dropped. Import and platform setup {m['setup_s']:.1f} s, whole subprocess "
        f"{m['subprocess_s']:.1f} s.")
