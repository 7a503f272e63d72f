"""Which paths a shell command writes, so that one writing a protected path asks first.

`ShellWrites(root, protected_dirs).reason(command)` (or `ShellWrites(ProtectedPaths(...))`) is
None, or why the command needs approval (`protected path (.git/): it writes .git/config (redirect >)`).

What counts as a write, read from the shell text (`auger.core.safety.shell_parser`, so `&&`/`;`/`|`
chains, `$( )`, `sh -c '...'` and wrappers such as sudo, env, timeout, nice are seen through as
for permission rules):

* redirections: `>`, `>>`, `>|`, `&>`, `<>`, `2>` (not `>&2`, `2>&1` or input redirections);
* every argument of rm, rmdir, unlink, shred, touch, mkdir, truncate, chmod, chown, chgrp,
  chattr, setfacl, tee, mkfifo and mv; the destination of cp, ln, install, rsync, scp (or their
  `-t DIR`); `of=` of dd; the files of `sed -i` / `perl -i` and of sed's `w FILE`; curl `-o`,
  wget `-O`/`-P`, `sort -o`, uniq's output, `find -fprint`/`-fprintf`/`-fls`, git's `--output`,
  script's files, and the wrappers' `time -o`/`strace -o`, flock's file, `env -C DIR`;
  the start folders of `find -delete` or `find -exec rm ...`.

`git` writing its own `.git` is normal: git's other arguments are not read (a redirection of its
output is). Neither is what programs do (`python -c`, scripts, make): deny rules or the sandbox cover
those.

A path is resolved against the command's folder — the project root, then each `cd`/`pushd` as
the line goes (after a `cd` to something unknown only paths naming a protected folder count) —
with `~` and the variables the shell inherits (`$HOME`, `$AUGER_HOME`; not those the line sets)
expanded, `..` normalised and symlinks followed, also those `ln` made earlier on the line (a
write through one whose target is not known asks). Whether that host path is
protected is `auger.core.safety.host_paths.ProtectedPaths` (the file tools ask it the same): in a `.git`
or `.auger` folder or in a protected folder (`~/.ssh`, AUGER_HOME); `rm -r` and `mv` also when
they take the project's `.git`/`.auger` or a protected folder with them (`rm -rf .`, `rm -rf ~`).
Globs count as the shell expands them: `.g*` reaches `.git`, `*` does not. Of a line that does
not parse, what the grammar reads before the broken part counts.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from auger.core.safety import shell_parser as shellparse
from auger.core.safety.host_paths import ProtectedPaths, parts, protected_name

_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_ASSIGNED = re.compile(r"(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=")
_EVERY_ARG = frozenset(
    {"rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "chmod", "chown", "chgrp"}
    | {"chattr", "setfacl", "tee", "mkfifo"}
)
_DESTINATION = frozenset({"cp", "ln", "install", "rsync", "scp"})
# options whose value is a path written: command -> (short letters, long names)
_OUTPUT_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "curl": ("o", ("--output",)),
    "wget": ("OP", ("--output-document", "--directory-prefix")),
    **{name: ("t", ("--target-directory",)) for name in ("cp", "mv", "ln", "install")},
    "sort": ("o", ("--output",)),
    "git": ("", ("--output", "--output-directory")),  # diff/log/show --output, format-patch
}
_WRAPPER_OUTPUT = {
    **{name: ("o", ("--output",)) for name in ("time", "strace", "ltrace")},
    "env": ("C", ("--chdir",)),
}
_FIND_WRITES = ("-fprint", "-fprint0", "-fprintf", "-fls")
_SED_WRITE = re.compile(r"(?:^|[^A-Za-z\\])[wW][ \t]*([^\s;}][^\n]*)")  # `w FILE` / `s/a/b/w FILE`
_Links = dict[str, str | None]  # a link the line makes -> where it leads (None: not known)
_FIND_RUNS = ("-exec", "-execdir", "-ok", "-okdir")
_VERBS = {"rm": "removes", "rm -r": "removes", "rmdir": "removes", "unlink": "removes", "shred": "removes"}
_VERBS |= {"mv": "moves", "find -delete": "removes", "find -exec rm": "removes"}


@dataclass(frozen=True)
class Write:
    word: str  # the path as written
    how: str  # "redirect >", "tee", "rm -r", ...
    tree: bool = False  # removes or moves the path with everything under it

    def says(self, shown: str) -> str:
        return f"it {_VERBS.get(self.how, 'writes')} {shown} ({self.how})"


# --- what a simple command writes -------------------------------------------------------------------


def writes(segment: shellparse.Segment) -> list[Write]:
    """The paths one simple command writes: its redirections, then its arguments."""
    out = []
    for operator, target in segment.redirects:
        fd_copy = operator.endswith(">&") and (target.isdigit() or target == "-")
        if ">" in operator and target and not fd_copy:
            out.append(Write(target, f"redirect {operator}"))
    return [*out, *wrapper_writes(segment.wrappers), *command_writes(segment.argv)]


def wrapper_writes(words: Sequence[str]) -> list[Write]:
    """What the wrappers peeled off a command write: `time -o F`, `strace -o F`, flock's lock
    file; `env -C DIR` runs the command in DIR (counted as a write there)."""
    out: list[Write] = []
    for i, word in enumerate(words):
        name, rest = word.rsplit("/", 1)[-1], list(words[i + 1 :])
        if name in _WRAPPER_OUTPUT:
            out += [Write(v, f"{name} -o") for v in option_values(rest, *_WRAPPER_OUTPUT[name])]
        elif name == "flock" and positionals(rest):
            out.append(Write(positionals(rest)[0], "flock"))
    return out


def command_writes(argv: Sequence[str]) -> list[Write]:
    """The paths a command writes through its arguments (see the module docstring)."""
    if not argv:
        return []
    name, args = argv[0].rsplit("/", 1)[-1], list(argv[1:])
    out: list[Write] = []
    if name in _OUTPUT_OPTIONS:
        out += [Write(v, name) for v in option_values(args, *_OUTPUT_OPTIONS[name])]
    handler = _HANDLERS.get(name)
    if handler is not None:
        out += handler(name, args)
    return out


def positionals(args: Iterable[str]) -> list[str]:
    """Arguments that are not options (everything after `--`)."""
    out, options = [], True
    for arg in args:
        if options and arg == "--":
            options = False
        elif not options or not arg.startswith("-"):
            out.append(arg)
    return out


def option_values(args: Sequence[str], letters: str, longs: Sequence[str]) -> list[str]:
    """Values of the short options `letters` (`-o F`, `-oF`, `-sSo F`) and the long ones
    (`--output F`, `--output=F`)."""
    out: list[str] = []
    for i, arg in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else ""
        if arg == "--":
            break
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            if key in longs:
                out.append(value if eq else following)
        elif arg.startswith("-"):
            at = next((k for k, ch in enumerate(arg[1:], 1) if ch in letters), None)
            if at is not None:
                out.append(arg[at + 1 :] or following)
    return [v for v in out if v and v != "-"]


def _every_arg(name: str, args: list[str]) -> list[Write]:
    recursive = name == "rm" and any(
        a == "--recursive" or (a[:1] == "-" and a[1:2] != "-" and ("r" in a or "R" in a))
        for a in args
        if a != "--"
    )
    return [Write(w, "rm -r" if recursive else name, recursive) for w in positionals(args)]


def _mv(name: str, args: list[str]) -> list[Write]:
    """Every argument; the sources (not the destination folder) move with all they hold."""
    plain = positionals(args)
    last = len(plain) - (0 if option_values(args, "t", ("--target-directory",)) else 1)
    return [Write(w, "mv", i < last) for i, w in enumerate(plain)]


def _destination(name: str, args: list[str]) -> list[Write]:
    plain = positionals(args)
    if name == "install" and any(a in ("-d", "--directory") for a in args):
        return [Write(w, "install -d") for w in plain]
    return [Write(plain[-1], name)] if len(plain) >= 2 else []


def _dd(name: str, args: list[str]) -> list[Write]:
    return [Write(a[3:], "dd of=") for a in args if a.startswith("of=")]


def _in_place(name: str, args: list[str]) -> list[Write]:
    """`sed -i` / `perl -pi -e ...`: the files after the script (the first positional unless a
    script option gave it)."""
    in_place = script_given = skip = False
    files = []
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            flags = _script_options(name, arg)
            in_place, script_given, skip = in_place or flags[0], script_given or flags[1], flags[2]
        else:
            files.append(arg)
    if not in_place:
        return []
    return [Write(f, f"{name} -i") for f in (files if script_given else files[1:])]


def _script_options(name: str, arg: str) -> tuple[bool, bool, bool]:
    """(in place, gives the script, its value is the next word) for one option of sed/perl.
    In a cluster, what follows `i` is the backup suffix (`-i.bak`, `-ie`); perl's `-M`, `-m`,
    `-I` take the rest of the word."""
    if arg.startswith("--"):
        key = arg.split("=", 1)[0]
        script = key in ("--expression", "--file")
        return arg.startswith("--in-place"), script, script and "=" not in arg
    if name == "perl" and arg[1:2] in ("M", "m", "I"):
        return False, False, False
    head, found, _ = arg[1:].partition("i")
    at = next((k for k, ch in enumerate(head) if ch in ("ef" if name == "sed" else "eE")), None)
    return bool(found), at is not None, at is not None and at == len(head) - 1 and not found


def _script(name: str, args: list[str]) -> list[Write]:
    """script(1)'s typescript file and its `-I`/`-O`/`-B`/`-T` logs."""
    logs = option_values(args, "IOBT", ("--log-in", "--log-out", "--log-io", "--log-timing"))
    skip = {
        i + 1 for i, a in enumerate(args) if a in ("-c", "--command", "-E", "--echo", "-m", *_LOG_OPTIONS)
    }
    plain = [a for i, a in enumerate(args) if i not in skip and not a.startswith("-")]
    return [Write(f, "script") for f in [*logs, *plain[:1]]]


