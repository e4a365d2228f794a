"""One running language server: started confined as every program agentui starts (its own process group, marked and
journalled, under the guard where it can run), initialized with a ceiling, told of the files agentui changes, asked
for locations, and stopped politely and then not."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agentui.core.errors import AgentuiError
from agentui.core.lsp.diagnostics import Diagnostic
from agentui.core.lsp.rpc import Connection, RpcError
from agentui.core.lsp.servers import ServerSpec
from agentui.core.process_groups import start_group, stop_group
from agentui.core.safety.confined import Confined

QUIET = 0.2
"""Seconds without another publishDiagnostics after the one for the new text, before the wait ends."""
STOP_CEILING = 3.0
"""Seconds the server has to answer shutdown and to end after exit, each, before it is terminated."""

Confine = Callable[[list[str], dict[str, str]], Confined]
"""Wraps a program's argv and environment as agentui confines the programs it starts."""


class ServerError(AgentuiError):
    """The server could not be started or initialized; one sentence says why."""


def uri_of(path: Path) -> str:
    return path.as_uri()


def path_of(uri: str) -> Path | None:
    if not uri.startswith("file://"):
        return None
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(uri).path))


class LanguageServer:
    def __init__(self, spec: ServerSpec, program: str, root: Path, env: Mapping[str, str], confine: Confine) -> None:
        self.spec, self.program, self.root = spec, program, root
        self._env, self._confine = dict(env), confine
        self._process: asyncio.subprocess.Process | None = None
        self._confined: Confined | None = None
        self._rpc: Connection | None = None
        self._texts: dict[str, tuple[int, str]] = {}
        """Each open document's version and text, as the server has it."""
        self._published: dict[str, tuple[int | None, list[Diagnostic]]] = {}
        self._changed = asyncio.Condition()
        self._watch: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.spec.program

    @property
    def pid(self) -> int | None:
        """The process started (bubblewrap's, under the guard), while it runs."""
        return self._process.pid if self._process is not None and self._process.returncode is None else None

    @property
    def alive(self) -> bool:
        return self._rpc is not None and not self._rpc.closed.is_set()

    async def start(self, ceiling: float) -> None:
        """Start the server and initialize it; ServerError (the server stopped) within `ceiling` seconds."""
        try:
            confined = self._confine([self.program, *self.spec.args], self._env)
        except OSError as exc:  # (the guard could not be set up)
            raise ServerError(f"{self.name} could not be confined ({exc.strerror or exc})") from None
        self._confined = confined
        try:
            process = await start_group(
                *confined.argv,
                env=confined.env,
                cwd=self.root,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                limit=1 << 20,
            )
        except OSError as exc:
            confined.ended()
            raise ServerError(f"{self.name} could not be started ({exc.strerror or exc})") from None
        confined.started()
        self._process = process
        assert process.stdout is not None and process.stdin is not None
        rpc = self._rpc = Connection(process.stdout, process.stdin, self._notified)
        self._watch = asyncio.get_running_loop().create_task(self._wake_when_closed(rpc))
        try:
            await rpc.request("initialize", self._initialize_params(), ceiling)
            await rpc.notify("initialized", {})
        except RpcError as exc:
            await self.stop()
            raise ServerError(f"{self.name} did not start: {exc}") from None
        if self._rpc is not rpc:  # (stopped while it started: the session ended)
            raise ServerError(f"{self.name} was stopped as it started")

    def _initialize_params(self) -> dict[str, Any]:
        return {
            "processId": None,  # (under the guard our pid is not in its namespace: a server watching it would quit)
            "rootUri": uri_of(self.root),
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": uri_of(self.root), "name": self.root.name}],
            "capabilities": {
                "textDocument": {
                    "synchronization": {"didSave": True},
                    "publishDiagnostics": {"relatedInformation": False, "versionSupport": True},
                    "definition": {"linkSupport": True},
                    "references": {},
                    "hover": {"contentFormat": ["plaintext", "markdown"]},
                    "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                },
                "workspace": {"workspaceFolders": True, "configuration": True},
            },
            "clientInfo": {"name": "agentui"},
        }

    def _notified(self, method: str, params: Any) -> None:
        if method != "textDocument/publishDiagnostics" or not isinstance(params, dict):
            return
        items = params.get("diagnostics")
        items = items if isinstance(items, list) else []
        found = [d for d in (Diagnostic.parse(item) for item in items) if d is not None]
        version = params.get("version") if isinstance(params.get("version"), int) else None
        self._published[str(params.get("uri"))] = (version, found)
        asyncio.get_running_loop().create_task(self._wake())

    async def _wake_when_closed(self, rpc: Connection) -> None:
        await rpc.closed.wait()  # (a crash ends a wait for diagnostics at once)
        await self._wake()

    async def _wake(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def current(self, path: Path) -> list[Diagnostic]:
        """The diagnostics last published for the text the server holds of `path`."""
        uri = uri_of(path)
        held, published = self._texts.get(uri), self._published.get(uri)
        if held is None or published is None or published[0] not in (None, held[0]):
            return []
        return published[1]

    def text_of(self, path: Path) -> str | None:
        """The text the server holds for `path`, if it has it open."""
        held = self._texts.get(uri_of(path))
        return held[1] if held is not None else None

    async def sync(self, path: Path, language: str, text: str) -> int:
        """The server told `path` holds `text` (opened, or changed and saved); its new version."""
        assert self._rpc is not None
        uri = uri_of(path)
        held = self._texts.get(uri)
        version = 1 if held is None else held[0] + 1
        self._texts[uri] = (version, text)
        self._published.pop(uri, None)
        document = {"uri": uri, "version": version}
        if held is None:
            item = {"uri": uri, "languageId": language, "version": version, "text": text}
            await self._rpc.notify("textDocument/didOpen", {"textDocument": item})
        else:
            await self._rpc.notify(
                "textDocument/didChange", {"textDocument": document, "contentChanges": [{"text": text}]}
            )
        await self._rpc.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
        return version

    async def diagnostics(self, path: Path, version: int, wait: float) -> list[Diagnostic] | None:
        """The diagnostics published for `version` of `path` (or after it was sent, from a server that names no
        version), once they have been quiet for a moment; None if none came within `wait` seconds."""
        uri = uri_of(path)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        found: list[Diagnostic] | None = None
        async with self._changed:
            while self.alive:
                published = self._published.get(uri)
                if published is not None and published[0] in (None, version):
                    found = published[1]
                    if not await self._wait_change(min(QUIET, max(0.0, deadline - loop.time()))):
                        break
                    continue
                if not await self._wait_change(deadline - loop.time()):
                    break
        return found

    async def _wait_change(self, seconds: float) -> bool:
        if seconds <= 0:
            return False
        try:
            await asyncio.wait_for(self._changed.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def request(self, method: str, params: Any, ceiling: float) -> Any:
        if self._rpc is None:
            raise RpcError("the server has stopped")
        return await self._rpc.request(method, params, ceiling)

    async def stop(self) -> None:
        """shutdown and exit, each with a ceiling, then SIGTERM and SIGKILL for what is left of its group."""
        rpc, process, self._rpc = self._rpc, self._process, None
        if rpc is not None and not rpc.closed.is_set():
            with contextlib.suppress(RpcError):
                await rpc.request("shutdown", None, STOP_CEILING)
                await rpc.notify("exit", None)
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.wait()), STOP_CEILING)
            await stop_group(process, STOP_CEILING)  # (the group: what the server started goes too)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), STOP_CEILING)
        if rpc is not None:
            await rpc.aclose()
        if self._confined is not None:
            self._confined.ended()
            self._confined = None
