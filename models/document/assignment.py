"""An assignment of combat damage: who assigns how much to whom (510.1).

One type for the solver and the game: a frozen mapping of ``(source, target)`` to a
positive amount. JSON is a list of ``{"source", "target", "amount"}`` entries;
:meth:`Assignment.from_json` is the one parser of that list (entries of amount 0 assign
nothing, 120.8: they are not in the mapping, but their ids are still checked);
:meth:`Assignment.to_json` writes the entries back in the assignment's order. Whether an
assignment is *legal* is the solver's question; this module checks only its shape.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from trample.models.document.combat import (
    MAX_ID_LENGTH,
    MAX_MAGNITUDE,
    check_id,
    check_int,
    field_name,
)
from trample.models.document.errors import InputError

Pair = tuple[str, str]
"""(source, target): a pair of a legal space, and the key of an assignment's amount."""
_T = TypeVar("_T")

_ENTRY_FIELDS = ("source", "target", "amount")


def entries_json(entries: Iterable[tuple[str, str, int]]) -> list[dict[str, Any]]:
    """The JSON of assignment entries, ``[{"source", "target", "amount"}]`` (the one
    writer of the format: :meth:`Assignment.to_json` and the solver's answers use it)."""
    return [{"source": s, "target": t, "amount": a} for s, t, a in entries]


