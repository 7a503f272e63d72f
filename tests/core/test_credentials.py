"""Credentials recognised inside values (`auger.core.safety.credentials`, used by
`auger.core.safety.redaction`):
what is redacted, what is left as written (templates, references, prose, ordinary URLs), the
password of a variable's URL, and a stream cut anywhere."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auger.core import events as ev
from auger.core.safety.credentials import kinds_in, redact, secrets_in
from auger.core.safety.redaction import Redactor, StreamRedactor, credentials_in_env, secrets_in_env


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgres://user:PASSWORD@host:5432/db", "postgres://user:[redacted]@host:5432/db"),
        ("postgres://postgres:postgres@localhost/db", "postgres://postgres:[redacted]@localhost/db"),
        ("mysql+pymysql://root:p@ss@db/x", "mysql+pymysql://root:[redacted]@ss@db/x"),
        ("redis://:s3cret@redis:6379/0", "redis://:[redacted]@redis:6379/0"),
        ("https://user:TOKEN123@github.com/a/b.git", "https://user:[redacted]@github.com/a/b.git"),
        ("git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b", None),
        ("DATABASE_URL='amqp://guest:guest-pw@rabbit//'", "DATABASE_URL='amqp://guest:[redacted]@rabbit//'"),
        (
            'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig" x',
            'curl -H "Authorization: Bearer [redacted]" x',
        ),
        ("Authorization: token ghp_1234567890abcdefghij1234567890abcdef", "Authorization: token [redacted]"),
        ("authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization: Basic [redacted]"),
        ("Proxy-Authorization: Bearer abcdefghijkl", "Proxy-Authorization: Bearer [redacted]"),
        ('{"Authorization": "Bearer abcdefgh12345678"}', '{"Authorization": "Bearer [redacted]"}'),
        (
            "headers = {'authorization': 'token abcdefgh12345678'}",
            "headers = {'authorization': 'token [redacted]'}",
        ),
        ("X-Api-Key: 0123456789abcdef", "X-Api-Key: [redacted]"),
        ("x-goog-api-key: AIzaSyA-0123456789abcdef", "x-goog-api-key: [redacted]"),
        ("PRIVATE-TOKEN: glpat-abcdefghij0123456789", "PRIVATE-TOKEN: [redacted]"),
        ("got Bearer abcdefghijklmnopqrstuvwxyz012345 back", "got Bearer [redacted] back"),
        ("GET /v1/data?api_key=abcdef123456&page=2", "GET /v1/data?api_key=[redacted]&page=2"),
        ("https://x.blob.core.windows.net/c?sv=1&sig=AbCdEf0123456789%3D", None),
        ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz", "export OPENAI_API_KEY=[redacted]"),
        ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [redacted]"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [redacted]",
        ),
        ('{"api_token": "tok-12345678abc"}', '{"api_token": "[redacted]"}'),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAB3\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n-----END OPENSSH PRIVATE KEY-----",
        ),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQ cut off", "-----BEGIN PRIVATE KEY-----\n[redacted]"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU.", "jwt [redacted]."),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc ok", "stripe [redacted] ok"),
        ("SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "[redacted]"),
    ],
)
def test_credentials_are_redacted(text: str, expected: str | None) -> None:
    out = redact(text)
    assert "[redacted]" in out
    if expected is not None:
        assert out == expected
    assert redact(out) == out  # idempotent: a placeholder is not redacted again


@pytest.mark.parametrize(
    "text",
    [
        "postgres://user:${DB_PASSWORD}@host/db",
        'f"postgres://{user}:{password}@{host}/db"',
        "postgres://user:<password>@host",
        "postgres://user:****@host",
        "postgres://user:[redacted]@host",
        "ssh://git@github.com/a/b.git",
        "git@github.com:a/b.git",
        "http://localhost:3000/@vite/client",
        "https://registry.npmjs.org:443/@babel/core",
        "mailto:someone@example.com",
        'headers = {"Authorization": f"Bearer {self.token}"}',
        'headers = {"Authorization": "Bearer " + token}',
        "Authorization: Bearer $GITHUB_TOKEN",
        "authorization: ${{ secrets.TOKEN }}",
        "Authorization: none",
        "X-Api-Key: $KEY",
        "the bearer of bad news",
        "https://example.com/search?q=token&page=2",
        "sk-short",
        '"total_tokens": 12345678',
        "token = get_token()",
        "password = user_password",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    ],
)
def test_references_templates_and_prose_are_left_as_written(text: str) -> None:
    assert redact(text) == text


def test_credentials_inside_a_variable_become_known_secrets() -> None:
    env = {
        "DATABASE_URL": "postgres://app:Sup3rS3cretPw@db/app",
        "HOME": "/home/me",
        "SHORT": "redis://:pw@r",
    }
    red = Redactor([*secrets_in_env(env).items(), *credentials_in_env(env)])  # as default_redactor builds it
    assert secrets_in(env["DATABASE_URL"]) == ["Sup3rS3cretPw"]
    assert red.text("the password is Sup3rS3cretPw") == "the password is [redacted:$DATABASE_URL]"
    assert red.text("redis://:pw@r and pw") == "redis://:[redacted]@r and pw"  # short: only in a URL
    assert kinds_in("postgres://a:b@c and X-Api-Key: 0123456789ab") == ["a key header", "a password in a URL"]


_TEXT = (
    "Connect with postgres://admin:S3cr3tPassw0rd@db:5432/app, then\n"
    "curl -H 'Authorization: Bearer abcdefgh12345678XYZ' https://api.example.com/v1?api_key=k3y-0123456789 "
    'and {"X-Api-Key": "0123456789abcdefABCD"} - done; key sk-test-0123456789abcdef.\n'
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk\n3yJIoJqfZfPL9dHwWYYA\n"
    "-----END EC PRIVATE KEY-----\n"
    "a JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU and a stripe "
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, len(_TEXT) - 1), max_size=40))
def test_a_stream_cut_anywhere_redacts_the_same(cuts: list[int]) -> None:
    red = Redactor({"MY_API_KEY": "sk-test-0123456789abcdef"})
    stream = StreamRedactor(red)
    points = sorted({0, *cuts, len(_TEXT)})
    out: list[ev.Event] = []
    for a, b in itertools.pairwise(points):
        out += stream.feed(ev.TextDelta(_TEXT[a:b]))
    out += stream.flush()
    joined = "".join(e.text for e in out if isinstance(e, ev.TextDelta))
    assert joined == red.text(_TEXT)
    for secret in (
        "S3cr3tPassw0rd",
        "abcdefgh12345678XYZ",
        "k3y-0123456789",
        "0123456789abcdefABCD",
        "sk-test",
        "wJalrXUtnFEMI",
        "MHcCAQEEIBkg4LVWM9nuwNSk",
        "3yJIoJqfZfPL9dHwWYYA",
        "c2lnbmF0dXJlX2hlcmU",
        "4eC39HqLyjWDarjtT1zdp7dc",
    ):
        assert secret not in joined


def test_plain_prose_streams_without_waiting() -> None:
    stream = StreamRedactor(Redactor({}))
    reply = "Streaming a reply word by word is released at once after each space."
    released = [stream.feed(ev.TextDelta(w + " ")) for w in reply.split(" ")]
    assert all(len(r) == 1 for r in released)
