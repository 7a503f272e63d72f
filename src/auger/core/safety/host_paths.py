"""Which host file an agent path names, and whether a host path is protected — one answer for
every safety check.

* `AgentPaths.host(path)` resolves a file tool's path (`/src/a.py`, `/~auger/AGENTS.md`) to the
  host file it reaches, exactly as deepagents' file tools do: `validate_path` (a `..` component or
  a leading `~` is refused, `//` and `.` are normalised), then the `CompositeBackend` routes of
  `auger.core.backends.mounts`, longest prefix first (a route's `shared` list limits which top-level
  names it reaches). None means the tool refuses the path: it names no host file.
  `AgentPaths.agent_path(host)` is the inverse (the most specific folder wins).
* `AgentPaths.agent(path)` is the agent path a file tool's path means: an absolute host path in
  the project or a mount (what tracebacks and `pwd` print) maps to its agent path, one outside
  (`/tmp/x.py`) raises `OutsideProject` — never re-rooted into the project. `host` and `route`
  take it first; the permission middleware hands the tool the mapped path.
* `ProtectedPaths.folder(host_path)` names the protected folder a host path lies in: a `.git` or
  `.auger` component (below the project root; `.GIT` counts, for case-insensitive file systems)
  or a protected folder (`~/.ssh`, AUGER_HOME), lexically or after symlinks;
  `ProtectedPaths.taken(host_path)` the one a recursive removal of that path takes with it.

Permission rules and protected paths judge a file tool's call by `AgentPaths.host`
(`auger.core.safety.rules.subject_for`), shell commands resolve their words to host paths
and ask `ProtectedPaths` the same question (`auger.core.safety.written_paths`), and hooks are given the
host path in `tool_input` (`auger.core.middleware.tools.hooks`). Standard library only.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

PROTECTED_NAMES = (".git", ".auger")
_GLOB = re.compile(r"[*?\[]")
_WINDOWS_DRIVE = re.compile(r"^[a-zA-Z]:")


@dataclass(frozen=True)
class Route:
    """A mount: agent paths under `prefix` ("/~auger/") are files of host `folder`."""

    prefix: str
    folder: str
    shared: frozenset[str] | None = None  # the top-level names it reaches (None: all)
    read_only: bool = False


def normalise(agent_path: str) -> str | None:
    """The path as the file tools normalise it (`/a//b/./c` -> `/a/b/c`, `a` -> `/a`); None when
    they refuse it (a `..` component, a leading `~`, a Windows drive)."""
    text = str(agent_path)
    if ".." in PurePosixPath(text.replace("\\", "/")).parts or text.startswith("~"):
        return None
    if _WINDOWS_DRIVE.match(text):
        return None
    normal = posixpath.normpath(text) if text else "/"
    return normal if normal.startswith("/") else "/" + normal


class OutsideProject(ValueError):
    """A file tool's absolute path that is neither in the project nor under a mount."""


def outside_message(path: str, root: str) -> str:
    return (
        f"{path} is outside the project ({root}); file tools work inside it: use a path under {root} "
        "(or relative to it), or the shell for files elsewhere"
    )


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


class AgentPaths:
    """The project root and the mounts: agent path <-> host path."""

    def __init__(self, root: str | os.PathLike[str], routes: Iterable[Route] = ()) -> None:
        self.root = os.path.realpath(root)
        self.routes = sorted(routes, key=lambda r: len(r.prefix), reverse=True)

    def _mounted(self, path: str) -> bool:
        return any(inside(path, r.prefix.rstrip("/")) for r in self.routes)

    def agent(self, path: str) -> str | None:
        """The agent path file-tool path `path` means (None: refused, see `normalise`). In order:
        relative, a mount's, or a file of the project (`/src/a.py`) -> itself; a host path in the
        project or a mount (`<root>/src/a.py`) -> its agent path; one whose first folder is the
        project's -> itself (a new file); one whose first folder exists on the host (`/tmp/x`,
        `/etc/passwd`) -> OutsideProject; any other (`/docs/new.md`) -> itself (a new folder)."""
        normal = normalise(path)
        if normal is None or normal == "/" or not str(path).startswith("/") or self._mounted(normal):
            return normal
        if "\0" in normal:
            return normal  # no host file has that name: the tool refuses it
        if os.path.lexists(self.root + normal):
            return normal
        for host in dict.fromkeys([normal, os.path.realpath(normal)]):
            mapped = self.agent_path(host)
            if mapped is not None:
                return mapped
        first = "/" + normal.split("/")[1]
        if os.path.lexists(self.root + first) or not os.path.lexists(first):
            return normal
        raise OutsideProject(outside_message(str(path), self.root))

    def route(self, agent_path: str) -> tuple[Route | None, str] | None:
        """(the mount, the path inside it) — (None, project-relative) for the project; None when
        the file tools refuse the path (or it lies outside the project, `agent`)."""
        try:
            path = self.agent(agent_path)
        except OutsideProject:
            return None
        if path is None:
            return None
        for route in self.routes:
            head = route.prefix.rstrip("/")
            if path == head or path.startswith(head + "/"):
                rest = path[len(head) :].strip("/")
                if route.shared is not None and rest and rest.split("/", 1)[0] not in route.shared:
                    return None
                return route, rest
        return None, path.strip("/")

    def host(self, agent_path: str) -> str | None:
        """The host file `agent_path` names (absolute, normalised, symlinks not followed), or None."""
        found = self.route(agent_path)
        if found is None:
            return None
        route, rest = found
        folder = self.root if route is None else route.folder
        return posixpath.join(folder, rest) if rest else folder

    def agent_path(self, host: str | os.PathLike[str]) -> str | None:
        """The agent path of host file `host`: in the project, else under a mount; None if neither."""
        path = os.path.normpath(os.fspath(host))
        best: tuple[int, str] | None = None
        for prefix, folder in [("/", self.root), *((r.prefix, r.folder) for r in self.routes)]:
            if not inside(path, folder):
                continue
            rest = path[len(folder) :].strip("/")
            text = prefix.rstrip("/") + "/" + rest if rest else prefix
            depth = len(PurePosixPath(folder).parts)  # the most specific folder wins
            if best is None or depth > best[0]:
                best = (depth, text)
        return best[1] if best else None


