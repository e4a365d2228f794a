"""The agent profile of a project, against the loopback Messages API: each run's model calls move the per-model
averages kept in agentui's state directory; a budget's advisory then estimates the calls left; /status shows the
averages, the estimate and the standing instructions; and standing instructions go into the system prompt's stable
part, after the memory files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.instructions import set_standing_instructions
from agentui.core.profile import load_profile, profile_path
from agentui.core.run_options import RunLimits
from agentui.core.status_report import status_report
from tests.core.test_budgets import answering, bash, conversation
from tests.support.loopback import LoopbackServer

MODEL = "claude-sonnet-4-5"


def _state(tmp_path: Path) -> dict[str, str]:
    return {"AGENTUI_STATE_DIR": str(tmp_path / "state")}


async def test_a_run_updates_the_projects_per_model_averages_and_the_budget_estimates_calls_left(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server, lambda body: ([bash(f"b{len(body['messages'])}", "true")], 200))  # $0.00075 a call
    env = _state(tmp_path)
    opened, _ = conversation(tmp_path, server, env, limits=RunLimits(max_budget_usd=0.003))
    try:
        first = await opened.send("keep going")
        profile = load_profile(opened.root, {**env, "HOME": str(tmp_path / "home")})
        second = await opened.send("keep going")
        rows = dict(await status_report(opened, env))
    finally:
        await opened.aclose()
    assert first.stop == second.stop == "max_budget"
    assert profile_path(opened.root, env).is_file()
    seen = profile.models[MODEL]
    assert seen.rounds == 4 and seen.tokens_per_round == 210 and abs(seen.cost_per_round - 0.00075) < 1e-9
    assert profile.tools["Bash"] == 4
    reminders = [json.dumps(r.json()["messages"][-1]) for r in server.requests]
    estimates = [text for text in reminders if "left at this project's average" in text]
    assert len(estimates) >= 1 and all(index >= 4 for index, text in enumerate(reminders) if text in estimates)
    assert "about 1 model call left" in estimates[0]
    assert "210 tokens, $0.0008 per model call (8 seen)" in rows["Agent profile"]
    assert rows["Budget estimate"] == "about 4 model calls per run under $0.003"


async def test_standing_instructions_join_the_system_prompts_stable_part_and_status(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server, lambda body: ([{"type": "text", "text": "ok"}], 10))
    env = _state(tmp_path)
    opened, _ = conversation(tmp_path, server, env)
    try:
        await opened.send("hello")
        kept = set_standing_instructions(opened, "  Answer in French.  ")
        await opened.send("hello again")
        rows = dict(await status_report(opened, env))
    finally:
        await opened.aclose()
    assert kept == "Answer in French."
    systems: list[Any] = [r.json()["system"] for r in server.requests]
    assert "Answer in French." not in json.dumps(systems[0])
    cached = [block for block in systems[1] if block.get("cache_control")]
    assert cached and "standing instructions for this project" in cached[-1]["text"]
    assert cached[-1]["text"].endswith("Answer in French.")
    assert rows["Standing instructions"] == "Answer in French."
    reopened, _ = conversation(tmp_path, server, env)  # (kept for the project: the next conversation has them)
    try:
        assert "Answer in French." in reopened.agent.config.system_prompt
    finally:
        await reopened.aclose()


FOLDS = """
import sys, time
from pathlib import Path
from agentui.core.events import AgentEnd, ToolStart
from agentui.core.messages import Usage
from agentui.core.profile import ProfileKeeper

root, go, env = Path(sys.argv[1]), Path(sys.argv[2]), {"AGENTUI_STATE_DIR": sys.argv[3]}
keeper = ProfileKeeper(root, "s", env)
while not go.exists():
    time.sleep(0.005)
for _ in range(40):
    keeper(ToolStart(session_id="s", tool_call_id="t", name="Bash", input={}))
    keeper(AgentEnd(session_id="s", stop="end_turn", num_turns=1, usage=Usage()))
"""


def test_two_sessions_ending_runs_at_once_both_count_in_the_profile(tmp_path: Path) -> None:
    """Each fold reads, changes and writes the profile back; a lock beside it keeps one process's write from
    replacing what the other wrote in between (80 counted, not fewer)."""
    import subprocess
    import sys

    root, go, state = tmp_path / "project", tmp_path / "go", tmp_path / "state"
    root.mkdir()
    folds = [
        subprocess.Popen([sys.executable, "-c", FOLDS, str(root), str(go), str(state)], stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    go.touch()
    for process in folds:
        _, error = process.communicate(timeout=120)
        assert process.returncode == 0, error.decode()
    assert load_profile(root, {"AGENTUI_STATE_DIR": str(state)}).tools["Bash"] == 80
