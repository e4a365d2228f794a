"""What a command did, read from `strace -f -y -xx` output: the programs it executed, and every file it opened,
created, renamed, removed, linked or changed, each as an absolute path.

strace is run with `-xx` (every string in hexadecimal, so no file name can confuse the parser) and `-y` (file
descriptors, `AT_FDCWD` included, shown with the path they stand for), so a path relative to a directory descriptor
or to the working directory is made absolute from the log alone. The few syscalls that take a relative path and no
descriptor (`mkdir`, `unlink`, `rename`, `execve`, ...) are resolved against the process's working directory, which
is followed through `chdir`/`fchdir`, inherited through `clone`/`fork`, and confirmed by every `AT_FDCWD<...>`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TRACED = (
    "execve,execveat,open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,"
    "linkat,symlink,symlinkat,truncate,chmod,fchmodat,chown,fchownat,utimensat,mknod,mknodat,"
    # (not in the list of what is judged, but needed to know each process's working directory, and fchmod/fchown
    # change a file through a descriptor that may have been opened read-only)
    "chdir,fchdir,clone,clone3,fork,vfork,fchmod,fchown,lchown"
)
"""The syscalls traced (`strace -e trace=...`)."""


def strace_argv(log: Path) -> list[str]:
    """strace's own arguments, before the command it runs."""
    return [
        "strace", "-f", "-qq", "-y", "-xx", "-s", "65536", "--seccomp-bpf", "-e", "signal=none",
        "-e", f"trace={TRACED}", "-o", str(log),
    ]  # fmt: skip


_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE")


@dataclass(frozen=True)
class Event:
    """One traced syscall that touched a path."""

    pid: int
    syscall: str
    kind: str
    """`exec`, `read` (opened for reading only), `write` (opened for writing or created), `change` (renamed away,
    removed, linked, chmod/chown/utimes: the file itself is changed)."""
    path: str
    """Absolute, as the process named it (its directories not resolved)."""
    opened: str | None
    """For a successful open: the path of the file the kernel opened (every link followed)."""
    ok: bool
    line: str
    """The syscall as strace printed it, strings decoded, for messages."""
    readable: bool
    """Opened so that the file can be read (O_RDONLY or O_RDWR): a write-only open reads nothing."""
    program: str
    """What the process was running: the path it last executed (its parent's, if it has not executed anything
    since it was cloned; "" for the first process before it executed anything)."""


@dataclass
class Trace:
    events: list[Event] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)

    def execs(self) -> list[Event]:
        return [e for e in self.events if e.kind == "exec"]

    def of_kind(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]


# Lines


_LINE = re.compile(r"^(\d+) +(.*)$", re.DOTALL)
_HEX = re.compile(r"(?:\\x[0-9a-f]{2})+")


def decode(text: str) -> str:
    """strace's `\\xNN` escapes as the bytes they stand for (a file name, as Python names it)."""
    return _HEX.sub(lambda m: os.fsdecode(bytes.fromhex(m[0].replace("\\x", ""))), text)


def _joined(lines: Iterable[str]) -> list[tuple[int, str]]:
    """(pid, syscall text) with each `<unfinished ...>` joined to its `<... resumed>` half."""
    pending: dict[int, str] = {}
    out: list[tuple[int, str]] = []
    for raw in lines:
        match = _LINE.match(raw.rstrip("\n"))
        if match is None:
            continue
        pid, text = int(match[1]), match[2]
        if text.startswith(("+++", "---")):
            continue
        if text.endswith(" <unfinished ...>"):
            pending[pid] = text.removesuffix(" <unfinished ...>")
            continue
        if text.startswith("<..."):
            head = pending.pop(pid, None)
            rest = text.split("resumed>", 1)[1] if "resumed>" in text else ""
            if head is None:
                continue
            text = head + rest
        out.append((pid, text))
    return out


