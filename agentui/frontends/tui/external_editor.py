"""Ctrl+G: the prompt edited in the person's editor, as Claude Code's. Its text goes to a temporary file in agentui's
own directory (long pastes written out whole), the app hands the terminal to $VISUAL or $EDITOR (else vi, else nano)
until it ends, and the file's text comes back into the prompt (a paste left as it was becomes its chip again). An
editor that is missing, fails or cannot have the terminal costs one sentence, and the prompt keeps its text."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

FALLBACKS = ("vi", "nano")
EDITOR_TIMEOUT = 12 * 3600.0
"""An editor is the person's to close, and may stay open for hours; not for ever (the edit is then dropped)."""


class EditedPrompt(Protocol):
    """What Ctrl+G uses of the prompt (`PromptInput`)."""

    pastes: dict[str, str]

    @property
    def text(self) -> str: ...

    def expanded(self) -> str: ...

    def replace_all(self, text: str) -> None: ...


class EditorHost(Protocol):
    """What Ctrl+G uses of the app."""

    env: dict[str, str] | None

    def say(self, message: str, level: str = "info") -> None: ...

    def suspend(self) -> AbstractContextManager[None]: ...


@dataclass(frozen=True)
class Edited:
    text: str | None
    """What the file said when the editor ended well; None when it did not."""
    problem: str = ""


def editor_command(env: Mapping[str, str]) -> list[str] | None:
    """$VISUAL, else $EDITOR (either may carry arguments: `code --wait`), else vi or nano if installed."""
    for name in ("VISUAL", "EDITOR"):
        if value := env.get(name, "").strip():
            try:
                return shlex.split(value)
            except ValueError:  # (an unbalanced quote: as Claude Code splits it, on spaces)
                return value.split()
    path = env.get("PATH", os.defpath)
    return next(([name] for name in FALLBACKS if shutil.which(name, path=path)), None)


def run_editor(command: list[str], text: str, directory: Path, env: Mapping[str, str] | None = None) -> Edited:
    """`command` run on a file of `directory` holding `text`, with this process's terminal; what the file says after.
    The caller removes `directory`."""
    name = Path(command[0]).name
    path = directory / "prompt.md"
    path.write_text(text, encoding="utf-8")
    try:
        done = subprocess.run([*command, str(path)], env=env, timeout=EDITOR_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return Edited(None, f"{name} was still open after {EDITOR_TIMEOUT / 3600:.0f} hours and was closed.")
    except OSError as exc:
        why = "it was not found" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
        return Edited(None, f"The editor {name} could not be started ({why}; set $VISUAL or $EDITOR)")
    if done.returncode < 0:
        return Edited(None, f"{name} was ended by signal {-done.returncode}.")
    if done.returncode != 0:
        return Edited(None, f"{name} exited with status {done.returncode}.")
    try:
        edited = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Edited(None, f"The edited prompt could not be read back ({exc}).")
    return Edited(edited.removesuffix("\n"))  # (the newline an editor ends a file with is not the person's)


def edit_prompt(prompt: EditedPrompt, app: EditorHost) -> None:
    """The prompt's text through the editor, the terminal handed over with App.suspend."""
    from textual.app import SuspendNotSupported

    from agentui.api import process_directory

    command = editor_command(os.environ if app.env is None else app.env)
    if command is None:
        app.say("No editor to open: set $VISUAL or $EDITOR (neither vi nor nano is installed).", "warning")
        return
    child_env = None if app.env is None else {**os.environ, **app.env}
    pastes = dict(prompt.pastes)
    directory = process_directory().temporary("agentui-edit-")
    try:
        with app.suspend():
            edited = run_editor(command, prompt.expanded(), directory, child_env)
    except SuspendNotSupported:
        edited = Edited(None, "This terminal cannot be handed to an editor (Ctrl+G needs a real terminal).")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if edited.text is None:
        app.say(f"{edited.problem.rstrip('.')}; the prompt was kept as it was.", "warning")
        return
    text = edited.text
    for placeholder, pasted in pastes.items():  # a paste left whole is its chip again
        if pasted in text:
            text = text.replace(pasted, placeholder, 1)
    if text != prompt.text:
        prompt.replace_all(text)
