"""Writing a file whole: the mode it keeps, and a secret's file that no one else can read at any moment."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from agentui.core.atomic_write import atomic_write


def test_a_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "script.sh"
    kept.write_text("old")
    kept.chmod(0o750)
    atomic_write(kept, b"new")
    assert kept.read_text() == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o750
    fresh = tmp_path / "fresh.txt"
    before = os.umask(0o022)
    try:
        atomic_write(fresh, b"x")
    finally:
        os.umask(before)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_a_secret_is_never_readable_by_others_not_even_while_it_is_written(tmp_path: Path) -> None:
    """With `mode`, the temporary file has it from its creation: a watcher that sees the files appear in the
    directory never sees one another user could read (a chmod after the write would leave a window); and an old
    file too open is made private by the write."""
    secret = tmp_path / ".credentials.json"
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for entry in os.scandir(tmp_path):
                try:
                    seen.add(stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                except FileNotFoundError:
                    continue

    watcher = threading.Thread(target=watch)
    before = os.umask(0o022)
    watcher.start()
    try:
        for number in range(200):
            atomic_write(secret, b'{"token": "%d"}' % number, mode=0o600)
    finally:
        done.set()
        watcher.join(60)
        os.umask(before)
    assert secret.read_text() == '{"token": "199"}'
    assert seen == {0o600}, sorted(oct(mode) for mode in seen)
    secret.chmod(0o644)
    atomic_write(secret, b"{}", mode=0o600)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
