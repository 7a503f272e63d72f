"""Tool calls as compact rows: status, name, key argument, duration. Enter/click expands to the
arguments and output (built lazily); file edits show their diff, `execute` its command and exit
code; a `task` row groups the subagent's own rows and text under it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from auger.core.port import counted
from auger.tui import format as fmt
from auger.tui.diffs import DiffLine, diff_stats, tool_diff
from auger.tui.widgets.diffview import DiffView

ICONS = {"running": "⋯", "success": "✓", "error": "✗", "rejected": "⊘", "cancelled": "⊘", "waiting": "?"}
MAX_OUTPUT_LINES = 200


def call_view(name: str, args: dict[str, Any], diff: list[DiffLine] | None, max_lines: int = 60) -> Widget:
    """What a call does, for its row's details and its approval: the diff of a file edit,
    `execute`'s command, or the arguments."""
    if diff is not None:
        return DiffView(diff, max_lines=max_lines)
    if name == "execute":
        return Static(f"$ {args.get('command', '')}", markup=False, classes="command")
    return Static(fmt.pretty_args(args), markup=False, classes="args")


class ToolHeader(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"toolheader--{part}" for part in ("icon", "name", "arg", "meta")
    }

    def __init__(self, row: ToolRow) -> None:
        super().__init__()
        self.row = row

    def render(self) -> Content:
        row = self.row
        parts: list[tuple[str, Any] | str] = [
            (ICONS.get(row.status, "•") + " ", self.get_visual_style("toolheader--icon")),
            (row.tool_name, self.get_visual_style("toolheader--name")),
        ]
        if row.summary:
            parts += [" ", (row.summary, self.get_visual_style("toolheader--arg"))]
        meta = row.meta()
        if meta:
            parts += ["  ", (meta, self.get_visual_style("toolheader--meta"))]
        return Content.assemble(*parts)


class ToolRow(Vertical, can_focus=True):
    BINDINGS: ClassVar = [Binding("enter,space", "toggle_details", "Expand", show=False, id="tool.toggle")]

    def __init__(
        self, call_id: str, name: str, args: dict[str, Any], project_root: Path, *, applied: bool = False
    ) -> None:
        """`applied`: the call ran already (a saved thread shown again), so the file on disk is
        the edited one."""
        super().__init__(classes="tool -running")
        self.call_id, self.tool_name, self.args = call_id, name, args
        self.status = "running"
        self.output = ""
        self.duration_ms: int | None = None
        self.started = time.monotonic()
        self.approved_at: float | None = None  # the user's yes: the call's clock starts then
        self.diff = tool_diff(name, args, project_root, applied=applied)
        self.summary = "$ " + fmt.one_line(str(args.get("command", "")), 90) if name == "execute" else ""
        self.summary = self.summary or fmt.key_arg(name, args)
        self.decision = ""  # "approved", "always allowed", "rejected: why" once the user answered
        self.progress = ""  # the running call's last progress report (a bar, counts, message)
        self._built = False
        self.header = ToolHeader(self)
        self.details = Vertical(classes="tool-details")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.header
        yield self.details

    def on_mount(self) -> None:
        if self.diff is not None:  # edits show their diff at once
            self.open_details()

    def meta(self) -> str:
        bits: list[str] = []
        if self.diff is not None:
            bits.append(diff_stats(self.diff))
        if self.decision:
            bits.append(self.decision)
        if self.progress and self.status == "running":
            bits.append(self.progress)
        if self.tool_name == "execute" and self.status in ("success", "error"):
            code = fmt.exit_code(self.output)
            bits.append(f"exit {code if code is not None else 0 if self.status == 'success' else '?'}")
        if self.status in ("rejected", "cancelled") and not self.decision.startswith("rejected"):
            bits.append(self.status)
        if self.duration_ms is not None:
            bits.append(fmt.duration(self.duration_ms))
        return " · ".join(bits)

    def report_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress notification from the running tool: a bar when the total is known."""
        self.progress = fmt.progress(progress, total, message)
        self.header.refresh()

    def set_status(self, status: str) -> None:
        self.remove_class(f"-{self.status}")
        self.status = status
        self.add_class(f"-{status}")
        self.header.refresh()

    def finish(self, status: str, output: str, duration_ms: int | None) -> None:
        self.output = output
        if duration_ms is not None and self.approved_at is not None:  # not the time spent deciding
            duration_ms = min(duration_ms, int((time.monotonic() - self.approved_at) * 1000))
        self.duration_ms = duration_ms
        self.set_status(status)
        if self._built:
            self._build_output()

    def decided(self, kind: str, message: str | None, rule: str | None = None) -> None:
        words = {"approve": "approved", "approve_always": f"always allowed {rule or ''}".rstrip()}
        self.decision = words.get(kind, "rejected") + (f": {message}" if message else "")
        self.approved_at = time.monotonic() if kind != "reject" else None
        if kind == "reject":
            self.set_status("rejected")
        else:
            self.set_status("running")
            if self.diff is not None:
                self.open_details()

    # -- details ---------------------------------------------------------------------------
    def close_details(self) -> None:
        self.remove_class("-expanded")

    def open_details(self) -> None:
        if not self._built:
            self._built = True
            self._build_details()
        self.add_class("-expanded")

    def action_toggle_details(self) -> None:
        if self.has_class("-expanded"):
            self.remove_class("-expanded")
        else:
            self.open_details()

    def on_click(self, event: Any) -> None:
        if event.widget is self.header:
            self.action_toggle_details()

    def _build_details(self) -> None:
        self.details.mount(call_view(self.tool_name, self.args, self.diff))
        if self.status != "running":
            self._build_output()

    def _build_output(self) -> None:
        if not self.output or (self.diff is not None and self.status == "success"):
            return
        text = fmt.strip_exit_line(self.output) if self.tool_name == "execute" else self.output
        shown, more = fmt.clip_lines(text, MAX_OUTPUT_LINES)
        if more:
            shown += f"\n… {counted(more, 'more line')}"
        self.details.query(".output").remove()
        self.details.mount(Static(shown or "(no output)", markup=False, classes="output"))


class TaskGroup(ToolRow):
    """A `task` call: the subagent's rows and text are mounted in `body`, shown while it runs."""

    def __init__(self, call_id: str, name: str, args: dict[str, Any], project_root: Path) -> None:
        super().__init__(call_id, name, args, project_root)
        self.add_class("task")
        kind = str(args.get("subagent_type") or "")
        self.summary = f"{kind}: {fmt.key_arg(name, args)}" if kind else fmt.key_arg(name, args)
        self.body = Vertical(classes="task-body")
        self.children_count = 0

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.header
        yield self.body
        yield self.details

    def on_mount(self) -> None:
        self.add_class("-open")

    def meta(self) -> str:
        base = super().meta()
        count = f"{self.children_count} tool calls" if self.children_count else ""
        return " · ".join(b for b in (count, base) if b)

    def finish(self, status: str, output: str, duration_ms: int | None) -> None:
        super().finish(status, output, duration_ms)
        self.remove_class("-open")

    def action_toggle_details(self) -> None:
        self.toggle_class("-open")
        super().action_toggle_details()
