"""Each benchmark once at tiny size, so they cannot rot; no wall-clock assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import how, incremental, latency, paths, scaling, serving, startup, sweep
from benchmarks._inputs import CASES, core_input, prefix_book
from benchmarks._util import Results
from benchmarks.baselines import naive
from benchmarks.baselines.imperative import FIELDS, post_init_core

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("case", sorted(CASES))
def test_floor_makes_postinits_decisions(case: str) -> None:
    """The hand-written floor produces the values postinit's core phase resolves, on every benchmark input."""
    before, initial = core_input(case)
    want = prefix_book("core").resolve(initial, trace="minimal").state
    got = post_init_core(dict(before))
    for f in FIELDS:
        assert got[f] == want[f] and type(got[f]) is type(want[f]), f


def test_latency_smoke() -> None:
    res = Results()
    latency.run(res, reps=1, inner=1, cases=("llama3-h100",))
    assert any("end to end" in r.measurement for r in res.rows)


def test_scaling_smoke_and_naive_agree() -> None:
    res = Results()
    scaling.run(res, sizes=(10, 20), reps=1, clips=False)  # asserts engine == naive loop
    assert len([r for r in res.rows if "per fired rule" in r.measurement]) == 6
    _rules, plain, inputs, _fired = scaling.chain(5)
    state = {f"x{i}": 0 for i in range(6)} | inputs
    assert naive.run(plain, state)[0]["x5"] == 6


def test_paths_smoke() -> None:
    """The engine, dict and flags rows, each with a target or the engine as baseline."""
    res = Results()
    paths.run(res, reps=1, inner=1)
    assert res.rows[0].target and res.rows[0].profile is not None
    assert all(r.baseline_value for r in res.rows)


def test_incremental_and_sweep_smoke() -> None:
    res = Results()
    incremental.run(res, reps=1, n_points=3, sweep_n=2)
    # the field changes, then a change of platform and one of model, each against a scratch resolution
    assert sum(1 for r in res.rows if r.measurement.startswith("with_changes")) == len(incremental.CHANGES) + 2
    assert any(r.measurement.startswith("a loop of one-field changes") and r.target for r in res.rows)
    assert len(incremental.points(50)) == 50
    assert len(sweep.inputs(500)) == 500 and len({repr(x) for x in sweep.inputs(500)}) > 100
    assert sweep._chunk(sweep.inputs(3)) == 3


def test_http_smoke() -> None:
    """A real server, one worker, a few requests: the answer is checked against the library's."""
    res = Results()
    serving.run(res, workers=(1,), n_single=2, clients=2, seconds=0.3)
    assert [r.unit for r in res.rows] == ["µs", "req/s", "µs", "ms"], res.notes


def test_startup_smoke(monkeypatch: pytest.MonkeyPatch) -> None:
    res = Results()
    monkeypatch.setattr(startup, "_time", lambda argv, reps, **kw: (0.1, 0.02))
    startup.run(res, reps=1)
    assert res.rows[0].met is True and res.rows[0].ratio == pytest.approx(5)
    assert "importtime" in startup._profile()


def test_results_and_analysis_are_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RESULTS.md gets every row (the load-test section kept); ANALYSIS.md the unmet targets, hand text kept."""
    from benchmarks import __main__ as main
    from benchmarks._util import Row

    res = Results()
    res.add(Row("s", "m", 1.0, "µs", "b", 2.0, "t", True))
    res.add(Row("s", "slow thing", 3.0, "µs", "b", 2.0, "≤ 1 µs", False, short_by="3× the target",
                why="because", profile=lambda: "the profile"))
    text = main.render(res, {"cpus": "2"}, 1.0)
    assert "| s | m |" in text and "0.50×" in text and "**no**" in text
    out, analysis = tmp_path / "RESULTS.md", tmp_path / "ANALYSIS.md"
    out.write_text("old\n<!-- loadtest:start -->\nkept\n<!-- loadtest:end -->\n")
    analysis.write_text("# hand\n\nwritten\n\n<!-- unmet:start -->\nstale\n<!-- unmet:end -->\n\nafter\n")
    monkeypatch.setattr(main, "RESULTS", out)
    monkeypatch.setattr(main, "ANALYSIS", analysis)
    monkeypatch.setattr(main, "run_all", lambda **kw: res)
    main.main(["--quick", "--only", "cli"])
    written = out.read_text()
    assert "kept" in written and "| s | m |" in written
    assert "old" not in written.splitlines()  # the previous body is replaced, only the load-test section stays
    a = analysis.read_text()
    assert "written" in a and "after" in a and "stale" not in a
    assert "Not met: slow thing" in a and "3× the target" in a and "because" in a and "the profile" in a
    monkeypatch.setattr(main, "ANALYSIS", analysis)
    monkeypatch.setattr(main, "run_all", lambda **kw: res)

def test_import_postinit_does_not_import_torch() -> None:
    code = "import sys, postinit; postinit.resolve(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "False"


def test_vllm_context_without_an_oracle_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No oracle folder: the vLLM part adds a note and no rows (it never fails the run)."""
    from benchmarks import vllm_context

    monkeypatch.setenv("POSTINIT_ORACLE_PYTHON", sys.executable)
    monkeypatch.setenv("POSTINIT_ORACLE_DIR", str(tmp_path))
    res = Results()
    vllm_context.run(res, rounds=3, process_reps=0)
    assert res.rows == [] and len(res.notes) == 1 and "rows skipped" in res.notes[0]


def test_vllm_context_reads_the_oracle_scripts_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The part turns the in-process script's JSON line into rows with targets (a stand-in python prints it)."""
    import json

    from benchmarks import vllm_context

    us = {"vllm_config": 150.0, "vllm_from_dict": 1200.0, "vllm_parse": 300.0, "vllm_engine": 1500.0,
          "postinit_dict": 250.0, "postinit_dict_config": 230.0, "postinit_flags": 280.0,
          "postinit_flags_config": 310.0}
    result = {
        "vllm": "0.0-test", "variant": "stand-in", "device_name": "H100", "max_model_len": 131072,
        "cudagraph_mode": "FULL_AND_PIECEWISE", "postinit_cudagraph_mode": "FULL_AND_PIECEWISE",
        "pydantic": "2", "min_us": us, "median_us": us, "rounds": 3, "setup_s": 0.1,
    }
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{vllm_context.MARK}{json.dumps(result)}'\n")
    fake.chmod(0o755)
    (tmp_path / "vllm_oracle.py").write_text("")
    monkeypatch.setenv("POSTINIT_ORACLE_PYTHON", str(fake))
    monkeypatch.setenv("POSTINIT_ORACLE_DIR", str(tmp_path))
    res = Results()
    vllm_context.run(res, rounds=3, process_reps=0)
    targets = {r.measurement: r.met for r in res.rows if r.target}
    assert targets == {"postinit.resolve(config=dict).config, new input each call": True,
                       "postinit.resolve(argv=flags).config, new input each call": False}
    assert all(r.section == vllm_context.SECTION for r in res.rows)


def test_how_smoke() -> None:
    """The how rows: one time and one candidates-tried row per README question, the reachable ones with a target."""
    res = Results()
    how.run(res, reps=1)
    assert len(res.rows) == 2 * len(how.QUESTIONS)
    assert all(r.target for r in res.rows[::2][:-1]) and res.rows[-2].target == ""
    assert all(r.value >= 1 for r in res.rows[1::2])
