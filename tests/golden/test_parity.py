"""Differential test: postinit's resolution of every golden case equals real vLLM's (exact seed d7fb10c57).

One test per case asserts ``compare(gc).matches``: the outcome; for a failure
the exception type, message and stage; every field of every sub-config, nested
objects included; vLLM's log records (``logs_sub_configs`` and ``logs``) at
vLLM's level, and no postinit log message vLLM did not log. Cases that cannot
match for a principled reason are listed in ``divergences.json`` (``{case:
reason}``), run as ``xfail(strict=True)`` and explained in
``docs/divergences.md``. The comparator itself is tested on perturbed copies of
golden cases (``test_comparator_*``): each perturbation must make it fail.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from postinit.rules import versions
from tests.golden.corpus import GOLDEN_DIR, GoldenCase, load_cases
from tests.golden.coverage import NEVER_RAISED, TARGET, UNEXERCISABLE, Coverage, coverage
from tests.golden.parity import (
    KNOWN_MISSING_LOGS,
    NOT_COMPARED,
    NOT_MODELLED,
    VERSION_ALIASES,
    Comparison,
    compare,
    divergences,
    log_report,
    missing_logs,
    norm_log,
    vllm_logs,
)

HERE = Path(__file__).parent
DIVERGENCES: dict[str, str] = json.loads((HERE / "divergences.json").read_text())
DOCS = HERE.parents[1] / "docs" / "divergences.md"
CASES = load_cases()
BY_NAME = {gc.name: gc for gc in CASES}
SHIPPED = [gc for gc in CASES if gc.name[:2].isdigit()]


def _describe(c: Comparison) -> str:
    lines = [f"{c.case}: postinit ok={c.ok}, vLLM ok={c.expected_ok}" + (f", {c.error}" if c.error else "")]
    lines += [f"  {path}: postinit={ours!r} vllm={theirs!r}" for path, (ours, theirs) in c.mismatches.items()]
    lines += [f"  vLLM logged, postinit did not: {lv}: {m}" for lv, m in c.missing_logs]
    lines += [f"  other level: vllm={v} postinit={o}: {m}" for v, o, m in c.log_level_mismatches]
    lines += [f"  postinit logged, vLLM did not: {rule} {lv}: {m}" for rule, lv, m in c.extra_logs]
    return "\n".join(lines)


def _corpus(version: str) -> list[GoldenCase]:
    return load_cases("seed" if version == versions.DEFAULT_VERSION else version)


CORPORA: dict[str, list[GoldenCase]] = {v: _corpus(v) for v in versions.VERSIONS}
"""Every modelled version's golden corpus (real vLLM's answers: ``Version.golden``)."""
BY_VERSION = {v: {gc.name: gc for gc in cases} for v, cases in CORPORA.items()}
DIVERGENCES_OF = {v: divergences(v) for v in versions.VERSIONS}


@functools.cache
def comparison(name: str, version: str = versions.DEFAULT_VERSION) -> Comparison:
    """The comparison of one golden case, resolved as ``version`` (computed once per session; reused)."""
    return compare(BY_VERSION[version][name], version)


def _params() -> list[object]:
    out = []
    for version, cases in CORPORA.items():
        for gc in cases:
            reason = DIVERGENCES_OF[version].get(gc.name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(version, gc.name, id=f"{version}-{gc.name}", marks=marks))
    return out


@pytest.mark.parametrize(("version", "name"), _params())
def test_case_matches_vllm(version: str, name: str) -> None:
    """Resolved as ``version``, postinit's outcome, error (type, message, stage), every field and the logs both
    ways equal that real vLLM's (one block for every version of ``versions.VERSIONS``)."""
    c = comparison(name, version)
    assert c.matches, _describe(c)


@pytest.mark.parametrize("version", list(versions.VERSIONS))
def test_divergences_of_every_version_are_known_and_documented(version: str) -> None:
    """Every divergence names a real case, has a reason, and is explained in docs/divergences.md (under the
    version's heading, for a version other than the seed)."""
    docs = DOCS.read_text()
    for case, reason in DIVERGENCES_OF[version].items():
        assert case in BY_VERSION[version] and reason.strip(), case
        # a partial model's list is measured, not explained case by case (its status says so)
        if version != versions.DEFAULT_VERSION and versions.VERSIONS[version].status is None:
            assert case in docs.split(f"## vLLM {version}", 1)[1], \
                f"{case} is not explained under 'vLLM {version}' in {DOCS}"


