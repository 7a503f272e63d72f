"""The server in-process: IR -> Vercel UI-message parts, chat request parsing, SSE keep-alive, auth,
body limits, the thread pool (shared graph, stateless cleanup), and the import budget (`--version`
and `serve --help` load no server code)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from auger.core import events as ev
from auger.core.port import PromptImage
from auger.errors import BusyError
from auger.server.app import create_app
from auger.server.http import ApiError, images_field
from auger.server.pool import EPHEMERAL_PREFIX, ThreadPool
from auger.server.sse import PING, with_keepalive
from auger.server.vercel import UIStream, parse_chat
from auger.settings import load_settings
from conftest import AugerEnv

TOKEN = "unit-token"


def _types(parts: list[dict[str, Any]]) -> list[str]:
    return [p["type"] for p in parts]


# -- IR -> UI-message stream -------------------------------------------------------------------------


def test_ui_stream_maps_a_turn_with_reasoning_tools_and_steps() -> None:
    ui = UIStream("t1")
    parts = ui.start()
    for event in [
        ev.TurnStarted("t1", "go"),
        ev.ReasoningDelta("thinking"),
        ev.TextDelta("Let me look."),
        ev.ToolCallStarted("c1", "read_file", {"file_path": "/x"}),
        ev.TextDelta("sub-agent chatter", parent_id="task-1"),  # subagent text stays out
        ev.ToolCallFinished("c1", "read_file", "no such file", "error"),
        ev.Usage(10, 2, 12, 12),
        ev.Notice("heads up", "warning"),
        ev.TodosUpdated([{"content": "x", "status": "pending"}]),
        ev.TextDelta("Done."),
        ev.Usage(20, 3, 23, 23),
    ]:
        parts += ui.feed(event)
    parts += ui.finish("done")
    assert _types(parts) == [
        "start",
        "start-step",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-error",
        "data-notice",
        "data-todos",
        "finish-step",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
    ]
    ids = [p["id"] for p in parts if p["type"].endswith(("-start", "-delta", "-end")) and "id" in p]
    assert len(set(ids)) == 3  # reasoning-1, text-2, text-3: each block its own id
    assert parts[11] == {"type": "tool-output-error", "toolCallId": "c1", "errorText": "no such file"}
    assert parts[12]["transient"] is True and parts[12]["data"]["level"] == "warning"
    assert parts[-1]["messageMetadata"] == {
        "threadId": "t1",
        "reason": "done",
        "usage": {"inputTokens": 30, "outputTokens": 5, "totalTokens": 35},
    }


def test_ui_stream_error_closes_the_open_block() -> None:
    ui = UIStream("t", stateless=True)
    parts = ui.start() + ui.feed(ev.TextDelta("partial")) + ui.feed(ev.Error("provider down", "provider"))
    parts += ui.finish("error")
    assert _types(parts)[-5:] == ["text-delta", "text-end", "error", "finish-step", "finish"]
    assert parts[-3] == {"type": "error", "errorText": "provider down"}
    assert parts[0]["messageMetadata"] == {"threadId": None}


def test_parse_chat_accepts_parts_and_content_forms() -> None:
    chat = parse_chat(
        {
            "messages": [
                {"role": "system", "content": "ignored: auger has its own prompt"},
                {"role": "user", "content": [{"type": "text", "text": "one"}]},
                {"role": "assistant", "parts": [{"type": "step-start"}, {"type": "text", "text": "two"}]},
                {"role": "user", "parts": [{"type": "text", "text": "thr"}, {"type": "text", "text": "ee"}]},
            ],
            "thread_id": "abc",
            "model": "local:x",
        }
    )
    assert chat.prompt == "three" and chat.history == [("user", "one"), ("assistant", "two")]
    assert (chat.thread_id, chat.model) == ("abc", "local:x")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "Missing field 'messages'"),
        ({"messages": [{"role": "assistant", "content": "hi"}]}, "last message must be a user message"),
        ({"messages": [{"role": "user", "parts": [{"type": "text", "text": 5}]}]}, "text must be a string"),
        ({"messages": [{"role": "user", "parts": "nope"}]}, "needs 'parts'"),
        ({"messages": ["hi"]}, "messages[0] must be an object"),
        ({"messages": [{"role": "user", "content": "x"}], "thread_id": 7}, "'thread_id' must be a string"),
    ],
)
def test_parse_chat_rejects_bad_bodies(body: dict[str, Any], words: str) -> None:
    with pytest.raises(ApiError) as info:
        parse_chat(body)
    assert info.value.status == 400 and words in info.value.message


@pytest.mark.parametrize(
    "images",
    [[{"data": "iVBOR"}], [{"mime_type": "image/png"}], ["x"], [{"mime_type": "image/png", "data": 5}], "x"],
)
def test_a_runs_images_must_each_be_a_mime_type_with_data_or_a_url(images: Any) -> None:
    with pytest.raises(ApiError) as info:
        images_field({"images": images})
    assert info.value.status == 400 and "'images'" in info.value.message


def test_a_runs_images_are_prompt_images() -> None:
    given = [
        {"mime_type": "image/png", "data": "iVBOR"},
        {"mime_type": "image/jpeg", "url": "https://x/y.jpg"},
    ]
    assert images_field({"images": given}) == (
        PromptImage("image/png", data="iVBOR"),
        PromptImage("image/jpeg", url="https://x/y.jpg"),
    )


async def test_keepalive_pings_a_quiet_stream_and_passes_frames_through() -> None:
    async def slow() -> AsyncIterator[bytes]:
        yield b"a"
        await asyncio.sleep(0.12)
        yield b"b"

    out = [chunk async for chunk in with_keepalive(slow(), interval=0.05)]
    assert out[0] == b"a" and out[-1] == b"b" and PING in out


# -- the app in-process ------------------------------------------------------------------------------


@pytest.fixture
async def pool(auger_env: AugerEnv) -> AsyncIterator[ThreadPool]:
    from auger.core.runtime import open_runtime

    settings = load_settings(cwd=auger_env.project, env=auger_env.env, flags={"mode": "yolo"})
    async with open_runtime(settings) as runtime:
        p = ThreadPool(runtime, "yolo")
        yield p
        await p.aclose()


def _client(pool: ThreadPool, token: str | None = TOKEN) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=create_app(pool, token=TOKEN, max_body=4096))
    return httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers)


async def test_auth_compare_and_open_health(pool: ThreadPool) -> None:
    async with _client(pool, token=None) as anon, _client(pool, token=TOKEN + "x") as wrong:
        assert (await anon.get("/health")).status_code == 200
        missing = await anon.get("/threads")
        assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
        assert (await wrong.get("/threads")).json() == {"error": "Invalid token."}
        assert (await anon.post("/health")).status_code == 401  # only GET /health is open


async def test_body_limit_with_and_without_content_length(pool: ThreadPool) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b"x" * 1000

    async with _client(pool) as c:
        declared = await c.post("/threads", content=b"{" + b" " * 5000 + b"}")
        assert declared.status_code == 413 and "4096" in declared.json()["error"]
        chunked = await c.post("/threads", content=chunks())
        assert chunked.status_code == 413
        assert (await c.post("/threads", json={})).status_code == 201  # still serving


async def test_chat_in_process_and_stateless_cleanup(pool: ThreadPool, auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "hi!"})
    async with _client(pool) as c:
        resp = await c.post("/chat/stream", json={"messages": [{"role": "user", "content": "hello"}]})
    assert resp.headers["x-vercel-ai-ui-message-stream"] == "v1"
    lines = [line[6:] for line in resp.text.split("\n\n") if line.startswith("data: ")]
    assert lines[-1] == "[DONE]" and json.loads(lines[-2])["type"] == "finish"
    sql = "SELECT count(*) FROM checkpoints WHERE substr(thread_id, 1, 5) = ?"
    for _ in range(50):  # the throwaway thread is deleted right after its stream ends
        async with pool.runtime.checkpointer.conn.execute(sql, (EPHEMERAL_PREFIX,)) as cur:
            if (await cur.fetchone())[0] == 0:
                break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the stateless chat's checkpoints were not deleted")


async def test_pool_sessions_share_one_runtime(pool: ThreadPool) -> None:
    a = await pool.create("one", "manual")
    b = await pool.create("two")
    assert a.runtime is b.runtime is pool.base.runtime  # one graph, connection, store, hooks
    assert a is not b and a.grants is not b.grants
    assert pool.mode_of("one") == "manual" and pool.mode_of("two") == "yolo"
    with pytest.raises(BusyError, match="busy"):
        await pool.lease(a)
        await pool.lease(a)
    scratch = pool.ephemeral()
    assert scratch.thread_id.startswith(EPHEMERAL_PREFIX) and not scratch.record


async def test_a_run_refused_for_its_images_leaves_the_thread_free(
    pool: ThreadPool, auger_env: AugerEnv
) -> None:
    auger_env.llm.add({"text": "hi!"})
    async with _client(pool) as c:
        thread = (await c.post("/threads", json={})).json()["id"]
        refused = await c.post(f"/threads/{thread}/runs", json={"prompt": "hello", "images": "x"})
        assert refused.status_code == 400 and "'images'" in refused.json()["error"]
        assert not pool.busy(thread)
        ran = await c.post(f"/threads/{thread}/runs", json={"prompt": "hello"})
    assert ran.status_code == 200, ran.text
    assert '"reason":"done"' in ran.text


async def test_a_run_refused_after_its_thread_was_reserved_leaves_it_free_at_once(
    pool: ThreadPool, auger_env: AugerEnv
) -> None:
    """An unknown model is refused (400) after the thread's writer lease was taken in the
    database; the lease row is deleted in the background, and a run sent straight after must not
    find it and answer 409 "busy in another auger" (this very process)."""
    async with _client(pool) as c:
        for attempt in range(5):
            auger_env.llm.add({"text": f"hi {attempt}"})
            thread = (await c.post("/threads", json={})).json()["id"]
            refused = await c.post(f"/threads/{thread}/runs", json={"prompt": "x", "model": "nope:m"})
            assert refused.status_code == 400, refused.text
            ran = await c.post(f"/threads/{thread}/runs", json={"prompt": "hello"})
            assert ran.status_code == 200, ran.text
            assert '"reason":"done"' in ran.text


# -- import budget -----------------------------------------------------------------------------------

HEAVY = ("auger.server", "auger.cli.serve", "auger.remote", "starlette", "uvicorn", "httpx")


@pytest.mark.parametrize(
    "code",
    [
        "import auger.cli.command as c\ntry:\n    c._main(['--version'])\nexcept SystemExit:\n    pass",
        "import auger.cli.command as c\ntry:\n    c._main(['--help'])\nexcept SystemExit:\n    pass",
        "import auger.cli.serve as s\ntry:\n    s.run(['--help'])\nexcept SystemExit:\n    pass",
    ],
)
def test_version_and_help_import_no_server_code(code: str, tmp_path: Path) -> None:
    listing = "{m.split('.')[0] if not m.startswith('auger') else m for m in sys.modules}"
    probe = f"{code}\nimport sys\nprint(sorted({listing}))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1].replace("'", '"')))
    allowed = {"auger.cli.serve"} if "cli.serve" in code else set()
    assert {m for m in loaded if m.startswith(HEAVY)} - allowed == set()
