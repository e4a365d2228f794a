"""The sandbox's seccomp filter: no new Unix socket (`socket(AF_UNIX, ...)` fails with EPERM) and no io_uring (its
operations open sockets where seccomp never sees them), compiled to BPF by the system's libseccomp.

libseccomp knows each architecture's system call numbers, so agentui carries no table of them; it is loaded through
ctypes, and the program it exports is handed to bubblewrap (`--seccomp FD`) or to the network bridge, which installs
it in its child just before `exec`. `socketpair` stays allowed: a pair of connected sockets reaches nothing outside.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform

from agentui.core.errors import AgentuiError

AF_UNIX = 1
_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_CMP_MASKED_EQ = 7
_ATTR_ACT_BADARCH = 2
_ATTR_CTL_NNP = 3  # libseccomp would set no_new_privs itself on seccomp_load; bubblewrap and the bridge do it
_LOW_32_BITS = 0xFFFFFFFF  # the domain is an int: bits above it, which the kernel ignores, must not dodge the rule
# Other ABIs a 64-bit kernel runs (32-bit x86 programs on x86_64, AArch32 on arm64): filtered the same way, and
# socketcall (x86's single door to every socket call, whose arguments sit behind a pointer seccomp cannot read) shut.
_COMPAT_ARCHES = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}
_REFUSED = ("io_uring_setup", "io_uring_enter", "io_uring_register")


class SeccompError(AgentuiError):
    """The filter cannot be built here; the message is one sentence."""


class _ArgCmp(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        raise SeccompError(
            "libseccomp is not installed (apt install libseccomp2), so Unix sockets cannot be shut in the sandbox"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_release.restype = None
    lib.seccomp_arch_add.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
    lib.seccomp_arch_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_attr_set.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SeccompError(f"libseccomp could not {what} ({os.strerror(-result)})")


@functools.cache
def unix_socket_filter() -> bytes:
    """The BPF program (an array of `struct sock_filter`) for this machine; raises SeccompError."""
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompError("libseccomp could not start a filter")
    try:
        _check(lib.seccomp_attr_set(ctx, _ATTR_CTL_NNP, 0), "leave no_new_privs to the caller")
        for name in _COMPAT_ARCHES.get(platform.machine(), ()):
            token = lib.seccomp_arch_resolve_name(name.encode())
            if token:  # (a libseccomp that does not know it: its programs are refused as a foreign ABI)
                _check(lib.seccomp_arch_add(ctx, token), f"add the {name} ABI")
        refuse = _ACT_ERRNO | errno.EPERM
        unix = _ArgCmp(0, _CMP_MASKED_EQ, _LOW_32_BITS, AF_UNIX)
        _check(lib.seccomp_rule_add_array(ctx, refuse, _number(lib, "socket"), 1, ctypes.byref(unix)), "add a rule")
        for name in _REFUSED:
            _check(lib.seccomp_rule_add_array(ctx, refuse, _number(lib, name), 0, None), f"refuse {name}")
        # (a pseudo-number on ABIs without socketcall: libseccomp applies the rule where the call exists)
        _check(lib.seccomp_rule_add_array(ctx, refuse, _number(lib, "socketcall"), 0, None), "refuse socketcall")
        return _export(lib, ctx)
    finally:
        lib.seccomp_release(ctx)


def _number(lib: ctypes.CDLL, name: str) -> int:
    number = int(lib.seccomp_syscall_resolve_name(name.encode()))
    if number == -1:  # __NR_SCMP_ERROR
        raise SeccompError(f"libseccomp does not know the system call {name}")
    return number


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
    read_end, write_end = os.pipe()
    try:
        _check(lib.seccomp_export_bpf(ctx, write_end), "export the filter")
        os.close(write_end)
        write_end = -1
        chunks = []
        while chunk := os.read(read_end, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def problem() -> str | None:
    """None if the filter can be built here, else why not (one sentence)."""
    try:
        unix_socket_filter()
    except SeccompError as exc:
        return str(exc)
    return None


def filter_fd() -> int:
    """A pipe's read end holding the filter, for bubblewrap's `--seccomp FD` (the caller passes and closes it)."""
    program = unix_socket_filter()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)  # (a few hundred bytes: far below a pipe's capacity)
    finally:
        os.close(write_end)
    return read_end
