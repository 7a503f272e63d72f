"""Logging goes to `$AUGER_HOME/logs/auger.log`, never to the screen."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from auger.paths import logs_dir

_current: Path | None = None  # the file `setup_logging` opened, for messages that point to it


def log_file() -> Path | None:
    """The log file of this process (None before `setup_logging`, or when it could not be opened)."""
    return _current


def see_log() -> str:
    """ " (details in <log file>)" for a message about an unexpected error; "" with no log file."""
    return f" (details in {_current})" if _current is not None else ""


def setup_logging(home: Path) -> Path | None:
    global _current
    path = logs_dir(home) / "auger.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = _LogFile(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_SecretFilter())  # secret env values never reach the log
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    _current = path if isinstance(handler, logging.FileHandler) else None
    return _current


class _LogFile(logging.FileHandler):
    """A log file that cannot be written (a full disk) is one line on stderr, once, then quiet;
    the logging module would print a traceback for every record."""

    def handleError(self, record: logging.LogRecord) -> None:
        import errno
        import sys

        exc = sys.exc_info()[1]
        why = "disk full" if isinstance(exc, OSError) and exc.errno == errno.ENOSPC else str(exc)
        self.setLevel(logging.CRITICAL + 1)
        with contextlib.suppress(OSError, ValueError):
            print(
                f"auger: cannot write the log file {self.baseFilename} ({why}); logging stopped",
                file=sys.stderr,
            )


class _SecretFilter(logging.Filter):
    """`auger.core.safety.redaction.SecretFilter`, imported with the first record (not on the
    TUI's paint path)."""

    def __init__(self) -> None:
        super().__init__()
        self._inner: logging.Filter | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if self._inner is None:
            from auger.core.safety.redaction import SecretFilter

            self._inner = SecretFilter()
        return bool(self._inner.filter(record))
