"""Read of a PDF: the pages asked for, as a document block for models that read documents (the Messages API) and as
their text for the others; an encrypted, broken or oversized request is one clear sentence."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from agentui.core.messages import DocumentBlock, Message, TextBlock, ToolResultBlock
from agentui.core.providers.anthropic import block_param
from agentui.core.providers.openai import message_entries
from agentui.core.tools.base import ToolContext, ToolResult
from agentui.core.tools.read import Read, ReadArgs
from agentui.core.workspace import Workspace
from tests.support.pdfs import encrypted_pdf, not_a_pdf, text_pdf, three_pages

CTX = ToolContext(cwd=Path("."), session_id="s", tool_call_id="t")


async def read(ws: Workspace, name: str, pages: str | None = None) -> ToolResult:
    return await Read(ws).run(ReadArgs(file_path=name, pages=pages), CTX)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    (tmp_path / "report.pdf").write_bytes(three_pages())
    return Workspace(tmp_path)


async def test_pages_as_text_for_models_without_documents(ws: Workspace) -> None:
    whole = await read(ws, "report.pdf")
    assert not whole.is_error and isinstance(whole.content, str)
    assert whole.content.startswith("PDF report.pdf: pages 1-3 of 3.")
    assert "--- Page 1 ---\nAlpha page one" in whole.content and "--- Page 3 ---\nGamma page three" in whole.content
    assert whole.details == {
        "type": "pdf", "filePath": str(ws.root / "report.pdf"), "pages": "1-3", "numPages": 3,
        "size": (ws.root / "report.pdf").stat().st_size,
    }  # fmt: skip
    second = await read(ws, "report.pdf", "2")
    assert "Beta page two" in str(second.content) and "Alpha" not in str(second.content)
    assert str(second.content).startswith("PDF report.pdf: page 2 of 3.")
    tail = await read(ws, "report.pdf", "2-")
    assert "Beta" in str(tail.content) and "Gamma" in str(tail.content) and tail.details["pages"] == "2-3"


async def test_pages_as_a_document_for_models_that_read_them(ws: Workspace) -> None:
    ws.reads_documents = True
    result = await read(ws, "report.pdf", "2-3")
    assert isinstance(result.content, list)
    said, document = result.content
    assert isinstance(said, TextBlock) and said.text == "PDF report.pdf: pages 2-3 of 3."
    assert isinstance(document, DocumentBlock) and document.source["media_type"] == "application/pdf"
    pages = PdfReader(io.BytesIO(base64.b64decode(document.source["data"]))).pages
    assert [page.extract_text() for page in pages] == ["Beta page two", "Gamma page three"]  # only those pages
    # As the Messages API takes it, inside the tool result; an OpenAI-compatible model is told what it cannot see.
    block = ToolResultBlock(tool_use_id="t", content=result.content)
    param = block_param(block)
    assert param is not None and param["content"][1] == {"type": "document", "source": document.source}
    sent = message_entries(Message(role="user", content=[block]))[-1]
    assert sent == {"role": "tool", "tool_call_id": "t", "content": "PDF report.pdf: pages 2-3 of 3.\n[a PDF document]"}


async def test_a_long_pdf_is_read_twenty_pages_at_a_time(tmp_path: Path) -> None:
    (tmp_path / "long.pdf").write_bytes(text_pdf([f"Page text {n}" for n in range(1, 26)]))
    ws = Workspace(tmp_path)
    first = await read(ws, "long.pdf")
    assert str(first.content).startswith("PDF long.pdf: pages 1-20 of 25. It has 25 pages; read others with pages")
    assert "Page text 20" in str(first.content) and "Page text 21" not in str(first.content)
    too_many = await read(ws, "long.pdf", "1-25")
    assert too_many.is_error and "At most 20 pages are read at a time" in str(too_many.content)


async def test_bad_pdfs_and_bad_pages_are_one_sentence(tmp_path: Path, ws: Workspace) -> None:
    (tmp_path / "locked.pdf").write_bytes(encrypted_pdf())
    (tmp_path / "broken.pdf").write_bytes(not_a_pdf())
    (tmp_path / "notes.txt").write_text("text\n")
    cases = {
        ("locked.pdf", None): "locked.pdf is encrypted with a password, so its pages cannot be read.",
        ("broken.pdf", None): "broken.pdf is not a readable PDF (",
        ("report.pdf", "9"): "report.pdf has 3 pages; page 9 is past the end.",
        ("report.pdf", "two"): "pages must be a page number or a range such as 1-5, not 'two'.",
        ("report.pdf", "3-1"): "is not a range of pages",
        ("notes.txt", "1"): "notes.txt is not a PDF; pages is for PDF files only.",
    }
    for (name, pages), said in cases.items():
        result = await read(ws, name, pages)
        assert result.is_error and said in str(result.content), (name, pages, result.content)
        assert "\n" not in str(result.content) and "Traceback" not in str(result.content)
