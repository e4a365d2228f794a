"""Custom commands as Claude Code 2.1.197 runs them: their shell commands (`!`cmd``, ```! blocks) run after the
permission check Bash gets, their output in their place (a refused one stops the command in one sentence, before any
model call); arguments filled in as Claude Code fills them (`$0` first, `ARGUMENTS:` appended when none is named, a `!`
in them never a command); `@file` included; `model` answers that run only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, PermissionDecision, PermissionRequest
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.settings import Settings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def opened(tmp_path: Path, server: LoopbackServer, commands: dict[str, str]) -> Conversation:
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "Done."}]))
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    for name, text in commands.items():
        (tmp_path / "claude" / "commands").mkdir(parents=True, exist_ok=True)
        (tmp_path / "claude" / "commands" / f"{name}.md").write_text(text)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui")}  # fmt: skip
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    return open_conversation(
        Launch(settings, cwd=root), provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env
    )


async def typed(conversation: Conversation, text: str) -> Any:
    """As a front end sends a command: expanded, then sent, the grants ended after its run."""
    expanded = conversation.expand_command(text)
    assert expanded is not None
    try:
        return await conversation.send(expanded[0])
    finally:
        conversation.end_grants()


def sent_texts(server: LoopbackServer) -> list[str]:
    """The texts of the last request's last message."""
    content = server.requests[-1].json()["messages"][-1]["content"]
    return [block.get("text", "") for block in content] if isinstance(content, list) else [content]


async def test_shell_commands_run_and_arguments_go_in_as_claude_codes(tmp_path: Path, server: LoopbackServer) -> None:
    body = "A=$0 B=$1 Z=$2 ALL=$ARGUMENTS\nNow: !`echo hi there`\n```!\necho from a block\n```\n"
    commands = {"args": body, "plain": "Plain body.\n", "quote": "Say: $ARGUMENTS\n"}
    conversation = opened(tmp_path, server, commands)
    try:
        await typed(conversation, "/args x y")
        assert "A=x B=y Z= ALL=x y\nNow: hi there\nfrom a block\n" in sent_texts(server)
        await typed(conversation, "/plain foo bar")
        assert "Plain body.\n\n\nARGUMENTS: foo bar" in sent_texts(server)
        await typed(conversation, "/quote !`touch pwned` and\n!`touch pwned`")  # (the person's text: never run)
        assert "Say: \\! `touch pwned` and\n\\! `touch pwned`\n" in sent_texts(server)
    finally:
        await conversation.aclose()
    assert not (conversation.root / "pwned").exists()


async def test_a_refused_shell_command_stops_the_command_before_the_model_is_asked(
    tmp_path: Path, server: LoopbackServer
) -> None:
    conversation = opened(tmp_path, server, {"make": "Made: !`touch made.txt`\n"})
    asked: list[PermissionRequest] = []

    def person(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event)
            conversation.answer(event.request_id, PermissionDecision(behavior="deny"))

    conversation.on(person)
    try:
        result = await typed(conversation, "/make")
    finally:
        await conversation.aclose()
    assert [(a.tool_name, a.input["command"]) for a in asked] == [("Bash", "touch made.txt")]
    assert result.stop == "error" and server.requests == []
    assert result.error == 'Shell command permission check failed for pattern "!`touch made.txt`": permission denied.'
    assert not (conversation.root / "made.txt").exists()


async def test_allowed_tools_let_a_shell_command_run_unasked_and_a_failure_says_so(
    tmp_path: Path, server: LoopbackServer
) -> None:
    make = "---\nallowed-tools: Bash(touch:*), Bash(ls:*)\n---\nMade: !`touch made.txt && echo ok`\n"
    fail = "---\nallowed-tools: Bash(ls:*)\n---\nList: !`ls no-such-dir`\n"
    conversation = opened(tmp_path, server, {"make": make, "fail": fail})
    asked: list[str] = []
    conversation.on(lambda event: asked.append("asked") if isinstance(event, PermissionRequest) else None)
    try:
        await typed(conversation, "/make")
        assert "Made: ok\n" in sent_texts(server) and (conversation.root / "made.txt").exists()
        server.requests.clear()
        result = await typed(conversation, "/fail")
    finally:
        await conversation.aclose()
    assert asked == [] and server.requests == [] and result.stop == "error"
    assert result.error.startswith('Shell command failed for pattern "!`ls no-such-dir`": ')
    assert "no-such-dir" in result.error.split(": ", 1)[1]


async def test_a_commands_model_answers_its_run_only_and_files_it_names_are_read(
    tmp_path: Path, server: LoopbackServer
) -> None:
    commands = {"quick": "---\nmodel: claude-haiku-4-5\n---\nQuick: look at @notes.txt\n"}
    conversation = opened(tmp_path, server, commands)
    (conversation.root / "notes.txt").write_text("the notes\n")
    try:
        await typed(conversation, "/quick")
        quick = server.requests[-1].json()
        await conversation.send("and now?")
    finally:
        await conversation.aclose()
    assert quick["model"] == "claude-haiku-4-5" and server.requests[-1].json()["model"] == "claude-sonnet-4-5"
    assert any("the notes" in text for text in sent_texts_of(quick))


def sent_texts_of(body: dict[str, Any]) -> list[str]:
    content = body["messages"][-1]["content"]
    return [block.get("text", "") for block in content] if isinstance(content, list) else [content]
