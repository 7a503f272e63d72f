"""The settings schema, declared as data: every key auger knows, its type, default and doc.

A `*` segment stands for a name the user picks (`providers.*.base_url` covers
`providers.local.base_url`). Kinds:

- `str`, `bool`, `int`, `float`: scalars; `list`: a list of strings;
- `table`: a free-form table (its contents belong to the module that owns it);
- `any`: a free-form value of any type (extra model parameters).

Only the standard library is imported here.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MODES = ("manual", "auto-edit", "yolo", "plan")
DEFAULT_REQUEST_TIMEOUT = 300.0  # seconds; well above a slow local server's prompt processing


@dataclass(frozen=True, eq=False)  # identity: defaults may be lists
class Key:
    name: str  # dotted, may contain "*" segments
    kind: str  # "str" | "bool" | "int" | "float" | "list" | "table" | "any"
    default: Any
    doc: str
    env: str | None = None  # environment variable that sets it
    choices: tuple[str, ...] | None = None
    nullable: bool = False  # None is a valid value (meaning "not set")
    positive: bool = False  # numbers must be > 0
    concat: bool = False  # lists from several layers are concatenated, not replaced
    user_only: bool = False  # a project's .auger/config.toml may not set it (it would weaken safety)

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.name.split("."))

    @property
    def wildcards(self) -> int:
        return self.parts.count("*")


KEYS: tuple[Key, ...] = (
    Key(
        "model",
        "str",
        None,
        'Default model as "provider:model", e.g. "openai:gpt-4.1" or "local:qwen3-coder".',
        env="AUGER_MODEL",
        nullable=True,
    ),
    Key(
        "mode",
        "str",
        "manual",
        "Approval mode: manual asks before edits and commands, auto-edit "
        "applies edits but asks before commands, yolo never asks, plan only reads and ends with "
        "a plan to accept.",
        env="AUGER_MODE",
        choices=MODES,
    ),
    Key("shell", "bool", True, "Give the agent a shell (`execute`); false = files only.", env="AUGER_SHELL"),
    Key("add_dirs", "list", [], "Folders outside the project the file tools may use too (`--add-dir`)."),
    Key("max_turns", "int", 50, "Maximum model calls per user prompt.", env="AUGER_MAX_TURNS", positive=True),
    Key(
        "timeout",
        "float",
        None,
        "Wall-clock limit in seconds for a headless run (unset = none).",
        env="AUGER_TIMEOUT",
        nullable=True,
        positive=True,
    ),
    Key(
        "request_timeout",
        "float",
        DEFAULT_REQUEST_TIMEOUT,
        "Seconds without a complete line from the model provider before a request is given up "
        "(per attempt; SSE keep-alive comments count; a timeout is not retried).",
        env="AUGER_REQUEST_TIMEOUT",
        positive=True,
    ),
    Key(
        "shell_timeout",
        "int",
        120,
        "Seconds before a single shell command is killed.",
        env="AUGER_SHELL_TIMEOUT",
        positive=True,
    ),
    Key(
        "shell_output_bytes",
        "int",
        100_000,
        "Bytes of a command's output the agent sees (head and tail; the rest is in a file it can read).",
        positive=True,
    ),
    Key(
        "shell_output_lines",
        "int",
        2000,
        "Lines of a command's output the agent sees (half from each end).",
        positive=True,
    ),
    Key(
        "database_url",
        "str",
        "",
        "Where threads are stored: empty = the SQLite file threads.db in AUGER_HOME; "
        '"postgresql://user:password@host:5432/dbname" = a PostgreSQL database shared by every '
        "auger (and `auger serve` replica) pointed at it (needs: pip install 'auger[postgres]'). "
        "Only from your own config.toml (a project's is ignored).",
        env="AUGER_DATABASE_URL",
        user_only=True,
    ),
    Key(
        "thread_wait",
        "float",
        60.0,
        "Seconds a turn waits for another auger's turn on the same thread to end before it is "
        "refused (one writer per thread; 0 = refuse at once).",
        env="AUGER_THREAD_WAIT",
    ),
    Key(
        "context_window",
        "int",
        None,
        "Override the model's context window size in tokens (unset = auto).",
        env="AUGER_CONTEXT_WINDOW",
        nullable=True,
        positive=True,
    ),
    Key("providers.*.base_url", "str", None, "Endpoint of an OpenAI-compatible server.", nullable=True),
    Key(
        "providers.*.api_key_env",
        "str",
        None,
        "NAME of the environment variable holding the API key.",
        nullable=True,
    ),
    Key("providers.*.models", "list", [], "Model names this provider serves (for completion and checks)."),
    Key("providers.*.temperature", "float", None, "Sampling temperature.", nullable=True),
    Key("providers.*.max_tokens", "int", None, "Maximum tokens per reply.", nullable=True, positive=True),
    Key(
        "providers.*.reasoning_effort",
        "str",
        None,
        "Reasoning effort for reasoning models (low/medium/high).",
        nullable=True,
    ),
    Key(
        "providers.*.context_window",
        "int",
        None,
        "Context window of this provider's models in tokens.",
        nullable=True,
        positive=True,
    ),
    Key(
        "providers.*.request_timeout",
        "float",
        None,
        "Seconds without a complete line before a request to this provider is given up "
        "(unset = request_timeout).",
        nullable=True,
        positive=True,
    ),
    Key("providers.*.headers", "table", {}, "Extra HTTP headers sent with every request."),
    Key(
        "providers.*.images",
        "bool",
        None,
        "Whether this provider's models take images (unset = the model's known profile, else no).",
        nullable=True,
    ),
    Key(
        "providers.*.*",
        "any",
        None,
        "Any other parameter is passed to the model client as is.",
        nullable=True,
    ),
    Key(
        "models.*.images",
        "bool",
        None,
        'Whether this model ("provider:model" or the model name) takes images; wins over the '
        "provider's `images` and the model's known profile (unset: those, else no).",
        nullable=True,
    ),
    Key("mcp.call_timeout", "float", 60.0, "Seconds before an MCP tool call is abandoned.", positive=True),
    Key(
        "mcp.servers.*",
        "table",
        {},
        "An MCP server: command/args/env/cwd for stdio, or url/headers/type; disabled = true to skip it.",
    ),
    Key(
        "permissions.allow",
        "list",
        [],
        'Tool rules that never ask, e.g. "execute(git status *)", "edit_file(src/**)", "github:*".',
        concat=True,
    ),
    Key("permissions.ask", "list", [], "Tool rules that always ask, even in yolo mode.", concat=True),
    Key("permissions.deny", "list", [], "Tool rules that are always refused (deny wins).", concat=True),
    Key("sandbox.enabled", "bool", False, "Run shell and file tools in a sandbox.", env="AUGER_SANDBOX"),
    Key("sandbox.network", "bool", False, "Allow network access inside the sandbox."),
    Key("sandbox.provider", "str", "bubblewrap", "Sandbox implementation."),
    Key(
        "sandbox.hide",
        "list",
        [],
        'More paths the sandbox hides (~/..., absolute, or relative to the project, e.g. ".env"), '
        "besides AUGER_HOME and the built-in list of credential files and folders.",
        concat=True,
    ),
    Key(
        "sandbox.expose",
        "list",
        [],
        'Paths the sandbox shows although hidden by default, e.g. "~/.ssh/known_hosts" '
        "(only from your own config.toml; a project's is ignored).",
        concat=True,
        user_only=True,
    ),
    Key(
        "hooks",
        "table",
        {},
        "Commands run on agent events, Claude Code's format (see auger.core.hooks.runner).",
    ),
    Key("async_subagents.*.url", "str", None, "URL of a remote LangGraph deployment.", nullable=True),
    Key("async_subagents.*.graph_id", "str", None, "Graph (assistant) id on that deployment.", nullable=True),
    Key(
        "async_subagents.*.description",
        "str",
        None,
        "When the agent should use this subagent.",
        nullable=True,
    ),
    Key(
        "acp.client_fs",
        "bool",
        True,
        "In `auger acp`: read and write project files through the editor when it offers to.",
    ),
    Key(
        "acp.client_terminal",
        "bool",
        True,
        "In `auger acp`: run commands in the editor's terminal when it offers one (not with the sandbox).",
    ),
    Key(
        "acp_agents.*.command", "str", None, "An ACP agent's command (e.g. `gemini`, `auger`).", nullable=True
    ),
    Key("acp_agents.*.args", "list", [], 'Its arguments (e.g. `["--experimental-acp"]`, `["acp"]`).'),
    Key(
        "acp_agents.*.env",
        "table",
        {},
        "Extra environment variables for it (it gets auger's environment too).",
    ),
    Key("acp_agents.*.description", "str", None, "When the agent should delegate to it.", nullable=True),
    Key(
        "rewind.enabled",
        "bool",
        True,
        "Snapshot the project's files around each turn that changes them (`auger threads rewind`).",
        env="AUGER_REWIND",
    ),
    Key(
        "rewind.max_file_mb",
        "float",
        10.0,
        "Files larger than this many MB are left out of snapshots (a rewind never touches them).",
        positive=True,
    ),
    Key(
        "rewind.max_files",
        "int",
        50_000,
        "Projects with more files than this (after .gitignore) are not snapshotted.",
        positive=True,
    ),
    Key(
        "web_search.provider",
        "str",
        None,
        "The engine web_search uses (unset: no web_search).",
        nullable=True,
        choices=("searxng", "tavily", "brave"),
    ),
    Key("web_search.url", "str", None, "The engine's endpoint (SearXNG: the instance's URL).", nullable=True),
    Key("web_search.api_key_env", "str", None, "Environment variable holding its API key.", nullable=True),
    Key("tui.theme", "str", "textual-dark", "Textual theme name."),
    Key("tui.prune_after", "int", 400, "Transcript widgets kept before old ones are pruned.", positive=True),
    Key("tui.scrollback_on_exit", "bool", False, "Print the conversation as Markdown when the TUI closes."),
    Key("tui.keys", "table", {}, 'Key remaps: binding id -> keys, e.g. "app.cancel" = "escape,ctrl+x".'),
)

FREE_KINDS = ("table", "any")
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True}
_BOOL_WORDS |= {"false": False, "no": False, "off": False, "0": False}


def _matches(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    return len(pattern) == len(parts) and all(p in ("*", s) for p, s in zip(pattern, parts, strict=True))


def find_key(parts: tuple[str, ...]) -> Key | None:
    """The schema key for a concrete dotted path (the most specific match), else None."""
    found = [k for k in KEYS if _matches(k.parts, parts)]
    return min(found, key=lambda k: k.wildcards) if found else None


def is_section(parts: tuple[str, ...]) -> bool:
    """True if some schema key lives below `parts` (so `parts` must be a table)."""
    return any(len(k.parts) > len(parts) and _matches(k.parts[: len(parts)], parts) for k in KEYS)


def free_prefix(parts: tuple[str, ...]) -> Key | None:
    """The free-form key (`table`/`any`) that `parts` lies inside, if any."""
    for n in range(len(parts) - 1, 0, -1):
        key = find_key(parts[:n])
        if key is not None and key.kind in FREE_KINDS:
            return key
    return None


def _closeness(typed: str, real: str) -> float:
    """difflib's ratio, plus a bonus for the same letters in another order (a transposition)."""
    bonus = 0.5 if sorted(typed) == sorted(real) else 0.0
    return difflib.SequenceMatcher(None, typed, real).ratio() + bonus


