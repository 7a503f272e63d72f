"""`auger doctor` and `/doctor`: what stands between the user and a working agent, one row per
check with the fix — config problems, the model (its spec, its key, whether its server answers),
the project's trust, MCP servers, the sandbox and the thread store. Each check is bounded (a
provider gets 5 s) and none raises: a failure is a row.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.errors import AugerError

if TYPE_CHECKING:
    from auger.settings import Settings

PROBE_SECONDS = 5.0


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str = ""


def _config(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    for warning in settings.warnings:
        yield Check("config", "warn", warning, "Fix the file named (`auger config show` lists what applies).")
    if not settings.warnings:
        yield Check("config", "ok", "the config files read cleanly")


def _model(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    from auger.core.models.providers import check_credentials
    from auger.core.models.specs import parse_spec

    if not settings.model:
        yield Check(
            "model",
            "fail",
            "no model is set",
            "Run `auger` once to pick one, or `auger config set model PROVIDER:MODEL`.",
        )
        return
    try:
        spec = parse_spec(settings.model, settings.providers)
        check_credentials(spec, env)
    except AugerError as exc:
        yield Check("model", "fail", f"{settings.model}: {exc.message}", exc.hint or "")
        return
    yield Check("model", "ok", f"{spec.spec}: credentials present")
    yield _reach(spec, env)


def _reach(spec: Any, env: Mapping[str, str]) -> Check:
    """GET the provider's model list: does its server answer, and does it take the key?"""
    import httpx

    from auger.core.models.providers import provider_of

    base = spec.base_url or {
        "openai": "https://api.openai.com/v1",
        "anthropic": "https://api.anthropic.com/v1",
    }.get(spec.provider)
    if base is None:
        return Check("provider", "warn", f"{spec.provider}: not probed (no HTTP model list to ask)")
    keys = [env.get(k) for k in (spec.api_key_env, *provider_of(spec).key_envs) if k]
    key = next((k for k in keys if k), None)
    headers = (
        {"Authorization": f"Bearer {key}", "x-api-key": key, "anthropic-version": "2023-06-01"} if key else {}
    )
    url = base.rstrip("/") + "/models"
    try:
        status = httpx.get(url, headers=headers, timeout=PROBE_SECONDS).status_code
    except httpx.HTTPError as exc:
        return Check(
            "provider",
            "fail",
            f"{url}: no answer ({type(exc).__name__})",
            "Start the server, or check base_url and the network.",
        )
    if status in (401, 403):
        return Check(
            "provider", "fail", f"{url}: the key was refused (HTTP {status})", "Set a valid key for it."
        )
    if status >= 500:
        return Check(
            "provider", "warn", f"{url}: HTTP {status}", "The server is up but failing; see its log."
        )
    return Check("provider", "ok", f"{url} answers (HTTP {status})")


def _trust(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    if settings.trusted:
        yield Check("trust", "ok", f"{settings.project_root} is trusted")
    elif settings.untrusted:
        yield Check(
            "trust",
            "warn",
            f"not trusted; it sets {', '.join(settings.untrusted)}",
            "`auger trust` if you trust it.",
        )
    else:
        yield Check("trust", "ok", "not trusted, and it asks for nothing that needs trust")


def _mcp(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    from auger.core.mcp.config import servers_from_settings

    problems: list[str] = []
    for server in servers_from_settings(settings, env=env, problems=problems):
        if server.error:
            yield Check(f"mcp {server.name}", "fail", server.error, f"Fix it in {server.source}.")
        elif not server.trusted:
            yield Check(
                f"mcp {server.name}",
                "warn",
                f"from {server.source}; not started until trusted",
                "`auger trust`.",
            )
        elif server.command and shutil.which(server.command) is None:
            yield Check(
                f"mcp {server.name}",
                "fail",
                f"{server.command} is not on PATH",
                "Install it or fix `command`.",
            )
        else:
            yield Check(
                f"mcp {server.name}", "ok", server.url or " ".join([server.command or "", *server.args])
            )
    for problem in problems:
        yield Check("mcp", "fail", problem, "Fix the file named.")


def _sandbox(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    from auger.core.backends.bwrap import check_bwrap

    if not settings.get("sandbox.enabled"):
        where = shutil.which("bwrap")
        yield Check(
            "sandbox", "ok", "off" + ("" if where else " (bubblewrap is not installed, for --sandbox)")
        )
        return
    try:
        check_bwrap()
    except AugerError as exc:
        yield Check(
            "sandbox", "fail", exc.message, exc.hint or "Install bubblewrap, or turn the sandbox off."
        )
        return
    yield Check("sandbox", "ok", "bubblewrap works here")


def _store(settings: Settings, env: Mapping[str, str]) -> Iterator[Check]:
    url = settings.get("database_url")
    if url:
        yield Check("threads", "ok", "PostgreSQL (database_url): checked when auger opens it")
        return
    home = Path(settings.home)
    if os.access(home if home.exists() else home.parent, os.W_OK):
        yield Check("threads", "ok", f"{home / 'threads.db'} is writable")
    else:
        yield Check("threads", "fail", f"{home} is not writable", "Fix its permissions or set AUGER_HOME.")


CHECKS: tuple[Callable[[Settings, Mapping[str, str]], Iterator[Check]], ...] = (
    _config,
    _model,
    _trust,
    _mcp,
    _sandbox,
    _store,
)


def terminal() -> Check:
    """The front end's terminal (checked where the TUI runs, not where the agent does)."""
    import sys

    term, colour = os.environ.get("TERM", ""), os.environ.get("COLORTERM", "")
    tty = "a terminal" if sys.stdout.isatty() else "not a terminal"
    detail = f"TERM={term or '(unset)'}, COLORTERM={colour or '(unset)'}, {tty}"
    if not term or term == "dumb":
        return Check("terminal", "warn", detail, "The TUI needs a real terminal (e.g. TERM=xterm-256color).")
    full = colour in ("truecolor", "24bit")
    return Check("terminal", "ok", detail, "" if full else "COLORTERM=truecolor gives full colour.")


def diagnose(settings: Settings, env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check's rows; a check that breaks is a row saying so."""
    env = os.environ if env is None else env
    rows: list[Check] = []
    for check in CHECKS:
        try:
            rows.extend(check(settings, env))
        except Exception as exc:  # a doctor that crashes helps nobody
            rows.append(
                Check(check.__name__.strip("_"), "fail", f"the check failed: {type(exc).__name__}: {exc}")
            )
    return rows
