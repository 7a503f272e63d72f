"""The stat cache as a git index, so `git diff-files` (C, its own process) does the stat compare.

A later snapshot must stat every file the cache knows; from Python that costs ~5 µs a file, most
of it building `os.stat_result`s. A git index holding the cache's rows lets `git diff-files
--name-only` do it instead, in C and in threads, while `git ls-files` lists the project in a
second process. Its answer is only a filter: every path it names, and every path whose row changed
since the index was written, is checked again by `auger.core.rewind.changed.Known` exactly as
without it; the paths it does not name keep their rows.

For the filter to be sound, git must name every file whose content may differ from its row:

* The index is written here (format version 2, no extensions) from the rows, sorted, with the
  user's and the system's git config left out and the settings that weaken git's stat compare
  forced on the command line (`CONFIG`).
* git compares times in whole seconds unless it was built with `USE_NSEC` (Debian's is not). A
  change in the same second as a row's mtime or ctime would go unseen, so a row whose times lie
  in the second the snapshot started (or later), or that is racy (`changed.racy`), is written
  with its stat zeroed: git always names it, and Python checks it with nanoseconds.
* The file's own mtime is set to 0: git then never takes an entry for "racily clean" and hashes
  it with the project's `.gitattributes` filters; only stat data decides.
* The index is opened once, its trailing checksum compared with the id the stat cache saved, and
  that open file is what git reads (`/dev/fd/N`): an index written by another process meanwhile
  is not mixed with this cache. Any doubt (no git, another index, an error) means no filter.

Nothing here touches the project's own `.git`: `GIT_DIR` is the empty private one of
`auger.core.rewind.scan`, `GIT_INDEX_FILE` lies beside the store.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

from auger.core.rewind.changed import EXECUTABLE, FILE, LINK, SECOND_NS
from auger.core.rewind.objects import CacheRow
from auger.core.rewind.scan import GIT_TIMEOUT_S, empty_git_dir, git_env

log = logging.getLogger("auger.rewind")
HEADER = struct.Struct(">4sII")
ENTRY = struct.Struct(">10I20sH")  # ctime s, ns, mtime s, ns, dev, ino, mode, uid, gid, size; id; flags
MODES = {FILE: 0o100644, EXECUTABLE: 0o100755, LINK: 0o120000}
U32 = 0xFFFFFFFF
NAME_MAX = 0xFFF
PADDING = [b"\0" * (8 - (ENTRY.size + n) % 8) for n in range(8)]  # 1-8 NULs: entries end on 8 bytes
CHECKSUM = 20
CONFIG = (
    "-c", "core.checkStat=default",
    "-c", "core.trustCtime=true",
    "-c", "core.fileMode=true",
    "-c", "core.fsmonitor=false",
    "-c", "core.ignoreStat=false",
    "-c", "core.splitIndex=false",
    "-c", "core.preloadIndex=true",
)  # fmt: skip


def index_path(store: Path) -> Path:
    """Where the index of the store at `store` lives (beside it)."""
    return store.with_suffix(".index")


def write(path: Path, files: Mapping[str, CacheRow], started: int) -> str:
    """Write the index of `files` (hashed by snapshots up to the one that started at `started`, ns)
    to `path`, replacing any; returns its id (the checksum `Check` expects)."""
    second = started - started % SECOND_NS
    uid, gid = os.getuid() & U32, os.getgid() & U32
    pack, unhex = ENTRY.pack, bytes.fromhex
    parts = [HEADER.pack(b"DIRC", 2, len(files))]
    for rel in sorted(files):  # str order is UTF-8 byte order, which git wants
        mode, size, mtime, ctime, ino, oid, racy = files[rel]
        name = rel.encode()
        flags = min(len(name), NAME_MAX)
        if racy or mtime >= second or ctime >= second:  # git compares whole seconds: always name it
            entry = pack(0, 0, 0, 0, 0, 0, MODES[mode], uid, gid, 0, unhex(oid), flags)
        else:
            c_s, c_ns = divmod(ctime, SECOND_NS)
            m_s, m_ns = divmod(mtime, SECOND_NS)
            stat = (c_s & U32, c_ns, m_s & U32, m_ns, 0, ino & U32, MODES[mode], uid, gid, size & U32)
            entry = pack(*stat, unhex(oid), flags)
        parts.append(entry + name + PADDING[len(name) % 8])
    data = b"".join(parts)
    digest = hashlib.sha1(data).digest()
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")  # one per writer
    with open(tmp, "wb") as handle:
        handle.write(data + digest)
    os.utime(tmp, ns=(0, 0))  # no entry is ever "racily clean" to git (see the module doc)
    os.replace(tmp, path)
    return digest.hex()


class Check:
    """`git diff-files` over the index at `path`, started at once if its id is `expected`;
    `result()` is the set of paths git names, or None when there is no usable answer."""

    def __init__(self, path: Path, expected: str, root: Path, home: Path) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            size = os.fstat(fd).st_size
            if size < CHECKSUM or os.pread(fd, CHECKSUM, size - CHECKSUM).hex() != expected:
                return
            env = git_env(empty_git_dir(home), root)
            env.update(GIT_INDEX_FILE=f"/dev/fd/{fd}", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
            self.proc = subprocess.Popen(
                ["git", *CONFIG, "diff-files", "-z", "--name-only"],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(fd,),
            )
        except OSError as exc:  # no git program, or the index went unreadable
            log.debug("no git stat check: %s", exc)
        finally:
            os.close(fd)

    def result(self) -> set[str] | None:
        if self.proc is None:
            return None
        try:
            out, _ = self.proc.communicate(timeout=GIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.abandon()
            return None
        if self.proc.returncode != 0:
            log.warning("git diff-files stopped (exit %s): stat checked in Python", self.proc.returncode)
            return None
        return set(out.decode("utf-8", "surrogateescape").split("\0")) - {""}

    def abandon(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
