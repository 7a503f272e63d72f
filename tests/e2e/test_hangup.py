"""A closed terminal (SIGHUP) or a SIGTERM ends what the agent started, headless: the turn is
cancelled like Ctrl+C, the running command's process group is killed (its file stops growing),
and the thread can be resumed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import AUGER, AugerEnv

LOOP = "sh -c 'echo $$ > loop.pid; while :; do date >> out; sleep 0.1; done'"


def _grows(path: Path, seconds: float) -> bool:
    before = path.stat().st_size
    time.sleep(seconds)  # a measurement over time, not a synchronisation
    return path.stat().st_size > before


def _wait_for(path: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.stat().st_size > 0):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_kills_the_running_command_and_the_thread_resumes(
    auger_env: AugerEnv, sig: signal.Signals
) -> None:
    auger_env.llm.add({"tool_calls": [{"name": "execute", "args": {"command": LOOP, "timeout": 600}}]})
    args = [AUGER, "-n", "loop", "--mode", "yolo", "--output-format", "stream-json"]
    proc = subprocess.Popen(
        args,
        cwd=auger_env.project,
        env=auger_env.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out = auger_env.project / "out"
    try:
        _wait_for(out)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        with contextlib.suppress(ProcessLookupError):  # on a failure: the loop must not outlive the test
            stopped = not _grows(out, 1.0)
            os.killpg(int((auger_env.project / "loop.pid").read_text()), signal.SIGKILL)
    assert "Traceback" not in stderr
    assert stopped, "the command outlived auger"
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert events[-1]["type"] == "turn_ended" and events[-1]["reason"] == "cancelled"
    thread = events[-1]["thread_id"]
    auger_env.llm.add({"text": "resumed"})
    again = auger_env.run("-r", thread, "-n", "go on")
    assert again.returncode == 0, again.stderr
    assert "resumed" in again.stdout
