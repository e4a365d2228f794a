"""Run inside bubblewrap, first: pin each protected symbolic link a command could replace (bind-mount the link over
itself, which bubblewrap cannot do, as its mounts follow links; a mount point cannot be removed or renamed over),
give up the capabilities that took, then run the command. Standard library only, started with `python -I -S`.

    python -I -S sandbox_pin.py --drop all|N,N,... [--user UID:GID] LINK... -- PROGRAM [ARGS...]

`--drop` names the capabilities taken out of the bounding set and given up: all of them in the sandbox; in the
guard, for a root agentui, those that would undo a mount (root keeps the rest, as it would without the guard).

`--user`: bubblewrap was told to run this as uid 0 (`--uid 0`): with `--dev`, bubblewrap otherwise runs the command
in a second user namespace, which has no say over the mounts, so pinning would be refused. Once the links are
pinned, this makes that second namespace itself, mapping the person's uid and gid back, as bubblewrap would have.
"""

import ctypes
import os
import sys

_OPEN_TREE = 428  # the same number on every architecture since 5.2 (the calls came after the tables were unified)
_MOVE_MOUNT = 429
_AT_FDCWD = -100
_OPEN_TREE_CLONE = 1
_AT_SYMLINK_NOFOLLOW = 0x100
_MOVE_MOUNT_F_EMPTY_PATH = 0x4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_SETPCAP = 8
_CAPABILITY_VERSION_3 = 0x20080522
_CLONE_NEWUSER = 0x10000000


def _fail(message: str) -> None:
    sys.stderr.write(f"agentui sandbox: {message}\n")
    os._exit(126)


def _pin(libc: ctypes.CDLL, link: str) -> None:
    path = os.fsencode(link)
    tree = libc.syscall(_OPEN_TREE, _AT_FDCWD, path, _OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_SYMLINK_NOFOLLOW)
    if tree < 0:
        _fail(f"cannot pin the link {link} ({os.strerror(ctypes.get_errno())}); the command was not run")
    if libc.syscall(_MOVE_MOUNT, tree, b"", _AT_FDCWD, path, _MOVE_MOUNT_F_EMPTY_PATH) < 0:
        _fail(f"cannot pin the link {link} ({os.strerror(ctypes.get_errno())}); the command was not run")
    os.close(tree)


def _become(libc: ctypes.CDLL, user: str) -> None:
    """A user namespace of its own, in which this process is UID:GID again (uid 0 of the one it leaves)."""
    uid, _, gid = user.partition(":")
    if libc.unshare(_CLONE_NEWUSER) < 0:
        _fail(f"cannot make a user namespace ({os.strerror(ctypes.get_errno())}); the command was not run")
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} 0 1"), ("gid_map", f"{gid} 0 1")):
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
    except OSError as exc:
        _fail(f"cannot map the user back ({exc.strerror}); the command was not run")


def _drop(libc: ctypes.CDLL, which: str) -> None:
    """`which` out of the bounding set and of the capabilities held; what is not named stays, as bubblewrap leaves
    it (a root agentui's commands under the guard keep root's other capabilities)."""
    with open("/proc/sys/kernel/cap_last_cap") as last:
        everything = list(range(int(last.read()) + 1))
    dropped = everything if which == "all" else [int(n) for n in which.split(",") if n]
    last_ones = [_CAP_SETPCAP] if _CAP_SETPCAP in dropped else []  # (SETPCAP is what drops the others)
    for cap in [c for c in dropped if c != _CAP_SETPCAP] + last_ones:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 and ctypes.get_errno() != 22:  # EINVAL: unknown here
            _fail(f"cannot drop capability {cap} ({os.strerror(ctypes.get_errno())}); the command was not run")
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable for capabilities 0-31, then for 32-63
    if libc.capget(header, data) < 0:
        _fail(f"cannot read capabilities ({os.strerror(ctypes.get_errno())}); the command was not run")
    mask = sum(1 << cap for cap in dropped)
    for i in range(3):
        data[i] &= ~mask & 0xFFFFFFFF
        data[i + 3] &= ~(mask >> 32) & 0xFFFFFFFF
    if libc.capset(header, data) < 0:
        _fail(f"cannot give up capabilities ({os.strerror(ctypes.get_errno())}); the command was not run")
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
        _fail("cannot set no_new_privs; the command was not run")


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--drop" or "--" not in args:
        _fail("sandbox_pin.py: bad arguments")
    split = args.index("--")
    which, links, argv = args[1], args[2:split], args[split + 1 :]
    user = None
    if links[:1] == ["--user"] and len(links) > 1:
        user, links = links[1], links[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    for link in links:
        _pin(libc, link)
    if user is not None:
        _become(libc, user)
    _drop(libc, which)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        _fail(f"cannot run {argv[0]}: {exc.strerror}")


if __name__ == "__main__":
    main()
