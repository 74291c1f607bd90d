"""``trample batch`` and ``solve_many``: serve's answers, in order, on every core or on Ray."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.generators import tiny  # noqa: E402
from trample.solver.interface import protocol, serve  # noqa: E402
from trample.solver.interface.batch import answer_line, solve_many  # noqa: E402

from conftest import SPEC_EXAMPLE  # noqa: E402

DATA = Path(__file__).parent / "data"
ASSIGNMENT = [{"source": "vessel", "target": "wall", "amount": 3},
              {"source": "vessel", "target": "jace", "amount": 2}]


def rpc(method: str, params: Any, rid: Any = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": rid})


def mixed_lines() -> list[str]:
    """Every method, good and bad requests, junk, notifications, bare documents."""
    state = json.loads((DATA / "teachings_state.json").read_text())
    bad_combat = {**SPEC_EXAMPLE, "creatures": [{**SPEC_EXAMPLE["creatures"][1],
                                                 "blocking": ["ghost"]}]}
    return [
        rpc("solve", {"combat": SPEC_EXAMPLE}, 1),
        rpc("validate", {"combat": SPEC_EXAMPLE, "assignment": ASSIGNMENT}, 2),
        rpc("validate", {"combat": SPEC_EXAMPLE, "assignment": ASSIGNMENT[:1]}, "two"),
        rpc("count", {"combat": SPEC_EXAMPLE}, 3),
        rpc("enumerate", {"combat": SPEC_EXAMPLE, "limit": 2}, 4),
        rpc("sample", {"combat": SPEC_EXAMPLE, "n": 3, "seed": 7}, 5),
        rpc("apply", {"state": state, "action": {"action": "resolve_chapter", "object": "o4",
                                                 "chapter": 1}}, 6),
        rpc("apply", {"state": state, "action": {"action": "fly"}}, 7),
        "{this is not json",
        "[]",
        "",
        "   ",
        "42",
        json.dumps({"jsonrpc": "2.0", "method": "solve", "id": {"no": 1}}),
        json.dumps({"jsonrpc": "1.0", "method": "solve", "params": {}, "id": 9}),
        rpc("explode", {"combat": SPEC_EXAMPLE}, 10),
        rpc("solve", {"combat": bad_combat}, 11),
        rpc("solve", {"combat": SPEC_EXAMPLE, "objective": ["nope"]}, 12),
        rpc("solve", {"combat": SPEC_EXAMPLE, "speed": "fast"}, 13),
        rpc("sample", {"combat": SPEC_EXAMPLE, "n": -1}, 14),
        rpc("validate", {"combat": SPEC_EXAMPLE}, 15),
        json.dumps({"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE}}),
        json.dumps({"jsonrpc": "2.0", "method": "nope"}),
        json.dumps([json.loads(rpc("count", {"combat": SPEC_EXAMPLE}, 16)),
                    json.loads(rpc("nope", {}, 17))]),
        json.dumps([{"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE}}]),
        json.dumps(SPEC_EXAMPLE),  # bare documents: solve, id = line number
        json.dumps({**SPEC_EXAMPLE, "side": "blockers"}),
        json.dumps(bad_combat),
        json.dumps({**SPEC_EXAMPLE, "toughnes": 3}),
        json.dumps({"players": []}),  # no creatures: not a document; not a request: -32600
        *(json.dumps(tiny(1 + i % 3, i)) for i in range(20)),
        *(rpc("solve", {"combat": tiny(1 + i % 3, i)}, 100 + i) for i in range(20)),
    ]


def serve_equivalent(lines: list[str]) -> list[str]:
    """The lines to pipe through ``serve`` for the same answers: a bare document becomes
    the ``solve`` request with id its line number."""
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            decoded = json.loads(line)
        except ValueError:
            decoded = None
        bare = isinstance(decoded, dict) and "creatures" in decoded \
            and "jsonrpc" not in decoded and "method" not in decoded
        out.append(rpc("solve", {"combat": decoded}, number) if bare else line)
    return out


def batch(*args: str, stdin: str | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trample.solver", "batch", *args,
                           "--no-progress"], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The mixed file and its batch output through the local pool (2 workers)."""
    folder = tmp_path_factory.mktemp("mixed")
    source = write_lines(folder / "in.jsonl", mixed_lines())
    result = batch(str(source), str(folder / "out.jsonl"), "--workers", "2",
                   "--chunk-size", "3")
    assert result.returncode == 0, result.stderr
    return source, (folder / "out.jsonl").read_text().splitlines()


