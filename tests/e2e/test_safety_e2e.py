"""End-to-end safety: the installed `auger -n` against the scripted server, with real bubblewrap,
real hook scripts and a real SQLite file — permission rules, protected paths, the sandbox,
hooks, bounded runs and secrets that never leave the process."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def finished(events: list[dict[str, Any]], name: str | None = None) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_call_finished" and (name is None or e["name"] == name)]


def tool_messages(env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def project_config(env: AugerEnv, text: str) -> None:
    (env.project / ".auger").mkdir(exist_ok=True)
    (env.project / ".auger" / "config.toml").write_text(text)


def hook_script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/usr/bin/env python3\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def hooks_json(path: Path, hooks: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def group(command: str, matcher: str = "", timeout: float | None = None) -> list[dict[str, Any]]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return [{"matcher": matcher, "hooks": [hook]}]


# --- permission rules -------------------------------------------------------------------------------


def test_allow_rule_runs_without_asking_in_manual_mode(auger_env: AugerEnv) -> None:
    project_config(auger_env, '[permissions]\nallow = ["execute(ls *)", "execute(echo *)"]\n')
    assert auger_env.run("trust").returncode == 0  # a project's allow rules apply once it is trusted
    auger_env.llm.add(call("execute", command="ls -a && echo allowed-ran"), {"text": "ok"})
    proc = auger_env.run("-n", "list", *STREAM, "--mode", "manual")
    assert proc.returncode == 0, proc.stderr
    [done] = finished(auger_env.events(proc))
    assert done["status"] == "success" and "allowed-ran" in done["output"]


def test_deny_wins_over_allow_and_yolo_and_names_the_rule(auger_env: AugerEnv) -> None:
    (auger_env.home / "config.toml").write_text(
        (auger_env.home / "config.toml").read_text() + '[permissions]\nallow = ["execute"]\n'
    )
    project_config(auger_env, '[permissions]\ndeny = ["execute(rm -rf *)"]\n')
    (auger_env.project / "build").mkdir()
    auger_env.llm.add(
        call("execute", command="sudo -n true; timeout 5 rm -rf build"), {"text": "I was refused."}
    )
    proc = auger_env.run("-n", "clean up", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "build").is_dir()
    events = auger_env.events(proc)
    [done] = finished(events)
    assert done["status"] == "rejected" and 'deny rule "execute(rm -rf *)"' in done["output"]
    assert any(e["type"] == "notice" and "execute(rm -rf *)" in e["message"] for e in events)
    assert 'deny rule "execute(rm -rf *)"' in tool_messages(auger_env)[0]
    assert "execute(rm -rf *)" in proc.stderr  # the user sees it too


def test_ask_rule_in_yolo_is_refused_headless_with_the_rule(auger_env: AugerEnv) -> None:
    project_config(auger_env, '[permissions]\nask = ["execute(git push *)"]\n')
    auger_env.llm.add(call("execute", command="git push origin main"), {"text": "skipped"})
    proc = auger_env.run("-n", "push", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    [done] = finished(auger_env.events(proc))
    assert done["status"] == "rejected"
    assert 'ask rule "execute(git push *)"' in tool_messages(auger_env)[0]
    assert "--mode" not in tool_messages(auger_env)[0]  # no mode gets past an ask rule: none is named


def test_protected_paths_are_never_written_without_asking(auger_env: AugerEnv) -> None:
    git = auger_env.project / ".git"
    git.mkdir()
    (git / "config").write_text("[core]\n")
    project_config(auger_env, '[permissions]\nallow = ["write_file", "edit_file"]\n')
    auger_env.llm.add(
        call("write_file", file_path="/.git/config", content="evil"),
        call("edit_file", file_path="/.auger/config.toml", old_string="[permissions]", new_string="x"),
        {"text": "blocked"},
    )
    proc = auger_env.run("-n", "edit", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (git / "config").read_text() == "[core]\n"
    assert "[permissions]" in (auger_env.project / ".auger" / "config.toml").read_text()
    done = finished(auger_env.events(proc))
    assert [d["status"] for d in done] == ["rejected", "rejected"]
    assert "protected path (.git/)" in tool_messages(auger_env)[0]
    assert "protected path (.auger/)" in tool_messages(auger_env)[1]
    assert (
        "--mode" not in tool_messages(auger_env)[0] and "Only a human approves" in tool_messages(auger_env)[0]
    )


def test_malformed_rule_is_a_config_error(auger_env: AugerEnv) -> None:
    project_config(auger_env, '[permissions]\ndeny = ["execute(rm -rf"]\n')
    auger_env.llm.add({"text": "never"})
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 2
    assert 'permission rule "execute(rm -rf"' in proc.stderr and "Traceback" not in proc.stderr


# --- the sandbox ------------------------------------------------------------------------------------

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@needs_bwrap
def test_sandbox_writes_inside_the_project_only_and_has_no_network(auger_env: AugerEnv) -> None:
    port = auger_env.llm.base_url.split(":")[-1].split("/")[0]
    connect = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\""
    auger_env.llm.add(
        call("execute", command="echo built > inside.txt && cat inside.txt"),
        call("execute", command="touch /etc/auger-sandbox-test"),
        call("execute", command=connect),
        call("write_file", file_path="/notes.md", content="via file tool\n"),
        call("read_file", file_path="/notes.md"),
        {"text": "done"},
    )
    proc = auger_env.run("-n", "try the sandbox", *STREAM, "--mode", "yolo", "--sandbox")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "inside.txt").read_text() == "built\n"
    assert not Path("/etc/auger-sandbox-test").exists()
    done = finished(auger_env.events(proc))
    assert "built" in done[0]["output"]
    assert done[1]["output"].count("Read-only file system") >= 1 and "Exit code" not in done[0]["output"]
    assert "Error" in done[2]["output"] or "refused" in done[2]["output"].lower()
    assert (auger_env.project / "notes.md").read_text() == "via file tool\n"
    assert "via file tool" in done[4]["output"]


# --- hooks --------------------------------------------------------------------------------------------


def test_pre_tool_use_hook_blocks_rm_rf_and_the_model_reads_why(auger_env: AugerEnv, tmp_path: Path) -> None:
    guard = hook_script(
        tmp_path,
        "guard.py",
        """\
        import json, sys
        data = json.load(sys.stdin)
        assert data["hook_event_name"] == "PreToolUse" and data["session_id"] and data["cwd"]
        if "rm -rf" in data["tool_input"].get("command", ""):
            print("rm -rf is not allowed in this repo; use git clean", file=sys.stderr)
            sys.exit(2)
        """,
    )
    hooks_json(auger_env.home / "hooks.json", {"PreToolUse": group(guard, "execute")})
    (auger_env.project / "src").mkdir()
    auger_env.llm.add(call("execute", command="rm -rf src"), {"text": "ok, not deleting"})
    proc = auger_env.run("-n", "clean", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "src").is_dir()
    [done] = finished(auger_env.events(proc))
    assert done["status"] == "rejected"
    assert "rm -rf is not allowed in this repo" in tool_messages(auger_env)[0]


def test_pre_tool_use_hook_modifies_the_input(auger_env: AugerEnv, tmp_path: Path) -> None:
    rewrite = hook_script(
        tmp_path,
        "rewrite.py",
        """\
        import json, sys
        data = json.load(sys.stdin)
        cmd = data["tool_input"]["command"].replace("ORIGINAL", "MODIFIED")
        out = {"hookEventName": "PreToolUse", "updatedInput": {"command": cmd}}
        print(json.dumps({"hookSpecificOutput": out}))
        """,
    )
    hooks_json(auger_env.home / "hooks.json", {"PreToolUse": group(rewrite, "exec.*")})
    auger_env.llm.add(call("execute", command="echo ORIGINAL"), {"text": "ok"})
    proc = auger_env.run("-n", "echo", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    [done] = finished(auger_env.events(proc))
    assert done["output"].startswith("MODIFIED") and "ORIGINAL" not in done["output"]


def test_user_prompt_submit_adds_context_the_model_receives(auger_env: AugerEnv) -> None:
    ctx = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-42"}}
    )
    hooks_json(auger_env.home / "hooks.json", {"UserPromptSubmit": group(f"echo '{ctx}'")})
    auger_env.llm.add({"text": "seen"})
    proc = auger_env.run("-n", "hello")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(auger_env.llm.requests[0]["messages"])
    assert "CTX-42" in sent and "hello" in sent


def test_user_prompt_submit_block_stops_the_prompt(auger_env: AugerEnv) -> None:
    hooks_json(auger_env.home / "hooks.json", {"UserPromptSubmit": group("echo 'tickets only' >&2; exit 2")})
    proc = auger_env.run("-n", "hello")
    assert proc.returncode == 1
    assert "Prompt blocked by a UserPromptSubmit hook: tickets only" in proc.stderr
    assert auger_env.llm.requests == []


def test_crashing_and_hanging_hooks_are_reported_and_the_run_goes_on(auger_env: AugerEnv) -> None:
    hooks_json(
        auger_env.home / "hooks.json",
        {
            "PreToolUse": group("echo kaboom >&2; exit 1"),
            "PostToolUse": group("sleep 30", timeout=1),
        },
    )
    auger_env.llm.add(call("execute", command="echo still-ran"), {"text": "fine"})
    proc = auger_env.run("-n", "go", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    events = auger_env.events(proc)
    assert "still-ran" in finished(events)[0]["output"]
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert any("failed (exit 1): kaboom" in n for n in notices)
    assert any("timed out after 1 s" in n for n in notices)
    assert events[-1]["reason"] == "done"


def test_project_hooks_run_only_when_trusted(auger_env: AugerEnv) -> None:
    marker = auger_env.project / "hook-ran"
    hooks_json(auger_env.project / ".auger" / "hooks.json", {"SessionStart": group(f"touch {marker}")})
    auger_env.llm.add({"text": "one"}, {"text": "two"})
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "--trust-project" in proc.stderr
    proc = auger_env.run("-n", "hi", "--trust-project-hooks")
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()
    marker.unlink()
    listed = auger_env.run("hooks", "list")
    assert "SessionStart: touch" in listed.stdout and "not trusted" in listed.stdout
    assert "Trusted:" in auger_env.run("hooks", "trust").stdout  # remembered from now on
    auger_env.llm.add({"text": "three"})
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0, proc.stderr
    assert marker.exists() and "--trust-project" not in proc.stderr


# --- bounded runs ---------------------------------------------------------------------------------------


def test_a_model_that_never_stops_ends_at_the_cap_with_exit_3(auger_env: AugerEnv) -> None:
    auger_env.llm.add(
        {"repeat": True, "tool_calls": [{"name": "execute", "args": {"command": "echo again"}}]}
    )
    proc = auger_env.run("-n", "loop", "--max-turns", "4", "--mode", "yolo", timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "reached the limit of 4 model calls" in proc.stdout
    assert len(auger_env.llm.requests) == 4


def test_shell_timeout_returns_a_readable_error_to_the_model(auger_env: AugerEnv) -> None:
    config = auger_env.home / "config.toml"
    config.write_text("shell_timeout = 1\n" + config.read_text())
    auger_env.llm.add(call("execute", command="sleep 100"), {"text": "it timed out"})
    proc = auger_env.run("-n", "wait", *STREAM, "--mode", "yolo", timeout=60)
    assert proc.returncode == 0, proc.stderr
    [done] = finished(auger_env.events(proc))
    assert "timed out after 1 seconds" in done["output"]
    assert "timed out after 1 seconds" in tool_messages(auger_env)[0]


# --- secrets --------------------------------------------------------------------------------------------


def test_secrets_never_reach_the_db_logs_transcript_or_output(auger_env: AugerEnv) -> None:
    secret = "sk-proj-SECRET0123456789abcdefXYZ"
    provider_key = "prov-key-9f8e7d6c5b4a39281706"
    auger_env.env["MY_API_KEY"] = secret
    auger_env.env["SCRIPTED_AUTH"] = provider_key  # not secret-looking by name: named by api_key_env
    auger_env.llm.server.api_key = provider_key
    (auger_env.home / "config.toml").write_text(
        (auger_env.home / "config.toml")
        .read_text()
        .replace("[providers.local]\n", '[providers.local]\napi_key_env = "SCRIPTED_AUTH"\n')
    )
    auger_env.llm.add(
        call("execute", command="echo $MY_API_KEY > key.txt && cat key.txt && echo $SCRIPTED_AUTH"),
        call("read_file", file_path="/key.txt"),
        call("execute", command="python3 -c \"import os; print(os.environ['MY_API_KEY'])\""),
        {"text": "The key was printed above."},
    )
    proc = auger_env.run("-n", f"show my key {secret}", *STREAM, "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert (auger_env.project / "key.txt").read_text().strip() == secret  # the command really ran
    events = auger_env.events(proc)
    outputs = [e["output"] for e in finished(events)]
    assert "[redacted:$MY_API_KEY]" in outputs[0] and "[redacted:$SCRIPTED_AUTH]" in outputs[0]
    thread_id = events[-1]["thread_id"]
    show = auger_env.run("threads", "show", thread_id)
    places: dict[str, bytes] = {
        "stdout": proc.stdout.encode(),
        "stderr": proc.stderr.encode(),
        "transcript": (show.stdout + show.stderr).encode(),
    }
    for path in auger_env.home.rglob("*"):
        if path.is_file():
            places[str(path.relative_to(auger_env.home))] = path.read_bytes()
    db = b"".join(data for name, data in places.items() if name.startswith("threads.db"))
    assert b"[redacted:$MY_API_KEY]" in db  # the outputs are in the DB, without the value
    assert any(name.startswith("logs") for name in places)
    for name, data in places.items():
        for value in (secret, provider_key):
            assert value.encode() not in data, f"{value[:8]}… leaked into {name}"
    # the model never saw them either
    assert secret not in json.dumps(auger_env.llm.requests)
