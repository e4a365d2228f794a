"""The paths no confined command may write, create, rename or replace, each with what stands in for it while it does
not exist: a project's (the .git directory, its config, hooks and pointers; agent, editor and CI configuration; memory
files) and, for the guard, the person's own (shell start-up files, git configuration, agentui's and Claude Code's
settings). Stand-ins are chosen to change nothing for the programs that meet them while they exist."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.dirs import MACHINE_STATE, claude_config_dir, config_dir, data_dir, state_dir
from agentui.core.workspace import is_within

if TYPE_CHECKING:
    from agentui.core.safety.denied_files import DeniedFiles, DeniedFinder

_MODULE_DEPTH = 4  # submodules of submodules: .git/modules/a/modules/b/...


@dataclass(frozen=True)
class Target:
    path: Path
    """Where it is, as written (links along it are followed and pinned by the mount plan)."""
    directory: bool
    """What stands in while it is missing: an empty directory, or a file holding `content`."""
    content: bytes = b""
    pin: bool = False
    """An existing directory here becomes a mount point of its own, writable (it cannot be renamed or replaced,
    what is inside stays writable): the .git directory, whose objects and refs a commit writes."""


def _file(path: Path, content: bytes = b"") -> Target:
    return Target(path, False, content)


def _directory(path: Path) -> Target:
    return Target(path, True)


# In each writable directory. An empty directory is harmless where a directory is expected; the files hold what their
# readers take for "nothing configured".
PROJECT_DIRECTORIES = (".claude", ".vscode", ".idea", ".devcontainer", ".husky")
PROJECT_FILES: dict[str, bytes] = {
    ".mcp.json": b"{}\n",  # no servers
    ".pre-commit-config.yaml": b"repos: []\n",  # no hooks
    ".envrc": b"",  # (direnv asks to allow it, as it would any new .envrc, and runs nothing until then)
    "CLAUDE.md": b"",  # memory files: empty adds nothing to a prompt
    "CLAUDE.local.md": b"",
    "AGENTS.md": b"",
}


MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")


def project_targets(root: Path, *, missing_memory: bool = True) -> list[Target]:
    """The protected paths of one writable directory (`--add-dir`s are each one). `missing_memory=False`: memory
    files are held only where they exist (the guard's choice: they are instructions, not code that runs later, and
    stand-ins for them would show in every `ls` while a command runs)."""
    targets = [Target(root / ".git", True, pin=True)]  # missing: an empty directory, which git passes over
    targets += [_directory(root / name) for name in PROJECT_DIRECTORIES]
    targets += [
        _file(root / name, content)
        for name, content in PROJECT_FILES.items()
        if missing_memory or name not in MEMORY_FILES or os.path.lexists(root / name)
    ]
    dot_git = root / ".git"
    if not os.path.lexists(dot_git):  # (the project is inside a repository: git there reads that one's config)
        dot_git = next(
            (d / ".git" for d in Path(os.path.realpath(root)).parents if os.path.lexists(d / ".git")), dot_git
        )
    if dot_git.is_dir():
        targets += git_dir_targets(Path(os.path.realpath(dot_git)))
    elif dot_git.is_file():  # a worktree or submodule checkout: the file, and the git directory it points to
        gitdir = _pointed_gitdir(dot_git)
        if gitdir is not None:
            targets.append(Target(gitdir, True, pin=True))
            targets += git_dir_targets(gitdir)
    return targets


def git_dir_targets(gitdir: Path, depth: int = 0) -> list[Target]:
    """What in a git directory runs code or says where git looks for it: config, hooks, the common-directory pointer
    (`commondir` holding "." names the directory itself, which is what git assumes without one), info/, and the same
    in each submodule's and linked worktree's directory."""
    targets = [
        _file(gitdir / "config"),
        _file(gitdir / "config.worktree"),  # (read only with extensions.worktreeConfig, which config would set)
        _directory(gitdir / "hooks"),
        _file(gitdir / "commondir", b".\n"),  # (an empty one makes every git command fail)
        _directory(gitdir / "info"),
        # (whole: a new submodule's directory would hold a config and hooks git runs; existing ones included)
        _directory(gitdir / "modules"),
    ]
    common = gitdir / "commondir"
    if common.is_file():  # a linked worktree's directory: its common directory holds the config and hooks
        try:
            pointed = common.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            pointed = ""
        if pointed and pointed != ".":
            real = Path(os.path.realpath(gitdir / pointed))
            if real != gitdir and depth < _MODULE_DEPTH:
                targets += [Target(real, True, pin=True), *git_dir_targets(real, depth + 1)]
    worktrees = gitdir / "worktrees"
    for entry in _subdirectories(worktrees):
        targets += [
            Target(entry, True, pin=True),
            _file(entry / "commondir", b"../..\n"),
            _file(entry / "config.worktree"),
        ]
    return targets


def _subdirectories(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as scan:
            return [Path(entry.path) for entry in scan if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


@dataclass(frozen=True)
class _NestedGit:
    """Every `.git` at or below a writable directory (a `DenyPattern` for the finder's cached walk, which does not
    list what matches: git's own directories are not walked)."""

    root: Path
    pattern: str = ".git"

    def matches(self, path: Path | str) -> bool:
        return os.path.basename(path) == ".git"


def nested_repository_targets(root: Path, finder: DeniedFinder) -> list[Target]:
    """The same for each repository nested below `root` (a clone in vendor/, a submodule's checkout): git run there
    later reads its config and runs its hooks. `finder` keeps the walk's listings between commands, so only the
    directories that changed are listed again; past its limit, the repositories found so far."""
    found = finder.find([_NestedGit(root)])
    own = Path(os.path.realpath(root / ".git"))
    kept = [own] + ([pointed] if own.is_file() and (pointed := _pointed_gitdir(own)) is not None else [])
    gitdirs = [real for real in found.directories if real != own]
    gitdirs += [pointed for real in found.files if real != own and (pointed := _pointed_gitdir(real)) is not None]
    targets: list[Target] = []
    for gitdir in dict.fromkeys(gitdirs):
        # (a submodule's directory inside the project's own git directory is held already, with all of modules/)
        if not any(is_within(gitdir, each) for each in kept):
            targets += [Target(gitdir, True, pin=True), *git_dir_targets(gitdir)]
    return targets


def _pointed_gitdir(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            return Path(os.path.realpath(dot_git.parent / line[len("gitdir:") :].strip()))
    return None


# The person's start-up files: what a stand-in holds keeps each shell doing what it did without the file.
SHELL_STARTUP: dict[str, bytes] = {
    ".bashrc": b"",
    ".bash_aliases": b"",  # (Debian's and Ubuntu's .bashrc source it)
    ".bash_profile": (  # bash reads the first of .bash_profile, .bash_login, .profile
        b"if [ -f ~/.bash_login ]; then . ~/.bash_login; elif [ -f ~/.profile ]; then . ~/.profile; fi\n"
    ),
    ".bash_login": b"if [ -f ~/.profile ]; then . ~/.profile; fi\n",
    ".bash_logout": b"",
    ".profile": b"",
    ".zshrc": b"",
    ".zprofile": b"",
    ".zshenv": b"",
    ".zlogin": b"",
    ".zlogout": b"",
    ".inputrc": b"$include /etc/inputrc\n",  # readline reads /etc/inputrc only when ~/.inputrc is missing
    ".cshrc": b"",
    ".tcshrc": b"if ( -r ~/.cshrc ) source ~/.cshrc\n",  # tcsh reads .cshrc only when .tcshrc is missing
    ".kshrc": b"",
}


def home_targets(home: Path, env: Mapping[str, str]) -> list[Target]:
    """What the guard keeps read-only outside the project: the files that run code or grant rights later."""
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    targets = [_file(home / name, content) for name, content in SHELL_STARTUP.items()]
    fish = xdg / "fish"
    targets += [_file(fish / "config.fish"), _directory(fish / "conf.d"), _directory(fish / "functions")]
    targets += [_file(home / ".gitconfig"), _directory(xdg / "git")]
    targets += [_directory(config_dir(env)), _directory(data_dir(env)), _directory(state_dir(env))]
    claude = claude_config_dir(env)
    targets += [
        _file(claude / "settings.json", b"{}\n"),
        _file(claude / "settings.local.json", b"{}\n"),
        _file(claude / "CLAUDE.md"),
        _directory(claude / "commands"),
        _directory(claude / "agents"),
        _directory(claude / "skills"),
        _directory(claude / "hooks"),  # (scripts the settings' hooks run)
        # Plugins: what is installed and where it comes from (code that runs later), but not `data/`, where each
        # plugin's hooks and servers keep their own state (`${CLAUDE_PLUGIN_DATA}`), as Claude Code lets them.
        *(_directory(claude / "plugins" / name) for name in ("cache", "marketplaces", "npm-cache", "repos")),
        _file(claude / "plugins" / "installed_plugins.json", b'{"version": 2, "plugins": {}}\n'),
        _file(claude / "plugins" / "known_marketplaces.json", b"{}\n"),
        _file(home / ".claude.json", b"{}\n"),
        _directory(home / ".ssh"),  # (config's ProxyCommand runs at the next ssh; authorized_keys lets others in)
    ]
    if os.geteuid() == 0:  # (as root, /etc is writable: what every shell or process reads at start)
        targets += [_file(Path("/etc") / name) for name in SYSTEM_FILES]
        targets += [_directory(Path("/etc") / name) for name in SYSTEM_DIRECTORIES]
        targets += [_directory(MACHINE_STATE)]  # (the stand-ins' registry: agentui removes what it lists)
    return targets


SYSTEM_FILES = ("profile", "bash.bashrc", "bashrc", "environment", "gitconfig", "ld.so.preload", "zshenv", "zshrc",
                "zprofile", "inputrc", "sudoers")  # fmt: skip
SYSTEM_DIRECTORIES = ("profile.d", "sudoers.d", "zsh")


def edit_denied_targets(found: DeniedFiles) -> list[Target]:
    """What the Edit deny rules cover and exists now: read-only while a command runs, so that a program the check
    cannot read (`python3 -c "open('src/app.py', 'w')"`) cannot change it either. (What does not exist yet is left
    to the permission check: stand-ins for it would show in the project.)"""
    return [Target(Path(path), True) for path in found.directories] + [
        Target(Path(path), False) for path in found.files
    ]
