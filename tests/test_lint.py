"""The code is ruff- and mypy-clean (strict typing of the installed packages' sources)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install '.[test]'")
    return found


def test_ruff() -> None:
    result = subprocess.run([tool("ruff"), "check", "models", "solver", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    # The folders install as trample.models and trample.solver: check them under the
    # names users import, without installing anything. The copy is made afresh each run
    # (a module deleted since is gone), in a folder kept between runs with mypy's cache
    # (pytest's cache folder, when there is one): mypy then checks again only what
    # changed and what depends on it, as it does in a clone.
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        tmp_path = cache.mkdir("mypy_strict")
        shutil.rmtree(tmp_path / "trample", ignore_errors=True)
    package = tmp_path / "trample"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "_root", "_native_build*")
    shutil.copytree(ROOT / "models", package / "models", ignore=ignore)
    shutil.copytree(ROOT / "solver", package / "solver", ignore=ignore)
    for file in (ROOT / "solver" / "_root").glob("*.py"):  # the trample package itself
        shutil.copyfile(file, package / file.name)
    result = subprocess.run(
        [tool("mypy"), "--strict", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / ".mypy_cache"), "--explicit-package-bases",
         "trample/models", "trample/solver"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "MYPYPATH": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr
