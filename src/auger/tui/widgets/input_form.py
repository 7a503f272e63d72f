"""An MCP server's form (`InputRequested`), inline in the transcript: the server's message, one
field per property of its schema (its title as the label, `*` when required, its description
below), Tab between fields; Enter or Ctrl+S submits, Ctrl+N or the Decline button declines, Esc
cancels. What does not fit the schema is shown at its field and the form stays; the answer goes
to the agent through the port (`resolve_input`, posted by the app on `Answered`)."""

from __future__ import annotations

from typing import Any, ClassVar, cast

from textual import on
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, Static

from auger.core.events import InputAnswer, InputRequested
from auger.core.port import FormField, check_form, form_fields

HINT = "Tab next field · Enter/Ctrl+S submit · Ctrl+N decline · Esc cancel"
OUTCOME = {"accept": "sent", "decline": "declined", "cancel": "cancelled"}


class InputForm(Vertical):
    BINDINGS: ClassVar = [
        Binding("ctrl+s", "submit", "Submit", id="form.submit"),
        Binding("ctrl+n", "decline", "Decline", id="form.decline"),
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
    ]

    class Answered(Message):
        """The user answered; the app sends it (`resolve_input`) and calls `sent` or `refused`."""

        def __init__(self, form: InputForm, answer: InputAnswer) -> None:
            super().__init__()
            self.form = form
            self.answer = answer

    def __init__(self, request: InputRequested) -> None:
        super().__init__(classes="input-form")
        self.request = request
        self.fields = form_fields(request.schema)
        self.answer: InputAnswer | None = None  # what was sent, once the agent took it
        self.sending = False

    def compose(self):  # type: ignore[no-untyped-def]
        req = self.request
        yield Static(f"MCP server '{req.server}' asks:", markup=False, classes="title")
        yield Static(req.message, markup=False, classes="message")
        for f in self.fields:
            with Vertical(classes="field", id=f"field-{f.name}"):
                label = f"{f.label}{' *' if f.required else ''}"
                if f.kind != "boolean":
                    yield Static(label, markup=False, classes="label")
                yield _control(f, label)
                if f.description:
                    yield Static(f.description, markup=False, classes="description")
                yield Static("", markup=False, classes="error")
        yield Static("", markup=False, classes="form-error")
        with Horizontal(classes="buttons"):
            yield Button("Submit", variant="primary", id="submit", compact=True)
            yield Button("Decline", id="decline", compact=True)
        yield Static(HINT, markup=False, classes="hint")

    def on_mount(self) -> None:
        controls = [w for w in self.query(".control") if w.focusable]
        if controls:
            controls[0].focus()

    # -- answers ---------------------------------------------------------------------------
    def action_submit(self) -> None:
        content, errors = self.values()
        if not errors:
            errors = check_form(self.request.schema, content)
        self.show_errors(errors)
        if not errors:
            self._answer(InputAnswer("accept", content))

    def action_decline(self) -> None:
        self._answer(InputAnswer("decline"))

    def action_cancel(self) -> None:
        self._answer(InputAnswer("cancel"))

    @on(Button.Pressed, "#submit")
    @on(Input.Submitted)
    def _submitted(self, event: Button.Pressed | Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    @on(Button.Pressed, "#decline")
    def _decline_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decline()

    def _answer(self, answer: InputAnswer) -> None:
        if self.answer is not None or self.sending:
            return
        self.sending = True
        self.post_message(self.Answered(self, answer))

    def values(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The content as typed (empty optional fields left out), and what could not be read."""
        content: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for f in self.fields:
            control = self.query_one(f"#input-{f.name}")
            value: Any = _value(control)
            if isinstance(value, str) and f.kind in ("number", "integer"):
                try:
                    value = f.parse(value)
                except ValueError as exc:
                    errors[f.name] = str(exc)
                    continue
            if value is not None and value != "":
                content[f.name] = value
        return content, errors

    def show_errors(self, errors: dict[str, str]) -> None:
        for f in self.fields:
            box = self.query_one(f"#field-{f.name}")
            box.set_class(f.name in errors, "-invalid")
            box.query_one(".error", Static).update(errors.get(f.name, ""))
        self.query_one(".form-error", Static).update(errors.get("", ""))

    # -- what the app calls ------------------------------------------------------------------
    def sent(self, answer: InputAnswer) -> None:
        """The agent took the answer: the form shrinks to one line saying what was sent."""
        self.answer, self.sending = answer, False
        self.add_class("-resolved", f"-{answer.action}")
        for control in self.query(".control, Button"):
            control.disabled = True
        words = OUTCOME[answer.action]
        if answer.content:
            words += ": " + ", ".join(f"{k}={v!r}" for k, v in answer.content.items())
        self.query_one(".hint", Static).update(words)

    def refused(self, message: str) -> None:
        """The agent did not take the answer (content that does not fit): the form stays."""
        self.sending = False
        self.query_one(".form-error", Static).update(message)


def _control(f: FormField, label: str) -> Widget:
    ident = f"input-{f.name}"
    if f.kind == "boolean":
        return Checkbox(label, bool(f.default), id=ident, classes="control", compact=True)
    if f.kind == "enum":
        options = [(shown, value) for value, shown in f.choices]
        value = f.default if f.default in [v for v, _ in f.choices] else Select.NULL
        return Select(options, value=value, allow_blank=True, id=ident, classes="control", compact=True)
    kind = {"number": "number", "integer": "integer"}.get(f.kind, "text")
    default = "" if f.default is None else str(f.default)
    return Input(default, placeholder=f.format or "", type=kind, id=ident, classes="control", compact=True)  # type: ignore[arg-type]


def _value(control: Widget) -> Any:
    """A control's value (each of the three has one); a Select left blank is None."""
    value = cast("Checkbox | Select[Any] | Input", control).value
    return None if value is Select.NULL else value
