"""A tiny MCP server for the tests, written with the SDK and run over stdio: `add`, `shout`, `pixel` (an image),
`grow` (adds a tool and notifies the client), `die` (the process exits mid-call), `wait` (never answers), `chatter`
(prints a line that is not JSON-RPC to stdout, then answers), and start-up modes that crash, hang, or print a banner
that is not JSON-RPC before serving (`noisy`); `resources` adds a resource to read and one that ends the process."""

from __future__ import annotations

import sys
import time

# The start-up modes are decided before the SDK is imported: a cold import of it can take seconds on a loaded
# machine, and a crash must be a crash however slow the machine is.
mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
if mode == "crash":
    print("tiny: cannot start, no config", file=sys.stderr)
    sys.exit(3)
if mode == "hang":
    time.sleep(3600)
if mode == "noisy":  # as servers that print a banner to stdout do
    print("tiny MCP server 1.0 starting up", flush=True)

import base64  # noqa: E402
import os  # noqa: E402

from mcp.server.fastmcp import Context, FastMCP, Image  # noqa: E402

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

# `http PORT` / `sse PORT`: the same server over streamable HTTP, or the older SSE transport, on 127.0.0.1.
server = FastMCP("tiny", port=int(sys.argv[2]) if mode in ("http", "sse") else 8000, log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """The text in capitals, and what the server's environment says."""
    return f"{text.upper()} ({os.environ.get('TINY_GREETING', 'no greeting')})"


@server.tool()
def pixel() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool()
async def grow(ctx: Context) -> str:  # type: ignore[type-arg]
    """Adds a tool named `late` and tells the client its tool list changed."""

    def late() -> str:
        """Arrived after the start."""
        return "late but here"

    server.add_tool(late)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
async def wait() -> str:
    """Never answers (within the hour)."""
    import asyncio

    await asyncio.sleep(3600)
    return "too late"


@server.tool()
def chatter() -> str:
    """Prints a stray line to stdout before it answers."""
    sys.stdout.write("debug: chatter was called\n")
    sys.stdout.flush()
    return "chattered"


@server.tool()
def die() -> str:
    """Ends the server's process in the middle of the call."""
    os._exit(1)


if mode == "resources":  # (two resources, one of which ends the process while it is read)

    @server.resource("tiny://notes", description="A short note.")
    def notes() -> str:
        return "a note"

    @server.resource("tiny://die", description="Ends the server's process while it is read.")
    def dying() -> str:
        os._exit(1)


if __name__ == "__main__":
    server.run({"http": "streamable-http", "sse": "sse"}.get(mode, "stdio"))  # type: ignore[arg-type]
