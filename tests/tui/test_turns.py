"""Pilot tests: a turn end to end through the real Session and the scripted server."""

from __future__ import annotations

from conftest_tui import Tui, ready, replies, send_nowait, tui, turn, wait_for  # noqa: F401
from textual.widgets import Collapsible

from auger.tui.widgets.diffview import DiffView
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.messages import AssistantMessage, Notice, UserMessage
from auger.tui.widgets.todos import TodoPanel
from auger.tui.widgets.tool_row import TaskGroup, ToolRow

REPLY = "# Plan\n\nHello **world**.\n\n```python\nprint('hi')\n```\n"


async def test_streamed_reply_renders_markdown_with_code(tui: Tui) -> None:
    tui.llm.add({"reasoning": "The user greets me.", "text": REPLY})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "say hello")
        assert [m.text for m in app.transcript.query(UserMessage)] == ["say hello"]
        assert replies(app) == [REPLY]
        message = app.transcript.query_one(AssistantMessage)
        assert message.source == REPLY  # everything streamed reached the widget
        lines = [line for segment in message.query(MarkdownLines) for line in segment.lines]
        code = next(line for line in lines if "print('hi')" in line.plain)  # the code block, highlighted
        assert len(code.spans) > 1 and "Hello world." in [line.plain for line in lines]
        reasoning = app.transcript.query_one(Collapsible)
        assert reasoning.collapsed and reasoning.title.startswith("Thought for")
        assert "The user greets me." in reasoning.body.text
        assert app.facts.last_reply == REPLY.strip()
        assert app.status.context_tokens > 0


async def test_tool_rows_show_diff_command_exit_code_and_expand(tui: Tui) -> None:
    tui.llm.add(
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.py", "content": "x = 1\ny = 2\n"}}]},
        {"tool_calls": [{"name": "execute", "args": {"command": "python3 a.py; echo done; exit 3"}}]},
        {"text": "Finished."},
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "write and run")
        rows = list(app.transcript.query(ToolRow))
        assert [r.tool_name for r in rows] == ["write_file", "execute"]
        write, run = rows
        assert write.status == "success" and write.has_class("-expanded")
        diff = write.query_one(DiffView)
        assert [(d.kind, d.text) for d in diff.lines] == [("add", "x = 1"), ("add", "y = 2")]
        assert "+2 -0" in write.meta()
        assert run.status in ("success", "error") and "exit 3" in run.meta()
        assert run.summary.startswith("$ python3 a.py")
        assert not run.has_class("-expanded")
        run.focus()
        await pilot.press("enter")
        assert run.has_class("-expanded")
        assert "done" in str(run.query_one(".output").render())
        assert (tui.env.project / "a.py").read_text() == "x = 1\ny = 2\n"
        assert replies(app)[-1] == "Finished."


async def test_subagent_work_is_grouped_under_its_task_row(tui: Tui) -> None:
    tui.llm.add(
        {
            "tool_calls": [
                {"name": "task", "args": {"description": "look around", "subagent_type": "general-purpose"}}
            ]
        },
        {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        {"text": "sub result"},
        {"text": "All done."},
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "delegate")
        group = app.transcript.query_one(TaskGroup)
        assert group.status == "success"
        inner = list(group.body.query(ToolRow))
        assert [r.tool_name for r in inner] == ["ls"]
        assert [m.text for m in group.body.query(AssistantMessage)] == ["sub result"]
        assert "1 tool calls" in group.meta()
        top_level = [r.tool_name for r in app.transcript.children if isinstance(r, ToolRow)]
        assert top_level == ["task"]
        assert replies(app)[-1] == "All done."


async def test_todo_panel_follows_write_todos(tui: Tui) -> None:
    todos = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Fix the bug", "status": "in_progress"},
        {"content": "Run the tests", "status": "pending"},
    ]
    tui.llm.add({"tool_calls": [{"name": "write_todos", "args": {"todos": todos}}]}, {"text": "Planned."})
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert app.query_one(TodoPanel).has_class("-empty")
        await turn(pilot, "plan it")
        panel = app.query_one(TodoPanel)
        assert not panel.has_class("-empty")
        text = str(panel.render())
        assert "Todos 1/3" in text and "☑ Read the code" in text and "◐ Fix the bug" in text


async def test_escape_interrupts_and_keeps_the_partial_answer(tui: Tui) -> None:
    tui.llm.add({"text": "Start of a long answer. ", "text_tokens": 20000, "rate": 400})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        send_nowait(app, "write a lot")
        await wait_for(pilot, lambda: len("".join(replies(app))) > 200)
        assert app.busy
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        assert not app.busy
        partial = replies(app)[0]
        assert partial.startswith("Start of a long answer.") and len(partial) < 20000 * 5
        notices = [str(n.render()) for n in app.transcript.query(Notice)]
        assert any("cancelled" in n.lower() for n in notices)
        # Esc does nothing once idle (the binding is only live during a turn)
        assert app.check_action("cancel", ()) is False


async def test_context_meter_counts_an_interrupted_turn(tui: Tui) -> None:
    tui.llm.add(
        {"text": "short", "prompt_tokens": 1000}, {"text": "Long. ", "text_tokens": 20000, "rate": 400}
    )
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "first")
        assert app.status.context_tokens == 1002  # the provider's report: prompt + reply
        send_nowait(app, "write a lot")
        await wait_for(pilot, lambda: len("".join(replies(app))) > 2000)
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert app.status.context_tokens > 1002 + 2000 // 5  # the prompt and the partial answer count
        counted = app.status.context_tokens
        thread = app.session.thread_id  # type: ignore[union-attr]
    resumed = tui.app(thread_id=thread)
    async with resumed.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert resumed.status.context_tokens == counted


async def test_error_from_the_provider_is_one_line(tui: Tui) -> None:
    tui.llm.add({"error": 401, "message": "bad key", "repeat": True})
    app = tui.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "hi")
        errors = [str(n.render()) for n in app.transcript.query(Notice) if n.has_class("-error")]
        assert len(errors) == 1 and ("401" in errors[0] or "key" in errors[0].lower())
        assert not app.busy
