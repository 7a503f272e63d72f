"""`auger acp`: auger as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains,
Neovim, Emacs) and terminal clients. A front end over the same port (`auger.core.port.AgentPort`)
as the TUI, headless and `auger serve`.

* `handshake` answers `initialize` with the standard library only, before anything heavy is
  imported (the `agent-client-protocol` package alone takes longer than the 150 ms budget).
* `agent` is the ACP `Agent`: sessions, prompts, cancel, load, modes and models over the port.
* `updates` maps the IR events onto ACP session updates; `permissions` maps approvals onto
  `session/request_permission` and back; `sessions` opens ports over one shared Runtime.
"""
