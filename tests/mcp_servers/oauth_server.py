"""An MCP server over streamable HTTP that requires OAuth, with its own authorization server
(the `mcp` SDK's server-side auth: metadata, dynamic client registration, /authorize, /token).
The authorization step approves at once (it redirects straight back with a code), so a client
whose "browser" just follows redirects completes the flow.

python oauth_server.py PORT        # http://127.0.0.1:PORT/mcp ; prints "issued N" per token to stderr
"""

from __future__ import annotations

import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class AutoApprove:
    """In-memory OAuth authorization server that approves every request."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.issued = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        token = secrets.token_urlsafe(24)
        self.tokens[token] = AccessToken(
            token=token,
            client_id=client.client_id or "",
            scopes=authorization_code.scopes,
            expires_at=int(time.time()) + 3600,
            resource=authorization_code.resource,
        )
        self.issued += 1
        print(f"issued {self.issued}", file=sys.stderr, flush=True)
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=3600)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return None

    async def exchange_refresh_token(self, *args: object) -> OAuthToken:
        raise NotImplementedError

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: object) -> None:
        return None


def main() -> None:
    port = int(sys.argv[1])
    base = f"http://127.0.0.1:{port}"
    server = FastMCP(
        "secured",
        host="127.0.0.1",
        port=port,
        log_level="WARNING",
        auth_server_provider=AutoApprove(),
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(enabled=True),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Answer only to an authorised client."""
        return "authorised"

    server.run(transport="streamable-http")


if __name__ == "__main__":
    main()
