"""Pilot tests for /rewind (and Esc Esc), /undo and /diff: real turns through the real Session (and,
in test_serve_remote.py, through `auger serve`) against the scripted server, changing real files
with file tools and shell commands; the disk and the conversation are checked after each step."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from conftest_tui import Tui, ready, submit, tui, turn, wait_for  # noqa: F401

from auger.tui.app import AugerApp
from auger.tui.screens.choice import ChoiceScreen
from auger.tui.screens.diff_screen import DiffScreen, UnifiedDiff
from auger.tui.screens.turn_picker import TurnPicker
from auger.tui.widgets.messages import AssistantMessage, ChangesLine, Notice, UserMessage
from conftest import AUGER


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write_file", "args": {"file_path": f"/{path}", "content": content}}


def shell(command: str) -> dict[str, Any]:
    return {"name": "execute", "args": {"command": command}}


def script(tui: Tui, prompt: str, *calls: dict[str, Any], tokens: int | None = None) -> None:
    """One user turn: each call in its own model step, then a closing reply."""
    when = {"last_user_contains": prompt}
    usage = {"prompt_tokens": tokens} if tokens else {}
    tui.llm.add(*({"when": when, "tool_calls": [c], **usage} for c in calls))
    tui.llm.add({"when": when, "text": f"{prompt}: done", **usage})


def disk(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".auger" not in p.parts
    }


def notices(app: AugerApp) -> list[str]:
    return [str(n.render()) for n in app.transcript.query(Notice)]


def prompts(app: AugerApp) -> list[str]:
    return [m.text for m in app.transcript.query(UserMessage)]


async def three_turns(tui: Tui, pilot: Any) -> AugerApp:
    """Turn 1 writes a.txt; turn 2 writes b.txt and, by shell, edits seed.txt; turn 3 writes c.txt."""
    app = await ready(pilot)
    for prompt in ("make a", "make b", "make c"):
        await turn(pilot, prompt)
    assert disk(tui.env.project) == {
        "seed.txt": "seed\nmore\n",
        "a.txt": "A\n",
        "b.txt": "B\n",
        "c.txt": "C\n",
    }
    return app


def script_three(tui: Tui) -> None:
    (tui.env.project / "seed.txt").write_text("seed\n")
    script(tui, "make a", write("a.txt", "A\n"))
    script(tui, "make b", write("b.txt", "B\n"), shell("echo more >> seed.txt"))
    script(tui, "make c", write("c.txt", "C\n"))


async def choose(pilot: Any, screen_type: type, key: str) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, screen_type))
    await pilot.press(key)


async def settled(pilot: Any) -> None:
    """The rewind worker is done and no screen is open."""
    app = pilot.app
    await wait_for(pilot, lambda: all(w.is_finished for w in app.workers) and len(app.screen_stack) == 1)


# -- the line under a turn that changed files ------------------------------------------------------
async def test_a_turn_that_changed_files_ends_with_one_line_naming_them(tui: Tui) -> None:
    script(tui, "make two", write("src/a.py", "A\n"), shell("echo n > notes.md"))
    tui.llm.add({"when": {"last_user_contains": "just talk"}, "text": "Talking."})
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "make two")
        await turn(pilot, "just talk")  # changes nothing: no line
        blocks = [
            b for b in app.transcript.children if isinstance(b, (UserMessage, AssistantMessage, ChangesLine))
        ]
        kinds = [type(b).__name__ for b in blocks]
        assert kinds == ["UserMessage", "AssistantMessage", "ChangesLine", "UserMessage", "AssistantMessage"]
        assert str(blocks[2].render()) == "2 files changed: notes.md, src/a.py · /diff 1 · /undo"


# -- /undo --------------------------------------------------------------------------------------
async def test_undo_reverts_the_last_turn_and_names_the_files(tui: Tui) -> None:
    script_three(tui)
    script(tui, "fix seed", shell("echo fixed > seed.txt && rm a.txt"))
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        await turn(pilot, "fix seed")
        await turn(pilot, "/undo")
        await settled(pilot)
        assert notices(app)[-1] == "Undid turn 4's file changes: recreated a.txt; restored seed.txt."
        assert disk(tui.env.project) == {
            "seed.txt": "seed\nmore\n", "a.txt": "A\n", "b.txt": "B\n", "c.txt": "C\n"
        }  # fmt: skip
        assert len(await app.session.turns()) == 4  # type: ignore[union-attr]  # the conversation stays
        await turn(pilot, "/undo")
        await settled(pilot)
        assert notices(app)[-1] == "Turn 4's file changes are already undone."


async def test_undo_refuses_with_one_line_and_changes_nothing(tui: Tui) -> None:
    tui.llm.add({"when": {"last_user_contains": "just talk"}, "text": "Talking."})
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for command in ("/undo", "/rewind", "/diff"):
            await turn(pilot, command)
        assert notices(app)[-3:] == [
            "No turns yet: nothing to undo.",
            "No turns yet: nothing to rewind.",
            "No turns yet: nothing to diff.",
        ]
        await turn(pilot, "just talk")
        await turn(pilot, "/undo")
        assert notices(app)[-1] == "Turn 1 changed no files: nothing to undo (/rewind goes further back)."
        await turn(pilot, "/diff 1")
        assert notices(app)[-1] == "Turn 1 changed no files: no diff to show."
        await turn(pilot, "/diff 7")
        assert notices(app)[-1] == "/diff takes a turn number from 1 (this thread has 1 turn), not '7'."
        await turn(pilot, "/rewind two")
        assert notices(app)[-1] == "/rewind takes a turn number from 1 (this thread has 1 turn), not 'two'."
        assert isinstance(app.screen, type(app.main_screen)) and len(app.screen_stack) == 1


# -- /rewind ------------------------------------------------------------------------------------
async def test_rewind_picker_lists_turns_newest_first_with_their_files(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPicker))
        picker = app.screen
        await wait_for(pilot, lambda: picker.values == [3, 2, 1])  # type: ignore[attr-defined]
        rows = [str(picker.option_list.get_option_at_index(i).prompt) for i in range(3)]  # type: ignore[attr-defined]
        assert rows == [
            "3. make c\n   1 file: c.txt",
            "2. make b\n   2 files: b.txt, seed.txt",
            "1. make a\n   1 file: a.txt",
        ]
        await pilot.press(*"make b")  # the filter
        await wait_for(pilot, lambda: picker.values == [2])  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settled(pilot)
        assert disk(tui.env.project)["b.txt"] == "B\n" and len(prompts(app)) == 3  # nothing changed


async def test_rewind_code_and_conversation_puts_the_turn_back_in_the_prompt(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPicker) and app.screen.values)
        await pilot.press("down", "enter")  # turn 2
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        choice = app.screen
        assert choice.title_text == "Rewind to before turn 2: make b"  # type: ignore[attr-defined]
        assert [v for v, _ in choice.answers] == ["both", "conversation", "code"]  # type: ignore[attr-defined]
        await pilot.press("1")
        await settled(pilot)
        assert disk(tui.env.project) == {"seed.txt": "seed\n", "a.txt": "A\n"}
        assert prompts(app) == ["make a"]  # the transcript is the thread as it is now
        assert app.prompt.text == "make b"  # to edit and send again
        assert notices(app)[-1] == (
            "Rewound to before turn 2 — files: removed b.txt, c.txt; restored seed.txt;"
            " conversation: 1 turn left."
        )
        assert [t.prompt for t in await app.session.turns()] == ["make a"]  # type: ignore[union-attr]
        script(tui, "make b again", write("b.txt", "B2\n"))
        app.prompt.set_text("make b again")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: not app.busy)
        history = [m["content"] for m in tui.llm.requests[-1]["messages"] if m["role"] == "user"]
        assert "make b" not in " ".join(str(h) for h in history[:-1])  # the model no longer sees turn 2


async def test_a_rewound_prompt_is_given_back_as_typed_not_with_its_files_inlined(tui: Tui) -> None:
    (tui.env.project / "spec.md").write_text("the spec body\n")  # the agent's project (remote: the server's)
    script(tui, "make a", write("a.txt", "A\n"))
    script(tui, "build it from", write("b.txt", "B\n"))
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "make a")
        await turn(pilot, "build it from @spec.md")
        assert "the spec body" in tui.last_user_text()  # the model got the file
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPicker) and app.screen.values)
        await pilot.press("enter")  # the newest turn: 2
        await choose(pilot, ChoiceScreen, "2")  # the conversation only
        await settled(pilot)
        assert app.prompt.text == "build it from @spec.md"
        assert [t.prompt for t in await app.session.turns()] == ["make a"]  # type: ignore[union-attr]


async def test_rewind_conversation_only_keeps_the_files(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        before = disk(tui.env.project)
        await submit(pilot, "/rewind 3")
        await choose(pilot, ChoiceScreen, "2")
        await settled(pilot)
        assert disk(tui.env.project) == before
        assert prompts(app) == ["make a", "make b"] and app.prompt.text == "make c"
        assert notices(app)[-1] == "Rewound to before turn 3 — conversation: 2 turns left."


async def test_rewind_of_turns_without_file_changes_offers_the_conversation_only(tui: Tui) -> None:
    script_three(tui)
    tui.llm.add({"when": {"last_user_contains": "explain"}, "text": "It is simple."})
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        await turn(pilot, "explain")
        await submit(pilot, "/rewind 4")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        choice = app.screen
        assert [v for v, _ in choice.answers] == ["conversation"]  # type: ignore[attr-defined]
        assert choice.body == ["Turn 4 changed no files: only the conversation can go back."]  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settled(pilot)
        assert len(prompts(app)) == 4


async def test_files_changed_by_hand_are_listed_and_need_a_confirm(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        (tui.env.project / "b.txt").write_text("my own edit\n")
        await submit(pilot, "/rewind 2")
        await choose(pilot, ChoiceScreen, "3")  # code only
        await wait_for(
            pilot, lambda: isinstance(app.screen, ChoiceScreen) and "overwrite" in str(app.screen.answers)
        )
        confirm = app.screen
        assert confirm.title_text == "1 file changed since the agent last wrote them"  # type: ignore[attr-defined]
        assert confirm.body[0] == "b.txt"  # type: ignore[attr-defined]
        await pilot.press("2")  # never mind
        await settled(pilot)
        assert notices(app)[-1] == "Rewind cancelled; nothing was changed."
        assert disk(tui.env.project)["b.txt"] == "my own edit\n" and "c.txt" in disk(tui.env.project)

        await submit(pilot, "/rewind 2")
        await choose(pilot, ChoiceScreen, "3")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ChoiceScreen) and "overwrite" in str(app.screen.answers)
        )
        await pilot.press("1")  # overwrite
        await settled(pilot)
        assert disk(tui.env.project) == {"seed.txt": "seed\n", "a.txt": "A\n"}
        assert len(prompts(app)) == 3  # code only: the conversation stays
        assert (
            notices(app)[-1] == "Rewound to before turn 2 — files: removed b.txt, c.txt; restored seed.txt."
        )


async def test_esc_twice_on_an_empty_prompt_opens_the_picker(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        app.prompt.set_text("half typed")
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, TurnPicker)  # not with text in the prompt
        app.prompt.clear()
        await pilot.press("escape")
        assert app.status.hint == "Press Esc again to rewind." and not isinstance(app.screen, TurnPicker)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPicker) and app.screen.values == [3, 2, 1])
        await pilot.press("escape")  # closes the picker
        await settled(pilot)
        assert disk(tui.env.project)["c.txt"] == "C\n"


async def test_rewind_is_refused_while_another_auger_runs_a_turn_on_the_thread(tui: Tui) -> None:
    script_three(tui)
    stuck = {"last_user_contains": "stuck job"}
    tui.llm.add({"when": stuck, "tool_calls": [write("d.txt", "D\n")]}, {"when": stuck, "hang": True})
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        thread = app.session.thread_id  # type: ignore[union-attr]
        other = subprocess.Popen(  # a real auger on the same thread, its model never answering
            [AUGER, "-r", thread, "-n", "stuck job", "--mode", "yolo"],
            cwd=tui.env.project,
            env=tui.env.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            await wait_for(pilot, lambda: any(r.get("hang") for r in tui.llm.served), 60)  # it wrote d.txt
            assert [t.paths for t in await app.session.turns()][-1] == ["d.txt"]  # type: ignore[union-attr]
            await turn(pilot, "/undo")
            await settled(pilot)
            refusal = notices(app)[-1]
            assert thread in refusal and "is busy in another auger" in refusal, refusal
            await submit(pilot, "/rewind 2")
            await choose(pilot, ChoiceScreen, "1")
            await settled(pilot)
            assert notices(app)[-1] == refusal
            assert disk(tui.env.project)["d.txt"] == "D\n" and disk(tui.env.project)["c.txt"] == "C\n"
            assert len(prompts(app)) == 3
        finally:
            other.kill()
            other.wait(30)


async def test_a_turn_running_here_keeps_rewind_and_undo_waiting(tui: Tui) -> None:
    script_three(tui)
    tui.llm.add(
        {"when": {"last_user_contains": "long one"}, "text": "Long. ", "text_tokens": 20000, "rate": 400}
    )
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await three_turns(tui, pilot)
        app.prompt.load_text("long one")
        app.prompt.action_submit()
        await wait_for(pilot, lambda: app.busy)
        for command in ("/rewind", "/undo"):
            app.prompt.load_text(command)
            app.prompt.action_submit()
        await wait_for(
            pilot, lambda: len([n for n in notices(app) if "waits for the running turn" in n]) == 2
        )
        assert not app.check_action("rewind_key", ())  # Esc cancels the turn instead
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        assert disk(tui.env.project)["c.txt"] == "C\n"


async def test_conversation_rewind_sets_the_context_meter_back(tui: Tui) -> None:
    (tui.env.project / "seed.txt").write_text("seed\n")
    script(tui, "small", write("a.txt", "A\n"), tokens=1000)
    script(tui, "big", write("b.txt", "B\n"), tokens=9000)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "small")
        after_first = app.status.context_tokens
        await turn(pilot, "big")
        assert app.status.context_tokens > after_first
        await submit(pilot, "/rewind 2")
        await choose(pilot, ChoiceScreen, "1")
        await settled(pilot)
        assert app.status.context_tokens == after_first


# -- /diff --------------------------------------------------------------------------------------
async def test_diff_shows_the_thread_or_one_turn_coloured_and_scrollable(tui: Tui) -> None:
    script_three(tui)
    app = tui.app(mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await three_turns(tui, pilot)
        await turn(pilot, "/diff 2")
        assert isinstance(app.screen, DiffScreen)
        assert app.screen.title_text == "Turn 2: make b — 2 files: b.txt, seed.txt"
        view = app.screen.query_one(UnifiedDiff)
        kinds = dict((text, kind) for kind, text in view.lines)
        assert kinds["+++ b/b.txt"] == "file" and kinds["+B"] == "add" and kinds["+more"] == "add"
        assert kinds[" seed"] == "ctx" and not any("a.txt" in text for _, text in view.lines)
        add = view.get_visual_style("udiff--add")
        ctx = view.get_visual_style("udiff--ctx")
        assert add.foreground != ctx.foreground  # coloured by kind
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))

        script(tui, "long file", write("long.txt", "".join(f"line {i}\n" for i in range(100))))
        await turn(pilot, "long file")  # a diff longer than the screen scrolls
        await turn(pilot, "/diff")
        title = "This thread's file changes — 5 files: a.txt, b.txt, c.txt, long.txt +1"
        assert app.screen.title_text == title  # type: ignore[attr-defined]
        scroll = app.screen.query_one("#diff-scroll")
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        await pilot.press("end")
        await wait_for(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)
        await pilot.press("q")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))


def test_unified_diff_lines_are_told_apart() -> None:
    from auger.tui.screens.diff_screen import line_kind

    lines = ["diff --git a/x b/x", "new file mode 100644", "--- /dev/null", "+++ b/x", "@@ -0,0 +1 @@",
             "+new", "-old", " same", "\\ No newline at end of file"]  # fmt: skip
    assert [line_kind(line) for line in lines] == [
        "file",
        "file",
        "file",
        "file",
        "hunk",
        "add",
        "del",
        "ctx",
        "ctx",
    ]
