"""`agentui acp` under the official TypeScript ACP client library (pinned, from npm), which checks every message
against the protocol's schema: a prompt that writes a file (with its diff) after a permission question, the
session's commands and usage, and the session methods (list, load, resume, fork, close), with nothing the library
refuses or complains of."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

CLIENT = Path(__file__).with_name("ts_acp") / "client.mjs"
RESPONSES = {
    "initialize": "InitializeResponse", "session/new": "NewSessionResponse", "session/prompt": "PromptResponse",
    "session/list": "ListSessionsResponse", "session/load": "LoadSessionResponse",
    "session/resume": "ResumeSessionResponse", "session/fork": "ForkSessionResponse",
    "session/close": "CloseSessionResponse",
}  # fmt: skip
FROM_AGENT = {
    "session/update": "SessionNotification", "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest", "fs/write_text_file": "WriteTextFileRequest",
}  # fmt: skip


def schema_problems(module: Path, to_agent: list[str], from_agent: list[str]) -> list[str]:
    """What in the agent's messages the protocol's JSON schema (shipped with the library) refuses: each
    notification and request it sends, and each response by the method it answers."""
    from jsonschema import Draft202012Validator

    document = json.loads((module.parents[3] / "schema" / "v1" / "schema.unstable.json").read_text())
    asked = {message["id"]: message["method"] for message in map(json.loads, to_agent) if "method" in message}
    problems = []
    for message in map(json.loads, from_agent):
        if "method" in message:
            name, value = FROM_AGENT.get(message["method"]), message.get("params")
        else:
            name, value = RESPONSES.get(asked.get(message.get("id"), "")), message.get("result")
        if name is None:
            problems.append(f"a message the test does not know: {json.dumps(message)[:200]}")
            continue
        validator = Draft202012Validator({"$defs": document["$defs"], "$ref": f"#/$defs/{name}"})
        problems += [f"{name}: {error.message}" for error in validator.iter_errors(value)]
    return problems


def test_every_message_passes_the_typescript_librarys_schema(
    ts_acp: Path, agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "hello.txt", "content": "hi\n"}}
    run = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "cat hello.txt", "description": "Show"}}
    answers = [[{"type": "text", "text": "Writing it."}, write], [run], [{"type": "text", "text": "Done."}]]

    def model(request: RecordedRequest) -> Reply:
        blocks = answers.pop(0) if answers else [{"type": "text", "text": "More."}]
        stop = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"m{len(server.requests)}"))

    server.responder = model
    node = shutil.which("node")
    assert node, "node is needed for the TypeScript ACP library (apt-get install nodejs)"
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}
    done = subprocess.run(
        [node, str(CLIENT), str(ts_acp), json.dumps([agentui_bin, "acp"]), str(project)],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert seen["errors"] == [], done.stderr[-2000:]
    assert schema_problems(ts_acp, seen["toAgent"], seen["fromAgent"]) == []
    assert (project / "hello.txt").read_text() == "hi\n"
    kinds = [update["sessionUpdate"] for update in seen["updates"]]
    assert {"available_commands_update", "usage_update", "tool_call", "tool_call_update"} <= set(kinds)
    started = next(update for update in seen["updates"] if update["sessionUpdate"] == "tool_call")
    diff = started["content"][0]
    assert diff["type"] == "diff" and diff["path"] == str(project / "hello.txt") and diff["newText"] == "hi\n"
    assert diff.get("oldText") is None  # (a new file)
    asked = seen["asked"][0]
    assert asked["toolCall"]["content"][0]["type"] == "diff"
    # The write went through the editor's files; the command's output reached it as a terminal's.
    assert seen["written"] == [[str(project / "hello.txt"), "hi\n"]]
    mine = [update for update in seen["updates"] if update.get("toolCallId") == "b1"]
    assert mine[0]["content"] == [{"type": "terminal", "terminalId": "b1"}]
    assert any(update.get("_meta", {}).get("terminal_output", {}).get("data", "").strip() == "hi" for update in mine), (
        mine
    )
    assert mine[-1]["_meta"]["terminal_exit"]["exit_code"] == 0 and mine[-1]["status"] == "completed"
    responses = seen["responses"]
    assert responses["prompt"]["stopReason"] == "end_turn"
    assert [s["sessionId"] for s in responses["list"]["sessions"]] == [responses["new"]["sessionId"]]
    assert responses["fork"]["sessionId"] != responses["new"]["sessionId"]
    capabilities = responses["initialize"]["agentCapabilities"]["sessionCapabilities"]
    assert set(capabilities) >= {"list", "fork", "resume", "close"}
