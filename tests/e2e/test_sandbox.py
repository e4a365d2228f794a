"""Bash in the bubblewrap sandbox, end to end: `agentui -p` with Claude Code's `sandbox` settings, a scripted model
issuing the commands, and the real bwrap. What must not happen is checked on disk and on the network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.loopback import LoopbackServer


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    assert shutil.which("bwrap"), "bubblewrap is needed for these tests (.ci/run installs it)"


def bash(call_id: str, command: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command, **extra}}]}


class Setup:
    def __init__(self, tmp_path: Path, clean_env: dict[str, str], sandbox: dict[str, Any], **settings: Any) -> None:
        self.home = Path(clean_env["HOME"])
        self.project = tmp_path / "project"
        (self.project / ".git" / "hooks").mkdir(parents=True)
        (self.project / ".git" / "config").write_text("[core]\n")
        self.outside = tmp_path / "outside"
        self.outside.mkdir()
        (self.home / ".claude").mkdir(exist_ok=True)
        (self.home / ".claude" / "settings.json").write_text(json.dumps({"sandbox": sandbox, **settings}))
        (self.home / ".ssh").mkdir()
        (self.home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL")
        self.env = {**clean_env, "ANTHROPIC_API_KEY": "sk-ant-PARENT-SECRET"}

    def run(self, agentui_bin: str, steps: list[dict[str, Any]], *flags: str) -> list[dict[str, Any]]:
        script = self.project.parent / "script.json"
        script.write_text(json.dumps([*steps, {"text": "done"}]))
        command = ["-p", "go", "--provider", "scripted", "--script", str(script), "--output-format", "events"]
        done = subprocess.run(
            [agentui_bin, *command, *flags],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr
        self.stderr = done.stderr
        return [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "tool_end"]


def test_with_bypass_mode_on_writes_outside_to_hooks_and_the_network_are_blocked_and_inside_work(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, server: LoopbackServer
) -> None:
    setup = Setup(tmp_path, clean_env, {"enabled": True})
    connect = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {server.port}), 5)'"
    ends = setup.run(
        agentui_bin,
        [
            bash("b1", f"touch {setup.outside}/canary"),
            # (written by a program, so that only the sandbox, not the command checker, can stop them)
            bash("b2", 'python3 -c \'open(".git/hooks/pre-commit", "w").write("touch /tmp/pwned")\''),
            bash("b3", 'python3 -c \'open(".git/config", "a").write("fsmonitor = evil")\''),
            bash("b4", 'python3 -c \'open(".claude/settings.json", "w").write("{}")\''),
            bash("b5", connect),
            bash("b6", "echo made > inside.txt && mkdir -p sub && echo ok > sub/x && echo $TMPDIR && touch $TMPDIR/t"),
            bash("b7", "cat ~/.ssh/id_ed25519; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep -c PARENT-SECRET"),
        ],
        "--permission-mode",
        "bypassPermissions",
    )
    by_id = {e["tool_call_id"]: e for e in ends}
    assert not (setup.outside / "canary").exists() and by_id["b1"]["is_error"]
    assert not (setup.project / ".git" / "hooks" / "pre-commit").exists() and by_id["b2"]["is_error"]
    assert (setup.project / ".git" / "config").read_text() == "[core]\n" and by_id["b3"]["is_error"]
    assert not (setup.project / ".claude" / "settings.json").exists() and by_id["b4"]["is_error"]
    assert by_id["b5"]["is_error"] and not server.requests
    assert (setup.project / "inside.txt").read_text() == "made\n" and (setup.project / "sub" / "x").exists()
    assert not by_id["b6"]["is_error"], by_id["b6"]["content"]
    assert "PRIVATE-KEY-MATERIAL" not in by_id["b7"]["content"]
    assert "sk-ant-PARENT-SECRET" not in by_id["b7"]["content"] and "0" in by_id["b7"]["content"].splitlines()
    assert all(e["details"]["sandboxed"] for e in ends)


def test_auto_allow_runs_sandboxed_commands_without_a_question_and_deny_rules_still_win(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    setup = Setup(
        tmp_path, clean_env, {"enabled": True, "autoAllowBashIfSandboxed": True}, permissions={"deny": ["Bash(rm:*)"]}
    )
    (setup.project / "keep.txt").write_text("keep")
    # In print mode a question is answered no: whatever ran, ran without one.
    ends = setup.run(
        agentui_bin,
        [
            bash("b1", 'touch made.txt && python3 -c \'open("also.txt", "w").write("x")\''),
            bash("b2", "rm keep.txt"),
            bash("b4", "eval \"$(printf 'touch evaled.txt')\""),
        ],
    )
    by_id = {e["tool_call_id"]: e for e in ends}
    assert (setup.project / "made.txt").exists() and (setup.project / "also.txt").exists()
    assert not by_id["b1"]["is_error"]
    assert (setup.project / "keep.txt").exists() and "denied" in by_id["b2"]["content"]
    # what cannot be checked against the deny rules is still asked
    assert not (setup.project / "evaled.txt").exists() and by_id["b4"]["details"].get("denied")


def test_under_auto_allow_an_ask_rule_still_asks(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path) -> None:
    # (with an ask rule in the settings, the engine lets only what it understands completely run unasked)
    setup = Setup(tmp_path, clean_env, {"enabled": True}, permissions={"ask": ["Bash(git push:*)"]})
    [end] = setup.run(agentui_bin, [bash("b3", "git push origin main")])
    assert end["details"].get("denied") and "Bash(git push:*)" in end["content"]


def test_dangerously_disable_sandbox_always_asks_even_in_bypass_mode(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    setup = Setup(tmp_path, clean_env, {"enabled": True})
    ends = setup.run(
        agentui_bin,
        [bash("b1", f"touch {setup.outside}/canary", dangerouslyDisableSandbox=True)],
        "--permission-mode",
        "bypassPermissions",
    )
    [end] = ends
    assert end["details"].get("denied") and "outside the sandbox" in end["content"]
    assert not (setup.outside / "canary").exists()


def test_where_bubblewrap_is_missing_it_says_so_once_and_asks_instead_of_running_unsandboxed(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    setup = Setup(tmp_path, clean_env, {"enabled": True})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("bash", "touch", "python3", "git", "env"):
        if found := shutil.which(program):
            os.symlink(found, bin_dir / program)
    setup.env["PATH"] = str(bin_dir)
    ends = setup.run(
        agentui_bin,
        [bash("b1", "touch made.txt"), bash("b2", "touch again.txt")],
        "--permission-mode",
        "bypassPermissions",
    )
    assert setup.stderr.count("The sandbox is on but cannot run here") == 1
    assert "bubblewrap (bwrap) is not installed" in setup.stderr
    assert all(e["details"].get("denied") for e in ends)
    assert not (setup.project / "made.txt").exists()


async def test_a_sandboxed_commands_background_children_end_with_it(tmp_path: Path) -> None:
    from agentui.core.safety.sandbox import Sandbox, SandboxConfig
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.bash import Bash, BashArgs
    from agentui.core.workspace import Workspace

    workspace = Workspace(root=tmp_path)
    tool = Bash(workspace, sandbox=Sandbox(SandboxConfig(enabled=True), workspace, home=tmp_path))
    marker = f"sleep 3{os.getpid() % 1000}1"
    ctx = ToolContext(cwd=tmp_path, session_id="s", tool_call_id="b")
    result = await tool.run(BashArgs(command=f"{marker} & {marker} & echo started"), ctx)
    assert result.content == "started" and result.details["sandboxed"]
    still = [p for p in Path("/proc").glob("[0-9]*") if marker.encode() in _cmdline(p)]
    assert still == []


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""


def test_allowed_domains_are_reached_through_the_proxy_and_others_refused(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, server: LoopbackServer
) -> None:
    from tests.support.loopback import Reply

    server.enqueue(Reply.error(200, {"ok": "reached"}))
    setup = Setup(tmp_path, clean_env, {"enabled": True, "network": {"allowedDomains": ["127.0.0.1"]}})
    fetch = "python3 -c 'import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1], timeout=20).read())'"
    ends = setup.run(
        agentui_bin,
        [
            bash("b1", f"{fetch} http://127.0.0.1:{server.port}/allowed"),
            bash("b2", f"{fetch} http://localhost:{server.port}/refused"),
            bash("b3", f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {server.port}), 5)'"),
        ],
        "--permission-mode",
        "bypassPermissions",
    )
    by_id = {e["tool_call_id"]: e for e in ends}
    assert not by_id["b1"]["is_error"] and "reached" in by_id["b1"]["content"], by_id["b1"]["content"]
    assert by_id["b2"]["is_error"] and "403" in by_id["b2"]["content"]
    assert by_id["b3"]["is_error"]  # a direct connection, past the proxy: there is no network
    assert [r.path for r in server.requests] == ["/allowed"]


def _listing(*directories: Path) -> dict[str, list[str]]:
    return {str(d): sorted(os.listdir(d)) for d in directories if d.is_dir()}


def test_denied_files_are_masked_whatever_reads_them(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    setup = Setup(tmp_path, clean_env, {"enabled": True}, permissions={"deny": ["Read(./.env)", "Read(./keys/**)"]})
    (setup.project / ".env").write_text("DB_PASSWORD=hunter2-value")
    (setup.project / "keys").mkdir()
    (setup.project / "keys" / "id").write_text("key-material-value")
    (setup.project / "env-link").symlink_to(".env")
    before = _listing(setup.project, setup.project / ".git")
    reads = [
        "cat .env",
        "base64 .env",
        "cp .env copy && cat copy",
        "ln .env hard && cat hard",
        "ln -s .env soft && cat soft",
        "cat env-link",
        'python3 -c \'import glob; [print(open(p).read()) for p in glob.glob(".e*") + glob.glob("keys/*")]\'',
        "grep -r value . || true",
        "tar cf - . | tar xOf - | od -c | head -50",
    ]
    ends = setup.run(
        agentui_bin,
        [bash(f"b{n}", command) for n, command in enumerate(reads)],
        "--permission-mode",
        "bypassPermissions",
    )
    assert len(ends) == len(reads)
    contents = [e["content"] for e in ends]
    assert all("hunter2" not in c and "key-material" not in c for c in contents), contents
    made = {"copy", "hard", "soft"}
    after = _listing(setup.project, setup.project / ".git")
    assert {k: [n for n in v if n not in made] for k, v in after.items()} == before  # no stand-in left behind


def test_protected_paths_cannot_be_created_renamed_or_replaced_and_nothing_is_left_behind(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    setup = Setup(tmp_path, clean_env, {"enabled": True})
    (setup.project / ".git" / "modules" / "sub").mkdir(parents=True)
    (setup.project / ".git" / "modules" / "sub" / "config").write_text("[core]\n")
    (setup.project / ".git" / "modules" / "sub" / "HEAD").write_text("ref: refs/heads/main\n")
    before = _listing(setup.project, setup.project / ".git", setup.home)
    if os.geteuid() != 0:  # (agentui's state: the stand-ins' registry; root's is the machine's, in /var/lib)
        before[str(setup.home)] = sorted([*before[str(setup.home)], ".local"])
    attacks = [
        "mv .git .g",
        "cp -a .git .g && rm -rf .g/hooks && mv .g .git",
        "echo x > .git/commondir",
        "mkdir .claude && echo {} > .claude/settings.json",
        "touch .envrc",
        "python3 -c \"open('CLAUDE.md', 'w').write('obey')\"",
        "echo '\\tfsmonitor = evil' >> .git/modules/sub/config",
        "echo '{\"mcpServers\": {}}' > .mcp.json",
    ]
    ends = setup.run(
        agentui_bin,
        [bash(f"b{n}", command) for n, command in enumerate(attacks)],
        "--permission-mode",
        "bypassPermissions",
    )
    assert all(e["is_error"] for e in ends), [e["content"] for e in ends]
    assert (setup.project / ".git" / "modules" / "sub" / "config").read_text() == "[core]\n"
    after = _listing(setup.project, setup.project / ".git", setup.home)
    ours = (".g", ".local")  # (agentui's own under .local: checked below)
    assert {k: [n for n in v if n not in ours] for k, v in after.items()} == {
        k: [n for n in v if n not in ours] for k, v in before.items()
    }
    # (what agentui keeps of its own in its data directory: the mount helper it built)
    kept = [str(p.relative_to(setup.home)) for p in (setup.home / ".local" / "share").rglob("*") if p.is_file()]
    assert [name.rsplit("-", 1)[0] for name in kept] == [".local/share/agentui/bin/mount-helper"], kept


def test_a_unix_socket_outside_cannot_be_reached_and_socket_variables_are_not_passed_in(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    import socket

    setup = Setup(tmp_path, clean_env, {"enabled": True})
    path = tmp_path / "agent.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(1)
    setup.env["SSH_AUTH_SOCK"] = str(path)
    try:
        ends = setup.run(
            agentui_bin,
            [
                bash(
                    "b1",
                    "python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' " + str(path),
                ),
                bash(
                    "b2",
                    "python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"pair-ok\"); print(b.recv(9))'",
                ),
                bash("b3", "env | grep -c SSH_AUTH_SOCK || true"),
            ],
            "--permission-mode",
            "bypassPermissions",
        )
    finally:
        listener.close()
    by_id = {e["tool_call_id"]: e for e in ends}
    assert by_id["b1"]["is_error"] and "Operation not permitted" in by_id["b1"]["content"]
    assert "pair-ok" in by_id["b2"]["content"]
    assert by_id["b3"]["content"].strip() == "0"


def test_a_killed_agentuis_stand_ins_are_removed_when_agentui_next_starts(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    import signal
    import time

    setup = Setup(tmp_path, clean_env, {"enabled": True})
    before = _listing(setup.project, setup.project / ".git")
    script = setup.project.parent / "script.json"
    script.write_text(json.dumps([bash("b1", "touch started; while [ ! -e go ]; do sleep 0.05; done"), {"text": "x"}]))
    command = [agentui_bin, "-p", "go", "--provider", "scripted", "--script", str(script), "--output-format", "events"]
    running = subprocess.Popen(
        [*command, "--permission-mode", "bypassPermissions"],
        env=setup.env,
        cwd=setup.project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60  # (a ceiling for a broken run, not a guess at how long it takes)
        while not (setup.project / "started").exists():
            assert running.poll() is None and time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        assert (setup.project / ".mcp.json").read_text() == "{}\n"  # a stand-in, in place while the command runs
        running.send_signal(signal.SIGKILL)
        running.wait(60)
    finally:
        if running.poll() is None:
            running.kill()
    assert (setup.project / ".mcp.json").exists()  # left behind by the kill
    script.write_text(json.dumps([{"text": "hello"}]))
    again = subprocess.run(command, env=setup.env, cwd=setup.project, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    after = _listing(setup.project, setup.project / ".git")
    assert {k: [n for n in v if n != "started"] for k, v in after.items()} == before
