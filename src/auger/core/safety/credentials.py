"""Credentials recognised by their shape inside any text, for `auger.core.safety.redaction`.

* a password in a URL: `postgres://user:PASSWORD@host`, `https://user:TOKEN@host`, and a token
  as the whole user part (`https://ghp_...@github.com`, 20+ characters);
* authorization headers: `Authorization: Bearer …`, `Authorization: token …`, `Basic …`,
  `Proxy-Authorization:`, and key headers (`X-Api-Key:`, `Api-Key:`, `X-Auth-Token:`,
  `Private-Token:`, `X-Goog-Api-Key:`, …), also as JSON or Python (`"Authorization": "Bearer …"`);
  a bare `Bearer` followed by a 20+ character token;
* secrets in a query string: `?api_key=…`, `&access_token=…`, `&client_secret=…`, `&sig=…`;
* token formats with a known prefix: GitHub (`ghp_`, `gho_`, `github_pat_`…), GitLab (`glpat-`),
  Slack (`xox?-`), OpenAI/Anthropic-style `sk-…`, AWS access key ids (`AKIA…`).

Only the secret part is replaced, by `[redacted]` (`postgres://user:[redacted]@host`). A value
that is a template or a reference is left alone — it starts with `$`, `{`, `<`, `%` or `[`
(`$TOKEN`, `${{ secrets.X }}`, `{token}`, `<token>`, a placeholder already there) or is only
`*`s — so code that builds a header from a variable reads as written. Standard library only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

PLACEHOLDER = "[redacted]"
_URL_PASSWORD = "a password in a URL"
_MIN_VALUE = 8
_VALUE = r"[^\s\"'`,;<>(){}\[\]]+"  # a header or query value: up to a quote, space or separator
_HEADERS = (
    r"x-api-key|api-key|apikey|x-auth-token|x-access-token|private-token|x-goog-api-key"
    r"|x-amz-security-token|x-vault-token|ocp-apim-subscription-key|x-figma-token"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        _URL_PASSWORD,
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@\"'`<>]*:(?P<secret>[^\s@/\"'`<>]+)@", re.IGNORECASE),
    ),
    (
        "a token in a URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://(?P<secret>[A-Za-z0-9_\-]{20,})@", re.IGNORECASE),
    ),
    (
        "an authorization header",
        re.compile(
            r"\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            rf"(?:(?:bearer|token|basic|digest|bot|apikey|sso-key)\s+)?(?P<secret>{_VALUE})",
            re.IGNORECASE,
        ),
    ),
    ("a key header", re.compile(rf"\b(?:{_HEADERS})[\"']?\s*:\s*[\"']?(?P<secret>{_VALUE})", re.IGNORECASE)),
    ("a bearer token", re.compile(r"\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)", re.IGNORECASE)),
    (
        "a secret in a query string",
        re.compile(
            r"[?&](?:api[_-]?key|access[_-]?token|auth[_-]?token|token|key|secret|client[_-]?secret"
            r"|password|passwd|sig|signature)=(?P<secret>[^&\s#\"'`<>]+)",
            re.IGNORECASE,
        ),
    ),
    (
        "a token",
        re.compile(
            r"\b(?P<secret>(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_\-]{20,}"
            r"|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}|AKIA[0-9A-Z]{16}))\b"
        ),
    ),
)
_SCHEMES = frozenset({"bearer", "token", "basic", "digest", "bot", "apikey", "sso-key"})
# after these a credential may still follow in a later word (`Authorization: Bearer` then the token)
HEADER_HINT = re.compile(rf"authorization|bearer|{_HEADERS}", re.IGNORECASE)


def _is_reference(value: str) -> bool:
    return value[:1] in "${<%[" or set(value) <= {"*"} or value.lower() in _SCHEMES


def _counts(kind: str, value: str) -> bool:
    """A URL's password counts at any length; a header or query value from 8 characters (shorter
    ones are words in prose and code: `Authorization: none`, `f"Bearer {token}"`)."""
    return not _is_reference(value) and (kind == _URL_PASSWORD or len(value) >= _MIN_VALUE)


class Match(NamedTuple):
    start: int  # where the match and its context begin (`Authorization: `, `postgres://user:`)
    end: int  # where it ends (after the `@` of a URL's password)
    secret_start: int
    secret_end: int
    kind: str


def matches(text: str) -> list[Match]:
    """Each credential in `text`, in order."""
    found: list[Match] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span("secret")
            if _counts(kind, m.group("secret")) and not any(
                f.secret_start < end and start < f.secret_end for f in found
            ):
                found.append(Match(m.start(), m.end(), start, end, kind))
    return sorted(found, key=lambda f: f.secret_start)


def redact(text: str) -> str:
    """`text` with every credential replaced by `[redacted]`."""
    out, last = [], 0
    for m in matches(text):
        out += [text[last : m.secret_start], PLACEHOLDER]
        last = m.secret_end
    return "".join(out) + text[last:] if out else text


def secrets_in(value: str) -> list[str]:
    """The credentials inside `value` (e.g. an environment variable's URL), as they are written."""
    return [value[m.secret_start : m.secret_end] for m in matches(value)]


def kinds_in(text: str) -> list[str]:
    return sorted({m.kind for m in matches(text)})
