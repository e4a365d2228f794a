"""The Skill tool against the real Claude Code 2.1.197: for the same skill and the same played call, both tools send
the model the same result and the same instructions after it, and each resumes the other's session with them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.interop.test_round_trips import World, results_seen, text, tool

SKILL = "---\nname: greet\ndescription: Greets the person warmly\n---\nSay hello to $ARGUMENTS.\nSee ref.md here.\n"


@pytest.fixture
def skilled(world: World) -> World:
    (world.project / ".claude" / "skills" / "greet").mkdir(parents=True)
    (world.project / ".claude" / "skills" / "greet" / "SKILL.md").write_text(SKILL)
    (world.project / ".claude" / "skills" / "greet" / "ref.md").write_text("reference\n")
    turns = [[tool("s1", "Skill", skill="greet", args="Bob")], [text("Hello Bob.")]]
    world.play(lambda body: turns[min(results_seen(body), 1)] if "and now?" not in json.dumps(body) else [text("Ok.")])
    return world


def loaded(world: World) -> list[dict[str, Any]]:
    """The blocks of the user message that answers the Skill call, as the model got them."""
    for request in reversed(world.server.requests):
        for message in request.json().get("messages", []):
            content = message["content"]
            if isinstance(content, list) and any(b.get("tool_use_id") == "s1" for b in content):
                return [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
    raise AssertionError("no request answers the Skill call")


def test_both_send_the_skill_as_claude_code_does_and_resume_each_other(skilled: World) -> None:
    sent, sessions = {}, {}
    for maker in ("claude", "agentui"):
        skilled.server.requests.clear()
        sessions[maker] = json.loads(skilled.run(maker, "say hi to Bob").stdout)["session_id"]
        sent[maker] = loaded(skilled)
    assert sent["agentui"] == sent["claude"]
    assert sent["claude"][0]["content"] == "Launching skill: greet"
    assert sent["claude"][1]["text"].startswith(
        f"Base directory for this skill: {skilled.project}/.claude/skills/greet"
    )
    for maker in ("claude", "agentui"):  # (each tool's session, resumed by the other and by itself: the same)
        theirs = skilled.resumed_messages("claude", sessions[maker])
        ours = skilled.resumed_messages("agentui", sessions[maker])
        assert ours == theirs, maker
        assert any(block[1] == "text" and "Say hello to Bob." in block[2]["text"] for block in ours), maker


def test_a_skill_typed_as_a_command_is_sent_as_claude_code_sends_it(skilled: World) -> None:
    said: dict[str, list[str]] = {}
    for maker in ("claude", "agentui"):
        skilled.server.requests.clear()
        skilled.run(maker, "/greet Bob")
        first = next(r.json() for r in skilled.server.requests if "tools" in r.json())
        blocks = [b for m in first["messages"] if isinstance(m["content"], list) for b in m["content"]]
        said[maker] = [b["text"].rstrip("\n") for b in blocks if not b["text"].startswith("<system-reminder>")]
    assert said["agentui"] == said["claude"]
    assert said["claude"][1].startswith(f"Base directory for this skill: {skilled.project}/.claude/skills/greet\n\n")
    assert said["claude"][1].endswith("Say hello to Bob.\nSee ref.md here.")


def test_stream_json_tells_the_skills_instructions_as_claude_code_does(skilled: World) -> None:
    import subprocess

    told = {}
    for maker in ("claude", "agentui"):
        done = subprocess.run(
            [skilled.bins[maker], "-p", "say hi to Bob", "--model", "claude-sonnet-4-5", "--output-format",
             "stream-json", "--verbose"], env=skilled.env, cwd=skilled.project, capture_output=True, text=True,
            timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        keys = ("message", "isSynthetic", "tool_use_result", "parent_tool_use_id")
        told[maker] = [{key: line.get(key) for key in keys} for line in lines if line["type"] == "user"]
    assert told["agentui"] == told["claude"]
    assert told["claude"][1]["isSynthetic"] is True
