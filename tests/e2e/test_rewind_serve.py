"""End-to-end: rewind and diff as port operations — over HTTP on a real `auger serve` and through
RemoteSession (what `--connect` uses), with real turns against the scripted LLM changing files;
on both thread databases (`thread_db`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_rewind_e2e import disk, shell, write

from auger.core.port import TurnOptions
from auger.remote.client import RemoteSession
from conftest import AugerEnv
from serve_harness import Server, start_server

YOLO = TurnOptions("yolo")


@pytest.fixture
def server(auger_env: AugerEnv, thread_db: Any) -> Iterator[Server]:
    (auger_env.project / "seed.txt").write_text("seed\n")
    srv = start_server(auger_env, "--mode", "yolo")
    yield srv
    assert srv.stop() == 0


def script(env: AugerEnv, prompt: str, *calls: dict[str, Any]) -> None:
    when = {"last_user_contains": prompt}
    env.llm.add(*({"when": when, "tool_calls": [c]} for c in calls), {"when": when, "text": "done"})


def test_rewind_and_diff_over_http(server: Server) -> None:
    root = server.env.project
    script(server.env, "first", write("a.txt", "A\n"))
    script(server.env, "second", shell("rm seed.txt && echo B > b.txt"))
    tid = server.new_thread()
    for prompt in ("first", "second"):
        events = server.run(tid, prompt)
        assert events[-1]["reason"] == "done", events
    assert disk(root) == {"a.txt": "A\n", "b.txt": "B\n"}
    with server.client() as c:
        diff = c.get(f"/threads/{tid}/diff", params={"turn": 2})
        assert diff.status_code == 200, diff.text
        assert "+++ b/b.txt" in diff.json()["text"] and "--- a/seed.txt" in diff.json()["text"]
        assert "a.txt" not in diff.json()["text"]  # turn 1's change is not in turn 2's diff
        assert "+++ b/a.txt" in c.get(f"/threads/{tid}/diff").json()["text"]  # the whole thread
        assert (
            "rewind"
            in c.get("/openapi.json").json()["paths"]["/threads/{thread_id}/rewind"]["post"]["operationId"]
        )

        missing = c.post(f"/threads/{tid}/rewind", json={"to": 9})
        assert missing.status_code == 400 and "9" in missing.json()["error"], missing.text
        nothing = c.post(f"/threads/{tid}/rewind", json={"to": 2, "files": False, "conversation": False})
        assert nothing.status_code == 400 and "nothing to rewind" in nothing.json()["error"]
        dry = c.post(f"/threads/{tid}/rewind", json={"to": 2, "dry_run": True}).json()
        assert disk(root) == {"a.txt": "A\n", "b.txt": "B\n"}  # a dry run changes nothing
        assert sorted((f["path"], f["verb"]) for f in dry["files"]) == [
            ("b.txt", "removed"),
            ("seed.txt", "recreated"),
        ]

        done = c.post(f"/threads/{tid}/rewind", json={"to": 2})
        assert done.status_code == 200, done.text
        assert done.json()["removed_turns"] == [2] and done.json()["left"] == 1
        assert disk(root) == {"a.txt": "A\n", "seed.txt": "seed\n"}
        msgs = c.get(f"/threads/{tid}/messages").json()["messages"]
        assert [m["data"]["content"] for m in msgs if m["type"] == "human"] == ["first"]


async def test_remote_session_rewinds_its_thread(server: Server) -> None:
    root = server.env.project
    script(server.env, "remote write", write("r.txt", "R\n"))
    session = await RemoteSession.connect(server.url, server.token)
    try:
        events = [e async for e in session.send("remote write", YOLO)]
        assert [e.paths for e in events if e.type == "files_changed"] == [["r.txt"]]  # type: ignore[attr-defined]
        assert "+R" in await session.diff(1)
        done = await session.rewind(1, conversation=False)
        assert [(f.path, f.verb) for f in done.files or []] == [("r.txt", "removed")]
        assert done.removed_turns is None
        assert disk(root) == {"seed.txt": "seed\n"}
        assert len(await session.history()) > 0  # the conversation was kept
    finally:
        await session.aclose()
