"""What Bash changes, made rewindable: before a command that may write runs in a git work tree, its tracked and
untracked (not ignored) files are recorded as a commit on a private ref, `refs/agentui/snapshots/<session id>`, built
through a temporary index, so the person's index, branches and stash list are never touched. (Claude Code's file
history covers only its file tools.) Files over a size limit are left out, and said to be."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agentui.core.errors import AgentuiError
from agentui.core.process_dir import current
from agentui.core.safety.confined_git import GitError, GitRefused, complaint, run
from agentui.core.safety.permissions.protected import protected_reason
from agentui.core.session.file_history import FileChange
from agentui.core.workspace import is_within

SIZE_LIMIT = 10_000_000
"""Files larger than this are not snapshotted (a rewind leaves them as they are, and says so)."""
TIMEOUT = 60.0
_SUBJECT = "agentui: the work tree before a Bash command"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agentui",
    "GIT_AUTHOR_EMAIL": "agentui@localhost",
    "GIT_COMMITTER_NAME": "agentui",
    "GIT_COMMITTER_EMAIL": "agentui@localhost",
}


class SnapshotError(AgentuiError):
    """git could not take or read a snapshot; one sentence."""


@dataclass(frozen=True)
class ShellSnapshot:
    commit: str
    time: str
    """When it was taken, as the session's timestamps are written (ISO 8601, UTC): they compare as strings."""
    skipped: tuple[str, ...] = ()
    """Files left out for their size, relative to the work tree's top."""


@dataclass
class ShellRestore:
    changes: list[FileChange]
    notes: list[str]
    """What the restore leaves alone and why (files too large to snapshot)."""


def _git(top: Path, *args: str, env: dict[str, str] | None = None, data: bytes | None = None) -> bytes:
    try:
        done = run(args, cwd=top, timeout=TIMEOUT, env=env, input=data)
    except GitError as exc:
        raise SnapshotError(str(exc)) from None
    if done.returncode != 0:
        raise SnapshotError(f"git {args[0]} failed: {complaint(done)}.")
    return done.stdout


def where(path: Path) -> Path:
    """A path with its directory's links resolved (not its own: it may be a link a snapshot restores)."""
    return Path(os.path.realpath(path.parent), path.name)


