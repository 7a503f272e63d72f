"""edit_file's staleness is per conversation thread: a file read in one thread and changed since
is refused there, while another thread that never read it edits it (and two agent graphs never
share what they read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.tools import ToolRuntime

from auger.core.backends.project_files import ProjectFiles
from auger.core.middleware.history_scans import RememberedFilesystem


def runtime(thread: str) -> ToolRuntime[Any, Any]:
    config: Any = {"configurable": {"thread_id": thread}}
    return ToolRuntime(
        state={}, context=None, config=config, stream_writer=lambda _: None, tool_call_id="c", store=None
    )


def tools(root: Path) -> dict[str, Any]:
    fs = RememberedFilesystem(backend=ProjectFiles(root_dir=root, virtual_mode=True))
    return {tool.name: tool for tool in fs.tools}


def edit(tool: Any, thread: str, old: str, new: str) -> str:
    return str(tool.func(file_path="/a.py", old_string=old, new_string=new, runtime=runtime(thread)).content)


def test_a_stale_edit_is_refused_only_in_the_thread_that_read_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    mine, other_graph = tools(tmp_path), tools(tmp_path)
    assert "x = 1" in str(mine["read_file"].func(file_path="/a.py", runtime=runtime("one")).content)
    (tmp_path / "a.py").write_text("x = 22\n")  # changed on disk after thread one read it
    assert edit(mine["edit_file"], "two", "x = 22", "x = 3").startswith("Successfully replaced 1")
    assert edit(other_graph["edit_file"], "one", "x = 3", "x = 4").startswith("Successfully replaced 1")
    refused = edit(mine["edit_file"], "one", "x = 4", "x = 5")
    assert refused.startswith("Error: '/a.py' changed on disk since you last read it"), refused
    assert "x = 4" in refused and (tmp_path / "a.py").read_text() == "x = 4\n"
    assert edit(mine["edit_file"], "one", "x = 4", "x = 5").startswith("Successfully")  # it has seen it now
