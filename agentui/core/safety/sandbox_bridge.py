"""Run inside the sandbox, before the command: listen on 127.0.0.1:PORT (the sandbox's own loopback), forward each
connection to the proxy's Unix socket, run the command, and exit with its status. The bridge needs a Unix socket of
its own, so the seccomp filter that forbids them (FILTER, the BPF program in hex, or "-" for none) is installed in
the command's process just before `exec`. Standard library only, started with `python -I -S` so it costs little.

    python -I -S sandbox_bridge.py SOCKET PORT FILTER PROGRAM [ARGS...]
"""

import ctypes
import os
import socket
import sys
import threading

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def _install(program: bytes) -> None:
    """Load the filter into this process (inherited by what it runs); exit rather than run the command without it."""
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or (
        libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0
    ):
        sys.stderr.write(
            f"agentui sandbox: the seccomp filter could not be loaded ({os.strerror(ctypes.get_errno())})\n"
        )
        os._exit(126)


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:  # noqa: SIM105  (no contextlib: each import costs the command its start-up time)
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


def main() -> None:
    path, port, program, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    child = os.fork()
    if child == 0:
        listener.close()
        if program != "-":
            _install(bytes.fromhex(program))
        os.execvp(argv[0], argv)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