class ShellSnapshots:
    def __init__(self, top: Path, index: Path, session_id: str, limit: int = SIZE_LIMIT) -> None:
        self.top = top
        self.index = index
        """The person's index: copied, for its record of which files are unchanged, never written."""
        self.ref = f"refs/agentui/snapshots/{session_id}"
        self._real_top = os.path.realpath(top)
        self.limit = limit
        self._scratch = tempfile.TemporaryDirectory(prefix="agentui-index-", dir=current().made())
        """The index the snapshots are built in: the person's copied once, then kept, so that git reads only the
        files changed since the last snapshot (removed when this object goes)."""

    @classmethod
    def find(cls, cwd: Path, session_id: str) -> ShellSnapshots | None:
        """The snapshots for a project; None outside a git work tree (or without git). SnapshotError when git's
        configuration there cannot be read, so git cannot be run confined."""
        try:
            done = run(["rev-parse", "--show-toplevel", "--git-path", "index"], cwd=cwd, timeout=TIMEOUT)
        except GitRefused as exc:
            raise SnapshotError(str(exc)) from None
        except GitError:
            return None
        if done.returncode != 0:
            return None
        top, index = done.stdout.decode().splitlines()[:2]
        return cls(Path(top), Path(cwd, index) if not os.path.isabs(index) else Path(index), session_id)

    # Taking

    def take(self, when: str) -> ShellSnapshot:
        """Record the work tree now, as the newest commit on the session's ref."""
        tree, skipped = self._tree()
        parent = self._newest()
        message = f"{_SUBJECT}\n\n{json.dumps({'time': when, 'skipped': skipped})}\n"
        commit = _git(
            self.top,
            "commit-tree",
            tree,
            *(("-p", parent) if parent else ()),
            env=_IDENTITY,
            data=message.encode(),
        )
        commit_id = commit.decode().strip()
        # (the old value guards against another agentui on the same session moving the ref meanwhile)
        _git(self.top, "update-ref", self.ref, commit_id, parent or "")
        return ShellSnapshot(commit_id, when, tuple(skipped))

    def _tree(self) -> tuple[str, list[str]]:
        """A tree object of the work tree as it is (tracked files and untracked ones git does not ignore), and the
        files left out for their size."""
        index = Path(self._scratch.name, "index")
        if not index.exists() and self.index.is_file():
            shutil.copyfile(self.index, index)  # (its file stats spare git reading the files that did not change)
        env = {"GIT_INDEX_FILE": str(index), "GIT_OPTIONAL_LOCKS": "0"}
        listed = _git(self.top, "ls-files", "-z", "-m", "-d", "-o", "--exclude-standard", env=env)
        update, skipped = [], []
        not_directories: dict[str, bool] = {}
        for name in dict.fromkeys(part for part in listed.decode(errors="surrogateescape").split("\0") if part):
            if self._beyond_a_link(name, not_directories):
                continue  # (its directory became a link or a file: adding that, --replace takes this out)
            try:
                info = os.lstat(self.top / name)
            except FileNotFoundError:
                update.append(name)  # (deleted: --remove takes it out)
                continue
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                continue  # (a repository inside this one: git lists it as a directory)
            if stat.S_ISREG(info.st_mode) and info.st_size > self.limit:
                skipped.append(name)  # (what the index holds of it, if anything, stays: a restore leaves it alone)
            else:
                update.append(name)
        if update:
            paths = b"".join(name.encode(errors="surrogateescape") + b"\0" for name in update)
            _git(self.top, "update-index", "--add", "--remove", "--replace", "-z", "--stdin", env=env, data=paths)
        tree = _git(self.top, "write-tree", env=env).decode().strip()
        return tree, skipped

    def _beyond_a_link(self, name: str, seen: dict[str, bool]) -> bool:
        """Whether a directory on the way to `name` is now a link or a file (`seen` keeps the answers of a pass)."""
        parent = os.path.dirname(name)
        while parent:
            if parent not in seen:
                try:
                    seen[parent] = not stat.S_ISDIR(os.lstat(self.top / parent).st_mode)
                except OSError:
                    seen[parent] = False  # (gone: its files are deleted, as usual)
            if seen[parent]:
                return True
            parent = os.path.dirname(parent)
        return False

    # Reading

    def _newest(self) -> str | None:
        try:
            return _git(self.top, "rev-parse", "--verify", "-q", f"{self.ref}^{{commit}}").decode().strip() or None
        except SnapshotError:
            return None

    def taken(self) -> list[ShellSnapshot]:
        """The session's snapshots, oldest first."""
        if self._newest() is None:
            return []
        out = _git(self.top, "log", "-z", "--format=%H%n%b", self.ref).decode(errors="replace")
        found = []
        for record in out.split("\0"):
            commit, _, body = record.strip().partition("\n")
            try:
                facts = json.loads(body)
                found.append(ShellSnapshot(commit, str(facts["time"]), tuple(map(str, facts.get("skipped", ())))))
            except (ValueError, KeyError, TypeError):
                continue  # (not one of ours)
        return found[::-1]

    def since(self, when: str) -> ShellSnapshot | None:
        """The first snapshot taken at or after `when`: the work tree before the first Bash command since."""
        return next((snapshot for snapshot in self.taken() if snapshot.time >= when), None)

    def restore_plan(self, snapshot: ShellSnapshot, leave: Iterable[Path] = ()) -> ShellRestore:
        """The files to change to bring the work tree back to `snapshot`, except those in `leave` (the file
        history restores them) and those too large to have been snapshotted then or now."""
        tree, skipped_now = self._tree()
        raw = _git(self.top, "diff-tree", "-r", "-z", "--no-renames", snapshot.commit, tree)
        parts = raw.decode(errors="surrogateescape").split("\0")
        leave = {where(path) for path in leave}
        too_large = set(snapshot.skipped) | set(skipped_now)
        changes, wanted, refused = [], [], []
        for header, name in zip(parts[0::2], parts[1::2], strict=False):
            if not header.startswith(":"):
                continue
            old_mode, _, old_blob, _, status = header[1:].split(" ")
            path = self.top / name
            if where(path) in leave:
                continue
            if name in too_large:
                continue
            if why := self._not_restorable(name):
                refused.append(why)
                continue
            wanted.append((path, None if status == "A" else old_blob, int(old_mode, 8)))
        notes = [
            f"{name} is larger than {self.limit:,} bytes, so it was not snapshotted and is left as it is."
            for name in sorted(too_large)
            if where(self.top / name) not in leave
        ] + refused
        contents = self._blobs([blob for _, blob, _ in wanted if blob])
        for path, blob, mode in wanted:
            try:
                now: bytes | None = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            except FileNotFoundError:
                now = None
            except OSError as exc:
                raise SnapshotError(f"{path} cannot be read ({exc.strerror or exc}).") from None
            changes.append(FileChange(path, contents[blob] if blob else None, now, mode=mode if blob else None))
        return ShellRestore(changes, notes)

    def _not_restorable(self, name: str) -> str | None:
        """Why a rewind leaves `name` alone, or None. The snapshots' ref is in the repository, where a command can
        rewrite it, so what a snapshot names is not trusted: only plain paths inside the work tree, never through a
        link out of it, and never a protected file (a command could not write those itself; nor can a forged
        snapshot, through agentui)."""
        parts = name.split("/")
        if any(part in ("", ".", "..") or part.casefold() == ".git" for part in parts):
            return f"{name!r} in the snapshot is not a plain path in the work tree, so it is left alone."
        if why := protected_reason(Path(name)):
            return f"{name} is left as it is: {why}, which a rewind never writes."
        if not is_within(where(self.top / name), self._real_top):
            return f"{name} leads out of the work tree through a link, so it is left alone."
        return None

    def _blobs(self, blobs: list[str]) -> dict[str, bytes]:
        if not blobs:
            return {}
        out = _git(self.top, "cat-file", "--batch", data="".join(f"{blob}\n" for blob in blobs).encode())
        found: dict[str, bytes] = {}
        at = 0
        while at < len(out):
            end = out.index(b"\n", at)
            blob, _, size = out[at:end].decode().split(" ")
            found[blob] = out[end + 1 : end + 1 + int(size)]
            at = end + 1 + int(size) + 1
        return found


