"""The reference run: the same editor (the official TypeScript ACP client) and the same played model, once with
`agentui acp` and once with Zed's Claude Code adapter over the real, pinned Claude Code. A write asked about and
made, then a command: the updates an editor draws them from (the diff, the terminal with its output and exit) have
the same shape from both."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_acp_ts import CLIENT
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer


def editor_run(command: list[str], ts_acp: Path, server: LoopbackServer, home: Path, env: dict[str, str]) -> Any:
    project = home / "project"
    project.mkdir(parents=True)
    target = project / "hello.txt"
    played(server, [
        [text("Writing it."), tool("toolu_w1", "Write", file_path=str(target), content="hi\n")],
        [tool("toolu_b1", "Bash", command="cat hello.txt", description="Show it")],
        [text("Done.")],
    ])  # fmt: skip
    node = shutil.which("node")
    assert node, "node is needed for the TypeScript ACP library (apt-get install nodejs)"
    done = subprocess.run(
        [node, str(CLIENT), str(ts_acp), json.dumps(command), str(project), "prompt-only"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.stdout.strip(), done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["responses"].get("prompt", {}).get("stopReason") == "end_turn", (seen["errors"], done.stderr[-2000:])
    assert target.read_text() == "hi\n"
    return seen


def drawn(seen: dict[str, Any], target: str) -> dict[str, Any]:
    """What an editor draws the two calls from: the write's diff (where it was first shown, and in the question),
    the command's terminal, its output and its exit."""
    write = [u for u in seen["updates"] if u.get("toolCallId") == "toolu_w1"]
    command = [u for u in seen["updates"] if u.get("toolCallId") == "toolu_b1"]
    diffs = [block for u in write for block in u.get("content") or [] if block.get("type") == "diff"]
    [asked] = [a for a in seen["asked"] if a["toolCall"]["toolCallId"] == "toolu_w1"]
    output = "".join(u.get("_meta", {}).get("terminal_output", {}).get("data", "") for u in command)
    return {
        "diff": {key: diffs[0].get(key) for key in ("type", "path", "oldText", "newText")},
        "asked diff": asked["toolCall"]["content"][0]["type"],
        "command starts": [command[0]["sessionUpdate"], command[0]["kind"], command[0]["content"]],
        "terminal info": command[0]["_meta"]["terminal_info"],
        "output": output.rstrip("\n"),  # (live, the terminal gets the output as printed: its last line break too)
        "ends": [command[-1]["status"], command[-1]["content"], command[-1]["_meta"]["terminal_exit"]],
        "commands announced": "available_commands_update" in {u["sessionUpdate"] for u in seen["updates"]},
    }


def test_an_editor_draws_agentuis_writes_and_commands_as_it_draws_claude_codes_through_zeds_adapter(
    agentui_bin: str, claude_bin: str, zed_acp_bin: str, ts_acp: Path, server: LoopbackServer, tmp_path: Path
) -> None:
    theirs_home, ours_home = tmp_path / "claude", tmp_path / "agentui"
    env = {**claude_env(theirs_home, server.url), "CLAUDE_CODE_EXECUTABLE": os.path.realpath(claude_bin)}
    theirs = editor_run([zed_acp_bin], ts_acp, server, theirs_home, env)
    ours_env = {**claude_env(ours_home, server.url), "AGENTUI_CONFIG_DIR": str(ours_home / "agentui")}
    ours = editor_run([agentui_bin, "acp"], ts_acp, server, ours_home, ours_env)
    expected: dict[str, Any] = {
        "diff": {"type": "diff", "path": "{project}/hello.txt", "oldText": None, "newText": "hi\n"},
        "asked diff": "diff",
        "command starts": ["tool_call", "execute", [{"type": "terminal", "terminalId": "toolu_b1"}]],
        "terminal info": {"terminal_id": "toolu_b1"},
        "output": "hi",
        "ends": ["completed", [{"type": "terminal", "terminalId": "toolu_b1"}],
                 {"terminal_id": "toolu_b1", "exit_code": 0, "signal": None}],
        "commands announced": True,
    }  # fmt: skip
    for home, seen in ((theirs_home, theirs), (ours_home, ours)):
        target = str(home / "project" / "hello.txt")
        want = {**expected, "diff": {**expected["diff"], "path": target}}
        assert drawn(seen, target) == want, home.name
    # On purpose unlike the adapter: agentui writes through the editor that offers its files.
    assert ours["written"] == [[str(ours_home / "project" / "hello.txt"), "hi\n"]] and theirs["written"] == []
