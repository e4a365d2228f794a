"""Files as an editor holds them: a front end whose client is an editor (ACP's `fs/*`) gives the tools the editor's
buffers to read, unsaved changes included, and writes through the editor, so what it shows is what the tools saw and
changed. Without an editor, and for a file the editor cannot hold as UTF-8 text, the disk is read and written."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentui.core.errors import AgentuiError

if TYPE_CHECKING:
    from agentui.core.tools.files import TextFormat

EDITOR_WAIT = 30.0
"""Seconds an editor has to answer a read or a write: an editor that stops answering must not stop the tool."""


class EditorFiles(Protocol):
    """The editor's side. `read_text` gives a file's text as the editor has it (None: the editor has no text for it,
    and the disk is read); `write_text` replaces the file's whole text, creating it if need be. Either raises
    (anything) when the editor refuses; the message says why."""

    async def read_text(self, path: Path) -> str | None: ...

    async def write_text(self, path: Path, text: str) -> None: ...


class EditorError(AgentuiError):
    """The editor refused a read or a write, or did not answer in time; the message is one sentence."""


def held_as_text(fmt: TextFormat, text: str) -> bool:
    """Whether the editor can hold the file as it is stored: UTF-8 with no byte-order mark and nothing undecodable
    (an editor's text would store anything else differently, so those are read and written on disk)."""
    if fmt.codec != "utf-8" or fmt.bom:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def editor_text(editor: EditorFiles | None, path: Path) -> str | None:
    """The editor's text of `path`, or None (no editor, the editor has none, or it failed: the disk's copy serves)."""
    if editor is None:
        return None
    try:
        return await asyncio.wait_for(editor.read_text(path), EDITOR_WAIT)
    except Exception:  # (any refusal or silence: the file on disk is the next best thing, and is what was checked)
        return None


async def write_through(editor: EditorFiles, path: Path, text: str) -> None:
    """`text` written by the editor; raises EditorError with the editor's reason."""
    try:
        await asyncio.wait_for(editor.write_text(path, text), EDITOR_WAIT)
    except TimeoutError:
        raise EditorError(f"the editor did not write {path} within {EDITOR_WAIT:.0f} s") from None
    except Exception as exc:
        raise EditorError(f"the editor could not write {path}: {exc}") from None
