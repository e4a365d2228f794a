"""Hooks a model answers ("prompt" and "agent" hooks) and a PermissionRequest hook's updatedInput, on agentui and on
the real Claude Code: the same settings, the same played model, the same outcome (what ran, what the model read, what
the hook's model was asked)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, HookMatcher, ResultMessage

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import options, text, tool
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


def judged(request: RecordedRequest) -> bool:
    """Whether the request is a hook's model call (by its system prompt, the same in both)."""
    system = json.dumps(request.json().get("system", ""))
    return "hook in Claude Code" in system or "hook condition in Claude Code" in system


def play(
    server: LoopbackServer, turns: list[list[dict[str, Any]]], answers: list[list[dict[str, Any]]]
) -> tuple[list[RecordedRequest], list[RecordedRequest]]:
    """The conversation's model plays `turns`, the hook's model `answers`, each in order; their requests, as they
    come (title and other side requests get a short text)."""
    main: list[RecordedRequest] = []
    hook: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        mine = hook if judged(request) else main if request.json().get("tools") else None
        if mine is None:
            return Reply(chunks=anthropic_stream([text("A title")]))
        mine.append(request)
        script = answers if mine is hook else turns
        blocks = script[min(len(mine), len(script)) - 1]
        stop = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
        tag = "h" if mine is hook else "m"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"msg_{tag}{len(mine)}"))

    server.responder = model
    return main, hook


def run(cli: str, server: LoopbackServer, home: Path, hooks: dict[str, Any], *flags: str) -> str:
    """`cli -p go` in a trusted project whose settings have `hooks`; its result."""
    project = home / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--output-format", "json", *flags],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["result"])


def system_text(request: RecordedRequest) -> str:
    """The hook's own system prompt (Claude Code puts its billing line and identity before it)."""
    system = request.json()["system"]
    return system if isinstance(system, str) else system[-1]["text"]


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [block.get("text", "") for block in content]


def tool_result(request: RecordedRequest, call_id: str) -> dict[str, Any]:
    for message in request.json()["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and block["tool_use_id"] == call_id:
                return dict(block)
    raise AssertionError(f"no result for {call_id}")


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def test_a_stop_prompt_hook_that_says_no_makes_the_agent_go_on_once(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    asked, feedback = {}, {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        main, hook = play(
            server,
            [[text("First.")], [text("Second.")]],
            [[text('{"ok": false, "reason": "say Second"}')], [text('{"ok": true, "reason": "it did"}')]],
        )
        hooks = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did it say Second?"}]}]}
        assert run(cli, server, tmp_path / name, hooks) == "Second."
        assert len(main) == 2 and len(hook) == 2, name
        feedback[name] = texts(main[1].json()["messages"][-1])[-1]
        asked[name] = hook[0]
    assert feedback["agentui"] == feedback["claude"] == "Stop hook feedback:\n[Did it say Second?]: say Second"
    ours, theirs = asked["agentui"].json(), asked["claude"].json()
    assert system_text(asked["agentui"]) == system_text(asked["claude"])
    assert not ours.get("tools") and not theirs.get("tools")
    question = {name: texts(request.json()["messages"][-1])[-1] for name, request in asked.items()}
    head = {name: said.split("ARGUMENTS: ")[0] for name, said in question.items()}
    assert (
        head["agentui"]
        == head["claude"]
        == (
            "Based on the conversation transcript above, has the following stopping condition been satisfied? Answer "
            "based on transcript evidence only.\n\nCondition: Did it say Second?\n\n"
        )
    )
    arguments = {name: json.loads(said.split("ARGUMENTS: ")[1]) for name, said in question.items()}
    assert list(arguments["agentui"]) == list(arguments["claude"])
    # The conversation goes before the question: the prompt and the answer being judged.
    for request in (ours, theirs):
        said = [text for message in request["messages"][:-1] for text in texts(message)]
        assert "go" in said and said[-1] == "First."


def test_a_pre_tool_use_prompt_hook_that_says_no_denies_the_call(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    prompts = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        call = tool("toolu_1", "Bash", command="echo hi > out.txt", description="write")
        main, hook = play(server, [[call], [text("Done.")]], [[text('{"ok": false, "reason": "no writing"}')]])
        asks = {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS"}
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [asks]}]}
        assert run(cli, server, tmp_path / name, hooks, "--allowedTools", "Bash") == "Done."
        assert not (tmp_path / name / "project" / "out.txt").exists(), name
        denied = tool_result(main[1], "toolu_1")
        assert denied["is_error"] and "[Is this command safe? $ARGUMENTS]: no writing" in result_text(denied), name
        assert len(hook) == 1 and len(hook[0].json()["messages"]) == 1
        prompts[name] = hook[0]
    assert system_text(prompts["agentui"]) == system_text(prompts["claude"])
    said = {name: texts(request.json()["messages"][0])[0] for name, request in prompts.items()}
    given = {name: json.loads(text.removeprefix("Is this command safe? ")) for name, text in said.items()}
    assert list(given["agentui"]) == list(given["claude"])
    assert given["agentui"]["tool_input"] == given["claude"]["tool_input"]


def test_a_post_tool_use_prompt_hook_that_says_no_ends_the_run_after_the_call(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        call = tool("toolu_1", "Bash", command="echo hi", description="say")
        main, hook = play(server, [[call], [text("Done.")]], [[text('{"ok": false, "reason": "not fine"}')]])
        hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Was it fine?"}]}]}
        assert run(cli, server, tmp_path / name, hooks, "--allowedTools", "Bash") == "", name
        assert len(main) == 1 and len(hook) == 1, name  # (the model is not called again)


def test_an_agent_hook_verifies_with_tools_and_its_no_denies_the_call(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    systems = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        project = tmp_path / name / "project"
        call = tool("toolu_1", "Bash", command="echo hi > out.txt", description="write")
        looks = tool("toolu_v1", "Read", file_path=str(project / "notes.txt"))
        verdict = tool("toolu_v2", "StructuredOutput", ok=False, reason="no writing")
        main, hook = play(server, [[call], [text("Done.")]], [[looks], [verdict]])
        project.mkdir(parents=True)
        (project / "notes.txt").write_text("frozen\n")
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "Check: $ARGUMENTS"}]}]}
        assert run(cli, server, tmp_path / name, hooks, "--allowedTools", "Bash") == "Done."
        assert not (project / "out.txt").exists(), name
        denied = tool_result(main[1], "toolu_1")
        assert denied["is_error"] and "Agent hook condition was not met: no writing" in result_text(denied), name
        assert len(hook) == 2 and "frozen" in result_text(tool_result(hook[1], "toolu_v1")), name  # (it read)
        offered = {spec["name"]: spec for spec in hook[0].json()["tools"]}
        assert {"Read", "StructuredOutput"} <= set(offered) and "Agent" not in offered and "Task" not in offered
        assert offered["StructuredOutput"]["input_schema"]["required"] == ["ok"]
        systems[name] = system_text(hook[0]).split("The conversation transcript is available at: ")
    assert (
        systems["agentui"][0]
        == systems["claude"][0]
        == (
            "You are evaluating a PreToolUse hook in Claude Code. Your task is to evaluate the condition described in "
            "the user message. "
        )
    )
    assert systems["agentui"][1].split("\n", 1)[1] == systems["claude"][1].split("\n", 1)[1]


