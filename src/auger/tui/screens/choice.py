"""A modal question with a few answers: a title, a few lines saying what is at stake, the answers
as a list (Up/Down, Enter or the answer's number), Esc for none of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[str | None]):
    """Dismissed with the chosen answer's value, or None (Esc)."""

    CSS_PATH = "screens.tcss"
    BINDINGS: ClassVar = [
        Binding("escape", "dismiss", "Close", id="choice.close"),
        *(Binding(str(n), f"pick({n})", show=False, id=f"choice.pick{n}") for n in range(1, 10)),
    ]
    AUTO_FOCUS = "#choice-list"

    def __init__(self, title: str, answers: Sequence[tuple[str, str]], body: Sequence[str] = ()) -> None:
        super().__init__(classes="picker")
        self.title_text = title
        self.answers = list(answers)  # (value, label)
        self.body = list(body)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(self.title_text, classes="picker-title", markup=False)
            for line in self.body:
                yield Static(line, classes="choice-body", markup=False)
            options = [Option(f"{n}. {label}") for n, (_, label) in enumerate(self.answers, 1)]
            yield OptionList(*options, id="choice-list")
            yield Static("Enter choose · Esc never mind", classes="picker-hint", markup=False)

    @on(OptionList.OptionSelected, "#choice-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.answers[event.option_index][0])

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(self.answers):
            self.dismiss(self.answers[number - 1][0])
