"""Front matter, the `key: value` lines between `---` lines that open Claude Code's command, agent and skill files."""

from __future__ import annotations


def parse_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The `key: value` pairs (the simple YAML these files use) and the body after them."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines()
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return {}, text
    meta: dict[str, str] = {}
    for line in lines[1:end]:
        if ":" in line and not line.startswith((" ", "\t", "#")):
            key, value = line.split(":", 1)
            meta[key.strip()] = value.strip().strip("'\"")
    return meta, "\n".join(lines[end + 1 :]).lstrip("\n")
