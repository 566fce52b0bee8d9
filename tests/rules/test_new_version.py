"""``python -m postinit.rules.new_version``: the differences it reads and the delta skeleton it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from postinit.rules import new_version, versions
from postinit.rules.delta import Delta

PARENT = versions.VERSIONS["0.11.1"]
NEWEST = list(versions.VERSIONS)[-1]


def test_plan_reads_the_flag_and_field_differences_of_two_vllms() -> None:
    """Every flag the new parser has and the parent's lacks (and the reverse), likewise the config fields."""
    old = {"flags": ["model", "max_num_seqs", "rope_theta"], "fields": {"cache_config": ["block_size", "swap_space"]}}
    new = {"flags": ["model", "max_num_seqs", "kv_offloading_size"],
           "fields": {"cache_config": ["block_size", "kv_offloading_size"]}, "errors": []}
    diff = new_version.plan("9.9.9", PARENT, new, old)
    assert diff["flags_added"] == ["kv_offloading_size"] and diff["flags_removed"] == ["rope_theta"]
    assert diff["fields_added"] == ["cache_config.kv_offloading_size"]
    assert diff["fields_removed"] == ["cache_config.swap_space"]


def test_plan_without_a_parent_venv_compares_with_postinits_tables() -> None:
    """Against postinit's own 0.11.1 tables: a field 0.11.1 has is no addition; derived attributes are not fields."""
    new = {"flags": ["max_num_seqs", "brand_new_flag"], "fields": {"scheduler_config": ["max_num_seqs", "new_one"]}}
    diff = new_version.plan("9.9.9", PARENT, new, None)
    assert diff["flags_added"] == ["brand_new_flag"]
    assert diff["fields_added"] == ["scheduler_config.new_one"]
    assert "scheduler_config.max_num_seqs" not in diff["fields_removed"]
    assert new_version.plan("9.9.9", PARENT, None, None)["notes"]


def test_the_skeleton_is_a_delta_module() -> None:
    """The written module imports and declares a Delta with the version's hash factor and the read lists."""
    diff = {"flags_added": ["kv_offloading_size"], "flags_removed": [], "fields_added": [],
            "fields_removed": ["cache_config.swap_space"], "notes": []}
    text = new_version.delta_source("9.9.9", PARENT, diff, "9.9.9")
    namespace: dict[str, object] = {}
    exec(compile(text, "v9_9_9.py", "exec"), namespace)
    d = namespace["DELTA"]
    assert isinstance(d, Delta) and d.facts == {"vllm_version": "9.9.9"}
    assert d.flags_added == ("kv_offloading_size",) and d.fields_removed == ("cache_config.swap_space",)
    assert new_version.module_name("0.12.0") == "v0_12_0"


def test_dry_run_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.name for p in (new_version.ROOT / "postinit" / "rules").iterdir())
    assert new_version.main(["9.9.9", "--parent", NEWEST, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would write postinit/rules/v9_9_9.py" in out and "vllm_oracle.py" in out
    assert sorted(p.name for p in (new_version.ROOT / "postinit" / "rules").iterdir()) == before
    assert not Path(new_version.ROOT / "postinit" / "rules" / "v9_9_9.py").exists()


def test_refuses_a_modelled_name_and_an_unknown_parent() -> None:
    with pytest.raises(SystemExit):
        new_version.main(["0.11.1", "--parent", "d7fb10c57", "--dry-run"])
    with pytest.raises(SystemExit):
        new_version.main(["9.9.9", "--parent", "0.99", "--dry-run"])

