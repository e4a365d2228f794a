"""Hypothesis strategies for bash commands, built from bash's grammar and biased towards the edges of what agentui's
permission check understands: programs from its allowlist (with options from their own tables) and others,
dangerous options, paths that stay in the project and paths that escape it, every kind of quoting, expansions
(variables set in the environment, command substitution, arithmetic, parameter operators, braces, tildes),
control characters, lists, pipelines, redirections, `[ ]`, `cd`, and `find | xargs`.

Most generated commands ask (they hold something agentui does not follow); the ones that matter are those it lets
run, which the fuzz test then runs under strace. The vocabulary matches the world `traced_run.build_world` makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from agentui.core.safety.permissions import git_commands, programs
from agentui.core.safety.permissions.options import Table
from tests.support.traced_run import WEIRD_NAMES

Draw = Callable[[st.SearchStrategy[Any]], Any]

# The vocabulary

PROJECT_FILES = (
    "README.md", "notes.md", "data.json", "big.txt", "src/app.py", "src/util.py", "src", ".", "tools", "tools/evil.sh",
    ".gitignore", "srclink", "srclink/app.py", "out.txt", "new dir", "build", *WEIRD_NAMES,
)  # fmt: skip
"""Names in the project (as values: quoting is applied after)."""

ESCAPES = (
    # (as written: each is a word of the shell, quoting included)
    ".env", "./.env", "src/innocent.txt", "src/../.env", "srclink/../.env", "~+/.env", "$PWD/.env", '"$PWD"/.env',
    "$DOTENV", '"$DOTENV"', "..", "../outside/secret.txt", "linkdir", "linkdir/secret.txt", "linkdir/",
    "/etc/passwd", "/etc/shadow", "/", "/tmp", "/tmp/x", "../canary", "~", "~/.ssh/id_rsa", "~/notes.txt", "~/.ssh",
    "$HOME/.ssh/id_rsa", '"$HOME"/.ssh/id_rsa', "${HOME}", "~root", "~root/.bashrc", "~nobody-here", "$UP",
    "${UP}/etc/passwd", '"$UP"', "$UP/outside/secret.txt", "/proc/self/environ", "/proc/1/environ", "/dev/stdin",
    "/dev/tcp/127.0.0.1/9", "-", ".git", ".git/config", ".git/hooks/pre-commit", ".claude/settings.json",
    ".vscode/tasks.json", "CLAUDE.md", ".envrc", "~/.bashrc", "$SPACED", '"$SPACED"', "$GLOBBY", '"$GLOBBY"',
    "$DASHED", "$EMPTY", '"$EMPTY"', "$FILE", "${FILE}", '"${FILE}"', "$DIR/app.py", "$DIR/../.env", "$OLDPWD",
    "$RANDOM", "$1", "$@", "$-", "~-", "~+", "$NOPE/.env", "src/up", "src/up/", "src/up/.env", "dangling",
    "up/outside/secret.txt", "up/canary", "up/project/.env", "up", "d", "d/x", "sl/app.py", "ld/secret.txt",
)  # fmt: skip

GLOBS = (
    "*", "*.md", ".e*", ".en?", ".[e]nv", ".[!x]nv", "src/*", "*/*", ".*", "s*/*.py", "[-]*", "-*", "*.txt",
    "li*/*", "?", "**", "[!.]*", "[[:alpha:]]*", "src/[a-z]*", "src/*.txt", "*.json", "t*/*", "*rf",
)  # fmt: skip

CONSTRUCTS = (
    "$(touch ../canary)", "`touch ../canary`", "$(cat .env)", "$((1+2))", "${HOME#/}", "${x:-.env}", "${#HOME}",
    "{a,b}", "{README.md,.env}", "{1..2}", "$'\\x2eenv'", '$"x"', "a\rb", "<(cat .env)", ">(tee x)", "a\\\nb",
    "${HOME/a/b}", "$[1+1]", "${!HOME}", "\\$HOME", "'$HOME'", "x#y", "#x", "a=b", "!", "\\;", "';'", '"|"',
)  # fmt: skip

TEXT = ("x", "hello", "KEY", "a b", "1", "0", "-1", "%s", ".", "", "a*b", "readme", "2", "10", ",", ":", "\\n")

VALUES = (
    "1",
    "5",
    "0",
    "-1",
    "x",
    ":",
    ",",
    "%s",
    "always",
    "never",
    "auto",
    "10",
    "a",
    "1,2",
    "UTF-8",
    "+%s",
    "*",
    "*env",
    ".e*",
    ".env",
    "?env",
    "*.md",
    "src",
    ".",
    "*.py",
    "[.]env",
    ".*",
    "\\.env",
    "{.env}",
)
"""Values of options that take text."""

DANGEROUS_OPTIONS = (
    "-o", "-o/tmp/x", "--output=/tmp/x", "--output", "-exec", "-delete", "-f", "-f.env", "--files0-from=.env",
    "-T", "-T/tmp", "--compress-program=sh", "-i", "-r", "-w", "-O", "--pre=sh", "-x", "--config", "-e", "-c",
    "-e w /tmp/x", "--exec-path=tools", "-C", "--pager=sh", "-z", "--to-file=/tmp/x", "-S", "--null", "-0", "-P",
    "--follow", "-L", "-R", "-H", "--dereference", "--directories=recurse", "-drecurse", "--include=.env",
    "--exclude-from=.env", "--hyperlink=always", "--color=always", "-v", "--help", "--version", "--", "--verbose",
    "--interactive", "-p", "-m", "--no-preserve-root", "--backup", "--suffix=../x", "-t/tmp", "--target-directory=..",
    "-s", "-l", "-b", "--preserve=all", "--reflink", "--update", "-u", "--sparse=always", "-Z", "--context",
)  # fmt: skip

OTHER_PROGRAMS = (
    "rm", "touch", "sh", "python3", "tee", "dd", "curl", "bash", "perl", "ln", "chmod", "eval", "source", ".",
    "exec", "./tools/evil.sh", "tools/evil.sh", "/usr/bin/touch", "/bin/cat", "env", "xargs", "builtin", "command",
    "npm", "make", "node", "less", "vi", "truncate", "install", "gpg", "sudo", "kill", "read", "export", "declare",
    "let", "printf", "trap", "set", "shopt", "alias", "hash", "enable", "ulimit", "umask", "mapfile", "wait",
)  # fmt: skip

SHORT = ("echo", "true", "false", ":", "pwd", "whoami", "id", "uname", "nproc", "arch", "uptime", "free", "seq",
         "sleep", "basename", "dirname", "printenv", "env", "which", "type", "command", "hostname", "date", "cd",
         "test", "[", "printf")  # fmt: skip
"""Allowlisted programs that print facts; the others (readers, searchers, file commands) take paths."""


def _tables(handler: object, seen: set[int] | None = None) -> list[Table]:
    """The option tables a program's handler reads (from its closure and the module names it uses)."""
    seen = set() if seen is None else seen
    if id(handler) in seen:
        return []
    seen.add(id(handler))
    found: list[Table] = []
    for cell in getattr(handler, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, Table):
            found.append(value)
        elif callable(value) and hasattr(value, "__code__"):
            found += _tables(value, seen)
    names = getattr(getattr(handler, "__code__", None), "co_names", ())
    module = getattr(handler, "__globals__", {})
    found += [module[name] for name in names if isinstance(module.get(name), Table)]
    return found


