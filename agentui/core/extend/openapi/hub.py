"""The APIs of one conversation: each spec read (from its file or URL), its chosen operations registered as tools,
and one HTTP client per API, closed with the conversation. What cannot be used is said in one sentence each, and
the rest still loads."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.extend.openapi.config import OpenApiConfig
from agentui.core.extend.openapi.spec import OpenApiError, Spec, parse_document, read_spec
from agentui.core.extend.openapi.tools import OpenApiTool, credentials
from agentui.core.tools.base import ToolRegistry

if TYPE_CHECKING:
    import httpx

SPEC_TIMEOUT = 30.0
MAX_SPEC_BYTES = 20 * 1024 * 1024


class OpenApiHub:
    def __init__(self, configs: Mapping[str, OpenApiConfig], tools: ToolRegistry, base_dir: Path) -> None:
        self.configs, self.tools, self.base_dir = configs, tools, base_dir
        self.clients: list[httpx.AsyncClient] = []
        self.names: list[str] = []
        """The tools registered, by name."""

    async def start(self, env: Mapping[str, str]) -> list[str]:
        """Read every spec at once and register the tools; a sentence for each thing that could not be used."""
        said = await asyncio.gather(*(self._load(api, config, env) for api, config in self.configs.items()))
        return [sentence for sentences in said for sentence in sentences]

    async def _load(self, api: str, config: OpenApiConfig, env: Mapping[str, str]) -> list[str]:
        from agentui.core.providers._httpx import httpx

        try:
            spec = await self._read(api, config)
        except OpenApiError as exc:
            return [f"The API {api} offers no tools: {exc}"]
        notices = [f"The API {api}'s operation {skipped}." for skipped in spec.skipped]
        server = config.base_url or spec.server
        if server is None:
            return [*notices, f"The API {api} offers no tools: its spec names no server; set base_url in config."]
        try:
            creds = credentials(api, config, spec, env)
        except ValueError as exc:
            creds = None
            notices.append(str(exc))
        if creds is not None:
            _redact_in_logs(creds.secret)
        wanted = list(spec.operations) if config.operations == ("*",) else list(config.operations)
        missing = [name for name in wanted if name not in spec.operations]
        if missing:
            known = ", ".join(sorted(spec.operations)) or "none"
            notices.append(f"The API {api} has no operation {', '.join(missing)} (it has: {known}).")
        client = httpx.AsyncClient(timeout=config.timeout, follow_redirects=False)
        self.clients.append(client)
        for name in wanted:
            if name in spec.operations:
                tool = OpenApiTool(api, spec.operations[name], server, client, creds, config.max_response_chars)
                self.tools.unregister(tool.name)
                self.tools.register(tool)
                self.names.append(tool.name)
        return notices

    async def _read(self, api: str, config: OpenApiConfig) -> Spec:
        source = config.spec
        if source.startswith(("http://", "https://")):
            text = await _fetch(source)
        else:
            path = (self.base_dir / Path(source).expanduser()).resolve()
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise OpenApiError(f"its spec {path} cannot be read ({exc.__class__.__name__}).") from None
            source = str(path)
        document = parse_document(text, source)
        return await asyncio.to_thread(read_spec, document, source)

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
        self.clients.clear()


async def _fetch(url: str) -> str:
    from agentui.core.providers._httpx import httpx

    try:
        async with httpx.AsyncClient(timeout=SPEC_TIMEOUT, follow_redirects=True) as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        raise OpenApiError(f"its spec {url} cannot be fetched ({exc.__class__.__name__}).") from None
    if response.status_code >= 400:
        raise OpenApiError(f"its spec {url} answered HTTP {response.status_code}.")
    if len(response.content) > MAX_SPEC_BYTES:
        raise OpenApiError(f"its spec {url} is larger than {MAX_SPEC_BYTES // (1024 * 1024)} MB.")
    return response.text


class _Redacting(logging.Filter):
    """Cuts the keys of the configured APIs out of what the HTTP libraries log (httpx logs each URL, and a key sent
    as a query parameter is in it): with --debug or a log file, the key still appears nowhere."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "[redacted]")
            record.msg, record.args = message, ()
        return True


_REDACTING = _Redacting()


def _redact_in_logs(secret: str) -> None:
    if len(secret) < 4:
        return
    _REDACTING.secrets.add(secret)
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if _REDACTING not in logger.filters:
            logger.addFilter(_REDACTING)
