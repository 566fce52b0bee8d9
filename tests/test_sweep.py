"""postinit.sweep: determinism across workers and schedulers, coverage output, JSON, the CLI command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from postinit import sweep as S
from postinit.cli import app


def _small(**kw: object) -> S.SweepReport:
    return S.sweep("random", n=24, seed=3, platforms=["h100", "cpu"], chunk_size=6, **kw)  # type: ignore[arg-type]


def test_space_is_deterministic_and_sized() -> None:
    one = S.space("exhaustive", platforms=["h100"], seed=1)
    assert one == S.space("exhaustive", platforms=["h100"], seed=1)
    assert 2_000 <= len(one) <= 20_000
    assert len({S._key(a) for a in one}) == len(one)
    assert S.space("random", n=50, seed=2) == S.space("random", n=50, seed=2)
    assert S.space("random", n=50, seed=2) != S.space("random", n=50, seed=3)


def test_same_seed_same_report_whatever_the_number_of_jobs() -> None:
    one = _small(jobs=1)
    two = _small(jobs=2)
    assert one.to_dict() == two.to_dict()
    assert one.inputs == 24 and one.chunks == 4


def test_coverage_lists_never_fired_rules_and_platform_gated_ones() -> None:
    report = S.sweep("exhaustive", platforms=["h100"], limit=40, chunk_size=20)
    d = report.to_dict()
    assert d["rules"] == len(d["fired"]) + len(d["never_fired"])
    assert "cudagraph.default-mode" in d["fired"]
    assert d["cannot_fire"].get("cpu.kvcache-space") == "cpu"
    assert d["cannot_fire"].get("rocm.aiter-rms-norm") == "rocm"
    assert set(d["cannot_fire"]) <= set(d["never_fired"])
    assert S._gate("lora.max-cpu-loras-check", "postinit.rules.lora") is None
    assert S._gate("verify.lora-cpu-offload-v0", "postinit.rules.verify") is None
    assert S._gate("engine-args.batch-defaults-cpu", "postinit.rules.engine_args") == "cpu"
    assert not any(kind == "cuda" for kind in d["cannot_fire"].values())


def test_report_json_round_trips() -> None:
    d = _small().to_dict()
    assert json.loads(json.dumps(d)) == d
    assert {"inputs", "violations", "violations_by_invariant", "quirks", "never_fired", "cannot_fire"} <= set(d)


def test_known_quirks_are_reported_not_as_violations() -> None:
    report = S.sweep("exhaustive", platforms=["h100"], limit=60, chunk_size=30)
    assert "original-max-model-len-records-input" in report.quirks
    assert all(g.invariant != "idempotence" for g in report.violations)


def test_each_input_is_replayed_from_one_recorded_base(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, every input's determinism check replays the base; the report equals the one without replay."""
    from postinit.engine import EngineResult

    replays: list[int] = []
    real = S.replay

    def counting(base: EngineResult, *args: object, **kw: object) -> EngineResult:
        replays.append(1)
        return real(base, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(S, "replay", counting)
    replayed = _small(jobs=1)
    assert len(replays) == replayed.inputs - sum(replayed.errors.values())
    assert replayed.to_dict() == _small(jobs=1, replay=False).to_dict()


def test_the_base_is_shipped_once_per_worker_not_per_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process pool gets the recorded base through its initializer: at most one pickle per worker."""
    pickled: list[int] = []
    real = S._Base.__reduce_ex__

    def counting(self: S._Base, protocol: int) -> object:  # type: ignore[override]
        pickled.append(1)
        return real(self, protocol)

    monkeypatch.setattr(S._Base, "__reduce_ex__", counting)
    report = S.sweep("random", n=24, seed=3, platforms=["h100"], chunk_size=3, jobs=2)
    assert report.chunks == 8 and len(pickled) <= 2


def test_a_base_from_another_rulebook_is_refused() -> None:
    """The recording names rules by position: a worker with another rule order refuses the base."""
    base = S._record_base("h100")
    other = S._Base(base.fields, base.order[::-1])
    with pytest.raises(RuntimeError, match="another rulebook"):
        other.attach(S.rulebook())


def test_cli_sweep_json() -> None:
    res = CliRunner().invoke(app, ["sweep", "--random", "8", "--seed", "1", "--platform", "h100",
                                   "--chunk-size", "4", "--format", "json"])
    d = json.loads(res.stdout)
    assert d["inputs"] == 8 and d["chunks"] == 2
    assert res.exit_code == (0 if d["ok"] else 1)


def test_cli_sweep_text_summary() -> None:
    res = CliRunner().invoke(app, ["sweep", "--random", "4", "--platform", "h100"])
    assert "inputs resolved" in res.stdout and "rules never fired" in res.stdout


# dask/distributed emit warnings of their own while a LocalCluster starts and stops, which
# pyproject's filterwarnings=error would turn into failures (in this test only):
#  - DeprecationWarning / PendingDeprecationWarning from tornado, msgpack and distributed internals
#    (third-party code, not ours);
#  - ResourceWarning for sockets and subprocess pipes distributed closes asynchronously at shutdown,
#    and PytestUnraisableExceptionWarning when such a close happens in a finalizer;
#  - UserWarning notices distributed prints about worker memory limits and ports.
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::PendingDeprecationWarning",
                            "ignore::ResourceWarning", "ignore::UserWarning",
                            "ignore::pytest.PytestUnraisableExceptionWarning")
def test_dask_local_cluster_matches_in_process() -> None:
    """A tiny sweep (2 chunks of 2) on a dask LocalCluster gives the in-process report."""
    pytest.importorskip("distributed")
    kw = dict(n=4, seed=5, platforms=["h100"], chunk_size=2)
    local = S.sweep("random", **kw)  # type: ignore[arg-type]
    on_dask = S.sweep("random", scheduler="local", **kw)  # type: ignore[arg-type]
    assert on_dask.to_dict() == local.to_dict()
