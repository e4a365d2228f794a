"""Faults that pass today, kept passing: a storm of 429, 529 and 5xx answers before the real one, four agentui
processes on one project at once, and SIGKILL at random moments of a streaming answer. Each session is read back by
claude-code-log, the other side that must understand it."""

from __future__ import annotations

import random
import subprocess
import uuid
from pathlib import Path

from tests.e2e.test_print_mode import anthropic_env, run
from tests.support.kills import kill_at_a_random_moment
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sessions import claude_code_log_reads
from tests.support.sse import anthropic_stream

CEILING = 60.0


def sessions(env: dict[str, str]) -> list[Path]:
    return sorted((Path(env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl"))


def start(agentui_bin: str, prompt: str, project: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [agentui_bin, "-p", prompt],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_storm_of_429_529_and_5xx_ends_in_the_answer_printed_once(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    now = {"retry-after": "0"}  # (the server says when: no backoff to wait out)
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Busy"}}
    storm = [Reply.error(status, error, now) for status in (429, 429, 529, 500, 502, 503, 529)]
    server.enqueue(*storm, Reply(chunks=anthropic_stream([{"type": "text", "text": "Through the storm."}])))
    env = anthropic_env(clean_env, server)
    done = run(agentui_bin, ["-p", "hello?"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Through the storm.\n"
    assert len(server.requests) == 8
    notes = done.stderr.strip().splitlines()
    assert len(notes) == 7 and all(note.startswith("agentui: retrying in ") for note in notes), notes
    [session] = sessions(env)
    claude_code_log_reads(session)


def test_four_processes_on_one_project_each_keep_their_own_session(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    def model(request: RecordedRequest) -> Reply:
        prompt = request.json()["messages"][-1]["content"]
        text = prompt if isinstance(prompt, str) else prompt[-1]["text"]
        return Reply(chunks=anthropic_stream([{"type": "text", "text": f"Answer to {text}."}]), delay=0.01)

    server.responder = model
    project = tmp_path / "project"
    project.mkdir()
    env = anthropic_env(clean_env, server)
    processes = [start(agentui_bin, f"question {n}", project, env) for n in range(4)]
    outputs = [process.communicate(timeout=CEILING) for process in processes]
    for n, (process, (out, err)) in enumerate(zip(processes, outputs, strict=True)):
        assert process.returncode == 0 and out == f"Answer to question {n}.\n", err
        assert err == ""  # (a session that could not be saved says so here, and the run goes on)
    found = sessions(env)
    assert len(found) == 4
    for session in found:
        text = session.read_text()
        asked = [n for n in range(4) if f'"question {n}"' in text]
        assert len(asked) == 1 and f"Answer to question {asked[0]}." in text  # (no line in another's file)
        claude_code_log_reads(session)


def test_sigkill_at_random_moments_of_a_streaming_answer_leaves_a_session_claude_code_log_reads(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    words = [f"word{n} " for n in range(60)]
    server.responder = lambda request: Reply(
        chunks=anthropic_stream([{"type": "text", "text": "".join(words)}], pieces=len(words)), delay=0.02
    )
    env = anthropic_env(clean_env, server)
    project = tmp_path / "project"
    project.mkdir()
    rng = random.Random(uuid.uuid4().int)
    for n in range(4):

        def reached(n: int = n) -> bool:
            return len(server.requests) > n  # (this run's request has come)

        kill_at_a_random_moment(start(agentui_bin, f"tell me {n}", project, env), reached, rng)
    found = sessions(env)
    assert found  # (each run wrote its prompt before it was killed, at least)
    for session in found:
        claude_code_log_reads(session)
