"""`agentui -p` when the model asks a question or presents a plan, against the loopback Messages API: no one is there
to answer, so the model is told so in one clear sentence and nothing is changed, unless a rule approves plans."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.test_print_background import last_results, text_of, tool_call
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

PLAN = "# Plan\n\n1. Write done.txt\n"
QUESTION = {
    "question": "Which one?",
    "header": "Pick",
    "options": [{"label": "A", "description": ""}, {"label": "B", "description": ""}],
    "multiSelect": False,
}


def reply(*blocks: dict[str, object]) -> Reply:
    stop = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason=stop))


def run(agentui_bin: str, env: dict[str, str], server: LoopbackServer, project: Path, *flags: str) -> str:
    done = subprocess.run(
        [agentui_bin, "-p", "plan the work", *flags],
        env={**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def test_plan_mode_in_print_mode_asks_no_one_and_changes_nothing(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        reply(tool_call("AskUserQuestion", "q1", questions=[QUESTION])),
        reply(tool_call("ExitPlanMode", "p1", plan=PLAN)),
        reply(tool_call("Write", "w1", file_path="done.txt", content="done\n")),
        reply({"type": "text", "text": "Here is the plan."}),
    )
    out = run(agentui_bin, clean_env, server, project, "--permission-mode", "plan")
    assert out.strip() == "Here is the plan."
    question, plan, write = (last_results(server.requests[n]) for n in (1, 2, 3))
    assert question["q1"]["is_error"] and "no one can answer questions" in text_of(question["q1"])
    assert plan["p1"]["is_error"] and "no one can approve the plan" in text_of(plan["p1"])
    assert write["w1"]["is_error"] and "plan mode" in text_of(write["w1"])
    assert not (project / "done.txt").exists()
    # The model was told what plan mode means with the prompt.
    prompt = server.requests[0].json()["messages"][0]["content"]
    assert any("Plan mode is active" in block.get("text", "") for block in prompt)


def test_an_allow_rule_approves_the_plan_and_edits_are_then_asked_for(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        reply(tool_call("ExitPlanMode", "p1", plan=PLAN)),
        reply(tool_call("Write", "w1", file_path="done.txt", content="done\n")),
        reply({"type": "text", "text": "Stopped at the write."}),
    )
    run(agentui_bin, clean_env, server, project, "--permission-mode", "plan", "--allowedTools", "ExitPlanMode")
    plan, write = (last_results(server.requests[n]) for n in (1, 2))
    assert text_of(plan["p1"]).startswith("User has approved your plan.")
    # Out of plan mode, in the default mode: print mode cannot ask, so the write is refused (not for plan mode).
    assert write["w1"]["is_error"] and "cannot ask the user for permission" in text_of(write["w1"])
    assert not (project / "done.txt").exists()
    saved = list((Path(clean_env["HOME"]) / ".claude" / "plans").glob("*.md"))
    assert [p.read_text() for p in saved] == [PLAN]
