"""How much do configured MCP servers delay the first prompt?

    python bench/bench_mcp_boot.py [--servers 10] [--runs 5]

Times what the TUI's boot worker does before a prompt can be sent — `open_session` with an MCP
manager, then `start(wait=False)` — with N stdio servers configured and with none. Target: 10
servers add ≤ 100 ms (the servers finish connecting in the background; their tools join the next model call).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER = HERE.parent / "tests" / "mcp_servers" / "fastmcp_server.py"


async def boot_once(home: Path, project: Path) -> tuple[float, float]:
    from auger.core.mcp.manager import mcp_manager
    from auger.core.runtime import open_session
    from auger.settings import load_settings

    settings = load_settings(cwd=project, env={"AUGER_HOME": str(home)})
    t0 = time.perf_counter()
    mcp = mcp_manager(settings)  # what the TUI's boot worker does (auger.cli.agents.local)
    session = await open_session(settings, mcp=mcp)
    if mcp is not None:
        await mcp.start(wait=False)
    ready = time.perf_counter() - t0
    if mcp is not None:
        await mcp.wait_ready()
    connected = time.perf_counter() - t0
    await session.aclose()
    return ready, connected


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="auger-mcp-boot-"))
    project = tmp / "project"
    project.mkdir()
    cfg = 'model = "local:m"\n[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n'
    results: dict[int, list[tuple[float, float]]] = {}
    for n in (0, args.servers):
        home = tmp / f"home{n}"
        home.mkdir()
        (home / "config.toml").write_text(cfg)
        servers = {f"s{i}": {"command": sys.executable, "args": [str(SERVER)]} for i in range(n)}
        (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        await boot_once(home, project)  # warm imports
        results[n] = [await boot_once(home, project) for _ in range(args.runs)]
    base = statistics.median(r for r, _ in results[0])
    with_n = statistics.median(r for r, _ in results[args.servers])
    connected = statistics.median(c for _, c in results[args.servers])
    print(f"session ready, no MCP servers:        {base * 1000:7.1f} ms")
    print(f"session ready, {args.servers} servers configured:  {with_n * 1000:7.1f} ms")
    print(f"added before the first prompt:        {(with_n - base) * 1000:7.1f} ms  (target ≤ 100 ms)")
    print(f"all {args.servers} servers connected (background): {connected * 1000:7.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
