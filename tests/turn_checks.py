"""What the turn-fault tests check after a real `auger` run: a clean one-line error, and the
thread as stored in threads.db (read with auger's own reader, as `auger threads show` does)."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

from conftest import AugerEnv


def assert_clean_error(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """Exit `code`, one line on stderr holding every needle, no traceback anywhere."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def stored_messages(env: AugerEnv, thread_id: str) -> list[Any]:
    """The thread's messages in `env`'s threads.db."""
    from auger.core.threads.history import read_history

    return asyncio.run(read_history(env.home / "threads.db", thread_id))


def assert_no_tool_call(messages: list[Any]) -> None:
    """Nothing in the thread was (or is about to be) run."""
    assert not [m for m in messages if m.type == "tool"], messages
    assert not [m for m in messages if m.type == "ai" and (m.tool_calls or m.invalid_tool_calls)], messages


def assistant_texts(request: dict[str, Any]) -> list[str]:
    """The assistant turns a chat-completions request carried to the model."""
    return [str(m.get("content") or "") for m in request["messages"] if m["role"] == "assistant"]
