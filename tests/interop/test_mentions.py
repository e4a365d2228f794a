"""`@file` and `@dir/` in a prompt: agentui tells the model what Claude Code tells it. The pinned Claude Code and
agentui each answer the same `-p` prompt in the same project against the loopback Messages API; the reminders that
say which tool was called with what are the same, and each carries the file's lines and the directory's names."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

CALLED = re.compile(r"<system-reminder>\nCalled the (\w+) tool with the following input: (.*)\n</system-reminder>")


def _first_turn(server: LoopbackServer) -> list[RecordedRequest]:
    """The conversation's requests (those that offer tools), as they come; side requests get a short text."""
    seen: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        if "tools" in request.json():
            seen.append(request)
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}]))

    server.responder = model
    return seen


def _texts(body: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts += [block["text"] for block in blocks if block.get("type") == "text"]
    return texts


def test_at_mentions_tell_the_model_what_claude_code_tells_it(
    agentui_bin: str, claude_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    called: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        project = tmp_path / "project"  # (the same path for both: the reminders name it)
        if project.exists():
            subprocess.run(["rm", "-rf", str(project)], check=True)
        (project / "src").mkdir(parents=True)
        (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (project / "src" / "main.py").write_text("x = 1\n")
        home = tmp_path / f"{name}-home"
        home.mkdir()
        env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
        seen = _first_turn(server)
        done = subprocess.run(
            [cli, "-p", "look at @calc.py and @src/", "--model", "claude-sonnet-4-5"],
            cwd=project, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        texts = _texts(seen[0].json())
        called[name] = [(m[1], json.loads(m[2])) for t in texts if (m := CALLED.fullmatch(t))]
        results = "\n".join(t for t in texts if t.startswith("<system-reminder>\nResult of calling the"))
        assert "return a - b" in results and "main.py" in results, (name, texts)
    src = tmp_path / "project" / "src"
    assert (
        called["agentui"]
        == called["claude"]
        == [
            ("Read", {"file_path": str(tmp_path / "project" / "calc.py")}),
            ("Bash", {"command": f"ls {src}", "description": f"Lists files in {src}"}),
        ]
    )
