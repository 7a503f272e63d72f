"""ChatAnthropic on auger's HTTP client, so `request_timeout` means the same as for OpenAI.

langchain-anthropic builds its own httpx2 client and takes none from outside; this subclass
builds the async client (what auger calls) on `auger.core.models.provider_http.TimeoutClient`.
Its streamed replies merge as they arrive (auger.core.models.replies.merged_stream) and its tool schemas
are converted once per tool set (auger.core.models.requests.tool_schemas). Imported only
when an Anthropic model is used.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import anthropic
from langchain_anthropic import ChatAnthropic
from pydantic import Field

from auger.core.models.provider_http import ProviderFault, TimeoutClient
from auger.core.models.replies.merged_stream import MergedStream
from auger.core.models.requests.tool_schemas import CachedToolBinding


class AnthropicFault(ProviderFault, anthropic.AnthropicError):
    """A ProviderFault the anthropic SDK passes through: it wraps (and retries) any other
    exception its HTTP client raises, but not its own `AnthropicError`s."""


class ChatAnthropicTimed(CachedToolBinding, MergedStream, ChatAnthropic):
    auger_timeout: tuple[str, float, str] = Field(exclude=True)
    """(provider name, seconds, the setting that set them) for `TimeoutClient`."""

    @cached_property
    def _async_client(self) -> anthropic.AsyncClient:
        params: dict[str, Any] = dict(self._client_params)
        params.pop("timeout", None)  # TimeoutClient's own; the SDK would otherwise send its default
        provider, seconds, setting = self.auger_timeout
        proxy = {"proxy": self.anthropic_proxy} if self.anthropic_proxy else {}
        client = TimeoutClient(
            provider, seconds, setting, kind=AnthropicFault, base_url=params["base_url"], **proxy
        )
        return anthropic.AsyncClient(**params, timeout=seconds, http_client=client)
