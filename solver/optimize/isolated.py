"""CP-SAT's multi-worker search in a child process, where an abort ends only the child.

A C++ exception thrown in one of CP-SAT's worker threads ends the whole process
(``std::terminate``, exit status 134, nothing reaches Python). CP-SAT 9.15's presolve
throws ``absl::btree_map::at`` on some solution hints (or-tools issue 5288), and its large
neighbourhood search presolves each neighbourhood, in a worker thread, with the current
solution as the hint: so any multi-worker search may abort, whatever hint trample gives.
A search with one worker runs in the calling thread, where the same exception reaches
Python as an ``IndexError`` (:data:`~trample.solver.optimize.cpsat.CRASHES`); a search
with several runs here, in a child process. When the child dies, the search raises
:class:`ChildDied` (with the child's last words), which the caller treats as any other
crash inside CP-SAT: it searches again without what caused it, and at worst answers from
what it already has. The process that asked never ends.

Children are started on first use (``python -c``, so that nothing of the caller's main
module is run again), kept for the next search, one search at a time each, and end when
their input closes (the caller's process ending closes it). The model and parameters
travel as protobuf text, the answer back as the solution's values. A child that has not
answered :data:`GRACE` seconds after its time limit is asked to stop, then ended: the
search then answers ``UNKNOWN``, as a search stopped before any solution does.
"""

from __future__ import annotations

import collections
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from math import inf, isfinite
from typing import IO, Any, Protocol

from ortools.sat.python import cp_model

from trample.solver.optimize.cancel import Cancel

GRACE = 5.0
"""Seconds a child may answer after its time limit (a large model's search stops late,
and its answer must be written and read) before it is asked to stop, and again before it
is ended."""
IDLE_CHILDREN = 1
"""Children kept waiting for the next search (each holds some 100 MiB: Python, OR-Tools
and what it imports); more are ended when their search is done. Starting one takes about
as long as importing OR-Tools (0.5 to 2 s), paid by the first portfolio of a process and
by one that runs while another does."""
LAST_WORDS = 4096
"""Bytes of a child's standard error kept, for the message when it dies."""

_LENGTH = struct.Struct("<Q")


class Answer(Protocol):
    """What a search answers, read as from a :class:`cp_model.CpSolver` after its solve."""

    @property
    def objective_value(self) -> float: ...

    @property
    def best_objective_bound(self) -> float: ...

    @property
    def deterministic_time(self) -> float: ...

    def value(self, expression: Any) -> int: ...


@dataclass(frozen=True, slots=True)
class ChildAnswer:
    """A child's answer: the solution's values by the model's variable index."""

    values: tuple[int, ...]
    objective_value: float
    best_objective_bound: float
    deterministic_time: float

    def value(self, expression: Any) -> int:
        """The value of a variable of the model in the solution found."""
        index: int = expression.index
        return self.values[index]


NO_ANSWER = ChildAnswer((), 0.0, inf, 0.0)
"""The answer of a child ended before it answered: no solution, no bound."""


class ChildDied(RuntimeError):
    """The child process ended without answering (CP-SAT aborted in it, or it was
    killed): the message gives its exit status and its last words."""


class NoChildProcess(Exception):
    """No child process can be started here (no interpreter to run, no process left):
    the caller searches in its own process instead."""


# -- the child process ---------------------------------------------------------------------


def _write(out: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_LENGTH.pack(len(data)) + data)
    out.flush()


def _read(source: IO[bytes]) -> Any:
    head = source.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    size = _LENGTH.unpack(head)[0]
    data = source.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _stop_when_done(solver: cp_model.CpSolver, line: str) -> None:
    # As the caller's portfolio does: its log's "#Done" is the only word that a worker
    # closed the search, and the interleaved search goes on past it otherwise.
    if line.startswith("#Done"):
        solver.stop_search()


def _search(model_text: str, parameters_text: str, sent: float,
            register: Callable[[cp_model.CpSolver], None]) -> tuple[Any, ...]:
    model = cp_model.CpModel()
    model.proto.parse_text_format(model_text)
    solver = cp_model.CpSolver()
    solver.parameters.parse_text_format(parameters_text)
    limit = solver.parameters.max_time_in_seconds
    if isfinite(limit):
        # Its time counts from when the caller sent it: a child just started, or a large
        # model's text read, takes that time from the search, not from the caller.
        late = max(time.time() - sent, 0.0)
        solver.parameters.max_time_in_seconds = max(limit - late, 0.001)
    if solver.parameters.log_search_progress:
        solver.log_callback = lambda line: _stop_when_done(solver, line)
    register(solver)
    try:
        code = solver.solve(model)
    except Exception as exc:  # a C++ exception of the calling thread, as Python's
        return ("failed", f"{type(exc).__name__}: {exc}")
    # The status is read in the parent (:func:`trample.solver.optimize.cpsat.run_status`):
    # CP-SAT's response holds a solution exactly when it found one.
    solution = tuple(solver.response_proto.solution)
    return ("answer", int(code), solution, solver.objective_value if solution else 0.0,
            solver.best_objective_bound, solver.deterministic_time)


