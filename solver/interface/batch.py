"""Batch runs: many requests answered on every local core, or as tasks on a Ray cluster.

``trample batch IN OUT`` reads JSON lines and writes, for input line *i*, output line *i*:

- a JSON-RPC request (or a JSON-RPC array of them) gets exactly the line ``trample serve``
  answers to it, errors included;
- a *bare combat document* (a JSON object with a ``creatures`` key and neither
  ``jsonrpc`` nor ``method``) means ``solve`` on it: it is answered as the request
  ``{"jsonrpc": "2.0", "method": "solve", "params": {"combat": DOC}, "id": i}`` would be,
  ``i`` being its line number in IN, counted from 1 (top-level ``side``, ``objective``
  and ``time_limit`` of the document apply, as on the command line);
- a line ``serve`` owes nothing (a notification, a blank line, an array of notifications)
  gets the line ``null``, so that OUT always has one line per input line: line *i* of
  OUT answers line *i* of IN, which is what ``--resume`` counts on.

Lines are split on ``\\n`` only and read as UTF-8 (a line that is not UTF-8 gets
``serve``'s -32700 parse error), each read bounded as ``serve`` reads it: a line longer
than ``protocol.MAX_LINE_BYTES`` is skipped unread and gets ``serve``'s -32700 refusal.
Should answering a line raise all the same (a bug), that line gets a -32603 internal
error and the batch goes on.

Work goes out in chunks of lines (at most ``chunk_size`` lines and, but for one long
line, :data:`CHUNK_BYTES` bytes) to a process pool (or to Ray tasks), a bounded window
of chunks in flight; answers come back and are written in input order, one flush per
chunk, so memory stays bounded whatever the size of IN, and a kill leaves OUT with whole
lines and at most one partial last line, which ``--resume`` cuts off before it skips the
lines already answered.

OUT is checked before it is touched (not IN, not a directory; a file with content only
with ``--resume`` or ``--force``); a new OUT is a new file renamed over the old one, and
reading or writing errors (a full disk) are :class:`BatchError`, exit status 2.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager, suppress
from itertools import islice
from multiprocessing import get_context
from typing import IO, Any, TypeVar

from trample.models.document.errors import InternalError, TrampleError
from trample.solver.interface import protocol, serve, transport

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_CHUNK_SIZE = 64
"""Requests per chunk sent to a worker process or Ray task."""
WINDOW_PER_WORKER = 2
"""Chunks in flight per worker: enough to keep each busy while the next is sent."""
NOTHING_OWED = "null"
"""The output line of an input line that ``serve`` would not answer."""
CHUNK_BYTES = 16 * 2**20
"""A chunk of input lines closes once it holds this many bytes, whatever its line count,
so that long lines do not multiply the memory in flight by the chunk size; so do its
answers (a worker stops once the answers it has hold this many bytes, and the lines
left go out again as a chunk of their own), since one line may be answered with many
megabytes (``enumerate``)."""


class BatchError(TrampleError):
    """Bad usage of a batch run (a missing file, Ray not installed...): exit status 2."""


def default_workers() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def is_document(item: object) -> bool:
    """Whether a decoded line is a bare combat document (meaning ``solve``) rather than a
    JSON-RPC request: an object with ``creatures`` and neither ``jsonrpc`` nor ``method``."""
    return isinstance(item, dict) and "creatures" in item \
        and "jsonrpc" not in item and "method" not in item


def as_request(item: object, number: int) -> object:
    """The request an item stands for: a bare document becomes ``solve`` with id
    ``number``; anything else is left as it is."""
    if is_document(item):
        return {"jsonrpc": "2.0", "method": "solve", "params": {"combat": item}, "id": number}
    return item


def _internal(exc: BaseException, request: object) -> dict[str, Any]:
    rid = request.get("id") if isinstance(request, dict) else None
    if not isinstance(rid, (str, int, float)) or isinstance(rid, bool):
        rid = None
    return {"jsonrpc": "2.0", "error": {"code": protocol.INTERNAL_ERROR,
                                        "message": f"internal error: {exc!r}"}, "id": rid}


def answer(item: object, number: int) -> dict[str, Any] | None:
    """``serve``'s response to one decoded request (None for a notification); a bare
    combat document is a ``solve`` request with id ``number``."""
    request = as_request(item, number)
    try:
        return serve.handle(request)
    except Exception as exc:  # a bug must not end the batch
        return _internal(exc, request)


def answer_line(line: bytes | str | None, number: int) -> str:
    """The output line (without its newline) for input line ``number`` (from 1): exactly
    ``serve``'s response line, ``null`` when ``serve`` owes none. ``None`` stands for a
    line longer than ``protocol.MAX_LINE_BYTES``, which :func:`read_lines` skipped unread."""
    if line is None:
        return transport.refusal(protocol.TOO_LONG)
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError:
        respond: Callable[[Any], str | None] = serve.respond
        return respond(line) or NOTHING_OWED  # serve's parse error for a line not UTF-8
    if not text.strip():
        return NOTHING_OWED
    try:
        try:
            decoded = protocol.decode(text)
        except (ValueError, RecursionError):
            decoded = None  # serve.respond words the parse error
        if is_document(decoded):
            # The solve request it stands for, answered by serve's own handle and encoding
            # (what serve.respond does with a decoded object).
            reply = serve.handle(as_request(decoded, number))
            found = None if reply is None else protocol.encode_answer(reply)
        else:
            found = serve.respond(text)  # serve's per-line function, whatever the line
    except Exception as exc:  # a bug must not end the batch
        return protocol.encode_answer(_internal(exc, None))
    return NOTHING_OWED if found is None else found


def read_lines(stream: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of ``stream`` (``\\n`` kept), read as ``serve`` reads them (none whole past
    ``protocol.MAX_LINE_BYTES``): a line it refuses is skipped unread and stands as ``None``,
    so that memory stays bounded whatever a line's length."""
    while True:
        line, why = transport.read_line(stream)
        if why is not None:
            yield None
        elif not line:
            return
        else:
            yield line


