"""The LSP tool on a real language server (pylsp): a definition and the references across two files, what lies in
files the deny rules hide left out, and the permission Read needs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agentui.core.lsp.manager import LanguageServers
from agentui.core.messages import ToolUseBlock
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.tools.base import ToolContext, ToolResult
from agentui.core.tools.lsp import Lsp, LspArgs
from agentui.core.workspace import Workspace

BIN = str(Path(sys.executable).parent)


@pytest.fixture
async def ws(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = tmp_path / "proj"
    project.mkdir()
    (project / "shapes.py").write_text("def compute_total(x):\n    return x\n")
    (project / "use.py").write_text("from shapes import compute_total\n\nprint(compute_total(2))\n")
    workspace = Workspace(root=project)
    workspace.lsp = LanguageServers(
        project, {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}, wait=60, trusted=lambda: True
    )
    yield workspace
    await workspace.lsp.aclose()


async def lsp(ws: Workspace, operation: str, file: str, line: int, character: int) -> ToolResult:
    args = LspArgs(operation=operation, filePath=file, line=line, character=character)  # type: ignore[arg-type]
    return await Lsp(ws).run(args, ToolContext(cwd=ws.root, session_id="s", tool_call_id="t"))


async def test_go_to_definition_and_find_references_across_two_files(ws: Workspace) -> None:
    found = await lsp(ws, "goToDefinition", "use.py", 3, 8)
    assert (found.content, found.is_error) == ("Defined in shapes.py:1:5", False)
    assert found.details == {
        "operation": "goToDefinition",
        "result": "Defined in shapes.py:1:5",
        "filePath": "use.py",
        "resultCount": 1,
        "fileCount": 1,
    }
    used = await lsp(ws, "findReferences", "shapes.py", 1, 6)
    assert used.content == (
        "Found 3 references across 2 files:\n\nshapes.py:\n  Line 1:5\n\nuse.py:\n  Line 1:20\n  Line 3:7"
    )


async def test_what_lies_in_a_denied_file_is_left_out(ws: Workspace) -> None:
    ws.read_denied = lambda path: path.name == "use.py"
    used = await lsp(ws, "findReferences", "shapes.py", 1, 6)
    assert used.content == (
        "Found 1 reference:\n  shapes.py:1:5\n(2 outside the project or in files that may not be read were left out.)"
    )
    assert "use.py" not in str(used.details)


async def test_no_server_for_the_file_is_one_sentence(ws: Workspace) -> None:
    (ws.root / "notes.txt").write_text("hi\n")
    result = await lsp(ws, "hover", "notes.txt", 1, 1)
    assert (result.content, result.is_error) == ("No language server is available for notes.txt.", True)


def test_it_needs_what_read_needs(ws: Workspace, tmp_path: Path) -> None:
    engine = PermissionEngine(ws, home=tmp_path / "home")
    engine.add_rule("Read(use.py)", "deny", "cli")
    tool = Lsp(ws)

    def verdict(file: str) -> str:
        arguments = {"operation": "hover", "filePath": file, "line": 1, "character": 1}
        call = ToolUseBlock(id="t", name="LSP", input=arguments)
        return engine.check(tool, tool.Args.model_validate(arguments), call).behavior

    assert verdict("shapes.py") == "allow"
    assert verdict("use.py") == "deny"
    assert verdict(str(tmp_path / "elsewhere.py")) == "ask"
