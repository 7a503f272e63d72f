"""Split a shell command line into the simple commands it runs, for permission rules, read by
a real bash grammar (tree-sitter-bash, loaded on first use).

`analyse("cd src && timeout 60 pytest -x 2>&1 | tail")` gives three segments, `cd src`,
`pytest -x 2>&1` (with the wrapped form `timeout 60 pytest -x 2>&1` kept too) and `tail`. Every
command the shell can run is a segment: each part of `&&`/`||`/`;`/`&`/pipelines, subshells,
groups, `if`/`while`/`for`/`case` bodies, function bodies, and the commands in `$( )`, backticks,
`<( )`/`>( )`, `$(( ))` and unquoted here-documents. Here-document bodies are otherwise data.
Leading `NAME=value` assignments and wrappers (`env`, `timeout`, `nice`, `setsid`, `flock`,
`stdbuf`, `sudo`, `xargs`, `time -p`, `coproc`, `strace`, ... see `_WRAPPERS`) are peeled off; the
commands of `find -exec`, `sh|bash -c "..."`, `env -S`, `flock -c`, `script -c`, `eval` of
literal text, `trap`'s action, `alias` values and the programs variables name
(`GIT_EXTERNAL_DIFF='...' git diff`) are segments of their own (analysed recursively); a command
with such a variable, or one that changes what code runs (`LD_PRELOAD=`, `PATH=`), is hidden.
`auger.core.safety.shell_words` reads the words.

A segment is `hidden` when what it runs cannot be known from the text: its command word is a
variable or substitution (`$CMD x`, `eval "$CMD"`; also `opaque`), a shell reads its commands
from stdin (`curl x | sh`, `bash <<< "$S"`, `. /dev/stdin`; a literal here-string or here-document
is read like `sh -c`, the commands one with expansions shows are segments too), or the line does
not parse (an unclosed quote). No wildcard allow rule applies to a hidden segment; deny and ask
rules still see its text.
"""

from __future__ import annotations

import re
import shlex
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from auger.core.safety import shell_words as sw

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "su"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# nodes that are commands read whole, as written (no wrapper or option reading)
_WHOLE = frozenset({"declaration_command", "unset_command", "test_command"})


def _spec(takes_value: str, positional: int = 0) -> tuple[frozenset[str], int]:
    """A wrapper's options that take a value, and the number of words before its command."""
    return frozenset(takes_value.split()), positional


_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": _spec("-u --unset -C --chdir -S --split-string"),
    "timeout": _spec("-s --signal -k --kill-after", 1),
    "sudo": _spec("-u -g -p -C -D -h -r -t -U -T --user --group"),
    "doas": _spec("-u -C"),
    "nice": _spec("-n --adjustment"),
    "ionice": _spec("-c -n -p -P -u --class --classdata"),
    "time": _spec("-f -o --format --output"),
    "exec": _spec("-a"),
    "stdbuf": _spec("-i -o -e --input --output --error"),
    "watch": _spec("-n --interval"),
    "flock": _spec("-w --timeout -E --conflict-exit-code", 1),
    "xargs": _spec("-I -n -P -L -d -E -s -a --max-args --max-procs --delimiter"),
    **dict.fromkeys(("nohup", "setsid", "coproc", "unbuffer", "busybox", "command", "builtin"), _spec("")),
    **dict.fromkeys(("taskset", "chrt", "chroot"), _spec("", 1)),
    **dict.fromkeys(("strace", "ltrace"), _spec("-e -o -p -s -u -E -a -b -I -O -P -S -X -n -l -L -x -A")),
    "setpriv": _spec("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits"),
    "script": _spec("-c --command -E --echo -I --log-in -O --log-out -B --log-io -T --log-timing -m"),
}
_COMMAND_STRING = {
    "flock": ("-c", "--command"),
    "env": ("-S", "--split-string"),
    "script": ("-c", "--command"),
}
_PREFIXED = frozenset({"command", "declaration_command"})  # an assignment there is read with its command
_KEEPS_COMMANDS = frozenset({"trap", "alias"})
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})
_MAX_DEPTH = 8
_LOCAL = threading.local()


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
    wrappers: list[str] = field(default_factory=list)  # the words peeled off before `argv`

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


