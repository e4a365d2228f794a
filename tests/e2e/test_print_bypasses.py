"""A sample of each bypass class run for real: `agentui -p` in its default mode (anything that needs an answer is
refused), a scripted model sending the attack, and a canary file that must not appear."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ATTACKS = [
    "x='a[$(touch {canary})]'; (( x ))",
    "x='a[$(touch {canary})]'; echo $((x))",
    "x='a[$(touch {canary})]'; [[ $x -eq 0 ]]",
    "bash tools/build.sh -c ls",
    "BASH_ENV=tools/build.sh bash -c ls",
    "PATH=./bin:$PATH; ls",
    "sort --compress-program=tools/build.sh -S 1 README.md",
    "git status",  # with a core.fsmonitor in the repository's own config
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_creates_no_canary(agentui_bin: str, clean_env: dict[str, str], tmp_path: Path, attack: str) -> None:
    project = tmp_path / "project"
    (project / "tools").mkdir(parents=True)
    (project / "bin").mkdir()
    canary = tmp_path / "canary"
    for script in (project / "tools" / "build.sh", project / "bin" / "ls"):
        script.write_text(f"#!/bin/sh\ntouch {canary}\n")
        script.chmod(0o755)
    (project / "README.md").write_text("b\na\n" * 100)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "config", "core.fsmonitor", str(project / "tools" / "build.sh")])
    command = attack.format(canary=canary)
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": command}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [call]}, {"text": "done"}]))
    done = subprocess.run(
        [agentui_bin, "-p", "go", "--provider", "scripted", "--script", str(script), "--output-format", "events"],
        env={**clean_env, "PATH": f"bin:{clean_env['PATH']}"},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    [end] = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "tool_end"]
    assert end["details"].get("denied"), end["content"]
    assert not canary.exists()
