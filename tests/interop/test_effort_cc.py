"""--effort and --max-thinking-tokens on the Messages API, model by model, as Claude Code 2.1.197 sends them: the
effort in `output_config` with its beta where the model has the control (clamped to the levels it has), nothing
where it has none, and adaptive thinking on the models that think adaptively."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text
from tests.support.loopback import LoopbackServer


def sent(cli: str, server: LoopbackServer, home: Path, model: str, effort: str) -> dict[str, Any]:
    project = home / "project"
    project.mkdir(parents=True)
    seen = played(server, [[text("Hi.")]])
    environ = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "hi", "--model", model, "--effort", effort, "--max-thinking-tokens", "5000"],
        cwd=project, env=environ, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    body = seen[0].json()
    betas = seen[0].headers.get("anthropic-beta", "").split(",")
    return {
        "output_config": body.get("output_config"),
        "effort beta": "effort-2025-11-24" in betas,
        "thinking": body.get("thinking"),
    }


@pytest.mark.parametrize(
    ("model", "effort"),
    [
        ("claude-opus-4-8", "max"),
        ("claude-sonnet-5", "low"),
        ("claude-sonnet-4-6", "xhigh"),
        ("claude-opus-4-5", "max"),
        ("claude-sonnet-4-5", "high"),
        ("claude-haiku-4-5", "medium"),
    ],
)
def test_effort_and_thinking_are_sent_as_claude_code_sends_them(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, model: str, effort: str
) -> None:
    theirs = sent(claude_bin, server, tmp_path / "claude", model, effort)
    ours = sent(agentui_bin, server, tmp_path / "agentui", model, effort)
    assert ours == theirs


@pytest.mark.parametrize(
    ("settings", "flags"),
    [
        ({"model": "opus", "effortLevel": "low"}, []),  # (Opus 4.8 starts at its own effort: the setting is not used)
        ({"model": "sonnet", "effortLevel": "low"}, []),
        ({"model": "sonnet", "effortLevel": "xhigh"}, []),
        ({"model": "haiku", "effortLevel": "high"}, ["--model", "opus", "--effort", "medium"]),  # (flags first)
    ],
)
def test_the_model_and_effort_settings_choose_as_in_claude_code(
    claude_bin: str,
    agentui_bin: str,
    server: LoopbackServer,
    tmp_path: Path,
    settings: dict[str, str],
    flags: list[str],
) -> None:
    """A Claude Code settings file's `model` and `effortLevel` hold in agentui too (its `"model": "opus"` was
    ignored), under --model and --effort."""
    import json

    found = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        home = tmp_path / name
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_text(json.dumps(settings))
        (home / "project").mkdir()
        seen = played(server, [[text("Hi.")]])
        environ = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
        done = subprocess.run(
            [cli, "-p", "hi", *flags],
            cwd=home / "project", env=environ, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        body = seen[0].json()
        # (Claude Code writes out the API's default effort, high, where agentui leaves it to the API)
        found[name] = (body["model"], body.get("output_config") or {"effort": "high"})
    assert found["agentui"] == found["claude"]
