"""A scratch project full of traps, a command run in it under strace the way agentui's Bash tool runs it, and a
judge of what strace saw: the programs executed, the files written and the files read.

The world (one directory, reset from a pristine copy after every command that ran):

    live/project     the project: a git repository with commits (one of them signed, so showing signatures runs
                     gpg), README.md, notes.md, data.json, src/*.py, a denied .env and a hard link to it in src/,
                     a link to a directory outside, tools/evil.sh (which leaves the canary), and file names that
                     are traps for a shell (spaces, quotes, a newline, `*`, `-rf`, `--output=x`)
    live/outside     a directory outside the project with secret.txt
    live/home        $HOME: .ssh/id_rsa (denied), .gitconfig (the person's own git configuration), notes.txt
    live/canary      must never exist
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentui.core.safety.permissions.programs import PROGRAMS
from agentui.core.safety.permissions.protected import protected_reason
from agentui.core.workspace import is_within
from tests.support.strace_log import NAME_ONLY, Event, Trace, read_trace, real_path, strace_argv

TIMEOUT = 5.0
"""Seconds a command may run (every generated command is quick; one that is not is stopped and judged as is)."""

VARIABLES = {
    "FILE": "README.md",
    "DIR": "src",
    "SPACED": "a b.txt",
    "GLOBBY": "*.md",
    "UP": "../..",
    "DOTENV": ".env",
    "DASHED": "-rf",
    "EMPTY": "",
}
"""The variables the commands run with besides PATH, HOME and LANG (and what they expand to)."""

WEIRD_NAMES = ("a b.txt", "it's.txt", 'q"uote.txt', "-rf", "--output=x", "*", "new\nline.txt", "$HOME.txt")
"""File names in the project that a careless reading of a command gets wrong."""


@dataclass(frozen=True)
class World:
    base: Path

    @property
    def live(self) -> Path:
        return self.base / "live"

    @property
    def pristine(self) -> Path:
        return self.base / "pristine"

    @property
    def project(self) -> Path:
        return self.live / "project"

    @property
    def home(self) -> Path:
        return self.live / "home"

    @property
    def outside(self) -> Path:
        return self.live / "outside"

    @property
    def canary(self) -> Path:
        return self.live / "canary"

    @property
    def tools(self) -> Path:
        """Links to programs this test adds to PATH (ripgrep, from the test extras), outside the project."""
        return self.base / "bin"

    @property
    def log(self) -> Path:
        return self.base / "trace.log"

    @property
    def cwd_file(self) -> Path:
        """Where the Bash tool's EXIT trap records the final directory (agentui's scratch, outside the project)."""
        return self.base / "scratch" / "cwd"

    def environ(self) -> dict[str, str]:
        """Exactly the environment the command runs with (and the engine expands its words from)."""
        path = f"/usr/local/bin:/usr/bin:/bin:{self.tools}"
        return {
            "PATH": path,
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "AGENTUI": "1",  # (what agentui's child_environment adds)
            "GIT_TERMINAL_PROMPT": "0",
            **VARIABLES,
        }

    def reset(self) -> None:
        """The live copy made anew from the pristine one (`cp -a` keeps the hard link and the links as links)."""
        if self.live.exists():
            _remove(self.live)
        subprocess.run(["cp", "-a", str(self.pristine), str(self.live)], check=True)
        self.cwd_file.parent.mkdir(parents=True, exist_ok=True)
        self.cwd_file.unlink(missing_ok=True)

    def denied(self) -> tuple[set[Path], set[tuple[int, int]]]:
        """The files deny rules cover in the live copy: by real path, and by inode (a hard link is the same file)."""
        paths = {self.project / ".env", self.project / "src" / "innocent.txt", self.home / ".ssh" / "id_rsa"}
        inodes = {(s.st_dev, s.st_ino) for s in (os.stat(p) for p in paths if os.path.exists(p))}
        return {Path(os.path.realpath(p)) for p in paths}, inodes


def _remove(path: Path) -> None:
    """Remove a tree whatever a command did to its permissions."""
    try:
        shutil.rmtree(path)
    except OSError:
        subprocess.run(["chmod", "-R", "u+rwX", str(path)], check=False)
        shutil.rmtree(path)


def _git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    base = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        ["git", "-c", "user.name=P", "-c", "user.email=p@example.com", *args],
        cwd=cwd,
        env={**base, **(env or {})},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def build_world(base: Path) -> World:
    """The pristine world under `base`, and a live copy of it."""
    world = World(base)
    root = world.pristine / "project"
    (root / "src").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "README.md").write_text("# readme\nline two\nKEY in readme\n")
    (root / "notes.md").write_text("notes\n")
    (root / "data.json").write_text('{"a": 1, "b": [1, 2]}\n')
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / "src" / "util.py").write_text("def f():\n    return 2\n")
    (root / "big.txt").write_text("".join(f"{n * 7919 % 20011}\n" for n in range(20000)))  # (sort spills it)
    (root / ".gitignore").write_text(".env\n")
    evil = root / "tools" / "evil.sh"
    evil.write_text("#!/bin/sh\ntouch ../canary\n")
    evil.chmod(0o755)
    for name in WEIRD_NAMES:
        (root / name).write_text(f"{name}\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")
    (root / "notes.md").write_text("notes\nmore notes\n")
    _git(root, "commit", "-q", "-am", "second")
    _signed_commit(root)
    (root / "README.md").write_text("# readme\nline two\nKEY in readme\nuncommitted\n")  # (a diff to show)
    # The traps outside git's view: the denied file, a hard link to it, links out of the project.
    (root / ".env").write_text("KEY=secret\n")
    os.link(root / ".env", root / "src" / "innocent.txt")
    outside = world.pristine / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret outside\n")
    os.symlink("../outside", root / "linkdir")
    os.symlink("src", root / "srclink")
    os.symlink("..", root / "src" / "up")  # (inside the project, until it is copied one level up)
    os.symlink("../outside/made.txt", root / "dangling")
    home = world.pristine / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Person\n\temail = person@example.com\n")
    (home / "notes.txt").write_text("the person's own notes\n")
    world.tools.mkdir()
    rg = shutil.which("rg")
    if rg is not None:
        os.symlink(rg, world.tools / "rg")
    world.reset()
    return world


def _signed_commit(root: Path) -> None:
    """HEAD becomes a commit with a (bogus) gpgsig header: anything that shows or checks signatures runs gpg."""
    raw = _git(root, "cat-file", "commit", "HEAD")
    header, _, message = raw.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    text = f"{header}\n{signature}\n\n{message}"
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    _git(root, "update-ref", "HEAD", done.stdout.strip())


# Running


@dataclass
class Run:
    trace: Trace
    output: str
    timed_out: bool
    canary: bool
    """The canary exists after the command."""


def strace_problem() -> str | None:
    """Why strace cannot trace a command here (None if it can)."""
    if shutil.which("strace") is None:
        return "strace is not installed (.ci/run installs it with apt)"
    done = subprocess.run(
        ["strace", "-f", "-qq", "-o", "/dev/null", "true"], capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        return f"strace cannot trace a command on this machine (is ptrace permitted?): {done.stderr.strip()}"
    return None


def run_traced(world: World, command: str, environ: Mapping[str, str], cwd: Path | None = None) -> Run:
    """`command` run as agentui's Bash tool runs it (`bash -c` with an EXIT trap recording the final directory,
    the environment given, stdin /dev/null, stdout and stderr to one pipe, its own session), under strace."""
    bash = shutil.which("bash", path=environ.get("PATH")) or "/bin/bash"
    script = f"trap 'pwd -P >| {shlex.quote(str(world.cwd_file))}' EXIT\n{command}\n"
    world.log.unlink(missing_ok=True)
    process = subprocess.Popen(
        [*strace_argv(world.log), bash, "-c", script],
        cwd=cwd or world.project,
        env=dict(environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
    trace = read_trace(world.log, cwd or world.project)
    return Run(trace, out.decode(errors="replace"), timed_out, world.canary.exists())


# Judging


_LIBRARIES = ("/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/", "/lib/aarch64-linux-gnu/",
              "/usr/lib/aarch64-linux-gnu/", "/lib64/", "/usr/lib64/")  # fmt: skip
_USERDB = "systemd's NSS module looks a (validated) user name up as NAME.user there (id USER)"
_PUBLIC_PROC = {f"/proc/{name}" for name in ("cpuinfo", "meminfo", "version", "loadavg", "uptime", "filesystems")}
_PUBLIC_ETC = {f"/etc/{name}" for name in ("os-release", "lsb-release", "debian_version", "hosts", "timezone", "issue")}
SYSTEM_READS: dict[str, str] = {
    # What a program reads on its own, whatever its arguments, each seen in a trace and allowed for a reason. A path
    # ending in "/" covers what is below it. (Anything else outside the project is a finding: the judge does not
    # allow /usr or /etc wholesale, so `cat /usr/share/...` would be caught.)
    "/etc/ld.so.cache": "the dynamic linker's index of shared libraries",
    "/etc/ld.so.preload": "the dynamic linker's preload list (present on some machines; another agentui's sandbox "
    "keeps an empty, read-only stand-in there while its commands run)",
    **dict.fromkeys(_LIBRARIES, "shared libraries (and glibc's gconv modules)"),
    "/usr/lib/locale/": "locale data (LANG=C.UTF-8)",
    "/usr/share/locale/": "message catalogues for the locale",
    "/etc/locale.alias": "glibc's locale aliases (/usr/share/locale/locale.alias leads here)",
    "/etc/gitconfig": "git's system configuration (the machine's, not the project's)",
    "/etc/gitattributes": "git's system attributes (the machine's, not the project's)",
    "/usr/share/zoneinfo/": "the time zone, for dates (date, ls -l, stat, git log); /etc/localtime leads here",
    "/etc/passwd": "user names for owners (ls -l, id, whoami) and bash's ~user; not secret",
    "/etc/group": "group names for owners (ls -l, id)",
    "/etc/nsswitch.conf": "how glibc looks up users and groups",
    "/run/systemd/userdb/": "glibc's NSS asks systemd's user database about a user name (id USER)",
    "/etc/userdb/": _USERDB,
    "/run/userdb/": _USERDB,
    "/run/host/userdb/": _USERDB,
    "/usr/local/lib/userdb/": _USERDB,
    "/usr/lib/userdb/": _USERDB,
    "/etc/magic": "file(1)'s local magic database",
    "/etc/magic.mgc": "file(1)'s local compiled magic database",
    "/usr/lib/file/": "file(1)'s magic database (Debian)",
    "/usr/share/misc/magic.mgc": "file(1)'s magic database (elsewhere)",
    "/proc/filesystems": "libselinux checks whether selinuxfs is mounted (ls, stat, mkdir, cp, mv, ...)",
    "/proc/meminfo": "free",
    "/proc/uptime": "uptime",
    "/proc/loadavg": "uptime",
    "/run/utmp": "uptime: how many people are logged in (/var/run/utmp leads here)",
    "/proc/sys/kernel/": "id's ngroups_max, uname, hostname",
    "/proc/sys/vm/overcommit_memory": "glibc's malloc, in a new thread (git grep's)",
    "/sys/devices/system/cpu/": "nproc, and ripgrep's thread count: the CPUs online",
    "/sys/fs/cgroup/": "nproc and ripgrep: the CPU quota of the container",
    "/etc/hosts": "hostname -f / -i resolve the machine's own name",
    "/etc/host.conf": "hostname resolution",
    "/etc/resolv.conf": "hostname resolution",
    "/dev/null": "the empty file",
    "/dev/urandom": "random seeds (git's temporary names)",
}
"""Files outside the project any allowed program may open for reading."""

PROGRAM_READS: dict[str, tuple[str, str]] = {
    "ps": (
        r"/proc(/\d+(/(stat|status|cmdline|ctty|environ|statm|wchan|cgroup|task(/\d+(/.*)?)?))?)?|/proc/(stat|uptime|"
        r"meminfo|cpuinfo|tty/drivers|sys/kernel/.*)|/dev/tty|(/usr)?/lib/.*libnuma\.so|/sys/devices/system/node(/.*)?",
        "ps reads every process's /proc entry (their environ only to count it; it never shows one, as the columns "
        "agentui lets it show are listed) and looks for libnuma and the NUMA nodes to show them",
    ),
}
"""Files outside the project one program reads on its own, as a regular expression, with the reason."""

_OWN_PROC = ("maps", "cgroup", "mountinfo", "mounts", "status", "stat", "limits", "auxv", "fd/")
"""What a process reads of its own /proc entry: grep and ripgrep their memory map, ripgrep its cgroup (for its
thread count), df the mounts, bash its descriptors."""

HOME_READS: dict[str, str] = {
    ".gitconfig": "the person's own git configuration",
    ".config/git/": "the person's own git configuration, attributes and ignore file (XDG)",
    ".jq": "jq loads the person's ~/.jq at every start",
    ".magic": "file(1) reads the person's own magic file",
    ".magic.mgc": "file(1) reads the person's own compiled magic file",
}
"""Files in $HOME any allowed program may open for reading: the person's own configuration of those programs."""


