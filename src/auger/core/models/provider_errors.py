"""Turn provider/network exceptions into one line that says what is wrong and what to do (and a
full disk under the thread database or a file auger writes, which no provider caused)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auger.settings import Settings


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


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and what caused it, in order (an SDK error wraps the httpx2 one)."""
    out = [exc]
    while len(out) <= 50 and (cause := out[-1].__cause__ or out[-1].__context__) is not None:
        out.append(cause)
    return out


def describe_error(exc: BaseException, spec: str | None, settings: Settings | None = None) -> str:
    from auger.errors import AugerError

    if isinstance(exc, AugerError):  # ours (ProviderFault, IncompleteReplyError) say it already
        return str(exc)
    if (full := _disk_full(exc, settings)) is not None:
        return full
    provider = (spec or "").partition(":")[0]
    cfg = settings.providers.get(provider) if settings is not None else None
    where = (cfg.base_url if cfg else None) or f"the {provider} API"
    model = spec or "the model"
    name = type(exc).__name__
    names = {cls.__name__.removeprefix("OpenAI") for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None) or next((_BY_NAME[n] for n in names if n in _BY_NAME), None)
    detail = _short(getattr(exc, "message", None) or str(exc))
    causes = _chain(exc)
    key = f"check {cfg.api_key_env}" if cfg and cfg.api_key_env else "check your API key"
    if status in _BY_STATUS:
        text = _BY_STATUS[status].format(key=key, detail=detail)
    elif isinstance(status, int) and status >= 500:
        text = f"the provider had a server error ({status}); retry later. {detail}".rstrip()
    elif isinstance(status, int):
        text = f"the provider refused the request ({status}): {detail}"
    elif any(cls.__name__ in _BROKEN for cause in causes for cls in type(cause).__mro__):
        text = (  # the first cause: e.g. httpx2's "incomplete chunked read" under the SDK's error
            f"the connection to {where} broke off before the reply was complete ({_short(causes[-1])}); "
            "nothing of the unfinished reply was run. Send the request again."
        )
    elif names & _SILENT:
        text = f"{where} sent nothing in time ({detail}); raise request_timeout if the server is just slow."
    elif names & _CONNECT:
        text = f"cannot reach {where} ({detail}); is the server running and the URL right?"
    elif isinstance(exc, json.JSONDecodeError) or "APIResponseValidationError" in names:
        text = "the server sent a response that is not valid chat-completions JSON."
    else:
        text = f"{name}: {detail}"
    return f"{model}: {text}"


def _disk_full(exc: BaseException, settings: Settings | None) -> str | None:
    """One line for a full disk: SQLite's "database or disk is full" or an OSError ENOSPC."""
    import errno

    for cause in _chain(exc):
        if isinstance(cause, OSError) and cause.errno == errno.ENOSPC:
            where = cause.filename or "a file auger writes"
        elif type(cause).__name__ == "OperationalError" and "disk is full" in str(cause):
            where = (
                f"the thread database in {settings.home}" if settings is not None else "the thread database"
            )
        else:
            continue
        return f"{where}: disk full. Free some space; the thread keeps what was saved before."
    return None


def _short(text: Any, limit: int = 200) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
