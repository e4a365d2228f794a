"""What one answer may have, when nothing names it: the `max_tokens` each CLI asks the Messages API for, model by
model, and the model's `maxOutputTokens` its json result reports; and CLAUDE_CODE_MAX_OUTPUT_TOKENS over what is
asked for."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text
from tests.support.loopback import LoopbackServer


def asked_and_reported(
    cli: str, server: LoopbackServer, home: Path, model: str, env: dict[str, str]
) -> tuple[int, int]:
    project = home / "project"
    project.mkdir(parents=True)
    seen = played(server, [[text("Hi.")]])
    environ = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui"), **env}
    done = subprocess.run(
        [cli, "-p", "hi", "--model", model, "--output-format", "json"],
        cwd=project, env=environ, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [usage] = json.loads(done.stdout)["modelUsage"].values()
    return seen[0].json()["max_tokens"], usage["maxOutputTokens"]


@pytest.mark.parametrize(
    ("model", "env"),
    [
        ("claude-sonnet-4-5", {}),
        ("claude-opus-4-6", {}),
        ("claude-3-5-haiku-20241022", {}),
        ("claude-3-haiku-20240307", {}),
        ("claude-sonnet-4-5", {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "1000"}),
    ],
    ids=["sonnet-4-5", "opus-4-6", "haiku-3-5", "haiku-3", "named"],
)
def test_each_model_gets_the_output_claude_code_asks_for(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, model: str, env: dict[str, str]
) -> None:
    theirs = asked_and_reported(claude_bin, server, tmp_path / "claude", model, env)
    ours = asked_and_reported(agentui_bin, server, tmp_path / "agentui", model, env)
    assert ours == theirs  # (with the variable: that many asked for, and the model's own reported, as Claude Code)
