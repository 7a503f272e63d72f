"""Memory files as users lay them out: Claude Code's `.claude/CLAUDE.md` and `CLAUDE.local.md`,
the folders from the root down to the working directory, and `@path` imports (depth-limited,
confined to the project and home, loops and missing files as warnings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.core.catalog.memory import memory_files, memory_warnings
from auger.core.catalog.memory_imports import MAX_DEPTH, MAX_IMPORTED_BYTES, import_names
from auger.core.middleware.prompt.memory import read_memory
from auger.settings import Settings, load_settings


def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cwd: str = "") -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (project / cwd).mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project / cwd, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_claude_places_and_the_folders_down_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make(tmp_path, monkeypatch, "packages/api")
    root = settings.project_root
    write(root / "AGENTS.md", "root")
    write(root / ".claude" / "CLAUDE.md", "team claude")
    write(root / "CLAUDE.local.md", "mine")
    write(root / "packages" / "CLAUDE.md", "packages")
    write(root / "packages" / "api" / "AGENTS.md", "api")
    write(root / "packages" / "web" / "AGENTS.md", "web: not where we work")
    files = [(m.scope, m.virtual_path) for m in memory_files(settings) if m.exists]
    assert files == [
        ("project", "/AGENTS.md"),
        ("project", "/.claude/CLAUDE.md"),
        ("project-local", "/CLAUDE.local.md"),
        ("folder", "/packages/CLAUDE.md"),
        ("folder", "/packages/api/AGENTS.md"),
    ]
    _, contents = read_memory(settings)
    assert contents["/packages/api/AGENTS.md"] == "api" and "/packages/web/AGENTS.md" not in contents


def test_imports_are_followed_and_confined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = make(tmp_path, monkeypatch)
    settings.trusted = (
        True  # an untrusted project's imports stop at the project (tests/e2e/test_trust_e2e.py)
    )
    root = settings.project_root
    write(tmp_path / "prefs.md", "PREFS from home")  # HOME is tmp_path
    write(root / "docs" / "testing.md", "TESTING: run `make test`\nsee @../docs/style.md")
    write(root / "docs" / "style.md", "STYLE: tabs")
    outside = write(tmp_path.parent / f"{tmp_path.name}-outside.md", "OUTSIDE")
    write(
        root / "AGENTS.md",
        "# Project\n"
        "- testing: @docs/testing.md, prefs: @~/prefs.md\n"
        f"- evil: @{outside}\n"
        "- missing: @docs/nope.md; ping @octocat; mail me at a@b.io\n"
        "```\n@docs/style.md in a fence is not an import\n```\n",
    )
    _, contents = read_memory(settings)
    text = contents["/AGENTS.md"]
    assert "TESTING: run" in text and "STYLE: tabs" in text and "PREFS from home" in text
    assert "OUTSIDE" not in text
    assert text.index("TESTING") < text.index("STYLE")  # an import's imports follow it
    warnings = memory_warnings(settings)
    assert any(
        "outside the project and your home folder" in w and str(root / "AGENTS.md") in w for w in warnings
    )
    assert any("@docs/nope.md not found" in w for w in warnings)
    assert not any("octocat" in w for w in warnings)  # a mention, not an import
    assert len(warnings) == 2, warnings


def test_import_loops_and_depth_are_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = make(tmp_path, monkeypatch)
    root = settings.project_root
    write(root / "a.md", "A imports @b.md")
    write(root / "b.md", "B imports @a.md")
    for i in range(MAX_DEPTH + 2):
        write(root / "chain" / f"{i}.md", f"LEVEL-{i} @{i + 1}.md")
    write(root / "AGENTS.md", "@a.md and @chain/0.md")
    _, contents = read_memory(settings)
    text = contents["/AGENTS.md"]
    assert text.count("A imports") == 1 and text.count("B imports") == 1
    assert f"LEVEL-{MAX_DEPTH - 1}" in text and f"LEVEL-{MAX_DEPTH}" not in text
    warnings = memory_warnings(settings)
    assert any("a loop" in w and "b.md" in w for w in warnings)
    assert any(f"more than {MAX_DEPTH} imports deep" in w for w in warnings)


def test_import_names_skip_code() -> None:
    assert import_names("see @README and @docs/a.md. `@not/this` x@y.z") == ["README", "docs/a.md"]


def test_imports_of_one_memory_file_stop_at_a_total_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cloned project's AGENTS.md importing 40 files of 60 KB would put 2.4 MB into every model call."""
    settings = make(tmp_path, monkeypatch)
    root = settings.project_root
    for i in range(40):
        write(root / "big" / f"{i}.md", f"PART-{i} " + "x" * 60_000)
    write(root / "AGENTS.md", " ".join(f"@big/{i}.md" for i in range(40)))
    _, contents = read_memory(settings)
    text = contents["/AGENTS.md"]
    assert "PART-0 " in text and "PART-39 " not in text
    assert len(text) <= MAX_IMPORTED_BYTES + 64 * 1024
    assert any(
        "@big/39.md is past the 256 KB of imports; not imported" in w for w in memory_warnings(settings)
    )
