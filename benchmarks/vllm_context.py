"""Real vLLM's own time for the jobs postinit does, measured in one process with postinit (through the oracle).

A subprocess in the oracle's venv (real vLLM on a simulated H100, see ``shared/oracle/README.md``)
imports postinit from this checkout too (its own packages first; what it lacks — structlog, typer,
rich — from this venv) and samples, alternately, for Llama-3.1-8B-Instruct:

* the **dict path**: vLLM's ``VllmConfig(**sub_configs)`` from already-built sub-configs (its
  ``__post_init__``, pydantic validation and the platform's ``check_and_update_config``; fresh deep
  copies made outside the timing, as it mutates them) against ``postinit.resolve(config=dict)``
  (``.config`` included: the validated ``VllmConfig``), a new ``max_model_len`` every call; the target
  is against vLLM's whole job from the same dict: the sub-configs built (``ModelConfig`` reads
  config.json) and then ``VllmConfig``;
* the **flags path**: ``vllm serve``'s engine arguments (``AsyncEngineArgs.add_cli_args`` on vLLM's
  ``FlexibleArgumentParser``: the frontend half of ``make_arg_parser`` cannot be imported in the
  oracle venv, which lacks ``llguidance``) on ``--model DIR --max-model-len N``, then
  ``AsyncEngineArgs.from_cli_args(...).create_engine_config(OPENAI_API_SERVER)``, against
  ``postinit.resolve(argv=[...])`` (``.config`` included), a new ``N`` every call on both sides.

Each figure is the minimum over the rounds; the ratios are taken inside that one process. Separately,
``vllm serve``'s config phase as a process (interpreter start, the oracle's simulated platform, vLLM's
engine-argument modules, the parser, ``create_engine_config``, exit) is timed against ``postinit resolve``
as a process, the two alternating. It is a lower bound of ``vllm serve``'s: the real command also
imports its HTTP server modules (``vllm.entrypoints.cli.serve``) before parsing, which the oracle venv
cannot import (no ``llguidance``).

The scripts only call vLLM and the oracle's helpers; no vLLM code is in this repository. The model is
postinit's catalogue copy of Llama-3.1-8B-Instruct's ``config.json`` written to a temporary folder.
Skipped, with a note, when no oracle venv is found.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._util import Results, Row

ROOT = Path(__file__).resolve().parent.parent
SECTION = "vLLM, same job"
CATALOG = ROOT / "postinit" / "schema" / "catalog" / "meta-llama--Llama-3.1-8B-Instruct.json"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MARK = "VLLM_CONTEXT_JSON "
DICT_TARGET = 0.2
"""Of vLLM's whole job from the same dict: the sub-configs built, then VllmConfig (issue 31)."""
FLAGS_TARGET = 0.2

