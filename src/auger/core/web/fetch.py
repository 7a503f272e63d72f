"""One page over HTTP(S), bounded, as text the model can read.

`fetch(url, follow)` GETs `url` with httpx: only http/https; at most `MAX_BYTES` of the body are
read (streamed, the rest is never downloaded); `TIMEOUT` seconds for the whole fetch; redirects
followed by hand, at most `MAX_REDIRECTS`: one to another host is not followed but reported
(the model calls fetch_url on it, so that call meets the permission rules like any other), one
on the same host only when `follow(url)` says so (the caller re-checks the rules; it raises
WebError to refuse). `page_text` turns the body into text: HTML as markdown (markdownify, with
scripts, styles and other non-content dropped; at most `MAX_HTML` of it, for time and memory),
other text types as they are, anything else refused. The text is cut at `MAX_CHARS`, with a note.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

MAX_BYTES = 5 * 1024 * 1024
MAX_CHARS = 100_000
MAX_HTML = 512 * 1024  # HTML converted (after scripts and styles): ~2 s and ~50 MB in markdownify
MAX_REDIRECTS = 5
TIMEOUT = 30.0
USER_AGENT = "auger (fetch_url)"
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")
_CODE = re.compile(rb"<(script|style)\b")
_DROPPED = ["script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas", "head"]


class WebError(Exception):
    """A fetch that gave no page; the text is what the model reads."""


@dataclass(frozen=True)
class Page:
    url: str  # after same-host redirects
    content_type: str  # the media type, lower case, without parameters ("" when none was sent)
    charset: str | None
    body: bytes
    cut: bool  # the body was longer than MAX_BYTES


@dataclass(frozen=True)
class Redirect:
    """A redirect fetch_url does not follow by itself: `to` is where it leads."""

    url: str
    to: str
    status: int


def check_url(url: str) -> str:
    """`url` stripped, when it is an http(s) URL with a host; WebError otherwise."""
    text = str(url or "").strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise WebError(f"{text[:200]!r} is not a valid URL ({exc}).") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise WebError(f"{text[:200]!r} is not an http:// or https:// URL; fetch_url reads web pages only.")
    return text


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def fetch(url: str, follow: Callable[[str], bool], *, timeout: float = TIMEOUT) -> Page | Redirect:
    """GET `url` (see the module docstring); WebError when there is no page to show."""
    import httpx

    url = check_url(url)
    deadline = time.monotonic() + timeout
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html, text/*;q=0.9, */*;q=0.5"}
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False, headers=headers) as client:
            for _ in range(MAX_REDIRECTS + 1):
                with client.stream("GET", url) as resp:
                    if not resp.is_redirect:
                        return _page(resp, url, deadline)
                    target = _location(url, resp.headers.get("location", ""))
                if host_of(target) != host_of(url) or not follow(target):
                    return Redirect(url, target, resp.status_code)
                url = target
    except httpx.TimeoutException:
        raise WebError(f"{url} did not answer within {timeout:g} seconds.") from None
    except httpx.HTTPError as exc:
        raise WebError(f"{url} could not be fetched: {exc or type(exc).__name__}.") from None
    raise WebError(f"{url}: more than {MAX_REDIRECTS} redirects; stopped (a redirect loop?).")


def _location(url: str, location: str) -> str:
    if not location:
        raise WebError(f"{url} answered with a redirect that names no Location.")
    target = urljoin(url, location.strip())
    try:
        return check_url(target)
    except WebError:
        raise WebError(f"{url} redirects to {target[:200]!r}, which is not an http(s) URL.") from None


def _page(resp: object, url: str, deadline: float) -> Page:
    import httpx

    assert isinstance(resp, httpx.Response)
    if resp.status_code >= 400:
        raise WebError(f"{url} answered HTTP {resp.status_code} {resp.reason_phrase}.".replace(" .", "."))
    body, cut = read_body(resp, url, deadline, MAX_BYTES)
    media = resp.headers.get("content-type", "").split(";")[0].strip().lower()
    return Page(str(resp.url), media, resp.charset_encoding, body, cut)


def read_body(resp: object, url: str, deadline: float, cap: int) -> tuple[bytes, bool]:
    """At most `cap` bytes of a streamed response's body, and whether there was more."""
    import httpx

    assert isinstance(resp, httpx.Response)
    declared = resp.headers.get("content-length", "")
    body, cut = bytearray(), declared.isdigit() and int(declared) > cap
    for chunk in resp.iter_bytes():
        body += chunk
        if len(body) >= cap:
            cut = True
            del body[cap:]
            break
        if time.monotonic() > deadline:
            raise WebError(f"{url} sent its answer too slowly; stopped after {len(body):,} bytes.")
    return bytes(body), cut


def is_html(page: Page) -> bool:
    if page.content_type in ("text/html", "application/xhtml+xml"):
        return True
    return not page.content_type and page.body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))


def is_text(page: Page) -> bool:
    kind = page.content_type
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return True
    return not kind and b"\0" not in page.body[:8192]


def without_code(body: bytes) -> bytes:
    """`body` without its <script> and <style> elements, in one pass (an element that does not
    end takes the rest of the body with it)."""
    lower, out, at = body.lower(), [], 0
    while (found := _CODE.search(lower, at)) is not None:
        out.append(body[at : found.start()])
        end = lower.find(b"</" + found[1], found.end())
        if end < 0:
            return b"".join(out)
        at = lower.find(b">", end) + 1 or len(body)
    out.append(body[at:])
    return b"".join(out)


def html_markdown(body: bytes, charset: str | None) -> tuple[str, str]:
    """(title, markdown) of an HTML document: scripts, styles, frames and the head dropped."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(body, "html.parser", from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(_DROPPED):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    return title, re.sub(r"\n{3,}", "\n\n", text).strip()


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def page_text(page: Page) -> str:
    """What the model reads of a page: a header line, then its markdown or text (cut with a note)."""
    size = f"{len(page.body):,} bytes" + (f", cut at {MAX_BYTES // 2**20} MB" if page.cut else "")
    kind = page.content_type or "no content type"
    if is_html(page):
        html = without_code(page.body)
        title, text = html_markdown(html[:MAX_HTML], page.charset)
        part = f": the first {MAX_HTML // 1024} KB of its HTML" if len(html) > MAX_HTML else ""
        head = f"{page.url} ({kind}, {size}){part} as markdown" + (f"\nTitle: {title}" if title else "")
    elif is_text(page):
        text = _decode(page.body, page.charset)
        head = f"{page.url} ({kind}, {size})"
    else:
        raise WebError(
            f"{page.url} is {kind} ({size}), not text or HTML; fetch_url shows only text. "
            "To get the file, download it with a command (e.g. curl -o) if the user agrees."
        )
    if len(text) > MAX_CHARS:
        note = f"[cut: showing the first {MAX_CHARS:,} of {len(text):,} characters]"
        text = text[:MAX_CHARS] + f"\n\n{note}"
    return f"{head}\n\n{text}" if text else f"{head}\n\n(the page has no text)"
