"""`auger` without -n: run the TUI, then print how to resume the thread."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings


def run_tui(settings: Settings, args: Any) -> int:
    from auger.errors import UsageError

    if getattr(args, "connect", None):
        return _run_remote(settings, args)
    if not sys.stdout.isatty():
        raise UsageError("The TUI needs a terminal.", hint='Use auger -n "task" for a headless run.')
    from auger.tui import make_app
    from auger.tui.boot import BootOptions, session_factory

    options = BootOptions(
        use_mcp=not getattr(args, "no_mcp", False),
        mcp_extra=tuple(getattr(args, "mcp_config", None) or ()),
        trust_project_mcp=bool(getattr(args, "trust_project_mcp", False)),
        trust_project_hooks=bool(getattr(args, "trust_project_hooks", False)),
    )
    app = make_app(settings, session_factory(options), thread_id=getattr(args, "resume", None) or None)
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
        remote = importlib.import_module("auger.remote")
    except ImportError as exc:
        raise UsageError("--connect is not available in this build yet.") from exc
    factory = remote.session_factory(args.connect, token=getattr(args, "token", None))
    app = make_app(settings, factory, thread_id=getattr(args, "resume", None) or None)
    code = app.run()
    hint = app.resume_hint()
    if hint:
        print(f"Resume this conversation with: auger --connect {args.connect} -r {hint.split()[-1]}")
    return int(code or 0)
