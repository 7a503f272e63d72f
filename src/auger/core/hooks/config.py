"""Hook configuration, Claude Code compatible: where hooks come from and whether to run them.

Sources, all run (user first): `$AUGER_HOME/hooks.json`, `[hooks]` in the user config,
`~/.claude/settings.json`, `<project>/.auger/hooks.json`, `[hooks]` in the project config,
`<project>/.claude/settings.json` and `settings.local.json` (Claude Code's files,
`auger.core.safety.claude_settings`: only their `hooks` key). Project hooks run only once the
user trusts the project (`auger.trust`: one decision for its hooks, MCP servers and settings;
`--trust-project`, alias `--trust-project-hooks`, trusts it for one run). The format is Claude Code's:

    {"hooks": {"PreToolUse": [{"matcher": "execute|write_file",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}

Matchers are regexes on auger's tool names and Claude Code's names for them (`Bash`, `Read`,
`Edit|MultiEdit|Write`, `mcp__server__tool`; `auger.core.safety.claude_tools`), full match; empty or
`*` matches all; for SessionStart the source, for PreCompact the trigger, for Subagent* the
subagent type, for PreModel/PostModel the model spec, for Notification its type
(`permission_prompt`, `idle_prompt`).
Running them is `auger.core.hooks.runner.HookRunner`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auger.core.safety.claude_settings import ClaudeSettings, read_settings, settings_paths
from auger.core.safety.claude_tools import claude_names
from auger.trust import HOW, ProjectTrust

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "Stop",
    "SessionEnd",
    "PreModel",  # auger's: around each model call (auger.core.middleware.model.model_hooks)
    "PostModel",
    "Notification",  # waiting for an approval, a turn finished (auger.core.session.lifecycle)
)
HOOKS_FILE = "hooks.json"
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class HookCommand:
    event: str
    command: str
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    source: str = ""
    claude: bool = False  # from a Claude Code settings file: told Claude Code's tool names

    @property
    def label(self) -> str:
        short = " ".join(self.command.split())
        return f"{self.event} hook `{short[:60]}{'…' if len(short) > 60 else ''}`"

    def _hit(self, subject: str) -> bool:
        try:
            return re.fullmatch(self.matcher, subject) is not None
        except re.error:
            return self.matcher == subject

    def matches(self, subjects: Sequence[str]) -> bool:
        if self.matcher in ("", "*") or not subjects:
            return True
        return any(self._hit(subject) for subject in subjects)

    def tool_name(self, subjects: Sequence[str]) -> str | None:
        """The tool name to tell this hook when it is not auger's (`subjects[0]`): the Claude Code
        name its matcher matched (`Bash` for execute), or, for a hook from Claude Code's settings,
        Claude Code's name for the tool; None: auger's own name."""
        if not subjects:
            return None
        aliases = [s for s in subjects[1:] if s in claude_names(subjects[0]) or s.startswith("mcp__")]
        if self.matcher not in ("", "*"):
            if self._hit(subjects[0]):
                return None
            return next((s for s in aliases if self._hit(s)), None)
        return aliases[0] if self.claude and aliases else None


def parse_hooks(data: Any, source: str, *, claude: bool = False) -> tuple[list[HookCommand], list[str]]:
    """Hooks from a Claude-Code-style mapping (`{"hooks": {...}}` or the inner `{EVENT: [...]}`)."""
    problems: list[str] = []
    if isinstance(data, dict) and isinstance(data.get("hooks"), dict):
        data = data["hooks"]
    if not isinstance(data, dict):
        return [], [f"{source}: hooks must be an object mapping event names to lists"]
    out: list[HookCommand] = []
    for event, groups in data.items():
        if event not in EVENTS:
            problems.append(f"{source}: unknown hook event {event!r} (known: {', '.join(EVENTS)})")
            continue
        for group in groups if isinstance(groups, list) else [groups]:
            if not isinstance(group, dict):
                problems.append(f"{source}: {event} entries must be objects with `hooks`")
                continue
            matcher = str(group.get("matcher") or "")
            for hook in group.get("hooks") or []:
                cmd = _command(hook, event, source, problems)
                if cmd:
                    out.append(HookCommand(event, cmd, matcher, _timeout(hook), source, claude))
    return out, problems


def _command(hook: Any, event: str, source: str, problems: list[str]) -> str | None:
    if isinstance(hook, dict) and hook.get("type", "command") != "command":
        problems.append(f'{source}: {event} hook type {hook.get("type")!r} is not supported (only "command")')
        return None
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str) or not hook["command"].strip():
        problems.append(f"{source}: a {event} hook has no `command`")
        return None
    return str(hook["command"])


def _timeout(hook: Mapping[str, Any]) -> float:
    value = hook.get("timeout")
    if isinstance(value, int | float) and 0 < value < float("inf"):  # nan compares false
        return float(value)
    return DEFAULT_TIMEOUT


def _read_json(path: Path) -> tuple[Any, str | None]:
    """(data, problem): a hooks file parsed; a file that cannot be read, is not UTF-8 text or is
    not valid JSON is one problem line naming it (and the line) and gives no hooks."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: cannot read ({exc.strerror or exc}); its hooks are not run"
    except UnicodeDecodeError as exc:
        return None, f"{path}: not UTF-8 text (byte {exc.start}); its hooks are not run"
    try:
        return json.loads(text) if text.strip() else {}, None
    except json.JSONDecodeError as exc:
        return None, f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg}); its hooks are not run"


