"""Claude Code's prompt and agent hooks (a model answers ok or not), and a PermissionRequest hook's updatedInput
(checked again before it runs), on an agent with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.claude_settings import SettingsFile, SettingsSource
from agentui.core.events import Event, Notice, PermissionDecision, PermissionRequest
from agentui.core.extend.hooks import HookSpec, specs_from
from agentui.core.extend.model_hooks import JUDGE_SYSTEM, STOP_JUDGE_SYSTEM, verdict_of, with_arguments
from agentui.core.loop.agent import Agent
from agentui.core.loop.hook_models import AgentHookModels
from agentui.core.messages import ToolResultBlock
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.gate import Verdict
from agentui.core.tools.write import Write
from agentui.core.workspace import Workspace
from tests.core.test_hooks import call, result_of
from tests.core.test_hooks import make as make_with_hooks
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream
from tests.support.tools import Echo, WriteNote


def model_hook(event: str, prompt: str, kind: str = "prompt", matcher: str = "") -> HookSpec:
    return HookSpec(event, matcher, prompt, 10, "user", kind=kind)


def make(
    tmp_path: Path, script: list[dict[str, Any]], specs: list[HookSpec], *tools: Any, gate: Any = None,
    models: bool = True,
) -> tuple[Agent, ScriptedProvider, list[Event]]:  # fmt: skip
    """test_hooks' agent, its hooks asking the agent's model (unless `models` is False)."""
    agent, provider, seen = make_with_hooks(tmp_path, script, specs, *tools, gate=gate)
    if models:
        assert agent.services.hooks is not None
        agent.services.hooks.models = AgentHookModels(agent, "small")
    return agent, provider, seen


def verdict(ok: bool, reason: str = "") -> dict[str, Any]:
    return {"text": json.dumps({"ok": ok, "reason": reason})}


def test_settings_load_prompt_and_agent_hooks_with_claude_codes_default_timeouts(tmp_path: Path) -> None:
    hooks = [
        {"type": "prompt", "prompt": "Done?", "model": "haiku"},
        {"type": "agent", "prompt": "Tests pass?", "timeout": 5},
        {"type": "prompt", "prompt": "  "},
    ]
    settings = SettingsFile.model_validate({"hooks": {"Stop": [{"hooks": hooks}]}})
    specs = specs_from([SettingsSource("user", tmp_path / "settings.json", settings)], trusted=True)
    assert [(s.kind, s.command, s.timeout, s.model) for s in specs] == [
        ("prompt", "Done?", 30.0, "haiku"),
        ("agent", "Tests pass?", 5.0, None),
    ]


def test_the_arguments_go_in_the_placeholder_or_after_the_prompt() -> None:
    assert with_arguments("Safe? $ARGUMENTS!", '{"a":1}') == 'Safe? {"a":1}!'
    assert with_arguments("Safe?", '{"a":1}') == 'Safe?\n\nARGUMENTS: {"a":1}'
    assert verdict_of('```json\n{"ok": false, "reason": "no"}\n```') == {"ok": False, "reason": "no"}
    assert verdict_of("yes") is None and verdict_of('{"ok": "yes"}') is None


async def test_a_stop_prompt_hook_that_says_no_makes_the_agent_go_on_once(tmp_path: Path) -> None:
    script = [{"text": "First."}, verdict(False, "say Second"), {"text": "Second."}, verdict(True, "it did")]
    agent, provider, _ = make(tmp_path, script, [model_hook("Stop", "Did it say Second?")])
    result = await agent.prompt("go")
    assert result.text == "Second." and len(provider.requests) == 4
    judged = provider.requests[1]
    assert judged.system == STOP_JUDGE_SYSTEM and judged.model == "small" and not judged.tools
    *transcript, question = judged.messages
    assert [m.text for m in transcript] == ["go", "First."]  # (the conversation goes before the question)
    assert question.text.startswith("Based on the conversation transcript above, has the following stopping "
                                    "condition been satisfied?")  # fmt: skip
    assert "Condition: Did it say Second?\n\nARGUMENTS: {" in question.text
    assert json.loads(question.text.split("ARGUMENTS: ", 1)[1])["hook_event_name"] == "Stop"
    assert provider.requests[2].messages[-1].text == "Stop hook feedback:\n[Did it say Second?]: say Second"


async def test_a_pre_tool_use_prompt_hook_that_says_no_denies_the_call(tmp_path: Path) -> None:
    echo = Echo()
    script = [call("Echo", "e1", text="hi"), verdict(False, "no echoes"), {"text": "ok"}]
    spec = model_hook("PreToolUse", "Is this safe? $ARGUMENTS", matcher="Echo")
    agent, provider, _ = make(tmp_path, script, [spec], echo)
    await agent.prompt("go")
    result = result_of(provider, "e1")
    assert result.is_error and result.content == "[Is this safe? $ARGUMENTS]: no echoes"
    judged = provider.requests[1]
    assert judged.system == JUDGE_SYSTEM and len(judged.messages) == 1  # (no transcript, outside Stop)
    asked = json.loads(judged.messages[0].text.removeprefix("Is this safe? "))
    assert asked["tool_name"] == "Echo" and asked["tool_input"] == {"text": "hi"}


async def test_a_post_tool_use_prompt_hook_that_says_no_ends_the_run_after_the_call(tmp_path: Path) -> None:
    script = [call("Echo", "e1", text="hi"), verdict(False, "not fine"), {"text": "never"}]
    agent, provider, _ = make(tmp_path, script, [model_hook("PostToolUse", "Was it fine?")], Echo())
    await agent.prompt("go")
    assert len(provider.requests) == 2  # (the call's, and the hook's question: the model is not called again)


async def test_a_prompt_hook_that_says_yes_or_cannot_be_answered_lets_the_call_run(tmp_path: Path) -> None:
    script = [call("Echo", "e1", text="hi"), verdict(True, "fine"), {"text": "ok"}]
    agent, provider, _ = make(tmp_path, script, [model_hook("PreToolUse", "Safe?")], Echo())
    await agent.prompt("go")
    assert result_of(provider, "e1").content == "hi"

    script = [call("Echo", "e1", text="hi"), {"text": "I think so"}, {"text": "ok"}]
    agent, provider, seen = make(tmp_path, script, [model_hook("PreToolUse", "Safe?")], Echo())
    await agent.prompt("go")
    assert result_of(provider, "e1").content == "hi"
    [warning] = [e.message for e in seen if isinstance(e, Notice)]
    assert warning == (
        "The PreToolUse hook `Safe?` could not be answered: its model's answer was not the JSON it asks for; "
        "continuing."
    )


async def test_a_prompt_hook_without_a_model_warns_and_the_run_goes_on(tmp_path: Path) -> None:
    script = [{"text": "Done."}]
    agent, _, seen = make(tmp_path, script, [model_hook("Stop", "Done?")], models=False)
    told: list[str] = []
    assert agent.services.hooks is not None
    agent.services.hooks.observer = lambda kind, fields: told.append(kind)
    result = await agent.prompt("go")
    assert told == []  # (no hook_started or hook_response lines for a model's hook, as in Claude Code)
    assert result.text == "Done."
    assert [e.message for e in seen if isinstance(e, Notice)] == [
        "The Stop hook `Done?` could not be answered: no model is available to answer it; continuing."
    ]


async def test_an_agent_hook_looks_with_its_own_tools_and_its_verdict_denies(tmp_path: Path) -> None:
    echo, writer = Echo(), WriteNote()
    script = [
        call("WriteNote", "w1", note="x"),
        call("Echo", "v1", text="looking"),  # (the hook's agent looks first)
        call("StructuredOutput", "v2", ok=False, reason="notes are frozen"),
        {"text": "ok"},
    ]
    spec = model_hook("PreToolUse", "Check $ARGUMENTS", kind="agent", matcher="WriteNote")
    agent, provider, _ = make(tmp_path, script, [spec], echo, writer, gate=_Allows())
    await agent.prompt("go")
    assert writer.written == []
    looked_at = [b for m in provider.requests[2].messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert [b.content for b in looked_at] == ["looking"]
    result = result_of(provider, "w1")
    assert result.is_error and result.content == "Agent hook condition was not met: notes are frozen"
    looked = provider.requests[1]
    assert looked.system.startswith("You are evaluating a PreToolUse hook in Claude Code.")
    assert sorted(tool.name for tool in looked.tools) == ["Echo", "StructuredOutput"]  # (it does not write)
    assert len(provider.requests) == 4  # (its verdict given, the hook's agent is not asked again)


async def test_a_permission_request_hook_changes_the_input_and_the_rules_check_the_new_one(tmp_path: Path) -> None:
    """The input the hook gives is what runs, on the path its own check resolved; a deny rule still wins."""
    workspace = Workspace(root=tmp_path)
    engine = PermissionEngine(workspace)
    engine.add_rule("Edit(secret.txt)", "deny", "cli")
    for target in ("b.txt", "secret.txt"):
        changed = {"file_path": str(tmp_path / target), "content": "changed\n"}
        answer = {"behavior": "allow", "updatedInput": changed}
        output = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": answer}})
        spec = HookSpec("PermissionRequest", "", f"echo '{output}'", 10, "user")
        script = [call("Write", "w1", file_path=str(tmp_path / "a.txt"), content="original\n"), {"text": "ok"}]
        agent, provider, seen = make(tmp_path, script, [spec], Write(workspace), gate=engine)
        await agent.prompt("go")
        assert not (tmp_path / "a.txt").exists() and not any(isinstance(e, PermissionRequest) for e in seen)
        if target == "b.txt":
            assert (tmp_path / "b.txt").read_text() == "changed\n"
        else:
            assert not (tmp_path / "secret.txt").exists()
            assert str(result_of(provider, "w1").content).startswith("Permission to use Write was denied")


async def test_a_hooks_changed_input_that_only_the_person_may_allow_is_asked_as_the_model_made_it(
    tmp_path: Path,
) -> None:
    answer = {"behavior": "allow", "updatedInput": {"note": "hard"}}
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": answer}})
    writer = WriteNote()
    script = [call("WriteNote", "w1", note="soft"), {"text": "ok"}]
    spec = HookSpec("PermissionRequest", "", f"echo '{output}'", 10, "user")
    agent, _, seen = make(tmp_path, script, [spec], writer, gate=_Asks())

    def person(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            agent.respond_permission(event.request_id, PermissionDecision(behavior="allow"))

    agent.bus.on(person)
    await agent.prompt("go")
    [asked] = [e for e in seen if isinstance(e, PermissionRequest)]
    assert asked.input == {"note": "soft"} and writer.written == ["soft"]


class _Allows:
    def check(self, tool: Any, args: Any, call: Any) -> Verdict:
        return Verdict("allow", "test")

    def remember(self, *_: Any) -> None:
        return None


class _Asks:
    """Asks about every note; one saying "hard" only the person may allow."""

    def check(self, tool: Any, args: Any, call: Any) -> Verdict:
        return Verdict("ask", "test", hard=getattr(args, "note", "") == "hard")

    def remember(self, *_: Any) -> None:
        return None


async def test_a_conversations_prompt_hook_asks_the_model_its_hook_route_names(
    tmp_path: Path, server: LoopbackServer
) -> None:
    """The assembly gives the hooks the conversation's model calls: a route for "hook" sends them elsewhere."""
    from agentui.core.assembly import open_conversation
    from agentui.core.conversation import Launch
    from agentui.core.providers.anthropic import AnthropicProvider
    from agentui.core.settings import ConfigFile, Settings

    def model(request: RecordedRequest) -> Reply:
        judged = "stop-condition hook" in json.dumps(request.json().get("system"))
        said = '{"ok": true, "reason": "done"}' if judged else "Done."
        return Reply(chunks=anthropic_stream([{"type": "text", "text": said}]))

    server.responder = model
    claude = tmp_path / "claude"
    claude.mkdir()
    hooks = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Finished?"}]}]}
    (claude / "settings.json").write_text(json.dumps({"hooks": hooks}))
    root = tmp_path / "project"
    root.mkdir()
    routes = ConfigFile.model_validate({"routes": {"hook": "claude-haiku-4-5"}}).routes or {}
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        routes=routes)  # fmt: skip
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(claude)}
    provider = AnthropicProvider(base_url=server.url, api_key="x")
    conversation = open_conversation(Launch(settings, cwd=root), provider=provider, env=env)
    try:
        await conversation.send("go")
    finally:
        await conversation.aclose()
    asked = [r.json() for r in server.requests if "stop-condition hook" in json.dumps(r.json().get("system"))]
    assert [body["model"] for body in asked] == ["claude-haiku-4-5"]
