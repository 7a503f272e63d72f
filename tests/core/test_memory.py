"""Memory slots (AGENTS.md, CLAUDE.md fallback), the user-folder mounts the agent edits memory
through, and the MemoryMiddleware that re-reads memory each turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from deepagents.backends import CompositeBackend, FilesystemBackend, LocalShellBackend

from auger.core.backends.mounts import agent_paths, virtual_path, with_mounts
from auger.core.catalog.memory import memory_files, memory_sources
from auger.core.middleware.prompt.memory import AugerMemoryMiddleware
from auger.settings import Settings, load_settings


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project / "sub", env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def test_slots_prefer_agents_md_and_fall_back_to_claude_md(settings: Settings) -> None:
    root, home = settings.project_root, settings.home
    (home / "AGENTS.md").write_text("user")
    (root / "CLAUDE.md").write_text("claude")
    (root / ".auger").mkdir()
    (root / ".auger" / "CLAUDE.md").write_text("ignored: AGENTS.md wins")
    (root / ".auger" / "AGENTS.md").write_text("local")
    files = memory_files(settings)
    assert [(m.scope, m.path, m.virtual_path, m.exists) for m in files] == [
        ("user", home / "AGENTS.md", "/~auger/AGENTS.md", True),
        ("project", root / "CLAUDE.md", "/CLAUDE.md", True),
        ("project-local", root / ".auger" / "AGENTS.md", "/.auger/AGENTS.md", True),
    ]
    (root / "CLAUDE.md").unlink()
    assert [m.scope for m in memory_files(settings) if m.exists] == ["user", "project-local"]
    assert len(memory_files(settings)) == 3
    assert memory_sources(settings)[1] == "/AGENTS.md"  # the project slot waits for an AGENTS.md


def test_mounts_route_user_folders_and_keep_builtins_read_only(settings: Settings) -> None:
    project = LocalShellBackend(root_dir=settings.project_root, virtual_mode=True)
    backend = with_mounts(project, settings)
    assert isinstance(backend, CompositeBackend) and with_mounts(backend, settings) is backend
    # the agent can write user memory through the mount; it lands in AUGER_HOME
    assert backend.write("/~auger/AGENTS.md", "- prefers tabs\n").error is None
    assert (settings.home / "AGENTS.md").read_text() == "- prefers tabs\n"
    assert backend.edit("/~auger/AGENTS.md", "tabs", "spaces").error is None
    assert "spaces" in (settings.home / "AGENTS.md").read_text()
    # shipped skills are readable, not writable
    assert "Commit" in backend.read("/~builtin/skills/commit/SKILL.md").file_data["content"]  # type: ignore[index]
    assert backend.write("/~builtin/skills/x/SKILL.md", "x").error
    assert backend.edit("/~builtin/skills/commit/SKILL.md", "Commit", "X").error
    # the mount cannot be escaped
    assert backend.read("/~auger/../project/x").error  # an error result, no crash
    assert "traversal" in str(backend.read("/~auger/skills/../../x").error)
    assert backend.execute("pwd").output.strip() == str(settings.project_root)


def test_virtual_path_maps_host_paths(settings: Settings, tmp_path: Path) -> None:
    assert virtual_path(settings.project_root / "src" / "a.py", settings) == "/src/a.py"
    assert virtual_path(settings.home / "skills" / "x", settings) == "/~auger/skills/x"
    assert virtual_path(tmp_path / "elsewhere", settings) is None
    paths = agent_paths(settings)
    assert paths.host("/~auger/AGENTS.md") == str(settings.home / "AGENTS.md")
    assert paths.host("/~auger") == str(settings.home)
    assert paths.host("/src/a.py") == str(settings.project_root / "src" / "a.py")


def test_middleware_reads_every_turn_and_writes_state_only_on_change(settings: Settings) -> None:
    backend = with_mounts(FilesystemBackend(root_dir=settings.project_root, virtual_mode=True), settings)
    mw = AugerMemoryMiddleware(backend, settings)
    assert mw.name == "MemoryMiddleware"
    (settings.home / "AGENTS.md").write_text("USER NOTE")
    first = mw.before_agent({"messages": []}, None, {})  # type: ignore[arg-type]
    assert first == {"memory_contents": {"/~auger/AGENTS.md": "USER NOTE"}}
    assert mw.before_agent({"messages": [], **first}, None, {}) is None  # type: ignore[arg-type]
    (settings.project_root / "CLAUDE.md").write_text("PROJECT NOTE")
    second = mw.before_agent({"messages": [], **first}, None, {})  # type: ignore[arg-type]
    assert second == {"memory_contents": {"/~auger/AGENTS.md": "USER NOTE", "/CLAUDE.md": "PROJECT NOTE"}}
    prompt = mw._format_agent_memory(second["memory_contents"], mw.system_prompt or "")
    assert "USER NOTE" in prompt and "PROJECT NOTE" in prompt and "/~auger/AGENTS.md" in prompt


def test_auger_home_shares_only_memory_skills_and_agents(settings: Settings) -> None:
    home = settings.home
    (home / "config.toml").write_text("SECRET-CONFIG")
    (home / "mcp.json").write_text('{"headers": {"Authorization": "Bearer SECRET-TOKEN"}}')
    (home / "AGENTS.md").write_text("NEEDLE in user memory\n")
    (home / "skills" / "s").mkdir(parents=True)
    (home / "skills" / "s" / "SKILL.md").write_text("NEEDLE in a user skill\n")
    (settings.project_root / "app.py").write_text("NEEDLE = 1\n")
    backend = with_mounts(LocalShellBackend(root_dir=settings.project_root, virtual_mode=True), settings)
    assert "SECRET" not in str(backend.read("/~auger/config.toml").error)
    assert backend.read("/~auger/config.toml").file_data is None
    assert backend.download_files(["/~auger/mcp.json"])[0].content is None
    listed = {e["path"] for e in backend.ls("/~auger/").entries or []}
    assert "/~auger/AGENTS.md" in listed and not any("config" in p or "mcp" in p for p in listed)
    assert backend.grep("SECRET", "/~auger/").error  # no search of AUGER_HOME's root
    assert [m["path"] for m in backend.grep("NEEDLE", "/~auger/skills").matches or []] == [
        "/~auger/skills/s/SKILL.md"
    ]
    # a project-wide search or listing stays in the project
    assert [m["path"] for m in backend.grep("NEEDLE").matches or []] == ["/app.py"]
    assert [m["path"] for m in backend.grep("NEEDLE", "/").matches or []] == ["/app.py"]
    assert all(not str(e["path"]).startswith("/~") for e in backend.ls("/").entries or [])
    assert all(not str(m["path"]).startswith("/~") for m in backend.glob("**/*.md").matches or [])


def test_symlink_escapes_are_errors_not_crashes(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("outside")
    (settings.home / "skills" / "s").mkdir(parents=True)
    (settings.home / "skills" / "s" / "leak.md").symlink_to(tmp_path / "outside.txt")
    backend = with_mounts(FilesystemBackend(root_dir=settings.project_root, virtual_mode=True), settings)
    assert "outside root" in str(backend.read("/~auger/skills/s/leak.md").error)
    assert backend.download_files(["/~auger/skills/s/leak.md"])[0].error == "invalid_path"
    assert backend.upload_files([("/~auger/skills/s/leak.md", b"x")])[0].error == "invalid_path"
    assert backend.write("/~auger/skills/s/leak.md", "x").error
    assert (tmp_path / "outside.txt").read_text() == "outside"


def test_memory_follows_a_symlinked_user_agents_md(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "dotfiles" / "AGENTS.md").write_text("FROM DOTFILES")
    (settings.home / "AGENTS.md").symlink_to(tmp_path / "dotfiles" / "AGENTS.md")
    mw = AugerMemoryMiddleware(None, settings)
    assert mw.before_agent({"messages": []}, None, {}) == {  # type: ignore[arg-type]
        "memory_contents": {"/~auger/AGENTS.md": "FROM DOTFILES"}
    }
