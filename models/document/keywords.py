"""Keywords: how a keyword string is read, and which misspellings are refused.

Keywords are matched case-insensitively, with ``_``, ``-`` and runs of spaces equal
(``Trample_Over-Planeswalkers`` is trample over planeswalkers). The keywords that change
damage assignment (:data:`ASSIGNMENT_KEYWORDS`) and a few that a game needs later
(:data:`LATER_KEYWORDS`) are recognized, and so are ``banding`` and ``bands with other Q``
(702.22, for who assigns combat damage; ``Q`` is any quality text); every other keyword
(Flying, Ward 2, Protection from green, Landfall ...) is accepted and ignored.

A string that is not recognized but is close to a recognized keyword is refused as a
typo rather than silently ignored, which would drop the ability from the combat: the same
letters once spaces are removed (``doublestrike``), or within a few edits relative to
the keyword's length (``Trampel``, ``dethtouch``). Real keywords are never refused as
typos: :data:`OTHER_KEYWORDS` lists the keyword abilities, keyword actions and ability
words of the Comprehensive Rules (702, 701, 207.2c), and they are accepted before any
closeness is measured.
"""

from __future__ import annotations

import re
from functools import lru_cache

from trample.models.document.reading import brief_repr

TRAMPLE = "trample"
TRAMPLE_OVER_PLANESWALKERS = "trample over planeswalkers"
DEATHTOUCH = "deathtouch"
FIRST_STRIKE = "first strike"
DOUBLE_STRIKE = "double strike"
INDESTRUCTIBLE = "indestructible"

ASSIGNMENT_KEYWORDS = frozenset(
    {TRAMPLE, TRAMPLE_OVER_PLANESWALKERS, DEATHTOUCH, FIRST_STRIKE, DOUBLE_STRIKE, INDESTRUCTIBLE}
)
"""Keywords that change damage assignment."""

LATER_KEYWORDS = frozenset({"infect", "wither", "lifelink", "toxic"})
"""Keywords about what damage does once dealt: recognized (never taken for typos) and kept;
``toxic N`` is kept with its number."""

RECOGNIZED = ASSIGNMENT_KEYWORDS | LATER_KEYWORDS

BANDING = "banding"
BANDS_WITH_OTHER = "bands with other "
"""The prefix of ``bands with other Q`` (702.22b): ``Q`` is the rest of the keyword."""

UNSUPPORTED_KEYWORDS: tuple[str, ...] = ()
"""Keywords refused as unsupported (none: banding is supported since combat/1 §10)."""

OTHER_KEYWORDS = frozenset("""
deathtouch defender double strike enchant equip first strike flash flying haste hexproof
hexproof from indestructible intimidate landwalk forestwalk islandwalk mountainwalk
plainswalk swampwalk desertwalk legendary landwalk nonbasic landwalk snow landwalk
snow forestwalk snow islandwalk snow mountainwalk snow plainswalk snow swampwalk
lifelink protection protection from reach shroud trample vigilance ward banding rampage
cumulative upkeep flanking phasing buyback shadow cycling typecycling landcycling
basic landcycling plainscycling islandcycling swampcycling mountaincycling forestcycling
slivercycling wizardcycling echo horsemanship fading kicker multikicker flashback
madness fear morph megamorph amplify provoke storm affinity entwine modular sunburst
bushido soulshift splice offering ninjutsu commander ninjutsu epic convoke dredge
transmute bloodthirst haunt replicate forecast graft recover ripple split second suspend
vanishing absorb aura swap delve fortify frenzy gravestorm poisonous transfigure champion
changeling evoke hideaway prowl reinforce conspire persist wither retrace devour exalted
unearth cascade annihilator level up rebound totem armor umbra armor infect battle cry
living weapon undying miracle soulbond overload scavenge unleash cipher evolve extort
fuse bestow tribute dethrone hidden agenda double agenda outlast prowess dash exploit
menace renown awaken devoid ingest myriad surge skulk emerge escalate melee crew
fabricate partner partner with undaunted improvise aftermath embalm eternalize afflict
ascend assist jump start mentor afterlife riot spectacle escape companion mutate encore
boast foretell demonstrate daybound nightbound disturb decayed cleave training
compleated reconfigure blitz casualty enlist read ahead ravenous squad space sculptor
visit prototype living metal more than meets the eye for mirrodin! toxic backup bargain
craft disguise solved plot saddle spree freerunning gift offspring impending exhaust
max speed start your engines! harmonize mobilize job select tiered station warp
firebending sneak web slinging mayhem double team hexproof from
activate attach cast counter create destroy discard double triple exchange exile fight
goad investigate mill play regenerate reveal sacrifice scry search shuffle surveil tap
untap fateseal clash planeswalk set in motion abandon proliferate transform detain
populate monstrosity vote bolster manifest support meld exert explore assemble adapt amass
learn venture into the dungeon connive open an attraction roll to visit your attractions
convert incubate discover collect evidence suspect cloak forage manifest dread endure
harness airbend earthbend waterbend time travel seek conjure intensify specialize
treasure food clue blood map role token
adamant addendum alliance battalion bloodrush celebration channel chroma cohort
constellation converge council's dilemma coven delirium descend domain eerie eminence
enrage fateful hour fathomless descent ferocious flurry formidable grandeur hellbent
heroic imprint inspired join forces kinship landfall lieutenant magecraft metalcraft
morbid pack tactics paradox parley radiance raid rally revolt secret council
spell mastery strive survival sweep tempting offer threshold undergrowth valiant void
will of the council
""".replace("\n", " ").split(" ")) - {""}
"""The words of the keyword abilities (702), keyword actions (701) and ability words
(207.2c)."""

