"""The `auger` command line: the main parser (`command.py`) and one module per subcommand.

`auger.cli:main` is the console script. `auger --version` is answered here before anything else
is imported (no argparse, no typing: the interpreter's own start is its floor); everything else
goes to `command.py`, which imports nothing heavy either."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
        from auger import __version__

        print(f"auger {__version__}")
        return 0
    from auger.cli.command import main as run

    return run(argv)


__all__ = ["main"]