TABLES: dict[str, list[Table]] = {name: _tables(program.handle) for name, program in programs.PROGRAMS.items()}
"""Each allowlisted program's own option tables."""

SLOW = {"tail": {"f", "F", "follow", "retry", "sleep-interval", "max-unchanged-stats"}}
"""Options left out of generation: they wait (for a file to grow) until the time limit, and show nothing more."""

GIT_TABLES: dict[str, Table] = {
    "log": git_commands._LOG, "show": git_commands._LOG, "diff": git_commands._DIFF, "whatchanged": git_commands._LOG,
    "rev-list": git_commands._LOG, "diff-tree": git_commands._DIFF, "diff-index": git_commands._DIFF,
    "diff-files": git_commands._DIFF, "shortlog": git_commands._SHORTLOG, "status": git_commands._STATUS,
    "ls-files": git_commands._LS_FILES, "ls-tree": git_commands._LS_TREE, "rev-parse": git_commands._REV_PARSE,
    "describe": git_commands._DESCRIBE, "branch": git_commands._BRANCH, "tag": git_commands._TAG,
    "grep": git_commands._GREP, "blame": git_commands._BLAME, "annotate": git_commands._BLAME,
    "cat-file": git_commands._CAT_FILE, "config": git_commands._CONFIG, "show-ref": git_commands._SHOW_REF,
    "for-each-ref": git_commands._FOR_EACH_REF, "merge-base": git_commands._MERGE_BASE,
    "name-rev": git_commands._NAME_REV, "count-objects": git_commands._COUNT_OBJECTS,
    "check-ignore": git_commands._CHECK_IGNORE, "check-attr": git_commands._CHECK_ATTR,
    "reflog": git_commands._LOG, "stash list": git_commands._LOG, "stash show": git_commands._STASH_SHOW,
    "remote": git_commands._REMOTE, "worktree list": git_commands._WORKTREE_LIST,
}  # fmt: skip
"""git's read-only subcommands with the tables agentui reads their options with."""

GIT_OTHER = (
    "commit -m x", "push", "fetch", "pull", "config user.name x", "stash", "tag evil", "branch evil", "checkout .",
    "reset --hard", "clean -fdx", "gc", "apply x", "archive -o x HEAD", "format-patch -1", "difftool", "init",
    "notes add -m x", "worktree add ../wt", "submodule update", "clone . ../copy", "add .", "rm README.md",
    "mv README.md x", "restore README.md", "switch -c x", "help log", "update-index --refresh", "maintenance run",
)  # fmt: skip

