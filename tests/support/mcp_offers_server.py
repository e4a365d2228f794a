"""An MCP server for the tests of what servers offer besides tools, written with the SDK (FastMCP), over stdio (or
streamable HTTP with `http PORT`): resources (`notes://readme`, a text; `notes://logo`, a PNG), a prompt `greet`
(arguments `name`, required, and `mood`), and tools that change the lists and notify the client (`add_note`,
`add_prompt`) or ask the person through an elicitation (`deploy`); `notes://gone` is not found, with MCP's code."""

from __future__ import annotations

import base64
import sys

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.prompts import Prompt
from mcp.server.fastmcp.resources import FunctionResource
from pydantic import BaseModel, Field

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
server = FastMCP("notes", port=int(sys.argv[2]) if mode == "http" else 8000, log_level="WARNING")


@server.resource("notes://readme", name="readme", description="How the notes are kept", mime_type="text/plain")
def readme() -> str:
    return "Notes are kept in plain text, one per line."


@server.resource("notes://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return PNG


@server.prompt()
def greet(name: str, mood: str = "calm") -> str:
    """Greets someone in a mood."""
    return f"Say hello to {name} in a {mood} way."


@server.tool()
async def add_note(name: str, text: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Adds a note resource (notes://NAME) and tells the client its resource list changed."""

    def read() -> str:
        return text

    server.add_resource(FunctionResource(uri=f"notes://{name}", name=name, fn=read, mime_type="text/plain"))
    await ctx.session.send_resource_list_changed()
    return "added"


@server.tool()
async def add_prompt(ctx: Context) -> str:  # type: ignore[type-arg]
    """Adds a prompt `farewell` and tells the client its prompt list changed."""

    def farewell(name: str) -> str:
        """Says goodbye."""
        return f"Say goodbye to {name}."

    server.add_prompt(Prompt.from_function(farewell))
    await ctx.session.send_prompt_list_changed()
    return "added"


class Place(BaseModel):
    place: str = Field(description="Where to deploy")
    hurry: bool = Field(default=False, description="Skip the checks")


@server.tool()
async def deploy(ctx: Context) -> str:  # type: ignore[type-arg]
    """Asks the person where to deploy (an elicitation) and says what they answered."""
    answer = await ctx.elicit("Where should it be deployed?", Place)
    if answer.action == "accept":
        return f"deploying to {answer.data.place} (hurry: {answer.data.hurry})"
    return f"not deployed: {answer.action}"


def _not_found_as_mcp_says() -> None:
    """FastMCP answers an unknown resource with code 0; MCP's code for it is -32002 (`notes://gone` gets that)."""
    from mcp import types
    from mcp.shared.exceptions import McpError

    handlers = server._mcp_server.request_handlers
    reading = handlers[types.ReadResourceRequest]

    async def read(request: types.ReadResourceRequest) -> types.ServerResult:
        if str(request.params.uri) == "notes://gone":
            raise McpError(types.ErrorData(code=-32002, message="Resource not found"))
        return await reading(request)

    handlers[types.ReadResourceRequest] = read  # type: ignore[assignment]


_not_found_as_mcp_says()

if __name__ == "__main__":
    server.run("streamable-http" if mode == "http" else "stdio")
