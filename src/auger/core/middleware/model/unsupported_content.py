"""deepagents' UnsupportedContentMiddleware, without converting every text message on every call.

deepagents replaces the input blocks the model cannot take (an image sent to a text-only model)
with a text notice, and to find them it builds `content_blocks` for every human and tool message
of every request: at 1,200 messages ~25 ms of each model call, for messages that are plain text
— which every model takes. This subclass takes the SDK's slot by name and answers plain-text
messages (a string, or text blocks only) at once, unchanged, as the SDK would; any other message
goes through the SDK's own check.
"""

from __future__ import annotations

from typing import Any

from deepagents.middleware.unsupported_content import UnsupportedContentMiddleware


def plain_text(content: Any) -> bool:
    """Whether `content` is text only: a string, or blocks that are strings or `text` blocks."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(block, str)
        or (isinstance(block, dict) and block.get("type") == "text" and "source_type" not in block)
        for block in content
    )


class TextAwareUnsupportedContent(UnsupportedContentMiddleware):  # type: ignore[type-arg]
    @property
    def name(self) -> str:
        return "UnsupportedContentMiddleware"  # replaces the SDK's in its slot (the tail's last)

    def _filter_message(self, message: Any, *, model: Any) -> Any:
        if plain_text(message.content):
            return message
        return super()._filter_message(message, model=model)
