"""One error family. Every message says what is wrong and what to do about it.

Front ends catch `AugerError`, print `str(err)` on one line and exit with `err.exit_code`;
anything else is a bug and its traceback goes to the log file, never to the screen.
"""

from __future__ import annotations


class AugerError(Exception):
    """Base class: a problem the user can act on."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class UsageError(AugerError):
    """Bad command-line usage (exit 2)."""

    exit_code = 2


class BusyError(UsageError):
    """A thread is running a turn (or a run holds it); the request waits for it to end (HTTP 409)."""


class NotFoundError(UsageError):
    """Something the request names does not exist: a pending approval, a server (HTTP 404)."""


class ConfigError(AugerError):
    """Malformed or invalid configuration (exit 2)."""

    exit_code = 2


class ModelError(AugerError):
    """Unknown provider, missing credentials or provider package (exit 2: fix your setup)."""

    exit_code = 2


class ProviderError(AugerError):
    """The model provider failed at run time: refused connection, 401, 429, 500, garbage (exit 1)."""


class ThreadError(AugerError):
    """Unknown, ambiguous or unreadable thread / thread database."""

    exit_code = 2


class RewindError(AugerError):
    """A rewind or diff could not run: snapshots missing or unreadable (exit 1). Nothing was changed."""


class RewindConflict(AugerError):
    """Files changed by hand since the agent last wrote them; rewind stops unless --force (exit 2)."""

    exit_code = 2
