"""ClientToolsMiddleware: tools the front end runs, when it offers to — an editor over ACP.

* `TurnOptions.files` (`ClientFiles`): `read_file`, `write_file` and `edit_file` on a project path
  (not a mount such as `/~auger/`) read `files.read(host_path)` and write
  `files.write(host_path, text)` instead of the disk, so the agent sees unsaved buffers and the
  editor applies — and can review — the writes.
* `TurnOptions.terminal` (`ClientTerminal`): `execute` runs in the editor's terminal, in the
  project folder (the ACP front end offers it only without the sandbox).

Results read like the backend's own ("Updated file /x", numbered lines, "[Command succeeded
with exit code 0]" with the exit code in the artifact). Everything else, and every call when the
front end offers nothing, runs as usual. It is the innermost tool middleware, so hooks,
permission rules, redaction and truthful results apply exactly as for the backend's tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage

ROUTED = frozenset({"read_file", "write_file", "edit_file"})
DEFAULT_LIMIT = 2000  # lines, as the backend's read_file


class ClientToolsMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request)  # a synchronous run has no front end to hand tools to

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        ctx = getattr(request.runtime, "context", None)
        call = request.tool_call
        name, call_id = call.get("name"), str(call.get("id") or "")
        args = dict(call.get("args") or {})
        paths = getattr(getattr(ctx, "permissions", None), "paths", None)
        terminal = getattr(ctx, "terminal", None)
        if name == "execute" and terminal is not None and paths is not None and not args.get("background"):
            return await _execute(terminal, args, str(paths.root), call_id)
        files = getattr(ctx, "files", None)
        if files is None or name not in ROUTED or paths is None:
            return await handler(request)
        path = str(args.get("file_path") or "")
        found = paths.route(path)
        if found is None or found[0] is not None:  # a mount, or a path the file tools refuse
            return await handler(request)
        text = await _run(str(name), args, paths.host(path), files)
        return ToolMessage(text, tool_call_id=call_id, name=name)


async def _execute(terminal: Any, args: dict[str, Any], cwd: str, call_id: str) -> ToolMessage:
    timeout = args.get("timeout")
    done = await terminal.run(
        str(args.get("command") or ""), cwd, call_id, float(timeout) if timeout else None
    )
    parts = [done.output]
    if done.exit_code is not None:
        parts.append(
            f"\n[Command {'succeeded' if done.exit_code == 0 else 'failed'} with exit code {done.exit_code}]"
        )
    else:
        parts.append("\n[Command timed out and was stopped]")
    if done.truncated:
        parts.append("\n[Output was truncated due to size limits]")
    artifact = {
        "exit_code": done.exit_code if done.exit_code is not None else -1,
        "truncated": done.truncated,
    }
    return ToolMessage("".join(parts), tool_call_id=call_id, name="execute", artifact=artifact)


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
