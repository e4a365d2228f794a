"""The official Python Agent SDK (claude-agent-sdk, pinned in the test extras) driving agentui through `cli_path`,
against the loopback model server: query() with tools, a permission callback that changes a call's input or denies
it with a message, a PreToolUse hook callback that blocks a call, a client across two turns with a mode change,
partial messages, and an interrupt in the middle of an answer. The query() program also runs on the real Claude
Code CLI (npm, pinned), and both give the same kinds of messages in the same order."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolResultBlock,
    create_sdk_mcp_server,
    query,
)
from claude_agent_sdk import tool as tool_function

from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


@pytest.fixture(params=["agentui", "claude"])
def cli(request: pytest.FixtureRequest, agentui_bin: str) -> str:
    """Each program runs on agentui and on the real Claude Code (the pinned npm release)."""
    if request.param == "agentui":
        return agentui_bin
    return str(request.getfixturevalue("claude_bin"))


def options(cli: str, server: LoopbackServer, tmp_path: Path, name: str, **more: Any) -> ClaudeAgentOptions:
    home = tmp_path / f"{name}-home"
    home.mkdir(exist_ok=True)
    project = tmp_path / name
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("hello\n")
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    return ClaudeAgentOptions(cli_path=cli, cwd=str(project), model="claude-sonnet-4-5", env=env, **more)


def played(server: LoopbackServer, turns: list[list[dict[str, Any]]]) -> list[RecordedRequest]:
    """The model plays `turns` in order (a turn with a tool call stops for its result); title and other side requests
    get a short text. Returns the requests of the turns, as they come."""
    seen: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        if "tools" not in request.json():
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "A title"}]))
        seen.append(request)
        blocks = turns[min(len(seen), len(turns)) - 1]
        stop = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
        # (each answer its own message id: Claude Code merges messages that share one)
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"msg_{len(seen)}"))

    server.responder = model
    return seen


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def shape(messages: list[Any]) -> list[str]:
    """The kinds of messages and blocks a program sees, in order."""
    kinds = []
    for message in messages:
        blocks = getattr(message, "content", None)
        inner = [type(block).__name__ for block in blocks] if isinstance(blocks, list) else []
        kinds.append("/".join([type(message).__name__, *inner]))
    return kinds


async def collect(prompt: str, opts: ClaudeAgentOptions) -> list[Any]:
    return [message async for message in query(prompt=prompt, options=opts)]


async def test_query_with_tools_gives_the_same_messages_as_claude_code(
    agentui_bin: str, claude_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    results = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        notes = tmp_path / name / "notes.txt"
        played(
            server,
            [[text("Let me read it."), tool("toolu_01", "Read", file_path=str(notes))], [text("It says hello.")]],
        )
        results[name] = await collect("read notes.txt", options(cli, server, tmp_path, name, allowed_tools=["Read"]))
    ours, theirs = results["agentui"], results["claude"]
    assert shape(ours) == shape(theirs) == [
        "SystemMessage", "AssistantMessage/TextBlock", "AssistantMessage/ToolUseBlock", "UserMessage/ToolResultBlock",
        "AssistantMessage/TextBlock", "ResultMessage",
    ]  # fmt: skip
    result = ours[-1]
    assert isinstance(result, ResultMessage) and result.result == "It says hello." and result.num_turns == 2
    assert not result.is_error and result.session_id == ours[0].data["session_id"]
    [tool_result] = ours[3].content
    assert isinstance(tool_result, ToolResultBlock) and "hello" in str(tool_result.content)


async def test_a_permission_callback_changes_one_call_and_denies_another(
    cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(
        server,
        [
            [tool("w1", "Write", file_path="out.txt", content="from the model\n")],
            [tool("b1", "Bash", command="touch ran.txt")],
            [text("Done.")],
        ],
    )
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, given: dict[str, Any], context: Any) -> Any:
        asked.append((name, given))
        if name == "Write":
            return PermissionResultAllow(updated_input={**given, "content": "from the program\n"})
        return PermissionResultDeny(message="no commands today")

    opts = options(cli, server, tmp_path, "p", can_use_tool=can_use_tool)
    async with ClaudeSDKClient(options=opts) as client:  # (can_use_tool needs the streaming client)
        await client.query("write and run")
        messages = [message async for message in client.receive_response()]
    project = tmp_path / "p"
    assert [name for name, _ in asked] == ["Write", "Bash"]
    assert (project / "out.txt").read_text() == "from the program\n" and not (project / "ran.txt").exists()
    denied = seen[2].json()["messages"][-1]["content"][0]
    assert denied["is_error"] and "no commands today" in denied["content"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Done."
    assert [d["tool_name"] for d in messages[-1].permission_denials or []] == ["Bash"]


async def test_a_denial_that_interrupts_ends_the_turn(cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    seen = played(server, [[tool("b1", "Bash", command="touch ran.txt")], [text("Carried on.")]])

    async def can_use_tool(name: str, given: dict[str, Any], context: Any) -> Any:
        return PermissionResultDeny(message="stop here", interrupt=True)

    opts = options(cli, server, tmp_path, "p", can_use_tool=can_use_tool)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("run it")
        messages = [message async for message in client.receive_response()]
    assert not (tmp_path / "p" / "ran.txt").exists()
    assert len(seen) == 1  # the model is not called again after the refusal
    result = messages[-1]  # (as an interrupt: Claude Code and agentui alike)
    assert isinstance(result, ResultMessage) and result.is_error and result.subtype == "error_during_execution"


async def test_a_pre_tool_use_hook_callback_blocks_a_call(cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    seen = played(server, [[tool("b1", "Bash", command="echo hi")], [text("Blocked, then.")]])
    inputs: list[dict[str, Any]] = []

    async def guard(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        inputs.append(hook_input)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "echo is not allowed here",
            }
        }

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
    opts = options(cli, server, tmp_path, "h", hooks=hooks, allowed_tools=["Bash"])
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("say hi")
        messages = [message async for message in client.receive_response()]
    assert [i["tool_name"] for i in inputs] == ["Bash"] and inputs[0]["tool_input"] == {"command": "echo hi"}
    blocked = seen[1].json()["messages"][-1]["content"][0]
    assert blocked["is_error"] and blocked["content"] == "echo is not allowed here", blocked
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Blocked, then."


async def test_a_client_keeps_the_conversation_across_turns_and_changes_mode(
    cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(
        server, [[text("First answer.")], [tool("w1", "Write", file_path="a.txt", content="a\n")], [text("Written.")]]
    )
    opts = options(cli, server, tmp_path, "c", include_partial_messages=True)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("one")
        first = [message async for message in client.receive_response()]
        await client.set_permission_mode("acceptEdits")
        await client.query("two")
        second = [message async for message in client.receive_response()]
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "First answer."
    assert any(isinstance(m, StreamEvent) and m.event["type"] == "content_block_delta" for m in first)
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "Written."
    assert (tmp_path / "c" / "a.txt").read_text() == "a\n"  # acceptEdits: written without a question
    assert len(seen[1].json()["messages"]) == 3  # the second prompt went on from the first answer
    assert first[-1].session_id == second[-1].session_id


def endless_answer(server: LoopbackServer) -> threading.Event:
    """The model starts a long answer and holds it after a few chunks until the returned gate is set (a title request
    gets a short text)."""
    gate = threading.Event()
    chunks = anthropic_stream([text("A long answer that never finishes " * 20)], pieces=40)

    def model(request: RecordedRequest) -> Reply:
        if "tools" not in request.json():
            return Reply(chunks=anthropic_stream([text("A title")]))
        return Reply(chunks=chunks, gate=gate, gate_after=6)

    server.responder = model
    return gate


async def test_interrupt_stops_an_answer_in_the_middle(cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    gate = endless_answer(server)
    opts = options(cli, server, tmp_path, "i", include_partial_messages=True)
    try:
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("talk")
            messages: list[Any] = []
            async for message in client.receive_response():
                messages.append(message)
                if isinstance(message, StreamEvent) and message.event["type"] == "content_block_delta":
                    await client.interrupt()
                    break
            rest = [message async for message in client.receive_response()]
    finally:
        gate.set()
    result = rest[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert any(isinstance(m, SystemMessage) for m in messages)
    assert not any(isinstance(m, AssistantMessage) and "never finishes" * 20 in str(m.content) for m in rest)


async def test_the_model_calls_a_tool_of_an_in_process_sdk_mcp_server(
    cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    calls: list[dict[str, Any]] = []

    @tool_function("add", "Add two numbers", {"a": float, "b": float})
    async def add(arguments: dict[str, Any]) -> dict[str, Any]:
        calls.append(arguments)
        return {"content": [{"type": "text", "text": f"{arguments['a'] + arguments['b']:g}"}]}

    calculator = create_sdk_mcp_server(name="calc", tools=[add])
    seen = played(server, [[tool("m1", "mcp__calc__add", a=2, b=3)], [text("It is 5.")]])
    opts = options(cli, server, tmp_path, "m", mcp_servers={"calc": calculator}, allowed_tools=["mcp__calc__add"])
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("add 2 and 3")
        messages = [message async for message in client.receive_response()]
    offered = [t["name"] for t in seen[0].json()["tools"]]
    assert "mcp__calc__add" in offered and calls == [{"a": 2, "b": 3}]
    result = seen[1].json()["messages"][-1]["content"][0]
    assert not result.get("is_error") and "5" in json.dumps(result["content"])
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "It is 5."
    init = next(m for m in messages if isinstance(m, SystemMessage))
    assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"]


async def test_set_model_and_mcp_status(cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    seen = played(server, [[text("From the other model.")]])
    opts = options(cli, server, tmp_path, "s")
    async with ClaudeSDKClient(options=opts) as client:
        status = await client.get_mcp_status()
        await client.set_model("local-model-x")
        await client.query("hi")
        messages = [message async for message in client.receive_response()]
    assert status["mcpServers"] == []
    assert seen[-1].json()["model"] == "local-model-x"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "From the other model."


async def test_disallowed_tools_are_not_offered_to_the_model(cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    """A tool the rules deny whole is left out of the tools sent to the model; one denied only in part stays."""
    seen = played(server, [[text("Nothing to do.")]])
    project = tmp_path / "d"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Write"]}}))
    opts = options(cli, server, tmp_path, "d", disallowed_tools=["Read", "WebFetch", "Bash(rm:*)"])
    messages = await collect("hi", opts)
    offered = [t["name"] for t in seen[0].json()["tools"]]
    assert not {"Read", "WebFetch", "Write"} & set(offered) and {"Bash", "Edit"} <= set(offered)
    init = next(m for m in messages if isinstance(m, SystemMessage))
    assert "Read" not in init.data["tools"] and "Bash" in init.data["tools"]


async def test_the_permission_callback_gets_claude_codes_context_and_its_words_reach_the_model(
    cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """What Claude Code's callback is told: a name and a description for each call, rules shaped as Claude Code
    shapes them (a command's own Bash rule first, accepting edits for a write), the path a command would write; and
    the callback's deny message is all the model reads. No SessionStart callback fires as the session starts."""
    project = tmp_path / "p"
    calls = [tool("b1", "Bash", command="echo hi > ok.txt"), tool("w1", "Write", file_path=str(project / "w.txt"),
             content="x\n")]  # fmt: skip
    seen = played(server, [[call] for call in calls] + [[text("Done.")]])
    asked: list[tuple[str, Any]] = []
    started: list[dict[str, Any]] = []

    async def decide(name: str, given: dict[str, Any], context: Any) -> PermissionResultDeny:
        asked.append((name, context))
        return PermissionResultDeny(message=f"No {name} now; use X.")

    async def session_start(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        started.append(hook_input)
        return {}

    hooks = {"SessionStart": [HookMatcher(hooks=[session_start])]}
    opts = options(cli, server, tmp_path, "p", can_use_tool=decide, hooks=hooks)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("go")
        messages = [message async for message in client.receive_response()]
    assert [name for name, _ in asked] == ["Bash", "Write"] and started == []
    bash, write = (context for _, context in asked)
    assert bash.display_name == "Bash" and bash.description == "echo hi > ok.txt"
    assert bash.suggestions[0].type == "addRules" and bash.suggestions[0].rules[0].tool_name == "Bash"
    assert bash.blocked_path == str((project / "ok.txt").resolve())
    assert write.description == "w.txt"
    assert [(s.type, s.mode) for s in write.suggestions] == [("setMode", "acceptEdits")]
    results = [request.json()["messages"][-1]["content"][0] for request in seen[1:3]]
    assert [result["content"] for result in results] == ["No Bash now; use X.", "No Write now; use X."]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Done."


@pytest.mark.parametrize(
    ("alias", "model", "wide"),
    [("sonnet", "claude-sonnet-5", False), ("opus", "claude-opus-4-8", False),
     ("haiku", "claude-haiku-4-5-20251001", False), ("sonnet[1m]", "claude-sonnet-5", True),
     ("opusplan", "claude-sonnet-5", False)],
)  # fmt: skip
async def test_set_model_resolves_claude_codes_aliases(
    cli: str, server: LoopbackServer, tmp_path: Path, alias: str, model: str, wide: bool
) -> None:
    """As Claude Code 2.1.197 resolves them for Anthropic's API (`opusplan` outside plan mode is Sonnet), with the
    1M-context beta for `[1m]`."""
    seen = played(server, [[text("Hi.")]])
    async with ClaudeSDKClient(options=options(cli, server, tmp_path, "m")) as client:
        await client.set_model(alias)
        await client.query("hi")
        [message async for message in client.receive_response()]
    assert seen[-1].json()["model"] == model
    assert ("context-1m-2025-08-07" in seen[-1].headers.get("anthropic-beta", "")) == wide


@pytest.mark.parametrize("output", ["updated input", "continue false", "post context"])
async def test_hook_outputs_are_honoured_as_claude_code_honours_them(
    cli: str, server: LoopbackServer, tmp_path: Path, output: str
) -> None:
    """PreToolUse's `updatedInput` (the call runs with it, checked again), `continue: false` (nothing more runs and
    the model is not called again), PostToolUse's `additionalContext` (a note beside the result)."""
    seen = played(server, [[tool("b1", "Bash", command="echo hi")], [text("After.")]])
    answers = {
        "updated input": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                 "updatedInput": {"command": "echo changed"}}},
        "continue false": {"continue": False, "stopReason": "Stopped by policy"},
        "post context": {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "A note."}},
    }  # fmt: skip

    async def hook(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return answers[output]

    event = "PostToolUse" if output == "post context" else "PreToolUse"
    opts = options(cli, server, tmp_path, "o", hooks={event: [HookMatcher(matcher="Bash", hooks=[hook])]})
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("say hi")
        messages = [message async for message in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    if output == "continue false":
        assert len(seen) == 1 and result.result == "" and result.stop_reason == "tool_use"
        return
    answered = seen[1].json()["messages"][-1]["content"]
    assert answered[0]["type"] == "tool_result" and result.result == "After."
    if output == "updated input":
        assert answered[0]["content"] == "changed"
    else:
        assert answered[0]["content"] == "hi" and answered[1]["type"] == "text"
        assert "PostToolUse:Bash hook additional context: A note." in answered[1]["text"]
