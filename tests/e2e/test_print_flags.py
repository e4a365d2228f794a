"""The flags the Agent SDKs and scripts pass to `claude -p`, on agentui against the loopback Messages API: each does
what Claude Code's does, as the request the model receives and the files left behind show."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentui.core.messages import command_record
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    # The project's own settings deny Read of secrets (a deny applies whether or not the project is trusted).
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(./secret.txt)"]}}))
    (root / "secret.txt").write_text("s3cret\n")
    return root


def run(
    agentui_bin: str, env: dict[str, str], server: LoopbackServer, project: Path, *flags: str, replies: int = 1
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    for _ in range(replies):
        server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    done = subprocess.run(
        [agentui_bin, "-p", "hi", *flags],
        env={**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done, [request.json() for request in server.requests]


def sessions(env: dict[str, str]) -> list[Path]:
    return sorted((Path(env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl"))


def test_system_prompt_files_tools_thinking_and_a_name(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, tmp_path: Path
) -> None:
    (tmp_path / "system.md").write_text("You are a terse assistant.")
    (tmp_path / "extra.md").write_text("Always answer in French.")
    _, [request] = run(
        agentui_bin, clean_env, server, project,
        "--system-prompt-file", str(tmp_path / "system.md"), "--append-system-prompt-file", str(tmp_path / "extra.md"),
        "--tools", "Read,Glob", "--max-thinking-tokens", "2048", "-n", "french run",
    )  # fmt: skip
    system = json.dumps(request["system"])
    assert "You are a terse assistant." in system and "Always answer in French." in system
    assert "Claude Code" not in system.split("You are a terse")[0][-200:]  # (the built-in instructions were replaced)
    assert sorted(tool["name"] for tool in request["tools"]) == ["Glob", "Read"]
    assert request["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    [session] = sessions(clean_env)
    titles = [json.loads(line) for line in session.read_text().splitlines() if '"custom-title"' in line]
    assert titles and titles[0]["customTitle"] == "french run"


def test_no_session_persistence_leaves_no_session_file(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    done, _ = run(agentui_bin, clean_env, server, project, "--no-session-persistence", "--output-format", "json")
    assert json.loads(done.stdout)["result"] == "ok"
    assert sessions(clean_env) == []


def test_setting_sources_and_settings_decide_which_rules_apply(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "secret.txt"}}

    def read_secret(*flags: str) -> dict[str, Any]:
        server.requests.clear()
        server.enqueue(Reply(chunks=anthropic_stream([read], stop_reason="tool_use")))
        _, requests = run(agentui_bin, clean_env, server, project, *flags)
        result: dict[str, Any] = requests[1]["messages"][-1]["content"][0]
        return result

    assert read_secret()["is_error"]  # the project's deny rule
    assert not read_secret("--setting-sources", "user").get("is_error")  # the project's file is not read
    denied = read_secret("--setting-sources", "user", "--settings", '{"permissions": {"deny": ["Read"]}}')
    assert denied["is_error"] and "Read" in denied["content"]


def test_rules_may_be_given_space_separated_as_claude_codes(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    touch = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "touch made.txt"}}
    server.enqueue(Reply(chunks=anthropic_stream([touch], stop_reason="tool_use")))
    run(agentui_bin, clean_env, server, project, "--allowedTools", "Bash(touch:*)", "Read", replies=1)
    assert (project / "made.txt").exists()


def test_bad_flags_are_one_sentence(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    for flags, said in (
        (["--system-prompt-file", str(tmp_path / "missing.md")], "--system-prompt-file: "),
        (["--setting-sources", "user,everything"], "--setting-sources takes user, project and local, not everything"),
        (["--settings", "{not json"], "--settings was given JSON that is not a settings file"),
    ):
        done = subprocess.run(
            [agentui_bin, "-p", "hi", "--provider", "scripted", "--script", "/dev/null", *flags],
            env=clean_env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode != 0 and said in done.stderr, (flags, done.stderr)
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_a_custom_command_is_expanded_in_print_mode(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir()
    (commands / "review.md").write_text("---\ndescription: Review a file\n---\nReview $0 for $ARGUMENTS, briefly.\n")
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Reviewed."}])))
    done = subprocess.run(
        [agentui_bin, "-p", "/review calc.py bugs"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Reviewed.", done.stderr
    sent = server.requests[0].json()["messages"][0]["content"]
    said = [block["text"] for block in sent if not block["text"].startswith("<system-reminder>")]
    assert said == [command_record("review", "calc.py bugs"), "Review calc.py for calc.py bugs, briefly.\n"]  # ($0)


def test_a_run_stops_at_its_budget(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    costly = {"input_tokens": 1_000_000, "output_tokens": 10}  # $3 at Sonnet's list price
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "secret.txt"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([read], stop_reason="tool_use", model="claude-sonnet-4-5", usage=costly))
    )
    done = subprocess.run(
        [agentui_bin, "-p", "read", "--max-budget-usd", "1.5", "--output-format", "json"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert done.returncode == 1 and result["subtype"] == "error_max_budget_usd", done.stderr
    assert result["total_cost_usd"] >= 1.5 and len(server.requests) == 1  # no second call once over the budget


def test_token_and_time_limits_stop_a_run_from_the_flags_or_the_config_file(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "secret.txt"}}
    reading = Reply(
        chunks=anthropic_stream([read], stop_reason="tool_use", usage={"input_tokens": 900, "output_tokens": 200})
    )
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}
    server.enqueue(reading)
    done = subprocess.run(
        [agentui_bin, "-p", "read", "--max-total-tokens", "1000", "--output-format", "json"],
        env=env, cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert done.returncode == 1 and result["subtype"] == "error_during_execution", done.stderr
    assert result["terminal_reason"] == "max_total_tokens" and len(server.requests) == 1
    assert result["errors"] == ["The run stopped at the token limit (--max-total-tokens)."]
    # The same limit from agentui's config file, in text mode: the answer so far, and why it stopped on stderr.
    (Path(env["AGENTUI_CONFIG_DIR"])).mkdir(parents=True)
    (Path(env["AGENTUI_CONFIG_DIR"]) / "config.json").write_text(json.dumps({"max_total_tokens": 1000}))
    server.enqueue(reading)
    done = subprocess.run(
        [agentui_bin, "-p", "read"], env=env, cwd=project, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and "The run stopped at the token limit" in done.stderr, done.stderr
    assert len(server.requests) == 2 and "Traceback" not in done.stderr


def test_the_fallback_model_takes_over_from_an_overloaded_one(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    def model(request: Any) -> Reply:
        if request.json()["model"] == "claude-big":
            return Reply.error(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "From the fallback."}]))

    server.responder = model
    done = subprocess.run(
        [agentui_bin, "-p", "hi", "--model", "claude-big", "--fallback-model", "claude-small"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x", "AGENTUI_MAX_ATTEMPTS": "2"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "From the fallback.", done.stderr
    assert "claude-big stayed overloaded; going on with claude-small" in done.stderr
    assert [r.json()["model"] for r in server.requests][-1] == "claude-small"


def test_agents_hook_events_betas_and_thinking(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    claude = Path(clean_env["HOME"]) / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    hook = {"matcher": "Read", "hooks": [{"type": "command", "command": "echo checked"}]}
    (claude / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    (project / "notes.txt").write_text("notes\n")
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([read], stop_reason="tool_use", message_id="m1")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}], message_id="m2")),
    )
    agents = {"reviewer": {"description": "Reviews diffs", "prompt": "You review.", "tools": ["Read"]}}
    done = subprocess.run(
        [agentui_bin, "-p", "go", "--output-format", "stream-json", "--include-hook-events", "--agents",
         json.dumps(agents), "--betas", "context-1m-2025-08-07", "--thinking", "enabled"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert "reviewer" in lines[0]["agents"]
    hooks = [line for line in lines if line.get("subtype") in ("hook_started", "hook_response")]
    assert [h["subtype"] for h in hooks] == ["hook_started", "hook_response"]
    assert hooks[1]["hook_event"] == "PreToolUse" and hooks[1]["stdout"].strip() == "checked"
    assert hooks[1]["outcome"] == "success" and hooks[0]["hook_id"] == hooks[1]["hook_id"]
    first = server.requests[0]
    assert first.headers["anthropic-beta"] == "context-1m-2025-08-07"
    body = first.json()
    assert body["thinking"]["type"] == "enabled" and body["thinking"]["budget_tokens"] > 0
    agent_tool = next(t for t in body["tools"] if t["name"] == "Agent")
    assert "reviewer: Reviews diffs (Tools: Read)" in agent_tool["description"]


def test_flags_agentui_cannot_honour_are_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    for flags, said in (
        (["--effort", "extreme"], "argument --effort: invalid choice: 'extreme'"),
        (["--plugin-dir", "x"], "--plugin-dir x: no such directory."),
        (["--agents", "[1]"], "--agents takes a JSON object of agent types by name"),
        (["--max-budget-usd", "0"], "'0' is not more than 0"),
        (["--max-duration", "soon"], "'soon' is not a number"),
    ):
        done = subprocess.run(
            [agentui_bin, "-p", "hi", *flags], env=clean_env, cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, (flags, done.stderr)


def test_resume_session_at_goes_on_from_that_message(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}

    def ask(prompt: str, answer: str, *flags: str) -> subprocess.CompletedProcess[str]:
        server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": answer}], message_id=f"m_{answer}")))
        return subprocess.run(
            [agentui_bin, "-p", prompt, *flags], env=env, cwd=project, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip

    ask("one", "first")
    [session] = sessions(clean_env)
    ask("two", "second", "--resume", session.stem)
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    first_answer = next(e for e in entries if e["type"] == "assistant" and "first" in json.dumps(e["message"]))
    server.requests.clear()
    done = ask("three", "third", "--resume", session.stem, "--resume-session-at", first_answer["uuid"])
    assert done.returncode == 0 and done.stdout.strip() == "third", done.stderr
    texts = json.dumps(server.requests[0].json()["messages"])
    assert "one" in texts and "first" in texts and "three" in texts and "second" not in texts

    missing = ask("four", "x", "--resume", session.stem, "--resume-session-at", "no-such-uuid")
    assert missing.returncode != 0 and "has no message no-such-uuid" in missing.stderr


def test_json_schema_gives_a_checked_structured_output(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    wrong = {"type": "tool_use", "id": "s1", "name": "StructuredOutput", "input": {"count": "three"}}
    right = {"type": "tool_use", "id": "s2", "name": "StructuredOutput", "input": {"count": 3}}
    server.enqueue(
        Reply(chunks=anthropic_stream([wrong], stop_reason="tool_use", message_id="m1")),
        Reply(chunks=anthropic_stream([right], stop_reason="tool_use", message_id="m2")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "There are 3."}], message_id="m3")),
    )
    done = subprocess.run(
        [agentui_bin, "-p", "count them", "--output-format", "json", "--json-schema", json.dumps(schema)],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structured_output"] == {"count": 3}
    first = server.requests[0].json()
    tool = next(t for t in first["tools"] if t["name"] == "StructuredOutput")
    assert tool["input_schema"] == schema and "StructuredOutput" in json.dumps(first["system"])
    refused = server.requests[1].json()["messages"][-1]["content"][0]
    assert (
        refused["is_error"]
        and "does not match the schema (count: 'three' is not of type 'integer')" in refused["content"]
    )

    bad = subprocess.run(
        [agentui_bin, "-p", "x", "--json-schema", '{"type": "array"}'],
        env=clean_env, cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "--json-schema cannot be used: the schema must describe a JSON object" in bad.stderr


def test_stream_json_shows_a_sub_agents_messages_under_its_call(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    (project / "notes.txt").write_text("notes\n")
    child_turns: list[int] = []

    def model(request: Any) -> Reply:
        body = request.json()
        if "You are a sub-agent" in json.dumps(body.get("system", "")):
            child_turns.append(1)
            if len(child_turns) == 1:
                read = {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "notes.txt"}}
                return Reply(chunks=anthropic_stream([read], stop_reason="tool_use", message_id="c_m1"))
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "It says notes."}], message_id="c_m2"))
        last = body["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "The agent read it."}], message_id="p_m2"))
        call = {
            "type": "tool_use",
            "id": "a1",
            "name": "Agent",
            "input": {"description": "read notes", "prompt": "Read notes.txt", "subagent_type": "general-purpose"},
        }
        return Reply(chunks=anthropic_stream([call], stop_reason="tool_use", message_id="p_m1"))  # fmt: skip

    server.responder = model
    done = subprocess.run(
        [agentui_bin, "-p", "delegate", "--output-format", "stream-json"],
        env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    under = [
        (line["type"], line["message"]["content"][0]["type"])
        for line in lines
        if line.get("parent_tool_use_id") == "a1"
    ]
    assert under == [("assistant", "tool_use"), ("user", "tool_result"), ("assistant", "text")]
    own = [line for line in lines if line["type"] == "user" and line["parent_tool_use_id"] is None]
    assert [line["message"]["content"][0]["tool_use_id"] for line in own] == ["a1"]
    assert lines[-1]["result"] == "The agent read it."


def test_a_mistyped_flag_is_one_sentence_naming_the_flag_meant(agentui_bin: str, clean_env: dict[str, str]) -> None:
    """As Claude Code says it: what is wrong, the option meant, where to read more; not the whole usage first."""
    for flags, said in (
        (["--modle", "x"], "unrecognized arguments: --modle x (did you mean --model?)"),
        (["--bogus"], "unrecognized arguments: --bogus;"),
        (["--max-turns", "x"], "argument --max-turns: 'x' is not a whole number;"),
    ):
        done = subprocess.run(
            [agentui_bin, "-p", "hi", *flags], env=clean_env, capture_output=True, text=True, timeout=60,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 2 and done.stdout == "", flags
        assert done.stderr.count("\n") == 1 and said in done.stderr and "usage:" not in done.stderr, done.stderr
        assert done.stderr.rstrip().endswith("`agentui --help` lists the options."), done.stderr
