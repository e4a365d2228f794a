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
    runs_project_code: bool = True
    """It runs programs the project names: its build scripts and macros (rust-analyzer), the toolchain its go.mod
    asks for (gopls), its own copy of the compiler (typescript-language-server takes node_modules' TypeScript), the
    interpreter its config points at (pyright). Such a server starts only in a trusted project, as its hooks do:
    the guard keeps the file system read-only, not what it reads from reaching the network."""


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
    "python": (
        ServerSpec("python", "pylsp", runs_project_code=False),  # its own plugins, reading the files as text
        ServerSpec("python", "pyright-langserver", ("--stdio",)),
    ),
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
    family: str, root: Path, env: Mapping[str, str], *, trusted: bool = False
) -> tuple[ServerSpec, str] | None:
    """The family's first server found that may run here, and its program's path. In a trusted project that is
    any server, the project's virtual environment searched first (its program is the project's, as its hooks are);
    otherwise only a server on PATH that runs none of the project's programs."""
    venvs = [str(root / venv / "bin") for venv in VENVS] if trusted else []
    # Only absolute entries of PATH: an empty or relative one ("::", ".", "bin") is looked up from agentui's working
    # directory, the project, whose own program it would then run untrusted. Nor, untrusted, one inside the project:
    # the person's shell with the project's .venv activated puts its bin first.
    searched = [
        entry
        for entry in env.get("PATH", os.defpath).split(os.pathsep)
        if os.path.isabs(entry) and (trusted or not inside(entry, root))
    ]
    path = os.pathsep.join([*venvs, *searched])
    for spec in SERVERS.get(family, ()):
        if spec.runs_project_code and not trusted:
            continue
        if (found := shutil.which(spec.program, path=path)) is not None:
            return spec, found
    return None


def inside(path: str, root: Path) -> bool:
    """Whether `path`, resolved as the kernel would, is `root` or under it."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def server_environment(env: Mapping[str, str], root: Path, *, trusted: bool) -> dict[str, str]:
    """The server's environment: untrusted, without an activated environment that lives in the project (jedi, in
    pylsp, runs a VIRTUAL_ENV's or CONDA_PREFIX's own python to read its paths: the project's program)."""
    return {
        key: value
        for key, value in env.items()
        if trusted or key not in ("VIRTUAL_ENV", "CONDA_PREFIX") or not inside(value, root)
    }


def any_server(root: Path, env: Mapping[str, str], *, trusted: bool = False) -> bool:
    """Some server agentui knows is installed here and may run."""
    return any(find_server(family, root, env, trusted=trusted) is not None for family in SERVERS)
