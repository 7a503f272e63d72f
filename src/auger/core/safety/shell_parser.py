"""Split a shell command line into the simple commands it runs, for permission rules, read by
a real bash grammar (tree-sitter-bash, loaded on first use).

`analyse("cd src && timeout 60 pytest -x 2>&1 | tail")` gives three segments, `cd src`,
`pytest -x 2>&1` (with the wrapped form `timeout 60 pytest -x 2>&1` kept too) and `tail`. Every
command the shell can run is a segment: each part of `&&`/`||`/`;`/`&`/pipelines, subshells,
groups, `if`/`while`/`for`/`case` bodies, function bodies, and the commands in `$( )`, backticks,
`<( )`/`>( )`, `$(( ))` and unquoted here-documents. Here-document bodies are otherwise data.
Leading `NAME=value` assignments and wrappers (`env`, `timeout`, `nice`, `setsid`, `flock`,
`stdbuf`, `sudo`, `xargs`, `time -p`, `coproc`, ... see `_WRAPPERS`) are peeled off; the
commands of `find -exec`, `sh|bash -c "..."`, `env -S "..."`, `flock -c "..."` and `eval` of
literal text are segments of their own (analysed recursively).

A segment is `hidden` when what it runs cannot be known from the text: its command word is a
variable or substitution (`$CMD x`, `eval "$CMD"`; also `opaque`), a shell reads its commands
from stdin (`curl x | sh`, `bash <<< "$S"`; a literal here-string is read like `sh -c`), or the
line does not parse (an unclosed quote). No wildcard allow rule applies to a hidden segment;
deny and ask rules still see its text.
"""

from __future__ import annotations

import codecs
import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_GLOB = re.compile(r"[*?]|\[.*\]")
_ESCAPES = re.compile(r"(?:\\[\s\S])*")
_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "su"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# nodes that are commands read whole, as written (no wrapper or option reading)
_WHOLE = frozenset({"declaration_command", "unset_command", "test_command"})
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "process_substitution"})
# wrapper -> (options that take a value, number of positional words before the command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "sudo": (frozenset({"-u", "-g", "-p", "-C", "-D", "-h", "-r", "-t", "-U", "-T", "--user", "--group"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0),
    "nohup": (frozenset(), 0),
    "setsid": (frozenset(), 0),
    "coproc": (frozenset(), 0),
    "unbuffer": (frozenset(), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "watch": (frozenset({"-n", "--interval", "-d"}), 0),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),
    "taskset": (frozenset(), 1),
    "chrt": (frozenset(), 1),
    "chroot": (frozenset(), 1),
    "xargs": (
        frozenset(
            {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter"}
        ),
        0,
    ),
}
_COMMAND_STRING = {"flock": ("-c", "--command"), "env": ("-S", "--split-string")}  # run as `sh -c`
_MAX_DEPTH = 8


@dataclass
class Segment:
    """One simple command. `forms` run from as written to fully unwrapped (redirections kept at
    the end); `extra_forms` (the command word's basename) count for deny/ask rules only; a
    `transparent` segment (`sh -c ...`, a group's redirections) is judged by the segments inside
    it; `opaque`: its command word is a variable or substitution; `hidden`: see the module doc.
    `argv` is the unwrapped command as the program gets it, `redirects` its (operator, target)."""

    forms: list[str]
    extra_forms: list[str] = field(default_factory=list)
    transparent: bool = False
    opaque: bool = False
    hidden: bool = False
    argv: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)

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


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def analyse(command: str, _depth: int = 0) -> list[Segment]:
    """The segments of `command`, in the order the shell reaches them."""
    text = str(command)
    if _depth > _MAX_DEPTH:
        return [Segment([canonical(text)], opaque=True, hidden=True)]
    root = _parser().parse(text.encode()).root_node
    out: list[Segment] = []
    _Walker(out, _depth).visit(root)
    if root.has_error:  # the shell refuses what does not parse; what it would run first is above
        out.append(Segment([canonical(text)], opaque=True, hidden=True))
    return out


def _text(node: Node) -> str:
    return (node.text or b"").decode(errors="replace")


def value(node: Node) -> str:
    """A word as the program gets it: quotes and escapes removed; expansions and substitutions
    kept as written."""
    kind, text = node.type, _text(node)
    if kind in ("concatenation", "translated_string"):
        return "".join(value(c) for c in node.children if c.type != "$")
    if kind == "ansi_c_string":
        try:
            return codecs.decode(text[2:-1], "unicode_escape")
        except UnicodeDecodeError:
            return text[2:-1]
    unquote = {
        "raw_string": lambda t: t[1:-1],
        "string": lambda t: _DQ_ESCAPE.sub(lambda m: m.group(1).strip("\n"), t[1:-1]),
        "word": _unescape,
    }.get(kind)
    return unquote(text) if unquote is not None else text


