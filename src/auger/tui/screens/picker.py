"""A modal "filter + list" picker: type to filter, Up/Down to move, Enter to choose, Esc to close."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

T = TypeVar("T")


class FilterPicker(ModalScreen[T | None], Generic[T]):
    CSS_PATH = "screens.tcss"
    BINDINGS: ClassVar = [
        Binding("escape", "dismiss", "Close", id="picker.close"),
        Binding("down", "move('cursor_down')", "Down", show=False, priority=True, id="picker.down"),
        Binding("up", "move('cursor_up')", "Up", show=False, priority=True, id="picker.up"),
    ]
    AUTO_FOCUS = "#picker-filter"
    TITLE = "Pick"
    PLACEHOLDER = "Type to filter"
    HINT = "Enter choose · Esc close"
    current: T | None = None  # highlighted when the filter is empty (the model or thread in use)

    def __init__(self, query: str = "") -> None:
        super().__init__(classes="picker")
        self.query_text = query
        self.values: list[T] = []
        self._generation = 0  # rows may come from the agent: only the latest query's are shown

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(self.TITLE, classes="picker-title", markup=False)
            yield Input(self.query_text, placeholder=self.PLACEHOLDER, id="picker-filter")
            yield from self.extra()
            yield OptionList(id="picker-list")
            yield Static(self.HINT, classes="picker-hint", markup=False)

    def extra(self) -> ComposeResult:
        """Widgets a subclass adds between the filter and the list."""
        yield from ()

    async def on_mount(self) -> None:
        self.query_one("#picker-filter", Input).focus()
        await self.refill(self.query_text)

    # subclasses: the (value, label) rows for a query
    async def rows(self, query: str) -> list[tuple[T, Content | str]]:
        raise NotImplementedError

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#picker-list", OptionList)

    async def refill(self, query: str) -> None:
        self._generation += 1
        generation = self._generation
        rows = await self.rows(query)
        if generation != self._generation or not self.is_attached:
            return  # a newer query is on its way, or the picker closed
        self.values = [value for value, _ in rows]
        options = [Option(label) for _, label in rows]
        olist = self.option_list
        olist.set_options(options)
        if options:
            current = (i for i, value in enumerate(self.values) if value == self.current)
            olist.highlighted = 0 if query else next(current, 0)

    @property
    def selected(self) -> T | None:
        index = self.option_list.highlighted
        return self.values[index] if index is not None and 0 <= index < len(self.values) else None

    @on(Input.Changed, "#picker-filter")
    async def _filter(self, event: Input.Changed) -> None:
        await self.refill(event.value)

    @on(Input.Submitted, "#picker-filter")
    @on(OptionList.OptionSelected, "#picker-list")
    def choose(self) -> None:
        value = self.selected
        if value is not None:
            self.dismiss(value)

    async def action_move(self, cursor: str) -> None:
        """Up/Down in the filter move the list's cursor (its own actions)."""
        await self.option_list.run_action(cursor)
