"""/tree in the app: the session's branches drawn as a tree, the current one marked; moving to an older branch and
continuing there makes the next prompt go on from that branch's last message; f forks a new session there."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.widgets import Tree

from agentui.frontends.tui.screens.tree import TreeScreen
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

SCRIPT = [{"text": "A1."}, {"text": "A2."}, {"text": "A3."}, {"text": "A4."}]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answer_uuid(path: Path, text: str) -> str:
    answers = [e for e in lines(path) if e.get("type") == "assistant"]
    [found] = [e["uuid"] for e in answers if e["message"]["content"][0].get("text") == text]
    return str(found)


async def two_branches(pilot: Any) -> Path:
    """one → A1, two → A2, then back to before "two" and "two again" → A3: the older branch ends at A2."""
    app = pilot.app
    await ready(pilot)
    await type_and_send(pilot, "one")
    await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 2)
    await type_and_send(pilot, "two")
    await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 4)
    app.conversation.rewind(app.conversation.prompts()[-1].uuid, code=False)
    await type_and_send(pilot, "two again")
    await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "A3.")
    return Path(app.conversation.session.path)


async def test_tree_continues_from_an_older_branch(tmp_path: Path) -> None:
    harness = Harness(tmp_path, SCRIPT)
    app = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        path = await two_branches(pilot)
        await type_and_send(pilot, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen))
        widget = app.screen.query_one("#branches", Tree)
        assert widget.cursor_node is not None and widget.cursor_node.data.current  # (on the branch it is on)
        assert str(widget.cursor_node.label).startswith("● main: one · 2 turns")
        await pilot.press("down")
        older = widget.cursor_node.data
        assert (older.kind, older.prompt) == ("rewind", "two")
        if os.environ.get("AGENTUI_TREE_SCREENSHOT"):  # (README's picture: docs/tree.svg)
            app.save_screenshot(os.environ["AGENTUI_TREE_SCREENSHOT"])
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, TreeScreen))
        await until(pilot, lambda: app.conversation.messages[-1].text == "A2.")
        await type_and_send(pilot, "four")
        await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "A4.")
    [four] = [e for e in lines(path) if e.get("type") == "user" and e["message"]["content"] == "four"]
    assert four["parentUuid"] == answer_uuid(path, "A2.") == older.leaf_uuid


async def test_tree_forks_a_new_session_from_a_branch(tmp_path: Path) -> None:
    harness = Harness(tmp_path, SCRIPT)
    app = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        path = await two_branches(pilot)
        before = app.conversation
        await type_and_send(pilot, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen))
        await pilot.press("down", "f")
        await until(pilot, lambda: app.conversation is not None and app.conversation is not before)
        forked = Path(app.conversation.session.path)
    assert forked != path
    chain = [e for e in lines(forked) if e.get("type") in ("user", "assistant")]
    assert chain[-1]["uuid"] == answer_uuid(path, "A2.")  # (the fork goes on from the older branch's leaf)
    assert all(e["sessionId"] == forked.stem for e in chain)


async def test_tree_before_anything_was_said_is_one_sentence(tmp_path: Path) -> None:
    from agentui.frontends.tui.widgets.transcript import Notice

    harness = Harness(tmp_path, SCRIPT)
    app = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/tree")
        await until(pilot, lambda: any("no branches to show" in n.message for n in texts(app, Notice)))
        assert not isinstance(app.screen, TreeScreen)


async def test_tree_shows_prompts_with_markup_as_typed(tmp_path: Path) -> None:
    """A prompt is the person's (or a session file's) text, never Rich markup: "[/]" would stop the app with a markup
    error, and "[link=...]" would make a link the person did not write."""
    tricky = "[/] [link=https://evil.example]click[/link] [bold]x"
    harness = Harness(tmp_path, SCRIPT)
    app = harness.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, tricky)
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) >= 2)
        app.conversation.rewind(app.conversation.prompts()[-1].uuid, code=False)
        await type_and_send(pilot, "[red]again")
        await until(pilot, lambda: idle(app) and app.conversation.messages[-1].text == "A2.")
        await type_and_send(pilot, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen))
        widget = app.screen.query_one("#branches", Tree)
        await until(pilot, lambda: len(widget.root.children) == 1)
        [older] = widget.root.children
        assert str(widget.root.label).startswith("● main: [red]again · 1 turn")
        assert older.label.plain.startswith(f"rewind: {tricky} · 1 turn")
        assert not any(span.style for span in older.label.spans if "link" in str(span.style))
