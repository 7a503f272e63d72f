"""The Textual TUI. Import is cheap and side-effect free: `make_app` builds the app on demand.

No module here imports langchain (or deepagents) at module level; the Session and its heavy
dependencies are built in a worker after the first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.core.port import SessionFactory
    from auger.settings import Settings
    from auger.tui.app import AugerApp
    from auger.tui.screens.trust import Wants

__all__ = ["make_app"]


def make_app(
    settings: Settings,
    session_factory: SessionFactory,
    *,
    thread_id: str | None = None,
    first_run: bool = True,
    project_wants: Wants | None = None,
) -> AugerApp:
    """The app for `settings`; `await session_factory(settings, thread_id)` gives it the agent (an
    `AgentPort`: in process or remote, `auger.cli.agents`), after the first paint. `first_run`:
    with no model in `settings`, ask for one first — False when the agent's config is not on this
    machine (`auger --connect`: the server's model, skills and credentials count). `project_wants`:
    what an untrusted project wants that needs trust (`auger.cli.trust.project_wants`); anything
    there is asked about before the agent is built (`auger.tui.screens.trust`)."""
    from auger.tui.app import AugerApp

    return AugerApp(
        settings, session_factory, thread_id=thread_id, first_run=first_run, project_wants=project_wants
    )
