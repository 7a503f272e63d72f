"""A bash parse tree's words as the program gets them, for `auger.core.safety.shell_parser`:
`value` removes quotes and escapes (expansions and substitutions stay as written), `known` tells
literal text from what the shell expands at run time, `redirect` reads a redirection's operator
and target, `literal_input` what a here-string or here-document feeds. `bmp_only` keeps
characters beyond U+FFFF away from the grammar: tree-sitter-bash 0.25 can crash the process on
`{` followed by a 4-byte UTF-8 character (tree-sitter-bash issue 337).

What programs run from their own words, judged like the line's other commands: the values of
git's `-c` that name a command (`git_config_commands`: `alias.x=!...`, `core.pager`,
`diff.external`, ...), GNU sed's `e COMMAND` (`sed_commands`; `e` alone or an `s///e` flag run
text known only then), `rg --pre`, `sort --compress-program` and the variable `printf -v` sets
(`option_commands`); `RUNS_VALUE` / `LOADS` are the variables that name a program or change
what code runs (`GIT_EXTERNAL_DIFF=`, `PATH=`, `LD_PRELOAD=`)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_GLOB = re.compile(r"[*?]|\[.*\]")
_ESCAPES = re.compile(r"(?:\\[\s\S])*")
_BRACE_LIST = re.compile(r"([^{}$`*?\[]*)\{([^{}$`]*,[^{}$`]*)\}([^{}$`*?\[]*)")
_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
EXPANSIONS = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"}
)


def bmp_only(text: str) -> tuple[str, dict[int, str]]:
    """`text` with each character beyond U+FFFF replaced by a private-use one it does not hold,
    and the table back: tree-sitter-bash 0.25 can crash on `{` followed by a 4-byte UTF-8
    character (tree-sitter-bash issue 337)."""
    found = dict.fromkeys(_ASTRAL.findall(text))
    if not found:
        return text, {}
    free = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
    pairs = dict(zip(found, free, strict=False))
    there = {ord(c): pairs.get(c, "\ufffd") for c in found}
    return text.translate(there), {ord(v): k for k, v in pairs.items()}


def text_of(node: Node) -> str:
    return (node.text or b"").decode(errors="replace")


def value(node: Node) -> str:
    """A word as the program gets it: quotes and escapes removed; expansions and substitutions
    kept as written."""
    kind, text = node.type, text_of(node)
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
        "word": unescape,
    }.get(kind)
    return unquote(text) if unquote is not None else text


def glue(raw: bytes, start: int, before: Node, after: Node) -> tuple[str, bool]:
    """What lies between two words of a command whose text `raw` begins at byte `start`: the
    grammar drops `\\ ` after a quote (`'a'\\ b` is the one word `a b`). The escaped characters
    to add to the word before, and whether `after` goes on that word."""
    text = raw[before.end_byte - start : after.start_byte - start].decode(errors="replace")
    found = _ESCAPES.match(text)
    return (unescape(found.group()), found.end() == len(text)) if found else ("", False)


def unescape(text: str) -> str:
    """An unquoted word's text without its backslashes (and line continuations)."""
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def known(node: Node) -> bool:
    """The word is literal text: no expansion, substitution, glob or brace expansion in it."""
    if node.type in EXPANSIONS or not all(known(c) for c in node.named_children):
        return False
    plain = value(node) if node.type in ("word", "concatenation") else ""
    return not (_GLOB.search(plain) or _BRACES.search(plain))


def brace_words(word: str) -> list[str] | None:
    """The words of a command word that is one literal brace list (`{rm,-f}`, `r{m,}`), else None."""
    found = _BRACE_LIST.fullmatch(word)
    if found is None:
        return None
    prefix, inside, suffix = found.groups()
    return [w for w in (prefix + part + suffix for part in inside.split(",")) if w]


def flat(redirects: list[Node]) -> list[Node]:
    """The redirections with those the grammar nests in a here-document's (`<<EOF > out`)."""
    return [n for r in redirects for n in (r, *flat(r.children_by_field_name("redirect")))]


def literal_input(redirect: Node) -> tuple[str, bool]:
    """What a here-string or here-document feeds (expansions as written), and whether it is
    literal text."""
    if redirect.type == "herestring_redirect":
        word = redirect.named_children[-1] if redirect.named_children else None
        return (value(word), known(word)) if word is not None else ("", True)
    body = next((c for c in redirect.named_children if c.type == "heredoc_body"), None)
    if body is None:
        return "", True
    return text_of(body), not any(c.type in EXPANSIONS for c in body.named_children)


