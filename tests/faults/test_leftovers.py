"""Nothing is left behind: after SIGTERM, SIGHUP or SIGKILL at a moment when agentui has a foreground command, a
background shell and its temporary files, and one more start, no process it started, no temporary directory and no
git worktree registration is left. The model is played over loopback and held at the moment of the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.core.tools.test_bash import processes_with
from tests.support.kills import kill_at_a_random_moment
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

CEILING = 60.0


def tool_call(call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": arguments}


def calls(*blocks: dict[str, Any]) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": "Running it."}, *blocks], stop_reason="tool_use"))


def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + CEILING
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture
def world(tmp_path: Path, clean_env: dict[str, str], server: LoopbackServer) -> dict[str, Any]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("notes\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for step in (["init", "-q"], ["add", "notes.txt"], [*identity, "commit", "-qm", "1"]):
        subprocess.run(["git", "-C", str(project), *step], check=True)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x", "TMPDIR": str(temp)}
    return {"project": project, "temp": temp, "env": env}


def start(agentui_bin: str, world: dict[str, Any], *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [agentui_bin, "-p", "go", "--allowedTools", "Bash", *flags],
        cwd=world["project"],
        env=world["env"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def leftovers(world: dict[str, Any], marker: str) -> list[str]:
    found = [f"process: {line}" for line in processes_with(marker)]
    found += [f"temporary: {path}" for path in world["temp"].iterdir()]
    listed = subprocess.run(
        ["git", "-C", str(world["project"]), "worktree", "list", "--porcelain"], capture_output=True, text=True
    ).stdout
    found += [f"worktree: {line}" for line in listed.splitlines()[1:] if line.startswith("worktree ")]
    from agentui.core.safety.standins import _alive, _registries, registry_in

    registry = registry_in(world["env"])
    found += [f"stand-ins of a dead agentui: {owner}" for owner, _ in _registries(registry) if not _alive(owner)]
    return found


def one_more_start(agentui_bin: str, world: dict[str, Any], server: LoopbackServer) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Fresh."}])))
    done = subprocess.run(
        [agentui_bin, "-p", "hello"], cwd=world["project"], env=world["env"], stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=CEILING,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Fresh.", done.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_a_signal_during_a_foreground_command_with_a_background_shell_leaves_nothing(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer, sig: signal.Signals
) -> None:
    marker = f"{1000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    server.enqueue(
        calls(tool_call("bg", command=f"sleep {marker}", run_in_background=True)),
        calls(tool_call("fg", command=f"echo started; sleep {marker}")),
    )
    process = start(agentui_bin, world)
    try:
        until(lambda: len(processes_with(marker)) >= 2 or process.poll() is not None, "both commands started")
        assert process.poll() is None, process.communicate()
        process.send_signal(sig)
        process.communicate(timeout=CEILING)
        if sig != signal.SIGKILL:
            assert process.returncode in (128 + sig, -sig), process.returncode
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    until(lambda: not processes_with(marker), f"the commands ended after {sig.name}: {processes_with(marker)}")
    one_more_start(agentui_bin, world, server)
    assert leftovers(world, marker) == []


def test_a_signal_during_parallel_attempts_leaves_no_worktree(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer
) -> None:
    marker = f"{2000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    server.responder = lambda request: calls(tool_call("fg", command=f"sleep {marker}"))
    process = start(agentui_bin, world, "--attempts", "2")
    try:
        until(lambda: len(processes_with(marker)) >= 2 or process.poll() is not None, "both attempts run a command")
        assert process.poll() is None, process.communicate()
        assert len([line for line in leftovers(world, marker) if line.startswith("worktree: ")]) == 2
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=CEILING)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    until(lambda: not processes_with(marker), "the attempts' commands ended")
    server.responder = None
    one_more_start(agentui_bin, world, server)
    assert leftovers(world, marker) == []


def test_an_edit_killed_before_its_rename_leaves_no_temporary_file_after_the_next_start(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer
) -> None:
    """The temporary file an Edit writes beside its target is recorded before it is made, so the next start removes
    it if the process that made it is gone (here one left as a killed agentui would leave it)."""
    project: Path = world["project"]
    marker = "unused"
    from agentui.core.process_dir import ProcessDir

    with ProcessDir.for_test(world["temp"]) as dead:  # (its lock is released as a dead process's would be)
        temp = dead.temporary_beside(project / "notes.txt")
        temp.write_text("half")
    assert temp.exists()
    one_more_start(agentui_bin, world, server)
    assert not temp.exists() and (project / "notes.txt").read_text() == "notes\n"
    assert leftovers(world, marker) == []


def _agentui_in(project: Path) -> list[int]:
    """Pids of agentui processes working in `project` (the console script runs under Python)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cwd == str(project) and any(argument.endswith(b"/agentui") for argument in arguments[:2]):
            found.append(int(pid))
    return found


