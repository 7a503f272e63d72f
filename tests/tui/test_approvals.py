"""Approvals inline in the transcript: y, n (+ message), a (always), Esc."""

from __future__ import annotations

import json

from conftest_tui import Tui, ready, replies, submit, tui, turn, wait_for, write_skill  # noqa: F401
from textual.widgets import Static

from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.diffview import DiffView
from auger.tui.widgets.messages import AssistantMessage
from auger.tui.widgets.tool_row import ToolRow

WRITE = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.py", "content": "x = 1\n"}}]}
SRC_A = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/src/a.py", "content": "x = 1\n"}}]}
SRC_B = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/src/b.py", "content": "y = 2\n"}}]}
RUN = {"tool_calls": [{"name": "execute", "args": {"command": "echo approved-run"}}]}


async def _approval(pilot, app) -> ApprovalPrompt:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt))
    prompt = app.transcript.query_one(ApprovalPrompt)
    await wait_for(pilot, lambda: prompt.has_focus)
    return prompt


def _tool_messages(tui: Tui) -> list[str]:
    return [str(m["content"]) for m in tui.llm.requests[-1]["messages"] if m["role"] == "tool"]


async def test_y_approves_a_file_write_shown_as_a_diff(tui: Tui) -> None:
    tui.llm.add(WRITE, {"text": "Wrote it."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a.py")
        prompt = await _approval(pilot, app)
        assert [(d.kind, d.text) for d in prompt.query_one(DiffView).lines] == [("add", "x = 1")]
        assert app.status.activity == "waiting for you"
        await pilot.press("y")
        await app.workers.wait_for_complete()
        assert (tui.env.project / "a.py").read_text() == "x = 1\n"
        row = app.transcript.query_one(ToolRow)
        assert row.status == "success" and "approved" in row.meta()
        assert not app.transcript.query(ApprovalPrompt)  # the question gives way to the row
        assert replies(app)[-1] == "Wrote it."
        assert app.focused is app.prompt


async def test_n_rejects_with_a_message_the_agent_reads(tui: Tui) -> None:
    tui.llm.add(RUN, {"text": "OK, I will not."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        prompt = await _approval(pilot, app)
        assert "$ echo approved-run" in str(prompt.query_one(".command").render())
        await pilot.press("n")
        await pilot.press(*"use make instead")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        row = app.transcript.query_one(ToolRow)
        assert row.status == "rejected" and "rejected: use make instead" in row.meta()
        assert any("use make instead" in t for t in _tool_messages(tui))
        assert replies(app)[-1] == "OK, I will not."


async def test_escape_rejects_without_running(tui: Tui) -> None:
    tui.llm.add(RUN, {"text": "Skipped."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        await _approval(pilot, app)
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        assert app.transcript.query_one(ToolRow).status == "rejected"
        assert not any("approved-run\n" in t for t in _tool_messages(tui))
        assert not app.busy  # Esc answered the question; it did not cancel the turn
        assert replies(app)[-1] == "Skipped."


async def test_a_always_allows_the_tool_for_the_thread(tui: Tui) -> None:
    tui.llm.add(SRC_A, SRC_B, {"text": "Both written."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write two files")
        prompt = await _approval(pilot, app)
        assert prompt.rule == "write_file(src/**)"  # the core's rule for this call: files in src/
        assert "a always allow write_file(src/**)" in str(prompt.query_one(".hint").render())
        await pilot.press("a")
        await app.workers.wait_for_complete()
        assert (tui.env.project / "src/a.py").exists() and (tui.env.project / "src/b.py").exists()
        rows = list(app.transcript.query(ToolRow))
        assert [r.status for r in rows] == ["success", "success"]
        assert "always allowed write_file(src/**)" in rows[0].meta()
        assert rows[1].decision == ""  # no second question
        assert json.dumps(tui.llm.requests[-1]).count("write_file") >= 2


async def test_shift_a_saves_the_rule_to_the_project_or_user_config(tui: Tui) -> None:
    import tomllib

    from auger.tui.widgets.messages import Notice

    tui.llm.add(SRC_A, {"text": "Saved."}, RUN, {"text": "Again."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a")
        prompt = await _approval(pilot, app)
        assert "A and save it" in str(prompt.query_one(".hint").render())
        await pilot.press("A")
        assert "p project config" in str(prompt.query_one(".hint").render())
        await pilot.press("escape")  # backs out of the question: nothing decided yet
        assert not prompt.resolved
        await pilot.press("A", "p")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        saved = tomllib.loads((tui.env.project / ".auger" / "config.toml").read_text())
        assert saved["permissions"]["allow"] == ["write_file(src/**)"]
        shown = [str(n.render()) for n in app.transcript.query(Notice)]
        assert any("Added allow rule" in text and "config.toml" in text for text in shown)
        await submit(pilot, "run it")
        prompt = await _approval(pilot, app)
        rule = prompt.rule
        await pilot.press("A", "u")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        user = tomllib.loads((tui.env.home / "config.toml").read_text())
        assert user["permissions"]["allow"] == [rule]
        assert (tui.env.project / ".auger" / "config.toml").read_text().count("execute") == 0


async def test_two_approvals_of_one_step_the_status_follows_each(tui: Tui) -> None:
    """The core asks for a step's calls one after the other: waiting, working, waiting, idle."""
    both = {"tool_calls": [*SRC_A["tool_calls"], *SRC_B["tool_calls"]]}
    tui.llm.add(both, {"text": "Wrote both."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a and b")
        first = await _approval(pilot, app)
        assert app.status.activity == "waiting for you" and app.state.asking == 1
        first.action_approve()
        await wait_for(pilot, lambda: [p for p in app.transcript.query(ApprovalPrompt) if p is not first])
        await wait_for(pilot, lambda: app.status.activity == "waiting for you")
        assert app.state.asking == 1  # the first was answered, the second asks
        app.transcript.query(ApprovalPrompt).last().action_approve()
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert replies(app)[-1] == "Wrote both."
        assert (tui.env.project / "src" / "b.py").read_text() == "y = 2\n"
        assert app.status.activity == "" and app.state.ready


async def test_keys_typed_as_the_approval_appears_stay_in_the_prompt(tui: Tui) -> None:
    """The user types the next thought, one key per 100 ms, while the approval appears: the `a` of
    "about" does not always-allow the write, the prompt keeps every letter; then `y` answers it."""
    tui.llm.add(WRITE, {"text": "Wrote it."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a.py")
        text, first_seen = "about the parser", None  # the key typed when the approval was first there
        for i, key in enumerate(text):
            if first_seen is None and app.transcript.query(ApprovalPrompt):
                first_seen = i
            await pilot.press(key)
            await pilot.pause(0.1)  # the pace of typing, not a wait for anything
        assert first_seen is not None and first_seen < len(text) - 5
        assert not (tui.env.project / "a.py").exists()
        assert app.prompt.text == text
        prompt = app.transcript.query_one(ApprovalPrompt)
        assert not prompt.resolved
        await wait_for(pilot, lambda: prompt.has_focus)  # the user stopped typing: now it takes keys
        await pilot.press("y")
        await app.workers.wait_for_complete()
        assert (tui.env.project / "a.py").read_text() == "x = 1\n"
        assert app.transcript.query_one(ToolRow).status == "success"
        assert app.prompt.text == "about the parser" and app.focused is app.prompt


def _in_view(transcript, block, *, top_line: bool = False) -> bool:  # type: ignore[no-untyped-def]
    """Some of `block` (a transcript child) is on screen; `top_line`: its first line is."""
    top, region = transcript.scroll_y, block.virtual_region
    bottom = top + transcript.scrollable_content_region.height
    return top <= region.y < bottom if top_line else region.y < bottom and region.bottom > top


async def test_an_approval_and_its_answer_keep_the_live_turn_in_view(tui: Tui) -> None:
    await _keeps_the_live_turn_in_view(tui, scrolled=False)


async def test_an_approval_keeps_the_live_turn_in_view_after_scrolling_up(tui: Tui) -> None:
    await _keeps_the_live_turn_in_view(tui, scrolled=True)


async def _keeps_the_live_turn_in_view(tui: Tui, scrolled: bool) -> None:
    """An earlier turn's tool row and a `/skills` table above: the approval shows where the turn is,
    and answering it leaves the view on the turn's end (it used to jump to that old row, at the top),
    whether or not the user had scrolled up to read the table."""
    for i in range(12):
        write_skill(tui.env.project, f"skill-{i}", f"Does thing number {i} for the tests", "body")
    big = "".join(f"line_{i} = {i}\n" for i in range(60))
    write = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/big.py", "content": big}}]}
    ls = {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}
    tui.llm.add(ls, {"text": "Listed."}, write, {"text": "Final answer here."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "look around")
        await turn(pilot, "/skills")
        t = app.transcript
        if scrolled:
            t.scroll_to(y=t.max_scroll_y - 30, animate=False)  # as the mouse wheel does
            await wait_for(pilot, lambda: t.scroll_y < t.max_scroll_y - 20)
        await submit(pilot, "write big.py")
        prompt = await _approval(pilot, app)
        await wait_for(pilot, lambda: _in_view(t, prompt, top_line=True))
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: replies(app)[-1] == "Final answer here.")
        answer = t.query(AssistantMessage).last()
        await wait_for(pilot, lambda: t.scroll_y == t.max_scroll_y and _in_view(t, answer))
        assert app.focused is app.prompt


async def test_the_approval_names_the_command_once_and_says_why(tui: Tui) -> None:
    tui.llm.add(RUN, {"text": "Ran."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        prompt = await _approval(pilot, app)
        shown = [str(s.render()) for s in prompt.query(Static) if not s.has_class("hint")]
        assert sum(text.count("echo approved-run") for text in shown) == 1, shown
        assert shown[0] == "Allow execute?" and "$ echo approved-run" in shown
        assert "Asked because: mode 'manual' asks before execute." in shown


async def test_an_approved_rows_duration_leaves_out_the_time_spent_deciding(tui: Tui) -> None:
    tui.llm.add(RUN, {"text": "Ran."})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        await _approval(pilot, app)
        await pilot.pause(1.5)  # the user reads the command before answering
        await pilot.press("y")
        await app.workers.wait_for_complete()
        row = app.transcript.query_one(ToolRow)
        assert row.status == "success" and row.duration_ms is not None
        assert row.duration_ms < 1000, row.meta()  # `echo` takes milliseconds; the 1.5 s were the user's
