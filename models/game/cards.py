"""Cards and their faces, shaped like Scryfall's card objects.

A :class:`Card` is what is printed: a name, a ``layout`` and one or more :class:`Face`
objects. Single-faced cards (layouts ``normal``, ``saga``, ``token`` ...) have one face
built from the card's own top-level fields; double-faced ones (``transform``,
``modal_dfc``, ``double_faced_token``) carry ``card_faces``. Meld cards (layout ``meld``)
are single-faced objects that can never transform (712.4, 701.27c).

Cards load from one Scryfall card object, a list of them, or a Scryfall bulk-data file (a
JSON array); unknown Scryfall fields are ignored. The cards the tests and the seed
documents need ship in ``data/cards.json`` and are found by :func:`get_card`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from trample.models.document.errors import InputError
from trample.models.document.keywords import normalize_keyword, read_keyword
from trample.models.document.reading import (
    MAGNITUDE_TEXT,
    MAX_MAGNITUDE,
    brief_repr,
    check_list,
    check_text,
    describe,
    join,
)

TRANSFORMING_LAYOUTS = frozenset({"transform", "modal_dfc", "double_faced_token"})
"""Layouts whose permanents can transform: transforming double-faced cards, modal
double-faced cards (which can transform since September 2025, see RULES.md) and
transforming tokens (Scryfall's ``double_faced_token``, e.g. Incubator // Phyrexian)."""

# Limits of one card object as it is read: the longest printed Oracle text is about 1,500
# characters and no card has 20 keywords; with these bounds reading a card's faces (each
# keyword looked for in each face's text) costs at most a few million character steps.
MAX_CARD_TEXT = 20_000
"""Characters in one text field of a card or face (name, type line, Oracle text ...)."""
MAX_CARD_KEYWORDS = 100
MAX_CARD_FACES = 8

BANDING_KEYWORDS = ("banding", "bands with other")
"""Banding and "bands with other" (702.22), as normalized keywords begin."""

_SYMBOL = re.compile(r"\{([^}]*)\}")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7}


def mana_value_of_cost(mana_cost: str | None) -> int:
    """The mana value of a mana cost string such as ``{1}{B}{R}`` (202.3).

    Generic numbers count their value, ``{X}`` counts 0, a hybrid symbol counts its
    largest part (``{2/W}`` is 2), every other symbol counts 1.
    """
    if not mana_cost:
        return 0
    total = 0
    for symbol in _SYMBOL.findall(mana_cost):
        parts = symbol.split("/")
        values = []
        for part in parts:
            if part.isdigit() and part.isascii():
                values.append(int(part))
            elif part in ("X", "Y", "Z"):
                values.append(0)
            elif part == "P":
                continue
            else:
                values.append(1)
        total += max(values, default=0)
    return total


def check_mana_cost(mana_cost: str, path: str) -> str:
    """Refuse a mana cost whose generic part is not written with the digits 0-9 or is past
    the integer bound, or whose mana value is (so that every mana value is a bounded int)."""
    for symbol in _SYMBOL.findall(mana_cost):
        for part in symbol.split("/"):
            if not part.isdigit():
                continue
            if not part.isascii():
                raise InputError(path, f"{brief_repr('{' + symbol + '}')} is not a mana "
                                 "symbol (generic mana is written with the digits 0-9)")
            if len(part) > 13 or int(part) > MAX_MAGNITUDE:
                raise InputError(path, f"generic mana {brief_repr('{' + symbol + '}')} is "
                                 f"out of range (at most {MAGNITUDE_TEXT})")
    if mana_value_of_cost(mana_cost) > MAX_MAGNITUDE:
        raise InputError(path, f"the mana value is out of range (at most {MAGNITUDE_TEXT})")
    return mana_cost


def check_printed_number(value: str, path: str) -> str:
    """Refuse a printed power, toughness, loyalty or defense whose number is past the
    integer bound (``*`` and ``1+*`` are fine)."""
    digits = re.sub(r"[^0-9]", "", value)
    if len(digits.lstrip("0")) > 13 or (digits and int(digits) > MAX_MAGNITUDE):
        raise InputError(path, f"{brief_repr(value)} is out of range (magnitude at most "
                         f"{MAGNITUDE_TEXT})")
    return value


