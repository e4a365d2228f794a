"""Memory files, read as Claude Code 2.1.197 reads them: `~/.claude/CLAUDE.md` and the person's rules
(`~/.claude/rules/**/*.md`), then in every directory from the filesystem root down to the project `CLAUDE.md`,
`.claude/CLAUDE.md`, the directory's rules (`.claude/rules/`) and `CLAUDE.local.md`. Each may import others with
`@path` (relative to it, or `~/`), up to four levels deep; cycles are ignored, and `@` inside code is just text.

Files in directories below the project join later, when a tool first touches their directory; a rule scoped with
`paths:` joins when a tool first touches a file it matches (context/rules.py). `AGENTS.md`, which Claude Code does not
read, is read where a directory has no CLAUDE.md, beside it, or never, as the `agents_md` setting says.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentui.core.context.rules import ConditionalRule, rule_files, rule_globs
from agentui.core.dirs import claude_config_dir
from agentui.core.frontmatter import parse_front_matter
from agentui.core.workspace import is_within

MAX_IMPORT_DEPTH = 4
MAX_FILE_CHARS = 40_000
"""Past this a memory file is clipped (Claude Code warns at the same size): it is read on every request."""
MAX_TOTAL_CHARS = 120_000
"""All memory together; files past it are left out."""
_IMPORT = re.compile(r"(?<![\w@`])@((?:~/|\.{1,2}/|/)?[\w.\-/~]+[\w\-])")
_FENCE = re.compile(r"^(```|~~~)")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")

Kind = Literal["user", "project", "local", "nested", "import"]
AgentsMd = Literal["fallback", "beside", "off"]
"""Where AGENTS.md is read: in a directory without CLAUDE.md (the default), beside it too, or nowhere."""


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    kind: Kind
    text: str
    imported_by: Path | None = None
    reason: str = ""
    """Why it was read, for /memory ("a rule for src/**, read when src/app.py was touched")."""
    globs: tuple[str, ...] = ()
    """A conditional rule's `paths:` (InstructionsLoaded's `globs`)."""


def _read(path: Path, limit: int) -> tuple[str, int] | str | None:
    """(text clipped to `limit` characters, characters left out), a sentence saying why the file is not memory,
    or None if there is no such file."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            data = handle.read(4 * limit + 4)
            rest = os.fstat(handle.fileno()).st_size - len(data)
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return f"{path} is not a text file; it was not read as memory."
    text = data.decode("utf-8", errors="replace")
    if len(text) <= limit and rest <= 0:
        return text, 0
    left_out = len(text) - limit + max(rest, 0)  # (bytes past what was read count as characters: an estimate)
    return text[:limit], left_out


def without_comments(text: str) -> str:
    """`text` without its HTML comment blocks (`<!-- ... -->` that open a line, outside code blocks): notes for the
    people who edit the file, which Claude Code keeps from the model. What follows a comment on its last line stays."""
    if "<!--" not in text:
        return text
    kept: list[str] = []
    comment: list[str] | None = None
    in_fence = False
    for line in text.splitlines(keepends=True):
        if comment is None and _FENCE.match(line.strip()):
            in_fence = not in_fence
        if comment is None and (
            in_fence or not line.lstrip(" ").startswith("<!--") or len(line) - len(line.lstrip(" ")) > 3
        ):
            kept.append(line)
            continue
        comment = [*(comment or []), line]
        if "-->" in line:
            rest = _COMMENT.sub("", "".join(comment))
            kept.append(rest if rest.strip() else "")
            comment = None
    return "".join(kept + (comment or []))


def imports_in(text: str) -> list[str]:
    """`@path` references outside code blocks and code spans, in order."""
    found: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        outside_code = re.sub(r"`[^`]*`", "", line)
        found.extend(match.group(1) for match in _IMPORT.finditer(outside_code))
    return found


