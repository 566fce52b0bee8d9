"""Add a vLLM version: write its delta skeleton, registry entry, env table and the differences to fill in.

    python -m postinit.rules.new_version 0.35.0 --parent 0.34.0 --venv $HOME/oracle-venv-0.35.0 \\
        [--parent-venv $HOME/oracle-venv-0.34.0] [--title "vLLM 0.35.0 (PyPI release, 2026-..)"] [--dry-run]

What it writes (docs/writing-rules.md, "Adding a vLLM version", is the whole workflow):

* ``postinit/rules/data/versions.json``: the registry entry (every version list derives from it);
* ``postinit/rules/v<name>.py``: the delta module, ``DELTA = Delta(...)`` with the version fact
  ``vllm_version`` set and, read from the venv's vLLM, the flags its parser has that the parent's does
  not (and the reverse) and the config fields its dataclasses have that the parent's do not (and the
  reverse), each list ready to keep or move (see the comments it writes);
* ``postinit/schema/data/envs-<name>.json``: the environment table generated from the venv's
  ``vllm/envs.py`` (``tests/golden/gen_env_table.py --dir``; without ``--venv`` the parent's, copied);
* ``tests/golden/divergences-<name>.json`` (empty) and the folder ``tests/golden/expected-<name>/``,
  with the oracle commands that fill it printed at the end (the parity test runs every version of the
  registry against its folder).

Reading the venv runs its Python (``<venv>/bin/python``) on a small script that imports vLLM and prints
facts (argparse destinations, dataclass field names) as JSON: no vLLM code is copied.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from postinit.rules import paths
from postinit.rules.versions import VERSIONS, Version

__all__ = ["main", "plan"]

ROOT = Path(__file__).resolve().parents[2]
"""The repository (a source checkout: the command writes files of it)."""

_PROBE = r'''
import argparse, dataclasses, json, sys
out = {"flags": None, "fields": None, "version": None, "errors": []}
try:
    import vllm
    out["version"] = getattr(vllm, "__version__", None)
except Exception as e:  # noqa: BLE001
    out["errors"].append(f"import vllm: {e!r}")
try:  # the parser asks the platform for defaults: a CPU one, whatever this host has
    import vllm.platforms as P
    from vllm.platforms.cpu import CpuPlatform
    P._current_platform = CpuPlatform()
except Exception as e:  # noqa: BLE001
    out["errors"].append(f"platform: {e!r}")
try:
    from vllm.engine.arg_utils import AsyncEngineArgs
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
    out["flags"] = sorted({a.dest for a in parser._actions if a.dest not in ("help", argparse.SUPPRESS)})
except Exception as e:  # noqa: BLE001
    out["errors"].append(f"EngineArgs parser: {e!r}")
try:
    import vllm.config as C
    names = {"model_config": "ModelConfig", "cache_config": "CacheConfig", "parallel_config": "ParallelConfig",
             "scheduler_config": "SchedulerConfig", "device_config": "DeviceConfig", "load_config": "LoadConfig",
             "lora_config": "LoRAConfig", "speculative_config": "SpeculativeConfig",
             "structured_outputs_config": "StructuredOutputsConfig",
             "observability_config": "ObservabilityConfig", "compilation_config": "CompilationConfig",
             "compilation_config.pass_config": "PassConfig", "kv_transfer_config": "KVTransferConfig",
             "kv_events_config": "KVEventsConfig"}
    fields = {}
    for prefix, cls_name in names.items():
        cls = getattr(C, cls_name, None)
        if cls is None or not dataclasses.is_dataclass(cls):
            continue
        fields[prefix] = sorted(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
    out["fields"] = fields
except Exception as e:  # noqa: BLE001
    out["errors"].append(f"vllm.config: {e!r}")
sys.stdout.write("\n@@postinit-probe@@" + json.dumps(out) + "\n")
'''


def module_name(name: str) -> str:
    """``0.35.0`` -> ``v0_35_0`` (the delta module's name)."""
    return "v" + re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_")


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python*/site-packages/vllm"))
    if not found:
        raise SystemExit(f"error: no vllm package under {venv}/lib/python*/site-packages")
    return found[0]


def probe(venv: Path) -> dict[str, Any]:
    """What the venv's vLLM has: its version, its EngineArgs parser's destinations, its configs' fields."""
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-c", _PROBE], capture_output=True, text=True, timeout=600,
                          env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "HOME": str(Path.home())}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: {python} could not be probed: {done.stderr.strip().splitlines()[-1:]}")
    lines = [line for line in done.stdout.splitlines() if line.startswith("@@postinit-probe@@")]
    if not lines:
        raise SystemExit(f"error: {python} printed no probe result: {done.stderr.strip().splitlines()[-3:]}")
    data: dict[str, Any] = json.loads(lines[-1].removeprefix("@@postinit-probe@@"))
    return data


