"""The web tools as the model meets them: the real `auger -n` against the scripted model and a
local HTTP server (127.0.0.1) that serves pages, redirects, huge and binary bodies, and fake
SearXNG / Tavily / Brave endpoints with those APIs' request and answer shapes. Every assertion is
on the tool message the model reads in its next request."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import AugerEnv

PAGE = (
    b"<!doctype html><html><head><title>Docs page</title><style>body{color:red}</style>"
    b"<script>var leaked = 'SCRIPT-TEXT';</script></head><body><h1>Install</h1>"
    b"<p>Run <code>pip install x</code> then read <a href='/next'>the guide</a>.</p>"
    b"<script>alert('SCRIPT-TWO')</script><noscript>NOSCRIPT-TEXT</noscript><ul><li>one</li></ul></body></html>"
)
HUGE = 8 * 1024 * 1024


class Site(http.server.BaseHTTPRequestHandler):
    """Routes by path; every request is recorded in `self.server.seen`."""

    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, to: str) -> None:
        self.send_response(302)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        self.server.seen.append({"method": self.command, "path": url.path, "query": query,
                                 "headers": dict(self.headers), "body": body})  # fmt: skip
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._serve(url.path, query, body)

    def _serve(self, path: str, query: dict[str, list[str]], body: bytes) -> None:
        redirects = {"/loop": "/loop", "/to-secret": "/secret"}
        redirects["/elsewhere"] = f"http://localhost:{self.server.server_port}/page"
        texts = {
            "/secret": b"the secret page",
            "/notes.txt": "plain notes: caf\u00e9 <b>not html</b>\n".encode(),
        }
        engines = {"/search": lambda: _searx(query), "/tavily": lambda: _tavily(json.loads(body))}
        engines["/brave"] = lambda: _brave(query)
        if path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif path.startswith("/hop/"):  # /hop/N redirects N times, then to /page
            left = int(path.rsplit("/", 1)[1])
            self._redirect(f"/hop/{left - 1}" if left > 1 else "/page")
        elif path in redirects:
            self._redirect(redirects[path])
        elif path in texts:
            self._send(200, texts[path], "text/plain; charset=utf-8")
        elif path == "/logo.png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "image/png")
        elif path == "/huge":
            self._huge()
        elif path in engines:  # /search: SearXNG's own path
            self._send(200, json.dumps(engines[path]()).encode(), "application/json")
        else:
            self._send(404, b"not here", "text/plain")

    def _huge(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(HUGE))
        self.end_headers()
        chunk = b"<p>" + b"word " * 200 + b"</p>\n"
        sent = 0
        while sent < HUGE:
            piece = chunk[: HUGE - sent]
            self.wfile.write(piece)
            sent += len(piece)


def _searx(query: dict[str, list[str]]) -> dict[str, Any]:
    assert query["format"] == ["json"]
    results = [
        {"title": f"Result {n} for {query['q'][0]}", "url": f"https://example.org/{n}",
         "content": f"Snippet {n} &amp; more", "engine": "duckduckgo", "score": 1.0}
        for n in range(1, 13)
    ]  # fmt: skip
    return {"query": query["q"][0], "number_of_results": 12, "results": results, "answers": []}


def _tavily(body: dict[str, Any]) -> dict[str, Any]:
    results = [
        {"title": f"Tavily {n}", "url": f"https://tavily.example/{n}", "content": f"About {body['query']}",
         "score": 0.9}
        for n in range(1, body["max_results"] + 1)
    ]  # fmt: skip
    return {"query": body["query"], "answer": None, "results": results, "response_time": 0.5}


def _brave(query: dict[str, list[str]]) -> dict[str, Any]:
    results = [
        {"title": f"Brave <strong>{n}</strong>", "url": f"https://brave.example/{n}",
         "description": f"Found <strong>{query['q'][0]}</strong>"}
        for n in range(1, int(query["count"][0]) + 1)
    ]  # fmt: skip
    return {
        "type": "search",
        "query": {"original": query["q"][0]},
        "web": {"type": "search", "results": results},
    }


@pytest.fixture
def site() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    server.seen = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def base(site: Any) -> str:
    return f"http://127.0.0.1:{site.server_port}"


def fetches(*urls: str) -> list[dict[str, Any]]:
    return [{"tool_calls": [{"name": "fetch_url", "args": {"url": url}}]} for url in urls]


def tool_messages(env: AugerEnv) -> list[str]:
    return [str(m["content"]) for m in env.llm.requests[-1]["messages"] if m["role"] == "tool"]


def offered(env: AugerEnv) -> list[str]:
    return [t["function"]["name"] for t in env.llm.requests[0].get("tools") or []]


def run(env: AugerEnv, *args: str) -> list[str]:
    proc = env.run("-n", "read the web", *args)
    assert proc.returncode == 0, proc.stderr
    return tool_messages(env)


def test_fetch_url_gives_markdown_text_and_bounded_clear_errors(auger_env: AugerEnv, site: Any) -> None:
    root = base(site)
    paths = ["/page", "/hop/3", "/loop", "/elsewhere", "/notes.txt", "/logo.png", "/huge", "/missing"]
    auger_env.llm.add(*fetches(*(root + p for p in paths), "file:///etc/passwd"), {"text": "done"})
    page, hops, loop, elsewhere, notes, logo, huge, missing, scheme = run(auger_env, "--mode", "yolo")
    assert page.startswith(f"{root}/page (text/html, {len(PAGE)} bytes) as markdown\nTitle: Docs page\n")
    assert "# Install" in page and "Run `pip install x` then read [the guide](/next)." in page
    assert "- one" in page
    assert not any(hidden in page for hidden in ("SCRIPT-TEXT", "SCRIPT-TWO", "NOSCRIPT", "color:red"))
    assert hops.startswith(f"{root}/page (text/html") and "# Install" in hops  # 3 same-host redirects
    assert loop == f"{root}/loop: more than 5 redirects; stopped (a redirect loop?)."
    port = site.server_port
    assert elsewhere == (
        f"Not followed: {root}/elsewhere redirects (HTTP 302) to http://localhost:{port}/page "
        "(another host). Call fetch_url with that URL to read it."
    )
    assert notes == f"{root}/notes.txt (text/plain, 35 bytes)\n\nplain notes: caf\u00e9 <b>not html</b>\n"
    assert logo.startswith(f"{root}/logo.png is image/png (10,248 bytes), not text or HTML;"), logo
    # 100,000 characters are more than the model is shown inline: deepagents keeps them in a file
    spilled = huge.split("saved in the filesystem at this path: /~artifacts/", 1)[1].split()[0]
    head, _, rest = (auger_env.home / "artifacts" / spilled).read_text().partition("\n\n")
    assert (
        head
        == f"{root}/huge (text/html, 5,242,880 bytes, cut at 5 MB): the first 512 KB of its HTML as markdown"
    )
    assert rest.startswith("word word") and rest.endswith(" characters]")
    assert "[cut: showing the first 100,000 of " in rest and len(rest) < 100_200
    assert missing == f"{root}/missing answered HTTP 404 Not Found."
    assert scheme == "'file:///etc/passwd' is not an http:// or https:// URL; fetch_url reads web pages only."
    assert len([s for s in site.seen if s["path"] == "/loop"]) == 6  # the first GET and 5 redirects
    assert len([s for s in site.seen if s["path"] == "/huge"]) == 1


def test_domain_rules_allow_deny_and_redirects_are_rechecked(auger_env: AugerEnv, site: Any) -> None:
    root, port = base(site), site.server_port
    auger_env.write_config(
        '\n[permissions]\nallow = ["fetch_url(domain:127.0.0.1)"]\ndeny = ["fetch_url(*/secret)"]\n'
    )
    auger_env.llm.add(
        *fetches(f"{root}/page", f"{root}/to-secret", f"{root}/elsewhere", f"http://localhost:{port}/page"),
        {"text": "done"},
    )
    page, secret, elsewhere, other_host = run(auger_env, "--mode", "manual")
    assert "# Install" in page  # allowed by the rule: manual mode does not ask
    assert secret == (
        f'Refused: the page redirects to {root}/secret, which the deny rule "fetch_url(*/secret)" in the '
        "user's [permissions] refuses. Do not retry it or work around it."
    )
    assert not [s for s in site.seen if s["path"] == "/secret"]
    assert elsewhere.startswith("Not followed:") and "(another host)" in elsewhere
    assert "fetch_url" in other_host and "headless" in other_host, other_host  # manual asks; nobody answers
    assert [s["headers"]["Host"] for s in site.seen].count(f"localhost:{port}") == 0


@pytest.mark.parametrize("rule", ["fetch_url(domain:127.0.0.1)", "WebFetch(domain:127.0.0.1)", "fetch_url"])
def test_a_deny_rule_wins_over_yolo(auger_env: AugerEnv, site: Any, rule: str) -> None:
    auger_env.write_config(f'\n[permissions]\ndeny = ["{rule}"]\n')
    auger_env.llm.add(*fetches(f"{base(site)}/page"), {"text": "done"})
    [message] = run(auger_env, "--mode", "yolo")
    assert message.startswith("Refused: fetch_url") and f'deny rule "{rule}"' in message
    assert "fetch_url" in offered(auger_env)  # refused as a tool the model is offered
    assert site.seen == []


def test_manual_mode_asks_so_a_headless_run_refuses(auger_env: AugerEnv, site: Any) -> None:
    auger_env.llm.add(*fetches(f"{base(site)}/page"), {"text": "done"})
    [message] = run(auger_env, "--mode", "manual")
    assert "mode 'manual' asks before fetch_url" in message and "headless" in message, message
    assert site.seen == []


@pytest.mark.parametrize("network", [False, True])
def test_the_sandbox_refuses_the_web_unless_its_network_is_on(
    auger_env: AugerEnv, site: Any, network: bool
) -> None:
    auger_env.write_config(f"\n[sandbox]\nnetwork = {str(network).lower()}\n")
    auger_env.llm.add(*fetches(f"{base(site)}/notes.txt"), {"text": "done"})
    [message] = run(auger_env, "--mode", "yolo", "--sandbox")
    if network:
        assert "plain notes" in message
    else:
        assert message.startswith("Refused: fetch_url reaches the network, and the sandbox has it off.")
        assert "`[sandbox] network = true`" in message and site.seen == []


def test_without_a_provider_there_is_no_web_search(auger_env: AugerEnv) -> None:
    auger_env.llm.add({"text": "hello"})
    run(auger_env, "--mode", "yolo")
    assert "fetch_url" in offered(auger_env) and "web_search" not in offered(auger_env)


def test_an_untrusted_project_cannot_set_the_search_engine(auger_env: AugerEnv, site: Any) -> None:
    """Its url would receive the queries, and the user's key with them."""
    (auger_env.project / ".auger").mkdir()
    (auger_env.project / ".auger" / "config.toml").write_text(
        f'[web_search]\nprovider = "tavily"\nurl = "{base(site)}/tavily"\napi_key_env = "OPENAI_API_KEY"\n'
    )
    auger_env.llm.add({"text": "hello"})
    proc = auger_env.run("-n", "hi", "--mode", "yolo")
    assert proc.returncode == 0, proc.stderr
    assert "web_search" not in offered(auger_env) and "fetch_url" in offered(auger_env)
    assert "web_search.url is ignored: the project is not trusted" in proc.stderr, proc.stderr


