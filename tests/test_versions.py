"""Versions: a version is a parameter of every question, a checked delta over its parent, and an upgrade shows it.

The library, the CLI and HTTP give one answer for a version (the faces build the same
Request); ``upgrade`` resolves one input on two versions and names, for every decision
that changes, the rule and reason on each side.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app
from postinit.errors import InputError, RuleDeclarationError, UnknownFlagError, UnknownPathError
from postinit.rules import rulebook, versions
from postinit.rules.versions import Delta, Version, patch

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
runner = CliRunner()


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as c:
        yield c


# --------------------------------------------------------------------------- a version is a parameter


def test_the_default_is_the_seed_commit() -> None:
    """Without a version every face resolves as d7fb10c57, with the seed's rulebook and its env table."""
    r = postinit.resolve(model=LLAMA)
    assert r.vllm_version == "d7fb10c57" == r.inputs["vllm_version"] and r.engine.rulebook is rulebook()
    assert rulebook() is rulebook("d7fb10c57") is rulebook("seed")


@pytest.mark.parametrize(("text", "name"), [("0.11.1", "0.11.1"), ("v0.11.1", "0.11.1"), ("V0.11.1", "0.11.1"),
                                            ("d7fb10c574a3a9cbf596bec086bf02603b71c5c8", "d7fb10c57"),
                                            ("d7fb10c", "d7fb10c57"), ("seed", "d7fb10c57")])
def test_version_spellings(text: str, name: str) -> None:
    """A release with or without its v, the seed's full or short hash all name a modelled version."""
    assert postinit.resolve(model=LLAMA, vllm_version=text).vllm_version == name


def test_an_unknown_version_is_one_line_with_a_suggestion() -> None:
    """An unmodelled version is an input error that lists what is modelled."""
    with pytest.raises(InputError, match=r"vllm_version '0\.11\.2' is not a modelled vLLM version; modelled: "
                                         r"d7fb10c57, 0\.11\.1, 0\.34\.0 .*Did you mean '0\.11\.1'"):
        postinit.resolve(vllm_version="0.11.2")


