"""`agentui -p` as a person runs it: the installed command in a subprocess, against a model server on loopback."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agentui.core.events import parse_event
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream, recorded, recorded_events


def anthropic_env(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}


def run(
    agentui_bin: str, args: list[str], env: dict[str, str], stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run agentui in `cwd`, by default a fresh project directory beside the test's home."""
    if cwd is None:
        cwd = Path(env["HOME"]).parent / "project"
        cwd.mkdir(exist_ok=True)
    return subprocess.run(
        [agentui_bin, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )


def recorded_text(name: str) -> str:
    return "".join(p["delta"]["text"] for p in recorded_events(name) if p["type"] == "content_block_delta")


def assert_one_clean_sentence(stderr: str) -> None:
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr
    assert lines and lines[-1].startswith("agentui: ") and lines[-1].endswith((".", "?"))


def test_streams_the_reply_from_a_messages_api_server(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(Reply(chunks=recorded("anthropic_text.sse")))
    done = run(agentui_bin, ["-p", "Name three colors."], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == recorded_text("anthropic_text.sse") + "\n"
    assert done.stderr == ""
    body = server.requests[0].json()
    listing = body["messages"][0]["content"][0]  # (the agent types, as Claude Code lists them, then the prompt)
    assert listing["text"].startswith("<system-reminder>\nAvailable agent types for the Agent tool:\n")
    assert body["messages"] == [
        {"role": "user", "content": [listing, {"type": "text", "text": "Name three colors.",
                                               "cache_control": {"type": "ephemeral"}}]}
    ]  # fmt: skip
    assert "agentui" in body["system"][0]["text"] and body["max_tokens"] == 32000  # (Claude Code's, for its model)


def test_text_reaches_stdout_while_the_server_is_still_streaming(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    gate = threading.Event()
    chunks = recorded("anthropic_text.sse")
    first_delta = next(i for i, c in enumerate(chunks) if b"text_delta" in c)
    server.enqueue(Reply(chunks=chunks, gate=gate, gate_after=first_delta + 1))
    process = subprocess.Popen(
        [agentui_bin, "-p", "colors"],
        env=anthropic_env(clean_env, server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        assert selector.select(timeout=60), "no output while the server held the rest of the stream"
        first = os.read(process.stdout.fileno(), 100)  # type: ignore[union-attr]
        assert first == b"The"  # the first delta, printed before the server sent the second
    finally:
        gate.set()
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert (first + out).decode() == recorded_text("anthropic_text.sse") + "\n"


def test_events_are_valid_json_lines_of_the_bus(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    server.enqueue(Reply(chunks=recorded("anthropic_tool_use.sse")), Reply(chunks=recorded("anthropic_text.sse")))
    project = tmp_path / "project"
    project.mkdir()
    (project / "file_path.txt").write_text("hello\n")  # what the recorded model asks to Read
    done = run(
        agentui_bin, ["-p", "read it", "--output-format", "events"], anthropic_env(clean_env, server), cwd=project
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init" and lines[0]["permissionMode"] == "default"
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    events = [parse_event(json.dumps(line)) for line in lines[1:-1]]
    kinds = [e.type for e in events]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"
    assert {"text_delta", "tool_use_delta", "content_block_end", "tool_start", "tool_end", "usage"} <= set(kinds)
    # Reading inside the project needs no permission: the file's numbered lines go back to the model.
    tool_end = next(e for e in events if e.type == "tool_end")
    assert not tool_end.is_error and tool_end.content == "     1\thello"  # type: ignore[union-attr]
    second_request = server.requests[1].json()["messages"]
    assert second_request[-1]["content"][0]["content"] == "     1\thello"
    assert lines[-1]["session_id"] == lines[0]["session_id"] == events[0].session_id
    assert lines[-1]["num_turns"] == 2 and lines[-1]["result"] == recorded_text("anthropic_text.sse")


def test_json_output_is_one_result_object(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    server.enqueue(
        Reply(
            chunks=anthropic_stream(
                [{"type": "text", "text": "Four."}],
                model="claude-sonnet-4-5",
                usage={"input_tokens": 1000, "output_tokens": 100},
            )
        )
    )
    done = run(
        agentui_bin,
        ["-p", "2+2?", "--output-format", "json", "--model", "claude-sonnet-4-5"],
        anthropic_env(clean_env, server),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Four." and result["is_error"] is False and result["num_turns"] == 1
    assert result["usage"]["input_tokens"] == 1000 and result["usage"]["output_tokens"] == 100
    assert result["total_cost_usd"] == pytest.approx(1000 * 3e-6 + 100 * 15e-6)
    assert len(result["session_id"]) == 36


def test_a_529_is_retried_and_the_run_still_succeeds(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(
        Reply.error(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        Reply(chunks=recorded("anthropic_text.sse")),
    )
    done = run(agentui_bin, ["-p", "hi"], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == recorded_text("anthropic_text.sse") + "\n"
    assert done.stderr.startswith("agentui: retrying in ") and "(attempt 2 of 10)" in done.stderr
    assert len(server.requests) == 2


def test_a_rejected_key_is_one_sentence_and_exit_1(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(
        Reply.error(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    )
    done = run(agentui_bin, ["-p", "hi"], anthropic_env(clean_env, server))
    assert done.returncode == 1
    assert done.stdout == ""
    assert (
        done.stderr
        == "agentui: The Anthropic API rejected the API key (401); check ANTHROPIC_API_KEY: invalid x-api-key.\n"
    )


def test_an_unreachable_host_is_one_sentence_and_exit_1(agentui_bin: str, clean_env: dict[str, str]) -> None:
    closed = LoopbackServer()
    closed.close()
    env = {**clean_env, "ANTHROPIC_BASE_URL": closed.url, "ANTHROPIC_API_KEY": "x", "AGENTUI_MAX_ATTEMPTS": "1"}
    done = run(agentui_bin, ["-p", "hi"], env)
    assert done.returncode == 1
    sentence = f"agentui: Could not connect to {closed.url}/v1/messages: connection refused; is the server running?"
    assert done.stderr == sentence + "\n"
    # With the default policy a refused connection is tried three times in all, each retry announced.
    env.pop("AGENTUI_MAX_ATTEMPTS")
    done = run(agentui_bin, ["-p", "hi"], env)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and lines[-1] == sentence and len(lines) == 3
    assert all(line.startswith("agentui: retrying in ") for line in lines[:2])


def test_a_missing_key_says_how_to_configure_and_exits_2(agentui_bin: str, clean_env: dict[str, str]) -> None:
    done = run(agentui_bin, ["-p", "hi"], clean_env)
    assert done.returncode == 2
    assert done.stderr.startswith("agentui: No model is configured: set ANTHROPIC_API_KEY")
    assert_one_clean_sentence(done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_prompt_can_come_on_stdin(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}])))
    done = run(agentui_bin, ["-p"], anthropic_env(clean_env, server), stdin="diff --git a/x b/x\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Seen.\n"
    (said,) = without_listings(server.requests[0].json()["messages"][0]["content"])
    assert said["text"] == "diff --git a/x b/x\n"


def test_openai_compatible_server(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    server.enqueue(Reply(chunks=recorded("openai_text.sse")))
    env = {**clean_env, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_MODEL": "smollm2"}
    done = run(agentui_bin, ["-p", "Name three colors.", "--output-format", "json"], env)
    assert done.returncode == 0, done.stderr
    expected = "".join(
        c["choices"][0]["delta"].get("content") or "" for c in recorded_events("openai_text.sse") if c["choices"]
    )
    assert json.loads(done.stdout)["result"] == expected
    assert server.requests[0].path == "/v1/chat/completions" and server.requests[0].json()["model"] == "smollm2"


@pytest.mark.parametrize("output_format", ["json", "text"])
def test_max_turns_stops_the_run_with_exit_1(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, output_format: str
) -> None:
    # Reaching a limit the person set ends as Claude Code's does: exit 1, with the reason on stderr.
    script = tmp_path / "loop.json"
    calls = [{"content": [{"type": "tool_use", "id": f"t{i}", "name": "Missing", "input": {}}]} for i in range(5)]
    script.write_text(json.dumps(calls))
    flags = ["--provider", "scripted", "--script", str(script), "--max-turns", "2", "--output-format", output_format]
    done = run(agentui_bin, ["-p", "go", *flags], clean_env)
    assert done.returncode == 1
    if output_format == "json":
        result = json.loads(done.stdout)
        assert result["subtype"] == "error_max_turns" and result["num_turns"] == 2 and "result" not in result
        assert result["errors"] == ["Reached maximum number of turns (2)"]
    else:
        assert done.stderr == "agentui: stopped after 2 turns (--max-turns).\n"


def test_bad_usage_exits_2(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    assert run(agentui_bin, ["-p", "x", "--max-turns", "0"], clean_env).returncode == 2
    assert run(agentui_bin, ["-p", "x", "--output-format", "yaml"], clean_env).returncode == 2
    bad_script = run(
        agentui_bin, ["-p", "x", "--provider", "scripted", "--script", str(tmp_path / "none.json")], clean_env
    )
    assert (
        bad_script.returncode == 2
        and bad_script.stderr == f"agentui: The script file {tmp_path / 'none.json'} does not exist.\n"
    )
    empty = run(agentui_bin, ["-p"], {**clean_env, "ANTHROPIC_API_KEY": "x"}, stdin="  \n")
    assert empty.returncode == 2 and empty.stderr == "agentui: the prompt is empty.\n"


def test_a_malformed_config_file_is_one_sentence(agentui_bin: str, clean_env: dict[str, str]) -> None:
    config = Path(clean_env["AGENTUI_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.json").write_text("{provider: openai}")
    done = run(agentui_bin, ["-p", "hi"], clean_env)
    assert done.returncode == 2
    assert done.stderr == (
        f"agentui: agentui's config file {config / 'config.json'} is not valid JSON "
        "(line 1, column 2: Expecting property name enclosed in double quotes); fix or delete it.\n"
    )


def test_interrupt_stops_the_run_with_exit_130(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    gate = threading.Event()
    chunks = recorded("anthropic_text.sse")
    server.enqueue(Reply(chunks=chunks, gate=gate, gate_after=4))
    process = subprocess.Popen(
        [agentui_bin, "-p", "colors"],
        env=anthropic_env(clean_env, server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        assert selector.select(timeout=60)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)  # ends while the server still holds the stream open
    finally:
        gate.set()
    assert process.returncode == 130
    assert "Traceback" not in err.decode()


def test_python_dash_m_and_version(clean_env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentui", "--version"], capture_output=True, text=True, env=clean_env, timeout=30
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("(agentui)")


def test_interactive_mode_without_a_terminal_points_to_p(agentui_bin: str, clean_env: dict[str, str]) -> None:
    done = run(agentui_bin, [], {**clean_env, "ANTHROPIC_API_KEY": "x"})
    assert done.returncode == 2 and "use -p" in done.stderr


def test_a_network_drop_mid_answer_keeps_what_arrived(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    chunks = anthropic_stream(
        [
            {"type": "text", "text": "The first part is complete."},
            {"type": "text", "text": "The second part never finishes."},
        ]
    )
    second_block = next(i for i, c in enumerate(chunks) if b'"index": 1' in c)
    server.enqueue(Reply(chunks=chunks, cut_after=second_block + 2))
    done = run(agentui_bin, ["-p", "hi", "--output-format", "json"], anthropic_env(clean_env, server))
    assert done.returncode == 1 and len(server.requests) == 1  # not re-sent: that would repeat the answer
    result = json.loads(done.stdout)
    assert result["subtype"] == "error_during_execution" and result["result"] == "The first part is complete."
    assert result["error"].startswith("The response was cut off: the connection to the Anthropic API dropped: ")
    assert_one_clean_sentence(done.stderr)
