"""`web_search` through the engine the user configured (`[web_search]` in config.toml).

* `searxng`: `url` is the instance (or its `/search`); GET `?q=...&format=json` (the instance must
  allow the json format), `results[].title/url/content`.
* `tavily`: POST `{"query", "max_results"}` with `Authorization: Bearer KEY` to
  https://api.tavily.com/search (or `url`), `results[].title/url/content`.
* `brave`: GET `?q=...&count=N` with `X-Subscription-Token: KEY` to Brave's web search endpoint
  (or `url`), `web.results[].title/url/description`.

The key is read from the environment variable `api_key_env` names (default TAVILY_API_KEY,
BRAVE_API_KEY), never from the config file. Answers are read up to `MAX_ANSWER` bytes; results
are numbered lines of title, URL and snippet, each field cut short.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from auger.core.web.fetch import TIMEOUT, USER_AGENT, WebError, check_url, read_body

PROVIDERS = ("searxng", "tavily", "brave")
_ENDPOINTS = {
    "tavily": "https://api.tavily.com/search",
    "brave": "https://api.search.brave.com/res/v1/web/search",
}
_KEY_ENV = {"tavily": "TAVILY_API_KEY", "brave": "BRAVE_API_KEY"}
MAX_ANSWER = 2 * 1024 * 1024
MAX_RESULTS = 10


@dataclass(frozen=True)
class Engine:
    provider: str
    url: str | None
    key_env: str | None

    @property
    def endpoint(self) -> str:
        url = self.url or _ENDPOINTS.get(self.provider)
        if not url:
            raise WebError(
                f'web_search is not set up: [web_search] provider = "{self.provider}" needs '
                '`url`, e.g. url = "http://localhost:8080". Tell the user.'
            )
        url = check_url(url)
        if self.provider == "searxng" and not url.rstrip("/").endswith("/search"):
            url = url.rstrip("/") + "/search"
        return url

    def key(self) -> str | None:
        name = self.key_env or _KEY_ENV.get(self.provider)
        value = os.environ.get(name or "", "").strip()
        if not value and self.provider in _KEY_ENV:
            raise WebError(
                f"web_search ({self.provider}) needs an API key in the environment variable {name}, "
                "which is not set. Tell the user."
            )
        return value or None


def configured(settings: Any) -> Engine | None:
    """The engine `[web_search]` names, or None when no provider is set."""
    provider = str(settings.get("web_search.provider") or "").strip().lower()
    if not provider:
        return None
    return Engine(provider, settings.get("web_search.url") or None, settings.get("web_search.api_key_env"))


def search(engine: Engine, query: str, count: int = 5) -> str:
    """The results of `query` as numbered lines; WebError when the engine gives none."""
    import httpx

    query = str(query or "").strip()
    if not query:
        raise WebError("web_search needs a non-empty query.")
    count = max(1, min(int(count or 5), MAX_RESULTS))
    url, key = engine.endpoint, engine.key()
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    request: dict[str, Any] = {"method": "GET", "url": url, "headers": headers}
    if engine.provider == "tavily":
        headers["Authorization"] = f"Bearer {key}"
        request.update(method="POST", json={"query": query, "max_results": count})
    elif engine.provider == "brave":
        headers["X-Subscription-Token"] = key or ""
        request["params"] = {"q": query, "count": count}
    else:
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request["params"] = {"q": query, "format": "json"}
    deadline = time.monotonic() + TIMEOUT
    try:
        with httpx.Client(timeout=TIMEOUT) as client, client.stream(**request) as resp:
            body, cut = read_body(resp, url, deadline, MAX_ANSWER)
            status = resp.status_code
    except httpx.HTTPError as exc:
        raise WebError(
            f"web_search ({engine.provider}) at {url} failed: {exc or type(exc).__name__}."
        ) from None
    data = _json(engine, url, status, body, cut)
    results = _results(engine.provider, data)[:count]
    if not results:
        return f"No results for {query!r} ({engine.provider})."
    lines = [f"Results for {query!r} ({engine.provider}):"]
    for n, (title, link, snippet) in enumerate(results, 1):
        lines.append(f"{n}. {title or '(no title)'}\n   {link}" + (f"\n   {snippet}" if snippet else ""))
    return "\n".join(lines)


def _json(engine: Engine, url: str, status: int, body: bytes, cut: bool) -> Any:
    where = f"web_search ({engine.provider}) at {url}"
    text = body[:300].decode("utf-8", errors="replace").strip()
    if status >= 400:
        raise WebError(f"{where} answered HTTP {status}: {text}")
    if cut:
        raise WebError(f"{where} answered more than {MAX_ANSWER // 2**20} MB; refused.")
    try:
        return json.loads(body)
    except ValueError:
        hint = " (SearXNG: enable `json` under search.formats in its settings.yml)" * (
            engine.provider == "searxng"
        )
        raise WebError(f"{where} did not answer JSON{hint}: {text}") from None


def _results(provider: str, data: Any) -> list[tuple[str, str, str]]:
    items: Any = data.get("results") if isinstance(data, dict) else None
    if provider == "brave":
        web = data.get("web") if isinstance(data, dict) else None
        items = web.get("results") if isinstance(web, dict) else None
    snippet_key = "description" if provider == "brave" else "content"
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            out.append(
                (_plain(item.get("title"), 200), _plain(item["url"], 500), _plain(item.get(snippet_key), 400))
            )
    return out


def _plain(value: Any, limit: int) -> str:
    """A field as one line of plain text (tags such as Brave's <strong> removed), cut at `limit`."""
    text = " ".join(html.unescape(re.sub(r"<[^>]*>", "", str(value or ""))).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
