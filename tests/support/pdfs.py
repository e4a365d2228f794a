"""Real PDF files for the tests, written byte by byte (pages of text in a standard font), and the same encrypted by
pypdf; and a file that only looks like a PDF."""

from __future__ import annotations

import io
from collections.abc import Callable


def text_pdf(pages: list[str]) -> bytes:
    """A valid PDF whose pages hold these lines of text (Helvetica), with a correct cross-reference table."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * n for n in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{n} 0 R" for n in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for number, text in zip(page_ids, pages, strict=True):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 18 Tf 72 720 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {number + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for index, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % index + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def encrypted_pdf() -> bytes:
    """A PDF that opens only with a password."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(text_pdf(["Secret page"]))).pages:
        writer.add_page(page)
    writer.encrypt(user_password="hunter2", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def three_pages() -> bytes:
    return text_pdf(["Alpha page one", "Beta page two", "Gamma page three"])


def not_a_pdf() -> bytes:
    return b"%PDF-1.4\nthis is not really a PDF at all\n"


PDFS: dict[str, Callable[[], bytes]] = {
    "three.pdf": three_pages,
    "encrypted.pdf": encrypted_pdf,
    "broken.pdf": not_a_pdf,
}
