"""Diagnostics after Edit and Write from a real language server (python-lsp-server with pyflakes), and servers that
are missing, crash or never answer: one sentence once, the edit still made, no process left behind."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agentui.core.lsp.manager import LanguageServers
from agentui.core.lsp.servers import find_server
from agentui.core.settings import ConfigFile, Overrides, resolve_settings
from agentui.core.tools.base import ToolContext, ToolResult
from agentui.core.tools.edit import Edit, EditArgs
from agentui.core.tools.write import Write, WriteArgs
from agentui.core.workspace import Workspace

BIN = str(Path(sys.executable).parent)
"""Where the test environment's pylsp is (the venv's bin, as a project's own .venv/bin would be)."""


def ctx(ws: Workspace) -> ToolContext:
    return ToolContext(cwd=ws.root, session_id="s", tool_call_id="t")


def gone(pid: int) -> bool:
    """The process has ended (or is a zombie no one has reaped yet: it runs nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.fixture
async def ws(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = tmp_path / "proj"
    project.mkdir()
    workspace = Workspace(root=project)
    env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}"}
    workspace.lsp = LanguageServers(
        workspace.root, env, wait=60, trusted=lambda: True
    )  # (ends as soon as the diagnostics have come)
    yield workspace
    await workspace.lsp.aclose()


async def edit(ws: Workspace, path: str, old: str, new: str) -> ToolResult:
    (ws.root / path).exists() and ws.record_read(ws.root / path)
    return await Edit(ws).run(EditArgs(file_path=path, old_string=old, new_string=new), ctx(ws))


async def test_an_edit_that_brings_an_undefined_name_gets_exactly_that_diagnostic(ws: Workspace) -> None:
    (ws.root / "calc.py").write_text("import os\n\n\ndef total(a, b):\n    return a + b\n")
    result = await edit(ws, "calc.py", "return a + b", "return a + b + offset")
    assert not result.is_error and isinstance(result.content, str)
    assert result.content.endswith(
        "\n\n<new-diagnostics>The following new diagnostic issues were detected:\ncalc.py:\n"
        "  \u2718 [Line 5:20] undefined name 'offset' (pyflakes)</new-diagnostics>"
    )  # (not the unused import, a warning, nor anything of pycodestyle's)
    assert result.details["diagnostics"] == [
        {
            "line": 5,
            "column": 20,
            "severity": "error",
            "message": "undefined name 'offset'",
            "source": "pyflakes",
            "code": "",
        }
    ]
    assert (ws.root / "calc.py").read_text().endswith("return a + b + offset\n")


async def test_an_error_that_was_there_before_is_not_repeated_when_the_edit_moves_it(ws: Workspace) -> None:
    (ws.root / "old.py").write_text("def first():\n    return 1\n\n\nvalue = missing_name\n")
    result = await edit(ws, "old.py", "    return 1\n", "    one = 1\n    two = 2\n    return one + two\n")
    assert not result.is_error and "new-diagnostics" not in str(result.content)
    assert "diagnostics" not in result.details
    # a new error beside the old one is told, alone
    result = await edit(ws, "old.py", "return one + two", "return one + three")
    told = str(result.content).partition("<new-diagnostics>")[2]
    assert "undefined name 'three'" in told and "missing_name" not in told
    assert [d["message"] for d in result.details["diagnostics"]] == ["undefined name 'three'"]


async def test_write_tells_the_errors_of_a_new_file_and_of_an_overwrite(ws: Workspace) -> None:
    result = await Write(ws).run(WriteArgs(file_path="new.py", content="print(nowhere)\n"), ctx(ws))
    assert [d["message"] for d in result.details["diagnostics"]] == ["undefined name 'nowhere'"]
    ws.record_read(ws.root / "new.py")
    result = await Write(ws).run(WriteArgs(file_path="new.py", content="print(nowhere)\nprint(elsewhere)\n"), ctx(ws))
    assert [d["message"] for d in result.details["diagnostics"]] == ["undefined name 'elsewhere'"]


async def test_the_server_is_stopped_when_the_session_ends(ws: Workspace) -> None:
    (ws.root / "a.py").write_text("x = 1\n")
    await edit(ws, "a.py", "x = 1", "x = 2")
    assert ws.lsp is not None
    pids = [server.pid for server in ws.lsp.running]
    assert len(pids) == 1 and pids[0] is not None and not gone(pids[0])
    await ws.stop_background()  # (what the conversation's close calls)
    assert gone(pids[0]) and ws.lsp.running == []


async def test_files_of_other_languages_are_left_alone(ws: Workspace) -> None:
    (ws.root / "notes.txt").write_text("hello\n")
    result = await edit(ws, "notes.txt", "hello", "hello there")
    assert result.content == "Edited notes.txt: 1 replacement.\n     1\thello there\n     2\t"
    assert ws.lsp is not None and ws.lsp.running == []


async def test_a_file_of_megabytes_is_not_sent_to_a_server(ws: Workspace) -> None:
    """A generated or vendored file of megabytes would go whole to the server twice an edit (and a slow server drops
    out): such an edit asks none, and starts none."""
    (ws.root / "generated.py").write_text("x = 1\n" + "y = 2\n" * 400_000)
    result = await edit(ws, "generated.py", "x = 1", "x = undefined_name")
    assert "new-diagnostics" not in str(result.content)
    assert ws.lsp is not None and ws.lsp.running == []


def fake_server(directory: Path, body: str) -> Path:
    """A program named pylsp in `directory` that does `body` (with `pid_file` to write its pid to)."""
    directory.mkdir(exist_ok=True)
    program = directory / "pylsp"
    program.write_text(
        f"#!{sys.executable}\nimport os, subprocess, sys, time\npid_file = {str(directory / 'pids')!r}\n{body}\n"
    )
    program.chmod(0o755)
    return program


def pids(directory: Path) -> list[int]:
    return [int(line) for line in (directory / "pids").read_text().split()]


ANSWERS_THEN_DIES = """
def read():
    length = 0
    while (line := sys.stdin.buffer.readline()) not in (b"\\r\\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    import json
    return json.loads(sys.stdin.buffer.read(length))

open(pid_file, "a").write(f"{os.getpid()}\\n")
message = read()
body = b'{"jsonrpc": "2.0", "id": %d, "result": {"capabilities": {}}}' % message["id"]
sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
sys.stdout.buffer.flush()
while read().get("method") != "textDocument/didOpen":
    pass
sys.exit(1)
"""


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ("open(pid_file, 'a').write(f'{os.getpid()}\\n'); sys.exit(3)", "pylsp did not start: the server has stopped"),
        (
            "open(pid_file, 'a').write(f'{os.getpid()}\\n')\n"
            "child = subprocess.Popen(['sleep', '1000'])\n"
            "open(pid_file, 'a').write(f'{child.pid}\\n')\n"
            "sys.stdin.read()\ntime.sleep(1000)",
            "pylsp did not start: no answer to initialize within 3 s",
        ),
        (ANSWERS_THEN_DIES, "The pylsp language server stopped"),
    ],
    ids=["crashes", "never-answers-initialize", "dies-after-initialize"],
)
async def test_a_server_that_fails_is_said_once_and_the_edits_go_on(tmp_path: Path, body: str, sentence: str) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    fake_server(tmp_path / "bin", body)
    ws = Workspace(root=project)
    ws.lsp = LanguageServers(
        project, {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}, wait=60, trusted=lambda: True, start_timeout=3
    )
    (project / "a.py").write_text("x = 1\n")
    first = await edit(ws, "a.py", "x = 1", "x = 2")
    assert not first.is_error and (project / "a.py").read_text() == "x = 2\n"
    assert isinstance(first.content, str) and first.content.startswith("Edited a.py: 1 replacement.")
    assert first.content.endswith(f"\n\n{sentence}; edits go on without its diagnostics.")
    second = await edit(ws, "a.py", "x = 2", "x = 3")
    assert not second.is_error and "diagnostics" not in str(second.content)
    assert (project / "a.py").read_text() == "x = 3\n"
    assert all(gone(pid) for pid in pids(tmp_path / "bin"))
    assert ws.lsp.running == []


async def test_a_missing_server_is_not_told_to_the_model_after_an_edit(tmp_path: Path) -> None:
    """With a server of another language installed (rust-analyzer, say), a Python edit's result says nothing of the
    Python server that is not there: nothing went wrong with the edit (the LSP tool, asked, does say so)."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    ws = Workspace(root=project)
    ws.lsp = LanguageServers(project, {"PATH": str(tmp_path / "empty")}, wait=60, trusted=lambda: True)
    for old, new in (("x = 1", "x = 2"), ("x = 2", "x = 3")):
        done = await edit(ws, "a.py", old, new)
        assert str(done.content) == f"Edited a.py: 1 replacement.\n     1\t{new}\n     2\t"
    _, said = await ws.lsp.server_for(project / "b.py")
    assert said is None  # (said once, to the LSP tool's first call; given up since)


def test_one_setting_or_the_environment_turns_it_off(tmp_path: Path) -> None:
    from agentui.core.lsp.setup import open_servers

    SCRIPTED = Overrides(provider="scripted", model="scripted", script=tmp_path / "script.json")

    env = {"PATH": f"{BIN}:/usr/bin"}
    assert resolve_settings(SCRIPTED, env, ConfigFile()).lsp
    assert not resolve_settings(SCRIPTED, {**env, "AGENTUI_LSP": "0"}, ConfigFile()).lsp
    assert not resolve_settings(SCRIPTED, env, ConfigFile(lsp=False)).lsp
    assert resolve_settings(SCRIPTED, env, ConfigFile(lsp_wait=5)).lsp_wait == 5
    assert open_servers(True, 2, tmp_path, env, None, lambda: True) is not None
    assert open_servers(False, 2, tmp_path, env, None, lambda: True) is None
    assert (
        open_servers(True, 2, tmp_path, {"PATH": str(tmp_path / "empty")}, None, lambda: True) is None
    )  # (none installed)


async def test_the_projects_own_server_is_used_only_once_the_project_is_trusted(tmp_path: Path) -> None:
    """A server in the project's .venv is the project's program: like its hooks, it runs only in a trusted project.
    Here the project's .venv names a `pylsp` that would leave a mark; PATH has none."""
    project = tmp_path / "proj"
    (project / ".venv" / "bin").mkdir(parents=True)
    planted = project / ".venv" / "bin" / "pylsp"
    planted.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\nexec sleep 600\n")
    planted.chmod(0o755)
    (project / "calc.py").write_text("x = 1\n")
    for trusted in (False, True):
        workspace = Workspace(root=project)
        servers = LanguageServers(
            project, {"PATH": "/usr/bin:/bin"}, wait=1, start_timeout=3, trusted=lambda trusted=trusted: trusted
        )
        workspace.lsp = servers
        try:
            result = await edit(workspace, "calc.py", "x = 1", "x = 2")
            assert not result.is_error and "new-diagnostics" not in str(result.content)
            assert (tmp_path / "ran").exists() is trusted
        finally:
            await servers.aclose()
            (project / "calc.py").write_text("x = 1\n")


@pytest.mark.parametrize("trusted", [False, True])
async def test_a_server_that_runs_the_projects_programs_starts_only_in_a_trusted_project(
    tmp_path: Path, trusted: bool
) -> None:
    """rust-analyzer runs a crate's build scripts and macros; gopls, typescript-language-server and pyright run the
    toolchain, compiler or interpreter the project names. On PATH, each still waits for trust; pylsp does not."""
    project, bin_dir = tmp_path / "proj", tmp_path / "bin"
    project.mkdir()
    bin_dir.mkdir()
    for program in ("rust-analyzer", "gopls", "typescript-language-server", "pyright-langserver"):
        planted = bin_dir / program
        planted.write_text(f"#!/bin/sh\ntouch {tmp_path / program}\nexec sleep 600\n")
        planted.chmod(0o755)
    (project / "lib.rs").write_text("fn main() {}\n")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    assert (find_server("rust", project, env, trusted=trusted) is not None) is trusted
    assert (find_server("go", project, env, trusted=trusted) is not None) is trusted
    assert (find_server("typescript", project, env, trusted=trusted) is not None) is trusted
    assert (find_server("python", project, env, trusted=trusted) is not None) is trusted  # (no pylsp on this PATH)
    workspace = Workspace(root=project)
    servers = LanguageServers(project, env, wait=1, start_timeout=3, trusted=lambda: trusted)
    workspace.lsp = servers
    try:
        result = await edit(workspace, "lib.rs", "fn main() {}", "fn main() { }")
        assert not result.is_error
        assert (tmp_path / "rust-analyzer").exists() is trusted
    finally:
        await servers.aclose()


async def test_a_server_waiting_for_trust_is_said_so_once_and_starts_once_the_project_is_trusted(
    tmp_path: Path,
) -> None:
    """Not "not installed" (it is), nor given up for the session: the project may be trusted later."""
    from agentui.core.lsp.setup import open_servers

    project, bin_dir = tmp_path / "proj", tmp_path / "bin"
    project.mkdir()
    bin_dir.mkdir()
    planted = bin_dir / "rust-analyzer"
    planted.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\nexec sleep 600\n")
    planted.chmod(0o755)
    (project / "lib.rs").write_text("fn main() {}\n")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    trusted = [False]
    servers = open_servers(True, 1, project, env, None, lambda: trusted[0])  # (there is one, if it may not run yet)
    assert servers is not None
    servers.start_timeout = 3
    workspace = Workspace(root=project)
    workspace.lsp = servers
    try:
        first = await edit(workspace, "lib.rs", "fn main() {}", "fn main() { }")
        assert "rust-analyzer language server runs the project's own code" in str(first.content)
        assert "trusted" in str(first.content) and "installed" not in str(first.content)
        second = await edit(workspace, "lib.rs", "fn main() { }", "fn main() {  }")
        assert "language server" not in str(second.content) and not (tmp_path / "ran").exists()
        trusted[0] = True  # (the person trusts the project)
        await edit(workspace, "lib.rs", "fn main() {  }", "fn main() {}")
        assert (tmp_path / "ran").exists()
    finally:
        await servers.aclose()


def test_pylsp_on_path_serves_an_untrusted_project(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pylsp").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "pylsp").chmod(0o755)
    found = find_server("python", tmp_path / "proj", {"PATH": str(bin_dir)}, trusted=False)  # (outside the project)
    assert found is not None and found[0].program == "pylsp"


def test_a_relative_path_entry_does_not_find_the_projects_own_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty or relative PATH entry is looked up from the working directory, the project: its `./pylsp` ran
    in an untrusted project."""
    project = tmp_path / "proj"
    (project / "bin").mkdir(parents=True)
    for planted in (project / "pylsp", project / "bin" / "pylsp"):
        planted.write_text("#!/bin/sh\nexit 0\n")
        planted.chmod(0o755)
    monkeypatch.chdir(project)
    for path in ("", ":/usr/bin", ".:/usr/bin", "bin:/usr/bin"):
        found = find_server("python", project, {"PATH": path}, trusted=False)
        assert found is None or not Path(found[1]).resolve().is_relative_to(project.resolve()), path


def test_an_activated_project_environment_on_path_is_not_searched_in_an_untrusted_project(tmp_path: Path) -> None:
    """The person's shell with the project's .venv activated puts its bin first on PATH: its pylsp is the project's
    program, found there as surely as by the .venv search that waits for trust. A link from outside is seen through."""
    project = tmp_path / "proj"
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pylsp").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "pylsp").chmod(0o755)
    (tmp_path / "linked").symlink_to(bin_dir)
    for entry in (bin_dir, tmp_path / "linked"):
        env = {"PATH": f"{entry}:/nonexistent"}
        assert find_server("python", project, env, trusted=False) is None, entry
        found = find_server("python", project, env, trusted=True)
        assert found is not None and Path(found[1]).resolve() == (bin_dir / "pylsp").resolve()


def test_an_activated_project_environment_is_not_handed_to_the_server_in_an_untrusted_project(tmp_path: Path) -> None:
    """jedi, in pylsp, runs a VIRTUAL_ENV's own python to read its paths."""
    from agentui.core.lsp.servers import server_environment

    project = tmp_path / "proj"
    (project / ".venv").mkdir(parents=True)
    inner = {"VIRTUAL_ENV": str(project / ".venv"), "CONDA_PREFIX": str(project / "conda"), "HOME": "/home/x"}
    assert server_environment(inner, project, trusted=False) == {"HOME": "/home/x"}
    assert server_environment(inner, project, trusted=True) == inner
    outer = {"VIRTUAL_ENV": str(tmp_path / "elsewhere")}
    assert server_environment(outer, project, trusted=False) == outer
