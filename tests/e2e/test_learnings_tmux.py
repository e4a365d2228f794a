"""Memory that learns in a real terminal, at 80x24 and 120x40: the installed `agentui` in tmux against the loopback
Messages API. A run whose check failed and then passed after a fix leaves a learning; /memory lists it and
`/memory forget 1` forgets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.context.learnings import LearningStore
from agentui.core.safety.trust import trust
from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


def _call(call_id: str, name: str, arguments: dict[str, str]) -> Reply:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return Reply(chunks=anthropic_stream([block], stop_reason="tool_use"))


@pytest.mark.parametrize("size", SIZES)
def test_a_learning_is_kept_listed_and_forgotten(
    agentui_bin: str,
    clean_env: dict[str, str],
    server: LoopbackServer,
    project: Path,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    dirs = {"AGENTUI_DATA_DIR": str(tmp_path / "data"), "AGENTUI_STATE_DIR": str(tmp_path / "state")}
    trust(project, dirs)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash", "Write"]}}))
    check = "test -f ready.txt && echo checked"
    server.enqueue(
        _call("b1", "Bash", {"command": check}),
        _call("w1", "Write", {"file_path": "ready.txt", "content": "ready\n"}),
        _call("b2", "Bash", {"command": check}),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Fixed it."}])),
    )
    terminal = Terminal(agentui_bin, app_env(clean_env, server, **dirs), project, size=size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("make the readiness check pass")
        terminal.keys("Enter")
        terminal.wait_for("Fixed it.")
        terminal.type("/memory")
        terminal.keys("Enter")
        screen = terminal.wait_for("Learnings from earlier runs")
        assert "1. " in screen and "Exit code 1" in screen, screen
        (learning,) = LearningStore(project, dirs).all()
        assert learning.files == ("ready.txt",)
        terminal.type("/memory forget 1")
        terminal.keys("Enter")
        terminal.wait_for("Forgotten:")
        assert LearningStore(project, dirs).all() == []
        terminal.quit()
    finally:
        terminal.close()
