"""Skills: discovery over every source (precedence, warnings for bad files), support files kept
inside the skill folder, `/name args` invocations, and the SkillsMiddleware slot in the agent."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from auger.core.backends.mounts import builtin_dir, with_mounts
from auger.core.catalog.skills import (
    SKILL_KEY,
    discover_skills,
    invocation_message,
    support_files,
)
from auger.core.middleware.prompt.skills import AugerSkillsMiddleware
from auger.settings import Settings, load_settings


def write_skill(folder: Path, name: str, description: str = "Does a thing.", body: str = "Step 1.") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}\n")
    return path


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    home, project = tmp_path / "auger-home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    return load_settings(cwd=project, env={"AUGER_HOME": str(home), "HOME": str(tmp_path)})


def test_builtin_skills_are_found_and_valid(settings: Settings) -> None:
    catalog = discover_skills(settings)
    names = {s.name for s in catalog if s.source == "built-in"}
    assert {"remember", "commit", "code-review", "skill-creator"} <= names
    assert catalog.warnings == []
    assert builtin_dir("skills").is_dir() and builtin_dir("agents").is_dir()
    commit = catalog.get("commit")
    assert commit is not None and commit.virtual_path == "/~builtin/skills/commit/SKILL.md"


def test_precedence_rises_from_builtin_to_project_auger(settings: Settings, tmp_path: Path) -> None:
    root = settings.project_root
    write_skill(settings.home / "skills", "commit", "USER commit")
    write_skill(tmp_path / ".agents" / "skills", "shared", "from ~/.agents")
    write_skill(root / ".agents" / "skills", "deploy", "project .agents deploy")
    write_skill(root / ".claude" / "skills", "deploy", "project .claude deploy")
    write_skill(root / ".auger" / "skills", "deploy", "project .auger deploy")
    catalog = discover_skills(settings)
    by_name = {s.name: s for s in catalog}
    assert by_name["commit"].description == "USER commit" and by_name["commit"].source == "user"
    assert by_name["commit"].virtual_path == "/~auger/skills/commit/SKILL.md"
    assert by_name["shared"].virtual_path == "/~agents/skills/shared/SKILL.md"
    assert by_name["deploy"].description == "project .auger deploy"
    assert by_name["deploy"].virtual_path == "/.auger/skills/deploy/SKILL.md"


def test_bad_skills_are_skipped_with_the_file_and_reason(settings: Settings) -> None:
    src = settings.project_root / ".auger" / "skills"
    good = write_skill(src, "good")
    mismatch = write_skill(src, "wrong-folder")
    mismatch.write_text("---\nname: other-name\ndescription: x\n---\nbody\n")
    (src / "no-front").mkdir()
    (src / "no-front" / "SKILL.md").write_text("# just markdown\n")
    (src / "bad-yaml").mkdir()
    (src / "bad-yaml" / "SKILL.md").write_text("---\nname: bad-yaml\ndescription: [unclosed\n---\nx\n")
    (src / "binary").mkdir()
    (src / "binary" / "SKILL.md").write_bytes(b"---\nname: binary\n\xff\xfe\n---\n")
    (src / "no-desc").mkdir()
    (src / "no-desc" / "SKILL.md").write_text("---\nname: no-desc\n---\nx\n")
    (src / "folder").mkdir()
    (src / "folder" / "SKILL.md").mkdir()
    catalog = discover_skills(settings)
    assert catalog.get("good") is not None and catalog.get("good").path == good  # type: ignore[union-attr]
    text = "\n".join(catalog.warnings)
    assert f"{mismatch}: name 'other-name' does not match its folder 'wrong-folder'" in text
    assert f"{src / 'no-front' / 'SKILL.md'}: no YAML frontmatter" in text
    assert f"{src / 'bad-yaml' / 'SKILL.md'}: invalid YAML in the frontmatter at line" in text
    assert f"{src / 'binary' / 'SKILL.md'}: not UTF-8 text" in text
    assert "'description' is missing" in text and "SKILL.md is a folder" in text
    assert len(catalog.warnings) == 6
    assert not {"other-name", "no-front", "bad-yaml", "binary", "no-desc", "folder"} & {
        s.name for s in catalog
    }


def test_support_files_never_leave_the_skill_folder(settings: Settings, tmp_path: Path) -> None:
    src = settings.project_root / ".auger" / "skills"
    write_skill(src, "tool")
    folder = src / "tool"
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.py").write_text("print(1)\n")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", folder / "leak.txt")
    os.symlink(folder / "scripts" / "run.py", folder / "alias.py")  # a symlink inside is fine
    skill = discover_skills(settings).get("tool")
    assert skill is not None
    assert support_files(skill) == ["alias.py", "scripts/run.py"]


def test_symlinked_skill_folder_outside_its_source_is_skipped(settings: Settings, tmp_path: Path) -> None:
    write_skill(tmp_path / "elsewhere", "linked")
    src = settings.project_root / ".auger" / "skills"
    src.mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere" / "linked", src / "linked")
    catalog = discover_skills(settings)
    assert catalog.get("linked") is None
    assert any("symlink to a place outside" in w for w in catalog.warnings)


def test_invocation_carries_the_body_the_request_and_a_marker(settings: Settings) -> None:
    src = settings.project_root / ".auger" / "skills"
    write_skill(src, "deploy", body="Run ./deploy.sh --prod and watch the logs.")
    (src / "deploy" / "checklist.md").write_text("- [ ] tag\n")
    catalog = discover_skills(settings)
    assert catalog.invocation("/deploy to staging now")[1] == "to staging now"  # type: ignore[index]
    assert catalog.invocation("/deploy")[1] == ""  # type: ignore[index]
    assert catalog.invocation("/unknown x") is None and catalog.invocation("deploy x") is None
    msg = invocation_message("/deploy to staging", settings, catalog)
    assert "Run ./deploy.sh --prod and watch the logs." in msg.content
    assert "name: deploy" not in msg.content  # frontmatter stripped
    assert msg.content.rstrip().endswith("to staging")
    assert "/.auger/skills/deploy/checklist.md" in msg.content
    assert msg.additional_kwargs[SKILL_KEY] == {
        "name": "deploy",
        "args": "to staging",
        "source": "project .auger",
        "path": "/.auger/skills/deploy/SKILL.md",
    }
    assert invocation_message("/nope", settings, catalog) is None


def test_middleware_loads_catalogue_with_virtual_paths_readable_by_the_backend(settings: Settings) -> None:
    from deepagents.backends import FilesystemBackend

    write_skill(settings.home / "skills", "mine", "My own skill.")
    backend = with_mounts(FilesystemBackend(root_dir=settings.project_root, virtual_mode=True), settings)
    mw = AugerSkillsMiddleware(backend, settings)
    update = mw.before_agent({"messages": []}, None, {})  # type: ignore[arg-type]
    assert update is not None
    meta = {m["name"]: m for m in update["skills_metadata"]}
    assert meta["mine"]["path"] == "/~auger/skills/mine/SKILL.md"
    assert b"My own skill." in backend.download_files([meta["mine"]["path"]])[0].content
    assert b"Make one clean commit" in backend.download_files([meta["commit"]["path"]])[0].content
    assert mw.before_agent({"messages": [], **update}, None, {}) is None  # unchanged: no state write  # type: ignore[arg-type]
    assert mw.name == "SkillsMiddleware"


def test_discovery_of_100_skills_is_fast(settings: Settings) -> None:
    src = settings.project_root / ".auger" / "skills"
    for i in range(100):
        write_skill(src, f"skill-{i:03d}", f"Skill number {i}.")
    discover_skills(settings)  # warm the imports
    start = time.perf_counter()
    catalog = discover_skills(settings)
    elapsed = time.perf_counter() - start
    assert len(catalog) >= 100
    assert elapsed < 0.25, f"discovery took {elapsed * 1000:.0f} ms"  # bench target: 50 ms (bench/)
