"""Turn provider/network exceptions into one line that says what is wrong and what to do."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings


def _where(spec: str | None, settings: Settings | None) -> tuple[str, str | None, str | None]:
    provider = (spec or "").partition(":")[0]
    cfg = settings.providers.get(provider) if settings is not None else None
    base_url = cfg.base_url if cfg is not None else None
    key_env = cfg.api_key_env if cfg is not None else None
    return provider, base_url, key_env


_BY_STATUS = {
    401: "the provider rejected the credentials (401): {key}.",
    403: "access denied by the provider (403): {detail}",
    404: "the provider does not know this model (404); pick another with --model or /model.",
    429: "rate limited by the provider (429); wait a moment and retry, or switch model.",
}
_BY_NAME = {"AuthenticationError": 401, "NotFoundError": 404, "RateLimitError": 429}
_CONNECT = {"APIConnectionError", "ConnectError", "ConnectTimeout", "APITimeoutError"}
_BROKEN = {"RemoteProtocolError", "ReadError"}  # httpx2/httpcore2: the peer closed mid-response
_SILENT = {"ReadTimeout", "APITimeoutError"}  # e.g. Ollama's httpx client: no bytes in time


def _chain(exc: BaseException) -> set[str]:
    """Class names of `exc` and of what caused it (an SDK error wraps the httpx2 one)."""
    names: set[str] = set()
    seen: BaseException | None = exc
    for _ in range(50):
        if seen is None:
            break
        names |= {cls.__name__ for cls in type(seen).__mro__}
        seen = seen.__cause__ or seen.__context__
    return names


def describe_error(exc: BaseException, spec: str | None, settings: Settings | None = None) -> str:
    from auger.errors import AugerError

    if isinstance(exc, AugerError):  # ours (RequestTimeout, IncompleteReplyError) say it already
        return str(exc)
    provider, base_url, key_env = _where(spec, settings)
    model = spec or "the model"
    name = type(exc).__name__
    names = {cls.__name__.removeprefix("OpenAI") for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None) or next((_BY_NAME[n] for n in names if n in _BY_NAME), None)
    detail = _short(getattr(exc, "message", None) or str(exc))
    key = f"check {key_env}" if key_env else "check your API key"
    if status in _BY_STATUS:
        text = _BY_STATUS[status].format(key=key, detail=detail)
    elif isinstance(status, int) and status >= 500:
        text = f"the provider had a server error ({status}); retry later. {detail}".rstrip()
    elif isinstance(status, int):
        text = f"the provider refused the request ({status}): {detail}"
    elif _chain(exc) & _BROKEN:
        where = base_url or f"the {provider} API"
        text = (
            f"the connection to {where} broke off before the reply was complete ({_short(_root(exc))}); "
            "nothing of the unfinished reply was run. Send the request again."
        )
    elif names & _SILENT:
        where = base_url or f"the {provider} API"
        text = f"{where} sent nothing in time ({detail}); raise request_timeout if the server is just slow."
    elif names & _CONNECT:
        where = base_url or f"the {provider} API"
        text = f"cannot reach {where} ({detail}); is the server running and the URL right?"
    elif isinstance(exc, json.JSONDecodeError) or "APIResponseValidationError" in names:
        text = "the server sent a response that is not valid chat-completions JSON."
    else:
        text = f"{name}: {detail}"
    return f"{model}: {text}"


def _root(exc: BaseException) -> BaseException:
    """The first cause of `exc` (e.g. httpx2's "incomplete chunked read" under the SDK's error)."""
    for _ in range(50):
        cause = exc.__cause__ or exc.__context__
        if cause is None:
            break
        exc = cause
    return exc


def _short(text: Any, limit: int = 200) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
