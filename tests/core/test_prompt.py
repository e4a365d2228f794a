"""The system prompt: instructions and memory in the stable, cached part; environment facts after it."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

from agentui.core.context.memory import MemoryLoader
from agentui.core.context.prompt import BASE_INSTRUCTIONS, build_system_prompt, git_facts
from agentui.core.messages import Message
from agentui.core.providers.anthropic import build_body as anthropic_body
from agentui.core.providers.base import ProviderRequest, ToolSpec
from agentui.core.providers.openai import build_body as openai_body


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, check=True, capture_output=True
    )


def test_stable_part_holds_instructions_then_memory_and_the_volatile_part_the_environment(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("Always run `make lint`.")
    memory = MemoryLoader(tmp_path, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}).load()
    prompt = build_system_prompt(
        tmp_path, memory, append="Answer in French.", today=datetime.date(2026, 11, 22), git=""
    )
    assert prompt.stable.startswith(BASE_INSTRUCTIONS)
    assert (
        prompt.stable.index(BASE_INSTRUCTIONS)
        < prompt.stable.index("Answer in French.")
        < prompt.stable.index("Always run `make lint`.")
    )
    assert str(tmp_path / "CLAUDE.md") in prompt.stable
    assert "2026-11-22" not in prompt.stable and str(tmp_path) not in prompt.stable.replace(
        str(tmp_path / "CLAUDE.md"), ""
    )
    assert f"Working directory: {tmp_path}" in prompt.volatile
    assert "Today's date: 2026-11-22" in prompt.volatile
    assert "Git repository: no" in prompt.volatile


def test_a_custom_system_prompt_replaces_the_instructions_but_keeps_memory(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("Project rule.")
    memory = MemoryLoader(tmp_path, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}).load()
    prompt = build_system_prompt(tmp_path, memory, base="You are a pirate.", git="")
    assert prompt.stable.startswith("You are a pirate.")
    assert BASE_INSTRUCTIONS not in prompt.stable and "Project rule." in prompt.stable


def test_git_facts_name_the_branch_and_count_changes(tmp_path: Path) -> None:
    assert git_facts(tmp_path) == ""
    git(tmp_path, "init", "-q", "-b", "trunk")
    (tmp_path / "a.txt").write_text("a")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "first")
    assert git_facts(tmp_path) == "trunk; clean"
    (tmp_path / "a.txt").write_text("changed")
    (tmp_path / "new.txt").write_text("new")
    assert git_facts(tmp_path) == "trunk; 1 changed, 1 untracked"
    assert "Git repository: yes, trunk; 1 changed, 1 untracked" in build_system_prompt(tmp_path).volatile


def request(**fields: object) -> ProviderRequest:
    return ProviderRequest(
        model="m",
        system="STABLE",
        system_volatile="VOLATILE",
        messages=(Message.user("hi"),),
        tools=(ToolSpec("Read", "reads", {"type": "object"}),),
        **fields,
    )  # type: ignore[arg-type]


def test_anthropic_caches_tools_the_stable_system_block_and_the_last_message_but_not_the_environment() -> None:
    body = json.loads(anthropic_body(request()))
    assert body["system"] == [
        {"type": "text", "text": "STABLE", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "VOLATILE"},
    ]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_openai_sends_one_system_message_stable_part_first() -> None:
    body = json.loads(openai_body(request()))
    assert body["messages"][0] == {"role": "system", "content": "STABLE\n\nVOLATILE"}
