"""What a command does, not how it is spelled: the options of common destructive commands read
into one canonical form, for permission rules (`auger.core.safety.rules`).

`shape(["rm", "-fr", "build"])`, `shape(["rm", "-r", "-f", "build"])`,
`shape(["rm", "--recursive", "--force", "build"])` and `shape(["rm", "build", "-Rf"])` are all
`Shape(head=("rm",), flags={"-f", "-r"}, args=("build",))`: short options are split out of their
clusters, aliases (`-R`, `--recursive`) become one canonical flag, options count wherever they
stand (GNU commands and git take them after the arguments too) until `--`, and an option's value
stays with it (`-o ci.skip`). `git push origin +main` forces like `--force` (a `+` refspec), and
`git branch -D` is `-d -f`. git's own options before the subcommand (`-C dir`, `-c k=v`) are kept
apart in `global_options`.

Only the commands in `SPECS` are read so (rm, chmod, chown, chgrp; git push, reset, clean,
branch, checkout, switch): an option syntax must be known to tell `-o VALUE` from `-o` and a
chmod mode (`-w`) from an option (a cluster holding an unknown letter is an argument). `None`
means "not one of those" and the rule is matched as written. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Spec:
    """One command's options: `aliases` spelled -> canonical flags (several for `-D`), the short
    `letters` it knows, and the options whose value is the next word (or the rest of a cluster)."""

    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    letters: str = ""
    takes_value: frozenset[str] = frozenset()
    plus_forces: bool = False  # git push: a `+refspec` argument forces


@dataclass(frozen=True)
class Shape:
    head: tuple[str, ...]  # ("rm",) or ("git", "push")
    flags: frozenset[str]
    args: tuple[str, ...]
    global_options: tuple[str, ...] = ()  # git's options before the subcommand, as written


def _alias(table: str) -> dict[str, tuple[str, ...]]:
    """`"-R=-r --recursive=-r -D=-d,-f"` -> {"-R": ("-r",), "--recursive": ("-r",), "-D": ("-d", "-f")}."""
    pairs = (item.split("=") for item in table.split())
    return {spelled: tuple(canon.split(",")) for spelled, canon in pairs}


_RM = Spec(
    _alias("-R=-r --recursive=-r --force=-f --verbose=-v --dir=-d --interactive=-i"), letters="rRfivdI"
)
_CHMOD = Spec(_alias("--recursive=-R --verbose=-v --changes=-c --silent=-f --quiet=-f"), letters="Rvcf")
_CHOWN = Spec({**_CHMOD.aliases, **_alias("--no-dereference=-h")}, letters="RvcfhHLP")
_GIT: dict[str, Spec] = {
    "push": Spec(
        _alias(
            "--force=-f --delete=-d --set-upstream=-u --dry-run=-n --verbose=-v --quiet=-q --push-option=-o"
        ),
        letters="fdunvqo46",
        takes_value=frozenset({"-o", "--repo", "--receive-pack", "--exec"}),
        plus_forces=True,
    ),
    "reset": Spec(_alias("--quiet=-q --patch=-p"), letters="qpN"),
    "clean": Spec(
        _alias("--force=-f --dry-run=-n --quiet=-q --interactive=-i --exclude=-e"),
        letters="fdxXnqie",
        takes_value=frozenset({"-e"}),
    ),
    "branch": Spec(
        _alias(
            "--delete=-d -D=-d,-f --force=-f --move=-m -M=-m,-f --copy=-c -C=-c,-f --remotes=-r --all=-a"
            " --set-upstream-to=-u"
        ),
        letters="dDfmMcCravqu",
        takes_value=frozenset({"-u"}),
    ),
    "checkout": Spec(
        _alias("--force=-f --quiet=-q --patch=-p"),
        letters="fqpbB",
        takes_value=frozenset({"-b", "-B", "--orphan"}),
    ),
    "switch": Spec(
        _alias("--force=-f --discard-changes=-f --create=-c --force-create=-C"),
        letters="fcCqd",
        takes_value=frozenset({"-c", "-C", "--orphan"}),
    ),
}
SPECS: dict[str, Spec] = {"rm": _RM, "chmod": _CHMOD, "chown": _CHOWN, "chgrp": _CHOWN}
_GIT_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})


def shape(words: Sequence[str]) -> Shape | None:
    """The canonical form of a simple command (wrappers already peeled), None if its options are
    not known here. The command word's folder is dropped (`/bin/rm` is `rm`)."""
    if not words:
        return None
    name = words[0].rsplit("/", 1)[-1]
    if name == "git":
        return _git(list(words[1:]))
    spec = SPECS.get(name)
    if spec is None:
        return None
    flags, args = read_options(spec, words[1:])
    return Shape((name,), flags, args)


def _git(words: list[str]) -> Shape | None:
    globals_: list[str] = []
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if word in _GIT_GLOBAL_VALUE and words:
            word += " " + words.pop(0)
        globals_.append(word)
    if not words or words[0] not in _GIT:
        return None
    flags, args = read_options(_GIT[words[0]], words[1:])
    return Shape(("git", words[0]), flags, args, tuple(globals_))


def read_options(spec: Spec, words: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """(canonical flags, arguments) of `words` under `spec`."""
    flags: set[str] = set()
    args: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            args += words[i:]
            break
        if word.startswith("--"):
            key, eq, value = word.partition("=")
            canon = spec.aliases.get(key, (key,))
            if key in spec.takes_value or canon[0] in spec.takes_value:
                value, i = (value, i) if eq else (words[i] if i < len(words) else "", i + 1)
                flags.add(f"{canon[0]} {value}")
            else:
                flags.update(f"{c}={value}" if eq else c for c in canon)
        elif word.startswith("-") and len(word) > 1 and word[1] in spec.letters:
            taken, i = _cluster(spec, word, words, i)
            if taken is None:
                args.append(word)
            else:
                flags |= taken
        else:
            args.append(word)
    if spec.plus_forces and any(a.startswith("+") and len(a) > 1 for a in args):
        flags.add("-f")
        args = [a[1:] if a.startswith("+") else a for a in args]
    return frozenset(flags), tuple(args)


def _cluster(spec: Spec, word: str, words: Sequence[str], i: int) -> tuple[set[str] | None, int]:
    """The flags of a short-option cluster (`-rfv`, `-oVALUE`, `-o VALUE`), and where reading goes
    on; None when a letter is not an option (`chmod -w file`: a mode)."""
    out: set[str] = set()
    for k, letter in enumerate(word[1:], start=1):
        option = "-" + letter
        if letter not in spec.letters:
            return None, i
        if option in spec.takes_value:
            value = word[k + 1 :]
            if not value:
                value, i = (words[i] if i < len(words) else ""), i + 1
            out.add(f"{option} {value}")
            return out, i
        out.update(spec.aliases.get(option, (option,)))
    return out, i
