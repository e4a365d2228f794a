"""Text that is not valid Unicode made visible and safe: bytes of file names that are not UTF-8 (which Python keeps as
lone surrogates) become `\\xNN` escapes a person can read and a JSON encoder can send, and such escapes in a path
the model writes lead back to the file."""

from __future__ import annotations

import os
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


def _escape(match: re.Match[str]) -> str:
    point = ord(match[0])
    if 0xDC80 <= point <= 0xDCFF:  # a byte os.fsdecode could not decode, kept by surrogateescape
        return f"\\x{point - 0xDC00:02x}"
    return "\ufffd"  # half a UTF-16 pair: nothing to give back


def visible(text: str) -> str:
    """`text` with every lone surrogate replaced: undecodable bytes as `\\xNN`, anything else as U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(_escape, text)
    return text


def scrub(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, strings) with `visible` applied to every string, keys included."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible(k) if isinstance(k, str) else k: scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(item) for item in value]
    return value


def unescape_path(text: str) -> str:
    """A path as the model wrote it, with `\\xNN` escapes (bytes 0x80-0xff, as `visible` writes them) turned back
    into the file name's own bytes, unless a file of that literal name exists."""
    if "\\x" not in text or os.path.lexists(text):
        return text
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m[1], 16)), text)
