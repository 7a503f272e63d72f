"""The two-layer rule and the startup budget, checked in fresh interpreters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = (
    "textual", "langchain", "langchain_core", "langgraph", "langgraph_sdk", "langgraph_api", "deepagents",
    "openai", "anthropic", "mcp", "tree_sitter", "tree_sitter_bash",
)  # fmt: skip


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _heavy(mods: set[str]) -> set[str]:
    return {m for m in mods if m.split(".")[0] in HEAVY}


def test_core_never_imports_textual() -> None:
    code = (
        "import auger.core, auger.core.session.session, auger.core.agent.graph, auger.core.events, "
        "auger.core.session.stream, auger.core.models.specs, auger.core.mcp.manager, auger.headless\n"
        "from auger.core.agent.graph import create_cli_agent"
    )
    mods = _modules_after(code)
    assert not {m for m in mods if m.split(".")[0] == "textual"}


def test_cli_entry_imports_nothing_heavy() -> None:
    assert _heavy(_modules_after("import auger.cli.command")) == set()


def test_version_and_help_import_nothing_heavy() -> None:
    for flag in ("--version", "--help"):
        code = (
            f"import sys\nsys.argv = ['auger', {flag!r}]\nimport auger.cli.command\n"
            "try:\n    auger.cli.command.main()\nexcept SystemExit:\n    pass"
        )
        assert _heavy(_modules_after(code)) == set(), flag


def test_settings_and_config_show_import_nothing_heavy() -> None:
    code = "import auger.settings, auger.cli.config, auger.core.events, auger.core.models.specs, auger.errors"
    assert _heavy(_modules_after(code)) == set()


def test_the_snapshot_store_does_not_load_the_thread_stack() -> None:
    mods = _modules_after("import auger.core.rewind.objects, auger.core.rewind.snapshot")
    assert "auger.core.sqlite_write" in mods
    assert not {m for m in mods if m.startswith("auger.core.threads")}


def test_version_is_answered_before_the_parser_is_imported() -> None:
    code = (
        "import sys\nsys.argv = ['auger', '--version']\nfrom auger.cli import main\n"
        "assert main() == 0\nsys.stdout.flush()"
    )
    mods = _modules_after(code)
    assert not {"argparse", "auger.cli.command", "typing"} & mods
    from auger import __version__

    exe = Path(sys.executable).parent / "auger"  # the console script itself
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"auger {__version__}\n"
