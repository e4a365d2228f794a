"""`agentui -p` with background shells and tasks, against a model played over loopback HTTP: the model reads the
ids the tools gave it, bad ids get one clear sentence, and nothing started in the background outlives the run."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.core.tools.test_bash import processes_with
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


def tool_call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def last_results(request: RecordedRequest) -> dict[str, dict[str, Any]]:
    """The tool results the request answers with, by tool_use id."""
    content = request.json()["messages"][-1]["content"]
    return {block["tool_use_id"]: block for block in content if block.get("type") == "tool_result"}


def text_of(result: dict[str, Any]) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def test_background_shells_and_tasks_in_print_mode(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    ids: dict[str, str] = {}
    server_output: list[Path] = []

    def model(request: RecordedRequest) -> Reply:
        turn = len(server.requests)
        if turn == 1:
            blocks = [
                tool_call("Bash", "quick", command="echo quick; exit 3", run_in_background=True),
                tool_call("Bash", "server", command="echo up; sleep 36.7107", run_in_background=True),
                tool_call("TaskCreate", "task", subject="Check the server", description="It answers"),
            ]
        elif turn == 2:
            results = last_results(request)
            for name in ("quick", "server"):
                found = re.search(r"with ID: (\w+)", text_of(results[name]))
                assert found, results[name]
                ids[name] = found.group(1)
            written = re.search(r"written to: (\S+\.output)", text_of(results["server"]))
            assert written, results["server"]
            server_output.append(Path(written.group(1)))
            blocks = [
                tool_call("TaskOutput", "read", task_id=ids["quick"], block=True, timeout=60000),
                tool_call("TaskOutput", "unknown", task_id="bnope", block=False, timeout=0),
                tool_call("TaskUpdate", "start", taskId="1", status="in_progress"),
            ]
        elif turn == 3:
            # The model looks once the server has said something (on a busy machine that can take a while).
            deadline = time.monotonic() + 60
            while b"up" not in server_output[0].read_bytes() and time.monotonic() < deadline:
                time.sleep(0.02)
            blocks = [
                tool_call("TaskStop", "stop_done", task_id=ids["quick"]),
                tool_call("TaskOutput", "peek", task_id=ids["server"], block=True, timeout=100),
                tool_call("TaskList", "list"),
            ]
        elif turn == 4:  # Claude Code 2.0's names for the same shells, and a task by its id
            blocks = [
                tool_call("BashOutput", "old_read", bash_id=ids["server"]),
                tool_call("TaskGet", "get", taskId="1"),
                tool_call("TaskGet", "get_unknown", taskId="99"),
                tool_call("KillShell", "old_kill", shell_id=ids["server"]),
            ]
        else:
            blocks = [{"type": "text", "text": "All checked."}]
        stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop))

    server.responder = model
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}
    done = subprocess.run(
        [agentui_bin, "-p", "start things", "--allowedTools", "Bash"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "All checked." and "Traceback" not in done.stderr

    second, third, fourth = (last_results(server.requests[n]) for n in (1, 2, 3))
    assert text_of(second["task"]) == "Task #1 created successfully: Check the server"
    read = text_of(third["read"])
    assert "<status>failed</status>" in read and "<exit_code>3</exit_code>" in read and "quick" in read
    assert third["unknown"]["is_error"] and text_of(third["unknown"]).startswith(
        "No background task found with ID: bnope"
    )
    assert text_of(third["start"]) == "Updated task #1 status"
    assert fourth["stop_done"]["is_error"] and "is not running (status: failed)" in text_of(fourth["stop_done"])
    peek = text_of(fourth["peek"])
    assert (
        "<retrieval_status>timeout</retrieval_status>" in peek and "<status>running</status>" in peek and "up" in peek
    )
    assert text_of(fourth["list"]) == "#1 [in_progress] Check the server"
    fifth = last_results(server.requests[4])
    assert text_of(fifth["old_read"]).startswith("<status>running</status>")
    assert "Check the server" in text_of(fifth["get"]) and not fifth["get"].get("is_error")
    assert fifth["get_unknown"]["is_error"] and "99" in text_of(fifth["get_unknown"])
    killed = json.loads(text_of(fifth["old_kill"]))  # (2.0's result: the message as JSON)
    assert killed["message"].startswith(f"Successfully killed shell: {ids['server']}")
    # The run is over: the server it started in the background has been stopped with it.
    assert processes_with("36.7107") == []
    offered = [tool["name"] for tool in server.requests[0].json()["tools"]]
    assert {"TaskOutput", "TaskStop", "TaskCreate", "Agent"} <= set(offered) and "TodoWrite" not in offered


def test_print_mode_stops_waiting_for_a_background_command_at_its_limit(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    """A command the run leaves running (a server) is waited for only so long; then it is stopped, and said."""
    marker = f"{3000 + int(time.time()) % 1000}.4321"
    replies = [
        [tool_call("Bash", "bg", command=f"sleep {marker}", run_in_background=True)],
        [{"type": "text", "text": "Started."}],
    ]
    server.responder = lambda request: Reply(
        chunks=anthropic_stream(replies.pop(0), stop_reason="tool_use" if len(replies) == 1 else "end_turn")
    )
    project = tmp_path / "project"
    project.mkdir()
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x", "AGENTUI_BACKGROUND_WAIT": "1"}
    done = subprocess.run(
        [agentui_bin, "-p", "start it", "--allowedTools", "Bash"],
        env=env, capture_output=True, text=True, timeout=120, cwd=project, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Started.", done.stderr
    assert "stopped waiting for 1 background command(s)." in done.stderr
    deadline = time.monotonic() + 60  # (stopped as agentui closed; on a busy machine the kernel may lag a little)
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []
