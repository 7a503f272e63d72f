"""The HTTP client auger gives the model SDKs: `request_timeout` = seconds without any bytes.

What the SDKs do on their own (openai 3.x and anthropic 2.x, both on httpx2; read in
site-packages): the `read` part of an httpx2 timeout bounds each socket read (httpcore2's
`AnyIOStream.read` wraps one `receive()` in `anyio.fail_after`), so it already means "seconds
without any bytes" — SSE keep-alive comments and every chunk reset it, a silent socket trips it.
But both SDKs retry a timeout that happens before the response headers `max_retries` times
(2 by default): a server that accepts the connection and never answers would keep auger silent
for 3 × the timeout. And the error says "Request timed out." without naming the setting.

`TimeoutClient.send` turns any httpx2 timeout — before the headers or while the body streams —
into `RequestTimeout`, which names the provider and the setting. Neither SDK retries it (openai
retries only httpx2 errors; anthropic, which retries whatever its client raises, gets a subclass
that is one of its own errors, which it passes through unretried), and it is a langchain
`ModelError` with `is_retryable = False`, so `Runnable.with_retry` (the summarisation call)
does not either: one silence costs one `request_timeout`. Refused connections, 429 and 5xx are
still retried by the SDK, at most `max_retries` times.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
from langchain_core.exceptions import ModelError

from auger.errors import ProviderError


class RequestTimeout(ProviderError, ModelError):
    """The provider sent no bytes for `request_timeout` seconds (exit 1; never retried)."""

    is_retryable = False


class _TimedStream(httpx2.AsyncByteStream):
    """A response body whose read timeouts surface as `RequestTimeout`."""

    def __init__(self, inner: Any, error: Callable[[], RequestTimeout]) -> None:
        self._inner = inner
        self._error = error

    def __getattr__(self, name: str) -> Any:  # e.g. the anthropic SDK's `stream_observer`
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx2.TimeoutException as exc:
            raise self._error() from exc

    async def aclose(self) -> None:
        await self._inner.aclose()


class TimeoutClient(httpx2.AsyncClient):
    """An `httpx2.AsyncClient` for one provider: its timeouts raise `kind` (a RequestTimeout; the
    anthropic SDK wraps and retries any exception its client raises except its own errors, so
    for it `kind` is also an `anthropic.AnthropicError` — see auger.core.models.anthropic_compat)."""

    def __init__(
        self,
        provider: str,
        seconds: float,
        setting: str,
        *,
        kind: type[RequestTimeout] = RequestTimeout,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("follow_redirects", True)  # as the SDKs' default clients do
        super().__init__(timeout=httpx2.Timeout(seconds), **kwargs)
        where = f"[providers.{provider}]" if setting.startswith("providers.") else "config.toml"
        self._error = lambda: kind(
            f"provider {provider!r} sent nothing for {seconds:g} s ({setting} = {seconds:g}); "
            "the request was given up and the thread keeps what was done.",
            hint=f"If the server is just slow, raise request_timeout in {where}.",
        )

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        try:
            response = await super().send(request, **kwargs)
        except httpx2.TimeoutException as exc:
            raise self._error() from exc
        if kwargs.get("stream"):  # otherwise the body is read already, inside the `try`
            response.stream = _TimedStream(response.stream, self._error)
        return response
