"""Claude Code resumes a session agentui was killed in while it waited out a usage limit: the limit_wait system line
at the chain's end is passed over, and the conversation (its prompt) goes to the model as before."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from tests.e2e.test_limit_waits_print import _pending_session, wait_for
from tests.interop.conftest import claude_env
from tests.support.limits import Limited, whole_second
from tests.support.loopback import LoopbackServer
from tests.support.sse import anthropic_stream


def test_claude_code_resumes_a_session_left_in_a_limit_wait(
    tmp_path: Path, server: LoopbackServer, agentui_bin: str, claude_bin: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {
        **claude_env(home, server.url),
        "AGENTUI_CONFIG_DIR": str(tmp_path / "config"),
        "AGENTUI_MAX_RETRY_WAIT": "0",
    }
    if "PYTHONPATH" in os.environ:  # (agentui as checked out, when the tests run from a work tree)
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    limited = Limited(
        server, "anthropic unified reset", whole_second(120), anthropic_stream([{"type": "text", "text": "Here."}])
    )
    quiet = subprocess.DEVNULL
    printing = subprocess.Popen(
        [agentui_bin, "-p", "hello?", "--wait-for-limits"],
        cwd=project,
        env=env,
        stdin=quiet,
        stdout=quiet,
        stderr=quiet,
    )
    try:
        found = wait_for(lambda: _pending_session(Path(env["CLAUDE_CONFIG_DIR"]) / "projects"))
    finally:
        printing.kill()
        printing.wait(60)
    limited.reset = datetime.now(UTC)
    server.requests.clear()
    done = subprocess.run(
        [claude_bin, "-p", "and now?", "--resume", found.stem, "--output-format", "json"],
        env=env, cwd=project, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["result"] == "Here."
    asked = next(r.json() for r in server.requests if "tools" in r.json())
    sent = json.dumps(asked["messages"])
    assert "hello?" in sent and "and now?" in sent and "waiting until" not in sent
