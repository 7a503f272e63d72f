"""The `auger` command line: the main parser (`command.py`) and one module per subcommand.

`auger.cli:main` is the console script; it imports nothing heavy (see `command.py`)."""

from auger.cli.command import main

__all__ = ["main"]
