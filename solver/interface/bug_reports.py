"""Bug reports: a request that made trample fail, saved for a report.

An internal error (an answer that failed its own check, a bug) is answered with where
the request was saved: a new file, readable by its user alone, in a private folder
(``$TRAMPLE_BUG_DIR``, else the user's cache folder, else a per-user folder under the
temporary directory), at most :data:`MAX_BUG_REPORTS` a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from itertools import islice
from pathlib import Path
from typing import Any

from trample.models.document.errors import InternalError

BUG_DIR_VARIABLE = "TRAMPLE_BUG_DIR"
"""Where requests that hit an internal error are saved (default: ``$XDG_CACHE_HOME/trample/
bugs``, else ``~/.cache/trample/bugs``, else ``<tmp>/trample-bugs-<uid>``)."""
MAX_BUG_REPORTS = 1_000
"""Reports one folder holds at most; past it a report is not saved (the message says so)."""

_saved_reports: dict[str, Path] = {}
"""Reports this process saved, by the digest of their text: the same failure repeated
(a client resending a request) is saved once."""


class UnsafeFolder(Exception):
    """A bug-report folder refused: why, in words."""


def bug_folders() -> list[Path]:
    """Where a bug report may go, in order: ``$TRAMPLE_BUG_DIR`` alone when it is set; else
    the user's cache folder, then a per-user folder under the temporary directory."""
    import tempfile

    chosen = os.environ.get(BUG_DIR_VARIABLE)
    if chosen:
        return [Path(chosen)]
    folders = []
    cache = os.environ.get("XDG_CACHE_HOME")
    if cache and os.path.isabs(cache):
        folders.append(Path(cache) / "trample" / "bugs")
    else:
        with suppress(RuntimeError, KeyError):  # no home folder known: the next place
            folders.append(Path.home() / ".cache" / "trample" / "bugs")
    uid = os.geteuid() if hasattr(os, "geteuid") else os.getpid()
    folders.append(Path(tempfile.gettempdir()) / f"trample-bugs-{uid}")
    return folders


def _open_private_folder(folder: Path) -> int:
    """A descriptor of ``folder``, created 0700 when missing; refused unless it is a real
    folder (not a symbolic link) owned by this user and closed to everyone else, so that
    no other local user can plant links in it or read the requests saved there."""
    import stat

    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with suppress(FileExistsError):  # checked below, whatever it is
            folder.mkdir(mode=0o700)
    except OSError as exc:
        raise UnsafeFolder(f"{folder} cannot be created ({exc.strerror or exc})") from None
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        before = os.lstat(folder)
        if stat.S_ISLNK(before.st_mode):
            raise UnsafeFolder(f"{folder} is a symbolic link")
        if not stat.S_ISDIR(before.st_mode):
            raise UnsafeFolder(f"{folder} is not a folder")
        fd = os.open(folder, flags)
    except OSError as exc:
        raise UnsafeFolder(f"{folder} cannot be opened ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            raise UnsafeFolder(f"{folder} changed while it was checked")
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafeFolder(f"{folder} is not a folder")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise UnsafeFolder(f"{folder} belongs to another user (uid {info.st_uid})")
        if info.st_mode & 0o077:
            raise UnsafeFolder(f"{folder} is open to other users (mode "
                               f"{stat.S_IMODE(info.st_mode):04o}; it must be 0700)")
        with os.scandir(fd) as entries:
            if sum(1 for _ in islice(entries, MAX_BUG_REPORTS)) >= MAX_BUG_REPORTS:
                raise UnsafeFolder(f"{folder} already holds {MAX_BUG_REPORTS:,} reports")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_new(folder: Path, fd: int, data: bytes) -> Path:
    """``data`` in a new file of the folder, created exclusively (never an existing file,
    never through a link) and readable by this user alone; a name taken gets a new one."""
    import secrets
    import time

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(8)}.json"
        try:
            if os.open in os.supports_dir_fd:
                out = os.open(name, flags, 0o600, dir_fd=fd)
            else:  # pragma: no cover - platforms without dir_fd
                out = os.open(folder / name, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(out, "wb") as f:
            f.write(data)
        return folder / name
    raise UnsafeFolder(f"{folder}: no free name for a report")  # pragma: no cover


def save_bug_report(method: str, fields: Mapping[str, Any], error: BaseException) -> Path:
    """Save a request that made trample fail, for a bug report: ``{"method": ..., **fields,
    "error": ...}`` in a new file of a private folder (:func:`bug_folders`). Raises
    :class:`UnsafeFolder` (saying why of each folder) when no folder is safe."""
    import hashlib
    import json

    report = {"method": method, **fields, "error": f"{type(error).__name__}: {error}"[:2000]}
    data = (json.dumps(report, sort_keys=True, default=repr) + "\n").encode("utf-8",
                                                                           "surrogateescape")
    folders = bug_folders()
    digest = hashlib.sha256(repr(folders).encode() + data).hexdigest()
    known = _saved_reports.get(digest)
    if known is not None and known.exists():
        return known
    reasons = []
    for folder in folders:
        try:
            fd = _open_private_folder(folder)
        except UnsafeFolder as exc:
            reasons.append(str(exc))
            continue
        try:
            path = _write_new(folder, fd, data)
        except OSError as exc:
            reasons.append(f"{folder}: {exc.strerror or exc}")
            continue
        finally:
            os.close(fd)
        if len(_saved_reports) < MAX_BUG_REPORTS:
            _saved_reports[digest] = path
        return path
    raise UnsafeFolder("; ".join(reasons))


def bug_report_note(method: str, fields: Mapping[str, Any], error: BaseException) -> str:
    """Save a bug report (:func:`save_bug_report`) and say where, or say why it was not
    saved (no safe folder: the message is then all there is). Never raises."""
    try:
        return f"the request is saved in {save_bug_report(method, fields, error)} for a bug " \
            "report"
    except UnsafeFolder as exc:
        return f"no bug report saved: {exc}"
    except Exception as exc:  # a report must never hide the error it reports
        return f"no bug report saved: {type(exc).__name__}: {str(exc)[:200]}"


def report_bug(where: str, request: object, error: BaseException) -> str:
    """:func:`bug_report_note` for a whole request (a ``serve`` request, or its line)."""
    return bug_report_note(where, {"request": request}, error)


@contextmanager
def reporting(method: str, document: object, **options: Any) -> Iterator[None]:
    """Turn an internal error into one that says where the request was saved."""
    try:
        yield
    except InternalError as exc:
        note = bug_report_note(method, {"params": {"combat": document, **options}}, exc)
        raise InternalError(f"{exc}; {note}") from exc
