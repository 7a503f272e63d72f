"""/permissions: the rules in force and where each comes from; add one to the project's (or,
with --user, the user's) config, or remove one. Changes apply at once (`auger.core.safety.rule_sources`)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from auger.tui.commands.registry import command
from auger.tui.format import md_code, md_table

if TYPE_CHECKING:
    from auger.tui.commands.context import CommandContext

KINDS = ("allow", "ask", "deny")
USAGE = (
    "Usage: /permissions, /permissions allow|ask|deny RULE [--user], /permissions remove allow|ask|deny RULE"
)


@command(
    "permissions",
    "Permission rules in force and where each comes from; add or remove one",
    args="[allow|ask|deny|remove ...]",
)
async def permissions_cmd(ctx: CommandContext, arg: str) -> None:
    try:
        words = shlex.split(arg)
    except ValueError:
        words = arg.split()
    if words:
        await _change(ctx, words)
        return
    rules = await ctx.agent.permissions()
    if not rules:
        await ctx.write(
            f"No permission rules: the approval mode decides ({ctx.settings.mode}). Add one with e.g. "
            '`/permissions allow "execute(pytest *)"`.'
        )
        return
    rows = [[r.kind, md_code(r.rule), md_code(r.source)] for r in rules]
    await ctx.write(
        md_table(["List", "Rule", "From"], rows)
        + f"\n\nDeny wins, then ask, then allow; else the mode ({ctx.settings.mode})."
    )


async def _change(ctx: CommandContext, words: list[str]) -> None:
    user = "--user" in words
    words = [w for w in words if w != "--user"]
    action = "remove" if words[0] == "remove" else "add"
    if action == "remove":
        words = words[1:]
    if len(words) < 2 or words[0] not in KINDS:
        ctx.notify(USAGE, "warning")
        return
    rule = " ".join(words[1:])
    ctx.notify(await ctx.agent.change_rule(action, words[0], rule, "user" if user else "project"))
