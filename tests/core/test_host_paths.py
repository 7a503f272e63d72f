"""`auger.core.safety.host_paths`: the one answer to "which host file is this agent path" (checked
against the real deepagents backend the file tools write through) and "is it protected", as
permissions, protected paths and hooks use it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from deepagents.backends import FilesystemBackend
from deepagents.backends.utils import validate_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auger.core.backends.mounts import agent_paths, with_mounts
from auger.core.safety.host_paths import AgentPaths, ProtectedPaths, Route, normalise
from auger.core.safety.permissions import PermissionEngine
from auger.settings import Settings, load_settings


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


@pytest.mark.parametrize(
    ("agent", "host"),
    [
        ("/src/a.py", "{root}/src/a.py"),
        ("src/a.py", "{root}/src/a.py"),
        ("//src/./a.py", "{root}/src/a.py"),
        ("/", "{root}"),
        ("/~auger/AGENTS.md", "{home}/AGENTS.md"),
        ("/~auger//skills/x/SKILL.md", "{home}/skills/x/SKILL.md"),
        ("/~auger", "{home}"),
        ("/~augerx/AGENTS.md", "{root}/~augerx/AGENTS.md"),  # not the mount: a project folder
        ("/~artifacts/large_tool_results/x", "{home}/artifacts/large_tool_results/x"),
        ("/~auger/config.toml", None),  # not shared through the mount: the tool refuses it
        ("/~auger/threads.db", None),
        ("/~auger/../.ssh/id_rsa", None),  # `..` is refused
        ("~/.ssh/id_rsa", None),  # so is `~`
        ("C:/x", None),
    ],
)
def test_host_of_agent_paths(user: Settings, agent: str, host: str | None) -> None:
    paths = agent_paths(user)
    want = host.format(root=user.project_root, home=user.home) if host else None
    assert paths.host(agent) == want
    if want is not None and not agent.startswith("/~artifacts"):
        assert paths.host(paths.agent_path(want) or "") == want  # the inverse


_names = st.sampled_from(["a", "b.txt", ".", "..", "", "~", "~auger", "AGENTS.md", "skills", "config.toml"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_names, min_size=1, max_size=4), st.sampled_from(["/", "", "//", "/~auger/", "~/"]))
def test_host_is_the_file_the_real_backend_writes(user: Settings, names: list[str], lead: str) -> None:
    """What the file tools do (validate_path, then the mounted backend) against `AgentPaths.host`:
    the file written is the host file, and a refused path has none."""
    path = lead + "/".join(names)
    backend = with_mounts(FilesystemBackend(root_dir=user.project_root, virtual_mode=True), user)
    host = agent_paths(user).host(path)
    try:
        result = backend.write(validate_path(path), "x")
        error = result.error
    except ValueError as exc:
        error = str(exc)
    if host is None:
        assert error, path
        return
    target = Path(host)
    if error:  # the host path is a folder made by an earlier example: the backend refuses to overwrite
        assert target.is_dir(), (path, error)
        return
    assert target.read_text() == "x", path
    target.unlink()


def test_normalise_matches_validate_path() -> None:
    for path in ["/a//b/./c", "a", "/", "", "//x", "/a/b/", "./a"]:
        assert normalise(path) == validate_path(path or "/"), path
    for bad in ["/a/../b", "~/x", "..", "C:/x"]:
        assert normalise(bad) is None
        with pytest.raises(ValueError):
            validate_path(bad)


def test_longest_prefix_wins_and_shared_limits_a_route(tmp_path: Path) -> None:
    paths = AgentPaths(
        tmp_path / "root",
        [
            Route("/~m/", str(tmp_path / "m")),
            Route("/~m/deep/", str(tmp_path / "d"), shared=frozenset({"ok"})),
        ],
    )
    assert paths.host("/~m/x") == str(tmp_path / "m" / "x")
    assert paths.host("/~m/deep/ok/y") == str(tmp_path / "d" / "ok" / "y")
    assert paths.host("/~m/deep/no") is None
    assert paths.agent_path(tmp_path / "d" / "ok") == "/~m/deep/ok"
    assert paths.agent_path(tmp_path / "elsewhere") is None


def test_protected_folders_lexically_after_symlinks_and_any_case(tmp_path: Path) -> None:
    root, home = tmp_path / "root", tmp_path / "auger-home"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    (root / "link").symlink_to(home, target_is_directory=True)
    protected = ProtectedPaths(root, [home])
    assert protected.folder(str(root / ".git" / "config")) == ".git"
    assert protected.folder(str(root / "sub" / ".GIT" / "HEAD"), glob=False) == ".git"
    assert protected.folder(str(root / ".auger" / "x")) == ".auger"
    assert protected.folder(str(home / "AGENTS.md")) == str(home)
    assert protected.folder(str(root / "link" / "AGENTS.md"), glob=False) == str(home)
    assert protected.folder(str(root / ".gitignore")) is None
    assert protected.folder(str(root / ".g*" / "x")) == ".git"  # a shell glob reaches it
    assert protected.folder(str(root / ".g*" / "x"), glob=False) is None  # a file name is literal
    assert protected.taken(str(root)) == ".git" and protected.taken(str(root / "src")) is None
    assert protected.taken(str(tmp_path)) == ".git"


def test_file_tools_ask_for_every_route_onto_a_protected_folder(user: Settings) -> None:
    """Permissions judge a file tool by the host file: the mount, the project's `.git`, a delete
    that takes `.git` with it; yolo and allow rules do not change that, deny rules still win."""
    eng = PermissionEngine.from_settings(user)
    eng.add("allow", "write_file")
    eng.add("allow", "delete")
    for name, path in [
        ("write_file", "/~auger/AGENTS.md"),
        ("write_file", "/~auger/skills/evil/SKILL.md"),
        ("write_file", "/~auger/agents/evil.md"),
        ("delete", "/~auger/skills"),
        ("delete", "/"),  # the project root, .git with it
        ("write_file", "/.GIT/config"),
        ("write_file", "/~artifacts/x"),  # inside AUGER_HOME too
    ]:
        got = eng.evaluate(name, {"file_path": path}, mode="yolo", gated=True)
        assert got.action == "ask" and got.reason.startswith("protected path ("), (path, got)
    assert eng.evaluate("write_file", {"file_path": "/src/a.py"}, mode="yolo", gated=True).action == "allow"
    assert eng.evaluate("delete", {"file_path": "/src"}, mode="yolo", gated=True).action == "allow"
    # a path the tool refuses writes nothing: the mode decides, the tool then refuses it
    assert (
        eng.evaluate("write_file", {"file_path": "/~auger/config.toml"}, mode="yolo", gated=True).action
        == "allow"
    )
    eng.add("deny", f"write_file(//{str(user.home).lstrip('/')}/**)")
    got = eng.evaluate("write_file", {"file_path": "/~auger/AGENTS.md"}, mode="yolo", gated=True)
    assert got.action == "deny"


def test_project_rules_match_the_agent_spelling_and_the_project_file(tmp_path: Path) -> None:
    """`~auger/**` (as the model writes it) matches the mount; when AUGER_HOME lies in the
    project, project rules on its project path match the mount path too."""
    root = tmp_path / "root"
    inner_home = root / "dot-auger"
    inner_home.mkdir(parents=True)
    eng = PermissionEngine(
        deny=["write_file(dot-auger/**)", "edit_file(~auger/**)"],
        root=root,
        routes=[Route("/~auger/", str(inner_home), shared=frozenset({"AGENTS.md"}))],
    )
    assert eng.denial("write_file", {"file_path": "/~auger/AGENTS.md"}) is not None
    assert eng.denial("edit_file", {"file_path": "/~auger/AGENTS.md"}) is not None
    assert eng.denial("write_file", {"file_path": "/src/x"}) is None


def test_home_and_symlinked_host_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    root = tmp_path / "root"
    (tmp_path / "secrets").mkdir()
    root.mkdir()
    os.symlink(tmp_path / "secrets", root / "s")
    eng = PermissionEngine(deny=["write_file(~/secrets/**)"], root=root)
    assert eng.denial("write_file", {"file_path": "/s/token"}) is not None  # after the symlink
    assert eng.denial("write_file", {"file_path": "/t/token"}) is None


def test_agent_maps_host_paths_in_the_project_and_refuses_outside_ones(user: Settings) -> None:
    """`AgentPaths.agent`: what a file tool's path means, before any check or tool sees it."""
    from auger.core.safety.host_paths import OutsideProject

    paths, root, home = agent_paths(user), str(user.project_root), str(user.home)
    (Path(root) / "src").mkdir()
    (Path(root) / "src" / "a.py").write_text("x")
    assert paths.agent(f"{root}/src/a.py") == "/src/a.py"  # a traceback's path
    assert paths.agent(f"{root}/new/b.py") == "/new/b.py"  # a new file named by its host path
    assert paths.agent(root) == "/"
    assert paths.agent(f"{home}/AGENTS.md") == "/~auger/AGENTS.md"  # a mount's host path
    assert paths.agent("/src/a.py") == "/src/a.py" and paths.agent("src/x.py") == "/src/x.py"
    assert paths.agent("/docs/new.md") == "/docs/new.md"  # no /docs on the host: a new project folder
    assert paths.agent("lib/x.py") == "/lib/x.py"  # relative: always the project
    assert paths.agent("/nul\0name") == "/nul\0name"  # hostile, refused by the tool, never raises
    for outside in ["/tmp/repro.py", "/etc/passwd", "/lib/x.py"]:
        with pytest.raises(OutsideProject, match=f"is outside the project \\({root}\\)"):
            paths.agent(outside)
        assert paths.host(outside) is None
    assert paths.host(f"{root}/src/a.py") == f"{root}/src/a.py"


