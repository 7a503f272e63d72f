"""Commands about the running session: /model, /mode, /tokens, /compact, /ps, /quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.core.port import MODES, counted
from auger.errors import UsageError
from auger.tui import format as fmt
from auger.tui.commands.context import reported
from auger.tui.commands.registry import command
from auger.tui.format import md_code, md_table, one_line
from auger.tui.prompt.completer import Completion

if TYPE_CHECKING:
    from auger.tui.commands.context import CommandContext
    from auger.tui.facts import Facts

MODE_HELP = {
    "manual": "ask before file edits and shell commands",
    "auto-edit": "edit files freely, ask before shell commands",
    "yolo": "never ask",
    "plan": "read only, then present a plan to accept",
}


def _complete_model(facts: Facts, partial: str) -> list[Completion]:
    return [Completion(spec, spec) for spec in facts.model_choices if partial in spec]


async def available_models(ctx: CommandContext) -> list[str]:
    """What the agent can switch to (its config, its credentials), the current model first."""
    choices = [c.spec for c in await ctx.agent.models()]
    current = ctx.agent.model_spec
    ctx.facts.model_choices = list(dict.fromkeys([*([current] if current else []), *choices]))
    return ctx.facts.model_choices


async def switch_model(ctx: CommandContext, spec: str) -> None:
    """Switch where the agent runs: it resolves the spec and checks the credentials."""
    resolved = await ctx.agent.set_model(spec)
    await ctx.refresh()
    when = "from the next turn" if ctx.state.busy else "for the next turn"
    ctx.notify(f"Model: {resolved} ({when} of this thread).")


@command("model", "Switch the model (picker without a spec)", args="[spec]", complete=_complete_model)
async def model_cmd(ctx: CommandContext, arg: str) -> None:
    if arg:
        await switch_model(ctx, arg)
        return
    from auger.tui.screens.model_picker import ModelPicker

    models = await available_models(ctx)

    async def chosen(spec: str | None) -> None:
        if spec:  # what goes wrong is shown, not raised into the screen stack
            await reported(switch_model(ctx, spec), "model", ctx.notify)

    await ctx.show(ModelPicker(models, ctx.agent.model_spec), chosen)


def _complete_mode(facts: Facts, partial: str) -> list[Completion]:
    return [Completion(m, m, MODE_HELP[m]) for m in MODES if m.startswith(partial)]


@command(
    "mode",
    "Show the approval mode, or set it: manual, auto-edit, yolo or plan (Shift+Tab cycles)",
    args=f"[{'|'.join(MODES)}]",
    complete=_complete_mode,
    needs_session=False,
)
async def mode_cmd(ctx: CommandContext, arg: str) -> None:
    if arg:
        if arg not in MODES:  # (`arg` comes stripped from `parse`)
            raise UsageError(f"Unknown approval mode {arg!r}.", hint=f"Use one of: {', '.join(MODES)}.")
        ctx.settings.mode = arg
        ctx.status()
    mode = ctx.settings.mode
    others = ", ".join(f"/mode {m}" for m in MODES if m != mode)
    hint = "" if arg else f" Change it with {others} or Shift+Tab."
    ctx.notify(f"Approval mode: {mode} ({MODE_HELP.get(mode, '')}).{hint}")


@command("tokens", "Context use: tokens in the window and this session's usage")
async def tokens_cmd(ctx: CommandContext, arg: str) -> None:
    facts = ctx.facts
    window = facts.context_window
    rows = [
        ["Context", fmt.context_use(ctx.agent.context_tokens, window)],
        ["Model", f"{fmt.md_code(str(ctx.agent.model_spec))} (window {fmt.tokens(window)})"],
        ["This session", f"{fmt.tokens(facts.input_tokens)} in, {fmt.tokens(facts.output_tokens)} out"],
    ]
    await ctx.write(fmt.md_table(["Tokens", "Used"], rows))


@command(
    "compact",
    "Summarise the conversation so far to free context (optionally: what to keep)",
    args="[instructions]",
    idle_only=True,
)
async def compact_cmd(ctx: CommandContext, arg: str) -> None:
    ctx.state.compacting()
    try:
        done = await ctx.agent.compact(arg.strip() or None)
    finally:
        ctx.state.compacted()
    if done is None:
        ctx.notify("Nothing to compact yet.")
        return
    for notice in done.notices:
        ctx.notify(notice.message, notice.level)
    ctx.status()
    await ctx.write(
        f"**Compacted** {counted(done.summarized, 'message')}: "
        f"context {fmt.tokens(done.tokens_before or 0)} → "
        f"~{fmt.tokens(done.tokens_after or 0)} tokens. The model now sees this summary:\n\n"
        + "\n".join(f"> {line}" for line in (done.summary or "").splitlines())
    )


@command("ps", "The agent's background commands; /ps stop ID ends one", args="[stop ID]")
async def ps_cmd(ctx: CommandContext, arg: str) -> None:
    verb, _, job = arg.strip().partition(" ")
    if verb == "stop" and job.strip():
        ctx.notify(await ctx.agent.stop_job(job.strip()))
    elif verb:
        ctx.notify("Usage: /ps, or /ps stop ID", "warning")
        return
    jobs = await ctx.agent.jobs()
    if verb:
        await ctx.refresh()  # the line under the todo list
    if not jobs:
        await ctx.write(
            "No background commands in this thread (the agent starts them with `execute(background=true)`)."
        )
        return
    rows = [[md_code(j.id), md_code(one_line(j.command, 200)), j.status] for j in jobs]
    await ctx.write(md_table(["Id", "Command", "Status"], rows))


@command("quit", "Quit auger (prints how to resume)", aliases=("exit", "q"), needs_session=False)
async def quit_cmd(ctx: CommandContext, arg: str) -> None:
    await ctx.exit()


@command("cost", "Tokens and money: this thread's and its last turn's, per model")
async def cost_cmd(ctx: CommandContext, arg: str) -> None:
    rows, totals = [], {"thread": 0.0, "turn": 0.0}
    unknown = set()
    for c in await ctx.agent.cost():
        money = "price unknown" if c.price is None else f"${c.price:.4f}"
        if c.price is None:
            unknown.add(c.scope)
        else:
            totals[c.scope] += c.price
        cache = f" ({fmt.tokens(c.cache_read_tokens)} cached)" if c.cache_read_tokens else ""
        rows.append(
            [
                c.scope,
                md_code(c.model),
                str(c.calls),
                fmt.tokens(c.input_tokens) + cache,
                fmt.tokens(c.output_tokens),
                money,
            ]
        )
    if not rows:
        await ctx.write("No model calls in this thread yet.")
        return
    table = md_table(["", "Model", "Calls", "Input tokens", "Output tokens", "Price"], rows)
    total = [
        f"{scope}: ${totals[scope]:.4f}" + (" + unknown" if scope in unknown else "")
        for scope in ("thread", "turn")
    ]
    await ctx.write(
        f"{table}\n\nTotal — {'; '.join(total)} (genai-prices' table; local models have no price)."
    )


def _bar(part: float, width: int = 24) -> str:
    filled = min(width, round(part * width))
    return "█" * filled + "░" * (width - filled)


@command(
    "context", "What fills the context window: system prompt, skills, memory, tools, messages, tool results"
)
async def context_cmd(ctx: CommandContext, arg: str) -> None:
    use = await ctx.agent.context_use()
    total = sum(p.tokens for p in use.parts)
    scale = use.window or total or 1
    rows = [[p.name, f"~{fmt.tokens(p.tokens)}", md_code(_bar(p.tokens / scale))] for p in use.parts]
    of = f" of {fmt.tokens(use.window)} ({100 * total / use.window:.0f}%)" if use.window else ""
    note = "" if use.measured else "\n\nNo model call in this session yet: the saved messages only."
    await ctx.write(
        md_table(["Part", "Tokens", "Share of the window" if use.window else "Share"], rows)
        + f"\n\n**~{fmt.tokens(total)} tokens{of}** {md_code(_bar(total / scale))}{note}"
    )
