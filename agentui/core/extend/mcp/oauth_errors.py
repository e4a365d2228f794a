"""What an MCP server's OAuth can go wrong with: a sign-in is needed, or one did not end with tokens."""

from __future__ import annotations

from agentui.core.errors import AgentuiError


class NeedsAuthentication(AgentuiError):
    """The server asked for OAuth and there is no token that works: the person must authenticate (/mcp). (Turned
    into the server's needs-auth state; it reaches no front end.)"""


class AuthenticationFailed(AgentuiError):
    """A sign-in that did not end with tokens; the message is one sentence for the person."""