GIT_DANGEROUS = (
    "--output=../out", "--ext-diff", "--textconv", "-O../x", "--open-files-in-pager=sh", "-Osh", "--format=%G?",
    "--pretty=%GS", "--format=%GK", "--pretty=format:%GG", "--show-signature", "--contents=.env", "--no-index",
    "--untracked", "-p", "--exec=sh", "--upload-pack=sh", "--follow", "--notes", "--stdin", "--output-directory=..",
    "--format=%(describe)", "--format=%N", "--mailmap", "--use-mailmap", "--find-object=HEAD", "--submodule=diff",
    "--word-diff", "--color-words", "--cached", "--ignored", "--porcelain", "--verbose", "-v", "--all",
    "--ignore-revs-file=.env", "--exclude-from=.env", "-X.env", "--exclude-per-directory=.env", "--no-textconv",
)  # fmt: skip

GIT_GLOBAL = (
    "--no-pager", "-P", "--no-optional-locks", "-C src", "-C ..", "-C linkdir", "-C .git", "-c core.pager=sh",
    "--git-dir=.git", "--work-tree=..", "--exec-path=tools", "--literal-pathspecs", "-c diff.external=tools/evil.sh",
    "--glob-pathspecs", "-C $DIR", "-C ~", "--bare", "--namespace=x", "--config-env=core.pager=HOME",
)  # fmt: skip

GIT_OPERANDS = (
    "HEAD", "HEAD~1", "HEAD^", "main", "HEAD:README.md", "HEAD:.env", ":.env", "HEAD~1:notes.md", "--", "@{-1}",
    "--all", "stash@{0}", "HEAD..main", "HEAD~1..HEAD", ":/first", "HEAD:src", "README.md", "src", ".env",
    "../outside", ":(top)README.md", ":(exclude)src", "*.md", "'*.md'", "user.name", "core.pager", "origin",
)  # fmt: skip

GIT_FORMATS = ("%h", "%s", "%G?", "%GS", "%GK", "%GF", "%GP", "%GT", "%GG", "%(describe)", "%N", "%d", "%ae",
               "%C(red)%h", "%x00", "%(trailers)", "%H %an", "%B")  # fmt: skip

SED_SCRIPTS = (
    "p", "s/a/b/", "s/a/b/g", "1,3p", "/x/d", "y/ab/cd/", "$!N", "=", "1d", "s/KEY/k/gp", "1~2p", "/readme/,/two/p",
    "s/a/b/w /tmp/x", "w out.txt", "w /tmp/x", "W ../canary", "e touch ../canary", "1e id", "s/x/y/e", "r .env",
    "R .env", "1r /etc/passwd", "s/[/]/p;w x/", "a\\", "a text", "i\\\nx", "s/a/b/;w x", "F", "z", "Q", "v", "l 0",
    "0~3w x", "{p;w x\n}", "s/a/b/gw x", "s/a/b/mw x", "s/a/b/M2w x", "s/a/b/I", "s/.*/touch ..\\/canary/e",
    "s/a/b/ ; e", "s|a|b|w x", "s/a/\\n/", "1!G;h;$!d", "/x/{s/a/b/;p}", "#n", "#n\np", "s/a/b/;#w x", "1{w x\n}",
    ":a;N;ba", "b end; w x; :end", "T;w x", "s/\\(a\\)/\\1/", "\\%x%p", "\\%x%w x", "0,/x/p", "$w x", "s/a/b/3w x",
    "y/a/b/;w x", "s/a/b/ w x", "/x/I,+2p", "1,~3 w x", "e", "s/a/b/pe", "x;G", "s/a/b/\nw x",
)  # fmt: skip

AWK_PROGRAMS = (
    "{print}", "{print $1}", "NR==1", "BEGIN{print 1}", "END{print NR}", "/KEY/", "{print > \"x\"}",
    "{print | \"sh\"}", "BEGIN{system(\"touch ../canary\")}", "{printf \"x\" > \"/tmp/y\"}",
    "BEGIN{getline < \".env\"}", "{print $1 > $2}", "{print ARGV[1]}", "BEGIN{ARGV[1]=\".env\"}",
    "{ print 1>\"x\" }", "{print(1)>\"x\"}", "{print (1)>\"x\"}", "{ printf(\"%s\", $0) > \"out\" }",
    "{a=\"x\"; print > a}", "{print > \"/dev/stdout\"}", "BEGIN { \"date\" | getline }", "@include \"x\"",
    "{print $0 | \"cat 1>&2\"}", "BEGIN{PROCINFO[\"x\"]}", "BEGINFILE{print}", "{print ENVIRON[\"HOME\"]}",
    "{print \"a\",\n\"b\" > \"out.txt\"}", "{print \"a\",\n\"b\" | \"sh\"}", "{print 1 / 2 > \"x\"}",
    "{print /x/ > \"y\"}", "{x = 1 > 2; print x}", "{print $1, $2 > \"out\"}", "{print $1 >\"out\"}",
    "{print\n> \"out\"}", "{print 1 &&\n0 > \"x\"}", "{ if (1) print > \"x\" }", "{print > (\"x\")}",
    "{s=\"print\"; print s}", "{print length($0)}", "{print toupper($0)}", "{print substr($0,1,2)}",
    "{n=split($0,a); print n}", "{gsub(/a/,\"b\"); print}", "{print $NF}", "BEGIN{FS=\":\"} {print $1}",
    "{printf \"%s\\n\", $1}", "{print > \"/dev/stderr\"}", "{print $1 \"x\" > \"y\"}", "{print a[1] > \"x\"}",
    "{print 1,2 >> \"x\"}", "{print $1 |& \"sh\"}", "{ print $(1) > \"x\" }", "BEGIN { while ((\"cat .env\" | "
    "getline l) > 0) print l }", "function f(x) { print x > \"out\" } { f($0) }", "{ printf \"%s\" , $0 \n > \"o\" }",
    "{print\t>\"x\"}", "{print\\\n> \"x\"}", "{if(1) /\"/ ; print > \"out\" ; s = \"x\"}",
    "function f() { return /\"/ } { print > \"out\" ; q = \"x\" }", "{while(0) /\"/; print | \"sh\"; x=\"\"}",
    "{for(;;) /\"/; print > \"o\"; x=\"\"}", "{ x = y /\"/; print > \"o\"; z=\"\" }", "{ print (1) /\"/ > \"o\" }",
    "{ n++ /\"/; print > \"o\"; z=\"\" }", "{ $1 /\"/ ; print > \"o\" ; z=\"\" }", "{ else /\"/ }",
    "{ print $0 ~ /x/ > \"o\" }", "{ print (/x/) > \"o\" }",
    "{ print 1 ? \"a\" : \"b\" > \"o\" }", "{ print , > \"o\" }", "{ print \"a\" \"b\" > \"o\" }",
)  # fmt: skip