@dataclass
class Verdicts:
    """What the judge found, one sentence each."""

    problems: list[str] = field(default_factory=list)

    def add(self, event: Event, why: str) -> None:
        who = os.path.basename(event.program) or "bash"
        self.problems.append(f"{why}: {who} (pid {event.pid}) {event.line}")


def allowed_programs(environ: Mapping[str, str]) -> set[Path]:
    """The real paths of bash and of every program in the allowlist, found on the command's PATH."""
    found = {Path(os.path.realpath(shutil.which("bash", path=environ.get("PATH")) or "/bin/bash"))}
    for name in PROGRAMS:
        where = shutil.which(name, path=environ.get("PATH"))
        if where is not None:
            found.add(Path(os.path.realpath(where)))
    return found


def git_exec_path() -> Path:
    return Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip())


@dataclass
class Judge:
    """Made before the command runs (the denied files are known by inode then, whatever the command does to
    them), used after."""

    world: World
    mode: str
    environ: Mapping[str, str]
    trusted: set[Path] = field(default_factory=set)
    """Programs an allow rule lets run whatever they do (`Bash(npm test:*)`): their processes are not judged."""

    def __post_init__(self) -> None:
        self.programs = allowed_programs(self.environ)
        self.git = Path(os.path.realpath(shutil.which("git", path=self.environ.get("PATH")) or "/usr/bin/git"))
        self.git_helpers = git_exec_path()
        self.project = Path(os.path.realpath(self.world.project))
        self.home = Path(os.path.realpath(self.world.home))
        self.denied_paths, self.denied_inodes = self.world.denied()
        self.pids: set[int] = set()

    def judge(self, run: Run) -> list[str]:
        found = Verdicts()
        if run.canary:
            found.problems.append(f"the canary {self.world.canary} exists: something ran tools/evil.sh")
        git_ran = any(e.ok and self._real(e.path) == self.git for e in run.trace.execs())
        executed = {self._real(e.path) for e in run.trace.execs() if e.ok}
        self.pids = {e.pid for e in run.trace.events}
        for event in run.trace.events:
            if event.program and self._real(event.program) in self.trusted:
                continue
            if event.kind == "exec":
                self._exec(event, git_ran, found)
                continue
            if event.kind in ("write", "change"):
                self._write(event, found)
            if event.syscall.startswith("open") and event.readable:
                self._read(event, executed, found)
        return found.problems

    @staticmethod
    def _real(path: str) -> Path:
        return Path(os.path.realpath(path))

    @staticmethod
    def _target(event: Event) -> Path:
        """Where the syscall landed: the file the kernel opened (strace -y), else the path resolved now. /proc and
        /dev/fd paths stay as named: resolved here they would name this process's files, not the command's."""
        if event.opened:
            return Path(event.opened)
        if event.path.startswith(("/proc/", "/dev/fd/")):
            return Path(os.path.normpath(event.path))
        return real_path(event.path, follow=event.syscall not in NAME_ONLY)

    # (1) programs

    def _exec(self, event: Event, git_ran: bool, found: Verdicts) -> None:
        real = self._real(event.path)
        if real in self.programs or real in self.trusted:
            return
        if git_ran and is_within(real, self.git_helpers):
            return  # (git runs its own helpers: git-remote-*, git-sh-setup, ... from its exec path)
        if not event.ok and os.path.basename(event.path) in {*PROGRAMS, "bash"}:
            return  # (a program looked for along PATH: execvp tries each directory in turn)
        found.add(event, f"a program outside the allowlist was {'executed' if event.ok else 'looked for'}")

    # (2) writes

    _HARMLESS = frozenset({"/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr"})

    def _write(self, event: Event, found: Verdicts) -> None:
        if event.path in self._HARMLESS or (event.opened in self._HARMLESS):
            return
        if event.path == str(self.world.cwd_file):
            return  # (the Bash tool's own EXIT trap)
        real = self._target(event)
        if not event.opened and str(real).startswith(("/proc/self/fd/", "/dev/fd/")) and event.ok:
            return  # (a descriptor that is no file: the command's own pipe)
        if self._git_refreshing_its_index(event, real):
            return
        if self.mode != "acceptEdits":
            found.add(event, f"a {self.mode}-mode command wrote or changed {real}")
            return
        if not is_within(real, self.project):
            found.add(event, f"an acceptEdits command wrote or changed {real}, outside the project")
            return
        lexical = Path(os.path.normpath(event.path))
        reason = protected_reason(lexical) or protected_reason(real)
        if reason:
            found.add(event, f"an acceptEdits command wrote or changed a protected path ({reason})")

    def _git_refreshing_its_index(self, event: Event, real: Path) -> bool:
        """git's read-only commands (status above all, also diff and describe) refresh the index's cached stat
        information when it is stale: git takes `.git/index.lock` (O_CREAT|O_EXCL), writes the same entries with new
        stat data, and renames it over `.git/index` (or removes the lock if it gives up). The index's content
        (what is staged) does not change, and no ref, object, config or work tree file is written. That is the only
        write allowed to a git process in modes that write nothing."""
        if not event.program or self._real(event.program) != self.git:
            return False
        git_dir = self.project / ".git"
        if real.parent != git_dir or real.name not in ("index.lock", "index"):
            return False
        if event.syscall.startswith("open"):
            return real.name == "index.lock"
        return event.syscall in ("rename", "renameat", "renameat2", "unlink", "unlinkat")

    # (3) reads

    def _read(self, event: Event, executed: set[Path], found: Verdicts) -> None:
        """A file opened so that it can be read. A deny rule on Read covers any such open of the file (by any name,
        a hard link included), even one that then reads nothing; an open for writing only is a write, judged by
        the rules above (acceptEdits may truncate a file it may not read: Read and Edit rules are separate)."""
        real = self._target(event)
        if self._denied(real) and event.ok:
            found.add(event, f"a file a deny rule covers was opened ({real})")
            return
        if event.kind != "read":
            return  # (a file opened for writing is judged as a write)
        if is_within(real, self.project) or real in executed:
            return  # (the project itself; a script's interpreter reads the script it runs)
        if self._system(real) or self._public(real):
            return
        own = PROGRAM_READS.get(os.path.basename(event.program or ""))
        if own is not None and re.fullmatch(own[0], str(real)):
            return
        if re.fullmatch(r"/proc/(\d+)/.*", str(real)) and int(str(real).split("/")[2]) in self.pids:
            return  # (a traced process's own /proc entries, named by number)
        found.add(event, f"a file outside the project was read ({real})")

    def _public(self, real: Path) -> bool:
        """What every user of the machine may read and the allowlist lets a command read outside the project (said
        again here, not taken from the checker): installed software under /usr and the files naming the system,
        owned by root along the whole path and readable by all."""
        text = str(real)
        if text in _PUBLIC_PROC:
            return True
        if not (text.startswith("/usr/") or text in _PUBLIC_ETC):
            return False
        try:
            chain = [os.stat(each) for each in (real, *real.parents)]
        except OSError:
            return False
        if any(info.st_uid != 0 for info in chain) or not chain[0].st_mode & stat.S_IROTH:
            return False
        return all(info.st_mode & stat.S_IXOTH for info in chain[1:])

    def _denied(self, real: Path) -> bool:
        if real in self.denied_paths:
            return True
        try:
            info = os.stat(real)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) in self.denied_inodes

    def _system(self, path: Path) -> bool:
        text = str(path)
        for allowed in SYSTEM_READS:
            if text == allowed.rstrip("/") or (allowed.endswith("/") and text.startswith(allowed)):
                return True
        for own in ("/proc/self/", "/proc/thread-self/"):
            if text.startswith(own) and text[len(own) :].startswith(_OWN_PROC):
                return True  # (a process's own memory map, cgroup, mounts, status, descriptors)
        if text.startswith("/dev/fd/"):
            return True  # (a descriptor that is no file: strace -y names the file when it is one)
        if is_within(path, self.home):
            relative = str(path.relative_to(self.home))
            return any(relative == h.rstrip("/") or (h.endswith("/") and relative.startswith(h)) for h in HOME_READS)
        return False


_ORDER = ("the canary", "a program", "a file a deny rule", "a default", "a plan", "a rules", "an acceptEdits")


def describe(problems: Iterable[str], run: Run, command: str, mode: str) -> str:
    """The command, what it did wrong (the gravest first), and the start of its output."""
    shown = sorted(dict.fromkeys(problems), key=lambda p: next((i for i, o in enumerate(_ORDER) if p.startswith(o)), 9))
    lines = [f"mode {mode}: {command!r}", *shown[:12]]
    if len(shown) > 12:
        lines.append(f"... and {len(shown) - 12} more")
    if run.timed_out:
        lines.append("(the command timed out)")
    lines.append(f"output: {run.output[:500]!r}")
    return "\n  ".join(lines)