def test_batch_answers_exactly_as_serve(mixed: tuple[Path, list[str]]) -> None:
    source, answers = mixed
    lines = source.read_text().splitlines()
    assert len(answers) == len(lines)
    # Line i answers line i: serve's response line, or null where serve owes nothing.
    for number, (line, got) in enumerate(zip(serve_equivalent(lines), answers, strict=True),
                                         start=1):
        expected = serve.respond(line) if line.strip() else None
        assert got == ("null" if expected is None else expected), (number, line)
    # The same against a real serve process: the non-null lines, in order.
    result = subprocess.run([sys.executable, "-m", "trample.solver", "serve"],
                            input="".join(x + "\n" for x in serve_equivalent(lines)),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert result.stdout.splitlines() == [a for a in answers if a != "null"]
    # What the file holds: every method answered, errors per line, bare documents solved.
    decoded = [json.loads(a) for a in answers]
    assert decoded[3]["result"] == {"count": 3}
    assert decoded[6]["result"]["state"]["next_id"] == 10
    assert decoded[8]["error"]["code"] == protocol.PARSE_ERROR
    assert decoded[10] is None and decoded[21] is None  # blank line, notification
    bare = lines.index(json.dumps(SPEC_EXAMPLE))
    assert decoded[bare]["id"] == bare + 1 and decoded[bare]["result"]["status"] == "optimal"
    assert decoded[bare + 2]["error"]["message"].startswith("params.combat.creatures[0]")
    assert decoded[bare + 4]["error"]["code"] == protocol.INVALID_REQUEST
    assert decoded[bare + 4]["id"] is None


def test_stdin_stdout_and_solve_many_agree(mixed: tuple[Path, list[str]]) -> None:
    source, answers = mixed
    piped = batch("-", "-", "--workers", "1", stdin=source.read_text())
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.splitlines() == answers
    items = [json.loads(a) for a in answers[-40:]]
    requests = [json.loads(line) for line in source.read_text().splitlines()[-40:]]
    # solve_many numbers bare documents from 1 in its own input.
    expected = [{**a, "id": i} if i <= 20 else a for i, a in enumerate(items, start=1)]
    assert list(solve_many(requests, workers=2, chunk_size=7)) == expected


def test_a_line_that_is_not_utf8_is_a_parse_error() -> None:
    reply = json.loads(answer_line(b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', 1))
    assert reply["error"]["code"] == protocol.PARSE_ERROR and reply["id"] is None


def test_bad_usage_exits_2_with_one_line(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [json.dumps(SPEC_EXAMPLE)])
    for args in ([str(tmp_path / "missing.jsonl"), str(tmp_path / "out.jsonl")],
                 [str(source), "-", "--resume"],
                 [str(source), str(source)],
                 [str(source), str(tmp_path / "out.jsonl"), "--workers", "0"],
                 [str(source)]):
        result = batch(*args)
        assert result.returncode == 2, (args, result)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr
    # Without Ray installed, --ray says so.
    code = ("import sys; sys.modules['ray'] = None\n"
            "from trample.solver.interface.cli import main\n"
            f"sys.exit(main(['batch', {str(source)!r}, {str(tmp_path / 'o')!r}, '--ray']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "pip install '.[ray]' in a clone of trample" in result.stderr
    assert not (tmp_path / "o").exists()


def one_line_error(result: subprocess.CompletedProcess[Any], *fragments: str) -> str:
    """Exit 2 and one ``trample: `` line on standard error holding every fragment."""
    err = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
    assert result.returncode == 2, (result.returncode, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trample: "), err
    assert "Traceback" not in err and "bug report" not in err and "internal" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def test_out_with_content_needs_resume_or_force(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [json.dumps(SPEC_EXAMPLE), "{broken"])
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"precious\n")
    one_line_error(batch(str(source), str(out)), str(out), "--resume", "--force")
    assert out.read_bytes() == b"precious\n"
    one_line_error(batch(str(source), str(out), "--resume", "--force"), "--resume", "--force")
    assert out.read_bytes() == b"precious\n"
    # --force replaces it: a new file renamed over the old one, its permissions kept.
    out.chmod(0o640)
    before = out.stat().st_ino
    forced = batch(str(source), str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(out.read_text().splitlines()) == 2 and out.stat().st_ino != before
    assert out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] != [] and not list(tmp_path.glob(".*partial"))
    # An empty OUT holds nothing to lose: no flag needed.
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert batch(str(source), str(empty)).returncode == 0
    assert empty.read_text() == out.read_text()
    # A failure before any answer (here: --ray without Ray) leaves a forced OUT as it was.
    out.write_bytes(b"precious\n")
    code = ("import sys; sys.modules['ray'] = None\n"
            "from trample.solver.interface.cli import main\n"
            f"sys.exit(main(['batch', {str(source)!r}, {str(out)!r}, '--force', '--ray']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    one_line_error(result, "pip install '.[ray]'")
    assert out.read_bytes() == b"precious\n"


def test_out_is_never_in_not_even_through_standard_streams(tmp_path: Path) -> None:
    lines = [json.dumps(SPEC_EXAMPLE), rpc("count", {"combat": SPEC_EXAMPLE}, 2)]
    work = write_lines(tmp_path / "work.jsonl", lines)
    original = work.read_bytes()
    command = [sys.executable, "-m", "trample.solver", "batch", "--no-progress"]
    for flags in ([], ["--force"], ["--resume"]):
        with work.open("rb") as stdin:  # trample batch - work.jsonl < work.jsonl
            result = subprocess.run([*command, "-", str(work), *flags], stdin=stdin,
                                    capture_output=True, timeout=120)
        one_line_error(result, "same file", str(work))
        assert work.read_bytes() == original
    with work.open("ab") as stdout:  # trample batch work.jsonl - >> work.jsonl
        result = subprocess.run([*command, str(work), "-"], stdout=stdout,
                                stderr=subprocess.PIPE, timeout=120)
    one_line_error(result, "same file")
    assert work.read_bytes() == original
    # Through another name of the same file, too.
    link = tmp_path / "link.jsonl"
    link.symlink_to(work)
    one_line_error(batch(str(link), str(work), "--force"), "same file")
    assert work.read_bytes() == original


def test_environment_errors_exit_2_without_a_bug_report(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [json.dumps(SPEC_EXAMPLE)] * 3)
    bugs = tmp_path / "bugs"
    env = {**os.environ, "TRAMPLE_BUG_DIR": str(bugs)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "trample.solver", "batch", *args,
                               "--no-progress"], capture_output=True, text=True,
                              timeout=120, env=env)

    folder = tmp_path / "folder"
    folder.mkdir()
    for flags in ([], ["--force"], ["--resume"]):
        one_line_error(run(str(source), str(folder), *flags), str(folder), "directory")
    if os.path.exists("/dev/full"):
        one_line_error(run(str(source), "/dev/full"), "/dev/full", "No space left")
    one_line_error(run(str(tmp_path / "none" / "out.jsonl"), str(tmp_path / "o.jsonl")),
                   "IN")
    one_line_error(run(str(source), str(tmp_path / "none" / "out.jsonl")), "OUT")
    assert not bugs.exists() or not any(bugs.iterdir())


def test_resume_changes_nothing_before_it_accepts_out(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [json.dumps(SPEC_EXAMPLE)] * 2)
    out = tmp_path / "out.jsonl"
    # Three whole lines for an IN of two, and a partial last line: not this IN's batch.
    out.write_bytes(b"null\nnull\nnull\n{\"jsonrpc\": \"2.0\", \"resu")
    before = out.read_bytes()
    one_line_error(batch(str(source), str(out), "--resume"), "--resume", str(out))
    assert out.read_bytes() == before
    # Accepted: the partial line goes, the rest of IN is answered.
    out.write_bytes(b"null\n{\"jsonrpc\": \"2.0\", \"resu")
    resumed = batch(str(source), str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    got = out.read_text().splitlines()
    assert got[0] == "null" and json.loads(got[1])["id"] == 2 and len(got) == 2


def test_over_long_line_is_refused_unread_as_serve_refuses_it(tmp_path: Path) -> None:
    source = tmp_path / "long.jsonl"
    with source.open("wb") as f:  # 20 MiB on one line, then a good request
        f.write(b'{"jsonrpc": "2.0", "method": "count", "id": 1, "params": {"x": "')
        f.write(b"a" * (20 * 2**20))
        f.write(b'"}}\n' + rpc("count", {"combat": SPEC_EXAMPLE}, 2).encode() + b"\n")
    out = tmp_path / "out.jsonl"
    # The batch's peak memory, read in a parent of its own (workers included).
    code = ("import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(done.returncode)")
    result = subprocess.run([sys.executable, "-c", code, sys.executable, "-m",
                             "trample.solver", "batch", str(source), str(out), "--workers",
                             "2", "--no-progress"], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    peak_mb = int(result.stdout.split()[-1]) / 1024  # ru_maxrss is in KiB on Linux
    assert peak_mb < 200, peak_mb  # the line alone is 20 MiB; healthy is about 50 MB
    answers = out.read_text().splitlines()
    refusal = json.loads(answers[0])
    assert refusal["error"]["code"] == protocol.PARSE_ERROR and refusal["id"] is None
    assert json.loads(answers[1])["result"] == {"count": 3}
    with source.open("rb") as stdin:
        served = subprocess.run([sys.executable, "-m", "trample.solver", "serve"],
                                stdin=stdin, capture_output=True, text=True, timeout=300)
    assert served.stdout.splitlines() == answers


def test_progress_ends_with_one_final_line(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl",
                         [json.dumps(tiny(1 + i % 3, i)) for i in range(150)])
    out = tmp_path / "out.jsonl"

    def progress(*flags: str) -> list[str]:
        result = subprocess.run([sys.executable, "-m", "trample.solver", "batch", str(source),
                                 str(out), "--workers", "1", "--chunk-size", "10", *flags],
                                capture_output=True, timeout=120)
        err = result.stderr.decode()  # bytes: text mode would turn each \r into \n
        assert result.returncode == 0, err
        shown = [s.strip() for s in err.replace("\r", "\n").splitlines() if s.strip()]
        assert shown and all(s.startswith("trample: batch: ") for s in shown), shown
        assert err.endswith("\n") and err.count("\n") == 1, err  # redrawn in place
        return shown

    shown = progress()
    assert sum("150/150" in s for s in shown) == 1, shown
    assert shown[-1].startswith("trample: batch: 150/150 lines (100%)")
    # Resuming a finished batch: the one line, once.
    assert progress("--resume") == ["trample: batch: 150/150 lines (100%)"]
    # From a pipe, the count alone.
    with source.open("rb") as stdin:
        piped = subprocess.run([sys.executable, "-m", "trample.solver", "batch", "-",
                                str(out), "--force", "--workers", "1"], stdin=stdin,
                               capture_output=True, timeout=120)
    shown = [s.strip() for s in piped.stderr.decode().replace("\r", "\n").splitlines()
             if s.strip()]
    assert sum(s.startswith("trample: batch: 150 lines") for s in shown) == 1, shown


def _group_alive(group: int) -> bool:
    """Whether a live (not zombie) process is left in the process group."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def test_resume_after_kill_loses_and_repeats_nothing(tmp_path: Path) -> None:
    lines = [json.dumps(tiny(1 + i % 3, i)) if i % 2 else
             rpc("solve", {"combat": tiny(1 + i % 3, i)}, f"r{i}") for i in range(4000)]
    lines[1234] = "{broken"
    source = write_lines(tmp_path / "in.jsonl", lines)
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "trample.solver", "batch", str(source), str(cut),
         "--workers", "2", "--chunk-size", "16", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while (not cut.exists() or cut.stat().st_size == 0) and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        # The workers notice that their parent is gone and leave too.
        deadline = time.monotonic() + 15
        while os.path.isdir("/proc") and _group_alive(process.pid) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not (os.path.isdir("/proc") and _group_alive(process.pid))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    done = cut.read_bytes().count(b"\n")
    assert 0 < done < len(lines), "the kill came before any output or after the end"
    with cut.open("ab") as f:  # as if the kill had come in the middle of a write
        f.write(b'{"jsonrpc": "2.0", "resu')
    resumed = batch(str(source), str(cut), "--resume", "--workers", "2")
    assert resumed.returncode == 0, resumed.stderr
    reference = batch(str(source), str(whole), "--workers", "1")
    assert reference.returncode == 0, reference.stderr
    expected = whole.read_text().splitlines()
    got = cut.read_text().splitlines()
    assert len(got) == len(expected) == len(lines)
    for number, (a, b) in enumerate(zip(got, expected, strict=True), start=1):
        assert a == b, number
    # Resuming a finished batch changes nothing.
    again = batch(str(source), str(cut), "--resume")
    assert again.returncode == 0 and cut.read_text().splitlines() == expected


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray with 2 CPUs for this module's Ray tests."""
    # The README's test command installs trample[ray]: the Ray path always runs.
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_gives_the_local_pools_answers(ray_cluster: Any,
                                           mixed: tuple[Path, list[str]]) -> None:
    source, answers = mixed
    requests = [json.loads(line) for line in source.read_text().splitlines()[-40:]]
    local = list(solve_many(requests, workers=2, chunk_size=7))
    assert list(solve_many(requests, ray=True, chunk_size=7)) == local
    # The command line, connecting to the running cluster by its address.
    address = ray_cluster.get_runtime_context().gcs_address
    out = source.parent / "ray.jsonl"
    result = batch(str(source), str(out), f"--ray={address}", "--chunk-size", "5")
    assert result.returncode == 0, result.stderr
    assert out.read_text().splitlines() == answers


def test_benchmark_fan_out_checks_every_instance_and_agrees(tmp_path: Path) -> None:
    from benchmarks.__main__ import main

    def answers(folder: Path) -> list[Any]:
        results = json.loads((folder / "results.json").read_text())
        assert results["checks"]["failure"] is None
        assert results["checks"]["instances_checked"] == len(results["instances"]) == 2
        return [(i["name"], {m: (r["status"], r["objective"]) for m, r in i["methods"].items()})
                for i in results["instances"]]

    common = ["--quick", "--family", "gang", "--repeat", "1"]
    assert main([*common, "--out", str(tmp_path / "serial")]) == 0
    assert main([*common, "--workers", "2", "--out", str(tmp_path / "fanned")]) == 0
    assert answers(tmp_path / "fanned") == answers(tmp_path / "serial")


def test_a_batch_stopped_early_leaves_no_process_pool_running() -> None:
    """When the output fails, the batch stops reading answers (the generator is closed):
    its pool's manager thread has ended by then, so the interpreter's exit hook for
    process pools finds nothing to wake (on CPython 3.11 a wake-up racing the thread's
    own close printed a traceback after the one-line error)."""
    from concurrent.futures import process

    from trample.solver.interface import batch

    before = set(process._threads_wakeups)

    def ours() -> list[object]:
        return [w for t, w in process._threads_wakeups.items() if t not in before]

    answers = batch._local(abs, iter([[-1, -2]] * 6), 2)
    assert next(answers) == [1, 2]
    assert ours()  # a pool of worker processes answers
    answers.close()
    # Its manager thread has ended: gone, or its wake-up pipe closed.
    assert all(wakeup._closed for wakeup in ours())  # type: ignore[attr-defined]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_chunk_closes_on_the_bytes_of_its_answers(monkeypatch: pytest.MonkeyPatch,
                                                    workers: int) -> None:
    """Lines answered with many bytes each (enumerate): a chunk's answers stop at the
    byte budget (plus one answer) and the lines left go out again, in their place."""
    from trample.solver.interface import batch as batch_module

    budget = 40_000
    monkeypatch.setattr(batch_module, "CHUNK_BYTES", budget)
    many = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}], "creatures": [
        {"id": "t", "controller": "a", "power": 12, "toughness": 1, "keywords": ["trample"],
         "attacking": "d"}] + [{"id": f"b{i}", "controller": "d", "power": 1,
                                "toughness": 1, "blocking": ["t"]} for i in range(3)]}
    lines = [rpc("enumerate", {"combat": many, "limit": 60, "after": i % 5}, i)
             for i in range(40)] + [rpc("count", {"combat": SPEC_EXAMPLE}, 99)] * 10
    longest = max(len(serve.respond(line) or "") for line in lines)
    # The input fits one chunk; its answers hold many budgets.
    assert sum(len(line) for line in lines) < budget < 40 * longest // 4
    chunks = list(batch_module.answer_lines([line.encode() for line in lines],
                                            workers=workers))
    assert [a for chunk in chunks for a in chunk] == [serve.respond(line) for line in lines]
    sizes = [sum(len(a) for a in chunk) for chunk in chunks]
    assert max(sizes) < budget + longest and len(chunks) > 4, sizes


def test_standard_output_carries_answers_only(tmp_path: Path) -> None:
    """Whatever else writes to descriptor 1 during a batch (as Ray's processes do, which
    inherit it) goes to standard error: line i of standard output answers line i."""
    source = write_lines(tmp_path / "in.jsonl", [rpc("count", {"combat": SPEC_EXAMPLE}, i)
                                                 for i in range(300)])
    code = (
        "import os, subprocess, sys\n"
        "from trample.solver.interface import batch\n"
        "from trample.solver.interface.cli import main\n"
        "dispatch = batch._dispatch\n"
        "def noisy(*args, **kwargs):\n"
        "    subprocess.run(['sh', '-c', 'echo \"(raylet) a worker died\"'], check=True)\n"
        "    os.write(1, b'(stray) noise\\n')\n"
        "    print('(print) noise', flush=True)\n"
        "    return dispatch(*args, **kwargs)\n"
        "batch._dispatch = noisy\n"
        f"sys.exit(main(['batch', {str(source)!r}, '-', '--workers', '2', "
        "'--no-progress']))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert [json.loads(a)["id"] for a in answers] == list(range(300))
    assert "(raylet) a worker died" in result.stderr and "(stray) noise" in result.stderr
    assert "(print) noise" in result.stderr
