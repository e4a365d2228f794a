"""An image from the system clipboard, for Ctrl+V in the prompt: read with the platform's own tool (pngpaste or
AppleScript on macOS, wl-paste on Wayland, xclip on X11), which the terminal itself cannot do (it pastes text only)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

READ_SECONDS = 5.0
_APPLESCRIPT = (
    "set png to (the clipboard as «class PNGf»)\n"
    'set f to open for access POSIX file "{path}" with write permission\n'
    "write png to f\nclose access f"
)


def clipboard_commands(env: Mapping[str, str] | None = None) -> list[list[str]]:
    """The commands that could print the clipboard's image here, the likeliest first."""
    env = os.environ if env is None else env
    path = env.get("PATH")
    commands = []
    if sys.platform == "darwin" and shutil.which("pngpaste", path=path):
        commands.append(["pngpaste", "-"])
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-paste", path=path):
        commands.append(["wl-paste", "--no-newline", "--type", "image/png"])
    if env.get("DISPLAY") and shutil.which("xclip", path=path):
        commands.append(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"])
    return commands


async def clipboard_image(env: Mapping[str, str] | None = None) -> bytes | None:
    """The clipboard's image as PNG bytes; None if it holds none or nothing here can read it."""
    for command in clipboard_commands(env):
        data = await _run(command, env)
        if data:
            return data
    if sys.platform == "darwin" and shutil.which("osascript"):
        from agentui.api import process_directory

        with tempfile.TemporaryDirectory(dir=process_directory().made()) as scratch:
            target = Path(scratch) / "clipboard.png"
            await _run(["osascript", "-e", _APPLESCRIPT.format(path=target)], env)
            return target.read_bytes() if target.exists() and target.stat().st_size else None
    return None


async def _run(command: list[str], env: Mapping[str, str] | None) -> bytes | None:
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env) if env is not None else None,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), READ_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    return out if process.returncode == 0 and out else None


def dropped_path(text: str) -> str | None:
    """A single file path as a terminal pastes one when a file is dropped on it (quoted, with escaped spaces, or as
    a file:// URL); None for any other text."""
    from urllib.parse import unquote, urlsplit

    candidate = text.strip()
    if not candidate or "\n" in candidate:
        return None
    if candidate[0] == candidate[-1] and candidate[0] in "'\"" and len(candidate) > 1:
        candidate = candidate[1:-1]
    elif candidate.startswith("file://"):
        candidate = unquote(urlsplit(candidate).path)
    else:
        candidate = candidate.replace("\\ ", " ")
    candidate = os.path.expanduser(candidate)
    return candidate if os.path.isabs(candidate) and os.path.isfile(candidate) else None
