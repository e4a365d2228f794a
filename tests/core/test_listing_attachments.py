"""Claude Code's listing attachments (agent types, skills): made as deltas of what a history has told, written as
`attachment` lines after the prompt's, read back onto the prompt, and sent as Claude Code 2.1.197's reminders."""

from __future__ import annotations

from pathlib import Path

from agentui.core.events import UserMessage
from agentui.core.extend.listings import Listings
from agentui.core.extend.skills import Skill
from agentui.core.messages import Message, TextBlock, ToolResultBlock
from agentui.core.session.attachments import agent_line, agent_listing, reminder, skill_listing, told, with_reminders
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.reader import load_session
from agentui.core.session.store import open_session
from agentui.core.tools.base import ToolRegistry
from agentui.core.tools.skill import Skill as SkillTool
from tests.support.sessions import lines

REVIEWER = agent_line("reviewer", "Reviews code", ("Read", "Grep"))


def test_the_first_listing_lists_everything_and_later_ones_only_what_changed() -> None:
    types = {"reviewer": REVIEWER, "Explore": agent_line("Explore", "Finds code", None)}
    first = agent_listing(types, set())
    assert first is not None
    assert first["addedTypes"] == ["Explore", "reviewer"] and first["isInitial"] and first["removedTypes"] == []
    assert first["addedLines"] == ["- Explore: Finds code (Tools: *)", "- reviewer: Reviews code (Tools: Read, Grep)"]
    assert agent_listing(types, told([first])[0]) is None
    later = agent_listing({"reviewer": REVIEWER}, told([first])[0])
    assert later is not None and later["removedTypes"] == ["Explore"] and not later["isInitial"]
    assert told([first, later])[0] == {"reviewer"}
    skills = skill_listing({"greet": "Greets"}, set())
    assert skills == {"type": "skill_listing", "content": "- greet: Greets", "skillCount": 1, "isInitial": True,
                      "names": ["greet"]}  # fmt: skip
    assert skill_listing({"greet": "Greets"}, told([skills])[1]) is None


def test_the_reminders_are_claude_codes_words() -> None:
    first = agent_listing({"reviewer": REVIEWER}, set())
    assert first is not None
    assert reminder(first) == (
        "<system-reminder>\nAvailable agent types for the Agent tool:\n"
        "- reviewer: Reviews code (Tools: Read, Grep)\n\n"
        "When you launch multiple agents for independent work, send them in a single message with multiple tool uses "
        "so they run concurrently.\n</system-reminder>"
    )
    changed = agent_listing({"reviewer": REVIEWER, "fixer": agent_line("fixer", "Fixes", None)}, {"reviewer", "old"})
    assert changed is not None
    assert reminder(changed) == (
        "<system-reminder>\nNew agent types are now available for the Agent tool:\n- fixer: Fixes (Tools: *)\n\n"
        "The following agent types are no longer available:\n- old\n\n"
        "This is ambient context \u2014 do not narrate it to the user unless they ask or it is directly relevant to "
        "their request.\n</system-reminder>"
    )
    skills = skill_listing({"greet": "Greets"}, set())
    assert skills is not None
    assert reminder(skills) == (
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- greet: Greets\n"
        "</system-reminder>"
    )
    assert reminder({"type": "hook_success", "content": "x"}) is None


def test_reminders_go_before_a_prompt_and_after_tool_results() -> None:
    listed = skill_listing({"greet": "Greets"}, set())
    assert listed is not None
    prompt = Message(role="user", content=[TextBlock(text="hi")], attachments=(listed,))
    results = Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="ok")], attachments=(listed,))
    sent_prompt, sent_results = with_reminders([prompt, results])
    assert [type(b).__name__ for b in sent_prompt.content] == ["TextBlock", "TextBlock"]
    assert sent_prompt.content[1] == TextBlock(text="hi") and "greet" in sent_prompt.text
    assert isinstance(sent_results.content[0], ToolResultBlock) and len(sent_results.content) == 2
    assert prompt.content == [TextBlock(text="hi")]  # (the history keeps the prompt as typed)
    # Moved up past the person's messages before the prompt (a command's record), not past an answer.
    record = Message.user("<command-name>/review</command-name>")
    answer = Message(role="assistant", content=[TextBlock(text="ok")])
    sent = with_reminders([Message.user("before"), answer, record, prompt])
    assert [m.text for m in sent[:2]] == ["before", "ok"]
    assert sent[2].content[0] == TextBlock(text=str(reminder(listed))) and sent[3].content == prompt.content


def test_a_prompts_listings_are_written_after_it_and_read_back_onto_it(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    session = open_session(SessionRequest(), cwd, env=env)
    tools = ToolRegistry([SkillTool(dict, lambda rules, source: [], lambda: True)])
    assert Listings(ToolRegistry(), [Skill("greet", "Greets", cwd / "SKILL.md")])([]) == []  # (no Skill tool: none)
    listed = Listings(tools, [Skill("greet", "Greets", cwd / "SKILL.md")])([])
    assert [a["type"] for a in listed] == ["skill_listing"]  # (no Agent tool: no agent listing)
    prompt = Message(role="user", content=[TextBlock(text="hello")], attachments=tuple(listed))
    session.writer.handle(UserMessage(session_id=session.session_id, message=prompt, source="prompt"))
    session.writer.close()
    written = [e for e in lines(session.path) if e.get("type") in ("user", "attachment")]
    assert [e["type"] for e in written] == ["user", "attachment"]
    assert written[0]["message"]["content"] == "hello" and written[1]["parentUuid"] == written[0]["uuid"]
    assert written[1]["attachment"] == listed[0] and "promptId" not in written[1]
    assert list(written[1])[:4] == ["parentUuid", "isSidechain", "attachment", "type"]
    (loaded,) = load_session(session.path).messages
    assert loaded.attachments == tuple(listed) and loaded.text == "hello"
    assert Listings(tools, [Skill("greet", "Greets", cwd / "SKILL.md")])([loaded]) == []
