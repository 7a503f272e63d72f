"""Diffs of file edits: whole lines with indentation, context and the file's line numbers."""

from __future__ import annotations

from pathlib import Path

from conftest_tui import Tui, ready, submit, tui, wait_for  # noqa: F401

from auger.tui.diffs import tool_diff
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.diffview import DiffView

SOURCE = "".join(f"line {i}\n" for i in range(1, 31)) + "def main():\n    print('hello')\n    return 0\n"
EDIT = {"file_path": "/app.py", "old_string": "print('hello')", "new_string": "print('hello, world')"}


def rows(lines) -> list[tuple[str, int | None, str]]:  # type: ignore[no-untyped-def]
    return [(d.kind, d.number, d.text) for d in lines]


def test_an_edit_of_part_of_a_line_shows_whole_lines_with_context_and_numbers(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(SOURCE)
    diff = tool_diff("edit_file", EDIT, tmp_path)
    assert rows(diff) == [
        ("ctx", 29, "line 29"),
        ("ctx", 30, "line 30"),
        ("ctx", 31, "def main():"),
        ("del", 32, "    print('hello')"),
        ("add", 32, "    print('hello, world')"),
        ("ctx", 33, "    return 0"),
    ]
    # the same call shown again after it ran (a resumed thread): the same diff, from the edited file
    (tmp_path / "app.py").write_text(SOURCE.replace("print('hello')", "print('hello, world')"))
    assert rows(tool_diff("edit_file", EDIT, tmp_path, applied=True)) == rows(diff)


def test_without_the_file_the_call_alone_gives_the_diff(tmp_path: Path) -> None:
    """A remote session (the file is on the server) or a file changed since: no numbers."""
    diff = tool_diff("edit_file", {**EDIT, "old_string": "a\n    b\n", "new_string": "a\n    c\n"}, tmp_path)
    assert rows(diff) == [("ctx", None, "a"), ("del", None, "    b"), ("add", None, "    c")]


def test_replace_all_and_a_write_over_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\nb = a\nc = a\n")
    every = tool_diff(
        "edit_file",
        {"file_path": "/x.py", "old_string": "a", "new_string": "z", "replace_all": True},
        tmp_path,
    )
    assert [d.text for d in every if d.kind == "add"] == ["z = 1", "b = z", "c = z"]
    write = tool_diff("write_file", {"file_path": "/x.py", "content": "a = 1\nb = 2\nc = a\n"}, tmp_path)
    assert rows(write) == [("ctx", 1, "a = 1"), ("del", 2, "b = a"), ("add", 2, "b = 2"), ("ctx", 3, "c = a")]


async def test_the_approval_shows_the_edit_in_its_file_and_folds_a_long_one(tui: Tui) -> None:
    (tui.env.project / "app.py").write_text(SOURCE)
    big_old = "".join(f"line {i}\n" for i in range(1, 31))
    tui.llm.add(
        {"tool_calls": [{"name": "edit_file", "args": EDIT}]},
        {"text": "Done."},
        {
            "tool_calls": [
                {"name": "edit_file", "args": {**EDIT, "old_string": big_old, "new_string": big_old.upper()}}
            ]
        },
    )
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "greet the world")
        await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt))
        approval = app.transcript.query_one(ApprovalPrompt)
        await wait_for(pilot, lambda: approval.has_focus)  # else "y" may land in the input box
        view = approval.query_one(DiffView)
        shown = str(view.render()).splitlines()
        assert "32 -     print('hello')" in shown and "32 +     print('hello, world')" in shown
        assert "31   def main():" in shown  # context, numbered
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await submit(pilot, "shout the first lines")
        await wait_for(pilot, lambda: len(app.transcript.query(ApprovalPrompt)) == 1)
        view = app.transcript.query_one(ApprovalPrompt).query_one(DiffView)
        assert view.folded == len(view.lines) - view.max_lines > 0
        assert f"… {view.folded} more lines" in str(view.render())
        await pilot.click(view, offset=(2, view.max_lines))
        assert view.folded == 0 and "LINE 30" in str(view.render())