def test_version_cases_show_the_versions_disagreeing() -> None:
    """The v* cases are inputs real vLLM answers differently at the seed and in 0.11.1 (what an upgrade changes)."""
    for gc in [gc for gc in CASES if gc.name.startswith("v")]:
        new = BY_VERSION['0.11.1'][gc.name].expected
        differ = (gc.expected.get("ok"), gc.expected.get("error"), gc.expected.get("post"), gc.expected.get("logs")) != (
            new.get("ok"), new.get("error"), new.get("post"), new.get("logs"))
        assert differ, gc.name


def test_0_11_1_alias_and_absent_fields_are_compared() -> None:
    """0.11.1's chunked_prefill_enabled is compared with the field it aliases; _absent must name absent fields."""
    assert VERSION_ALIASES["0.11.1"]["scheduler_config.chunked_prefill_enabled"] == \
        "scheduler_config.enable_chunked_prefill"

    def flip(e: dict[str, Any]) -> None:
        e["post"]["scheduler_config"]["chunked_prefill_enabled"] = False

    gc = BY_VERSION['0.11.1']["01-llama-h100-default"]
    assert comparison(gc.name, '0.11.1').matches
    expected = copy.deepcopy(gc.expected)
    flip(expected)
    c = compare(dataclasses.replace(gc, expected=expected), "0.11.1")
    assert list(c.mismatches) == ["scheduler_config.chunked_prefill_enabled"]
    expected = copy.deepcopy(gc.expected)
    expected["post"]["compilation_config"]["_absent"] = ["cudagraph_mode"]
    c = compare(dataclasses.replace(gc, expected=expected), "0.11.1")
    assert list(c.mismatches) == ["compilation_config._absent"]


def test_corpus_complete() -> None:
    """All golden cases are collected (59 shipped + 251 by gen_cases.py + 184 by gen_targeted.py + 20 by
    gen_versions.py + 247 by gen_fidelity.py + 145 by gen_upgrade.py + 345 by gen_cov_old.py + 120 by
    gen_heldout.py)."""
    assert len(SHIPPED) == 59
    assert len([gc for gc in CASES if gc.name.startswith("g")]) == 251
    assert len([gc for gc in CASES if gc.name.startswith("t")]) == 184
    assert len([gc for gc in CASES if gc.name.startswith("v")]) == 20
    assert len([gc for gc in CASES if gc.name.startswith("x")]) == 247
    assert len([gc for gc in CASES if gc.name.startswith("u")]) == 145
    assert len([gc for gc in CASES if gc.name.startswith("n")]) == 346
    assert len([gc for gc in CASES if gc.name.startswith("y")]) == 300
    assert len(CASES) == 1552


def test_divergences_are_known_and_documented() -> None:
    """Every divergence names a real case, has a reason, and is explained in docs/divergences.md."""
    docs = DOCS.read_text()
    for case, reason in DIVERGENCES.items():
        assert case in BY_NAME, f"divergences.json names unknown case {case}"
        assert reason.strip(), f"{case}: empty reason"
        assert case in docs, f"{case} is not explained in {DOCS}"
    for text in KNOWN_MISSING_LOGS:
        assert text in docs, f"known missing log {text!r} is not explained in {DOCS}"


def _oracle_keys(obj: Any, prefix: str) -> set[str]:
    out = {prefix}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out |= _oracle_keys(v, f"{prefix}.{k}")
    return out


def test_exclusions_name_real_oracle_keys() -> None:
    """Every path the comparator leaves out (with its reason) occurs in some oracle output: no stale exclusions."""
    keys: set[str] = set()
    for gc in (*CASES, *load_cases("0.34.0")):
        for sub, value in (gc.expected.get("post") or {}).items():
            keys |= _oracle_keys(value, sub)
    for path in (*NOT_COMPARED, *NOT_MODELLED):
        assert path in keys, f"{path} is excluded from the comparison but no oracle output has it"


def test_known_missing_logs_are_logged_by_vllm() -> None:
    """Each accepted log gap is a record vLLM really printed in some case of some version (not a stale entry)."""
    from tests.golden.parity import _norm_known

    seen = {_norm_known(msg) for cases in CORPORA.values() for gc in cases for _, msg in vllm_logs(gc)}
    for text in KNOWN_MISSING_LOGS:
        assert text in seen, text


def test_log_report_sees_missing_messages() -> None:
    """The log comparison is not vacuous: without a resolution every vLLM record of a case is missing."""
    gc = BY_NAME["05-encoder-decoder-whisper"]
    assert vllm_logs(gc)
    assert missing_logs(gc, None) == vllm_logs(gc)
    report = log_report([Comparison(gc.name, True, True, missing_logs=missing_logs(gc, None))])
    assert f"{len(vllm_logs(gc))} records" in report[0]


