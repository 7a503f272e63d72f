"""What an MCP tool result becomes before the model and the thread database see it.

* Content a model can take, as text where it cannot: a `resource_link`, audio and binary
  embedded resources become one line naming what they were (the adapter raises on audio, and
  OpenAI-compatible chat completions refuse a file by URL, which would end the turn and fail
  every later request of the thread). Text, images and text resources are kept.
* Byte caps: a text block is cut at `BLOCK_CAP` and a larger image dropped, with a line saying so.
  `structuredContent` over `STRUCTURED_CAP` is dropped: the model never sees it, the thread
  database would store it next to the text it duplicates (FastMCP sends both: a 10 MB result
  became 20 MB). A result that has only structured content gets it as text instead.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)

BLOCK_CAP = 16 * 1024 * 1024  # bytes of one text block or image (deepagents saves big text to a file)
STRUCTURED_CAP = 64 * 1024  # bytes of structuredContent kept beside the content


def _line(block: Any) -> Any:
    if isinstance(block, ResourceLink):
        what = ", ".join(str(p) for p in (block.mimeType, block.description) if p)
        return f"[resource link: {block.name} at {block.uri}{f' ({what})' if what else ''}]"
    if isinstance(block, AudioContent):
        return f"[audio ({block.mimeType}, {len(block.data) * 3 // 4} bytes): not shown to the model]"
    if (
        isinstance(block, EmbeddedResource)
        and isinstance(block.resource, BlobResourceContents)
        and not (block.resource.mimeType or "").startswith("image/")
    ):
        res, size = block.resource, len(block.resource.blob) * 3 // 4
        kind = res.mimeType or "binary"
        return f"[embedded resource {res.uri} ({kind}, {size} bytes): not shown to the model]"
    if isinstance(block, ImageContent) and len(block.data) > BLOCK_CAP:
        size = len(block.data) * 3 // 4
        return f"[image ({block.mimeType}, {size} bytes): over the {BLOCK_CAP} byte cap, dropped]"
    return None


def _capped(text: str) -> TextContent:
    if len(text) <= BLOCK_CAP:
        return TextContent(type="text", text=text)
    cut = len(text.encode("utf-8", "replace")) - BLOCK_CAP
    kept = text.encode("utf-8", "replace")[:BLOCK_CAP].decode("utf-8", "ignore")
    return TextContent(type="text", text=f"{kept}\n\n... [{cut} bytes cut: the MCP result was over the cap]")


def _block(block: Any) -> Any:
    line = _line(block)
    if line is not None:
        return TextContent(type="text", text=line)
    return _capped(block.text) if isinstance(block, TextContent) else block


def renderable(result: Any) -> Any:
    """`result` (a `CallToolResult`) with its content made sendable and its sizes capped."""
    result.content = [_block(c) for c in result.content]
    structured = result.structuredContent
    if structured is not None:
        text = json.dumps(structured, ensure_ascii=False, default=str)
        if not result.content:
            result.content = [_capped(text)]
        if len(text) > STRUCTURED_CAP:
            result.structuredContent = None
    return result
