"""A task list shared across sessions, with Claude Code 2.1.197 on the other side: agentui keeps tasks in the list
`CLAUDE_CODE_TASK_LIST_ID` names, Claude Code's model lists them and adds one, and agentui's next session finds
Claude Code's task beside its own."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer


def run(cli: str, server: LoopbackServer, home: Path, turns: list[list[dict[str, Any]]]) -> list[Any]:
    seen = played(server, turns)
    environ = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui"),
               "CLAUDE_CODE_TASK_LIST_ID": "release goals"}  # fmt: skip
    done = subprocess.run(
        [cli, "-p", "go on with the goals", "--permission-mode", "acceptEdits"],
        cwd=home / "project", env=environ, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return seen


def result_of(request: Any, call_id: str) -> str:
    for message in request.json()["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                content = block["content"]
                return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    raise AssertionError(f"no result for {call_id}")


def test_claude_code_and_agentui_work_on_one_shared_task_list(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    run(agentui_bin, server, home, [
        [tool("c1", "TaskCreate", subject="Port the parser", description="to the new API")],
        [tool("c2", "TaskCreate", subject="Write the docs", description="for the release")],
        [tool("u1", "TaskUpdate", taskId="1", status="completed")],
        [text("Planned.")],
    ])  # fmt: skip

    seen = run(claude_bin, server, home, [
        [tool("l1", "TaskList")],
        [tool("c3", "TaskCreate", subject="Tag the release", description="after the docs")],
        [text("Added.")],
    ])  # fmt: skip
    listed = result_of(seen[1], "l1")
    assert "#1" in listed and "Port the parser" in listed and "#2" in listed and "Write the docs" in listed, listed
    assert "Task #3 created" in result_of(seen[2], "c3")

    seen = run(agentui_bin, server, home, [[tool("l2", "TaskList")], [text("Listed.")]])
    assert result_of(seen[1], "l2") == (
        "#1 [completed] Port the parser\n#2 [pending] Write the docs\n#3 [pending] Tag the release"
    )
