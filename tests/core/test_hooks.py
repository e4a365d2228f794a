"""Hooks as Claude Code runs them: real commands, JSON on stdin, exit codes and JSON answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentui.core.claude_settings import SettingsFile, SettingsSource
from agentui.core.events import Event, Notice, PermissionDecision, PermissionRequest, ToolProgress
from agentui.core.extend.hooks import Hooks, HookSpec, specs_from
from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import TextBlock, ToolResultBlock
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.tools.base import ToolRegistry
from agentui.core.workspace import Workspace
from tests.support.agents import new_agent
from tests.support.tools import Echo, WriteNote


def hook(event: str, command: str, matcher: str = "", timeout: float = 10) -> HookSpec:
    return HookSpec(event, matcher, command, timeout, "user")


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def make(tmp_path: Path, script: list[dict[str, Any]], specs: list[HookSpec], *tools: Any, gate: Any = None):  # type: ignore[no-untyped-def]
    provider = ScriptedProvider(script)
    hooks = Hooks(specs, cwd=tmp_path)
    agent = new_agent(provider, AgentConfig(model="m", cwd=tmp_path), tools=ToolRegistry(tools), hooks=hooks, gate=gate)
    seen: list[Event] = []
    agent.bus.on(seen.append)
    return agent, provider, seen


def result_of(provider: ScriptedProvider, call_id: str) -> ToolResultBlock:
    for message in provider.requests[-1].messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.tool_use_id == call_id:
                return block
    raise AssertionError(f"no result for {call_id}")


async def test_pre_tool_use_gets_json_on_stdin_and_exit_2_blocks_with_stderr(tmp_path: Path) -> None:
    seen_input = tmp_path / "stdin.json"
    spec = hook("PreToolUse", f"cat > {seen_input}; echo 'use the safe variant' >&2; exit 2", matcher="Echo|Write")
    agent, provider, _ = make(tmp_path, [call("Echo", "e1", text="hi"), {"text": "ok"}], [spec], Echo())
    await agent.prompt("go")
    blocked = result_of(provider, "e1")
    assert blocked.is_error and blocked.content == "use the safe variant"  # (the reason alone, as in Claude Code)
    payload = json.loads(seen_input.read_text())
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "Echo"
    assert payload["tool_input"] == {"text": "hi"} and payload["tool_use_id"] == "e1"
    assert payload["session_id"] == agent.session_id and payload["cwd"] == str(tmp_path)
    assert "transcript_path" in payload and payload["permission_mode"] == "default"


async def test_matchers_select_tools(tmp_path: Path) -> None:
    spec = hook("PreToolUse", "exit 2", matcher="Write|Edit")
    agent, provider, _ = make(tmp_path, [call("Echo", "e1", text="hi"), {"text": "ok"}], [spec], Echo())
    await agent.prompt("go")
    assert result_of(provider, "e1").content == "hi"  # Echo does not match


async def test_a_hooks_allow_skips_the_prompt_but_never_beats_a_deny_rule(tmp_path: Path) -> None:
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    spec = hook("PreToolUse", f"echo '{allow}'")
    writer = WriteNote()
    agent, _provider, seen = make(tmp_path, [call("WriteNote", "w1", note="x"), {"text": "ok"}], [spec], writer)
    await agent.prompt("go")
    assert writer.written == ["x"] and not any(isinstance(e, PermissionRequest) for e in seen)

    engine = PermissionEngine(Workspace(root=tmp_path))
    engine.add_rule("WriteNote", "deny", "cli")
    writer2 = WriteNote()
    agent2, provider2, _ = make(
        tmp_path, [call("WriteNote", "w1", note="x"), {"text": "ok"}], [spec], writer2, gate=engine
    )
    await agent2.prompt("go")
    assert writer2.written == [] and "denied" in result_of(provider2, "w1").content


async def test_a_hook_can_force_a_question_for_an_allowed_tool(tmp_path: Path) -> None:
    ask = json.dumps({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "check this"}})
    agent, _, seen = make(
        tmp_path, [call("Echo", "e1", text="hi"), {"text": "ok"}], [hook("PreToolUse", f"echo '{ask}'")], Echo()
    )
    agent.bus.on(
        lambda e: (
            agent.respond_permission(e.request_id, PermissionDecision(behavior="allow"))
            if isinstance(e, PermissionRequest)
            else None
        )
    )
    await agent.prompt("go")
    [request] = [e for e in seen if isinstance(e, PermissionRequest)]
    assert request.reason == "a PreToolUse hook asks: check this"


async def test_post_tool_use_feedback_reaches_the_model(tmp_path: Path) -> None:
    response_file = tmp_path / "response.json"
    spec = hook("PostToolUse", f"cat > {response_file}; echo 'lint: missing newline' >&2; exit 2")
    agent, provider, _ = make(tmp_path, [call("Echo", "e1", text="hi"), {"text": "ok"}], [spec], Echo())
    await agent.prompt("go")
    assert result_of(provider, "e1").content == "hi\n\nPostToolUse hook: lint: missing newline"
    assert json.loads(response_file.read_text())["tool_response"] == {"length": 2}


async def test_user_prompt_submit_adds_context_or_blocks(tmp_path: Path) -> None:
    agent, provider, _ = make(tmp_path, [{"text": "ok"}], [hook("UserPromptSubmit", "echo 'Current branch: main'")])
    await agent.prompt("status?")
    assert provider.requests[0].messages[0].content == [
        TextBlock(text="status?"),
        TextBlock(text="Current branch: main"),
    ]

    blocker = hook("UserPromptSubmit", "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0")
    agent2, provider2, _ = make(tmp_path, [{"text": "never"}], [blocker])
    result = await agent2.prompt("my password is hunter2")
    assert (
        result.stop == "error" and result.error == "A UserPromptSubmit hook blocked the prompt: no secrets in prompts"
    )
    assert provider2.requests == [] and agent2.messages == []


async def test_session_start_context_comes_once(tmp_path: Path) -> None:
    agent, provider, _ = make(tmp_path, [{"text": "a"}, {"text": "b"}], [hook("SessionStart", "echo 'Remember: tabs'")])
    await agent.prompt("one")
    await agent.prompt("two")
    assert provider.requests[0].messages[0].content[-1] == TextBlock(text="Remember: tabs")
    assert provider.requests[1].messages[-1].content == [TextBlock(text="two")]


async def test_a_stop_hook_can_send_the_agent_back_to_work_once(tmp_path: Path) -> None:
    spec = hook(
        "Stop",
        """python3 -c "
