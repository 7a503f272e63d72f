"""ImageInputsMiddleware: images reach only a model that takes them.

Before each model call, when the model called does not take images (`auger.core.models.images`:
config, else its profile, else no), every image block of the request — in an MCP tool's result,
a prompt an editor sent over ACP, a thread written while an image model was in use — becomes one
line of text naming what it was, e.g.
`[image image/png, 1.2 KB from docs__screenshot — not shown: the model does not take images]`.
No image data goes on the wire then: an OpenAI-compatible text model refuses the whole request,
and the thread would fail on every later request too. A model that takes images is sent them as
they are. The checkpointed history is not changed (switching back to an image model shows them).
"""

from __future__ import annotations

from typing import Any, TypeGuard

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import AnyMessage, ToolMessage

from auger.core.middleware.base import RequestShaper, with_messages
from auger.core.models.images import model_takes_images
from auger.core.models.requests.message_memo import MessageMemo
from auger.core.text import size_text

IMAGE_BLOCKS = frozenset({"image", "image_url"})
NOT_SHOWN = "not shown: the model does not take images"


def image_line(block: dict[str, Any], source: str) -> str:
    """One line naming the image `block` (a LangChain or an OpenAI image block) and where it came from."""
    url = block.get("url") or (block.get("image_url") or {}).get("url") or ""
    mime = block.get("mime_type") or block.get("mimeType")
    data = block.get("base64") or block.get("data")
    if isinstance(url, str) and url.startswith("data:"):
        head, _, data = url.partition(",")
        mime, url = mime or head[len("data:") :].split(";")[0], ""
    parts = [str(p) for p in (mime, url) if p]
    if data:
        parts.append(size_text(len(str(data)) * 3 // 4 - str(data)[-2:].count("=")))
    what = ", ".join(parts)
    return f"[image{' ' + what if what else ''} from {source} — {NOT_SHOWN}]"


def _is_image(block: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(block, dict) and block.get("type") in IMAGE_BLOCKS


def text_only(msg: AnyMessage) -> AnyMessage:
    """`msg` with its images as lines of text (the same object when it holds none)."""
    if isinstance(msg.content, str) or not any(map(_is_image, msg.content)):
        return msg
    source = (msg.name or "a tool") if isinstance(msg, ToolMessage) else "the prompt"
    content = [{"type": "text", "text": image_line(b, source)} if _is_image(b) else b for b in msg.content]
    return msg.model_copy(update={"content": content})


class ImageInputsMiddleware(RequestShaper):
    """Runs after ConfigurableModelMiddleware, so `request.model` is the model actually called."""

    def __init__(self) -> None:
        super().__init__()
        self._memo = MessageMemo(text_only)

    def shape(self, request: ModelRequest) -> ModelRequest:
        if model_takes_images(request.model):
            return request
        return with_messages(request, self._memo.map(request.messages))
