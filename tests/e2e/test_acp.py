"""`agentui acp` driven by the client side of the official agent-client-protocol package, against the loopback Messages
API: a session, a prompt with streamed message chunks and a tool call, a permission request answered by the client,
a cancelled prompt, and the session loaded again in a new process with its history replayed."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import acp
from acp import schema

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream
from tests.support.waiting import eventually


class Client:
    """The editor's side: records every update and answers permission questions with `answer`."""

    def __init__(self, answer: str = "allow_once") -> None:
        self.updates: list[Any] = []
        self.asked: list[schema.RequestPermissionRequest] = []
        self.answer = answer

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.asked.append(schema.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    def kinds(self) -> list[str]:
        return [update.session_update for update in self.updates]

    def text(self) -> str:
        return "".join(update.content.text for update in self.updates if update.session_update == "agent_message_chunk")


def env_for(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}


async def test_a_session_prompts_asks_cancels_and_loads_again(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    gate = threading.Event()
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "hello.txt", "content": "hi\n"}}
    long_answer = anthropic_stream([{"type": "text", "text": "A long answer " * 30}], pieces=30, message_id="m3")
    answers = [
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Writing it."}, write], stop_reason="tool_use",
                                      message_id="m1")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Done: hello.txt."}], message_id="m2")),
        Reply(chunks=long_answer, gate=gate, gate_after=5),
    ]  # fmt: skip

    def model(request: RecordedRequest) -> Reply:
        return answers.pop(0)

    server.responder = model
    client = Client()
    env = env_for(clean_env, server)
    try:
        async with acp.spawn_agent_process(client, agentui_bin, "acp", env=env, cwd=str(project)) as (conn, _):
            ready = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            assert ready.agent_capabilities.load_session and ready.agent_info.name == "agentui"
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.modes is not None and session.modes.current_mode_id == "default"

            done = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write hello.txt")])
            assert done.stop_reason == "end_turn"
            assert (project / "hello.txt").read_text() == "hi\n"
            assert client.text() == "Writing it.Done: hello.txt."
            [asked] = client.asked
            assert asked.tool_call.tool_call_id == "w1" and "hello.txt" in str(asked.tool_call.title)
            assert asked.options[0].option_id == "allow_once"
            # Edits and writes carry the file's diff, as Zed's Claude Code adapter sends them: asked, started, done.
            [diff] = asked.tool_call.content
            assert diff.type == "diff" and diff.path == str(project / "hello.txt") and diff.new_text == "hi\n"
            assert diff.old_text is None
            kinds = client.kinds()
            assert kinds.index("tool_call") < kinds.index("tool_call_update")
            started = next(u for u in client.updates if u.session_update == "tool_call")
            assert started.kind == "edit" and started.status == "in_progress"
            finished = [u for u in client.updates if u.session_update == "tool_call_update" and u.status == "completed"]
            assert [u.tool_call_id for u in finished] == ["w1"]
            assert started.content == [diff] and finished[0].content[0] == diff

            # A prompt cancelled while the answer streams.
            client.updates.clear()
            running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("talk")]))
            await eventually(lambda: "agent_message_chunk" in client.kinds())
            await conn.cancel(session_id=session.session_id)
            cancelled = await asyncio.wait_for(running, 60)
            assert cancelled.stop_reason == "cancelled"
    finally:
        gate.set()

    # A new process loads the session: its history comes back as updates.
    again = Client()
    async with acp.spawn_agent_process(again, agentui_bin, "acp", env=env, cwd=str(project)) as (conn, _):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        replayed = again.kinds()
        assert replayed[0] == "user_message_chunk" and "tool_call" in replayed
        assert "Done: hello.txt." in again.text()
        # (drawn from the session's replayed events, as a live run: the Write's end carries its recorded details)
        [ended] = [u for u in again.updates if u.session_update == "tool_call_update" and u.tool_call_id == "w1"]
        assert ended.status == "completed" and ended.raw_output["type"] == "create"
        assert ended.raw_output["filePath"].endswith("hello.txt")


def test_bad_lines_and_a_closed_input_end_cleanly(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    import json
    import subprocess

    lines = '{not json\n{"jsonrpc": "2.0", "id": 1, "method": "nope", "params": {}}\n'
    done = subprocess.run(
        [agentui_bin, "acp"], input=lines, env={**clean_env, "ANTHROPIC_API_KEY": "x"}, cwd=tmp_path,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "agentui acp: Error parsing JSON-RPC message: Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)"
    ]
    [answer] = [json.loads(line) for line in done.stdout.splitlines()]
    assert answer["id"] == 1 and answer["error"]["message"] == "Method not found"


async def test_sessions_are_listed_loaded_while_open_resumed_forked_and_closed(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "greet.md").write_text("---\ndescription: Say hello\n---\nSay hello.\n")
    answers = ["First answer.", "From the fork.", "From the original."]

    def model(request: RecordedRequest) -> Reply:
        return Reply(chunks=anthropic_stream([{"type": "text", "text": answers.pop(0)}], message_id=f"m{len(answers)}"))

    server.responder = model
    client = Client()
    async with acp.spawn_agent_process(client, agentui_bin, "acp", env=env_for(clean_env, server),
                                       cwd=str(project)) as (conn, _):  # fmt: skip
        ready = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        offered = ready.agent_capabilities.session_capabilities
        assert offered.list and offered.fork and offered.resume and offered.close
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("first question")])
        # The slash commands (the project's own among them), and how full the window is and what it cost.
        [commands] = [u for u in client.updates if u.session_update == "available_commands_update"]
        assert [c.name for c in commands.available_commands] == ["compact", "greet"]
        assert commands.available_commands[1].description == "Say hello"
        [usage] = [u for u in client.updates if u.session_update == "usage_update"]
        assert usage.used > 0 and usage.size > usage.used and usage.cost.currency == "USD"
        listed = await conn.list_sessions(cwd=str(project))
        assert [info.session_id for info in listed.sessions] == [session.session_id]
        # Loaded while this process has it open: replayed, not refused.
        client.updates.clear()
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        assert client.kinds()[0] == "user_message_chunk" and "First answer." in client.text()
        await conn.resume_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        fork = await conn.fork_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        assert fork.session_id != session.session_id
        await conn.prompt(session_id=fork.session_id, prompt=[acp.text_block("in the fork")])
        forked = server.requests[-1].json()["messages"]
        assert "first question" in str(forked) and forked[-1]["content"][0]["text"] == "in the fork"
        await conn.close_session(session_id=session.session_id)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("in the original")])
        original = server.requests[-1].json()["messages"]
        assert "in the fork" not in str(original) and "first question" in str(original)
