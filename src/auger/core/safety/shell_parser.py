"""Split a shell command line into the simple commands it runs, for permission rules.

`analyse("cd src && timeout 60 pytest -x 2>&1 | tail")` gives three segments, `cd src`,
`pytest -x 2>&1` (with the wrapped form `timeout 60 pytest -x 2>&1` kept too) and `tail`.
Handled: `&&`, `||`, `;`, `|`, `|&`, `&`, newlines, `( )` subshells, `$( )`, backticks and
`<( )` (their commands become segments of their own), here-documents (their body is data),
comments, `if/then/do/...` keywords, leading `NAME=value` assignments, wrappers (`env`,
`timeout`, `sudo`, `nice`, `nohup`, `time`, `command`, `exec`, `stdbuf`, `ionice`, `xargs`,
`watch`, `doas`, `builtin`) and `sh|bash|zsh|dash -c "..."` and `eval ...` (analysed
recursively; what a variable holds is not known: `eval "$CMD"` stays opaque).

`None` means the line could not be split (an unclosed quote or substitution): callers then
treat it as one opaque command.

`auger.core.safety.shell_lexer.lex` reads one simple command (a segment's `raw` text) the way the shell
does; `unwrap_words` peels keywords, assignments and wrappers off its words.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from auger.core.safety.shell_lexer import closing

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_RESERVED = frozenset({"!", "if", "then", "else", "elif", "do", "while", "until", "{", "}", "time"})
_CLOSERS = frozenset({"fi", "done", "esac", "}", ";;"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
# wrapper -> (options that take a value, number of positional words before the command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "sudo": (frozenset({"-u", "-g", "-p", "-C", "-D", "-h", "-r", "-t", "-U", "-T", "--user", "--group"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "watch": (frozenset({"-n", "--interval"}), 0),
    "xargs": (
        frozenset(
            {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter"}
        ),
        0,
    ),
}
_MAX_DEPTH = 8


@dataclass
class Segment:
    """One simple command. `forms` run from as written (minus keywords) to fully unwrapped;
    `extra_forms` (the command word's basename) count for deny/ask rules only; a `transparent`
    segment (`sh -c ...`) is judged by the segments inside it; an `opaque` one (its command word
    is a variable or substitution) can only be allowed by an exact rule."""

    forms: list[str]
    extra_forms: list[str] = field(default_factory=list)
    transparent: bool = False
    opaque: bool = False
    raw: str = ""  # the simple command as written (quotes, redirections), for `lex`

    @property
    def command(self) -> str:
        return self.forms[-1]


def canonical(command: str) -> str:
    """The whole command with runs of whitespace collapsed (how exact rules compare it)."""
    return " ".join(str(command).split())


def split_words(text: str) -> list[str]:
    """`text` split into words as the shell would (quotes removed); plain whitespace split if it cannot."""
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return text.split()


def analyse(command: str, _depth: int = 0) -> list[Segment] | None:
    """The segments of `command`, or None if it cannot be split."""
    if _depth > _MAX_DEPTH:
        return None
    scanned = _Scanner(str(command)).run()
    if scanned is None:
        return None
    parts, inner = scanned
    groups = [_segments_of(text, _depth) for text in parts] + [analyse(sub, _depth + 1) for sub in inner]
    if any(group is None for group in groups):
        return None
    return [segment for group in groups for segment in group or []]


def _segments_of(text: str, depth: int) -> list[Segment] | None:
    words = split_words(text)
    while words and words[0] in _RESERVED:
        words = words[1:]
    if not words or (len(words) == 1 and words[0] in _CLOSERS) or words[0] in ("for", "select", "case"):
        return []
    forms = [" ".join(words)]
    while words and _ASSIGN.match(words[0]):
        words = words[1:]
    if not words:
        return []
    if " ".join(words) != forms[-1]:
        forms.append(" ".join(words))
    steps, inner = _peel(words)
    forms.extend(" ".join(step) for step in steps[1:])
    if inner is not None:
        found = analyse(inner, depth + 1)
        if found is None:
            return None
        return [Segment(forms, _basename_forms(forms), transparent=True, raw=text), *found]
    head = forms[-1].split(" ", 1)[0]
    opaque = head.startswith(("$", "`")) or "$(" in head
    return [Segment(forms, _basename_forms(forms), opaque=opaque, raw=text)]


def unwrap_words(words: list[str]) -> list[str]:
    """The command `words` run: without leading keywords, `NAME=value` assignments and wrappers
    (`sudo -u x env A=1 timeout 5 rm f` -> `rm f`); `sh -c CMD` stays as it is."""
    while words and (words[0] in _RESERVED or _ASSIGN.match(words[0])):
        words = words[1:]
    return _peel(words)[0][-1] if words else []


def _basename_forms(forms: list[str]) -> list[str]:
    out = []
    for form in forms:
        head, sep, rest = form.partition(" ")
        if "/" in head.rstrip("/"):
            out.append(head.rstrip("/").rsplit("/", 1)[-1] + sep + rest)
    return out


def _peel(words: list[str]) -> tuple[list[list[str]], str | None]:
    """`words` then each form with one more wrapper peeled off; for `sh -c CMD` also CMD (to
    analyse recursively)."""
    steps = [words]
    for _ in range(_MAX_DEPTH):
        name = words[0].rsplit("/", 1)[-1]
        if name in _SHELLS:
            return steps, _shell_command(words)
        if name == "eval":  # runs its arguments joined as a command line: analysed like `sh -c`
            return steps, " ".join(words[1:]) or None
        spec = _WRAPPERS.get(name)
        if spec is None or (name == "command" and any(w in ("-v", "-V") for w in words[1:2])):
            return steps, None
        rest = _skip_options(words[1:], *spec)
        if name in ("env", "sudo", "doas"):
            while rest and _ASSIGN.match(rest[0]):
                rest = rest[1:]
        if not rest:
            return steps, None
        words = rest
        steps.append(words)
    return steps, None


def _skip_options(words: list[str], takes_value: frozenset[str], positional: int) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word in takes_value:
            i += 2
            continue
        i += 1
    return words[i + positional :] if i + positional <= len(words) else []


def _shell_command(words: list[str]) -> str | None:
    """The CMD of `sh [-opts] -c CMD ...` (also `-lc`, `-ec`), else None (a script or a REPL)."""
    for i, word in enumerate(words[1:], start=1):
        if not word.startswith("-"):
            return None
        if "c" in word.lstrip("-") and not word.startswith("--"):
            return words[i + 1] if i + 1 < len(words) else None
    return None


class _Scanner:
    """One pass over the text: split at unquoted operators, collect substitution bodies."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.parts: list[str] = []
        self.inner: list[str] = []
        self.buf: list[str] = []
        self.heredocs: list[tuple[str, bool]] = []

    def cut(self) -> None:
        part = "".join(self.buf).strip()
        if part:
            self.parts.append(part)
        self.buf = []

    def run(self) -> tuple[list[str], list[str]] | None:
        text = self.text
        while self.i < len(text):
            if not self._step(text):
                return None
        self.cut()
        return self.parts, self.inner

    def _step(self, text: str) -> bool:  # noqa: PLR0911 - one branch per kind of token
        c, nxt = text[self.i], text[self.i + 1 : self.i + 2]
        if c == "\\":
            self.buf.append(text[self.i : self.i + 2])
            self.i += 2
            return True
        if c == "'":
            end = text.find("'", self.i + 1)
            if end < 0:
                return False
            self.buf.append(text[self.i : end + 1])
            self.i = end + 1
            return True
        if c == '"':
            return self._double_quoted(text)
        if c == "`" or (c == "$" and nxt == "(") or (c in "<>" and nxt == "(" and not self._after_redirect()):
            return self._substitution(text)
        if c == "#" and (not self.buf or self.buf[-1][-1:].isspace()):
            end = text.find("\n", self.i)
            self.i = len(text) if end < 0 else end
            return True
        if c == "<" and text.startswith("<<", self.i) and not text.startswith("<<<", self.i):
            return self._heredoc_start(text)
        if c == "\n":
            self.cut()
            self.i += 1
            return self._skip_heredoc_bodies(text)
        return self._operator(text, c, nxt)

    def _after_redirect(self) -> bool:
        return bool(self.buf) and self.buf[-1][-1:] in ("<", ">")

    def _operator(self, text: str, c: str, nxt: str) -> bool:
        prev = self.buf[-1][-1:] if self.buf else ""
        clobber = c == "|" and prev == ">" and not text.startswith(">>|", self.i - 2)  # `>|` writes a file
        if (c in ";|()" and not clobber) or (c == "&" and nxt != ">" and prev not in ("<", ">")):
            self.cut()
            self.i += 2 if (c + nxt) in ("&&", "||", "|&", ";;") else 1
            return True
        self.buf.append(c)
        self.i += 1
        return True

    def _double_quoted(self, text: str) -> bool:
        j = self.i + 1
        while j < len(text) and text[j] != '"':
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == "`" or text.startswith("$(", j):
                body_end = closing(text, j)
                if body_end is None:
                    return False
                self._add_inner(text, j, body_end)
                j = body_end + 1
                continue
            j += 1
        if j >= len(text):
            return False
        self.buf.append(text[self.i : j + 1])
        self.i = j + 1
        return True

    def _substitution(self, text: str) -> bool:
        end = closing(text, self.i)
        if end is None:
            return False
        self._add_inner(text, self.i, end)
        self.buf.append(text[self.i : end + 1])
        self.i = end + 1
        return True

    def _add_inner(self, text: str, start: int, end: int) -> None:
        if text.startswith("$((", start):  # arithmetic, not a command
            return
        open_len = 1 if text[start] == "`" else 2
        self.inner.append(text[start + open_len : end])

    def _heredoc_start(self, text: str) -> bool:
        m = re.match(r"<<-?\s*(['\"]?)([^\s'\"<>|&;()]+)\1", text[self.i :])
        if m is None:
            self.buf.append("<<")
            self.i += 2
            return True
        self.heredocs.append((m.group(2), m.group(0).startswith("<<-")))
        self.buf.append(m.group(0))
        self.i += m.end()
        return True

    def _skip_heredoc_bodies(self, text: str) -> bool:
        while self.heredocs:
            delim, strip_tabs = self.heredocs.pop(0)
            while True:
                if self.i >= len(text):
                    return True  # an unterminated here-document runs to the end: all data
                end = text.find("\n", self.i)
                line = text[self.i : len(text) if end < 0 else end]
                self.i = len(text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    break
        return True
