"""The one root exception of trample and its input-error subclass."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mypy_extensions import mypyc_attr


# Subclassed by interpreted modules (a batch's, a count's, a search's errors), which a
# compiled module catching these must still take for them.
@mypyc_attr(allow_interpreted_subclasses=True)
class TrampleError(Exception):
    """Root of every error trample raises on purpose."""


NAMED_PROBLEMS = 20
"""Problems an InputError's message spells out before it says how many more there are
(the message stays bounded whatever the input's size; :attr:`InputError.more` keeps
them all)."""


class InputError(TrampleError):
    """Bad input: ``path`` names the offending field (``creatures[2].blocking[0]``).

    ``more`` holds further problems of the same input, each ``(path, reason)``, when
    every one is reported (an illegal split's violations); the message lists them after
    the first, separated by ``; ``.
    """

    def __init__(self, path: str, reason: str,
                 more: Sequence[tuple[str, str]] = ()) -> None:
        self.path = path
        self.reason = reason
        self.more = tuple(more)
        shown = [_line(p, r) for p, r in ((path, reason), *self.more[:NAMED_PROBLEMS - 1])]
        hidden = len(self.more) - (NAMED_PROBLEMS - 1)
        if hidden > 0:
            shown.append(f"and {hidden:,} more")
        super().__init__("; ".join(shown))

    @property
    def problems(self) -> tuple[tuple[str, str], ...]:
        """Every ``(path, reason)``, the first (``path``, ``reason``) included."""
        return ((self.path, self.reason), *self.more)

    def rerooted(self, where: Callable[[str], str]) -> InputError:
        """The same problems with each path mapped by ``where`` (the path of a field of
        a nested document as its container names it)."""
        return InputError(where(self.path), self.reason,
                          [(where(path), reason) for path, reason in self.more])


def _line(path: str, reason: str) -> str:
    return f"{path}: {reason}" if path else reason


@mypyc_attr(allow_interpreted_subclasses=True)
class InternalError(TrampleError):
    """A bug in trample: an answer failed its own check and was not given."""
