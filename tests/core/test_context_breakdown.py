"""`context_breakdown`: the parts of what the next request carries add up to the meter's count (the status bar's),
before any answer, after one, after a compaction and when the provider counts less than the estimate; and the grid
of cells is laid out as Claude Code lays it out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.context.breakdown import ContextBreakdown, Part, context_breakdown
from agentui.core.conversation import Conversation, Launch
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.run_options import ModelOptions
from agentui.core.settings import Settings


def opened(tmp_path: Path, script: list[dict[str, Any]], **options: Any) -> Conversation:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    settings = Settings(provider="scripted", model="claude-sonnet-4-5", options=ModelOptions(**options))
    return open_conversation(Launch(settings=settings, cwd=project), provider=ScriptedProvider(script), env=env)


def adds_up(breakdown: ContextBreakdown) -> bool:
    return sum(part.tokens for part in breakdown.parts) == breakdown.used


async def test_before_any_answer_every_part_is_counted_as_the_next_request_carries_it(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "CLAUDE.md").write_text("Always answer in French.\n" * 20)
    conversation = opened(tmp_path, [])
    breakdown = context_breakdown(conversation)
    assert not breakdown.measured and adds_up(breakdown)
    assert [part.kind for part in breakdown.parts] == ["system_prompt", "system_tools", "memory"]
    [memory] = breakdown.memory_files
    counter = conversation.agent.history.meter.counter
    assert memory.tokens == counter.count(
        f"Contents of {memory.path}:\n\n" + ("Always answer in French.\n" * 20).strip()
    )
    # the prompt's share is the system prompt and the environment without the memory it holds
    config = conversation.agent.config
    assert breakdown.parts[0].tokens == counter.count(config.system_prompt) + counter.count(config.environment) - (
        memory.tokens
    )
    assert breakdown.window == 200_000 and breakdown.buffer == 20_000
    assert breakdown.free == 200_000 - breakdown.used - 20_000
    await conversation.aclose()


async def test_after_an_answer_the_total_is_the_providers_count_and_messages_are_the_rest(tmp_path: Path) -> None:
    conversation = opened(tmp_path, [{"text": "Bonjour.", "usage": {"input_tokens": 9_000, "output_tokens": 20}}])
    await conversation.send("hello")
    breakdown = context_breakdown(conversation)
    assert breakdown.measured and breakdown.used == 9_020 == conversation.agent.context_tokens and adds_up(breakdown)
    fixed = sum(part.tokens for part in breakdown.parts if part.kind != "messages")
    assert breakdown.parts[-1] == Part("messages", 9_020 - fixed)
    assert breakdown.percent == 4.5
    await conversation.aclose()


async def test_a_provider_that_counts_less_than_the_estimate_scales_the_parts_down_to_its_count(
    tmp_path: Path,
) -> None:
    conversation = opened(tmp_path, [{"text": "ok", "usage": {"input_tokens": 700, "output_tokens": 10}}])
    await conversation.send("hello")
    breakdown = context_breakdown(conversation)
    assert breakdown.used == 710 and adds_up(breakdown)
    assert "messages" not in [part.kind for part in breakdown.parts]
    await conversation.aclose()


async def test_after_a_compaction_the_estimate_is_the_meters_again(tmp_path: Path) -> None:
    script = [
        {"text": "First answer. " * 50, "usage": {"input_tokens": 9_000, "output_tokens": 200}},
        {"text": "Second answer.", "usage": {"input_tokens": 9_500, "output_tokens": 20}},
        {"text": "They asked twice."},  # the summary
    ]
    conversation = opened(tmp_path, script)
    await conversation.send("one")
    await conversation.send("two")
    await conversation.compact()
    breakdown = context_breakdown(conversation)
    assert not breakdown.measured and breakdown.used == conversation.agent.context_tokens and adds_up(breakdown)
    await conversation.aclose()


async def test_skills_listed_in_the_prompt_are_a_part_of_their_own(tmp_path: Path) -> None:
    skill = tmp_path / "project" / ".claude" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release\ndescription: Cut a release: tag, changelog, upload\n---\nSteps.\n"
    )
    conversation = opened(tmp_path, [])
    breakdown = context_breakdown(conversation)
    [skills] = [part for part in breakdown.parts if part.kind == "skills"]
    assert 20 < skills.tokens < 200 and adds_up(breakdown)
    await conversation.aclose()


async def test_without_automatic_compaction_there_is_no_buffer(tmp_path: Path) -> None:
    conversation = opened(tmp_path, [], auto_compact=False)
    breakdown = context_breakdown(conversation)
    assert breakdown.buffer == 0 and breakdown.free == 200_000 - breakdown.used
    assert all(cell.kind != "buffer" for row in breakdown.cells() for cell in row)
    await conversation.aclose()


def test_the_grid_has_each_parts_cells_in_order_then_the_free_space_then_the_buffer() -> None:
    breakdown = ContextBreakdown(
        model="m",
        window=200_000,
        used=33_000,
        parts=(Part("system_prompt", 300), Part("system_tools", 4_100), Part("messages", 28_600)),
        buffer=20_000,
        measured=True,
    )
    rows = breakdown.cells()
    assert len(rows) == 10 and all(len(row) == 10 for row in rows)
    cells = [cell for row in rows for cell in row]
    kinds = [cell.kind for cell in cells]
    # 0.15 of a cell is still one cell (partly full), 2.05 cells two, 14.3 cells fourteen
    assert kinds == ["system_prompt"] + ["system_tools"] * 2 + ["messages"] * 14 + ["free"] * 73 + ["buffer"] * 10
    assert cells[0].fullness == pytest.approx(0.15) and cells[1].fullness == 1.0 and cells[16].fullness == 1.0
    wide = breakdown.cells(columns=20)
    assert len(wide) == 10 and len(wide[0]) == 20 and sum(c.kind == "buffer" for row in wide for c in row) == 20


def test_a_window_not_known_draws_the_parts_as_shares_of_what_is_used() -> None:
    breakdown = ContextBreakdown("m", None, 1_000, (Part("system_prompt", 250), Part("messages", 750)), 0, False)
    kinds = [cell.kind for row in breakdown.cells() for cell in row]
    assert kinds == ["system_prompt"] * 25 + ["messages"] * 75
    assert breakdown.free is None and breakdown.percent is None and breakdown.share(250) == 25.0
