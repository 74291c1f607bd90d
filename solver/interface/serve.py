"""``trample serve``: the JSON-RPC 2.0 engine of SPEC §6, one request per line.

A bad line never ends the server (not even one whose answer runs out of memory); end of
input (or a closed output pipe) ends it with status 0. Methods are the commands of the
command line (:mod:`trample.solver.interface.methods`); ``params`` carries ``combat`` and
the options. The protocol's bounds and codec are in
:mod:`trample.solver.interface.protocol`, the reading and writing of lines in
:mod:`trample.solver.interface.transport`; here is how a request is answered
(:func:`handle`, :func:`respond`) and the session that reads ahead of the answers.

Lines are read ahead of the answers, so that ``$/cancelRequest`` reaches a request in
flight; they are answered one after another, in order, unless the client opts in to answers
out of order (``initialize``, or ``--out-of-order``): then a pool of worker threads answers
each as soon as it is done (CP-SAT searches outside the interpreter lock).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from contextlib import suppress
from typing import IO, Any

from trample.models.document.combat import brief_repr
from trample.models.document.errors import InputError, InternalError, TrampleError
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api
from trample.solver.interface.methods import (
    METHODS,
    PAGED,
    asks_out_of_order,
    cancelled_id,
    qualify,
)
from trample.solver.interface.protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_BATCH,
    MAX_IN_FLIGHT,
    MAX_IN_FLIGHT_BYTES,
    MAX_RESPONSE_BYTES,
    METHOD_NOT_FOUND,
    OUT_OF_MEMORY,
    REQUEST_CANCELLED,
    Cancelled,
    Decoded,
    echoed_size,
    encode,
    encode_answer,
    error_answer,
    invalid,
    line_cancels,
    parse,
    plain,
    request_cancel,
    response_budget,
    session_out_of_order,
)
from trample.solver.interface.solve_lane import answer_line
from trample.solver.interface.transport import (
    Input,
    Output,
    OutputWatch,
    input_of,
    read_line,
    refusal,
    write_line,
)
from trample.solver.optimize.cancel import Cancel


def handle(request: object, *, budget: int | None = None) -> dict[str, Any] | None:
    """The response to one decoded request (None for a notification), as plain JSON
    values; pages keep their response within ``budget`` bytes (default
    :data:`MAX_RESPONSE_BYTES`)."""
    return plain(handle_encoded(request, budget=budget))


def unknown_method(method: str) -> str:
    """The message for a method serve does not have: the nearest name when one is close,
    else the methods that answer questions (``initialize`` and ``$/cancelRequest``, the
    protocol's own, are left out to keep the line short; the name is shown cut short)."""
    import difflib

    shown = brief_repr(method if len(method) <= 30 else method[:30] + "...")
    close = difflib.get_close_matches(method[:100], METHODS, n=1, cutoff=0.75)
    if close:
        return f"unknown method {shown}; did you mean {close[0]!r}?"
    asked = [m for m in METHODS if m not in ("initialize", "$/cancelRequest")]
    return f"unknown method {shown} (methods: {', '.join(asked)})"


def handle_encoded(request: object, *, budget: int | None = None) -> dict[str, Any] | None:
    """:func:`handle`, with a page of assignments left as :class:`Encoded` text for
    :func:`encode` to splice."""
    refusal = invalid(request)
    if refusal is not None or not isinstance(request, dict):
        return refusal
    request_id = request.get("id")
    notification = "id" not in request
    method = request["method"]
    params = request.get("params", {})
    if method not in METHODS:
        return None if notification else error_answer(
            METHOD_NOT_FOUND, unknown_method(method), request_id)
    if not isinstance(params, dict):
        return None if notification else error_answer(
            INVALID_PARAMS, "params must be an object with named parameters (combat, ...), "
            "not an array", request_id)
    cancel = None if notification else _cancel_of(request_id)
    if cancel is not None and cancel.is_set() and method != "solve":
        return error_answer(REQUEST_CANCELLED, "request cancelled", request_id)
    out_of_memory = False
    token = None
    if method in PAGED:  # the only readers of the budget
        room = MAX_RESPONSE_BYTES if budget is None else budget
        token = response_budget.set(room - echoed_size(request_id))  # the id is echoed
    # Set only when it changes (a tiny request pays for each context variable set).
    running = None if request_cancel.get() is cancel else request_cancel.set(cancel)
    try:
        result = METHODS[method](params)
        if cancel is not None and cancel.is_set() and method != "solve":
            raise Cancelled
    except Cancelled:
        response = error_answer(REQUEST_CANCELLED, "request cancelled", request_id)
    except CountOutOfReach as exc:
        response = error_answer(INVALID_PARAMS, str(exc), request_id)
    except InputError as exc:
        response = error_answer(INVALID_PARAMS, qualify(exc), request_id)
    except InternalError as exc:
        response = error_answer(INTERNAL_ERROR, str(exc), request_id)
    except TrampleError as exc:
        response = error_answer(INVALID_PARAMS, str(exc), request_id)
    except MemoryError:
        out_of_memory = True  # answered below, once the frames holding the memory are gone
    except Exception as exc:  # a bug: answer it rather than end the server (SPEC §6)
        response = error_answer(INTERNAL_ERROR, _bug(exc, request), request_id)
    else:
        response = {"jsonrpc": "2.0", "result": result, "id": request_id}
    finally:
        if running is not None:
            request_cancel.reset(running)
        if token is not None:
            response_budget.reset(token)
    if out_of_memory:
        response = error_answer(INTERNAL_ERROR, OUT_OF_MEMORY, request_id)
    return None if notification else response


def _cancel_of(request_id: Any) -> Cancel | None:
    """The request's cancellation: its own in a session, else the one the whole run is
    answered under (:func:`serve` on its reading thread: set when the output closes)."""
    cancels = line_cancels.get()
    if cancels is None:
        return request_cancel.get()
    try:
        return cancels.get(request_id)
    except TypeError:  # an id that is not hashable (refused before)
        return None


def _bug(exc: BaseException, request: object) -> str:
    """The message of an unexpected exception, after saving the request for a report."""
    what = f"{type(exc).__name__}: {exc}"[:500]
    saved = api.report_bug("serve", request, exc)
    return f"internal error: {what}; {saved}"


def _batch(requests: list[Any]) -> str | None:
    if not requests:
        return encode(error_answer(INVALID_REQUEST, "an empty batch is not a request"))
    if len(requests) > MAX_BATCH:
        return encode(error_answer(INVALID_REQUEST, f"a batch of {len(requests):,} requests: "
                                   f"at most {MAX_BATCH:,} in one batch"))
    answers: list[str] = []
    left = MAX_RESPONSE_BYTES
    for request in requests:
        line = answer_line(request)
        if line is not None:
            answers.append(line)
            left -= len(line) + 2
            continue
        answer = handle_encoded(request, budget=left)
        if answer is not None:
            answers.append(encode_answer(answer))
            left -= len(answers[-1]) + 2
    return f"[{', '.join(answers)}]" if answers else None


def _answer_decoded(request: Any) -> str | None:
    decoded = api.documents_are_json.set(True)  # a line's request holds JSON values only
    try:
        if isinstance(request, list):
            return _batch(request)
        line = answer_line(request)
        if line is not None:
            return line
        answer = handle_encoded(request)
        return None if answer is None else encode_answer(answer)
    finally:
        api.documents_are_json.reset(decoded)


def respond(line: str | bytes) -> str | None:
    """The response line to one input line (None when nothing is owed)."""
    parsed = parse(line)
    return parsed if isinstance(parsed, str) else _answer_decoded(parsed.request)


def _respond_safely(line: str | bytes | Decoded) -> str | None:
    """:func:`respond` (to a line, or to a line already decoded), and -32603 (id null)
    whatever goes wrong: memory running out while a batch's line is joined, or a bug
    (saved for a report)."""
    failure: Exception | None = None
    try:
        if isinstance(line, Decoded):
            return _answer_decoded(line.request)
        return respond(line)
    except MemoryError:
        pass
    except Exception as exc:  # a bug: answer it rather than end the server
        failure = exc
    if failure is None:
        return encode(error_answer(INTERNAL_ERROR, OUT_OF_MEMORY))
    what = _line_text(line.line if isinstance(line, Decoded) else line)
    return encode(error_answer(INTERNAL_ERROR, _bug(failure, what)))


def _line_text(line: str | bytes) -> str:
    return line.decode("utf-8", "replace") if isinstance(line, bytes) else line


MAX_WORKERS = 256
"""The most threads ``serve`` answers with out of order (``--workers``): past the CPUs,
more only wait on the interpreter lock, and past a few thousand the system refuses to
start them."""


def workers_default() -> int:
    """The worker threads of ``serve`` out of order: the CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1


LINE_OVERHEAD = 1_024
"""The bytes a line in flight is counted for beyond its text: its place in the queue and
its bookkeeping (more than they take: see the test that measures them)."""
ID_OVERHEAD = 512
"""The bytes counted for each request id of a line in flight beyond its text: its
cancellation and its entries in the tables that find it (more than they take)."""


def held_size(line: str | bytes, ids: int) -> int:
    """The bytes a line in flight is counted for: its text as Python holds it (it is
    queued as read, never decoded: a decoded line takes up to some thirty times its
    bytes), its bookkeeping and that of its ``ids`` request ids."""
    return sys.getsizeof(line) + LINE_OVERHEAD + ID_OVERHEAD * ids


def _ids_and_signals(line: str | bytes) -> tuple[Decoded | str, list[Any], list[Any], bool]:
    """What the reader must know of a line before it is queued: the line decoded (or the
    answer owed to one that is not JSON), the ids of its requests, the ids its
    ``$/cancelRequest`` requests cancel, and whether an ``initialize`` asks for answers
    out of order."""
    parsed = parse(line)
    if isinstance(parsed, str):
        return parsed, [], [], False
    requests = parsed.request if isinstance(parsed.request, list) else [parsed.request]
    ids: list[Any] = []
    cancels: list[Any] = []
    opt_in = False
    for request in requests[:MAX_BATCH]:
        if not isinstance(request, dict) or invalid(request) is not None:
            continue
        params = request.get("params", {})
        if "id" in request:
            ids.append(request["id"])
        if not isinstance(params, dict):
            continue
        try:
            if request["method"] == "$/cancelRequest":
                cancels.append(cancelled_id(params))
            elif request["method"] == "initialize":
                opt_in = opt_in or asks_out_of_order(params)
        except InputError:
            pass  # answered -32602 in its turn (a notification: silently)
    return parsed, ids, cancels, opt_in


_Work = tuple[str | bytes | Decoded | None, str | None, dict[Any, Cancel], int, bool]
"""A line queued: the line (or None), the answer already made (or None), its requests'
cancellations, its size in bytes, whether the session was out of order when it was read."""


class _Session:
    """One ``serve`` run: the reader (the calling thread) queues each line as it is read,
    workers answer it. In order, one worker answers the lines one after another; out of
    order, a pool of workers answers each as soon as it is done. Either way the reader
    reads ahead (up to :data:`MAX_IN_FLIGHT` lines) so that ``$/cancelRequest`` reaches a
    request in flight."""

    def __init__(self, sink: IO[str], out_of_order: bool, workers: int,
                 max_in_flight: int) -> None:
        self.sink = sink
        self.out_of_order = out_of_order
        self.workers = max(workers, 1)
        self.max_in_flight = max(max_in_flight, 1)
        # Plain queues and threads, not an executor: a tiny request costs some 100 µs, and
        # an executor's futures would add a tenth to it.
        self.ordered: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self.pool: queue.SimpleQueue[_Work | None] | None = None
        self.threads = [self._start(self.ordered)]
        self.gate = threading.Condition()
        self.in_flight = 0
        self.bytes = 0
        self.peak = 0
        self.waiting = False
        self.write_lock = threading.Lock()
        self.cancels: dict[Any, list[Cancel]] = {}
        self.broken = False

    def _start(self, work: queue.SimpleQueue[_Work | None]) -> threading.Thread:
        thread = threading.Thread(target=self._work, args=(work,), name="trample-serve",
                                  daemon=True)
        thread.start()
        return thread

    def _work(self, work: queue.SimpleQueue[_Work | None]) -> None:
        while (item := work.get()) is not None:
            self._answer(*item)
            del item

    def _queue(self) -> queue.SimpleQueue[_Work | None]:
        if not self.out_of_order:
            return self.ordered
        if self.pool is None:
            self.pool = queue.SimpleQueue()
            self.threads += [self._start(self.pool) for _ in range(self.workers)]
        return self.pool

    def wait_for_room(self) -> None:
        """Pause reading while the cap is reached, until half of it is free again (not
        one line per answer: waking the reader for each would cost more than a tiny
        request)."""
        if self.in_flight < self.max_in_flight and self.bytes < MAX_IN_FLIGHT_BYTES:
            return  # read without the lock: only the reader raises them
        with self.gate:
            self.waiting = True
            while self.in_flight > self.max_in_flight // 2 or \
                    self.bytes > MAX_IN_FLIGHT_BYTES // 2:
                self.gate.wait()
            self.waiting = False

    def submit(self, line: str | bytes | None, answer: str | None = None) -> None:
        """Queue a line (or an answer already made, for a line refused unread); a
        ``$/cancelRequest`` in it takes effect now, whatever is queued ahead of it."""
        mine: dict[Any, Cancel] = {}
        work: str | bytes | Decoded | None = line
        size = LINE_OVERHEAD + (0 if answer is None else sys.getsizeof(answer))
        if line is not None:
            parsed, ids, cancels, opt_in = _ids_and_signals(line)
            if isinstance(parsed, str):
                work, answer = None, parsed
            del parsed  # queued as read (its bytes), decoded again when answered
            size = held_size(line, len(ids))
            with self.gate:
                for request_id in cancels:
                    for cancel in self.cancels.get(request_id, ()):
                        cancel.set()
                for request_id in ids:
                    try:
                        mine.setdefault(request_id, Cancel())
                    except TypeError:
                        continue
                for request_id, cancel in mine.items():
                    self.cancels.setdefault(request_id, []).append(cancel)
            if opt_in:
                self.out_of_order = True  # for the lines after this one; never turned off
        del line
        with self.gate:
            self.in_flight += 1
            self.bytes += size
            self.peak = max(self.peak, self.in_flight)
        self._queue().put((work, answer, mine, size, self.out_of_order))

    def _answer(self, line: str | bytes | Decoded | None, answer: str | None,
                mine: dict[Any, Cancel], size: int, out_of_order: bool) -> None:
        try:
            if line is not None and not self.broken:
                cancels = line_cancels.set(mine)
                mode = session_out_of_order.set(out_of_order)
                try:
                    with api.timed_request():  # a solve's time limit counts from here
                        answer = _respond_safely(line)
                finally:
                    session_out_of_order.reset(mode)
                    line_cancels.reset(cancels)
                del line
            if answer is not None and not self.broken:
                with self.write_lock:
                    try:
                        write_line(self.sink, answer)
                    except (BrokenPipeError, ValueError):  # a closed pipe or sink
                        self.broken = True
        finally:
            with self.gate:
                for request_id, cancel in mine.items():
                    left = self.cancels[request_id]
                    left.remove(cancel)
                    if not left:
                        del self.cancels[request_id]
                self.in_flight -= 1
                self.bytes -= size
                if self.waiting and self.in_flight <= self.max_in_flight // 2 and \
                        self.bytes <= MAX_IN_FLIGHT_BYTES // 2:
                    self.gate.notify_all()

    def abandon(self) -> None:
        """Cancel what is in flight and drop what is still queued, unanswered (no answer
        can be written, or none is wanted)."""
        self.broken = True
        with self.gate:
            for cancels in self.cancels.values():
                for cancel in cancels:
                    cancel.set()

    def finish(self, stop: bool = False) -> None:
        """Wait for every answer (or, with ``stop``, cancel what is in flight first)."""
        if stop:
            self.abandon()
        self.ordered.put(None)
        if self.pool is not None:
            for _ in range(self.workers):
                self.pool.put(None)
        for thread in self.threads:
            thread.join()


_SESSION_METHODS = ("initialize", "$/cancelRequest")


def _asks_session(request: Any) -> bool:
    """Whether a decoded line holds ``initialize`` or ``$/cancelRequest`` (alone or in a
    batch): the requests that need the session's read-ahead."""
    if type(request) is dict:
        return request.get("method") in _SESSION_METHODS
    return type(request) is list and any(
        type(item) is dict and item.get("method") in _SESSION_METHODS
        for item in request[:MAX_BATCH])


def _answer_inline(source: IO[Any] | Input, out: Output) -> str | bytes | None:
    """Answer lines in order on this thread until one asks for a session; that line
    (not yet answered), or None at the end of input."""
    while True:
        line, why = read_line(source)
        if why is not None:
            out.write(refusal(why))
            continue
        if not line:
            return None
        if line.isspace():  # blank: nothing owed (no copy of a long line)
            continue
        with api.timed_request():  # a solve's time limit counts from the line read
            try:
                parsed: Decoded | str | None = parse(line)
            except Exception:  # a bug: answered (and saved) by _respond_safely
                parsed = None
            if parsed is None:
                answer = _respond_safely(line)
            elif isinstance(parsed, str):  # the line is not JSON
                answer = parsed
            elif _asks_session(parsed.request):
                return line  # type: ignore[no-any-return]
            else:
                answer = _respond_safely(parsed)
        del line, parsed
        if answer is not None:
            out.write(answer)


def serve(stdin: IO[str] | IO[bytes] | None = None, stdout: IO[str] | None = None, *,
          out_of_order: bool = False, workers: int | None = None,
          max_in_flight: int = MAX_IN_FLIGHT, stats: dict[str, int] | None = None) -> int:
    """Answer requests line by line until end of input; the exit status.

    Standard input is read as bytes and each line decoded as strict UTF-8, so that a line
    that is not UTF-8 is answered as unparsable whatever the locale's error handler.
    Standard input (or a raw file, :class:`io.FileIO`) is read from its descriptor,
    :data:`READ_SIZE` bytes at a time, and the answers to lines read together are
    written together, in one write, and flushed: before each read (which may wait for
    input), past :data:`HOLD_BYTES`, or once the oldest has waited :data:`FLUSH_AFTER`
    (by a thread that watches them).
    Answers come in the order of the lines unless ``out_of_order`` (or an ``initialize``
    request asking for it): then each comes as soon as it is ready, from ``workers``
    threads (default: the CPUs). ``stats`` (a test hook) receives ``peak_in_flight``.
    When the output is a pipe, socket or terminal whose reader goes away, what is in
    flight is cancelled at once and nothing more is answered: no answer could arrive.
    """
    given: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin) if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    run = _Run()
    watch = OutputWatch.of(sink, run.output_closed)
    try:
        return _serve(given, stdin is None, sink, run, out_of_order=out_of_order,
                      workers=workers, max_in_flight=max_in_flight, stats=stats,
                      watched=watch is not None)
    finally:
        if watch is not None:
            watch.close()


