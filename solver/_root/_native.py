"""Loads the compiled build of trample's hot modules in place of their sources.

``python -m trample.solver.native build`` compiles the modules of the solving path with
mypyc into C extensions and keeps them, with a manifest, in a folder of their own
(:func:`build_dir`). When ``trample`` is imported, :func:`install` reads that manifest and,
only if the build is whole and was made from exactly the sources beside it (their SHA-256)
for this interpreter, puts a finder first on ``sys.meta_path`` that loads those modules
from the build. Otherwise, or with ``TRAMPLE_PURE=1`` in the environment, nothing changes
and every module runs from its source: a stale build is never used, and it is all or
nothing, because compiled modules call each other directly and one module run from a
newer source would be bypassed by the others.

Kept small and free of third-party imports: it runs on every ``import trample``.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from pathlib import Path
    from types import ModuleType

PURE_ENV = "TRAMPLE_PURE"
"""Set to ``1`` to run every module from its source even where a compiled build exists."""
DIR_ENV = "TRAMPLE_COMPILED_DIR"
"""Where the compiled build is kept, if not in :func:`default_build_dir`."""
MANIFEST = "manifest.json"
FORMAT = 1
FOLDER = "_native_build"
"""The build's folder inside the ``trample`` package, by default."""

state: dict[str, object] = {"compiled": False, "reason": "not looked at yet", "modules": []}
"""What :func:`install` found: ``compiled`` (whether the build is in use), ``reason``
(why not, or where it is) and ``modules`` (the compiled modules' names)."""


def package_dir() -> Path:
    """The folder of the ``trample`` package itself."""
    from pathlib import Path

    return Path(__file__).resolve().parent


def default_build_dir() -> Path:
    return package_dir() / FOLDER


def build_dir() -> Path:
    """Where the compiled build is kept: ``$TRAMPLE_COMPILED_DIR`` or, by default, a
    folder inside the ``trample`` package."""
    from pathlib import Path

    where = os.environ.get(DIR_ENV)
    return Path(where).resolve() if where else default_build_dir()


def interpreter_tag() -> str:
    """What a build must have been made for: this Python's extension suffix."""
    import sysconfig

    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def check(where: Path) -> tuple[dict[str, Path] | None, str]:
    """The modules of the build in ``where`` and their files, if it can be used, or
    ``None`` and why not."""
    import json

    manifest_path = where / MANIFEST
    if not manifest_path.is_file():
        return None, f"no compiled build in {where}"
    try:
        manifest = json.loads(manifest_path.read_text("utf-8"))
        if manifest.get("format") != FORMAT:
            return None, f"{manifest_path}: made by another version of the build command"
        if manifest.get("interpreter") != interpreter_tag():
            return None, (f"{manifest_path}: built for {manifest.get('interpreter')}, "
                          f"this Python needs {interpreter_tag()}")
        modules = {str(name): where / str(file)
                   for name, file in dict(manifest["modules"]).items()}
        sources = dict(manifest["sources"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, f"{manifest_path}: unreadable ({exc})"
    home = package_dir()
    for relative, expected in sources.items():
        source = (home / str(relative)).resolve()
        try:
            found = digest(source)
        except OSError:
            return None, f"the compiled build's source {source} is missing"
        if found != expected:
            return None, (f"{source} changed since the compiled build was made "
                          "(rebuild: python -m trample.solver.native build)")
    missing = [str(file) for file in modules.values() if not file.is_file()]
    if missing:
        return None, f"the compiled build is incomplete: {missing[0]} is missing"
    return modules, f"compiled build in {where}"


class Finder:
    """Finds the compiled modules in the build, and nothing else (a finder for
    ``sys.meta_path``)."""

    def __init__(self, modules: dict[str, Path]) -> None:
        self.modules = modules

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        file = self.modules.get(fullname)
        if file is None:
            return None
        from importlib.util import spec_from_file_location

        return spec_from_file_location(fullname, file)


def install() -> None:
    """Use the compiled build if it exists and matches its sources (see the module's
    text); record in :data:`state` what was found."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        state.update(compiled=False, reason=f"{PURE_ENV} is set", modules=[])
        return
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), FOLDER)
    if not os.environ.get(DIR_ENV) and not os.path.exists(os.path.join(default, MANIFEST)):
        # The usual case, answered without importing anything.
        state.update(compiled=False, reason=f"no compiled build in {default}", modules=[])
        return
    where = build_dir()
    modules, reason = check(where)
    if modules is None:
        state.update(compiled=False, reason=reason, modules=[])
        if (where / MANIFEST).exists():
            # A build that exists but cannot be used is worth a word: the user made it.
            print(f"trample: not using the compiled build: {reason}", file=sys.stderr)
        return
    if any(name in sys.modules for name in modules):
        state.update(compiled=False, modules=[],
                     reason="some modules were imported before the compiled build was found")
        return
    sys.meta_path.insert(0, Finder(modules))
    state.update(compiled=True, reason=reason,
                 modules=sorted(name for name in modules if not name.endswith("__mypyc")))