# --- protected paths ----------------------------------------------------------------------------------


def parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p]


def part_matches(pattern: str, name: str, *, fold: bool = False) -> bool:
    """One path component against a name, as the shell globs it (`*` skips dotfiles); `fold`
    ignores case (`.GIT` is `.git` on case-insensitive file systems)."""
    if fold:
        pattern, name = pattern.lower(), name.lower()
    if not _GLOB.search(pattern):
        return pattern == name
    return (pattern.startswith(".") or not name.startswith(".")) and fnmatch.fnmatchcase(name, pattern)


def prefix_matches(path: list[str], folder: list[str]) -> bool:
    return all(part_matches(p, f) for p, f in zip(path, folder, strict=False))


def protected_name(names: Iterable[str], *, glob: bool = True) -> str | None:
    """The protected folder name (`.git`, `.auger`) one of `names` is (or, with `glob`, globs to)."""
    for name in names:
        for protected in PROTECTED_NAMES:
            if part_matches(name, protected, fold=True) if glob else name.lower() == protected:
                return protected
    return None


class ProtectedPaths:
    """`.git/` and `.auger/` of the project (and below it), and the protected folders."""

    def __init__(self, root: str | os.PathLike[str], dirs: Iterable[str | os.PathLike[str]] = ()) -> None:
        self.root = os.path.realpath(root)
        self.home = os.path.expanduser("~")
        self.dirs = list(dict.fromkeys(os.path.realpath(d) for d in dirs))

    def show(self, path: str) -> str:
        """`path` as the user reads it: project-relative, `~/…`, or absolute."""
        if inside(path, self.root):
            return path[len(self.root) + 1 :] or "."
        if inside(path, self.home):
            return "~" + path[len(self.home) :]
        return path

    def folder(self, path: str, *, glob: bool = True) -> str | None:
        """The protected folder (as shown: `.git`, `~/.ssh`) absolute `path` lies in, or None.
        With `glob` (a shell word) `*?[` count as the shell expands them, and symlinks are followed
        only when there are none; without (a file tool's path) the path is literal."""
        globbed = glob and _GLOB.search(path) is not None
        candidates = [path] if globbed else dict.fromkeys([path, os.path.realpath(path)])
        for candidate in candidates:
            rel = candidate[len(self.root) + 1 :] if candidate.startswith(self.root + "/") else candidate
            name = protected_name(parts(rel), glob=globbed)
            if name is not None:
                return name
            names = parts(candidate)
            for folder in self.dirs:
                inner = parts(folder)
                head = names[: len(inner)]
                if len(head) == len(inner) and (prefix_matches(head, inner) if globbed else head == inner):
                    return self.show(folder)
        return None

    def taken(self, path: str) -> str | None:
        """The protected folder (as shown) a recursive removal or move of `path` takes with it:
        the project's `.git`/`.auger` (when they exist) or a protected folder at or below `path`."""
        local = [os.path.join(self.root, n) for n in PROTECTED_NAMES]
        names = parts(path)
        for folder in [*(p for p in local if os.path.lexists(p)), *self.dirs]:
            inner = parts(folder)
            if len(names) <= len(inner) and prefix_matches(names, inner):
                return self.show(folder)
        return None
