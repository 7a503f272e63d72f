"""End-to-end, the installed `auger -n` against the scripted server: what users bring from Claude
Code — `.claude/settings.json` permissions and hooks, `--allowed-tools` / `--disallowed-tools`,
PreToolUse `permissionDecision` deciding before the approval prompt, PostToolUse output
replacement, and UserPromptSubmit context attached to the prompt itself."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from conftest import AugerEnv

STREAM = ("--output-format", "stream-json")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def finished(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_call_finished"]


def claude_settings(folder: Path, data: dict[str, Any], name: str = "settings.json") -> None:
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / name).write_text(json.dumps(data))


def decision_hook(folder: Path, output: dict[str, Any], matcher: str = "Bash") -> dict[str, Any]:
    """A Claude-style hooks table whose PreToolUse hook prints `output` (as hookSpecificOutput)."""
    script = folder / "decide.py"
    script.write_text(
        textwrap.dedent(
            f"""\
            import json, sys
            data = json.load(sys.stdin)
            assert data["tool_name"] == "Bash", data["tool_name"]
            print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse", **{output!r}}}}}))
            """
        )
    )
    hook = {"type": "command", "command": f"python3 {script}"}
    return {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]}]}}


def run(env: AugerEnv, *args: str) -> tuple[Any, list[dict[str, Any]]]:
    proc = env.run("-n", "go", *STREAM, *args)
    assert proc.returncode == 0, proc.stderr
    return proc, env.events(proc)


# --- permissions --------------------------------------------------------------------------------


def test_claude_settings_permissions_decide_headless(auger_env: AugerEnv) -> None:
    claude_settings(
        auger_env.project,
        {"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(rm -rf:*)"]}},
    )
    (auger_env.project / "build").mkdir()
    auger_env.llm.add(
        call("execute", command="echo allowed-ran"), call("execute", command="rm -rf build"), "ok"
    )
    _, events = run(auger_env, "--mode", "manual", "--trust-project")  # its allow list needs trust
    first, second = finished(events)
    assert first["status"] == "success" and "allowed-ran" in first["output"]  # allowed, not asked
    assert second["status"] == "rejected" and 'deny rule "Bash(rm -rf:*)"' in second["output"]
    assert (auger_env.project / "build").is_dir()


def test_allowed_and_disallowed_tools_flags(auger_env: AugerEnv) -> None:
    auger_env.llm.add(call("execute", command="echo flag-ran"), "ok")
    _, events = run(auger_env, "--mode", "manual", "--allowed-tools", "Bash(echo:*) Read")
    [done] = finished(events)
    assert done["status"] == "success" and "flag-ran" in done["output"]

    auger_env.llm.add(call("write_file", file_path="/x.txt", content="x"), "ok")
    _, events = run(auger_env, "--mode", "yolo", "--disallowedTools", "Edit,Bash")
    [done] = finished(events)
    assert done["status"] == "rejected" and 'deny rule "Edit"' in done["output"]
    assert not (auger_env.project / "x.txt").exists()


def test_a_bad_rule_in_the_flags_is_a_usage_line_not_a_traceback(auger_env: AugerEnv) -> None:
    proc = auger_env.run("-n", "go", "--allowed-tools", "Bash(git status:*")
    assert proc.returncode == 2
    assert 'permission rule "Bash(git status:*": missing ")"' in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_broken_claude_settings_file_is_a_warning_and_the_turn_runs(auger_env: AugerEnv) -> None:
    (auger_env.project / ".claude").mkdir()
    (auger_env.project / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Read"],}}')
    auger_env.llm.add("fine")
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "settings.json:1:" in proc.stderr and "invalid JSON" in proc.stderr
    assert proc.stdout.strip() == "fine"


# --- hooks ---------------------------------------------------------------------------------------


def test_pre_tool_use_allow_skips_the_approval_headless_would_refuse(
    auger_env: AugerEnv, tmp_path: Path
) -> None:
    claude_settings(tmp_path, decision_hook(tmp_path, {"permissionDecision": "allow"}))  # ~/.claude
    auger_env.llm.add(call("execute", command="echo hook-allowed"), "ok")
    _, events = run(auger_env, "--mode", "manual")
    [done] = finished(events)
    assert done["status"] == "success" and "hook-allowed" in done["output"]


def test_pre_tool_use_ask_asks_even_in_yolo(auger_env: AugerEnv, tmp_path: Path) -> None:
    ask = {"permissionDecision": "ask", "permissionDecisionReason": "pushes need a human"}
    claude_settings(tmp_path, decision_hook(tmp_path, ask))
    auger_env.llm.add(call("execute", command="echo should-not-run"), "ok")
    _, events = run(auger_env, "--mode", "yolo")
    [done] = finished(events)
    assert done["status"] == "rejected" and not done["output"].startswith("should-not-run")
    assert "needs approval: a PreToolUse hook asks: pushes need a human" in done["output"]


def test_pre_tool_use_deny_refuses_without_asking(auger_env: AugerEnv, tmp_path: Path) -> None:
    deny = {"permissionDecision": "deny", "permissionDecisionReason": "not on Fridays"}
    claude_settings(tmp_path, decision_hook(tmp_path, deny))
    auger_env.llm.add(call("execute", command="echo nope"), "ok")
    _, events = run(auger_env, "--mode", "yolo")
    [done] = finished(events)
    assert done["status"] == "rejected" and "not on Fridays" in done["output"]
    assert not [e for e in events if e["type"] == "approval_requested"]


def test_pre_tool_use_updated_input_is_what_the_approval_and_thread_see(
    auger_env: AugerEnv, tmp_path: Path
) -> None:
    rewrite = {"permissionDecision": "allow", "updatedInput": {"command": "echo REWRITTEN"}}
    claude_settings(tmp_path, decision_hook(tmp_path, rewrite))
    auger_env.llm.add(call("execute", command="echo ORIGINAL"), "ok")
    _, events = run(auger_env, "--mode", "manual")
    [done] = finished(events)
    assert done["output"].startswith("REWRITTEN")
    sent = auger_env.llm.requests[-1]["messages"]
    calls = [c for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert "REWRITTEN" in calls[0]["function"]["arguments"]  # the thread keeps the hook's input


def test_post_tool_use_replaces_the_output_the_model_reads(auger_env: AugerEnv, tmp_path: Path) -> None:
    script = tmp_path / "scrub.py"
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "out = data['tool_response'].replace('SECRET-ISH', '<scrubbed>')\n"
        "specific = {'hookEventName': 'PostToolUse', 'updatedToolOutput': out}\n"
        "print(json.dumps({'hookSpecificOutput': specific}))\n"
    )
    hook = {"type": "command", "command": f"python3 {script}"}
    claude_settings(tmp_path, {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    auger_env.llm.add(call("execute", command="echo value=SECRET-ISH"), "ok")
    _, events = run(auger_env, "--mode", "yolo")
    [done] = finished(events)
    tool_text = [str(m["content"]) for m in auger_env.llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "value=<scrubbed>" in tool_text[0] and "SECRET-ISH" not in tool_text[0]
    assert "SECRET-ISH" not in done["output"]


def test_user_prompt_submit_context_rides_in_the_prompt_message(auger_env: AugerEnv, tmp_path: Path) -> None:
    out = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "branch: main"}}
    hook = {"type": "command", "command": f"echo '{json.dumps(out)}'"}
    claude_settings(tmp_path, {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    auger_env.llm.add("seen")
    proc = auger_env.run("-n", "what branch?")
    assert proc.returncode == 0, proc.stderr
    users = [m for m in auger_env.llm.requests[0]["messages"] if m["role"] == "user"]
    assert len(users) == 1
    assert "what branch?" in str(users[0]["content"]) and "branch: main" in str(users[0]["content"])


def test_project_claude_hooks_wait_for_trust(auger_env: AugerEnv) -> None:
    marker = auger_env.project / "ran"
    hook = {"type": "command", "command": f"touch {marker}"}
    claude_settings(
        auger_env.project, {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}, "settings.local.json"
    )
    auger_env.llm.add("one", "two")
    proc = auger_env.run("-n", "hi")
    assert proc.returncode == 0 and not marker.exists()
    assert "settings.local.json" in proc.stderr and "auger trust" in proc.stderr
    assert auger_env.run("-n", "hi", "--trust-project-hooks").returncode == 0
    assert marker.exists()
