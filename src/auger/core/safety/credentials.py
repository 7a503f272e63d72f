"""Credentials recognised by their shape inside any text, for `auger.core.safety.redaction`.

* a password in a URL: `postgres://user:PASSWORD@host`, `https://user:TOKEN@host`, and a token
  as the whole user part (`https://ghp_...@github.com`, 20+ characters);
* authorization headers: `Authorization: Bearer …`, `Authorization: token …`, `Basic …`,
  `Proxy-Authorization:`, and key headers (`X-Api-Key:`, `Api-Key:`, `X-Auth-Token:`,
  `Private-Token:`, `X-Goog-Api-Key:`, …), also as JSON or Python (`"Authorization": "Bearer …"`);
  a bare `Bearer` followed by a 20+ character token;
* secrets in a query string: `?api_key=…`, `&access_token=…`, `&client_secret=…`, `&sig=…`;
* a private key's PEM block (its body, up to the END line or the end of the text), and a value
  assigned to a secret-looking name (`aws_secret_access_key = …`, `API_TOKEN="…"`, 8+ characters
  with a digit: `token = get_token` is code, not a secret);
* tokens by their format: the patterns of detect-secrets' plugins (GitHub, GitLab, Slack, Stripe,
  AWS, JWT, npm, PyPI, SendGrid, Twilio, …; loaded on the first use, so `auger --version` stays
  light), and what it lacks (`github_pat_`, `sk-ant-`/`sk-proj-`, `xox?-` without digits). A token
  is redacted to the end of its word (a JWT's signature too).

Only the secret part is replaced, by `[redacted]` (`postgres://user:[redacted]@host`). A value
that is a template or a reference is left alone — it starts with `$`, `{`, `<`, `%` or `[`
(`$TOKEN`, `${{ secrets.X }}`, `{token}`, `<token>`, a placeholder already there) or is only
`*`s — so code that builds a header from a variable reads as written.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

PLACEHOLDER = "[redacted]"
_URL_PASSWORD = "a password in a URL"
_PRIVATE_KEY = "a private key"
_MIN_VALUE = 8
_VALUE = r"[^\s\"'`,;<>(){}\[\]]+"  # a header or query value: up to a quote, space or separator
_HEADERS = (
    r"x-api-key|api-key|apikey|x-auth-token|x-access-token|private-token|x-goog-api-key"
    r"|x-amz-security-token|x-vault-token|ocp-apim-subscription-key|x-figma-token"
)
_SECRET_WORDS = r"secret|token|passw(?:or)?d|api_?key|access_?key|private_?key"  # in a name given a value
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
        _PRIVATE_KEY,  # from `PRIVATE`: the BEGIN may have streamed before (a stream holds from there)
        re.compile(
            r"PRIVATE KEY(?: BLOCK)?-----\s*(?P<secret>.+?)\s*(?=-----END |\Z)",
            re.DOTALL,
        ),
    ),
    (
        "a secret assignment",
        re.compile(
            rf"(?:{_SECRET_WORDS})\w*[\"']?\s*(?::=|=>|:|=)\s*[\"']?"
            r"(?P<secret>(?=[^\s\"'`,;<>(){}\[\]]*[A-Za-z])[^\s\"'`,;<>(){}\[\]]*\d[^\s\"'`,;<>(){}\[\]]*)(?=$|[\s\"'`,;])",
            re.IGNORECASE,
        ),
    ),
    (
        "a token",
        re.compile(
            r"\b(?P<secret>(?:github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}"
            r"|sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}))\b"
        ),
    ),
)
_SCHEMES = frozenset({"bearer", "token", "basic", "digest", "bot", "apikey", "sso-key"})
# after these a credential may still follow in a later word (`Authorization: Bearer` then the token,
# `secret_key =` then its value, a PEM header then its body)
HEADER_HINT = re.compile(rf"authorization|bearer|{_HEADERS}|{_SECRET_WORDS}|PRIVATE", re.IGNORECASE)


def _is_reference(value: str) -> bool:
    return value[:1] in "${<%[" or set(value) <= {"*"} or value.lower() in _SCHEMES


def _counts(kind: str, value: str) -> bool:
    """A URL's password and a private key count at any length; a header or query value from 8
    characters (shorter ones are words in prose and code: `Authorization: none`, `f"Bearer {token}"`)."""
    if kind == _PRIVATE_KEY:
        return True
    return not _is_reference(value) and (kind == _URL_PASSWORD or len(value) >= _MIN_VALUE)


# detect-secrets' plugins not used: an IP address is no secret; the patterns above cover a URL's
# password, a whole private key (the plugin names only the BEGIN line) and a value assigned to a
# key name (the Cloudant, IBM and SoftLayer plugins: 4x the time of the other plugins on 1 MB); the
# Artifactory one matches plain words (`APE12345678`)
_NOT_TOKENS = frozenset(
    {"IPPublicDetector", "BasicAuthDetector", "PrivateKeyDetector", "ArtifactoryDetector"}
    | {"CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector"}
)
_WORD_REST = re.compile(r"(?:[\w+/=-]|\.(?=[\w-]))*")


@functools.cache
def _token_shapes() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, pattern) of every token format detect-secrets' plugins know."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    out: list[tuple[str, re.Pattern[str]]] = []
    for secret_type, plugin in plugins.items():
        if plugin.__name__ not in _NOT_TOKENS:
            article = "an" if secret_type[:1] in "AEIOU" else "a"
            out += [(f"{article} {secret_type}", p) for p in getattr(plugin, "denylist", ())]
    return tuple(out)


def _token_span(m: re.Match[str], text: str) -> tuple[int, int]:
    """A token's span: its capture group (or the whole match) without the separators some plugins
    match around it, to the end of its word."""
    start, end = m.span(1) if m.re.groups and m.group(1) else m.span()
    while start < end and text[start] in " \t\n=:\"'":
        start += 1
    end = _WORD_REST.match(text, end).end()  # type: ignore[union-attr]
    return start, end


@functools.cache
def _any_shape() -> re.Pattern[str]:
    """One pattern that finds something wherever any of the shapes does (their names dropped, each
    with its own flags): text without a credential, nearly all of it, is one search."""
    parts = []
    for _kind, p in (*_PATTERNS, *_token_shapes()):
        flags = "".join(f for f, bit in (("i", re.I), ("m", re.M), ("s", re.S), ("x", re.X)) if p.flags & bit)
        body = re.sub(r"\(\?P<\w+>", "(?:", p.pattern) + ("\n" if p.flags & re.X else "")
        parts.append(f"(?{flags}:{body})")
    return re.compile("|".join(parts))


class Match(NamedTuple):
    start: int  # where the match and its context begin (`Authorization: `, `postgres://user:`)
    end: int  # where it ends (after the `@` of a URL's password)
    secret_start: int
    secret_end: int
    kind: str


def matches(text: str) -> list[Match]:
    """Each credential in `text`, in order."""
    found: list[Match] = []
    if not _any_shape().search(text):
        return found
    for kind, pattern in (*_PATTERNS, *_token_shapes()):
        token = not pattern.groupindex
        for m in pattern.finditer(text):
            start, end = _token_span(m, text) if token else m.span("secret")
            if _counts(kind, text[start:end]) and not any(
                f.secret_start < end and start < f.secret_end for f in found
            ):
                found.append(Match(m.start(), max(m.end(), end), start, end, kind))
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
