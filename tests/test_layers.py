"""The layers, as the README draws them: schema ← engine ← rules ← the front (library, CLI, HTTP).

* ``postinit.schema`` imports nothing of ours but the error tree;
* ``postinit.engine`` imports nothing of ours but the generic errors (it knows nothing of vLLM);
* ``postinit.rules`` imports the engine, the schema and the errors, never the front;
* no module-level import circle anywhere in the package, and none in the engine even counting the
  imports inside functions (a lazy import cannot hide a circle there; ``TYPE_CHECKING`` imports are
  for annotations only and are not counted).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1] / "postinit"
FRONT = ("postinit._api", "postinit._request", "postinit.cli", "postinit.service", "postinit.testing",
         "postinit.sweep", "postinit.audit", "postinit.render", "postinit.report", "postinit.graphs")
VLLM_INPUT_ERRORS = {"UnknownFlagError", "ModelNotFoundError", "PlatformSpecError"}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imports(path: Path, *, top_level_only: bool, runtime: bool = False) -> list[tuple[str, list[str]]]:
    """``(module, names)`` per import of ours; ``top_level_only`` skips function bodies and TYPE_CHECKING,
    ``runtime`` only TYPE_CHECKING (what runs, at import or in a call)."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = True
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                if runtime:
                    continue
                inner = True
            if top_level_only and inner:
                continue
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0 \
                    and child.module.startswith("postinit"):
                found.append((child.module, [a.name for a in child.names]))
            elif isinstance(child, ast.Import):
                found.extend((a.name, []) for a in child.names if a.name.startswith("postinit"))
            visit(child, inner)

    visit(tree, False)
    return found


def _targets(module: str, names: list[str]) -> list[str]:
    """The modules an import reaches: ``from a import b`` is ``a.b`` when that is a module."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return subs or [module]


def _layer_of(module: str) -> str:
    for layer in ("postinit.schema", "postinit.engine", "postinit.rules"):
        if module == layer or module.startswith(layer + "."):
            return layer
    return module


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("postinit.schema")])
def test_schema_imports_nothing_of_ours_but_errors(module: str) -> None:
    """The typed config graph and its loaders know no rules, no engine and no front."""
    for target, _ in _imports(MODULES[module], top_level_only=False):
        assert _layer_of(target) == "postinit.schema" or target == "postinit.errors", (module, target)


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("postinit.engine")])
def test_engine_imports_nothing_of_vllm(module: str) -> None:
    """The generic engine imports only itself and the generic errors."""
    for target, names in _imports(MODULES[module], top_level_only=False):
        assert _layer_of(target) == "postinit.engine" or target == "postinit.errors", (module, target)
        assert not VLLM_INPUT_ERRORS & set(names), (module, names)


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("postinit.rules")])
def test_rules_never_import_the_front(module: str) -> None:
    """The rulebook uses the engine, the schema and the errors; the library, CLI and service use it."""
    for target, _ in _imports(MODULES[module], top_level_only=False):
        assert not target.startswith(FRONT), (module, target)
        assert _layer_of(target) in ("postinit.rules", "postinit.engine", "postinit.schema") \
            or target == "postinit.errors", (module, target)


def test_no_module_level_import_circle() -> None:
    """Module-level imports form no cycle (a package importing its own submodules is not one)."""
    g = nx.DiGraph()
    for module, path in MODULES.items():
        for target, names in _imports(path, top_level_only=True):
            for t in _targets(target, names):
                if t != module and not module.startswith(t + "."):
                    g.add_edge(module, t)
    cycles = sorted(nx.simple_cycles(g), key=len)
    assert not cycles, f"{len(cycles)} import circle(s), e.g. {' -> '.join(cycles[0] + cycles[0][:1])}"


def _import_graph(*, top_level_only: bool, runtime: bool = False, within: str = "postinit") -> nx.DiGraph:
    g = nx.DiGraph()
    for module, path in MODULES.items():
        if not module.startswith(within):
            continue
        for target, names in _imports(path, top_level_only=top_level_only, runtime=runtime):
            for t in _targets(target, names):
                if t != module and not module.startswith(t + ".") and t.startswith(within):
                    g.add_edge(module, t)
    return g


def test_no_import_circle_in_the_engine_even_inside_functions() -> None:
    """The engine's house: run state at the bottom, the loops above it, the dispatcher above them, incremental
    re-resolution above the dispatcher.

    Counting the imports in function bodies too: the rulebook's ``resolve`` reaches the dispatcher
    lazily, and nothing the dispatcher runs imports the rulebook back.
    """
    g = _import_graph(top_level_only=False, runtime=True, within="postinit.engine")
    cycles = sorted(nx.simple_cycles(g), key=len)
    assert not cycles, f"{len(cycles)} import circle(s), e.g. {' -> '.join(cycles[0] + cycles[0][:1])}"
    # the layers, bottom up: each reaches only what is below it
    incremental = "postinit.engine._incremental"
    below = {"postinit.engine._run": {"postinit.engine._resolve", "postinit.engine._ordered",
                                      "postinit.engine._compiled", "postinit.engine._consistent",
                                      "postinit.engine._rulebook", incremental},
             "postinit.engine._ordered": {"postinit.engine._resolve", "postinit.engine._compiled", incremental},
             "postinit.engine._consistent": {"postinit.engine._resolve", incremental},
             "postinit.engine._compiled": {"postinit.engine._resolve", incremental},
             "postinit.engine._resolve": {incremental}}
    for module, above in below.items():
        reached = nx.descendants(g, module)
        assert not reached & above, (module, sorted(reached & above))


def test_the_scanner_sees_imports_of_every_kind() -> None:
    """The checks above look at real imports: top-level, in functions and under TYPE_CHECKING."""
    api = _imports(MODULES["postinit._api"], top_level_only=False)
    assert ("postinit.rules", ["rulebook"]) in api or any(t == "postinit.rules" for t, _ in api)
    nested = {t for t, _ in _imports(MODULES["postinit.engine._rulebook"], top_level_only=False)}
    top = {t for t, _ in _imports(MODULES["postinit.engine._rulebook"], top_level_only=True)}
    running = {t for t, _ in _imports(MODULES["postinit.engine._rulebook"], top_level_only=False, runtime=True)}
    assert "postinit.engine._resolve" in nested - top  # imported inside Rulebook.resolve
    assert "postinit.engine._resolve" in running
    assert "postinit.engine._run" in nested - running  # under TYPE_CHECKING only
