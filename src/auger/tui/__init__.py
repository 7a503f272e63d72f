"""The Textual TUI. Import is cheap and side-effect free: `make_app` builds the app on demand.

No module here imports langchain (or deepagents) at module level; the Session and its heavy
dependencies are built in a worker after the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.settings import Settings
    from auger.tui.app import AugerApp
    from auger.tui.boot import SessionFactory

__all__ = ["make_app"]


def make_app(
    settings: Settings, session_factory: SessionFactory | None = None, *, thread_id: str | None = None
) -> AugerApp:
    """The app for `settings`; `session_factory(settings, thread_id)` builds the Session (the real
    `create_session` with MCP unless given)."""
    from auger.tui.app import AugerApp

    if session_factory is None:
        from auger.tui.boot import session_factory as real_factory

        session_factory = real_factory()
    return AugerApp(settings, session_factory, thread_id=thread_id)
