"""The prompt: a multi-line TextArea. Enter sends, Shift+Enter / Ctrl+J insert a new line, Up/Down
walk the persisted history (from the first/last line), Tab/Enter accept a completion."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

from auger.tui.prompt.history import PromptHistory
from auger.tui.typing_pace import pace_of

if TYPE_CHECKING:
    from auger.tui.prompt.completer import CompletionSet
    from auger.tui.widgets.completion import CompletionMenu

PLACEHOLDER = "Ask anything · / for commands · @ to add a file · ! to run a shell command"


class PromptInput(TextArea):
    BINDINGS: ClassVar = [
        Binding("enter", "submit", "Send", id="prompt.submit"),
        Binding("shift+enter,ctrl+j", "newline", "New line", id="prompt.newline"),
        Binding("up", "older", "Previous prompt", show=False, id="prompt.history_up"),
        Binding("down", "newer", "Next prompt", show=False, id="prompt.history_down"),
        Binding("tab", "accept", "Complete", show=False, id="prompt.complete"),
        Binding("escape", "dismiss", "Close menu", show=False, id="prompt.dismiss"),
        Binding("ctrl+d", "eof", "Quit (on empty input)", show=False, id="prompt.eof"),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class EndOfInput(Message):
        """Ctrl+D on an empty prompt."""

    def __init__(self, history: PromptHistory, **kwargs: object) -> None:
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=PLACEHOLDER,
            compact=True,
            highlight_cursor_line=False,
            **kwargs,  # type: ignore[arg-type]
        )
        self.prompt_history = history
        self.menu: CompletionMenu | None = None  # mounted after the first paint
        # what the menu offers for (text, cursor offset): the app's completer
        self.complete: Callable[[str, int], CompletionSet | None] | None = None

    @property
    def menu_open(self) -> bool:
        return self.menu is not None and self.menu.is_open

    def close_menu(self) -> None:
        if self.menu is not None:
            self.menu.close()

    def sync_menu(self) -> None:
        """Open the completion menu on what the text offers now (or close it)."""
        if self.menu is not None and self.complete is not None:
            self.menu.open(self.complete(self.text, self.cursor_offset))

    async def _on_key(self, event: events.Key) -> None:
        """Our bindings run here, in order with the typed characters (a priority binding would
        run before characters still queued for this widget: "abc⏎" in one burst would send "")."""
        before = (self.text, self.selection)
        try:
            binding = self._binding_for(event.key)
            if binding is not None and self.check_action(binding.action, ()):
                event.stop()
                event.prevent_default()
                await self.run_action(binding.action)
                return
            await super()._on_key(event)
        finally:  # a streamed reply draws after this key's echo
            shows = (self.text, self.selection) != before
            pace_of(self.app).key(shows=shows)
            if shows:
                self._echo_now()

    def _echo_now(self) -> None:
        """Paint what the key changed now, not at the screen's next update: the refresh would go
        through the screen's queue and wait for its 60 fps tick (up to 17 ms, on a loop that a
        streamed reply keeps busy), and, when the reply has just grown, for the layout and
        repaint of the whole transcript (20-90 ms at load 7). Only the prompt's region is
        written, where the screen's last layout put it: a layout due elsewhere (the reply) runs
        at the tick as before, and what else waits to be painted stays queued for it. A key that
        changes the prompt's own height waits for the tick."""
        screen, app = self.screen, self.app
        if screen is not app.screen or app._batch_count or self._layout_required:
            return
        pending = set(screen._dirty_widgets)  # the refresh clears them: they are the tick's
        pending.discard(self)
        screen._compositor.update_widgets({self})
        screen._compositor_refresh()
        screen._dirty_widgets |= pending

    def render_line(self, y: int) -> Strip:
        pace_of(self.app).painted()
        return super().render_line(y)

    def _binding_for(self, key: str) -> Binding | None:
        for namespace, bindings in self.screen._binding_chain:
            if namespace is self:
                for binding in bindings.key_to_bindings.get(key, ()):
                    if binding.id and binding.id.startswith("prompt."):
                        return binding
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "dismiss"):
            return self.menu_open
        return True

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_submit(self) -> None:
        if self.menu_open and self.action_accept(submit=True):
            return
        text = self.text
        if not text.strip():
            return
        self.prompt_history.add(text)
        self.clear()
        self.close_menu()
        self.post_message(self.Submitted(text))

    def action_newline(self) -> None:
        self.insert("\n")

    # Our bindings replace TextArea's for the same keys, so each action falls back to its behaviour.
    def action_older(self) -> None:
        if self.menu is not None and self.menu.is_open:
            self.menu.action_cursor_up()
            return
        if not self.cursor_at_first_line:
            self.action_cursor_up()
            return
        entry = self.prompt_history.older(self.text)
        if entry is not None:
            self.set_text(entry)
            self.close_menu()

    def action_newer(self) -> None:
        if self.menu is not None and self.menu.is_open:
            self.menu.action_cursor_down()
            return
        if not self.cursor_at_last_line or not self.prompt_history.walking:
            self.action_cursor_down()
            return
        entry = self.prompt_history.newer()
        if entry is not None:
            self.set_text(entry)
            self.close_menu()

    def action_accept(self, submit: bool = False) -> bool:
        """Put the highlighted completion into the text. Returns False if it changed nothing (so
        Enter on an already complete command sends it)."""
        # The menu follows the text through TextArea.Changed messages, which keys typed in one
        # burst can outrun ("/quit⏎" completed "/qui" into "/quitt"): bring it up to date first.
        self.sync_menu()
        chosen = self.menu.chosen() if self.menu is not None else None
        if chosen is None:
            return False
        found, item = chosen
        text = self.text
        new = text[: found.start] + item.value + text[found.end :]
        self.close_menu()
        if new == text and submit:
            return False
        self.load_text(new)
        self.move_cursor(
            self.document.get_location_from_index(  # type: ignore[attr-defined]
                found.start + len(item.value)
            )
        )
        return True

    def action_dismiss(self) -> None:
        self.close_menu()

    def action_eof(self) -> None:
        if self.text:
            self.action_delete_right()
        else:
            self.post_message(self.EndOfInput())

    @property
    def cursor_offset(self) -> int:
        return self.document.get_index_from_location(self.cursor_location)  # type: ignore[attr-defined]
