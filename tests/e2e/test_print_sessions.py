"""Sessions through the installed `agentui`: continue, resume (Claude Code's own sessions too), list, fork, lock."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from agentui.core.session.paths import project_dir
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.sse import anthropic_stream

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"


def agentui(agentui_bin: str, project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [agentui_bin, *args], env=env, cwd=project, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def server_env(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"}


def answer(text: str) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


def test_print_then_continue_makes_one_session_with_both_exchanges(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = server_env(clean_env, server)
    server.enqueue(answer("Hello!"), answer("Hello again!"))
    first = agentui(agentui_bin, project, env, "-p", "hi", "--output-format", "json")
    second = agentui(agentui_bin, project, env, "-p", "--continue", "again", "--output-format", "json")
    assert first.returncode == second.returncode == 0, second.stderr
    assert json.loads(first.stdout)["session_id"] == json.loads(second.stdout)["session_id"]
    [path] = project_dir(project, {"HOME": env["HOME"]}).glob("*.jsonl")
    prompts = [e["message"]["content"] for e in lines(path) if e["type"] == "user"]
    answers = [e["message"]["content"][0]["text"] for e in lines(path) if e["type"] == "assistant"]
    assert (prompts, answers) == (["hi", "again"], ["Hello!", "Hello again!"])
    assert [m["role"] for m in server.requests[1].json()["messages"]] == ["user", "assistant", "user"]
    claude_code_log_reads(path)


def _well_formed(messages: list[dict[str, Any]]) -> None:
    assert messages[0]["role"] == "user"
    for earlier, later in itertools.pairwise(messages):
        assert earlier["role"] != later["role"]  # alternating, as the Messages API requires
    for position, message in enumerate(messages):
        blocks = message["content"]
        calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if calls:
            answered = [b["tool_use_id"] for b in messages[position + 1]["content"] if b["type"] == "tool_result"]
            assert sorted(answered) == sorted(calls)
        for block in blocks:
            assert block["type"] in ("text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking")
            if block["type"] == "text":
                assert block["text"]
            if block["type"] == "thinking":
                assert block["signature"]


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("**/*.jsonl")), ids=lambda p: p.name[:20])
def test_every_claude_code_session_resumes_with_a_valid_request(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path, tmp_path: Path, fixture: Path
) -> None:
    copy = tmp_path / fixture.name
    shutil.copy(fixture, copy)
    server.enqueue(answer("Resumed."))
    done = agentui(agentui_bin, project, server_env(clean_env, server), "-p", "--resume", str(copy), "carry on")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Resumed.\n"
    [request] = server.requests
    messages = request.json()["messages"]
    _well_formed(messages)
    assert messages[-1]["content"][-1]["text"] == "carry on"
    assert len(messages) >= 2 or fixture.stat().st_size < 3000  # the history really went along
    appended = lines(copy)[-4:]
    assert [e.get("type") for e in appended][-2:] == ["assistant", "summary"] or appended[-1]["type"] == "assistant"


def test_resume_lists_sessions_and_takes_an_id(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = server_env(clean_env, server)
    server.enqueue(answer("First."), answer("Second."), answer("Back to first."))
    one = json.loads(agentui(agentui_bin, project, env, "-p", "the first topic", "--output-format", "json").stdout)
    agentui(agentui_bin, project, env, "-p", "another topic")
    listing = agentui(agentui_bin, project, {**clean_env}, "-p", "--resume")  # listing needs no model
    assert listing.returncode == 0
    titles = [line.split("msgs  ", 1)[1] for line in listing.stdout.splitlines()]
    assert titles == ["another topic", "the first topic"]
    as_json = json.loads(agentui(agentui_bin, project, clean_env, "-p", "--resume", "--output-format", "json").stdout)
    assert [s["title"] for s in as_json] == titles and as_json[1]["session_id"] == one["session_id"]
    resumed = agentui(agentui_bin, project, env, "-p", "--resume", one["session_id"], "more on it")
    assert resumed.returncode == 0 and resumed.stdout == "Back to first.\n"
    assert [
        without_listings(m["content"])[0]["text"] if isinstance(m["content"], list) else m["content"]
        for m in server.requests[2].json()["messages"]
    ] == ["the first topic", "First.", "more on it"]


def test_fork_and_session_id_from_the_command_line(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = server_env(clean_env, server)
    server.enqueue(answer("Base."), answer("Forked."))
    base = json.loads(agentui(agentui_bin, project, env, "-p", "base", "--output-format", "json").stdout)
    chosen = "abcdef01-2345-4678-9abc-def012345678"
    fork = agentui(
        agentui_bin,
        project,
        env,
        "-p",
        "--continue",
        "--fork-session",
        "--session-id",
        chosen,
        "fork it",
        "--output-format",
        "json",
    )
    assert json.loads(fork.stdout)["session_id"] == chosen
    directory = project_dir(project, {"HOME": env["HOME"]})
    assert sorted(p.stem for p in directory.glob("*.jsonl")) == sorted([base["session_id"], chosen])
    assert len([e for e in lines(directory / f"{base['session_id']}.jsonl") if e["type"] == "user"]) == 1
    claude_code_log_reads(directory / f"{chosen}.jsonl")


def test_bad_session_requests_are_one_sentence(agentui_bin: str, clean_env: dict[str, str], project: Path) -> None:
    env = {**clean_env, "ANTHROPIC_API_KEY": "x"}
    missing = agentui(agentui_bin, project, env, "-p", "--resume", "00000000-0000-4000-8000-000000000000", "hi")
    assert missing.returncode == 2 and missing.stderr.startswith(
        "agentui: No session 00000000-0000-4000-8000-000000000000 was found"
    )
    fork_alone = agentui(agentui_bin, project, env, "-p", "--fork-session", "hi")
    assert fork_alone.returncode == 2 and "needs --resume or --continue" in fork_alone.stderr
    bad_id = agentui(agentui_bin, project, env, "-p", "--session-id", "nope", "hi")
    assert bad_id.returncode == 2 and "--session-id must be a UUID" in bad_id.stderr


def test_a_session_in_use_is_refused_to_a_second_agentui(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = server_env(clean_env, server)
    server.enqueue(answer("Quick."))
    first = json.loads(agentui(agentui_bin, project, env, "-p", "start", "--output-format", "json").stdout)
    gate = threading.Event()
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "slow answer"}]), gate=gate, gate_after=5))
    running = subprocess.Popen(
        [agentui_bin, "-p", "--resume", first["session_id"], "long task"],
        env=env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert running.stdout is not None and running.stdout.read(4) == b"slow"  # it is mid-answer, holding the lock
        second = agentui(agentui_bin, project, env, "-p", "--resume", first["session_id"], "me too")
        assert second.returncode == 2
        assert second.stderr == (
            f"agentui: Session {first['session_id']} is open in another agentui; add "
            "--fork-session to continue it as a new session.\n"
        )
    finally:
        gate.set()
        running.communicate(timeout=30)
    assert running.returncode == 0


def test_rewind_in_print_mode(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    env = server_env(clean_env, server)

    def tool(call_id: str, name: str, **arguments: Any) -> Reply:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        return Reply(chunks=anthropic_stream([block], stop_reason="tool_use"))

    server.enqueue(
        tool("w1", "Write", file_path="notes.txt", content="one\n"),
        answer("Wrote it."),
        tool("r1", "Read", file_path="notes.txt"),
        tool("e1", "Edit", file_path="notes.txt", old_string="one", new_string="two"),
        answer("Changed it."),
        answer("Two, the second time."),
    )
    edits = ("--permission-mode", "acceptEdits")
    assert agentui(agentui_bin, project, env, "-p", "one", *edits).returncode == 0
    assert agentui(agentui_bin, project, env, "-p", "--continue", "two", *edits).returncode == 0
    notes = project / "notes.txt"
    assert notes.read_text() == "two\n"
    [path] = project_dir(project, {"HOME": env["HOME"]}).glob("*.jsonl")
    prompt = {
        e["message"]["content"]: e["uuid"]
        for e in lines(path)
        if e["type"] == "user" and isinstance(e["message"]["content"], str)
    }

    bad = agentui(agentui_bin, project, env, "-p", "--continue", "--rewind", "not-a-prompt")
    assert (bad.returncode, bad.stderr) == (1, "agentui: That prompt is not in this session.\n")
    usage = agentui(agentui_bin, project, env, "--rewind", prompt["two"])
    assert usage.returncode == 2 and "--rewind needs -p" in usage.stderr

    done = agentui(agentui_bin, project, env, "-p", "--continue", "--rewind", prompt["two"], "--output-format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["type"], summary["prompt"], summary["files"]) == ("rewind", "two", [str(notes)])
    assert notes.read_text() == "one\n"
    again = agentui(agentui_bin, project, env, "-p", "--continue", "two, again", "--output-format", "json")
    assert again.returncode == 0 and json.loads(again.stdout)["result"] == "Two, the second time."
    sent = [m["content"] for m in server.requests[-1].json()["messages"] if m["role"] == "user"]
    assert "two" not in [text for text in sent if isinstance(text, str)]  # the rewound turn is gone
    assert sent[-1] == "two, again" or sent[-1][-1]["text"] == "two, again"

    notes.write_text("the person's own\n")  # after everything the session recorded: someone else's change
    refused = agentui(
        agentui_bin, project, env, "-p", "--continue", "--rewind", prompt["one"], "--rewind-only", "files"
    )
    assert refused.returncode == 1 and "pass --rewind-overwrite" in refused.stderr
    assert notes.read_text() == "the person's own\n"
    forced = agentui(
        agentui_bin, project, env, "-p", "--continue", "--rewind", prompt["one"], "--rewind-only", "files",
        "--rewind-overwrite",
    )  # fmt: skip
    assert forced.returncode == 0 and "Rewound to before “one”: 1 file restored." in forced.stderr
    assert not notes.exists()  # (it did not exist before "one")
    claude_code_log_reads(path)
