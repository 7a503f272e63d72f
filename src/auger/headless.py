"""Headless mode: `auger -n "task"` — text | json | stream-json, never waits for a human.

Exit codes: 0 done, 1 agent/provider error, 2 usage or config error, 3 turn limit,
124 timeout, 130 interrupted (Ctrl+C), 141 stdout closed (`auger -n ... | head -1`: the turn
stops as a program stopped by SIGPIPE would, quietly; what was done stays in the thread).
`--mode plan` prints the plan the agent presents (`present_plan`) and ends there, exit 0: nobody
accepted it, so nothing is carried out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from auger.core import events as ev
from auger.core.port import PLAN_TOOL, TurnOptions, headless_policy
from auger.core.text import visible

if TYPE_CHECKING:
    from auger.core.port import AgentPort, SessionFactory
    from auger.settings import Settings

STDOUT_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away
EXIT_BY_REASON = {
    "done": 0,
    "error": 1,
    "turn_limit": 3,
    "timeout": 124,
    "cancelled": 130,
    "interrupted": 130,
}


class Printer:
    def __init__(self, fmt: str, out: TextIO, err: TextIO) -> None:
        self.fmt, self.out, self.err = fmt, out, err
        self.events: list[dict[str, Any]] = []
        self.usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
        self._ended_line = True
        self.closed = False  # stdout's reader went away (`| head -1`)
        self.on_closed: Any = None  # called once when that happens (the run cancels its turn)

    def __call__(self, event: ev.Event) -> None:
        if self.closed:
            return
        try:
            self._print(event)
        except BrokenPipeError:
            self._close()

    def _close(self) -> None:
        self.closed = True
        _silence(self.out)
        if self.on_closed is not None:
            self.on_closed()

    def _print(self, event: ev.Event) -> None:
        data = event.to_dict()
        if isinstance(event, ev.Usage):
            for key in self.usage:
                self.usage[key] += int(data.get(key) or 0)
        if isinstance(event, ev.Error) or (isinstance(event, ev.Notice) and event.level == "warning"):
            self.err.write(f"auger: {visible(event.message)}\n")  # one line on stderr, whatever the format
        if self.fmt == "stream-json":
            self.out.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
            self.out.flush()
        elif self.fmt == "json":
            self.events.append(data)
        elif isinstance(event, ev.TextDelta) and event.parent_id is None:
            self._text(event.text)
        elif isinstance(event, ev.ToolCallStarted) and event.name == PLAN_TOOL and event.parent_id is None:
            self._text(("" if self._ended_line else "\n") + str(event.args.get("plan") or "").strip() + "\n")
        elif isinstance(event, ev.TurnEnded) and not self._ended_line:
            self.out.write("\n")

    def _text(self, text: str) -> None:
        self.out.write(visible(text))  # the model's text never drives the terminal
        self.out.flush()
        self._ended_line = text.endswith("\n")

    def finish(self, end: ev.TurnEnded, code: int) -> None:
        if self.fmt != "json" or self.closed:
            return
        result = {
            "type": "result",
            "thread_id": end.thread_id,
            "reason": end.reason,
            "exit_code": code,
            "text": end.text,
            "usage": self.usage,
            "events": self.events,
        }
        try:
            self.out.write(json.dumps(result, ensure_ascii=False, default=str) + "\n")
            self.out.flush()
        except BrokenPipeError:
            self._close()


def _silence(stream: TextIO) -> None:
    """Point a stream whose reader is gone at /dev/null, so the flush at exit stays quiet."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


async def run_turn(
    session: AgentPort, prompt: str, printer: Printer, settings: Settings, at: float | None
) -> int:
    """The turn, stopped at `at` (`--timeout`'s end on the event loop's clock, None: never)."""
    end = ev.TurnEnded("error", session.thread_id)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # Ctrl+C, kill, a closed terminal
            loop.add_signal_handler(sig, session.cancel)
    printer.on_closed = session.cancel
    options = TurnOptions(settings.mode, approval=headless_policy)
    try:
        async with asyncio.timeout_at(at):
            async for event in session.send(prompt, options):
                if isinstance(event, ev.TurnEnded):
                    end = event
                    continue
                printer(event)
    except TimeoutError:
        message = f"Timed out after {settings.timeout:g} s (--timeout); the thread keeps what was done."
        printer(ev.Error(message, "timeout"))
        end = ev.TurnEnded("timeout", session.thread_id, end.text)
    return _ended(printer, end)


def _ended(printer: Printer, end: ev.TurnEnded) -> int:
    """Print the turn's end; its exit code."""
    printer(end)
    code = STDOUT_CLOSED if printer.closed else EXIT_BY_REASON.get(end.reason, 1)
    printer.finish(end, code)
    return code


async def run_headless(
    settings: Settings,
    prompt: str,
    factory: SessionFactory,
    *,
    output_format: str,
    resume: str | None,
    started: float,
) -> int:
    """One turn on the session `factory` opens (approvals answered by `headless_policy`).
    `started`: when the process started (time.monotonic); `--timeout` counts from it, so MCP
    servers that are slow to start and building the agent count too."""
    printer = Printer(output_format, sys.stdout, sys.stderr)
    at = None if settings.timeout is None else started + settings.timeout
    try:
        async with asyncio.timeout_at(at):
            session = await factory(settings, resume)
    except TimeoutError:
        message = f"Timed out after {settings.timeout:g} s (--timeout) while starting up; nothing was sent."
        printer(ev.Error(message, "timeout"))
        return _ended(printer, ev.TurnEnded("timeout", ""))
    try:
        return await run_turn(session, prompt, printer, settings, at)
    finally:
        await session.aclose()
