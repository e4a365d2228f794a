"""A full disk: agentui runs with its home, its temporary directory and the project on a 64 KiB tmpfs that is already
full (bubblewrap mounts it, so no root is needed). The answer still comes, the session says once that it could not be
saved, an Edit that cannot be written is the tool's one-sentence error and leaves the file as it was, and no
traceback reaches the screen."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

SIZE = 64 * 1024


def bwrap_tmpfs_works() -> str | None:
    """Why a sized tmpfs cannot be mounted here, or None."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed"
    done = subprocess.run(
        [bwrap, "--dev-bind", "/", "/", "--size", str(SIZE), "--tmpfs", "/mnt", "--", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return None if done.returncode == 0 else f"bubblewrap cannot mount a tmpfs here: {done.stderr.strip()}"


def test_a_full_disk_loses_no_answer_and_no_file(agentui_bin: str, tmp_path: Path) -> None:
    if why := bwrap_tmpfs_works():
        pytest.skip(why)
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "script.json"
    edit = {"file_path": "notes.txt", "old_string": "first", "new_string": "second " * 4000}
    script.write_text(
        json.dumps(
            [
                {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "echo from bash"}}]},
                {"content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "notes.txt"}}]},
                {"content": [{"type": "tool_use", "id": "t3", "name": "Edit", "input": edit}]},
                {"content": [{"type": "tool_use", "id": "t4", "name": "Bash", "input": {"command": "cat notes.txt"}}]},
                {"content": [{"type": "text", "text": "Answered anyway."}]},
            ]
        )
    )
    inside = f"""
        set -e
        mkdir -p {disk}/home {disk}/tmp {disk}/project
        printf 'first line\\n' > {disk}/project/notes.txt
        dd if=/dev/zero of={disk}/fill bs=1k count=1024 2>/dev/null || true
        cd {disk}/project
        set +e
        env -i HOME={disk}/home TMPDIR={disk}/tmp PATH=/usr/bin:/bin {shlex.quote(agentui_bin)} -p hi \\
            --provider scripted --script {script} --allowedTools Bash,Edit,Read --output-format stream-json --verbose
        code=$?
        echo "left in home: $(cd {disk}/home && find . -type f | sort | tr '\\n' ' ')" >&2
        echo "left in tmp: $(ls -A {disk}/tmp | tr '\\n' ' ')" >&2
        exit $code
    """
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--size", str(SIZE), "--tmpfs", str(disk), "--", "bash", "-c", inside],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    results = {
        block["tool_use_id"]: block
        for line in lines
        if line["type"] == "user"
        for block in line["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    }
    assert "from bash" in str(results["t1"]["content"])
    assert results["t3"].get("is_error") and "No space left on device" in str(results["t3"]["content"])
    assert str(results["t4"]["content"]).strip() == "first line"  # (the file as it was)
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "Answered anyway."
    said = [line for line in done.stderr.splitlines() if line.startswith("agentui: ")]
    assert any("could not be saved" in line and "No space left on device" in line for line in said), done.stderr
    # Nothing but the (empty) session file is left: no stand-in the sandbox could not finish, no temporary file.
    [home] = [line for line in done.stderr.splitlines() if line.startswith("left in home:")]
    assert [name for name in home.split(":", 1)[1].split() if not name.startswith("./.claude/projects/")] == []
    [tmp] = [line for line in done.stderr.splitlines() if line.startswith("left in tmp:")]
    assert tmp.split(":", 1)[1].strip() == ""
