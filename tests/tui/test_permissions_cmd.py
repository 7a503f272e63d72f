"""Pilot: /permissions lists the rules in force with the file each comes from (the user's config,
the project's, Claude Code's settings, the thread's always-allow), adds one that applies at
once (the next call runs without asking) and removes one (from the file it is in)."""

from __future__ import annotations

import json
import tomllib

from conftest_tui import Tui, ready, tui, turn, wait_for  # noqa: F401

from auger.trust import ProjectTrust
from auger.tui.widgets.approval import ApprovalPrompt
from auger.tui.widgets.messages import InfoBlock, Notice
from auger.tui.widgets.tool_row import ToolRow


def _notices(app: object) -> list[str]:
    return [str(n.render()) for n in app.transcript.query(Notice)]  # type: ignore[attr-defined]


async def test_list_add_and_remove(tui: Tui) -> None:
    env = tui.env
    user_config = env.home / "config.toml"
    user_config.write_text(user_config.read_text() + '\n[permissions]\ndeny = ["execute(rm *)"]\n')
    (env.project / ".claude").mkdir()
    (env.project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"ask": ["Bash(git push *)"]}})
    )
    (env.project / ".auger").mkdir()
    project_config = env.project / ".auger" / "config.toml"
    project_config.write_text('[permissions]\nask = ["write_file(*.lock)"]\n')
    ProjectTrust(env.home).trust(env.project)
    env.llm.add(
        {"tool_calls": [{"name": "execute", "args": {"command": "echo made > made.txt"}}]},
        {"text": "Done."},
    )
    app = tui.app()  # manual mode: execute asks unless a rule allows it
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await turn(pilot, "/permissions")
        table = app.transcript.query(InfoBlock).last().source
        assert "execute(rm *)" in table and str(user_config) in table
        assert "Bash(git push *)" in table and str(env.project / ".claude" / "settings.json") in table
        assert "write_file(*.lock)" in table and str(project_config) in table
        await turn(pilot, '/permissions allow "execute(echo *)"')
        assert any(f"Added allow rule execute(echo *) to {project_config}" in n for n in _notices(app))
        assert "execute(echo *)" in tomllib.loads(project_config.read_text())["permissions"]["allow"]
        await turn(pilot, "make the file")  # allowed by the new rule: no approval
        assert not app.query(ApprovalPrompt) and (env.project / "made.txt").read_text() == "made\n"
        assert [r.status for r in app.transcript.query(ToolRow)] == ["success"]
        await turn(pilot, '/permissions remove allow "execute(echo *)"')
        assert "execute(echo *)" not in tomllib.loads(project_config.read_text())["permissions"].get(
            "allow", []
        )
        await turn(pilot, '/permissions remove ask "Bash(git push *)"')
        await wait_for(pilot, lambda: any("Claude Code's settings" in n for n in _notices(app)))
        await turn(pilot, "/permissions")
        assert "execute(echo *)" not in app.transcript.query(InfoBlock).last().source
