"""Print mode's stream-json and json carry every field Claude Code 2.1.197 writes, in its order: the same scenarios
(a tool, a denied tool, max turns, partial messages) run on the real Claude Code CLI and on agentui against the
loopback model server, and each kind of line's field paths compared, with the timings and usage filled in."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer

AGENTUI_ONLY = {"agentui_version", "provider", "error"}
"""agentui's own additions (its version and provider in init; a failure's one sentence in the result)."""
SERVER_SHAPED = {"stop_sequence", "memory_paths.auto"}
"""Claude Code passes the server's own events on (the loopback server sends no `stop_sequence`; the real API does,
and agentui always writes it); `auto` is Claude Code's automatic memory, which agentui does not keep."""
SCENARIOS = {
    "tool": (lambda notes: [[text("Reading."), tool("t1", "Read", file_path=notes)], [text("Done.")]], ["Read"], []),
    "denied": (lambda notes: [[text("Writing."), tool("t1", "Bash", command="touch x")], [text("Done.")]], [], []),
    "max turns": (
        lambda notes: [[tool("t1", "Read", file_path=notes)], [text("Done.")]],
        ["Read"],
        ["--max-turns", "1"],
    ),
    "background": (
        lambda notes: [
            [tool("b1", "Bash", command="sleep 1; echo done", run_in_background=True)],
            [text("Started.")],
            [text("It is done.")],
        ],
        ["Bash"],
        [],
    ),
}
"""Each: the model's turns (given the path of a file in the project), the tools allowed, and more flags."""


def kind(line: dict[str, Any]) -> str:
    name = line["type"] + (f"/{line['subtype']}" if line.get("subtype") else "")
    if line.get("subtype") == "status":
        name += f":{line.get('status')}"
    if line["type"] == "stream_event":
        name += f":{line['event']['type']}"
    if line["type"] in ("assistant", "user") and isinstance(line["message"]["content"], list):
        name += ":" + ",".join(block["type"] for block in line["message"]["content"])
    return name


def paths(value: Any, prefix: str = "") -> list[str]:
    """Every field path, in order (a list's blocks by their position; what the model or a tool chose, not walked)."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        path = f"{prefix}{key}"
        found.append(path)
        if key not in (
            "input",
            "modelUsage",
            "tool_use_result",
            "tools",
            "slash_commands",
            "skills",
            "agents",
            "patch",
        ):
            found += paths(inner, path + ".")
    return found


def shapes(lines: list[dict[str, Any]]) -> dict[str, list[str]]:
    kept: dict[str, list[str]] = {}
    for line in lines:
        fields = [p for p in paths(line) if p.split(".")[-1] not in AGENTUI_ONLY | {"stop_sequence"}]
        kept.setdefault(kind(line), [p for p in fields if not any(p.endswith(s) for s in SERVER_SHAPED)])
    return kept


def run(cli: str, server: LoopbackServer, home: Path, scenario: str, partial: bool) -> tuple[int, list[Any]]:
    turns, allowed, flags = SCENARIOS[scenario]
    project = home / "project"
    project.mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    played(server, turns(str(project / "notes.txt")))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    more = [*(["--allowedTools", ",".join(allowed)] if allowed else []), *flags]
    more += ["--include-partial-messages"] if partial else []
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--output-format", "stream-json", "--verbose", *more],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("partial", [False, True], ids=["messages", "partial"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_line_has_claude_codes_fields_in_its_order(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, scenario: str, partial: bool
) -> None:
    theirs_code, theirs = run(claude_bin, server, tmp_path / "claude", scenario, partial)
    ours_code, ours = run(agentui_bin, server, tmp_path / "agentui", scenario, partial)
    assert ours_code == theirs_code
    expected, got = shapes(theirs), shapes(ours)
    assert set(got) == set(expected)
    for name, fields in expected.items():
        assert got[name] == fields, name
    # (with a refused call: Claude Code refuses it as its block ends, so its result comes before the message's end)
    assert [kind(line) for line in ours] == [kind(line) for line in theirs]
    result = ours[-1]
    if result["subtype"] == "success":
        assert result["time_to_request_ms"] <= result["ttft_stream_ms"] <= result["ttft_ms"] <= result["duration_ms"]
    assistant = next(line for line in ours if line["type"] == "assistant")
    assert assistant["message"]["usage"]["input_tokens"] == 12  # (the server's count as the answer began)


def test_claude_code_resuming_a_session_finds_the_background_commands_end(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """agentui's print mode waits for the background command, answers its `<task-notification>` and records it, so
    Claude Code resuming the session does not say it found no completion record."""
    code, lines = run(agentui_bin, server, tmp_path, "background", False)
    assert code == 0 and [line.get("result") for line in lines if line["type"] == "result"] == [
        "Started.",
        "It is done.",
    ]
    notification = next(line for line in lines if line.get("subtype") == "task_notification")
    assert notification["status"] == "completed" and notification["tool_use_id"] == "b1"
    played(server, [[text("Resumed.")]])
    env = {**claude_env(tmp_path, server.url), "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui")}
    resumed = subprocess.run(
        [claude_bin, "-p", "and now?", "--resume", lines[-1]["session_id"], "--model", "claude-sonnet-4-5"],
        cwd=tmp_path / "project", env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert resumed.stdout.strip() == "Resumed.", resumed.stderr
    sent = json.dumps(server.requests[-1].json()["messages"])
    assert "No completion record" not in sent and "<status>completed</status>" in sent


def test_a_refused_calls_result_comes_before_its_messages_end_for_an_sdk_program_too(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """Over stream-json input, with no permission callback, a call that needs permission is refused at once: its
    result comes between the tool_use block's end and the message's, in either tool."""
    kinds = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        home = tmp_path / name
        (home / "project").mkdir(parents=True)
        played(server, [[text("Writing."), tool("t1", "Bash", command="touch x")], [text("Done.")]])
        env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
        said = json.dumps({"type": "user", "message": {"role": "user", "content": "go"}, "parent_tool_use_id": None,
                           "session_id": ""})  # fmt: skip
        done = subprocess.run(
            [cli, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
             "--include-partial-messages", "--model", "claude-sonnet-4-5"],
            cwd=home / "project", env=env, input=said + "\n", capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        kinds[name] = [kind(json.loads(line)) for line in done.stdout.splitlines() if line.startswith("{")]
    assert kinds["agentui"] == kinds["claude"]
    result = kinds["claude"].index("user:tool_result")
    assert kinds["claude"][result - 1 : result + 2] == [
        "stream_event:content_block_stop",
        "user:tool_result",
        "stream_event:message_delta",
    ]
