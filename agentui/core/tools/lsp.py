"""LSP: ask the project's language server where a symbol is defined, where it is used, what it is, and what a file
defines (Claude Code's LSP tool, its name and arguments); what lies outside the project or in files the deny rules
hide is left out."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView, shown_path
from agentui.core.lsp.diagnostics import position as _position
from agentui.core.lsp.rpc import RpcError
from agentui.core.lsp.server import ServerError, path_of
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.workspace import Workspace

Operation = Literal["goToDefinition", "findReferences", "hover", "documentSymbol"]
METHODS: dict[str, str] = {
    "goToDefinition": "textDocument/definition",
    "findReferences": "textDocument/references",
    "hover": "textDocument/hover",
    "documentSymbol": "textDocument/documentSymbol",
}
NO_DEFINITION = (
    "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external "
    "library not indexed by the LSP server."
)
NO_REFERENCES = (
    "No references found. This may occur if the symbol has no usages, or if the LSP server has not fully indexed "
    "the workspace."
)


class LspArgs(ToolArgs):
    operation: Operation = Field(description="The LSP operation to perform")
    filePath: str = Field(description="The absolute or relative path to the file")
    line: int = Field(ge=1, description="The line number (1-based, as shown in editors)")
    character: int = Field(ge=1, description="The character offset (1-based, as shown in editors)")


class LspDetails(TypedDict):
    operation: str
    result: str
    filePath: str
    resultCount: NotRequired[int]
    fileCount: NotRequired[int]


class Lsp(Tool[LspArgs]):
    name = "LSP"
    description = (
        "Interact with Language Server Protocol (LSP) servers to get code intelligence features.\n"
        "Supported operations:\n"
        "- goToDefinition: Find where a symbol is defined\n"
        "- findReferences: Find all references to a symbol\n"
        "- hover: Get hover information (documentation, type info) for a symbol\n"
        "- documentSymbol: Get all symbols (functions, classes, variables) in a document\n"
        "All operations require:\n"
        "- filePath: The file to operate on\n"
        "- line: The line number (1-based, as shown in editors)\n"
        "- character: The character offset (1-based, as shown in editors)\n"
        "Note: LSP servers must be configured for the file type. If no server is available, an error will be "
        "returned."
    )
    Args = LspArgs
    Details = LspDetails
    kind = "read"
    shown = "search"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        where = (
            f"{shown_path(arguments.get('filePath'), cwd)}:{arguments.get('line', '')}:{arguments.get('character', '')}"
        )
        return f"{arguments.get('operation', '')} {where}"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        count = details.get("resultCount")
        return ResultView(f"{count} found" if isinstance(count, int) else (text.splitlines() or [""])[0][:120])

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: LspArgs) -> str:
        return args.filePath

    async def run(self, args: LspArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        path = ctx.checked_path or ws.real(args.filePath)
        if ws.lsp is None or not ws.lsp.handles(path):
            return ToolResult.error(f"No language server is available for {ws.display(path)}.")
        if not path.is_file():
            return ToolResult.error(f"File does not exist: {ws.display(path)}.")
        params: dict[str, Any] = {"position": {"line": args.line - 1, "character": args.character - 1}}
        if args.operation == "findReferences":
            params["context"] = {"includeDeclaration": True}
        if args.operation == "documentSymbol":
            params = {}
        try:
            answer = await ws.lsp.ask(path, METHODS[args.operation], params)
        except (ServerError, RpcError) as exc:
            return ToolResult.error(f"The language server could not answer: {exc}")
        text, count, files = self._format(args.operation, answer)
        details = LspDetails(operation=args.operation, result=text, filePath=args.filePath)
        if count is not None:
            details["resultCount"], details["fileCount"] = count, files
        return ToolResult(content=text, details=details)

    def _format(self, operation: str, answer: Any) -> tuple[str, int | None, int]:
        if operation == "hover":
            return _hover(answer), None, 0
        if operation == "documentSymbol":
            lines = _symbols(answer if isinstance(answer, list) else [], 0)
            return (
                ("Document symbols:\n" + "\n".join(lines)) if lines else "No symbols found in document.",
                len(lines),
                1,
            )
        raw = answer if isinstance(answer, list) else [answer] if isinstance(answer, dict) else []
        found, hidden = self._visible(raw)
        where = [f"{self.workspace.display(path)}:{line + 1}:{column + 1}" for path, line, column in found]
        left_out = f"\n({hidden} outside the project or in files that may not be read were left out.)" if hidden else ""
        files = len({path for path, _, _ in found})
        if operation == "goToDefinition":
            if not where:
                return NO_DEFINITION + left_out, 0, 0
            text = (
                f"Defined in {where[0]}"
                if len(where) == 1
                else f"Found {len(where)} definitions:\n" + "\n".join(f"  {w}" for w in where)
            )
            return text + left_out, len(where), files
        if not where:
            return NO_REFERENCES + left_out, 0, 0
        if len(where) == 1:
            return f"Found 1 reference:\n  {where[0]}{left_out}", 1, 1
        lines = [f"Found {len(where)} references across {files} files:"]
        for file in dict.fromkeys(path for path, _, _ in found):
            lines.append(f"\n{self.workspace.display(file)}:")
            lines += [f"  Line {line + 1}:{column + 1}" for path, line, column in found if path == file]
        return "\n".join(lines) + left_out, len(where), files

    def _visible(self, raw: list[Any]) -> tuple[list[tuple[Path, int, int]], int]:
        """The locations inside the project and not hidden by a deny rule (resolved as the kernel resolves them),
        and how many others there were."""
        ws, found, hidden = self.workspace, [], 0
        for item in raw:
            if not isinstance(item, dict):
                continue
            uri = item.get("targetUri") or item.get("uri")
            path = path_of(uri) if isinstance(uri, str) else None
            if path is None:
                continue
            real = ws.real(path)
            if not ws.contains(real) or ws.hidden(real):
                hidden += 1
                continue
            if (start := _start(item.get("targetSelectionRange") or item.get("range"))) is not None:
                found.append((real, *start))
        return found, hidden


def _start(span: Any) -> tuple[int, int] | None:
    """A range's start, or None for what a broken server sends in its place."""
    start = span.get("start") if isinstance(span, dict) else None
    if not isinstance(start, dict):
        return None
    line, character = _position(start.get("line", 0)), _position(start.get("character", 0))
    return None if line is None or character is None else (line, character)


def _hover(answer: Any) -> str:
    contents = answer.get("contents") if isinstance(answer, dict) else None
    if isinstance(contents, list):
        parts = (c if isinstance(c, str) else str(c.get("value", "")) if isinstance(c, dict) else "" for c in contents)
        text = "\n".join(part for part in parts if part)
    elif isinstance(contents, dict):
        text = str(contents.get("value", ""))
    else:
        text = str(contents or "")
    if not text.strip():
        return "No hover information available. This may occur if the cursor is not on a symbol."
    return text


KINDS = {5: "Class", 6: "Method", 12: "Function", 13: "Variable", 14: "Constant", 7: "Property", 9: "Constructor"}


def _symbols(items: list[Any], depth: int) -> list[str]:
    lines = []
    for item in items:
        if not isinstance(item, dict):
            continue
        location = item.get("location")
        span = (
            item.get("selectionRange")
            or item.get("range")
            or (location.get("range") if isinstance(location, dict) else None)
        )
        line = (_start(span) or (0, 0))[0] + 1
        number = item.get("kind")
        kind = KINDS.get(number, "Symbol") if isinstance(number, int) else "Symbol"
        lines.append(f"{'  ' * (depth + 1)}{item.get('name', '')} ({kind}) - Line {line}")
        children = item.get("children")
        lines += _symbols(children if isinstance(children, list) else [], depth + 1)
    return lines
