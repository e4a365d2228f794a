"""Connections to MCP servers through the official SDK: each server lives in a task of its own (the SDK's streams
must be opened and closed in one task), is given `MCP_TIMEOUT` seconds to start, and `MCP_TOOL_TIMEOUT` per call.
A server that fails, hangs or crashes is reported in one sentence and takes nothing else down; its stderr goes to
a log file rather than the screen."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from agentui.core.errors import AgentuiError
from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.offers import RemotePrompt, RemoteResource, list_prompts, list_resources

log = logging.getLogger(__name__)

State = Literal["starting", "connected", "failed", "needs-auth", "closed"]
DEFAULT_START_SECONDS = 30.0
DEFAULT_CALL_SECONDS = 120.0
_REQUEST_TIMEOUT = 408
"""The code of the SDK's McpError when a request's read timeout passes."""


SdkBridge = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""Sends one JSON-RPC message to the named SDK server and returns its answer (None for a notification)."""
Elicit = Callable[[str, Any], Awaitable[Any]]
"""Asks the person what a server's elicitation request (its name, the SDK's params) wants: an ElicitResult."""


class McpRequestError(AgentuiError):
    """A request to a server that did not get its answer, in one sentence (and the server's error code, if any)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


@contextlib.asynccontextmanager
async def sdk_transport(bridge: SdkBridge, name: str) -> AsyncIterator[tuple[Any, Any]]:
    """The MCP client's streams for a server inside the SDK program: each message goes through `bridge`, each
    answer comes back into the read stream (messages are sent at once, each awaiting its own answer)."""
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCMessage

    read_send, read_receive = anyio.create_memory_object_stream[Any](64)
    write_send, write_receive = anyio.create_memory_object_stream[Any](64)

    async def deliver(message: Any) -> None:
        payload = message.message.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            answer = await bridge(name, payload)
        except Exception as exc:  # the SDK could not answer: the call fails, the client goes on
            if payload.get("id") is None:
                return
            answer = {"jsonrpc": "2.0", "id": payload["id"], "error": {"code": -32603, "message": str(exc)}}
        if answer is not None and payload.get("id") is not None and ("result" in answer or "error" in answer):
            await read_send.send(SessionMessage(JSONRPCMessage.model_validate(answer)))

    async def pump() -> None:
        async with anyio.create_task_group() as group:
            async for message in write_receive:
                group.start_soon(deliver, message)

    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield read_receive, write_send
        finally:
            group.cancel_scope.cancel()


@dataclass
class RemoteTool:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass
class CallOutcome:
    content: list[dict[str, Any]]
    """Text and image blocks, as the Messages API takes them."""
    is_error: bool = False
    structured: dict[str, Any] | None = None
    """The result's `structuredContent`, when the tool gave one (what Claude Code shows the model instead of its
    text)."""


@dataclass
class McpServer:
    config: ServerConfig
    log_dir: Path
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    on_tools_changed: Callable[[McpServer], None] = lambda server: None
    bridge: SdkBridge | None = None
    """For an sdk server: how its JSON-RPC messages reach the SDK program (and its answers come back)."""
    state: State = "starting"
    error: str = ""
    tools: list[RemoteTool] = field(default_factory=list)
    resources: list[RemoteResource] = field(default_factory=list)
    prompts: list[RemotePrompt] = field(default_factory=list)
    elicit: Elicit | None = None
    """Where the server's elicitation requests go (None: declined, as where no one is there to answer)."""
    _capabilities: Any = None
    _session: Any = None
    _task: asyncio.Task[None] | None = None
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the connection has ended: calls still waiting will get no answer."""
    _refreshes: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def has_resources(self) -> bool:
        """It declared resources when it connected (then the model is given the resource tools)."""
        return getattr(self._capabilities, "resources", None) is not None

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"mcp-{self.name}.log"

    async def start(self) -> None:
        """Connect, initialise and list the tools; returns once connected or failed (never raises)."""
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.name}")
        timeout = _seconds(self.env.get("MCP_TIMEOUT"), DEFAULT_START_SECONDS)
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            self._fail(f"the MCP server {self.name} did not start within {timeout:g} s")
            await self.close()

    async def _run(self) -> None:
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message, elicitation_callback=self._elicited)
                )
                self._capabilities = (await session.initialize()).capabilities
                self._session = session
                await self._list_tools()
                await self._list_resources()
                await self._list_prompts()
                self.state = "connected"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            from agentui.core.extend.mcp.oauth import describe_failure

            if why := describe_failure(exc):  # (not a failure: the person signs in from /mcp)
                self.state, self.error = "needs-auth", f"the MCP server {self.name} {why}"
                return
            said = self._last_log_line()
            self._fail(f"the MCP server {self.name} {_describe(exc)}" + (f"; it said: {said}" if said else ""))
        finally:
            self._session = None
            if self.state == "connected":
                self.state = "closed"
            self._ready.set()
            self._ended.set()

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        if self.config.type == "sdk":
            if self.bridge is None:
                raise RuntimeError("is an SDK server, which only an Agent SDK program (--input-format stream-json) has")
            return sdk_transport(self.bridge, self.name)
        if self.config.type == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            self.log_dir.mkdir(parents=True, exist_ok=True)
            errlog = stack.enter_context(open(self.log_path, "a", encoding="utf-8"))  # noqa: SIM115 (the stack closes it)
            params = StdioServerParameters(
                command=self.config.command, args=self.config.args, env={**self.env, **self.config.env}
            )
            return stdio_client(params, errlog=errlog)
        from agentui.core.extend.mcp.oauth import provider, uses_oauth

        auth = provider(self.config, self.env) if uses_oauth(self.config) else None
        if self.config.type == "sse":  # the older HTTP transport, still served by many
            from mcp.client.sse import sse_client

            return sse_client(self.config.url, headers=self.config.headers or None, auth=auth)
        from mcp.client.streamable_http import streamablehttp_client

        @contextlib.asynccontextmanager
        async def http() -> Any:
            headers = self.config.headers or None
            async with streamablehttp_client(self.config.url, headers=headers, auth=auth) as streams:
                yield streams[0], streams[1]

        return http()

    def _last_log_line(self) -> str:
        try:
            lines = [line.strip() for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return ""
        return lines[-1][:200] if lines else ""

    async def _list_tools(self) -> None:
        listed = await self._session.list_tools()
        self.tools = [
            RemoteTool(tool.name, tool.description or "", dict(tool.inputSchema or {"type": "object"}))
            for tool in listed.tools
        ]

    async def _list_resources(self) -> None:
        try:
            self.resources = await list_resources(self._session, self._capabilities)
        except Exception as exc:  # (as Claude Code: a server whose list fails offers none)
            log.info("listing the resources of %s failed: %s", self.name, exc)
            self.resources = []

    async def _list_prompts(self) -> None:
        try:
            self.prompts = await list_prompts(self._session, self._capabilities)
        except Exception as exc:
            log.info("listing the prompts of %s failed: %s", self.name, exc)
            self.prompts = []

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        root = getattr(message, "root", None)
        listers = {
            types.ToolListChangedNotification: self._list_tools,
            types.ResourceListChangedNotification: self._list_resources,
            types.PromptListChangedNotification: self._list_prompts,
        }
        if (lister := listers.get(type(root))) is not None and self._session is not None:
            # Not here: this runs inside the session's reader, which must be free to read the list's answer.
            task = asyncio.get_running_loop().create_task(self._refresh(lister))
            self._refreshes.add(task)
            task.add_done_callback(self._refreshes.discard)

    async def _refresh(self, lister: Callable[[], Awaitable[None]]) -> None:
        try:
            await lister()
        except Exception as exc:  # a server going away mid-refresh: reported on the next call
            log.info("refreshing the lists of %s failed: %s", self.name, exc)
            return
        self.on_tools_changed(self)

    async def _elicited(self, context: Any, params: Any) -> Any:
        from mcp import types

        if self.elicit is None:
            return types.ElicitResult(action="decline")
        return await self.elicit(self.name, params)

    async def request(self, what: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """`send(session)`'s answer (a resources/read, a prompts/get); McpRequestError with the sentence when the
        server is not running, does not answer within MCP_TOOL_TIMEOUT, answers with an error, or goes away first
        (it crashed, or no longer takes the sign-in: said at once, not at the time limit)."""
        if self._session is None or self.state != "connected":
            why = f" ({self.error})" if self.error else ""
            raise McpRequestError(f"The MCP server {self.name} is not running{why}.")
        timeout = _seconds(self.env.get("MCP_TOOL_TIMEOUT"), DEFAULT_CALL_SECONDS)
        late = f"The MCP server {self.name} did not answer {what} within {timeout:g} s."
        try:
            return await asyncio.wait_for(self._unless_ended(send(self._session)), timeout)
        except TimeoutError:
            raise McpRequestError(late) from None
        except Exception as exc:  # the server's error, or a crashed server: one sentence
            error = getattr(exc, "error", None)
            if getattr(error, "code", None) == _REQUEST_TIMEOUT:
                raise McpRequestError(late) from None
            if self._signed_out():
                raise McpRequestError(f"{self.error[:1].upper()}{self.error[1:]}.") from None
            said = getattr(error, "message", None) or _describe(exc)
            if "closed the connection" in _describe(exc) or type(exc).__name__ in (
                "ClosedResourceError",
                "ConnectionError",
            ):
                self._fail(f"the MCP server {self.name} stopped")
                said = "closed the connection (it may have crashed; see its log)"
            said = f"The MCP server {self.name} failed on {what}: {said.rstrip('.')}."
            raise McpRequestError(said, getattr(error, "code", None)) from None

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        if self._session is None or self.state != "connected":
            reason = f" ({self.error})" if self.error else ""
            return CallOutcome(
                [{"type": "text", "text": f"The MCP server {self.name} is not running{reason}."}], is_error=True
            )
        timeout = _seconds(self.env.get("MCP_TOOL_TIMEOUT"), DEFAULT_CALL_SECONDS)
        unanswered = CallOutcome(
            [{"type": "text", "text": f"The MCP server {self.name} did not answer {tool} within {timeout:g} s."}],
            is_error=True,
        )
        try:
            calling = self._session.call_tool(tool, arguments, read_timeout_seconds=timedelta(seconds=timeout))
            result = await asyncio.wait_for(self._unless_ended(calling), timeout + 1)
        except TimeoutError:
            return unanswered
        except Exception as exc:  # a crashed server, a protocol error: the model hears of it
            if getattr(getattr(exc, "error", None), "code", None) == _REQUEST_TIMEOUT:  # (the SDK's own limit)
                return unanswered
            if self._signed_out():  # (its token was refused: the person must sign in again)
                return CallOutcome([{"type": "text", "text": f"{self.error[:1].upper()}{self.error[1:]}."}], True)
            what = _describe(exc)
            if "closed the connection" in what or type(exc).__name__ == "ClosedResourceError":
                self._fail(f"the MCP server {self.name} stopped")
                what = "closed the connection (it may have crashed; see its log)"
            return CallOutcome(
                [{"type": "text", "text": f"The MCP server {self.name} failed on {tool}: {what}."}], is_error=True
            )
        structured = result.structuredContent if isinstance(result.structuredContent, dict) else None
        return CallOutcome(_blocks(result.content), bool(result.isError), structured)

    def _signed_out(self) -> bool:
        """The connection ended because the server no longer takes the token (a method: the state has changed
        since the call began, which the type checker cannot see)."""
        return self.state == "needs-auth"

    async def _unless_ended(self, request: Awaitable[Any]) -> Any:
        """`request`'s answer, unless the connection ends first (a sign-in lost, a transport failed), when none
        will come: then ConnectionError at once rather than at the call's time limit."""
        call, ended = asyncio.ensure_future(request), asyncio.ensure_future(self._ended.wait())
        try:
            await asyncio.wait({call, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not call.done():
                call.cancel()
        if call.done() and not call.cancelled():
            return call.result()
        raise ConnectionError("Connection closed")

    def _fail(self, message: str) -> None:
        if self.state not in ("failed", "needs-auth"):  # (a lost sign-in ends the connection too: that is the news)
            self.state, self.error = "failed", message
            log.info("%s", message)  # (logging, not the screen: the front end shows the sentence)

    async def close(self) -> None:
        self._stop.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 5)
        except Exception:  # it did not stop in time (TimeoutError), or failed stopping: take it down
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        if self.state in ("starting", "connected"):
            self.state = "closed"


def _blocks(content: list[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for item in content:
        kind = getattr(item, "type", "")
        if kind == "text":
            blocks.append({"type": "text", "text": item.text})
        elif kind == "image":
            blocks.append(
                {"type": "image", "source": {"type": "base64", "media_type": item.mimeType, "data": item.data}}
            )
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            blocks.append({"type": "text", "text": text if text is not None else f"[resource {resource.uri}]"})
        else:
            blocks.append({"type": "text", "text": f"[{kind or 'unknown'} content]"})
    return blocks


def _describe(exc: BaseException) -> str:
    """One phrase for what went wrong, looking inside exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"could not be started: {exc.filename or exc} was not found"
    text = str(exc).strip() or type(exc).__name__
    if "Connection closed" in text or isinstance(exc, (BrokenPipeError, EOFError)):
        return "closed the connection (it may have crashed; see its log)"
    return f"failed: {text}"


def _seconds(value: str | None, default: float) -> float:
    """MCP_TIMEOUT and MCP_TOOL_TIMEOUT are milliseconds in Claude Code."""
    try:
        return max(0.1, float(value) / 1000) if value else default
    except ValueError:
        return default
