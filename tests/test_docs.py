"""Every example in README.md and docs/*.md runs and prints what the page says it prints.

What a page shows, and how it is checked (docs/development.md says the same for writers):

- ``$ trample ...`` lines, in ``console`` blocks and in ``text`` blocks that start with
  one: the command runs from the root of the repository and its output (standard output,
  or the one-line refusal on standard error) must be the lines that follow, exactly, but
  for one normalization: a time printed as ``12.3 ms`` is read as ``<ms>``, which is how
  the pages write it.
- ``serve`` transcripts (``text`` blocks of ``>`` request and ``<`` response lines): the
  requests go to a real ``trample serve``, and each response must be the line shown. A
  ``{...}`` in a request stands for the combat named by the comment
  ``<!-- {...}: FILE, ... -->`` just above the block (one file for every ``{...}``, or one
  file each, in order). Once a transcript opts in to answers out of order, responses are
  matched by ``id``; a ``solve`` stopped by ``$/cancelRequest`` answers what its search
  had found by then, so its answer is checked for its shape, a legal split and a bound no
  lower than its objective, not for the values.
- ``>>>`` lines: run by doctest, page by page.
- ``json`` blocks: each is a valid document (tests/test_schemas.py) and, when the
  paragraph above names a file of ``tests/data/``, that file's content.
- Links between the pages: every file and heading they point to exists.

``sh`` blocks are commands to type (installing, benchmarks): they show no output to check.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from serving import ServeProcess

from trample.solver.interface import api, cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = {page: page.read_text(encoding="utf-8") for page in PAGES}
README = TEXT[ROOT / "README.md"]

TIME = re.compile(r"\b\d+\.\d ms\b")
"""A time as trample prints it (``trample demo``): the pages write it ``<ms>``."""
BLOCK = re.compile(r"^(?:<!-- (?P<note>.*?) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```$",
                   flags=re.M | re.S)


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    body: str
    note: str | None
    before: str
    """The paragraph just above the block."""

    @property
    def where(self) -> str:
        return f"{name(self.page)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = TEXT[page]
    found = []
    for m in BLOCK.finditer(text):
        above = text[:m.start()].rstrip("\n").rsplit("\n\n", 1)[-1]
        line = text.count("\n", 0, m.start("lang")) + 1
        found.append(Block(page, line, m["lang"], m["body"], m["note"], above))
    return found


ALL = [b for page in PAGES for b in blocks(page)]


def is_transcript(b: Block) -> bool:
    return b.lang == "text" and all(line[:2] in ("> ", "< ")
                                    for line in b.body.splitlines() if line.strip())


def is_console(b: Block) -> bool:
    return b.lang == "console" or (b.lang == "text" and b.body.startswith("$ "))


# -- every block is one the suite checks ---------------------------------------------------


@pytest.mark.parametrize("b", ALL, ids=lambda b: b.where)
def test_every_block_is_of_a_kind_the_suite_checks(b: Block) -> None:
    if b.lang == "python":
        # doctest runs the >>> blocks; the spec's one script is run by test_schemas.py.
        assert ">>> " in b.body or name(b.page) == "docs/spec.md", b.where
    else:
        assert b.lang in ("json", "sh") or is_console(b) or is_transcript(b), (
            f"{b.where}: a ```{b.lang} block the suite does not know how to check")


# -- $ trample ... ------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    where: str
    command: str
    expected: list[str]


def console_examples() -> list[Example]:
    examples = []
    for b in ALL:
        if not is_console(b):
            continue
        command, expected, line = None, [], b.line
        for i, text in enumerate([*b.body.splitlines(), "$ "], start=b.line + 1):
            if text.startswith("$ "):
                if command is not None:
                    examples.append(Example(f"{name(b.page)}:{line}", command, expected))
                command, expected, line = text[2:], [], i
            else:
                expected.append(text)
    return examples


EXAMPLES = console_examples()


def run_cli(command: str) -> tuple[int, str, str]:
    """Status, standard output and standard error of ``command`` run in this process."""
    argv = shlex.split(command)
    assert argv[0] == "trample", command
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            contextlib.chdir(ROOT):
        try:
            status = cli.main(argv[1:])
        except SystemExit as exc:  # --version, --help: argparse exits
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.where} {e.command}")
def test_console_example(example: Example) -> None:
    status, out, err = run_cli(example.command)
    if example.expected and example.expected[0].startswith("trample: "):
        assert status == 2 and out == "", (example.where, status, out)
        printed = err
    else:
        assert status in (0, 1) and err == "", (example.where, status, err)
        printed = out
    assert TIME.sub("<ms>", printed).rstrip("\n").split("\n") == example.expected, \
        example.where


def test_times_are_the_only_normalization() -> None:
    assert TIME.sub("<ms>", "solved in 8.5 ms; (counted in 1234.0 ms)") == \
        "solved in <ms>; (counted in <ms>)"
    # Nothing else that looks like a number is touched.
    assert TIME.sub("<ms>", "1,654 legal assignments; 2.5 s; 3 ms; 0.5 msx") == \
        "1,654 legal assignments; 2.5 s; 3 ms; 0.5 msx"


# -- serve transcripts --------------------------------------------------------------------


class Serve(ServeProcess):
    """A real ``trample serve`` in the repository's root, a line of text at a time."""

    def __init__(self) -> None:
        super().__init__(cwd=ROOT)

    def send(self, line: str) -> None:
        self.write(line.encode() + b"\n")

    def next(self) -> str:
        return self.answer().decode().rstrip("\n")

    def close(self) -> None:
        assert self.finish() == []  # nothing more was answered


