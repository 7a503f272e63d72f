"""Running commands under bubblewrap: the availability probe, the isolation flags, the scrubbed
environment, and the output collector (combined output capped, a timeout, the process group
killed). No deepagents import; the backend built on it is `auger.core.backends.sandbox.BubblewrapSandbox`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import select
import shutil
import subprocess
import time

from auger.core.backends.spawn import kill_group
from auger.errors import ConfigError

SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MISSING_BWRAP = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or turn the sandbox off"
# --cap-drop ALL matters when auger runs as root: bwrap then keeps every capability and a command
# could `mount -o remount,bind,rw /` and write the host (verified). Non-root users have none to drop.
ISOLATION = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


def sandbox_env() -> dict[str, str]:
    """What a sandboxed command sees: os.environ minus secret-looking names."""
    return {**{k: v for k, v in os.environ.items() if not SECRET_ENV.search(k)}, "TMPDIR": "/tmp"}


def check_bwrap() -> None:
    """Raise `ConfigError` (one line) unless `bwrap` is on PATH and can create a sandbox here."""
    exe = shutil.which("bwrap")
    if exe is None:
        raise ConfigError(MISSING_BWRAP)
    probe = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *ISOLATION, "true"]
    try:
        proc = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"bubblewrap cannot create a sandbox here: {exc}") from exc
    if proc.returncode != 0:
        detail = (
            "; ".join(line for line in proc.stderr.splitlines() if line.strip()) or f"exit {proc.returncode}"
        )
        raise ConfigError(
            f"bubblewrap cannot create a sandbox here ({detail}).",
            hint="Enable user namespaces (sysctl kernel.unprivileged_userns_clone=1) or turn the sandbox off",
        )


@dataclasses.dataclass
class Outcome:
    data: bytes
    exit_code: int
    truncated: bool = False
    timed_out: bool = False


def collect(proc: subprocess.Popen[bytes], timeout: float, cap: int) -> Outcome:
    """Read combined output (keeping `cap` bytes, draining the rest) until exit or `timeout`."""
    assert proc.stdout is not None
    deadline, fd = time.monotonic() + timeout, proc.stdout.fileno()
    chunks: list[bytes] = []
    size, timed_out = 0, False
    while not timed_out:
        remaining = deadline - time.monotonic()
        timed_out = remaining <= 0
        if timed_out or not select.select([fd], [], [], remaining)[0]:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk[: max(cap - size, 0)])
        size += len(chunk)
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 0.01) if not timed_out else 0)
    except subprocess.TimeoutExpired:
        timed_out = True
    if timed_out:  # bwrap's group; --die-with-parent and the pid namespace take the rest down
        kill_group(proc)
        proc.wait()
    proc.stdout.close()
    return Outcome(b"".join(chunks), 124 if timed_out else proc.returncode, size > cap, timed_out)
