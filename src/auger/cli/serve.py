"""`auger serve [--host 127.0.0.1] [--port 8765] [--token T] [--mode M] [--model SPEC]`.

Serves the agent over HTTP (see `auger.server`). Every request but `GET /health` needs
`Authorization: Bearer <token>`; the token comes from `--token`, else `AUGER_SERVE_TOKEN`, else
it is generated and printed. A host other than loopback needs an explicit token (exit 2).
`--port 0` picks a free port; the first stdout line is `auger serve: listening on URL ...`.
Exit codes: 0 stopped by a signal, 2 usage/config error (bad host, port in use, no model).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from auger.cli.flags import agent_flags
from auger.errors import UsageError

DEFAULT_PORT = 8765
TOKEN_ENV = "AUGER_SERVE_TOKEN"
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="auger serve",
        description="Serve the agent over HTTP: a Vercel AI SDK chat stream (POST /chat/stream) and "
        "native thread/run endpoints (GET /openapi.json). Locked with a bearer token.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free)"
    )
    p.add_argument("--token", help=f"bearer token clients must send (default: ${TOKEN_ENV}, else generated)")
    p.add_argument(
        "--mode",
        choices=("manual", "auto-edit", "yolo", "plan"),
        help="approval mode for runs that cannot ask (the chat endpoint) and the default for threads",
    )
    p.add_argument("-m", "--model", metavar="SPEC", help="default model as PROVIDER:MODEL")
    agent_flags(p)
    return p


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        raise UsageError(
            f"Cannot listen on {host}:{port}: {exc.strerror or exc}.",
            hint="Pick another --port (0 = any free port) or --host.",
        ) from None
    sock.setblocking(False)
    return sock


def _resolve_token(args: argparse.Namespace) -> tuple[str, bool]:
    """(token, generated); UsageError for an empty token or an open host without one."""
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV)
    if token is not None and not token.strip():
        raise UsageError("The token is empty.", hint=f"Give a non-empty --token or {TOKEN_ENV}.")
    if token is None and not is_loopback(args.host):
        raise UsageError(
            f"Refusing to listen on {args.host} (not loopback) with a generated token.",
            hint=f"Choose the token yourself with --token or {TOKEN_ENV}, so that you know who can "
            "reach the agent, or serve on 127.0.0.1.",
        )
    return (token.strip(), False) if token else (secrets.token_urlsafe(32), True)


def run(argv: Sequence[str]) -> int:
    """`auger serve`; an AugerError is shown by `auger.cli.command`, like the main command's."""
    args = _parser().parse_args(list(argv))
    token, generated = _resolve_token(args)
    from auger.logsetup import setup_logging
    from auger.settings import load_settings

    flags = {"mode": args.mode, "model": args.model}  # None: not given
    settings = load_settings(flags=flags, trust_project=args.trust_project)
    setup_logging(settings.home)
    for warning in settings.warnings:
        print(f"auger: warning: {warning}", file=sys.stderr)
    sock = _bind(args.host, args.port)
    return asyncio.run(_serve(settings, sock, token, generated, args))


async def _serve(settings: Any, sock: socket.socket, token: str, generated: bool, args: Any) -> int:
    from auger.core.mcp.manager import start_mcp
    from auger.core.runtime import open_runtime
    from auger.server.pool import ThreadPool

    mcp = None
    if not args.no_mcp:
        mcp = await start_mcp(settings, extra=args.mcp_config, trust_project=args.trust_project)
    async with open_runtime(settings, mcp=mcp) as runtime:
        pool = ThreadPool(runtime, settings.mode)
        await pool.purge_ephemeral()
        return await _listen(pool, settings, sock, token, generated)


async def _listen(pool: Any, settings: Any, sock: socket.socket, token: str, generated: bool) -> int:
    import uvicorn

    from auger.server.app import create_app

    loop = asyncio.get_running_loop()
    try:
        config = uvicorn.Config(
            create_app(pool, token=token),
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            ws="none",
            timeout_graceful_shutdown=3,
        )
        server = _server_class()(config)
        for sig in SIGNALS:  # installed before "listening" is printed: a stop right after it is clean
            loop.add_signal_handler(sig, server.handle_exit, sig, None)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        print(
            f"auger serve: listening on http://{shown}:{port} (mode {settings.mode}, model {settings.model})",
            flush=True,
        )
        if generated:
            print(f"auger serve: token {token}", flush=True)
            print(f"auger serve: (generated; fix one with --token or {TOKEN_ENV})", flush=True)
        await server.serve(sockets=[sock])
    finally:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)
        await pool.aclose()
        sock.close()
    print("auger serve: stopped", file=sys.stderr)
    return 0


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            """Signals are handled by `_serve` (uvicorn's own handler re-raises them on exit)."""
            yield

    return Server