import json, sys
data = json.load(sys.stdin)
if not data['stop_hook_active']:
    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))
" """,
    )
    agent, provider, _ = make(tmp_path, [{"text": "Done."}, {"text": "Tests pass."}], [spec])
    result = await agent.prompt("fix it")
    assert result.text == "Tests pass." and len(provider.requests) == 2
    [told] = provider.requests[1].messages[-1].content  # (Claude Code's words: the hook's command, then why)
    assert isinstance(told, TextBlock) and told.text.startswith("Stop hook feedback:\n[python3 -c ")
    assert told.text.endswith("]: run the tests first")


async def test_failures_and_timeouts_warn_and_continue(tmp_path: Path) -> None:
    specs = [hook("PreToolUse", "echo broken >&2; exit 1"), hook("PreToolUse", "sleep 30", timeout=0.3)]
    agent, provider, seen = make(tmp_path, [call("Echo", "e1", text="hi"), {"text": "ok"}], specs, Echo())
    await agent.prompt("go")
    assert result_of(provider, "e1").content == "hi"
    notices = sorted(e.message for e in seen if isinstance(e, Notice))
    assert notices == [
        "The PreToolUse hook `echo broken >&2; exit 1` failed with exit code 1 (broken); continuing.",
        "The PreToolUse hook `sleep 30` timed out after 0.3 s and was stopped; continuing.",
    ]


