"""`auger` command line. Fast paths first: --version and --help import nothing heavy.

Subcommands (`config`, `threads`, `mcp`, `serve`) are dispatched by name to their modules;
everything else is the main parser: the TUI, or headless with -n.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from auger import __version__
from auger.cli import frontends
from auger.cli.flags import agent_flags

STARTED = time.monotonic()  # headless --timeout counts from here (the process start)

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    # name -> (module, help)
    "config": ("auger.cli.config", "show or change settings (auger config show | set KEY VALUE)"),
    "threads": (
        "auger.cli.threads",
        "list (--search TEXT), show, rename, fork, rewind, diff, delete and prune threads",
    ),
    "mcp": ("auger.cli.mcp", "MCP servers: list, get, add, remove"),
    "hooks": ("auger.cli.hooks", "list lifecycle hooks"),
    "trust": ("auger.cli.trust", "trust this project (its settings, MCP servers, hooks), or --forget it"),
    "doctor": ("auger.cli.doctor", "check the config, the model and its key, MCP servers, the sandbox"),
    "serve": ("auger.cli.serve", "serve the agent over HTTP"),
    "acp": ("auger.cli.acp", "run as an Agent Client Protocol agent on stdio (editors)"),
}

EPILOG = "subcommands:\n" + "\n".join(f"  {name:<9} {text}" for name, (_, text) in SUBCOMMANDS.items())
EPILOG += (
    "\n\nexit codes (headless): 0 done, 1 agent/provider error, 2 usage or config error,"
    "\n  3 turn limit reached, 124 timeout, 130 interrupted, 141 stdout closed (| head)"
)


def build_parser() -> Any:
    import argparse

    p = argparse.ArgumentParser(
        prog="auger",
        description="auger: a terminal coding assistant. Run it in a project folder.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"auger {__version__}")
    p.add_argument(
        "-n",
        "-p",
        "--non-interactive",
        "--print",
        dest="non_interactive",
        metavar="TEXT",
        nargs="?",
        const="",
        default=None,
        help="run one task headless and exit (the task may also come on stdin)",
    )
    p.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="headless output: text (default), json (one object), stream-json (one event per line)",
    )
    p.add_argument(
        "-m", "--model", metavar="SPEC", help="model as PROVIDER:MODEL (e.g. openai:gpt-4.1, local:qwen3)"
    )
    p.add_argument(
        "--mode",
        choices=("manual", "auto-edit", "yolo", "plan"),
        help="approval mode: manual asks for edits and shell, auto-edit asks for shell, yolo never asks, "
        "plan reads only and ends with a plan to accept",
    )
    p.add_argument(
        "--yolo",
        dest="mode",
        action="store_const",
        const="yolo",
        help="never ask for approval (= --mode yolo)",
    )
    p.add_argument("--max-turns", type=int, metavar="N", help="cap on model calls per prompt")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="headless wall-clock limit (exit 124)")
    p.add_argument(
        "-r",
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        default=None,
        help="resume this project's newest thread, or the thread ID (a unique prefix works)",
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="resume",
        action="store_const",
        const="",
        help="continue this project's newest thread (= -r)",
    )
    p.add_argument(
        "--sandbox", action="store_true", default=None, help="run shell and file tools in bubblewrap"
    )
    p.add_argument(
        "--add-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="another folder the file tools may use, by its absolute path (under the same rules)",
    )
    agent_flags(p)
    p.add_argument(
        "--allowed-tools",
        "--allowedTools",
        metavar="RULES",
        action="append",
        default=[],
        help='allow these without asking, e.g. "Bash(git status:*) Read" or "execute(pytest *)"',
    )
    p.add_argument(
        "--disallowed-tools",
        "--disallowedTools",
        metavar="RULES",
        action="append",
        default=[],
        help='refuse these, e.g. "Bash(git push:*),WebFetch"',
    )
    p.add_argument("--connect", metavar="URL", help="run the TUI against an `auger serve` server")
    p.add_argument("--token", metavar="TOKEN", help="bearer token for --connect")
    return p


# What `build_parser().parse_args([])` gives (tests/tui/test_startup.py keeps the two equal):
# a bare `auger` — the TUI — starts without building the parser (argparse costs ~2 ms).
NO_ARGS: dict[str, Any] = {
    "non_interactive": None,
    "output_format": "text",
    "model": None,
    "mode": None,
    "max_turns": None,
    "timeout": None,
    "resume": None,
    "sandbox": None,
    "add_dir": [],
    "no_mcp": False,
    "mcp_config": [],
    "trust_project": False,
    "allowed_tools": [],
    "disallowed_tools": [],
    "connect": None,
    "token": None,
}


def parse_args(argv: Sequence[str]) -> Any:
    if not argv:
        import types

        return types.SimpleNamespace(**{k: list(v) if isinstance(v, list) else v for k, v in NO_ARGS.items()})
    return build_parser().parse_args(list(argv))


def _folders(given: list[str]) -> list[str]:
    """`--add-dir` folders as real absolute paths; a UsageError names one that is not a folder."""
    import os

    from auger.errors import UsageError

    found = []
    for text in given:
        path = os.path.realpath(os.path.expanduser(text))
        if not os.path.isdir(path):
            raise UsageError(f"--add-dir {text}: no such folder ({path}).")
        found.append(path)
    return found


def flags_from_args(args: Any) -> dict[str, Any]:
    from auger.errors import UsageError

    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError(f"--max-turns must be at least 1 (got {args.max_turns}).")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds (got {args.timeout:g}).")
    flags = {  # None: not given (load_settings skips it)
        "model": args.model,
        "mode": args.mode,
        "max_turns": args.max_turns,
        "timeout": args.timeout,
        "sandbox.enabled": args.sandbox,  # True or None
        "add_dirs": _folders(args.add_dir) if args.add_dir else None,
    }
    for kind, given in (("allow", args.allowed_tools), ("deny", args.disallowed_tools)):
        if given:  # only then: a bare `auger` imports nothing of auger.core before the TUI paints
            from auger.core.safety.claude_tools import split_tool_list

            rules = [rule for text in given for rule in split_tool_list(text)]
            if rules:
                flags[f"permissions.{kind}"] = rules
    return flags


def _main(argv: Sequence[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        frontends.end_startup()
        import importlib

        module = importlib.import_module(SUBCOMMANDS[argv[0]][0])
        run: Callable[[list[str]], int] = module.run
        return run(list(argv[1:]))
    args = parse_args(argv)
    from auger.logsetup import setup_logging
    from auger.settings import load_settings

    settings = load_settings(flags=flags_from_args(args), trust_project=args.trust_project)
    setup_logging(settings.home)
    for warning in settings.warnings:
        print(f"auger: warning: {warning}", file=sys.stderr)
    return frontends.run(settings, args)  # the collector comes back on after the first paint


def main(argv: Sequence[str] | None = None) -> int:
    # The `auger` command: no collections until the TUI's first paint (see auger.tui.gcpolicy).
    code = _guarded_main(sys.argv[1:] if argv is None else argv, pause_gc=argv is None)
    if argv is None and "langchain_core" in sys.modules:
        _fast_exit(code)
    return code


def _fast_exit(code: int) -> None:
    """Skip interpreter teardown (~0.4 s of module garbage collection after langchain is loaded):
    everything that matters — the thread DB, MCP servers, logs — is closed by now."""
    import logging
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def _guarded_main(argv: Sequence[str], pause_gc: bool = False) -> int:
    from auger.errors import AugerError

    if pause_gc:
        from auger.tui import gcpolicy

        gcpolicy.pause_startup()
    try:
        return _main(argv)
    except AugerError as exc:
        print(f"auger: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("auger: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout's reader went away (`auger ... | head -1`): end quietly
        import os

        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # a bug: one line on screen, the traceback in the log
        import logging

        from auger.logsetup import log_file, see_log, setup_logging

        if log_file() is None:  # it failed before logging was set up: the default place
            from auger.paths import auger_home

            setup_logging(auger_home())
        logging.getLogger("auger").exception("unhandled error")
        print(f"auger: internal error: {type(exc).__name__}: {exc}{see_log()}", file=sys.stderr)
        return 1
    finally:
        frontends.end_startup()


if __name__ == "__main__":
    raise SystemExit(main())