def _numbered_line(pair: tuple[int, bytes | None]) -> str:
    return answer_line(pair[1], pair[0])


def _numbered_item(pair: tuple[int, object]) -> dict[str, Any] | None:
    return answer(pair[1], pair[0])


def _run_chunk(fn: Callable[[T], R], chunk: list[T], budget: int | None = None) -> list[R]:
    """``fn`` of the items of ``chunk`` in order; with ``budget``, only until the answers
    (text) hold that many characters, at least one: the caller sends the rest again."""
    if budget is None:
        return [fn(item) for item in chunk]
    results: list[R] = []
    held = 0
    for item in chunk:
        results.append(fn(item))
        last = results[-1]
        held += len(last) if isinstance(last, str) else 0
        if held >= budget:
            break
    return results


class _Chunks:
    """The chunks in flight, in input order: each with the items it was sent with, so
    that the items a worker left unanswered (its answers reached the byte budget) go
    out again, ahead of every later chunk."""

    def __init__(self, submit: Callable[[list[Any]], Any], wait: Callable[[Any], list[Any]]
                 ) -> None:
        self.submit, self.wait = submit, wait
        self.pending: deque[tuple[list[Any], Any]] = deque()

    def __len__(self) -> int:
        return len(self.pending)

    def add(self, chunk: list[Any]) -> None:
        """Send a chunk (after those in flight)."""
        self.pending.append((chunk, self.submit(chunk)))

    def next(self) -> list[Any]:
        """The answers of the oldest chunk in flight, or of its first part."""
        chunk, handle = self.pending.popleft()
        results = self.wait(handle)
        if len(results) < len(chunk):
            rest = chunk[len(results):]
            self.pending.appendleft((rest, self.submit(rest)))
        return results


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _line_chunks(pairs: Iterable[tuple[int, bytes | None]],
                 size: int) -> Iterator[list[tuple[int, bytes | None]]]:
    # Chunks of at most `size` lines and (but for a single long line) CHUNK_BYTES bytes.
    chunk: list[tuple[int, bytes | None]] = []
    held = 0
    for pair in pairs:
        chunk.append(pair)
        held += len(pair[1] or b"")
        if len(chunk) >= size or held >= CHUNK_BYTES:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def _watch_parent(parent: int) -> None:
    # A worker whose parent was killed (kill -9 of a batch) exits instead of lingering.
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _worker_start(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _local(fn: Callable[[T], R], chunks: Iterator[list[T]], workers: int,
           budget: int | None = None) -> Iterator[list[R]]:
    if workers == 1:
        for chunk in chunks:
            while chunk:
                results = _run_chunk(fn, chunk, budget)
                chunk = chunk[len(results):]
                yield results
        return
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                               initializer=_worker_start, initargs=(os.getpid(),))

    def wait(future: Future[list[R]]) -> list[R]:
        return future.result()

    pending = _Chunks(lambda chunk: pool.submit(_run_chunk, fn, chunk, budget), wait)
    interrupted = False
    try:
        for chunk in chunks:
            pending.add(chunk)
            while len(pending) >= WINDOW_PER_WORKER * workers:
                yield pending.next()
        while pending:
            yield pending.next()
    except BrokenProcessPool as exc:
        raise InternalError(f"a worker process died ({exc}); rerun with --resume to "
                            "continue a batch") from None
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # The chunks not started are cancelled. Unless interrupted, wait for the pool's
        # manager thread to end: left running, it closes its wake-up pipe while the
        # interpreter's exit hook for process pools writes to it (CPython 3.11), which
        # printed a traceback after the one-line error of an OUT that fills up.
        pool.shutdown(wait=not interrupted, cancel_futures=True)


