#!/usr/bin/env python3
"""Dump the flags vLLM's own ``vllm serve`` argument parser accepts, in whichever oracle venv runs it.

``engine``: the parser the oracle parses argv cases with (``FlexibleArgumentParser`` +
``AsyncEngineArgs.add_cli_args``, the ``vllm serve`` path; ``EngineArgs.add_cli_args`` for
``LLM(...)`` is the same set), built after the oracle's simulated-platform set-up, read action by
action. ``frontend``: the flags ``vllm serve``'s own parser (``make_arg_parser``) adds to those
(the OpenAI server's: ``--port``, ``--config``, ``--headless``, ...); the optional modules its import
needs and the venv lacks are empty stand-ins during that import (listed in the output).
``async_only``: the engine flags ``EngineArgs.add_cli_args`` lacks (``LLM(...)``'s parser).

For each flag (``index``: its place in the parser): its option strings (``names``: every spelling the
parser registers, hidden ones included; ``shown``, when it differs: the ones argparse names in an error), argparse kind (``bool``
for ``BooleanOptionalAction`` and 0.34.0's enable/disable pairs, with ``off`` the spellings that
switch it off; ``store_true``; ``store``), ``nargs``, its ``type`` callable described
(``optional(int)``) and named as argparse names it in an error (``type_name``), its ``choices``
(in order: argparse lists them so in its error), its ``default`` and whether it is marked
``deprecated`` (vLLM warns when a deprecated flag's value is not its default). Introspection only; nothing
of vLLM is copied. The output is ``postinit/schema/data/flags-<version>.json``, which
``tests/schema/test_flag_tables.py`` holds postinit's flag table to.

    cd /tmp/oracle   # (0.34.0: cd tests/golden, oracle/ holds its vllm_oracle.py)
    PYTHONHASHSEED=0 $HOME/oracle-venv-seed-full/bin/python $R/tests/golden/oracle/flags_dump.py \
        --oracle . d7fb10c57 > $R/postinit/schema/data/flags-d7fb10c57.json
    PYTHONHASHSEED=0 $HOME/oracle-venv/bin/python $R/tests/golden/oracle/flags_dump.py \
        --oracle . 0.11.1 > $R/postinit/schema/data/flags-0.11.1.json
    cd $R/tests/golden && PYTHONHASHSEED=0 $HOME/oracle-venv-0.34.0/bin/python oracle/flags_dump.py \
        --oracle oracle 0.34.0 > ../../postinit/schema/data/flags-0.34.0.json
"""
from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import os
import sys
import types


def _type_name(t) -> str | None:
    """The type callable, named: a closure vLLM builds (``optional_type(int)``, ``parse_type(json.loads)``,
    the dataclass parser of a config class) is named by what it wraps: ``optional(int)``, ``parse(loads)``,
    ``dataclass(CompilationConfig)``."""
    if t is None:
        return None
    name = getattr(t, "__name__", None)
    if name is None:  # functools.partial, a bound method, a TypeAdapter ...
        func = getattr(t, "func", None)
        return _type_name(func) if func is not None else type(t).__name__
    cells = [c.cell_contents for c in (getattr(t, "__closure__", None) or ()) if _filled(c)]
    cells += list(getattr(t, "__defaults__", None) or ())
    inner = [x for x in cells if callable(x) or isinstance(x, type)]
    if name == "_optional_type" and inner:
        return f"optional({_type_name(inner[0])})"
    if name == "_parse_type" and inner:
        return f"parse({_type_name(inner[0])})"
    if name == "parse_dataclass" and inner:
        return f"dataclass({getattr(inner[0], '__name__', inner[0])})"
    return str(name)


def _filled(cell) -> bool:
    try:
        return cell.cell_contents is not _UNSET
    except ValueError:  # an empty cell
        return False


_UNSET = object()


def _kind(action: argparse.Action) -> str:
    if isinstance(action, argparse.BooleanOptionalAction):
        return "bool"
    name = type(action).__name__
    if name == "_StoreTrueAction":
        return "store_true"
    if name == "_StoreFalseAction":
        return "store_false"
    if name == "_StoreAction":
        return "store"
    return name


