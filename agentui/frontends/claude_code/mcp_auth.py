"""The SDK's MCP sign-in requests, answered as Claude Code 2.1.197 answers them: `mcp_authenticate` gives the
program the authorization URL to open (no browser is opened here) and the loopback port the redirect must reach,
the sign-in and the server's reconnection finishing in the background; `mcp_clear_auth` forgets a server's tokens."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from agentui.api import AgentuiError

if TYPE_CHECKING:
    from agentui.api import Conversation

log = logging.getLogger(__name__)
_SIGN_INS: set[asyncio.Task[str]] = set()
"""Sign-ins waiting for the program's browser (kept: a task no one holds may be collected)."""


async def authenticate(conversation: Conversation, _: object, request: dict[str, Any]) -> dict[str, Any]:
    name = str(request.get("serverName") or "")
    told: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def show(url: str, opened: bool) -> None:
        if not told.done():
            told.set_result(url)

    sign_in = asyncio.create_task(conversation.servers.authenticate_mcp(name, show, browse=False))
    _SIGN_INS.add(sign_in)
    sign_in.add_done_callback(_finished)
    await asyncio.wait({told, sign_in}, return_when=asyncio.FIRST_COMPLETED)
    if told.done():
        url = told.result()
        redirect = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
        return {
            "authUrl": url,
            "requiresUserAction": True,
            "callbackExpected": True,
            "redirectScheme": "localhost",
            "callbackPort": urlsplit(redirect).port,
        }
    try:
        sign_in.result()
    except (AgentuiError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    return {"requiresUserAction": False, "callbackExpected": False}


def _finished(task: asyncio.Task[str]) -> None:
    _SIGN_INS.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        log.info("an MCP sign-in asked for by the SDK program ended: %s", error)


async def clear(conversation: Conversation, _: object, request: dict[str, Any]) -> dict[str, Any]:
    await conversation.servers.clear_mcp_auth(str(request.get("serverName") or ""))
    return {}