def _toml_hooks(path: Path) -> tuple[Any, bytes | None]:
    try:
        raw = path.read_bytes()
        table = tomllib.loads(raw.decode("utf-8")).get("hooks")
    except (OSError, ValueError):
        return None, None
    return (table, raw) if table else (None, None)


def _project_json(root: Path, home: Path) -> Path | None:
    """The project's `.auger/hooks.json` when it has any bytes (and is not the user's own file)."""
    path = Path(root) / ".auger" / HOOKS_FILE
    if path.resolve() == (Path(home) / HOOKS_FILE).resolve():
        return None
    try:
        return path if path.is_file() and path.stat().st_size > 0 else None
    except OSError:
        return None


def _project_toml(root: Path, home: Path) -> tuple[str, Any] | None:
    cfg = Path(root) / ".auger" / "config.toml"
    if cfg.resolve() == (Path(home) / "config.toml").resolve():
        return None
    table, _ = _toml_hooks(cfg)
    return (f"{cfg} [hooks]", table) if table is not None else None


def _claude_files(root: Path, *, project: bool) -> list[ClaudeSettings]:
    """Claude Code settings files with a `hooks` key: the user's, or the project's two. A file
    that is not JSON gives no hooks (its warning comes with the other load warnings)."""
    files = [f for f in read_settings(root) if (f.scope != "user") == project]
    return [f for f in files if f.problem is None and "hooks" in f.data]


def _project_sources(root: Path, home: Path) -> list[tuple[str, Any, str | None]]:
    """(label, data, problem) for the project's hook sources, parsed — only once they are trusted."""
    out: list[tuple[str, Any, str | None]] = []
    path = _project_json(root, home)
    if path is not None:
        data, problem = _read_json(path)
        out.append((str(path), data, problem))
    toml = _project_toml(root, home)
    if toml is not None:
        out.append((toml[0], toml[1], None))
    out += [(str(f.path), f.data["hooks"], None) for f in _claude_files(root, project=True)]
    return out


def untrusted_project_hooks(settings: Any) -> list[str]:
    """The project's hook sources that are not trusted yet (empty when none or trusted). The
    project's hooks.json is not parsed for this: that it has bytes, and their hash, is enough."""
    path = _project_json(settings.project_root, settings.home)
    toml = _project_toml(settings.project_root, settings.home)
    sources = [*([str(path)] if path else []), *([toml[0]] if toml else [])]
    sources += [str(f.path) for f in _claude_files(Path(settings.project_root), project=True)]
    if not sources or settings.trusted or ProjectTrust(settings.home).is_trusted(settings.project_root):
        return []
    return sources


def trust_project_hooks(settings: Any) -> None:
    """Remember that the user trusts the project (`auger.trust`: its hooks and everything else)."""
    ProjectTrust(settings.home).trust(settings.project_root)


def load_hooks(settings: Any, *, trust_project: bool = False) -> tuple[list[HookCommand], list[str]]:
    """Every hook to run for `settings`, and notices (problems, untrusted project hooks)."""
    home, root = Path(settings.home), Path(settings.project_root)
    hooks: list[HookCommand] = []
    notices: list[str] = []
    user: list[tuple[str, Any, str | None]] = []
    data, problem = _read_json(home / HOOKS_FILE)
    user.append((str(home / HOOKS_FILE), data, problem))
    table, _ = _toml_hooks(home / "config.toml")
    user.append((f"{home / 'config.toml'} [hooks]", table, None))
    user += [(str(f.path), f.data["hooks"], None) for f in _claude_files(root, project=False)]
    untrusted = [] if trust_project else untrusted_project_hooks(settings)
    project = [] if untrusted else _project_sources(root, home)  # an untrusted file is not parsed
    claude_labels = {str(p) for _, p in settings_paths(root)}
    for label, data, problem in [*user, *project]:
        if problem:
            notices.append(problem)
        if not data:
            continue
        found, problems = parse_hooks(data, label, claude=label in claude_labels)
        hooks += found
        notices += problems
    if untrusted:
        notices.append(
            f"Project hooks in {', '.join(untrusted)} were not run: they run commands on this machine. "
            f"Review them, then {HOW}."
        )
    return hooks, notices
