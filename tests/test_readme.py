"""The README's examples run and print what the README says they print."""

from __future__ import annotations

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) for every `$ trample ...` line in ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            examples.append((command, "\n".join(output)))
    return examples


EXAMPLES = console_examples()


def test_the_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_console_example(command: str, expected: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "trample"
    result = subprocess.run([sys.executable, "-m", "trample.solver", *argv[1:]], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.rstrip("\n") == expected.rstrip("\n")


def test_python_examples() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5
    assert result.failed == 0


def test_the_two_commands_come_first() -> None:
    head = README.split("## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", head, flags=re.S)
    assert len(commands) == 2
    assert commands[0].endswith("trample demo")
    assert commands[1].endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == commands[1].split(" && ", 2)[-1]