class BeforeBash:
    """Called before each Bash command is run: unless the command only reads, the work tree is snapshotted. What
    cannot be snapshotted (no git work tree, a file over the limit) is said once. git runs confined, so a repository
    whose configuration names programs (an fsmonitor, filters, hooks) is snapshotted too, and none of them runs."""

    def __init__(self, cwd: Path, session_id: str, clock: Callable[[], str], warn: Callable[[str], object]) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.clock = clock
        self.warn = warn
        self.snapshots: ShellSnapshots | None = None
        self._warned: set[str] = set()
        """Files already said to be too large, so each is said once a session."""
        self._looked = False
        self._off = False

    async def __call__(self, tool_call_id: str, command: str) -> None:
        from agentui.core.safety.permissions.readonly import only_reads

        if self._off or only_reads(command):
            return
        if not self._looked:
            self._looked = True
            try:
                self.snapshots = await asyncio.to_thread(ShellSnapshots.find, self.cwd, self.session_id)
            except SnapshotError as exc:
                return self._stop(f"What Bash commands change cannot be rewound: {exc}")
        if self.snapshots is None:
            return self._stop(
                "This project is not in a git work tree, so what Bash commands change cannot be rewound "
                "(what the file tools change still can)."
            )
        try:
            taken = await asyncio.to_thread(self.snapshots.take, self.clock())
        except SnapshotError as exc:
            return self._stop(f"Bash changes cannot be rewound from now on: {exc}")
        for name in taken.skipped:
            if name not in self._warned:
                self._warned.add(name)
                self.warn(
                    f"{name} is larger than {self.snapshots.limit:,} bytes, so what Bash commands change in it "
                    "cannot be rewound."
                )

    def _stop(self, message: str) -> None:
        self._off = True
        self.warn(message)