def redirect(node: Node) -> tuple[str, str, str]:
    """(operator with its fd, target, both as written) of a redirection: `("2>", "log", "2>log")`,
    `(">&", "1", ">&1")`, `("<<", "EOF", "<< EOF")`."""
    target = node.child_by_field_name("destination")
    if node.type == "heredoc_redirect":
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        head = text_of(node).split("\n", 1)[0]
        operator = ("<<-" if "<<-" in head else "<<") + (" " if re.search(r"<<-?\s", head) else "")
        aim = text_of(start).strip("'\"") if start else ""
        return operator.strip(), aim, operator + aim
    if target is None and node.named_children:
        target = node.named_children[-1]
    cut = target.start_byte - node.start_byte if target is not None else len(node.text or b"")
    operator = (node.text or b"")[:cut].decode(errors="replace")
    spaced = " " if operator[-1:].isspace() else ""
    clean, aim = "".join(operator.split()), value(target) if target is not None else ""
    return clean, aim, clean + spaced + aim


# --- what programs run from their own words ----------------------------------------------------

# variables that name a program another program runs (`GIT_EXTERNAL_DIFF='rm x' git diff`), or
# change which code a program loads: with one set on the line no wildcard allow rule applies
RUNS_VALUE = frozenset(
    {"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER"}
    | {"GIT_ASKPASS", "SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE"}
    | {"BASH_ENV", "ENV", "PROMPT_COMMAND"}
)
LOADS = ("LD_", "DYLD_", "GIT_CONFIG", "GIT_EXEC_PATH", "PATH=")
_GIT_RUNS = frozenset(
    {"core.pager", "core.sshcommand", "core.editor", "core.fsmonitor", "diff.external", "sequence.editor"}
    | {"core.askpass", "gpg.program", "gpg.ssh.program", "uploadpack.packobjectshook"}
)
_GIT_RUNS_SUFFIX = (".textconv", ".clean", ".smudge", ".process", ".cmd")
_SED_E = re.compile(r"(?:^|[;\n{}0-9$!,/])[ \t]*e(?:[ \t]+([^\n]*))?(?=$|[;\n}])", re.MULTILINE)
_SED_S_E = re.compile(r"/[gpiImMw0-9]*e[gpiImM0-9]*(?=$|[;\n}\s])", re.MULTILINE)


def git_config_commands(args: Sequence[str]) -> list[str]:
    """The commands git's `-c KEY=VALUE` options (before the subcommand) make it run."""
    out, i = [], 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        value = args[i + 1] if arg == "-c" and i + 1 < len(args) else arg[2:] if arg.startswith("-c") else ""
        key, _, run = value.partition("=")
        key = key.lower()
        if run.startswith("!"):
            out.append(run[1:])
        elif run and (key in _GIT_RUNS or key.startswith("pager.") or key.endswith(_GIT_RUNS_SUFFIX)):
            out.append(run)
        i += 2 if arg in ("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path") else 1
    return out


def sed_commands(args: Sequence[str]) -> tuple[list[str], bool]:
    """(the commands of `e COMMAND` in sed's arguments, whether one runs text only known then)."""
    found: list[str] = []
    dynamic = False
    for arg in args:
        if arg.startswith("-") and not arg.startswith(("-e", "--expression")):
            continue
        for match in _SED_E.finditer(arg):
            if match.group(1) and match.group(1).strip():
                found.append(match.group(1))
            else:
                dynamic = True
        dynamic = dynamic or _SED_S_E.search(arg) is not None
    return found, dynamic


_OPTION_RUNS = {"rg": ("--pre",), "sort": ("--compress-program",)}


def option_commands(program: str, args: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the commands `program`'s options run, the variables its `-v NAME` sets (printf))."""
    runs: list[str] = []
    for i, arg in enumerate(args):
        key, eq, value = arg.partition("=")
        if key in _OPTION_RUNS.get(program, ()):
            runs.append(value if eq else args[i + 1] if i + 1 < len(args) else "")
    sets = [args[i + 1] for i, a in enumerate(args[:-1]) if program == "printf" and a == "-v"]
    return [r for r in runs if r], sets