def _parser() -> Parser:
    """This thread's parser (a tree-sitter parser is not safe to share between threads)."""
    parser: Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        import tree_sitter
        import tree_sitter_bash

        parser = _LOCAL.parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return parser


def analyse(command: str, _depth: int = 0) -> list[Segment]:
    """The segments of `command`, in the order the shell reaches them (shared: do not change them)."""
    return list(_analyse(str(command), _depth))


@lru_cache(maxsize=256)  # one call is judged by rules, protected paths and "always allow" alike
def _analyse(text: str, depth: int) -> tuple[Segment, ...]:
    if depth > _MAX_DEPTH:
        return (Segment([canonical(text)], opaque=True, hidden=True),)
    safe, back = sw.bmp_only(text)
    tree = _parser().parse(safe.encode())
    out: list[Segment] = []
    _Walker(out, depth).walk(tree.root_node)
    if tree.root_node.has_error:  # the shell refuses what does not parse; what it runs first is above
        out.append(Segment([canonical(text)], opaque=True, hidden=True))
        words = split_words(text)  # the grammar reads `{rm,-rf,x}` as a broken group; bash runs rm
        spread = sw.brace_words(words[0]) if words else None
        out.extend(segments_of([*spread, *words[1:]], [], depth) if spread else ())
    for i, seg in enumerate(out if back else ()):
        undo = [[w.translate(back) for w in words] for words in (seg.forms, seg.extra_forms, seg.argv)]
        out[i] = replace(seg, forms=undo[0], extra_forms=undo[1], argv=undo[2])
        out[i].redirects = [(o, t.translate(back)) for o, t in seg.redirects]
    return tuple(out)


class _Walker:
    """Collects the segments of a parse tree in document order."""

    def __init__(self, out: list[Segment], depth: int) -> None:
        self.out, self.depth = out, depth
        self.pending: dict[int, list[Node]] = {}  # command node id -> redirections written after it

    def walk(self, root: Node) -> None:
        """Every node in document order (a loop: a line can nest thousands deep)."""
        stack = [root]
        while stack:
            node = stack.pop()
            self._visit(node)
            stack.extend(reversed(node.children))

    def _visit(self, node: Node) -> None:
        kind = node.type
        if kind == "redirected_statement":
            target = _redirected(node)
            more = sw.flat(node.children_by_field_name("redirect"))
            if target is not None and target.type == "command":
                self.pending.setdefault(target.id, []).extend(more)
            else:  # a group's or a loop's redirections
                self.out.extend(segments_of([], [sw.redirect(r) for r in more], self.depth))
        elif kind == "command":
            self._command(node, self.pending.pop(node.id, []))
        elif kind == "variable_assignment" and node.parent is not None and node.parent.type not in _PREFIXED:
            name, val = node.child_by_field_name("name"), node.child_by_field_name("value")
            word = f"{sw.text_of(name) if name else ''}={sw.value(val) if val else ''}"
            self.out.extend(segments_of([word], [], self.depth))  # `PATH=.; ls` runs the project's ls
        elif kind in _WHOLE:
            self.out.append(Segment([canonical(sw.text_of(node))], argv=split_words(sw.text_of(node))))

    def _command(self, node: Node, outer: list[Node]) -> None:
        words: list[str] = []
        head: Node | None = None
        at = 0  # where the command word is in `words`
        redirects = [*outer, *sw.flat(node.children_by_field_name("redirect"))]
        raw, arguments = node.text or b"", {a.id for a in node.children_by_field_name("argument")}
        before: Node | None = None
        for child in node.children:
            before, prev = child, before
            if child.type == "variable_assignment":
                name, val = child.child_by_field_name("name"), child.child_by_field_name("value")
                words.append(f"{sw.text_of(name) if name else ''}={sw.value(val) if val else ''}")
            elif child.type == "command_name":
                head, at = child, len(words)
                words.append(sw.value(child.named_children[0]) if child.named_children else sw.text_of(child))
            elif head is not None and prev is not None and child.id in arguments:
                escaped, same_word = sw.glue(raw, node.start_byte, prev, child)
                words[-1] += escaped + (sw.value(child) if same_word else "")
                words.extend(() if same_word else (sw.value(child),))
        feeds = [r for r in redirects if r.type in ("herestring_redirect", "heredoc_redirect")]
        stdin = sw.literal_input(feeds[-1]) if feeds else None
        shown = [sw.redirect(r) for r in redirects]
        opaque = head is not None and not sw.known(head)
        spread = sw.brace_words(words[at]) if opaque else None
        if spread is not None:  # `{rm,-rf,x}` runs `rm -rf x` (bash's brace expansion)
            words, opaque = [*words[:at], *spread, *words[at + 1 :]], False
        self.out.extend(segments_of(words, shown, self.depth, opaque=opaque, stdin=stdin))


