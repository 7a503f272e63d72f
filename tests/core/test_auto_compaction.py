"""Automatic compaction (near the context window) summarises with the model in use now, after the
PreCompact hooks: a real Session against the scripted OpenAI-compatible server, switching models
the way `/model` does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from auger.core import events as ev
from auger.core.runtime import open_session
from auger.core.session.session import Session
from auger.settings import load_settings
from conftest_llm import ScriptedLLM
from session_helpers import options, scripted_settings


async def _send(session: Session, prompt: str, seen: list[ev.Event]) -> str:
    text = ""
    async for event in session.send(prompt, options(session, headless=True)):
        seen.append(event)
        text = getattr(event, "text", text) if event.type == "turn_ended" else text
    return text


async def test_automatic_compaction_after_model_switch_uses_the_new_model(
    tmp_path: Path, scripted_llm: ScriptedLLM
) -> None:
    base = scripted_settings(tmp_path, scripted_llm)
    config = base.home / "config.toml"
    config.write_text(config.read_text() + "context_window = 30000\n")  # [providers.local]: a small window
    marker, script = tmp_path / "pre-compact.json", tmp_path / "hook.py"
    script.write_text(
        f"import json, sys\nopen({str(marker)!r}, 'w').write(sys.stdin.read())\n"
        "print(json.dumps({'systemMessage': 'about to compact'}))\n"
    )
    hook = {"matcher": "auto", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    (base.home / "hooks.json").write_text(json.dumps({"hooks": {"PreCompact": [hook]}}))
    settings = load_settings(cwd=base.cwd, env={"AUGER_HOME": str(base.home)}, flags={"mode": "yolo"})
    scripted_llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "seq 100000 104000"}}]},  # ~7k tokens
        {"text": "First answer.", "prompt_tokens": 27000},  # 90% of the window: compact before the next call
        {"text": "AUTO SUMMARY: the user asked a first question."},
        {"text": "Second answer."},
    )
    session = await open_session(settings)
    seen: list[ev.Event] = []
    try:
        assert await _send(session, "first question", seen) == "First answer."
        assert not marker.exists()
        await session.set_model("local:other-model")  # what /model does
        assert await _send(session, "second question", seen) == "Second answer."
    finally:
        await session.aclose()
    hook_input = json.loads(marker.read_text())  # the PreCompact hook ran before the summary
    assert hook_input["hook_event_name"] == "PreCompact" and hook_input["trigger"] == "auto"
    assert hook_input["session_id"] == session.thread_id
    assert ev.Notice("about to compact") in seen

    summarise, answer = scripted_llm.requests[2], scripted_llm.requests[3]
    assert "104000" in json.dumps(summarise["messages"]) and "tools" not in summarise  # the summary call
    assert summarise["model"] == "other-model"  # ... by the model in use now, not the thread's first
    assert answer["model"] == "other-model"
    sent = json.dumps(answer["messages"])
    assert "AUTO SUMMARY: the user asked a first question." in sent and "104000" not in sent
