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
``serve``'s -32700 parse error). Should answering a line raise all the same (a bug), that
line gets a -32603 internal error and the batch goes on.

Work goes out in chunks of lines to a process pool (or to Ray tasks), a bounded window of
chunks in flight; answers come back and are written in input order, one flush per chunk,
so memory stays bounded whatever the size of IN, and a kill leaves OUT with whole lines
and at most one partial last line, which ``--resume`` cuts off before it skips the lines
already answered.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from itertools import islice
from multiprocessing import get_context
from typing import IO, Any, TypeVar

from trample.models.errors import InternalError, TrampleError
from trample.solver import serve

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_CHUNK_SIZE = 64
"""Requests per chunk sent to a worker process or Ray task."""
WINDOW_PER_WORKER = 2
"""Chunks in flight per worker: enough to keep each busy while the next is sent."""
NOTHING_OWED = "null"
"""The output line of an input line that ``serve`` would not answer."""


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
    return {"jsonrpc": "2.0", "error": {"code": serve.INTERNAL_ERROR,
                                        "message": f"internal error: {exc!r}"}, "id": rid}


def answer(item: object, number: int) -> dict[str, Any] | None:
    """``serve``'s response to one decoded request (None for a notification); a bare
    combat document is a ``solve`` request with id ``number``."""
    request = as_request(item, number)
    try:
        return serve.handle(request)
    except Exception as exc:  # a bug must not end the batch
        return _internal(exc, request)


def answer_line(line: bytes | str, number: int) -> str:
    """The output line (without its newline) for input line ``number`` (from 1): exactly
    ``serve``'s response line, ``null`` when ``serve`` owes none."""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError:
        respond: Callable[[Any], str | None] = serve.respond
        return respond(line) or NOTHING_OWED  # serve's parse error for a line not UTF-8
    if not text.strip():
        return NOTHING_OWED
    try:
        try:
            decoded = serve.decode(text)
        except (ValueError, RecursionError):
            found = serve.respond(text)  # the parse error, worded as serve words it
        else:
            if isinstance(decoded, dict):
                # serve.respond on an object is handle() then encode: decode only once.
                reply = answer(decoded, number)
                found = None if reply is None else serve.encode_answer(reply)
            else:
                found = serve.respond(text)
    except Exception as exc:  # a bug must not end the batch
        return serve.encode_answer(_internal(exc, None))
    return NOTHING_OWED if found is None else found


def _numbered_line(pair: tuple[int, bytes | str]) -> str:
    return answer_line(pair[1], pair[0])


def _numbered_item(pair: tuple[int, object]) -> dict[str, Any] | None:
    return answer(pair[1], pair[0])


def _run_chunk(fn: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [fn(item) for item in chunk]


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _watch_parent(parent: int) -> None:
    # A worker whose parent was killed (kill -9 of a batch) exits instead of lingering.
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _worker_start(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _local(fn: Callable[[T], R], chunks: Iterator[list[T]], workers: int) -> Iterator[list[R]]:
    if workers == 1:
        for chunk in chunks:
            yield _run_chunk(fn, chunk)
        return
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                               initializer=_worker_start, initargs=(os.getpid(),))
    pending: deque[Future[list[R]]] = deque()
    try:
        for chunk in chunks:
            pending.append(pool.submit(_run_chunk, fn, chunk))
            if len(pending) >= WINDOW_PER_WORKER * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool as exc:
        raise InternalError(f"a worker process died ({exc}); rerun with --resume to "
                            "continue a batch") from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _ray_module() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise BatchError("--ray needs Ray, which is not installed: "
                         "pip install 'trample[ray]'") from None


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
            workers: int | None) -> Iterator[list[R]]:
    with ray_session(address, workers) as ray:
        task = ray.remote(_run_chunk)
        window = WINDOW_PER_WORKER * max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending: deque[Any] = deque()
        try:
            for chunk in chunks:
                pending.append(task.remote(fn, chunk))
                if len(pending) >= window:
                    yield ray.get(pending.popleft())
            while pending:
                yield ray.get(pending.popleft())
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
    chunks = _chunks(items, chunk_size)
    if ray:
        return _on_ray(fn, chunks, ray, workers)
    return _local(fn, chunks, workers or default_workers())