# Runs in the oracle venv. stdin: {"mark", "oracle_dir", "root", "site", "model_dir", "llama", "rounds"}.
_SCRIPT = r'''
import copy, gc, json, logging, os, statistics, sys, time, warnings
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
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.usage.usage_lib import UsageContext
from vllm.utils.argparse_utils import FlexibleArgumentParser
t_setup = time.perf_counter() - t_setup

sys.path.insert(0, p["root"])
sys.path.append(p["site"])  # what the oracle venv lacks (structlog, typer, rich); its own pydantic wins
import pydantic
import postinit

model = p["model_dir"]
case["model"] = model
case["model_config"] = {"skip_tokenizer_init": False}  # vLLM's default (the oracle's is True)
stage = ["setup"]
base = O.build_sub_configs(case, stage)
vc = O.make_vllm_config(copy.deepcopy(base), case)
parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
SERVE = UsageContext.OPENAI_API_SERVER
llama = p["llama"]
n = [1024]


def new_len():
    n[0] += 1
    return n[0]


def fresh_copies():
    return copy.deepcopy(base)


def vllm_config(objs):
    return O.make_vllm_config(objs, case)


def vllm_from_dict(_):
    m = new_len()
    c = dict(case, model_config={"skip_tokenizer_init": False, "max_model_len": m})
    return O.make_vllm_config(O.build_sub_configs(c, stage), c)


def vllm_parse(_):
    return AsyncEngineArgs.from_cli_args(parser.parse_args(["--model", model, "--max-model-len", str(new_len())]))


def vllm_engine(ea):
    return ea.create_engine_config(usage_context=SERVE)


def pi_dict(_):
    return postinit.resolve(config={"model_config": {"model": llama, "max_model_len": new_len()}}, platform="h100")


def pi_dict_config(_):
    return pi_dict(_).config


def pi_flags(_):
    return postinit.resolve(argv=["--model", llama, "--max-model-len", str(new_len())], platform="h100")


def pi_flags_config(_):
    return pi_flags(_).config


# name -> (make the argument outside the timing, the timed call)
SUBJECTS = {
    "vllm_config": (fresh_copies, vllm_config),
    "vllm_from_dict": (lambda: None, vllm_from_dict),
    "vllm_parse": (lambda: None, vllm_parse),
    "vllm_engine": (lambda: vllm_parse(None), vllm_engine),
    "postinit_dict": (lambda: None, pi_dict),
    "postinit_dict_config": (lambda: None, pi_dict_config),
    "postinit_flags": (lambda: None, pi_flags),
    "postinit_flags_config": (lambda: None, pi_flags_config),
}
for _ in range(20):  # warm-up: lazy imports and first-call caches on both sides
    for make, fn in SUBJECTS.values():
        fn(make())
gc.collect()
gc.freeze()  # the collections the copies trigger (outside the timed region) then skip vLLM/torch
samples = {k: [] for k in SUBJECTS}
t_loop = time.perf_counter()
for _ in range(p["rounds"]):
    for k, (make, fn) in SUBJECTS.items():
        arg = make()
        gc.disable()
        t = time.perf_counter()
        fn(arg)
        samples[k].append(time.perf_counter() - t)
        gc.enable()
t_loop = time.perf_counter() - t_loop
r = pi_flags(None)
out = {
    "vllm": vllm.__version__, "variant": O.VARIANT, "python": sys.version.split()[0],
    "pydantic": pydantic.VERSION, "postinit": postinit.__file__,
    "architecture": vc.model_config.architecture, "max_model_len": vc.model_config.max_model_len,
    "device_name": case["platform"]["device_name"], "cudagraph_mode": str(vc.compilation_config.cudagraph_mode),
    "postinit_cudagraph_mode": r.config.compilation_config.cudagraph_mode.name,
    "min_us": {k: min(v) * 1e6 for k, v in samples.items()},
    "median_us": {k: statistics.median(v) * 1e6 for k, v in samples.items()},
    "rounds": p["rounds"], "loop_s": t_loop, "setup_s": t_setup,
}
sys.stdout.write(p["mark"] + json.dumps(out) + "\n")
'''

# ``vllm serve``'s config phase as a process (oracle venv). argv: oracle_dir model_dir max_model_len
_SERVE_SCRIPT = r'''
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import vllm_oracle as O
case = O.normalize_case({"model": "llama", "platform": {"kind": "cuda", "capability": 90}}, "serve")
O.worker_setup(case["platform"], case["env"])
O.install_platform(case["platform"])
t1 = time.perf_counter()
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.usage.usage_lib import UsageContext
from vllm.utils.argparse_utils import FlexibleArgumentParser
t2 = time.perf_counter()
parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
args = parser.parse_args(["--model", sys.argv[2], "--max-model-len", sys.argv[3]])
vc = AsyncEngineArgs.from_cli_args(args).create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
t3 = time.perf_counter()
print("SERVE", t1 - t0, t2 - t1, t3 - t2, vc.scheduler_config.max_num_batched_tokens)
'''


