"""The lock beside files several agentui processes change: a holder that is stuck (here, a real process that keeps
it) costs the others a bounded wait and one sentence, never a hang."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import agentui.core.file_lock as file_lock
from agentui.core.context.learnings import LearningError, LearningStore
from agentui.core.file_lock import LockBusyError, locked

HOLD = """
import fcntl, sys, time
fd = open(sys.argv[1], "a")
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)
"""


def holding(lock: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_lock_kept_by_a_stuck_process_is_given_up_after_the_wait_in_one_sentence(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    holder = holding(lock)
    try:
        with pytest.raises(LockBusyError) as caught, locked(lock, wait=0.3):
            pytest.fail("the lock was taken while another process held it")
        said = f"Another agentui process has held {lock} for over 0.3 s; try again, or end that process."
        assert str(caught.value) == said
    finally:
        holder.kill()
        holder.wait()
    with locked(lock, wait=5):  # (the kernel released it with its holder)
        pass


def test_forgetting_a_learning_while_another_process_is_stuck_changing_them_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LearningStore(tmp_path / "project", {"AGENTUI_STATE_DIR": str(tmp_path / "state")})
    store.path.parent.mkdir(parents=True)
    holder = holding(store.path.with_suffix(".lock"))
    monkeypatch.setattr(file_lock, "LOCK_WAIT", 0.3)
    try:
        with pytest.raises(LearningError, match=r"^Another agentui process has held .* for over 0.3 s"):
            store.forget(1)
    finally:
        holder.kill()
        holder.wait()
