"""The official TypeScript Agent SDK (@anthropic-ai/claude-agent-sdk, pinned, from npm) driving agentui through
`pathToClaudeCodeExecutable`, and the same program driving the real Claude Code CLI, against the loopback model
server, with the same assertions: it says more in `initialize` than the Python SDK (in-process MCP servers, system
prompts), and it reads every error result's `errors`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import endless_answer, played, text, tool
from tests.interop.test_round_trips import summarising
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

PROGRAM = Path(__file__).with_name("ts_sdk") / "program.mjs"
TINY = str(Path(__file__).resolve().parents[1] / "support" / "mcp_server.py")
"""A small stdio MCP server (tests/support/mcp_server.py)."""
CEILING = 180.0


@pytest.fixture(params=["agentui", "claude"])
def cli(request: pytest.FixtureRequest, agentui_bin: str) -> str:
    """Each program runs on agentui and on the real Claude Code (the pinned npm release)."""
    if request.param == "agentui":
        return agentui_bin
    return str(request.getfixturevalue("claude_bin"))


def run(ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path, *prompts: str, **spec: Any) -> list[Any]:
    """The program's messages, each as the SDK gave it, then its end (`done`, or `threw` with the error).
    `extra_env`: variables for both CLIs besides the usual ones."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("hello\n")
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui"), **spec.pop("extra_env", {})}
    spec = {"cli": cli, "cwd": str(project), "env": env, "prompts": list(prompts), **spec}
    node = shutil.which("node")
    assert node, "node is needed for the TypeScript Agent SDK (apt-get install nodejs)"
    sdk = ts_sdk / "@anthropic-ai" / "claude-agent-sdk" / "sdk.mjs"
    done = subprocess.run(
        [node, str(PROGRAM), str(sdk), json.dumps(spec), str(ts_sdk / "zod" / "index.js")],
        capture_output=True, text=True, timeout=CEILING, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines and "end" in lines[-1], f"the program did not finish: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    return lines


def results(lines: list[Any]) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("type") == "result"]


