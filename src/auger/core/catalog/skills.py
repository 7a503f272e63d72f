"""Skills: SKILL.md folders, their catalogue, and `/skill-name args` invocations.

Sources, in rising precedence (a later skill of the same name wins):

    built-in  auger's shipped skills/            user     $AUGER_HOME/skills
    agents    ~/.agents/skills                   project  .agents/skills, .claude/skills, .auger/skills

A skill is `<source>/<name>/SKILL.md` with frontmatter `name` (= the folder name; without one
the folder names it, as Claude Code does) and `description` (one over 1,024 characters is kept
whole, with a warning). `allowed-tools` (a YAML list, or comma / space separated, in auger's or
Claude Code's rule syntax: `Read, Grep, Bash(git diff:*)`) limits the turn that invokes the
skill to those tools (`auger.core.middleware.tools.turn_tools`). `$ARGUMENTS` and `$1`…`$9` in the
body are replaced by what followed `/name` (`auger.core.catalog.arguments`). A file with bad
frontmatter, a name that does not match its folder, or that cannot be read is skipped with a
warning naming the file and the reason. Discovery reads the
host folders directly (no deepagents import); the agent reads skills through the backend at the
virtual paths of `auger.core.backends.mounts`. A skill's support files (`support_files`) are
only those inside its folder: symlinks that lead out are skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.backends.mounts import builtin_dir, shared_skills_dir, virtual_path
from auger.core.catalog.arguments import expand_arguments
from auger.core.catalog.frontmatter import (
    Catalog,
    FrontmatterError,
    allowed_tools,
    name_problem,
    read_frontmatter,
    text_field,
)
from auger.errors import AugerError

if TYPE_CHECKING:
    from auger.settings import Settings

SKILL_FILE = "SKILL.md"
SKILL_KEY = "auger_skill"  # additional_kwargs marker on an invocation message
MAX_DESCRIPTION = 1024
MAX_SUPPORT_FILES = 40


class SkillError(AugerError):
    """A skill file cannot be used (e.g. a support path that leaves the skill's folder)."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    source: str  # built-in | user | agents | project .agents | project .claude | project .auger
    path: Path  # host path of SKILL.md
    virtual_path: str  # the same file as the agent's file tools see it
    allowed_tools: tuple[str, ...] = ()


SkillCatalog = Catalog[Skill]


def skill_sources(settings: Settings) -> list[tuple[str, Path]]:
    root = Path(settings.project_root)
    return [
        ("built-in", builtin_dir("skills")),
        ("user", Path(settings.home) / "skills"),
        ("agents", shared_skills_dir()),
        ("project .agents", root / ".agents" / "skills"),
        ("project .claude", root / ".claude" / "skills"),
        ("project .auger", root / ".auger" / "skills"),
    ]


def _load(label: str, source_root: Path, folder: Path, settings: Settings) -> Skill:
    skill_md = folder / SKILL_FILE
    real = folder.resolve()
    if not real.is_relative_to(source_root.resolve()):
        raise FrontmatterError("the skill folder is a symlink to a place outside its skills folder")
    if skill_md.is_dir():
        raise FrontmatterError(f"{SKILL_FILE} is a folder")
    data, _ = read_frontmatter(skill_md)
    name = text_field(data, "name") or folder.name  # Claude Code: the folder names a skill without one
    problem = name_problem(name)
    if problem:
        raise FrontmatterError(problem + ("" if text_field(data, "name") else " (the folder's name)"))
    if name != folder.name:
        raise FrontmatterError(f"name {name!r} does not match its folder {folder.name!r}")
    description = text_field(data, "description")
    if not description:
        raise FrontmatterError("'description' is missing")
    vpath = virtual_path(skill_md, settings)
    if vpath is None:
        raise FrontmatterError("not reachable by the agent's file tools")
    return Skill(name, description, label, skill_md, vpath, allowed_tools(data))


def discover_skills(settings: Settings) -> SkillCatalog:
    """Every usable skill (later sources override earlier ones by name), plus warnings."""
    found: dict[str, Skill] = {}
    warnings: list[str] = []
    for label, source_root in skill_sources(settings):
        try:
            entries = sorted(os.scandir(source_root), key=lambda e: e.name)
        except OSError:
            continue  # a source that does not exist is normal
        for entry in entries:
            folder = Path(entry.path)
            if entry.name.startswith(".") or not entry.is_dir() or not (folder / SKILL_FILE).exists():
                continue
            try:
                skill = _load(label, source_root, folder, settings)
            except FrontmatterError as exc:
                warnings.append(f"skipped skill {folder / SKILL_FILE}: {exc}")
                continue
            found[skill.name] = skill
            if len(skill.description) > MAX_DESCRIPTION:
                warnings.append(
                    f"skill {skill.path}: its description is {len(skill.description)} characters, over the "
                    f"{MAX_DESCRIPTION} the skills format allows; it is used in full, but shorten it "
                    "so every agent reads it"
                )
    return Catalog(dict(sorted(found.items())), warnings)


# --- files of a skill -----------------------------------------------------------------------


def support_files(skill: Skill) -> list[str]:
    """Relative paths of the skill's other files (inside its folder only; symlinks out skipped)."""
    out: list[str] = []
    folder = skill.path.parent
    base = folder.resolve()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if (name == SKILL_FILE and full.parent == folder) or name.startswith("."):
                continue
            if not full.resolve().is_relative_to(base):
                continue
            out.append(full.relative_to(folder).as_posix())
            if len(out) >= MAX_SUPPORT_FILES:
                return out
    return out


def skill_body(skill: Skill) -> str:
    """SKILL.md without its frontmatter."""
    try:
        return read_frontmatter(skill.path)[1].strip()
    except FrontmatterError as exc:
        raise SkillError(f"Cannot read the skill {skill.name!r} ({skill.path}): {exc}.") from None


# --- invocation -----------------------------------------------------------------------------


def invocation_text(skill: Skill, args: str) -> str:
    folder = skill.virtual_path.rsplit("/", 1)[0]
    parts = [f'<skill name="{skill.name}" source="{skill.source}" path="{skill.virtual_path}">']
    parts += [expand_arguments(skill_body(skill), args), "</skill>"]
    files = support_files(skill)
    if files:
        parts.append("\nFiles in this skill's folder (read them with read_file when the steps say so):")
        parts += [f"- {folder}/{f}" for f in files]
    if skill.allowed_tools:
        parts.append(f"\nFor this request you may use only these tools: {', '.join(skill.allowed_tools)}.")
    request = args or "(no further details: follow the skill's instructions)"
    parts.append(f"\nThe user invoked the skill `/{skill.name}`. Follow its instructions for this request:")
    parts.append(request)
    return "\n".join(parts)


def invocation_message(prompt: str, settings: Settings, catalog: SkillCatalog | None = None) -> Any:
    """A HumanMessage for `/name args` (None if `prompt` is not a skill call).

    The message carries `additional_kwargs["auger_skill"] = {name, args, source, path}`, so a
    transcript or a resumed thread can show `/name args` instead of the whole skill text.
    """
    parsed = (catalog if catalog is not None else discover_skills(settings)).invocation(prompt)
    if parsed is None:
        return None
    from langchain_core.messages import HumanMessage

    skill, args = parsed
    marker: dict[str, Any] = {
        "name": skill.name,
        "args": args,
        "source": skill.source,
        "path": skill.virtual_path,
    }
    if skill.allowed_tools:
        marker["allowed_tools"] = list(skill.allowed_tools)  # the turn may use only these
    return HumanMessage(content=invocation_text(skill, args), additional_kwargs={SKILL_KEY: marker})
