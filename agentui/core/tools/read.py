"""Read: a file's lines, numbered like `cat -n`; images as image blocks; notebooks as cells; PDF pages as a document
(or their text, for models without documents); binaries refused with a reason."""

from __future__ import annotations

import asyncio
import base64
import difflib
import errno
import io
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, TextIO

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView, plural, shown_path
from agentui.core.messages import DocumentBlock, ImageBlock, TextBlock
from agentui.core.no_links import open_no_links
from agentui.core.pdf import MAX_PAGES
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.file_store import editor_copy
from agentui.core.tools.files import SAMPLE_BYTES, BinaryFileError, image_type, sniff
from agentui.core.workspace import Workspace

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 100_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
WHOLE_FILE_BYTES = 256 * 1024
"""Files up to this size are read and decoded in one go; larger ones are streamed line by line."""
SKIP_LINE_CHARS = 16_000_000
"""How much of one overlong line Read passes over (unshown) before it stops: a 2 GB line costs seconds, not memory."""
_SKIP_CHUNK = 1 << 16
_STREAM_CODECS = {"utf-16-le": "utf-16", "utf-16-be": "utf-16"}  # these read their BOM themselves


class ReadArgs(ToolArgs):
    file_path: str = Field(description="The path of the file to read (absolute, or relative to the project root)")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="The line number to start reading from (1-based); only for files too long to read at once",
    )
    limit: int | None = Field(default=None, ge=1, description=f"How many lines to read (default {DEFAULT_LIMIT})")
    pages: str | None = Field(
        default=None,
        description=f"PDF files only: the pages to read, such as '3' or '1-5' (at most {MAX_PAGES} at a time)",
    )


class ReadFile(TypedDict):
    filePath: str
    content: str
    """The lines read, as they are in the file."""
    numLines: int
    startLine: int
    totalLines: int


class TextRead(TypedDict):
    type: Literal["text"]
    file: ReadFile


class NotebookFile(TypedDict):
    filePath: str
    cells: list[dict[str, Any]]


class NotebookCells(TypedDict):
    type: Literal["notebook"]
    file: NotebookFile


class PdfRead(TypedDict):
    type: Literal["pdf"]
    filePath: str
    pages: str
    numPages: int
    size: int


class ImageRead(TypedDict):
    filePath: str
    type: Literal["image"]
    size: int


ReadDetails = TextRead | NotebookCells | PdfRead | ImageRead
"""A Read's `toolUseResult`, in Claude Code's shapes (by the kind of file)."""


