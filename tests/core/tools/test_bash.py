"""Bash in real subprocesses: output, cwd, secrets, timeouts, cancel, and no process left behind."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agentui.core.tools.base import ToolContext
from agentui.core.tools.bash import Bash, BashArgs, child_environment
from agentui.core.workspace import Workspace
from tests.support.waiting import eventually


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    return Workspace(root=project)


def ctx(progress: list[str] | Callable[[str], None] | None = None) -> ToolContext:
    if isinstance(progress, list):
        progress = progress.append
    return ToolContext(cwd=Path("."), session_id="s", tool_call_id="t", progress=progress or (lambda text: None))


async def bash(ws: Workspace, command: str, **kw: int):  # type: ignore[no-untyped-def]
    return await Bash(ws).run(BashArgs(command=command, **kw), ctx())


def processes_with(marker: str) -> list[str]:
    """Command lines of live `sleep` processes with `marker` (a unique duration) as their argument."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except OSError:
            continue
        if cmdline.split(" ")[0].endswith("sleep") and marker in cmdline and state != "Z":
            found.append(cmdline)
    return found


async def test_output_exit_code_and_interleaved_stderr(ws: Workspace) -> None:
    result = await bash(ws, "echo out; echo err >&2; echo more; exit 3")
    assert result.content == "out\nerr\nmore\nExit code 3"
    assert result.is_error and result.details["exitCode"] == 3
    quiet = await bash(ws, "true")
    assert quiet.content == "(no output)" and not quiet.is_error


async def test_the_working_directory_persists_and_stays_in_the_project(ws: Workspace) -> None:
    await bash(ws, "cd sub")
    assert (await bash(ws, "pwd")).content == str(ws.root / "sub")
    left = await bash(ws, "cd /")
    assert left.content.endswith(f"Shell cwd was reset to {ws.root} (the command left the project).")
    assert (await bash(ws, "pwd")).content == str(ws.root)
    await bash(ws, "cd sub && exit 1")  # even a failing command's cd sticks, as in a terminal
    assert ws.shell_cwd == ws.root / "sub"


async def test_secrets_stay_out_of_the_childs_environment(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "GITHUB_TOKEN",
        "STRIPE_API_KEY",
        "DB_SECRET",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "AZURE_OPENAI_KEY",
        "github_token",
        "MY_PRIVATE_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SESSION_COOKIE",
    ):
        monkeypatch.setenv(name, "hidden")
    monkeypatch.setenv("DATABASE_URL", "postgres://app:hidden@db/app")
    monkeypatch.setenv("HARMLESS", "visible")
    monkeypatch.setenv("KEYMAP_STYLE", "visible")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/run/agent.sock")
    result = await bash(ws, "env | grep -c hidden; echo $HARMLESS $AGENTUI $KEYMAP_STYLE $SSH_AUTH_SOCK")
    assert result.content.splitlines() == ["0", "visible 1 visible /run/agent.sock"]
    assert child_environment({"X_TOKEN": "a", "PATH": "/bin"}, {"EXTRA": "b"}) == {
        "PATH": "/bin",
        "EXTRA": "b",
        "AGENTUI": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }


async def test_progress_streams_while_the_command_runs(ws: Workspace) -> None:
    # The command goes on only once its first line has arrived as progress: proof it streamed, at any speed.
    go = ws.root / "go"
    progress: list[str] = []

    def seen(text: str) -> None:
        progress.append(text)
        go.touch()

    command = f"echo tick 1; while [ ! -e {go} ]; do sleep 0.01; done; echo tick 2; echo tick 3"
    result = await Bash(ws).run(BashArgs(command=command), ctx(seen))
    assert result.content == "tick 1\ntick 2\ntick 3"
    assert progress[0] == "tick 1\n" and "".join(progress) == "tick 1\ntick 2\ntick 3\n"


async def test_timeout_stops_the_whole_group(ws: Workspace) -> None:
    # The limit is long enough for a loaded machine to start bash and echo; the sleeps never end on their own.
    result = await bash(ws, "echo begun; sleep 765.4 & sleep 765.4", timeout=2000)
    assert result.is_error and result.details["interrupted"] is True
    assert result.content == "begun\nCommand timed out after 2 s and was stopped."
    assert processes_with("765.4") == []


async def test_cancel_stops_the_whole_group_even_a_process_ignoring_sigterm(ws: Workspace) -> None:
    progress: list[str] = []
    task = asyncio.create_task(
        Bash(ws).run(BashArgs(command="trap '' TERM; echo started; sleep 987.6 & sleep 987.6"), ctx(progress))
    )
    await eventually(lambda: len(processes_with("987.6")) == 2 and bool(progress))  # a loaded machine is slow
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 30)
    await eventually(lambda: not processes_with("987.6"))  # killed: gone once the kernel has finished with them


async def test_background_jobs_do_not_outlive_the_command(ws: Workspace) -> None:
    result = await bash(ws, "sleep 876.5 & echo done")
    assert result.content == "done" and processes_with("876.5") == []


async def test_a_100_mb_output_is_capped_with_head_tail_and_a_spill_file(ws: Workspace) -> None:
    result = await bash(ws, "echo FIRST; yes 0123456789abcdef | head -c 100000000; echo; echo LAST")
    text = result.content
    assert text.startswith("FIRST\n0123456789abcdef") and text.endswith("LAST")
    assert len(text) < 31_000 and "characters omitted; the whole output (100,000,012 characters) is in" in text
    spill = Path(result.details["outputFile"])
    assert spill.stat().st_size == 100_000_012 and spill.read_bytes()[-5:] == b"LAST\n"
    assert result.details["truncated"] is True and len(result.details["stdout"]) < 31_000


async def test_output_just_under_the_cap_is_whole_and_spills_nothing(ws: Workspace) -> None:
    result = await bash(ws, "python3 -c \"print('é' * 20000)\"")
    assert result.content == "é" * 20000 and result.details["outputFile"] is None
    assert not list(ws.scratch.glob("bash-*.log"))


@pytest.mark.parametrize("lifted", [False, True], ids=["the model's", "the person's"])
async def test_a_project_directory_deleted_meanwhile_is_one_sentence_and_nothing_runs(
    ws: Workspace, lifted: bool
) -> None:
    """Issue 33's small things: with the project deleted while agentui runs, a command (the person's `!ls` runs with
    the protection lifted) showed Python's FileNotFoundError text; and none may run in a directory that is gone."""
    import shutil

    await bash(ws, "cd sub")
    shutil.rmtree(ws.root)
    context = ToolContext(cwd=Path("."), session_id="s", tool_call_id="t", progress=lambda text: None)
    context.protection_lifted = lifted
    for background in (False, True):
        result = await Bash(ws).run(BashArgs(command="touch made", run_in_background=background), context)
        assert result.is_error and result.content == (
            f"The project directory {ws.root} no longer exists (it was deleted or moved), so the command was not "
            "run; restore it, or start agentui again in a directory that exists."
        )
    assert not ws.root.exists()