def test_versions_are_listed_on_every_face(http: TestClient) -> None:
    """postinit.versions(), `postinit versions` and GET /v1/versions list the same versions and oracles."""
    lib = [v.to_dict() for v in postinit.versions()]
    assert [v["name"] for v in lib] == ["d7fb10c57", "0.11.1", "0.34.0"] and lib[0]["default"]
    assert "vllm==0.11.1 wheel" in lib[1]["oracle"] and lib[1]["parent"] == "d7fb10c57"
    assert lib[1]["status"] == "complete" and lib[2]["parent"] == "0.11.1"
    assert lib[2]["status"].startswith("partial: ") and re.search(r"/\d+ golden cases", lib[2]["status"])
    out = runner.invoke(cli_app, ["versions", "--format", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["versions"] == lib
    assert http.get("/v1/versions").json() == lib
    text = runner.invoke(cli_app, ["versions"]).stdout
    rows = [line for line in text.splitlines() if line.split() and line.split()[0] in {v["name"] for v in lib}]
    assert len(rows) == 3 and "partial" in rows[2] and "checked against" not in text  # one line per version
    full = runner.invoke(cli_app, ["versions", "--full"]).stdout
    assert "checked against" in full and "vllm==0.11.1" in full.replace("\n", "")


def _answer(d: dict[str, Any]) -> tuple[Any, ...]:
    return (d["hash"], d["ok"], [(v["rule"], v["message"]) for v in d["violations"]], d["config"],
            d["inputs"]["vllm_version"])


def test_a_partial_version_says_so_in_every_answer(http: TestClient) -> None:
    """Every resolution as vLLM 0.34.0 (a partial model) carries a note with its measured parity, on every face."""
    lib = postinit.resolve(model=LLAMA, vllm_version="0.34.0").to_dict()
    out = runner.invoke(cli_app, ["resolve", "--format", "json", "--model", LLAMA, "--vllm-version", "0.34.0"])
    assert out.exit_code == 0, out.output
    r = http.post("/v1/resolve", json={"model": LLAMA, "vllm_version": "0.34.0"})
    assert r.status_code == 200 and _answer(lib) == _answer(json.loads(out.stdout)) == _answer(r.json())
    for notes in (lib["notes"], json.loads(out.stdout)["notes"], r.json()["notes"]):
        partial = [n for n in notes if n["kind"] == "partial_version"]
        assert len(partial) == 1 and "modelled partially" in partial[0]["message"]
        assert re.search(r"/\d+ golden cases", partial[0]["message"])
    assert not [n for n in postinit.resolve(model=LLAMA, vllm_version="0.11.1").notes if n.kind == "partial_version"]


@pytest.mark.parametrize("argv", [[], ["--no-enable-chunked-prefill"], ["-tp", "2", "--stream-interval", "4"]])
def test_one_answer_per_version_on_every_face(argv: list[str], http: TestClient) -> None:
    """The library, the CLI (--vllm-version) and HTTP ("vllm_version") agree for 0.11.1."""
    lib = _answer(postinit.resolve(model=LLAMA, argv=argv, vllm_version="0.11.1").to_dict())
    out = runner.invoke(cli_app, ["resolve", "--format", "json", "--model", LLAMA, "--vllm-version", "0.11.1", *argv])
    assert out.exit_code == 0, out.output
    r = http.post("/v1/resolve", json={"model": LLAMA, "argv": argv, "vllm_version": "0.11.1"})
    assert r.status_code == 200 and lib == _answer(json.loads(out.stdout)) == _answer(r.json())
    assert lib[4] == "0.11.1"


# --------------------------------------------------------------------------- fields, flags and env per version


def test_fields_a_version_lacks_are_ignored_with_a_note() -> None:
    """vLLM's configs ignore unknown keywords: the field is dropped with a note, and left out of the answer."""
    r = postinit.resolve({"compilation_config": {"use_cudagraph": False, "cudagraph_mode": "FULL"}}, model=LLAMA,
                         vllm_version="0.11.1")
    assert r.ok and r.get("compilation_config.cudagraph_mode").name == "FULL"
    note = next(n for n in r.notes if n.kind == "absent_field")
    assert note.subject == "compilation_config.use_cudagraph" and "removed after vLLM d7fb10c57" in note.message
    assert "use_cudagraph" not in r.to_dict()["config"]["compilation_config"]
    seed = postinit.resolve({"compilation_config": {"use_cudagraph": False, "cudagraph_mode": "FULL"}}, model=LLAMA)
    assert not seed.ok  # the seed honours the flag: "use_cudagraph and cudagraph_mode are mutually exclusive"
    new = postinit.resolve({"scheduler_config": {"stream_interval": 4}}, model=LLAMA)
    assert any(n.subject == "scheduler_config.stream_interval" and "added in vLLM 0.11.1" in n.message
               for n in new.notes)
    assert "stream_interval" not in new.to_dict()["config"]["scheduler_config"]


def test_the_request_config_is_never_changed_by_dropping_fields() -> None:
    """Dropping a field a version lacks copies the nested dicts it changes."""
    config = {"compilation_config": {"use_cudagraph": True}}
    req = postinit.Request.build(config, vllm_version="0.11.1")
    postinit.resolve(req)
    assert req.config == {"compilation_config": {"use_cudagraph": True}} == config


def test_flags_a_version_lacks_are_unrecognized() -> None:
    """--stream-interval is a 0.11.1 flag; --rope-theta left after the seed."""
    with pytest.raises(UnknownFlagError, match="unknown flag '--stream-interval': vLLM d7fb10c57 has no such flag") as e:
        postinit.resolve(argv=["--stream-interval", "2"])
    assert (e.value.stage, e.value.vllm_message) == ("parse", "unrecognized arguments: --stream-interval 2")
    assert postinit.resolve(argv=["--stream-interval", "2"], vllm_version="0.11.1").get(
        "scheduler_config.stream_interval") == 2
    with pytest.raises(UnknownFlagError, match=r"'--rope-theta': vLLM 0\.11\.1 has no such flag"):
        postinit.resolve(argv=["--rope-theta", "10000"], vllm_version="0.11.1")
    assert postinit.resolve(argv=["--rope-theta", "10000"]).get("model_config.rope_theta") == 10000


def test_each_version_reads_its_own_env_table() -> None:
    """VLLM_USE_V1 does not exist in 0.11.1: it is reported as unknown and changes nothing."""
    seed = postinit.resolve(model=LLAMA, env={"VLLM_USE_V1": "0"}, usage="llm")
    new = postinit.resolve(model=LLAMA, env={"VLLM_USE_V1": "0"}, usage="llm", vllm_version="0.11.1")
    assert seed.get("compilation_config.mode") == 0 and new.get("compilation_config.mode") == 3
    assert any(n.subject == "VLLM_USE_V1" and "not a vLLM variable at 0.11.1" in n.message for n in new.notes)


def test_json_schema_per_version(http: TestClient) -> None:
    """`postinit schema --vllm-version` and /v1/schema leave out the fields the version lacks."""
    out = runner.invoke(cli_app, ["schema", "--vllm-version", "0.11.1"])
    doc = json.loads(out.stdout)
    assert "stream_interval" in doc["$defs"]["SchedulerConfig"]["properties"]
    assert "use_cudagraph" not in doc["$defs"]["CompilationConfig"]["properties"]
    seed = http.get("/v1/schema").json()
    assert "stream_interval" not in seed["$defs"]["SchedulerConfig"]["properties"]
    assert http.get("/v1/schema", params={"vllm_version": "0.11.1"}).json() == doc


# --------------------------------------------------------------------------- the rulebook per version


def test_rules_graph_and_check_take_a_version(http: TestClient) -> None:
    """The rulebook commands and endpoints answer for the version asked."""
    out = runner.invoke(cli_app, ["rules", "--vllm-version", "0.11.1", "--format", "json"])
    ids = {r["id"] for r in json.loads(out.stdout)["rules"]}
    assert "engine-args.chunked-prefill-default" in ids and "engine-args.chunked-prefill-forced" not in ids
    assert {r["id"] for r in http.get("/v1/rules", params={"vllm_version": "0.11.1"}).json()} == ids
    assert http.get("/v1/rules/engine-args.chunked-prefill-forced", params={"vllm_version": "0.11.1"}).status_code == 404
    check = runner.invoke(cli_app, ["check", "--vllm-version", "0.11.1", "--format", "json"])
    assert check.exit_code == 0 and json.loads(check.stdout)["ok"]
    graph = runner.invoke(cli_app, ["graph", "--vllm-version", "0.11.1", "--format", "mermaid"])
    assert graph.exit_code == 0 and "flowchart" in graph.stdout


def test_why_what_if_and_diff_take_a_version() -> None:
    """why, what-if and diff resolve as the version asked."""
    why = runner.invoke(cli_app, ["why", "scheduler_config.enable_chunked_prefill", "--model", LLAMA,
                                  "--vllm-version", "0.11.1", "--no-enable-chunked-prefill", "--format", "json"])
    assert json.loads(why.stdout)["value"] is False
    w = postinit.what_if(model=LLAMA, vllm_version="0.11.1", set={"scheduler_config.enable_chunked_prefill": False})
    assert w.base.vllm_version == w.changed.vllm_version == "0.11.1"
    assert any(f.path == "scheduler_config.max_num_batched_tokens" for f in w.diff.fields)
    d = runner.invoke(cli_app, ["diff", "", "--no-enable-chunked-prefill", "--vllm-version", "0.11.1", "--format",
                                "json"])
    assert any(f["path"] == "scheduler_config.enable_chunked_prefill" for f in json.loads(d.stdout)["fields"])
    r = postinit.resolve(model=LLAMA)
    assert r.with_changes(vllm_version="0.11.1").to_dict() == postinit.resolve(model=LLAMA, vllm_version="0.11.1").to_dict()


NEWEST = list(versions.VERSIONS.values())[-1]


@pytest.fixture
def fake_version(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Delta], Version]]:
    """A factory registering a version "x" over the newest version with the delta the test gives (a version's
    parent is the newest of its line: since/until marks are linear)."""

    def make(d: Delta) -> Version:
        v = Version("x", "test", NEWEST, "none", "none", NEWEST.env_table, NEWEST.golden, delta_module="tests")
        v.__dict__["delta"] = d  # the cached property, preset: no module to import
        monkeypatch.setitem(versions.VERSIONS, "x", v)
        versions._spellings.cache_clear()
        return v

    yield make
    versions._spellings.cache_clear()