def test_a_projects_own_hooks_run_only_once_it_is_trusted(tmp_path: Path) -> None:
    settings = SettingsFile.model_validate(
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}
                ],
                "Unknown": [],
            }
        }
    )
    user = SettingsSource("user", tmp_path / "u.json", settings)
    project = SettingsSource("project", tmp_path / "p.json", settings)
    assert [s.source for s in specs_from([user, project], trusted=False)] == ["user"]
    trusted = specs_from([user, project], trusted=True)
    assert [(s.source, s.matcher, s.timeout) for s in trusted] == [("user", "Bash", 5.0), ("project", "Bash", 5.0)]


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        ("", "Bash", True),
        ("*", "X", True),
        ("Edit|Write", "Write", True),
        ("Edit", "Edit2", False),
        ("mcp__.*", "mcp__gh__x", True),
        ("[bad", "[bad", True),
    ],
)
def test_matcher_semantics(matcher: str, tool: str, expected: bool) -> None:
    assert hook("PreToolUse", "true", matcher=matcher).matches(tool) is expected


async def test_a_link_swapped_after_the_permission_check_cannot_redirect_a_write(tmp_path: Path) -> None:
    """The PreToolUse hook runs between the check and the write: here it plays the attacker and swaps the link."""
    from agentui.core.tools.write import Write

    root, outside = tmp_path / "proj", tmp_path / "secret.txt"
    root.mkdir()
    outside.write_text("secret\n")
    (root / "notes.txt").write_text("notes\n")
    (root / "link.txt").symlink_to(root / "notes.txt")
    ws = Workspace(root=root)
    ws.record_read(root / "notes.txt")
    engine = PermissionEngine(ws, mode="acceptEdits")
    swap = hook("PreToolUse", f"ln -sfn {outside} {root / 'link.txt'}")
    agent, provider, _ = make(
        root,
        [call("Write", "w1", file_path="link.txt", content="pwned\n"), {"text": "ok"}],
        [swap],
        Write(ws),
        gate=engine,
    )
    await agent.prompt("write")
    result = result_of(provider, "w1")
    assert result.is_error and "nothing was written" in result.content
    assert outside.read_text() == "secret\n" and (root / "notes.txt").read_text() == "notes\n"


async def compacted(tmp_path: Path, specs: list[HookSpec], instructions: str | None = None) -> Any:
    """An agent with `specs` that answered two prompts and then compacted (its summary: "the summary")."""
    agent, _provider, _ = make(tmp_path, [{"text": "one"}, {"text": "two"}, {"text": "the summary"}], specs)
    await agent.prompt("first")
    await agent.prompt("second")
    await agent.compact(instructions)
    return agent


async def test_pre_compact_runs_before_a_summary_with_its_trigger_and_instructions(tmp_path: Path) -> None:
    seen_input = tmp_path / "stdin.json"
    spec = hook("PreCompact", f"cat > {seen_input}", matcher="manual")
    agent = await compacted(tmp_path, [spec], "keep names")
    payload = json.loads(seen_input.read_text())
    assert payload["hook_event_name"] == "PreCompact" and payload["trigger"] == "manual"
    assert payload["custom_instructions"] == "keep names"
    assert agent.messages[0].text.endswith("the summary")


async def test_pre_compact_without_instructions_says_null_and_the_prompts_id(tmp_path: Path) -> None:
    """As Claude Code's PreCompact input: `custom_instructions` null when none were given, and the prompt's id."""
    seen_input = tmp_path / "stdin.json"
    spec = hook("PreCompact", f"cat > {seen_input}")
    await compacted(tmp_path, [spec])
    payload = json.loads(seen_input.read_text())
    assert payload["custom_instructions"] is None and payload["prompt_id"]
    assert list(payload)[:6] == ["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode",
                                 "hook_event_name"]  # fmt: skip


