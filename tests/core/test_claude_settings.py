"""What users bring from Claude Code: its permission-rule syntax, `.claude/settings*.json`
(permissions and hooks, with the same trust rules as auger's own hook files), Claude tool names
in hook matchers, and broken files that degrade to one warning."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from auger.core.hooks.config import (
    HookCommand,
    load_hooks,
    trust_project_hooks,
    untrusted_project_hooks,
)
from auger.core.hooks.runner import HookRunner
from auger.core.safety.claude_settings import load_warnings
from auger.core.safety.claude_tools import split_tool_list
from auger.core.safety.permissions import PermissionEngine
from auger.core.safety.rules import covers, parse_rule, subject_for, touches
from auger.settings import Settings, load_settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claude"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def touched(root: Path, rule: str, name: str, **args: object) -> bool:
    return touches(parse_rule(rule), subject_for(name, args, root))


# --- Claude Code's rule syntax ---------------------------------------------------------------------


def test_claude_rules_apply_to_the_tools_claude_code_applies_them_to(tmp_path: Path) -> None:
    assert touched(tmp_path, "Bash(git push:*)", "execute", command="git push origin main")
    assert not touched(tmp_path, "Bash(git push:*)", "execute", command="git status")
    for tool, arg in (("read_file", "file_path"), ("grep", "path"), ("glob", "path"), ("ls", "path")):
        assert touched(tmp_path, "Read(./secrets/**)", tool, **{arg: "/secrets/a.key"}), tool
    assert not touched(tmp_path, "Read(./secrets/**)", "write_file", file_path="/secrets/a.key")
    for tool in ("edit_file", "write_file", "delete"):  # Edit rules: every tool that edits files
        assert touched(tmp_path, "Edit(src/**)", tool, file_path="/src/x.py"), tool
    assert touched(tmp_path, "Write", "write_file", file_path="/a") and not touched(
        tmp_path, "Write", "edit_file", file_path="/a"
    )
    assert touched(tmp_path, "Task(reviewer)", "task", subagent_type="reviewer")
    github = subject_for("create_issue", {"title": "x"}, tmp_path, ("github", "create_issue"))
    assert touches(parse_rule("mcp__github__create_issue"), github)
    assert touches(parse_rule("mcp__github"), github) and touches(parse_rule("mcp__github__*"), github)
    assert not touches(parse_rule("mcp__gitlab"), github)


def test_allow_rules_in_claude_syntax_allow_every_part(tmp_path: Path) -> None:
    sub = subject_for("execute", {"command": "git status -s && git diff --stat"}, tmp_path)
    assert covers([parse_rule("Bash(git status:*)"), parse_rule("Bash(git diff:*)")], sub)
    assert covers([parse_rule("Bash(git status:*)")], sub) is None


def test_web_fetch_domain_rules_match_any_tool_fetching_that_host(tmp_path: Path) -> None:
    fetch = subject_for("fetch", {"url": "https://docs.example.com/page"}, tmp_path, ("fetch", "fetch"))
    assert touches(parse_rule("WebFetch(domain:example.com)"), fetch)
    assert touches(parse_rule("WebFetch"), fetch)
    assert not touches(parse_rule("WebFetch(domain:evil.com)"), fetch)
    assert not touches(parse_rule("WebFetch(domain:ample.com)"), fetch)
    assert not touches(parse_rule("WebFetch"), subject_for("execute", {"command": "ls"}, tmp_path))


def test_allowed_tools_lists_split_outside_parentheses() -> None:
    assert split_tool_list("Bash(git add:*), Bash(git status:*), Read") == [
        "Bash(git add:*)",
        "Bash(git status:*)",
        "Read",
    ]
    assert split_tool_list("Read Grep  Glob") == ["Read", "Grep", "Glob"]
    assert split_tool_list(["Read", " Edit "]) == ["Read", "Edit"]
    assert split_tool_list(None) == []


# --- .claude/settings.json permissions --------------------------------------------------------------


def test_claude_settings_permissions_join_the_config_rules(settings: Settings, tmp_path: Path) -> None:
    write_json(tmp_path / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(npm test:*)"]}})
    write_json(
        settings.project_root / ".claude" / "settings.json",
        json.loads((FIXTURES / "settings.json").read_text()),
    )
    write_json(settings.project_root / ".claude" / "settings.local.json", {"permissions": {"ask": ["Edit"]}})
    eng = PermissionEngine.from_settings(settings)

    def act(name: str, **args: object) -> str:
        return eng.evaluate(name, args, mode="yolo", gated=True).action

    assert act("execute", command="rm -rf build") == "deny"  # the fixture's deny list
    assert act("read_file", file_path="/.env") == "deny"
    assert act("edit_file", file_path="/src/a.py", old_string="a", new_string="b") == "ask"  # local file
    manual = eng.evaluate("execute", {"command": "npm test -- -x"}, mode="manual", gated=True)
    assert manual.action == "allow" and "Bash(npm test:*)" in manual.reason  # the user's file


def test_broken_claude_settings_are_one_warning_each_and_the_rest_loads(settings: Settings) -> None:
    claude = settings.project_root / ".claude"
    write_json(claude / "settings.json", '{"permissions": {"deny": ["Bash(rm:*)",]}}')  # trailing comma
    write_json(claude / "settings.local.json", {"permissions": {"deny": ["Bash(rm:*", "Bash(curl:*)"]}})
    warnings = load_warnings(settings.project_root)
    assert len(warnings) == 2, warnings
    assert f"{claude / 'settings.json'}:1:" in warnings[0] and "invalid JSON" in warnings[0]
    assert "settings.local.json: permissions.deny" in warnings[1] and 'missing ")"' in warnings[1]
    eng = PermissionEngine.from_settings(settings)  # no ConfigError: the good rule still applies
    assert eng.evaluate("execute", {"command": "curl x"}, mode="yolo", gated=True).action == "deny"


# --- hooks in Claude settings files -----------------------------------------------------------------


def hooks_of(command: str, matcher: str = "Bash") -> dict[str, object]:
    group = {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
    return {"hooks": {"PreToolUse": [group]}}


def test_user_claude_hooks_run_and_project_ones_wait_for_trust(settings: Settings, tmp_path: Path) -> None:
    write_json(tmp_path / ".claude" / "settings.json", hooks_of("echo user"))
    project = write_json(settings.project_root / ".claude" / "settings.json", hooks_of("echo project"))
    hooks, notices = load_hooks(settings)
    assert [h.command for h in hooks] == ["echo user"]
    assert untrusted_project_hooks(settings) == [str(project)]
    assert any(str(project) in n and "auger trust" in n for n in notices)
    trust_project_hooks(settings)
    assert [h.command for h in load_hooks(settings)[0]] == ["echo user", "echo project"]
    write_json(project, {**hooks_of("echo changed"), "model": "x"})  # trust is per project path
    assert untrusted_project_hooks(settings) == []
    assert [h.command for h in load_hooks(settings)[0]] == ["echo user", "echo changed"]


def test_a_settings_file_without_hooks_needs_no_trust(settings: Settings) -> None:
    write_json(settings.project_root / ".claude" / "settings.json", {"permissions": {"allow": ["Read"]}})
    assert untrusted_project_hooks(settings) == []


def test_matchers_accept_claude_tool_names(tmp_path: Path) -> None:
    from auger.core.middleware.tools.hooks import tool_subjects

    r = HookRunner(
        [
            HookCommand("PreToolUse", "true", "Bash"),
            HookCommand("PreToolUse", "true", "Edit|MultiEdit|Write"),
            HookCommand("PreToolUse", "true", "mcp__github__.*"),
        ],
        project_root=tmp_path,
    )

    def fired(name: str) -> list[str]:
        return [h.matcher for h in r.matching("PreToolUse", tool_subjects(name, None))]

    assert fired("execute") == ["Bash"]
    assert fired("edit_file") == fired("write_file") == ["Edit|MultiEdit|Write"]
    assert fired("read_file") == []


async def test_a_hook_asking_by_claude_name_is_told_that_name(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    seen.mkdir()
    body = f"#!/bin/sh\ncat > $(mktemp -p {seen})\n"  # the hooks run at once: a file each
    (tmp_path / "dump.sh").write_text(body)
    (tmp_path / "dump.sh").chmod(0o755)
    dump = str(tmp_path / "dump.sh")
    hooks = [
        HookCommand("PreToolUse", dump, "Bash"),  # asked by Claude's name
        HookCommand("PreToolUse", dump, "execute"),  # by auger's
        HookCommand("PreToolUse", dump, "", claude=True),  # from a Claude settings file, any tool
    ]
    payload = {"tool_name": "execute", "tool_input": {"command": "ls"}}
    await HookRunner(hooks, project_root=tmp_path).run("PreToolUse", payload, ["execute", "Bash"])
    names = sorted(json.loads(f.read_text())["tool_name"] for f in seen.iterdir())
    assert names == ["Bash", "Bash", "execute"]


def test_real_claude_code_validator_hook_shape(settings: Settings, tmp_path: Path) -> None:
    """The shape of Claude Code's own example hook (exits unless tool_name is "Bash")."""
    validator = tmp_path / "validator.py"
    validator.write_text(
        textwrap.dedent(
            """\
            import json, sys
            data = json.load(sys.stdin)
            if data.get("tool_name") != "Bash":
                sys.exit(0)
            if data["tool_input"].get("command", "").startswith("grep "):
                print("Use 'rg' instead of 'grep'", file=sys.stderr)
                sys.exit(2)
            """
        )
    )
    write_json(tmp_path / ".claude" / "settings.json", hooks_of(f"python3 {validator}"))
    hooks, _ = load_hooks(settings)
    from auger.core.middleware.tools.hooks import tool_subjects

    result = HookRunner(hooks, project_root=settings.project_root).run_sync(
        "PreToolUse",
        {"tool_name": "execute", "tool_input": {"command": "grep -r x ."}},
        tool_subjects("execute", None),
    )
    assert result.blocked and "Use 'rg'" in result.reason