def test_a_delta_is_checked_like_a_rulebook(fake_version: Callable[[Delta], Version]) -> None:
    """Dropping, patching or replacing a rule the parent lacks, re-adding one it has, patching a parameter the
    rule does not have, or reading a field the version does not have are declaration errors naming the rule."""
    from postinit.rules import engine_args, v0_11_1

    parent = re.escape(NEWEST.name)
    with pytest.raises(RuleDeclarationError, match=rf"drops rule 'no\.such-rule', which {parent} does not have"):
        _ = fake_version(Delta(drop={"no.such-rule": "why"})).checked_rules
    with pytest.raises(RuleDeclarationError, match=r"replaces rule 'engine-args\.chunked-prefill-forced'"):
        _ = fake_version(Delta(replace=(engine_args.chunked_prefill_forced,))).checked_rules
    with pytest.raises(RuleDeclarationError, match=r"adds rule 'engine-args\.lora-speculative-budget'"):
        _ = fake_version(Delta(add=(v0_11_1.lora_speculative_budget,))).checked_rules
    with pytest.raises(UnknownPathError, match=r"engine-args\.speculative-engine-flags .*'speculative_config\.enable_"
                                               r"chunked_prefill', a field vLLM x does not have"):
        _ = fake_version(Delta(add=(engine_args.speculative_engine_flags,))).checked_rules
    with pytest.raises(RuleDeclarationError, match=rf"patches rule 'cache\.fast-prefill-egale', which {parent} does "
                                                   r"not have.*cache\.fast-prefill-eagle"):
        _ = fake_version(Delta(patch=(patch("cache.fast-prefill-egale", error="KeyError"),))).rules
    with pytest.raises(RuleDeclarationError, match=r"rule 'cache\.fast-prefill-eagle' has no parameter 'eror' "
                                                   r"\(its parameters: error\)"):
        _ = fake_version(Delta(patch=(patch("cache.fast-prefill-eagle", eror="KeyError"),))).rules
    with pytest.raises(RuleDeclarationError, match=r"facts names 'capture_size_clip', which is no version fact"):
        _ = fake_version(Delta(facts={"capture_size_clip": False})).facts