async def test_a_compaction_starts_the_session_again_with_source_compact(tmp_path: Path) -> None:
    seen_input = tmp_path / "stdin.json"
    spec = hook("SessionStart", f"cat >> {seen_input}; echo >> {seen_input}; echo kept-after-compaction")
    agent = await compacted(tmp_path, [spec])
    sources = [json.loads(line)["source"] for line in seen_input.read_text().splitlines() if line.strip()]
    assert sources == ["startup", "compact"]
    assert "kept-after-compaction" in json.dumps([m.model_dump() for m in agent.messages])


@pytest.mark.parametrize("behavior", ["allow", "deny"])
async def test_a_permission_request_hook_answers_for_the_person(tmp_path: Path, behavior: str) -> None:
    """As the person is about to be asked: a Notification, then PermissionRequest, whose decision answers (a deny's
    message is all the model reads); nobody is asked."""
    told = tmp_path / "told.json"
    answer = {"behavior": behavior, **({"message": "Not that note."} if behavior == "deny" else {})}
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": answer}})
    specs = [hook("Notification", f"cat >> {told}; echo >> {told}"),
             hook("PermissionRequest", f"cat >> {told}; echo >> {told}; echo '{output}'")]  # fmt: skip
    writer = WriteNote()
    agent, provider, seen = make(tmp_path, [call("WriteNote", "w1", note="x"), {"text": "ok"}], specs, writer)
    await agent.prompt("go")
    assert not any(isinstance(e, PermissionRequest) for e in seen)
    assert writer.written == (["x"] if behavior == "allow" else [])
    if behavior == "deny":
        assert result_of(provider, "w1").content == "Not that note."
    notice, request = [json.loads(line) for line in told.read_text().splitlines() if line.strip()]
    assert notice["hook_event_name"] == "Notification" and notice["notification_type"] == "permission_prompt"
    assert request["hook_event_name"] == "PermissionRequest" and request["tool_name"] == "WriteNote"
    assert request["tool_input"] == {"note": "x"}


async def test_post_compact_gets_the_summary(tmp_path: Path) -> None:
    seen_input = tmp_path / "stdin.json"
    await compacted(tmp_path, [hook("PostCompact", f"cat > {seen_input}")])
    payload = json.loads(seen_input.read_text())
    assert payload["trigger"] == "manual" and payload["compact_summary"].endswith("the summary")


def told(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []


async def test_post_tool_batch_runs_once_for_a_responses_calls_and_its_context_reaches_the_model(
    tmp_path: Path,
) -> None:
    log = tmp_path / "told.jsonl"
    said = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "both ran"}})
    spec = hook("PostToolBatch", f"cat >> {log}; echo >> {log}; echo '{said}'")
    both = {"content": [*call("Echo", "e1", text="one")["content"], *call("Echo", "e2", text="two")["content"]]}
    agent, provider, _ = make(tmp_path, [both, {"text": "ok"}], [spec], Echo())
    await agent.prompt("go")
    (batch,) = told(log)
    assert list(batch)[-2:] == ["hook_event_name", "tool_calls"] and batch["permission_mode"] == "default"
    assert batch["tool_calls"] == [
        {"tool_name": "Echo", "tool_input": {"text": "one"}, "tool_use_id": "e1", "tool_response": "one"},
        {"tool_name": "Echo", "tool_input": {"text": "two"}, "tool_use_id": "e2", "tool_response": "two"},
    ]
    assert "PostToolBatch hook additional context: both ran" in json.dumps(
        [m.model_dump() for m in provider.requests[-1].messages]
    )


async def test_a_post_tool_batch_block_ends_the_run_before_the_next_model_call(tmp_path: Path) -> None:
    spec = hook("PostToolBatch", "echo 'enough' >&2; exit 2")
    agent, provider, _ = make(tmp_path, [call("Echo", "e1", text="hi"), {"text": "never"}], [spec], Echo())
    result = await agent.prompt("go")
    assert len(provider.requests) == 1 and result.stop == "end_turn"


