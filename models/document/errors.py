"""The one root exception of trample and its input-error subclass."""


class TrampleError(Exception):
    """Root of every error trample raises on purpose."""


class InputError(TrampleError):
    """Bad input: ``path`` names the offending field (``creatures[2].blocking[0]``)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}" if path else reason)


class InternalError(TrampleError):
    """A bug in trample: an answer failed its own check and was not given."""
