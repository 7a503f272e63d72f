"""The ACP `Agent` of `auger acp`: every method is a step over the port (`AgentPort`).

* `session/new` opens a port on a new thread (the ACP session id is the thread id) and then
  advertises the slash commands (`available_commands_update`: the skills, `/compact`);
  `session/load` opens it on a saved thread and replays its history as session updates.
* `session/prompt` runs a turn (`auger.acp.prompt`); `session/cancel` cancels it.
* Modes are auger's approval modes (manual, auto-edit, yolo, plan), offered both as session modes and
  as a `mode` config option; the model is a `model` config option (`session/set_config_option`),
  switched with the port's `set_model` (checked, credentials included).
* Errors a user can act on (bad config, unknown thread, unknown model) are JSON-RPC errors
  carrying auger's one-line message; anything else is logged with its traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp import RequestError
from acp import schema as s
from acp.helpers import update_available_commands

from auger.acp.editor_tools import EditorFiles, EditorTerminal, offers_files, offers_terminal
from auger.acp.forms import offers_forms
from auger.acp.handshake import initialize_result
from auger.acp.prompt import AcpSession, prompt_images, prompt_text, run_prompt
from auger.acp.updates import UpdateMapper
from auger.core.port import MODES
from auger.errors import AugerError

if TYPE_CHECKING:
    from acp.interfaces import Client

    from auger.core.port import AgentPort, SessionFactory
    from auger.core.threads.store import LiveThread
    from auger.settings import Settings

log = logging.getLogger("auger.acp")
BAD_REQUEST = -32602  # JSON-RPC invalid params: the message says what to change
MODE_TEXT = {
    "manual": "Ask before edits and commands",
    "auto-edit": "Edits go through; commands ask",
    "yolo": "Never ask",
    "plan": "Read only; ends with a plan for you to accept",
}
BUILTIN_COMMANDS = [("compact", "Summarise the conversation so far to free context", "[instructions]")]


class AugerAcpAgent:
    def __init__(self, load_settings: Any, factory: SessionFactory, version: str) -> None:
        self.load_settings = load_settings  # cwd -> Settings (with the command line's flags)
        self.factory = factory
        self.version = version
        self.settings: Settings | None = None
        self.sessions: dict[str, AcpSession] = {}
        self.conn: Client | None = None
        self.client_capabilities: dict[str, Any] = {}  # from `initialize` (the handshake's or ours)
        self._background: set[asyncio.Task[None]] = set()
        self._lister: AgentPort | None = None  # a port for `session/list` (no thread of its own)

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    @property
    def client(self) -> Client:
        assert self.conn is not None, "on_connect runs before any request"
        return self.conn

    # -- lifecycle -------------------------------------------------------------------------------
    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **_: Any
    ) -> s.InitializeResponse:
        if client_capabilities is not None:
            self.client_capabilities = client_capabilities.model_dump(by_alias=True, exclude_none=True)
        return s.InitializeResponse.model_validate(initialize_result(protocol_version, self.version))

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> s.NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers)
        self._later(self._advertise(session))
        modes, options = await self._state(session)
        return s.NewSessionResponse(session_id=session.id, modes=modes, config_options=options)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> s.LoadSessionResponse:
        session = await self._open(cwd, session_id, mcp_servers)
        why = self._elsewhere(await session.port.thread_info(), session_id)
        history = [] if why else await session.port.history()
        if why or not history:  # a saved thread has at least one turn
            self.sessions.pop(session.id, None)
            await session.port.aclose()
            raise RequestError(BAD_REQUEST, why or f"auger: no saved thread {session_id!r} in this project.")
        for event in history:
            for update in session.mapper.updates(event, replay=True):
                await self.client.session_update(session_id=session.id, update=update)
        self._later(self._advertise(session))
        modes, options = await self._state(session)
        return s.LoadSessionResponse(modes=modes, config_options=options)

    def _elsewhere(self, info: LiveThread | None, thread_id: str) -> str | None:
        """Why a saved thread is not loaded here: it belongs to another project (None: it does not)."""
        root = self.settings.project_root if self.settings is not None else None
        if info is None or root is None or not info.root or Path(info.root) == root:
            return None
        return f"auger: thread {thread_id!r} belongs to the project {info.root}, not {root}; load it there."

    async def _open(self, cwd: str, thread_id: str | None, mcp_servers: list[Any] | None) -> AcpSession:
        settings = self._settings_for(cwd)
        clients_mcp = getattr(self.factory, "client_mcp", None)
        if isinstance(clients_mcp, list) and not clients_mcp and mcp_servers:
            clients_mcp.extend(mcp_servers)  # the first session's servers join the Runtime's
        port = await _acting(self.factory(settings, thread_id))
        session = AcpSession(port, UpdateMapper(settings.project_root), settings.mode)
        caps = self.client_capabilities
        if settings.get("acp.client_fs", True) and offers_files(caps):
            session.files = EditorFiles(self.client, port.thread_id)
        sandboxed = settings.get("sandbox.enabled", False)
        session.forms = offers_forms(caps)  # else the core declines MCP servers' forms
        if settings.get("acp.client_terminal", True) and offers_terminal(caps) and not sandboxed:
            session.terminal = EditorTerminal(self.client, port.thread_id)
        old = self.sessions.pop(session.id, None)
        if old is not None:
            await old.port.aclose()
        self.sessions[session.id] = session
        return session

    def _settings_for(self, cwd: str) -> Settings:
        try:
            settings: Settings = self.load_settings(Path(cwd))
        except AugerError as exc:
            raise RequestError(BAD_REQUEST, f"auger: {exc}") from None
        if self.settings is None:
            self.settings = settings
        elif settings.project_root != self.settings.project_root:
            raise RequestError(
                BAD_REQUEST,
                f"auger: this `auger acp` serves {self.settings.project_root}; start another for {cwd}.",
            )
        return self.settings

    async def list_sessions(self, cwd: str | None = None, **_: Any) -> s.ListSessionsResponse:
        """This project's saved threads, newest first (auger's thread store)."""
        settings = self._settings_for(cwd or str(Path.cwd()))
        if self._lister is None:
            self._lister = await _acting(self.factory(settings, None))
        threads = await _acting(self._lister.list_threads(limit=200))
        return s.ListSessionsResponse(
            sessions=[
                s.SessionInfo(
                    session_id=t.id, cwd=t.cwd, title=t.title or None, updated_at=_iso(t.updated_at)
                )
                for t in threads
            ]
        )

    async def close(self) -> None:
        if self._lister is not None:
            await self._lister.aclose()
        for session in list(self.sessions.values()):
            session.port.cancel()
        for session in list(self.sessions.values()):
            await session.port.aclose()
        self.sessions.clear()

    # -- turns -----------------------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> s.PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt)
        if text.strip().split(" ", 1)[0] == "/compact":
            return await self._compact(session, text.strip()[len("/compact") :].strip() or None)
        stop = await _acting(run_prompt(self.client, session, text, prompt_images(prompt)))
        return s.PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.port.cancel()

    async def _compact(self, session: AcpSession, instructions: str | None) -> s.PromptResponse:
        from acp.helpers import update_agent_message_text

        done = await _acting(session.port.compact(instructions))
        text = (
            f"Compacted {done.summarized} messages into a summary."
            if done is not None
            else "Nothing to compact yet."
        )
        await self.client.session_update(session_id=session.id, update=update_agent_message_text(text))
        return s.PromptResponse(stop_reason="end_turn")

    # -- modes and models ------------------------------------------------------------------------
    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> s.SetSessionModeResponse:
        self._set_mode(self._session(session_id), mode_id)
        return s.SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> s.SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id == "mode":
            self._set_mode(session, str(value))
        elif config_id == "model":
            await _acting(session.port.set_model(str(value)))
        else:
            raise RequestError(BAD_REQUEST, f"auger: unknown config option {config_id!r}; use mode or model.")
        options = (await self._state(session))[1]
        return s.SetSessionConfigOptionResponse(config_options=options)

    def _set_mode(self, session: AcpSession, mode: str) -> None:
        if mode not in MODES:
            raise RequestError(BAD_REQUEST, f"auger: unknown mode {mode!r}; use one of: {', '.join(MODES)}.")
        session.mode = mode

    async def _state(self, session: AcpSession) -> tuple[s.SessionModeState, list[Any]]:
        modes = [s.SessionMode(id=m, name=m, description=MODE_TEXT.get(m)) for m in MODES]
        state = s.SessionModeState(current_mode_id=session.mode, available_modes=modes)
        choices = [c.spec for c in await session.port.models()]
        current = session.port.model_spec or (choices[0] if choices else "")
        if current and current not in choices:
            choices.insert(0, current)
        options = [_select("mode", "Approval mode", session.mode, MODES, MODE_TEXT)]
        if current:
            options.append(_select("model", "Model", current, choices))
        return state, options

    # -- slash commands --------------------------------------------------------------------------
    async def _advertise(self, session: AcpSession) -> None:
        catalogue = await session.port.catalogue()
        entries = [
            *BUILTIN_COMMANDS,
            *((skill.name, skill.description, skill.args_hint) for skill in catalogue.skills),
            *((c.name, c.description, c.args_hint or "[args]") for c in catalogue.commands),
        ]
        commands = [s.AvailableCommand(name=n, description=d, input=_hint(h)) for n, d, h in entries]
        await self.client.session_update(session_id=session.id, update=update_available_commands(commands))

    def _later(self, work: Any) -> None:
        """Run `work` after the current response is sent (the connection sends in order)."""
        task = asyncio.create_task(_logged(work))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(
                BAD_REQUEST, f"auger: unknown session {session_id!r}; use session/new or session/load."
            )
        return session


def _iso(timestamp: float) -> str | None:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(timestamp, UTC).isoformat() if timestamp else None


def _hint(text: str) -> s.AvailableCommandInput:
    return s.AvailableCommandInput(s.UnstructuredCommandInput(hint=text))


def _select(
    option: Literal["mode", "model"],
    name: str,
    current: str,
    values: Sequence[str],
    texts: Mapping[str, str] | None = None,
) -> s.SessionConfigOptionSelect:
    """A select config option (its id is also its category); `texts`: what each value means."""
    return s.SessionConfigOptionSelect(
        id=option,
        name=name,
        category=option,
        type="select",
        current_value=current,
        options=[
            s.SessionConfigSelectOption(value=v, name=v, description=(texts or {}).get(v)) for v in values
        ],
    )


async def _acting(work: Any) -> Any:
    """`await work`, with auger's own errors as JSON-RPC errors carrying their message."""
    try:
        return await work
    except AugerError as exc:
        raise RequestError(BAD_REQUEST if exc.exit_code == 2 else -32603, f"auger: {exc}") from None


async def _logged(work: Any) -> None:
    try:
        await work
    except Exception:
        log.exception("background ACP update failed")
