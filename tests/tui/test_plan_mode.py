"""Plan mode in the TUI: the plan the agent presents is an inline approval rendered as markdown;
accepting it switches the mode and the agent goes on in the same turn, in that mode; "keep
planning" sends the user's feedback to the model."""

from __future__ import annotations

from typing import Any

from conftest_tui import Tui, ready, replies, submit, tui, wait_for  # noqa: F401

from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.markdown_view import MarkdownLines
from auger.tui.widgets.plan_approval import PlanApproval

PLAN = "# Plan\n\n1. Write `/a.py` with `x = 1`.\n2. Run the tests."
REVISED = "# Plan v2\n\n1. Write `/a.py` with pathlib."


def present(plan: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "present_plan", "args": {"plan": plan}}]}


WRITE = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.py", "content": "x = 1\n"}}]}


def offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


async def _plan(pilot, app) -> PlanApproval:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: [p for p in app.transcript.query(PlanApproval) if not p.resolved])
    prompt = [p for p in app.transcript.query(PlanApproval) if not p.resolved][-1]
    await wait_for(pilot, lambda: prompt.has_focus)
    return prompt


async def test_accepting_a_plan_goes_on_in_auto_edit_in_the_same_turn(tui: Tui) -> None:
    tui.llm.add(present(PLAN), WRITE, {"text": "Done as planned."})
    app = tui.app(mode="plan")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert app.status.mode == "plan"
        await submit(pilot, "add a.py")
        prompt = await _plan(pilot, app)
        shown = "\n".join(line.plain for line in prompt.query_one(MarkdownLines).lines)
        assert "Plan" in shown and "Write /a.py with x = 1" in shown and "# Plan" not in shown  # rendered
        assert not (tui.env.project / "a.py").exists()
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert (tui.env.project / "a.py").read_text() == "x = 1\n"  # auto-edit: written, not asked
        assert not [p for p in app.transcript.query(ApprovalPrompt) if not isinstance(p, PlanApproval)]
        assert app.settings.mode == "auto-edit" and app.status.mode == "auto-edit"
        assert "plan accepted: going on in auto-edit mode" in str(prompt.query_one(".hint").render())
        first, after = tui.llm.requests[0], tui.llm.requests[1]
        assert "write_file" not in offered(first) and "write_file" in offered(after)
        assert "present_plan" not in offered(after)
        assert any("accepted the plan" in t and "auto-edit" in t for t in tool_messages(after))
        assert replies(app)[-1] == "Done as planned."
        assert len(tui.llm.requests) == 3  # one turn: plan, write, reply


async def test_keep_planning_sends_the_feedback_and_accepting_manual_then_asks(tui: Tui) -> None:
    tui.llm.add(present(PLAN), present(REVISED), WRITE, {"text": "Written."})
    app = tui.app(mode="plan")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a.py")
        await _plan(pilot, app)
        await pilot.press("n")
        await pilot.press(*"use pathlib")
        await pilot.press("enter")
        revised = await _plan(pilot, app)
        assert any("use pathlib" in t for t in tool_messages(tui.llm.requests[1]))
        assert app.settings.mode == "plan"  # still planning
        assert "Plan v2" in "\n".join(line.plain for line in revised.query_one(MarkdownLines).lines)
        await pilot.press("y")  # accept, manual: the write that follows asks
        await wait_for(
            pilot, lambda: [p for p in app.transcript.query(ApprovalPrompt) if p.request.name == "write_file"]
        )
        [write] = [p for p in app.transcript.query(ApprovalPrompt) if p.request.name == "write_file"]
        assert app.settings.mode == "manual" and app.status.mode == "manual"
        assert not (tui.env.project / "a.py").exists()
        await wait_for(pilot, lambda: write.has_focus)  # the key goes to the question, not the prompt
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert (tui.env.project / "a.py").read_text() == "x = 1\n"
        assert replies(app)[-1] == "Written."


async def test_a_rule_granted_earlier_in_the_thread_does_not_accept_a_plan(tui: Tui) -> None:
    tui.llm.add(WRITE, {"text": "Written."}, present(PLAN), {"text": "unused"})
    app = tui.app(mode="manual")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a.py")
        await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt))
        write = app.transcript.query_one(ApprovalPrompt)
        await wait_for(pilot, lambda: write.has_focus)
        await pilot.press("a")  # always allow write_file(a.py) in this thread
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert app.session is not None and app.session.thread_id
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # manual -> auto-edit -> yolo -> plan
        assert app.settings.mode == "plan"
        await submit(pilot, "now plan the rest")
        prompt = await _plan(pilot, app)  # asked, not approved by the thread's grant
        assert prompt.plan == PLAN
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        assert app.settings.mode == "plan"
