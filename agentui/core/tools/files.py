"""Text files as the tools see them: encoding and line endings detected and kept, binaries refused, atomic writes."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from agentui.core.errors import AgentuiError

SAMPLE_BYTES = 8192

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

IMAGE_TYPES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}


class BinaryFileError(AgentuiError):
    """The file is not text."""


@dataclass(frozen=True)
class TextFormat:
    """How a file is stored, so a rewrite stores it the same way."""

    codec: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    """"\\r\\n" only when every line break in the file is one; mixed files are left exactly as they are."""

    def encode(self, text: str) -> bytes:
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        # surrogateescape gives back, byte for byte, whatever was not valid UTF-8 when the file was read
        return self.bom + text.encode(self.codec, errors="surrogateescape" if self.codec == "utf-8" else "strict")


def image_type(head: bytes) -> str | None:
    for magic, media_type in IMAGE_TYPES.items():
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def sniff(head: bytes) -> tuple[str, bytes]:
    """(codec, BOM) from the first bytes; raises BinaryFileError for NUL bytes outside UTF-16."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, bom
    if b"\x00" in head:
        raise BinaryFileError
    return "utf-8", b""


def decode(data: bytes) -> tuple[str, TextFormat]:
    """The whole file as text (line endings as stored) and the format to write it back in."""
    codec, bom = sniff(data[:SAMPLE_BYTES])
    body = data[len(bom) :]
    text = body.decode(codec, errors="surrogateescape" if codec == "utf-8" else "replace")
    return text, TextFormat(codec=codec, bom=bom, newline=line_ending(text))


def line_ending(text: str) -> str:
    """ "\r\n" when every line break in `text` is one, else "\n" (see TextFormat.newline)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"


def for_display(text: str) -> str:
    """Text safe to show or send: undecodable bytes (kept as surrogates for round trips) become U+FFFD."""
    return text.encode("utf-8", errors="replace").decode("utf-8") if _has_surrogates(text) else text


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