def _ray_module() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise BatchError("--ray needs Ray, which is not installed: "
                         "pip install '.[ray]' in a clone of trample") from None


def _reachable(address: str) -> None:
    # ray.init retries an unreachable address for ever: fail at once instead.
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as exc:
        raise BatchError(f"--ray {address}: cannot reach it ({exc.strerror or exc})") from None


@contextmanager
def ray_session(address: str | bool = True, workers: int | None = None) -> Iterator[Any]:
    """The ``ray`` module, connected: to the cluster at ``address``, or (True or
    ``"local"``) to a new local Ray with ``workers`` CPUs (default all), shut down on
    exit; when this process is already connected, that connection, left open."""
    ray = _ray_module()
    if ray.is_initialized():
        yield ray
        return
    where = "local" if address is True else str(address)
    _reachable(where)
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if where == "local":
        options.update(num_cpus=workers, include_dashboard=False)
    try:
        ray.init(address=where, **options)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise BatchError(f"--ray {where}: {exc}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _on_ray(fn: Callable[[T], R], chunks: Iterator[list[T]], address: str | bool,
            workers: int | None, budget: int | None = None) -> Iterator[list[R]]:
    with ray_session(address, workers) as ray:
        task = ray.remote(_run_chunk)
        window = WINDOW_PER_WORKER * max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending = _Chunks(lambda chunk: task.remote(fn, chunk, budget), ray.get)
        try:
            for chunk in chunks:
                pending.add(chunk)
                while len(pending) >= window:
                    yield pending.next()
            while pending:
                yield pending.next()
        except ray.exceptions.RayError as exc:
            raise InternalError(f"a Ray task failed ({exc}); rerun with --resume to "
                                "continue a batch") from None


def _check(workers: int | None, chunk_size: int) -> None:
    if chunk_size < 1:
        raise BatchError(f"chunk size must be at least 1, not {chunk_size}")
    if workers is not None and workers < 1:
        raise BatchError(f"workers must be at least 1, not {workers}")


