"""ClientFilesMiddleware: the project's files read and written through the front end, when it
offers to (`TurnOptions.files`: an editor over ACP, so the agent sees unsaved buffers and the
editor applies — and can review — the writes).

For `read_file`, `write_file` and `edit_file` on a project path (not a mount such as `/~auger/`)
the tool is not run on the backend: the file's text comes from `files.read(host_path)`, and
writes go to `files.write(host_path, text)`; results read like the backend's own ("Updated
file /x", numbered lines). Everything else, and every call when the front end offers nothing,
runs as usual. It is the innermost tool middleware, so hooks, permission rules, redaction and
truthful results apply exactly as for the backend's tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

ROUTED = frozenset({"read_file", "write_file", "edit_file"})
DEFAULT_LIMIT = 2000  # lines, as the backend's read_file


class ClientFilesMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        ctx = getattr(request.runtime, "context", None)
        files = getattr(ctx, "files", None)
        call = request.tool_call
        if files is None or call.get("name") not in ROUTED:
            return await handler(request)
        args = dict(call.get("args") or {})
        path = str(args.get("file_path") or "")
        paths = getattr(getattr(ctx, "permissions", None), "paths", None)
        found = paths.route(path) if paths is not None else None
        if paths is None or found is None or found[0] is not None:  # a mount, or not a file tool path
            return await handler(request)
        host = paths.host(path)
        text = await _run(call["name"], args, host, files)
        return ToolMessage(text, tool_call_id=str(call.get("id") or ""), name=call["name"])


async def _run(name: str, args: dict[str, Any], host: str, files: Any) -> str:
    path = str(args["file_path"])
    if name == "write_file":
        await files.write(host, str(args.get("content") or ""))
        return f"Updated file {path}"
    content = await files.read(host)
    if name == "read_file":
        from deepagents.backends.utils import format_content_with_line_numbers

        offset, limit = int(args.get("offset") or 0), int(args.get("limit") or DEFAULT_LIMIT)
        lines = content.splitlines()[offset : offset + limit]
        return format_content_with_line_numbers(lines, offset + 1) if lines else "(empty file)"
    old, new, every = (
        str(args.get("old_string") or ""),
        str(args.get("new_string") or ""),
        args.get("replace_all"),
    )
    count = content.count(old) if old else 0
    if count == 0:
        raise ValueError(f"String not found in file {path}: {old[:80]!r}")
    if count > 1 and not every:
        raise ValueError(f"{old[:80]!r} appears {count} times in {path}; give more context or replace_all")
    await files.write(host, content.replace(old, new, -1 if every else 1))
    return f"Successfully replaced {count if every else 1} instance(s) of the string in '{path}'"