def combats_of(b: Block) -> list[str]:
    """The files that the block's ``{...}`` stand for, from its comment."""
    if b.note is None:
        return []
    label, _, files = b.note.partition(":")
    assert label.strip() == "{...}", f"{b.where}: unknown comment {b.note!r}"
    return [f.strip() for f in files.split(",")]


TRANSCRIPTS = [b for b in ALL if is_transcript(b)]


def _lexicographic(values: dict[str, int]) -> list[int]:
    return list(values.values())


def check_cancelled_solve(expected: dict[str, Any], actual: dict[str, Any],
                          combat: dict[str, Any]) -> None:
    """A solve stopped by ``$/cancelRequest``: its shape as shown, a legal split, and a
    proved bound no lower than its objective (the values depend on when it stopped)."""
    shown, got = expected["result"], actual["result"]
    assert got["status"] in ("feasible", "optimal")
    assert {k: v for k, v in got.items() if k not in ("objective", "bound", "assignment")} \
        == {k: v for k, v in shown.items() if k not in ("objective", "bound", "assignment")} \
        | {"status": got["status"]}
    assert list(got["objective"]) == list(shown["objective"])
    assert api.validate(combat, got["assignment"])["legal"]
    if got["status"] == "feasible":
        assert _lexicographic(got["bound"]) >= _lexicographic(got["objective"])


@pytest.mark.parametrize("b", TRANSCRIPTS, ids=lambda b: b.where)
def test_serve_transcript(b: Block) -> None:
    files = combats_of(b)
    lines = [line for line in b.body.splitlines() if line.strip()]
    holes = sum(line.count("{...}") for line in lines if line.startswith("> "))
    assert len(files) in ((1, holes) if holes else (0,)), \
        f"{b.where}: {holes} {{...}} and the files {files}"
    combats = [json.loads((ROOT / f).read_text("utf-8")) for f in files]
    server = Serve()
    by_id: dict[str, dict[str, Any]] = {}  # answers read ahead, out of order
    combat_of: dict[Any, dict[str, Any]] = {}
    cancelled: set[Any] = set()
    out_of_order = False
    taken = 0
    try:
        for line in lines:
            direction, text = line[:1], line[2:]
            if direction == ">":
                while "{...}" in text:
                    combat = combats[min(taken, len(combats) - 1)]
                    text = text.replace("{...}", json.dumps(combat), 1)
                    taken += 1
                with contextlib.suppress(json.JSONDecodeError):
                    request = json.loads(text)
                    if isinstance(request, dict):
                        params = request.get("params") or {}
                        if request.get("method") == "$/cancelRequest":
                            cancelled.add(params.get("id"))
                        elif "id" in request and "combat" in params:
                            combat_of[request["id"]] = params["combat"]
                        if request.get("method") == "initialize" and \
                                params.get("capabilities", {}).get("out_of_order"):
                            out_of_order = True
                server.send(text)
                continue
            expected = json.loads(text)
            rid = expected.get("id") if isinstance(expected, dict) else None
            if out_of_order and rid is not None:
                while json.dumps(rid) not in by_id:
                    answer = json.loads(server.next())
                    by_id[json.dumps(answer.get("id"))] = answer
                actual = by_id.pop(json.dumps(rid))
                if rid in cancelled and "status" in expected.get("result", {}):
                    check_cancelled_solve(expected, actual, combat_of[rid])
                else:
                    assert actual == expected, b.where
            else:
                assert server.next() == text, b.where
        assert not by_id, f"{b.where}: answers the transcript does not show: {by_id}"
    finally:
        server.close()