def test_norm_log() -> None:
    """Numbers become N, hex addresses 0x?."""
    assert norm_log("Padding mamba page size by 26.32% at 0x7f3a ") == "Padding mamba page size by N% at 0x?"


# --------------------------------------------------------------------------- the comparator itself


def _perturbed(name: str, edit: Any) -> GoldenCase:
    """A copy of golden case ``name`` whose expected output ``edit`` changed in place."""
    gc = BY_NAME[name]
    expected = copy.deepcopy(gc.expected)
    edit(expected)
    return dataclasses.replace(gc, expected=expected)


def _assert_caught(name: str, edit: Any) -> Comparison:
    assert comparison(name).matches, f"{name} must match unperturbed for the perturbation to mean anything"
    c = compare(_perturbed(name, edit))
    assert not c.matches, f"the comparator did not notice the perturbation of {name}"
    return c


def test_comparator_catches_a_nested_field() -> None:
    """Flipping one field of compilation_config.pass_config (a nested object) fails the comparison."""
    def edit(e: dict[str, Any]) -> None:
        pc = e["post"]["compilation_config"]["pass_config"]
        pc["enable_noop"] = not pc["enable_noop"]

    c = _assert_caught("01-llama-h100-default", edit)
    assert list(c.mismatches) == ["compilation_config.pass_config.enable_noop"]


def test_comparator_catches_eplb_and_target_config_fields() -> None:
    """parallel_config.eplb_config and the speculative config's target_model_config are compared too."""
    def eplb(e: dict[str, Any]) -> None:
        e["post"]["parallel_config"]["eplb_config"]["window_size"] += 1

    assert list(_assert_caught("01-llama-h100-default", eplb).mismatches) == [
        "parallel_config.eplb_config.window_size"]

    def target(e: dict[str, Any]) -> None:
        e["post"]["speculative_config"]["target_model_config"]["max_model_len"] = 1234

    assert list(_assert_caught("24-spec-ngram", target).mismatches) == [
        "speculative_config.target_model_config.max_model_len"]


def test_comparator_catches_an_unknown_oracle_key() -> None:
    """An oracle key postinit's schema lacks, and that no exclusion names, is a mismatch (nothing skipped)."""
    def edit(e: dict[str, Any]) -> None:
        e["post"]["scheduler_config"]["brand_new_field"] = 1

    c = _assert_caught("01-llama-h100-default", edit)
    assert c.mismatches == {"scheduler_config.brand_new_field": ("<not in postinit's schema>", 1)}


def test_comparator_catches_an_error_message() -> None:
    """A failing case whose vLLM error message differs (beyond numbers) fails the comparison."""
    def edit(e: dict[str, Any]) -> None:
        e["error"]["message"] = e["error"]["message"].replace("is not supported", "is unsupported")

    c = _assert_caught("08-dbo-without-deepep", edit)
    assert list(c.mismatches) == ["<error.message>"]


def test_comparator_catches_an_error_stage_and_type() -> None:
    """The stage and the exception type of a failure are compared."""
    def stage(e: dict[str, Any]) -> None:
        e["stage"] = "scheduler_config"

    assert list(_assert_caught("08-dbo-without-deepep", stage).mismatches) == ["<error.stage>"]

    def kind(e: dict[str, Any]) -> None:
        e["error"]["type"] = "ValueError"

    assert list(_assert_caught("08-dbo-without-deepep", kind).mismatches) == ["<error.type>"]


def test_comparator_catches_pydantics_wrapper() -> None:
    """Whether pydantic wrapped vLLM's exception, and the wrapper's text (without its input), are compared."""
    def unwrapped(e: dict[str, Any]) -> None:
        del e["error"]["wrapped_by"]

    assert list(_assert_caught("08-dbo-without-deepep", unwrapped).mismatches) == ["<error.wrapped_by>"]

    def other_class(e: dict[str, Any]) -> None:
        e["error"]["wrapper_message"] = e["error"]["wrapper_message"].replace("for VllmConfig", "for CacheConfig")

    assert list(_assert_caught("08-dbo-without-deepep", other_class).mismatches) == ["<error.wrapper_message>"]


