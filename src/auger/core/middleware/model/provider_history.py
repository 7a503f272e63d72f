"""ProviderHistoryMiddleware: keep a thread's history sendable after a cross-provider model switch.

Each provider leaves its own marks in the AI messages it writes: Anthropic signed `thinking` /
`redacted_thinking` blocks, `tool_use` blocks and `cache_control` fields; OpenAI Responses
`reasoning` items with `encrypted_content` and item ids; OpenAI-compatible servers
`reasoning_content`; Gemini thought signatures. Another provider rejects (or, worse, silently
misreads) them. Before each call this middleware compares the *family* of the model being called
with the family that wrote each earlier AI message and, where they differ, sends a cleaned copy:
reasoning dropped, tool calls kept only in `tool_calls`, text blocks stripped to `type` + `text`.
The checkpointed history is never changed, so switching back keeps the originals.
Families: anthropic, openai (chat completions: OpenAI and every OpenAI-compatible server),
openai_responses (OpenAI's Responses API), google_genai, ollama, bedrock; other models are known
by their `_llm_type`. A message of unknown origin counts as foreign (cleaning is always safe).

Replies are tagged with their family in `response_metadata["auger_provider"]`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage

from auger.core.middleware.base import ai_messages, with_messages
from auger.core.models.requests.message_memo import MessageMemo

FAMILY_KEY = "auger_provider"
RESPONSES = "openai_responses"  # OpenAI's Responses API, as opposed to chat completions ("openai")
KEEP_BLOCKS = frozenset({"text", "image", "image_url"})
REASONING_KWARGS = frozenset({"reasoning_content", "reasoning", "thinking", "redacted_thinking"})
PROVIDER_BLOCK_FIELDS = frozenset({"cache_control", "signature", "id", "annotations", "extras", "index"})

# module of the chat model class -> wire-format family
_MODULE_FAMILIES = (
    ("langchain_anthropic", "anthropic"),
    ("langchain_openai", "openai"),
    ("auger.core.models.openai_compat", "openai"),
    ("langchain_google", "google_genai"),
    ("langchain_ollama", "ollama"),
    ("langchain_aws", "bedrock"),
)
_PROVIDER_ALIASES = {"google_vertexai": "google_genai", "bedrock_converse": "bedrock", "azure": "openai"}


def model_family(model: Any) -> str:
    """The wire-format family of a chat model, from its class's module (no provider imports)."""
    module = type(model).__module__
    family = next((f for prefix, f in _MODULE_FAMILIES if module.startswith(prefix)), None)
    if family == "openai" and getattr(model, "use_responses_api", None):
        return RESPONSES  # Responses API items (reasoning, ids) mean nothing to chat completions
    return family or str(getattr(model, "_llm_type", module))


def message_family(msg: AIMessage) -> str | None:
    """Which family wrote `msg`: our tag, else the integration's `model_provider`, else unknown."""
    meta = msg.response_metadata or {}
    if isinstance(meta.get(FAMILY_KEY), str):
        return str(meta[FAMILY_KEY])
    raw = meta.get("model_provider")
    if not isinstance(raw, str):
        return None
    if raw == "openai" and (
        str(meta.get("output_version", "")).startswith("responses") or "reasoning" in msg.additional_kwargs
    ):
        return RESPONSES
    return _PROVIDER_ALIASES.get(raw, raw)


def _clean_block(block: Any) -> Any | None:
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if not isinstance(block, dict) or block.get("type") not in KEEP_BLOCKS:
        return None  # reasoning, tool_use, function_call, server-side tool results, ...
    return {k: v for k, v in block.items() if k not in PROVIDER_BLOCK_FIELDS}


def clean_content(content: Any) -> Any:
    """Content with provider-only blocks and fields removed; all-text lists become a string."""
    if isinstance(content, str):
        return content
    blocks = [b for b in (_clean_block(block) for block in content) if b is not None]
    if all(b.get("type") == "text" for b in blocks):
        return "".join(str(b.get("text", "")) for b in blocks)
    return blocks


def _strip_cache_control(content: Any) -> Any:
    if isinstance(content, str) or not any(isinstance(b, dict) and "cache_control" in b for b in content):
        return content
    return [
        {k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b for b in content
    ]


def clean_ai_message(msg: AIMessage) -> AIMessage:
    kwargs = {
        k: v for k, v in msg.additional_kwargs.items() if k not in REASONING_KWARGS and not k.startswith("__")
    }
    meta = {k: v for k, v in msg.response_metadata.items() if k != "output_version"}
    return msg.model_copy(
        update={"content": clean_content(msg.content), "additional_kwargs": kwargs, "response_metadata": meta}
    )


def sanitize_message(msg: BaseMessage, target: str) -> BaseMessage:
    """`msg` safe to send to a model of family `target` (the same object where nothing applies)."""
    if isinstance(msg, AIMessage):
        return clean_ai_message(msg) if message_family(msg) != target else msg
    if target != "anthropic" and not isinstance(msg.content, str):
        stripped = _strip_cache_control(msg.content)
        if stripped is not msg.content:
            return msg.model_copy(update={"content": stripped})
    return msg


def _tag(response: Any, family: str) -> Any:
    for msg in ai_messages(response):
        msg.response_metadata.setdefault(FAMILY_KEY, family)
    return response


class ProviderHistoryMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Runs after ConfigurableModelMiddleware, so `request.model` is the model actually called.
    Each message is looked at once per family while it stays in the requests (`MessageMemo`),
    not per call: the same cleaned copy is sent again, so what converts it further down (the
    provider's request building) meets the same object too."""

    def __init__(self) -> None:
        super().__init__()
        self._memos: dict[str, MessageMemo] = {}

    def _prepare(self, request: ModelRequest) -> tuple[ModelRequest, str]:
        family = model_family(request.model)
        memo = self._memos.get(family)
        if memo is None:
            memo = self._memos[family] = MessageMemo(lambda msg: sanitize_message(msg, family))
        return with_messages(request, memo.map(request.messages)), family

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        request, family = self._prepare(request)
        return _tag(handler(request), family)  # type: ignore[no-any-return]

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        request, family = self._prepare(request)
        return _tag(await handler(request), family)  # type: ignore[no-any-return]
