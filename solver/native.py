"""``python -m trample.solver.native``: compile the solving path's modules with mypyc.

trample is pure Python and needs no compiler. Where one is at hand, this command builds
the modules that reading, the legal space and the solver run through (:data:`MODULES`)
as C extensions with mypyc, from the very same sources, and keeps them in a folder of
their own with a manifest of the sources' SHA-256. ``import trample`` uses that build
only while it matches the sources beside it, for this interpreter, all or nothing
(``trample._native``); ``TRAMPLE_PURE=1`` runs the sources regardless. The answers are the
same either way; the compiled build is about twice as fast on small and coupled combats.

    python -m trample.solver.native build     # compile (about a minute on 2 cores)
    python -m trample.solver.native status    # which modules run compiled, or why none
    python -m trample.solver.native clean     # remove the build

Building needs mypy (which brings mypyc), setuptools and a C compiler: ``pip install
'.[native]'`` in a clone of trample.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from trample import _native

MODULES: tuple[str, ...] = (
    "trample.models.document.combat",
    "trample.models.document.errors",
    "trample.models.document.keywords",
    "trample.models.document.outcomes",
    "trample.models.document.reading",
    "trample.models.document.rule_index",
    "trample.models.document.tiny",
    "trample.solver.actions.plan_numbers",
    "trample.solver.optimize.cancel",
    "trample.solver.optimize.fastpath",
    "trample.solver.optimize.greedy",
    "trample.solver.optimize.kill_bound",
    "trample.solver.optimize.lone_groups",
    "trample.solver.optimize.milp",
    "trample.solver.optimize.objectives",
    "trample.solver.optimize.rows",
    "trample.solver.optimize.search_settings",
    "trample.solver.optimize.solve",
    "trample.solver.optimize.solve_numbers",
    "trample.solver.interface.requests",
    "trample.solver.interface.solve_lane",
    "trample.solver.interface.spaces",
    "trample.solver.rules.assignment",
    "trample.solver.rules.choosers",
    "trample.solver.rules.legal_space",
    "trample.solver.rules.validate",
    "trample.solver.rules.validate_many",
)
"""The modules compiled: those that reading a combat, its legal space and the solver
run through, and the API's path to them that takes no argument from the caller unchecked
(``requests``, ``spaces``, ``choosers``). Left out: those mypyc cannot compile as they are
(``trample.models.document.assignment`` subclasses ``Mapping``,
``trample.solver.optimize.cpsat`` subclasses OR-Tools' model); the game model
(``trample.models.game``), whose frozen states must copy and pickle as Python objects do;
``trample.solver.interface.results``, whose typed dictionaries' optional keys a compiled
module does not keep; ``trample.solver.interface.api``, whose functions take what
JSON-like input may hold (a NumPy integer for ``limit``) where their signatures name a
type, which a compiled function would enforce, and whose signatures callers read; and
those whose time is spent elsewhere (the command line,
``serve``'s input and output, whose functions the tests replace by name, which a
compiled caller would not see). ``trample.solver.optimize.milp`` is in: reading a part's
model into HiGHS's rows and checking its answer is Python work on every search."""
GROUP = "trample_native"
"""The name stem of the shared library of the build (``trample_native__mypyc``, a module
found only by the build's finder)."""


class BuildError(Exception):
    """The build could not be made; the message says why."""


class BuildRefused(BuildError):
    """The build was not attempted: the folder named holds something else (a usage
    error, exit status 2)."""


def _refuse_foreign(target: Path) -> None:
    """Refuse ``target`` when it exists and is neither a build (it has a manifest) nor an
    empty folder: a build replaces its folder whole, and nothing else may be lost."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_dir() and ((target / _native.MANIFEST).is_file()
                            or next(target.iterdir(), None) is None):
        return
    raise BuildRefused(f"{target} holds no compiled build (no {_native.MANIFEST}): a build "
                       "replaces its folder whole, so it is left as it is (name a new or "
                       "empty folder)")


def _new_stage(parent: Path) -> Path:
    """A new, empty folder in ``parent`` to assemble a build in, with the mode any folder
    made there gets (as an installed package's folders: readable by the users who may
    run it). A temporary folder's own mode is 0700, which would hide the build from
    every other user once it is in place."""
    stage = Path(tempfile.mkdtemp(prefix=".native-new-", dir=parent))
    probe = stage / "mode"
    probe.mkdir()  # the umask's mode, read without changing the process's umask
    os.chmod(stage, probe.stat().st_mode & 0o7777)
    probe.rmdir()
    return stage


def _package_files() -> tuple[Path, dict[str, Path]]:
    """The ``trample`` package's folder, and the source of every module under
    ``trample.models`` and ``trample.solver`` (mypy reads them all to compile any)."""
    home = _native.package_dir()
    sources: dict[str, Path] = {}
    for package in ("trample", "trample.models", "trample.solver"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise BuildError(f"cannot find the package {package}")
        folder = Path(next(iter(spec.submodule_search_locations)))
        # The package's modules and those of its sub-packages (``trample`` itself has none).
        files = folder.glob("*.py") if package == "trample" else folder.rglob("*.py")
        for file in sorted(files):
            parts = file.relative_to(folder).with_suffix("").parts
            if any(p.startswith((".", "_root", "_native")) for p in parts[:-1]):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            sources[".".join((package, *parts))] = file.resolve()
    return home, sources


def compiler() -> str:
    """The C compiler a build would run: ``$CC``, else the one this Python was built with."""
    return (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]


def _requirements() -> None:
    for needed in ("mypyc", "setuptools"):
        if importlib.util.find_spec(needed) is None:
            raise BuildError(f"building needs mypy (mypyc) and setuptools: {needed} is not "
                             "installed (pip install '.[native]' in a clone of trample)")
    cc = compiler()
    if shutil.which(cc) is None:
        raise BuildError(f"building needs a C compiler: {cc!r} is not on PATH "
                         "(trample runs from its sources without one)")


SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name="trample-native", ext_modules=mypycify({paths!r}, opt_level="3",
      multi_file=True, group_name={group!r}))
"""


def build(modules: Sequence[str] = MODULES, where: Path | None = None, *,
          log: bool = True) -> Path:
    """Compile ``modules`` and put the build in ``where`` (by default where ``import
    trample`` looks, :func:`trample._native.build_dir`), replacing any build there only
    once the new one is whole. Returns the build's folder."""
    _requirements()
    target = (where or _native.build_dir()).resolve()
    home, sources = _package_files()
    unknown = [name for name in modules if name not in sources]
    if unknown:
        raise BuildError(f"no such module to compile: {unknown[0]}")
    _refuse_foreign(target)  # refused now, not after compiling
    target.parent.mkdir(parents=True, exist_ok=True)  # fails now, not after compiling
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="trample-native-") as tmp:
        root = Path(tmp)
        for name, source in sources.items():
            file = root / Path(*name.split(".")) / "__init__.py" if source.stem == "__init__" \
                else root / Path(*name.split(".")).with_suffix(".py")
            file.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, file)
        (root / "trample" / "py.typed").touch()
        (root / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
        paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in modules]
        (root / "setup.py").write_text(SETUP.format(paths=paths, group=GROUP))
        if log:
            print(f"compiling {len(modules)} modules with mypyc (about a minute on 2 "
                  "cores)...", file=sys.stderr, flush=True)
        command = [sys.executable, "setup.py", "build_ext", "--inplace",
                   "--parallel", str(os.cpu_count() or 1)]
        done = subprocess.run(command, cwd=root, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, check=False)
        if done.returncode != 0:
            lines = done.stdout.splitlines()
            errors = [line for line in lines if "error" in line.lower()
                      and not line.startswith(("gcc ", "cc ", "clang "))]
            shown = "\n".join((errors or lines)[-20:])
            raise BuildError(f"mypyc failed (exit status {done.returncode}):\n{shown}")
        built: dict[str, str] = {}
        suffix = _native.interpreter_tag()
        for name in [*modules, f"{GROUP}__mypyc"]:
            file = Path(*name.split(".")).with_suffix("")
            so = root / file.parent / f"{file.name}{suffix}"
            if not so.is_file():
                raise BuildError(f"mypyc made no {so.name} for {name}")
            built[name] = str(so.relative_to(root))
        stage = _new_stage(target.parent)
        try:
            for relative in built.values():
                (stage / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / relative, stage / relative)
            manifest = {
                "format": _native.FORMAT, "interpreter": suffix, "modules": built,
                "sources": {os.path.relpath(file, home): _native.digest(file)
                            for file in sources.values()},
            }
            (stage / _native.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
            _replace(stage, target)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
    if log:
        print(f"built {len(modules)} modules in {time.monotonic() - started:.0f} s: "
              f"{target}", file=sys.stderr)
    return target


def _replace(stage: Path, target: Path) -> None:
    """Put the folder ``stage`` at ``target``: the old build is moved aside first (under a
    new name of its own: no folder beside it is touched) and removed only once the new
    one is in place. A ``target`` that is not a build is refused, not replaced."""
    _refuse_foreign(target)
    old = target.with_name(f".native-old-{secrets.token_hex(8)}")
    if target.exists():
        target.rename(old)
    try:
        stage.rename(target)
    except OSError:
        if old.exists() and not target.exists():
            old.rename(target)  # the old build back in place: nothing is lost
        raise
    shutil.rmtree(old, ignore_errors=True)


def clean(where: Path | None = None) -> bool:
    """Remove the build; whether there was one."""
    target = (where or _native.build_dir()).resolve()
    if not target.exists():
        return False
    if not (target / _native.MANIFEST).is_file():
        raise BuildError(f"{target} holds no compiled build (no {_native.MANIFEST}); "
                         "left as it is")
    shutil.rmtree(target)
    return True


def status(where: Path | None = None) -> dict[str, object]:
    """Whether this process runs the compiled build, and why not or which modules; with
    ``where``, whether the build there could be used instead."""
    if where is None:
        return dict(_native.state)
    modules, reason = _native.check(where.resolve())
    return {"usable": modules is not None, "reason": reason,
            "modules": sorted(name for name in modules or () if not name.endswith("__mypyc"))}


def describe() -> str:
    """In a few words, which build this process runs (for reports)."""
    state = _native.state
    if state["compiled"]:
        modules = state["modules"]
        count = len(modules) if isinstance(modules, list) else 0
        return f"compiled build (mypyc, {count} modules)"
    return f"pure Python ({state['reason']})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m trample.solver.native",
        description="Compile trample's solving path with mypyc (optional: trample runs "
                    "from its sources without it). The build is used only while it "
                    "matches its sources; TRAMPLE_PURE=1 runs the sources regardless.")
    parser.add_argument("command", choices=("build", "status", "clean"))
    parser.add_argument("--dir", type=Path, default=None,
                        help=f"where the build is kept (default: ${_native.DIR_ENV} or "
                             "a folder inside the trample package)")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            build(where=args.dir)
        elif args.command == "clean":
            print("removed" if clean(args.dir) else "no build to remove")
        else:
            print(json.dumps(status(args.dir), indent=1))
    except BuildError as exc:
        print(f"trample: {exc}", file=sys.stderr)
        usage = args.command != "build" or isinstance(exc, BuildRefused) or "needs" in str(exc)
        return 2 if usage else 1
    except OSError as exc:
        where = args.dir or _native.build_dir()
        print(f"trample: cannot {args.command} the compiled build in {where}: "
              f"{exc.strerror or exc} (--dir or ${_native.DIR_ENV} names another folder)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