def test_rules_judge_a_host_path_as_its_project_path(tmp_path: Path) -> None:
    """Allow and deny rules written for project paths match the same file named by its host path
    (also through a symlinked spelling of the root); an outside path is a deny verdict naming the root."""
    root = (tmp_path / "proj").resolve()
    (root / "src").mkdir(parents=True)
    (tmp_path / "link").symlink_to(root)
    eng = PermissionEngine(allow=["write_file(src/**)"], deny=["read_file(.env)"], root=root)

    def verdict(name: str, path: str) -> tuple[str, str]:
        found = eng.evaluate(name, {"file_path": path}, mode="manual", gated=name != "read_file")
        return found.action, found.reason

    assert verdict("write_file", f"{root}/src/new.py")[0] == "allow"
    assert verdict("write_file", f"{tmp_path}/link/src/new.py")[0] == "allow"
    assert verdict("read_file", f"{root}/.env") == ("deny", 'deny rule "read_file(.env)"')
    action, reason = verdict("write_file", "/tmp/repro.py")
    assert action == "deny" and reason.startswith(f"/tmp/repro.py is outside the project ({root})")
    assert eng.denial("read_file", {"file_path": "/etc/passwd"}) is not None
    assert eng.denial("read_file", {"file_path": f"{root}/src/a.py"}) is None