def oracle_dir() -> Path:
    """``POSTINIT_ORACLE_DIR``, else ``shared/oracle`` beside the checkout (or beside its parent: a worktree)."""
    given = os.environ.get("POSTINIT_ORACLE_DIR")
    if given:
        return Path(given)
    for up in (ROOT.parent, ROOT.parent.parent):
        if (up / "shared" / "oracle").is_dir():
            return up / "shared" / "oracle"
    return ROOT.parent / "shared" / "oracle"


def oracle_python() -> Path | None:
    """The oracle venv's python: ``POSTINIT_ORACLE_PYTHON``, else the exact-seed venvs, else 0.11.1's."""
    home = Path.home()
    cands = [os.environ.get("POSTINIT_ORACLE_PYTHON"), home / "oracle-venv-seed-full" / "bin" / "python",
             home / "oracle-venv-seed" / "bin" / "python", home / "oracle-venv" / "bin" / "python"]
    for c in cands:
        if c and Path(c).is_file():
            return Path(c)
    return None


def _model_dir() -> str:
    """A temporary folder holding the catalogue's Llama-3.1-8B-Instruct config.json (and tokenizer config)."""
    entry = json.loads(CATALOG.read_text())
    tmp = tempfile.mkdtemp(prefix="vllm-context-llama31-")
    Path(tmp, "config.json").write_text(json.dumps(entry["config"]))
    if entry.get("tokenizer_config"):
        Path(tmp, "tokenizer_config.json").write_text(json.dumps(entry["tokenizer_config"]))
    return tmp


def _require() -> tuple[Path, Path]:
    py, odir = oracle_python(), oracle_dir()
    if py is None:
        raise FileNotFoundError("no oracle python (POSTINIT_ORACLE_PYTHON, ~/oracle-venv-seed-full, ~/oracle-venv)")
    if not (odir / "vllm_oracle.py").is_file():
        raise FileNotFoundError(f"no vllm_oracle.py in {odir} (set POSTINIT_ORACLE_DIR)")
    return py, odir


def measure(*, rounds: int, timeout: float = 600) -> dict[str, Any]:
    """Run the in-process A/B script in the oracle venv; its JSON result (raises on failure)."""
    py, odir = _require()
    model = _model_dir()
    try:
        params = {"mark": MARK, "oracle_dir": str(odir), "root": str(ROOT), "site": sysconfig.get_paths()["purelib"],
                  "model_dir": model, "llama": LLAMA, "rounds": rounds}
        t = time.perf_counter()
        proc = subprocess.run([str(py), "-c", _SCRIPT], input=json.dumps(params), capture_output=True, text=True,
                              cwd=odir, timeout=timeout, check=False)
        wall = time.perf_counter() - t
    finally:
        shutil.rmtree(model, ignore_errors=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"oracle timing script failed (exit {proc.returncode}): {' | '.join(tail)}")
    out: dict[str, Any] = json.loads(lines[-1][len(MARK):])
    out["python_path"], out["subprocess_s"] = str(py), wall
    return out


def cli_argv() -> list[str]:
    """``postinit resolve`` for the same job as the ``vllm serve`` process (this venv's console script)."""
    script = Path(sys.executable).with_name("postinit")
    head = [str(script)] if script.is_file() else [sys.executable, "-c", "from postinit.cli import main; main()"]
    return [*head, "resolve", LLAMA, "--platform", "h100", "--max-model-len", "32768", "--format", "json"]


