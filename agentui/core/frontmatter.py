"""Front matter, the `key: value` lines between `---` lines that open Claude Code's command, agent and skill files."""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "/": "/", " ": " "}


def parse_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The `key: value` pairs (the simple YAML these files use: plain, single- and double-quoted values, and a
    block list, `tools:` then `  - Read` lines, read as "Read, Grep") and the body after them."""
    lines, end = front_matter_lines(text)
    if end is None:
        return {}, text
    meta: dict[str, str] = {}
    listing: str | None = None  # (the key whose block list is being read)
    for line in lines[1:end]:
        item = line.strip()
        if listing is not None and item.startswith("- "):
            meta[listing] = ", ".join(filter(None, [meta[listing], scalar(item[2:].strip())]))
            continue
        listing = None
        if ":" in line and not line.startswith((" ", "\t", "#", "-")):
            key, value = line.split(":", 1)
            meta[key.strip()] = scalar(value.strip())
            listing = key.strip() if not value.strip() else None
    return meta, "\n".join(lines[end + 1 :]).lstrip("\n")


def listed(meta: dict[str, str], key: str) -> tuple[str, ...]:
    """A key's list (`tools: Read, Grep`, or a block list, which `parse_front_matter` joins with commas), each item
    stripped, empty ones left out."""
    return tuple(item.strip() for item in meta.get(key, "").split(",") if item.strip())


def body_of(text: str) -> str:
    """The body after the front matter as Claude Code sends a command's or a skill's: its last line break kept."""
    body = parse_front_matter(text)[1]
    return body + "\n" if text.endswith("\n") and body and not body.endswith("\n") else body


def front_matter_lines(text: str) -> tuple[list[str], int | None]:
    """The file's lines, and the index of the line that closes its front matter (None: it has none)."""
    lines = text.splitlines()
    if not text.startswith("---"):
        return lines, None
    return lines, next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)


def scalar(value: str) -> str:
    """A YAML scalar's text: a double-quoted one with its escapes read, a single-quoted one with '' as ', a plain one
    as it is (quotes left unbalanced are dropped, as before)."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return _ESCAPE.sub(_unescaped, value[1:-1])
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value.strip("'\"")


def _unescaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU" and len(code) > 1:
        return chr(int(code[1:], 16))
    return _ESCAPED.get(code, "\\" + code)


def quoted(value: str) -> str:
    """`value` as Claude Code writes a description: double-quoted, `\\` and `"` escaped, a line break as the two
    characters `\\n` (which its reader, and agentui's, turn back into a line break)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\\\n") + '"'
