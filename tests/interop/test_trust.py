"""Project trust as Claude Code keeps it: a project trusted in `$CLAUDE_CONFIG_DIR/.claude.json` has its own hooks
and allow rules applied by agentui as by Claude Code; an untrusted one has neither its allow rules (in both) nor,
in agentui, its hooks (Claude Code's print mode runs an untrusted project's hooks: agentui does not run a
repository's commands that no one approved)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer


@pytest.fixture(params=["agentui", "claude"])
def cli(request: pytest.FixtureRequest, agentui_bin: str) -> str:
    return agentui_bin if request.param == "agentui" else str(request.getfixturevalue("claude_bin"))


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "untrusted"])
def test_trust_is_read_where_claude_code_keeps_it(
    cli: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, trusted: bool
) -> None:
    played(server, [[tool("b1", "Bash", command="touch allowed.txt")], [text("Done.")]])
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    hook = {"hooks": [{"type": "command", "command": f"touch {project / 'hook-ran'}"}]}
    settings = {"permissions": {"allow": ["Bash(touch allowed.txt)"]}, "hooks": {"UserPromptSubmit": [hook]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    (home / ".claude").mkdir(parents=True)
    if trusted:  # (where Claude Code keeps it when CLAUDE_CONFIG_DIR is set: not in $HOME/.claude.json)
        entry = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
        (home / ".claude" / ".claude.json").write_text(json.dumps(entry))
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    assert (project / "allowed.txt").exists() == trusted
    ran = (project / "hook-ran").exists()
    assert ran if trusted else ran == (cli != agentui_bin)
    if not trusted:
        assert "trust" in done.stderr  # (both say why the project's settings were not applied)
