"""A `~/.claude.json` of the wrong shape (it is Claude Code's file, edited by hand and by other versions): agentui
starts and answers, and the file counts as holding nothing for this project (issue 31: `"projects": "x"` stopped
agentui with "unexpected error: AttributeError")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_print_mode import anthropic_env, run
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

SHAPES = {
    "projects is a string": {"projects": "x"},
    "projects is a list": {"projects": ["a", "b"]},
    "the project is a string": {"projects": {"<root>": "trusted"}},
    "the project's approvals are not lists": {
        "projects": {"<root>": {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": 5, "mcpServers": {}}}
    },
    "the whole file is a list": [1, 2, 3],
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_a_claude_json_of_the_wrong_shape_is_read_as_holding_nothing(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, shape: object
) -> None:
    project = Path(clean_env["HOME"]).parent / "project"
    project.mkdir()
    text = json.dumps(shape).replace("<root>", str(project.resolve()))
    (Path(clean_env["HOME"]) / ".claude.json").write_text(text)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"calc": {"command": "true"}}}))
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Hello from the model."}])))
    done = run(agentui_bin, ["-p", "hi"], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello from the model."
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr
