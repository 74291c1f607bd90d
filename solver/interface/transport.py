"""The input and output of ``trample serve``: lines read in bounded pieces
(:func:`read_line`, :class:`Input`), and answers written one to a line, held back and
written together while the client is still sending (:class:`Output`).
"""

from __future__ import annotations

import io
import os
import select
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import IO, Any

from trample.solver.interface.protocol import (
    INTERNAL_ERROR,
    MAX_LINE_BYTES,
    OUT_OF_MEMORY,
    PARSE_ERROR,
    TOO_LONG,
    encode,
    error_answer,
)


def write_line(sink: IO[str], answer: str, flush: bool = True) -> None:
    try:
        if len(answer) <= 4096:
            sink.write(answer + "\n")  # one call; a long answer is not copied for it
            if flush:
                sink.flush()
            return
        sink.write(answer)
    except MemoryError:  # encoding the line for the pipe: nothing of it was written
        answer = encode(error_answer(INTERNAL_ERROR, OUT_OF_MEMORY + " (writing the answer)"))
        sink.write(answer)
    sink.write("\n")
    if flush:
        sink.flush()


READ_CHUNK = 2**20
"""A line is read in pieces of at most this many bytes, so that running out of memory
while reading it leaves the input at a known place (the rest of that line is skipped)."""


def read_line(source: IO[Any] | Input) -> tuple[Any, str | None]:
    """The next line and None; ``("", None)`` at the end of input; or ``(None, why)`` for a
    line refused (longer than :data:`MAX_LINE_BYTES`, or memory ran out reading it), the
    rest of which is skipped unread."""
    pieces: list[Any] = []
    size = 0
    why: str | None = None
    chunk = READ_CHUNK
    failures = 0
    while True:
        try:
            piece = source.readline(chunk)
        except MemoryError:
            pieces = []
            why = why or "out of memory reading this line; the server goes on"
            chunk, failures = 4096, failures + 1
            if failures > 100:
                raise
            continue
        failures = 0
        if not piece:
            break
        ends = piece[-1:] in (b"\n", "\n")
        size += len(piece) - ends
        if why is None and size > MAX_LINE_BYTES:
            pieces = []
            why = TOO_LONG
        elif why is None:
            pieces.append(piece)
        if ends:
            break
    if why is not None:
        return None, why
    if len(pieces) < 2:
        return (pieces[0] if pieces else ""), None
    try:
        return pieces[0][:0].join(pieces), None
    except MemoryError:
        pass
    return None, "out of memory reading this line; the server goes on"


def refusal(why: str) -> str:
    """The answer line to a line :func:`read_line` refused (``why``): -32700 for a line
    too long, -32603 when memory ran out reading it; ``id`` null, since it was not read."""
    code = INTERNAL_ERROR if why.startswith("out of memory") else PARSE_ERROR
    return encode(error_answer(code, why))


FLUSH_AFTER = 0.02
"""Seconds an answer written on the reading thread may wait in the output buffer (about;
at most twice this) while the lines after it are answered; it goes out sooner when the
reader may wait for input. A thread looks every this many seconds while answers are held:
each look takes the interpreter from the reading thread, so it is not much shorter."""


HOLD_BYTES = 2**16
"""The most bytes of answers :class:`Output` holds back; past it they go out at once (a
longer answer goes out as it is, not copied)."""


class Output:
    """The answers written on the reading thread. With ``batched`` (the input is read by
    :class:`Input`, which says when it may wait) the answers are held and written out
    together, in one write, before the reader may wait, past :data:`HOLD_BYTES`, or
    (by a watching thread) once the oldest is :data:`FLUSH_AFTER` old, so that a slow
    request does not hold them back: a pipelined client's answers go out many to a
    system call (each wakes the client), even to an unbuffered standard output.
    Otherwise each answer is flushed as it is written."""

    __slots__ = ("batched", "lock", "parked", "parts", "since", "sink", "size", "stop",
                 "wake", "watcher")

    def __init__(self, sink: IO[str], batched: bool) -> None:
        self.sink = sink
        self.batched = batched
        self.parts: list[str] = []
        self.size = 0
        self.since = 0.0
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.watcher: threading.Thread | None = None
        self.parked = True

    def write(self, answer: str) -> None:
        """Write one answer line (now, or held for :meth:`flush`)."""
        if not self.batched:
            write_line(self.sink, answer)
            return
        with self.lock:
            if len(answer) > HOLD_BYTES:
                self._flush()
                write_line(self.sink, answer)
                return
            self.parts.append(answer)
            self.size += len(answer) + 1
            if self.size > HOLD_BYTES:
                self._flush()
            elif len(self.parts) == 1:
                self.since = time.monotonic()
                if self.parked:  # the watcher sleeps until answers are held again
                    self.parked = False
                    if self.watcher is None:
                        self.watcher = threading.Thread(target=self._watch, daemon=True,
                                                        name="trample-serve-flush")
                        self.watcher.start()
                    self.wake.set()

    def flush(self) -> None:
        """Write out and flush the answers held, if any."""
        if self.parts:
            with self.lock:
                self._flush()

    def _flush(self) -> None:
        if not self.parts:
            return
        parts, self.parts, self.size = self.parts, [], 0
        parts.append("")  # the last line's newline
        try:
            self.sink.write("\n".join(parts))
        except MemoryError:  # joining or encoding them: nothing was written
            del parts[-1]
            for answer in parts:  # one at a time, as write_line writes them
                write_line(self.sink, answer, flush=False)
        self.sink.flush()

    def _watch(self) -> None:
        """The watching thread: while answers come, look every :data:`FLUSH_AFTER` for
        held ones that old (not woken for each batch: a pipelined stream would wake it
        hundreds of times a second); park when none are held."""
        while True:
            self.wake.wait()
            with self.lock:
                self.wake.clear()  # under the lock: a write sets it again after this
            while not self.stop.wait(FLUSH_AFTER):
                with self.lock:
                    if not self.parts:
                        self.parked = True
                        break
                    if time.monotonic() - self.since >= FLUSH_AFTER:
                        # A closed pipe or sink: the reading thread meets it at its next
                        # write or flush.
                        with suppress(Exception):
                            self._flush()
            if self.stop.is_set():
                return

    def close(self) -> None:
        """Stop the watching thread (what is held stays held: :meth:`flush` first)."""
        self.stop.set()
        self.wake.set()
        if self.watcher is not None:
            self.watcher.join()