# -- >>> ----------------------------------------------------------------------------------


DOCTESTED = [page for page in PAGES if "\n>>> " in TEXT[page]]


@pytest.mark.parametrize("page", DOCTESTED, ids=name)
def test_python_examples(page: Path) -> None:
    with contextlib.chdir(ROOT):
        result = doctest.testfile(str(page), module_relative=False,
                                  optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3
    assert result.failed == 0


# -- json blocks that show a file ----------------------------------------------------------


SHOWN_FILE = re.compile(r"`(tests/data/[\w/.-]+\.json)`")


@pytest.mark.parametrize("b", [b for b in ALL if b.lang == "json" and
                               SHOWN_FILE.search(b.before)], ids=lambda b: b.where)
def test_a_json_block_that_names_a_file_is_that_file(b: Block) -> None:
    path = SHOWN_FILE.findall(b.before)[-1]
    assert json.loads(b.body) == json.loads((ROOT / path).read_text("utf-8")), b.where


# -- links --------------------------------------------------------------------------------


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slugs(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    text = re.sub(r"^```.*?^```$", "", TEXT[page], flags=re.M | re.S)
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_slugs_are_githubs() -> None:
    assert "trample-demo---game" in slugs(ROOT / "docs" / "game-model.md")
    assert "1-the-combat-document-combat1" in slugs(ROOT / "docs" / "spec.md")
    assert "plan-both-combat-damage-steps-at-once" in slugs(ROOT / "docs" / "outcomes.md")


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_link_leads_somewhere(page: Path) -> None:
    text = re.sub(r"^```.*?^```$", "", TEXT[page], flags=re.M | re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        assert goal.exists(), f"{name(page)}: {target} leads nowhere"
        if anchor:
            assert goal in TEXT, f"{name(page)}: {target}: not a page of the docs"
            assert anchor in slugs(goal), f"{name(page)}: {target}: no such heading"


# -- the README: a front door ---------------------------------------------------------------


def test_the_readme_is_a_front_door() -> None:
    assert len(README.splitlines()) <= 300
    # Every page of docs/ is one link away.
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in LINK.findall(README)}
    assert set(PAGES[1:]) <= linked, set(PAGES[1:]) - linked


def test_the_two_commands_come_first() -> None:
    head = README.split("## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", head, flags=re.S)
    assert len(commands) == 2
    assert commands[0].endswith("trample demo")
    assert commands[1].endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == commands[1].split(" && ", 2)[-1]


def test_the_pages_have_examples() -> None:
    assert len(EXAMPLES) >= 40
    assert len(TRANSCRIPTS) >= 3
    assert len(DOCTESTED) >= 4


def test_no_page_offers_an_install_from_the_package_index() -> None:
    # trample is not on the package index: installs are from a clone ('.[extra]').
    for page in PAGES:
        assert "'trample[" not in TEXT[page], name(page)


def test_the_specs_bug_report_folders_are_the_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    uid = os.geteuid() if hasattr(os, "geteuid") else os.getpid()
    last = Path(tempfile.gettempdir()) / f"trample-bugs-{uid}"
    monkeypatch.delenv(api.BUG_DIR_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert api.bug_folders() == [Path("/xdg/trample/bugs"), last]
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert api.bug_folders() == [Path.home() / ".cache" / "trample" / "bugs", last]
    monkeypatch.setenv(api.BUG_DIR_VARIABLE, "/chosen")
    assert api.bug_folders() == [Path("/chosen")]
    spec = TEXT[ROOT / "docs" / "spec.md"]
    row = next(line for line in spec.splitlines() if line.startswith("| 3 | internal error"))
    for written in ("`$TRAMPLE_BUG_DIR` when it is set", "`$XDG_CACHE_HOME/trample/bugs`",
                    "`~/.cache/trample/bugs`", "`<tmp>/trample-bugs-<uid>`"):
        assert written in row, written
