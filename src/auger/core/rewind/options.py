"""`[rewind]` settings and where a project's snapshot store lives."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.settings import Settings

MB = 1024 * 1024


@dataclass(frozen=True)
class RewindOptions:
    enabled: bool = True
    max_file_bytes: int = 10 * MB
    max_files: int = 50_000

    @classmethod
    def from_settings(cls, settings: Settings) -> RewindOptions:
        return cls(
            enabled=bool(settings.get("rewind.enabled", True)),
            max_file_bytes=int(float(settings.get("rewind.max_file_mb", 10.0)) * MB),
            max_files=int(settings.get("rewind.max_files", 50_000)),
        )


def snapshots_dir(home: Path) -> Path:
    return home / "snapshots"


def store_path(home: Path, root: Path | str) -> Path:
    """`$AUGER_HOME/snapshots/<folder name>-<hash of the path>.db`: one store per project root."""
    text = str(root)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(text).name)[:40] or "root"
    digest = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return snapshots_dir(home) / f"{name}-{digest}.db"
