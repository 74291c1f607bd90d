"""The packages' layers hold: each imports only from those below it (import-linter's layers
contract in pyproject.toml), and no two modules import each other, however indirectly
(imports made inside functions included)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def laid_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sources laid out as installed (``trample/models``, ``trample/solver``): the
    import graph is read from files by their package path."""
    top = tmp_path_factory.mktemp("layout")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "_root", "_native_build*")
    shutil.copytree(ROOT / "models", top / "trample" / "models", ignore=ignore)
    shutil.copytree(ROOT / "solver", top / "trample" / "solver", ignore=ignore)
    for file in (ROOT / "solver" / "_root").glob("*.py"):
        shutil.copyfile(file, top / "trample" / file.name)
    return top


def test_the_layers_contract_is_kept(laid_out: Path) -> None:
    linter = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert linter is not None, "import-linter is not installed: pip install '.[test]'"
    done = subprocess.run([linter, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=laid_out, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(laid_out), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(
                        step)))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_itself_through_others(laid_out: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(laid_out))
    for name in [m for m in sys.modules if m == "trample" or m.startswith("trample.")]:
        monkeypatch.delitem(sys.modules, name)
    graph = grimp.build_graph("trample", cache_dir=None)
    assert len(graph.modules) > 50  # the whole tree was read, not an installed copy
    assert all(m.startswith("trample") for m in graph.modules)
    assert _circles(graph) == []


def test_the_check_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.z")
    graph.add_import(importer="a.z", imported="a.x")
    assert _circles(graph) == [["a.x", "a.y", "a.z"]]
