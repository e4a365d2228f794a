"""`agentui -p` says, on stderr, that an automatic compaction is about to run and why, then what it came to (with
`--output-format stream-json` it writes Claude Code's `compacting` status and `compact_boundary` line, as before)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

WORDS = "word " * 4000


def script(tmp_path: Path) -> Path:
    """Two rounds of work, the second reported by the model as filling 29,000 of the 30,000-token window; then the
    summary, then the answer."""
    glob = [{"type": "tool_use", "id": f"g{n}", "name": "Glob", "input": {"pattern": "*.txt"}} for n in (1, 2)]
    responses = [
        {"text": "first " + WORDS, "content": [glob[0]]},
        {"text": "second " + WORDS, "content": [glob[1]], "usage": {"input_tokens": 29_000, "output_tokens": 10}},
        {"text": "The summary."},
        {"text": "Done."},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(responses))
    return path


def test_print_mode_says_before_an_automatic_compaction_why_it_runs(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    config = Path(clean_env["AGENTUI_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "config.json").write_text(json.dumps({"context_window": 30_000}))
    project = tmp_path / "project"
    project.mkdir()
    flags = ["--provider", "scripted", "--script", str(script(tmp_path))]
    done = subprocess.run(
        [agentui_bin, "-p", "go", *flags],
        env=clean_env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    said = (
        r"agentui: compacting the conversation: context at (9\d|100)% of 30,000 tokens; compacting \d+ older messages\."
    )
    assert re.fullmatch(said, lines[0]), lines
    assert lines[1].startswith("agentui: the conversation was compacted from about ")
    assert done.stdout.endswith("Done.\n")
