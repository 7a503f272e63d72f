"""edit_file that refuses a stale edit and shows what it changed.

`ReadStamps` remembers, per conversation thread and path, the file's stamp (`stamp()` of auger's
backends: modification time and size) when read_file or write_file last succeeded on it; it lives
on the filesystem middleware of one agent graph, never in a module global. `edit_tool` is
deepagents' edit_file (same name, text and arguments) that refuses to edit a file whose stamp has
changed since then and shows its current text around `old_string` instead; on success it shows
the changed lines with a few around them (`auger.core.backends.editing`). `stamping` wraps
read_file and write_file to record the stamps. A backend without `stamp` (a provider's sandbox)
is never called stale.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from deepagents.backends.protocol import EditResult
from deepagents.middleware.filesystem import _permission_error, validate_path
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from auger.core.backends.editing import numbered

KEPT = 4096  # stamps remembered per graph (the oldest forgotten first)
EXCERPT_LINES, EXCERPT_BYTES = 20, 4 * 1024 * 1024


class ReadStamps:
    def __init__(self) -> None:
        self._stamps: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> str | None:
        with self._lock:
            return self._stamps.get(key)

    def put(self, key: tuple[str, str], stamp: str | None) -> None:
        with self._lock:
            self._stamps.pop(key, None)
            if stamp is not None:
                self._stamps[key] = stamp
                while len(self._stamps) > KEPT:
                    self._stamps.popitem(last=False)


def _key(runtime: Any, path: str) -> tuple[str, str]:
    configurable = (getattr(runtime, "config", None) or {}).get("configurable") or {}
    return str(configurable.get("thread_id", "")), path


def _stamp(backend: Any, path: str) -> str | None:
    stamp = getattr(backend, "stamp", None)
    return stamp(path) if stamp is not None else None  # type: ignore[no-any-return]


def stamping(fs: Any, tool: BaseTool) -> BaseTool:
    """`tool` (read_file or write_file), recording the file's stamp after each success."""
    func, coroutine = getattr(tool, "func", None), getattr(tool, "coroutine", None)
    if func is None or coroutine is None:
        return tool

    def record(runtime: Any, kw: dict[str, Any], result: Any) -> Any:
        if getattr(result, "status", "success") != "error" and isinstance(kw.get("file_path"), str):
            try:
                path = validate_path(kw["file_path"])
            except ValueError:
                return result
            fs.read_stamps.put(_key(runtime, path), _stamp(fs.backend, path))
        return result

    def run(runtime: ToolRuntime[None, Any], **kw: Any) -> Any:
        return record(runtime, kw, func(runtime=runtime, **kw))

    async def arun(runtime: ToolRuntime[None, Any], **kw: Any) -> Any:
        return record(runtime, kw, await coroutine(runtime=runtime, **kw))

    return tool.model_copy(update={"func": run, "coroutine": arun})


def _excerpt(backend: Any, path: str, old: str, stamp: str) -> str:
    """The file's current lines around `old`'s first line (or its first lines)."""
    if int(stamp.rpartition(":")[2]) > EXCERPT_BYTES:
        return "(a large file: read_file it)"
    [got] = backend.download_files([path])
    if got.error or got.content is None:
        return f"(cannot show it: {got.error})"
    text = got.content.decode("utf-8", "replace")
    first = next((line.strip() for line in old.splitlines() if line.strip()), "")
    at = next((i for i, line in enumerate(text.split("\n"), 1) if first and first in line), 1)
    return numbered(text, at - 3, EXCERPT_LINES)


def edit_tool(fs: Any, sdk_tool: BaseTool) -> BaseTool:
    """deepagents' edit_file `sdk_tool` (its text and arguments) refusing stale edits, showing the change."""

    def message(runtime: Any, text: str, error: bool) -> ToolMessage:
        status = "error" if error else "success"
        return ToolMessage(text, name="edit_file", tool_call_id=runtime.tool_call_id, status=status)

    def run(
        file_path: str,
        old_string: str,
        new_string: str,
        runtime: ToolRuntime[None, Any],
        replace_all: bool = False,
    ) -> ToolMessage:
        try:
            path = validate_path(file_path)
        except ValueError as exc:
            return message(runtime, f"Error: {exc}", True)
        if (refused := _permission_error(fs._permissions, "write", fs.backend, path)) is not None:
            return message(runtime, refused, True)
        key, now = _key(runtime, path), _stamp(fs.backend, path)
        seen = fs.read_stamps.get(key)
        if seen is not None and now is not None and seen != now:
            fs.read_stamps.put(key, now)  # the model sees the current text now
            return message(
                runtime,
                f"Error: '{path}' changed on disk since you last read it; nothing was edited. "
                f"It now reads:\n{_excerpt(fs.backend, path, old_string, now)}\n"
                "Make the edit against the current text (read_file shows more).",
                True,
            )
        result: EditResult = fs.backend.edit(path, old_string, new_string, replace_all=replace_all)
        if result.error:
            return message(runtime, result.error, True)
        fs.read_stamps.put(key, _stamp(fs.backend, path))
        text = f"Successfully replaced {result.occurrences} instance(s) of the string in '{result.path}'"
        excerpt = getattr(result, "excerpt", None)
        return message(runtime, f"{text}. It now reads:\n{excerpt}" if excerpt else text, False)

    async def arun(
        file_path: str,
        old_string: str,
        new_string: str,
        runtime: ToolRuntime[None, Any],
        replace_all: bool = False,
    ) -> ToolMessage:
        import asyncio

        return await asyncio.to_thread(run, file_path, old_string, new_string, runtime, replace_all)

    return StructuredTool.from_function(
        name="edit_file",
        description=sdk_tool.description,
        func=run,
        coroutine=arun,
        infer_schema=False,
        args_schema=sdk_tool.args_schema,
    )
