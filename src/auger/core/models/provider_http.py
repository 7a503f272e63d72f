"""The HTTP client auger gives the model SDKs: `request_timeout` = seconds without a complete line,
and a base_url that does not answer like the API is said to be one.

What the SDKs do on their own (openai 3.x and anthropic 2.x, both on httpx2; read in
site-packages): the `read` part of an httpx2 timeout bounds each socket read, so a server that
drips a byte every few seconds never trips it; both SDKs retry a timeout that happens before the
response headers `max_retries` times (2 by default); the error says "Request timed out." without
naming the setting; and an HTML page (a web site, a login page a 302 led to) is parsed as an
empty stream ("No generations found in stream").

`TimeoutClient.send` turns any httpx2 timeout, and a streamed body that completes no line (an
SSE event or keep-alive comment) within `request_timeout`, into `ProviderFault` naming the
provider and the setting; an HTML page, or a redirect that turned the POST into a GET, into one
naming the URL. Neither SDK retries it (openai retries only httpx2 errors; anthropic gets a
subclass of its own errors, which it passes through), nor does `Runnable.with_retry` (a langchain
`ModelError`, `is_retryable = False`). 429, 5xx and refused connections are still retried by the
SDK, at most `max_retries` times.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
from langchain_core.exceptions import ModelError

from auger.errors import ProviderError


class ProviderFault(ProviderError, ModelError):
    """The provider was silent for `request_timeout`, or its base_url is not the API (exit 1; never
    retried)."""

    is_retryable = False


class _TimedStream(httpx2.AsyncByteStream):
    """A response body that must complete a line every `seconds`, else `error(bytes since)`."""

    def __init__(self, inner: Any, seconds: float, error: Callable[[int], ProviderFault]) -> None:
        self._inner = inner
        self._seconds = seconds
        self._error = error

    def __getattr__(self, name: str) -> Any:  # e.g. the anthropic SDK's `stream_observer`
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        chunks, partial = aiter(self._inner), 0  # bytes since the last complete line
        deadline = loop.time() + self._seconds
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except (httpx2.TimeoutException, TimeoutError) as exc:
                raise self._error(partial) from exc
            if b"\n" in chunk:
                partial, deadline = len(chunk) - chunk.rindex(b"\n") - 1, loop.time() + self._seconds
            else:
                partial += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class TimeoutClient(httpx2.AsyncClient):
    """An `httpx2.AsyncClient` for one provider: its faults raise `kind` (a ProviderFault; the
    anthropic SDK wraps and retries any exception its client raises except its own errors, so
    for it `kind` is also an `anthropic.AnthropicError` — see auger.core.models.anthropic_compat)."""

    def __init__(
        self,
        provider: str,
        seconds: float,
        setting: str,
        *,
        kind: type[ProviderFault] = ProviderFault,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("follow_redirects", True)  # as the SDKs' default clients do
        super().__init__(timeout=httpx2.Timeout(seconds), **kwargs)
        where = f"[providers.{provider}]" if setting.startswith("providers.") else "config.toml"
        self._kind, self._seconds, self._provider = kind, seconds, provider

        def error(partial: int = 0) -> ProviderFault:
            what, part = (
                ("no complete line", f"only {partial} bytes of one; ") if partial else ("nothing", "")
            )
            return kind(
                f"provider {provider!r} sent {what} for {seconds:g} s ({part}{setting} = {seconds:g}); "
                "the request was given up and the thread keeps what was done.",
                hint=f"If the server is just slow, raise request_timeout in {where}.",
            )

        self._error = error

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        try:
            response = await super().send(request, **kwargs)
        except httpx2.TimeoutException as exc:
            raise self._error() from exc
        self._check_api(request, response)
        if kwargs.get("stream"):  # otherwise the body is read already, inside the `try`
            response.stream = _TimedStream(response.stream, self._seconds, self._error)
        return response

    def _check_api(self, request: httpx2.Request, response: httpx2.Response) -> None:
        """A redirect that made the POST a GET, or an HTML page as a success, is not the API: say
        so, naming the URL (and where it redirects). An HTML error page (a proxy's 502) is the
        SDK's: a status error, retried."""
        moved = next((r for r in response.history if r.status_code in (301, 302, 303)), None)
        html = response.is_success and "html" in response.headers.get("content-type", "")
        if request.method != "POST" or not (html or moved):
            return
        url = moved.request.url if moved else request.url
        api = "an OpenAI-compatible API" if url.path.endswith("/chat/completions") else "the provider's API"
        what = f"redirects to {response.url} ({moved.status_code})" if moved else "answered with an HTML page"
        raise self._kind(
            f"{url} {what}: it is not {api}; nothing was sent to a model.",
            hint=f"Check base_url in [providers.{self._provider}]: the API's address (often ending in /v1).",
        )
