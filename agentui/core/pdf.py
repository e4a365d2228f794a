"""PDF pages for the model (pypdf): the pages asked for as a PDF of their own, for models that read documents, and
as their text, for models that do not; an encrypted or broken file is one clear sentence."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from agentui.core.errors import AgentuiError

MAX_PAGES = 20
"""Pages one Read returns; the model asks for more with `pages`."""
MAX_PDF_BYTES = 32 * 1024 * 1024
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$")


class PdfError(AgentuiError):
    """Why a PDF cannot be read, in one sentence."""


@dataclass(frozen=True)
class PdfPages:
    first: int
    last: int
    total: int
    text: str
    """The pages' text, each under a `--- Page N ---` line."""
    document: bytes
    """The pages as a PDF of their own (the file itself when they are all of it)."""

    @property
    def span(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


def read_pdf(data: bytes, name: str, pages: str | None) -> PdfPages:
    """The pages `pages` ("3", "1-5", "10-"; None: from the first, up to MAX_PAGES) of the PDF in `data`."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PyPdfError

    if len(data) > MAX_PDF_BYTES:
        raise PdfError(f"{name} is {len(data) / 1e6:.1f} MB; PDFs up to {MAX_PDF_BYTES // 2**20} MB can be read.")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _opens_without_password(reader):
            raise PdfError(f"{name} is encrypted with a password, so its pages cannot be read.")
        total = len(reader.pages)
        first, last = _page_range(pages, total, name)
        texts = []
        for number in range(first, last + 1):
            text = (reader.pages[number - 1].extract_text() or "").strip()
            texts.append(f"--- Page {number} ---\n{text or '(no text on this page: it may be a scanned image)'}")
        if (first, last) == (1, total) and not reader.is_encrypted:
            document = data
        else:
            writer = PdfWriter()
            for number in range(first, last + 1):
                writer.add_page(reader.pages[number - 1])
            out = io.BytesIO()
            writer.write(out)
            document = out.getvalue()
    except PdfError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
        raise PdfError(f"{name} is not a readable PDF ({reason}).") from None
    return PdfPages(first, last, total, "\n\n".join(texts), document)


def _opens_without_password(reader: object) -> bool:
    """Many PDFs are encrypted with an empty password (to set permissions only): those open."""
    from pypdf.errors import PyPdfError

    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except (PyPdfError, NotImplementedError, ValueError):  # (AES needs the `cryptography` package)
        return False


def _page_range(pages: str | None, total: int, name: str) -> tuple[int, int]:
    if total == 0:
        raise PdfError(f"{name} has no pages.")
    if pages is None or not pages.strip():
        return 1, min(total, MAX_PAGES)
    found = _RANGE.match(pages)
    if not found:
        raise PdfError(f"pages must be a page number or a range such as 1-5, not {pages!r}.")
    first = int(found.group(1))
    last = first if found.group(2) is None else int(found.group(2) or total)
    if first < 1 or last < first:
        raise PdfError(f"pages {pages!r} is not a range of pages: they start at 1, first to last.")
    if first > total:
        raise PdfError(f"{name} has {total} pages; page {first} is past the end.")
    last = min(last, total)
    if last - first + 1 > MAX_PAGES:
        raise PdfError(f"At most {MAX_PAGES} pages are read at a time; ask for a shorter range than {pages}.")
    return first, last