async def test_stop_failure_runs_instead_of_stop_when_the_api_ends_the_run_and_only_then(tmp_path: Path) -> None:
    log = tmp_path / "told.jsonl"
    specs = [hook(event, f"cat >> {log}; echo >> {log}") for event in ("Stop", "StopFailure")]
    agent, _provider, _ = make(tmp_path, [{"error": {"status": 401, "message": "who are you"}}], specs)
    result = await agent.prompt("go")
    (failure,) = told(log)
    assert result.stop == "error" and failure["hook_event_name"] == "StopFailure"
    assert failure["error"] == "authentication_failed" and "permission_mode" not in failure
    assert list(failure)[-3:] == ["hook_event_name", "error", "last_assistant_message"]
    assert failure["last_assistant_message"] == result.error
    blocked, _provider, _ = make(tmp_path, [{"text": "never"}], [*specs, hook("UserPromptSubmit", "exit 2")])
    await blocked.prompt("go")  # (a run a hook refused is not the API's failure)
    assert len(told(log)) == 1


async def test_cwd_changed_runs_when_a_call_moves_the_shell_and_every_input_says_where_it_is(tmp_path: Path) -> None:
    log = tmp_path / "told.jsonl"
    specs = [hook(event, f"cat >> {log}; echo >> {log}") for event in ("CwdChanged", "PostToolUse", "Stop")]
    agent, _provider, _ = make(tmp_path, [call("Echo", "e1", text="cd"), {"text": "ok"}], specs, Echo())
    assert agent.services.hooks is not None
    place = [tmp_path]
    agent.services.hooks.where = lambda: place[-1]
    moves = lambda event: place.append(tmp_path / "sub") if isinstance(event, ToolProgress) else None  # noqa: E731
    agent.bus.on(moves)  # (as the tool runs, as a `cd` in Bash moves the shell)
    await agent.prompt("go")
    events = told(log)
    assert [e["hook_event_name"] for e in events] == ["PostToolUse", "CwdChanged", "Stop"]
    moved = events[1]
    assert list(moved)[-3:] == ["hook_event_name", "old_cwd", "new_cwd"] and "permission_mode" not in moved
    assert moved["old_cwd"] == str(tmp_path) and moved["new_cwd"] == moved["cwd"] == str(tmp_path / "sub")


