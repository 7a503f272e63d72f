"""FolderMemoryMiddleware: a subfolder's AGENTS.md / CLAUDE.md joins when the agent works there.

Codex and Claude Code read the memory file of a subfolder once the agent touches files in it
(`packages/api/AGENTS.md` for `packages/api/src/app.py`). When a file tool (read, write, edit,
delete, ls, glob, grep) succeeds on a path below the project root, the memory files of the
folders between the root and that path which are not in the prompt yet are appended to the
tool's result, outermost first, each once per thread (the result's `additional_kwargs
["auger_memory"]` lists them; the messages in state tell what was added before). The root's and
the working directory's chain are memory slots already (`auger.core.catalog.memory`). Their `@path`
imports are followed as for any memory file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

from auger.core.agent.context import AugerContext
from auger.core.catalog.memory import folder_memory, memory_files, read_with_imports
from auger.core.middleware.tools.redaction import appended, map_tool_messages
from auger.core.safety.rules import FILE_TOOLS, path_key

MEMORY_KEY = "auger_memory"


def _added(state: Any) -> set[str]:
    found: set[str] = set()
    for msg in (state or {}).get("messages", []) if isinstance(state, dict) else []:
        found.update((getattr(msg, "additional_kwargs", None) or {}).get(MEMORY_KEY) or [])
    return found


def _folders(host: Path, root: Path) -> list[Path]:
    """The folders from just below `root` down to the one holding `host` (or `host` itself)."""
    if not host.is_relative_to(root) or host == root:
        return []
    parts = host.relative_to(root).parts
    last = len(parts) if host.is_dir() else len(parts) - 1
    return [root.joinpath(*parts[: i + 1]) for i in range(last)]


class FolderMemoryMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def __init__(self, settings: Any) -> None:
        super().__init__()
        self.settings = settings
        self.root = Path(settings.project_root)

    def _new_files(self, request: Any) -> list[Path]:
        """The memory files of the folders down to a file tool's path not in the prompt yet."""
        ctx = getattr(request.runtime, "context", None)
        paths = getattr(ctx.permissions, "paths", None) if isinstance(ctx, AugerContext) else None
        value = (request.tool_call.get("args") or {}).get(path_key(str(request.tool_call["name"])))
        host = paths.host(value) if paths is not None and isinstance(value, str) and value else None
        if host is None:
            return []
        found = [f for f in map(folder_memory, _folders(Path(host), self.root)) if f is not None]
        if not found:  # most calls (a path at the root, a folder without memory): no slot lookups
            return []  # (a dozen stats) and no walk over the thread's messages
        done = _added(request.state) | {str(m.path) for m in memory_files(self.settings)}
        return [f for f in found if str(f) not in done]

    def _attach(self, request: Any, result: Any) -> Any:
        if str(request.tool_call["name"]) not in FILE_TOOLS:
            return result
        files = self._new_files(request)
        if not files:
            return result
        blocks, names = [], []
        for path in files:
            text, _ = read_with_imports(path, self.settings)
            if text is None:
                continue
            folder = "/" + path.parent.relative_to(self.root).as_posix() + "/"
            blocks.append(
                f'<folder-memory path="{folder}{path.name}">\n{text.rstrip()}\n</folder-memory>\n'
                f"(The memory file of {folder}: follow it for work in that folder.)"
            )
            names.append(str(path))

        def add(msg: ToolMessage) -> ToolMessage:
            if msg.status == "error" or not blocks:
                return msg
            kwargs = {**msg.additional_kwargs, MEMORY_KEY: names}
            return appended(msg, "\n\n".join(blocks), additional_kwargs=kwargs)

        return map_tool_messages(result, add)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._attach(request, handler(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._attach(request, await handler(request))
