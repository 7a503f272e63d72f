"""End-to-end: the installed `auger` command, headless, against the scripted LLM server."""

from __future__ import annotations

import json
import sqlite3

from conftest import AugerEnv

WRITE_THEN_RUN = [
    {"tool_calls": [{"name": "write_file", "args": {"file_path": "/hello.py", "content": "print('hi')\n"}}]},
    {"tool_calls": [{"name": "execute", "args": {"command": "python3 hello.py"}}]},
    {"text": "Wrote hello.py and ran it."},
]


def test_write_file_then_shell_stream_json(auger_env: AugerEnv) -> None:
    auger_env.llm.add(*WRITE_THEN_RUN)
    proc = auger_env.run("-n", "make hello.py and run it", "--output-format", "stream-json", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "hello.py").read_text() == "print('hi')\n"
    events = auger_env.events(proc)
    types = [e["type"] for e in events]
    assert types[0] == "turn_started" and types[-1] == "turn_ended"
    finished = {e["name"]: e for e in events if e["type"] == "tool_call_finished"}
    assert finished["write_file"]["status"] == "success"
    assert "hi" in finished["execute"]["output"]
    started = [e for e in events if e["type"] == "tool_call_started"]
    assert started[0]["args"]["file_path"] == "/hello.py" and started[0]["call_id"]
    end = events[-1]
    assert end["reason"] == "done" and end["thread_id"]
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "Wrote hello.py and ran it."
    assert any(e["type"] == "usage" and e["input_tokens"] > 0 for e in events)
    # the model saw the tool results
    last = auger_env.llm.requests[-1]["messages"]
    assert any(m["role"] == "tool" and "hi" in str(m["content"]) for m in last)
    # the thread is saved in SQLite
    db = sqlite3.connect(auger_env.home / "threads.db")
    n = db.execute("select count(*) from checkpoints where thread_id = ?", (end["thread_id"],)).fetchone()[0]
    assert n > 0


def test_json_output_has_text_thread_usage_events(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "Hello there."})
    proc = auger_env.run("-n", "say hello", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["text"] == "Hello there."
    assert result["thread_id"] and result["reason"] == "done"
    assert result["usage"]["total_tokens"] > 0
    assert result["events"][0]["type"] == "turn_started"


def test_text_output_and_prompt_on_stdin(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "Piped answer."})
    proc = auger_env.run("-n", input="what is in the pipe?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Piped answer."
    assert "what is in the pipe?" in json.dumps(auger_env.llm.requests[0]["messages"])


def test_manual_mode_refuses_writes_with_a_message_the_model_reads(auger_env: AugerEnv) -> None:
    auger_env.llm.add(WRITE_THEN_RUN[0], {"text": "I could not write the file."})
    proc = auger_env.run("-n", "make hello.py", "--output-format", "stream-json", "--mode", "manual")
    assert proc.returncode == 0, proc.stderr
    assert not (auger_env.project / "hello.py").exists()
    events = auger_env.events(proc)
    assert any(e["type"] == "approval_requested" or e["type"] == "tool_call_finished" for e in events)
    tool_msgs = [m for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert tool_msgs and "manual" in str(tool_msgs[0]["content"])
    hint = str(tool_msgs[0]["content"])  # the mode that would let it through: auto-edit applies edits
    assert "run with --mode auto-edit" in hint and "--mode yolo" not in hint


def test_auto_edit_allows_writes_but_refuses_shell(auger_env: AugerEnv) -> None:
    auger_env.llm.add(*WRITE_THEN_RUN)
    proc = auger_env.run("-n", "make and run", "--output-format", "stream-json", "--mode", "auto-edit")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "hello.py").exists()
    finished = {e["name"]: e for e in auger_env.events(proc) if e["type"] == "tool_call_finished"}
    assert finished["write_file"]["status"] == "success"
    assert finished["execute"]["status"] == "rejected"
    refusal = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert "run with --mode yolo" in refusal and "--mode auto-edit" not in refusal  # auto-edit still asks
