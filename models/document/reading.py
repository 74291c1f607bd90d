"""Reading JSON into typed values: one field-path toolkit for every document trample reads.

The combat/1 document, the game state, actions and assignments are all read with these
helpers, so that every refusal has the same wording and names the full path of a field
that exists in the input (``creatures[2].blocking[0]``, ``state.players[1].life``), and
every integer obeys the same bound (:data:`MAX_MAGNITUDE`).

Integers are taken from any :class:`numbers.Integral` except ``bool`` (NumPy integers
included) and handed on as plain ``int``.
"""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from trample.models.document.errors import InputError

# Every integer read must have a magnitude of at most MAX_MAGNITUDE, so that sums over a
# whole combat stay far inside 64-bit arithmetic in the CP-SAT model, and so that nothing
# trample writes (a game state after a transition) ever grows past what it reads.
MAX_MAGNITUDE = 2**40
MAGNITUDE_TEXT = "2^40"
MAX_OBJECTS = 20_000
"""Entries of one list (players, creatures, cards in a zone, ...)."""
MAX_ID_LENGTH = 200
MAX_TEXT_LENGTH = 1_000
"""Names, keywords and other short strings."""
MAX_LONG_TEXT_LENGTH = 100_000
"""Rules text (a card's ``oracle_text``)."""

MISSING: Any = object()
"""The value of a field that is absent (distinct from null)."""


class _BriefRepr(reprlib.Repr):
    """``repr`` cut short: bounded depth and length, and no decimal conversion of an
    integer past Python's digit limit (which would raise ValueError)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = 60
        self.maxother = 60
        self.maxlong = 60

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:
            return int_text(x)
        return super().repr_int(x, level)


_BRIEF = _BriefRepr()


def brief_repr(value: object) -> str:
    """``repr(value)`` for an error message: short, and safe on any hostile value (deep
    nesting, huge integers, long strings)."""
    return _BRIEF.repr(value)


def int_text(value: int) -> str:
    """An integer for an error message: its digits, or its size when it has very many."""
    if value.bit_length() <= 400:
        return str(value)
    digits = int(value.bit_length() * 0.30103) + 1  # log10(2): within one of the truth
    return f"{'a negative' if value < 0 else 'an'} integer of about {digits} digits"


def field_name(key: object) -> str:
    """A document key as it appears in an error path (quoted unless a plain name)."""
    if isinstance(key, str) and key.isidentifier() and len(key) <= MAX_ID_LENGTH:
        return key
    return brief_repr(key)


def join(path: str, key: str) -> str:
    """``path.key`` (just ``key`` at the top level)."""
    return f"{path}.{key}" if path else key


def describe(value: object) -> str:
    """What a JSON value is, for a message (``an integer``, ``a list``, ``null``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, numbers.Integral):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction" if not value.is_integer() else "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


def is_integer(value: object) -> bool:
    """An integer of any integral type (NumPy's included), not a boolean."""
    return type(value) is int or (isinstance(value, numbers.Integral)
                                  and not isinstance(value, bool))


