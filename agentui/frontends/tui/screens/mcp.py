"""/mcp: each MCP server with its state as Claude Code words it (connected, needs authentication, pending approval,
failed and why), its tools, and what can be done to the one highlighted: authenticate (a browser sign-in), reconnect,
approve a project's server, clear the authentication kept for one. The work runs in a worker; its outcome is said in
the transcript and the list redrawn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agentui.api import Conversation, McpStatus

STATES = {
    "connected": ("✔", "connected"),
    "starting": ("○", "connecting…"),
    "needs-auth": ("△", "needs authentication"),
    "needs-approval": ("○", "pending approval"),
    "failed": ("✘", "failed"),
    "closed": ("○", "disconnected"),
}
"""Each state's mark and words, as Claude Code's /mcp shows them."""


def server_line(server: McpStatus) -> Text:
    mark, words = STATES.get(server.state, ("?", server.state))
    tools = f" · {len(server.tools)} tool{'s' * (len(server.tools) != 1)}" if server.state == "connected" else ""
    return Text(f"{mark} {server.name} ({server.scope}) · {words}{tools}")


def actions_of(server: McpStatus) -> list[tuple[str, str]]:
    """The keys that act on `server` and what each does; the first is Enter's."""
    if server.state == "needs-approval":
        return [("y", "approve")]
    if not server.oauth:
        return [("r", "reconnect")]
    if server.state == "needs-auth":
        return [("a", "authenticate"), ("r", "reconnect"), ("c", "clear authentication")]
    return [("r", "reconnect"), ("a", "re-authenticate"), ("c", "clear authentication")]


def server_details(server: McpStatus) -> str:
    _, words = STATES.get(server.state, ("?", server.state))
    lines = [f"{server.name} MCP server ({server.scope})", f"Status: {words}"]
    if server.error and server.state != "connected":
        lines.append(f"Error: {server.error}")
    if server.log_path is not None:
        lines.append(f"Log: {server.log_path}")
    if server.state == "connected":
        lines.append(f"Tools: {', '.join(server.tools) or 'none'}")
    keys = " · ".join(f"{key} {what}" for key, what in actions_of(server))
    lines.append(f"\n{keys} · Enter {actions_of(server)[0][1]} · Esc close" if keys else "\nEsc close")
    return "\n".join(lines)


class McpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    McpScreen { align: center middle; background: $background 60%; }
    McpScreen #picker { width: 90%; max-width: 140; height: 80%; padding: 1 2; border: thick $primary;
        background: $panel; }
    McpScreen #servers { height: 1fr; }
    McpScreen #server-details { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),
        Binding("a", "act('a')", "Authenticate", show=False),
        Binding("r", "act('r')", "Reconnect", show=False),
        Binding("y", "act('y')", "Approve", show=False),
        Binding("c", "act('c')", "Clear authentication", show=False),
    ]

    def __init__(self, conversation: Conversation, say: Callable[[str, str], None]) -> None:
        super().__init__()
        self.conversation = conversation
        self.say = say
        self.servers = conversation.servers.mcp_status(awaiting=True)
        self.busy = ""
        """What is going on (an authentication, a reconnection), shown instead of the highlighted server's keys."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Manage MCP servers"
            yield OptionList(*(Option(server_line(s), id=s.name) for s in self.servers), id="servers")
            yield Static("", id="server-details")

    def on_mount(self) -> None:
        servers = self.query_one("#servers", OptionList)
        servers.highlighted = 0
        servers.focus()
        self._redraw()

    @property
    def highlighted(self) -> McpStatus | None:
        index = self.query_one("#servers", OptionList).highlighted
        return self.servers[index] if index is not None and 0 <= index < len(self.servers) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._redraw()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if (server := self.highlighted) is not None and (actions := actions_of(server)):
            self.action_act(actions[0][0])

    def _redraw(self) -> None:
        self.servers = self.conversation.servers.mcp_status(awaiting=True)
        servers = self.query_one("#servers", OptionList)
        for index, server in enumerate(self.servers[: servers.option_count]):
            servers.replace_option_prompt_at_index(index, server_line(server))
        chosen = self.highlighted
        text = self.busy or (server_details(chosen) if chosen else "")
        self.query_one("#server-details", Static).update(Text(text))

    def action_act(self, key: str) -> None:
        server = self.highlighted
        if server is None or self.busy or key not in dict(actions_of(server)):
            return
        servers = self.conversation.servers
        name = server.name
        if key == "a":
            self.busy = f"Authenticating with {name}…\nA browser window will open for authentication."
            self._run(name, lambda: servers.authenticate_mcp(name, self._show_url))
        elif key == "c":
            self.busy = f"Clearing the authentication of {name}…"
            self._run(name, lambda: servers.clear_mcp_auth(name))
        elif key == "r":
            self.busy = f"Reconnecting to {name}…"
            self._run(name, lambda: self._reconnect(name))
        else:
            self.busy = f"Connecting to {name}…"
            self._run(name, lambda: self._approve(name))
        self._redraw()

    async def _reconnect(self, name: str) -> str:
        connected, said = await self.conversation.servers.reconnect_mcp(name)
        if not connected:
            raise ValueError(said)
        return said

    async def _approve(self, name: str) -> str:
        if (error := await self.conversation.servers.approve_mcp(name)) is not None:
            raise ValueError(f"{error[:1].upper()}{error[1:]}.")
        return f"MCP: {name} approved for this project and connected."

    def _show_url(self, url: str, opened: bool) -> None:
        first = "" if opened else "No browser could be opened. "
        self.busy = (
            self.busy.split("\n\n")[0] + f"\n\n{first}If your browser doesn't open automatically, copy this URL "
            f"manually:\n{url}\n\nReturn here after authenticating in your browser. Esc goes back."
        )
        self._redraw()

    @work(exclusive=True, group="mcp", exit_on_error=False)
    async def _run(self, name: str, act: Callable[[], Awaitable[str]]) -> None:
        from agentui.api import AgentuiError

        try:
            said, level = await act(), "info"
        except (AgentuiError, ValueError) as exc:
            said, level = str(exc), "warning"
        self.busy = ""
        self.say(said, level)
        if self.is_attached:
            self._redraw()

    def action_close(self) -> None:
        self.workers.cancel_group(self, "mcp")  # (an authentication waiting for the browser is given up)
        self.dismiss(None)