def test_a_patch_is_the_parent_rule_with_other_values(fake_version: Callable[[Delta], Version]) -> None:
    """A patched rule runs the parent's function with the patch's parameter values and header; the parent's
    rule is unchanged, and a version's facts are its parent's with the delta's over them."""
    parent = NEWEST
    x = fake_version(Delta(patch=(patch("cache.fast-prefill-eagle", error="KeyError", source="here; vX"),),
                           facts={"capture_sizes_clip": False, "vllm_version": "9.9.9"}))
    mine, theirs = x.rulebook.rules["cache.fast-prefill-eagle"], parent.rulebook.rules["cache.fast-prefill-eagle"]
    assert dict(mine.params) == {"error": "KeyError"} and dict(theirs.params) == {"error": "ValueError"}
    assert mine.source == "here; vX" and theirs.source != mine.source
    state = {"cache_config.kv_sharing_fast_prefill": True, "speculative_config": {"method": "eagle"},
             "speculative_config.method": "eagle"}
    assert mine.fn(state).error == "KeyError" and theirs.fn(state).error == "ValueError"
    assert x.facts.capture_sizes_clip is False and parent.facts.capture_sizes_clip is True  # 0.11.1's, inherited
    assert x.facts.vllm_version == "9.9.9" and x.facts.model_registry == parent.facts.model_registry
    assert x.fact_state["version.name"] == "x"


