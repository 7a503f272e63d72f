"""The completion menu above the input: slash commands, their arguments, skills and `@path`s.

It never takes focus; the input forwards Up/Down/Tab/Enter/Esc to it while it is open."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from auger.tui.prompt.completer import Completion, CompletionSet


class CompletionMenu(OptionList, can_focus=False):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.current: CompletionSet | None = None  # what is shown (never an empty set)
        self.display = False

    @property
    def is_open(self) -> bool:
        return self.current is not None

    def open(self, completions: CompletionSet | None) -> None:
        if completions is None or not completions.items:
            self.close()
            return
        if completions == self.current:  # unchanged: keep the highlight
            return
        self.current = completions
        options = [
            Option(Content.assemble(c.label or c.value, ("  " + c.help if c.help else "", "dim")))
            for c in completions.items
        ]
        self.set_options(options)
        self.highlighted = 0
        self.display = True

    def close(self) -> None:
        self.current = None
        self.display = False

    def chosen(self) -> tuple[CompletionSet, Completion] | None:
        if self.current is None or self.highlighted is None:
            return None
        return self.current, self.current.items[self.highlighted]
