"""Where things live: AUGER_HOME (default ~/.auger) and the project root."""

from __future__ import annotations

import os
from pathlib import Path


def auger_home(env: dict[str, str] | None = None) -> Path:
    """The user's auger folder: `$AUGER_HOME`, else `~/.auger`."""
    env = os.environ if env is None else env  # type: ignore[assignment]
    raw = env.get("AUGER_HOME") if env is not None else None
    return Path(raw).expanduser() if raw else Path.home() / ".auger"


def project_root(cwd: Path | None = None) -> Path:
    """Nearest folder at or above `cwd` holding `.git`, else `cwd` itself."""
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def threads_db(home: Path) -> Path:
    return home / "threads.db"


def logs_dir(home: Path) -> Path:
    return home / "logs"
