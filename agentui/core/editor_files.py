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
"""Seconds an editor has to answer a write: an editor that stops answering must not stop the tool."""
READ_WAIT = 5.0
"""Seconds it has to answer a read; then the disk's copy serves."""


class EditorFiles(Protocol):
    """The editor's side. `read_text` gives a file's text as the editor has it (None: the editor has no text for it,
    and the disk is read); `write_text` replaces the file's whole text, creating it if need be. Either raises
    (anything) when the editor refuses; the message says why."""

    async def read_text(self, path: Path) -> str | None: ...

    async def write_text(self, path: Path, text: str) -> None: ...


class EditorError(AgentuiError):
    """The editor did not answer a write in time (it may still make it); the message is one sentence."""


class EditorRefused(AgentuiError):
    """The editor refused a write (a path outside its worktrees, say): nothing was written."""


def held_as_text(fmt: TextFormat, text: str) -> bool:
    """Whether the editor can hold the file as it is stored: UTF-8 with no byte-order mark and nothing undecodable
    (an editor's text would store anything else differently, so those are read and written on disk)."""
    if fmt.codec != "utf-8" or fmt.bom or ("\r" in text and fmt.newline == "\n"):  # (mixed line endings too)
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def editor_text(editor: EditorFiles, path: Path) -> str | None:
    """The editor's text of `path`, or None (the editor has none, or it failed: the disk's copy serves)."""
    try:
        return await asyncio.wait_for(editor.read_text(path), READ_WAIT)
    except Exception:  # (any refusal or silence: the file on disk is the next best thing, and is what was checked)
        return None


async def write_through(editor: EditorFiles, path: Path, text: str) -> None:
    """`text` written by the editor; raises EditorRefused when it says no, EditorError when it does not answer."""
    try:
        await asyncio.wait_for(editor.write_text(path, text), EDITOR_WAIT)
    except TimeoutError:
        raise EditorError(
            f"the editor did not answer within {EDITOR_WAIT:.0f} s, so {path} may or may not have been written; "
            "Read it again"
        ) from None
    except Exception as exc:
        raise EditorRefused(f"the editor could not write {path}: {exc}") from None
