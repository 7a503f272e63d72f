"""`auger doctor`: the checks of `auger.core.doctor` for this project and config, plus the
terminal's; exit 1 when one fails."""

from __future__ import annotations

from auger.errors import AugerError


def run(argv: list[str]) -> int:
    from auger.core.doctor import diagnose, terminal
    from auger.settings import load_settings

    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: auger doctor\n\nCheck the config, the model and its key, trust, MCP servers, the sandbox."
        )
        return 0
    try:
        settings = load_settings()
    except AugerError as exc:
        print(f"fail  config    {exc.message}\n      fix: {exc.hint or 'fix the file named'}")
        return 1
    rows = [(c.name, c.status, c.detail, c.fix) for c in [*diagnose(settings), terminal()]]
    for name, status, detail, fix in rows:
        print(f"{status:<5} {name:<10} {detail}")
        if fix and status != "ok":
            print(f"{'':<5} {'':<10} fix: {fix}")
    return 1 if any(status == "fail" for _, status, _, _ in rows) else 0