def _redirected(node: Node) -> Node | None:
    """The statement a redirection written after `node` applies to: the grammar reads
    `a && b > f`, `a | b > f` and `! b > f` as redirecting the whole, the shell only `b`."""
    body = node.child_by_field_name("body")
    while body is not None and body.type in ("list", "pipeline", "negated_command", "redirected_statement"):
        inner = [c for c in body.named_children if c.type != "comment"]
        body = body.child_by_field_name("body") if body.type == "redirected_statement" else inner[-1]
    return body


def segments_of(
    words: list[str],
    redirects: list[tuple[str, str, str]],
    depth: int,
    *,
    opaque: bool = False,
    stdin: tuple[str, bool] | None = None,
) -> list[Segment]:
    """The segments of one simple command given as its words (assignments first): itself, with
    its forms from as written to unwrapped, then the commands it runs (`sh -c`, `find -exec`, a
    shell's here-string or here-document, `stdin`: (its text, whether it is literal))."""
    tail = [r[2] for r in redirects]
    forms = [" ".join([*words, *tail])]
    assigned: list[str] = []
    while words and _ASSIGN.match(words[0]):
        assigned, words = [*assigned, words[0]], words[1:]
    if not words or words == ["}"]:  # assignments or redirections alone; a `coproc NAME {` group's end
        sets = _assigned_programs(assigned, depth)  # `PATH=.; ls` runs the project's ./ls
        alone = [Segment(forms, transparent=True, redirects=[r[:2] for r in redirects])] if redirects else []
        return alone if sets is None else [*alone, Segment(forms, hidden=True), *sets]
    steps, inner, reads_stdin = _peel(words)
    fed = stdin if reads_stdin and inner is None else None
    inner = fed[0] if fed is not None and fed[1] else inner
    forms += [" ".join([*step, *tail]) for step in steps]
    forms = list(dict.fromkeys(forms))
    argv = steps[-1]
    seg = Segment(
        forms, _basename_forms(forms), opaque=opaque, argv=argv, redirects=[r[:2] for r in redirects]
    )
    seg.wrappers = steps[0][: len(steps[0]) - len(argv)]
    runs = _assigned_programs([*assigned, *seg.wrappers], depth)
    seg.hidden = opaque or (reads_stdin and inner is None) or runs is not None
    if inner is not None:  # `xargs -I{} sh -c '{}'`, `find -exec sh -c '{}'`: the names are commands
        seg.transparent = "{}" not in inner
        seg.hidden = seg.hidden or not seg.transparent
        return [seg, *(runs or ()), *analyse(inner, depth + 1)]
    found = [seg, *(runs or ())]
    found += analyse(fed[0], depth + 1) if fed is not None and not fed[1] else ()  # deny sees it
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    if program == "find":
        found += [s for run in _find_runs(argv) for s in segments_of(run, [], depth + 1)]
    more, seg.hidden = _program_commands(program, argv, seg.hidden)
    return found + [s for run in more for s in analyse(run, depth + 1)]


def _program_commands(program: str, argv: list[str], hidden: bool) -> tuple[list[str], bool]:
    """The command lines git's `-c` values or sed's `e` run (`auger.core.safety.shell_words`)."""
    if program == "git":
        return sw.git_config_commands(argv[1:]), hidden
    if program == "sed":
        runs, dynamic = sw.sed_commands(argv[1:])
        return runs, hidden or dynamic
    runs, sets = sw.option_commands(program, argv[1:])
    return runs, hidden or any(_assigned_programs([f"{name}="], 0) is not None for name in sets)


