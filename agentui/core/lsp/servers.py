"""The language servers agentui knows, by language: which files are theirs, how each is started, and where it is
found (the project's virtual environment, then PATH; never downloaded)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerSpec:
    language: str
    """The language id LSP names (python, typescript, go, rust)."""
    program: str
    args: tuple[str, ...] = ()


LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
}
"""A file's extension to its LSP language id."""

FAMILIES: dict[str, str] = {
    "typescriptreact": "typescript",
    "javascript": "typescript",
    "javascriptreact": "typescript",
}
"""Language ids one server serves together (typescript-language-server serves TS and JS)."""

SERVERS: dict[str, tuple[ServerSpec, ...]] = {
    "python": (ServerSpec("python", "pylsp"), ServerSpec("python", "pyright-langserver", ("--stdio",))),
    "typescript": (ServerSpec("typescript", "typescript-language-server", ("--stdio",)),),
    "go": (ServerSpec("go", "gopls"),),
    "rust": (ServerSpec("rust", "rust-analyzer"),),
}
"""The servers of each family, the first found is used."""

VENVS = (".venv", "venv", "env")


def language_of(path: Path) -> str | None:
    return LANGUAGES.get(path.suffix.lower())


def family_of(language: str) -> str:
    return FAMILIES.get(language, language)


def find_server(
    family: str, root: Path, env: Mapping[str, str], *, project_own: bool = False
) -> tuple[ServerSpec, str] | None:
    """The family's first server found, and its program's path: in the project's virtual environment when
    `project_own` (a trusted project: that program is the project's, as its hooks are), else on PATH."""
    venvs = [str(root / venv / "bin") for venv in VENVS] if project_own else []
    path = os.pathsep.join([*venvs, env.get("PATH", os.defpath)])
    for spec in SERVERS.get(family, ()):
        if (found := shutil.which(spec.program, path=path)) is not None:
            return spec, found
    return None


def any_server(root: Path, env: Mapping[str, str], *, project_own: bool = False) -> bool:
    """Some server agentui knows is installed here."""
    return any(find_server(family, root, env, project_own=project_own) is not None for family in SERVERS)
