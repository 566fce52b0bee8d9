"""postinit's flag table per vLLM version is exactly that version's own parser table.

``postinit/schema/data/flags-<version>.json`` is read from vLLM's parser in each oracle venv
(``tests/golden/oracle/flags_dump.py``): the flags ``vllm serve`` accepts (the engine's, the server's),
with their spellings, kinds, types, choices and deprecation marks.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import postinit
from postinit.rules import versions
from postinit.schema.errors import UnknownFlagError
from postinit.schema.loaders.argv import FLAGS, _build_parser, flags_for, vllm_flag_table

VERSIONS = [v for v in versions.VERSIONS if vllm_flag_table(v) is not None]


def _table(version: str) -> dict[str, dict[str, Any]]:
    table = vllm_flag_table(version)
    assert table is not None
    return {d: f for part in ("engine", "frontend") for d, f in table[part].items() if d != "config"}


def test_every_modelled_version_has_its_parser_table() -> None:
    """The seed, 0.11.1 and 0.34.0 each have the table read from their own parser."""
    assert set(VERSIONS) == set(versions.VERSIONS)
    for version in VERSIONS:
        table = vllm_flag_table(version)
        assert table is not None and table["version"] == version and table["engine"]


@pytest.mark.parametrize("version", VERSIONS)
def test_flag_table_is_the_parsers(version: str) -> None:
    """Exactly the version's flags: every destination, spelling, off-switch, choice list and deprecation mark."""
    vllm = _table(version)
    ours = {s.dest: s for s in flags_for(version)}
    assert set(ours) == set(vllm)
    for dest, spec in ours.items():
        facts = vllm[dest]
        assert sorted(spec.option_strings) == sorted(facts["names"]), dest
        assert spec.choices == (None if facts["choices"] is None else tuple(facts["choices"])), dest
        assert spec.deprecated == facts["deprecated"], dest
        if facts["kind"] in ("bool", "store_true"):
            assert spec.kind == facts["kind"], dest
            assert set(spec.off) == set(facts.get("off") or ()), dest
        else:
            assert spec.kind not in ("bool", "store_true"), dest
            assert (spec.kind in ("list_int", "list_str")) == (facts["nargs"] in ("+", "*")), dest


@pytest.mark.parametrize("version", VERSIONS)
def test_postinit_table_marks_agree_with_the_parser(version: str) -> None:
    """A flag of postinit's own table is marked present in a version (since / until) exactly when its parser has it."""
    vllm = _table(version)
    absent = versions.get(version).absent_flags
    for spec in FLAGS:
        assert (spec.dest in vllm) == (spec.dest not in absent), (version, spec.dest)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_parser_knows_exactly_those_spellings(version: str) -> None:
    """The argparse parser built for ``vllm serve`` registers the table's spellings and no other."""
    parser = _build_parser(version, "frontend")
    registered = {o for a in parser._actions for o in a.option_strings}
    assert registered == {n for f in _table(version).values() for n in f["names"]}


@pytest.mark.parametrize("version", VERSIONS)
def test_llm_parser_lacks_the_server_flags(version: str) -> None:
    """``LLM(...)`` and the engines parse with EngineArgs' parser: no server flags, no AsyncEngineArgs flags."""
    table = vllm_flag_table(version)
    assert table is not None
    parser = _build_parser(version, "engine")
    dests = {a.dest for a in parser._actions if isinstance(a, argparse.Action) and a.option_strings}
    assert dests == set(table["engine"]) - set(table["async_only"])


@pytest.mark.parametrize("version", VERSIONS)
def test_flags_of_other_versions_are_unrecognized(version: str) -> None:
    """Every flag another version's parser has and this one's lacks is refused as this version's argparse refuses it,
    booleans and their switches included (the seed has no --data-parallel-external-lb)."""
    mine = {n for f in _table(version).values() for n in f["names"]}
    others = sorted({n for v in VERSIONS for f in _table(v).values() for n in f["names"]} - mine)
    assert others
    for flag in others:
        if flag == "-O" or any(m.startswith(flag) for m in mine):
            continue  # -O: 0.34.0's optimization level, else the compilation config; a prefix: argparse abbreviates
        with pytest.raises(UnknownFlagError) as e:
            postinit.resolve(argv=[flag], vllm_version=version)
        assert (e.value.stage, e.value.error) == ("parse", "ArgumentError"), flag
        assert e.value.vllm_message == f"unrecognized arguments: {flag}", flag


def test_data_parallel_external_lb_at_the_seed() -> None:
    """vllm serve --data-parallel-external-lb is an unrecognized argument at the seed, an option in 0.11.1."""
    with pytest.raises(UnknownFlagError, match="no such flag") as e:
        postinit.resolve(argv=["--data-parallel-external-lb", "-dp", "2", "-dpn", "1"])
    assert e.value.vllm_message == "unrecognized arguments: --data-parallel-external-lb"
    r = postinit.resolve(argv=["--data-parallel-external-lb", "-dp", "2", "-dpn", "1"], vllm_version="0.11.1")
    assert r.ok and r.get("parallel_config.data_parallel_external_lb") is True


def test_server_flags_only_for_vllm_serve() -> None:
    """--port is vllm serve's (accepted, no effect on the config); LLM(...) has no such argument."""
    assert postinit.resolve(argv=["--port", "8001"]).ok
    with pytest.raises(UnknownFlagError):
        postinit.resolve(argv=["--port", "8001"], usage="llm")


@pytest.mark.parametrize(("argv", "message"), [
    (["--max-model-len", "1a"], "argument --max-model-len: invalid human_readable_int value: '1a'"),
    (["--max-model-len", "1.5K"], "argument --max-model-len: Decimals are not allowed with binary suffixes like K. "
                                  "Did you mean to use 1.5k instead?"),
    (["--prefix-caching-hash-algo", "md5"],
     "argument --prefix-caching-hash-algo: invalid choice: 'md5' (choose from 'sha256', 'sha256_cbor')"),
    (["-tp", "two"], "argument --tensor-parallel-size/-tp: invalid int value: 'two'"),
    (["--seed", "x"], "argument --seed: Value x cannot be converted to <class 'int'>."),
    (["--block-size", "7"], "argument --block-size: invalid choice: 7 (choose from 1, 8, 16, 32, 64, 128, 256)"),
    (["--max-model-len"], "argument --max-model-len: expected one argument"),
])
def test_argparse_refusals_carry_argparse_text(argv: list[str], message: str) -> None:
    """A value vLLM's argparse refuses is refused at parse with argparse's own words (the version's types and choices)."""
    with pytest.raises(postinit.InputError) as e:
        postinit.resolve(argv=argv)
    assert (e.value.stage, e.value.error, e.value.vllm_message) == ("parse", "ArgumentError", message)
