"""Each benchmark once at tiny size, so they cannot rot; no wall-clock assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import latency, scaling, startup, sweep, whatif
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


def test_whatif_and_sweep_smoke() -> None:
    res = Results()
    whatif.run(res, reps=1, inner=1)
    assert len(sweep.inputs(500)) == 500 and len({repr(x) for x in sweep.inputs(500)}) > 100
    assert sweep._chunk(sweep.inputs(3)) == 3


def test_startup_smoke(monkeypatch: pytest.MonkeyPatch) -> None:
    res = Results()
    monkeypatch.setattr(startup, "_time", lambda argv, reps, **kw: 0.1)
    startup.run(res, reps=1)
    assert [r.measurement for r in res.rows][-1].startswith("postinit resolve")


def test_results_rendering_keeps_loadtest_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import __main__ as main
    from benchmarks._util import Row

    res = Results()
    res.add(Row("s", "m", 1.0, "µs", "b", 2.0, "t", True))
    text = main.render(res, {"cpus": "2"}, 1.0, "")
    assert "| s | m |" in text and "0.50×" in text
    out = tmp_path / "RESULTS.md"
    out.write_text("old\n<!-- loadtest:start -->\nkept\n<!-- loadtest:end -->\n")
    monkeypatch.setattr(main, "RESULTS", out)
    monkeypatch.setattr(main, "run_all", lambda **kw: res)
    main.main(["--quick", "--only", "startup"])
    written = out.read_text()
    assert "kept" in written and "| s | m |" in written
    assert "old" not in written.splitlines()  # the previous body is replaced, only the load-test section stays


def test_import_postinit_does_not_import_torch() -> None:
    code = "import sys, postinit; postinit.resolve(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "False"


def test_vllm_context_without_an_oracle_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No oracle folder: the context part adds a note and no rows (it never fails the run)."""
    from benchmarks import vllm_context

    monkeypatch.setenv("POSTINIT_ORACLE_PYTHON", sys.executable)
    monkeypatch.setenv("POSTINIT_ORACLE_DIR", str(tmp_path))
    res = Results()
    vllm_context.run(res, reps=3)
    assert res.rows == [] and len(res.notes) == 1 and "rows skipped" in res.notes[0]


def test_vllm_context_reads_the_oracle_scripts_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The part turns the timing script's JSON line into two context rows (a stand-in python prints it)."""
    import json

    from benchmarks import vllm_context

    timing = {"median_us": 240.0, "p10_us": 230.0, "p90_us": 260.0, "n": 3}
    result = {
        "vllm": "0.0-test", "variant": "stand-in", "model": "meta-llama/Llama-3.1-8B-Instruct",
        "device_name": "H100", "max_model_len": 131072, "cudagraph_mode": "FULL_AND_PIECEWISE",
        "mutated_sub_configs": [], "first_vllm_config_us": 300.0, "setup_s": 0.1,
        "vllm_config": timing, "engine": {**timing, "median_us": 3000.0},
    }
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{vllm_context.MARK}{json.dumps(result)}'\n")
    fake.chmod(0o755)
    (tmp_path / "vllm_oracle.py").write_text("")
    monkeypatch.setenv("POSTINIT_ORACLE_PYTHON", str(fake))
    monkeypatch.setenv("POSTINIT_ORACLE_DIR", str(tmp_path))
    res = Results()
    vllm_context.run(res, reps=3)
    assert [r.value for r in res.rows] == [240.0, 3000.0]
    assert all(r.section == vllm_context.SECTION and r.target == "" for r in res.rows)
