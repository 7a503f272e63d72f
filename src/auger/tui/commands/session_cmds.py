"""Commands about the running session: /model, /mode, /tokens, /compact, /quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.tui import format as fmt
from auger.tui.commands.registry import command
from auger.tui.models import available_models
from auger.tui.widgets.completion import Completion

if TYPE_CHECKING:
    from auger.tui.app import AugerApp

MODES = ("manual", "auto-edit", "yolo")
MODE_HELP = {
    "manual": "ask before file edits and shell commands",
    "auto-edit": "edit files freely, ask before shell commands",
    "yolo": "never ask",
}


def _complete_model(app: AugerApp, partial: str) -> list[Completion]:
    return [Completion(spec, spec) for spec in available_models(app.settings, app.session) if partial in spec]


async def switch_model(app: AugerApp, spec: str) -> None:
    from auger.core.models import check_credentials, parse_spec

    assert app.session is not None
    resolved = parse_spec(spec, app.settings.providers)
    check_credentials(resolved)
    app.session.set_model(resolved.spec)
    app.refresh_status()
    when = "from the next turn" if app.busy else "for the next turn"
    app.notice(f"Model: {resolved.spec} ({when} of this thread).")


@command("model", "Switch the model (picker without a spec)", args="[spec]", complete=_complete_model)
async def model_cmd(app: AugerApp, arg: str) -> None:
    if arg:
        await switch_model(app, arg)
        return
    from auger.tui.screens.model_picker import ModelPicker

    assert app.session is not None
    models = available_models(app.settings, app.session)

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
    "Approval mode: manual, auto-edit or yolo (Shift+Tab cycles)",
    args="[manual|auto-edit|yolo]",
    complete=_complete_mode,
    needs_session=False,
)
async def mode_cmd(app: AugerApp, arg: str) -> None:
    if not arg:
        app.action_cycle_mode()
    else:
        app.set_mode(arg.strip())
    mode = app.session.mode if app.session else app.settings.mode
    app.notice(f"Approval mode: {mode} ({MODE_HELP.get(mode, '')}).")


@command("tokens", "Context use: tokens in the window and this session's usage")
async def tokens_cmd(app: AugerApp, arg: str) -> None:
    assert app.session is not None
    spec = app.session.model_spec
    window = app.context_window(spec)
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
    for text, level in done.notices:
        app.notice(text, level)
    app.refresh_status()
    await app.write_info(
        f"**Compacted** {done.summarized} messages: context {fmt.tokens(done.tokens_before)} → "
        f"~{fmt.tokens(done.tokens_after)} tokens. The model now sees this summary:\n\n"
        + "\n".join(f"> {line}" for line in done.summary.splitlines())
    )


@command("quit", "Quit auger (prints how to resume)", aliases=("exit", "q"), needs_session=False)
async def quit_cmd(app: AugerApp, arg: str) -> None:
    await app.quit_app()