@dataclass(frozen=True, slots=True, eq=False)
class Assignment(Mapping[Pair, int]):
    """``(source, target) -> amount``, positive amounts only, in a fixed order.

    ``entries`` is the order the assignment was given or built in (the solver builds it
    in legal-space order: sources in document order, each source's recipients in order).
    """

    entries: tuple[tuple[str, str, int], ...] = ()
    _amounts: dict[Pair, int] = field(default_factory=dict, init=False, repr=False,
                                      compare=False, hash=False)
    _positions: dict[Pair, int] | None = field(default=None, init=False, repr=False,
                                               compare=False, hash=False)
    _listed: tuple[tuple[str, str, int], ...] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_amounts", {(s, t): a for s, t, a in self.entries})

    def _where(self) -> dict[Pair, int]:
        # Built when an error message needs it: the solver's answers never do.
        where = self._positions
        if where is None:
            where = {(s, t): i for i, (s, t, _) in enumerate(self.entries)}
            object.__setattr__(self, "_positions", where)
        return where

    @classmethod
    def of(cls, amounts: Mapping[Pair, int] | Iterable[tuple[Pair, int]]) -> Assignment:
        """An assignment from ``{(source, target): amount}`` (or its items), in that order;
        amounts of 0 or less are left out."""
        items = amounts.items() if isinstance(amounts, Mapping) else amounts
        return cls(tuple((s, t, a) for (s, t), a in items if a > 0))

    # -- the mapping ------------------------------------------------------------------------

    def __getitem__(self, pair: Pair) -> int:
        return self._amounts[pair]

    def __iter__(self) -> Iterator[Pair]:
        return iter(self._amounts)

    def __len__(self) -> int:
        return len(self._amounts)

    def __contains__(self, pair: object) -> bool:
        return pair in self._amounts

    # The dict's own views and look-up, not the generic Mapping ones built on
    # __getitem__: the validator reads every amount of every split it judges.
    def items(self) -> ItemsView[Pair, int]:
        """The ``((source, target), amount)`` pairs, in order."""
        return self._amounts.items()

    def keys(self) -> KeysView[Pair]:
        """The ``(source, target)`` pairs, in order."""
        return self._amounts.keys()

    def values(self) -> ValuesView[int]:
        """The amounts, in order."""
        return self._amounts.values()

    @overload
    def get(self, pair: Pair, /) -> int | None: ...
    @overload
    def get(self, pair: Pair, default: int | _T, /) -> int | _T: ...
    def get(self, pair: Pair, default: object = None, /) -> object:
        """The amount of ``pair``, or ``default``."""
        return self._amounts.get(pair, default)

    # Equal as mappings (the order of the entries does not matter), hashable as a value.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Assignment):
            return self._amounts == other._amounts
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._amounts.items()))

    def position(self, pair: Pair) -> int | None:
        """Where ``pair``'s entry stood in the list it was read from (None if absent)."""
        return self._where().get(pair)

    def listed(self) -> tuple[tuple[str, str, int], ...]:
        """Every entry as it was read, entries of amount 0 included (their ids name
        something too, and are checked like the others)."""
        return self.entries if self._listed is None else self._listed

    def sources(self) -> tuple[str, ...]:
        """Every source that assigns something, in order, once each."""
        return tuple(dict.fromkeys(s for s, _, _ in self.entries))

    # -- JSON -------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, entries: object, path: str = "assignment") -> Assignment:
        """Check a list of ``{source, target, amount}`` entries; InputError names the bad
        field (``assignment[2].amount``). Ids are not looked up here: the combat or the
        game state the assignment is for does that."""
        if isinstance(entries, Assignment):
            return entries
        if isinstance(entries, (str, bytes)) or not isinstance(entries, list):
            raise InputError(path, "must be a list of {source, target, amount} entries")
        kept: list[tuple[str, str, int]] = []
        listed: list[tuple[str, str, int]] = []
        positions: dict[Pair, int] = {}  # also: the pairs seen so far
        for i, entry in enumerate(entries):
            if type(entry) is dict and len(entry) == 3:
                source, target, amount = (entry.get("source"), entry.get("target"),
                                          entry.get("amount"))
                if (type(source) is str and type(target) is str and type(amount) is int
                        and 0 < len(source) <= MAX_ID_LENGTH
                        and 0 < len(target) <= MAX_ID_LENGTH
                        and 0 <= amount <= MAX_MAGNITUDE and (source, target) not in positions):
                    # The common case, checked without building the entry's path.
                    positions[(source, target)] = i
                    listed.append((source, target, amount))
                    if amount > 0:
                        kept.append((source, target, amount))
                    continue
            where = f"{path}[{i}]"
            if not isinstance(entry, Mapping):
                raise InputError(where, "must be an object {source, target, amount}")
            for key in entry:
                if key not in _ENTRY_FIELDS:
                    raise InputError(f"{where}.{field_name(key)}", "unknown field (accepted: "
                                     "amount, source, target)")
            for key in _ENTRY_FIELDS:
                if key not in entry:
                    raise InputError(f"{where}.{key}", "required field is missing")
            source = check_id(entry["source"], f"{where}.source")
            target = check_id(entry["target"], f"{where}.target")
            amount = check_int(entry["amount"], f"{where}.amount", minimum=0)
            if (source, target) in positions:
                raise InputError(where, f"the pair ({source!r}, {target!r}) appears twice")
            positions[(source, target)] = i
            listed.append((source, target, amount))
            if amount > 0:
                kept.append((source, target, amount))
        # Built directly: the mapping is already known, no second pass over the entries.
        out = object.__new__(cls)
        object.__setattr__(out, "entries", tuple(kept))
        object.__setattr__(out, "_amounts", {(src, tgt): n for src, tgt, n in kept})
        object.__setattr__(out, "_positions", positions)
        object.__setattr__(out, "_listed", None if len(listed) == len(kept) else tuple(listed))
        return out

    def to_json(self) -> list[dict[str, Any]]:
        """The entries ``[{"source", "target", "amount"}]``, in order."""
        return entries_json(self.entries)

    def path_of(self, pair: Pair | None, source: str, path: str = "assignment") -> str:
        """The JSON path of ``pair``'s entry; for a source's total (``pair`` None), its
        first entry; ``path`` itself when there is no such entry."""
        where = self._where()
        if pair is not None and pair in where:
            return f"{path}[{where[pair]}]"
        firsts = [i for (s, _), i in where.items() if s == source]
        return f"{path}[{min(firsts)}]" if firsts else path
