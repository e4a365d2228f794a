"""Whether a version query (`python3 --version`, `node -v`) runs only the program asked about. A program installed
outside the home directory does; under it, only layouts agentui knows do: a pyenv shim (pyenv takes a version's
plain name from the project's `.python-version`, nothing else) and the real binaries pyenv and nvm install. Any
other program there may be a version manager's shim or proxy that picks what to run from files in the project
(rustup's `rust-toolchain.toml` can name any directory), so it asks."""

from __future__ import annotations

import os
import re
from pathlib import Path

from agentui.core.workspace import is_within

_PYENV_SHIM = re.compile(
    rb'#!/usr/bin/env bash\nset -e\n\[ -n "\$PYENV_DEBUG" \] && set -x\n\nprogram="\$\{0##\*/\}"\n\n'
    rb'export PYENV_ROOT="(?P<root>[^"\n$`\\]+)"\n'
    rb'(?:SHIM_PATH=\$\{0%/\*\}\nif \[\[ \$SHIM_PATH != "[^"\n$`\\]+" \]\]; then\n'
    rb'  export _PYENV_SHIM_PATH="\$SHIM_PATH"\nfi\n)?'
    rb'exec "(?P<pyenv>[^"\n$`\\]+)" exec "\$program" "\$@"\n?'
)
_SAFE_VERSION_READ = '"$version" == ".." || "$version" == */*'
"""pyenv-version-file-read refuses a version naming a path (pyenv 2.3.3 on): it can only pick an installed one."""
_REAL_BINARIES = ((".pyenv", "versions", "*", "bin"), (".nvm", "versions", "node", "*", "bin"))


def picks_elsewhere(program: Path, home: Path) -> str | None:
    """Why running `program` for its version may run something the project chose, or None."""
    real = Path(os.path.realpath(program))
    if not (is_within(program, home) or is_within(real, home)):
        return None
    if any(_in_layout(real, home, layout) for layout in _REAL_BINARIES):
        return None
    try:
        with real.open("rb") as file:
            head = file.read(2048)
    except OSError:
        return f"{program} cannot be read to see what it runs"
    shim = _PYENV_SHIM.fullmatch(head)
    if shim is not None and _pyenv_is_safe(Path(os.fsdecode(shim["root"])), Path(os.fsdecode(shim["pyenv"]))):
        return None
    return f"{program}, installed under your home, may pick what to run from the project (a version manager's shim)"


def _in_layout(real: Path, home: Path, layout: tuple[str, ...]) -> bool:
    try:
        parts = real.relative_to(home).parts
    except ValueError:
        return False
    return len(parts) == len(layout) + 1 and all(want in ("*", part) for want, part in zip(layout, parts, strict=False))


def _pyenv_is_safe(root: Path, pyenv: Path) -> bool:
    """The shim runs pyenv from its own root, and that pyenv reads version names, never paths."""
    if pyenv != root / "libexec" / "pyenv":
        return False
    try:
        text = (root / "libexec" / "pyenv-version-file-read").read_text(errors="replace")
    except OSError:
        return False
    return _SAFE_VERSION_READ in text