@pytest.mark.parametrize("provider", ["searxng", "tavily", "brave"])
def test_web_search_through_the_configured_engine(auger_env: AugerEnv, site: Any, provider: str) -> None:
    url = {"searxng": base(site), "tavily": f"{base(site)}/tavily", "brave": f"{base(site)}/brave"}[provider]
    auger_env.write_config(
        f'\n[web_search]\nprovider = "{provider}"\nurl = "{url}"\napi_key_env = "MY_KEY"\n'
    )
    auger_env.env["MY_KEY"] = "key-123"
    auger_env.llm.add(
        {"tool_calls": [{"name": "web_search", "args": {"query": "auger docs", "max_results": 3}}]},
        {"text": "done"},
    )
    [message] = run(auger_env, "--mode", "yolo")
    assert "web_search" in offered(auger_env)
    [seen] = site.seen
    lines = message.splitlines()
    assert lines[0] == f"Results for 'auger docs' ({provider}):" and len(lines) == 1 + 3 * 3
    if provider == "searxng":
        assert seen["method"] == "GET" and seen["query"] == {"q": ["auger docs"], "format": ["json"]}
        assert lines[1:4] == ["1. Result 1 for auger docs", "   https://example.org/1", "   Snippet 1 & more"]
    elif provider == "tavily":
        assert seen["method"] == "POST" and seen["headers"]["Authorization"] == "Bearer key-123"
        assert json.loads(seen["body"]) == {"query": "auger docs", "max_results": 3}
        assert lines[1:4] == ["1. Tavily 1", "   https://tavily.example/1", "   About auger docs"]
    else:
        assert seen["headers"]["X-Subscription-Token"] == "key-123"
        assert seen["query"] == {"q": ["auger docs"], "count": ["3"]}
        assert lines[1:4] == ["1. Brave 1", "   https://brave.example/1", "   Found auger docs"]


def test_web_search_without_its_key_says_which_variable(auger_env: AugerEnv, site: Any) -> None:
    auger_env.write_config(f'\n[web_search]\nprovider = "brave"\nurl = "{base(site)}/brave"\n')
    auger_env.llm.add({"tool_calls": [{"name": "web_search", "args": {"query": "x"}}]}, {"text": "done"})
    [message] = run(auger_env, "--mode", "yolo")
    assert message == (
        "web_search (brave) needs an API key in the environment variable BRAVE_API_KEY, which is not set. "
        "Tell the user."
    )
    assert site.seen == []
