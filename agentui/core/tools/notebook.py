"""Jupyter notebooks: Read shows each cell with its outputs (images as images); NotebookEdit replaces, inserts or
deletes a cell by id with Claude Code's arguments, keeping the notebook valid JSON with its metadata."""

from __future__ import annotations

import json
import secrets
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.atomic_write import atomic_write
from agentui.core.errors import AgentuiError
from agentui.core.messages import ImageBlock, ResultBlock, TextBlock
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.write import target_path
from agentui.core.workspace import Workspace

OUTPUT_CHARS = 10_000
"""Per output: a cell that printed a megabyte is shown by its start."""


class NotebookError(AgentuiError, ValueError):
    """Not a notebook this tool can work on; the message says why, in one sentence."""


def parse_notebook(raw: bytes, shown: str) -> dict[str, Any]:
    try:
        notebook = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise NotebookError(f"{shown} is not a valid notebook: its JSON does not parse ({exc})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError(f"{shown} is not a valid notebook: it has no list of cells")
    return notebook


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def cell_id(cell: dict[str, Any], index: int) -> str:
    return str(cell.get("id") or f"cell-{index}")


def language_of(notebook: dict[str, Any]) -> str:
    info = (notebook.get("metadata") or {}).get("language_info") or {}
    return str(info.get("name") or "python") if isinstance(info, dict) else "python"


def recorded_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    """The cells as Claude Code records a Read of a notebook (its `toolUseResult.file.cells`): source and outputs
    as text."""
    language = language_of(notebook)
    cells = []
    for index, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type", "code")
        entry: dict[str, Any] = {"cellType": kind, "source": _text(cell.get("source"))}
        if kind == "code" and cell.get("execution_count") is not None:
            entry["execution_count"] = cell["execution_count"]
        entry["cell_id"] = cell_id(cell, index)
        if kind == "code":
            entry["language"] = language
        outputs = [_recorded_output(o) for o in cell.get("outputs") or [] if isinstance(o, dict)]
        if outputs:
            entry["outputs"] = outputs
        cells.append(entry)
    return cells


def _recorded_output(output: dict[str, Any]) -> dict[str, Any]:
    data = output.get("data") or {}
    if output.get("output_type") == "error":
        text = "\n".join(
            [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}", *map(str, output.get("traceback") or [])]
        )
    else:
        text = _text(output.get("text") or data.get("text/plain"))
    return {"output_type": output.get("output_type", ""), "text": text[:OUTPUT_CHARS]}


def render_notebook(notebook: dict[str, Any]) -> list[ResultBlock]:
    """The cells as the model reads them: id, type and source, then each output (text, or a PNG/JPEG image)."""
    language = language_of(notebook)
    blocks: list[ResultBlock] = []
    parts: list[str] = []
    for index, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type", "code")
        header = f'<cell id="{cell_id(cell, index)}">'
        if kind != "code":
            header += f"<cell_type>{kind}</cell_type>"
        parts.append(f"{header}{_text(cell.get('source'))}</cell>")
        for output in cell.get("outputs") or []:
            if not isinstance(output, dict):
                continue
            data = output.get("data") or {}
            image = next((m for m in ("image/png", "image/jpeg") if m in data), None)
            if image is not None:
                blocks.append(TextBlock(text="\n".join(parts)))
                parts = []
                source = {"type": "base64", "media_type": image, "data": _text(data[image]).replace("\n", "")}
                blocks.append(ImageBlock(source=source))
                continue
            if output.get("output_type") == "error":
                text = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
            else:
                text = _text(output.get("text") or data.get("text/plain"))
            if text:
                clipped = text[:OUTPUT_CHARS] + (
                    f"\n… [{len(text) - OUTPUT_CHARS:,} more characters]" if len(text) > OUTPUT_CHARS else ""
                )
                parts.append(f"<output>{clipped.rstrip()}</output>")
    if parts or not blocks:
        blocks.append(TextBlock(text="\n".join(parts) or f"(an empty {language} notebook)"))
    return blocks


class NotebookEditArgs(ToolArgs):
    notebook_path: str = Field(description="The notebook to edit (absolute, or relative to the project root)")
    cell_id: str | None = Field(
        default=None,
        description="The cell to replace or delete; with insert, the new cell goes after it (at the start if absent)",
    )
    new_source: str = Field(description="The cell's new source (ignored when deleting)")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None, description="The cell's type: required to insert, defaults to the cell's own to replace"
    )
    edit_mode: Literal["replace", "insert", "delete"] = Field(default="replace")


