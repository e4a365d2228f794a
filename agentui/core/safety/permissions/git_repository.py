"""Whether a read-only git command may run in a repository without a question: nothing git would read names a
program the repository (rather than the person) configured — in any config file git reads, includes and worktree
config and submodules' included — no GIT_* variable redirects it, and no file a deny rule covers is in what it would
show (the index and the history, for commands that show contents).

The repository is read with git itself (configuration parsing, includes, BOMs, `commondir`: git knows them
exactly), through calls that cannot run a program themselves (`git config --list`, `rev-parse`, `ls-files`, `log
--name-only`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentui.core.workspace import is_within

TIMEOUT = 10.0
MAX_SUBMODULES = 50
MAX_NAMES = 500_000

# Configuration that makes git run a program even for a command that only reads (for a repository's own config:
# the person's global settings are theirs to trust). Section and key are matched case-insensitively; `*` is a
# subsection.
_PROGRAM_KEYS = [
    ("core", None, "fsmonitor"),
    ("core", None, "hookspath"),
    ("core", None, "sshcommand"),
    ("core", None, "askpass"),
    ("core", None, "gitproxy"),
    ("core", None, "alternaterefscommand"),
    ("core", None, "pager"),  # (a pager runs only on a terminal, which a command never has; strict all the same)
    ("pager", None, "*"),
    ("core", None, "editor"),
    ("sequence", None, "editor"),
    ("filter", "*", "clean"),
    ("filter", "*", "smudge"),
    ("filter", "*", "process"),
    ("diff", "*", "textconv"),
    ("diff", "*", "command"),
    ("diff", None, "external"),
    ("merge", "*", "driver"),
    ("gpg", None, "program"),
    ("gpg", "*", "program"),
    ("credential", None, "helper"),
    ("credential", "*", "helper"),
    ("remote", "*", "uploadpack"),
    ("remote", "*", "receivepack"),
    ("remote", "*", "vcs"),
    ("extensions", None, "partialclone"),
    ("remote", "*", "promisor"),
    ("log", None, "showsignature"),  # (git log then runs gpg on the repository's signatures)
    ("help", None, "browser"),  # (`git CMD --help`, where an allow rule lets it run: the manual's viewer)
    ("web", None, "browser"),
    ("browser", "*", "cmd"),
    ("browser", "*", "path"),
    ("man", None, "viewer"),
    ("man", "*", "cmd"),
    ("man", "*", "path"),
]
_BOOLEAN_KEYS = {("core", "fsmonitor"), ("remote", "promisor"), ("log", "showsignature")}
_FILE_KEYS = {"blame.ignorerevsfile", "mailmap.file", "core.attributesfile", "core.excludesfile", "commit.template",
              "include.path"}  # fmt: skip
"""Configuration naming a file git reads (and may print): it must be where the command may read."""
_FALSE = {"false", "no", "off", "0", ""}
_SAFE_GIT_VARIABLES = frozenset(
    {
        "GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_OPTIONAL_LOCKS", "GIT_PAGER", "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR", "GIT_MERGE_AUTOEDIT", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_FLUSH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_PROXY_COMMAND",
        "GIT_HTTP_USER_AGENT", "GIT_PROTOCOL_FROM_USER", "GIT_ADVICE", "GIT_DEFAULT_HASH",
    }
)  # fmt: skip
"""GIT_* variables that change nothing a read-only command runs or reads (the network ones matter only to commands
that contact a remote, which never run without a question)."""
_SAFE_GIT_PREFIXES = ("GIT_SSL_", "GIT_HTTP_", "GIT_CURL_", "GIT_TRACE", "GIT_LFS_", "GIT_PROTOCOL_")


class GitRunner(Protocol):
    """Runs a git command that cannot itself run a program, in a directory (with `input` on its stdin); its stdout,
    or None if it failed."""

    def __call__(self, cwd: Path, args: Sequence[str], input: bytes | None = None) -> bytes | None: ...


@dataclass(frozen=True)
class Repository:
    top: Path | None
    """The work tree's top (None for a bare repository)."""
    git_dir: Path
    common_dir: Path


@dataclass(frozen=True)
class Entry:
    scope: str
    origin: Path | None
    key: str
    value: str


