"""The agent types and skills listed to the model, as Claude Code 2.1.197 lists them: `attachment` lines after the
first prompt (agent_listing_delta, skill_listing), which each tool turns back into the same system reminders when it
resumes the session, whichever tool wrote it. The setup is one custom agent and one skill in the project; each tool
has agents and skills of its own besides (Claude Code's Explore, Plan, bundled skills...), so what is compared is
the shape of the lines and the entries for the project's agent and skill."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.interop.test_round_trips import World, text

AGENT = "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\n---\nYou review code.\n"
SKILL = "---\nname: greet\ndescription: Greets the person warmly\n---\nSay hello.\n"
OURS = ("- reviewer: Reviews code for bugs (Tools: Read, Grep)", "- greet: Greets the person warmly")
"""The project's agent and skill, as both tools list them."""


@pytest.fixture
def listed(world: World) -> World:
    (world.project / ".claude" / "agents").mkdir(parents=True)
    (world.project / ".claude" / "agents" / "reviewer.md").write_text(AGENT)
    (world.project / ".claude" / "skills" / "greet").mkdir(parents=True)
    (world.project / ".claude" / "skills" / "greet" / "SKILL.md").write_text(SKILL)
    world.play(lambda body: [text("Resumed." if "and now?" in json.dumps(body["messages"][-1]) else "Hi.")])
    return world


def session_lines(world: World, session_id: str) -> list[dict[str, Any]]:
    (path,) = (world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def chained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation's lines (user, attachment, assistant) in file order."""
    return [line for line in lines if line.get("type") in ("user", "attachment", "assistant")]


def test_the_listing_lines_are_written_as_claude_code_writes_them(listed: World) -> None:
    written = {}
    for maker in ("claude", "agentui"):
        session_id = json.loads(listed.run(maker, "hello").stdout)["session_id"]
        written[maker] = chained(session_lines(listed, session_id))
    for maker, lines in written.items():
        assert [line["type"] for line in lines] == ["user", "attachment", "attachment", "assistant"], maker
        assert all(line["parentUuid"] == before["uuid"] for before, line in itertools.pairwise(lines)), maker
        agents, skills = lines[1]["attachment"], lines[2]["attachment"]
        assert agents["type"] == "agent_listing_delta" and skills["type"] == "skill_listing", maker
        assert OURS[0] in agents["addedLines"] and "reviewer" in agents["addedTypes"], maker
        assert agents["addedTypes"] == [line.split(":")[0][2:] for line in agents["addedLines"]], maker
        assert agents["removedTypes"] == [] and agents["isInitial"] and agents["showConcurrencyNote"], maker
        assert OURS[1] in skills["content"].splitlines() and "greet" in skills["names"], maker
        assert skills["isInitial"] and skills["skillCount"] == len(skills["names"]), maker
    theirs, ours = written["claude"], written["agentui"]
    for their, our in zip(theirs[1:3], ours[1:3], strict=True):
        assert set(our) == set(their), set(our) ^ set(their)
        assert set(our["attachment"]) == set(their["attachment"])
        assert list(our) == list(their)  # (the envelope in Claude Code's order)


def reminders_before(messages: list[dict[str, Any]], prompt: str) -> list[str]:
    """The listing reminders of the user message that holds `prompt`, each with its entries other than the
    project's agent and skill left out (each tool has its own besides)."""
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "user" and any(b.get("text") == prompt for b in blocks):
            return [ours_only(b["text"].rstrip("\n")) for b in blocks if listing(b)]
    raise AssertionError(f"no user message says {prompt!r}")


def ours_only(reminder: str) -> str:
    """A listing with the entries other than the project's agent and skill left out: in each paragraph that lists,
    what comes before its first entry, then the project's entries (an entry may run over several lines)."""
    kept = []
    for paragraph in reminder.split("\n\n"):
        lines = paragraph.splitlines()
        first = next((at for at, line in enumerate(lines) if line.startswith("- ")), len(lines))
        kept.append("\n".join([*lines[:first], *(line for line in lines[first:] if line in OURS)]))
    return "\n\n".join(kept)


def listing(block: dict[str, Any]) -> bool:
    """A reminder listing agent types or skills."""
    said = str(block.get("text", ""))
    return said.startswith("<system-reminder>") and ("agent types" in said or "skills are available" in said)


def resumed_request(world: World, tool: str, session_id: str) -> list[dict[str, Any]]:
    world.server.requests.clear()
    world.run(tool, "and now?", "--resume", session_id, "--fork-session")
    first = next(r.json() for r in world.server.requests if "tools" in r.json())
    return list(first["messages"])


def test_claude_code_resuming_agentuis_session_is_told_what_resuming_its_own_tells_it(listed: World) -> None:
    sent = {}
    for maker in ("claude", "agentui"):
        session_id = json.loads(listed.run(maker, "hello").stdout)["session_id"]
        sent[maker] = resumed_request(listed, "claude", session_id)
    theirs, ours = (reminders_before(sent[maker], "hello") for maker in ("claude", "agentui"))
    assert ours == theirs
    assert [text.splitlines()[1] for text in theirs] == [
        "Available agent types for the Agent tool:",
        "The following skills are available for use with the Skill tool:",
    ]
    assert all(line in "\n".join(ours) for line in OURS)


@pytest.mark.parametrize("maker", ["claude", "agentui"])
def test_agentui_resuming_a_session_sends_its_listings_as_claude_code_does(listed: World, maker: str) -> None:
    session_id = json.loads(listed.run(maker, "hello").stdout)["session_id"]
    theirs, ours = (resumed_request(listed, tool, session_id) for tool in ("claude", "agentui"))

    def listings(messages: list[dict[str, Any]]) -> list[str]:  # (whole, word for word)
        hello = next(m for m in messages if "hello" in json.dumps(m))
        return [b["text"].rstrip("\n") for b in hello["content"] if listing(b)]

    assert listings(ours) == listings(theirs) and len(listings(ours)) == 2
    if maker == "agentui":  # (and it says nothing new of them with the next prompt: they are told)
        said = json.dumps(ours[-1])
        assert "agent types" not in said and "skills are available" not in said


def test_claude_codes_listing_reminders_are_read_from_a_fixture() -> None:
    """A session of Claude Code 2.1.114's own: its skill_listing becomes the reminder Claude Code sends for it."""
    from agentui.core.session.reader import load_session

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"
    (path,) = fixture.glob("-experiments-worktrees/ef958aa1-*.jsonl")
    loaded = load_session(path)
    first = loaded.messages[0]
    assert [a["type"] for a in first.attachments] == ["skill_listing"]
    assert first.attachments[0]["content"].startswith("- update-config: ")