JQ_FILTERS = (
    ".", ".a", "keys", ".b[]", "length", "import \"x\" as y; .", "include \"x\"; .", "input_filename", "$__loc__",
    "env", "$ENV", "input", "inputs", "debug", "stderr", "halt_error", "@sh", "limit(1; inputs)", "$ENV.HOME",
    "getpath([\"a\"])", "[.[]]", "to_entries", "@base64d", "ltrimstr(\"x\")", "tojson", "splits(\"a\")", "$x",
    "modulemeta", "get_search_list", "input_line_number", "$__prog_args", "now", "@text", "error",
)  # fmt: skip

JQ_OPTIONS = ("-r", "-c", "-n", "-s", "-e", "-S", "-R", "-j", "-a", "-C", "-M", "--tab", "--indent 2", "--seq",
              "--arg x y", "--argjson x 1", "--slurpfile x .env", "--rawfile x .env", "--rawfile x data.json",
              "-L .", "-L /", "-f prog.jq", "--from-file prog.jq", "--args", "--jsonargs", "--stream",
              "--raw-output0", "--exit-status", "-rn", "-nr", "--unbuffered", "--ascii-output")  # fmt: skip

FIND_PARTS = (
    "-name '*.py'", "-type f", "-type d", "-maxdepth 1", "-print", "-print0", "-ls", "-printf '%p\\n'",
    "-newer README.md", "-samefile .env", "-iname '*.MD'", "-path './src/*'", "-prune", "-o", "!", "-not", "-empty",
    "-size +0",
    "-mtime -1", "-perm -u+x", "-exec cat {} ;", "-exec rm {} +", "-execdir sh -c x ;", "-ok rm {} ;", "-delete",
    "-fprint /tmp/x", "-fprint0 x", "-fprintf x %p", "-fls x", "-files0-from .env", "-L", "-follow", "-xtype l",
    "-regex '.*'", "-lname '*'", "-readable", "-quit", "-newerXY x", "-anewer .env", "-printf %s", "-D exec",
    "-O3", "-H", "-depth", "-mindepth 1", "-user root", "-links 2", "-inum 1", "-context x", "\\( -name x \\)",
)  # fmt: skip

TEST_EXPRESSIONS = (
    "-f README.md", "-d src", "-e .env", "-r ~/.ssh/id_rsa", "-n x", "-z ''", "a = a", "1 -eq 1",
    "README.md -nt notes.md", "-v HOME", "-v 'a[$(touch ../canary)]'", "-R x", "a \\< b", "a '>' b", "! -f x",
    "-f x -a -d src", "-s .env",
    "-L linkdir", "-h srclink", "( -f x )", "\\( -f x \\)", "-o", "-t 1", "x", "'' -o x", "-f $DOTENV", "$UP = x",
)  # fmt: skip

REDIRECTS = (
    "> out.txt", ">> out.txt", "< README.md", "2>&1", ">/dev/null", "2>/dev/null", "&> out.txt", "&>/dev/null",
    "> ../canary", ">| out.txt", "<> out.txt", "> .git/config", "> /dev/tcp/127.0.0.1/9", "< .env", "< ~/.ssh/id_rsa",
    ">&2", "1>&-", "3< README.md", "> $SPACED", '> "$SPACED"', "> $GLOBBY", "> /dev/stdout", ">&out.txt", "< /dev/null",
    "> ~/x", "> linkdir/x", "< src/innocent.txt", "2> err.txt", "> CLAUDE.md", "> .envrc", ">> ~/.bashrc", "< $DOTENV",
    "> $EMPTY", "<&0", ">& /dev/null", "0<README.md", "1>out.txt", "9>x", ">/dev/tty", "< /dev/tcp/127.0.0.1/9",
)  # fmt: skip