_LOG_OPTIONS = ("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing")


def _uniq(name: str, args: list[str]) -> list[Write]:
    plain = positionals(args)
    return [Write(plain[1], "uniq")] if len(plain) > 1 else []


def _sed(name: str, args: list[str]) -> list[Write]:
    """`sed -i`'s files, and the files its script's `w` commands write (any argument that holds
    one: a file name holding `w ` only makes a protected path that follows it ask)."""
    found = [m.group(1).strip() for a in args for m in _SED_WRITE.finditer(a) if not a.startswith("--")]
    return [*_in_place(name, args), *(Write(f, "sed w") for f in found if f != "/dev/stdout")]


def _find(name: str, args: list[str]) -> list[Write]:
    out = [Write(args[i + 1], f"find {a}") for i, a in enumerate(args[:-1]) if a in _FIND_WRITES]
    return out + _find_removes(args)


def _find_removes(args: list[str]) -> list[Write]:
    runs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in _FIND_RUNS]
    how = "find -delete" if "-delete" in args else None
    for run in runs:
        if run.rsplit("/", 1)[-1] in _HANDLERS:
            how = how or f"find -exec {run}"
    if how is None:
        return []
    starts = []
    for arg in args:
        if arg in ("-H", "-L", "-P"):
            continue
        if arg.startswith(("-", "(", "!")):
            break
        starts.append(arg)
    return [Write(w, how) for w in starts]


