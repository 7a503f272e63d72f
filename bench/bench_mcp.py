"""MCP benchmark: warm stdio tool round-trip (median of 50 calls through the LangChain tool, the way
the agent calls it) and the wall time to start 10 stdio servers concurrently.

    python bench/bench_mcp.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from auger.core.mcp.config import McpServerConfig
from auger.core.mcp.manager import McpManager

SERVER = str(Path(__file__).resolve().parent.parent / "tests" / "mcp_servers" / "fastmcp_server.py")


def server(name: str) -> McpServerConfig:
    return McpServerConfig(name, "stdio", command=sys.executable, args=(SERVER,))


async def round_trip(log_dir: Path, calls: int = 50) -> tuple[float, float]:
    manager = McpManager([server("bench")], log_dir)
    try:
        await manager.start()
        add = next(t for t in manager.tools() if t.name == "add")
        await add.ainvoke({"a": 0, "b": 0})  # warm up
        times = []
        for i in range(calls):
            start = time.perf_counter()
            result = await add.ainvoke(
                {"name": "add", "args": {"a": i, "b": 1}, "id": "b", "type": "tool_call"}
            )
            times.append(time.perf_counter() - start)
            assert result.content[0]["text"] == str(i + 1), result
        raw = manager._servers["bench"].session  # the bare MCP session, without the LangChain layer
        assert raw is not None
        raw_times = []
        for i in range(calls):
            start = time.perf_counter()
            await raw.call_tool("add", {"a": i, "b": 1})
            raw_times.append(time.perf_counter() - start)
        return statistics.median(times), statistics.median(raw_times)
    finally:
        await manager.aclose()


async def start_many(log_dir: Path, count: int = 10) -> tuple[float, float, int]:
    manager = McpManager([server(f"s{i}") for i in range(count)], log_dir)
    try:
        start = time.perf_counter()
        await manager.start()
        started = time.perf_counter() - start
        connected = sum(s["status"] == "connected" for s in manager.status())
    finally:
        start = time.perf_counter()
        await manager.aclose()
    return started, time.perf_counter() - start, connected


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tool_rt, raw_rt = await round_trip(Path(tmp))
        print(
            f"warm stdio round-trip, median of 50: {tool_rt * 1000:.2f} ms via LangChain tool, "
            f"{raw_rt * 1000:.2f} ms raw session.call_tool"
        )
        started, closed, connected = await start_many(Path(tmp))
        print(
            f"start 10 stdio servers concurrently: {started:.2f} s ({connected}/10 connected); "
            f"aclose: {closed:.2f} s"
        )


if __name__ == "__main__":
    asyncio.run(main())
