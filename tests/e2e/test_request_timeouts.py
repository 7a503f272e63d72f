"""End-to-end: `request_timeout` (seconds without any bytes from the provider) and `--timeout`
(counted from the process start), with the real `auger -n` against the fault-injecting server.

A silent socket trips request_timeout once — one line naming the provider and the setting, exit 1,
the thread intact, and no silent retries (one request in the server's log); bytes of any kind,
SSE keep-alive comments included, reset it.
"""

from __future__ import annotations

import json
import sys
import time

import pytest

from conftest import AugerEnv
from turn_checks import assert_clean_error, assert_no_tool_call, stored_messages


def _top_level(env: AugerEnv, text: str) -> None:
    cfg = env.home / "config.toml"
    cfg.write_text(text + cfg.read_text())  # before the [providers.local] table


@pytest.mark.parametrize("hang", [True, "after_headers"], ids=["before-headers", "after-headers"])
def test_a_silent_provider_trips_request_timeout_once(auger_env: AugerEnv, hang: object) -> None:
    _top_level(auger_env, "request_timeout = 2\n")
    auger_env.llm.add({"hang": hang})
    proc = auger_env.run("-n", "hello?", "--output-format", "json")
    assert_clean_error(
        proc, 1, "provider 'local' sent nothing for 2 s (request_timeout = 2)", "raise request_timeout"
    )
    assert len(auger_env.llm.requests) == 1  # not retried: one silence costs one request_timeout
    result = json.loads(proc.stdout)
    assert result["reason"] == "error"
    assert [m.type for m in stored_messages(auger_env, result["thread_id"])] == ["human"]  # thread intact


def test_the_provider_setting_wins_and_is_named(auger_env: AugerEnv) -> None:
    _top_level(auger_env, "request_timeout = 600\n")
    auger_env.write_config("request_timeout = 1.5\n")  # in [providers.local]
    auger_env.llm.add({"hang": "after_headers"})
    proc = auger_env.run("-n", "hello?")
    assert_clean_error(
        proc, 1, "sent nothing for 1.5 s (providers.local.request_timeout = 1.5)", "[providers.local]"
    )


def test_a_stream_that_stalls_mid_reply_keeps_the_text(auger_env: AugerEnv) -> None:
    _top_level(auger_env, "request_timeout = 2\n")
    auger_env.llm.add({"text": "Halfway through my ans", "stall": True})
    proc = auger_env.run("-n", "explain", "--output-format", "json")
    assert_clean_error(proc, 1, "provider 'local' sent nothing for 2 s")
    result = json.loads(proc.stdout)
    stored = stored_messages(auger_env, result["thread_id"])
    assert_no_tool_call(stored)
    assert stored[-1].type == "ai" and stored[-1].text.startswith("Halfway through my ans\n\n[interrupted")
    auger_env.llm.add({"text": "Here is all of it."})
    again = auger_env.run("-n", "go on", "-r", result["thread_id"])
    assert again.returncode == 0 and again.stdout.strip() == "Here is all of it.", again.stderr


def test_keep_alive_comments_reset_the_timer(auger_env: AugerEnv) -> None:
    # a slow server reading a long prompt: 5 s of SSE comments, nothing else, then the answer
    _top_level(auger_env, "request_timeout = 2\n")
    auger_env.env["LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S"] = "1"  # langchain's own chunk timer: off
    auger_env.llm.add({"keepalive": 5, "keepalive_every": 0.5, "text": "Worth the wait."})
    start = time.monotonic()
    proc = auger_env.run("-n", "a long prompt")
    assert proc.returncode == 0 and proc.stdout.strip() == "Worth the wait.", proc.stderr
    assert time.monotonic() - start >= 5 and len(auger_env.llm.requests) == 1


def test_anthropic_honours_request_timeout(auger_env: AugerEnv) -> None:
    auger_env.env.update(
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{auger_env.llm.port}"
    )
    auger_env.write_config(model="anthropic:claude-sonnet-4-5")
    _top_level(auger_env, "request_timeout = 2\n")
    auger_env.llm.add({"hang": True})
    proc = auger_env.run("-n", "hello?")
    assert_clean_error(proc, 1, "provider 'anthropic' sent nothing for 2 s (request_timeout = 2)")
    assert len(auger_env.llm.requests) == 1


def test_timeout_counts_from_the_process_start(auger_env: AugerEnv) -> None:
    # an MCP server that never answers `initialize`: headless waits for it (up to 30 s) before the
    # first model call; --timeout 3 must end the run 3 s after it started, not 3 s after that
    never = f'command = "{sys.executable}"\nargs = ["-c", "import time; time.sleep(120)"]\n'
    _top_level(auger_env, "[mcp.servers.mute]\n" + never)
    auger_env.llm.add({"text": "too late"})
    start = time.monotonic()
    proc = auger_env.run("-n", "hi", "--timeout", "3", "--output-format", "json")
    elapsed = time.monotonic() - start
    assert_clean_error(proc, 124, "Timed out after 3 s (--timeout) while starting up")
    assert json.loads(proc.stdout)["reason"] == "timeout"
    assert elapsed < 25, elapsed  # the MCP wait alone is 30 s (startup on a loaded box: ~10 s)
    assert auger_env.llm.requests == []


def test_request_timeout_must_be_a_positive_number(auger_env: AugerEnv) -> None:
    _top_level(auger_env, "request_timeout = 0\n")
    assert_clean_error(
        auger_env.run("-n", "hi"), 2, "config.toml", "request_timeout = 0 must be greater than 0"
    )
    shown = auger_env.run("config", "show")
    assert shown.returncode == 2  # the same file, the same message
    auger_env.write_config()
    assert "request_timeout = 300.0" in auger_env.run("config", "show").stdout  # finite by default
