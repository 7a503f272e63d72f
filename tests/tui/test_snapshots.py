"""SVG snapshots (pytest-textual-snapshot) of the main screen, an approval, the model picker, the
thread picker and the trust question. Deterministic: fixed terminal size, fixed token counts
(`prompt_tokens`), fixed thread ids and durations, the test's own HOME (so the cwd shows as ~/project).

Update after an intended visual change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest_tui import Tui, ready, submit, tui, turn, wait_for  # noqa: F401

from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.prompt import PromptInput

SIZE = (100, 32)
TOKENS = 4000


@pytest.fixture
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """No clock and no random ids on screen."""
    from textual.widgets import Input

    import auger.core.session.session as session_mod
    from auger.tui import format as fmt
    from auger.tui.widgets import status

    ids = (f"{n:08x}{0:024x}" for n in itertools.count(0xA11CE0))
    monkeypatch.setattr(session_mod, "new_thread_id", lambda: next(ids))
    monkeypatch.setattr(fmt, "duration", lambda ms: "12 ms" if ms is not None else "")
    monkeypatch.setattr(fmt, "elapsed", lambda seconds: "3s")
    monkeypatch.setattr(status, "SPINNER", "•")
    monkeypatch.setattr(PromptInput, "cursor_blink", False)  # a steady cursor
    monkeypatch.setattr(Input, "cursor_blink", False)  # in a form's fields too (it blinked off under load)


def _script(tui: Tui, *responses: dict[str, Any]) -> None:
    tui.llm.add(*({"prompt_tokens": TOKENS, **r} for r in responses))


TOOL_TURN = (
    {
        "text": "I'll add the helper and check it.",
        "tool_calls": [
            {
                "name": "write_file",
                "args": {"file_path": "/util.py", "content": "def add(a, b):\n    return a + b\n"},
            }
        ],
    },
    {
        "tool_calls": [
            {"name": "execute", "args": {"command": "python3 -c 'import util; print(util.add(2, 3))'"}}
        ]
    },
    {"text": "Done: `util.add` works.\n\n```python\n>>> util.add(2, 3)\n5\n```"},
)


def test_main_screen_after_a_tool_turn(tui: Tui, still: None, snap_compare: Any) -> None:
    _script(tui, *TOOL_TURN)
    app = tui.app(mode="yolo")

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await turn(pilot, "add a util.add helper and try it")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_approval_of_a_file_edit(tui: Tui, still: None, snap_compare: Any) -> None:
    (tui.env.project / "app.py").write_text("import os\n\n\ndef main():\n    print('hello')\n    return 0\n")
    _script(
        tui,
        {
            "text": "Let me fix the greeting.",
            "tool_calls": [
                {
                    "name": "edit_file",
                    "args": {
                        "file_path": "/app.py",
                        "old_string": "    print('hello')\n",
                        "new_string": "    print('hello, world')\n",
                    },
                }
            ],
        },
    )
    app = tui.app(mode="manual")

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await submit(pilot, "greet the world")
        await wait_for(pilot, lambda: app.transcript.query(ApprovalPrompt))
        await wait_for(pilot, lambda: app.transcript.query_one(ApprovalPrompt).has_focus)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_model_picker(tui: Tui, still: None, snap_compare: Any) -> None:
    _script(tui, {"text": "Hi."})
    app = tui.app()

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await turn(pilot, "hello")
        await submit(pilot, "/model")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_thread_picker(tui: Tui, still: None, snap_compare: Any) -> None:
    _script(tui, {"text": "About the parser."}, {"text": "About the tests."}, {"text": "About docs."})
    app = tui.app()

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await turn(pilot, "how does the parser work?")
        await turn(pilot, "/new")
        await turn(pilot, "why do the tests fail?")
        await turn(pilot, "/new")
        await turn(pilot, "write the docs")
        await submit(pilot, "/threads")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_rewind_picker(tui: Tui, still: None, snap_compare: Any) -> None:
    (tui.env.project / "README.md").write_text("# demo\n")

    def write(path: str) -> dict[str, Any]:
        return {
            "tool_calls": [{"name": "write_file", "args": {"file_path": f"/{path}", "content": "x = 1\n"}}]
        }

    _script(
        tui,
        write("parser.py"),
        {"text": "Added the parser."},
        write("tests/test_parser.py"),
        write("tests/conftest.py"),
        {"tool_calls": [{"name": "execute", "args": {"command": "echo '## Tests' >> README.md"}}]},
        {"text": "Added tests."},
        {"text": "It splits on commas."},
    )
    app = tui.app(mode="yolo")

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await turn(pilot, "add a parser for the config format")
        await turn(pilot, "write tests for it and document them in the README")
        await turn(pilot, "explain how it handles quotes")
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: getattr(app.screen, "values", None) == [3, 2, 1])

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_an_mcp_servers_form(tui: Tui, still: None, snap_compare: Any) -> None:
    """The form of a real FastMCP server's `sign_up` tool (every field type), after a submit
    that did not fit: the errors at their fields."""
    from test_elicitation import SIGN_UP, configure, connected

    from auger.cli.agents import local
    from auger.tui.widgets.input_form import InputForm

    configure(tui)
    _script(tui, SIGN_UP)
    app = tui.app(factory=local(), mode="yolo")

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await connected(pilot)
        await submit(pilot, "sign me up")
        await wait_for(pilot, lambda: app.transcript.query(InputForm))
        form = app.transcript.query_one(InputForm)
        await wait_for(pilot, lambda: app.focused in form.query("#input-name"))
        await pilot.press(*"A", "tab", *"ann@example", "tab", *"12")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: form.query_one("#field-age").has_class("-invalid"))

    assert snap_compare(app, terminal_size=(100, 50), run_before=run_before)


def test_trust_question(tui: Tui, still: None, snap_compare: Any) -> None:
    (tui.env.project / ".auger").mkdir()
    (tui.env.project / ".auger" / "config.toml").write_text(
        'mode = "yolo"\n[permissions]\nallow = ["execute(*)"]\n'
    )
    (tui.env.project / ".mcp.json").write_text('{"mcpServers": {"helper": {"command": "helper-server"}}}')
    app = tui.app()

    async def run_before(pilot: Any) -> None:
        from auger.tui.screens.choice import ChoiceScreen

        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
