"""The commands a front end gives a conversation (DESIGN: the front-end surface), on a real project and session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.permissions.rules import RuleError
from agentui.core.settings import Settings


@pytest.fixture
def conversation(tmp_path: Path) -> Conversation:
    (tmp_path / "project").mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        settings=Settings(provider="scripted", model="scripted"),
        cwd=tmp_path / "project",
        permissions=PermissionOptions(mode="bypassPermissions"),
    )
    return open_conversation(launch, provider=ScriptedProvider([]), env=env)


async def test_mode_model_and_rules_are_set_through_commands(conversation: Conversation) -> None:
    assert conversation.mode == "bypassPermissions"
    assert [conversation.cycle_mode() for _ in range(4)] == ["default", "acceptEdits", "plan", "bypassPermissions"]
    conversation.set_mode("plan")
    assert conversation.project.engine.mode == "plan"
    conversation.set_model("other-model")
    assert conversation.model == "other-model" and conversation.agent.config.model == "other-model"
    path = conversation.add_rule("deny", "Bash(rm:*)")
    assert json.loads(path.read_text())["permissions"]["deny"] == ["Bash(rm:*)"]
    assert ("deny", "Bash(rm:*)", "local") in conversation.rules()
    with pytest.raises(RuleError):
        conversation.add_rule("allow", "Bash(unclosed")
    await conversation.aclose()


@pytest.mark.parametrize("available", [False, True])
async def test_bypass_is_in_the_cycle_only_when_the_launch_makes_it_available(tmp_path: Path, available: bool) -> None:
    (tmp_path / "project").mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        settings=Settings(provider="scripted", model="scripted"),
        cwd=tmp_path / "project",
        permissions=PermissionOptions(bypass_available=available),
    )
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    assert conversation.mode == "default"  # (--allow-dangerously-skip-permissions: there to switch to, not first)
    cycle = [conversation.cycle_mode() for _ in range(4)]
    assert cycle == (["acceptEdits", "plan", "bypassPermissions", "default"] if available
                     else ["acceptEdits", "plan", "default", "acceptEdits"])  # fmt: skip
    await conversation.aclose()


async def test_grants_last_until_taken_back_and_a_shell_command_joins_the_conversation(
    conversation: Conversation,
) -> None:
    problems = conversation.grant_for_run(["Bash(make:*)", "Bash(broken"], "command /build")
    assert len(problems) == 1 and "ignored" in problems[0]
    assert ("allow", "Bash(make:*)", "command /build") in conversation.rules()
    conversation.end_grants()
    assert ("allow", "Bash(make:*)", "command /build") not in conversation.rules()
    (conversation.root / "data.csv").write_text("x")
    seen: list[str] = []
    outcome = await conversation.run_shell("ls", seen.append)
    assert outcome.output == "data.csv" and not outcome.is_error and seen
    assert conversation.agent.messages[-1].text == "<bash-input>ls</bash-input>\n<bash-stdout>data.csv</bash-stdout>"
    await conversation.aclose()