def _parent_flags(parent: Version) -> set[str]:
    """The parent's EngineArgs flags as postinit's table has them (server flags, ``extra.*`` targets that are no
    EngineArgs field, left out: the probe reads EngineArgs' parser only)."""
    from postinit.schema.loaders.argv import FLAGS

    return {s.dest for s in FLAGS if not s.target.startswith("extra.")} - parent.absent_flags


def _parent_fields(parent: Version, prefixes: set[str]) -> dict[str, set[str]]:
    """The parent's dataclass fields as postinit's schema has them: declared fields, not the attributes vLLM
    derives (``derived``), with nested configs (``pass_config``) and the model facts (``hf_config``) named once."""
    space = paths()
    out: dict[str, set[str]] = {p: set() for p in prefixes}
    for path in space.paths:
        if path in parent.absent_paths or space.info[path].extra.get("derived"):
            continue
        for prefix in prefixes:
            if path.startswith(prefix + "."):
                out[prefix].add(path[len(prefix) + 1:].split(".", 1)[0])
    return out


def plan(name: str, parent: Version, new: dict[str, Any] | None, old: dict[str, Any] | None) -> dict[str, Any]:
    """The differences to declare: flags and fields added and removed (``new``/``old``: probes of the two vLLMs;
    without ``old`` the parent's side is postinit's own table of the parent)."""
    out: dict[str, Any] = {"flags_added": [], "flags_removed": [], "fields_added": [], "fields_removed": [],
                           "notes": []}
    if new is None:
        out["notes"].append("no --venv: the flag and field differences were not read; fill them in by hand")
        return out
    out["notes"] += [f"probe: {e}" for e in new.get("errors", [])]
    if new.get("flags") is not None:
        theirs = set(new["flags"])
        mine = set(old["flags"]) if old and old.get("flags") is not None else _parent_flags(parent)
        out["flags_added"] = sorted(theirs - mine)
        out["flags_removed"] = sorted(mine - theirs) if old and old.get("flags") is not None \
            else sorted(f for f in mine - theirs)
    if new.get("fields") is not None:
        prefixes = set(new["fields"])
        if old and old.get("fields") is not None:
            before = {p: set(v) for p, v in old["fields"].items()}
        else:
            before = _parent_fields(parent, prefixes)
        for prefix in sorted(prefixes):
            now, was = set(new["fields"][prefix]), before.get(prefix, set())
            out["fields_added"] += [f"{prefix}.{f}" for f in sorted(now - was)]
            out["fields_removed"] += [f"{prefix}.{f}" for f in sorted(was - now)]
    return out


def _tuple(items: list[str], indent: str = "        ") -> str:
    if not items:
        return "()"
    return "(\n" + "".join(f'{indent}"{i}",\n' for i in items) + indent[:-4] + ")"


def delta_source(name: str, parent: Version, diff: dict[str, Any], vllm_version: str) -> str:
    """The delta module's text: a docstring to complete and a ``DELTA`` holding the read differences."""
    notes = "".join(f"\n{n}" for n in diff["notes"])
    return f'''"""vLLM {name} as a delta over {parent.name}: what it patches, adds, replaces and drops.

Written by ``python -m postinit.rules.new_version {name} --parent {parent.name}``; complete it
(docs/writing-rules.md, "Adding a vLLM version"). Sources (``source=``) are files of the vllm=={name}
wheel (``site-packages/vllm/``); every rule or patch here carries the reference tag ``v{name}``.
{notes}
"""

from __future__ import annotations

from postinit.rules.delta import Delta, patch

__all__ = ["DELTA"]

DELTA = Delta(
    facts={{"vllm_version": "{vllm_version}"}},
    patch=(
        # one line per parent rule that decides the same way with another value, e.g.
        # patch("cache.fast-prefill-eagle", error="ValueError", source="vllm/config/vllm.py ...; v{name}"),
    ),
    # fields and flags read from vllm {name} against {parent.name}: a field added needs its schema field
    # (postinit/schema/configs.py, since="{name}") and a flag added its FlagSpec (postinit/schema/loaders/argv.py,
    # since="{name}"); a removal needs until="{parent.name}" on the field or flag. Delete what postinit does not model.
    fields_added={_tuple(diff["fields_added"])},
    fields_removed={_tuple(diff["fields_removed"])},
    flags_added={_tuple(diff["flags_added"])},
    flags_removed={_tuple(diff["flags_removed"])},
)
'''