async def test_a_permission_request_hook_changes_the_input_and_a_deny_rule_still_wins(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """An Agent SDK program's PermissionRequest hook answers allow with an updatedInput: the call runs with it (the
    model's own input does not run), unless a deny rule names the new input."""
    made = {
        name: {target: await changed_write(cli, server, tmp_path, f"{name}-{target}", target)
               for target in ("b.txt", "secret.txt")}
        for name, cli in (("claude", claude_bin), ("agentui", agentui_bin))
    }  # fmt: skip
    assert made["agentui"] == made["claude"] == {"b.txt": True, "secret.txt": False}


async def changed_write(cli: str, server: LoopbackServer, tmp_path: Path, name: str, target: str) -> bool:
    """The model writes a.txt, a PermissionRequest hook changes the call to write `target` (a deny rule names
    secret.txt): whether `target` was written."""
    project = tmp_path / name
    play(server, [[tool("toolu_1", "Write", file_path=str(project / "a.txt"), content="model\n")], [text("Done.")]], [])

    async def allow(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        changed = {**hook_input["tool_input"], "file_path": str(project / target), "content": "changed\n"}
        decision = {"behavior": "allow", "updatedInput": changed}
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}

    async def nobody(tool_name: str, given: dict[str, Any], context: Any) -> Any:
        await asyncio.Event().wait()  # (Claude Code asks the program while its hook runs: the hook answers)

    hooks = {"PermissionRequest": [HookMatcher(matcher="Write", hooks=[allow])]}
    opts = options(cli, server, tmp_path, name, can_use_tool=nobody, disallowed_tools=["Edit(secret.txt)"], hooks=hooks)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("write it")
        messages = [message async for message in client.receive_response()]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Done.", name
    assert not (project / "a.txt").exists(), name  # (the model's input did not run)
    return (project / target).exists()


def test_a_stop_command_hook_that_blocks_tells_the_model_in_claude_codes_words(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    once = "cat > /dev/null; [ -e once ] && exit 0; touch once; echo 'run the tests first' >&2; exit 2"
    feedback = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        main, _ = play(server, [[text("First.")], [text("Second.")]], [])
        assert run(cli, server, tmp_path / name, {"Stop": [{"hooks": [{"type": "command", "command": once}]}]}) == (
            "Second."
        )
        feedback[name] = texts(main[1].json()["messages"][-1])[-1]
    assert feedback["agentui"] == feedback["claude"] == f"Stop hook feedback:\n[{once}]: run the tests first\n"
