"""The request for a built-in Explore sub-agent, from agentui and from the real Claude Code, on the same played model:
the same small, fast model, and the same tools withheld from it (of the tools both offer)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer

EVERY_SUB_AGENTS = {"TaskOutput"}
"""What Claude Code withholds from every sub-agent, not only Explore (agentui gives its sub-agents TaskOutput)."""


def explore_requests(cli: str, server: LoopbackServer, home: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parent's first request and the Explore sub-agent's, from one `-p` run."""
    project = home / "project"
    project.mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    call = tool("t1", "Agent", description="Find notes", prompt="Find the notes file", subagent_type="Explore")
    seen = played(server, [[call], [text("notes.txt")], [text("Done.")]])
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", "Agent"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    parent, child = seen[0].json(), seen[1].json()
    assert "Find the notes file" in json.dumps(child["messages"][0]) and "Find the notes file" not in json.dumps(
        parent["messages"]
    )
    return parent, child


def names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body["tools"]}


def test_an_explore_sub_agent_gets_claude_codes_model_and_tools(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    ours_parent, ours = explore_requests(agentui_bin, server, tmp_path / "agentui")
    theirs_parent, theirs = explore_requests(claude_bin, server, tmp_path / "claude")
    assert ours["model"] == theirs["model"] == "claude-haiku-4-5-20251001"
    assert ours_parent["model"] == theirs_parent["model"] == "claude-sonnet-4-5"
    both = names(ours_parent) & names(theirs_parent) - EVERY_SUB_AGENTS
    assert {"Agent", "Edit", "Write", "NotebookEdit", "Read", "Bash"} <= both
    withheld_ours, withheld_theirs = (
        (names(ours_parent) - names(ours)) & both,
        (names(theirs_parent) - names(theirs)) & both,
    )
    assert withheld_ours == withheld_theirs == {"Agent", "Edit", "Write", "NotebookEdit"}
