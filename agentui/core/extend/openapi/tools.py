"""OpenAPI operations as agent tools: `openapi__<api>__<operation>`, checked by the permission rules as MCP tools are
(`openapi__pets__*` or `openapi__pets` covers a whole API), called with httpx. The key comes from the environment
variable the config names, is added to the request only, and is cut out of anything the API sends back: it is never
in a tool's input, result or details, so never in the session file or the logs."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired
from urllib.parse import quote

from pydantic import ConfigDict
from typing_extensions import TypedDict

from agentui.core.extend.openapi.config import OpenApiConfig
from agentui.core.extend.openapi.spec import Operation, Spec
from agentui.core.providers.base import ToolSpec
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult, external_tool_name

if TYPE_CHECKING:
    import httpx


class OpenApiArgs(ToolArgs):
    """Whatever the operation's schema asks for: checked against it before the call."""

    model_config = ConfigDict(extra="allow")


def tool_name(api: str, operation: str) -> str:
    return external_tool_name("openapi", api, operation)


@dataclass
class Credentials:
    """How a key is sent: as a bearer token, HTTP basic (user:password), a header or a query parameter."""

    kind: str
    secret: str
    name: str = ""

    def apply(self, headers: dict[str, str], params: list[tuple[str, str | int | float | bool | None]]) -> None:
        if self.kind == "bearer":
            headers["Authorization"] = f"Bearer {self.secret}"
        elif self.kind == "basic":
            headers["Authorization"] = "Basic " + base64.b64encode(self.secret.encode()).decode()
        elif self.kind == "header":
            headers[self.name] = self.secret
        else:
            params.append((self.name, self.secret))

    def redact(self, text: str) -> str:
        """The text with the key cut out (an API that echoes what it was sent must not put it in the session)."""
        return text.replace(self.secret, "[redacted]") if len(self.secret) >= 4 else text


def credentials(api: str, config: OpenApiConfig, spec: Spec, env: Mapping[str, str]) -> Credentials | None:
    """The key and how to send it; raises ValueError with one sentence when it cannot be sent."""
    auth = config.auth
    if auth is None:
        return None
    secret = env.get(auth.env, "")
    if not secret:
        raise ValueError(f"The API {api} takes its key from {auth.env}, which is not set: its calls go without one.")
    if auth.type is not None:
        if auth.type in ("header", "query") and not auth.name:
            raise ValueError(f"The API {api}'s auth sends its key as a {auth.type}, and needs that {auth.type}'s name.")
        return Credentials(auth.type, secret, auth.name or "")
    for scheme in spec.security_schemes.values():  # (the spec says how: its first scheme agentui can send)
        kind, where = scheme.get("type"), scheme.get("in")
        if kind == "http" and str(scheme.get("scheme", "")).lower() in ("bearer", "basic"):
            return Credentials(str(scheme["scheme"]).lower(), secret)
        if kind == "apiKey" and where in ("header", "query") and scheme.get("name"):
            return Credentials(str(where), secret, str(scheme["name"]))
    raise ValueError(f"The API {api}'s spec names no bearer, basic or API-key scheme: say its auth type in config.")


class OpenApiDetails(TypedDict):
    api: str
    operation: str
    method: str
    path: str
    status: NotRequired[int]
    bytes: NotRequired[int]
    """The response's size."""


class OpenApiTool(Tool[OpenApiArgs]):
    Args = OpenApiArgs
    Details = OpenApiDetails
    kind = "execute"  # another system acts: asked for unless a rule allows it

    def __init__(
        self,
        api: str,
        operation: Operation,
        server: str,
        client: httpx.AsyncClient,
        creds: Credentials | None,
        max_chars: int,
    ) -> None:
        self.api, self.operation, self.server = api, operation, server.rstrip("/")
        self.client, self.creds, self.max_chars = client, creds, max_chars
        self.name = tool_name(api, operation.operation_id)  # type: ignore[misc]
        self.description = f"{operation.description}, from the {api} API."  # type: ignore[misc]

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.operation.input_schema)

    async def run(self, args: OpenApiArgs, ctx: ToolContext) -> ToolResult:
        import jsonschema

        from agentui.core.providers._httpx import httpx

        given = dict(args.model_extra or {})
        try:
            jsonschema.validate(given, self.operation.input_schema)
        except jsonschema.ValidationError as exc:
            return ToolResult.error(f"The arguments do not fit {self.operation.operation_id}: {exc.message}.")
        path = self.operation.path
        headers: dict[str, str] = {}
        params: list[tuple[str, str | int | float | bool | None]] = []
        for parameter in self.operation.parameters:
            if parameter.argument not in given:
                continue
            value = given[parameter.argument]
            if parameter.location == "path":
                path = path.replace("{" + parameter.name + "}", quote(_text(value), safe=""))
            elif parameter.location == "query":
                params.extend((parameter.name, _text(item)) for item in (value if isinstance(value, list) else [value]))
            else:
                headers[parameter.name] = _text(value)
        details = OpenApiDetails(api=self.api, operation=self.operation.operation_id, method=self.operation.method,
                                 path=path)  # fmt: skip
        if self.creds is not None:
            self.creds.apply(headers, params)
        limit = self.max_chars * 4 + 4096  # (bytes: enough for max_chars of any UTF-8 text, and the key to cut)
        try:
            async with self.client.stream(
                self.operation.method,
                self.server + path,
                params=params,
                headers=headers,
                json=given.get("body") if self.operation.has_body else None,
            ) as response:
                body, cut = bytearray(), False
                async for chunk in response.aiter_bytes():
                    body += chunk[: limit - len(body)]
                    if len(body) >= limit:  # (the rest is not even read: 100 MB costs what 80 KB does)
                        cut = True
                        break
                size = int(response.headers.get("content-length") or 0) or len(body)
        except httpx.TimeoutException:
            return ToolResult.error(f"The {self.api} API did not answer in time.", **details)
        except httpx.HTTPError as exc:
            said = self.creds.redact(str(exc)) if self.creds else str(exc)
            return ToolResult.error(
                f"The {self.api} API could not be reached: {said or type(exc).__name__}.", **details
            )
        text = bytes(body).decode(response.encoding or "utf-8", errors="replace")
        if self.creds is not None:
            text = self.creds.redact(text)
        more = len(text) - self.max_chars if len(text) > self.max_chars else 0
        shown = text[: self.max_chars]
        if more or cut:
            whole = f"{size:,} bytes" if size > len(body) else f"more than {len(body):,} bytes"
            shown += f"\n[… the response was {whole}; the rest is cut]"
        details["status"], details["bytes"] = response.status_code, size
        head = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        kind = response.headers.get("content-type", "")
        return ToolResult(
            content=f"{head}{f' ({kind})' if kind else ''}\n{shown or '(no body)'}",
            details=details,
            is_error=response.status_code >= 400,
        )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