def _split_args(text: str) -> tuple[str, list[str], str] | None:
    """`name(a, b, c) = ret` -> (name, [a, b, c], ret); strings are hex-escaped, so quotes hold no commas."""
    paren = text.find("(")
    if paren < 0:
        return None
    name = text[:paren]
    args: list[str] = []
    depth = 0
    quoted = False
    start = paren + 1
    i = start
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == ">" and text[i - 1] == "=":
            pass  # (`=>`: what a struct became, as in clone3's `{...} => {parent_tid=[...]}`)
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            if depth == 0 and c == ")":
                args.append(text[start:i].strip())
                tail = text[i + 1 :]
                ret = tail.split("=", 1)[1].strip() if "=" in tail else ""
                return name, [a for a in args if a], ret
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    return None


def _string(arg: str) -> str | None:
    """A string argument (`"\\x2f..."`), decoded; None for NULL or anything else."""
    if len(arg) >= 2 and arg[0] == '"':
        end = arg.rfind('"')
        return decode(arg[1:end])
    return None


def _fd_path(arg: str) -> str | None:
    """The path strace shows for a descriptor (`3<\\x2f...>`, `AT_FDCWD<...>`); None if it is not a file's."""
    if "<" not in arg or not arg.endswith(">"):
        return None
    inner = decode(arg[arg.index("<") + 1 : -1])
    return inner if inner.startswith("/") else None


def _ok(ret: str) -> bool:
    return not ret.startswith("-1") and ret != "?"


class _Timelines:
    """Each process's working directory and program over the log. A process's own syscalls are in order, so
    what it changes (chdir, fchdir, execve) applies from there on; a new process starts with its parent's at the
    moment of the clone (whose line may come after the child's first lines: the log is read twice). Every
    AT_FDCWD<...> annotation confirms the working directory."""

    def __init__(self, records: list[tuple[int, str, list[str], str]], root_cwd: str) -> None:
        self.cwds: dict[int, list[tuple[int, str]]] = {}
        self.programs: dict[int, list[tuple[int, str]]] = {}
        self.parent: dict[int, tuple[int, int]] = {}
        self.first_pid = records[0][0] if records else 0
        self.root_cwd = root_cwd
        for index, (pid, name, args, ret) in enumerate(records):
            if args and args[0].startswith("AT_FDCWD<"):
                self._note(self.cwds, pid, index, _fd_path(args[0]))
            if name in ("clone", "clone3", "fork", "vfork") and ret.split("<")[0].strip().isdigit():
                self.parent.setdefault(int(ret.split("<")[0].strip()), (pid, index))
        for index, (pid, name, args, ret) in enumerate(records):
            if name == "chdir" and _ok(ret) and args:
                target = _string(args[0])
                if target is not None:
                    where = os.path.normpath(os.path.join(self.cwd(pid, index), target))
                    self._note(self.cwds, pid, index, where)
            elif name == "fchdir" and _ok(ret) and args:
                self._note(self.cwds, pid, index, _fd_path(args[0]))
            elif name in ("execve", "execveat") and _ok(ret) and args:
                has_dir = name == "execveat"
                path = _string(args[1 if has_dir else 0])
                base = (_fd_path(args[0]) if has_dir else None) or self.cwd(pid, index)
                if path is not None:
                    self._note(self.programs, pid, index, _absolute(path, base))
        for changes in (*self.cwds.values(), *self.programs.values()):
            changes.sort()

    @staticmethod
    def _note(table: dict[int, list[tuple[int, str]]], pid: int, index: int, value: str | None) -> None:
        if value is not None:
            table.setdefault(pid, []).append((index, value))

    def _at(self, table: dict[int, list[tuple[int, str]]], pid: int, index: int, default: str) -> str:
        known = [value for at, value in table.get(pid, []) if at <= index]
        if known:
            return known[-1]
        if pid in self.parent:
            parent, cloned = self.parent[pid]
            return self._at(table, parent, cloned, default)
        return default

    def cwd(self, pid: int, index: int) -> str:
        found = self._at(self.cwds, pid, index, "")
        if found:
            return found
        later = self.cwds.get(pid, [])
        if later and pid != self.first_pid:
            return later[0][1]  # (a process whose start we did not see: its first AT_FDCWD says where it was)
        return self.root_cwd

    def program(self, pid: int, index: int) -> str:
        return self._at(self.programs, pid, index, "")


