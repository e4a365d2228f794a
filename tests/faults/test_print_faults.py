"""`agentui -p` under faults a new user meets: a model server that goes silent, a directory deleted under it, file
names that are not UTF-8, a retry after part of the answer was printed, limits reached. Each answer is one sentence
and nothing is lost."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentui.frontends.print.mode import RESTARTED
from tests.e2e.test_print_mode import anthropic_env, assert_one_clean_sentence, run
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


@pytest.fixture
def held() -> Iterator[threading.Event]:
    """A gate the loopback server waits at; opened when the test ends so its threads finish."""
    gate = threading.Event()
    try:
        yield gate
    finally:
        gate.set()


def quick_idle(env: dict[str, str]) -> dict[str, str]:
    return {**env, "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS": "1000"}


def test_a_stream_silent_after_its_start_is_given_up_and_retried_once(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, held: threading.Event
) -> None:
    silent = anthropic_stream([{"type": "text", "text": "never sent"}])
    server.enqueue(*(Reply(chunks=silent, gate=held, gate_after=1) for _ in range(3)))
    done = run(agentui_bin, ["-p", "hello?"], quick_idle(anthropic_env(clean_env, server)))
    assert done.returncode == 1, done.stderr
    assert len(server.requests) == 2  # one retry, not ten
    assert_one_clean_sentence(done.stderr)
    assert "(attempt 2 of 2)" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "sent nothing for 1 s" in last and "API_TIMEOUT_MS" in last
    assert done.stdout == ""


def test_api_timeout_ms_sets_the_idle_limit_as_in_claude_code(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, held: threading.Event
) -> None:
    silent = anthropic_stream([{"type": "text", "text": "never sent"}])
    server.enqueue(*(Reply(chunks=silent, gate=held, gate_after=1) for _ in range(2)))
    env = {**anthropic_env(clean_env, server), "API_TIMEOUT_MS": "2000"}
    done = run(agentui_bin, ["-p", "hello?"], env)
    assert done.returncode == 1 and "sent nothing for 2 s" in done.stderr


def test_a_stall_mid_answer_keeps_what_streamed_and_is_not_resent(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, held: threading.Event
) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "First part."}, {"type": "text", "text": "Second part."}])
    first_stop = next(i for i, c in enumerate(chunks) if b"content_block_stop" in c)
    server.enqueue(Reply(chunks=chunks, gate=held, gate_after=first_stop + 1), Reply(chunks=chunks))
    done = run(agentui_bin, ["-p", "hello?"], quick_idle(anthropic_env(clean_env, server)))
    assert done.returncode == 1
    assert len(server.requests) == 1
    assert done.stdout.startswith("First part.")
    assert_one_clean_sentence(done.stderr)
    assert "cut off" in done.stderr and "sent nothing for 1 s" in done.stderr


@pytest.mark.parametrize(
    "args", [["-p", "hello"], ["-p", "--resume"], [], ["trace", "x"], ["tree", "x"], ["plugin", "list"]]
)
def test_a_deleted_working_directory_is_one_sentence_and_exit_2(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, args: list[str]
) -> None:
    # The shell stays in a directory someone else removed; the process starts there.
    gone = tmp_path / "gone"
    gone.mkdir()
    process = subprocess.run(
        ["sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", str(gone), agentui_bin, *args],
        env={**clean_env, "ANTHROPIC_API_KEY": "x", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert process.returncode == 2, process.stderr
    assert_one_clean_sentence(process.stderr)
    assert "current directory no longer exists" in process.stderr


def test_file_names_that_are_not_utf8_are_shown_escaped_and_still_reach_the_file(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with open(os.path.join(os.fsencode(project), b"caf\xe9-\xff.txt"), "wb") as handle:
        handle.write(b"the secret word is plum\n")
    server.enqueue(
        Reply(chunks=anthropic_tool("g1", "Glob", {"pattern": "*.txt"})),
        Reply(chunks=anthropic_tool("g2", "Grep", {"pattern": "plum", "output_mode": "files_with_matches"})),
        # The model writes the name back as it was shown to it.
        Reply(chunks=anthropic_tool("r1", "Read", {"file_path": "caf\\xe9-\\xff.txt"})),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "plum"}])),
    )
    done = run(agentui_bin, ["-p", "find the word"], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "plum\n"
    assert len(server.requests) == 4
    results = [
        block
        for message in server.requests[3].json()["messages"]
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    shown = [json.dumps(r["content"]) for r in results]
    assert "caf\\\\xe9-\\\\xff.txt" in shown[0] and "caf\\\\xe9-\\\\xff.txt" in shown[1]
    assert "the secret word is plum" in shown[2] and not results[2].get("is_error")
    [session] = (Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl")
    text = session.read_bytes().decode("utf-8")  # strict: the session stays valid UTF-8
    assert "caf\\\\xe9-\\\\xff.txt" in text


def anthropic_tool(tool_id: str, name: str, arguments: dict[str, object]) -> list[bytes]:
    return anthropic_stream(
        [{"type": "tool_use", "id": tool_id, "name": name, "input": arguments}], stop_reason="tool_use"
    )


def cut_stream(text: str, *, words_sent: int) -> Reply:
    """A text answer streamed a word per delta and cut off, mid-block, after `words_sent` words."""
    chunks = anthropic_stream([{"type": "text", "text": text}], pieces=len(text.split()))
    first_delta = next(i for i, c in enumerate(chunks) if b"text_delta" in c)
    return Reply(chunks=chunks, cut_after=first_delta + words_sent)


def test_a_retry_after_part_of_the_answer_was_printed_does_not_print_it_twice(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    full = "alpha beta gamma delta epsilon zeta eta theta"
    server.enqueue(cut_stream(full, words_sent=4), Reply(chunks=anthropic_stream([{"type": "text", "text": full}])))
    done = run(agentui_bin, ["-p", "words"], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == 2 and "retrying in" in done.stderr
    assert done.stdout == full + "\n"


def test_a_retried_answer_that_differs_is_marked_and_given_again_in_full(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    second = "alpha beta omega psi"
    server.enqueue(
        cut_stream("alpha beta gamma delta epsilon", words_sent=4),
        Reply(chunks=anthropic_stream([{"type": "text", "text": second}])),
    )
    done = run(agentui_bin, ["-p", "words"], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    taken_back, mark, answer = done.stdout.partition(RESTARTED + "\n")
    assert mark and taken_back.startswith("alpha beta gamma") and answer == second + "\n"


def test_a_retried_answer_shorter_than_what_was_printed_is_marked(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    server.enqueue(
        cut_stream("alpha beta gamma delta epsilon", words_sent=4),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "alpha beta"}])),
    )
    done = run(agentui_bin, ["-p", "words"], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout.partition(RESTARTED + "\n")[2] == "alpha beta\n"


FIXTURE = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects").glob("*/*.jsonl"))[0]


def looped(path: Path) -> None:
    entries = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    chain = [e for e in entries if e.get("type") in ("user", "assistant") and not e.get("isSidechain")]
    chain[0]["parentUuid"] = chain[-1]["uuid"]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


@pytest.mark.parametrize(
    ("make", "said", "history"),
    [
        (looped, "loops back on itself", True),
        (lambda path: path.write_bytes(b""), "is empty", False),
        (lambda path: path.write_bytes(bytes(range(256)) * 64), "could be read", False),
    ],
    ids=["looped", "empty", "binary"],
)
def test_resuming_a_broken_session_file_says_what_was_left_out(
    agentui_bin: str,
    clean_env: dict[str, str],
    server: LoopbackServer,
    tmp_path: Path,
    make: Callable[[Path], object],
    said: str,
    history: bool,
) -> None:
    session = tmp_path / "broken.jsonl"
    make(session)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Carrying on."}])))
    done = run(agentui_bin, ["-p", "--resume", str(session), "go on"], anthropic_env(clean_env, server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Carrying on.\n"
    assert said in done.stderr and "Traceback" not in done.stderr
    sent = server.requests[0].json()["messages"]
    assert (len(sent) > 2) == history


def test_memory_that_is_binary_huge_or_outside_an_untrusted_project_is_named_and_kept_out(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "CLAUDE.md").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 34)
    (tmp_path / "outside.txt").write_text("OUTSIDE-SECRET")
    (project / "huge.md").write_bytes(b"h" * 20_000_000)
    (project / "CLAUDE.md").write_text(f"Rules. @huge.md @{tmp_path / 'outside.txt'}\n")
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    done = run(agentui_bin, ["-p", "hi"], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    system = json.dumps(server.requests[0].json()["system"])
    assert "ELF" not in system and "OUTSIDE-SECRET" not in system and "Rules." in system
    assert len(system) < 60_000  # the 20 MB import is clipped
    assert "CLAUDE.md is not a text file" in done.stderr
    assert "huge.md is too large for memory" in done.stderr
    assert "outside.txt, outside the project" in done.stderr


def test_no_command_sees_a_secret_neither_in_its_environment_nor_in_agentuis_through_proc(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    command = "printenv; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'"
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": command}}
    script.write_text(json.dumps([{"content": [call]}, {"text": "done"}]))
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-LEAK1",
        "DB_PASSWORD": "LEAK2",
        "AZURE_OPENAI_KEY": "LEAK3",
        "github_token": "LEAK4",
        "DATABASE_URL": "postgres://app:LEAK5@db/app",
    }
    flags = ["--provider", "scripted", "--script", str(script), "--output-format", "events"]
    done = run(agentui_bin, ["-p", "go", *flags, "--allowedTools", "Bash"], {**clean_env, **secrets})
    assert done.returncode == 0, done.stderr
    [end] = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "tool_end"]
    assert "PATH=" in end["content"] and "LEAK" not in end["content"]


def test_verbose_calls_a_denial_a_denial_not_a_failure(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "touch made"}}
    script.write_text(json.dumps([{"content": [call]}, {"text": "done"}]))
    done = run(agentui_bin, ["-p", "go", "--provider", "scripted", "--script", str(script), "--verbose"], clean_env)
    assert done.returncode == 0, done.stderr
    assert "agentui: Bash was denied: " in done.stderr and "Bash failed" not in done.stderr