def test_comparator_catches_a_parse_error() -> None:
    """A flag vLLM's parser refuses: postinit's InputError must carry vLLM's stage, type and text."""
    def message(e: dict[str, Any]) -> None:
        e["error"]["message"] = "unrecognized arguments: --another-flag"

    assert list(_assert_caught("57-argv-unknown-flag", message).mismatches) == ["<error.message>"]

    def stage(e: dict[str, Any]) -> None:
        e["stage"] = "engine_args"

    assert list(_assert_caught("57-argv-unknown-flag", stage).mismatches) == ["<error.stage>"]


def test_comparator_catches_an_extra_vllm_log_record() -> None:
    """A vLLM record postinit does not produce (in logs or in logs_sub_configs) fails the comparison."""
    record = {"level": "INFO", "msg": "A record vLLM never printed."}

    def in_logs(e: dict[str, Any]) -> None:
        e["logs"].append(record)

    assert _assert_caught("01-llama-h100-default", in_logs).missing_logs == [("info", record["msg"])]

    def in_sub_configs(e: dict[str, Any]) -> None:
        e["logs_sub_configs"].append(record)

    assert _assert_caught("01-llama-h100-default", in_sub_configs).missing_logs == [("info", record["msg"])]


def test_comparator_catches_an_extra_postinit_log_record() -> None:
    """A postinit message vLLM did not log fails the comparison (here: vLLM's record of it removed)."""
    def edit(e: dict[str, Any]) -> None:
        e["logs_sub_configs"] = [r for r in e["logs_sub_configs"] if not r["msg"].startswith("Using max model len")]

    c = _assert_caught("01-llama-h100-default", edit)
    assert c.extra_logs == [("model.max-model-len-log", "info", "Using max model len 4096")]


def test_comparator_catches_a_log_level() -> None:
    """The same text at another level fails the comparison."""
    def edit(e: dict[str, Any]) -> None:
        e["logs_sub_configs"][0]["level"] = "WARNING"

    c = _assert_caught("01-llama-h100-default", edit)
    assert c.log_level_mismatches == [("warning", "info", "Resolved architecture: LlamaForCausalLM")]


# --------------------------------------------------------------------------- rule coverage by real vLLM


@functools.cache
def corpus_coverage() -> Coverage:
    return coverage(comparison(gc.name) for gc in CASES)


def test_rule_coverage_meets_the_target() -> None:
    """Real vLLM exercises >= 95% of the rules (changed a value, logged or raised in a matching case)."""
    cov = corpus_coverage()
    assert cov.share >= TARGET, f"{len(cov.exercised)}/{len(cov.rules)} rules exercised"


def test_every_unexercised_rule_has_a_reason() -> None:
    """The rules no golden case exercises are exactly those UNEXERCISABLE explains (no stale reasons)."""
    cov = corpus_coverage()
    assert set(cov.unexercised) == set(UNEXERCISABLE)
    assert all(reason.strip() for reason in UNEXERCISABLE.values())


def test_every_violation_raises_in_a_case() -> None:
    """Every rule with a violation raises it in a matching golden case, or NEVER_RAISED says why it cannot."""
    cov = corpus_coverage()
    assert set(cov.never_raised) == set(NEVER_RAISED)
    assert set(NEVER_RAISED) <= cov.violating


def test_0_34_0_partial_parity_is_measured_and_stated() -> None:
    """vLLM 0.34.0 is a partial model: every case that does not match real vLLM 0.34.0 yet is listed (with the
    kinds of difference) in divergences-0.34.0.json, no listed case matches, and the version's status states
    the measured number (``postinit versions``; every 0.34.0 resolution carries it in a note)."""
    import re

    from postinit.rules import versions

    cases = CORPORA["0.34.0"]
    assert len(cases) == len(list((GOLDEN_DIR / "cases-0.34.0").glob("*.json"))) >= 516  # and the cases added since
    known = divergences("0.34.0")
    results = {gc.name: comparison(gc.name, "0.34.0") for gc in cases}  # the parity block's, reused
    unexpected = sorted(n for n, c in results.items() if not c.matches and n not in known)
    fixed = sorted(n for n, c in results.items() if c.matches and n in known)
    assert not unexpected, f"0.34.0 cases that stopped matching: {unexpected[:20]}"
    assert not fixed, f"0.34.0 cases that match now (python -m tests.golden.parity --vllm-version 0.34.0 " \
        f"--record): {fixed[:20]}"
    good = sum(c.matches for c in results.values())
    status = versions.get("0.34.0").status
    assert status is not None
    found = re.search(r"(\d+)/(\d+) golden cases", status)
    assert found is not None and (int(found.group(1)), int(found.group(2))) == (good, len(cases)), status