class _Run:
    """What the thread watching the output reaches: the cancellation of the requests
    answered on the reading thread, and the session once there is one."""

    __slots__ = ("closed", "session")

    def __init__(self) -> None:
        self.closed = Cancel()
        self.session: _Session | None = None

    def output_closed(self) -> None:
        """The output's reader went away: cancel everything in flight."""
        self.closed.set()
        session = self.session
        if session is not None:
            session.abandon()


def _serve(given: IO[Any], standard: bool, sink: IO[str], run: _Run, *, out_of_order: bool,
           workers: int | None, max_in_flight: int, stats: dict[str, int] | None,
           watched: bool) -> int:
    """:func:`serve`, once the output is watched (``watched``: by a thread that calls
    ``run.output_closed``)."""
    out = Output(sink, batched=False)
    fd_input = input_of(given, standard, out.flush)
    out.batched = fd_input is not None
    source: IO[Any] | Input = given if fd_input is None else fd_input
    pending: Any = None
    if not out_of_order:
        # Until a client asks for a session (initialize, or a cancel), each line is answered
        # here, on the reading thread: a tiny request then costs no hand-over to a worker
        # (about a third more CPU), and the answers are the same. They are answered under
        # one cancellation, set when the output closes (set once here, not per request).
        closing = request_cancel.set(run.closed) if watched else None
        try:
            try:
                pending = _answer_inline(source, out)
            finally:
                if closing is not None:
                    request_cancel.reset(closing)
                try:
                    out.flush()
                finally:
                    out.close()
        except BrokenPipeError:
            return 0
        except KeyboardInterrupt:
            return 0
        if pending is None or run.closed.is_set():
            return 0
    session = _Session(sink, out_of_order, workers_default() if workers is None else workers,
                       max_in_flight)
    run.session = session
    if run.closed.is_set():  # closed before the session was there to hear of it
        session.abandon()
    stop = False
    try:
        if pending is not None:
            session.submit(pending)
            del pending
        while not session.broken:
            session.wait_for_room()
            line, why = read_line(source)
            if why is not None:
                session.submit(None, refusal(why))
                continue
            if not line:
                break
            if line.isspace():  # blank: nothing owed (no copy of a long line)
                continue
            session.submit(line)
            del line
    except KeyboardInterrupt:
        stop = True
    finally:
        with suppress(KeyboardInterrupt):
            session.finish(stop)
        if stats is not None:
            stats["peak_in_flight"] = session.peak
    return 0
