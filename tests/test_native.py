"""The optional compiled build (``python -m trample.solver.native``): it is used only while
it matches its sources, for this interpreter, all or nothing; a real build of one module
loads in place of its source and answers the same.

The whole suite's answers under the compiled build are checked by running it with a full
build in place (docs/performance.md, "The compiled build"); here, what decides whether a
build is used.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from trample import _native
from trample.models.document.combat import Creature, Player
from trample.solver import native
from trample.solver.rules.legal_space import LegalSpace, Part, Recipient, Source

SUFFIX = _native.interpreter_tag()


def _source(name: str) -> Path:
    return native._package_files()[1][name]


def _fake_build(where: Path, *, sources: dict[str, str] | None = None,
                interpreter: str = SUFFIX, fmt: int = _native.FORMAT,
                module_file: bool = True) -> Path:
    """A build folder with a manifest (the module file an empty stand-in: these tests never
    load it)."""
    where.mkdir(parents=True, exist_ok=True)
    relative = f"trample/solver/rules/validate_many{SUFFIX}"
    if module_file:
        (where / relative).parent.mkdir(parents=True, exist_ok=True)
        (where / relative).write_bytes(b"")
    home = _native.package_dir()
    source = _source("trample.solver.rules.validate_many")
    manifest = {
        "format": fmt, "interpreter": interpreter,
        "modules": {"trample.solver.rules.validate_many": relative},
        "sources": sources if sources is not None
        else {os.path.relpath(source, home): _native.digest(source)},
    }
    (where / _native.MANIFEST).write_text(json.dumps(manifest))
    return where


def test_a_build_matching_its_sources_is_used(tmp_path: Path) -> None:
    modules, reason = _native.check(_fake_build(tmp_path / "b"))
    assert modules == {"trample.solver.rules.validate_many":
                       tmp_path / "b" / f"trample/solver/rules/validate_many{SUFFIX}"}
    assert "compiled build in" in reason


def test_no_build_is_not_used(tmp_path: Path) -> None:
    modules, reason = _native.check(tmp_path)
    assert modules is None and "no compiled build" in reason


def test_a_build_from_other_sources_is_not_used(tmp_path: Path) -> None:
    home = _native.package_dir()
    changed = {os.path.relpath(_source("trample.solver.rules.validate_many"), home): "0" * 64}
    modules, reason = _native.check(_fake_build(tmp_path, sources=changed))
    assert modules is None and "changed since the compiled build" in reason
    assert "validate_many.py" in reason


def test_a_build_whose_source_is_gone_is_not_used(tmp_path: Path) -> None:
    gone = {"no_such_folder/no_such_module.py": "0" * 64}
    modules, reason = _native.check(_fake_build(tmp_path, sources=gone))
    assert modules is None and "is missing" in reason


def test_a_build_for_another_python_or_format_is_not_used(tmp_path: Path) -> None:
    modules, reason = _native.check(_fake_build(tmp_path / "a", interpreter=".cpython-39.so"))
    assert modules is None and "built for .cpython-39.so" in reason
    modules, reason = _native.check(_fake_build(tmp_path / "b", fmt=_native.FORMAT + 1))
    assert modules is None and "another version" in reason


def test_an_incomplete_or_unreadable_build_is_not_used(tmp_path: Path) -> None:
    modules, reason = _native.check(_fake_build(tmp_path / "a", module_file=False))
    assert modules is None and "incomplete" in reason
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / _native.MANIFEST).write_text("{not json")
    modules, reason = _native.check(tmp_path / "b")
    assert modules is None and "unreadable" in reason


def _state(env: dict[str, str]) -> tuple[dict[str, object], str]:
    """What ``import trample`` decided in a fresh process with ``env`` added."""
    code = ("import json, trample, trample._native as n, trample.solver.rules.validate_many as m; "
            "print(json.dumps([n.state, m.__file__]))")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, check=True, timeout=120)
    state, file = json.loads(done.stdout)
    state["file"] = file
    return state, done.stderr


def test_a_stale_build_is_said_and_the_sources_run(tmp_path: Path) -> None:
    home = _native.package_dir()
    changed = {os.path.relpath(_source("trample.solver.rules.validate_many"), home): "0" * 64}
    where = _fake_build(tmp_path, sources=changed)
    state, stderr = _state({_native.DIR_ENV: str(where), _native.PURE_ENV: ""})
    assert state["compiled"] is False
    assert str(state["file"]).endswith("validate_many.py")
    assert "not using the compiled build" in stderr and "changed since" in stderr


def test_pure_in_the_environment_runs_the_sources(tmp_path: Path) -> None:
    where = _fake_build(tmp_path)  # would be used (and fail to load) without the switch
    state, stderr = _state({_native.DIR_ENV: str(where), _native.PURE_ENV: "1"})
    assert state["compiled"] is False and state["reason"] == f"{_native.PURE_ENV} is set"
    assert str(state["file"]).endswith("validate_many.py") and stderr == ""


def test_clean_leaves_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(native.BuildError, match="holds no compiled build"):
        native.clean(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert native.clean(tmp_path / "absent") is False


def test_an_unknown_module_is_refused_before_compiling(tmp_path: Path) -> None:
    if shutil.which(native.compiler()) is None:
        pytest.skip("no C compiler here: building is refused earlier, for that")
    with pytest.raises(native.BuildError, match=r"no such module to compile: trample\.nope"):
        native.build(["trample.nope"], tmp_path / "b", log=False)
    assert not (tmp_path / "b").exists()


@pytest.mark.slow  # a minute of mypyc; the default run checks every decision on fake builds
def test_a_real_build_loads_in_place_of_the_source_and_answers_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build of one module is used in place of its source and gives the same values;
    built again in the same place, the new build replaces the old one whole. (The second
    time, mypyc's run is stood in for by the first build's own files: what is checked
    then is the staging and the replacement around it, not the compiling again.)"""
    if shutil.which(native.compiler()) is None:
        pytest.skip("no C compiler here: the compiled build cannot be made")
    where = native.build(["trample.solver.optimize.search_settings"], tmp_path / "build", log=False)
    manifest = json.loads((where / _native.MANIFEST).read_text())
    assert set(manifest["modules"]) == {"trample.solver.optimize.search_settings",
                                        f"{native.GROUP}__mypyc"}
    code = ("import json, dataclasses, trample._native as n, "
            "trample.solver.optimize.search_settings as s; "
            "print(json.dumps([n.state['compiled'], s.__file__, "
            "dataclasses.asdict(s.SearchSettings()), s.SMALL_MODEL, s.MILP_PAIRS]))")
    answers = []
    for env in ({_native.DIR_ENV: str(where), _native.PURE_ENV: ""},
                {_native.DIR_ENV: str(where), _native.PURE_ENV: "1"}):
        done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                              capture_output=True, text=True, check=True, timeout=120)
        answers.append(json.loads(done.stdout))
    (compiled, compiled_file, *compiled_values), (pure, pure_file, *pure_values) = answers
    assert compiled is True and compiled_file.endswith(SUFFIX)
    assert pure is False and pure_file.endswith("search_settings.py")
    assert compiled_values == pure_values
    # Built again in the same place: the new build replaces the old one whole.
    first = {relative: (where / relative).read_bytes()
             for relative in manifest["modules"].values()}
    compiles = []

    def compiled_again(command: list[str], cwd: Path, **kwargs: object
                       ) -> subprocess.CompletedProcess[str]:
        compiles.append(command)
        for relative, content in first.items():
            (Path(cwd) / relative).parent.mkdir(parents=True, exist_ok=True)
            (Path(cwd) / relative).write_bytes(content)
        return subprocess.CompletedProcess(command, 0, "", None)

    (where / "left_over.txt").write_text("from the old build")
    with monkeypatch.context() as patch:
        patch.setattr(native.subprocess, "run", compiled_again)
        assert native.build(["trample.solver.optimize.search_settings"], where, log=False) == where
    assert len(compiles) == 1 and "build_ext" in compiles[0]
    assert sorted(p.name for p in where.parent.iterdir()) == ["build"]
    assert not (where / "left_over.txt").exists()
    assert json.loads((where / _native.MANIFEST).read_text())["modules"] == \
        manifest["modules"]
    modules, _ = _native.check(where)
    assert modules is not None and set(modules) == set(manifest["modules"])


