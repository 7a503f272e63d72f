"""An MCP server that misbehaves on purpose (stdio).

python crashing_server.py                      # `crash` tool exits the process; `ok` answers
python crashing_server.py --fail-at-startup    # prints an error to stderr and exits 1
python crashing_server.py --hang-at-startup    # never answers `initialize`
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mcp.server.fastmcp import FastMCP


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-at-startup", action="store_true")
    parser.add_argument("--hang-at-startup", action="store_true")
    args = parser.parse_args()
    if args.fail_at_startup:
        print("crashing_server: missing API token, giving up", file=sys.stderr, flush=True)
        sys.exit(1)
    if args.hang_at_startup:
        while True:
            time.sleep(3600)

    server = FastMCP("crashing", log_level="WARNING")

    @server.tool()
    def ok() -> str:
        """Answer normally."""
        return "ok"

    @server.tool()
    def crash() -> str:
        """Exit the server process in the middle of the call."""
        print("crashing_server: crashing now", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    server.run()


if __name__ == "__main__":
    main()
