"""End-to-end: a tool that fails is a result the model reads, never the end of the turn, and no
input — a symlink out of the project, a FIFO or folder where a file is expected, bytes that are
not UTF-8, MCP content a provider refuses — poisons the thread for later turns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from auger.core.runtime import open_session
from auger.settings import load_settings
from conftest import AUGER, AugerEnv
from conftest_llm import typed
from mcp_servers.fastmcp_server import PNG_1PX

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "fastmcp_server.py"


def _finished(env: AugerEnv, proc: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    return {e["call_id"]: e for e in env.events(proc) if e["type"] == "tool_call_finished"}


def _tool_texts(request: dict[str, Any]) -> list[str]:
    return [json.dumps(m["content"], ensure_ascii=False) for m in request["messages"] if m["role"] == "tool"]


def _call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "id": call_id, "args": args}]}


def test_paths_the_tools_cannot_use_are_error_results_and_the_turn_goes_on(auger_env: AugerEnv) -> None:
    project = auger_env.project
    outside = auger_env.home.parent / "outside.txt"
    outside.write_text("secret outside the project\n")
    (project / "out.txt").symlink_to(outside)
    os.mkfifo(project / "pipe")
    (project / "folder").mkdir()
    (project / "ok.txt").write_text("fine\n")
    auger_env.llm.add(
        _call("c_link", "read_file", file_path="/out.txt"),
        _call("c_link_w", "write_file", file_path="/out.txt", content="x"),
        _call("c_fifo", "read_file", file_path="/pipe"),
        _call("c_dir", "edit_file", file_path="/folder", old_string="a", new_string="b"),
        _call("c_ok", "read_file", file_path="/ok.txt"),
        {"text": "Read what I could."},
    )
    proc = auger_env.run("-n", "read them", "--mode", "yolo", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    finished = _finished(auger_env, proc)
    for call_id in ("c_link", "c_link_w", "c_fifo", "c_dir"):
        assert finished[call_id]["status"] == "error", finished[call_id]
    assert "outside" in finished["c_link"]["output"]  # says why, not a crash
    assert "secret" not in finished["c_link"]["output"]
    assert outside.read_text() == "secret outside the project\n"  # nothing written through the link
    assert finished["c_ok"]["status"] == "success" and "fine" in finished["c_ok"]["output"]
    assert auger_env.events(proc)[-1]["text"] == "Read what I could."


@pytest.mark.parametrize("route", ["stdin", "argv"])
def test_a_prompt_that_is_not_utf8_reaches_the_model_and_the_thread_resumes(
    auger_env: AugerEnv, route: str
) -> None:
    auger_env.llm.add({"text": "Got it."}, {"text": "Still here."})
    raw = b"caf\xe9 au lait \xff\xfe please"
    args = [AUGER, "-n", *([os.fsdecode(raw)] if route == "argv" else []), "--output-format", "json"]
    proc = subprocess.run(
        args,
        input=raw if route == "stdin" else b"",
        capture_output=True,
        cwd=auger_env.project,
        env=auger_env.env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    result = json.loads(proc.stdout)
    sent = typed(auger_env.llm.requests[0]["messages"][-1]["content"])
    assert sent == "caf\ufffd au lait \ufffd\ufffd please"
    again = auger_env.run("-r", result["thread_id"], "-n", "and now?")
    assert again.returncode == 0 and again.stdout.strip() == "Still here.", again.stderr


def _media_server(env: AugerEnv) -> None:
    config = {"mcpServers": {"files": {"command": sys.executable, "args": [str(SERVER)]}}}
    (env.home / "mcp.json").write_text(json.dumps(config))


def test_mcp_content_a_provider_cannot_take_reaches_the_model_as_text(auger_env: AugerEnv) -> None:
    _media_server(auger_env)
    auger_env.llm.add(
        _call("c_media", "mcp__files__media"), {"text": "The report is linked."}, {"text": "Next."}
    )
    proc = auger_env.run("-n", "fetch the report", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    [tool] = _tool_texts(auger_env.llm.requests[1])
    assert "report ready" in tool
    assert "[resource link: report.pdf at file:///srv/report.pdf (application/pdf)]" in tool
    assert "[audio (audio/wav" in tool and "[embedded resource file:///srv/data.bin" in tool
    again = auger_env.run("-r", result["thread_id"], "-n", "next")  # the thread is not poisoned
    assert again.returncode == 0 and again.stdout.strip() == "Next.", again.stderr


def _mcp_image_turn(env: AugerEnv) -> str:
    """The tool message the model got after calling the media tool (its image: a 1-pixel PNG)."""
    _media_server(env)
    env.llm.add(_call("c_media", "mcp__files__media"), {"text": "Seen."})
    proc = env.run("-n", "fetch the report")
    assert proc.returncode == 0, proc.stderr
    [tool] = _tool_texts(env.llm.requests[1])
    return tool


@pytest.mark.parametrize(
    "config",
    [
        '[models."local:scripted-model"]\nimages = true\n',
        "images = true\n",
        "[models.scripted-model]\nimages = true\n",
    ],
    ids=["model-spec", "provider", "model-name"],
)
def test_an_mcp_image_reaches_a_model_that_takes_images(auger_env: AugerEnv, config: str) -> None:
    auger_env.write_config(config)  # "images = true" alone lands in [providers.local]
    tool = _mcp_image_turn(auger_env)
    assert f'"url": "data:image/png;base64,{PNG_1PX}"' in tool
    assert "does not take images" not in tool


def test_an_mcp_image_is_a_line_of_text_to_a_model_that_does_not_take_images(auger_env: AugerEnv) -> None:
    tool = _mcp_image_turn(auger_env)  # local:scripted-model: nothing known of it, so no images
    assert "image_url" not in tool and PNG_1PX not in tool
    line = "[image image/png, 70 bytes from mcp__files__media — not shown: the model does not take images]"
    assert line in tool


@pytest.fixture
def in_process(auger_env: AugerEnv, monkeypatch: pytest.MonkeyPatch) -> AugerEnv:
    monkeypatch.chdir(auger_env.project)
    for key, value in auger_env.env.items():
        monkeypatch.setenv(key, value)
    return auger_env


async def test_a_thread_written_with_unsendable_content_resumes(in_process: AugerEnv) -> None:
    """Written the way older auger stored it: the MCP adapter's file block for a `resource_link`,
    which made every later request of the thread fail ("does not support file URLs")."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    settings = load_settings(cwd=in_process.project, env=in_process.env)
    session = await open_session(settings)
    try:
        old = [
            HumanMessage(content="fetch the report"),
            AIMessage(content="", tool_calls=[{"name": "media", "args": {}, "id": "c_old"}]),
            ToolMessage(
                content=[
                    {"type": "text", "text": "report ready"},
                    {"type": "file", "url": "file:///srv/report.pdf", "mime_type": "application/pdf"},
                ],
                tool_call_id="c_old",
                name="media",
            ),
            AIMessage(content="Here it is."),
        ]
        await session.runtime.graph.aupdate_state(session.config(), {"messages": old})
        thread_id = session.thread_id
    finally:
        await session.aclose()
    in_process.llm.add({"text": "Resumed fine."})
    proc = in_process.run("-r", thread_id, "-n", "go on")
    assert proc.returncode == 0 and proc.stdout.strip() == "Resumed fine.", proc.stderr
    assert (
        "[file (file:///srv/report.pdf, application/pdf): not shown to the model]"
        in _tool_texts(in_process.llm.requests[-1])[0]
    )