class NotebookEditDetails(TypedDict):
    new_source: str
    old_source: NotRequired[str]
    """The cell's source before (not for an inserted cell)."""
    cell_type: str
    language: str
    edit_mode: Literal["replace", "insert", "delete"]
    cell_id: str
    error: str
    notebook_path: str
    original_file: str
    updated_file: str


class NotebookEdit(Tool[NotebookEditArgs]):
    name = "NotebookEdit"
    description = (
        "Replace, insert or delete one cell of a Jupyter notebook (.ipynb), by the cell id Read shows. Replacing a "
        "code cell clears its outputs. Read the notebook first."
    )
    Args = NotebookEditArgs
    Details = NotebookEditDetails
    kind = "write"
    shown = "edit"
    opens = True

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: NotebookEditArgs) -> str:
        return args.notebook_path

    async def run(self, args: NotebookEditArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        path, problem = target_path(ws, args.notebook_path, ctx)
        if problem:
            return ToolResult.error(problem)
        shown = ws.display(path)
        if path.suffix != ".ipynb":
            return ToolResult.error(f"{shown} is not a notebook (.ipynb); use Edit for other files.")
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return ToolResult.error(f"Notebook does not exist: {shown}.")
        if reason := ws.unread_reason(path):
            return ToolResult.error(f"{reason}; nothing was written.")
        try:
            notebook = parse_notebook(raw, shown)
            changed_id, cell_type, old_source = _apply(notebook, args)
        except NotebookError as exc:
            return ToolResult.error(f"{exc}; nothing was written.")
        indent = 2 if raw.startswith(b"{\n  ") else 1  # (as Jupyter and Claude Code write them, unless it uses 2)
        updated = json.dumps(notebook, indent=indent, ensure_ascii=False) + "\n"
        atomic_write(path, updated.encode())
        ws.record_read(path)
        verb = {"replace": "Updated", "insert": "Inserted", "delete": "Deleted"}[args.edit_mode]
        details = NotebookEditDetails(
            new_source=args.new_source,
            cell_type=cell_type,
            language=language_of(notebook),
            edit_mode=args.edit_mode,
            cell_id=changed_id,
            error="",
            notebook_path=str(path),
            original_file=raw.decode("utf-8", errors="replace"),
            updated_file=updated,
        )
        if old_source is not None:
            details["old_source"] = old_source
        return ToolResult(f"{verb} cell {changed_id} of {shown}.", details)


def _apply(notebook: dict[str, Any], args: NotebookEditArgs) -> tuple[str, str, str | None]:
    """The change made: the cell's id and type, and its source before (None for an insert)."""
    cells: list[Any] = notebook["cells"]
    index = _find(cells, args.cell_id) if args.cell_id else None
    if args.edit_mode != "insert" and index is None:
        raise NotebookError(
            f"there is no cell {args.cell_id!r}" if args.cell_id else f"cell_id is needed to {args.edit_mode} a cell"
        )
    source = args.new_source.splitlines(keepends=True)
    if args.edit_mode == "delete":
        assert index is not None
        removed = cells.pop(index)
        return cell_id(removed, index), str(removed.get("cell_type", "code")), _text(removed.get("source"))
    if args.edit_mode == "insert":
        if args.cell_type is None:
            raise NotebookError("cell_type (code or markdown) is needed to insert a cell")
        cell: dict[str, Any] = {"cell_type": args.cell_type, "metadata": {}, "source": source}
        if _uses_ids(notebook):
            cell["id"] = secrets.token_hex(4)
        if args.cell_type == "code":
            cell |= {"execution_count": None, "outputs": []}
        position = 0 if index is None else index + 1
        cells.insert(position, cell)
        return cell_id(cell, position), args.cell_type, None
    assert index is not None
    cell = cells[index]
    old_source = _text(cell.get("source"))
    cell["source"] = source
    kind = args.cell_type or cell.get("cell_type", "code")
    if kind != cell.get("cell_type"):
        cell["cell_type"] = kind
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)
    return cell_id(cell, index), kind, old_source


def _find(cells: list[Any], wanted: str) -> int | None:
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("id") == wanted:
            return index
    if wanted.startswith("cell-") and wanted[5:].isdigit() and int(wanted[5:]) < len(cells):
        return int(wanted[5:])  # (the id Read shows for a cell of an older notebook that has none)
    return None


def _uses_ids(notebook: dict[str, Any]) -> bool:
    return (notebook.get("nbformat", 4), notebook.get("nbformat_minor", 0)) >= (4, 5)