def _pt(value: str | None) -> int:
    """A printed power/toughness/loyalty/defense as an integer: ``*`` parts count 0."""
    if value is None:
        return 0
    digits = re.sub(r"[^0-9\-+]", "", value.replace("*", ""))
    try:
        return int(digits)
    except ValueError:
        return 0


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a card, with the characteristics printed on it."""

    name: str
    type_line: str = ""
    mana_cost: str = ""
    oracle_text: str = ""
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    defense: str | None = None
    keywords: tuple[str, ...] = ()

    @property
    def card_types(self) -> frozenset[str]:
        """The words before the dash of the type line (supertypes and card types)."""
        return frozenset(self.type_line.split("—")[0].split())

    @property
    def subtypes(self) -> frozenset[str]:
        """The words after the dash of the type line."""
        parts = self.type_line.split("—", 1)
        return frozenset(parts[1].split()) if len(parts) == 2 else frozenset()

    def is_type(self, card_type: str) -> bool:
        """Whether ``card_type`` (``Creature``, ``Land``, ``Saga`` ...) is on the type line."""
        return card_type in self.card_types or card_type in self.subtypes

    @property
    def is_creature(self) -> bool:
        """A creature face."""
        return "Creature" in self.card_types

    @property
    def is_land(self) -> bool:
        """A land face."""
        return "Land" in self.card_types

    @property
    def is_planeswalker(self) -> bool:
        """A planeswalker face."""
        return "Planeswalker" in self.card_types

    @property
    def is_battle(self) -> bool:
        """A battle face."""
        return "Battle" in self.card_types

    @property
    def is_instant_or_sorcery(self) -> bool:
        """An instant or sorcery face: a permanent never transforms into one (701.27d)."""
        return bool({"Instant", "Sorcery"} & self.card_types)

    @property
    def is_saga(self) -> bool:
        """A Saga face (714)."""
        return "Saga" in self.subtypes

    @property
    def base_power(self) -> int:
        """Printed power as an integer (``*`` counts 0)."""
        return _pt(self.power)

    @property
    def base_toughness(self) -> int:
        """Printed toughness as an integer (``*`` counts 0)."""
        return _pt(self.toughness)

    @property
    def printed_loyalty(self) -> int:
        """Printed loyalty, the loyalty counters it enters with (306.5b)."""
        return _pt(self.loyalty)

    @property
    def printed_defense(self) -> int:
        """Printed defense, the defense counters it enters with (310.4b)."""
        return _pt(self.defense)

    @property
    def own_mana_value(self) -> int:
        """The mana value of this face's own mana cost."""
        return mana_value_of_cost(self.mana_cost)

    @property
    def chapters(self) -> tuple[int, ...]:
        """The chapter numbers of a Saga face, in order (714.2)."""
        found: list[int] = []
        for line in self.oracle_text.splitlines():
            head = line.split(" —", 1)[0] if " —" in line else ""
            numerals = [part.strip() for part in head.split(",")]
            if numerals and all(n in _ROMAN for n in numerals):
                found.extend(_ROMAN[n] for n in numerals)
        return tuple(sorted(set(found)))

    @property
    def final_chapter(self) -> int:
        """The greatest chapter number of a Saga face (714.2c); 0 if it has none."""
        return max(self.chapters, default=0)

    def has_keyword(self, keyword: str) -> bool:
        """Whether the face has ``keyword`` (matched as combat/1 matches keywords)."""
        wanted = normalize_keyword(keyword)
        return any(normalize_keyword(k) == wanted for k in self.keywords)

    def to_json(self) -> dict[str, Any]:
        """This face as a Scryfall card-face object."""
        out: dict[str, Any] = {"object": "card_face", "name": self.name,
                               "mana_cost": self.mana_cost, "type_line": self.type_line,
                               "oracle_text": self.oracle_text}
        for key in ("power", "toughness", "loyalty", "defense"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["keywords"] = list(self.keywords)
        return out


FACE_DOWN = Face(name="", type_line="Creature", power="2", toughness="2")
"""The characteristics of a face-down permanent: a nameless 2/2 creature (708.2a)."""


@dataclass(frozen=True, slots=True)
class Card:
    """A card (or token definition) as Scryfall describes it."""

    name: str
    layout: str
    faces: tuple[Face, ...]
    cmc: float = 0.0
    keywords: tuple[str, ...] = ()
    set: str | None = None
    collector_number: str | None = None

    @property
    def front(self) -> Face:
        """The front face (the only face of a single-faced card)."""
        return self.faces[0]

    @property
    def back(self) -> Face | None:
        """The back face, if the card has two faces."""
        return self.faces[1] if len(self.faces) > 1 else None

    @property
    def is_double_faced(self) -> bool:
        """A card with a face on each side that can be put onto the battlefield as one."""
        return self.layout in TRANSFORMING_LAYOUTS and len(self.faces) == 2

    @property
    def is_transforming(self) -> bool:
        """Represented by a transforming double-faced card or transforming token (701.27c).

        Modal double-faced cards count since September 2025 (RULES.md); meld cards never do.
        """
        return self.is_double_faced

    @property
    def mana_value(self) -> int:
        """The card's mana value outside the battlefield: its front face's (712.8a)."""
        return self.front.own_mana_value

    def face(self, side: str) -> Face:
        """The face on ``side`` (``"front"`` or ``"back"``)."""
        if side == "back" and self.back is not None:
            return self.back
        return self.front

    def to_json(self) -> dict[str, Any]:
        """This card as a Scryfall card object (only the fields trample models)."""
        out: dict[str, Any] = {"object": "card", "name": self.name, "layout": self.layout,
                               "cmc": self.cmc, "keywords": list(self.keywords)}
        if self.set is not None:
            out["set"] = self.set
        if self.collector_number is not None:
            out["collector_number"] = self.collector_number
        if len(self.faces) == 1 and self.layout not in TRANSFORMING_LAYOUTS:
            face = self.front.to_json()
            del face["object"]
            out.update({k: v for k, v in face.items() if k not in ("name", "keywords")})
        else:
            out["card_faces"] = [f.to_json() for f in self.faces]
        return out

    @classmethod
    def from_json(cls, obj: object, path: str = "") -> Card:
        """A card from one Scryfall card object; raise InputError naming a bad field."""
        return card_from_json(obj, path)


# -- loading -------------------------------------------------------------------------------


_LONG_FIELDS = frozenset({"oracle_text"})
_NUMBER_FIELDS = frozenset({"power", "toughness", "loyalty", "defense"})


def _field(obj: Mapping[str, Any], key: str, path: str, *, required: bool = False,
           default: str | None = None) -> str | None:
    value = obj.get(key)
    where = join(path, key)
    if value is None:
        if required:
            raise InputError(where, "required field is missing")
        return default
    text = check_text(value, where, MAX_CARD_TEXT if key in _LONG_FIELDS else 1_000)
    if key == "mana_cost":
        return check_mana_cost(text, where)
    if key in _NUMBER_FIELDS:
        return check_printed_number(text, where)
    if required and not text:
        raise InputError(where, "must be a non-empty string")
    return text


def _keywords(value: object, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    seen: dict[str, str] = {}
    for i, k in enumerate(check_list(value, path, MAX_CARD_KEYWORDS)):
        keyword, refused = read_keyword(check_text(k, f"{path}[{i}]"))
        if refused is not None and normalize_keyword(k).startswith(BANDING_KEYWORDS):
            # A card prints banding, or Scryfall's bare "Bands with other" (its quality is
            # in the Oracle text): the game model forms bands from it (702.22).
            keyword, refused = normalize_keyword(k), None
        if refused is not None:
            raise InputError(f"{path}[{i}]", refused)
        seen.setdefault(keyword, k)
    return tuple(seen.values())


def _face_from_json(obj: object, path: str, card_keywords: tuple[str, ...],
                    single: bool = False) -> Face:
    if not isinstance(obj, Mapping):
        raise InputError(path, f"must be a card face object, not {describe(obj)}")
    name = _field(obj, "name", path, required=True)
    assert name is not None
    oracle = _field(obj, "oracle_text", path, default="") or ""
    raw_keywords = obj.get("keywords")
    if single:
        keywords = card_keywords
    elif raw_keywords is not None:
        keywords = _keywords(raw_keywords, join(path, "keywords"))
    else:
        # Scryfall lists keywords per card, not per face: a face gets those its text names.
        lowered = oracle.lower()
        keywords = tuple(k for k in card_keywords
                         if re.search(rf"(^|[\s,(]){re.escape(k.lower())}\b", lowered))
    return Face(
        name=name,
        type_line=_field(obj, "type_line", path, default="") or "",
        mana_cost=_field(obj, "mana_cost", path, default="") or "",
        oracle_text=oracle,
        power=_field(obj, "power", path),
        toughness=_field(obj, "toughness", path),
        loyalty=_field(obj, "loyalty", path),
        defense=_field(obj, "defense", path),
        keywords=keywords,
    )


def card_from_json(obj: object, path: str = "") -> Card:
    """A :class:`Card` from one Scryfall card object; raise InputError naming a bad field."""
    if not isinstance(obj, Mapping):
        raise InputError(path, f"must be a card object, not {describe(obj)}")
    name = _field(obj, "name", path, required=True)
    assert name is not None
    layout = _field(obj, "layout", path, default="normal") or "normal"
    keywords = _keywords(obj.get("keywords"), join(path, "keywords"))
    raw_faces = obj.get("card_faces")
    faces: tuple[Face, ...]
    if raw_faces is not None:
        faces_path = join(path, "card_faces")
        if not check_list(raw_faces, faces_path, MAX_CARD_FACES):
            raise InputError(faces_path, "must list at least one card face")
        faces = tuple(_face_from_json(f, f"{faces_path}[{i}]", keywords)
                      for i, f in enumerate(raw_faces))
    else:
        faces = (_face_from_json(obj, path, keywords, single=True),)
    cmc = obj.get("cmc")
    if cmc is None:
        cmc = float(faces[0].own_mana_value)
    if (not isinstance(cmc, (int, float)) or isinstance(cmc, bool) or cmc != cmc
            or abs(cmc) > MAX_MAGNITUDE):
        raise InputError(join(path, "cmc"), f"must be a number of magnitude at most "
                         f"{MAGNITUDE_TEXT}, not {brief_repr(cmc)}")
    if not keywords:
        merged: dict[str, str] = {}
        for face in faces:
            for k in face.keywords:
                merged.setdefault(normalize_keyword(k), k)
        keywords = tuple(merged.values())
    return Card(name=name, layout=layout, faces=faces, cmc=float(cmc), keywords=keywords,
                set=_field(obj, "set", path),
                collector_number=_field(obj, "collector_number", path))


def load_cards(source: object) -> list[Card]:
    """Cards from one card object, a list of them, or a path to a bulk-data JSON file.

    A ``str`` or :class:`~pathlib.Path` names a file holding a JSON array of card objects
    (Scryfall bulk data) or one card object.
    """
    if isinstance(source, (str, Path)):
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError("", f"cannot read cards from {source}: {exc}") from exc
        return load_cards(data)
    if isinstance(source, Mapping):
        return [card_from_json(source)]
    if isinstance(source, list):
        return [card_from_json(obj, f"[{i}]") for i, obj in enumerate(source)]
    raise InputError("", f"expected a card object, a list of them or a path, "
                         f"got {type(source).__name__}")


def load_card(source: object) -> Card:
    """Exactly one card from a card object (or a one-card list or file)."""
    cards = load_cards(source)
    if len(cards) != 1:
        raise InputError("", f"expected one card, got {len(cards)}")
    return cards[0]


@cache
def bundled_cards() -> dict[str, Card]:
    """The cards shipped in ``data/cards.json``, by name."""
    text = resources.files("trample.models").joinpath("data/cards.json").read_text("utf-8")
    return {card.name: card for card in load_cards(json.loads(text))}


def get_card(name: str) -> Card:
    """The bundled card called ``name`` (its full ``A // B`` name or its front face's)."""
    cards = bundled_cards()
    if name in cards:
        return cards[name]
    for card in cards.values():
        if card.front.name == name:
            return card
    raise InputError("", f"unknown card {name!r}")


def cards_by_name(cards: Iterable[Card]) -> dict[str, Card]:
    """Index cards by their full name."""
    return {card.name: card for card in cards}