_PATHS = {
    # syscall: [(index of the dirfd argument or None, index of the path argument, kind)]
    "execve": [(None, 0, "exec")],
    "execveat": [(0, 1, "exec")],
    "creat": [(None, 0, "write")],
    "rename": [(None, 0, "change"), (None, 1, "write")],
    "renameat": [(0, 1, "change"), (2, 3, "write")],
    "renameat2": [(0, 1, "change"), (2, 3, "write")],
    "unlink": [(None, 0, "change")],
    "unlinkat": [(0, 1, "change")],
    "rmdir": [(None, 0, "change")],
    "mkdir": [(None, 0, "write")],
    "mkdirat": [(0, 1, "write")],
    "link": [(None, 1, "write")],
    "linkat": [(2, 3, "write")],
    "symlink": [(None, 1, "write")],
    "symlinkat": [(1, 2, "write")],
    "mknod": [(None, 0, "write")],
    "mknodat": [(0, 1, "write")],
    "truncate": [(None, 0, "change")],
    "chmod": [(None, 0, "change")],
    "chown": [(None, 0, "change")],
    "lchown": [(None, 0, "change")],
    "fchmodat": [(0, 1, "change")],
    "fchownat": [(0, 1, "change")],
    "utimensat": [(0, 1, "change")],
}


def read_trace(log: Path, cwd: Path) -> Trace:
    """The events in strace's log; `cwd` is where the first process started."""
    text = log.read_text(encoding="ascii", errors="replace")
    records: list[tuple[int, str, list[str], str]] = []
    trace = Trace()
    for pid, body in _joined(text.splitlines()):
        split = _split_args(body)
        if split is None:
            trace.unparsed.append(decode(body))
            continue
        records.append((pid, *split))
    times = _Timelines(records, str(cwd))
    for index, (pid, name, args, ret) in enumerate(records):
        ok = _ok(ret)
        line = decode(f"{name}({', '.join(args)}) = {ret}")
        program = times.program(pid, index)

        def add(kind: str, path: str, base: str | None, opened: str | None = None, readable: bool = False) -> None:
            where = _absolute(path, base or times.cwd(pid, index))  # noqa: B023 (used at once)
            trace.events.append(Event(pid, name, kind, where, opened, ok, line, readable, program))  # noqa: B023

        if name in ("open", "openat", "openat2"):
            at = 1 if name != "open" else 0
            path = _string(args[at]) if len(args) > at else None
            if path is None:
                continue
            flags = args[at + 1] if len(args) > at + 1 else ""
            if "O_PATH" in flags:
                continue  # (a handle on a path, for the *at calls that follow: neither reads nor writes the file)
            kind = "write" if any(flag in flags for flag in _WRITE_FLAGS) else "read"
            readable = "O_WRONLY" not in flags
            add(kind, path, _fd_path(args[0]) if at else None, _fd_path(ret) if ok else None, readable)
        elif name in ("fchmod", "fchown") and args and (target := _fd_path(args[0])) is not None:
            add("change", target, None)
        for dir_index, path_index, kind in _PATHS.get(name, []):
            if path_index >= len(args):
                continue
            path = _string(args[path_index])
            base = _fd_path(args[dir_index]) if dir_index is not None and dir_index < len(args) else None
            if path is None or path == "":  # utimensat(fd, NULL, ...) and AT_EMPTY_PATH: the descriptor's file
                if base is not None:
                    add(kind, base, None)
                continue
            add(kind, path, base)
    return trace


def _absolute(path: str, base: str) -> str:
    return path if path.startswith("/") else os.path.join(base, path)


def real_path(path: str, *, follow: bool = True) -> Path:
    """Where `path` leads now: its directory resolved as the kernel would (links followed), its last component
    followed too if it still exists and `follow` (a syscall on the name itself, such as creating a link or removing
    an entry, does not follow it). A file the command has since removed keeps its name."""
    parent, name = os.path.split(path.rstrip("/") or "/")
    if name in ("", ".", ".."):
        return Path(os.path.realpath(path))
    if follow and os.path.lexists(path):
        return Path(os.path.realpath(path))
    return Path(os.path.realpath(parent or "/")) / name


NAME_ONLY = frozenset(
    {"rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat", "link", "linkat",
     "symlink", "symlinkat", "mknod", "mknodat", "lchown"}
)  # fmt: skip
"""Syscalls that act on a directory entry itself, not on what a link there leads to."""
