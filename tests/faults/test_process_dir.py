"""The per-process temporary directory under attack and under odd conditions: a live owner is told from a dead one by
its lock (not by pid), a journal cannot hang or mislead the cleanup, the person's own worktrees are never dropped,
`nohup` still protects agentui, and SIGTERM runs the exit handlers. Real processes, files and git repositories."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from agentui.core.process_dir import PREFIX, ProcessDir, prune_stale
from tests.support.procs import running

CEILING = 60.0


def holder(root: Path, ready: Path) -> subprocess.Popen[bytes]:
    """Another process that makes its directory under `root` and lives on (as a running agentui would)."""
    script = f"""
        import time
        from pathlib import Path
        from agentui.core.process_dir import ProcessDir
        made = ProcessDir(Path({str(root)!r})).made()
        Path({str(ready)!r}).write_text(str(made))
        time.sleep(600)
    """
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)])


def wait_for(path: Path) -> str:
    deadline = time.monotonic() + CEILING
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return path.read_text()


def test_a_live_processs_directory_is_kept_and_a_dead_ones_removed(tmp_path: Path) -> None:
    root = tmp_path / "tmp"
    root.mkdir()
    process = holder(root, tmp_path / "ready")
    try:
        made = Path(wait_for(tmp_path / "ready"))
        assert made.parent == root and made.name.startswith(PREFIX)
        assert (made.stat().st_mode & 0o777) == 0o700
        assert prune_stale(root) == [] and made.is_dir()  # (alive: its lock is held, whatever its pid says)
    finally:
        process.kill()
        process.wait()
    assert prune_stale(root) == [made] and not made.exists()


def test_a_directory_being_made_is_left_alone_until_it_is_old(tmp_path: Path) -> None:
    young = tmp_path / f"{PREFIX}making"
    young.mkdir()
    assert prune_stale(tmp_path) == [] and young.is_dir()
    old = time.time() - 3600
    os.utime(young, (old, old))
    assert prune_stale(tmp_path) == [young]


def test_a_journal_that_is_a_fifo_or_names_other_files_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    with ProcessDir.for_test(tmp_path) as dead:
        assert dead.path is not None
        (dead.path / "beside").write_text(f"{victim}\n{tmp_path / '.x.agentui-0123abcd.tmp'}\n")
        (tmp_path / ".x.agentui-0123abcd.tmp").write_text("half")
        os.mkfifo(dead.path / "worktrees")
    assert prune_stale(tmp_path) == [dead.path]  # (a FIFO opened to be read would have hung here)
    assert victim.read_text() == "keep me\n"
    assert not (tmp_path / ".x.agentui-0123abcd.tmp").exists()


def test_only_agentuis_own_worktree_registrations_are_dropped(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "1"], check=True)
    theirs = tmp_path / "usb" / "wt"  # the person's worktree, on a drive that is not mounted now
    subprocess.run([*git, "worktree", "add", "-q", "--detach", str(theirs)], check=True)
    (tmp_path / "tmp").mkdir()
    with ProcessDir.for_test(tmp_path / "tmp") as dead:
        copies = dead.temporary("agentui-attempts-")
        ours = copies / "a"
        dead.worktree_at(repo, ours)
        subprocess.run([*git, "worktree", "add", "-q", "--detach", str(ours)], check=True)
    subprocess.run(["rm", "-rf", str(theirs)], check=True)
    assert len(os.listdir(repo / ".git" / "worktrees")) == 2
    prune_stale(tmp_path / "tmp")
    listed = subprocess.run([*git, "worktree", "list", "--porcelain"], capture_output=True, text=True).stdout
    assert f"worktree {theirs}" in listed and f"worktree {ours}" not in listed
    assert len(os.listdir(repo / ".git" / "worktrees")) == 1


def test_an_edit_still_writes_when_the_journal_cannot_be(tmp_path: Path) -> None:
    nowhere = ProcessDir(tmp_path / "missing")  # (TMPDIR gone, or full)
    temp = nowhere.temporary_beside(tmp_path / "notes.txt")
    assert temp.parent == tmp_path and temp.name.startswith(".notes.txt.agentui-")


def child(body: str, tmp_path: Path, *, ignore_hup: bool = False) -> subprocess.Popen[bytes]:
    script = f"""
        import atexit, signal, time
        from pathlib import Path
        from agentui.core.process_dir import end_cleanly_on_signals
        if {ignore_hup}:
            signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup leaves it
        end_cleanly_on_signals()
        {body}
        Path({str(tmp_path / "ready")!r}).write_text("ready")
        time.sleep(600)
    """
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)])


def test_sigterm_runs_the_exit_handlers_and_ends_with_the_signal(tmp_path: Path) -> None:
    done = tmp_path / "exit-handler-ran"
    process = child(f"atexit.register(lambda: Path({str(done)!r}).write_text('yes'))", tmp_path)
    try:
        wait_for(tmp_path / "ready")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=CEILING) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
    assert done.read_text() == "yes"


def test_a_sighup_ignored_by_nohup_stays_ignored(tmp_path: Path) -> None:
    process = child("pass", tmp_path, ignore_hup=True)
    try:
        wait_for(tmp_path / "ready")
        process.send_signal(signal.SIGHUP)
        process.send_signal(signal.SIGTERM)  # (after the SIGHUP: had that ended it, the code would be -SIGHUP)
        assert process.wait(timeout=CEILING) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()


def test_what_is_left_of_a_journalled_group_ends_and_an_id_given_again_is_spared(tmp_path: Path) -> None:
    from agentui.core.process_dir import start_ticks

    ready = tmp_path / "member"
    # A group whose leader has gone and whose member lives on (a bubblewrap that lost its parent).
    script = f"import subprocess; p = subprocess.Popen(['sleep', '600']); open({str(ready)!r}, 'w').write(str(p.pid))"
    leader = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    leader_start = start_ticks(leader.pid)
    leader.wait(timeout=CEILING)
    member = int(wait_for(ready))
    # A live session whose id was journalled with another start time: the id given to another process.
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        with ProcessDir.for_test(tmp_path) as dead:
            assert dead.path is not None and leader_start is not None
            (dead.path / "groups").write_text(f"{leader.pid} {leader_start}\n{other.pid} 1\n")
        prune_stale(tmp_path)
        deadline = time.monotonic() + CEILING
        while running(member):
            assert time.monotonic() < deadline, "the orphaned member was not ended"
            time.sleep(0.05)
        assert other.poll() is None  # (spared)
    finally:
        other.kill()
        other.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(member, signal.SIGKILL)


def test_a_program_started_just_before_a_kill_and_never_journalled_is_ended_by_its_mark(tmp_path: Path) -> None:
    """Between starting a program and journalling its group there are a few turns of the event loop; a SIGKILL there
    leaves a session no journal names. Its mark, journalled before it started and carried in its environment, finds
    it and what it started; programs with a mark that was matched, or that is not this directory's, are spared."""
    from agentui.core.process_dir import SPAWN_MARK

    ready = tmp_path / "member"
    spared = []
    with ProcessDir.for_test(tmp_path) as dead:
        _, env = dead.about_to_start(os.environ)
        script = f"sleep 600 & echo $! > {ready}; wait"
        unjournalled = subprocess.Popen(["sh", "-c", script], env=env, start_new_session=True)
        matched, matched_env = dead.about_to_start(os.environ)
        spared.append(subprocess.Popen(["sleep", "600"], env=matched_env, start_new_session=True))
        finished = subprocess.Popen(["true"])
        finished.wait()
        dead.own_group(finished.pid, matched)  # (its group is gone: only the mark's match is journalled)
    spared.append(subprocess.Popen(["sleep", "600"], env={**os.environ, SPAWN_MARK: "0" * 16}, start_new_session=True))
    member = int(wait_for(ready))
    try:
        prune_stale(tmp_path)
        assert unjournalled.wait(timeout=CEILING) == -signal.SIGKILL
        deadline = time.monotonic() + CEILING
        while running(member):
            assert time.monotonic() < deadline, "what the unjournalled program started was not ended"
            time.sleep(0.05)
        assert [process.poll() for process in spared] == [None, None]
    finally:
        for process in [unjournalled, *spared]:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(member, signal.SIGKILL)


