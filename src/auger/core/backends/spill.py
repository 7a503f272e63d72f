"""A command's output with bounded memory, for the local shell and the sandbox alike.

`collect(proc, timeout, window)` reads stdout (stderr merged into it) as it arrives into a
`Window`: the first `head` and last `tail` bytes stay in memory; past that everything goes to a
spill file (at most `SPILL_CAP` bytes) under the artifacts folder, which the agent opens with
`read_file` or `grep` at its `/~artifacts/...` path. A timeout kills the process group and
returns what was printed before it. `response()` is the tool message: head, a line saying how
much was cut and where the full output is, tail, then the timeout or exit code.
A spill that cannot be written (disk full) is one line in the message; the traceback goes to the log.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from deepagents.backends.protocol import ExecuteResponse

from auger.core.backends.spawn import kill_group

log = logging.getLogger(__name__)
SPILL_CAP = 10 * 1024 * 1024  # bytes of output kept on disk: grep (without ripgrep) skips larger files
SPILL_DAYS = 7  # spill files older than this are removed when a new one is made
SPILL_FOLDER = "command_output"


@dataclass(frozen=True)
class SpillTo:
    """Where cut output goes: `folder` on the host, shown to the agent as `prefix` + file name."""

    folder: Path
    prefix: str


@dataclass
class Window:
    """The first `head` and last `tail` bytes of a stream, the whole stream to a spill file, and
    (after `collect`) how the command ended."""

    head_cap: int
    tail_cap: int = 0
    spill_to: SpillTo | None = None
    lines: int | None = None  # at most this many lines shown (half from each end)
    size: int = 0
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    spill: Path | None = None
    spilled: int = 0
    spill_error: str | None = None
    exit_code: int = 0
    timed_out: bool = False
    _file: IO[bytes] | None = None

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        rest = chunk[max(self.head_cap - len(self.head), 0) :]
        self.head += chunk[: len(chunk) - len(rest)]
        if self.tail_cap:
            self.tail += rest
            if self._file is None and self.spill_to and self.size > self.head_cap + self.tail_cap:
                self._write(bytes(self.head) + bytes(self.tail), opening=True)
            elif self._file is not None:
                self._write(chunk)
            if len(self.tail) > 2 * self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]

    def _write(self, data: bytes, *, opening: bool = False) -> None:
        if self.spill_error or self.spilled >= SPILL_CAP:
            return
        try:
            if opening:
                self._file = _open_spill(self.spill_to)  # type: ignore[arg-type]
                self.spill = Path(self._file.name)
            assert self._file is not None
            self._file.write(data[: SPILL_CAP - self.spilled])
            self.spilled += min(len(data), SPILL_CAP - self.spilled)
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        """One line for the message, the traceback to the log; a partial file on a full disk only
        keeps it full, so it goes."""
        where = str(self.spill or self.spill_to.folder)  # type: ignore[union-attr]
        self.spill_error = f"{where}: {'disk full' if exc.errno == errno.ENOSPC else exc.strerror}"
        log.warning("command output not saved to %s", where, exc_info=True)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self.spill is not None:
            with contextlib.suppress(OSError):
                self.spill.unlink()

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:  # the last buffered bytes did not fit either
                self._fail(exc)
            self._file = None

    @property
    def data(self) -> bytes:
        return bytes(self.head) + bytes(self.tail[-self.tail_cap :] if self.tail_cap else b"")

    @property
    def truncated(self) -> bool:
        return self.size > len(self.data)

    def text(self) -> str:
        """Head and tail as text, with the line saying what was cut and where it is."""
        tail = bytes(self.tail[-self.tail_cap :]) if self.truncated and self.tail_cap else b""
        head = (bytes(self.head) if tail or self.truncated else self.data).decode("utf-8", "replace")
        tail_text = tail.decode("utf-8", "replace")
        if self.lines is not None:
            half = max(self.lines // 2, 1)
            every = head.splitlines(keepends=True)
            if tail_text:
                head, tail_text = "".join(every[:half]), "".join(tail_text.splitlines(keepends=True)[-half:])
            elif len(every) > self.lines:
                head, tail_text = "".join(every[:half]), "".join(every[-half:])
        cut = self.size - len(head.encode("utf-8", "replace")) - len(tail_text.encode("utf-8", "replace"))
        if cut <= 0:
            return head
        if self.spill is None and self.spill_to is not None and not self.truncated:  # cut by lines only
            self._write(self.data, opening=True)
            self.close()
        return f"{head.rstrip(chr(10))}\n\n... [{self._cut_line(cut)}] ...\n\n{tail_text}"

    def _cut_line(self, cut: int) -> str:
        if self.spill_error:
            return f"{cut} bytes cut; the full output was not saved ({self.spill_error})"
        if self.spill is None or self.spill_to is None:
            return f"{cut} bytes cut"
        where = self.spill_to.prefix + self.spill.name
        if self.spilled < self.size:
            return f"{cut} bytes cut; the first {self.spilled} bytes of the output are at {where}"
        return f"{cut} bytes cut; full output ({self.size} bytes) at {where} (read_file or grep it)"


def _open_spill(to: SpillTo) -> IO[bytes]:
    to.folder.mkdir(parents=True, exist_ok=True)
    old = time.time() - SPILL_DAYS * 86400
    for stale in to.folder.glob("*.log"):
        if stale.stat().st_mtime < old:
            stale.unlink(missing_ok=True)
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}.log"
    return (to.folder / name).open("xb")


def collect(proc: subprocess.Popen[bytes], timeout: float, window: Window) -> Window:
    """Read `proc`'s stdout into `window` until it closes or `timeout` (then the group is killed);
    `window` with the exit code (124 on a timeout)."""
    assert proc.stdout is not None
    deadline, fd = time.monotonic() + timeout, proc.stdout.fileno()
    timed_out = False
    try:
        while not timed_out:
            remaining = deadline - time.monotonic()
            timed_out = remaining <= 0
            if timed_out or not select.select([fd], [], [], remaining)[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            window.add(chunk)
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.01) if not timed_out else 0)
        except subprocess.TimeoutExpired:
            timed_out = True
    finally:
        window.close()
        if timed_out or proc.returncode is None:  # also a cancelled turn's reader
            kill_group(proc)
            proc.wait()
        proc.stdout.close()
    window.exit_code, window.timed_out = (124 if timed_out else proc.returncode), timed_out
    return window


def response(out: Window, limit: float, empty: str = "") -> ExecuteResponse:
    """The `execute` tool's result: the output window, then the timeout or the exit code
    (`empty`: the text of no output at all; the SDK's parsers of sandbox output expect "")."""
    text = out.text()
    if out.timed_out:
        text += ("\n" if text else "") + f"Error: Command timed out after {limit:g} seconds and was killed."
    elif out.exit_code != 0:
        text = f"{text.rstrip()}\n\nExit code: {out.exit_code}"
    return ExecuteResponse(output=text or empty, exit_code=out.exit_code, truncated=out.truncated)
