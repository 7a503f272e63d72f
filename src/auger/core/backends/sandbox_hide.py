"""What the bubblewrap sandbox hides: the user's credentials and auger's own folder.

Under `--sandbox` the host is bound read-only, so without this a command could still read
`~/.ssh/id_rsa`, cloud tokens or `$AUGER_HOME/threads.db`. Each hidden folder gets an empty,
read-only tmpfs over it and each hidden file `/dev/null` (reading it fails), unless it does not
exist. Hidden by default: AUGER_HOME (threads.db, config, logs) and `DEFAULT_HIDE` — SSH and GPG
keys, cloud CLIs (AWS, Azure, gcloud, OCI, DigitalOcean, Hetzner), GitHub and other forges'
CLIs, kubectl and docker configs, `.netrc`, `.pgpass`, `.my.cnf`, `.npmrc`, `.pypirc`,
`.git-credentials`, cargo/gem/maven/gradle credentials, password stores and keyrings, browser
profiles, other coding agents' credentials.

`[sandbox] hide = [...]` adds paths (`~/…`, absolute, or relative to the project: `.env`),
from either config file; `[sandbox] expose = [...]` shows paths again (a default one, or a file
inside a hidden folder such as `~/.ssh/known_hosts`) — read from your own config only
(`auger.settings` ignores it in a project's `.auger/config.toml`, so a cloned repository cannot
expose your keys). The project itself always stays visible and writable, also when it lies in a
hidden folder, and a hidden path inside the project (the project is `$HOME`) is hidden too.
Standard library only; `auger.core.backends.sandbox` puts `BwrapHide.before`/`.after` around its project
bind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_HIDE = (
    *("~/.ssh", "~/.gnupg", "~/.netrc", "~/.pgpass", "~/.my.cnf", "~/.git-credentials"),
    *("~/.config/git/credentials", "~/.npmrc", "~/.yarnrc", "~/.pypirc", "~/.gem/credentials"),
    *(
        "~/.cargo/credentials",
        "~/.cargo/credentials.toml",
        "~/.m2/settings.xml",
        "~/.gradle/gradle.properties",
    ),
    *("~/.aws", "~/.azure", "~/.config/gcloud", "~/.oci", "~/.config/doctl", "~/.config/hcloud"),
    *("~/.s3cfg", "~/.boto", "~/.config/rclone", "~/.terraform.d", "~/.vault-token", "~/.config/op"),
    *("~/.config/gh", "~/.config/hub", "~/.config/glab-cli", "~/.config/tea", "~/.kube", "~/.docker"),
    *("~/.password-store", "~/.local/share/keyrings", "~/.config/Bitwarden", "~/.config/configstore"),
    *("~/.mozilla", "~/.config/google-chrome", "~/.config/chromium", "~/.config/BraveSoftware"),
    *("~/.claude/.credentials.json", "~/.codex/auth.json", "~/.config/github-copilot"),
)
_PRIVATE_TMP = "/tmp"  # the sandbox's /tmp is its own folder: host paths under it are not there


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def expand(raw: str, root: str) -> str:
    """A `hide`/`expose` entry as an absolute path: `~` is the home folder, relative is the project."""
    text = os.path.expanduser(str(raw))
    return os.path.normpath(text if os.path.isabs(text) else os.path.join(root, text))


def hidden_paths(settings: Any) -> tuple[list[str], list[str]]:
    """(hidden, exposed) absolute paths for `settings`: AUGER_HOME, the defaults and `hide`,
    without what `expose` names."""
    root = str(settings.project_root)
    table = settings.data.get("sandbox") or {}
    exposed = [expand(p, root) for p in table.get("expose") or ()]
    wanted = [str(settings.home), *DEFAULT_HIDE, *(table.get("hide") or ())]
    hidden = [p for p in dict.fromkeys(expand(w, root) for w in wanted) if p not in exposed]
    return hidden, exposed


@dataclass
class BwrapHide:
    """The bwrap arguments that hide `hidden` and show `exposed` again, around the project bind:
    `before` covers folders the project lies in, `after` the rest (and re-binds what is exposed)."""

    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)

    @classmethod
    def build(
        cls, hidden: Iterable[str], exposed: Sequence[str], root: str, visible: Sequence[str] = ()
    ) -> BwrapHide:
        """`visible`: host folders bound into the private /tmp (the sandbox's tool folders)."""
        out, folders = cls(), []
        for path in dict.fromkeys(os.path.realpath(p) for p in hidden):
            if not os.path.lexists(path) or path == root:  # the project always stays visible
                continue
            if _inside(path, _PRIVATE_TMP) and not any(_inside(path, v) for v in (root, *visible)):
                continue  # not in the sandbox anyway
            args = (
                ["--perms", "0555", "--tmpfs", path]
                if os.path.isdir(path)
                else ["--ro-bind", "/dev/null", path]
            )
            (out.before if _inside(root, path) else out.after).extend(args)
            folders += [path] if os.path.isdir(path) else []
        for path in dict.fromkeys(os.path.realpath(p) for p in exposed):
            if os.path.lexists(path) and any(_inside(path, f) and path != f for f in folders):
                out.after += ["--bind" if _inside(path, root) else "--ro-bind", path, path]
        for folder in folders:
            out.after += ["--remount-ro", folder]
        return out