def test_a_delta_must_agree_with_the_schema_marks(fake_version: Callable[[Delta], Version]) -> None:
    """A field or flag listed in a delta must carry the same since/until mark in the schema, and vice versa."""
    problems = fake_version(Delta(fields_added=("scheduler_config.policy",), flags_removed=("stream_interval",))
                            ).problems()
    assert problems == ["x fields_added: scheduler_config.policy is declared but not marked in the schema",
                        "x flags_removed: stream_interval is declared but not marked in argv.FLAGS"]
    assert versions.VERSIONS["0.11.1"].problems() == []


def test_a_delta_in_parts_is_one_delta() -> None:
    """A version's delta declared in several modules (delta_parts) is their union; two parts editing one rule,
    or giving one default twice, is a declaration error naming both; ordering hints of one rule are joined."""
    from postinit.rules import engine_args
    from postinit.rules.delta import combine

    a = Delta(drop={"verify.swap-space": "gone"}, defaults={"model_config.seed": 0},
              after={"cache.fast-prefill-eagle": ("a",)}, fields_added=("x.y",))
    b = Delta(patch=(patch("cache.fast-prefill-eagle", error="KeyError"),), after={"cache.fast-prefill-eagle": ("b",)},
              fields_added=("x.y", "x.z"))
    both = combine(a, b)
    assert dict(both.drop) == {"verify.swap-space": "gone"} and [p.rule for p in both.patch] == ["cache.fast-prefill-eagle"]
    assert both.after == {"cache.fast-prefill-eagle": ("a", "b")} and both.fields_added == ("x.y", "x.z")
    assert combine(a) is a
    with pytest.raises(ValueError, match=r"parts 0 and 1 both edit rule 'verify\.swap-space'"):
        combine(a, Delta(drop={"verify.swap-space": "again"}))
    with pytest.raises(ValueError, match=r"parts 0 and 1 both edit rule 'engine-args\.chunked-prefill-forced'"):
        combine(Delta(replace=(engine_args.chunked_prefill_forced,)), Delta(drop={"engine-args.chunked-prefill-forced": "x"}))
    with pytest.raises(ValueError, match=r"parts 0 and 1 both declare default 'model_config\.seed'"):
        combine(a, Delta(defaults={"model_config.seed": 1}))
    v034 = versions.VERSIONS["0.34.0"]
    assert v034.delta_parts and v034.delta.add  # 0.34.0's delta: its core module and its model-specific part


def test_a_second_child_keeps_what_its_sibling_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    """until=<parent> marks a removal by the child that declares it: another child of the same parent keeps the
    field and the flag, and its delta need not declare the sibling's removals."""
    parent = versions.VERSIONS["0.11.1"]
    sibling = next((v for v in versions.VERSIONS.values() if v.parent is parent and v.delta.fields_removed), None)
    if sibling is None:
        pytest.skip("no version removes a field of 0.11.1")
    x = Version("x", "test", parent, "none", "none", "0.11.1", "expected-0.11.1", delta_module="tests")
    x.__dict__["delta"] = Delta()
    monkeypatch.setitem(versions.VERSIONS, "x", x)
    gone = sorted(set(sibling.delta.fields_removed) & set(sibling.absent_paths))
    assert gone and not set(gone) & x.absent_paths
    assert x.absent_paths == parent.absent_paths and x.absent_flags == parent.absent_flags
    assert x.problems() == []


# --------------------------------------------------------------------------- upgrade


