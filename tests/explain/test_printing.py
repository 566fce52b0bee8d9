"""Library objects print well: str() is the CLI's plain text, repr() one line, rich and notebooks render them."""

from __future__ import annotations

import io
import re

from rich.console import Console
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app

runner = CliRunner()


def _rich_text(obj: object, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(obj)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_str_of_a_diff_is_what_postinit_diff_prints() -> None:
    """`str(postinit.diff(a, b))` is the text `postinit diff A B` prints, and rich prints the same."""
    d = postinit.diff("", "--enforce-eager")
    res = runner.invoke(cli_app, ["diff", "", "--enforce-eager"])
    assert res.exit_code == 0
    assert res.output.rstrip("\n") == str(d) == _rich_text(d)
    assert str(d).splitlines()[0].startswith("a = (no flags)")
    assert repr(d) == "<ConfigDiff a='(no flags)' b='--enforce-eager': 11 fields differ · 1 rules started · 4 stopped>"


def test_what_if_repr_is_one_line_and_str_is_the_cli_text() -> None:
    """`repr(WhatIf)` is one short line (it was 145 KB); `str()` is what `postinit what-if` prints."""
    w = postinit.what_if(set={"model_config.enforce_eager": True})
    assert repr(w) == ("<WhatIf model_config.enforce_eager=true: 11 fields differ · 1 rules started · 4 stopped · ok>")
    res = runner.invoke(cli_app, ["what-if", "--set", "model_config.enforce_eager=true"])
    assert res.exit_code == 0 and res.output.rstrip("\n") == str(w)


def test_resolution_repr_is_one_line_and_rich_renders_the_resolve_report() -> None:
    """`repr(Resolution)` stays one line; rich renders it as `postinit resolve` does; notebooks get HTML."""
    r = postinit.resolve()
    assert "\n" not in repr(r) and len(repr(r)) < 200
    assert repr(r).startswith("<Resolution meta-llama/Llama-3.1-8B-Instruct · vLLM d7fb10c57 · platform h100 · ok · hash ")
    res = runner.invoke(cli_app, ["resolve"])
    assert res.exit_code == 0 and res.output.rstrip("\n") == _rich_text(r)
    page = r._repr_html_()
    assert page.startswith("<pre") and "value(s) changed from your input" in re.sub(r"<[^>]+>", "", page)


def test_why_and_why_not_print_as_the_cli_does() -> None:
    """`print(r.why(p))` and `print(r.why_not(p, v))` are `postinit why` / `why-not`; repr is one line."""
    r = postinit.resolve(argv=["--enforce-eager"])
    node = r.why("compilation_config.cudagraph_mode")
    res = runner.invoke(cli_app, ["why", "compilation_config.cudagraph_mode", "--enforce-eager"])
    assert res.exit_code == 0 and res.output.rstrip("\n") == str(node) == _rich_text(node)
    assert str(node).splitlines()[0].startswith("compilation_config.cudagraph_mode = NONE — ")
    assert "model_config.enforce_eager = true  ← your --enforce-eager" in str(node)
    assert re.fullmatch(r"<WhyNode compilation_config\.cudagraph_mode = NONE ← rule \S+ · \d+ values below>", repr(node))
    w = r.why_not("compilation_config.cudagraph_mode", "FULL")
    assert "\n" not in repr(w) and str(w).startswith("compilation_config.cudagraph_mode is NONE, not FULL.")
    assert _rich_text(w) == str(w)
