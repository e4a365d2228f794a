"""Sessions that both tools read alike: a conversation is made by one tool (agentui or the real Claude Code, against
the loopback model server, on one shared Claude config directory), then each tool resumes it with the same prompt;
the `messages` the two send must be the same, block for block. Claude Code's own additions (its system reminders:
the date, agent and skill listings) are named and left out of the comparison, and nothing else is."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import Terminal
from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sessions import claude_code_log_reads
from tests.support.sse import anthropic_stream
from tests.support.web_server import WebServer

Turn = list[dict[str, Any]]


class World:
    """One project and one home shared by both tools, a played model, and the tools to run."""

    def __init__(self, tmp_path: Path, server: LoopbackServer, agentui_bin: str, claude_bin: str) -> None:
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.project = tmp_path / "project"
        self.project.mkdir()
        (self.project / "notes.txt").write_text("hello\nworld\n")
        (self.project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        self.server = server
        self.env = {**claude_env(self.home, server.url), "AGENTUI_CONFIG_DIR": str(tmp_path / "agentui-config")}
        self.bins = {"agentui": agentui_bin, "claude": claude_bin}

    def play(
        self, turns: Callable[[dict[str, Any]], Turn], usage: Callable[[Turn], dict[str, int] | None] | None = None
    ) -> None:
        """The model answers each request with `turns(body)` (reporting `usage(turn)` where given); side requests
        (titles) get a short text."""
        counter = iter(range(1, 1000))

        def model(request: RecordedRequest) -> Reply:
            body = request.json()
            if "tools" not in body and not summarising(body):
                return Reply(chunks=anthropic_stream([{"type": "text", "text": "A title"}]))
            blocks = turns(body)
            stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
            return Reply(
                chunks=anthropic_stream(
                    blocks, stop_reason=stop, message_id=f"msg_{next(counter):03}", usage=usage and usage(blocks)
                )
            )

        self.server.responder = model

    def run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.bins[tool], "-p", *args, "--model", "claude-sonnet-4-5", "--output-format", "json"],
            env=self.env, cwd=self.project, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, f"{tool} {args}: {done.stderr[-2000:]}"
        return done

    def resumed_messages(self, tool: str, session_id: str) -> list[dict[str, Any]]:
        """The messages `tool` sends when it resumes the session (as a fork, so the file stays as it was)."""
        self.server.requests.clear()
        self.run(tool, "and now?", "--resume", session_id, "--fork-session")
        first = next(r.json() for r in self.server.requests if "tools" in r.json())
        return comparable(first["messages"])


CLAUDE_FILLER = [("user", "text", {"text": "Continue from where you left off."}),
                 ("assistant", "text", {"text": "No response requested."})]  # fmt: skip
"""What Claude Code adds when it resumes a conversation that ends in a local command's output (a /compact)."""


def last_prompt(body: dict[str, Any]) -> str:
    """The newest thing the person said, wherever Claude Code put its reminders around it."""
    for message in reversed(body["messages"]):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        said = [b["text"] for b in blocks if b.get("type") == "text" and not b["text"].lstrip().startswith("<")]
        if message["role"] == "user" and said:
            return said[-1]
        if message["role"] == "assistant":
            return ""
    return ""


def summarising(body: dict[str, Any]) -> bool:
    """A request for a compaction's summary: Claude Code's, or agentui's."""
    return "detailed summary of the conversation" in json.dumps(body["messages"][-1]) or (
        "You summarise a coding session" in json.dumps(body.get("system", ""))
    )


