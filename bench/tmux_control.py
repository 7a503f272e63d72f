"""Key echo timed through one tmux control-mode client (`tmux -C`), not a tmux process per step.

bench_tui's `Term` runs a `tmux` process for every `send-keys` and every `capture-pane` poll. A
key's echo timed that way includes starting the `send-keys` process (fork, exec, connect:
5-15 ms on a loaded machine, before the key even reaches the pty) and up to one whole poll (another
process) after the echo was written, and the polling processes compete for the CPU with the app
being measured. Through a control client both are commands on a pipe: `send-keys` is written the
moment the clock starts, and tmux tells the client of every write of the app (`%output`), so the
screen is captured only when something changed, and the echo's time is that of the `%output`
which carried it (the last one before the capture that shows the key).
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Callable

from bench_tui import Term


class ControlClient:
    """A control-mode client attached to `term`'s session: commands in, replies and `%output`
    notifications out (read by a thread, each stamped with the time it was read)."""

    def __init__(self, term: Term) -> None:
        self.term = term
        self._proc = subprocess.Popen(
            [*term.base, "-C", "attach-session", "-t", term.name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self._replies: queue.Queue[list[str]] = queue.Queue()
        self._unread = 0  # replies to commands nobody waited for (send-keys), to skip
        self._output = threading.Condition()
        self.output_at = 0.0  # when the last %output was read
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.command("refresh-client -C 120x40")  # the window keeps Term's size

    def _read(self) -> None:
        assert self._proc.stdout is not None
        block: list[str] | None = None
        for raw in self._proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if block is not None:
                if line.startswith(("%end", "%error")):
                    self._replies.put(block)
                    block = None
                else:
                    block.append(line)
            elif line.startswith("%begin") and line.endswith(" 1"):  # a reply to one of ours
                block = []
            elif line.startswith("%output"):
                with self._output:
                    self.output_at = time.perf_counter()
                    self._output.notify_all()

    def command(self, command: str) -> list[str]:
        """Run one tmux command on the control client; its reply's lines."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(command.encode() + b"\n")
        while self._unread:
            self._replies.get(timeout=30)
            self._unread -= 1
        return self._replies.get(timeout=30)

    def screen(self) -> tuple[float, str]:
        """The pane as shown, and the time of the last %output before it was captured."""
        seen = self.output_at
        return seen, "\n".join(self.command(f"capture-pane -p -t {self.term.name}"))

    def send_literal(self, text: str) -> float:
        """Type `text`; the time just before the command was written."""
        assert self._proc.stdin is not None
        t0 = time.perf_counter()
        self._proc.stdin.write(f"send-keys -t {self.term.name} -l {text}\n".encode())
        self._unread += 1
        return t0

    def wait(self, cond: Callable[[str], bool], timeout: float = 30.0) -> tuple[float, str]:
        """Until `cond(screen)`: the time of the %output that made it hold, and the screen.
        Captures only after new output (or every 20 ms)."""
        deadline = time.perf_counter() + timeout
        while True:
            seen, text = self.screen()
            if cond(text):
                return seen, text
            if time.perf_counter() > deadline:
                raise TimeoutError(f"screen never matched:\n{text}")
            with self._output:
                if self.output_at == seen:
                    self._output.wait(0.02)

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._reader.join(1)
