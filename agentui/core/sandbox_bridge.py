"""Run inside the sandbox, before the command: listen on 127.0.0.1:PORT (the sandbox's own loopback), forward each
connection to the proxy's Unix socket, run the command, and exit with its status. Standard library only, started
with `python -I -S` so it costs little.

    python -I -S sandbox_bridge.py SOCKET PORT PROGRAM [ARGS...]
"""

import os
import socket
import sys
import threading


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
    path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    child = os.fork()
    if child == 0:
        listener.close()
        os.execvp(argv[0], argv)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
