"""The shell commands a program runs from its own arguments, for permission rules
(`auger.core.safety.shell_parser` judges them like the segments of the line), and the variables
that name a program (`RUNS_VALUE`) or change what code runs (`LOADS`):

* git's `-c KEY=VALUE` before the subcommand where the value is a command git runs: an alias
  starting with `!`, `core.pager`, `core.sshCommand`, `core.editor`, `core.fsmonitor`,
  `diff.external`, `sequence.editor`, `core.askPass`, `gpg.program`, `credential.helper` (`!...`),
  `pager.*`, `*.textconv`, `filter.*.clean|smudge|process`, `*tool.*.cmd`;
* ripgrep's `--pre COMMAND`, sort's `--compress-program=PROGRAM`, and the variable `printf -v NAME`
  sets (`printf -v PATH .` makes `ls` the project's `./ls`);
* GNU sed's `e COMMAND` in a script (and `e` alone or an `s///e` flag, which run text only known
  when sed runs: `dynamic`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
