"""The shell corpus (`shell_corpus.txt`): real command lines, each with the verdict the permission
engine gives it under `RULES` in manual and in yolo mode (`manual yolo | command`, `↵` for a
newline). `test_shell_corpus.py` checks them. Run as a script to compare engines:

    PYTHONPATH=src python tests/core/shell_corpus.py              # print the corpus as judged now
    PYTHONPATH=src python tests/core/shell_corpus.py OTHER/src    # list verdicts that differ from OTHER's
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).with_name("shell_corpus.txt")
RULES = {
    "allow": [
        "execute(echo *)", "execute(printf *)", "execute(git status *)", "execute(git log *)",
        "execute(git diff *)", "execute(git add *)", "execute(git commit *)", "execute(ls *)",
        "execute(cat *)", "execute(grep *)", "execute(rg *)", "execute(pytest *)",
        "execute(python -m pytest *)", "execute(npm test *)", "execute(npm run *)", "execute(npx tsc *)",
        "execute(find *)", "execute(xargs *)", "execute(cd *)", "execute(head *)", "execute(tail *)",
        "execute(wc *)", "execute(sort *)", "execute(uniq *)", "execute(sed -n *)", "execute(make *)",
        "execute(mkdir -p *)", "execute(cp *)", "execute(touch *)", "execute(tee *)", "execute(true)",
        "execute(test *)", "execute([ *)", "execute(diff *)", "execute(awk *)", "execute(bash *)",
        "execute(sh *)",
    ],
    "ask": ["execute(git push *)"],
    "deny": [
        "execute(rm *)", "execute(git push --force *)", "execute(git reset --hard *)", "execute(curl *)",
        "execute(sudo *)", "execute(dd *)",
    ],
}  # fmt: skip


def load() -> list[tuple[str, str, str]]:
    """(manual verdict, yolo verdict, command) per corpus line."""
    out = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            head, _, command = line.partition(" | ")
            manual, yolo = head.split()
            out.append((manual, yolo, command.replace("↵", "\n")))
    return out


def judge(commands: list[str], root: Path) -> list[tuple[str, str]]:
    """(manual, yolo) verdicts of the engine on the import path, for a project at `root` whose
    AUGER_HOME is `root/auger-home` (the environment variable must say so too)."""
    from auger.core.safety.permissions import PermissionEngine

    eng = PermissionEngine(**RULES, root=root, protected=[root / "auger-home"])

    def action(command: str, mode: str) -> str:
        return eng.evaluate("execute", {"command": command}, mode=mode, gated=True).action

    return [(action(c, "manual"), action(c, "yolo")) for c in commands]


def _judged_by(src: str | None, commands: list[str]) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "AUGER_HOME": f"{tmp}/auger-home"}
        if src is not None:
            env["PYTHONPATH"] = src
        here = str(Path(__file__).parent)
        code = f"import json, sys; sys.path.insert(0, {here!r}); import shell_corpus as s; "
        code += f"from pathlib import Path; print(json.dumps(s.judge(json.load(sys.stdin), Path({tmp!r}))))"
        proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(commands), env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return [list(pair) for pair in json.loads(proc.stdout)]


if __name__ == "__main__":
    cases = [c for _, _, c in load()]
    now = _judged_by(None, cases)
    if len(sys.argv) < 2:
        for (manual, yolo), command in zip(now, cases, strict=True):
            print(f"{manual:5} {yolo:5} | {command.replace(chr(10), '↵')}")
    else:
        before = _judged_by(sys.argv[1], cases)
        for old, new, command in zip(before, now, cases, strict=True):
            if old != new:
                shown = command.replace(chr(10), "↵")
                print(f"{shown!r}: manual {old[0]} -> {new[0]}, yolo {old[1]} -> {new[1]}")