def _plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _flag(action: argparse.Action, deprecated: set, index: int, registered: dict) -> dict:
    names = [o for o, a in registered.items() if a is action]  # hidden spellings too (0.34.0: --no-enable-x)
    out = {
        "index": index,
        "names": names,
        "kind": _kind(action),
        "nargs": _plain(action.nargs),
        "type": _type_name(action.type),
        "type_name": None if action.type is None else getattr(action.type, "__name__", repr(action.type)),
        "choices": None if action.choices is None else [_plain(c) for c in action.choices],
        "default": _default(action.default),
        "deprecated": bool(getattr(action, "deprecated", False)) or action in deprecated,
    }
    if list(action.option_strings) != names:
        out["shown"] = list(action.option_strings)  # how argparse names the flag in an error
    if out["kind"] == "bool":  # which spellings switch it off (--no-x; --disable-x in 0.34.0)
        off = []
        for name in names:
            ns = argparse.Namespace()
            action(None, ns, None, name)
            if getattr(ns, action.dest) is False:
                off.append(name)
        out["off"] = off
    return out


def _default(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)) and all(x is None or isinstance(x, (bool, int, float, str)) for x in v):
        return list(v)
    return f"<{type(v).__name__}>"  # a config object: only its class


def _stand_in(name: str) -> type:
    def schema(cls, source, handler):  # pydantic models that name the class in a field type
        from pydantic_core import core_schema

        return core_schema.any_schema()

    return type(name, (), {"__init__": lambda self, *a, **k: None,
                           "__class_getitem__": classmethod(lambda c, i: c),
                           "__get_pydantic_core_schema__": classmethod(schema)})


class _Missing(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: a module no other finder finds is an empty stand-in (recorded).

    The server's argument module imports the structured-output and tool-parser backends, some of which
    the oracle venv does not install; defining the flags reads none of them."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "vllm":
            return None
        self.names.append(name)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _stand_in  # any name is a class that takes anything
        return module

    def exec_module(self, module) -> None:
        pass


def dump(oracle_dir: str, version: str) -> dict:
    sys.path.insert(0, os.path.abspath(oracle_dir))
    import vllm_oracle as O  # noqa: N812  (the oracle of this venv)

    O.worker_setup(O.normalize_platform("cuda:90"), {})
    import vllm

    out: dict = {"version": version, "vllm": vllm.__version__}
    # the oracle's parser: vllm serve's engine flags (AsyncEngineArgs), what every argv case is parsed with
    parser = O._argv_parser(O._engine_args_class("OPENAI_API_SERVER"))
    # FlexibleArgumentParser keeps the deprecated actions in a set (on the class before 0.34.0, the instance since)
    deprecated = getattr(parser, "_deprecated", set())
    actions = [a for a in parser._actions if a.option_strings and a.dest != "help"]
    engine = {a.dest: _flag(a, deprecated, i, parser._option_string_actions) for i, a in enumerate(actions)}
    out["engine"] = dict(sorted(engine.items()))
    # LLM(...) and the other usage contexts parse with EngineArgs: AsyncEngineArgs' own flags are unknown there
    sync = O._argv_parser(O._engine_args_class("LLM_CLASS"))
    out["async_only"] = sorted(set(engine) - {a.dest for a in sync._actions})
    # vllm serve's own parser adds the OpenAI server's flags (FrontendArgs, --config, --headless, ...)
    missing = _Missing()
    sys.meta_path.append(missing)
    try:
        try:
            from vllm.entrypoints.common.cli_args import make_arg_parser  # 0.34.0
        except ImportError:
            from vllm.entrypoints.openai.cli_args import make_arg_parser
        from vllm.utils.argparse_utils import FlexibleArgumentParser

        serve = make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
    finally:
        sys.meta_path.remove(missing)
        for name in missing.names:
            sys.modules.pop(name, None)
    more = [a for a in serve._actions if a.option_strings and a.dest != "help" and a.dest not in engine]
    frontend = {a.dest: _flag(a, getattr(serve, "_deprecated", deprecated), len(engine) + i,
                              serve._option_string_actions) for i, a in enumerate(more)}
    out["frontend"] = dict(sorted(frontend.items()))
    out["frontend_import_stand_ins"] = sorted({n.split(".")[0] for n in missing.names})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", default=".", help="the folder holding this venv's vllm_oracle.py")
    ap.add_argument("version", help="the version name postinit gives this vLLM (d7fb10c57, 0.11.1, 0.34.0)")
    args = ap.parse_args(argv)
    data = dump(args.oracle, args.version)
    sys.stdout.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
