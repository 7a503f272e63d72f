"""Smoke test: the installed `auger` in a real terminal (tmux), against the scripted server."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from conftest import AUGER, AugerEnv


class Tmux:
    def __init__(self, name: str) -> None:
        self.name = name
        self.base = ["tmux", "-L", name, "-f", "/dev/null"]

    def __call__(self, *args: str) -> str:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, check=True).stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", self.name)

    def wait(self, condition: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"screen never matched; last screen:\n{text}")
            time.sleep(0.05)  # polling the terminal: tmux cannot notify us

    def type(self, text: str) -> None:
        self("send-keys", "-t", self.name, "-l", text)
        self("send-keys", "-t", self.name, "Enter")


@pytest.fixture
def tmux(auger_env: AugerEnv) -> Iterator[Tmux]:
    term = Tmux(f"auger-smoke-{os.getpid()}")
    env = {**auger_env.env, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier())
    project = shlex.quote(str(auger_env.project))
    script = f"cd {project} && env {exports} {AUGER}; echo AUGER-EXIT=$?; sleep 60"
    term("new-session", "-d", "-s", term.name, "-x", "100", "-y", "30", "sh", "-c", script)
    try:
        yield term
    finally:
        subprocess.run([*term.base, "kill-server"], capture_output=True)


def test_auger_runs_in_a_terminal(auger_env: AugerEnv, tmux: Tmux) -> None:
    auger_env.llm.add({"text": "Hello from the **scripted** model."})
    first = tmux.wait(lambda s: "Ask anything" in s)  # the input box is painted
    assert "local:scripted-model" in first
    tmux.type("hello there")
    screen = tmux.wait(lambda s: "Hello from the scripted model." in s)
    assert "hello there" in screen
    tmux.type("/quit")
    screen = tmux.wait(lambda s: "AUGER-EXIT=" in s)
    assert "AUGER-EXIT=0" in screen
    assert "Resume this conversation with: auger -r " in screen
    thread = screen.split("auger -r ")[1].split()[0]
    assert len(thread) == 32
    assert auger_env.llm.requests[-1]["model"] == "scripted-model"