def _write(path: Path, text: str, dry: bool) -> None:
    print(f"{'would write' if dry else 'wrote'} {path.relative_to(ROOT)}")
    if not dry:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m postinit.rules.new_version", description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="the new version's name, e.g. 0.35.0")
    ap.add_argument("--parent", required=True, help="the version it is a delta over (postinit versions)")
    ap.add_argument("--venv", type=Path, help="a venv with that vLLM installed (its envs.py, parser and configs)")
    ap.add_argument("--parent-venv", type=Path, help="a venv with the parent's vLLM (else postinit's own tables)")
    ap.add_argument("--title", help="one line for postinit versions (default: vLLM <name>)")
    ap.add_argument("--vllm-version", help="vllm.__version__ of that vLLM (default: the venv's, else the name)")
    ap.add_argument("--dry-run", action="store_true", help="print what would be written")
    args = ap.parse_args(argv)
    name: str = args.name.strip()
    if name in VERSIONS:
        ap.error(f"{name} is modelled already")
    if args.parent not in VERSIONS:
        ap.error(f"--parent {args.parent!r} is not a modelled version ({', '.join(VERSIONS)})")
    parent = VERSIONS[args.parent]
    mod = module_name(name)
    new = probe(args.venv) if args.venv else None
    old = probe(args.parent_venv) if args.parent_venv else None
    vllm_version = args.vllm_version or (new or {}).get("version") or name
    diff = plan(name, parent, new, old)

    registry = ROOT / "postinit" / "rules" / "data" / "versions.json"
    entries = json.loads(registry.read_text(encoding="utf-8"))
    entries.append({
        "name": name, "title": args.title or f"vLLM {name}", "parent": parent.name,
        "oracle": f"real vLLM: the vllm=={name} wheel (tests/golden/expected-{name})",
        "source": f"the vllm=={name} wheel (site-packages/vllm/)", "env_table": name, "golden": f"expected-{name}",
        "delta_module": f"postinit.rules.{mod}", "aliases": [f"v{name}"],
    })
    _write(registry, json.dumps(entries, indent=2, ensure_ascii=False) + "\n", args.dry_run)
    module = ROOT / "postinit" / "rules" / f"{mod}.py"
    if module.exists():
        ap.error(f"{module} exists already")
    _write(module, delta_source(name, parent, diff, vllm_version), args.dry_run)

    table = ROOT / "postinit" / "schema" / "data" / f"envs-{name}.json"
    if args.venv:
        cmd = [sys.executable, str(ROOT / "tests" / "golden" / "gen_env_table.py"), "--dir",
               str(_site_packages(args.venv)), name]
        print(("would run " if args.dry_run else "ran ") + " ".join(cmd))
        if not args.dry_run:
            subprocess.run(cmd, check=True, timeout=600)
    else:
        print(f"{'would copy' if args.dry_run else 'copied'} the parent's env table to {table.relative_to(ROOT)}")
        if not args.dry_run:
            shutil.copyfile(ROOT / "postinit" / "schema" / "data" / f"envs-{parent.env_table}.json", table)

    golden = ROOT / "tests" / "golden"
    _write(golden / f"divergences-{name}.json", "{}\n", args.dry_run)
    if not args.dry_run:
        (golden / f"expected-{name}").mkdir(exist_ok=True)
    venv = args.venv or Path(f"$HOME/oracle-venv-{name}")
    print(f"""
next (docs/writing-rules.md, "Adding a vLLM version"):
  1. real vLLM's answers for the corpus:
       PYTHONHASHSEED=0 {venv}/bin/python tests/golden/oracle/vllm_oracle.py tests/golden/cases/*.json -o /tmp/raw-{name}
       python tests/golden/strip_outputs.py /tmp/raw-{name} tests/golden/expected-{name}
  2. python -m tests.golden.parity --vllm-version {name}     # every mismatch is a decision to declare
  3. declare each in postinit/rules/{mod}.py: a fact, a patch (one line), else add / replace / drop
  4. python -m postinit.rules._versions_docs > docs/versions.md && python -m postinit.rules._docs > docs/rules.md
  5. pytest -q""")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
