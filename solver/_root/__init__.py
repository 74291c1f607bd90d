"""trample: rules-exact combat damage assignment for Magic: The Gathering.

``trample.models`` holds the combat and game models; ``trample.solver`` the solver, the
command line and the JSON-RPC engine. This folder is the ``trample`` package itself
(``[tool.setuptools.package-dir]`` maps it), so that ``trample.__version__`` exists.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    # The one source of the version is pyproject.toml, read back from the installed
    # metadata: ``trample --version`` and ``importlib.metadata`` always agree with it.
    __version__: str = version("trample")
except PackageNotFoundError:  # not installed (the folders imported some other way)
    __version__ = "0+unknown"

__all__ = ["__version__"]
