"""Skills: found where Claude Code keeps them, listed to the model, and readable without asking."""

from __future__ import annotations

from pathlib import Path

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.extend.skills import load_skills
from agentui.core.messages import ToolUseBlock
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings


def skill(directory: Path, name: str, text: str) -> Path:
    path = directory / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_skills_come_from_the_users_and_the_projects_directories(tmp_path: Path) -> None:
    root, claude = tmp_path / "project", tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    skill(claude / "skills", "pdf", "---\nname: pdf-forms\ndescription: Fill in PDF forms with pypdf.\n---\n# PDF\n")
    skill(claude / "skills", "release", "---\ndescription: The user's release steps.\n---\nSteps.\n")
    skill(root / ".claude" / "skills", "release", "---\ndescription: This project's release steps.\n---\n")
    skill(root / ".claude" / "skills", "plain", "# Write changelogs\nBody.\n")
    found = {s.name: s for s in load_skills(root, env)}
    assert set(found) == {"pdf-forms", "release", "plain"}
    assert found["pdf-forms"].description == "Fill in PDF forms with pypdf."
    assert found["release"].description == "This project's release steps."  # the project's wins
    assert found["plain"].description == "Write changelogs"  # no front matter: the first line


def test_skills_are_listed_for_the_skill_tool_and_their_files_read_without_asking(tmp_path: Path) -> None:
    root, claude = tmp_path / "project", tmp_path / "claude"
    root.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "HOME": str(tmp_path / "home")}
    path = skill(claude / "skills", "pdf", "---\nname: pdf\ndescription: Fill in PDF forms.\n---\nUse pypdf.\n")
    secret = skill(claude / "skills", "keys", "---\ndescription: Keys.\n---\nsecret\n")
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(disallowed_tools=(f"Read(//{str(secret).lstrip('/')})",)),
    )
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    assert "pdf" not in conversation.agent.config.system_prompt  # (listed in a reminder, for the Skill tool)
    [listing] = conversation.agent.services.listings([])[-1:]
    assert listing["type"] == "skill_listing" and "- pdf: Fill in PDF forms." in listing["content"]
    engine, tools = conversation.project.engine, conversation.project.tools
    read = tools.get("Read")
    assert read is not None
    for target, behavior in ((path, "allow"), (secret, "deny"), (tmp_path / "elsewhere.txt", "ask")):
        call = ToolUseBlock(id="t", name="Read", input={"file_path": str(target)})
        assert engine.check(read, read.Args.model_validate(call.input), call).behavior == behavior
    conversation.session.writer.close()