def suggest(parts: tuple[str, ...], cutoff: float = 0.6) -> str | None:
    """The closest real dotted key to an unknown one (compared on the last segment among siblings)."""
    parent, name = parts[:-1], parts[-1]
    siblings = {
        k.parts[len(parent)]
        for k in KEYS
        if len(k.parts) > len(parent) and _matches(k.parts[: len(parent)], parent)
    }
    siblings -= {"*", name}
    close = difflib.get_close_matches(name, sorted(siblings), n=5, cutoff=cutoff)
    return ".".join((*parent, max(close, key=lambda c: _closeness(name, c)))) if close else None


def key_order(dotted: str) -> tuple[int, str]:
    """Sort key: schema order first, then name."""
    key = find_key(tuple(dotted.split(".")))
    return (KEYS.index(key) if key else len(KEYS), dotted)


# --- text (environment, command line) -> typed value ---------------------------------------


def _or_raw(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """`convert`, giving the text back as it is where it raises ValueError."""

    def parse(raw: str) -> Any:
        try:
            return convert(raw)
        except ValueError:  # json.JSONDecodeError too
            return raw

    return parse


_parse_json = _or_raw(json.loads)


def _parse_list(raw: str) -> Any:
    if raw.startswith("["):
        return _parse_json(raw)
    return [item.strip() for item in raw.split(",") if item.strip()]


_PARSERS: dict[str, Callable[[str], Any]] = {
    "bool": lambda raw: _BOOL_WORDS.get(raw.lower(), raw),
    "int": _or_raw(int),
    "float": _or_raw(float),
    "list": _parse_list,
    "table": _parse_json,
    "any": _parse_json,
}


def parse_text(key: Key, text: str) -> Any:
    """Text from the environment or the command line as `key`'s type (unconvertible: as it is,
    so `check` reports it with the allowed values)."""
    raw = text.strip()
    if key.nullable and raw.lower() in ("none", "null", ""):
        return None
    parser = _PARSERS.get(key.kind)
    return parser(raw) if parser else text
