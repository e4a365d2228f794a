"""What MCP servers offer besides tools, in the app (tests/support/mcp_offers_server.py, FastMCP over stdio): an
elicitation request is a question the person answers, the servers' prompts are slash commands (run, listed in /help,
completed), and `@` completes their resources."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Input

from agentui.frontends.tui.app import AgentApp
from agentui.frontends.tui.screens.elicitation import ElicitationScreen
from agentui.frontends.tui.widgets.help_view import HelpView
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.frontends.tui.test_app import Harness, idle, texts, type_and_send, until

NOTES = str(Path(__file__).resolve().parents[2] / "support" / "mcp_offers_server.py")


def with_notes(harness: Harness) -> None:
    claude = Path(harness.env["CLAUDE_CONFIG_DIR"])
    claude.mkdir(parents=True, exist_ok=True)
    servers = {"mcpServers": {"notes": {"command": sys.executable, "args": [NOTES]}}}
    (claude / ".claude.json").write_text(json.dumps(servers))


async def connected(pilot: Any) -> None:
    app = pilot.app
    await until(
        pilot,
        lambda: (
            app.conversation is not None
            and app.conversation.mcp is not None
            and all(server.state == "connected" for server in app.conversation.mcp.servers)
        ),
    )


async def test_an_elicitation_is_a_question_the_person_answers(tmp_path: Path) -> None:
    deploy = {"type": "tool_use", "id": "d1", "name": "mcp__notes__deploy", "input": {}}
    harness = Harness(tmp_path, [{"content": [deploy]}, {"text": "Deployed."}], allowed=("mcp__notes__*",))
    with_notes(harness)
    app = harness.app()
    async with app.run_test(size=(120, 36)) as pilot:
        await connected(pilot)
        await type_and_send(pilot, "deploy it")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        screen = app.screen
        assert "Where should it be deployed?" in str(screen.query_one("#reason").render())
        assert "Place (string, required): Where to deploy" in [str(s.render()) for s in screen.query(".field")]
        boxes = list(screen.query(Input))
        assert [box.value for box in boxes] == ["", "no"]  # (the schema's default shown)
        await pilot.press(*"prod", "enter")  # (the next box, its text selected: typing replaces it)
        await pilot.press("y", "e", "s")
        assert [box.value for box in boxes] == ["prod", "yes"]
        await pilot.press("enter")  # (the last box: the answers go)
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Deployed."])
        assert (
            harness.providers[0].requests[1].messages[-1].content[0].content
            == '{"result":"deploying to prod (hurry: True)"}'
        )


async def test_an_elicitation_declined_with_escape_says_so_to_the_server(tmp_path: Path) -> None:
    deploy = {"type": "tool_use", "id": "d1", "name": "mcp__notes__deploy", "input": {}}
    harness = Harness(tmp_path, [{"content": [deploy]}, {"text": "Not deployed."}], allowed=("mcp__notes__*",))
    with_notes(harness)
    app = harness.app()
    async with app.run_test(size=(120, 36)) as pilot:
        await connected(pilot)
        await type_and_send(pilot, "deploy it")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        await pilot.press("escape")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Not deployed."])
        assert harness.providers[0].requests[1].messages[-1].content[0].content == '{"result":"not deployed: decline"}'


async def test_a_servers_prompts_are_slash_commands_and_its_resources_complete(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Hello, Ada!"}])
    with_notes(harness)
    app: AgentApp = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await connected(pilot)
        assert [(c.value, c.description) for c in app.completions("/mcp__")] == [
            ("/mcp__notes__greet", "Greets someone in a mood. (MCP)")
        ]
        assert [c.value for c in app.completions("see @readme")] == ["@notes:notes://readme"]

        await type_and_send(pilot, "/mcp__notes__greet")  # (a required argument missing: said, nothing sent)
        await until(pilot, lambda: any("Missing required argument" in n.message for n in texts(app, Notice)))
        assert texts(app, Notice)[-1].message == (
            "Missing required argument: name. Usage: /mcp__notes__greet name mood"
        )
        assert harness.providers == [] or harness.providers[0].requests == []

        await type_and_send(pilot, "/mcp__notes__greet Ada")
        await until(pilot, lambda: idle(app) and [a.source for a in texts(app, AssistantText)] == ["Hello, Ada!"])
        said = [getattr(block, "text", "") for m in harness.providers[0].requests[0].messages for block in m.content]
        assert "Say hello to Ada in a calm way." in said
        assert any("<command-name>/mcp__notes__greet</command-name>" in text for text in said)

        await type_and_send(pilot, "/help")
        await until(pilot, lambda: texts(app, HelpView))
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(texts(app, HelpView)[-1].tables)
        assert "/mcp__notes__greet" in console.export_text()
