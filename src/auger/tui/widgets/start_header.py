"""The start screen: what an empty transcript shows (auger's version, the model, the project, the
approval mode and a few tips). Built from the settings alone, so it is in the first paint (its
styles are in app.tcss for the same reason); the agent's model and project replace theirs once it
is up (over `--connect`, the server's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from auger import __version__
from auger.tui import format as fmt

if TYPE_CHECKING:
    from auger.settings import Settings

TIPS = (
    ("/help", "commands and keys"),
    ("@path", "attach a file"),
    ("!cmd", "run a shell command"),
    ("Shift+Tab", "approval mode"),
    ("Esc", "interrupt"),
)


class StartHeader(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"start--title", "start--label", "start--key", "start--dim"}

    model: reactive[str | None] = reactive(None, layout=True)  # (its width follows the longest line)
    project: reactive[str] = reactive("", layout=True)

    def __init__(self, settings: Settings) -> None:
        super().__init__(id="start-header")
        self.settings = settings
        self.set_reactive(StartHeader.model, settings.model)
        self.set_reactive(StartHeader.project, fmt.short_path(settings.project_root))

    def render(self) -> Content:
        title, label, key, dim = (
            self.get_visual_style(f"start--{n}") for n in ("title", "label", "key", "dim")
        )
        facts = [
            ("model", self.model or "not configured"),
            ("project", self.project),
            ("mode", self.settings.mode),
        ]
        lines = [Content.assemble(("auger", title), " ", (__version__, dim), "  a terminal coding assistant")]
        lines += [Content.assemble((f"{name:<8}", label), value) for name, value in facts]
        tips = [Content.assemble((k, key), " ", (what, dim)) for k, what in TIPS]
        lines += [Content(""), Content(" · ").join(tips[:3]), Content(" · ").join(tips[3:])]
        return Content("\n").join(lines)
