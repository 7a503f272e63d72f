"""`auger acp [--mode M] [-m SPEC] [--sandbox] [--no-mcp] [--connect URL]`: auger as an Agent
Client Protocol agent on stdin/stdout, for editors (see README "Use auger from your editor").

`initialize` is answered first, with the standard library only (`auger.acp.handshake`); the
ACP package, LangChain and the Runtime are imported after it. stdout carries only JSON-RPC;
warnings go to stderr (editors show it in their agent log), tracebacks to the log file.
Exit codes: 0 when the editor closes stdin, 2 usage or config error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from auger import __version__
from auger.acp import handshake
from auger.cli.flags import agent_flags

LIMIT = 50 * 1024 * 1024  # the longest line read from stdin at once (longer ones come in parts)

if TYPE_CHECKING:  # asyncio and pathlib too are imported after the handshake (~30 ms under load)
    import asyncio
    from pathlib import Path

    from acp.interfaces import Agent


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="auger acp",
        description="Run auger as an Agent Client Protocol agent on stdio (Zed, JetBrains, Neovim, Emacs).",
    )
    p.add_argument(
        "--mode", choices=("manual", "auto-edit", "yolo", "plan"), help="initial approval mode of sessions"
    )
    p.add_argument("-m", "--model", metavar="SPEC", help="model as PROVIDER:MODEL")
    p.add_argument(
        "--sandbox", action="store_true", default=None, help="run shell and file tools in bubblewrap"
    )
    agent_flags(p, "do not start MCP servers (the editor's included)")
    p.add_argument("--connect", metavar="URL", help="run the sessions on an `auger serve` server")
    p.add_argument("--token", metavar="TOKEN", help="bearer token for --connect")
    return p


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    shake = handshake.read_initialize(0)
    if shake.request is not None:
        handshake.write_all(1, handshake.answer(shake.request, __version__))
    import asyncio

    from auger.logsetup import setup_logging
    from auger.paths import auger_home

    setup_logging(auger_home())
    return asyncio.run(_serve(args, shake))


def _settings_loader(args: Any) -> Any:
    warned: set[str] = set()

    def load(cwd: Path) -> Any:
        from auger.settings import load_settings

        flags = {"mode": args.mode, "model": args.model, "sandbox.enabled": args.sandbox}  # None: not given
        settings = load_settings(cwd, flags=flags, trust_project=args.trust_project)
        for warning in settings.warnings:
            if warning not in warned:
                warned.add(warning)
                print(f"auger: warning: {warning}", file=sys.stderr)
        return settings

    return load


async def _serve(args: Any, shake: handshake.Handshake) -> int:
    from acp import run_agent

    from auger.acp.agent import AugerAcpAgent
    from auger.acp.stdin_guard import guard
    from auger.cli import agents

    closer = None
    if args.connect:
        factory = agents.remote(args.connect, args.token)
    else:
        from auger.acp.sessions import SharedRuntime

        factory = closer = SharedRuntime(agents.options_from_args(args))
    agent = AugerAcpAgent(_settings_loader(args), factory, __version__)
    agent.client_capabilities = shake.client_capabilities
    raw, writer = await _stdio(shake.rest)
    reader, pump = guard(raw, writer, LIMIT)  # a `[]` line is answered, not the library's crash
    try:
        await run_agent(cast("Agent", agent), writer, reader)  # the router calls only what it has
    finally:
        pump.cancel()
        await agent.close()
        if closer is not None:
            await closer.aclose()
    return 0


async def _stdio(rest: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin as a stream that starts with what the handshake read past `initialize`; stdout.
    Pipes (what an editor gives) are read and written by the event loop; a file or terminal
    by a thread / plain writes."""
    import asyncio

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LIMIT)
    reader.feed_data(rest)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except ValueError:  # not a pipe: read it in a thread
        loop.run_in_executor(None, _feed, loop, reader)
    protocol = asyncio.streams.FlowControlMixin()
    try:
        transport, _ = await loop.connect_write_pipe(lambda: protocol, sys.stdout)
    except ValueError:  # a regular file
        transport = _file_transport()
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)  # type: ignore[arg-type]


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    import os

    while data := os.read(0, 65536):
        loop.call_soon_threadsafe(reader.feed_data, data)
    loop.call_soon_threadsafe(reader.feed_eof)


def _file_transport() -> asyncio.WriteTransport:
    import asyncio

    class FileTransport(asyncio.WriteTransport):
        def write(self, data: bytes | bytearray | memoryview) -> None:
            handshake.write_all(1, bytes(data))

        def is_closing(self) -> bool:
            return False

        def close(self) -> None:
            pass

    return FileTransport()
