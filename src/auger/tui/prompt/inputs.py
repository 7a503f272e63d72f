"""What happens to a submitted input: a slash command, a `!shell` command, or a prompt (with
earlier `!` output prepended; the agent inlines its `@file`s). Prompts typed while the agent is starting or
a turn is running wait in the state machine's queue (`auger.tui.state`) and are sent in order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auger.errors import AugerError
from auger.tui.commands import REGISTRY, load_commands, parse
from auger.tui.commands.context import reported
from auger.tui.widgets.messages import ShellBlock, UserMessage

if TYPE_CHECKING:
    from auger.tui.app import AugerApp


class InputController:
    def __init__(self, app: AugerApp) -> None:
        self.app = app
        self.state = app.state
        self.pending_context: list[str] = []  # `!command` output for the next prompt
        load_commands()

    # -- entry -----------------------------------------------------------------------------
    async def submit(self, text: str) -> None:
        parsed = parse(text)
        if parsed is not None:
            await self.command(text, *parsed)
        elif text.lstrip().startswith("!"):
            await self.shell(text.lstrip()[1:].strip())
        else:
            await self.prompt(text)

    async def prompt(self, text: str) -> None:
        app = self.app
        if self.state.error is not None:
            app.notice("The agent is not running (see the error above); fix it and restart auger.", "error")
            return
        waiting = self.state.must_wait()
        shown = UserMessage(text, queued=waiting)
        await app.transcript.add(shown)
        app.transcript.scroll_end(animate=False)
        if waiting:
            self.state.enqueue(text, shown)
        else:
            self.send(text, shown)

    def send(self, text: str, shown: UserMessage) -> None:
        prompt = text  # the agent inlines the `@path`s it names (TurnOptions.mentions)
        if self.pending_context:
            prompt = "\n\n".join([*self.pending_context, prompt])
            self.pending_context.clear()
        self.app.start_turn(prompt, shown, typed=text)

    async def drain(self) -> None:
        """Send what waited: commands run in order until a prompt starts a turn."""
        while (waiting := self.state.next_input()) is not None:
            if waiting.shown is None:
                await self.submit(waiting.text)
            else:
                self.send(waiting.text, waiting.shown)

    # -- slash commands --------------------------------------------------------------------
    async def command(self, text: str, name: str, arg: str) -> None:
        app, state = self.app, self.state
        cmd = REGISTRY.get(name)
        if cmd is None and not app.facts.asked and state.error is None:
            state.enqueue(text)  # a skill, maybe: the agent says which once it is up
            return
        if cmd is None:
            skills = [name for _, name, _, _ in app.facts.invocable()]
            # the Session expands `/skill args` and `/mcp__server__prompt`; with no catalogue read
            # (the agent's answer failed: logged) it is the one that knows
            if name in skills or name.startswith("mcp__") or app.facts.catalogue is None:
                await self.prompt(text)
                return
            near = REGISTRY.suggest(name, extra=skills)
            hint = f" Did you mean /{near}?" if near else " Type /help for the list."
            app.notice(f"Unknown command /{name}.{hint}", "warning")
            return
        if cmd.needs_session and app.session is None:
            if state.error is not None:
                app.notice(f"/{cmd.name} needs the agent, which did not start.", "error")
            else:
                state.enqueue(text)
                app.notice(f"/{cmd.name} will run when the agent is ready.")
            return
        if cmd.idle_only and state.busy:
            app.notice(f"/{cmd.name} waits for the running turn: press Esc to interrupt it.", "warning")
            return
        await reported(cmd.handler(app.commands(), arg), cmd.name, app.notice)

    # -- !shell ----------------------------------------------------------------------------
    async def shell(self, command: str) -> None:
        """`!command`: run where the agent runs (the agent's project, its sandbox: the port's
        `run_shell`); the output goes with the next prompt."""
        app = self.app
        if not command:
            app.notice("Type a shell command after `!`, e.g. `!git status`.", "warning")
            return
        if app.session is None:
            if self.state.error is not None:
                app.notice("`!` commands run where the agent runs, which did not start.", "error")
            else:
                self.state.enqueue(f"!{command}")
                app.notice("The command will run when the agent is ready.")
            return
        block = ShellBlock(command)
        await app.transcript.add(block)
        app.run_worker(self._run_shell(block), group="shell")

    async def _run_shell(self, block: ShellBlock) -> None:
        assert self.app.session is not None
        try:
            result = await self.app.session.run_shell(block.command)
        except AugerError as exc:
            block.finish(str(exc), -1)
            return
        block.finish(result.output, result.exit_code)
        self.pending_context.append(result.as_context())
