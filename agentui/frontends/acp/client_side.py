"""What an ACP client offers beyond the protocol's core, and agentui's use of it: the editor's files (`fs/*`), which the
tools read and write through, and a terminal view of a command's output (Zed's `_meta.terminal_output`, as Zed's
Claude Code adapter sends it). agentui runs every command itself, confined as the rules say, and never hands one to
the client's `terminal/create`, which would run it outside the sandbox and the guard."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import acp
from acp import schema


@dataclass
class ClientFiles:
    """The editor's files for one session (agentui.api's EditorFiles): its buffers read, whole texts written."""

    client: Any
    session_id: str = ""

    async def read_text(self, path: Path) -> str | None:
        response = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        return str(response.content)

    async def write_text(self, path: Path, text: str) -> None:
        await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)


def offers_files(capabilities: schema.ClientCapabilities | None) -> bool:
    """Whether the client reads and writes files for the agent; both, or the tools keep to the disk (reading the
    editor's buffers but writing past them would leave it holding text older than the file)."""
    files = capabilities.fs if capabilities is not None else None
    return bool(files is not None and files.read_text_file and files.write_text_file)


def shows_terminals(capabilities: schema.ClientCapabilities | None) -> bool:
    meta = (capabilities.field_meta if capabilities is not None else None) or {}
    return meta.get("terminal_output") is True


def terminal_start(start: Any, call_id: str) -> Any:
    """A command's `tool_call` as a terminal: the client draws the output that follows as a terminal's."""
    meta = {**(start.field_meta or {}), "terminal_info": {"terminal_id": call_id}}
    return start.model_copy(update={"content": [acp.tool_terminal_ref(call_id)], "field_meta": meta})


def terminal_output(call_id: str, data: str) -> Any:
    update = acp.update_tool_call(call_id)
    return update.model_copy(update={"field_meta": {"terminal_output": {"terminal_id": call_id, "data": data}}})


def terminal_end(done: Any, call_id: str, exit_code: int | None) -> Any:
    """A command's end: its status, and its exit code for the terminal (None where it has none: sent away, killed)."""
    exit_meta = {"terminal_id": call_id, "exit_code": exit_code, "signal": None}
    meta = {**(done.field_meta or {}), "terminal_exit": exit_meta}
    return done.model_copy(update={"content": [acp.tool_terminal_ref(call_id)], "field_meta": meta})
