"""The package's import structure: no cycle among first-party modules, and the layer contracts
(pyproject.toml ``[tool.importlinter]``) hold and cover every core module.

grimp (import-linter's graph builder) finds modules by walking the package's folder, so both
run over a tree of links laid out as the installed package (as ``make imports`` does); imports
under ``if TYPE_CHECKING:`` are annotations and are not counted, and function-level imports are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
HALVES = ("live", "sim", "calibration")

CYCLES = """
import json, sys, grimp
graph = grimp.build_graph("agbench", cache_dir=None, exclude_type_checking_imports=True)
index, low, stack, on_stack, cycles = {}, {}, [], set(), []
sys.setrecursionlimit(20000)
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on_stack.add(v)
    for w in graph.find_modules_directly_imported_by(v):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        component = []
        while True:
            w = stack.pop(); on_stack.discard(w); component.append(w)
            if w == v: break
        if len(component) > 1: cycles.append(sorted(component))
for module in sorted(graph.modules):
    if module not in index: visit(module)
print(json.dumps({"modules": len(graph.modules), "cycles": cycles}))
"""


@pytest.fixture(scope="module")
def package_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``agbench/`` with live/, sim/ and calibration/ linked in, as the wheel lays them out."""
    root = tmp_path_factory.mktemp("pkgtree")
    (root / "agbench").mkdir()
    for entry in (REPO / "agbench").iterdir():
        if entry.name != "__pycache__":
            (root / "agbench" / entry.name).symlink_to(entry)
    for half in HALVES:
        (root / "agbench" / half).symlink_to(REPO / half)
    return root


def _run_in(tree: Path, *cmd: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=300)


def test_no_import_cycle_among_first_party_modules(package_tree: Path) -> None:
    done = _run_in(package_tree, sys.executable, "-c", CYCLES)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["modules"] > 200  # the whole package was read, halves included
    assert result["cycles"] == []


def test_layer_contracts_hold(package_tree: Path) -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = _run_in(package_tree, str(lint), "--no-cache", str(REPO / "pyproject.toml"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "0 broken" in done.stdout


def test_core_contract_names_every_core_module() -> None:
    """The 'core imports neither half' contract lists its sources; a core module missing from
    the list would be unchecked."""
    (contract,) = (
        c for c in PYPROJECT["tool"]["importlinter"]["contracts"] if c["name"].startswith("The core")
    )
    core = {
        f"agbench.{p.stem if p.suffix == '.py' else p.name}"
        for p in (REPO / "agbench").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").is_file())
    }
    assert sorted(contract["source_modules"]) == sorted(core - {"agbench.cli"})