class Read(Tool[ReadArgs]):
    name = "Read"
    description = (
        "Read a file from the local filesystem. Returns up to 2000 lines by default, each prefixed with its line "
        "number (cat -n format); lines longer than 2000 characters are cut. Use offset and limit for long files. "
        "Images (PNG, JPEG, GIF, WebP) are returned as images, notebooks as their cells and outputs, PDFs by pages "
        f"(up to {MAX_PAGES} at a time; choose them with pages). Read a file before editing or overwriting it."
    )
    Args = ReadArgs
    Details = ReadDetails
    kind = "read"
    shown = "read"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return shown_path(arguments.get("file_path"), cwd)

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        if details.get("type") == "image":
            return ResultView("image")
        found = details.get("file")
        read: Mapping[str, Any] = found if isinstance(found, dict) else {}
        if details.get("type") == "notebook" and isinstance(read.get("cells"), list):
            return ResultView(plural(len(read["cells"]), "cell"))
        if isinstance(read.get("content"), str):  # (Claude Code's shape: the lines as they are in the file)
            return ResultView(f"{len(read['content'].splitlines())} lines")
        lines = details.get("numLines") or read.get("numLines")
        return ResultView(f"{lines if lines is not None else len(text.splitlines())} lines")

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: ReadArgs) -> str:
        return args.file_path

    async def run(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        # (on a thread: a slow disk or a network file system must not stop the app, and Esc still answers)
        return await self._buffer(args, await asyncio.to_thread(self._read, args, ctx))

    def _read(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        path = ctx.checked_path or ws.real(args.file_path)
        opened = _open_regular(path, ws.display(path))
        if isinstance(opened, ToolResult):
            return opened
        descriptor, info = opened
        with os.fdopen(descriptor, "rb") as handle:
            size = info.st_size
            head = handle.read(SAMPLE_BYTES)
            media_type = image_type(head)
            if media_type is not None:
                return self._image(path, ws.display(path), size, media_type, head + handle.read(MAX_IMAGE_BYTES + 1))
            if head.startswith(b"%PDF-") or (path.suffix.lower() == ".pdf" and not head.strip()):
                return self._pdf(path, head + handle.read(), args.pages, info)
            if args.pages is not None:
                return ToolResult.error(f"{ws.display(path)} is not a PDF; pages is for PDF files only.")
            if path.suffix == ".ipynb" and args.offset is None and args.limit is None:
                notebook = self._notebook(path, head + handle.read(), info)
                if notebook is not None:
                    return notebook
                handle.seek(len(head))
            try:
                codec, bom = sniff(head)
            except BinaryFileError:
                return ToolResult.error(
                    f"{ws.display(path)} is a binary file ({size:,} bytes), not text; Read shows text files and "
                    "images only."
                )
            codec = _stream_codec(codec, bom)
            start = max(1, args.offset or 1)
            limit = args.limit or DEFAULT_LIMIT
            text = None
            if size <= WHOLE_FILE_BYTES:  # small: decode at once, and split lines as the stream would
                text = (head + handle.read()).decode(codec, errors="replace")
                found = _whole_small_file(text, start, limit)
                lines, more, last = found or _numbered_lines(io.StringIO(text, newline=""), start, limit)
            else:
                handle.seek(0)
                source = io.TextIOWrapper(handle, encoding=codec, errors="replace", newline="")
                lines, more, last = _numbered_lines(source, start, limit)
        ws.record_read(path, info)
        return _text_result(ws, path, (lines, more, last), start, size, text)

    async def _buffer(self, args: ReadArgs, result: ToolResult) -> ToolResult:
        """A text file's read again from the editor's buffer of it (its unsaved changes), where the editor has one."""
        if self.workspace.editor is None or result.is_error or result.details.get("type") != "text":
            return result
        path = Path(result.details["file"]["filePath"])
        buffer = await editor_copy(self.workspace, path)
        if buffer is None:
            return result
        self.workspace.saw_text(path, buffer)
        start, limit = max(1, args.offset or 1), args.limit or DEFAULT_LIMIT
        found = _whole_small_file(buffer, start, limit)
        lines = found or _numbered_lines(io.StringIO(buffer, newline=""), start, limit)
        read = _text_result(self.workspace, path, lines, start, len(buffer.encode("utf-8", "replace")), buffer)
        return replace(read, from_editor=True)

    def _notebook(self, path: Path, raw: bytes, info: os.stat_result) -> ToolResult | None:
        """A notebook's cells and outputs; None for one that does not parse (it is then read as text)."""
        from agentui.core.tools.notebook import NotebookError, parse_notebook, recorded_cells, render_notebook

        try:
            notebook = parse_notebook(raw, self.workspace.display(path))
        except NotebookError:
            return None
        self.workspace.record_read(path, info)
        details = NotebookCells(type="notebook", file={"filePath": str(path), "cells": recorded_cells(notebook)})
        return ToolResult(content=render_notebook(notebook), details=details)

    def _pdf(self, path: Path, data: bytes, pages: str | None, info: os.stat_result) -> ToolResult:
        """The pages asked for: as a document block where the model reads documents, else as their text."""
        from agentui.core.pdf import PdfError, read_pdf

        shown = self.workspace.display(path)
        try:
            found = read_pdf(data, shown, pages)
        except PdfError as exc:
            return ToolResult.error(str(exc))
        self.workspace.record_read(path, info)
        details = PdfRead(type="pdf", filePath=str(path), pages=found.span, numPages=found.total, size=info.st_size)
        following, until = found.last + 1, min(found.total, found.last + MAX_PAGES)
        after = str(following) if following == until else f"{following}-{until}"
        more = f" It has {found.total} pages; read others with pages (such as {after})." if following <= until else ""
        said = f"PDF {shown}: page{'s' if found.first != found.last else ''} {found.span} of {found.total}.{more}"
        if not self.workspace.reads_documents:
            return ToolResult(content=f"{said}\n\n{found.text}", details=details)
        encoded = base64.b64encode(found.document).decode()
        document = DocumentBlock(source={"type": "base64", "media_type": "application/pdf", "data": encoded})
        return ToolResult(content=[TextBlock(text=said), document], details=details)

    def _image(self, path: Path, shown: str, size: int, media_type: str, raw: bytes) -> ToolResult:
        """`raw`: the image's bytes, read from the file that was opened (never read again by name)."""
        if size > MAX_IMAGE_BYTES or len(raw) > MAX_IMAGE_BYTES:
            return ToolResult.error(f"{shown} is an image of {max(size, len(raw)) / 1e6:.1f} MB; the limit is 5 MB.")
        data = base64.b64encode(raw).decode()
        self.workspace.record_read(path)
        block = ImageBlock(source={"type": "base64", "media_type": media_type, "data": data})
        return ToolResult(content=[block], details=ImageRead(filePath=str(path), type="image", size=size))


def _text_result(
    ws: Workspace, path: Path, read: tuple[list[str], bool, int], start: int, size: int, whole: str | None
) -> ToolResult:
    """The numbered lines read (whether more follow, the last line seen) as the tool's result."""
    lines, more, last = read
    details = _file_details(path, lines, start, more, last, whole)
    if not lines:
        if last == 0:
            return ToolResult(content=f"(the file {ws.display(path)} exists but is empty)", details=details)
        return ToolResult.error(f"{ws.display(path)} has only {last} lines; offset {start} is past the end.")
    text = "\n".join(lines)
    if more:
        next_line = start + len(lines)
        text += f"\n… more lines follow (file is {size:,} bytes); use offset={next_line} to read on."
    return ToolResult(content=text, details=details)


def _file_details(path: Path, lines: list[str], start: int, more: bool, last: int, whole: str | None) -> TextRead:
    """Claude Code's `toolUseResult` of a text Read: the lines read as they are in the file, and how many (counted as
    Claude Code counts them: a final line break ends an empty last line)."""
    content = "\n".join(line.split("\t", 1)[1] if "\t" in line else line for line in lines)
    ends = whole is not None and not more and whole.endswith(("\n", "\r")) and bool(lines)
    if ends:
        content += "\n"
    total = whole.count("\n") + 1 if whole is not None else last
    numbered = len(content.split("\n")) if lines else 0
    read = ReadFile(filePath=str(path), content=content, numLines=numbered, startLine=start, totalLines=total)
    return TextRead(type="text", file=read)


def _stream_codec(codec: str, bom: bytes) -> str:
    if codec == "utf-8":
        return "utf-8-sig" if bom else "utf-8"
    return _STREAM_CODECS.get(codec, codec)


def _numbered_lines(source: TextIO, start: int, limit: int) -> tuple[list[str], bool, int]:
    """Lines start..start+limit-1 as `cat -n` shows them, whether more follow, and the last line number seen.
    Large files are streamed in bounded pieces, so a 50 MB file costs only the lines asked for and a 2 GB line no
    more memory than a short one."""
    out: list[str] = []
    budget = MAX_OUTPUT_CHARS
    number = 0
    for number, (line, extra) in enumerate(_bounded_lines(source), 1):
        if number < start:
            continue
        if len(out) >= limit or budget <= 0:
            return out, True, number
        if extra < 0:
            line += f"… [the line goes on for more than {SKIP_LINE_CHARS:,} characters; Read stops here]"
        elif len(line) + extra > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f"… [{len(line) + extra - MAX_LINE_CHARS:,} more characters]"
        entry = f"{number:>6}\t{line}"
        budget -= len(entry) + 1
        out.append(entry)
        if extra < 0:
            return out, False, number
    return out, False, number


def _bounded_lines(source: TextIO) -> Iterator[tuple[str, int]]:
    """Each line without its ending, cut to MAX_LINE_CHARS + 1 characters, and how many characters were passed over
    after the cut (-1: more than SKIP_LINE_CHARS, and the reading ends there)."""
    cap = MAX_LINE_CHARS + 1
    split_cr = False  # (the last piece ended in a \r at the size limit: a \n now is the rest of that ending)
    while True:
        piece = source.readline(cap)
        if split_cr and piece.startswith("\n"):
            piece = piece[1:] or source.readline(cap)
        split_cr = False
        if not piece:
            return
        if piece.endswith(("\n", "\r")) or len(piece) < cap:
            split_cr = len(piece) == cap and piece.endswith("\r")
            yield piece.rstrip("\r\n"), 0
            continue
        skipped = 0
        while True:
            rest = source.readline(_SKIP_CHUNK)
            if not rest:
                break
            ended = rest.endswith(("\n", "\r"))
            split_cr = len(rest) == _SKIP_CHUNK and rest.endswith("\r")
            skipped += len(rest.rstrip("\r\n"))
            if ended:
                break
            if skipped > SKIP_LINE_CHARS:
                yield piece, -1
                return
        yield piece, skipped


def _open_regular(path: Path, shown: str) -> tuple[int, os.stat_result] | ToolResult:
    """A descriptor open on `path` for reading and what fstat says of it, or the error: only regular files are
    opened, and nothing is opened in a way that can block (a FIFO with no writer, a device, a socket are refused by
    type before and after opening)."""
    try:
        found = _not_regular(os.stat(path).st_mode, shown)
        if found is not None:
            return found
    except FileNotFoundError:
        return ToolResult.error(f"File does not exist: {shown}.{_suggestion(path)}")
    except OSError as exc:
        return ToolResult.error(f"{shown} cannot be read: {(exc.strerror or str(exc)).lower()}.")
    try:  # (as it was checked: a part of the path swapped for a link since then fails the open, it is not followed)
        descriptor = open_no_links(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return ToolResult.error(f"{shown} changed while it was being read (a link appeared in its path).")
        return ToolResult.error(f"{shown} cannot be read: {(exc.strerror or str(exc)).lower()}.")
    info = os.fstat(descriptor)
    found = _not_regular(info.st_mode, shown)  # (it may have been swapped since the stat)
    if found is not None:
        os.close(descriptor)
        return found
    os.set_blocking(descriptor, True)
    return descriptor, info


def _not_regular(mode: int, shown: str) -> ToolResult | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return ToolResult.error(f"{shown} is a directory, not a file; use Glob or `ls` to list it.")
    kind = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return ToolResult.error(f"{shown} is {kind}, not a regular file; Read reads regular files only.")


def _whole_small_file(text: str, start: int, limit: int) -> tuple[list[str], bool, int] | None:
    """The common case in one pass: the whole of a short file with `\n` endings and no overlong line, read from
    its start. None when any of that does not hold (`_numbered_lines` handles everything)."""
    if start != 1 or "\r" in text or len(text) > MAX_OUTPUT_CHARS // 2:
        return None
    pieces = text.split("\n")
    if pieces[-1] == "":
        pieces.pop()
    if len(pieces) > limit or (pieces and max(map(len, pieces)) > MAX_LINE_CHARS):
        return None
    return [f"{number:>6}\t{line}" for number, line in enumerate(pieces, 1)], False, len(pieces)


def _suggestion(path: Path) -> str:
    try:
        siblings = [p.name for p in path.parent.iterdir()] if path.parent.is_dir() else []
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, siblings, n=1, cutoff=0.6)
    return f" Did you mean {close[0]}?" if close else ""