def _gap(node: Node, i: int) -> str:
    """The text between a node's child `i` and the one before it."""
    start, raw = node.start_byte, node.text or b""
    return raw[node.children[i - 1].end_byte - start : node.children[i].start_byte - start].decode(
        errors="replace"
    )


def _unescape(text: str) -> str:
    """An unquoted word's text without its backslashes (and line continuations)."""
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def _known(node: Node) -> bool:
    """The word is literal text: no expansion, substitution, glob or brace expansion in it."""
    if node.type in _EXPANSIONS or node.type == "arithmetic_expansion":
        return False
    if not all(_known(c) for c in node.named_children):
        return False
    plain = value(node) if node.type in ("word", "concatenation") else ""
    return not (_GLOB.search(plain) or _BRACES.search(plain))


class _Walker:
    """Collects the segments of a parse tree in document order."""

    def __init__(self, out: list[Segment], depth: int) -> None:
        self.out, self.depth = out, depth
        self.pending: dict[int, list[Node]] = {}  # command node id -> redirections written after it

    def visit(self, node: Node) -> None:
        kind = node.type
        if kind == "redirected_statement":
            target = _redirected(node)
            more = node.children_by_field_name("redirect")
            if target is not None and target.type == "command":
                self.pending.setdefault(target.id, []).extend(more)
            else:
                shown = [_redirect(r) for r in more]
                self.out.append(
                    Segment(
                        [" ".join(s[2] for s in shown)], transparent=True, redirects=[s[:2] for s in shown]
                    )
                )
        elif kind == "command":
            self._command(node, self.pending.pop(node.id, []))
        elif kind in _WHOLE:
            self.out.append(Segment([canonical(_text(node))], argv=split_words(_text(node))))
        for child in node.children:
            self.visit(child)

    def _command(self, node: Node, outer: list[Node]) -> None:
        words: list[str] = []
        head: Node | None = None
        redirects = [*outer, *node.children_by_field_name("redirect")]
        for i, child in enumerate(node.children):
            if child.type == "variable_assignment":
                name, val = child.child_by_field_name("name"), child.child_by_field_name("value")
                words.append(f"{_text(name) if name else ''}={value(val) if val else ''}")
            elif child.type == "command_name":
                head = child
                words.append(value(child.named_children[0]) if child.named_children else _text(child))
            elif head is not None and node.field_name_for_child(i) == "argument":
                gap = _ESCAPES.match(_gap(node, i))  # the grammar drops `\ ` after a quote: `'a'\ b`
                if gap is not None and gap.group():
                    words[-1] += _unescape(gap.group())
                if gap is not None and gap.end() == len(gap.string):
                    words[-1] += value(child)
                else:
                    words.append(value(child))
        feeds = [r for r in redirects if r.type in ("herestring_redirect", "heredoc_redirect")]
        stdin = _literal_input(feeds[-1]) if feeds else None
        shown = [_redirect(r) for r in redirects]
        opaque = head is not None and not _known(head)
        self.out.extend(segments_of(words, shown, self.depth, opaque=opaque, stdin=stdin))


def _redirected(node: Node) -> Node | None:
    """The statement a redirection written after `node` applies to: the grammar reads
    `a && b > f` and `a | b > f` as redirecting the whole list, the shell only `b`."""
    body = node.child_by_field_name("body")
    while body is not None and body.type in ("list", "pipeline", "redirected_statement"):
        inner = [c for c in body.named_children if c.type != "comment"]
        body = body.child_by_field_name("body") if body.type == "redirected_statement" else inner[-1]
    return body


def _literal_input(redirect: Node) -> str | None:
    """What a here-string or here-document feeds when it is literal text."""
    if redirect.type == "herestring_redirect":
        word = redirect.named_children[-1] if redirect.named_children else None
        return value(word) if word is not None and _known(word) else None
    body = next((c for c in redirect.named_children if c.type == "heredoc_body"), None)
    if body is None or any(c.type in _EXPANSIONS for c in body.named_children):
        return None
    return _text(body)


def _redirect(node: Node) -> tuple[str, str, str]:
    """(operator with its fd, target) of a redirection: `("2>", "log")`, `(">&", "1")`, `("<<", "EOF")`."""
    target = node.child_by_field_name("destination")
    if node.type == "heredoc_redirect":
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        head = _text(node).split("\n", 1)[0]
        operator = ("<<-" if "<<-" in head else "<<") + (" " if re.search(r"<<-?\s", head) else "")
        aim = _text(start).strip("'\"") if start else ""
        return operator.strip(), aim, operator + aim
    if target is None and node.named_children:
        target = node.named_children[-1]
    cut = target.start_byte - node.start_byte if target is not None else len(node.text or b"")
    operator = (node.text or b"")[:cut].decode(errors="replace")
    spaced = " " if operator[-1:].isspace() else ""
    clean, aim = "".join(operator.split()), value(target) if target is not None else ""
    return clean, aim, clean + spaced + aim


