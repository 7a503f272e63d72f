"""A small MCP server for auger's tests, written with the `mcp` package's FastMCP.

python fastmcp_server.py                 # stdio
python fastmcp_server.py --http PORT     # streamable HTTP at http://127.0.0.1:PORT/mcp
python fastmcp_server.py --sse PORT      # SSE at http://127.0.0.1:PORT/sse
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
from pathlib import Path

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.prompts.base import Message, UserMessage
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def build(name: str, port: int = 8000) -> FastMCP:
    server = FastMCP(name, host="127.0.0.1", port=port, log_level="WARNING")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def echo_json(text: str) -> dict[str, str]:
        """Return the text as a JSON object (MCP `structuredContent` too)."""
        return {"echo": text}

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep for `seconds`, then answer."""
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def getenv(name: str) -> str:
        """Read one environment variable of the server process (read-only)."""
        return os.environ.get(name, "<unset>")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def big(size: int) -> str:
        """`size` bytes of text (read-only)."""
        return ("0123456789abcdef" * (size // 16 + 1))[:size]

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def pid() -> int:
        """The server's process id (read-only)."""
        return os.getpid()

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def media() -> list[TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource]:
        """Content of every kind a provider may refuse: a resource link, audio, an image and binary blobs."""
        return [
            TextContent(type="text", text="report ready"),
            ResourceLink(
                type="resource_link",
                uri="file:///srv/report.pdf",
                name="report.pdf",
                mimeType="application/pdf",
            ),
            AudioContent(type="audio", data="UklGRiQAAABXQVZF", mimeType="audio/wav"),
            ImageContent(type="image", data=PNG_1PX, mimeType="image/png"),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="file:///srv/data.bin", blob="AAECAwQ=", mimeType="application/octet-stream"
                ),
            ),
        ]

    add_features(server)
    add_images(server)
    return server


def add_features(server: FastMCP) -> None:
    """Progress, cancellation, roots, prompts and a resource."""

    @server.tool()
    async def steps(count: int, ctx: Context) -> str:  # type: ignore[type-arg]
        """Report progress `count` times (notifications/progress), then answer."""
        for i in range(1, count + 1):
            await ctx.report_progress(i, count, f"step {i} of {count}")
        return f"did {count} steps"

    @server.tool()
    async def wait_for_cancel(marker: str, ctx: Context, seconds: float = 60) -> str:  # type: ignore[type-arg]
        """Report progress 0, sleep; if the client cancels (notifications/cancelled), write `marker`."""
        await ctx.report_progress(0, None, "waiting")
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            Path(marker).write_text("cancelled")
            raise
        return "not cancelled"

    @server.tool()
    async def ask_model(question: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Ask the client's model (sampling/createMessage) and answer with its reply or refusal."""
        from mcp.shared.exceptions import McpError
        from mcp.types import SamplingMessage

        message = SamplingMessage(role="user", content=TextContent(type="text", text=question))
        try:
            reply = await ctx.session.create_message(messages=[message], max_tokens=100)
        except McpError as exc:
            return f"refused: {exc.error.message}"
        return f"the model said: {getattr(reply.content, 'text', reply.content)}"

    @server.tool()
    async def sign_up(team: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Ask the user for their details (elicitation/create, a form of every field type) and
        answer with what came back: the action and the content as JSON."""
        result = await ctx.elicit(f"Join team {team}: who are you?", SignUp)
        data = result.data.model_dump() if result.action == "accept" else None
        return f"elicitation {result.action}: {json.dumps(data, sort_keys=True)}"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def roots(ctx: Context) -> str:  # type: ignore[type-arg]
        """The roots the client gave (roots/list), one URI a line."""
        listed = await ctx.session.list_roots()
        return "\n".join(str(r.uri) for r in listed.roots)

    @server.prompt()
    def review(pr: str, focus: str = "everything") -> str:
        """Ask for a review of a pull request."""
        return f"Review pull request {pr}, looking at {focus}."

    @server.prompt()
    def hello() -> str:
        """A prompt without arguments."""
        return "Say hello."

    @server.resource("docs://guide", mime_type="text/markdown")
    def guide() -> str:
        """The team's style guide."""
        return "# Guide\nUse tabs."


def add_images(server: FastMCP) -> None:
    """An image as a resource and in a prompt."""

    @server.resource("docs://pixel", mime_type="image/png")
    def pixel() -> bytes:
        """A screenshot (one pixel)."""
        return base64.b64decode(PNG_1PX)

    @server.prompt()
    def look() -> list[Message]:
        """Ask about a screenshot."""
        image = ImageContent(type="image", data=PNG_1PX, mimeType="image/png")
        return [UserMessage("What is in this screenshot?"), UserMessage(image)]


class SignUp(BaseModel):
    """The form `sign_up` asks for: every field type the MCP specification allows."""

    name: str = Field(
        title="Your name", description="as it appears on your badge", min_length=2, max_length=20
    )
    email: str = Field(title="Email", json_schema_extra={"format": "email"})
    age: int = Field(title="Age", ge=18, le=130)
    height: float | None = Field(default=None, title="Height (m)", ge=0.5, le=2.5)
    role: str = Field(
        title="Role",
        json_schema_extra={"enum": ["dev", "ops", "pm"], "enumNames": ["Developer", "Operations", "Product"]},
    )
    newsletter: bool = Field(default=False, title="Send me the newsletter")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="auger-test")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--http", type=int, metavar="PORT")
    group.add_argument("--sse", type=int, metavar="PORT")
    args = parser.parse_args()
    print(f"fastmcp_server {args.name} starting (pid {os.getpid()})", file=sys.stderr, flush=True)
    if args.http:
        build(args.name, args.http).run(transport="streamable-http")
    elif args.sse:
        build(args.name, args.sse).run(transport="sse")
    else:
        build(args.name).run()


if __name__ == "__main__":
    main()