def check_int(value: object, path: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """``value`` as an int, refused (InputError at ``path``) unless it is an integer of
    magnitude at most :data:`MAX_MAGNITUDE` within ``minimum`` and ``maximum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(path, f"must be an integer, not {describe(value)}")
    value = int(value)
    if abs(value) > MAX_MAGNITUDE:
        raise InputError(path, f"{int_text(value)} is out of range (magnitude at most "
                         f"{MAGNITUDE_TEXT})")
    if minimum is not None and value < minimum:
        raise InputError(path, f"must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise InputError(path, f"must be at most {maximum}, not {value}")
    return value


def check_id(value: object, path: str) -> str:
    """``value`` as an id: a non-empty string of bounded length."""
    if not isinstance(value, str):
        raise InputError(path, f"must be an id (a string), not {describe(value)}")
    if not value:
        raise InputError(path, "must be a non-empty id")
    if len(value) > MAX_ID_LENGTH:
        raise InputError(path, f"id is longer than {MAX_ID_LENGTH} characters")
    return value


def check_text(value: object, path: str, limit: int = MAX_TEXT_LENGTH) -> str:
    """``value`` as a string of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise InputError(path, f"must be a string, not {describe(value)}")
    if len(value) > limit:
        raise InputError(path, f"is longer than {limit:,} characters")
    return value


def check_bool(value: object, path: str) -> bool:
    """``value`` as a boolean."""
    if not isinstance(value, bool):
        raise InputError(path, f"must be true or false, not {describe(value)}")
    return value


def check_list(value: object, path: str, limit: int = MAX_OBJECTS) -> list[Any]:
    """``value`` as a list of at most ``limit`` entries (read, never changed)."""
    if type(value) is list and len(value) <= limit:
        return value
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InputError(path, f"must be a list, not {describe(value)}")
    if len(value) > limit:
        raise InputError(path, f"has {len(value):,} entries; the limit is {limit:,}")
    return list(value)


def check_object(value: object, path: str, allowed: frozenset[str] | None = None,
                 limit: int = MAX_OBJECTS) -> Mapping[str, Any]:
    """``value`` as a JSON object; with ``allowed``, an unknown field is refused by name.

    Without ``allowed`` (an object whose keys are data, like counters), the keys must be
    strings and at most ``limit`` of them.
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        raise InputError(path or "document", f"must be an object, not {describe(value)}")
    if allowed is not None:
        if not allowed.issuperset(value):
            for key in value:
                if not isinstance(key, str) or key not in allowed:
                    raise InputError(join(path, field_name(key)), "unknown field (accepted: "
                                     + ", ".join(sorted(allowed)) + ")")
        return value
    if len(value) > limit:
        raise InputError(path, f"has {len(value):,} entries; the limit is {limit:,}")
    for key in value:
        if not isinstance(key, str):
            raise InputError(join(path, field_name(key)), "must be a string key")
        if len(key) > MAX_TEXT_LENGTH:
            raise InputError(join(path, field_name(key)),
                             f"key is longer than {MAX_TEXT_LENGTH:,} characters")
    return value


class Obj:
    """Typed field access on one JSON object, with the full path in every refusal.

    ``Obj(value, "creatures", allowed, 2)`` reads ``creatures[2]``; the path is built only
    when an error needs it, and the common case of each field is checked without it.
    """

    __slots__ = ("data", "index", "prefix")

    def __init__(self, value: object, prefix: str, allowed: frozenset[str],
                 index: int | None = None) -> None:
        self.prefix = prefix
        self.index = index
        if type(value) is not dict and not isinstance(value, Mapping):
            raise InputError(self.path or "document",
                             f"must be an object, not {describe(value)}")
        self.data: Mapping[str, Any] = value
        if not allowed.issuperset(value):
            for key in value:
                if not isinstance(key, str) or key not in allowed:
                    raise InputError(self.sub(field_name(key)), "unknown field (accepted: "
                                     + ", ".join(sorted(allowed)) + ")")

    @property
    def path(self) -> str:
        """Where this object is."""
        return self.prefix if self.index is None else f"{self.prefix}[{self.index}]"

    def sub(self, key: str) -> str:
        """The path of one field of this object."""
        return join(self.path, key)

    def raw(self, key: str) -> Any:
        """The field's value as given, or :data:`MISSING`."""
        return self.data.get(key, MISSING)

    def required(self, key: str) -> Any:
        """The field's value as given; refused if absent."""
        value = self.data.get(key, MISSING)
        if value is MISSING:
            raise InputError(self.sub(key), "required field is missing")
        return value

    def id(self, key: str) -> str:
        """A required id."""
        value = self.data.get(key)
        if type(value) is str and 0 < len(value) <= MAX_ID_LENGTH:
            return value  # the common case, checked without building the field's path
        return check_id(self.required(key), self.sub(key))

    def optional_id(self, key: str, default: str | None = None) -> str | None:
        """An id, or ``default`` when the field is absent or null."""
        value = self.data.get(key)
        if type(value) is str and 0 < len(value) <= MAX_ID_LENGTH:
            return value
        if value is None:
            return default
        return check_id(value, self.sub(key))

    def integer(self, key: str, default: int | None = None, *, minimum: int | None = None,
                maximum: int | None = None) -> int:
        """An integer (magnitude at most 2^40); required unless it has a default."""
        value = self.data.get(key, MISSING)
        if type(value) is int and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE and (
                minimum is None or value >= minimum) and (maximum is None or value <= maximum):
            return value  # the common case, checked without building the field's path
        if value is MISSING:
            if default is None:
                raise InputError(self.sub(key), "required field is missing")
            return default
        return check_int(value, self.sub(key), minimum=minimum, maximum=maximum)

    def boolean(self, key: str) -> bool | None:
        """A boolean, or None when absent."""
        value = self.data.get(key, MISSING)
        if value is MISSING:
            return None
        return check_bool(value, self.sub(key))

    def string(self, key: str, limit: int = MAX_TEXT_LENGTH) -> str | None:
        """A string of at most ``limit`` characters, or None when absent."""
        value = self.data.get(key, MISSING)
        if value is MISSING:
            return None
        if type(value) is str and len(value) <= limit:
            return value
        return check_text(value, self.sub(key), limit)

    def choice(self, key: str, options: tuple[str, ...]) -> str:
        """One of ``options`` (the first when absent or null), refused naming them all."""
        value = self.data.get(key, MISSING)
        if value is MISSING or value is None:
            return options[0]
        for option in options:
            if value == option and type(value) is str:
                return option
        listed = ", ".join(repr(o) for o in options[:-1]) + f" or {options[-1]!r}"
        raise InputError(self.sub(key), f"must be {listed}, not {brief_repr(value)}")

    def array(self, key: str, *, required: bool = False, limit: int = MAX_OBJECTS) -> list[Any]:
        """A list of at most ``limit`` entries (empty when absent and not required)."""
        value = self.data.get(key, MISSING)
        if type(value) is list and len(value) <= limit:
            return value  # the common case: a JSON array (read, never changed)
        if value is MISSING:
            if required:
                raise InputError(self.sub(key), "required field is missing")
            return []
        return check_list(value, self.sub(key), limit)