def _mcp_images_on_the_wire(env: AugerEnv) -> tuple[str, str, str]:
    """(the user message with `@files:docs://pixel`, the read_mcp_resource result, the
    `/mcp__files__look` prompt) as the model got them."""
    _media_server(env)
    read = _call("c_read", "read_mcp_resource", server="files", uri="docs://pixel")
    env.llm.add(read, {"text": "A pixel."}, {"text": "Still a pixel."})
    first = env.run("-n", "what is in @files:docs://pixel ?", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    again = env.run("-r", json.loads(first.stdout)["thread_id"], "-n", "/mcp__files__look")
    assert again.returncode == 0, again.stderr
    user = json.dumps(env.llm.requests[0]["messages"][-1]["content"], ensure_ascii=False)
    [tool] = _tool_texts(env.llm.requests[1])
    prompt = json.dumps(env.llm.requests[2]["messages"][-1]["content"], ensure_ascii=False)
    return user, tool, prompt


def test_images_of_mcp_resources_and_prompts_reach_a_model_that_takes_images(auger_env: AugerEnv) -> None:
    auger_env.write_config("images = true\n")
    data_url = f'"url": "data:image/png;base64,{PNG_1PX}"'
    for sent in _mcp_images_on_the_wire(auger_env):
        assert data_url in sent and "does not take images" not in sent


def test_images_of_mcp_resources_and_prompts_are_lines_to_a_text_model(auger_env: AugerEnv) -> None:
    user, tool, prompt = _mcp_images_on_the_wire(auger_env)
    for sent, source in ((user, "the prompt"), (tool, "read_mcp_resource"), (prompt, "the prompt")):
        assert "image_url" not in sent and PNG_1PX not in sent
        assert (
            f"[image image/png, 70 bytes from {source} — not shown: the model does not take images]" in sent
        )
    assert "What is in this screenshot?" in prompt
