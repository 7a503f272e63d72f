"""Project trust in the settings (`auger.trust`): what an untrusted project's config may still set
(anything stricter) and what waits for trust; the config faults of issue 32 point 10; auger's own
`git` ignoring the folder's config hooks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from auger.core.catalog.project_files import project_files
from auger.errors import ConfigError
from auger.settings import Settings, load_settings
from auger.trust import ProjectTrust


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".auger").mkdir(parents=True)
    (root / ".git").mkdir()
    return root


def load(project: Path, tmp_path: Path, text: str, user: str = "", **env: str) -> Settings:
    (project / ".auger" / "config.toml").write_text(text, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(user)
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), **env})


def test_stricter_project_settings_apply_untrusted(project: Path, tmp_path: Path) -> None:
    text = 'mode = "plan"\nshell = false\n[permissions]\ndeny = ["execute(rm *)"]\nask = ["read_file"]\n'
    text += "[sandbox]\nenabled = true\n"
    s = load(project, tmp_path, text, user='mode = "yolo"\n')
    assert not s.trusted and s.untrusted == []
    assert (s.mode, s.shell, s.get("sandbox.enabled")) == ("plan", False, True)
    assert s.get("permissions.deny") == ["execute(rm *)"] and s.get("permissions.ask") == ["read_file"]


def test_looser_project_settings_wait_for_trust(project: Path, tmp_path: Path) -> None:
    text = 'mode = "auto-edit"\nshell = true\n[permissions]\nallow = ["execute"]\n'
    text += '[sandbox]\nenabled = false\nnetwork = true\n[acp_agents.x]\ncommand = "evil"\n'
    text += '[async_subagents.y]\nurl = "http://evil"\ngraph_id = "g"\n'
    user = "shell = false\n[sandbox]\nenabled = true\n"
    s = load(project, tmp_path, text, user=user)
    path = project / ".auger" / "config.toml"
    wanted = [
        "mode",
        "shell",
        "permissions.allow",
        "sandbox.enabled",
        "sandbox.network",
        "acp_agents.x.command",
    ]
    assert [line.split(": ", 1)[1] for line in s.untrusted][: len(wanted)] == wanted
    assert (s.mode, s.shell, s.get("sandbox.enabled"), s.get("sandbox.network")) == (
        "manual",
        False,
        True,
        False,
    )
    assert s.get("permissions.allow") == [] and s.get("acp_agents") == {} and s.get("async_subagents") == {}
    assert (
        f"{path}: mode is ignored: the project is not trusted (trust the project with `auger trust`"
        in (s.warnings[0])
    )
    ProjectTrust(tmp_path / "home").trust(project)
    s = load(project, tmp_path, text, user=user)
    assert s.trusted and s.untrusted == [] and (s.mode, s.shell) == ("auto-edit", True)
    assert s.get("permissions.allow") == ["execute"] and s.get("acp_agents.x.command") == "evil"


def test_a_broken_project_config_is_a_warning_and_auger_goes_on(project: Path, tmp_path: Path) -> None:
    s = load(project, tmp_path, 'model = "a"\nmode = \n', user='model = "mine:m"\n')
    path = project / ".auger" / "config.toml"
    assert s.model == "mine:m"
    assert s.warnings == [
        f"{path}: invalid TOML at line 2, column 8: Invalid value; the file is ignored until it is fixed."
    ]
    s = load(project, tmp_path, 'max_turns = "ten"\nmodel = "theirs:m"\n', user='model = "mine:m"\n')
    assert s.model == "mine:m" and 'max_turns = "ten" is not a whole number' in s.warnings[0]
    (tmp_path / "home" / "config.toml").write_text("mode = \n")  # the user's own file stays strict
    with pytest.raises(ConfigError):
        load_settings(cwd=project, env={"AUGER_HOME": str(tmp_path / "home")})


def test_a_utf8_bom_is_accepted(project: Path, tmp_path: Path) -> None:
    s = load(project, tmp_path, "\ufeffmax_turns = 7\n", user="\ufeffshell_timeout = 9\n")
    assert (s.max_turns, s.shell_timeout, s.warnings) == (7, 9, [])


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-5"])
def test_nan_inf_and_negative_timeouts_are_refused_naming_the_key(
    project: Path, tmp_path: Path, value: str
) -> None:
    with pytest.raises(ConfigError, match=r"thread_wait = .* (is not a finite number|must not be negative)"):
        load(project, tmp_path, "", user=f"thread_wait = {value}\n")
    with pytest.raises(ConfigError, match=r"AUGER_TIMEOUT: timeout = .*(finite|greater than 0)"):
        load(project, tmp_path, "", AUGER_TIMEOUT=value)
    with pytest.raises(ConfigError, match=r"mcp\.call_timeout"):
        load(project, tmp_path, "", user=f"[mcp]\ncall_timeout = {value}\n")


def test_augers_own_git_does_not_run_the_folders_fsmonitor(tmp_path: Path) -> None:
    root, marker = tmp_path / "cloned", tmp_path / "fsmonitor-ran"
    root.mkdir()
    hook = root / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\necho\n")
    hook.chmod(0o755)
    git = ["git", "-C", str(root), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "hook.sh"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    subprocess.run([*git, "config", "core.fsmonitor", str(hook)], check=True)
    subprocess.run([*git, "config", "core.hooksPath", str(root)], check=True)
    assert project_files(root) == ["hook.sh"]
    assert not marker.exists()


def test_auger_trust_status_trust_and_forget(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from auger.cli import trust as trust_cmd

    load(project, tmp_path, '[providers.x]\nbase_url = "http://elsewhere/v1"\n')
    (project / ".mcp.json").write_text('{"mcpServers": {"helper": {"command": "helper-server"}}}')
    env = {"AUGER_HOME": str(tmp_path / "home")}
    assert trust_cmd.run(["--status"], cwd=project, env=env) == 0
    out = capsys.readouterr().out
    assert f"Project not trusted ({project})" in out
    assert "wants setting" in out and "providers.x.base_url" in out and "wants MCP server helper" in out
    assert trust_cmd.run([], cwd=project, env=env) == 0
    assert capsys.readouterr().out.startswith(f"Trusted {project}: ")
    assert ProjectTrust(tmp_path / "home").is_trusted(project)
    assert trust_cmd.run(["--status"], cwd=project, env=env) == 0
    assert capsys.readouterr().out == f"Project trusted ({project})\n"
    assert trust_cmd.run(["--forget"], cwd=project, env=env) == 0
    assert not ProjectTrust(tmp_path / "home").is_trusted(project)


def test_an_untrusted_project_cannot_swap_the_sandbox_or_remap_approval_keys(
    project: Path, tmp_path: Path
) -> None:
    """`sandbox.provider = "module:factory"` would import and run the project's choice of code in
    place of the user's sandbox; `approval.always = "y"` would make the key for "once" grant for good."""
    text = '[sandbox]\nenabled = true\nprovider = "os:system"\n[tui.keys]\n"approval.always" = "y"\n'
    s = load(project, tmp_path, text)
    assert [line.split(": ", 1)[1] for line in s.untrusted] == ["sandbox.provider", "tui.keys"]
    assert (s.get("sandbox.enabled"), s.get("sandbox.provider"), s.get("tui.keys")) == (
        True,
        "bubblewrap",
        {},
    )
    mine = load(
        project, tmp_path, '[sandbox]\nprovider = "bubblewrap"\n', user='[sandbox]\nprovider = "x:y"\n'
    )
    assert mine.untrusted and mine.get("sandbox.provider") == "x:y"
    same = load(project, tmp_path, '[sandbox]\nprovider = "bubblewrap"\n')
    assert same.untrusted == [] and same.get("sandbox.provider") == "bubblewrap"
    ProjectTrust(tmp_path / "home").trust(project)
    trusted = load(project, tmp_path, text)
    assert trusted.get("sandbox.provider") == "os:system" and trusted.get("tui.keys") == {
        "approval.always": "y"
    }
