"""A text file read to be changed and its change stored: through the editor where the front end has one (its unsaved
buffer is what is changed, and it shows the change), else from and to the disk, atomically."""

from __future__ import annotations

import os
from pathlib import Path

from agentui.core.atomic_write import atomic_write
from agentui.core.editor_files import EditorError, editor_text, held_as_text, write_through
from agentui.core.tools.files import TextFormat, decode
from agentui.core.workspace import Workspace


async def text_to_change(ws: Workspace, path: Path) -> tuple[str, TextFormat]:
    """The file's text (line endings as stored) and its format: the editor's buffer of it where the editor holds it
    as the disk does. Raises BinaryFileError for a binary file, OSError as reading does."""
    stored, fmt = decode(path.read_bytes())
    if ws.editor is not None and held_as_text(fmt, stored):
        buffer = await editor_text(ws.editor, path)
        if buffer is not None:
            newline = "\r\n" if buffer.count("\r\n") and buffer.count("\r\n") == buffer.count("\n") else "\n"
            return buffer, TextFormat(newline=newline)
    return stored, fmt


async def store_text(ws: Workspace, path: Path, text: str, fmt: TextFormat) -> str | None:
    """`text` stored in `fmt`; None once stored, else why it was not (the editor refused: nothing was written)."""
    if ws.editor is not None and held_as_text(fmt, text) and _plainly_placed(path):
        try:
            await write_through(ws.editor, path, fmt.encode(text).decode("utf-8"))
        except EditorError as exc:
            return str(exc)
        return None
    atomic_write(path, fmt.encode(text))
    return None


def _plainly_placed(path: Path) -> bool:
    """Whether `path` (resolved when it was checked) still is where it was: no link in its place or its directory's.
    An editor opens the path as it finds it, so where a link has been swapped in since, the disk is written instead,
    by the write that pins the directory and replaces the link itself."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.path.realpath(path.parent) == str(path.parent) and not path.is_symlink()
