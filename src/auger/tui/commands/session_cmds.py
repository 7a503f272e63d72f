"""Commands about the running session: /model, /mode, /tokens, /compact, /quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.tui import format as fmt
from auger.tui.commands.registry import command
from auger.tui.widgets.completion import Completion

if TYPE_CHECKING:
    from auger.tui.app import AugerApp

MODES = ("manual", "auto-edit", "yolo", "plan")
MODE_HELP = {
    "manual": "ask before file edits and shell commands",
    "auto-edit": "edit files freely, ask before shell commands",
    "yolo": "never ask",
    "plan": "read only, then present a plan to accept",
}


def _complete_model(app: AugerApp, partial: str) -> list[Completion]:
    return [Completion(spec, spec) for spec in app.model_choices if partial in spec]


async def available_models(app: AugerApp) -> list[str]:
    """What the agent can switch to (its config, its credentials), the current model first."""
    assert app.session is not None
    choices = [c.spec for c in await app.session.models()]
    current = app.session.model_spec
    app.model_choices = list(dict.fromkeys([*([current] if current else []), *choices]))
    return app.model_choices


async def switch_model(app: AugerApp, spec: str) -> None:
    """Switch where the agent runs: it resolves the spec and checks the credentials."""
    assert app.session is not None
    resolved = await app.session.set_model(spec)
    await app.refresh_agent()
    when = "from the next turn" if app.busy else "for the next turn"
    app.notice(f"Model: {resolved} ({when} of this thread).")


@command("model", "Switch the model (picker without a spec)", args="[spec]", complete=_complete_model)
async def model_cmd(app: AugerApp, arg: str) -> None:
    if arg:
        await switch_model(app, arg)
        return
    from auger.tui.screens.model_picker import ModelPicker

    assert app.session is not None
    models = await available_models(app)

    async def chosen(spec: str | None) -> None:
        if spec:
            try:
                await switch_model(app, spec)
            except Exception as exc:  # AugerError: shown, not raised into the screen stack
                app.notice(str(exc), "error")
        app.prompt.focus()

    await app.push_screen(ModelPicker(models, app.session.model_spec), chosen)


def _complete_mode(app: AugerApp, partial: str) -> list[Completion]:
    return [Completion(m, m, MODE_HELP[m]) for m in MODES if m.startswith(partial)]


@command(
    "mode",
    "Show the approval mode, or set it: manual, auto-edit, yolo or plan (Shift+Tab cycles)",
    args="[manual|auto-edit|yolo]",
    complete=_complete_mode,
    needs_session=False,
)
async def mode_cmd(app: AugerApp, arg: str) -> None:
    if arg:
        app.set_mode(arg.strip())
    mode = app.settings.mode
    others = ", ".join(f"/mode {m}" for m in MODES if m != mode)
    hint = "" if arg else f" Change it with {others} or Shift+Tab."
    app.notice(f"Approval mode: {mode} ({MODE_HELP.get(mode, '')}).{hint}")


@command("tokens", "Context use: tokens in the window and this session's usage")
async def tokens_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    spec = app.session.model_spec
    window = app.context_window()
    used = app.session.context_tokens
    totals = app.usage_totals
    rows = [
        ["Context", fmt.context_use(used, window)],
        ["Model", f"{fmt.md_code(str(spec))} (window {fmt.tokens(window)})"],
        ["This session", f"{fmt.tokens(totals['input'])} in, {fmt.tokens(totals['output'])} out"],
    ]
    await app.write_info(fmt.md_table(["Tokens", "Used"], rows))


@command(
    "compact",
    "Summarise the conversation so far to free context (optionally: what to keep)",
    args="[instructions]",
    idle_only=True,
)
async def compact_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    app.status.activity = "compacting"
    try:
        done = await app.session.compact(arg.strip() or None)
    finally:
        app.status.activity = ""
    if done is None:
        app.notice("Nothing to compact yet.")
        return
    for notice in done.notices:
        app.notice(notice.message, notice.level)
    app.refresh_status()
    await app.write_info(
        f"**Compacted** {fmt.counted(done.summarized, 'message')}: "
        f"context {fmt.tokens(done.tokens_before or 0)} → "
        f"~{fmt.tokens(done.tokens_after or 0)} tokens. The model now sees this summary:\n\n"
        + "\n".join(f"> {line}" for line in (done.summary or "").splitlines())
    )


@command("quit", "Quit auger (prints how to resume)", aliases=("exit", "q"), needs_session=False)
async def quit_cmd(app: AugerApp, arg: str) -> None:
    await app.quit_app()