def test_a_marked_process_in_a_session_it_does_not_lead_is_ended_alone(tmp_path: Path) -> None:
    """A daemon an unjournalled program fed its environment to keeps its session: only what carries the mark ends."""
    from agentui.core.process_dir import SPAWN_MARK

    ready = tmp_path / "marked"
    with ProcessDir.for_test(tmp_path) as dead:
        mark, _ = dead.about_to_start(os.environ)
    clean = {key: value for key, value in os.environ.items() if key != SPAWN_MARK}
    script = f"{SPAWN_MARK}={mark} sleep 600 & echo $! > {ready}; wait; exec sleep 600"
    leader = subprocess.Popen(["sh", "-c", script], env=clean, start_new_session=True)
    marked = int(wait_for(ready))
    try:
        deadline = time.monotonic() + CEILING
        while f"{SPAWN_MARK}={mark}".encode() not in Path(f"/proc/{marked}/environ").read_bytes():
            assert time.monotonic() < deadline, "the marked process never started"  # (forked, not yet exec'd)
            time.sleep(0.01)
        prune_stale(tmp_path)
        while running(marked):
            assert time.monotonic() < deadline, "the marked process was not ended"
            time.sleep(0.05)
        assert leader.poll() is None  # (its session's leader, which does not carry the mark, is spared)
    finally:
        leader.kill()
        leader.wait()


def test_every_temporary_file_agentui_makes_names_its_directory() -> None:
    """A temporary file or directory left in the system's temporary directory by a kill is never removed: each one
    agentui makes goes in its process directory (or beside what it replaces), so every call names `dir=`."""
    import ast

    makers = {"mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}
    root = Path(__file__).resolve().parents[2] / "agentui"
    undirected = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            named = isinstance(node, ast.Call) and any(keyword.arg == "dir" for keyword in node.keywords)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in makers:
                undirected += [] if named else [f"{path.relative_to(root)}:{node.lineno}"]
    assert undirected == []