@pytest.mark.sources  # (compiled, the constructor refuses the stand-in values' types)
@pytest.mark.parametrize("cls", [Creature, Player, Recipient, Source, Part])
def test_a_written_out_constructor_takes_the_fields_in_order_and_sets_each(
        cls: type) -> None:
    """Creature, Player, Recipient, Source and Part write their constructor out (the compiled
    build makes it native): it takes the dataclass's fields, by name and in order, with
    their defaults, and sets each from its own parameter. (Checked by building, not by
    reading the signature, which a compiled constructor does not show.)"""
    fields = dataclasses.fields(cls)
    values = {f.name: object() for f in fields}  # a distinct value for each field
    for built in (cls(**values), cls(*values.values())):
        assert all(getattr(built, name) is value for name, value in values.items())
    required = [f for f in fields if f.default is dataclasses.MISSING]
    assert all(f.default_factory is dataclasses.MISSING for f in fields)
    bare = cls(*(values[f.name] for f in required))
    for f in fields:
        expected = values[f.name] if f.default is dataclasses.MISSING else f.default
        assert getattr(bare, f.name) == expected, f.name
    with pytest.raises(TypeError):
        cls(*values.values(), object())  # no parameter beyond the fields


@pytest.mark.sources  # (compiled, the constructor refuses the stand-in values' types)
def test_the_legal_spaces_written_out_constructor_takes_the_fields_in_order() -> None:
    """LegalSpace writes its constructor out too: the dataclass's fields, by name and in
    order, with their defaults, ``memo`` a new dict for each space when not given (its
    default factory's)."""
    fields = dataclasses.fields(LegalSpace)
    values = {f.name: object() for f in fields}
    for built in (LegalSpace(**values), LegalSpace(*values.values())):
        assert all(getattr(built, name) is value for name, value in values.items())
    required = [f for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    first, second = (LegalSpace(*(values[f.name] for f in required)) for _ in range(2))
    for f in fields:
        if f.default is not dataclasses.MISSING:
            assert getattr(first, f.name) == f.default, f.name
        elif f.default_factory is not dataclasses.MISSING:
            assert getattr(first, f.name) == f.default_factory(), f.name
    assert first.memo is not second.memo
    with pytest.raises(TypeError):
        LegalSpace(*values.values(), object())


def test_a_failed_replacement_puts_the_old_build_back(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    target = _fake_build(tmp_path / "build")
    before = (target / _native.MANIFEST).read_text()
    stage = tmp_path / "stage"
    stage.mkdir()
    real_rename = Path.rename

    def failing(self: Path, other: Path) -> Path:
        if self == stage:
            raise OSError("disk full")
        return real_rename(self, other)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError, match="disk full"):
        native._replace(stage, target)
    assert (target / _native.MANIFEST).read_text() == before
    assert not target.with_name("build.old").exists()


def test_a_folder_that_cannot_be_written_is_said_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(native, "build", refused)
    assert native.main(["build", "--dir", str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot build the compiled build in" in err
    assert "Permission denied" in err and "TRAMPLE_COMPILED_DIR" in err


def test_build_refuses_a_folder_that_is_not_a_build(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    (tmp_path / "notes.old").mkdir()  # a sibling named as the old build once was
    (tmp_path / "notes.old" / "keep.txt").write_text("also mine")
    assert native.main(["build", "--dir", str(mine)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no compiled build" in err
    with pytest.raises(native.BuildRefused):
        native._replace(native._new_stage(tmp_path), mine)  # checked again when replacing
    assert (mine / "notes.txt").read_text() == "mine"
    assert (tmp_path / "notes.old" / "keep.txt").read_text() == "also mine"
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    with pytest.raises(native.BuildRefused):
        native._replace(native._new_stage(tmp_path), a_file)
    assert a_file.read_text() == "mine"


def test_a_build_replaces_an_empty_folder_or_an_old_build_only(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    stage = native._new_stage(tmp_path)
    (stage / "x").write_text("new")
    native._replace(stage, empty)
    assert (empty / "x").read_text() == "new"
    old = _fake_build(tmp_path / "old")
    stage = native._new_stage(tmp_path)
    (stage / "y").write_text("new")
    native._replace(stage, old)
    assert sorted(p.name for p in old.iterdir()) == ["y"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "old"]


def test_the_build_folder_has_the_mode_of_a_folder_made_there(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        stage = native._new_stage(tmp_path)
        assert stat.S_IMODE(stage.stat().st_mode) == 0o755  # readable by every user
        os.umask(0o027)
        assert stat.S_IMODE(native._new_stage(tmp_path).stat().st_mode) == 0o750
    finally:
        os.umask(previous)