_CONFIGS = (
    "printf '[diff]\\n\\texternal = %s/tools/evil.sh\\n' \"$PWD\" > {d}/config",
    "printf '[core]\\n\\tfsmonitor = %s/tools/evil.sh\\n\\tbare = false\\n' \"$PWD\" > {d}/config",
    "echo ../.git > {d}/commondir",
)  # fmt: skip
SCENARIOS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # (first steps, in the order they make sense; what then uses what they made)
    "link": (
        ("cp -P src/up up", "cp -r src/up up", "mv src/up up", "cp -P srclink sl", "cp -P linkdir ld",
         "cp -P dangling dg", "cd up"),
        ("cat up/outside/secret.txt", "touch up/canary", "cat up/project/.env", "sed -i s/a/b/ up/outside/secret.txt",
         "cp README.md up/x", "ls up/", "cat ld/secret.txt", "echo x > dg", "cat sl/innocent.txt", "cat secret.txt",
         "grep -r KEY up/project", "find up -name secret.txt", "ls -R up", "cat outside/secret.txt", "cat ../.env"),
    ),
    "repo": (
        ("mkdir -p {d}/objects {d}/refs", "cp -r .git/objects {d}/", "git rev-parse HEAD > {d}/HEAD",
         "echo 'ref: refs/heads/main' > {d}/HEAD", *_CONFIGS),
        ("git -C {d} diff HEAD~1 HEAD", "git -C {d} log -p -1", "git -C {d} status", "cd {d} && git diff HEAD~1 HEAD",
         "cd {d} && git log -p -1", "git -C {d} diff --no-index ../README.md ../notes.md",
         'git -C {d} diff --no-index "$PWD"/README.md "$PWD"/notes.md',
         "cd {d} && git diff --no-index ../README.md ../notes.md"),
    ),
    "cd": (
        ("mkdir -p {d}", "cp README.md {d}/", "touch {d}/x", "mkdir -p {d}/.git", "cd {d}"),
        ("cat ../.env", "git status", "cat x", "ls", "cat README.md", "cat ../../outside/secret.txt"),
    ),
}  # fmt: skip
"""Commands whose first steps change what the later ones see (a link copied to where it leads out of the project,
a git repository made, a directory made and entered): the check happens before any of it runs."""

SEPARATORS = ("; ", " && ", " || ", "\n", ";", " & ", " ;\n", "\n\n", " # c\n")
PIPES = (" | ", " |& ", "|")

_SPECIAL = set(" \t\n'\"\\$`*?[]{}()<>|&;#~!=")


def needs_quoting(value: str) -> bool:
    return value == "" or any(c in _SPECIAL for c in value)


# Words
#
# Every strategy takes `spice` (0 to 4, drawn once per command): how often an edge (an escaping path, a glob, a
# substitution, a dangerous option, a redirection) replaces a plain choice. Plain commands are the ones agentui lets
# run, so most commands are mostly plain with an edge or two; hypothesis shrinks a failure towards spice 0.


def edgy(draw: Draw, spice: int) -> bool:
    return bool(draw(st.integers(0, 7)) < spice)


@st.composite
def quoted(draw: Draw, value: str) -> str:
    """`value` as a word of the shell: quoted in one of the ways bash allows (or several, joined)."""
    style = draw(st.sampled_from(["plain", "single", "double", "backslash", "partial"]))
    if style == "plain" and not needs_quoting(value):
        return value
    if style == "partial" and len(value) > 1:
        cut = draw(st.integers(1, len(value) - 1))
        return str(draw(quoted(value[:cut]))) + str(draw(quoted(value[cut:])))
    if style == "double":
        return '"' + re.sub(r'([$`"\\])', r"\\\1", value) + '"'
    if style == "backslash" and "\n" not in value and value:
        return "".join("\\" + c if c in _SPECIAL else c for c in value)
    return "'" + value.replace("'", "'\\''") + "'"


@st.composite
def path_word(draw: Draw, spice: int) -> str:
    """A file operand: mostly the project's own files (quoted some way), else a path that escapes, a glob, or an
    expansion agentui does not follow."""
    if not edgy(draw, spice):
        return str(draw(st.sampled_from(PROJECT_FILES).flatmap(quoted)))
    return str(draw(st.sampled_from([ESCAPES, ESCAPES, GLOBS, CONSTRUCTS]).flatmap(st.sampled_from)))


@st.composite
def text_word(draw: Draw, spice: int) -> str:
    if not edgy(draw, spice):
        return str(draw(st.sampled_from(TEXT).flatmap(quoted)))
    return str(draw(st.sampled_from([ESCAPES, CONSTRUCTS, GLOBS]).flatmap(st.sampled_from)))


@st.composite
def value_word(draw: Draw, kind: str, spice: int) -> str:
    if kind == "path" or edgy(draw, spice):
        return str(draw(path_word(spice)))
    return str(draw(st.sampled_from(VALUES).flatmap(quoted)))