class MemoryLoader:
    def __init__(
        self,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        *,
        trusted: bool = True,
        denied: Callable[[Path], bool] | None = None,
        agents_md: AgentsMd = "fallback",
    ) -> None:
        self.cwd = Path(os.path.realpath(cwd))
        self.env = os.environ if env is None else env
        self.home = Path(self.env.get("HOME") or Path.home())
        self.trusted = trusted
        """In a project not trusted yet, its memory files may not import files from outside it, nor be links (or
        sit in a linked `.claude/`) that lead outside it."""
        self.denied = denied
        """Files a deny rule forbids reading: never memory, whatever link or import leads to them."""
        self.agents_md: AgentsMd = agents_md
        self._seen: set[Path] = set()
        self._chars = 0
        self._waiting: list[ConditionalRule] = []
        """Rules scoped with `paths:` that no touched file has matched yet."""
        self.files: list[MemoryFile] = []
        self.notices: list[str] = []
        """What was clipped, left out or refused, one sentence each, for the person."""

    def load(self) -> list[MemoryFile]:
        """The memory of a session's start, in the order the model reads it."""
        self._add(claude_config_dir(self.env) / "CLAUDE.md", "user", reason="your instructions for every project")
        self._add_rules(claude_config_dir(self.env) / "rules", "user", self.cwd)
        for directory in [*reversed(self.cwd.parents), self.cwd]:
            where = "the project's" if directory == self.cwd else f"{directory}'s, above the project,"
            self._directory(directory, "project", f"{where} instructions")
        return list(self.files)

    def reread(self, path: Path) -> None:
        """`path` changed (a `#note`): its text is read again, or it joins the memory if it was not there."""
        real = Path(os.path.realpath(path))
        for index, memory in enumerate(self.files):
            if Path(os.path.realpath(memory.path)) == real and memory.imported_by is None:
                read = _read(real, MAX_FILE_CHARS)
                if isinstance(read, tuple):
                    self._chars += len(read[0]) - len(memory.text)
                    self.files[index] = dataclasses.replace(memory, text=read[0])
                return
        self._seen.discard(real)
        self._add(path, "project", reason="the project's instructions")

    def touch(self, path: Path) -> list[MemoryFile]:
        """A tool touched `path`: the memory files it brings that were not read yet, in order: those of the
        directories between the project and it, then the rules scoped to files it matches."""
        path = Path(os.path.realpath(path))
        directory = path if path.is_dir() else path.parent
        before = len(self.files)
        if is_within(directory, self.cwd) and directory != self.cwd:
            chain = [directory, *directory.parents]
            for folder in reversed(chain[: chain.index(self.cwd)]):
                self._directory(folder, "nested", f"read when {path} was touched")
        for rule in [rule for rule in self._waiting if rule.matches(path)]:
            self._waiting.remove(rule)
            why = f"a rule for {', '.join(rule.globs)}, read when {path} was touched"
            self._add(rule.path, rule.kind, reason=why, globs=rule.globs)
        return self.files[before:]

    def _directory(self, directory: Path, kind: Kind, why: str) -> None:
        """One directory's memory: CLAUDE.md, .claude/CLAUDE.md, AGENTS.md as the setting says, its rules (those
        scoped with `paths:` wait), CLAUDE.local.md."""
        claude = [directory / "CLAUDE.md", directory / ".claude" / "CLAUDE.md"]
        for path in claude:
            self._add(path, kind, reason=why)
        has_claude = any(os.path.isfile(path) for path in claude)
        if self.agents_md == "beside" or (self.agents_md == "fallback" and not has_claude):
            said = "beside its CLAUDE.md" if has_claude else "as it has no CLAUDE.md"
            self._add(directory / "AGENTS.md", kind, reason=f"AGENTS.md, {said}: {why}")
        self._add_rules(directory / ".claude" / "rules", kind, directory)
        self._add(directory / "CLAUDE.local.md", "local", reason=f"{why}, yours alone (not shared)")

    def _add_rules(self, directory: Path, kind: Kind, base: Path) -> None:
        """The rules under `directory`: each one without `paths:` is read now, the others wait for a file they match
        (`base` is the directory their globs are relative to)."""
        waiting = {rule.path for rule in self._waiting}
        for path in rule_files(directory) if os.path.isdir(directory) else []:
            real = Path(os.path.realpath(path))
            if real in self._seen or real in waiting:
                continue
            if self._refused(path, real) is not None:
                self._add(path, kind)  # (which says why, once)
                continue
            read = _read(real, MAX_FILE_CHARS)
            globs = rule_globs(parse_front_matter(read[0])[0].get("paths")) if isinstance(read, tuple) else ()
            if globs:
                self._waiting.append(ConditionalRule(real, base, globs, "user" if kind == "user" else "project"))
                waiting.add(real)
            else:
                self._add(path, kind, reason="a rule, always applied")

    def _add(
        self,
        path: Path,
        kind: Kind,
        imported_by: Path | None = None,
        depth: int = 0,
        *,
        reason: str = "",
        globs: tuple[str, ...] = (),
    ) -> None:
        real = Path(os.path.realpath(path))
        if real in self._seen:
            return  # read already, or an import cycle
        if (why := self._refused(path, real)) is not None:
            self._seen.add(real)
            if os.path.lexists(path):
                self.notices.append(why)
            return
        room = max(0, MAX_TOTAL_CHARS - self._chars)
        read = _read(real, min(MAX_FILE_CHARS, room))
        if read is None:
            return
        self._seen.add(real)
        if isinstance(read, str):
            self.notices.append(read)
            return
        text, left_out = read
        if not text and left_out:
            self.notices.append(
                f"{path} was left out of memory: memory files are limited to {MAX_TOTAL_CHARS:,} characters in all."
            )
            return
        if left_out:
            self.notices.append(
                f"{path} is too large for memory; its first {len(text):,} characters were read and about "
                f"{left_out:,} left out."
            )
            text += f"\n[… about {left_out:,} more characters left out]"
        if text.startswith("---"):  # (front matter, a rule's `paths:`, is for agentui, not the model)
            text = parse_front_matter(text)[1]
        text = without_comments(text)
        self._chars += len(text)
        reason = f"imported by {imported_by}" if imported_by is not None else reason
        self.files.append(MemoryFile(path, kind, text, imported_by, reason, globs))
        if depth >= MAX_IMPORT_DEPTH:
            return
        for reference in imports_in(text):
            target = self.home / reference[2:] if reference.startswith("~/") else (real.parent / reference)
            if not self.trusted and is_within(real, self.cwd) and not is_within(os.path.realpath(target), self.cwd):
                self.notices.append(
                    f"{path} imports {reference}, outside the project; it is not read until the project is trusted."
                )
                continue
            self._add(target, "import", path, depth + 1)

    def _refused(self, path: Path, real: Path) -> str | None:
        if self.denied is not None and (self.denied(path) or self.denied(real)):
            return f"{path} is a file a deny rule covers; it was not read as memory."
        written = Path(os.path.normpath(path))
        if not self.trusted and is_within(written, self.cwd) and not is_within(real, self.cwd):
            return (
                f"{path} leads outside the project (to {real}); it is not read as memory until the project is trusted."
            )
        return None


def render_memory(files: list[MemoryFile]) -> str:
    """The memory as the model reads it: each file's text under its path."""
    parts = []
    for memory in files:
        origin = f" (imported by {memory.imported_by})" if memory.imported_by else ""
        parts.append(f"Contents of {memory.path}{origin}:\n\n{memory.text.strip()}")
    return "\n\n".join(parts)


def add_memory_note(root: Path, note: str) -> Path:
    """`#note`: a line appended to the project's CLAUDE.md (made if missing); returns the file. Raises OSError, also
    when CLAUDE.md is a link that leads out of the project (a repository's link must not aim the person's note at
    their shell's start-up file)."""
    memory = root / "CLAUDE.md"
    real = os.path.realpath(memory)
    if not is_within(real, os.path.realpath(root)):
        raise OSError(f"it is a link that leads outside the project, to {real}")
    existing = memory.read_text(encoding="utf-8", errors="replace") if memory.exists() else ""
    separator = "" if not existing or existing.endswith("\n") else "\n"
    with memory.open("a", encoding="utf-8") as handle:
        handle.write(f"{separator}- {note}\n")
    return memory
