"""`write_atomic`: a file written through a temporary file and a rename (settings, the trust
store and other small files in AUGER_HOME or a project's `.auger/`). Standard library only."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from auger.errors import ConfigError


def write_atomic(path: Path, text: str, new_mode: int = 0o644) -> None:
    """Write `text` to `path` through a temporary file and a rename (an existing file keeps its
    mode; a new one gets `new_mode` less the umask, as any file a program creates)."""
    folder = path.parent
    tmp = folder / f".{path.name}.{os.urandom(6).hex()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else None
        # the umask applies to a new file's mode; a copy of an existing file is private until chmod
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, new_mode if mode is None else 0o600)
    except OSError as err:
        raise ConfigError(
            f"cannot write to {folder}: {err.strerror or err}.",
            hint="Point AUGER_HOME at a writable folder.",
        ) from err
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}") from err
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
