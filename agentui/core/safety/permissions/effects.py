"""What a program a command runs does, in the terms the permission check judges: the files it reads, the trees it
walks, the files it writes or removes, the command it runs, what it asks of git."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from agentui.core.safety.permissions.options import Arg


@dataclass(frozen=True)
class Tree:
    """A directory (or file) a program reads everything under."""

    path: Arg
    follow: bool = False
    """Symbolic links below it are followed (`grep -R`, `find -L`, `du -L`)."""
    contents: bool = True
    """The files' contents are read; False: only their names and metadata (`ls -R`, `find`, `du`)."""
    selection: tuple[tuple[str, str], ...] = ()
    """grep's `--include` and `--exclude` globs in order, as ("include" | "exclude", glob): which files it reads."""
    skip_dirs: tuple[str, ...] = ()
    """grep's `--exclude-dir` globs: subdirectories it does not enter."""
    all_names: tuple[tuple[str, bool], ...] = ()
    """find's `-name`/`-iname` tests, all of which a name must pass (glob, ignoring case)."""
    skips_hidden: bool = False
    """Names starting with a dot below it are passed over (ripgrep without --hidden)."""
    files_only: bool = False
    """Only regular files are listed (find -type f, without -L): a link is not."""
    tracked: tuple[str, ...] | None = None
    """The names are what `git ls-files` with these options lists (git's index, not a walk): one may pass through a
    link to a directory that replaced a tracked one, where no walk goes, so each is checked by itself."""
    hidden_matching: tuple[str, ...] | None = None
    """ripgrep's override globs and file types: a hidden file is read only where one of these matches its name
    (None: no such limit)."""

    def reads(self, name: str) -> bool:
        """Whether a file of this base name below the tree is read, as GNU grep decides: the last --include or
        --exclude that matches wins; if none does, the file is read unless the first of them is an --include.
        And it passes each find -name test. A glob agentui cannot match exactly as they do is taken to match
        whatever would make the file read."""
        limit = self.hidden_matching
        exact = limit is not None and all(_exact_glob(glob) for glob in limit)
        if exact and name.startswith(".") and not any(simple_glob_match(glob, name) for glob in limit or ()):
            return False
        for glob, fold in self.all_names:
            if _exact_glob(glob) and not simple_glob_match(
                glob.lower() if fold else glob, name.lower() if fold else name
            ):
                return False
        if not self.selection:
            return True
        if not all(_exact_glob(glob) for _, glob in self.selection):
            return True
        matched = [kind for kind, glob in self.selection if simple_glob_match(glob, name)]
        if matched:
            return matched[-1] == "include"
        return self.selection[0][0] != "include"

    def enters(self, name: str) -> bool:
        return not any(simple_glob_match(glob, name) for glob in self.skip_dirs)


@dataclass(frozen=True)
class Inner:
    """A command the program runs: checked as a command in its own right."""

    args: list[Arg]
    names: Tree | None = None
    """xargs: file names under this tree are appended as operands."""
    split: bool = False
    """xargs without -0: the names are split on blanks and quotes, so none under the tree may hold any."""


@dataclass(frozen=True)
class GitUse:
    """What a git command needs from the repository check (see `git_commands.py`)."""

    subcommand: str
    directory: Arg | None
    """`git -C DIR`."""
    content: bool
    """It shows file contents from the repository (diffs, blobs, matches), not only names and metadata."""
    reads: list[Arg] = field(default_factory=list)
    """Files outside the repository's objects it reads (`diff --no-index A B`, `blame --contents F`)."""
    work_tree: bool = False
    """It reads files in the work tree beyond the tracked ones (`grep --untracked`, `--no-index`)."""
    revisions: list[Arg] = field(default_factory=list)
    """The objects it is told to show (before any `--`): a commit, `REV:path`, or a blob by its hash."""
    walks: list[Arg] = field(default_factory=list)
    """With `work_tree`: the files and directories it reads whole (none: the directory it runs in)."""
    printed: tuple[str, ...] | None = ()
    """`git config`: the keys whose values it prints (None: every entry)."""
    scopes: tuple[str, ...] = ()
    """`git config --local` and the like: the only scopes it reads (empty: all)."""


@dataclass(frozen=True)
class Copy:
    """cp or mv of one source: what it creates is `destination` itself, or `destination/basename(source)` when the
    destination is a directory (`into`: True with -t, False with -T, None when it depends on the disk), with the
    source's whole tree below it."""

    source: Arg
    destination: Arg
    into: bool | None


@dataclass
class Effects:
    reads: list[Arg] = field(default_factory=list)
    """Files whose contents the program reads."""
    looks: list[Arg] = field(default_factory=list)
    """Files whose names or metadata the program reads."""
    trees: list[Tree] = field(default_factory=list)
    writes: list[Arg] = field(default_factory=list)
    """Files the program creates or changes (only file commands, which acceptEdits lets through, have any)."""
    removes: list[Tree] = field(default_factory=list)
    """Files or trees the program removes or moves away."""
    inner: list[Inner] = field(default_factory=list)
    git: GitUse | None = None
    cd: Arg | None = None
    cd_home: bool = False
    edits: bool = False
    """A file command (mkdir, touch, cp, mv, rm, rmdir, sed -i): acceptEdits runs it without a question."""
    names: Tree | None = None
    """find: the names it prints are of files under this tree (what `| xargs` then receives)."""
    names_null: bool = False
    """find -print0: the names are separated by NUL bytes."""
    anywhere: bool = False
    """Its path operands only name a file system (df), so they may be anywhere."""
    own_links: bool = False
    """A symbolic link named as an operand is looked at itself, not followed (du, stat and file without -L)."""
    linked: tuple[str, ...] = ()
    """Files named in options (`du -X FILE`, `file -m FILE`): read through their links, whatever `own_links` says."""
    copies: list[Copy] = field(default_factory=list)


_SIMPLE_GLOB = re.compile(r"[A-Za-z0-9._*?+=,@%-]*")


def _exact_glob(glob: str) -> bool:
    return _SIMPLE_GLOB.fullmatch(glob) is not None


def simple_glob_match(glob: str, name: str) -> bool:
    """`name` matches `glob` the way fnmatch(3) says, for globs of plain characters, `*` and `?` only (anything else
    matches nothing here: the callers then read more files, never fewer)."""
    if not _SIMPLE_GLOB.fullmatch(glob):
        return False
    if "?" in glob and not name.isascii():
        return True  # (in a C locale `?` matches one byte of a name, not one character: assume the worst)
    return fnmatch.fnmatchcase(name, glob)