READ_SIZE = 2**13
"""The most bytes :class:`Input` asks the operating system for at a time: some sixteen
tiny requests, so that each flush carries as many answers; not the pipe's whole
capacity, which would leave the client's writer nothing queued while it catches up."""


class Input:
    """The lines of a file descriptor, read :data:`READ_SIZE` bytes at a time; before each
    read (which may wait for the client) ``before_wait`` runs: it flushes the answers
    held back, so that no answer waits for input that may never come."""

    __slots__ = ("before_wait", "buffer", "fd", "start")

    def __init__(self, fd: int, before_wait: Callable[[], None]) -> None:
        self.fd = fd
        self.before_wait = before_wait
        self.buffer = b""
        self.start = 0

    def readline(self, limit: int) -> bytes:
        """At most ``limit`` bytes, up to and including the next newline; ``b""`` at the
        end of input (as :meth:`io.BufferedReader.readline`). Running out of memory
        leaves the newline that ends a line unread."""
        buffer, start = self.buffer, self.start
        end = buffer.find(b"\n", start, start + limit)
        if end >= 0:  # the usual case: the line is here
            piece = buffer[start:end + 1]
            self.start = end + 1
            return piece
        pieces = [buffer[start:start + limit]]
        self.start = min(len(buffer), start + limit)
        have = len(pieces[0])
        while have < limit:
            self.before_wait()
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:  # a descriptor left non-blocking: wait as a read would
                select.select([self.fd], [], [])
                continue
            if not data:
                break
            self.buffer, self.start = data, 0
            end = data.find(b"\n", 0, limit - have)
            take = end + 1 if end >= 0 else min(len(data), limit - have)
            pieces.append(data[:take])
            have += take
            if end >= 0:
                line = b"".join(pieces)
                self.start = take
                return line
            self.start = take
        return b"".join(pieces)


def input_of(source: IO[Any], standard: bool,
             before_wait: Callable[[], None]) -> Input | None:
    """An :class:`Input` reading ``source``'s file descriptor: for the process's standard
    input (``standard``: read by nothing before, so its buffer holds nothing) or a raw
    binary file (no buffer of its own); None for any other source."""
    if not isinstance(source, io.FileIO) and not (
            standard and isinstance(source, io.BufferedReader)):
        return None
    try:
        return Input(source.fileno(), before_wait)
    except (OSError, ValueError):  # no descriptor (closed, or not a real file)
        return None


class OutputWatch:
    """A thread that calls ``on_closed`` once, when the reading end of the output
    (a pipe, a socket, a terminal) goes away: the system then reports an error or a
    hang-up on the descriptor, which :func:`select.poll` waits for without asking for
    anything else (a regular file never reports either). :meth:`close` ends the watch."""

    __slots__ = ("fd", "on_closed", "thread", "wake")

    def __init__(self, fd: int, on_closed: Callable[[], None]) -> None:
        self.fd = fd
        self.on_closed = on_closed
        self.wake = os.pipe()  # written to by close(), so the thread never waits on a clock
        self.thread = threading.Thread(target=self._watch, daemon=True,
                                       name="trample-serve-output")
        self.thread.start()

    @classmethod
    def of(cls, sink: IO[str], on_closed: Callable[[], None]) -> OutputWatch | None:
        """A watch of ``sink``'s descriptor; None when it has none (a string buffer)."""
        if not hasattr(select, "poll"):  # pragma: no cover - every POSIX system has it
            return None
        try:
            fd = sink.fileno()
        except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation included
            return None
        return cls(fd, on_closed)

    def _watch(self) -> None:
        poller = select.poll()
        poller.register(self.fd, 0)  # errors and hang-ups only: they are always reported
        poller.register(self.wake[0], select.POLLIN)
        gone = select.POLLERR | select.POLLHUP | select.POLLNVAL
        while True:
            for fd, events in poller.poll():
                if fd == self.wake[0]:
                    return
                if events & gone:
                    self.on_closed()
                    return

    def close(self) -> None:
        """End the watch (and its thread)."""
        os.write(self.wake[1], b"x")
        self.thread.join()
        for fd in self.wake:
            os.close(fd)