@pytest.mark.parametrize("how", ["terminal closed", "SIGTERM"])
def test_the_app_ended_by_its_terminal_closing_or_sigterm_leaves_nothing(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer, how: str
) -> None:
    from tests.e2e.test_tui_tmux import Terminal

    marker = f"{3000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    server.enqueue(
        calls(tool_call("bg", command=f"sleep {marker}", run_in_background=True)),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "It runs in the background."}])),
    )
    project: Path = world["project"]
    env = {**world["env"], "TERM": "xterm-256color"}
    terminal = Terminal(f"{agentui_bin} --allowedTools Bash", env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("start it")
        terminal.keys("Enter")
        terminal.wait_for("It runs in the background.")
        assert processes_with(marker)
        [pid] = _agentui_in(project)
        if how == "SIGTERM":
            os.kill(pid, signal.SIGTERM)
            terminal.wait_for("EXIT=143")  # the app ended as a quit does: the shell has its screen back
        else:
            terminal.close()  # (the pty closes: SIGHUP)
        until(lambda: not _agentui_in(project), f"agentui ended after {how}")
    finally:
        terminal.close()
    until(lambda: not processes_with(marker), f"the background shell ended after {how}")
    assert leftovers(world, marker) == []  # (removed by the process itself, before any next start)
    one_more_start(agentui_bin, world, server)
    assert leftovers(world, marker) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_hook_running_when_agentui_is_signalled_ends_with_it(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer, sig: signal.Signals
) -> None:
    """Hooks run outside the sandbox, in process groups of their own (as Claude Code runs them): a signal that ends
    agentui ends them too."""
    marker = f"{4000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    settings = Path(world["env"]["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"sleep {marker}", "timeout": 600}
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}))
    process = start(agentui_bin, world)
    try:
        until(lambda: processes_with(marker) or process.poll() is not None, "the hook started")
        assert process.poll() is None, process.communicate()
        process.send_signal(sig)
        process.communicate(timeout=CEILING)
        assert process.returncode == -sig, process.returncode
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    until(lambda: not processes_with(marker), f"the hook ended after {sig.name}: {processes_with(marker)}")
    assert leftovers(world, marker) == []


def test_sigkill_at_random_moments_then_one_more_start_leaves_nothing(
    agentui_bin: str, world: dict[str, Any], server: LoopbackServer
) -> None:
    """Killed at a random moment of a run that edits, runs commands in the foreground and the background and tries
    attempts in worktrees, five times over: after one more start nothing of any of them is left."""
    import random

    marker = f"{5000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    project: Path = world["project"]

    def model(request: Any) -> Reply:
        turn = len(server.requests)
        if turn % 3 == 1:
            return calls(tool_call(f"b{turn}", command=f"sleep {marker}", run_in_background=True))
        if turn % 3 == 2:
            return calls(tool_call(f"f{turn}", command=f"echo {turn} >> notes.txt; sleep 0.{turn % 7 + 1}"))
        return calls(tool_call(f"s{turn}", command=f"timeout 0.5 sleep {marker} || true"))

    server.responder = model
    rng = random.Random(int(marker.replace(".", "")))
    for flags in ((), ("--attempts", "2"), (), ("--attempts", "2"), ()):
        kill_at_a_random_moment(start(agentui_bin, world, *flags), lambda: len(server.requests) > 0, rng)
        server.requests.clear()
    server.responder = None
    # A command whose bubblewrap lost its parent between starting and arming --die-with-parent can outlive the kill;
    # the next start ends what is left of every group a dead agentui journalled.
    one_more_start(agentui_bin, world, server)
    until(lambda: not processes_with(marker), f"the commands ended: {processes_with(marker)}")
    assert leftovers(world, marker) == []
    assert not [p for p in project.iterdir() if p.name.startswith(".notes.txt.agentui-")]
