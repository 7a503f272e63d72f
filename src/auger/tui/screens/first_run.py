"""First run with no model configured: how to connect a provider, and a form that saves one."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Markdown, Static

from auger.errors import AugerError

if TYPE_CHECKING:
    from auger.settings import Settings

GUIDE = """\
# Welcome to auger

auger needs a model to talk to. Pick one of these, then come back here (or restart `auger`):

**1. A hosted provider** — set its API key and choose a model:

```sh
export ANTHROPIC_API_KEY=...      # or OPENAI_API_KEY, GOOGLE_API_KEY
auger config set model anthropic:claude-sonnet-4-5
```

**2. An OpenAI-compatible local server** (vLLM, llama.cpp, LM Studio, Ollama's `/v1`):

```sh
auger config set providers.local.base_url http://127.0.0.1:8000/v1
auger config set model local:qwen3-coder
```

**3. Right here** — type a model below (and a base URL for a local server) and press Enter;
it is saved to your user config (`{config}`). Configured it from another shell? Press Enter
with the field empty: auger reads the config again.
"""


class FirstRunScreen(Screen["Settings | None"]):
    CSS_PATH = "screens.tcss"
    BINDINGS: ClassVar = [Binding("ctrl+q,ctrl+c", "dismiss", "Quit", priority=True, id="firstrun.quit")]

    def __init__(self, settings: Settings) -> None:
        super().__init__(id="first-run")
        self.settings = settings

    def compose(self) -> ComposeResult:
        from auger.settings import user_config_path

        with VerticalScroll(id="first-run-box"):
            yield Markdown(GUIDE.format(config=user_config_path(self.settings.home)))
            with Vertical(id="first-run-form"):
                yield Input(placeholder="provider:model, e.g. anthropic:claude-sonnet-4-5", id="spec")
                yield Input(placeholder="base URL (only for a local / OpenAI-compatible server)", id="url")
                yield Static("", id="first-run-error", markup=False)
            yield Static("Enter save · Ctrl+Q quit", classes="picker-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#spec", Input).focus()

    @on(Input.Submitted)
    def _save(self) -> None:
        spec = self.query_one("#spec", Input).value.strip()
        url = self.query_one("#url", Input).value.strip()
        error = self.query_one("#first-run-error", Static)
        if not spec:
            self._reread(error)
            return
        from auger.cli.config import save_first_model

        try:
            self.dismiss(save_first_model(self.settings, spec, url or None))
        except AugerError as exc:
            error.update(str(exc))

    def _reread(self, error: Static) -> None:
        """Enter with nothing typed: the model may have been configured from another shell."""
        from auger.cli.config import reload_settings

        try:
            settings = reload_settings(self.settings)
        except AugerError as exc:
            error.update(str(exc))
            return
        if settings.model:
            self.dismiss(settings)
        else:
            error.update("Still no model configured: type one as provider:model, or set one and press Enter.")