_OTHER_PHRASES = frozenset("""
hexproof from|legendary landwalk|nonbasic landwalk|snow landwalk|snow forestwalk|
snow islandwalk|snow mountainwalk|snow plainswalk|snow swampwalk|protection from|
cumulative upkeep|basic landcycling|commander ninjutsu|split second|aura swap|level up|
totem armor|umbra armor|battle cry|living weapon|hidden agenda|double agenda|partner with|
jump start|read ahead|space sculptor|living metal|more than meets the eye|for mirrodin!|
max speed|start your engines!|job select|web slinging|double team|set in motion|
venture into the dungeon|open an attraction|roll to visit your attractions|
collect evidence|manifest dread|time travel|council's dilemma|fateful hour|
fathomless descent|join forces|pack tactics|secret council|spell mastery|tempting offer|
will of the council""".replace("\n", "").split("|"))
"""The keywords of more than one word, in full."""

_SEPARATORS = re.compile(r"[\s_\-]+")
_TOXIC = re.compile(r"toxic(?:[\s_]+|-)(\d{1,12})")
_NEGATIVE_TOXIC = re.compile(r"toxic[\s_]+-\s*\d+")


def normalize_keyword(keyword: str) -> str:
    """Lower-case ``keyword`` with ``_``, ``-`` and runs of spaces made one space.

    >>> normalize_keyword("Trample_Over-Planeswalkers")
    'trample over planeswalkers'
    """
    return _SEPARATORS.sub(" ", keyword).strip().lower()


def edit_distance(a: str, b: str, bound: int) -> int:
    """Damerau-Levenshtein distance (optimal string alignment: insertions, deletions,
    substitutions and swaps of neighbours), or ``bound + 1`` once it is known to be more
    than ``bound``."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        previous2, previous = previous, current
    return previous[-1]


def allowed_edits(keyword: str) -> int:
    """How many edits still make a string a misspelling of ``keyword``: a short word within
    two edits of a longer one is another word (``Reach``, ``Haste``), not a typo."""
    length = len(keyword.replace(" ", ""))
    return 0 if length <= 4 else 1 if length <= 7 else 2


def suggestion(keyword: str) -> str | None:
    """The recognized keyword that ``keyword`` (normalized, not itself recognized) is a
    misspelling of, if any."""
    compact = keyword.replace(" ", "")
    best: tuple[int, str] | None = None
    for known in sorted(RECOGNIZED):
        if compact == known.replace(" ", ""):
            return known
        bound = allowed_edits(known)
        distance = edit_distance(keyword, known, bound)
        if distance <= bound and (best is None or distance < best[0]):
            best = (distance, known)
    return None if best is None else best[1]


@lru_cache(maxsize=4096)
def read_keyword(raw: str) -> tuple[str, str | None]:
    """``(normalized keyword, None)``, or ``("", reason)`` when ``raw`` is refused.

    Cached: the same few keywords recur on thousands of creatures.
    """
    keyword = normalize_keyword(raw)
    if keyword in RECOGNIZED:
        return keyword, None
    lowered = raw.strip().lower()
    toxic = _TOXIC.fullmatch(lowered)
    if toxic or _NEGATIVE_TOXIC.fullmatch(lowered):
        if toxic and int(toxic.group(1)) >= 1:
            return f"toxic {int(toxic.group(1))}", None
        return "", f"{brief_repr(raw)}: toxic needs a number of at least 1"
    if keyword == BANDING:
        return keyword, None
    if keyword.startswith(BANDS_WITH_OTHER) or keyword == BANDS_WITH_OTHER.strip():
        if not keyword[len(BANDS_WITH_OTHER):].strip():
            return "", f"{brief_repr(raw)}: 'bands with other' needs a quality, as in " \
                       "'bands with other legendary creatures'"
        return keyword, None
    if keyword in OTHER_KEYWORDS or keyword in _OTHER_PHRASES:
        return keyword, None
    known = suggestion(keyword)
    if known is not None:
        return "", f"unknown keyword {brief_repr(raw)}: did you mean {known!r}?"
    return keyword, None
