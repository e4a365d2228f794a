"""Capturing a command's output: head and tail kept for the model, the whole of it spilled to a file when long."""

from __future__ import annotations

import codecs
from collections import deque
from pathlib import Path
from typing import BinaryIO


def _create(path: Path) -> tuple[Path, BinaryIO]:
    """A new file at `path`, never through a link (a command may have planted one where agentui writes next): made with
    O_EXCL|O_NOFOLLOW through agentui's descriptor of the scratch directory, or, should something be at the name
    already, a new name beside it."""
    from agentui.core.scratch_files import scratch_files

    return scratch_files(path.parent).create_unique(None, path.name)


class OutputCapture:
    """Feed it bytes as they arrive; memory stays bounded however much comes (a 100 MB log costs ~`limit` chars).

    Until the output passes the limit it lives in memory only; after that everything, from the first byte, also
    goes to `spill_path` (a new file agentui makes in its scratch directory; another name if that one is taken),
    whose name the model is given to read the middle it did not see.
    """

    def __init__(self, spill_path: Path, limit: int = 30_000) -> None:
        self.spill_path = spill_path
        self._half = limit // 2
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head: list[str] = []
        self._head_size = 0
        self._tail: deque[str] = deque()
        self._tail_size = 0
        self.total_chars = 0
        self._raw: list[bytes] = []
        self._raw_size = 0
        self._spill: BinaryIO | None = None

    @property
    def truncated(self) -> bool:
        return self.total_chars > 2 * self._half

    def feed(self, data: bytes) -> str:
        """Take a chunk; returns its text, for live progress."""
        self._keep_raw(data)
        text = self._decoder.decode(data)
        self._keep_text(text)
        return text

    def _keep_raw(self, data: bytes) -> None:
        if self._spill is not None:
            self._spill.write(data)
            return
        self._raw.append(data)
        self._raw_size += len(data)
        if self._raw_size > 8 * self._half:  # past the limit even for 4-byte characters: start the spill file
            self._open_spill()

    def _open_spill(self) -> None:
        self.spill_path, self._spill = _create(self.spill_path)
        self._spill.writelines(self._raw)
        self._raw.clear()

    def _keep_text(self, text: str) -> None:
        self.total_chars += len(text)
        if self._head_size < self._half:
            room = self._half - self._head_size
            self._head.append(text[:room])
            self._head_size += len(text[:room])
            text = text[room:]
        if not text:
            return
        self._tail.append(text)
        self._tail_size += len(text)
        while self._tail_size - len(self._tail[0]) >= self._half:
            self._tail_size -= len(self._tail.popleft())

    def finish(self) -> str:
        """The text for the model: all of it, or head + a note naming the spill file + tail."""
        self._keep_text(self._decoder.decode(b"", final=True))
        head = "".join(self._head)
        tail = "".join(self._tail)
        if not self.truncated:
            if self._spill is not None:  # opened for bytes that decoded to fewer characters than the limit
                self._spill.close()
                self.spill_path.unlink(missing_ok=True)
            return head + tail
        if self._spill is None:  # the limit was passed within the raw buffer: write it out now
            self._open_spill()
        assert self._spill is not None
        self._spill.close()
        tail = tail[-self._half :]
        omitted = self.total_chars - len(head) - len(tail)
        note = (
            f"\n\n… [{omitted:,} characters omitted; the whole output ({self.total_chars:,} characters) is in "
            f"{self.spill_path}] …\n\n"
        )
        return head + note + tail

    def detach(self) -> BinaryIO:
        """Hand over to a file: `spill_path`, open for writing, holding every byte so far (the command went to the
        background, and its output from now on is appended there)."""
        if self._spill is None:
            self._open_spill()
        assert self._spill is not None
        self._spill.flush()
        spill, self._spill = self._spill, None
        return spill

    def close(self) -> None:
        if self._spill is not None and not self._spill.closed:
            self._spill.close()