def _assigned_programs(words: list[str], depth: int) -> list[Segment] | None:
    """The commands that variables set for a command name (`GIT_PAGER='rm x'`), as segments; []
    for one that changes what code runs (`LD_PRELOAD=`, `PATH=`); None when no such variable is set."""
    found: list[Segment] | None = None
    for word in words:
        name, eq, val = word.partition("=")
        if eq and name in sw.RUNS_VALUE:
            found = [*(found or ()), *analyse(val, depth + 1)]
        elif eq and (word.startswith(sw.LOADS)):
            found = found or []
    return found


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
        runs = _line_runs(name, words)
        if runs is not None:
            return steps, *runs
        spec = _WRAPPERS.get(name)
        if spec is None or (name == "command" and any(w in ("-v", "-V") for w in words[1:2])):
            return steps, None, False
        rest = _skip_options(words[1:], *spec)
        own = words[1 : len(words) - len(rest)]  # the wrapper's options and their values
        at = next((i for i, w in enumerate([*own, *rest[:1]]) if w in _COMMAND_STRING.get(name, ())), None)
        if at is not None:  # `env -S CMD`, `flock FILE -c CMD`
            return steps, next(iter([*own, *rest][at + 1 : at + 2]), None), False
        if name == "coproc" and len(rest) > 1 and rest[1] == "{":
            rest = rest[2:]
        while rest and (rest[0] == "{" or (name in ("env", "sudo", "doas") and _ASSIGN.match(rest[0]))):
            rest = rest[1:]
        if not rest:
            return steps, None, False
        words = rest
        steps.append(words)
    return steps, None, False


def _line_runs(name: str, words: list[str]) -> tuple[str | None, bool] | None:
    """(the command line, whether stdin is read) when `words` is a shell, `eval`, `trap`, `alias`
    or `source`; None for any other command."""
    if name in _SHELLS:
        return _shell_command(words)
    if name == "eval":  # runs its arguments joined as a command line: analysed like `sh -c`
        return " ".join(words[1:]) or None, False
    if name in _KEEPS_COMMANDS:  # `trap 'rm x' EXIT`, `alias x='rm -rf'`: run later on the line
        return _kept_commands(name, words[1:]), False
    if name in ("source", ".") and len(words) > 1:  # `. /dev/stdin <<< CMD`, `source <(...)`
        return None, words[1] in _STDIN_FILES or words[1].startswith("<(")
    return None


def _kept_commands(name: str, args: list[str]) -> str | None:
    """The command lines `trap` (its action) or `alias` (each value) keeps to run later."""
    args = args[1:] if args[:1] == ["--"] else args
    if name == "alias":
        return "\n".join(a.split("=", 1)[1] for a in args if "=" in a) or None
    return args[0] if args and not args[0].startswith("-") else None


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
    """(the CMD of `sh [-opts] -c [-opts] [--] CMD ...` (also `-lc`, `-ec`, `su USER -c CMD`),
    whether the shell reads its commands from stdin: no script named, or `-s`)."""
    if words[0].rsplit("/", 1)[-1] == "su":
        at = next((i for i, w in enumerate(words) if w in ("-c", "--command")), None)
        return (words[at + 1] if at is not None and at + 1 < len(words) else None), at is None
    i, letters_seen = 1, ""
    while i < len(words):
        word = words[i]
        if word == "--":  # the end of the options: what follows is CMD (or the script)
            i += 1
            break
        if word == "-" or not word.startswith(("-", "+")):
            break
        letters = "" if word.startswith("--") else word[1:]
        letters_seen += letters
        i += 2 if letters[-1:] in ("o", "O") else 1  # `-o pipefail`, `-euo pipefail`, `+O opt`
    first = words[i] if i < len(words) else None
    if "c" in letters_seen:  # no CMD written: `xargs bash -c` takes it from its input
        return first, first is None
    return None, "s" in letters_seen or first in (None, "-")
