"""auger's `grep` tool: a regex, context lines and a file type, and output that stays small.

deepagents' grep tool takes a literal text and offers neither context nor a type filter. This
one keeps its name and its arguments (pattern, path, glob, output_mode) and adds `type` and
`context`; the backends search with `auger.core.backends.search` (ripgrep, ignore files honoured).
The answer shows at most `SHOW_LINES` lines and `SHOW_BYTES` bytes, then says how much more
there is and to narrow the search. A backend without those keywords (a provider's sandbox) gets
the type as a glob and no context.
"""

from __future__ import annotations

from typing import Any, Literal

from deepagents.backends.protocol import GrepResult
from deepagents.backends.utils import format_grep_matches
from deepagents.middleware.filesystem import (
    _filter_grep_matches_by_permission,
    _permission_error,
    validate_path,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from auger.core.backends.search import takes_query

SHOW_LINES, SHOW_BYTES = 300, 20_000
NARROW = "narrow the pattern, path, glob or type"
Mode = Literal["files_with_matches", "content", "count"]


class GrepArgs(BaseModel):
    pattern: str = Field(description="Regex (ripgrep syntax), e.g. `TODO|FIXME`.")
    path: str | None = Field(default=None, description="Folder or file; default: the project.")
    glob: str | None = Field(default=None, description="Only files matching it, e.g. `*.py`.")
    type: str | None = Field(default=None, description="Only files of a type: py, js, rust...")
    context: int = Field(default=0, ge=0, le=20, description="Lines shown around each match.")
    output_mode: Mode = Field(
        default="files_with_matches", description="files_with_matches, content or count."
    )


def render(result: GrepResult, mode: Mode) -> tuple[str, bool]:
    """The tool's text for `result` and whether it is an error."""
    matches = result.matches or []
    if result.error and not matches:
        return result.error, True
    lines = format_grep_matches(matches, mode).splitlines()
    kept, size = 0, 0
    for kept, line in enumerate(lines):
        size += len(line.encode()) + 1
        if kept >= SHOW_LINES or size > SHOW_BYTES:
            break
    else:
        kept = len(lines)
    notes = [f"{len(lines) - kept} more lines not shown"] if kept < len(lines) else []
    more, cut = getattr(result, "more", 0), getattr(result, "more_cut", False)
    if more:
        notes.append(f"{more}{'+' if cut else ''} more matches not listed")
    elif result.truncated:
        notes.append("the search stopped early (time or size limit)")
    text = "\n".join(lines[:kept])
    if notes:
        text += f"\n[{'; '.join(notes)}: {NARROW}]"
    if result.error:
        text = f"{result.error}\n\nPartial matches:\n{text}"
    return text, False


def _search(backend: Any, args: GrepArgs, limit: int | None) -> GrepResult:
    grep = backend.grep
    if takes_query(grep):
        kw: dict[str, Any] = {"max_count": limit, "context_lines": args.context, "file_type": args.type}
        return grep(args.pattern, args.path, args.glob, **kw)  # type: ignore[no-any-return]
    glob = args.glob or (f"*.{args.type}" if args.type else None)
    return grep(args.pattern, args.path, glob, max_count=limit)  # type: ignore[no-any-return]


def grep_tool(fs: Any) -> BaseTool:
    """The `grep` tool of the FilesystemMiddleware `fs` (its backend, permissions and match cap)."""

    def run(runtime: ToolRuntime[None, Any], **kw: Any) -> ToolMessage:
        args = GrepArgs(**kw)
        if args.path is not None:
            try:
                args.path = validate_path(args.path)
            except ValueError as exc:
                return ToolMessage(
                    f"Error: {exc}", name="grep", tool_call_id=runtime.tool_call_id, status="error"
                )
            if (refused := _permission_error(fs._permissions, "read", fs.backend, args.path)) is not None:
                return ToolMessage(refused, name="grep", tool_call_id=runtime.tool_call_id, status="error")
        result = _search(fs.backend, args, fs._grep_max_count)
        if result.matches:
            result.matches = _filter_grep_matches_by_permission(
                fs._permissions, result.matches, operation="read", backend=fs.backend
            )
        text, error = render(result, args.output_mode)
        status = "error" if error else "success"
        return ToolMessage(text, name="grep", tool_call_id=runtime.tool_call_id, status=status)

    async def arun(runtime: ToolRuntime[None, Any], **kw: Any) -> ToolMessage:
        import asyncio

        return await asyncio.to_thread(run, runtime, **kw)

    return StructuredTool.from_function(
        name="grep",
        description=fs._custom_tool_descriptions.get("grep") or "Search file contents for a regex.",
        func=run,
        coroutine=arun,
        infer_schema=False,
        args_schema=GrepArgs,
    )
