"""/tree as commands of agentui's protocol: `tree` gives what `agentui tree --json` prints, and `switch_branch`
moves the conversation to a node's leaf as the app's /tree does."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.control import CommandError, parse_command
from agentui.core.session.tree import build_tree
from tests.core.test_session_tree import opened, uuid_of


async def test_the_tree_and_switch_branch_commands(tmp_path: Path) -> None:
    conversation = opened(tmp_path, [{"text": "A1."}, {"text": "A2."}, {"text": "A3."}, {"text": "A4."}], [])
    try:
        await conversation.send("one")
        await conversation.send("two")
        conversation.rewind(conversation.prompts()[-1].uuid, code=False)
        await conversation.send("two again")
        tree = await conversation.handle(parse_command('{"type": "tree"}'))
        assert tree == build_tree(conversation.session.path, conversation.session.writer.last_uuid).to_json()
        [older] = tree["root"]["children"]  # type: ignore[index]
        assert older["prompt"] == "two" and older["leaf_uuid"] == uuid_of(conversation.session.path, "A2.")
        await conversation.handle(parse_command(f'{{"type": "switch_branch", "leaf": "{older["leaf_uuid"]}"}}'))
        assert [m.text for m in conversation.messages if m.text] == ["one", "A1.", "two", "A2."]
        with pytest.raises(CommandError, match="not a command"):
            parse_command('{"type": "switch_branch"}')
    finally:
        await conversation.aclose()