@st.composite
def option(draw: Draw, table: Table, spice: int) -> list[str]:
    """One option from a program's own table, written as getopt would read it (bundled, attached, separate)."""
    slow = set().union(*(SLOW[name] for name in SLOW if table in TABLES.get(name, [])))
    shorts = sorted(set(table.short) - slow)
    longs = sorted(set(table.long) - slow)
    use_long = bool(longs) and (not shorts or draw(st.booleans()))
    if use_long:
        name = draw(st.sampled_from(longs))
        opt = table.long[name]
        if edgy(draw, spice) and draw(st.booleans()) and len(name) > 3:
            name = name[: draw(st.integers(2, len(name) - 1))]  # (an abbreviation: getopt takes it, agentui refuses)
        if opt.takes == "no":
            return [f"--{name}"]
        value = draw(value_word(opt.kind, spice))
        if opt.takes == "optional":
            return [f"--{name}={value}"] if draw(st.booleans()) else [f"--{name}"]
        return [f"--{name}={value}"] if draw(st.booleans()) else [f"--{name}", value]
    if not shorts:
        return []
    letters = draw(st.lists(st.sampled_from(shorts), min_size=1, max_size=3))
    flags = [x for x in letters[:-1] if table.short[x].takes == "no"] if table.bundles else []
    last = letters[-1]
    opt = table.short[last]
    word = "-" + "".join(flags) + last
    if opt.takes == "no":
        return [word]
    value = draw(value_word(opt.kind, spice))
    if opt.takes == "optional" or draw(st.booleans()):
        return [word + value]
    return [word, value]


@st.composite
def generic_arguments(draw: Draw, name: str, spice: int, *, paths: bool = True) -> list[str]:
    tables = TABLES.get(name) or []
    words: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        if edgy(draw, spice) and draw(st.booleans()):
            words.append(draw(st.sampled_from(DANGEROUS_OPTIONS)))
        elif tables and draw(st.booleans()):
            words += draw(option(draw(st.sampled_from(tables)), spice))
        elif paths:
            words.append(draw(path_word(spice)))
        else:
            words.append(draw(text_word(spice)))
    return words


# Programs with a small language of their own


@st.composite
def sed_arguments(draw: Draw, spice: int) -> list[str]:
    pool = SED_SCRIPTS if edgy(draw, spice + 2) else SED_SCRIPTS[:12]
    scripts = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
    script = draw(st.sampled_from([";", "\n", "; "])).join(scripts)
    words = []
    for _ in range(draw(st.integers(0, 1))):
        words += draw(option(TABLES["sed"][0], spice))
    if draw(st.booleans()):
        words += ["-e", draw(quoted(script))]
    else:
        words.append(draw(quoted(script)))
    words += draw(st.lists(path_word(spice), max_size=2))
    return words


@st.composite
def awk_arguments(draw: Draw, spice: int) -> list[str]:
    words = []
    if edgy(draw, spice):
        words += draw(st.sampled_from([["-F", ":"], ["-F:"], ["-v", "x=1"], ["-vARGC=3"], ["-f", "prog.awk"],
                                       ["--"], ["-v", "ARGV=1"], ["-W", "exec"], ["--sandbox"]]))  # fmt: skip
    pool = AWK_PROGRAMS if edgy(draw, spice + 2) else AWK_PROGRAMS[:6]
    words.append(draw(quoted(draw(st.sampled_from(pool)))))
    words += draw(st.lists(path_word(spice), max_size=2))
    if edgy(draw, spice):
        words.append(draw(st.sampled_from(["FS=:", "x=1", "ARGV=.env", "./x=y", "ARGC=5"])))
    return words


@st.composite
def jq_arguments(draw: Draw, spice: int) -> list[str]:
    words: list[str] = []
    for _ in range(draw(st.integers(0, 1))):
        words += draw(st.sampled_from(JQ_OPTIONS if edgy(draw, spice) else JQ_OPTIONS[:6])).split(" ")
    words.append(draw(quoted(draw(st.sampled_from(JQ_FILTERS if edgy(draw, spice + 1) else JQ_FILTERS[:5])))))
    words += draw(st.lists(path_word(spice), max_size=2))
    return words


@st.composite
def find_arguments(draw: Draw, spice: int) -> list[str]:
    words: list[str] = []
    if edgy(draw, spice) and draw(st.booleans()):
        words.append(draw(st.sampled_from(["-L", "-H", "-P", "-O2", "-D", "help"])))
    words += draw(st.lists(st.one_of(st.sampled_from([".", "src", "tools", "srclink"]), path_word(spice)), max_size=2))
    for part in draw(st.lists(st.sampled_from(FIND_PARTS if edgy(draw, spice + 1) else FIND_PARTS[:10]), max_size=3)):
        words += part.split(" ")
    return words