def solve_many(requests_or_documents: Iterable[object], *, workers: int | None = None,
               ray: str | bool | None = None,
               chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[dict[str, Any] | None]:
    """``serve``'s response to each request, in input order, answered in parallel.

    Each item is a decoded JSON-RPC request (a dict) or a bare combat document, which
    means ``solve`` with id its position counted from 1. A notification's response is
    None. ``workers``, ``ray`` and ``chunk_size`` are those of :func:`ordered_map`.

    >>> from trample.solver.scale import solve_many
    >>> doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
    ...        "creatures": [{"id": "ogre", "controller": "ap", "power": 3,
    ...                       "toughness": 3, "attacking": "dp"}]}
    >>> [r["result"]["assignment"] for r in solve_many([doc], workers=1)]
    [[{'source': 'ogre', 'target': 'dp', 'amount': 3}]]
    """
    for chunk in ordered_map(_numbered_item, enumerate(requests_or_documents, start=1),
                             workers=workers, ray=ray, chunk_size=chunk_size):
        yield from chunk


def answer_lines(lines: Iterable[bytes | str], *, first: int = 1, workers: int | None = None,
                 ray: str | bool | None = None,
                 chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[list[str]]:
    """The output lines of ``trample batch`` for input lines numbered from ``first``, one
    list per chunk, in order."""
    return ordered_map(_numbered_line, enumerate(lines, start=first), workers=workers,
                       ray=ray, chunk_size=chunk_size)


def complete_lines(path: str) -> int:
    """The number of whole lines in the file at ``path``, after cutting off a partial
    last line (what a kill in the middle of a write leaves)."""
    whole = end = offset = 0
    with open(path, "r+b") as f:
        while block := f.read(1 << 20):
            newlines = block.count(b"\n")
            if newlines:
                whole += newlines
                end = offset + block.rindex(b"\n") + 1
            offset += len(block)
        f.truncate(end)
    return whole


def _count_lines(path: str) -> int:
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


def _progress_bar(total: int | None, done: int, wanted: bool) -> Any:
    try:
        # tqdm comes with trample's test extra; without it, batch runs without a bar.
        tqdm = importlib.import_module("tqdm").tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, initial=done, unit=" lines", file=sys.stderr,
                disable=not wanted, dynamic_ncols=True, desc="trample batch")


def _open(path: str, mode: str, what: str) -> AbstractContextManager[IO[bytes]]:
    if path == "-":  # standard input or output: used, not closed
        return nullcontext(sys.stdin.buffer if "r" in mode else sys.stdout.buffer)
    try:
        return open(path, mode)  # the caller's ExitStack closes it
    except OSError as exc:
        raise BatchError(f"{what} {path}: {exc.strerror or exc}") from None


def batch(source: str, target: str, *, resume: bool = False, workers: int | None = None,
          ray: str | bool | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE,
          progress: bool = True) -> int:
    """``trample batch``: answer every line of the file ``source`` into ``target`` (either
    may be ``-``), continuing a partial ``target`` with ``resume``; the exit status."""
    _check(workers, chunk_size)
    if resume and target == "-":
        raise BatchError("--resume needs OUT to be a file, not standard output")
    if source != "-" and target != "-" and os.path.exists(target) \
            and os.path.samefile(source, target):
        raise BatchError(f"IN and OUT are the same file: {source}")
    with ExitStack() as stack:
        src = stack.enter_context(_open(source, "rb", "IN"))
        # Connect to Ray before OUT is touched: a failure there leaves OUT as it was.
        if ray:
            stack.enter_context(ray_session(ray, workers))
        done = complete_lines(target) if resume and os.path.exists(target) else 0
        for skipped in range(done):
            if not src.readline():
                raise BatchError(f"--resume: OUT {target} has {done} lines but IN {source} "
                                 f"only {skipped}: OUT is not the batch of this IN")
        out = stack.enter_context(_open(target, "ab" if resume else "wb", "OUT"))
        total = _count_lines(source) if progress and source != "-" else None
        with _progress_bar(total, done, progress) as bar:
            for chunk in answer_lines(iter(src.readline, b""), first=done + 1,
                                      workers=workers, ray=ray, chunk_size=chunk_size):
                out.write("".join(line + "\n" for line in chunk).encode("utf-8"))
                out.flush()
                bar.update(len(chunk))
    return 0


__all__ = ["DEFAULT_CHUNK_SIZE", "BatchError", "answer", "answer_line", "answer_lines",
           "as_request", "batch", "complete_lines", "default_workers", "is_document",
           "ordered_map", "ray_session", "solve_many"]