class GitRepositories:
    """The checks, with git's answers cached for a moment (one Bash check asks the same questions several times;
    a later check sees changes)."""

    def __init__(
        self,
        run: GitRunner,
        writable: Callable[[], Sequence[Path]],
        history: dict[tuple[str, ...], object] | None = None,
    ) -> None:
        self._run = run
        self._writable = writable
        self._cache: dict[tuple[str, ...], object] = {}
        """Answers for this one check (a later check asks git again: the configuration may have changed)."""
        self._history = {} if history is None else history
        """Answers kept across checks, each with the state of the files it came from, and given again only while
        every one of those files is as it was (git reads nothing else to answer)."""

    def _cached(self, key: tuple[str, ...], compute: Callable[[], object]) -> object:
        store = self._history if key[0] == "names" else self._cache
        if key not in store:
            if key[0] == "names":
                for old in [k for k in store if k[:2] == key[:2]]:
                    del store[old]  # (only the newest listing of a repository is worth keeping)
            store[key] = compute()
        return store[key]

    def _lasting(self, key: tuple[str, ...], files: Sequence[Path], compute: Callable[[], object]) -> object:
        """An answer kept across checks while none of `files` changed."""
        if key in self._cache:
            return self._cache[key]
        stamp = _stat_stamp(files)
        kept = self._history.get(key)
        if isinstance(kept, tuple) and kept[0] == stamp:
            value = kept[1]
        else:
            value = compute()
            self._history[key] = (stamp, value)
        self._cache[key] = value
        return value

    def find(self, cwd: Path) -> Repository | None:
        # (which repository git finds depends only on the .git entries from here up)
        ancestors = [d / ".git" for d in (cwd, *cwd.parents)]
        found = self._lasting(("find", str(cwd)), ancestors, lambda: self._find(cwd))
        return found if isinstance(found, Repository) else None

    def _find(self, cwd: Path) -> Repository | None:
        out = self._run(cwd, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir",
                              "--show-toplevel"])  # fmt: skip
        if out is None:
            out = self._run(cwd, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"])
            if out is None:
                return None
        lines = out.decode(errors="surrogateescape").splitlines()
        if len(lines) < 2:
            return None
        top = Path(lines[2]) if len(lines) > 2 and lines[2] else None
        return Repository(top, Path(lines[0]), Path(lines[1]))

    # Configuration

    def entries(self, cwd: Path) -> list[Entry] | None:
        key = ("config", str(cwd))
        kept = self._history.get(key)
        files = self._config_files(cwd, kept[1] if isinstance(kept, tuple) and isinstance(kept[1], list) else [])
        found = self._lasting(key, files, lambda: self._entries(cwd))
        return found if isinstance(found, list) else None

    def _config_files(self, cwd: Path, entries: list[Entry]) -> list[Path]:
        """Every file the configuration came from, the files it includes (present or not), and what git reads to
        decide a conditional include (HEAD)."""
        repository = self.find(cwd)
        home = Path(os.environ.get("HOME") or Path.home())
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        files = [Path("/etc/gitconfig"), home / ".gitconfig", xdg / "git" / "config"]
        if repository is not None:
            files += [
                repository.common_dir / "config",
                repository.git_dir / "config.worktree",
                repository.git_dir / "HEAD",
                repository.common_dir / "hooks" / "post-index-change",
            ]
        for entry in entries:
            if entry.origin is not None:
                files.append(entry.origin)
                if entry.key.lower().startswith("include") and entry.key.lower().endswith(".path"):
                    files.append(Path(os.path.realpath(entry.origin.parent / os.path.expanduser(entry.value))))
        return files

    def _entries(self, cwd: Path) -> list[Entry] | None:
        out = self._run(cwd, ["config", "--list", "--show-scope", "--show-origin", "-z"])
        if out is None:
            return None
        parts = out.decode(errors="surrogateescape").split("\0")
        entries = []
        for index in range(0, len(parts) - 2, 3):
            scope, origin, pair = parts[index], parts[index + 1], parts[index + 2]
            if scope == "command":
                continue  # (what the confined call itself adds; the person's GIT_CONFIG_* is checked before)
            key, _, value = pair.partition("\n")
            path = None
            if origin.startswith("file:"):
                path = Path(os.path.realpath(cwd / origin[5:]))
            entries.append(Entry(scope, path, key, value))
        return entries

    def _repository_controlled(self, entry: Entry, repository: Repository) -> bool:
        """Set by the repository rather than the person: its own config files, or a file inside the project or a
        git directory (an include the person's global config pulls from the project counts as the project's)."""
        if entry.scope in ("local", "worktree", "command"):
            return True
        if entry.origin is None:
            return entry.scope not in ("system", "global")
        inside = [*self._writable(), repository.git_dir, repository.common_dir]
        return any(is_within(entry.origin, Path(os.path.realpath(d))) for d in inside)

    def why_not(
        self,
        cwd: Path,
        environ: Mapping[str, str],
        *,
        may_read: Callable[[Path], bool] = lambda path: True,
        denied: Callable[[Path], bool] = lambda path: False,
    ) -> str | None:
        """Why git may run a program the repository configures here, or read a file it may not (one sentence), or
        None if it cannot. Populated submodules are checked too: several commands look inside them."""
        for name in environ:
            if name.startswith("GIT_") and name not in _SAFE_GIT_VARIABLES and not name.startswith(_SAFE_GIT_PREFIXES):
                return f"the environment sets {name}, which changes what git reads or runs"
        try:
            return self._why_not(cwd, may_read, denied)
        except CannotCheck as exc:
            return f"agentui could not check the repository ({exc})"

    def _why_not(self, cwd: Path, may_read: Callable[[Path], bool], denied: Callable[[Path], bool]) -> str | None:
        repository = self.find(cwd)
        if repository is None:
            return None  # (not a repository: git says so and does nothing)
        why = self._config_why(cwd, repository, may_read, denied)
        if why is not None or repository.top is None:
            return why
        return self._submodules_why(repository, may_read, denied)

    def _config_why(
        self, cwd: Path, repository: Repository, may_read: Callable[[Path], bool], denied: Callable[[Path], bool]
    ) -> str | None:
        entries = self.entries(cwd)
        if entries is None:
            return "git could not read the repository's configuration"
        for entry in entries:
            if entry.origin is not None and denied(entry.origin):
                return f"git's configuration is read from {entry.origin}, which a deny rule covers"
            if entry.key.lower() in _FILE_KEYS or (
                entry.key.lower().startswith("includeif.") and entry.key.lower().endswith(".path")
            ):
                named = _named_file(entry, repository)
                if denied(named) or (self._repository_controlled(entry, repository) and not may_read(named)):
                    return f"git's configuration ({entry.key}) has it read {named}, which the command may not read"
            if entry.key.lower() == "core.worktree" and self._repository_controlled(entry, repository):
                # (a submodule's own config points its work tree at the submodule; elsewhere, git would read files)
                tree = Path(os.path.realpath(os.path.join(repository.git_dir, entry.value)))
                if not any(is_within(tree, Path(os.path.realpath(d))) for d in self._writable()):
                    return f"the repository's git configuration puts its work tree at {tree}, outside the project"
                continue
            if not _names_program(entry) or not self._repository_controlled(entry, repository):
                continue
            where = f" ({entry.origin})" if entry.origin is not None else ""
            return f"the repository's git configuration sets {entry.key}{where}, which can run a program"
        hooks = repository.common_dir / "hooks" / "post-index-change"
        if os.access(hooks, os.X_OK) and hooks.is_file():
            return f"the repository has a {hooks.name} hook, which git runs when it refreshes the index"
        return None

    def _submodules_why(
        self, repository: Repository, may_read: Callable[[Path], bool], denied: Callable[[Path], bool]
    ) -> str | None:
        """git status and diff look inside populated submodules, with each one's own configuration."""
        top = repository.top
        assert top is not None
        index = repository.git_dir / "index"
        out = self._lasting(("gitlinks", str(top)), [index], lambda: self._run(top, ["ls-files", "-s", "-z"]))
        if not isinstance(out, bytes):
            return "git could not list the repository's index"
        links = [
            record.split(b"\t", 1)[1].decode(errors="surrogateescape")
            for record in out.split(b"\0")
            if record.startswith(b"160000 ") and b"\t" in record
        ]
        if len(links) > MAX_SUBMODULES:
            return f"the repository has more than {MAX_SUBMODULES} submodules to check"
        for link in links:
            path = top / link
            if not (path / ".git").exists():
                continue  # (not populated: git does not look inside)
            inner = self.find(path)
            if inner is None or inner.top is None or os.path.realpath(inner.top) != os.path.realpath(path):
                continue
            why = self._config_why(path, inner, may_read, denied)
            if why is not None:
                return f"in the submodule {link}: {why}"
        return None

    # What a command that shows contents could show

    def names(self, repository: Repository) -> set[str] | None:
        """Every path git could show the contents of (see `_names`), relative to the top; None if git could not
        list them."""
        found = self._listing(repository)
        return found[0] if found is not None else None

    def reaches(self, repository: Repository, revision: str) -> bool:
        """Whether git's refs and reflogs reach the object `revision` names (a dropped stash's commits they do not:
        it is in no listing of `names`)."""
        found = self._listing(repository)
        if found is None or revision.startswith("-"):
            return False
        assert repository.top is not None
        resolved = self._run(repository.top, ["rev-parse", "--verify", "--quiet", f"{revision}^{{object}}"])
        return resolved is not None and resolved.decode(errors="replace").strip() in found[1]

    def _listing(self, repository: Repository) -> tuple[set[str], set[str]] | None:
        """`_names`, once while the repository is as it was."""
        assert repository.top is not None
        found = self._cached(("names", str(repository.top), _stamp(repository)), lambda: self._names(repository))
        return found if isinstance(found, tuple) else None

    def _names(self, repository: Repository) -> tuple[set[str], set[str]] | None:
        """Every path of a blob git can reach (the index, every ref and every reflog entry: the stash, commits
        reset or amended away, ORIG_HEAD and the like), and the id of every object reached."""
        assert repository.top is not None
        top = repository.top
        index = self._run(top, ["ls-files", "-z", "--cached"])
        special = ("ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE")
        extra = [ref for ref in special if (repository.git_dir / ref).is_file()]
        history = self._run(top, ["rev-list", "--all", "--reflog", "--objects", *extra])
        if index is None or history is None:
            return None
        names = set(index.decode(errors="surrogateescape").split("\0"))
        ids = set()
        for line in history.decode(errors="surrogateescape").splitlines():
            object_id, _, name = line.partition(" ")
            ids.add(object_id)
            if name:
                names.add(name)
        names.discard("")
        return (names, ids) if len(names) <= MAX_NAMES else None

    def holds_contents(self, repository: Repository, paths: Sequence[Path]) -> Path | None:
        """The first of `paths` whose contents as they are now the object store holds (even unreachable: added once,
        then reset). Each blob's id is kept while its file and the packs are as they were; a loose object is looked
        for each time. The ids not kept are asked of git together (two git commands for any number of files: a
        directory of 10,000 denied files must not take 10,000 commands per check)."""
        objects = repository.common_dir / "objects"
        place = repository.top or repository.git_dir
        pending: list[tuple[Path, tuple[str, ...], object]] = []
        for path in paths:
            key = ("contents", str(repository.git_dir), str(path))
            stamp = _stat_stamp([path, objects / "pack", objects / "info" / "alternates"])
            kept = self._history.get(key)
            if key in self._cache:
                value = self._cache[key]
            elif isinstance(kept, tuple) and kept[0] == stamp:
                value = self._cache[key] = kept[1]
            else:
                pending.append((path, key, stamp))
                continue
            if _held(value, objects):
                return path
        blobs = self._blobs(place, [waiting for waiting, _, _ in pending])
        for (waiting, asked, stamped), found in zip(pending, blobs, strict=True):
            self._history[asked] = (stamped, found)
            self._cache[asked] = found
            if _held(found, objects):
                return waiting
        return None

    def _blobs(self, place: Path, paths: Sequence[Path]) -> list[tuple[str, bool] | None]:
        """For each of `paths`: (its blob's id, whether the object store has it), or None if git could not hash it."""
        if not paths:
            return []
        listed = [p for p in paths if not {"\n", "\r"} & set(str(p))]  # (--stdin-paths reads lines)
        out = self._run(
            place,
            ["hash-object", "--no-filters", "--stdin-paths"],
            "".join(f"{p}\n" for p in listed).encode(errors="surrogateescape"),
        )
        ids = dict(zip(listed, out.decode(errors="replace").split(), strict=False)) if out is not None else {}
        if len(ids) != len(listed):  # (one file gone or unreadable fails them all: each is asked alone)
            ids = {}
        for path in paths:
            if path not in ids and (one := self._run(place, ["hash-object", "--no-filters", "--", str(path)])):
                ids[path] = one.decode(errors="replace").strip()
        known = "".join(f"{name}\n" for name in ids.values()).encode()
        checked = self._run(place, ["cat-file", "--batch-check"], known) if known else b""
        missing = {
            line.split()[0]
            for line in (checked or b"").decode(errors="replace").splitlines()
            if line.endswith(" missing")
        }
        if checked is None:  # (each asked alone, as git would not answer for them together)
            have = {name for name in ids.values() if self._run(place, ["cat-file", "-e", name]) is not None}
        else:
            have = set(ids.values()) - missing
        return [(ids[path], ids[path] in have) if path in ids else None for path in paths]

    def object_type(self, cwd: Path, name: str) -> str | None:
        """What kind of object a revision names (`commit`, `tree`, `blob`, `tag`), or None."""
        out = self._run(cwd, ["cat-file", "-t", "--", name]) if not name.startswith("-") else None
        return out.decode(errors="replace").strip() if out else None


def _named_file(entry: Entry, repository: Repository) -> Path:
    """The file a configuration value names, as git finds it: `~/` is the home directory; an include is relative
    to the file it is in, anything else to the work tree."""
    value = os.path.expanduser(entry.value)
    if os.path.isabs(value):
        return Path(os.path.realpath(value))
    if entry.key.lower().startswith("include") and entry.origin is not None:
        return Path(os.path.realpath(entry.origin.parent / value))
    return Path(os.path.realpath((repository.top or repository.git_dir) / value))


def _held(value: object, objects: Path) -> bool:
    """A kept answer of `holds_contents`: the store had the blob, or has it loose now."""
    if not isinstance(value, tuple):
        return False
    name, held = value
    return bool(held) or (objects / str(name)[:2] / str(name)[2:]).is_file()


def _stat_stamp(files: Sequence[Path]) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = []
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            out.append(())
            continue
        out.append((info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_mode))
    return tuple(out)


def _stamp(repository: Repository) -> str:
    """Changes whenever what the history listing reads does: the index, HEAD and the special heads, packed refs,
    every loose ref and every reflog (so the listing is redone only then)."""
    files: list[Path] = [
        repository.common_dir / "packed-refs",
        repository.git_dir / "HEAD",
        repository.git_dir / "index",
        *(repository.git_dir / name for name in ("ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD")),
    ]
    for tree in (repository.common_dir / "refs", repository.common_dir / "logs"):
        for directory, _dirs, names in os.walk(tree):
            files.append(Path(directory))
            files.extend(Path(directory, name) for name in names)
            if len(files) > 20_000:
                return f"unstamped-{time.monotonic_ns()}"  # (too many refs to watch: list every time)
    return repr(_stat_stamp(files))


_KEY = re.compile(r"^([^.]+)(?:\.(.*))?\.([^.]+)$", re.DOTALL)


def _names_program(entry: Entry) -> bool:
    match = _KEY.match(entry.key)
    if match is None:
        return False
    section, subsection, key = match[1].lower(), match[2], match[3].lower()
    if (section, key) == ("format", "pretty") or (section == "pretty" and subsection is None):
        return "%G" in entry.value  # (a signature placeholder makes log and show run gpg)
    for want_section, want_sub, want_key in _PROGRAM_KEYS:
        if section != want_section or want_key not in (key, "*"):
            continue
        if (want_sub is None) != (subsection is None):
            continue
        return not ((section, key) in _BOOLEAN_KEYS and entry.value.strip().lower() in _FALSE)
    return False


def denied_in(names: Iterable[str], top: Path, denied: Callable[[Path], bool]) -> str | None:
    """The first of `names` (relative to `top`) that `denied` covers."""
    for name in names:
        if denied(top / name):
            return name
    return None


def read_git(cwd: Path, args: Sequence[str], input: bytes | None = None) -> bytes | None:
    """Run one of the reading git commands these checks use, confined as agentui's own git calls are (no program a
    configuration names runs); its output, or None if git failed or refused."""
    from agentui.core.safety import confined_git

    try:
        done = confined_git.run(list(args), cwd=cwd, timeout=TIMEOUT, input=input, reads=True)
    except confined_git.GitMissing:
        return None  # (no git: a git command fails and runs nothing)
    except confined_git.GitError as exc:
        raise CannotCheck(str(exc).rstrip(".")) from None
    return done.stdout if done.returncode == 0 else None


class CannotCheck(Exception):
    """git cannot be asked about the repository (it refuses, or is too old to confine); one sentence."""
