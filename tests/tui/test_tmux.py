"""Smoke test: the installed `auger` in a real terminal (tmux), against the scripted server."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import AUGER, AugerEnv
from serve_harness import start_server


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


@contextlib.contextmanager
def terminal(env: dict[str, str], cwd: Path, *args: str) -> Iterator[Tmux]:
    """`auger ARGS` in a tmux terminal, in `cwd` with `env`."""
    term = Tmux(f"auger-smoke-{os.getpid()}")
    env = {**env, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier())
    command = shlex.join([AUGER, *args])
    script = f"cd {shlex.quote(str(cwd))} && env {exports} {command}; echo AUGER-EXIT=$?; sleep 60"
    term("new-session", "-d", "-s", term.name, "-x", "100", "-y", "30", "sh", "-c", script)
    try:
        yield term
    finally:
        subprocess.run([*term.base, "kill-server"], capture_output=True)


@pytest.fixture
def tmux(auger_env: AugerEnv) -> Iterator[Tmux]:
    with terminal(auger_env.env, auger_env.project) as term:
        yield term


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


def test_connect_from_a_client_without_config(auger_env: AugerEnv, tmp_path: Path) -> None:
    """`auger --connect` on a machine with no auger config: no first-run screen, the server's
    model, a turn on the server's agent."""
    client = tmp_path / "client"
    (client / "auger-home").mkdir(parents=True)
    (client / "project").mkdir()
    env = {**auger_env.env, "HOME": str(client), "AUGER_HOME": str(client / "auger-home")}
    server = start_server(auger_env, "--no-mcp")
    try:
        auger_env.llm.add({"text": "Hello from the server."})
        with terminal(env, client / "project", "--connect", server.url, "--token", server.token) as term:
            first = term.wait(lambda s: "local:scripted-model" in s or "provider:model" in s)
            assert "provider:model" not in first  # not the first-run form
            term.type("hello there")
            term.wait(lambda s: "Hello from the server." in s)
            term.type("/quit")
            assert "AUGER-EXIT=0" in term.wait(lambda s: "AUGER-EXIT=" in s)
    finally:
        assert server.stop() == 0
    assert not list((client / "auger-home").glob("config.toml"))


def test_keys_typed_as_an_approval_appears_do_not_answer_it(auger_env: AugerEnv, tmux: Tmux) -> None:
    """In a real terminal, the next thought typed one key per 100 ms while the approval appears
    stays in the prompt, every letter; the approval is answered only by a key after typing stopped."""
    write = {"file_path": "/a.py", "content": "x = 1\n"}
    auger_env.llm.add({"tool_calls": [{"name": "write_file", "args": write}]}, {"text": "Wrote it."})
    tmux.wait(lambda s: "Ask anything" in s)
    tmux.type("write a.py")
    sentence, typed, seen_at = "about the parser and then the lexer and its tests", "", None
    for key in sentence:  # until 6 keys after the approval was on screen
        if seen_at is None and "Allow write_file" in tmux.screen():
            seen_at = len(typed)
        if seen_at is not None and len(typed) >= seen_at + 6:
            break
        tmux("send-keys", "-t", tmux.name, "-l", key)
        typed += key
        time.sleep(0.1)  # the pace of typing, not a wait for anything
    screen = tmux.wait(lambda s: f"│ {typed} " in s and "Allow write_file" in s)
    assert seen_at is not None, screen
    assert not (auger_env.project / "a.py").exists()
    tmux.wait(lambda s: "keys go to your prompt" not in s)  # typing stopped: the approval takes keys
    tmux("send-keys", "-t", tmux.name, "y")
    screen = tmux.wait(lambda s: "Wrote it." in s)
    assert (auger_env.project / "a.py").read_text() == "x = 1\n"
    assert f"│ {typed} " in screen.split("Wrote it.")[-1]  # still in the prompt, below the reply


def test_model_text_cannot_retitle_or_clear_the_terminal(auger_env: AugerEnv, tmux: Tmux) -> None:
    """A reply carrying OSC/CSI sequences is shown, not obeyed: the terminal's title stays, the
    sequences read as control pictures."""
    auger_env.llm.add({"text": "Title\x1b]2;pwned\x1b\\ and\x1b]0;pwned2\x07 done: all\x9b2J clear."})
    tmux.wait(lambda s: "Ask anything" in s)
    title = tmux("display-message", "-p", "-t", tmux.name, "#{pane_title}")
    tmux.type("hello")
    screen = tmux.wait(lambda s: "clear." in s)
    assert "Title␛]2;pwned␛\\ and␛]0;pwned2␇ done: all␛[2J clear." in screen
    assert tmux("display-message", "-p", "-t", tmux.name, "#{pane_title}") == title
    assert "\x1b]" not in tmux("capture-pane", "-p", "-e", "-t", tmux.name)


LOOP = "sh -c 'echo $$ > loop.pid; while :; do date >> out; sleep 0.1; done'"


def _grows(path: Path, seconds: float) -> bool:
    before = path.stat().st_size
    time.sleep(seconds)  # a measurement over time, not a synchronisation
    return path.stat().st_size > before


def _until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # polling a file / a process: nothing can notify us


def _alive(pid: int) -> bool:
    with contextlib.suppress(FileNotFoundError):
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    return False


