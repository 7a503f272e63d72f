"""`auger acp` driven by Zed's TypeScript ACP SDK (`@agentclientprotocol/sdk`, run with node):
prompt, streamed text, a tool call needing permission, allow, the file on disk, cancel mid-turn,
an image prompt the (text) model cannot take refused, and the session loaded in a new process
(tests/acp_peers/ts_client/session.mjs does the talking).

scripts/test.sh installs node and the SDK (`npm ci` in tests/acp_peers/ts_client); without them this
test fails saying so, it is not skipped."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import AUGER, AugerEnv

CLIENT = Path(__file__).resolve().parent / "ts_client"


def test_zed_typescript_sdk_full_session(auger_env: AugerEnv) -> None:
    node = shutil.which("node")
    assert node, "node is not installed: run scripts/test.sh (it installs nodejs and npm)"
    assert (CLIENT / "node_modules" / "@agentclientprotocol" / "sdk").is_dir(), (
        f"the TypeScript SDK is not installed: run `npm ci` in {CLIENT} (scripts/test.sh does)"
    )
    auger_env.llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/hello.txt", "content": "from ts\n"}}]},
        {"text": "Wrote hello.txt."},
        {"text": "Counting: ", "text_tokens": 4000, "rate": 200},
    )
    proc = subprocess.run(
        [node, str(CLIENT / "session.mjs"), AUGER, str(auger_env.project)],
        capture_output=True,
        text=True,
        env=auger_env.env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])

    assert out["agent"]["name"] == "auger" and out["loadSession"] is True
    assert out["modes"] == ["manual", "auto-edit", "yolo", "plan"]
    first = out["first"]
    assert first["stopReason"] == "end_turn"
    [call] = first["toolCalls"]
    assert call["kind"] == "edit" and call["title"] == "Write /hello.txt"
    assert call["content"][0] == {
        "type": "diff",
        "path": str(auger_env.project / "hello.txt"),
        "newText": "from ts\n",
    }
    [asked] = first["permissions"]
    assert asked["toolCall"]["toolCallId"] == call["toolCallId"]
    assert "completed" in first["statuses"]
    assert first["reply"] == "Wrote hello.txt."
    assert (auger_env.project / "hello.txt").read_text() == "from ts\n"

    assert out["cancel"]["stopReason"] == "cancelled" and out["cancel"]["partial"] > 0
    assert out["image"]["advertised"] is True
    assert "local:scripted-model does not take images" in out["image"]["error"], out["image"]

    load = out["load"]
    assert load["users"][:2] == ["write hello.txt", "count to a lot"]
    assert "Wrote hello.txt." in load["reply"]
    assert load["toolCalls"] == ["Write /hello.txt"]
