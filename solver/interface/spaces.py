"""The legal spaces of recently asked documents, kept for the next request.

:func:`space_of` parses a combat/1 document and derives the legal space of the side
asked; the spaces of small documents asked about more than once are kept, keyed by their
JSON text, up to :data:`SPACE_CACHE_BYTES` in all, so that a search loop's repeated
question about one combat skips the parsing and what its space derived.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from trample.models.document.combat import Combat
from trample.solver.interface.requests import parse_side, parse_time_limit, request_field
from trample.solver.optimize.objectives import parse_objective
from trample.solver.rules.legal_space import LegalSpace, held_bytes, legal_space

SPACE_CACHE_BYTES = 64 << 20
"""Memory the legal spaces kept for the next request about the same combat may hold in
all, as :func:`~trample.solver.rules.legal_space.held_bytes` estimates it (the most any
request makes a space keep, its key's text counted too): the least recently asked go
first past it. A tiny combat's space holds some 15 to 60 KiB; one with ten attackers
that may assign as though unblocked, megabytes (a mode space for each set of splits)."""
SEEN_KEYS = 1_024
"""Documents asked about once whose next request keeps their space (by key hash)."""
SPACE_CACHE_CREATURES = 16
SPACE_CACHE_CHARACTERS = 4_096
"""A document is cached only when it lists at most this many creatures and its JSON text
is at most this long: the key is that text, and a tiny combat's costs far less to write
out (well under a microsecond with orjson) than to parse and derive again."""

Key = tuple[str | bytes, str | None]
_spaces: OrderedDict[Key, tuple[LegalSpace, Any, int]] = OrderedDict()
"""The kept spaces by key, each with the JSON values its text decodes to (None: the text
needs no check, :func:`_cache_key`) and the bytes it is counted for."""
_held = 0
"""The bytes the kept spaces are counted for, in all (changed under :data:`_spaces_lock`)."""
_seen: OrderedDict[int, None] = OrderedDict()
"""Hashes of the keys of documents read once: a space is kept when its document comes
back, so that a stream of documents each asked about once evicts nothing (and keeps
nothing alive)."""
_spaces_lock = threading.Lock()
_key_encoder = json.JSONEncoder(check_circular=False, separators=(",", ":"))

documents_are_json: ContextVar[bool] = ContextVar("trample_documents_are_json",
                                                  default=False)
"""Set by a caller whose documents were just decoded from JSON text (``serve``), so hold
nothing but JSON's own types: a space found under their orjson text is theirs without
the check that any other document's text gets (:func:`space_of`)."""


_orjson: list[Any] = []
"""orjson once looked for (the module, or None when it is not installed): imported on the
first key written, so that importing the API stays light."""


def _orjson_module() -> Any:
    if not _orjson:
        try:
            _orjson.append(importlib.import_module("orjson"))
        except ImportError:  # pragma: no cover - the standard library does its work
            _orjson.append(None)
    return _orjson[0]


def _cache_key(document: object, side: object) -> Key | None:
    """The document's JSON text (with the side asked), or None when it is not a small
    document of JSON values.

    Written by orjson (bytes) when it can, else by the standard library (text); a key of
    one never equals a key of the other. Two documents of the same standard-library text
    are read alike: the reader sees JSON values (an integer of a subclass as its value, a
    tuple as a list), and the keys that the text cannot tell from strings (numbers,
    booleans, null) are refused wherever the reader looks, and do not matter where it
    does not. orjson also writes what JSON cannot hold (a NaN as null, an enumeration
    member, a UUID or a date as its value, a dataclass as an object), so a space found
    under an orjson text is taken only for a document of JSON values or one equal to
    what the text decodes to (:func:`space_of`)."""
    if type(document) is not dict or (side is not None and type(side) is not str):
        return None  # a side that is no string is refused below, never a key
    creatures = document.get("creatures")
    if type(creatures) is not list or len(creatures) > SPACE_CACHE_CREATURES:
        return None
    text: str | bytes
    fast = _orjson[0] if _orjson else _orjson_module()
    try:
        text = fast.dumps(document) if fast is not None else _key_encoder.encode(document)
    except (TypeError, ValueError, RecursionError):
        try:  # a number past 64 bits, a key that is no string: as the standard library
            text = _key_encoder.encode(document)
        except (TypeError, ValueError, RecursionError):  # not JSON values: read each time
            return None
    return (text, side) if len(text) <= SPACE_CACHE_CHARACTERS \
        and (side is None or type(side) is str) else None


def _found(key: Key, document: object) -> LegalSpace | None:
    """The space kept under ``key`` for ``document``, if any (the most recently asked)."""
    entry = _spaces.get(key)
    if entry is None:
        return None
    space, values, _ = entry
    if type(key[0]) is bytes and not documents_are_json.get():
        # orjson's text: the document must be the JSON values the text decodes to (not a
        # NaN where the text says null, nor a UUID where it says a string).
        if values is None:
            values = _orjson_module().loads(key[0])
        try:
            same = document == values
        except Exception:  # an odd value's own comparison: read it anew
            same = False
        if not same:
            return None
    with _spaces_lock:  # the most recently asked last: evicted last
        if key in _spaces:
            _spaces.move_to_end(key)
    return space


def space_of(document: Mapping[str, Any], side: object = None) -> LegalSpace:
    """Parse the document and derive the legal space for the requested side.

    Request fields the document carries are checked whichever command reads it, so a
    malformed ``objective`` or ``time_limit`` is refused by ``count`` as by ``solve``.
    The spaces of small documents asked about more than once are kept, up to
    :data:`SPACE_CACHE_BYTES` in all, the least recently asked evicted first, keyed by
    their JSON text: a
    request about a combat asked about recently (a search loop's usual question) skips
    the parsing and what the space derived (its scoring, parts, answers).
    """
    global _held
    key = _cache_key(document, side)
    if key is not None:
        found = _found(key, document)
        if found is not None:
            return found
    combat = Combat.from_json(document)
    space = legal_space(combat, parse_side(request_field(document, "side", side)))
    if document.get("objective") is not None:
        parse_objective(document["objective"], space.side)
    if document.get("time_limit") is not None:
        parse_time_limit(document["time_limit"])
    if key is not None:
        digest = hash(key)
        with _spaces_lock:
            if digest in _seen:  # its second time: worth keeping
                del _seen[digest]
                values = None
                if type(key[0]) is bytes and not documents_are_json.get():
                    values = _orjson_module().loads(key[0])
                weight = held_bytes(space) + len(key[0])
                if weight <= SPACE_CACHE_BYTES:
                    _spaces[key] = (space, values, weight)
                    _held += weight
                    while _held > SPACE_CACHE_BYTES:  # the least recently asked first
                        _held -= _spaces.popitem(last=False)[1][2]
            else:
                _seen[digest] = None
                if len(_seen) > SEEN_KEYS:
                    _seen.popitem(last=False)
    return space


def kept_bytes() -> int:
    """The memory the spaces kept by :func:`space_of` are counted for, in all (at most
    :data:`SPACE_CACHE_BYTES`)."""
    return _held


def forget_spaces() -> None:
    """Empty the cache of :func:`space_of` (tests; a caller short of memory)."""
    global _held
    with _spaces_lock:
        _spaces.clear()
        _seen.clear()
        _held = 0
