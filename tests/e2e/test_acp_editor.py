"""`agentui acp` with an editor for a client (the official agent-client-protocol package's client side), one that
offers its files (`fs/read_text_file`, `fs/write_text_file`) and draws terminals (`_meta.terminal_output`): Read and
Edit see the editor's unsaved buffer and Edit writes through the editor, a command's output reaches it as a
terminal's, and a client that offers neither gets the disk and plain text, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import schema

from tests.e2e.test_acp import Client, env_for
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


class Editor(Client):
    """An editor with open buffers: a buffer's text is what it reads (unsaved or not); a write replaces the buffer
    and saves it to disk, as Zed does."""

    def __init__(self, buffers: dict[str, str], answer: str = "allow_once", refuses: bool = False) -> None:
        super().__init__(answer)
        self.buffers = buffers
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.typed: dict[str, str] = {}
        """What the person types into a buffer once the agent has read it (not saved)."""
        self.refuses = refuses

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> schema.ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        if path in self.typed:
            self.buffers[path] = self.typed.pop(path)
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> None:
        if self.refuses:
            raise acp.RequestError.invalid_params({"path": path, "reason": "not in a worktree"})
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content)


CAPABILITIES = schema.ClientCapabilities(
    fs=schema.FileSystemCapabilities(read_text_file=True, write_text_file=True), field_meta={"terminal_output": True}
)


async def prompted(
    client: Client, agentui_bin: str, env: dict[str, str], project: Path,
    capabilities: schema.ClientCapabilities | None = CAPABILITIES,
) -> schema.PromptResponse:  # fmt: skip
    """`agentui acp` in `project` for `client` (offering `capabilities`): a new session, prompted "go" to its end."""
    async with acp.spawn_agent_process(client, agentui_bin, "acp", env=env, cwd=str(project)) as (conn, _):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])


def tool(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def play(server: LoopbackServer, turns: list[list[dict[str, Any]]]) -> None:
    def model(request: RecordedRequest) -> Reply:
        blocks = turns.pop(0) if turns else [{"type": "text", "text": "Done."}]
        stop = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"m{len(server.requests)}"))

    server.responder = model


def tool_results(request: RecordedRequest) -> dict[str, str]:
    """The tool results the model was sent in a request, by call id."""
    found = {}
    for message in json.loads(request.body)["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                found[block["tool_use_id"]] = content if isinstance(content, str) else content[0]["text"]
    return found


async def test_read_and_edit_go_through_the_editors_buffer_and_commands_show_as_terminals(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    notes = project / "notes.txt"
    notes.write_text("saved line\n")
    unsaved = "saved line\nunsaved line\n"
    play(server, [
        [tool("r1", "Read", file_path="notes.txt")],
        [tool("e1", "Edit", file_path="notes.txt", old_string="unsaved line", new_string="edited line")],
        [tool("b1", "Bash", command="echo from-the-command; exit 3", description="Fails on purpose")],
    ])  # fmt: skip
    editor = Editor({str(notes): unsaved})
    env = env_for(clean_env, server)
    done = await prompted(editor, agentui_bin, env, project)
    assert done.stop_reason == "end_turn"
    results = tool_results(server.requests[-1])
    assert "unsaved line" in results["r1"]  # (the editor's buffer, not the file on disk)
    # The edit was made to the buffer (the unsaved line was found there) and written by the editor, which saved it.
    assert editor.writes == [(str(notes), "saved line\nedited line\n")]
    assert notes.read_text() == "saved line\nedited line\n" and str(notes) in editor.reads
    # The command: a terminal the client draws, its output, then its exit code.
    mine = [u for u in editor.updates if getattr(u, "tool_call_id", None) == "b1"]
    started, *updates = mine
    assert started.session_update == "tool_call" and started.kind == "execute"
    assert started.content[0].type == "terminal" and started.content[0].terminal_id == "b1"
    assert started.field_meta["terminal_info"] == {"terminal_id": "b1"}
    output = "".join(u.field_meta["terminal_output"]["data"] for u in updates if "terminal_output" in u.field_meta)
    assert "from-the-command" in output
    ended = updates[-1]
    assert ended.status == "failed" and ended.field_meta["terminal_exit"]["exit_code"] == 3
    assert ended.content[0].type == "terminal"


async def test_a_refused_write_never_reaches_the_editor_and_a_plain_client_keeps_the_disk(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    (project / "link.txt").symlink_to(outside)
    play(server, [[tool("w1", "Write", file_path="link.txt", content="planted\n")]])
    editor = Editor({}, answer="reject_once")
    env = env_for(clean_env, server)
    await prompted(editor, agentui_bin, env, project)
    # The link was resolved before the question: the person was asked about the file outside, said no, and the
    # editor was never asked to write anything.
    [asked] = editor.asked
    assert asked.tool_call.content[0].path == str(outside)
    assert editor.writes == [] and not outside.exists()

    # A client that offers no files: the disk is read and written, and a command's output is plain text.
    (project / "notes.txt").write_text("on disk\n")
    play(server, [
        [tool("r1", "Read", file_path="notes.txt")],
        [tool("b1", "Bash", command="echo plain", description="Prints")],
    ])  # fmt: skip
    plain = Editor({str(project / "notes.txt"): "a buffer the agent must not see\n"})
    await prompted(plain, agentui_bin, env, project, capabilities=None)
    assert plain.reads == [] and "on disk" in tool_results(server.requests[-1])["r1"]
    started = next(u for u in plain.updates if getattr(u, "tool_call_id", None) == "b1")
    assert all(block.type != "terminal" for block in started.content or [])
    ended = [u for u in plain.updates if getattr(u, "tool_call_id", None) == "b1"][-1]
    assert "plain" in ended.content[0].content.text and not (ended.field_meta or {})


async def test_the_persons_unsaved_typing_is_not_overwritten_and_a_running_command_keeps_the_editor_out(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    notes = project / "notes.txt"
    notes.write_text("on disk\n")
    play(server, [
        [tool("r1", "Read", file_path="notes.txt")],
        [tool("w1", "Write", file_path="notes.txt", content="the model's\n")],
        [tool("b1", "Bash", command="sleep 37.2091", run_in_background=True, description="Runs on")],
        [tool("r2", "Read", file_path="notes.txt")],
    ])  # fmt: skip
    editor = Editor({str(notes): "read by the model\n"})
    editor.typed[str(notes)] = "typed by the person, unsaved\n"
    env = env_for(clean_env, server)
    await prompted(editor, agentui_bin, env, project)
    results = tool_results(server.requests[-1])
    assert "changed in the editor since it was read" in results["w1"] and editor.writes == []
    assert editor.buffers[str(notes)] == "typed by the person, unsaved\n" and notes.read_text() == "on disk\n"
    # While a command the model started runs, what it could swap in between the check and the editor's read is not
    # risked: the file is read from the disk.
    assert "on disk" in results["r2"] and "typed by the person" not in results["r2"]


async def test_a_write_the_editor_refuses_is_made_on_disk(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    play(server, [[tool("w1", "Write", file_path="new.txt", content="made\n")]])
    editor = Editor({}, refuses=True)
    env = env_for(clean_env, server)
    await prompted(editor, agentui_bin, env, project)
    assert (project / "new.txt").read_text() == "made\n" and "Created" in tool_results(server.requests[-1])["w1"]


async def test_bypass_permissions_is_offered_only_when_agentui_was_started_allowing_it(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = env_for(clean_env, server)
    for flags, offered in (((), False), (("--allow-dangerously-skip-permissions",), True)):
        async with acp.spawn_agent_process(Client(), agentui_bin, "acp", *flags, env=env, cwd=str(project)) as (
            conn,
            _,
        ):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.modes is not None
            modes = [mode.id for mode in session.modes.available_modes]
            assert ("bypassPermissions" in modes) is offered and "acceptEdits" in modes
            if not offered:
                with pytest.raises(acp.RequestError):
                    await conn.set_session_mode(session_id=session.session_id, mode_id="bypassPermissions")
            else:
                await conn.set_session_mode(session_id=session.session_id, mode_id="bypassPermissions")
