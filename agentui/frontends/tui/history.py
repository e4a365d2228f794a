"""Prompt history, one file per project in agentui's data directory, so Up recalls what was asked here before."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path

from agentui.api import canonical, data_dir, project_key, sanitize

MAX_ENTRIES = 500


def history_file(project: Path, env: Mapping[str, str] | None = None) -> Path:
    """The project's history, named with a hash of its path as well: /work/app, /work-app and /work.app sanitize
    alike, and one project's prompts must not be recalled in another. A history kept under the old, sanitized-only
    name is copied over the first time."""
    folder = data_dir(env) / "history"
    path = folder / f"{project_key(project)}.jsonl"
    legacy = folder / f"{sanitize(canonical(project))}.jsonl"
    if not path.exists() and legacy.is_file():
        with contextlib.suppress(OSError):  # (history is a convenience: it starts afresh)
            path.write_bytes(legacy.read_bytes())
    return path


class PromptHistory:
    """Entries oldest first; `previous` and `next` walk them from the newest, keeping the draft being typed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[str] = []
        try:
            for line in path.read_text(encoding="utf-8").splitlines()[-MAX_ENTRIES:]:
                try:
                    text = json.loads(line)
                except ValueError:
                    continue
                if isinstance(text, str):
                    self.entries.append(text)
        except OSError:
            pass
        self._position = len(self.entries)
        self._draft = ""

    def add(self, text: str) -> None:
        if not text.strip():
            return
        if not self.entries or self.entries[-1] != text:
            self.entries.append(text)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(text, ensure_ascii=False) + "\n")
            except OSError:
                pass  # history is a convenience: losing it must never interrupt the person
        self._position = len(self.entries)

    def previous(self, draft: str) -> str | None:
        if self._position == len(self.entries):
            self._draft = draft
        if self._position == 0:
            return None
        self._position -= 1
        return self.entries[self._position]

    def next(self) -> str | None:
        if self._position >= len(self.entries):
            return None
        self._position += 1
        return self._draft if self._position == len(self.entries) else self.entries[self._position]
