"""`auger` without -n: run the TUI, then print how to resume the thread."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.core.session.session import Session
    from auger.settings import Settings


def run_tui(settings: Settings, args: Any) -> int:
    from auger.errors import UsageError

    if getattr(args, "connect", None):
        return _run_remote(settings, args)
    if not sys.stdout.isatty():
        raise UsageError("The TUI needs a terminal.", hint='Use auger -n "task" for a headless run.')
    from auger.tui import make_app

    use_mcp = not getattr(args, "no_mcp", False)
    mcp_extra = tuple(getattr(args, "mcp_config", None) or ())
    trust_mcp = bool(getattr(args, "trust_project_mcp", False))
    trust_hooks = bool(getattr(args, "trust_project_hooks", False))

    async def factory(settings: Settings, thread_id: str | None) -> Session:
        from auger.tui.boot import BootOptions, session_factory  # after the first paint

        options = BootOptions(use_mcp, mcp_extra, trust_mcp, trust_hooks)
        return await session_factory(options)(settings, thread_id)

    app = make_app(settings, factory, thread_id=getattr(args, "resume", None) or None)
    code = app.run()
    hint = app.resume_hint()
    if hint:
        print(f"Resume this conversation with: {hint}")
    return int(code or 0)


def _run_remote(settings: Settings, args: Any) -> int:
    """`--connect URL`: the same TUI over a RemoteSession (when the server client is installed)."""
    import importlib

    from auger.errors import UsageError
    from auger.tui import make_app

    try:
        remote = importlib.import_module("auger.remote.client")
    except ImportError as exc:
        raise UsageError("--connect is not available in this build yet.") from exc
    factory = remote.session_factory(args.connect, token=getattr(args, "token", None))
    app = make_app(settings, factory, thread_id=getattr(args, "resume", None) or None)
    code = app.run()
    hint = app.resume_hint()
    if hint:
        print(f"Resume this conversation with: auger --connect {args.connect} -r {hint.split()[-1]}")
    return int(code or 0)
