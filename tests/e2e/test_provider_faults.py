"""End-to-end: a base_url that is not the API (an HTML page, a redirect to a login page), a server
that drips bytes forever, and tool-call arguments that are not JSON — the real `auger -n` against
the fault-injecting scripted server (tests/llm_server.py).

Each ends in one line that names the URL or the setting and says what is wrong (exit 1), never a
JSON-parse traceback, an empty answer or a hang; arguments the model botched are sent back to it.
"""

from __future__ import annotations

import json
import time

from conftest import AugerEnv
from turn_checks import assert_clean_error, stored_messages


def _top_level(env: AugerEnv, text: str) -> None:
    cfg = env.home / "config.toml"
    cfg.write_text(text + cfg.read_text())  # before the [providers.local] table


def test_an_html_page_is_not_an_openai_compatible_api(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"html": True})
    proc = auger_env.run("-n", "hello?", "--output-format", "json")
    url = f"{auger_env.llm.base_url}/chat/completions"
    assert_clean_error(proc, 1, url, "an HTML page", "not an OpenAI-compatible API", "base_url")
    assert len(auger_env.llm.requests) == 1  # not retried
    result = json.loads(proc.stdout)
    assert [m.type for m in stored_messages(auger_env, result["thread_id"])] == ["human"]


def test_an_html_error_page_is_a_status_error_and_retried(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"html": 502}, {"text": "second time lucky"})  # a proxy in front of the API
    proc = auger_env.run("-n", "hello?")
    assert proc.returncode == 0 and proc.stdout.strip() == "second time lucky", proc.stderr
    assert len(auger_env.llm.requests) == 2


def test_a_redirect_names_where_it_leads(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"redirect": "/login?next=/v1/chat/completions"})
    proc = auger_env.run("-n", "hello?")
    login = f"http://127.0.0.1:{auger_env.llm.port}/login?next=/v1/chat/completions"
    assert_clean_error(
        proc, 1, f"{auger_env.llm.base_url}/chat/completions", f"redirects to {login}", "not an OpenAI"
    )
    assert len(auger_env.llm.requests) == 1


def test_a_server_dripping_bytes_trips_request_timeout(auger_env: AugerEnv) -> None:
    _top_level(auger_env, "request_timeout = 3\n")
    auger_env.llm.add({"drip": 0.5})  # a byte every half second, never a whole line
    start = time.monotonic()
    proc = auger_env.run("-n", "hello?", timeout=60)
    assert_clean_error(proc, 1, "provider 'local' sent no complete line for 3 s", "request_timeout = 3")
    assert time.monotonic() - start < 40 and len(auger_env.llm.requests) == 1
