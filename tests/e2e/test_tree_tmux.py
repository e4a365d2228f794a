"""/tree in a real terminal at 80x24 and 120x40: the installed `agentui` in tmux resumes a session with two branches
(an edited prompt), draws them, moves to the older one and goes on from its last message there."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

SESSION = str(uuid.uuid4())


def _line(kind: str, parent: str | None, content: Any, at: int, cwd: Path) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message |= {"id": f"msg_{uuid.uuid4().hex}", "type": "message", "model": "claude-sonnet-4-5"}
        message |= {"stop_reason": "end_turn", "usage": {"input_tokens": 1000, "output_tokens": 100}}
    return {
        "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": SESSION,
        "version": "2.1.0", "gitBranch": "", "type": kind, "message": message, "uuid": str(uuid.uuid4()),
        "timestamp": f"2026-04-18T13:18:{at:02}.000Z",
    }  # fmt: skip


def branched(project: Path, tmp_path: Path) -> tuple[Path, str]:
    """one → A1; two → A2; then "two again" (an edited prompt) → A3. The file, and A2's uuid."""
    one = _line("user", None, "one", 1, project)
    a1 = _line("assistant", one["uuid"], [{"type": "text", "text": "A1."}], 2, project)
    two = _line("user", a1["uuid"], "two", 3, project)
    a2 = _line("assistant", two["uuid"], [{"type": "text", "text": "A2."}], 4, project)
    again = _line("user", a1["uuid"], "two again", 5, project)
    a3 = _line("assistant", again["uuid"], [{"type": "text", "text": "A3."}], 6, project)
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (one, a1, two, a2, again, a3)))
    return path, a2["uuid"]


@pytest.mark.parametrize("size", SIZES)
def test_tree_draws_the_branches_and_continues_from_an_older_one(
    agentui_bin: str,
    clean_env: dict[str, str],
    server: LoopbackServer,
    project: Path,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    path, a2 = branched(project, tmp_path)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "A4."}])))
    terminal = Terminal(f"{agentui_bin} --resume {path}", app_env(clean_env, server), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/tree")
        terminal.keys("Enter")
        screen = terminal.wait_for("Branches of this session")
        assert "● main: one · 2 turns" in screen and "rewind: two · 1 turn" in screen, screen
        assert all(len(line) <= size[0] for line in screen.splitlines())
        terminal.keys("Down")
        terminal.keys("Enter")
        terminal.wait_for("Now on the branch")
        terminal.type("four")
        terminal.keys("Enter")
        terminal.wait_for("A4.")
        sent = server.requests[-1].json()["messages"]
        said = [m["content"] if isinstance(m["content"], str) else m["content"][-1].get("text") for m in sent]
        assert said == ["one", "A1.", "two", "A2.", "four"]  # (the older branch, not "two again")
        terminal.quit()
    finally:
        terminal.close()
    written = [json.loads(line) for line in path.read_text().splitlines()]
    [four] = [entry for entry in written if entry.get("message", {}).get("content") == "four"]
    assert four["parentUuid"] == a2
