"""Skills and output styles in a real terminal, at 80x24 and at 120x40: /skills lists the project's skill, /output-style
lists the styles and switches to the person's own, the next request carries it in its system prompt, and the model
loads the skill with the Skill tool (its instructions reach the request after)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def reply(*blocks: dict[str, Any]) -> Reply:
    uses = any(block["type"] == "tool_use" for block in blocks)
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason="tool_use" if uses else "end_turn"))


@pytest.mark.parametrize("size", SIZES)
def test_skills_and_output_styles_in_the_terminal(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, size: tuple[int, int]
) -> None:
    (project / ".claude" / "skills" / "greet").mkdir(parents=True)
    (project / ".claude" / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets warmly\n---\nSay hello to $ARGUMENTS.\n"
    )
    styles = Path(clean_env["HOME"]) / ".claude" / "output-styles"
    styles.mkdir(parents=True)
    (styles / "pirate.md").write_text(
        "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAnswer like a pirate.\n"
    )
    server.responder = lambda request: reply({"type": "text", "text": "A title"})
    server.enqueue(
        reply({"type": "tool_use", "id": "toolu_s", "name": "Skill", "input": {"skill": "greet", "args": "Bob"}}),
        reply({"type": "text", "text": "Ahoy Bob, matey."}),
    )
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/skills")
        terminal.keys("Enter")
        terminal.wait_for("greet · project — Greets warmly")
        terminal.type("/output-style")
        terminal.keys("Enter")
        terminal.wait_for("Pirate — Talks like a pirate")
        terminal.type("/output-style Pirate")
        terminal.keys("Enter")
        terminal.wait_for("Output style set to Pirate")
        terminal.type("greet Bob")
        terminal.keys("Enter")
        terminal.wait_for("Ahoy Bob, matey.")
    finally:
        terminal.close()
    first, second = (r.json() for r in server.requests if "tools" in r.json())
    system = " ".join(part["text"] for part in first["system"])
    assert "# Output Style: Pirate\nAnswer like a pirate." in system
    assert "Skill" in {tool["name"] for tool in first["tools"]}
    loaded = second["messages"][-1]["content"]
    assert loaded[0]["content"] == "Launching skill: greet"
    assert "Say hello to Bob." in json.dumps(loaded[1])
