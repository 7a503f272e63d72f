"""Running commands under bubblewrap: the availability probe, the isolation flags and the scrubbed
environment. No deepagents import; the backend built on it is
`auger.core.backends.sandbox.BubblewrapSandbox` (its output collector: `auger.core.backends.spill`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from auger.core.backends.spawn import QUIET_TOOLS
from auger.errors import ConfigError

SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MISSING_BWRAP = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or turn the sandbox off"
# --cap-drop ALL matters when auger runs as root: bwrap then keeps every capability and a command
# could `mount -o remount,bind,rw /` and write the host (verified). Non-root users have none to drop.
ISOLATION = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


def sandbox_env() -> dict[str, str]:
    """What a sandboxed command sees: os.environ minus secret-looking names."""
    return {
        **{k: v for k, v in os.environ.items() if not SECRET_ENV.search(k)},
        "TMPDIR": "/tmp",
        **QUIET_TOOLS,
    }


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
