"""A text file read to be changed and its change stored: through the editor where the front end has one (its unsaved
buffer is what is changed, and it shows the change), else from and to the disk, atomically.

The editor opens a path as it finds it, between agentui's check of the path and its answer. So it is used only while
no program agentui started is running (nothing of the model's can swap a link in meanwhile), only for a file it holds
as the disk does (UTF-8 text with one kind of line ending), and only once the path is checked again to be that file;
otherwise the disk is read and written, the write pinning its directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.atomic_write import atomic_write
from agentui.core.editor_files import EditorError, EditorFiles, EditorRefused, editor_text, held_as_text, write_through
from agentui.core.tools.files import BinaryFileError, TextFormat, decode, line_ending
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.change_queue import ChangeQueue

EDITOR_READ_BYTES = 1 << 20
"""Larger files are read from the disk: the editor would send the whole of one for a few lines of it."""


def usable_editor(ws: Workspace) -> EditorFiles | None:
    """The editor, while nothing agentui started runs beside the tool (no background command)."""
    return ws.editor if ws.editor is not None and not ws.shells.running() else None


async def editor_copy(ws: Workspace, path: Path, stored: tuple[str, TextFormat] | None = None) -> str | None:
    """The editor's text of the (checked, resolved) file `path`, where it may be used; None for the disk's.
    `stored`: the file's text and format as just read from the disk, if they were."""
    editor = usable_editor(ws)
    if editor is None:
        return None
    try:
        before = os.lstat(path)
        if not stat.S_ISREG(before.st_mode) or before.st_size > EDITOR_READ_BYTES:
            return None
        text_on_disk, fmt = stored or decode(path.read_bytes())
    except (OSError, BinaryFileError):
        return None
    if not held_as_text(fmt, text_on_disk):
        return None
    text = await editor_text(editor, path)
    try:
        after = os.lstat(path)
    except OSError:
        return None
    if (
        text is None
        or (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino)
        or not stat.S_ISREG(after.st_mode)
    ):
        return None  # (something else is at the path now: what the editor read is not what was checked)
    return text


def _queue(ws: Workspace) -> ChangeQueue | None:
    """The change queue while changes are queued for the plan's approval, not made (plan mode with the queue on)."""
    return ws.changes if ws.changes is not None and ws.changes.active else None


def file_exists(ws: Workspace, path: Path) -> bool:
    """The file is there, or a queued change creates it."""
    return path.exists() or ((queue := _queue(ws)) is not None and queue.proposed(path) is not None)


def queued_note(ws: Workspace, said: str) -> str:
    """What a change tool tells the model: while changes are queued, that its change waits for the plan's approval."""
    if _queue(ws) is None:
        return said
    return (
        f"Queued, not made yet (plan mode): {said} The change is applied only if the user approves your plan "
        "(ExitPlanMode) and picks this file; later Edits of the file apply to its queued text."
    )


async def text_to_change(ws: Workspace, path: Path) -> tuple[str, TextFormat]:
    """The file's text (line endings as stored) and its format: the editor's buffer of it where it may be used, or
    its queued text while changes are queued. Raises BinaryFileError for a binary file, OSError as reading does."""
    if (queue := _queue(ws)) is not None and (queued := queue.proposed(path)) is not None:
        return decode(queued)
    stored, fmt = decode(path.read_bytes())
    buffer = await editor_copy(ws, path, (stored, fmt))
    if buffer is not None:
        return buffer, TextFormat(newline=line_ending(buffer))
    return stored, fmt


async def store_text(ws: Workspace, path: Path, text: str, fmt: TextFormat) -> str | None:
    """`text` stored in `fmt`; None once stored, else why it may not have been (the editor did not answer). Where
    the editor refuses the write (a file outside what it has open), the disk is written as without one. While changes
    are queued, the change is queued instead."""
    if (queue := _queue(ws)) is not None:
        queue.propose(path, fmt.encode(text))
        return None
    editor = usable_editor(ws)
    if editor is not None and held_as_text(fmt, text) and _plainly_placed(path):
        try:
            await write_through(editor, path, fmt.encode(text).decode("utf-8"))
        except EditorError as exc:
            return str(exc)
        except EditorRefused:
            pass
        else:
            return None
    atomic_write(path, fmt.encode(text))
    return None


def _plainly_placed(path: Path) -> bool:
    """Whether `path` (resolved when it was checked) still is where it was: no link in its place or its directory's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.path.realpath(path.parent) == str(path.parent) and not path.is_symlink()
