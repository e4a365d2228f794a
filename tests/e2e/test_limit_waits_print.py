"""Print mode and limits: with --wait-for-limits (or the setting) it says on stderr when it will go on, waits, and
answers; without it a far reset fails as before; a reset past the longest wait is refused with its time."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tests.e2e.test_print_mode import anthropic_env, assert_one_clean_sentence, run
from tests.support.limits import Limited, whole_second
from tests.support.loopback import LoopbackServer
from tests.support.sse import anthropic_stream

ANSWER = anthropic_stream([{"type": "text", "text": "After the wait."}])


def _env(clean_env: dict[str, str], server: LoopbackServer) -> dict[str, str]:
    return {**anthropic_env(clean_env, server), "AGENTUI_MAX_RETRY_WAIT": "0"}  # (a 2 s reset is beyond it)


def test_the_flag_waits_out_the_limit_and_answers_and_without_it_it_fails_as_before(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    Limited(server, "retry-after seconds", whole_second(2), ANSWER)
    done = run(agentui_bin, ["-p", "hello?"], _env(clean_env, server))
    assert done.returncode == 1, done.stderr
    assert_one_clean_sentence(done.stderr)
    assert "(429)" in done.stderr and "AGENTUI_MAX_RETRY_WAIT" in done.stderr and "waiting until" not in done.stderr
    assert len(server.requests) == 1

    server.requests.clear()
    limited = Limited(server, "anthropic unified reset", whole_second(2), ANSWER)
    done = run(agentui_bin, ["-p", "hello?", "--wait-for-limits"], _env(clean_env, server))
    assert done.returncode == 0 and done.stdout == "After the wait.\n", done.stderr
    [line] = [ln for ln in done.stderr.splitlines() if "waiting until" in ln]
    assert line.startswith("agentui: ") and limited.reset.astimezone().strftime("%H:%M:%S") in line
    assert len(server.requests) == 2 and limited.early() == 1


def test_the_setting_waits_too(agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer) -> None:
    config = Path(clean_env["AGENTUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.json").write_text(json.dumps({"wait_for_limits": True}))
    Limited(server, "retry-after seconds", whole_second(2), ANSWER)
    done = run(agentui_bin, ["-p", "hello?"], _env(clean_env, server))
    assert done.returncode == 0 and done.stdout == "After the wait.\n", done.stderr


def test_a_reset_past_the_longest_wait_is_refused_with_its_time(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer
) -> None:
    config = Path(clean_env["AGENTUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.json").write_text(json.dumps({"max_limit_wait_hours": 0.0001}))  # (a third of a second)
    limited = Limited(server, "anthropic unified reset", whole_second(3), ANSWER)
    done = run(agentui_bin, ["-p", "hello?", "--wait-for-limits"], _env(clean_env, server))
    assert done.returncode == 1, done.stderr
    assert_one_clean_sentence(done.stderr)
    assert "the limit resets at" in done.stderr and limited.reset.astimezone().strftime("%H:%M") in done.stderr
    assert "waiting until" not in done.stderr and len(server.requests) == 1


def test_a_run_killed_during_the_wait_says_so_when_resumed(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    limited = Limited(server, "anthropic unified reset", whole_second(120), ANSWER)
    env = _env(clean_env, server)
    project = tmp_path / "project"
    project.mkdir()
    out = subprocess.DEVNULL
    command = [agentui_bin, "-p", "hello?", "--wait-for-limits"]
    printing = subprocess.Popen(command, cwd=project, env=env, stdin=out, stdout=out, stderr=out)
    sessions = Path(env["HOME"]) / ".claude" / "projects"
    try:
        found = wait_for(lambda: _pending_session(sessions))
    finally:
        printing.kill()  # (a crash in the middle of the wait)
        printing.wait(60)
    recorded = limited.reset.astimezone().strftime("%H:%M:%S")
    limited.reset = datetime.now(UTC)  # (the server lets the new prompt through: the record still names its time)
    done = run(agentui_bin, ["-p", "--resume", found.stem, "go on"], env, cwd=project)
    assert done.returncode == 0 and done.stdout == "After the wait.\n", done.stderr
    [line] = [ln for ln in done.stderr.splitlines() if "ended while it waited for a usage limit" in ln]
    assert recorded in line and "it has not reset yet" in line
    assert len(server.requests) == 2 and "hello?" in str(server.requests[1].json()["messages"])


def _pending_session(sessions: Path) -> Path | None:
    for path in sessions.glob("*/*.jsonl"):
        if '"limit_wait"' in path.read_text(errors="replace"):
            return path
    return None


def wait_for(find: Callable[[], Path | None], ceiling: float = 60) -> Path:
    deadline = time.monotonic() + ceiling
    while (found := find()) is None:
        assert time.monotonic() < deadline, "the run never recorded its wait"
        time.sleep(0.05)
    return found
