"""No Unix socket outside the sandbox can be reached: the seccomp filter refuses new AF_UNIX sockets (a socketpair
still works) and io_uring, the variables that name sockets are not passed in, and only the person's own settings can
turn the filter off. Without libseccomp, the sandbox says why and does not run."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.project import open_project
from agentui.core.safety.environ import sandbox_environment
from tests.core.test_sandbox_setup import Box, boxed, make_box


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


CONNECT = "python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(\"in\")' {}"


@pytest.fixture
def listening(tmp_path: Path) -> Iterator[tuple[Path, list[bytes]]]:
    """A Unix socket outside the sandbox, listening, and what reached it."""
    path = tmp_path / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(4)
    received: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            received.append(b"connected")
            client.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield path, received
    finally:
        server.close()


def test_a_unix_socket_outside_cannot_be_reached_and_a_socketpair_still_works(
    box: Box, listening: tuple[Path, list[bytes]]
) -> None:
    path, received = listening
    done = box.run(CONNECT.format(path))
    assert done.code != 0 and "Operation not permitted" in done.err and received == []
    pair = box.run("python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"ok\"); print(b.recv(2))'")
    assert pair.out.strip() == "b'ok'"
    # the same with the domain's bits above 32 set (the kernel ignores them; the filter must too)
    high = box.run(
        "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(41, (1 << 32) | 1, 1, 0))'"
    )
    assert high.out.strip() == "-1"


def test_io_uring_is_refused(box: Box) -> None:
    code = (
        "import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); "
        "r = l.syscall(425, 4, ctypes.create_string_buffer(120)); print(r, ctypes.get_errno())"
    )
    done = box.run(f"python3 -c '{code}'")
    assert done.out.split() == ["-1", "1"]  # EPERM


def test_socket_variables_are_not_passed_in(box: Box) -> None:
    box.env.update(SSH_AUTH_SOCK="/run/agent.sock", DBUS_SESSION_BUS_ADDRESS="unix:path=/run/bus", DISPLAY=":0")
    box.env.update(XDG_RUNTIME_DIR="/run/user/0", TMUX="/tmp/tmux,1,0", MY_APP_SOCKET="/tmp/a.sock", KEEP="kept")
    done = box.run("env")
    names = {line.split("=", 1)[0] for line in done.out.splitlines()}
    assert {
        "SSH_AUTH_SOCK",
        "DBUS_SESSION_BUS_ADDRESS",
        "DISPLAY",
        "XDG_RUNTIME_DIR",
        "TMUX",
        "MY_APP_SOCKET",
    }.isdisjoint(names)
    assert "KEEP" in names
    assert sandbox_environment({"SSH_AUTH_SOCK": "x", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_allow_all_unix_sockets_turns_the_filter_off(tmp_path: Path, listening: tuple[Path, list[bytes]]) -> None:
    path, received = listening
    opened = make_box(tmp_path / "b", allow_all_unix_sockets=True)
    done = opened.run(CONNECT.format(path))
    assert done.out.strip() == "in" and received == [b"connected"]


def test_only_the_persons_own_settings_can_open_unix_sockets(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    loose = '{"sandbox": {"enabled": true, "network": {"allowAllUnixSockets": true}}}'
    (project / ".claude" / "settings.json").write_text(loose)
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    for trusted in (False, True):
        opened = open_project(project, env=env, trusted=trusted)
        assert opened.engine.sandbox is not None and not opened.engine.sandbox.config.allow_all_unix_sockets
    (home / ".claude" / "settings.json").write_text(loose)
    opened = open_project(project, env=env, trusted=False)
    assert opened.engine.sandbox is not None and opened.engine.sandbox.config.allow_all_unix_sockets


def test_without_libseccomp_the_sandbox_says_so_in_one_sentence_and_is_not_active(tmp_path: Path) -> None:
    import ctypes.util

    found = [
        Path(directory) / name
        for directory in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib")
        if Path(directory).is_dir()
        for name in os.listdir(directory)
        if name.startswith("libseccomp.so")
    ]
    assert found, ctypes.util.find_library("seccomp")
    hide = [arg for library in found for arg in ("--ro-bind", "/dev/null", str(library))]
    script = (
        "from pathlib import Path; from agentui.core.safety.sandbox import Sandbox, SandboxConfig;"
        "from agentui.core.workspace import Workspace;"
        f"s = Sandbox(SandboxConfig(enabled=True), Workspace(root=Path({str(tmp_path)!r})));"
        "print(s.problem()); print(s.active)"
    )
    done = subprocess.run(
        ["bwrap", "--bind", "/", "/", "--dev", "/dev", *hide, "--", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=os.getcwd(),
    )
    problem, active = done.stdout.splitlines()
    assert "libseccomp" in problem and problem.count(".") == 0 and active == "False", done.stderr
