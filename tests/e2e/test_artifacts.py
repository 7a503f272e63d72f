"""End-to-end: what deepagents offloads (large tool results, summarised history) goes to
`$AUGER_HOME/artifacts`, never into the user's project, and the configured context window decides
when the conversation is compacted on its own."""

from __future__ import annotations

import json
import os
import time

from conftest import AugerEnv


def _project_files(env: AugerEnv) -> list[str]:
    return sorted(p.relative_to(env.project).as_posix() for p in env.project.rglob("*"))


def _whole_lines(env: AugerEnv) -> None:
    """Command output limited by bytes only (its first and last 50 KB: a result big enough to offload)."""
    config = env.home / "config.toml"
    if not config.read_text().startswith("shell_output_lines"):
        config.write_text("shell_output_lines = 1000000\n" + config.read_text())


def test_a_large_tool_result_is_offloaded_outside_the_project_and_read_back(auger_env: AugerEnv) -> None:
    offloaded = "/~artifacts/large_tool_results/call_big"
    _whole_lines(auger_env)
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "id": "call_big", "args": {"command": "seq 1 60000"}}]},
        {"tool_calls": [{"name": "read_file", "args": {"file_path": offloaded, "offset": 999, "limit": 2}}]},
        {"text": "Line 1000 says 1000."},
    )
    r = auger_env.run("-n", "count to 60000", "--mode", "yolo")
    assert r.returncode == 0 and r.stdout.strip() == "Line 1000 says 1000.", r.stderr
    assert _project_files(auger_env) == []  # no large_tool_results/ in the user's repo
    saved = auger_env.home / "artifacts" / "large_tool_results" / "call_big"
    assert saved.read_text().splitlines()[:3] == ["1", "2", "3"]

    tools = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert offloaded in tools[0] and len(tools[0]) < 10_000  # the model got a preview and the path
    assert "1000" in tools[1] and "1001" in tools[1] and "1002" not in tools[1]

    week_old = time.time() - 8 * 86400
    os.utime(saved, (week_old, week_old))
    kept = saved.with_name("call_new")
    kept.write_text("new")
    dry = auger_env.run("threads", "prune", "--older-than", "7d", "--dry-run")
    assert "Would delete 1 offloaded tool result / history file older" in dry.stdout and saved.exists()
    pruned = auger_env.run("threads", "prune", "--older-than", "7d")
    assert pruned.returncode == 0 and "Deleted 1 offloaded tool result / history file older" in pruned.stdout
    assert not saved.exists() and kept.exists()


def test_the_configured_context_window_triggers_compaction(auger_env: AugerEnv) -> None:
    auger_env.write_config("context_window = 30000\n")  # [providers.local]: a small local model
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "seq 100000 104000"}}]},  # ~7k tokens
        {"text": "First answer, a long one.", "prompt_tokens": 27000},  # 90% of the window
        {"text": "AUTO SUMMARY: the user asked a first question."},
        {"text": "Second answer."},
    )
    first = auger_env.run("-n", "first question", "--mode", "yolo")
    assert first.returncode == 0, first.stderr
    second = auger_env.run("-r", "-n", "second question")
    assert second.returncode == 0 and second.stdout.strip() == "Second answer.", second.stderr

    summarise, answer = auger_env.llm.requests[2], auger_env.llm.requests[3]
    assert "104000" in json.dumps(summarise["messages"]) and "tools" not in summarise
    sent = json.dumps(answer["messages"])
    assert "AUTO SUMMARY: the user asked a first question." in sent
    assert "104000" not in sent  # the tool output is replaced by the summary
    history = list((auger_env.home / "artifacts" / "conversation_history").glob("*.md"))
    assert len(history) == 1 and "104000" in history[0].read_text()
    assert _project_files(auger_env) == []


def _offloading_thread(env: AugerEnv, name: str) -> str:
    _whole_lines(env)
    env.llm.add(
        {"tool_calls": [{"name": "execute", "id": f"call_{name}", "args": {"command": "seq 1 60000"}}]},
        {"text": f"Thread {name} done."},
    )
    proc = env.run("-n", f"thread {name}", "--mode", "yolo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["thread_id"])


def test_deleting_a_thread_removes_its_offloaded_files_and_only_its(auger_env: AugerEnv) -> None:
    offloaded = auger_env.home / "artifacts" / "large_tool_results"
    first, second = _offloading_thread(auger_env, "one"), _offloading_thread(auger_env, "two")
    assert sorted(p.name for p in offloaded.iterdir()) == ["call_one", "call_two"]
    fork = auger_env.run("threads", "fork", first)
    assert fork.returncode == 0, fork.stderr
    copy = fork.stdout.strip()

    gone = auger_env.run("threads", "delete", first)
    assert gone.returncode == 0, gone.stderr
    assert (offloaded / "call_one").exists()  # the fork reads the same file: kept
    gone = auger_env.run("threads", "delete", copy)
    assert gone.returncode == 0 and "Deleted 1 offloaded tool result / history file of it." in gone.stdout, (
        gone.stdout
    )
    assert sorted(p.name for p in offloaded.iterdir()) == ["call_two"]  # the other thread's stays
    assert second[:12] in auger_env.run("threads", "list").stdout


def test_deleting_a_thread_removes_its_summarised_history(auger_env: AugerEnv) -> None:
    auger_env.write_config("context_window = 30000\n")
    auger_env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "seq 100000 104000"}}]},
        {"text": "First answer.", "prompt_tokens": 27000},
        {"text": "AUTO SUMMARY."},
        {"text": "Second answer."},
    )
    first = auger_env.run("-n", "first question", "--mode", "yolo", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    thread_id = json.loads(first.stdout)["thread_id"]
    assert auger_env.run("-r", "-n", "second question").returncode == 0
    [history] = (auger_env.home / "artifacts" / "conversation_history").glob("*.md")
    gone = auger_env.run("threads", "delete", thread_id)
    assert gone.returncode == 0 and "Deleted 1 offloaded" in gone.stdout, gone.stdout
    assert not history.exists()
