"""The Skill tool, as Claude Code 2.1.197's: a played model loads a skill by name; the result and the skill's
instructions reach the next request and the session as Claude Code sends and records them; a skill's allowed-tools
hold for the run (a project's only once it is trusted); an unknown skill is an error the model reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, PermissionDecision, PermissionRequest
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.session.reader import load_session
from agentui.core.settings import Settings
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

GREET = "---\nname: greet\ndescription: Greets the person warmly\n---\nSay hello to $ARGUMENTS.\nSee ref.md here.\n"


def play(server: LoopbackServer, turns: list[list[dict[str, Any]]]) -> None:
    """The model answers with the turn after the results its request holds."""

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        seen = sum(1 for m in body["messages"] if isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result")  # fmt: skip
        blocks = turns[min(seen, len(turns) - 1)]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop))

    server.responder = model


def skill_call(name: str, args: str | None = None, call_id: str = "s1") -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": "Skill",
        "input": {"skill": name, **({"args": args} if args else {})},
    }


def opened(tmp_path: Path, server: LoopbackServer) -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui")}  # fmt: skip
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    provider = AnthropicProvider(base_url=server.url, api_key="x")
    return open_conversation(Launch(settings, cwd=root), provider=provider, env=env)


def write_skill(directory: Path, name: str, text: str) -> Path:
    (directory / name).mkdir(parents=True)
    (directory / name / "SKILL.md").write_text(text)
    return directory / name


async def test_a_loaded_skill_is_sent_and_recorded_as_claude_code_does(tmp_path: Path, server: LoopbackServer) -> None:
    base = write_skill(tmp_path / "claude" / "skills", "greet", GREET)
    play(server, [[skill_call("greet", "Bob")], [{"type": "text", "text": "Hello Bob."}]])
    conversation = opened(tmp_path, server)
    assert "Skill" in conversation.project.tools.names()
    assert "SKILL.md" not in conversation.agent.config.system_prompt  # (no more "Read its file")
    try:
        await conversation.send("say hi to Bob")
    finally:
        await conversation.aclose()
    last = [
        {k: v for k, v in b.items() if k != "cache_control"}
        for b in server.requests[-1].json()["messages"][-1]["content"]
    ]
    assert last[0]["type"] == "tool_result" and last[0]["content"] == "Launching skill: greet"
    assert last[1] == {
        "type": "text",
        "text": f"Base directory for this skill: {base}\n\nSay hello to Bob.\nSee ref.md here.\n",
    }
    lines = [json.loads(line) for line in conversation.session.path.read_text().splitlines()]
    result = next(line for line in lines if line.get("toolUseResult") and line["type"] == "user")
    assert result["toolUseResult"] == {"success": True, "commandName": "greet"}
    meta = lines[lines.index(result) + 1]
    assert meta["isMeta"] is True and meta["sourceToolUseID"] == "s1" and meta["parentUuid"] == result["uuid"]
    assert meta["message"]["content"] == [last[1]]
    permissions = lines[lines.index(result) + 2]
    assert permissions["attachment"] == {"type": "command_permissions", "allowedTools": []}
    resumed = load_session(conversation.session.path).messages  # (resumed, the model reads the same again)
    assert [b.model_dump(exclude_none=True) for m in resumed[2:4] for b in m.content][1] == last[1]


async def test_a_skills_allowed_tools_hold_for_its_run_after_the_person_says_yes(
    tmp_path: Path, server: LoopbackServer
) -> None:
    text = "---\ndescription: Makes files\nallowed-tools: Bash(touch:*)\n---\nTouch the file.\n"
    write_skill(tmp_path / "claude" / "skills", "maker", text)
    touch = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "touch made.txt", "description": "x"}}
    play(server, [[skill_call("maker")], [touch], [{"type": "text", "text": "Made."}]])
    conversation = opened(tmp_path, server)
    asked: list[PermissionRequest] = []

    def person(event: Event) -> None:  # (says yes to loading the skill, and would say no to anything else)
        if isinstance(event, PermissionRequest):
            asked.append(event)
            allow = event.tool_name == "Skill"
            conversation.answer(event.request_id, PermissionDecision(behavior="allow" if allow else "deny"))

    conversation.on(person)
    try:
        await conversation.send("make the file")
        assert [(a.tool_name, a.reason) for a in asked] == [("Skill", "Execute skill: maker")]
        assert (conversation.root / "made.txt").exists()  # (touch ran unasked: the skill allowed it)
        (conversation.root / "made.txt").unlink()
        play(server, [[touch], [touch], [touch], [{"type": "text", "text": "Again."}]])  # (two results before)
        server.requests.clear()
        await conversation.send("and again")
        assert [a.tool_name for a in asked] == ["Skill", "Bash"]  # (the run ended: the grant with it)
        assert not (conversation.root / "made.txt").exists()
    finally:
        await conversation.aclose()


async def test_an_untrusted_projects_skill_grants_nothing(tmp_path: Path, server: LoopbackServer) -> None:
    text = "---\ndescription: Makes files\nallowed-tools: Bash(touch:*)\n---\nTouch the file.\n"
    write_skill(tmp_path / "project" / ".claude" / "skills", "maker", text)
    touch = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "touch made.txt", "description": "x"}}
    play(server, [[skill_call("maker")], [touch], [{"type": "text", "text": "Made."}]])
    conversation = opened(tmp_path, server)
    assert not conversation.project.trusted
    asked: list[str] = []

    def person(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event.tool_name)
            allow = event.tool_name == "Skill"
            conversation.answer(event.request_id, PermissionDecision(behavior="allow" if allow else "deny"))

    conversation.on(person)
    try:
        await conversation.send("make the file")
    finally:
        await conversation.aclose()
    assert asked == ["Skill", "Bash"] and not (conversation.root / "made.txt").exists()


async def test_an_unknown_skill_is_an_error_in_claude_codes_words(tmp_path: Path, server: LoopbackServer) -> None:
    write_skill(tmp_path / "claude" / "skills", "greet", GREET)
    play(
        server, [[skill_call("gret")], [skill_call("nothing-like-it", call_id="s2")], [{"type": "text", "text": "Ok."}]]
    )
    conversation = opened(tmp_path, server)
    try:
        await conversation.send("hi")
    finally:
        await conversation.aclose()
    results = [
        b for r in server.requests[1:] for b in r.json()["messages"][-1]["content"] if b["type"] == "tool_result"
    ]
    assert [(r["content"], r.get("is_error")) for r in results[-1:]] == [("Unknown skill: nothing-like-it", True)]
    first = next(b for b in server.requests[1].json()["messages"][-1]["content"] if b["type"] == "tool_result")
    assert first["content"] == "Unknown skill: gret. Did you mean greet?"


async def test_a_skills_shell_commands_run_with_what_it_allows(tmp_path: Path, server: LoopbackServer) -> None:
    maker = "---\ndescription: Makes\nallowed-tools: Bash(touch:*)\n---\nMade: !`touch made.txt && echo ok`\n"
    refused = "---\ndescription: Makes a folder\n---\nFolder: !`mkdir other`\n"
    write_skill(tmp_path / "claude" / "skills", "maker", maker)
    write_skill(tmp_path / "claude" / "skills", "toucher", refused)
    play(server, [[skill_call("maker")], [skill_call("toucher", call_id="s2")], [{"type": "text", "text": "Ok."}]])
    conversation = opened(tmp_path, server)
    asked: list[str] = []

    def person(event: Event) -> None:  # (yes to loading a skill, no to anything else)
        if isinstance(event, PermissionRequest):
            asked.append(f"{event.tool_name}: {event.input.get('skill') or event.input.get('command')}")
            allow = event.tool_name == "Skill"
            conversation.answer(event.request_id, PermissionDecision(behavior="allow" if allow else "deny"))

    conversation.on(person)
    try:
        await conversation.send("make")
    finally:
        await conversation.aclose()
    assert asked == ["Skill: maker", "Bash: mkdir other"]  # (the first skill's command: allowed by it)
    first = server.requests[1].json()["messages"][-1]["content"]
    assert first[1]["text"].endswith("Made: ok\n") and (conversation.root / "made.txt").exists()
    second = next(b for b in server.requests[2].json()["messages"][-1]["content"] if b["type"] == "tool_result")
    assert second["is_error"] and second["content"].startswith("Shell command permission check failed for pattern")
    assert not (conversation.root / "other").exists()


async def test_a_skills_model_answers_the_rest_of_its_run(tmp_path: Path, server: LoopbackServer) -> None:
    write_skill(
        tmp_path / "claude" / "skills", "quick", "---\ndescription: Quick\nmodel: claude-haiku-4-5\n---\nBe quick.\n"
    )
    play(server, [[skill_call("quick")], [{"type": "text", "text": "Quick."}]])
    conversation = opened(tmp_path, server)
    try:
        await conversation.send("go")
        await conversation.send("and now?")
    finally:
        await conversation.aclose()
    models = [r.json()["model"] for r in server.requests if "tools" in r.json()]
    assert models == ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-sonnet-4-5"]
    lines = [json.loads(line) for line in conversation.session.path.read_text().splitlines()]
    loaded = next(line["toolUseResult"] for line in lines if line.get("toolUseResult"))
    assert loaded == {"success": True, "commandName": "quick", "model": "claude-haiku-4-5"}
