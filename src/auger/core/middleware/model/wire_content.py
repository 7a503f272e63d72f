"""WireContentMiddleware: every model request carries only what any provider can take.

A message a provider refuses stays in the thread, so without this every later request of that
thread fails too (the thread is "poisoned"). Before each model call:

* text is valid Unicode — lone surrogates (a prompt piped in as bytes that are not UTF-8, a file
  name, an older thread holding such text) become U+FFFD; JSON over UTF-8 cannot carry them;
* tool results hold text and images only — a link to a resource (`resource_link` from MCP), a
  file by URL, audio, video or an embedded blob become a line of text naming what it was
  (OpenAI-compatible chat completions raise on a file URL; no chat API takes audio in a tool
  result). Fresh MCP results are rendered so already (`auger.core.mcp.manager`); this covers threads
  written before that, and any other tool.

The checkpointed history is not changed: only the request is.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import AnyMessage, ToolMessage

from auger.core.middleware.base import RequestShaper, with_messages
from auger.core.models.requests.message_memo import MessageMemo
from auger.core.text import clean_content, clean_text

TOOL_RESULT_BLOCKS = frozenset({"text", "image", "image_url"})


def describe_block(block: dict[str, Any]) -> str:
    """A one-line text rendering of a content block the model is not sent."""
    kind = str(block.get("type") or "content")
    where = block.get("url") or block.get("uri") or block.get("file_id") or block.get("id")
    mime = block.get("mime_type") or block.get("mimeType")
    size = len(str(block.get("base64") or block.get("data") or "")) * 3 // 4
    parts = [str(where)] if where else []
    parts += [str(mime)] if mime else []
    parts += [f"{size} bytes"] if size and not where else []
    detail = f" ({', '.join(parts)})" if parts else ""
    return clean_text(f"[{kind}{detail}: not shown to the model]")


def _not_sent(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") not in TOOL_RESULT_BLOCKS


def _tool_content(content: Any) -> Any:
    if not isinstance(content, list) or not any(map(_not_sent, content)):
        return content
    return [{"type": "text", "text": describe_block(b)} if _not_sent(b) else b for b in content]


def wire_message(msg: AnyMessage) -> AnyMessage:
    """`msg` as it can be sent (the same object when nothing changes)."""
    content = clean_content(msg.content)
    if isinstance(msg, ToolMessage):
        content = _tool_content(content)
    return msg if content is msg.content else msg.model_copy(update={"content": content})


class WireContentMiddleware(RequestShaper):
    """Each message is cleaned once while it stays in the requests (`MessageMemo`), not per step."""

    def __init__(self) -> None:
        super().__init__()
        self._memo = MessageMemo(wire_message)

    def shape(self, request: ModelRequest) -> ModelRequest:
        return with_messages(request, self._memo.map(request.messages))
