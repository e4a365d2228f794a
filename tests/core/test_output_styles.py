"""Output styles as Claude Code 2.1.197 has them: the `outputStyle` setting picks a built-in style or one of the
person's or the project's files, whose prompt joins the system prompt as Claude Code's does; a style of the person's
replaces the coding instructions unless it keeps them; a project's styles and setting wait for trust; /output-style's
choice is saved and in force from the next request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.context.prompt import BASE_INSTRUCTIONS, CODING_INSTRUCTIONS, STYLED_INTRO
from agentui.core.conversation import Conversation, Launch
from agentui.core.extend.output_styles import OutputStyleError, load_output_styles
from agentui.core.instructions import use_output_style
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.trust import trust
from agentui.core.settings import Settings

PIRATE = "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAlways answer like a pirate.\n"
KEEPER = "---\nname: Keeper\ndescription: Keeps coding\nkeep-coding-instructions: true\n---\nBe terse.\n"


def env_of(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
            "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui"), "AGENTUI_DATA_DIR": str(tmp_path / "data")}  # fmt: skip


def opened(tmp_path: Path, *, settings: dict[str, object] | None = None, trusted: bool = False) -> Conversation:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    if settings is not None:
        (root / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    env = env_of(tmp_path)
    if trusted:
        trust(root, env)
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root)
    return open_conversation(launch, provider=ScriptedProvider([]), env=env)


def styles_dir(base: Path, files: dict[str, str]) -> None:
    (base / "output-styles").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (base / "output-styles" / name).write_text(text)


def test_without_a_style_the_instructions_are_agentuis_own(tmp_path: Path) -> None:
    conversation = opened(tmp_path)
    assert conversation.agent.config.system_prompt.startswith(BASE_INSTRUCTIONS)
    assert "Output Style" not in conversation.agent.config.system_prompt
    conversation.session.writer.close()


def test_a_built_in_style_keeps_the_coding_instructions_and_follows_them(tmp_path: Path) -> None:
    conversation = opened(tmp_path, settings={"outputStyle": "Explanatory"}, trusted=True)
    prompt = conversation.agent.config.system_prompt
    assert prompt.startswith(STYLED_INTRO) and CODING_INSTRUCTIONS in prompt
    assert "\n\n# Output Style: Explanatory\nYou are an interactive CLI tool that helps users" in prompt
    assert "`★ Insight ─────" in prompt
    conversation.session.writer.close()


def test_a_persons_style_replaces_the_coding_instructions_unless_it_keeps_them(tmp_path: Path) -> None:
    styles_dir(tmp_path / "claude", {"pirate.md": PIRATE, "keeper.md": KEEPER})
    (tmp_path / "claude" / "settings.json").write_text(json.dumps({"outputStyle": "Pirate"}))
    conversation = opened(tmp_path)  # (the person's own setting and style: no trust needed)
    prompt = conversation.agent.config.system_prompt
    assert CODING_INSTRUCTIONS not in prompt and "# Output Style: Pirate\nAlways answer like a pirate." in prompt
    assert use_output_style(conversation, "keeper") is not None  # (any case)
    prompt = conversation.agent.config.system_prompt
    assert CODING_INSTRUCTIONS in prompt and prompt.index(CODING_INSTRUCTIONS) < prompt.index("# Output Style: Keeper")
    saved = json.loads((conversation.root / ".claude" / "settings.local.json").read_text())
    assert saved == {"outputStyle": "Keeper"}
    with pytest.raises(OutputStyleError, match="no output style named 'Parrot'"):
        use_output_style(conversation, "Parrot")
    conversation.session.writer.close()


def test_a_projects_styles_and_setting_wait_for_trust(tmp_path: Path) -> None:
    styles_dir(tmp_path / "project" / ".claude", {"pirate.md": PIRATE})
    untrusted = opened(tmp_path, settings={"outputStyle": "Pirate"})
    assert "Pirate" not in load_output_styles(untrusted.root, untrusted.env, False)
    assert untrusted.agent.config.system_prompt.startswith(BASE_INSTRUCTIONS)
    untrusted.session.writer.close()
    trusted = opened(tmp_path, settings={"outputStyle": "Pirate"}, trusted=True)
    assert "# Output Style: Pirate\nAlways answer like a pirate." in trusted.agent.config.system_prompt
    assert load_output_styles(trusted.root, trusted.env, True)["Pirate"].source == "project"
    trusted.session.writer.close()
