"""git's read-only subcommands and the options each may take without a question: status, diff, log, show, blame,
grep, ls-files, branch and tag listings, and the like. Nothing that writes a ref, the index or a file, contacts a
remote, starts a pager, an editor or an external diff, or asks for textconv.

Whether the repository itself is safe to run git in (its configuration naming programs, denied files in its
history) is `git_repository.py`'s question; this module only reads the command line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from agentui.core.safety.permissions.bash_words import NotUnderstood
from agentui.core.safety.permissions.effects import Effects, GitUse, Tree
from agentui.core.safety.permissions.options import Arg, Table, parse, table

SAFE_GLOBAL_FLAGS = {
    # (options before the subcommand that change nothing it reads or runs: the see-through parse's too)
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-replace-objects",
}

# The options of the revision walk and of diffs, shared by log, show, diff and their plumbing (git reads them with
# its own parser, without bundling: one option to a word).
_WALK_FLAGS = [
    "oneline", "graph", "decorate?", "no-decorate", "all", "branches?", "tags?", "remotes?", "reflog",
    "first-parent", "merges", "no-merges", "reverse", "topo-order", "date-order", "author-date-order",
    "abbrev-commit", "no-abbrev-commit", "abbrev?", "full-history", "simplify-by-decoration", "left-right",
    "left-only", "right-only", "cherry-pick", "cherry-mark", "cherry", "boundary", "pretty?", "format=", "date=",
    "since=", "after=", "until=", "before=", "author=", "committer=", "grep=", "all-match", "invert-grep",
    "regexp-ignore-case", "extended-regexp", "fixed-strings", "perl-regexp", "basic-regexp", "max-count=",
    "skip=", "max-parents=", "min-parents=", "no-min-parents", "no-max-parents", "notes?", "no-notes", "source",
    "log-size", "mailmap", "no-mailmap", "use-mailmap", "no-use-mailmap", "parents", "children", "walk-reflogs",
    "not", "ancestry-path?", "no-walk?", "do-walk", "count", "objects", "objects-edge", "in-commit-order",
    "timestamp", "author-date-order", "follow", "show-linear-break?", "encoding=", "expand-tabs?",
    "no-expand-tabs", "clear-decorations", "decorate-refs=", "decorate-refs-exclude=", "exclude=",
    "exclude-first-parent-only", "glob=", "single-worktree", "ignore-missing", "bisect",
]  # fmt: skip
_DIFF_FLAGS = [
    "stat?", "shortstat", "numstat", "name-only", "name-status", "summary", "compact-summary", "patch",
    "no-patch", "patch-with-stat", "patch-with-raw", "raw", "full-index", "binary", "no-color", "color?",
    "word-diff?", "word-diff-regex=", "color-words?", "color-moved?", "no-color-moved", "color-moved-ws=",
    "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-space-at-eol", "ignore-cr-at-eol",
    "ignore-matching-lines=", "minimal", "patience", "histogram", "anchored=", "diff-algorithm=", "unified=",
    "relative?", "no-relative", "text", "no-renames", "find-renames?", "find-copies?", "find-copies-harder",
    "break-rewrites?", "irreversible-delete", "diff-filter=", "check", "exit-code", "quiet", "cached", "staged",
    "merge-base", "ita-invisible-in-index", "ita-visible-in-index", "src-prefix=", "dst-prefix=", "no-prefix",
    "default-prefix", "line-prefix=", "inter-hunk-context=", "function-context", "no-ext-diff", "no-textconv",
    "ignore-submodules?", "dirstat?", "cumulative", "dirstat-by-file?", "stat-width=", "stat-name-width=",
    "stat-graph-width=", "stat-count=", "full-diff", "pickaxe-all", "pickaxe-regex", "rename-empty",
    "no-rename-empty", "indent-heuristic", "no-indent-heuristic", "remerge-diff", "diff-merges=", "no-diff-merges",
    "combined-all-paths", "cc", "abbrev?", "z", "null", "no-index", "ws-error-highlight=", "output-indicator-new=",
    "output-indicator-old=", "output-indicator-context=", "skip-to=", "rotate-to=", "relative-date",
]  # fmt: skip
_WALK_SHORT = "pusnzMCBRwbaUWEFimctqlSGg"  # (values attach: -n5, -U3, -M50%, -Sstring, -Gregex)
_SHOWS_CONTENT = {
    "-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "-S", "-G", "--word-diff", "--color-words",
    "-W", "--function-context", "--binary", "--cc", "-c", "--remerge-diff", "-U", "--unified", "--full-diff",
    "--check",  # (prints the lines it finds fault with)
}  # fmt: skip
_SUMMARY_ONLY = {"--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary", "--raw",
                 "--compact-summary", "--dirstat", "--no-patch", "-s", "--quiet", "--exit-code",
                 "--dirstat-by-file", "--cumulative"}  # fmt: skip
"""(Names and counts only: but `git show -s BLOB` prints the blob, so where a deny rule reaches into the repository
every walk counts as showing contents.)"""


def _walk_table(extra_short: str = "", extra_long: tuple[str, ...] = ()) -> Table:
    # (-n, -S and -G take a value, attached or not; -U, -M, -C, -B and -l only an attached one)
    short = "".join(f"{c}:" if c in "nSG" else f"{c}::" if c in "UMCBl" else c for c in _WALK_SHORT + extra_short)
    spec = table(short, [*_WALK_FLAGS, *_DIFF_FLAGS, *extra_long], numbers="any", bundles=False)
    return spec


_LOG = _walk_table()
_DIFF = _walk_table()


def _revision_walk(sub: str, args: list[Arg], directory: Arg | None, *, default_content: bool) -> Effects:
    parsed = parse(f"git {sub}", args, _LOG if sub != "diff" else _DIFF)
    flags = {flag.split("=", 1)[0] for flag, _, _ in parsed.options}
    if "--no-index" in flags:
        if sub != "diff":
            raise NotUnderstood(f"`git {sub} --no-index` is not a form agentui knows")
        operands = list(parsed.operands)
        use = GitUse(sub, directory, content=True, reads=operands, work_tree=True, walks=operands)
        return Effects(git=use, reads=operands)
    if any(value is not None and "%G" in value.value for _, _, value in parsed.options):
        raise NotUnderstood("a git format with %G checks signatures, which runs gpg on the repository's data")
    if flags & _SHOWS_CONTENT:
        content = True
    elif flags & _SUMMARY_ONLY:
        content = False
    else:
        content = default_content
    if any(":" in op.value for op in parsed.operands):
        content = True  # (REV:path names a file's content)
    cut = parsed.before_dashes if parsed.before_dashes is not None else len(parsed.operands)
    return Effects(git=GitUse(sub, directory, content=content, revisions=parsed.operands[:cut]))


_STATUS = table(
    "sbvu::z",
    ["short", "branch", "porcelain?", "long", "verbose", "untracked-files?", "ignore-submodules?", "ignored?",
     "null", "column?", "no-column", "ahead-behind", "no-ahead-behind", "renames", "no-renames", "find-renames?",
     "show-stash"],
)  # fmt: skip
_LS_FILES = table(
    "cdmoiskutvfzx:X:",
    ["cached", "deleted", "modified", "others", "ignored", "stage", "killed", "unmerged", "directory",
     "no-empty-directory", "exclude=", "exclude-from=", "exclude-per-directory=", "exclude-standard",
     "error-unmatch", "with-tree=", "full-name", "abbrev?", "debug", "eol", "deduplicate", "sparse", "format="],
    paths=("X", "exclude-from"),
)  # fmt: skip
_NAMES_ONLY = {"-c", "--cached", "-m", "--modified", "-o", "--others", "-d", "--deleted", "--exclude-standard",
               "--deduplicate", "-z"}  # fmt: skip
"""ls-files options with which it prints only names, one per line (or NUL-ended), each relative to where it runs."""
_LS_TREE = table(
    "drtlz", ["name-only", "name-status", "object-only", "full-name", "full-tree", "abbrev?", "format=", "long"]
)  # fmt: skip
_REV_PARSE = table(
    "q",
    ["show-toplevel", "show-prefix", "show-cdup", "git-dir", "git-common-dir", "absolute-git-dir",
     "is-inside-work-tree", "is-inside-git-dir", "is-bare-repository", "is-shallow-repository", "abbrev-ref?",
     "symbolic-full-name", "symbolic", "short?", "verify", "quiet", "all", "branches?", "tags?", "remotes?",
     "show-superproject-working-tree", "show-object-format?", "show-ref-format", "default=", "revs-only",
     "no-revs", "flags", "no-flags", "local-env-vars", "sq", "not", "git-path=", "path-format=", "shared-index-path",
     "since=", "after=", "until=", "before=", "disambiguate="],
    permute=True,
)  # fmt: skip
_DESCRIBE = table(
    "",
    ["tags", "all", "long", "always", "abbrev=", "dirty?", "broken?", "contains", "exact-match", "match=",
     "exclude=", "first-parent", "candidates=", "debug"],
)  # fmt: skip
_BRANCH = table(
    "arvlid",
    ["all", "remotes", "verbose", "list", "show-current", "merged=", "no-merged=", "contains=", "no-contains=",
     "points-at=", "color?", "no-color", "sort=", "format=", "column?", "no-column", "ignore-case", "abbrev?",
     "no-abbrev", "omit-empty"],
    marks={"l": "list", "list": "list", "d": "delete"},
)  # fmt: skip
_TAG = table(
    "ln::i",
    ["list", "contains=", "no-contains=", "points-at=", "merged=", "no-merged=", "sort=", "format=", "color?",
     "ignore-case", "column?", "no-column", "omit-empty"],
    marks={"l": "list", "list": "list"},
)  # fmt: skip
_GREP = table(
    "iIwvhHnlLcozEFGPe:f:A:B:C:pWa",
    ["ignore-case", "word-regexp", "invert-match", "full-name", "extended-regexp", "fixed-strings",
     "basic-regexp", "perl-regexp", "line-number", "column", "files-with-matches", "name-only",
     "files-without-match", "count", "only-matching", "null", "break", "heading", "show-function",
     "function-context", "after-context=", "before-context=", "context=", "threads=", "cached", "untracked",
     "no-index", "exclude-standard", "no-exclude-standard", "max-depth=", "max-count=", "color?", "no-color",
     "and", "or", "not", "all-match", "quiet", "text", "textconv-not"],
    paths=("f",),
    numbers="any",
    marks={"e": "pattern", "f": "pattern"},
)  # fmt: skip
_BLAME = table(
    "L:ltbsewfnpcM::C::",
    ["porcelain", "line-porcelain", "incremental", "root", "show-stats", "date=", "abbrev?", "color-lines",
     "color-by-age", "first-parent", "reverse=", "show-name", "show-number", "show-email", "ignore-rev=",
     "ignore-revs-file=", "contents=", "minimal", "progress", "no-progress", "encoding="],
    paths=("ignore-revs-file", "contents"),
)  # fmt: skip
_CAT_FILE = table("tsepP", ["use-mailmap", "no-use-mailmap", "allow-unknown-type"])
_CONFIG = table(
    "lz",
    ["get", "get-all", "get-regexp", "get-urlmatch", "list", "show-origin", "show-scope", "local", "global",
     "system", "worktree", "null", "name-only", "includes", "no-includes", "type=", "bool", "int", "bool-or-int",
     "path", "expiry-date", "default="],
    marks={"get": "get", "get-all": "get", "get-regexp": "get", "get-urlmatch": "get", "list": "get", "l": "get"},
)  # fmt: skip
_REMOTE = table("v", ["verbose"])
_STASH_SHOW = table("pu", ["patch", "stat?", "name-only", "name-status", "include-untracked", "only-untracked"])
_SHOW_REF = table("dsq", ["head", "heads", "tags", "branches", "dereference", "hash?", "verify", "abbrev?", "quiet",
                          "exists"])  # fmt: skip
_FOR_EACH_REF = table("s", ["format=", "sort=", "count=", "points-at=", "merged=", "no-merged=", "contains=",
                            "no-contains=", "ignore-case", "omit-empty", "exclude=", "shell", "perl", "python",
                            "tcl", "color?"])  # fmt: skip
_MERGE_BASE = table("a", ["all", "octopus", "independent", "is-ancestor", "fork-point"])
_NAME_REV = table("", ["name-only", "tags", "all", "refs=", "exclude=", "annotate-stdin", "no-undefined",
                       "always"])  # fmt: skip
_COUNT_OBJECTS = table("vH", ["verbose", "human-readable"])
_CHERRY = table("v", ["abbrev?"])
_WORKTREE_LIST = table("vz", ["porcelain", "verbose", "expire="])
_CHECK_IGNORE = table("qvnz", ["quiet", "verbose", "non-matching", "no-index"])
_CHECK_ATTR = table("az", ["all", "cached", "source="])
_SHORTLOG = table("snec", ["summary", "numbered", "email", "committer", "format=", "group=", *_WALK_FLAGS])


def git_effects(args: list[Arg]) -> Effects:
    """What `git ARGS` does, for the subcommands agentui lets run without a question."""
    i = 0
    directory: Arg | None = None
    while i < len(args):
        word = args[i].value
        if word in SAFE_GLOBAL_FLAGS:
            i += 1
        elif word == "-C":
            if i + 1 >= len(args) or directory is not None:
                raise NotUnderstood("`git -C` is given twice or without a directory")
            directory = args[i + 1]
            i += 2
        elif word == "--version":
            return Effects()
        elif word.startswith("-"):
            raise NotUnderstood(f"`git {word}` is a global option that can run or redirect anything")
        else:
            break
    if i >= len(args):
        raise NotUnderstood("`git` is given no subcommand")
    sub, rest = args[i].value, args[i + 1 :]
    effects = _subcommand(sub, rest, directory)
    if directory is not None:
        # (git takes its file operands from the -C directory)
        effects.reads = [_under(directory, arg) for arg in effects.reads]
        if effects.git is not None:
            git = effects.git
            effects.git = replace(git, reads=[_under(directory, a) for a in git.reads],
                                  walks=[_under(directory, a) for a in git.walks])  # fmt: skip
        effects.looks.append(directory)
    return effects


def _under(directory: Arg, arg: Arg) -> Arg:
    if arg.value.startswith("/"):
        return arg
    return Arg(os.path.join(directory.value, arg.value), group=arg.group)


_SIMPLE = {
    "cherry": _CHERRY,
    "shortlog": _SHORTLOG,
    "ls-tree": _LS_TREE,
    "rev-parse": _REV_PARSE,
    "describe": _DESCRIBE,
    "show-ref": _SHOW_REF,
    "for-each-ref": _FOR_EACH_REF,
    "merge-base": _MERGE_BASE,
    "name-rev": _NAME_REV,
    "count-objects": _COUNT_OBJECTS,
    "check-ignore": _CHECK_IGNORE,
    "check-attr": _CHECK_ATTR,
}
"""Subcommands that print names and metadata only, with the options of their tables."""


def _subcommand(sub: str, rest: list[Arg], directory: Arg | None) -> Effects:
    def use(content: bool, reads: list[Arg] | None = None, work_tree: bool = False) -> Effects:
        reads = reads or []
        return Effects(git=GitUse(sub, directory, content, reads, work_tree), reads=list(reads))

    name = f"git {sub}"
    if sub in _SIMPLE:
        parse(name, rest, _SIMPLE[sub])
        return use(False)
    if sub in ("log", "whatchanged", "rev-list"):
        return _revision_walk(sub, rest, directory, default_content=False)
    if sub in ("show", "diff", "diff-tree", "diff-index", "diff-files"):
        return _revision_walk(sub, rest, directory, default_content=True)
    if sub == "status":
        parsed = parse(name, rest, _STATUS)
        return use(any(f in ("-v", "--verbose") for f, _, _ in parsed.options))
    if sub == "ls-files":
        return _ls_files(rest, directory, use)
    if sub in ("branch", "tag"):
        parsed = parse(name, rest, _BRANCH if sub == "branch" else _TAG)
        if sub == "branch" and parsed.has("delete"):
            raise NotUnderstood("`git branch -d` deletes a branch")
        if parsed.operands and not parsed.has("list"):
            raise NotUnderstood(f"`git {sub} NAME` creates a {sub}")
        return use(False)
    if sub == "remote":
        return _remote(rest, use)
    if sub == "stash":
        return _stash(rest, use)
    if sub == "reflog":
        if rest and rest[0].value not in ("show",) and not rest[0].value.startswith("-"):
            raise NotUnderstood(f"`git reflog {rest[0].value}` changes the reflog")
        shown = rest[1:] if rest and rest[0].value == "show" else rest
        return _revision_walk("log", shown, directory, default_content=False)
    if sub == "grep":
        return _grep(rest, use)
    if sub == "blame" or sub == "annotate":
        parsed = parse(name, rest, _BLAME)
        # (the file is read from the work tree when it has uncommitted changes)
        return use(True, [*parsed.paths(), *[op for op in parsed.operands if op.group is None]])
    if sub == "cat-file":
        return _cat_file(rest, directory)
    if sub == "config":
        return _config(rest, directory)
    if sub == "worktree" and rest and rest[0].value == "list":
        parse(name, rest[1:], _WORKTREE_LIST)
        return use(False)
    if sub == "version":
        return Effects()
    raise NotUnderstood(f"`git {sub}` is not a git subcommand agentui knows to be read-only")


def _ls_files(rest: list[Arg], directory: Arg | None, use: Callable[..., Effects]) -> Effects:
    parsed = parse("git ls-files", rest, _LS_FILES)
    found = use(False, parsed.paths())
    flags = {flag for flag, _, _ in parsed.options}
    if directory is None and not parsed.operands and flags <= _NAMES_ONLY:
        # (names relative to the directory it runs in, every one under it: what `| xargs` then receives)
        found.names = Tree(Arg("."), contents=False, tracked=tuple(sorted(flags)))
        found.names_null = "-z" in flags
    return found


def _cat_file(rest: list[Arg], directory: Arg | None) -> Effects:
    parsed = parse("git cat-file", rest, _CAT_FILE)
    if len(parsed.operands) > 2:
        raise NotUnderstood("`git cat-file` is given more than a type and an object")
    metadata = any(f in ("-t", "-s", "-e") for f, _, _ in parsed.options)
    return Effects(git=GitUse("cat-file", directory, not metadata, revisions=list(parsed.operands[-1:])))


def _config(rest: list[Arg], directory: Arg | None) -> Effects:
    """`git config` that reads: one key, or a listing (whose every value is printed)."""
    parsed = parse("git config", rest, _CONFIG)
    if not parsed.has("get"):
        if len(parsed.operands) != 1:
            raise NotUnderstood("`git config` with a value sets it")
    elif parsed.has("get") and len(parsed.operands) > 2:
        raise NotUnderstood("`git config --get` is given too many operands")
    flags = {flag.lstrip("-") for flag, _, _ in parsed.options}
    listing = bool(flags & {"list", "l", "get-regexp", "get-urlmatch"}) or not parsed.operands
    printed = None if listing else (config_key(parsed.operands[0].value),)
    scopes = tuple(s for s in ("local", "global", "system", "worktree") if s in flags)
    return Effects(git=GitUse("config", directory, False, printed=printed, scopes=scopes))


def _remote(rest: list[Arg], use: object) -> Effects:
    assert callable(use)
    words = [a.value for a in rest]
    if all(w in ("-v", "--verbose") for w in words):
        return use(False)  # type: ignore[no-any-return]
    if words and words[0] == "get-url" and all(w in ("--push", "--all") or not w.startswith("-") for w in words[1:]):
        return use(False)  # type: ignore[no-any-return]
    raise NotUnderstood("this `git remote` form changes remotes or contacts one")


def _stash(rest: list[Arg], use: object) -> Effects:
    assert callable(use)
    if not rest:
        raise NotUnderstood("`git stash` alone stashes the changes")
    action = rest[0].value
    if action == "list":
        walked = _revision_walk("log", rest[1:], None, default_content=False)
        assert walked.git is not None
        return use(walked.git.content)  # type: ignore[no-any-return]
    if action == "show":
        parsed = parse("git stash show", rest[1:], _STASH_SHOW)
        if len(parsed.operands) > 1:
            raise NotUnderstood("`git stash show` is given more than one stash")
        patch = any(f in ("-p", "--patch") for f, _, _ in parsed.options)
        return use(patch)  # type: ignore[no-any-return]
    raise NotUnderstood(f"`git stash {action}` changes the stash or the work tree")


def _grep(rest: list[Arg], use: object) -> Effects:
    assert callable(use)
    parsed = parse("git grep", rest, _GREP)
    flags = {f for f, _, _ in parsed.options}
    work_tree = bool(flags & {"--untracked", "--no-index"})
    effects: Effects = use(True, parsed.paths(), work_tree)
    cut = parsed.before_dashes if parsed.before_dashes is not None else len(parsed.operands)
    objects = parsed.operands[:cut] if parsed.has("pattern") else parsed.operands[1:cut]  # (the first is the pattern)
    assert effects.git is not None
    if work_tree:  # (what follows the pattern is paths, not revisions: read whole, wherever they are)
        paths = [a for a in (parsed.operands if parsed.has("pattern") else parsed.operands[1:]) if a.value != "--"]
        for path in paths:  # (git reads each as a pathspec: `*.env` and `:(glob)*env` match files, `:/` is all)
            if path.value.startswith(":") or any(char in path.value for char in "*?["):
                raise NotUnderstood(
                    f"`git grep` takes {path.value} as a pattern of paths, which agentui does not expand"
                )
        effects.git = replace(effects.git, walks=paths)
        effects.reads += paths
    else:
        effects.git = replace(effects.git, revisions=list(objects))
    return effects


_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
                 "--get-colorbool", "--show-origin", "--show-scope"}  # fmt: skip
_WRITING_FLAGS = {
    "push": {"-u", "--set-upstream"},
    "branch": {"-u", "--set-upstream-to", "--unset-upstream", "-m", "-M", "--move", "-c", "-C", "--copy", "-d",
               "-D", "--delete", "-t", "--track", "--edit-description"},
    "checkout": {"-t", "--track"},
    "switch": {"-t", "--track"},
    "fetch": {"--set-upstream"},
    "pull": {"--set-upstream"},
}  # fmt: skip
_WRITING_REMOTE = {"add", "rm", "remove", "rename", "set-url", "set-head", "set-branches"}


PLAIN_CONFIG_KEYS = frozenset(
    {
        "user.name", "user.email", "init.defaultbranch", "core.editor", "core.autocrlf", "core.filemode",
        "core.ignorecase", "core.eol", "core.quotepath", "pull.rebase", "pull.ff", "push.default",
        "push.autosetupremote", "merge.ff", "merge.conflictstyle", "rebase.autosquash", "rebase.autostash",
        "fetch.prune", "color.ui", "diff.algorithm", "diff.colormoved", "log.date", "commit.gpgsign", "tag.gpgsign",
        "user.signingkey", "gpg.format", "branch.autosetuprebase", "help.autocorrect", "column.ui", "status.short",
    }
)  # fmt: skip
"""Keys of the person's own git configuration that `git config` may print unasked: settings, never a secret (not
url.*, http.*, credential.*: those can hold a token)."""


def config_key(text: str) -> str:
    """A configuration key as git compares it: section and name in lower case, a subsection as written."""
    section, _, rest = text.partition(".")
    middle, _, last = rest.rpartition(".")
    return ".".join(part for part in (section.lower(), middle, last.lower()) if part)


def writes_git_config(words: list[str | None]) -> bool:
    """Whether a git command line (after `git`) writes git's configuration (a repository's .git/config, or the
    person's ~/.gitconfig): setting values, remotes, upstreams, branch renames and deletions, submodules, `git
    init`, Git LFS's install. Such a command is asked as a write to a protected file, and a yes lets it past the
    guard that otherwise keeps that configuration read-only."""
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            return True  # (a word agentui cannot read: it may be anything)
        if word in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"):
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        break
    if i >= len(words):
        return False
    sub, rest = words[i], [w for w in words[i + 1 :] if w is not None]
    flags = {w.split("=", 1)[0] for w in rest if w.startswith("-")}
    operands = [w for w in rest if not w.startswith("-")]
    if sub == "config":
        scopes = {"--global", "--local", "--system", "--worktree"}
        return not (flags & _CONFIG_READS) and (len(operands) != 1 or bool(flags - scopes))
    if sub == "remote":
        return bool(operands) and operands[0] in _WRITING_REMOTE
    if sub in ("submodule", "init", "maintenance"):
        return not (sub == "submodule" and operands[:1] in (["status"], ["summary"], ["foreach"]))
    if sub == "lfs":
        return bool(operands) and operands[0] in ("install", "uninstall", "update", "track", "untrack")
    if sub == "branch" and len(operands) >= 2:
        return True  # (a branch from a remote-tracking one is set to track it)
    creating = {"checkout": {"-b", "-B"}, "switch": {"-c", "-C", "--create", "--force-create"}}.get(sub or "", set())
    if flags & creating and len(operands) >= 2:
        return True  # (likewise a branch made from a start point)
    return bool(flags & _WRITING_FLAGS.get(sub or "", set()))