@st.composite
def git_arguments(draw: Draw, spice: int) -> list[str]:
    words: list[str] = []
    if edgy(draw, spice) and draw(st.booleans()):
        words += draw(st.sampled_from(GIT_GLOBAL)).split(" ")
    if edgy(draw, spice) and draw(st.booleans()):
        return [*words, *draw(st.sampled_from(GIT_OTHER)).split(" ")]
    sub = draw(st.sampled_from(sorted(GIT_TABLES)))
    words += sub.split(" ")
    table = GIT_TABLES[sub]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["option", "operand", "format", "danger"]))
        if kind == "danger" and edgy(draw, spice + 1):
            words.append(draw(st.sampled_from(GIT_DANGEROUS)))
        elif kind == "format":
            flag = draw(st.sampled_from(["--format=", "--pretty=", "--pretty=format:", "--format=tformat:"]))
            words.append(draw(quoted(flag + draw(st.sampled_from(GIT_FORMATS)))))
        elif kind == "operand":
            words.append(draw(st.sampled_from(GIT_OPERANDS) if draw(st.booleans()) else path_word(spice)))
        else:
            words += draw(option(table, spice))
    return words


@st.composite
def test_arguments(draw: Draw, bracket: bool, spice: int) -> list[str]:
    pool = TEST_EXPRESSIONS if edgy(draw, spice + 1) else TEST_EXPRESSIONS[:8]
    words = draw(st.sampled_from(pool)).split(" ")
    if edgy(draw, spice):
        words = [*words, draw(st.sampled_from(["-a", "-o"])), *draw(st.sampled_from(TEST_EXPRESSIONS)).split(" ")]
    return [*words, "]"] if bracket and not (edgy(draw, spice) and draw(st.booleans())) else words


@st.composite
def date_arguments(draw: Draw, spice: int) -> list[str]:
    forms = [[], ["+%s"], ["+%Y-%m-%d"], ["-d", "@0"], ["-u"], ["-R"], ["-I"], ["--date=@0", "+%s"],
             ["-f", "README.md"], ["-r", "README.md"], ["-f", ".env"], ["-r", ".env"], ["-s", "2020-01-01"],
             ["--set=x"], ["010100002020"], ["-f", "/etc/passwd"], ["--file=~/.ssh/id_rsa"],
             ["-d", "$(id)"]]  # fmt: skip
    return list(draw(st.sampled_from(forms if edgy(draw, spice + 1) else forms[:10])))


@st.composite
def xxd_arguments(draw: Draw, spice: int) -> list[str]:
    flags = ["-p", "-c 8", "-l 16", "-s 1", "-u", "-b", "-e", "-a", "-i", "-o 1", "-n x", "-R always", "-C", "-d",
             "-ps", "-seek 1", "-r"]  # fmt: skip
    words = draw(st.lists(st.sampled_from(flags), max_size=2))
    out = [w for part in words for w in part.split(" ")]
    return out + draw(st.lists(path_word(spice), max_size=2))


@st.composite
def cd_arguments(draw: Draw, spice: int) -> list[str]:
    forms = [["src"], ["tools"], ["src/.."], [".."], ["linkdir"], ["~"], [], ["-"], ["$UP"], ["srclink/.."],
             ["/tmp"], [".git"], ["-P", "srclink"], ["$DIR"], ["new dir"], ["'new dir'"], ["-L", ".."], ["~+"],
             ["$HOME"], ["/"], ["src", "tools"], ["srclink"], [".git/hooks"]]  # fmt: skip
    return list(draw(st.sampled_from(forms if edgy(draw, spice + 1) else forms[:3])))


# Simple commands


@st.composite
def simple_command(draw: Draw, spice: int, depth: int = 0) -> str:
    pick = draw(st.sampled_from(["allowlisted", "allowlisted", "allowlisted", "git", "other"]))
    if pick == "other" and not edgy(draw, spice + 1):
        pick = "allowlisted"
    if pick == "git":
        name, words = "git", draw(git_arguments(spice))
    elif pick == "other":
        name = draw(st.sampled_from(OTHER_PROGRAMS))
        words = draw(generic_arguments("cat", spice))
    else:
        name = draw(st.sampled_from(sorted(programs.PROGRAMS)))
        words = draw(arguments_for(name, depth, spice))
    if edgy(draw, spice) and not draw(st.integers(0, 5)):
        name = draw(quoted(name))
    prefix = ""
    if edgy(draw, spice) and not draw(st.integers(0, 5)):
        prefix = draw(st.sampled_from(["X=1 ", "PATH=. ", "HOME=.. ", "LC_ALL=C ", "GIT_DIR=.. ", "IFS=/ "]))
    parts = [name, *words]
    while edgy(draw, spice) and draw(st.booleans()):
        harmless = ["2>/dev/null", ">/dev/null", "2>&1", "< README.md", "> out.txt", ">> out.txt"]
        if draw(st.booleans()):
            redirect = draw(st.sampled_from(["<", "0<", "3<", ">", ">>", "2>", "&>", "<>"])) + draw(path_word(spice))
        else:
            redirect = draw(st.sampled_from(REDIRECTS if edgy(draw, spice) else harmless))
        parts.insert(draw(st.integers(1, len(parts))), redirect)
    return prefix + " ".join(parts)


