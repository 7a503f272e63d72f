"""Folders outside the project that the agent's file tools can reach, as virtual mounts.

The backend's paths are virtual and rooted at the project ("/src/x.py"). Memory and skills also
live in the user's folders, so the agent's backend is a deepagents `CompositeBackend` whose
default is the project backend, with these routes:

    /~auger/          $AUGER_HOME — only AGENTS.md, CLAUDE.md, skills/ and agents/ (editable, so
                      the agent can update memory or write a skill when asked); config.toml,
                      mcp.json, threads.db and logs/ are not reachable
    /~builtin/skills/ the skills shipped with auger — read-only
    /~agents/skills/  ~/.agents/skills, the cross-tool skills folder (when it exists)
    /~artifacts/      $AUGER_HOME/artifacts — the composite's `artifacts_root`: deepagents offloads
                      large tool results (`large_tool_results/`) and summarised history
                      (`conversation_history/`) there, never into the user's project

Each route is a `FilesystemBackend` in virtual mode (`auger.core.backends.mount_backends`): `..` and
symlinks cannot leave its folder, and such attempts are error results, not exceptions. Searching
or listing the project root stays in the project; a mount is searched when its path is named.
`builtin_dir("skills" | "agents")` finds the shipped folders in a wheel (`auger/_builtin/`) and
in a source checkout (the repo root).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings

HOME_MOUNT = "/~auger/"
BUILTIN_SKILLS_MOUNT = "/~builtin/skills/"
AGENTS_SKILLS_MOUNT = "/~agents/skills/"
ARTIFACTS_MOUNT = "/~artifacts/"


def artifacts_dir(home: Path) -> Path:
    return home / "artifacts"


@cache
def builtin_dir(kind: str) -> Path:
    """The shipped `skills` or `agents` folder: `auger/_builtin/<kind>` in a wheel, else `<repo>/<kind>`."""
    package = Path(__file__).resolve().parents[2]  # .../auger
    installed = package / "_builtin" / kind
    if installed.is_dir():
        return installed
    return package.parents[1] / kind  # src/auger -> repo root


def shared_skills_dir() -> Path:
    return Path.home() / ".agents" / "skills"


def mount_table(settings: Settings) -> dict[str, Path]:
    """Route prefix -> host folder, for the folders that exist (AUGER_HOME always)."""
    table = {
        HOME_MOUNT: Path(settings.home),
        BUILTIN_SKILLS_MOUNT: builtin_dir("skills"),
        ARTIFACTS_MOUNT: artifacts_dir(Path(settings.home)),
    }
    shared = shared_skills_dir()
    if shared.is_dir():
        table[AGENTS_SKILLS_MOUNT] = shared
    return table


def virtual_path(path: Path, settings: Settings) -> str | None:
    """The backend path of host `path`: inside the project, else under a mount; None if neither."""
    candidates = [("/", Path(settings.project_root)), *mount_table(settings).items()]
    best: tuple[int, str] | None = None
    for prefix, folder in candidates:
        try:
            rel = path.relative_to(folder)
        except ValueError:
            continue
        text = prefix.rstrip("/") + "/" + rel.as_posix() if rel.parts else prefix
        depth = len(folder.parts)  # the most specific folder wins
        if best is None or depth > best[0]:
            best = (depth, text)
    return best[1] if best else None


def host_path(vpath: str, settings: Settings) -> Path:
    """The host path behind agent path `vpath` (the inverse of `virtual_path`), e.g. for permission
    checks: `/~auger/AGENTS.md` -> `$AUGER_HOME/AGENTS.md`, `/src/a.py` -> `<root>/src/a.py`."""
    for prefix, folder in sorted(mount_table(settings).items(), key=lambda kv: -len(kv[0])):
        if vpath == prefix.rstrip("/") or vpath.startswith(prefix):
            return folder / vpath[len(prefix) :]
    return Path(settings.project_root) / vpath.lstrip("/")


HOME_SHARED = ("AGENTS.md", "CLAUDE.md", "skills", "agents")  # the rest of AUGER_HOME stays private


def with_mounts(backend: Any, settings: Settings) -> Any:
    """`backend` (the project's) wrapped in a composite backend with the user-folder routes."""
    from deepagents.backends import CompositeBackend

    from auger.core.backends.mount_backends import MountBackend, MountedBackend

    if isinstance(backend, CompositeBackend):
        return backend  # already composed by the caller
    routes: dict[str, Any] = {}
    for prefix, folder in mount_table(settings).items():
        if prefix == BUILTIN_SKILLS_MOUNT:
            routes[prefix] = MountBackend(folder, read_only=True)
        elif prefix in (HOME_MOUNT, ARTIFACTS_MOUNT):
            folder.mkdir(parents=True, exist_ok=True)
            routes[prefix] = MountBackend(folder, shared=HOME_SHARED if prefix == HOME_MOUNT else None)
        else:
            routes[prefix] = MountBackend(folder)
    return MountedBackend(default=backend, routes=routes, artifacts_root=ARTIFACTS_MOUNT.rstrip("/"))