def comparable(messages: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """Each block as (role, type, what matters), without what Claude Code adds of its own: its system reminders,
    cache marks, the filler it puts after a local command, and the line break it ends a user text with when it
    joins consecutive user messages."""
    blocks = []
    for message in messages:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            if block["type"] == "text" and block["text"].lstrip().startswith("<system-reminder>"):
                continue  # Claude Code's own context: the date, the agents and skills it lists
            kept = {k: v for k, v in block.items() if k not in ("type", "cache_control", "citations")}
            if block["type"] == "text":
                kept["text"] = kept["text"].rstrip("\n")
            if block["type"] == "tool_result" and isinstance(kept.get("content"), list):
                kept["content"] = [{k: v for k, v in part.items() if k != "cache_control"} for part in kept["content"]]
            kept.setdefault("is_error", False) if block["type"] == "tool_result" else None
            blocks.append((message["role"], block["type"], kept))
    for at in range(len(blocks) - 1):
        if blocks[at : at + 2] == CLAUDE_FILLER:
            del blocks[at : at + 2]
            break
    # Claude Code puts its own assistant line between two user messages it would otherwise send in a row (after an
    # interruption), where agentui sends them as they are.
    return [b for at, b in enumerate(blocks) if not (b == CLAUDE_FILLER[1] and at and blocks[at - 1][0] == "user")]


def readers_read(world: World, ccusage_bin: str) -> None:
    """Every session the test wrote loads in claude-code-log, and ccusage counts the tokens each recorded."""
    claude = world.home / ".claude"
    sessions = sorted((claude / "projects").glob("*/*.jsonl"))
    assert sessions
    recorded: dict[str, int] = {}
    for path in sessions:
        claude_code_log_reads(path)
        usage = [json.loads(line).get("message", {}).get("usage") for line in path.read_text().splitlines()]
        recorded[path.stem] = sum(u.get("input_tokens", 0) + u.get("output_tokens", 0) for u in usage if u)
    done = subprocess.run(
        [ccusage_bin, "session", "--json", "--offline"], env={**world.env, "CLAUDE_CONFIG_DIR": str(claude)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    counted = {row["period"]: row for row in json.loads(done.stdout)["session"]}
    for session_id, tokens in recorded.items():
        if tokens:
            assert session_id in counted, (session_id, list(counted))


def answered(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]["content"]
    return isinstance(last, list) and any(block.get("type") == "tool_result" for block in last)


def tool(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def next_turn(turns: list[Turn], body: dict[str, Any]) -> Turn:
    """The turn after the results the request holds; "{shell}" in it is the id of the latest background shell."""
    turn = json.dumps(turns[min(results_seen(body), len(turns) - 1)])
    started = re.findall(r"background with ID: (\w+)", json.dumps(body["messages"]))
    return list(json.loads(turn.replace("{shell}", started[-1] if started else "")))


def results_seen(body: dict[str, Any]) -> int:
    return sum(
        1
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    )


SCENARIOS: dict[str, Callable[[Path], list[Turn]]] = {
    "plain": lambda root: [[text("Plainly, hello.")]],
    "every tool": lambda root: [
        [text("Looking."), tool("t1", "Read", file_path=str(root / "calc.py"))],
        [tool("t2", "Grep", pattern="return", path=str(root))],
        [tool("t3", "Glob", pattern="*.py")],
        [tool("t4", "Edit", file_path=str(root / "calc.py"), old_string="a - b", new_string="a + b")],
        [tool("t5", "Write", file_path=str(root / "new.txt"), content="new\n")],
        [tool("t6", "Bash", command="echo done", description="Say done")],
        [text("All done.")],
    ],
    "the other tools": lambda root: [
        [tool("k1", "TaskCreate", subject="Fix add", description="Make add add", activeForm="Fixing add")],
        [tool("k2", "TaskUpdate", taskId="1", status="completed")],
        [tool("k3", "TaskList")],
        [tool("n0", "Read", file_path=str(root / "sums.ipynb"))],
        [tool("n1", "NotebookEdit", notebook_path=str(root / "sums.ipynb"), cell_id="c1", new_source="x = 2")],
        [tool("b1", "Bash", command="echo started; sleep 60", description="Wait", run_in_background=True)],
        [tool("o1", "TaskOutput", task_id="{shell}", block=True, timeout=3000)],  # (waits for "started")
        [tool("s1", "TaskStop", task_id="{shell}")],
        [text("All done.")],
    ],
    "parallel tool calls": lambda root: [
        [
            text("Both at once."),
            tool("p1", "Read", file_path=str(root / "notes.txt")),
            tool("p2", "Read", file_path=str(root / "calc.py")),
        ],
        [text("Read both.")],
    ],
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_a_session_resumes_alike_in_both(world: World, maker: str, scenario: str) -> None:
    turns = SCENARIOS[scenario](world.project)
    (world.project / "sums.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    world.play(lambda body: next_turn(turns, body) if "and now?" not in json.dumps(
        body["messages"][-1]) else [text("Resumed.")])  # fmt: skip
    made = world.run(maker, "do the work", "--allowedTools", "Read,Grep,Glob,Edit,Write,Bash(echo:*),NotebookEdit")
    session_id = json.loads(made.stdout)["session_id"]
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs
    results = [block for role, kind, block in ours if kind == "tool_result"]
    assert len(results) == sum(1 for turn in turns for block in turn if block["type"] == "tool_use")
    assert not [block for block in results if block["is_error"]]  # (each call did its work, in either tool)


@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_a_compacted_session_resumes_alike_in_both(world: World, maker: str) -> None:
    turns = SCENARIOS["every tool"](world.project)

    def model(body: dict[str, Any]) -> Turn:
        said = json.dumps(body["messages"][-1])
        if "and now?" in said:
            return [text("Resumed.")]
        if summarising(body):
            return [text("Summary: calc.py's add was fixed; new.txt was written.")]
        return turns[min(results_seen(body), len(turns) - 1)]

    world.play(model)
    made = world.run(maker, "do the work", "--allowedTools", "Read,Grep,Glob,Edit,Write,Bash(echo:*)")
    session_id = json.loads(made.stdout)["session_id"]
    world.run(maker, "/compact", "--resume", session_id)
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs


def written_results(world: World, part: str = "toolUseResult") -> dict[str, Any]:
    """Each tool result's toolUseResult (or with part "block", its tool_result block) in the newest session file,
    by call id."""
    newest = max((world.home / ".claude" / "projects").glob("*/*.jsonl"), key=lambda path: path.stat().st_mtime)
    found = {}
    for line in newest.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "user" and "toolUseResult" in entry:
            block = entry["message"]["content"][0]
            found[block["tool_use_id"]] = block if part == "block" else entry[part]
    return found


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Sums\n", "Adding."]},
        {"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\n", "print(x)"], "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}]},
        {"cell_type": "code", "id": "c2", "metadata": {}, "source": "1/0", "execution_count": 2,
         "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                      "traceback": ["Traceback", "1/0"]}]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}  # fmt: skip


def test_tool_results_are_written_in_claude_codes_shapes(world: World) -> None:
    root, notebook = world.project, str(world.project / "sums.ipynb")
    turns = [
        [tool("r1", "Read", file_path=str(root / "calc.py"))],
        [tool("g1", "Grep", pattern="return", path=str(root))],
        [tool("g2", "Grep", pattern="return", path=str(root), output_mode="content")],
        [tool("f1", "Glob", pattern="*.py")],
        [tool("e1", "Edit", file_path=str(root / "calc.py"), old_string="a - b", new_string="a + b")],
        [tool("w1", "Write", file_path=str(root / "new.txt"), content="new\n")],
        [tool("w2", "Write", file_path=str(root / "new.txt"), content="newer\n")],
        [tool("b1", "Bash", command="echo done", description="Say done")],
        [tool("x1", "Read", file_path=str(root / "missing.txt"))],
        [tool("k1", "TaskCreate", subject="Fix add", description="Make add add", activeForm="Fixing add")],
        [tool("k2", "TaskUpdate", taskId="1", status="in_progress")],
        [tool("k3", "TaskList")],
        [tool("k4", "TaskGet", taskId="1")],
        [tool("n0", "Read", file_path=notebook)],
        [tool("n1", "NotebookEdit", notebook_path=notebook, cell_id="c1", new_source="x = 2")],
        [tool("n2", "NotebookEdit", notebook_path=notebook, cell_id="c1", new_source="## New", cell_type="markdown",
              edit_mode="insert")],
        [tool("n3", "NotebookEdit", notebook_path=notebook, cell_id="c2", new_source="", edit_mode="delete")],
        [tool("b2", "Bash", command="echo started; sleep 60", description="Wait", run_in_background=True)],
        [tool("o1", "TaskOutput", task_id="{shell}", block=True, timeout=3000)],  # (waits for "started")
        [tool("s1", "TaskStop", task_id="{shell}")],
        [text("All done.")],
    ]  # fmt: skip

    written, blocks = {}, {}
    for maker in ("claude", "agentui"):
        (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (root / "new.txt").unlink(missing_ok=True)
        (root / "sums.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
        world.play(lambda body: next_turn(turns, body))
        world.run(maker, "do the work", "--allowedTools", "Read,Grep,Glob,Edit,Write,Bash(echo:*),NotebookEdit")
        written[maker] = written_results(world)
        blocks[maker] = written_results(world, "block")
    theirs, ours = written["claude"], written["agentui"]
    assert set(ours) == set(theirs)
    for call_id, their_block in blocks["claude"].items():  # (Claude Code says is_error: false of Bash's results)
        assert blocks["agentui"][call_id].get("is_error") == their_block.get("is_error"), call_id
    for call_id, their in theirs.items():
        our = ours[call_id]
        if isinstance(their, str):  # an error: its text
            assert isinstance(our, str) and our.startswith("Error: ") and their.startswith("Error: "), call_id
            continue
        assert set(their) <= set(our), (call_id, set(their) - set(our))
        for key in ("type", "mode", "filenames", "numFiles", "oldString", "newString", "originalFile"):
            assert our.get(key) == their.get(key), (call_id, key, our.get(key), their.get(key))
    assert ours["r1"]["file"] == theirs["r1"]["file"]  # the lines read, and how many, as Claude Code counts them
    assert ours["w1"]["structuredPatch"] == theirs["w1"]["structuredPatch"] == []
    assert ours["w2"]["structuredPatch"] == theirs["w2"]["structuredPatch"]
    assert ours["b1"]["stdout"] == theirs["b1"]["stdout"] == "done"
    assert ours["g2"]["content"] == theirs["g2"]["content"]
    for call_id in ("k1", "k2", "k3", "k4", "n0"):  # the task list, and a notebook's cells with their outputs
        assert ours[call_id] == theirs[call_id], call_id
    # Left out: what each wrote itself (Claude Code writes a new source as one string, agentui as lines with a final
    # line break, as Jupyter does), and an inserted cell's id, new in each.
    for call_id, own in (("n1", ()), ("n2", ("cell_id", "original_file")), ("n3", ("original_file",))):
        left_out = {"updated_file", *own}
        assert without(ours[call_id], left_out) == without(theirs[call_id], left_out), call_id
    assert without(ours["b2"], {"backgroundTaskId"}) == without(theirs["b2"], {"backgroundTaskId"})
    assert without(ours["o1"]["task"], {"task_id"}) == without(theirs["o1"]["task"], {"task_id"})
    assert without(ours["s1"], {"task_id", "message"}) == without(theirs["s1"], {"task_id", "message"})


def without(found: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {key: value for key, value in found.items() if key not in keys}


def test_hooks_run_alike_even_for_a_call_a_deny_rule_refuses(world: World) -> None:
    settings = world.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    turns = [[tool("b1", "Bash", command="rm notes.txt", description="Remove it")], [text("Could not.")]]
    inputs = {}
    for maker in ("claude", "agentui"):
        log = world.home / f"{maker}-hooks.log"
        hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}
        settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}, "permissions": {"deny": ["Bash(rm:*)"]}}))
        world.play(lambda body: turns[min(results_seen(body), len(turns) - 1)])
        session_id = json.loads(world.run(maker, "clean up").stdout)["session_id"]
        [line] = [json.loads(text) for text in log.read_text().splitlines() if text.strip()]
        inputs[maker] = line
        # the prompt's id is the one every user line of its run carries
        (written,) = (world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
        users = [e for e in map(json.loads, written.read_text().splitlines()) if e.get("type") == "user"]
        assert len(users) == 2 and {e.get("promptId") for e in users} == {line["prompt_id"]}, maker
    assert (world.project / "notes.txt").exists()
    theirs, ours = inputs["claude"], inputs["agentui"]
    assert set(theirs) <= set(ours), set(theirs) - set(ours)
    for key in ("hook_event_name", "tool_name", "tool_input", "tool_use_id", "permission_mode"):
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_a_forked_session_resumes_alike_in_both(world: World, maker: str) -> None:
    def model(body: dict[str, Any]) -> Turn:
        said = json.dumps(body["messages"][-1])
        if "and now?" in said:
            return [text("Resumed.")]
        if "more, in a fork" in said:
            return [text("Forked answer.")]
        turns = SCENARIOS["parallel tool calls"](world.project)
        return turns[min(results_seen(body), len(turns) - 1)]

    world.play(model)
    made = world.run(maker, "do the work", "--allowedTools", "Read")
    first = json.loads(made.stdout)["session_id"]
    forked = json.loads(world.run(maker, "more, in a fork", "--resume", first, "--fork-session").stdout)["session_id"]
    assert forked != first
    ours = world.resumed_messages("agentui", forked)
    theirs = world.resumed_messages("claude", forked)
    assert ours == theirs and ("user", "text", {"text": "more, in a fork"}) in ours


@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_a_session_with_a_sub_agent_resumes_alike_in_both(world: World, maker: str) -> None:
    task = "Read notes.txt and say what it holds."

    def model(body: dict[str, Any]) -> Turn:
        said = json.dumps(body["messages"][-1])
        if "and now?" in said:
            return [text("Resumed.")]
        if task in json.dumps(body["messages"][0]):  # the sub-agent's own conversation
            return [text("It holds hello and world.")]
        if results_seen(body):
            return [text("The agent says it holds hello and world.")]
        call = tool("a1", "Task", description="Read the notes", prompt=task, subagent_type="general-purpose")
        return [text("Asking an agent."), call]

    world.play(model)
    made = world.run(maker, "delegate it", "--allowedTools", "Task,Agent,Read")
    session_id = json.loads(made.stdout)["session_id"]
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs
    assert ours[2][:2] == ("assistant", "tool_use") and ours[2][2]["id"] == "a1"
    assert ours[2][2]["name"] == "Agent"  # (2.0's name for it, sent as 2.1's, as Claude Code does)
    assert task not in json.dumps(next(block for block in ours if block[0] == "user"))  # (no sidechain line)


@pytest.mark.parametrize("then", ["again", ""])
def test_a_rewound_session_resumes_alike_in_both(world: World, then: str) -> None:
    def model(body: dict[str, Any]) -> Turn:
        said = json.dumps(body["messages"][-1])
        return [text({"and now?": "Resumed.", "first": "One.", "second": "Two.", "again": "Again."}.get(
            next((key for key in ("and now?", "again", "second", "first") if key in said), "first"), "?"))]  # fmt: skip

    world.play(model)
    session_id = json.loads(world.run("agentui", "first").stdout)["session_id"]
    world.run("agentui", "second", "--resume", session_id)
    [path] = (world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    second = next(e for e in entries if e.get("type") == "user" and e["message"].get("content") == "second")
    # the rewind, then a new prompt or (with none) nothing else: the file says where resuming starts either way
    world.run("agentui", then, "--resume", session_id, "--rewind", second["uuid"], "--rewind-only", "conversation")
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs
    assert [b[2]["text"] for b in ours] == ["first", "One.", *(["again", "Again."] if then else []), "and now?"]


@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_an_interrupted_session_resumes_alike_in_both(world: World, maker: str) -> None:
    import signal
    import threading

    gate = threading.Event()
    long_answer = anthropic_stream([text("A long answer " * 40)], pieces=40, message_id="msg_long")

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if "tools" not in body:
            return Reply(chunks=anthropic_stream([text("A title")]))
        if "and now?" in json.dumps(body["messages"][-1]):
            return Reply(chunks=anthropic_stream([text("Resumed.")]))
        return Reply(chunks=long_answer, gate=gate, gate_after=10)

    world.server.responder = model
    process = subprocess.Popen(
        [world.bins[maker], "-p", "talk at length", "--output-format", "stream-json", "--verbose",
         "--include-partial-messages", "--model", "claude-sonnet-4-5"],
        env=world.env, cwd=world.project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        for line in process.stdout:  # until the answer has begun
            if '"text_delta"' in line:
                break
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    finally:
        gate.set()
    result = json.loads(out.splitlines()[-1])
    assert result["subtype"] == "error_during_execution"
    ours = world.resumed_messages("agentui", result["session_id"])
    theirs = world.resumed_messages("claude", result["session_id"])
    assert ours == theirs
    if maker == "agentui":  # (Claude Code stopped by SIGINT in print mode writes neither the partial answer nor this)
        assert ("user", "text", {"text": "[Request interrupted by user]"}) in ours


@pytest.mark.parametrize("maker", ["agentui", "claude"])
def test_an_automatically_compacted_session_resumes_alike_in_both(world: World, maker: str) -> None:
    turns = SCENARIOS["every tool"](world.project)
    summaries: list[str] = []

    def model(body: dict[str, Any]) -> Turn:
        said = json.dumps(body["messages"][-1])
        if "and now?" in said:
            return [text("Resumed.")]
        if summarising(body):
            summaries.append(maker)
            return [text("Summary: the work is under way.")]
        if "go on" in said:
            return [text("Going on.")]
        return turns[min(results_seen(body), len(turns) - 1)]

    # The work's last answer reports 50,000 tokens read: past 10% of a 100,000-token auto-compact window, so each
    # compacts on its own before the next prompt's first request. (Claude Code compacts a model outside its own table
    # only when an auto-compact window is set; every answer that large would trip its breaker against refilling.)
    world.env |= {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "10", "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}
    last = turns[-1]
    world.play(model, usage=lambda turn: {"input_tokens": 50_000 if turn == last else 900, "output_tokens": 50})
    made = world.run(maker, "do the work", "--allowedTools", "Read,Grep,Glob,Edit,Write,Bash(echo:*)")
    session_id = json.loads(made.stdout)["session_id"]
    world.run(maker, "go on", "--resume", session_id)  # (Claude Code compacts before a prompt's first request)
    assert summaries == [maker], "no compaction happened, or more than one"
    (written,) = (world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    entries = [json.loads(line) for line in written.read_text().splitlines()]
    [boundary] = [at for at, e in enumerate(entries) if e.get("subtype") == "compact_boundary"]
    assert entries[boundary]["compactMetadata"]["trigger"] == "auto"
    # The results compaction kept (agentui keeps the latest turns; Claude Code keeps none) are written again whole,
    # though the compaction came in a later run than the calls.
    results = [(at, e["message"]["content"][0]["tool_use_id"], e["toolUseResult"]) for at, e in enumerate(entries)
               if e.get("type") == "user" and "toolUseResult" in e]  # fmt: skip
    first_written = {call_id: found for at, call_id, found in reversed(results) if at < boundary}
    again = [(call_id, found) for at, call_id, found in results if at > boundary]
    assert all(found == first_written[call_id] for call_id, found in again)
    assert (len(again) > 0) == (maker == "agentui")
    for knob in ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"):
        del world.env[knob]  # (resumed, each reads what was written, and neither compacts it again)
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs
    said = json.dumps(ours)
    assert "Summary: the work is under way." in said and "do the work" not in said


def test_a_sub_agent_s_result_is_written_in_claude_codes_shape(world: World) -> None:
    task = "Read notes.txt and say what it holds."

    def model(body: dict[str, Any]) -> Turn:
        if task in json.dumps(body["messages"][0]):
            return [text("It holds hello and world.")]
        if results_seen(body):
            return [text("Done.")]
        return [tool("a1", "Task", description="Read the notes", prompt=task, subagent_type="general-purpose")]

    written = {}
    for maker in ("claude", "agentui"):
        world.play(model)
        world.run(maker, "delegate it", "--allowedTools", "Task,Agent,Read")
        written[maker] = written_results(world)["a1"]
    theirs, ours = written["claude"], written["agentui"]
    assert set(theirs) <= set(ours), set(theirs) - set(ours)
    for key in ("status", "prompt", "agentType", "content", "totalToolUseCount"):
        assert ours[key] == theirs[key], key


def test_a_session_rewound_in_claude_code_resumes_alike_in_both(world: World) -> None:
    """(Rewound with nothing said after, Claude Code 2.1.197 writes nothing: its rewind forks the conversation once
    something is said.)"""
    from tests.interop.test_claude_code_views import trusting

    answers = {"and now?": "Resumed.", "again": "Again.", "second": "Two.", "first": "One."}
    world.play(lambda body: [text(answers.get(last_prompt(body), "?"))])
    trusting(world)
    session_id = json.loads(world.run("claude", "first").stdout)["session_id"]
    world.run("claude", "second", "--resume", session_id)
    terminal = Terminal(f"{world.bins['claude']} --resume {session_id}", world.env, world.project)
    try:  # Claude Code's own rewind: Esc Esc, the prompt "second", restore the conversation, then a new prompt
        terminal.wait_for("Two.")
        terminal.keys("Escape")
        terminal.keys("Escape")
        terminal.wait_for("Enter to continue")
        press_until(terminal, "Up", "  ❯ second")  # (the menu's choice, not the prompt in the transcript)
        terminal.keys("Enter")
        terminal.wait_for("Restore conversation")
        terminal.keys("Enter")
        terminal.wait_gone("Restore conversation")
        terminal.keys("C-u")
        terminal.type("again")
        terminal.keys("Enter")
        terminal.wait_for("Again.")
        written = next((world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
        deadline = time.monotonic() + 60
        # (Claude Code's resume follows its last `last-prompt` mark, which it writes as it exits: killed before that,
        # on a busy machine, it resumes the branch the rewind left. So it is asked to quit, and its mark waited for.)
        terminal.keys("C-c")
        terminal.keys("C-c")
        while '"type":"last-prompt"' not in written.read_text().replace(" ", "").partition('"text":"Again."')[2]:
            assert time.monotonic() < deadline, "Claude Code never marked its answer as the session's last prompt"
            time.sleep(0.1)
    finally:
        terminal.close()
    ours = world.resumed_messages("agentui", session_id)
    theirs = world.resumed_messages("claude", session_id)
    assert ours == theirs
    assert [b[2]["text"] for b in ours] == ["first", "One.", "again", "Again.", "and now?"]


def press_until(terminal: Terminal, key: str, shown: str) -> str:
    """Press `key` until `shown` is on the screen, and return the screen: a view that has just been drawn may not
    take keys yet, and drops them (each press is given ample time to show before the next)."""
    for _ in range(5):
        terminal.keys(key)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if shown in (screen := terminal.screen()):
                return screen
            time.sleep(0.1)
    raise AssertionError(f"{shown!r} never appeared after {key}; the screen was:\n{terminal.screen()}")


PUBLISHED = {
    "Bash": "BashOutput", "Edit": "FileEditOutput", "Write": "FileWriteOutput", "Glob": "GlobOutput",
    "Grep": "GrepOutput", "NotebookEdit": "NotebookEditOutput", "WebFetch": "WebFetchOutput",
    "TaskCreate": "TaskCreateOutput", "TaskGet": "TaskGetOutput", "TaskUpdate": "TaskUpdateOutput",
    "TaskList": "TaskListOutput", "TaskStop": "TaskStopOutput", "ExitPlanMode": "ExitPlanModeOutput",
}  # fmt: skip
"""Each tool's output type in the sdk-tools.d.ts Claude Code publishes with its CLI (what a toolUseResult holds)."""


def published_fields(declarations: str, interface: str) -> dict[str, bool]:
    """The top-level fields of `interface` in TypeScript `declarations`, each with whether it is required."""
    lines = declarations[declarations.index(f"export interface {interface} {{") :].splitlines()[1:]
    fields: dict[str, bool] = {}
    depth = 0
    for line in lines:
        if depth == 0 and line.startswith("}"):
            break
        found = re.match(r"  (\w+)(\??):", line) if depth == 0 else None
        if found:
            fields[found[1]] = not found[2]
        depth += line.count("{") - line.count("}")
    return fields


def test_results_hold_every_field_claude_codes_published_types_require(
    world: World, claude_bin: str, web: WebServer
) -> None:
    root, notebook = world.project, str(world.project / "sums.ipynb")
    (root / "sums.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    turns = [
        [tool("b1", "Bash", command="echo done", description="Say done")],
        [tool("r1", "Read", file_path=str(root / "calc.py"))],
        [tool("e1", "Edit", file_path=str(root / "calc.py"), old_string="a - b", new_string="a + b")],
        [tool("w1", "Write", file_path=str(root / "new.txt"), content="new\n")],
        [tool("f1", "Glob", pattern="*.py")],
        [tool("g1", "Grep", pattern="return", path=str(root))],
        [tool("n0", "Read", file_path=notebook)],
        [tool("n1", "NotebookEdit", notebook_path=notebook, cell_id="c1", new_source="x = 2")],
        [tool("u1", "WebFetch", url=f"{web.url}/notes.txt", prompt="What does it say?")],
        [tool("k1", "TaskCreate", subject="Fix add", description="Make add add", activeForm="Fixing add")],
        [tool("k2", "TaskUpdate", taskId="1", status="in_progress")],
        [tool("k3", "TaskList")],
        [tool("k4", "TaskGet", taskId="1")],
        [tool("b2", "Bash", command="sleep 60", description="Wait", run_in_background=True)],
        [tool("s1", "TaskStop", task_id="{shell}")],
        [tool("p1", "ExitPlanMode", plan="1. Fix add.")],
        [text("All done.")],
    ]

    def model(body: dict[str, Any]) -> Turn:
        if "tools" not in body:  # WebFetch's question about the page
            return [text("It says plain notes.")]
        return next_turn(turns, body)

    world.play(model)
    allowed = (
        "Read,Edit,Write,Glob,Grep,Bash(echo:*),Bash(sleep:*),NotebookEdit,WebFetch(domain:127.0.0.1),ExitPlanMode"
    )
    world.run("agentui", "do the work", "--allowedTools", allowed)
    ours = written_results(world)
    calls = {call_id: name for turn in turns for block in turn if block["type"] == "tool_use"
             for call_id, name in [(block["id"], block["name"])]}  # fmt: skip
    declarations = (Path(claude_bin).resolve().parents[1] / "sdk-tools.d.ts").read_text()
    checked = set()
    for call_id, name in calls.items():
        result = ours[call_id]
        assert isinstance(result, dict), (call_id, result)  # (an error would be its text)
        if name in PUBLISHED:
            required = {f for f, needed in published_fields(declarations, PUBLISHED[name]).items() if needed}
            assert required <= set(result), (name, required - set(result))
            checked.add(name)
    assert checked == set(PUBLISHED)


def test_a_custom_command_goes_to_the_model_and_the_session_as_claude_code_sends_it(
    tmp_path: Path, server: LoopbackServer, agentui_bin: str, claude_bin: str
) -> None:
    """The command as typed, then the prompt it expands to: both reach the model, in this order, from either tool,
    and the session records the command first (a viewer and agentui's app show it, not its expansion)."""
    world = World(tmp_path, server, agentui_bin, claude_bin)
    commands = world.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\n---\nReview $ARGUMENTS, briefly.\n")
    world.play(lambda body: [text("Reviewed.")])
    said: dict[str, list[str]] = {}
    for tool_name in ("claude", "agentui"):
        server.requests.clear()
        world.run(tool_name, "/review calc.py")
        first = next(r.json() for r in server.requests if "tools" in r.json())
        blocks = [b for m in first["messages"] for b in m["content"] if isinstance(m["content"], list)]
        said[tool_name] = [b["text"].strip() for b in blocks if not b["text"].lstrip().startswith("<system-reminder>")]
    assert (
        said["agentui"]
        == said["claude"]
        == [
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
            "<command-args>calc.py</command-args>",
            "Review calc.py, briefly.",
        ]
    )
