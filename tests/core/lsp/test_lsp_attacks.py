"""Language servers that misbehave and edits that strain the diagnostics: an edit interrupted while its server
starts, a session that ends meanwhile, malformed diagnostics, a large file's edit; nothing hangs, blocks or is left
running."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentui.core.lsp.diagnostics import Diagnostic, new_diagnostics
from agentui.core.lsp.manager import LanguageServers
from tests.core.lsp.test_diagnostics_after_edits import fake_server, gone, pids

SERVE = """
import json

def read():
    length = 0
    while (line := sys.stdin.buffer.readline()) not in (b"\\r\\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    if not length:
        sys.exit(0)
    return json.loads(sys.stdin.buffer.read(length))

def send(body):
    sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
    sys.stdout.buffer.flush()

open(pid_file, "a").write(f"{os.getpid()}\\n")
"""
"""The start of a fake server: `read` a message, `send` raw bytes."""


def servers(tmp_path: Path, body: str, **options: float) -> tuple[Path, LanguageServers]:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    fake_server(tmp_path / "bin", SERVE + body)
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    return project, LanguageServers(project, env, trusted=lambda: True, **options)  # type: ignore[arg-type]


async def started(directory: Path) -> list[int]:
    for _ in range(600):
        if (directory / "pids").exists() and pids(directory):
            return pids(directory)
        await asyncio.sleep(0.05)
    raise AssertionError("the fake server did not start")


async def ended(pid: int) -> bool:
    for _ in range(200):
        if gone(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_edit_interrupted_while_its_server_starts_leaves_no_server_running(tmp_path: Path) -> None:
    project, lsp = servers(tmp_path, "time.sleep(1000)", wait=2, start_timeout=60)
    try:
        edit = asyncio.create_task(lsp.after_edit(project / "a.py", "x = 1\n", "x = 2\n"))
        [pid] = await started(tmp_path / "bin")
        edit.cancel()  # (Esc while the first edit waits for its server's initialize)
        await asyncio.gather(edit, return_exceptions=True)
        assert await ended(pid)
    finally:
        await lsp.aclose()


async def test_a_session_that_ends_while_its_server_starts_leaves_no_server_running(tmp_path: Path) -> None:
    # the server answers initialize only after the session has ended
    body = 'message = read()\ntime.sleep(2)\nsend(b\'{"jsonrpc": "2.0", "id": 1, "result": {}}\')\ntime.sleep(1000)'
    project, lsp = servers(tmp_path, body, wait=2, start_timeout=60)
    edit = asyncio.create_task(lsp.after_edit(project / "a.py", "x = 1\n", "x = 2\n"))
    [pid] = await started(tmp_path / "bin")
    await lsp.aclose()
    checked = await asyncio.wait_for(edit, 60)
    assert checked.diagnostics == []
    assert await ended(pid) and lsp.running == []


async def test_a_long_files_edit_is_told_without_holding_the_event_loop() -> None:
    """Telling old diagnostics from new ones runs on the event loop: a 60,000-line file of alike lines, changed at
    both ends, must not take minutes (the ceiling is generous; the diff took several minutes here)."""
    old = "\n".join(["x = 1", "", "    pass"] * 20_000)
    new = "import os\n" + old.replace("x = 1", "x = 2", 1) + "\nprint(nowhere)\n"
    before = [Diagnostic(2, 4, "error", "unused", code="F1"), Diagnostic(59_999, 0, "error", "old", code="E")]
    after = [
        Diagnostic(3, 4, "error", "unused", code="F1"),  # (moved down one line by the import)
        Diagnostic(60_000, 0, "error", "old", code="E"),
        Diagnostic(60_001, 0, "error", "undefined name 'nowhere'"),
    ]
    fresh = await asyncio.wait_for(asyncio.to_thread(new_diagnostics, before, after, old, new), 60)
    assert fresh == [after[2]]
    # a small change in a long file still follows the old diagnostics to their lines
    old = "\n".join(f"line_{number} = {number}" for number in range(5_000))
    new = old.replace("line_10 = 10", "line_10 = 10\nadded = 1\nmore = 2")
    before = [Diagnostic(10, 0, "error", "same"), Diagnostic(4_000, 0, "error", "same")]
    after = [Diagnostic(line, 0, "error", "same") for line in (10, 4_002, 11)]
    assert new_diagnostics(before, after, old, new) == [after[2]]


MALFORMED = """
message = read()
send(b'{"jsonrpc": "2.0", "id": %d, "result": {"capabilities": {}}}' % message["id"])
while True:
    message = read()
    if message.get("method") not in ("textDocument/didOpen", "textDocument/didChange"):
        continue
    document = message["params"]["textDocument"]
    text = document.get("text") or message["params"]["contentChanges"][0]["text"]
    good = {"range": {"start": {"line": 0, "character": 0}}, "severity": 1, "message": "good"}
    odd = [
        {"range": {"start": {"line": 1e400, "character": 0}}, "message": "infinite line"},
        {"range": {"start": {"line": 0, "character": 0}}, "severity": [1], "message": "odd severity"},
        {"range": {"start": [0, 0]}, "message": "start is a list"},
        {"range": {"start": {"line": -5, "character": -1}}, "message": "before the file"},
    ]
    items = [*odd, good] if "bad" in text else []
    body = json.dumps(
        {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
         "params": {"uri": document["uri"], "version": document["version"], "diagnostics": items}}
    ).replace("Infinity", "1e400")
    send(body.encode())
"""


async def test_malformed_diagnostics_are_left_out_and_the_server_kept(tmp_path: Path) -> None:
    project, lsp = servers(tmp_path, MALFORMED, wait=60, start_timeout=60)
    try:
        checked = await lsp.after_edit(project / "a.py", "x = 1\n", "x = bad\n")
        assert checked.note is None  # (positions that are no positions are left out; an odd severity is an error)
        assert [d.message for d in checked.diagnostics] == ["odd severity", "good"]
        assert [server.alive for server in lsp.running] == [True]
    finally:
        await lsp.aclose()


LOCATIONS = """
message = read()
send(b'{"jsonrpc": "2.0", "id": %d, "result": {"capabilities": {}}}' % message["id"])
root = message["params"]["rootUri"]
while True:
    message = read()
    if "id" not in message:
        continue
    method, result = message["method"], None
    if method == "textDocument/definition":
        result = [
            {"uri": root + "/a.py", "range": {"start": [0, 1]}},
            {"uri": root + "/a.py", "range": {"start": {"line": 1e400, "character": "x"}}},
            {"uri": 7, "range": None},
            "not a location",
            {"uri": "file:///etc/shadow", "range": {"start": {"line": 0, "character": 0}}},
            {"uri": root + "/../../../../../../etc/shadow", "range": {"start": {"line": 0, "character": 0}}},
            {"uri": root + "/shadow.py", "range": {"start": {"line": 0, "character": 0}}},
            {"uri": root + "/a.py", "range": {"start": {"line": 0, "character": 4}}},
        ]
    elif method == "textDocument/hover":
        result = {"contents": [1, None, {"value": "the value"}, ["nested"], "plain"]}
    elif method == "textDocument/documentSymbol":
        result = [
            {"name": "f", "kind": "function", "location": [1], "children": 5},
            {"name": "g", "kind": 12, "range": {"start": {"line": 2, "character": 0}}, "children": [None, 3]},
        ]
    send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).replace("Infinity", "1e400").encode())
"""


async def test_the_lsp_tool_leaves_out_malformed_and_outside_locations(tmp_path: Path) -> None:
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.lsp import Lsp, LspArgs
    from agentui.core.workspace import Workspace

    project, lsp = servers(tmp_path, LOCATIONS, wait=60, start_timeout=60)
    (project / "shadow.py").symlink_to("/etc/shadow")  # (a link in the project to what lies outside)
    ws = Workspace(root=project)
    ws.lsp = lsp

    async def ask(operation: str) -> str:
        args = LspArgs(operation=operation, filePath="a.py", line=1, character=1)  # type: ignore[arg-type]
        result = await Lsp(ws).run(args, ToolContext(cwd=project, session_id="s", tool_call_id="t"))
        assert not result.is_error and isinstance(result.content, str)
        return result.content

    try:
        assert await ask("goToDefinition") == (
            "Defined in a.py:1:5\n(3 outside the project or in files that may not be read were left out.)"
        )
        assert await ask("hover") == "the value\nplain"
        assert await ask("documentSymbol") == "Document symbols:\n  f (Symbol) - Line 1\n  g (Function) - Line 3"
    finally:
        await lsp.aclose()
