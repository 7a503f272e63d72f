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
    /any/added/dir/   a folder `--add-dir` (or `add_dirs`) names, at its own absolute path

Each route is a `FilesystemBackend` in virtual mode (`auger.core.backends.mount_backends`): `..` and
symlinks cannot leave its folder, and such attempts are error results, not exceptions. Searching
or listing the project root stays in the project; a mount is searched when its path is named.
`mount_routes(settings)` is the one table: the backend's routes and the agent-path resolution
of `auger.core.safety.host_paths` (`agent_paths(settings).host("/~auger/AGENTS.md")` is
`$AUGER_HOME/AGENTS.md`; permissions, protected paths and hooks all use it).
`builtin_dir("skills" | "agents")` finds the shipped folders in a wheel (`auger/_builtin/`) and
in a source checkout (the repo root).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.core.safety.host_paths import AgentPaths, Route

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


HOME_SHARED = ("AGENTS.md", "CLAUDE.md", "skills", "agents")  # the rest of AUGER_HOME stays private


def mount_routes(settings: Settings) -> list[Route]:
    """The mounts, for the folders that exist (AUGER_HOME always): what `with_mounts` routes and
    what `auger.core.safety.host_paths.AgentPaths` resolves agent paths with."""
    home = Path(settings.home)
    routes = [
        Route(HOME_MOUNT, str(home), shared=frozenset(HOME_SHARED)),
        Route(BUILTIN_SKILLS_MOUNT, str(builtin_dir("skills")), read_only=True),
        Route(ARTIFACTS_MOUNT, str(artifacts_dir(home))),
    ]
    shared = shared_skills_dir()
    if shared.is_dir():
        routes.append(Route(AGENTS_SKILLS_MOUNT, str(shared)))
    # `--add-dir DIR`: the folder at its own path, so the host path the model reads elsewhere works
    routes += [Route(folder.rstrip("/") + "/", folder) for folder in added_dirs(settings)]
    return routes


def added_dirs(settings: Settings) -> list[str]:
    """The `add_dirs` folders that exist (real paths), the project itself left out."""
    import os

    root = os.path.realpath(settings.project_root)
    found = (os.path.realpath(str(d)) for d in (getattr(settings, "data", None) or {}).get("add_dirs") or [])
    return [d for d in dict.fromkeys(found) if os.path.isdir(d) and d != root and d != "/"]


def agent_paths(settings: Settings) -> AgentPaths:
    """Agent path <-> host path for `settings`' project and mounts (the one resolution)."""
    return AgentPaths(settings.project_root, mount_routes(settings))


def virtual_path(path: Path, settings: Settings) -> str | None:
    """The backend path of host `path`: inside the project, else under a mount; None if neither."""
    return agent_paths(settings).agent_path(path)


def with_mounts(backend: Any, settings: Settings) -> Any:
    """`backend` (the project's) wrapped in a composite backend with the user-folder routes."""
    from deepagents.backends import CompositeBackend

    from auger.core.backends.mount_backends import MountBackend, MountedBackend

    if isinstance(backend, CompositeBackend):
        return backend  # already composed by the caller
    routes: dict[str, Any] = {}
    for route in mount_routes(settings):
        folder = Path(route.folder)
        if route.prefix in (HOME_MOUNT, ARTIFACTS_MOUNT):
            folder.mkdir(parents=True, exist_ok=True)
        routes[route.prefix] = MountBackend(folder, read_only=route.read_only, shared=route.shared)
    return MountedBackend(default=backend, routes=routes, artifacts_root=ARTIFACTS_MOUNT.rstrip("/"))