def main() -> None:
    """The child: read searches from standard input, answer each on standard output
    (anything else written there goes to standard error), stop the one running when
    asked, end when the input closes."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    source = sys.stdin.buffer
    jobs: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
    lock = threading.Lock()
    running: dict[int, cp_model.CpSolver] = {}
    stopped: set[int] = set()

    def stop(job: int) -> None:
        with lock:
            stopped.add(job)
            solver = running.get(job)
            if solver is not None:
                solver.parameters.max_time_in_seconds = 0.0
                solver.stop_search()

    def listen() -> None:
        try:
            while True:
                message = _read(source)
                if message[0] == "stop":
                    stop(message[1])
                else:
                    jobs.put(message)
        except EOFError:
            pass
        finally:  # the caller is gone: stop what runs, take nothing more
            with lock:
                for solver in running.values():
                    solver.stop_search()
            jobs.put(None)

    threading.Thread(target=listen, daemon=True).start()
    while (job := jobs.get()) is not None:
        _, number, model_text, parameters_text, sent = job

        def register(solver: cp_model.CpSolver, number: int = number) -> None:
            with lock:
                running[number] = solver
                if number in stopped:  # asked to stop before it started
                    solver.parameters.max_time_in_seconds = 0.0

        try:
            answer = _search(model_text, parameters_text, sent, register)
        finally:
            with lock:
                running.pop(number, None)
                stopped.discard(number)
        _write(out, (answer[0], number, *answer[1:]))


# -- the caller's side ----------------------------------------------------------------------


class _Child:
    """One child process, its answers read by a thread into a queue."""

    def __init__(self) -> None:
        environment = dict(os.environ)
        # The same modules as the caller's, wherever they were found.
        environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from trample.solver.optimize.isolated import main; main()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=environment, close_fds=True)
        self.answers: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self.words: collections.deque[bytes] = collections.deque()
        self.words_size = 0
        self.write_lock = threading.Lock()
        threading.Thread(target=self._listen, daemon=True).start()
        threading.Thread(target=self._keep_words, daemon=True).start()

    def _listen(self) -> None:
        assert self.process.stdout is not None
        try:
            while True:
                self.answers.put(_read(self.process.stdout))
        except (EOFError, OSError, pickle.UnpicklingError):
            self.answers.put(None)

    def _keep_words(self) -> None:
        assert self.process.stderr is not None
        fd = self.process.stderr.fileno()
        while chunk := os.read(fd, 4096):
            self.words.append(chunk)
            self.words_size += len(chunk)
            while self.words_size > LAST_WORDS and len(self.words) > 1:
                self.words_size -= len(self.words.popleft())

    def send(self, message: object) -> bool:
        """Write a message; False when the child's input is closed (it died)."""
        assert self.process.stdin is not None
        with self.write_lock:
            try:
                _write(self.process.stdin, message)
            except (OSError, ValueError):
                return False
        return True

    def last_words(self) -> str:
        text = b"".join(self.words).decode("utf-8", "replace").strip()
        return " ".join(text.split())[-500:]

    def end(self) -> None:
        """End the child now and reap it."""
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """Let an idle child end by itself (its input closes)."""
        assert self.process.stdin is not None
        with suppress(OSError):
            self.process.stdin.close()


_idle: list[_Child] = []
_idle_lock = threading.Lock()
_jobs = iter(range(1, sys.maxsize))


def _take() -> _Child:
    with _idle_lock:
        while _idle:
            child = _idle.pop()
            if child.process.poll() is None:
                return child
    try:
        return _Child()
    except OSError as exc:
        raise NoChildProcess(f"no child process: {exc}") from exc


def _give_back(child: _Child) -> None:
    with _idle_lock:
        if len(_idle) < IDLE_CHILDREN and child.process.poll() is None:
            _idle.append(child)
            return
    child.close()


def solve(model: cp_model.CpModel, parameters: Any,
          cancel: Cancel | None = None) -> tuple[cp_model.CpSolverStatus, Answer]:
    """Search ``model`` with ``parameters`` (a ``SatParameters``; its log, when on, stops
    the search at the line that says a worker closed it) in a child process; ``cancel``,
    set from another thread, stops it. :class:`ChildDied` when the child ends without an
    answer, ``RuntimeError`` when CP-SAT raised in it, :class:`NoChildProcess` when no
    child can be started; ``UNKNOWN`` with no solution when it overran its time limit by
    :data:`GRACE` seconds twice and was ended."""
    child = _take()
    job = next(_jobs)
    limit = float(parameters.max_time_in_seconds)
    patience = limit + GRACE if isfinite(limit) else inf
    message: tuple[Any, ...] | None
    sent = child.send(("solve", job, str(model.proto), str(parameters), time.time()))

    def stop() -> None:
        child.send(("stop", job))

    with cancel.watching(stop) if cancel is not None else _always() as watched:
        if not watched:
            child.send(("stop", job))
        message = _wait(child, patience) if sent else None
        if message is _LATE:
            child.send(("stop", job))
            message = _wait(child, GRACE)
    if message is _LATE:
        child.end()
        return cp_model.UNKNOWN, NO_ANSWER
    if message is None:
        code = child.process.wait()
        raise ChildDied(f"the search's child process ended without answering (exit "
                         f"status {code}){': ' + child.last_words() if child.words else ''}")
    _give_back(child)
    if message[0] == "failed":
        raise RuntimeError(message[2])
    _, _, code, values, objective, bound, effort = message
    return cp_model.CpSolverStatus(code), ChildAnswer(values, objective, bound, effort)


_LATE: tuple[Any, ...] = ("late",)


def _wait(child: _Child, seconds: float) -> tuple[Any, ...] | None:
    """The child's next answer, None when it died, :data:`_LATE` after ``seconds``."""
    try:
        return child.answers.get(timeout=None if seconds == inf else max(seconds, 0.0))
    except queue.Empty:
        return _LATE


class _always:
    """A context that yields True (nothing to watch)."""

    def __enter__(self) -> bool:
        return True

    def __exit__(self, *exc: object) -> None:
        return None


def idle_children() -> int:
    """Children waiting for a search now."""
    with _idle_lock:
        return len(_idle)


__all__ = ["GRACE", "NO_ANSWER", "Answer", "ChildAnswer", "ChildDied", "NoChildProcess",
           "idle_children", "main", "solve"]
