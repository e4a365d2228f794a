"""Glob patterns as the search tools take them: brace expansion, gitignore-style matching, and file types."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pathspec

# Grep's `type` argument, as ripgrep names the common ones; both backends filter by these globs.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h", "*.inl"),
    "cs": ("*.cs",),
    "css": ("*.css", "*.scss", "*.sass", "*.less"),
    "dart": ("*.dart",),
    "elixir": ("*.ex", "*.exs"),
    "go": ("*.go",),
    "html": ("*.html", "*.htm"),
    "java": ("*.java",),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"),
    "json": ("*.json", "*.jsonl"),
    "kotlin": ("*.kt", "*.kts"),
    "lua": ("*.lua",),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "php": ("*.php",),
    "py": ("*.py", "*.pyi"),
    "rb": ("*.rb", "*.rake", "Gemfile"),
    "rust": ("*.rs",),
    "scala": ("*.scala", "*.sc"),
    "sh": ("*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc"),
    "sql": ("*.sql",),
    "swift": ("*.swift",),
    "toml": ("*.toml",),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "txt": ("*.txt",),
    "xml": ("*.xml", "*.xsd", "*.svg"),
    "yaml": ("*.yaml", "*.yml"),
}
FILE_TYPES["markdown"] = FILE_TYPES["md"]
FILE_TYPES["python"] = FILE_TYPES["py"]
FILE_TYPES["ruby"] = FILE_TYPES["rb"]
FILE_TYPES["typescript"] = FILE_TYPES["ts"]
FILE_TYPES["javascript"] = FILE_TYPES["js"]

_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """`src/*.{ts,tsx}` -> [`src/*.ts`, `src/*.tsx`]; nested braces expand from the inside out."""
    match = _BRACES.search(pattern)
    if match is None or "," not in match.group(1):
        return [pattern]
    expanded: list[str] = []
    for option in match.group(1).split(","):
        expanded.extend(expand_braces(pattern[: match.start()] + option + pattern[match.end() :]))
    return expanded


class FileFilter:
    """Include and exclude globs (`!` marks an exclusion), matched against paths relative to the search root with
    gitignore semantics: a pattern without a slash matches a name at any depth."""

    def __init__(self, globs: Sequence[str]) -> None:
        include = [p for g in globs if not g.startswith("!") for p in expand_braces(g)]
        exclude = [p for g in globs if g.startswith("!") for p in expand_braces(g[1:])]
        self.include = pathspec.PathSpec.from_lines("gitignore", include) if include else None
        self.exclude = pathspec.PathSpec.from_lines("gitignore", exclude) if exclude else None
        self.globs = [*(f"{p}" for p in include), *(f"!{p}" for p in exclude)]

    def accepts(self, relative: str) -> bool:
        if self.include is not None and not self.include.match_file(relative):
            return False
        return not (self.exclude is not None and self.exclude.match_file(relative))


def type_globs(name: str) -> tuple[str, ...]:
    try:
        return FILE_TYPES[name.lower()]
    except KeyError:
        known = ", ".join(sorted(FILE_TYPES))
        raise ValueError(f"unknown file type {name!r}; known types: {known}") from None


def glob_spec(pattern: str) -> pathspec.PathSpec[pathspec.RegexPattern]:
    """A Glob tool pattern (`**/*.py`, `src/*.ts`, `*.{md,txt}`), anchored at the search root as a shell glob is."""
    anchored = [p if p.startswith("/") else "/" + p for p in expand_braces(pattern)]
    return pathspec.PathSpec.from_lines("gitignore", anchored)