def segments_of(
    words: list[str],
    redirects: list[tuple[str, str, str]],
    depth: int,
    *,
    opaque: bool = False,
    stdin: str | None = None,
) -> list[Segment]:
    """The segments of one simple command given as its words (assignments first): itself, with
    its forms from as written to unwrapped, then the commands it runs (`sh -c`, `find -exec`, a
    shell's literal here-string or here-document: `stdin`)."""
    tail = [r[2] for r in redirects]
    forms = [" ".join([*words, *tail])]
    while words and _ASSIGN.match(words[0]):
        words = words[1:]
    if not words or words == ["}"]:  # assignments or redirections alone; a `coproc NAME {` group's end
        return [Segment(forms, transparent=True, redirects=[r[:2] for r in redirects])] if redirects else []
    steps, inner, reads_stdin = _peel(words)
    inner = stdin if reads_stdin and inner is None else inner
    forms += [" ".join([*step, *tail]) for step in steps]
    forms = list(dict.fromkeys(forms))
    argv = steps[-1]
    seg = Segment(
        forms, _basename_forms(forms), opaque=opaque, argv=argv, redirects=[r[:2] for r in redirects]
    )
    seg.hidden = opaque or (reads_stdin and inner is None)
    if inner is not None:
        seg.transparent = True
        return [seg, *analyse(inner, depth + 1)]
    found = [seg]
    if argv and argv[0].rsplit("/", 1)[-1] == "find":
        found += [s for run in _find_runs(argv) for s in segments_of(run, [], depth + 1)]
    return found


def unwrap_words(words: list[str]) -> list[str]:
    """The command `words` run: without leading `NAME=value` assignments and wrappers
    (`sudo -u x env A=1 timeout 5 rm f` -> `rm f`); `sh -c CMD` stays as it is."""
    while words and _ASSIGN.match(words[0]):
        words = words[1:]
    return _peel(words)[0][-1] if words else []


def _find_runs(argv: list[str]) -> list[list[str]]:
    """The commands of `find ... -exec CMD ... ;` (also `+`, `-execdir`, `-ok`, `-okdir`)."""
    runs, i = [], 0
    while i < len(argv):
        if argv[i] in _FIND_RUNS:
            end = next((j for j in range(i + 1, len(argv)) if argv[j] in (";", "+")), len(argv))
            if end > i + 1:
                runs.append(argv[i + 1 : end])
            i = end
        i += 1
    return runs


def _basename_forms(forms: list[str]) -> list[str]:
    out = []
    for form in forms:
        head, sep, rest = form.partition(" ")
        if "/" in head.rstrip("/"):
            out.append(head.rstrip("/").rsplit("/", 1)[-1] + sep + rest)
    return out


def _peel(words: list[str]) -> tuple[list[list[str]], str | None, bool]:
    """`words` then each form with one more wrapper peeled off; the command line a shell, `eval`
    or a wrapper's command string runs (to analyse recursively); whether a shell reads stdin."""
    steps = [words]
    for _ in range(_MAX_DEPTH):
        name = words[0].rsplit("/", 1)[-1]
        if name in _SHELLS:
            inner, stdin = _shell_command(words)
            return steps, inner, stdin
        if name == "eval":  # runs its arguments joined as a command line: analysed like `sh -c`
            return steps, " ".join(words[1:]) or None, False
        spec = _WRAPPERS.get(name)
        if spec is None or (name == "command" and any(w in ("-v", "-V") for w in words[1:2])):
            return steps, None, False
        given = _COMMAND_STRING.get(name, ())
        at = next((i for i, w in enumerate(words) if w in given), None)
        if at is not None:
            return steps, words[at + 1] if at + 1 < len(words) else None, False
        rest = _skip_options(words[1:], *spec)
        if name == "coproc" and len(rest) > 1 and rest[1] == "{":
            rest = rest[2:]
        while rest and (rest[0] == "{" or (name in ("env", "sudo", "doas") and _ASSIGN.match(rest[0]))):
            rest = rest[1:]
        if not rest:
            return steps, None, False
        words = rest
        steps.append(words)
    return steps, None, False


def _skip_options(words: list[str], takes_value: frozenset[str], positional: int) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        i += 2 if word in takes_value else 1
    return words[i + positional :] if i + positional <= len(words) else []


def _shell_command(words: list[str]) -> tuple[str | None, bool]:
    """(the CMD of `sh [-opts] -c CMD ...` (also `-lc`, `-ec`), whether the shell reads its
    commands from stdin: no script named, or `-s`)."""
    for i, word in enumerate(words[1:], start=1):
        if word == "-" or not word.startswith("-"):
            return None, word == "-"
        if not word.startswith("--") and "c" in word.lstrip("-"):
            return (words[i + 1] if i + 1 < len(words) else None), False
        if not word.startswith("--") and "s" in word.lstrip("-"):
            return None, True
    return None, True
