"""Logging goes to `$AUGER_HOME/logs/auger.log`, never to the screen."""

from __future__ import annotations

import logging
from pathlib import Path


def setup_logging(home: Path, level: int = logging.INFO) -> Path | None:
    log_dir = home / "logs"
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(log_dir / "auger.log", encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_SecretFilter())  # secret env values never reach the log
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return log_dir / "auger.log" if not isinstance(handler, logging.NullHandler) else None


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
