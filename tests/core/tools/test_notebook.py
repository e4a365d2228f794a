"""Notebooks: Read shows cells with their outputs and images; NotebookEdit replaces, inserts and deletes cells by id
and leaves valid JSON with the notebook's metadata; a malformed notebook is one clear sentence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentui.core.messages import ImageBlock, TextBlock
from agentui.core.tools.base import Tool, ToolContext, ToolResult
from agentui.core.tools.notebook import NotebookEdit
from agentui.core.tools.read import Read
from agentui.core.workspace import Workspace

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
CTX = ToolContext(cwd=Path("."), session_id="s", tool_call_id="t")


def notebook() -> dict[str, Any]:
    return {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Sums\n", "Adding numbers."]},
            {
                "cell_type": "code",
                "id": "add",
                "execution_count": 1,
                "metadata": {"tags": ["keep"]},
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["3\n"]},
                    {
                        "output_type": "display_data",
                        "data": {"image/png": PIXEL, "text/plain": ["<Figure>"]},
                        "metadata": {},
                    },
                ],
                "source": ["print(1 + 2)"],
            },
            {
                "cell_type": "code",
                "id": "boom",
                "execution_count": 2,
                "metadata": {},
                "outputs": [
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "division by zero",
                        "traceback": [],
                    }
                ],
                "source": ["1 / 0"],
            },
        ],
        "metadata": {"kernelspec": {"name": "python3"}, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    (tmp_path / "sums.ipynb").write_text(json.dumps(notebook(), indent=1) + "\n")
    return Workspace(tmp_path)


async def call(tool: Tool[Any], **arguments: Any) -> ToolResult:
    return await tool.run(tool.Args.model_validate(arguments), CTX)


async def test_read_shows_cells_outputs_and_images(ws: Workspace) -> None:
    result = await call(Read(ws), file_path="sums.ipynb")
    assert isinstance(result.content, list)
    first, image, rest = result.content
    assert isinstance(first, TextBlock) and isinstance(image, ImageBlock) and isinstance(rest, TextBlock)
    assert first.text == (
        '<cell id="intro"><cell_type>markdown</cell_type># Sums\nAdding numbers.</cell>\n'
        '<cell id="add">print(1 + 2)</cell>\n<output>3</output>'
    )
    assert image.source["media_type"] == "image/png" and image.source["data"] == PIXEL
    assert rest.text == '<cell id="boom">1 / 0</cell>\n<output>ZeroDivisionError: division by zero</output>'
    # recorded as Claude Code records a notebook it read: each cell's source and outputs as text
    assert result.details["type"] == "notebook" and result.details["file"]["filePath"] == str(ws.root / "sums.ipynb")
    intro, add, boom = result.details["file"]["cells"]
    assert intro == {"cellType": "markdown", "source": "# Sums\nAdding numbers.", "cell_id": "intro"}
    assert add["cellType"] == "code" and add["language"] == "python" and add["outputs"][0]["text"] == "3\n"
    assert boom["outputs"] == [{"output_type": "error", "text": "ZeroDivisionError: division by zero"}]


async def test_replace_insert_and_delete_keep_a_valid_notebook(ws: Workspace) -> None:
    path = ws.root / "sums.ipynb"
    edit = NotebookEdit(ws)
    unread = await call(edit, notebook_path="sums.ipynb", cell_id="add", new_source="print(2)")
    assert unread.is_error and "has not been read yet" in str(unread.content)
    await call(Read(ws), file_path="sums.ipynb")
    replaced = await call(edit, notebook_path="sums.ipynb", cell_id="add", new_source="print(2 + 2)\nprint(5)")
    assert replaced.content == "Updated cell add of sums.ipynb." and replaced.details["language"] == "python"
    assert replaced.details["old_source"] == "print(1 + 2)"
    inserted = await call(
        edit, notebook_path="sums.ipynb", cell_id="intro", new_source="x = 1", cell_type="code", edit_mode="insert"
    )
    new_id = inserted.details["cell_id"]
    deleted = await call(edit, notebook_path="sums.ipynb", cell_id="boom", new_source="", edit_mode="delete")
    assert deleted.details["old_source"] == "1 / 0" and "old_source" not in inserted.details
    saved = json.loads(path.read_text())
    assert [c["id"] for c in saved["cells"]] == ["intro", new_id, "add"] and len(new_id) == 8
    add = saved["cells"][2]
    assert add["source"] == ["print(2 + 2)\n", "print(5)"] and add["outputs"] == [] and add["execution_count"] is None
    assert add["metadata"] == {"tags": ["keep"]} and saved["metadata"] == notebook()["metadata"]
    assert saved["cells"][1] == {
        "cell_type": "code",
        "metadata": {},
        "source": ["x = 1"],
        "id": new_id,
        "execution_count": None,
        "outputs": [],
    }
    assert path.read_text().startswith('{\n "cells"')  # Jupyter's one-space indent, kept


async def test_bad_edits_and_malformed_notebooks_are_one_sentence(ws: Workspace) -> None:
    edit = NotebookEdit(ws)
    await call(Read(ws), file_path="sums.ipynb")
    before = (ws.root / "sums.ipynb").read_bytes()
    for arguments, said in (
        ({"cell_id": "nope", "new_source": "x"}, "there is no cell 'nope'; nothing was written."),
        ({"new_source": "x", "edit_mode": "insert"}, "cell_type (code or markdown) is needed to insert a cell"),
        ({"new_source": "x", "edit_mode": "delete"}, "cell_id is needed to delete a cell"),
    ):
        result = await call(edit, notebook_path="sums.ipynb", **arguments)
        assert result.is_error and said in str(result.content)
    assert (ws.root / "sums.ipynb").read_bytes() == before
    broken = ws.root / "broken.ipynb"
    broken.write_text('{"cells": [')
    read = await call(Read(ws), file_path="broken.ipynb")
    assert read.content == '     1\t{"cells": ['  # read as the text it is
    result = await call(edit, notebook_path="broken.ipynb", cell_id="a", new_source="x")
    assert result.is_error and str(result.content).startswith(
        "broken.ipynb is not a valid notebook: its JSON does not parse"
    )
    assert broken.read_text() == '{"cells": ['