def measure_processes(*, reps: int, timeout: float = 300) -> dict[str, Any]:
    """``vllm serve``'s config phase and ``postinit resolve`` as whole processes, alternately: min seconds."""
    py, odir = _require()
    model = _model_dir()
    serve: list[float] = []
    cli: list[float] = []
    parts: list[list[float]] = []
    cache = tempfile.mkdtemp(prefix="postinit-bench-cache-")  # private: see startup._time
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": cache}
    try:
        subprocess.run(cli_argv(), check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT, timeout=timeout)
        for _ in range(reps):
            t = time.perf_counter()
            proc = subprocess.run([str(py), "-c", _SERVE_SCRIPT, str(odir), model, "32768"], capture_output=True,
                                  text=True, cwd=odir, timeout=timeout, check=False)
            serve.append(time.perf_counter() - t)
            line = [ln for ln in proc.stdout.splitlines() if ln.startswith("SERVE ")]
            if proc.returncode or not line:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
                raise RuntimeError(f"vllm serve config script failed (exit {proc.returncode}): {' | '.join(tail)}")
            parts.append([float(x) for x in line[0].split()[1:4]])
            t = time.perf_counter()
            subprocess.run(cli_argv(), check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT, timeout=timeout)
            cli.append(time.perf_counter() - t)
    finally:
        shutil.rmtree(model, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    best = min(range(len(serve)), key=serve.__getitem__)
    return {"serve_s": serve[best], "cli_s": min(cli), "serve_parts_s": parts[best], "reps": reps}


def run(res: Results, *, rounds: int = 300, process_reps: int = 3) -> None:
    """The in-process A/B (``rounds`` rounds) and the process pair (``process_reps``, 0 to skip)."""
    try:
        m = measure(rounds=max(rounds, 3))
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
        res.notes.append(f"{SECTION}: rows skipped ({e}).")
        return
    us = m["min_us"]
    where = f"vLLM {m['vllm']} ({m['variant']}), simulated {m['device_name']}, one process ({m['python_path']})"
    vc, eng = us["vllm_config"], us["vllm_engine"]
    d, f = us["postinit_dict_config"], us["postinit_flags_config"]
    res.add(Row(SECTION, "vLLM: VllmConfig(**sub-configs) (__post_init__ + platform hook)", vc, "µs", note=where))
    vd = us["vllm_from_dict"]
    res.add(Row(SECTION, "vLLM from the dict: sub-configs (ModelConfig reads config.json) + VllmConfig", vd, "µs",
                "VllmConfig(...)", vc, note=where))
    res.add(Row(SECTION, "postinit.resolve(config=dict).config, new input each call", d, "µs",
                "vLLM from the dict", vd, f"≤ {DICT_TARGET:g}× vLLM from the dict", d <= DICT_TARGET * vd,
                short_by=f"{d / vd:.2f}× (target {DICT_TARGET:g}×): {d - DICT_TARGET * vd:,.0f} µs over",
                why=WHY_DICT, profile=_profile_dict))
    res.add(Row(SECTION, "  postinit.resolve(config=dict), without .config", us["postinit_dict"], "µs",
                "vLLM from the dict", vd))
    res.add(Row(SECTION, "vLLM: create_engine_config(OPENAI_API_SERVER) from parsed flags", eng, "µs", note=where))
    res.add(Row(SECTION, "postinit.resolve(argv=flags).config, new input each call", f, "µs",
                "create_engine_config", eng, f"≤ {FLAGS_TARGET:g}× create_engine_config", f <= FLAGS_TARGET * eng,
                short_by=f"{f / eng:.3f}× (target {FLAGS_TARGET:g}×)", why=WHY_FLAGS, profile=_profile_flags))
    res.add(Row(SECTION, "  postinit.resolve(argv=flags), without .config", us["postinit_flags"], "µs",
                "create_engine_config", eng))
    res.add(Row(SECTION, "  vLLM: vllm serve's engine-argument parser + from_cli_args", us["vllm_parse"], "µs",
                "create_engine_config", eng))
    res.notes.append(
        f"{SECTION}: real vLLM {m['vllm']} ({m['variant']}) on a simulated {m['device_name']} through the oracle "
        f"(benchmarks/vllm_context.py), Llama-3.1-8B-Instruct's config.json (vLLM resolves cudagraph_mode "
        f"{m['cudagraph_mode']}, postinit {m['postinit_cudagraph_mode']}); postinit imported into the same "
        f"process (pydantic {m['pydantic']}, the oracle venv's). Minimum of {m['rounds']} alternating rounds "
        f"each (medians: VllmConfig {m['median_us']['vllm_config']:.0f} µs, postinit dict "
        f"{m['median_us']['postinit_dict_config']:.0f} µs, create_engine_config "
        f"{m['median_us']['vllm_engine']:.0f} µs, postinit flags {m['median_us']['postinit_flags_config']:.0f} µs). "
        f"vLLM import and platform setup {m['setup_s']:.1f} s, whole subprocess {m['subprocess_s']:.1f} s.")
    if process_reps <= 0:
        return
    try:
        p = measure_processes(reps=process_reps)
    except (OSError, RuntimeError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        res.notes.append(f"{SECTION}: process rows skipped ({e}).")
        return
    setup, imp, cfg = p["serve_parts_s"]
    res.add(Row(SECTION, "vLLM: `vllm serve` flags to VllmConfig as a process (lower bound)",
                p["serve_s"], "s", note=f"oracle platform set-up {setup:.1f} s, imports {imp:.1f} s, "
                f"parse + create_engine_config {cfg:.3f} s"))
    res.add(Row(SECTION, "postinit resolve MODEL --max-model-len 32768 --format json, as a process", p["cli_s"], "s",
                "vllm serve config phase", p["serve_s"]))
    res.notes.append(
        f"{SECTION}: processes, min of {p['reps']} alternating runs each: vLLM's breaks down into the oracle's "
        f"simulated-platform set-up {setup:.2f} s (it imports vLLM and torch), the engine-argument modules "
        f"{imp:.2f} s, parsing plus create_engine_config {cfg:.3f} s (plus interpreter start and exit); a lower "
        f"bound of `vllm serve`, whose HTTP server modules the oracle venv cannot import.")


def _profile_dict() -> str:
    from benchmarks._util import profile_text
    from benchmarks.paths import library_calls

    return profile_text(library_calls()["dict+config"], calls=500)


def _profile_flags() -> str:
    from benchmarks._util import profile_text
    from benchmarks.paths import library_calls

    return profile_text(library_calls()["flags+config"], calls=500)


WHY_DICT = (
    "0.2× of vLLM's whole job from the dict (the sub-configs built: ModelConfig reads config.json through "
    "transformers, warm in the oracle's process; then VllmConfig) is ~450-500 µs. postinit's dict path, by stage "
    "(own process, a new max_model_len each call, the minimum of 1,400 calls on a loaded machine, 705 µs in all): "
    "Request.build 37 µs (5%); the front door 96 µs (14%: the model_config part patched from the last of its "
    "shape, the model's facts, loader provenance and the platform cached, the rest flattening, provenance and the "
    "version's checks); the engine 242 µs (34%: a replay of the recorded run of the input's shape, "
    "engine.replay, ~0.55× of the 440-500 µs scratch run: the diff of the ~1,000 input paths, the evaluations "
    "the new max_model_len reaches run again, the other events copied); `.config` 267 µs (38%: the generated "
    "builder makes ~42 model objects from ~1,000 leaves, thawing ~50 containers and running the models' after "
    "validators); dropping the previous result ~25 µs. Beside vLLM in its process every postinit figure is "
    "~15-40% higher than in its own (vLLM's calls in between evict its caches). What is left to reach 0.2×: the "
    "replay's cost on a one-leaf change (incremental re-resolution, engine/_incremental.py) and a `.config` that "
    "clones the sub-configs whose leaves are those of a privately kept build (~70-80% of the leaves on this path) "
    "instead of building them."
)
WHY_FLAGS = (
    "0.2× of vLLM's create_engine_config (warm in the oracle's process: transformers' config loading is "
    "cached after the first call) is ~500-600 µs. postinit's flags path is the dict path's work plus parsing "
    "(own process, the minimum of 1,400 calls on a loaded machine, 892 µs in all): Request.build 46 µs, the front "
    "door 262 µs (parse_vllm_args ~105 µs of it, argparse over vLLM's ~190 actions most of that), the engine's "
    "replay 238 µs, `.config` 285 µs, dropping the previous result ~25 µs. As processes, what `vllm serve` pays "
    "(its imports included), postinit is ~0.05× (the rows below)."
)