@st.composite
def arguments_for(draw: Draw, name: str, depth: int, spice: int) -> list[str]:
    special: dict[str, Callable[[int], st.SearchStrategy[list[str]]]] = {
        "sed": sed_arguments, "awk": awk_arguments, "gawk": awk_arguments, "mawk": awk_arguments,
        "jq": jq_arguments, "find": find_arguments, "git": git_arguments, "date": date_arguments,
        "xxd": xxd_arguments, "cd": cd_arguments,
    }  # fmt: skip
    if name in special:
        return list(draw(special[name](spice)))
    if name in ("test", "["):
        return list(draw(test_arguments(name == "[", spice)))
    if name in ("timeout", "nice", "nohup") and depth < 1:
        head = {"timeout": ["5"], "nice": draw(st.sampled_from([[], ["-n", "5"]])), "nohup": []}[name]
        return [*head, draw(simple_command(spice, depth + 1))]
    if name in ("echo", "printf", ":", "true", "false"):
        return list(draw(st.lists(text_word(spice), max_size=3)))
    if name == "sleep":
        return [draw(st.sampled_from(["0", "0.01", "x"]))]
    if name == "seq":
        return list(draw(st.sampled_from([["3"], ["1", "3"], ["-s,", "3"], ["-f", "%s", "2"], ["-w", "5"]])))
    if name in ("head", "tail") and draw(st.booleans()):
        return [draw(st.sampled_from(["-5", "-n1", "-c3", "-n", "+2"])), *draw(st.lists(path_word(spice), max_size=2))]
    if name in programs.PROGRAMS and programs.PROGRAMS[name].handle is programs.PROGRAMS["python3"].handle:
        forms = [["--version"], ["-V"], ["version"], ["-version"], ["-c", "'print(1)'"], ["tools/evil.sh"],
                 ["-e", "1"], []]  # fmt: skip
        return list(draw(st.sampled_from(forms)))
    return list(draw(generic_arguments(name, spice, paths=name not in SHORT)))


# Commands


@st.composite
def find_xargs(draw: Draw, spice: int) -> str:
    """`find ... | xargs CMD`: the one place xargs is understood."""
    null = draw(st.booleans())
    find = "find " + " ".join(draw(find_arguments(spice))) + (" -print0" if null else "")
    extra = draw(st.lists(st.sampled_from(["-n1", "-r", "-t", "-P2"]), max_size=1))
    xargs = ["xargs", *(["-0"] if null else []), *extra]
    inner = draw(st.sampled_from(["cat", "wc -l", "grep -l KEY", "head -1", "ls -l", "stat", "file", "md5sum",
                                  "sed -n 1p", "rm", "sh -c", "cp -t /tmp", "touch", "grep -r x"]))  # fmt: skip
    return f"{find} | {' '.join(xargs)} {inner}"


@st.composite
def prepared(draw: Draw, spice: int) -> str:
    """First steps that change the files, then one step that uses what they made (or any command). A link
    scenario copies one or two links; the others take their steps in order, each most of the time."""
    name = draw(st.sampled_from(sorted(SCENARIOS)))
    steps, afterwards = SCENARIOS[name]
    directory = draw(st.sampled_from(["d", "tools", "src"]))
    if name == "link":
        chosen = [draw(st.sampled_from(steps))] if draw(st.integers(0, 2)) else [steps[0]]
    else:
        core = [step for step in steps if step not in _CONFIGS]
        chosen = [step for step in core if draw(st.integers(0, 7))] or core[:1]
        if name == "repo":
            chosen.append(draw(st.sampled_from(_CONFIGS)))
    if draw(st.integers(0, 3)):
        last = draw(st.sampled_from(afterwards)).format(d=directory)
    else:
        last = draw(simple_command(spice))
    return " && ".join([*(step.format(d=directory) for step in chosen), last])


@st.composite
def pipeline(draw: Draw, spice: int) -> str:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return str(draw(find_xargs(spice)))
    if kind <= 2:
        return str(draw(prepared(spice)))
    commands = draw(st.lists(simple_command(spice), min_size=1, max_size=2))
    joined = commands[0]
    for command in commands[1:]:
        joined += draw(st.sampled_from(PIPES if edgy(draw, spice) else PIPES[:1])) + command
    return str(joined)


@st.composite
def bash_command(draw: Draw) -> str:
    """A whole command, as the model would write it for the Bash tool."""
    spice = draw(st.integers(0, 4))
    pipelines = draw(st.lists(pipeline(spice), min_size=1, max_size=3))
    text = pipelines[0]
    for piece in pipelines[1:]:
        text += draw(st.sampled_from(SEPARATORS if edgy(draw, spice) else SEPARATORS[:3])) + piece
    if edgy(draw, spice) and not draw(st.integers(0, 3)):
        text += draw(st.sampled_from([" &", ";", " # comment", "\n", "\r"]))
    return str(text)


def commands_excluding(patterns: Sequence[str]) -> st.SearchStrategy[str]:
    """Commands, without those matching any of the regular expressions (classes already found)."""
    compiled = [re.compile(p, re.DOTALL) for p in patterns]
    return bash_command().filter(lambda text: not any(p.search(text) for p in compiled))