def test_upgrade_names_the_rule_on_each_side() -> None:
    """--no-enable-chunked-prefill: forced on at the seed commit, kept off in 0.11.1, and the budget follows."""
    u = postinit.upgrade(model=LLAMA, argv=["--no-enable-chunked-prefill"], to_version="0.11.1")
    by_path = {c.path: c for c in u.changes}
    cp = by_path["scheduler_config.enable_chunked_prefill"]
    assert (cp.before.value, cp.after.value) == (True, False)
    assert cp.before.rule == "engine-args.chunked-prefill-forced" and "no longer makes this decision" in (
        cp.before.rule_change or "")
    assert cp.after.rule is None and cp.after.by == "your --no-enable-chunked-prefill"
    budget = by_path["scheduler_config.max_num_batched_tokens"]
    assert (budget.before.value, budget.after.value) == (8192, 131072)
    assert (budget.after.message or "").splitlines()[0] == (
        "Defaulting max_num_batched_tokens to 131072 for OPENAI_API_SERVER usage context.")
    # 0.11.1's chunked_prefill_enabled is a property reading enable_chunked_prefill: compared through it
    cpe = by_path["scheduler_config.chunked_prefill_enabled"]
    assert (cpe.before.value, cpe.after.value) == (True, False) and "through scheduler_config.enable_chunked_prefill" \
        in cpe.after.by
    assert not any(p == "scheduler_config.chunked_prefill_enabled" for p, _ in u.only_before)
    assert "info: Chunked prefill is enabled with max_num_batched_tokens=8192." in u.logs_removed
    assert "<Upgrade d7fb10c57 -> 0.11.1" in repr(u) and "decision(s) change" in str(u)


def test_upgrade_the_same_version_changes_nothing() -> None:
    """An upgrade to the version one runs changes no decision."""
    u = postinit.upgrade(model=LLAMA, from_version="0.11.1", to_version="0.11.1")
    assert u.same and not u.changes and not u.only_before and "No decision changes" in str(u)


def test_upgrade_reports_an_outcome_change() -> None:
    """A config one version refuses and the other resolves says so on both sides (here: use_cudagraph)."""
    u = postinit.upgrade({"compilation_config": {"use_cudagraph": False, "cudagraph_mode": "FULL"}}, model=LLAMA,
                         to_version="0.11.1")
    assert not u.before.ok and u.after.ok and not u.same
    assert "refuses" in str(u) and any("use_cudagraph" in n for n in u.notes)
    d = u.to_dict()
    assert d["from"]["ok"] is False and d["to"]["ok"] is True and d["from"]["violations"]


def test_upgrade_agrees_on_every_face(http: TestClient) -> None:
    """postinit.upgrade(), `postinit upgrade` and POST /v1/upgrade give the same decisions."""
    argv = ["--no-enable-chunked-prefill", "-tp", "2"]
    lib = postinit.upgrade(model=LLAMA, argv=argv, platform="a100", to_version="0.11.1").to_dict()
    out = runner.invoke(cli_app, ["upgrade", "--to", "0.11.1", "--from", "d7fb10c57", "--model", LLAMA,
                                  "--platform", "a100", "--format", "json", *argv])
    assert out.exit_code == 0, out.output
    r = http.post("/v1/upgrade", json={"model": LLAMA, "argv": argv, "platform": "a100", "from": "d7fb10c57",
                                       "to": "0.11.1"})
    assert r.status_code == 200, r.text
    assert lib == json.loads(out.stdout) == r.json()
    assert lib["changes"] and lib["from"]["vllm_version"] == "d7fb10c57" and lib["to"]["vllm_version"] == "0.11.1"
    text = runner.invoke(cli_app, ["upgrade", "--to", "0.11.1", "--model", LLAMA, *argv])
    assert "scheduler_config.enable_chunked_prefill: true → false" in text.stdout
    md = runner.invoke(cli_app, ["upgrade", "--to", "0.11.1", "--model", LLAMA, "--format", "md", *argv])
    assert md.stdout.startswith("## Upgrade vLLM d7fb10c57 → 0.11.1")


