"""The web tools as the model meets them: `fetch_url(url)` always, `web_search(query)` when
`[web_search] provider` is set (`web_tools`).

Both reach the network, so both ask in manual mode (`GATED_TOOLS`) and meet the permission rules
(`fetch_url(domain:example.com)`, Claude Code's `WebFetch(domain:...)`). With the sandbox on and
its network off they refuse to run, saying how to allow them. A redirect on the same host is
followed only when the rules would allow a call on its URL as they allowed this one (a deny rule
refuses it); any other redirect is reported to the model, whose next call is judged afresh.
Failures are error results (`ToolException`), not tracebacks.
"""

from __future__ import annotations

from typing import Any

from langchain.tools import ToolRuntime, tool
from langchain_core.tools import BaseTool, ToolException

FETCH = "fetch_url"
SEARCH = "web_search"


def network_refusal(settings: Any, name: str) -> str | None:
    """Why `name` may not run in this session (the sandbox keeps the network off), else None."""
    if not settings.get("sandbox.enabled") or settings.get("sandbox.network"):
        return None
    return (
        f"Refused: {name} reaches the network, and the sandbox has it off. To allow it the user sets "
        "`[sandbox] network = true` in config.toml (or runs without --sandbox). Tell the user; do not "
        "try to reach the network another way."
    )


def _follows(runtime: Any, url: str) -> bool:
    """Whether fetch_url follows a same-host redirect to `url` by itself (see the docstring)."""
    from auger.core.web.fetch import WebError

    ctx: Any = getattr(runtime, "context", None)
    engine = getattr(ctx, "permissions", None)
    if engine is None:
        return True
    verdict = engine.evaluate(FETCH, {"url": url}, mode=ctx.mode, gated=True, grants=sorted(ctx.always_allow))
    if verdict.action == "deny":
        raise WebError(
            f"Refused: the page redirects to {url}, which the {verdict.reason} in the user's [permissions] "
            "refuses. Do not retry it or work around it."
        )
    first = getattr(ctx, "verdicts", {}).get(getattr(runtime, "tool_call_id", None))
    return verdict.action == "allow" or (verdict.by == "mode" and getattr(first, "action", None) == "ask")


def fetch_tool(settings: Any) -> BaseTool:
    @tool(FETCH)
    def fetch_url(url: str, runtime: ToolRuntime) -> str:  # type: ignore[type-arg]
        """Fetch an http(s) URL: HTML as markdown, other text as is; long pages are cut."""
        from auger.core.web.fetch import Redirect, WebError, fetch, host_of, page_text

        refusal = network_refusal(settings, FETCH)
        if refusal:
            raise ToolException(refusal)
        try:
            got = fetch(url, lambda target: _follows(runtime, target))
            if isinstance(got, Redirect):
                where = " (another host)" if host_of(got.to) != host_of(got.url) else ""
                return (
                    f"Not followed: {got.url} redirects (HTTP {got.status}) to {got.to}{where}. "
                    "Call fetch_url with that URL to read it."
                )
            return page_text(got)
        except WebError as exc:
            raise ToolException(str(exc)) from None

    fetch_url.handle_tool_error = True
    return fetch_url


def search_tool(settings: Any, engine: Any) -> BaseTool:
    @tool(SEARCH)
    def web_search(query: str, max_results: int = 5) -> str:
        """Search the web: title, URL and snippet of each result (max_results ≤ 10)."""
        from auger.core.web.fetch import WebError
        from auger.core.web.search import search

        refusal = network_refusal(settings, SEARCH)
        if refusal:
            raise ToolException(refusal)
        try:
            return search(engine, query, max_results)
        except WebError as exc:
            raise ToolException(str(exc)) from None

    web_search.handle_tool_error = True
    return web_search


def web_tools(settings: Any) -> list[BaseTool]:
    """fetch_url, and web_search when an engine is configured."""
    from auger.core.web.search import configured

    engine = configured(settings)
    return [fetch_tool(settings), *([search_tool(settings, engine)] if engine else [])]
