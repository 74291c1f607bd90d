"""trample: rules-exact combat damage assignment for Magic: The Gathering.

``trample.models`` holds the combat and game models; ``trample.solver`` the solver, the
command line and the JSON-RPC engine. This folder is the ``trample`` package itself
(``[tool.setuptools.package-dir]`` maps it), so that ``trample.__version__`` exists.
"""

from __future__ import annotations

from typing import Any

from trample import _native

__all__ = ["__version__", "api"]

# The compiled build of the hot modules, if one was made and matches its sources
# (``python -m trample.solver.native``); otherwise every module runs from its source.
_native.install()


def __getattr__(name: str) -> Any:
    # ``from trample import api``: the dict-in/dict-out API (trample.solver.interface.api),
    # imported on first use so that ``import trample`` stays cheap.
    if name == "api":
        from trample.solver.interface import api

        return api
    # The one source of the version is pyproject.toml, read back from the installed
    # metadata, so that ``trample --version`` and ``importlib.metadata`` always agree.
    # Looked up on first use: importing importlib.metadata costs tens of milliseconds,
    # which every ``import trample.solver`` would otherwise pay.
    if name != "__version__":
        raise AttributeError(f"module 'trample' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("trample")
    except PackageNotFoundError:  # not installed (the folders imported some other way)
        found = "0+unknown"
    globals()["__version__"] = found
    return found
