"""`agentui -p --attempts`: parallel attempts from the command line, against the loopback Messages API in a real git
repository: the chosen attempt's answer is printed and its changes applied, json tells every attempt's outcome, and
no worktree is left behind."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.core.test_attempts import BRANCH_TURNS, Played
from tests.support.loopback import LoopbackServer, Reply
from tests.support.work_tree import committed, git


def attempt(
    agentui_bin: str, env: dict[str, str], server: LoopbackServer, root: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [agentui_bin, "-p", "Write the answer.", "--attempt-models", "m1,m2,m3", "--permission-mode", "acceptEdits",
         *flags],
        env={**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x"},
        cwd=root, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    committed(project, {"calc.py": "def add(a, b):\n    return a - b\n"})
    return project


def test_the_judges_choice_is_printed_and_applied(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, root: Path
) -> None:
    Played(server)  # (the judge chooses b3)
    done = attempt(agentui_bin, clean_env, server, root, "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["chosen"] == "b3" and result["ranking"][0] == "b3" and result["reasons"] == "Longest."
    assert result["result"] == BRANCH_TURNS["m3"][1] and result["subtype"] == "success"
    outcomes = {a["id"]: a for a in result["attempts"]}
    assert {a["model"] for a in outcomes.values()} == {"m1", "m2", "m3"}
    assert "+one" in outcomes["b1"]["changes"] and outcomes["b2"]["changes"] == ""
    assert all(a["stop_reason"] == "end_turn" for a in outcomes.values())
    assert (root / "answer.txt").read_text() == "three\n" * 20
    assert "b3 was chosen" in done.stderr
    assert git(root, "worktree", "list").count("\n") == 1 and git(root, "status", "--porcelain") == "?? answer.txt\n"


def test_fewest_tokens_in_text_and_refusals_in_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, root: Path
) -> None:
    Played(server)
    done = attempt(agentui_bin, clean_env, server, root, "--evaluate", "tokens")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == BRANCH_TURNS["m2"][1] and not (root / "answer.txt").exists()
    bad = attempt(agentui_bin, clean_env, server, root, "--evaluate", "loudest")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr


def test_an_attempt_on_another_provider(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, root: Path
) -> None:
    from tests.support.sse import data_line, openai_chunk

    Played(server)
    local = LoopbackServer()  # an OpenAI-compatible server (llama.cpp, Ollama) beside the Messages API
    said = "From the local model: nothing needs writing, and here is why at length. " * 20
    local.responder = lambda request: Reply(chunks=[
        openai_chunk({"role": "assistant", "content": said}), openai_chunk({}, finish="stop"), data_line("[DONE]"),
    ])  # fmt: skip
    try:
        done = subprocess.run(
            [agentui_bin, "-p", "Write the answer.", "--attempt-models", "m1,openai:qwen2.5-coder:7b",
             "--evaluate", "elaborate", "--permission-mode", "acceptEdits", "--output-format", "json"],
            env={**clean_env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x",
                 "OPENAI_BASE_URL": f"{local.url}/v1"},
            cwd=root, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    finally:
        local.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["chosen"] == "b2", result["attempts"]
    assert result["result"] == said
    assert [a["model"] for a in result["attempts"]] == ["m1", "qwen2.5-coder:7b"]
    assert [r.json()["model"] for r in local.requests] == ["qwen2.5-coder:7b"]
    assert not (root / "answer.txt").exists()  # (the chosen one changed nothing)


def test_attempts_with_their_own_instructions_and_thinking(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, root: Path
) -> None:
    Played(server)
    configs = [{"model": "m1", "system_append": "Be terse."}, {"model": "m2", "thinking_budget": 4096}]
    done = attempt(
        agentui_bin, clean_env, server, root, "--attempt-configs", json.dumps(configs), "--evaluate", "tokens"
    )
    assert done.returncode == 0, done.stderr
    sent = {r.json()["model"]: r.json() for r in server.requests if "tools" in r.json()}
    assert "Be terse." in json.dumps(sent["m1"]["system"]) and "Be terse." not in json.dumps(sent["m2"]["system"])
    assert sent["m2"]["thinking"] == {"type": "enabled", "budget_tokens": 4096} and "thinking" not in sent["m1"]
    bad = attempt(agentui_bin, clean_env, server, root, "--attempt-configs", '[{"model": "m1", "temperature": 2}, {}]')
    assert bad.returncode == 2 and "it may have model, system_append, thinking_budget" in bad.stderr