@pytest.mark.parametrize("signal_name", ["SIGHUP", "SIGTERM"])
def test_a_closed_terminal_or_sigterm_ends_the_agents_command(auger_env: AugerEnv, signal_name: str) -> None:
    """Closing the terminal (tmux kill-session: SIGHUP) or a SIGTERM to the TUI cancels the turn
    like Ctrl+C: the command's process group is killed, the terminal restored, the thread resumes."""
    import signal
    import sqlite3

    auger_env.llm.add({"tool_calls": [{"name": "execute", "args": {"command": LOOP, "timeout": 600}}]})
    out, loop_pid = auger_env.project / "out", auger_env.project / "loop.pid"
    try:
        with terminal(auger_env.env, auger_env.project, "--mode", "yolo") as term:
            term.wait(lambda s: "Ask anything" in s)
            term.type("loop forever")
            _until(lambda: out.exists() and out.stat().st_size > 0, "the command to start")
            shell = term("display", "-p", "-t", term.name, "#{pane_pid}").strip()
            [auger] = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
            if signal_name == "SIGTERM":
                os.kill(int(auger), signal.SIGTERM)
                screen = term.wait(lambda s: "AUGER-EXIT=" in s)
                assert f"AUGER-EXIT={128 + signal.SIGTERM}" in screen
                assert term("display", "-p", "-t", term.name, "#{alternate_on}").strip() == "0"  # restored
            else:
                term("kill-session", "-t", term.name)  # the terminal is gone: SIGHUP
            _until(lambda: not _alive(int(auger)), "auger to exit")
        assert not _grows(out, 1.0), "the command outlived auger"
    finally:
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            os.killpg(int(loop_pid.read_text()), signal.SIGKILL)
    db = sqlite3.connect(auger_env.home / "threads.db")
    [(thread,)] = db.execute("select distinct thread_id from checkpoints").fetchall()
    db.close()
    auger_env.llm.add({"text": "resumed"})
    again = auger_env.run("-r", thread, "-n", "go on")
    assert again.returncode == 0, again.stderr
    assert "resumed" in again.stdout


SLOW_TO_HANG_UP = """
import asyncio, signal, sys, time
from textual.app import App
from textual.widgets import Label
from auger.tui.hangup import writes_survive_hangup

class Busy(App[int]):
    def compose(self):
        yield Label("0")

    def on_mount(self):
        self.set_interval(0.01, lambda: self.query_one(Label).update(str(time.monotonic())))

        def hang_up():  # a loaded box: the screen is written to the closed terminal meanwhile
            self.set_timer(0.5, lambda: self.exit(129))

        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, hang_up)

if sys.argv[1] == "guarded":
    with writes_survive_hangup():
        code = Busy().run()
else:
    code = Busy().run()
open(sys.argv[2], "w").write(str(code))
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_an_app_slow_to_see_the_hangup_still_exits(tmp_path: Path, guarded: bool) -> None:
    """Writes to a closed terminal kill Textual's writer thread; without `writes_survive_hangup`
    the app's exit then waits on its full queue forever (auger outlived a closed tmux window)."""
    import sys

    script, done = tmp_path / "busy.py", tmp_path / "code"
    script.write_text(SLOW_TO_HANG_UP)
    mode = "guarded" if guarded else "bare"
    term = Tmux(f"auger-hangup-{os.getpid()}")
    command = shlex.join([sys.executable, str(script), mode, str(done)])
    term("new-session", "-d", "-s", term.name, "-x", "80", "-y", "20", command)
    try:
        pane = int(term("display", "-p", "-t", term.name, "#{pane_pid}").strip())
        term.wait(lambda s: any(ch.isdigit() for ch in s))  # painted
        term("kill-session", "-t", term.name)
        if guarded:
            _until(lambda: not _alive(pane), "the app to exit", timeout=20)
            assert done.read_text() == "129"
        else:  # what it guards against, in Textual 8.2; once this fails, Textual mended it: drop the guard
            time.sleep(3)  # a measurement over time: the process is still there after it
            assert _alive(pane) and not done.exists()
    finally:
        subprocess.run([*term.base, "kill-server"], capture_output=True)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pane, 9)


def test_keys_scroll_and_the_conversation_stays_in_the_scrollback(auger_env: AugerEnv) -> None:
    """PageUp / Ctrl+End as a real terminal sends them; with `[tui] scrollback_on_exit` the
    conversation is printed after the alternate screen closes, so it is still there to scroll to."""
    auger_env.write_config("[tui]\nscrollback_on_exit = true\n")
    auger_env.llm.add({"text": "\n\n".join(f"Line {i} of the answer." for i in range(60))})
    with terminal(auger_env.env, auger_env.project) as term:
        term.wait(lambda s: "Ask anything" in s)
        term.type("tell me a long story")
        term.wait(lambda s: "Line 59 of the answer." in s)
        term("send-keys", "-t", term.name, "PPage")
        term.wait(lambda s: "Line 59 of the answer." not in s and "Line 45 of the answer." in s)
        term("send-keys", "-t", term.name, "C-End")
        term.wait(lambda s: "Line 59 of the answer." in s)
        term.type("/quit")
        term.wait(lambda s: "AUGER-EXIT=0" in s)
        history = term("capture-pane", "-p", "-S", "-", "-t", term.name)
    after = history.split("Resume this conversation with")[0]
    for line in ("tell me a long story", "Line 0 of the answer.", "Line 59 of the answer."):
        assert line in after