def test_upgrade_a_line_the_newer_parser_refuses_on_every_face(http: TestClient) -> None:
    """A 0.11 command line 0.34.0's parser refuses (--swap-space is gone): a refused side with argparse's text on
    every face, no field compared; -O3 is accepted by both but sets another field, and a note says which."""
    argv = ["-O3", "--swap-space", "8"]
    lib = postinit.upgrade(model=LLAMA, argv=argv, from_version="0.11.1", to_version="0.34.0").to_dict()
    out = runner.invoke(cli_app, ["upgrade", "--from", "0.11.1", "--to", "0.34.0", "--model", LLAMA, "--format",
                                  "json", *argv])
    assert out.exit_code == 0, out.output
    r = http.post("/v1/upgrade", json={"model": LLAMA, "argv": argv, "from": "0.11.1", "to": "0.34.0"})
    assert r.status_code == 200, r.text
    assert lib == json.loads(out.stdout) == r.json()
    assert lib["to"]["outcome"] == {"ok": False, "error": "ArgumentError", "stage": "parse", "rule": None,
                                    "message": "unrecognized arguments: --swap-space 8"}
    assert lib["from"]["outcome"] == {"ok": True} and lib["compared"] is False and lib["changes"] == []
    text = runner.invoke(cli_app, ["upgrade", "--from", "0.11.1", "--to", "0.34.0", "--model", LLAMA, *argv]).stdout
    assert "✗ vLLM 0.34.0 refuses this input at parse: ArgumentError: unrecognized arguments: --swap-space 8" in text
    u = postinit.upgrade(model=LLAMA, argv=["-O3"], from_version="0.11.1", to_version="0.34.0")
    assert u.compared and any("0.11.1 sets compilation_config.mode (from -O.mode=3); 0.34.0 sets "
                              "optimization_level (from --optimization-level 3)" in n for n in u.notes)


def test_upgrade_input_errors(http: TestClient) -> None:
    """Unknown versions are one line on every face; an upgrade body names its versions from/to."""
    out = runner.invoke(cli_app, ["upgrade", "--to", "0.12"])
    assert out.exit_code == 2 and "error: --to '0.12' is not a modelled vLLM version" in out.stderr
    r = http.post("/v1/upgrade", json={"to": "0.12"})
    assert r.status_code == 422 and r.json()["message"].startswith("to '0.12' is not a modelled vLLM version")
    r = http.post("/v1/upgrade", json={"to": "0.11.1", "vllm_version": "0.11.1"})
    assert r.status_code == 422 and "'from' and 'to'" in r.json()["message"]
    with pytest.raises(InputError, match="from_version and to_version, not vllm_version"):
        postinit.upgrade(vllm_version="0.11.1", to_version="0.11.1")


def test_the_readme_upgrade_excerpts_are_real_output() -> None:
    """The README's `postinit upgrade` excerpts (0.11.1, and a line 0.34.0 refuses): every line each shows is
    printed, in that order ("…" skips lines)."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = [b for b in re.findall(r"```text\n(.*?)```", readme, flags=re.S) if b.startswith("$ postinit upgrade")]
    assert len(blocks) == 2
    for block in blocks:
        lines = block.rstrip("\n").splitlines()
        out = runner.invoke(cli_app, shlex.split(lines.pop(0).removeprefix("$ "))[1:])
        assert out.exit_code == 0, out.output
        printed = iter(out.stdout.splitlines())
        for line in lines:
            if line != "…":
                assert line in printed, line


# --------------------------------------------------------------------------- the door


@pytest.mark.parametrize("name", list(versions.VERSIONS))
def test_no_version_lookup_by_string_after_the_door(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The request resolves its version once; resolving, hashing, explaining, serialising and re-resolving
    with changes take the version object and never look a version up by its name again."""
    from postinit._api import resolve_request

    request = postinit.Request.build(model=LLAMA, argv=["--max-model-len", "8k"], vllm_version=name)
    expected = postinit.resolve(request)
    calls: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append(repr(args))
        raise AssertionError(f"a version looked up by string after the door: {args!r}")

    for fn in ("get", "version_name", "rulebook", "groups", "version_rules"):
        monkeypatch.setattr(versions, fn, refuse)
    monkeypatch.setattr(postinit, "rulebook", refuse)
    r = resolve_request(request)
    assert r.version is request.version is versions.VERSIONS[name] and r.vllm_version == name
    assert r.hash == expected.hash and r.to_dict() == expected.to_dict()
    assert r.why("scheduler_config.max_num_batched_tokens").path == "scheduler_config.max_num_batched_tokens"
    changed = r.with_changes({"model_config.enforce_eager": True})
    assert changed.version is request.version and changed.get("model_config.enforce_eager") is True
    assert r.state["version.name"] == name and r.state["version.vllm_version"] == request.version.facts.vllm_version
    assert calls == []
