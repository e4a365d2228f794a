"""The session's language servers: one per language, started on the first edit of one of its files, asked after each
Edit and Write for the diagnostics the change brought, and for locations by the LSP tool; stopped when the session
ends. A server that is missing, will not start or stops is said once, in one sentence, and edits go on without it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentui.core.lsp.diagnostics import Diagnostic, new_diagnostics
from agentui.core.lsp.rpc import RpcError
from agentui.core.lsp.server import Confine, LanguageServer, ServerError
from agentui.core.lsp.servers import SERVERS, family_of, find_server, language_of, server_environment
from agentui.core.safety.confined import Confined

WAIT = 2.0
"""Seconds an edit waits for the server's diagnostics of its change (the "lsp_wait" setting)."""
MAX_TEXT = 2_000_000
"""Characters of a file past which an edit asks no server (its whole text would go to the server twice an edit)."""
START_TIMEOUT = 30.0
"""Seconds a server has to start and answer initialize."""


@dataclass
class Checked:
    """What the servers found after an edit: the diagnostics it brought, and a sentence about a server, once."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    note: str | None = None


def unconfined(argv: list[str], env: dict[str, str]) -> Confined:
    return Confined(argv, env)


class LanguageServers:
    def __init__(
        self,
        root: Path,
        env: Mapping[str, str],
        confine: Confine = unconfined,
        *,
        wait: float = WAIT,
        start_timeout: float = START_TIMEOUT,
        severities: tuple[str, ...] = ("error",),
        trusted: Callable[[], bool],
    ) -> None:
        self.root, self.env, self.confine, self.trusted = root, dict(env), confine, trusted
        self.wait, self.start_timeout, self.severities = wait, start_timeout, severities
        self._servers: dict[str, LanguageServer] = {}
        self._given_up: set[str] = set()
        self._missing: set[str] = set()
        """Languages with no server installed: the LSP tool says so, an edit does not (nothing went wrong with it)."""
        self._told_trust: set[str] = set()
        """The families whose server waits for the project to be trusted, and that have been told so."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._starting: set[LanguageServer] = set()
        """Servers between start and initialized: the session's end stops them too."""

    @property
    def running(self) -> list[LanguageServer]:
        return list(self._servers.values())

    def handles(self, path: Path) -> bool:
        language = language_of(path)
        return language is not None and family_of(language) in SERVERS

    async def server_for(self, path: Path) -> tuple[LanguageServer | None, str | None]:
        """The running server of `path`'s language, started if need be; else None and, the first time, why."""
        language = language_of(path)
        if language is None or (family := family_of(language)) in self._given_up:
            return None, None
        async with self._locks.setdefault(family, asyncio.Lock()):
            server = self._servers.get(family)
            if server is not None and server.alive:
                return server, None
            if server is not None:
                return None, await self.give_up(family, f"The {server.name} language server stopped")
            trusted = self.trusted()
            found = find_server(family, self.root, self.env, trusted=trusted)
            if found is None and not trusted and (waits := find_server(family, self.root, self.env, trusted=True)):
                # (not given up: `trusted` is asked again at the next edit)
                told, self._told_trust = family in self._told_trust, self._told_trust | {family}
                return None, None if told else waits_for_trust(waits[0].program)
            if found is None:
                self._missing.add(family)
                names = " or ".join(spec.program for spec in SERVERS[family])
                return None, await self.give_up(family, f"No {family} language server ({names}) is installed here")
            env = server_environment(self.env, self.root, trusted=trusted)
            server = LanguageServer(found[0], found[1], self.root, env, self.confine)
            self._starting.add(server)
            try:
                await server.start(self.start_timeout)
            except ServerError as exc:
                return None, await self.give_up(family, str(exc))
            except BaseException:  # (interrupted: a half-started server must not outlive the edit)
                await asyncio.shield(server.stop())
                raise
            finally:
                self._starting.discard(server)
            self._servers[family] = server
            return server, None

    async def give_up(self, family: str, why: str) -> str:
        """Stop asking `family`'s server; the sentence that says so."""
        self._given_up.add(family)
        if (server := self._servers.pop(family, None)) is not None:
            await server.stop()
        return f"{why}; edits go on without its diagnostics."

    async def after_edit(self, path: Path, before: str | None, after: str) -> Checked:
        """The diagnostics `path`'s change from `before` (None: a new file) to `after` brought, of the severities
        asked for; within the wait, else none."""
        if not self.handles(path) or len(after) > MAX_TEXT or len(before or "") > MAX_TEXT:
            return Checked()  # (a generated or vendored file that size is sent whole twice an edit: not worth it)
        server, note = await self.server_for(path)
        if server is None:
            return Checked(note=None if family_of(language_of(path) or "") in self._missing else note)
        language = language_of(path) or ""
        old = before or ""
        try:
            baseline: list[Diagnostic] = []
            if before is not None and server.text_of(path) != old:  # (first seen, or changed by other means)
                version = await server.sync(path, language, old)
                baseline = await server.diagnostics(path, version, self.wait) or []
            elif before is not None:
                baseline = server.current(path)
            version = await server.sync(path, language, after)
            found = await server.diagnostics(path, version, self.wait)
        except RpcError:
            found = None
        if not server.alive:
            return Checked(note=await self.give_up(family_of(language), f"The {server.name} language server stopped"))
        fresh = new_diagnostics(baseline, found or [], old, after)
        return Checked([d for d in fresh if d.severity in self.severities])

    async def ask(self, path: Path, method: str, params: dict[str, Any]) -> Any:
        """A request about `path` (opened with its text on disk if the server does not hold it); RpcError or
        ServerError with a sentence if no server can answer."""
        server, note = await self.server_for(path)
        if server is None:
            raise ServerError(note or f"No language server is running for {path.name}.")
        if server.text_of(path) is None:
            text = await asyncio.to_thread(path.read_text, "utf-8", "replace")
            await server.sync(path, language_of(path) or "", text)
        return await server.request(method, {"textDocument": {"uri": path.as_uri()}, **params}, self.start_timeout)

    async def aclose(self) -> None:
        """Stop every server (the session ends; an edit after it starts its server again)."""
        servers, self._servers = [*self._servers.values(), *self._starting], {}
        await asyncio.gather(*(server.stop() for server in servers), return_exceptions=True)


def waits_for_trust(program: str) -> str:
    return (
        f"The {program} language server runs the project's own code (its build scripts, toolchain or interpreter), "
        "so it starts only once this project is trusted; edits go on without its diagnostics."
    )