async def test_instructions_loaded_names_each_memory_file_at_the_start_and_nested_ones_after_their_batch(
    tmp_path: Path,
) -> None:
    from agentui.core.context.memory import MemoryLoader

    (tmp_path / "CLAUDE.md").write_text("See @extra.md\n")
    (tmp_path / "extra.md").write_text("Extra.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "CLAUDE.md").write_text("Below.\n")
    (tmp_path / "sub" / "a.txt").write_text("a\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "CLAUDE.md").write_text("Other.\n")
    (tmp_path / "other" / "b.txt").write_text("b\n")
    log = tmp_path / "told.jsonl"
    specs = [hook(event, f"cat >> {log}; echo >> {log}") for event in ("InstructionsLoaded", "PostToolBatch")]
    memory = MemoryLoader(tmp_path, {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "home")})
    memory.load()
    from agentui.core.tools.read import Read
    from agentui.core.workspace import Workspace

    reads = [*call("Read", "r1", file_path=str(tmp_path / "sub" / "a.txt"))["content"],
             *call("Read", "r2", file_path=str(tmp_path / "other" / "b.txt"))["content"]]  # fmt: skip
    provider = ScriptedProvider([{"content": reads}, {"text": "ok"}])
    hooks = Hooks(specs, cwd=tmp_path)
    config = AgentConfig(model="m", cwd=tmp_path)
    tools = ToolRegistry([Read(Workspace(root=tmp_path))])
    agent = new_agent(provider, config, tools=tools, hooks=hooks, memory=memory)
    await agent.prompt("go")
    await agent.prompt("again")  # (each file once)
    events = told(log)
    assert [(e["hook_event_name"], e.get("load_reason")) for e in events] == [
        ("InstructionsLoaded", "session_start"), ("InstructionsLoaded", "include"), ("PostToolBatch", None),
        ("InstructionsLoaded", "nested_traversal"), ("InstructionsLoaded", "nested_traversal"),
    ]  # fmt: skip
    start, included, _batch, *reached = events
    nested, other = sorted(reached, key=lambda e: e["file_path"], reverse=True)  # (the reads ran together)
    assert "prompt_id" not in start and nested["prompt_id"] and "permission_mode" not in nested
    assert start["memory_type"] == included["memory_type"] == nested["memory_type"] == "Project"
    assert included["parent_file_path"] == str(tmp_path / "CLAUDE.md")
    assert nested["trigger_file_path"] == str(tmp_path / "sub" / "a.txt")
    assert other["file_path"] == str(tmp_path / "other" / "CLAUDE.md")  # (each with the read that reached it)
    assert other["trigger_file_path"] == str(tmp_path / "other" / "b.txt")


async def test_a_task_hook_that_refuses_leaves_no_task_and_no_completion(tmp_path: Path) -> None:
    from agentui.core.tools.tasks import TaskCreate, TaskUpdate
    from agentui.core.workspace import Workspace

    log = tmp_path / "told.jsonl"
    refuse = f"cat >> {log}; echo >> {log}; echo 'not like that' >&2; exit 2"
    workspace = Workspace(root=tmp_path)
    create, update = TaskCreate(workspace), TaskUpdate(workspace)
    script = [call("TaskCreate", "c1", subject="A", description="first"), {"text": "ok"}]
    agent, provider, _ = make(tmp_path, script, [hook("TaskCreated", refuse)], create, update)
    assert agent.services.hooks is not None
    create.hook = update.hook = agent.services.hooks.task_event
    await agent.prompt("go")
    refused = result_of(provider, "c1")
    assert refused.is_error and refused.content == "TaskCreated hook feedback:\nnot like that"
    assert workspace.tasks.tasks() == []
    (created,) = told(log)
    assert list(created)[-4:] == ["hook_event_name", "task_id", "task_subject", "task_description"]
    assert (created["task_id"], created["task_subject"], created["task_description"]) == ("1", "A", "first")

    task = workspace.tasks.create("B", "second")
    script = [call("TaskUpdate", "u1", taskId=task.id, status="completed"), {"text": "ok"}]
    agent, provider, _ = make(tmp_path, script, [hook("TaskCompleted", refuse)], create, update)
    assert agent.services.hooks is not None
    create.hook = update.hook = agent.services.hooks.task_event
    await agent.prompt("go")
    assert result_of(provider, "u1").content == "TaskCompleted hook feedback:\nnot like that"
    assert workspace.tasks.get(task.id).status == "pending" and told(log)[-1]["hook_event_name"] == "TaskCompleted"


async def test_user_prompt_expansion_runs_before_user_prompt_submit_and_may_refuse_the_prompt(tmp_path: Path) -> None:
    from agentui.core.extend.hooks import PromptBlocked

    log = tmp_path / "told.jsonl"
    record = f"cat >> {log}; echo >> {log}"
    hooks = Hooks([hook("UserPromptExpansion", record), hook("UserPromptSubmit", record)], cwd=tmp_path)
    hooks.expansion = ("greet", "world", "projectSettings")
    await hooks.before_prompt("s1", "Say hello to world.")
    expanded, submitted = told(log)
    assert list(expanded)[-6:] == ["hook_event_name", "expansion_type", "command_name", "command_args",
                                   "command_source", "prompt"]  # fmt: skip
    assert expanded["prompt"] == submitted["prompt"] == "/greet world"  # (the command as typed, in both)
    await hooks.before_prompt("s1", "plain")  # (told once: the next prompt is no command's)
    assert [e["hook_event_name"] for e in told(log)][2:] == ["UserPromptSubmit"]
    refusing = Hooks([hook("UserPromptExpansion", "echo 'no greetings' >&2; exit 2")], cwd=tmp_path)
    refusing.expansion = ("greet", "", "userSettings")
    with pytest.raises(PromptBlocked, match="no greetings"):
        await refusing.before_prompt("s1", "Say hello to .")
