"""A working copy of the project for one branch of parallel attempts: a git worktree (outside git, a copy under a
size limit), holding the person's uncommitted work too, whose changes come back as one patch to apply or drop.

Either way the copy is a git work tree of its own, so what a branch changed is one `git diff` away: the starting
state is written as a tree object once the copy is made, and the branch's changes are the difference from it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentui.core.errors import AgentuiError
from agentui.core.process_dir import current
from agentui.core.safety.confined_git import GitError, GitMissing, complaint, run

COPY_LIMIT_BYTES = 200 * 1024 * 1024
"""Outside git the project is copied for each branch; above this it is refused (a worktree shares git's objects)."""
GIT_TIMEOUT = 300.0
"""Seconds any one git command may take (a worktree of a large repository is checked out file by file)."""
IDENTITY = {"user.name": "agentui", "user.email": "agentui@localhost"}
"""For the copy's own commits: never the person's identity (and, as for every git agentui runs, never their hooks)."""


class WorkingCopyError(AgentuiError):
    """The working copy cannot be made or its changes cannot be applied; the message says why in one sentence."""


def _git(
    *args: str, cwd: Path, stdin: bytes | None = None, check: bool = True, config: dict[str, str] | None = None
) -> bytes:
    try:
        done = run(args, cwd=cwd, timeout=GIT_TIMEOUT, input=stdin, config={**IDENTITY, **(config or {})})
    except GitMissing:
        raise WorkingCopyError("git is needed for parallel attempts, and it is not installed.") from None
    except GitError as exc:
        raise WorkingCopyError(str(exc)) from None
    if check and done.returncode != 0:
        raise WorkingCopyError(f"git {args[0]} failed in {cwd}: {complaint(done)}.")
    return done.stdout


def _repository_top(path: Path) -> Path | None:
    """The top of the git work tree holding `path`, if it is in one with at least one commit."""
    try:
        top = _git("rev-parse", "--show-toplevel", cwd=path).decode().strip()
        _git("rev-parse", "--verify", "--quiet", "HEAD", cwd=path)
    except WorkingCopyError:
        return None
    return Path(top)


@dataclass
class WorkingCopy:
    source: Path
    """The person's project root."""
    root: Path
    """The same place in the copy: where the branch's tools work."""
    top: Path
    """The copy's own work tree (a worktree holds the whole repository, whatever part of it the project is)."""
    kind: Literal["worktree", "copy"]
    source_top: Path
    """The person's work tree top (for a copy, the project root): where the patch applies."""
    start: str = ""
    """The git tree of the copy as it was made."""

    @classmethod
    def create(cls, source: Path, dest: Path) -> WorkingCopy:
        """A copy of `source` as it is now (uncommitted and untracked work included, ignored files not) at
        `dest`, which must not exist yet."""
        source = Path(os.path.realpath(source))
        top = _repository_top(source)
        if top is None:
            _copy_within_limit(source, dest)
            _git("init", "--quiet", cwd=dest)
            copy = cls(source, dest, dest, "copy", source)
        else:
            # (checked out from inside the new worktree, once it exists: its configuration can differ from the
            # person's worktree's, through `includeIf "gitdir:..."` or its own config.worktree, and the drivers
            # to empty are those of the place git runs in)
            current().worktree_at(top, dest)  # (its registration goes if this process ends before removing it)
            _git("worktree", "add", "--detach", "--no-checkout", "--quiet", str(dest), "HEAD", cwd=top)
            copy = cls(source, dest / source.relative_to(top), dest, "worktree", top)
            try:
                # (checkout.workers=0: files written by as many workers as there are cores, twice as fast on two)
                _git("reset", "--hard", "--quiet", cwd=dest, config={"checkout.workers": "0"})
                brought = _bring_uncommitted(top, dest)
                copy.start = copy._snapshot(brought)
            except (OSError, WorkingCopyError):
                copy.remove()
                raise
            return copy
        copy.start = copy._snapshot()
        return copy

    def _snapshot(self, paths: list[bytes] | None = None) -> str:
        """The copy as it is now, as a git tree (written to the copy's own index and object store). With `paths`,
        only those are looked at: a fresh worktree's other files are as checked out (and looking at all of them
        would hash them all again, since they are as new as the index)."""
        if paths is None:
            _git("add", "--all", cwd=self.top)
        elif paths:
            listed = b"\0".join(paths)
            _git("add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul", cwd=self.top, stdin=listed)
        return _git("write-tree", cwd=self.top).decode().strip()

    def diff(self) -> str:
        """What the branch changed since the copy was made, as a patch (binary files included)."""
        patch = _git("diff", "--binary", "--no-color", self.start, self._snapshot(), cwd=self.top)
        return patch.decode("utf-8", errors="surrogateescape")

    def apply(self) -> None:
        """Write the branch's changes into the person's tree: all of them, or (when they no longer apply, because
        the tree changed meanwhile) none."""
        patch = self.diff().encode("utf-8", errors="surrogateescape")
        if not patch:
            return
        try:
            _git("apply", "--check", "--binary", "--whitespace=nowarn", cwd=self.source_top, stdin=patch)
        except WorkingCopyError as exc:
            raise WorkingCopyError(
                f"The branch's changes no longer apply to {self.source_top} (it changed meanwhile), so nothing was "
                f"written: {exc}"
            ) from None
        _git("apply", "--binary", "--whitespace=nowarn", cwd=self.source_top, stdin=patch)

    def remove(self) -> None:
        """Delete the copy (a worktree is also unregistered from the person's repository)."""
        if self.kind == "worktree":
            _git("worktree", "remove", "--force", str(self.top), cwd=self.source_top, check=False)
        shutil.rmtree(self.top, ignore_errors=True)
        if self.kind == "worktree":
            _git("worktree", "prune", cwd=self.source_top, check=False)


def _copy_within_limit(source: Path, dest: Path) -> None:
    total = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
            if total > COPY_LIMIT_BYTES:
                raise WorkingCopyError(
                    f"{source} holds more than {COPY_LIMIT_BYTES // (1024 * 1024)} MB outside git, too much to copy "
                    "for each attempt; make it a git repository (git init and a first commit) so attempts use "
                    "worktrees instead."
                )
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))


def _bring_uncommitted(top: Path, dest: Path) -> list[bytes]:
    """The person's uncommitted work, into the fresh worktree: changed and deleted tracked files, and untracked
    ones that are not ignored. Returns their paths."""
    changed = _git("diff", "--name-only", "-z", "HEAD", cwd=top).split(b"\0")
    untracked = _git("ls-files", "--others", "--exclude-standard", "-z", cwd=top).split(b"\0")
    for raw in filter(None, [*changed, *untracked]):
        relative = os.fsdecode(raw)
        origin, target = top / relative, dest / relative
        if origin.is_symlink() or origin.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.exists():
                target.unlink()
            shutil.copy2(origin, target, follow_symlinks=False)
        elif target.is_symlink() or target.exists():
            target.unlink()
    return [raw for raw in [*changed, *untracked] if raw]