def ordered_map(fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None,
                ray: str | bool | None = None,
                chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[list[R]]:
    """``fn`` over ``items`` in parallel, results in input order, one list per chunk.

    Local processes by default (``workers``, default every usable core; 1 runs in this
    process); with ``ray`` (True or ``"local"``: start a local Ray with ``workers`` CPUs;
    an address: connect to that cluster; already connected: use that), Ray tasks. At
    most a few chunks per worker are in flight, so ``items`` may be endless. ``fn`` and
    the items must pickle (a module-level function does).
    """
    _check(workers, chunk_size)
    return _dispatch(fn, _chunks(items, chunk_size), workers, ray)


def _dispatch(fn: Callable[[T], R], chunks: Iterator[list[T]], workers: int | None,
              ray: str | bool | None, budget: int | None = None) -> Iterator[list[R]]:
    if ray:
        return _on_ray(fn, chunks, ray, workers, budget)
    return _local(fn, chunks, workers or default_workers(), budget)


def solve_many(requests_or_documents: Iterable[object], *, workers: int | None = None,
               ray: str | bool | None = None,
               chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[dict[str, Any] | None]:
    """``serve``'s response to each request, in input order, answered in parallel.

    Each item is a decoded JSON-RPC request (a dict) or a bare combat document, which
    means ``solve`` with id its position counted from 1. A notification's response is
    None. ``workers``, ``ray`` and ``chunk_size`` are those of :func:`ordered_map`.

    >>> from trample.solver.interface.batch import solve_many
    >>> doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
    ...        "creatures": [{"id": "ogre", "controller": "ap", "power": 3,
    ...                       "toughness": 3, "attacking": "dp"}]}
    >>> [r["result"]["assignment"] for r in solve_many([doc], workers=1)]
    [[{'source': 'ogre', 'target': 'dp', 'amount': 3}]]
    """
    for chunk in ordered_map(_numbered_item, enumerate(requests_or_documents, start=1),
                             workers=workers, ray=ray, chunk_size=chunk_size):
        yield from chunk


def answer_lines(lines: Iterable[bytes | None], *, first: int = 1, workers: int | None = None,
                 ray: str | bool | None = None,
                 chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[list[str]]:
    """The output lines of ``trample batch`` for input lines numbered from ``first`` (as
    :func:`read_lines` gives them), one list per chunk, in order."""
    _check(workers, chunk_size)
    return _dispatch(_numbered_line, _line_chunks(enumerate(lines, start=first), chunk_size),
                     workers, ray, CHUNK_BYTES)


def _whole_lines(path: str) -> tuple[int, int]:
    # The whole lines of a file and the offset just past the last of them; read only.
    whole = end = offset = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            newlines = block.count(b"\n")
            if newlines:
                whole += newlines
                end = offset + block.rindex(b"\n") + 1
            offset += len(block)
    return whole, end


def complete_lines(path: str) -> int:
    """The number of whole lines in the file at ``path``, after cutting off a partial
    last line (what a kill in the middle of a write leaves)."""
    whole, end = _whole_lines(path)
    os.truncate(path, end)
    return whole


def _count_lines(path: str) -> int:
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


class _Progress:
    """A progress line on standard error, redrawn in place at most every ``every``
    seconds; :meth:`close` draws the final count once (unless it is already the one
    drawn) and ends the line."""

    def __init__(self, total: int | None, done: int, stream: IO[str],
                 every: float = 0.5) -> None:
        self.total, self.done, self.stream, self.every = total, done, stream, every
        self.start = self.last = time.monotonic()
        self.first = done
        self.drawn: int | None = None

    def _draw(self) -> None:
        text = f"trample: batch: {self.done:,}"
        if self.total is not None:
            share = self.done / self.total if self.total else 1.0
            text += f"/{self.total:,} lines ({share:.0%})"
        else:
            text += " lines"
        elapsed = time.monotonic() - self.start
        if elapsed > 0 and self.done > self.first:
            text += f", {(self.done - self.first) / elapsed:,.0f} lines/s"
        self.stream.write("\r" + text.ljust(60))
        self.stream.flush()
        self.drawn = self.done

    def update(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._draw()

    def close(self) -> None:
        if self.drawn != self.done:
            self._draw()
        self.stream.write("\n")
        self.stream.flush()


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _in_error(path: str, exc: OSError) -> BatchError:
    name = "standard input" if path == "-" else path
    return BatchError(f"IN {name}: {exc.strerror or exc}")


def _out_error(path: str, exc: OSError) -> BatchError:
    name = "standard output" if path == "-" else path
    return BatchError(f"OUT {name}: {exc.strerror or exc}")


def _open_in(source: str) -> IO[bytes]:
    if source == "-":
        return sys.stdin.buffer
    try:
        return open(source, "rb")  # the caller closes it
    except OSError as exc:
        raise _in_error(source, exc) from None


def _check_out(source: str, in_stat: os.stat_result, target: str, *, resume: bool,
               force: bool) -> os.stat_result | None:
    """OUT's status when it exists (None when it does not); BatchError when OUT may not
    be written: the same file as IN, a directory, or a file with content that neither
    --resume nor --force allows to touch."""
    in_name = "standard input" if source == "-" else source
    if target == "-":
        try:
            out_stat = os.fstat(sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            return None
        if stat.S_ISREG(out_stat.st_mode) and _same(in_stat, out_stat):
            raise BatchError(f"IN {in_name} and OUT (standard output) are the same file")
        return out_stat
    try:
        out_stat = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _out_error(target, exc) from None
    if _same(in_stat, out_stat):
        raise BatchError(f"IN {in_name} and OUT {target} are the same file")
    if stat.S_ISDIR(out_stat.st_mode):
        raise BatchError(f"OUT {target}: is a directory")
    if stat.S_ISREG(out_stat.st_mode) and out_stat.st_size and not (resume or force):
        raise BatchError(f"OUT {target} already exists: --resume continues it, --force "
                         "replaces it")
    return out_stat


def _replace(target: str, old: os.stat_result | None) -> IO[bytes]:
    """A new empty file put in place of ``target`` (a regular file or none).

    It is made beside OUT and renamed over it: OUT's old content is replaced in one step,
    only once every check has passed; a reader still holding the old file (IN given as
    ``-`` when it was OUT) keeps reading it whole.
    """
    real = os.path.realpath(target)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.",
                                    suffix=".partial", dir=os.path.dirname(real))
    except OSError as exc:
        raise _out_error(target, exc) from None
    try:
        if old is not None:
            mode = stat.S_IMODE(old.st_mode)
        else:
            umask = os.umask(0o022)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        os.replace(temp, real)
    except OSError as exc:
        os.close(fd)
        with suppress(OSError):
            os.unlink(temp)
        raise _out_error(target, exc) from None
    return os.fdopen(fd, "wb")


@contextmanager
def _answers_only_on_stdout() -> Iterator[IO[bytes]]:
    """Where answers written to standard output go. When standard output is the
    process's descriptor 1, descriptor 1 itself is pointed at standard error until the
    end, so that what else writes there (Ray's processes, which inherit it, and print
    their messages among the answers; a C library's log) goes to standard error, and
    the answers go to a copy of the real standard output: line *i* answers line *i*."""
    try:
        sys.stdout.flush()
        real = sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):  # no descriptor: a stand-in (tests)
        real = False
    if not real:
        yield sys.stdout.buffer
        return
    answers_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        with open(answers_fd, "wb", closefd=False) as answers:
            yield answers
    finally:
        with suppress(OSError, ValueError):
            sys.stdout.flush()  # what was printed meanwhile goes to standard error
        os.dup2(answers_fd, 1)
        os.close(answers_fd)


def _open_out(target: str, old: os.stat_result | None, resume_at: int | None,
              stdout: IO[bytes] | None = None) -> IO[bytes]:
    if target == "-":
        return sys.stdout.buffer if stdout is None else stdout
    try:
        if resume_at is not None:
            f = open(target, "r+b")  # noqa: SIM115 - the caller closes it
            f.truncate(resume_at)  # the partial last line a kill left
            f.seek(resume_at)
            return f
        if old is not None and not stat.S_ISREG(old.st_mode):
            return open(target, "wb")  # a device or pipe: as it is
    except OSError as exc:
        raise _out_error(target, exc) from None
    return _replace(target, old)


def batch(source: str, target: str, *, resume: bool = False, force: bool = False,
          workers: int | None = None, ray: str | bool | None = None,
          chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True) -> int:
    """``trample batch``: answer every line of the file ``source`` into ``target`` (either
    may be ``-``); the exit status.

    An OUT file with content is refused unless ``resume`` (continue it: keep its whole
    lines, answer the rest of IN) or ``force`` (replace it). OUT is refused when it is IN
    (standard input included, compared by device and inode) or a directory. Nothing in
    OUT changes before every check has passed: a new OUT is a new file renamed over the
    old one; a resumed OUT loses its partial last line only once it has been accepted.
    An error reading IN or writing OUT (a full disk, say) is a BatchError (exit 2).
    """
    _check(workers, chunk_size)
    if resume and force:
        raise BatchError("--resume and --force exclude each other: --resume continues OUT, "
                         "--force replaces it")
    if resume and target == "-":
        raise BatchError("--resume needs OUT to be a file, not standard output")
    with ExitStack() as stack:
        src = _open_in(source)
        if source != "-":
            stack.enter_context(src)
        try:
            in_stat = os.fstat(src.fileno())
        except OSError as exc:
            raise _in_error(source, exc) from None
        old = _check_out(source, in_stat, target, resume=resume, force=force)
        if resume and old is not None and not stat.S_ISREG(old.st_mode):
            raise BatchError(f"--resume needs OUT to be a regular file: {target} is not")
        # Standard output carries the answers only, from before Ray's processes start.
        stdout = stack.enter_context(_answers_only_on_stdout()) if target == "-" else None
        # Connect to Ray before OUT is touched: a failure there leaves OUT as it was.
        if ray:
            stack.enter_context(ray_session(ray, workers))
        lines = _reading(read_lines(src), source)
        done, resume_at = 0, None
        if resume and old is not None:
            try:
                done, resume_at = _whole_lines(target)
            except OSError as exc:
                raise _out_error(target, exc) from None
            skipped = sum(1 for _ in islice(lines, done))
            if skipped < done:
                raise BatchError(f"--resume: OUT {target} has {done} lines but IN {source} "
                                 f"only {skipped}: OUT is not the batch of this IN")
        # Every check has passed: only now is OUT written.
        out = _open_out(target, old, resume_at, stdout)
        if target != "-":
            stack.enter_context(out)
        total = None
        if progress and source != "-" and stat.S_ISREG(in_stat.st_mode):
            total = _count_lines(source)  # a pipe or device IN is not read twice
        bar = _Progress(total, done, sys.stderr) if progress else None
        try:
            for chunk in answer_lines(lines, first=done + 1, workers=workers, ray=ray,
                                      chunk_size=chunk_size):
                try:
                    out.write("".join(line + "\n" for line in chunk).encode("utf-8"))
                    out.flush()
                except BrokenPipeError:
                    raise
                except OSError as exc:
                    _abandon(out)
                    raise _out_error(target, exc) from None
                if bar is not None:
                    bar.update(len(chunk))
        finally:
            if bar is not None:
                bar.close()
        if target != "-":
            try:
                out.close()
            except OSError as exc:
                raise _out_error(target, exc) from None
    return 0


def _abandon(out: IO[bytes]) -> None:
    # After a failed write, close OUT at once: its buffer's flush fails again here, but
    # the file is closed all the same, and nothing is left to fail at exit.
    with suppress(OSError, ValueError):
        out.close()


def _reading(lines: Iterator[bytes | None], source: str) -> Iterator[bytes | None]:
    # An error reading IN is the environment's: exit 2 with its reason.
    try:
        yield from lines
    except OSError as exc:
        raise _in_error(source, exc) from None


__all__ = ["DEFAULT_CHUNK_SIZE", "BatchError", "answer", "answer_line", "answer_lines",
           "as_request", "batch", "complete_lines", "default_workers", "is_document",
           "ordered_map", "ray_session", "read_lines", "solve_many"]