_Handler = Callable[[str, list[str]], list[Write]]
_HANDLERS: dict[str, _Handler] = {
    **dict.fromkeys(_EVERY_ARG, _every_arg),
    **dict.fromkeys(_DESTINATION, _destination),
    "mv": _mv,
    "dd": _dd,
    "sed": _sed,
    "perl": _in_place,
    "uniq": _uniq,
    "script": _script,
    "find": _find,
}


# --- the command line -------------------------------------------------------------------------------


class ShellWrites:
    """Finds the protected paths a shell command writes, for one project. `env` is what the
    shell inherits (default: this process's environment) — `$AUGER_HOME/AGENTS.md` is a path."""

    def __init__(
        self,
        root: ProtectedPaths | Path | str,
        protected_dirs: Iterable[Path | str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.protected = root if isinstance(root, ProtectedPaths) else ProtectedPaths(root, protected_dirs)
        self.root = self.protected.root
        self.home = self.protected.home
        self._env = env

    def reason(self, command: str) -> str | None:
        """Why `command` needs approval (the first protected path it writes), or None."""
        cwd: str | None = self.root
        env = dict(os.environ if self._env is None else self._env)
        for name in _ASSIGNED.findall(command):  # set in the line itself: its value is not known
            env.pop(name, None)
        env["HOME"] = self.home
        links: _Links = {}  # links the line makes: where each leads (None: unknown)
        for segment in shellparse.analyse(command):
            for write in writes(segment):
                why = self.check(write, cwd, env, links)
                if why is not None:
                    return why
            links |= self._links(segment.argv, cwd, env)
            cwd = self._next_cwd(segment.argv, cwd, env)
        return None

    def check(self, write: Write, cwd: str | None, env: Mapping[str, str], links: _Links) -> str | None:
        path = self.resolve(write.word, cwd, env)
        link = next((k for k in links if path is not None and (path + "/").startswith(k + "/")), None)
        if path is not None and link is not None:  # through a link made earlier on the line
            if links[link] is None:
                shown, why = self.protected.show(link), "its target is not known before it runs"
                return f"a link made by this command: {write.says(write.word)} through {shown} ({why})"
            path = posixpath.normpath(f"{links[link]}{path[len(link) :]}")
        if path is None:  # relative to a folder we do not know: only what the word names
            name = protected_name(parts(write.word))
            return f"protected path ({name}/): {write.says(write.word)}" if name else None
        shown = self.protected.show(path)
        folder = self.protected.folder(path)
        if folder is not None:
            return f"protected path ({folder}/): {write.says(shown)}"
        taken = self.protected.taken(path) if write.tree else None
        if taken is not None:
            return f"protected path ({taken}/): {write.how} {shown} takes {taken}/ with it"
        return None

    def expand(self, word: str, env: Mapping[str, str]) -> str:
        """`word` with a leading `~` and the variables the shell inherits (`env`: `$HOME`,
        `${AUGER_HOME}`) expanded; others stay as written."""
        text = self.home + word[1:] if word == "~" or word.startswith("~/") else word
        return _VARIABLE.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)

    def resolve(self, word: str, cwd: str | None, env: Mapping[str, str]) -> str | None:
        """`word` as an absolute normalised path (`~` and inherited variables expanded), None if
        it is relative to an unknown folder."""
        text = self.expand(word, env)
        if text.startswith("/"):
            return posixpath.normpath("/" + text.lstrip("/"))
        return None if cwd is None else posixpath.normpath(posixpath.join(cwd, text))

    def _links(self, argv: Sequence[str], cwd: str | None, env: Mapping[str, str]) -> _Links:
        """The links `ln TARGET LINK` (or `ln TARGET... DIR`) makes: each link's path and where it
        leads (None: not known here), so later writes through it are judged where they land."""
        if not argv or argv[0].rsplit("/", 1)[-1] != "ln":
            return {}
        folder = option_values(argv[1:], "t", ("--target-directory",))
        plain = [p for p in positionals(argv[1:]) if p not in folder]
        targets, into = (plain, folder[0]) if folder else (plain[:-1], plain[-1] if len(plain) > 1 else None)
        soft = any(a == "--symbolic" or (a[:1] == "-" and a[1:2] != "-" and "s" in a) for a in argv[1:])
        where = self.resolve(into, cwd, env) if into is not None else None
        out: _Links = {}
        for target in targets:
            base = posixpath.dirname(where) if soft and where is not None else cwd
            lands = self.resolve(target, base, env)
            known = lands if lands is not None and "$" not in lands and "`" not in lands else None
            for link in (where, posixpath.join(where, posixpath.basename(target)) if where else None):
                if link is not None:
                    out[link] = known
        return out

    def _next_cwd(self, argv: Sequence[str], cwd: str | None, env: Mapping[str, str]) -> str | None:
        """The folder after `cd`/`pushd`/`popd` (None: unknown); other commands keep it."""
        if not argv or argv[0] not in ("cd", "pushd", "popd"):
            return cwd
        args = [a for a in argv[1:] if not a.startswith("-") or a == "-"]
        if argv[0] == "popd" or (not args and argv[0] == "pushd"):
            return None
        target = args[0] if args else "~"
        if target == "-" or "`" in target or "$" in self.expand(target, env):
            return None
        return self.resolve(target, cwd, env)
