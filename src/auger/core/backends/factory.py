"""Pick the deepagents backend the agent's file tools and shell run on.

`[sandbox] enabled = true` -> a sandbox: bubblewrap (default) or `provider = "module.path:factory"`,
a remote integration called as `factory(sandbox_table, project_root)`.
Otherwise `shell = true` (default) -> `LocalShell`, and `shell = false` -> `ProjectFiles` (no
`execute` tool). All of them take virtual paths rooted at the project.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.errors import ConfigError

if TYPE_CHECKING:
    from deepagents.backends.protocol import BackendProtocol

    from auger.settings import Settings

BUBBLEWRAP = "bubblewrap"


def make_backend(settings: Settings) -> BackendProtocol:
    """The backend for `settings` (reads `shell`, `shell_timeout`, `project_root`, `home`, `data.sandbox`)."""
    root = Path(settings.project_root)
    table: dict[str, Any] = dict(settings.data.get("sandbox") or {})
    if table.get("enabled"):
        provider = str(table.get("provider") or BUBBLEWRAP).strip()
        if provider == BUBBLEWRAP:
            from auger.core.backends.bwrap import check_bwrap
            from auger.core.backends.sandbox import BubblewrapSandbox
            from auger.core.backends.sandbox_hide import hidden_paths

            check_bwrap()
            from auger.core.backends.mounts import added_dirs

            hidden, exposed = hidden_paths(settings)
            return BubblewrapSandbox(
                root,
                network=bool(table.get("network")),
                hide=hidden,
                expose=exposed,
                binds=added_dirs(settings),
                **output_limits(settings),
            )
        backend = _load_factory(provider)(table, root)
        if not hasattr(backend, "execute"):
            kind = type(backend).__name__
            raise ConfigError(f"sandbox provider '{provider}' returned a {kind}, not a sandbox backend")
        return backend  # type: ignore[no-any-return]
    if settings.shell:
        from auger.core.backends.local_shell import LocalShell  # kills timed-out process groups

        return LocalShell(root_dir=root, virtual_mode=True, inherit_env=True, **output_limits(settings))
    from auger.core.backends.project_files import ProjectFiles

    return ProjectFiles(root_dir=root, virtual_mode=True)


def output_limits(settings: Settings) -> dict[str, Any]:
    """The shell backends' timeout, output window and spill folder, from `settings`."""
    from auger.core.backends.mounts import ARTIFACTS_MOUNT, artifacts_dir
    from auger.core.backends.spill import SPILL_FOLDER, SpillTo

    spill = SpillTo(artifacts_dir(Path(settings.home)) / SPILL_FOLDER, f"{ARTIFACTS_MOUNT}{SPILL_FOLDER}/")
    return {
        "timeout": settings.shell_timeout,
        "max_output_bytes": int(settings.data.get("shell_output_bytes", 100_000)),
        "lines": int(settings.data.get("shell_output_lines", 2000)),
        "spill_to": spill,
    }


def _load_factory(provider: str) -> Callable[[dict[str, Any], Path], Any]:
    """Import `module.path:factory`, with a ConfigError that says what to fix."""
    module_name, sep, attr = provider.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(
            f"sandbox.provider '{provider}' is neither '{BUBBLEWRAP}' nor 'module.path:factory'",
            hint='Set [sandbox] provider = "bubblewrap" or name a factory function.',
        )
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or module_name
        package = missing.split(".")[0].replace("_", "-")
        raise ConfigError(
            f"sandbox provider module '{module_name}' is not installed (no module named '{missing}')",
            hint=f"Install the package that provides it (e.g. `pip install {package}`), or change it.",
        ) from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ConfigError(f"sandbox provider '{provider}': module '{module_name}' has no callable '{attr}'")
    return factory  # type: ignore[no-any-return]