def test_a_query_with_a_tool_runs_to_its_result(ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    notes = tmp_path / "project" / "notes.txt"
    reading = [text("Let me read it."), tool("toolu_01", "Read", file_path=str(notes))]
    played(server, [reading, [text("It says hello.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "read notes.txt", options={"allowedTools": ["Read"]})
    assert lines[-1] == {"end": "done"}
    [result] = results(lines)
    assert result["subtype"] == "success" and result["result"] == "It says hello." and result["num_turns"] == 2


def test_an_in_process_mcp_server_announced_in_initialize_serves_the_models_call(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(server, [[tool("m1", "mcp__calc__add", a=2, b=3)], [text("It is 5.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "add 2 and 3", calc=True, options={"allowedTools": ["mcp__calc__add"]})
    assert "mcp__calc__add" in [offered["name"] for offered in seen[0].json()["tools"]]
    assert {"called": "add", "a": 2, "b": 3} in lines
    answer = seen[1].json()["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result" and not answer.get("is_error") and "5" in json.dumps(answer["content"])
    [result] = results(lines)
    assert result["result"] == "It is 5."
    init = next(line for line in lines if line.get("subtype") == "init")
    assert {"name": "calc", "status": "connected"} in init["mcp_servers"]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("Be a pirate.", "Be a pirate."),
        (["One.", "Two."], "One.\n\nTwo."),
        ({"type": "preset", "preset": "claude_code", "append": "Always rhyme."}, "Always rhyme."),
    ],
    ids=["string", "parts", "preset-with-append"],
)
def test_the_system_prompt_sent_in_initialize_reaches_the_model(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path, given: Any, said: str
) -> None:
    seen = played(server, [[text("Arr.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "hi", options={"systemPrompt": given})
    assert results(lines)[0]["result"] == "Arr."
    system = seen[0].json()["system"]
    parts = [system] if isinstance(system, str) else [block["text"] for block in system]
    assert any(said in part for part in parts), parts
    preset = isinstance(given, dict)
    # A prompt of the program's own replaces the tool's instructions; the preset keeps them.
    assert any(len(part) > 500 for part in parts) == preset


def test_max_turns_ends_with_claude_codes_error_result_and_the_sdk_reports_it(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    notes = str(tmp_path / "project" / "notes.txt")
    played(server, [[text("Reading."), tool("t1", "Read", file_path=notes)], [text("Done.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "read", options={"maxTurns": 1, "allowedTools": ["Read"]})
    [result] = results(lines)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert "result" not in result and result["stop_reason"] == "tool_use"
    assert result["errors"] == ["Reached maximum number of turns (1)"]
    # The SDK hands the program the result, then throws what Claude Code's errors say (not a TypeError of its own).
    assert lines[-1]["end"] == "threw"
    assert lines[-1]["error"].startswith("Error: Claude Code returned an error result: Reached maximum number of turns")


def test_an_interrupt_ends_with_an_error_result_without_the_partial_answer(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    gate = endless_answer(server)
    try:
        lines = run(
            ts_sdk, cli, server, tmp_path, "talk", options={"includePartialMessages": True}, interruptOnDelta=True
        )
    finally:
        gate.set()
    [result] = results(lines)
    assert result["subtype"] == "error_during_execution" and "result" not in result
    assert result["stop_reason"] is None and len(result["errors"]) == 1
    assert lines[-1]["end"] == "threw" and "Claude Code returned an error result: " in lines[-1]["error"]


def test_after_an_interrupted_run_the_process_ends_with_1_once_its_input_closes(
    cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """The protocol under the SDKs, spoken directly: an interrupted run is an error, so the process ends with 1."""
    gate = endless_answer(server)
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    flags = [
        "--output-format",
        "stream-json",
        "--input-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
    ]
    process = subprocess.Popen(
        [cli, *flags, "--model", "claude-sonnet-4-5"],
        cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    try:
        send({"type": "control_request", "request_id": "i1", "request": {"subtype": "initialize", "hooks": None}})
        send({"type": "user", "message": {"role": "user", "content": "talk"}, "parent_tool_use_id": None,
              "session_id": ""})  # fmt: skip
        result = None
        for line in process.stdout:
            message = json.loads(line)
            if message.get("type") == "stream_event" and message["event"]["type"] == "content_block_delta":
                send({"type": "control_request", "request_id": "x1", "request": {"subtype": "interrupt"}})
            if message.get("type") == "result":
                result = message
                break
        process.stdin.close()
        process.stdout.read()
        assert process.wait(timeout=CEILING) == 1
    finally:
        gate.set()
        process.kill()
        process.wait()
    assert result is not None and result["subtype"] == "error_during_execution"


def test_two_messages_sent_at_once_get_one_result_each(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(server, [[text("First.")], [text("Second.")], [text("Third.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "one", "two", together=True)
    assert [result["result"] for result in results(lines)] == ["First.", "Second."]
    assert len(seen) == 2 and seen[1].json()["messages"][-1]["content"][-1]["text"] == "two"


def compacting_model(server: LoopbackServer, answer: Callable[[str], str]) -> None:
    """The model summarises when asked (Claude Code's request or agentui's), titles briefly, and otherwise answers
    `answer(the last message, as JSON)`, each answer a message of its own (Claude Code merges ones that share an id)."""

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if summarising(body):
            return Reply(chunks=anthropic_stream([text("<summary>We greeted each other.</summary>")]))
        if "tools" not in body:
            return Reply(chunks=anthropic_stream([text("A title")]))
        said = answer(json.dumps(body["messages"][-1]))
        return Reply(chunks=anthropic_stream([text(said)], message_id=f"msg_{len(server.requests)}"))

    server.responder = model


def test_a_compact_message_compacts_with_claude_codes_status_and_boundary(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """`/compact` sent as a message is a command: the conversation is summarised (Claude Code needs five exchanges
    before it will), the program sees the status lines and the boundary, and the next message goes on from the
    summary."""

    compacting_model(server, lambda said: "Hello.")
    prompts = [*(f"hi {n}" for n in range(6)), "/compact", "after"]
    lines = run(ts_sdk, cli, server, tmp_path, *prompts, streaming=True)
    compacted = results(lines)[6]
    assert compacted["subtype"] == "success" and compacted["result"] == "" and compacted["num_turns"] == 0
    kinds = [(line.get("subtype"), line.get("status"), line.get("compact_result")) for line in lines]
    at = kinds.index(("status", "compacting", None))
    assert kinds[at + 1] == ("status", None, "success")
    boundary = next(line for line in lines if line.get("subtype") == "compact_boundary")
    assert boundary["compact_metadata"]["trigger"] == "manual" and boundary["compact_metadata"]["pre_tokens"] > 0
    last = server.requests[-1].json()["messages"]
    said = [
        block.get("text", "").strip() for message in last for block in message["content"] if message["role"] == "user"
    ]
    assert "We greeted each other." in json.dumps(last) and "/compact" not in said and "hi 0" not in said
    assert results(lines)[-1]["result"] == "Hello."


def test_a_compact_message_with_nothing_to_compact_says_so(
    ts_sdk: Path, cli: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """Nothing is summarised and nothing goes to the model. (Claude Code says nothing of an empty conversation, and
    fails the same way as agentui, with status lines, below its threshold of five exchanges.)"""
    seen = played(server, [[text("Hello.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "/compact", streaming=True)
    [result] = results(lines)
    assert result["subtype"] == "success" and result["num_turns"] == 0 and seen == []
    assert not any(line.get("subtype") == "compact_boundary" for line in lines)
    if cli == agentui_bin:
        failed = next(line for line in lines if line.get("compact_result"))
        assert failed["compact_result"] == "failed" and result["result"] == failed["compact_error"]


def controls(lines: list[Any]) -> dict[str, Any]:
    """What each control method the program called gave: its value, or {"error": what it threw} (a method called
    again is `name#2`, and so on)."""
    got: dict[str, Any] = {}
    for line in (line for line in lines if "control" in line):
        name, count = line["control"], 1
        while (name if count == 1 else f"{name}#{count}") in got:
            count += 1
        got[name if count == 1 else f"{name}#{count}"] = line.get("value", {"error": line.get("error")})
    return got


def test_the_query_control_methods_answer_as_claude_codes_do(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """getContextUsage(), getSettings(), readFile(), rewindFiles(), setMaxThinkingTokens(), reconnectMcpServer()
    and the rest: answered, in Claude Code's shapes, with this session's values."""
    seen = played(server, [[text("Hello.")], [text("Again.")]])
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Grep"]}}))
    (tmp_path / "project" / ".claude").mkdir(parents=True)
    project_settings = {"permissions": {"allow": ["Read"], "deny": ["Write", "Read(./secret.txt)"]}, "env": {"A": "1"}}
    (tmp_path / "project" / "secret.txt").write_text("s3cret\n")
    (tmp_path / "project" / ".claude" / "settings.json").write_text(json.dumps(project_settings))
    calls = [
        ["getContextUsage"], ["getSettings"], ["readFile", "notes.txt"], ["readFile", "secret.txt"],
        ["readFile", "notes.txt", {"maxBytes": 2, "encoding": "base64"}], ["reconnectMcpServer", "nowhere"],
        ["toggleMcpServer", "nowhere", False], ["stopTask", "no-such-task"],
        ["rewindFiles", "no-such-message", {"dryRun": True}], ["reloadSkills"], ["setMaxThinkingTokens", 2048],
    ]  # fmt: skip
    lines = run(ts_sdk, cli, server, tmp_path, "hi", "again", controls=calls)
    got = controls(lines)
    usage = got["getContextUsage"]
    assert usage["maxTokens"] > usage["totalTokens"] > 0 and usage["model"]
    assert sum(c["tokens"] for c in usage["categories"]) == usage["maxTokens"]
    assert any(c["name"] == "Free space" for c in usage["categories"]) and len(usage["gridRows"]) == 10
    settings = got["getSettings"]
    assert settings["effective"]["permissions"] == {"allow": ["Grep", "Read"], "deny": ["Write", "Read(./secret.txt)"]}
    assert [source["source"] for source in settings["sources"]] == ["userSettings", "projectSettings"]
    assert settings["sources"][1]["settings"] == project_settings
    assert got["readFile"]["contents"] == "hello\n"
    assert got["readFile#2"] is None  # (a deny rule refuses it, as it would refuse the Read tool)
    assert got["readFile#3"]["contents"] == "aGU=" and got["readFile#3"]["truncated"] is True
    assert Path(got["readFile"]["absPath"]) == (tmp_path / "project" / "notes.txt").resolve()
    assert "Server not found: nowhere" in got["reconnectMcpServer"]["error"]
    assert "Server not found: nowhere" in got["toggleMcpServer"]["error"]
    assert got["rewindFiles"]["canRewind"] is False and got["rewindFiles"]["error"]
    assert isinstance(got["reloadSkills"]["skills"], list) and got["setMaxThinkingTokens"] is None
    # (Claude Code counts tokens for getContextUsage with requests of its own: the answers are the streamed ones)
    answered = [request.json() for request in seen if request.json().get("stream")]
    assert len(answered) == 2 and answered[1]["thinking"]["budget_tokens"] == 2048
    assert results(lines)[0]["result"] == "Hello." and len(results(lines)) == 2


def test_an_mcp_server_toggled_off_loses_its_tools_and_toggled_on_has_them_again(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(server, [[text("One.")], [text("Two.")], [text("Three.")]])
    tiny = {"command": sys.executable, "args": [TINY]}
    after = {1: [["toggleMcpServer", "tiny", False]], 2: [["toggleMcpServer", "tiny", True]]}
    lines = run(ts_sdk, cli, server, tmp_path, "one", "two", "three", options={"mcpServers": {"tiny": tiny}},
                controlsAfter=after)  # fmt: skip
    offered = [
        "mcp__tiny__add" in [tool["name"] for tool in request.json()["tools"]]
        for request in seen
        if request.json().get("stream")
    ]
    assert offered == [True, False, True]
    assert [line.get("value", line.get("error")) for line in lines if "control" in line] == [None, None]


def test_servers_set_at_run_time_serve_the_model_and_go_when_set_again(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(
        server, [[text("One.")], [tool("m1", "mcp__tiny__add", a=2, b=3)], [text("It is 5.")], [text("Three.")]]
    )
    tiny = {"command": sys.executable, "args": [TINY]}
    after = {1: [["setMcpServers", {"tiny": tiny, "broken": {"type": "stdio"}}]], 2: [["setMcpServers", {}]]}
    lines = run(ts_sdk, cli, server, tmp_path, "one", "add 2 and 3", "three", controlsAfter=after,
                options={"allowedTools": ["mcp__tiny__add"]})  # fmt: skip
    offered = [
        "mcp__tiny__add" in [tool["name"] for tool in request.json()["tools"]]
        for request in seen
        if request.json().get("stream")
    ]
    assert offered == [False, True, True, False]
    answer = seen[2].json()["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result" and "5" in json.dumps(answer["content"])
    first, second = [line["value"] for line in lines if line.get("control") == "setMcpServers"]
    # (one that cannot start is added all the same, with why, and removed with the rest)
    assert first["added"] == ["tiny", "broken"] and first["removed"] == [] and list(first["errors"]) == ["broken"]
    assert second == {"added": [], "removed": ["tiny", "broken"], "errors": {}}


def test_a_server_pinned_to_the_default_mode_asks_even_when_permissions_are_bypassed(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    turns = [[tool("m1", "mcp__tiny__add", a=1, b=1)], [text("Two.")], [tool("m2", "mcp__tiny__add", a=2, b=3)],
             [text("Asked.")]]  # fmt: skip
    seen = played(server, turns)
    tiny = {"command": sys.executable, "args": [TINY]}
    pins = [["setMcpPermissionModeOverride", "tiny", "default"], ["setMcpPermissionModeOverride", "nowhere", None],
            ["setMcpPermissionModeOverride", "tiny", "bypassPermissions"],
            ["setMcpPermissionModeOverride", "tiny", "auto"]]  # fmt: skip
    options = {"mcpServers": {"tiny": tiny}, "permissionMode": "bypassPermissions",
               "allowDangerouslySkipPermissions": True}  # fmt: skip
    # (IS_SANDBOX: Claude Code refuses to bypass permissions as root anywhere else, and the tests may run as root)
    lines = run(ts_sdk, cli, server, tmp_path, "one", "two", controlsAfter={1: pins}, options=options,
                extra_env={"IS_SANDBOX": "1"})  # fmt: skip
    answers = [request.json()["messages"][-1]["content"][0] for request in seen if request.json().get("stream")]
    assert not answers[1].get("is_error") and "2" in json.dumps(answers[1]["content"])  # (bypassed: it ran)
    assert answers[3]["is_error"] is True and "5" not in json.dumps(
        answers[3]["content"]
    )  # (pinned: not without asking)
    said = [line.get("value", line.get("error")) for line in lines if "control" in line]
    assert said[0] == {} and "not known" in said[1]["warning"]
    assert "tighten-only" in said[2] and "Cannot pin MCP server 'tiny' to auto" in said[3]


def test_a_background_commands_end_after_the_last_message_gets_a_turn_of_its_own(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """As Claude Code: the program's input has ended, but a background command still runs: it is waited for, and its
    end is a turn of its own, its `<task-notification>` the prompt."""
    start = tool("b1", "Bash", command="sleep 1; echo done", run_in_background=True, description="Finishes soon")
    seen = played(server, [[start], [text("Started.")], [text("It is done.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "start it", streaming=True, options={"allowedTools": ["Bash"]})
    assert [result["result"] for result in results(lines)] == ["Started.", "It is done."]
    [told] = [line for line in lines if line.get("subtype") == "task_notification"]
    assert told["tool_use_id"] == "b1" and told["status"] == "completed"
    ended = [line for line in lines if line.get("subtype") == "task_updated"]
    assert [line["patch"]["status"] for line in ended] == ["completed"]
    prompt = json.dumps(seen[2].json()["messages"][-1])
    assert "<task-notification>" in prompt and "<tool-use-id>b1</tool-use-id>" in prompt


def test_what_initialize_answers_lists_the_commands_agents_models_and_account(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "greet.md").write_text(
        "---\ndescription: Say hello\nargument-hint: <name>\n---\nGreet $ARGUMENTS.\n"
    )
    (project / ".claude" / "skills" / "tidy").mkdir(parents=True)
    (project / ".claude" / "skills" / "tidy" / "SKILL.md").write_text("---\ndescription: Tidies code.\n---\nTidy.\n")
    (project / ".claude" / "agents").mkdir()
    (project / ".claude" / "agents" / "checker.md").write_text(
        "---\nname: checker\ndescription: Checks things.\nmodel: haiku\n---\nCheck.\n"
    )
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    played(server, [[text("Hello.")]])
    asked = [["supportedCommands"], ["supportedAgents"], ["supportedModels"], ["accountInfo"]]
    lines = run(ts_sdk, cli, server, tmp_path, "hi", streaming=True, controlsAfter={1: asked})
    got = {line["control"]: line.get("value", line.get("error")) for line in lines if "control" in line}
    commands = {command["name"]: command for command in got["supportedCommands"]}
    assert commands["greet"]["description"].startswith("Say hello") and commands["greet"]["argumentHint"] == "<name>"
    assert "compact" in commands
    assert commands["tidy"]["description"].startswith("Tidies code.")  # (a skill, with its description)
    agents = {agent["name"]: agent for agent in got["supportedAgents"]}
    assert agents["checker"] == {"name": "checker", "description": "Checks things.", "model": "haiku"}
    models = got["supportedModels"]
    assert models and {"value", "resolvedModel", "displayName", "description"} <= set(models[0])
    assert any(model["value"] == "haiku" and "haiku" in model["resolvedModel"] for model in models)
    assert got["accountInfo"] == {
        "tokenSource": "none",
        "apiKeySource": "ANTHROPIC_API_KEY",
        "apiProvider": "firstParty",
    }


def test_bypass_permissions_is_refused_to_a_session_not_launched_allowing_it(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    played(server, [[text("One.")], [text("Two.")]])
    asked = {1: [["setPermissionMode", "bypassPermissions"]]}
    lines = run(ts_sdk, cli, server, tmp_path, "one", "two", controlsAfter=asked, extra_env={"IS_SANDBOX": "1"})
    [said] = [line for line in lines if line.get("control") == "setPermissionMode"]
    assert "Cannot set permission mode to bypassPermissions because the session was not launched with" in said["error"]
    assert [result["result"] for result in results(lines)] == ["One.", "Two."]


def test_a_message_sent_during_a_compaction_gets_its_own_answer_after_it(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    compacting_model(server, lambda said: "After it." if "after" in said else "Hello.")
    prompts = [*(f"hi {n}" for n in range(6)), "/compact", "after"]
    lines = run(ts_sdk, cli, server, tmp_path, *prompts, togetherFrom=6)
    assert [result["result"] for result in results(lines)][-2:] == ["", "After it."]
    last = server.requests[-1].json()["messages"]
    assert "We greeted each other." in json.dumps(last) and "hi 0" not in json.dumps(last)


def test_a_side_question_is_answered_from_the_conversation_and_not_kept_in_it(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    def model(request: RecordedRequest) -> Reply:
        said = json.dumps(request.json()["messages"])
        if "tools" not in request.json() and "what did I say first" not in said:
            return Reply(chunks=anthropic_stream([text("A title")]))
        answer = "You said hi." if "what did I say first" in said else "Hello."
        return Reply(chunks=anthropic_stream([text(answer)], message_id=f"msg_{len(server.requests)}"))

    server.responder = model
    calls = [["askSideQuestion", "what did I say first?"]]
    lines = run(ts_sdk, cli, server, tmp_path, "hi", "again", controls=calls)
    assert controls(lines)["askSideQuestion"]["response"] == "You said hi."
    asked = next(r.json() for r in server.requests if "what did I say first" in json.dumps(r.json()["messages"]))
    assert "hi" in json.dumps(asked["messages"][0])  # (the conversation so far goes with it)
    last = server.requests[-1].json()["messages"]
    assert "what did I say first" not in json.dumps(last) and results(lines)[-1]["result"] == "Hello."
