"""`agentui --input-format commands`: agentui's own protocol, driven as a program would drive it: commands in on stdin
(one JSON line each), events and each command's end out on stdout. A permission is asked and answered over it, a
bad line is one sentence and loses nothing, and a closed stdin answers what waits with a no instead of hanging."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.e2e.test_print_mode import anthropic_env
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

CEILING = 60.0


class Driver:
    """agentui under `--input-format commands`, its stdout read line by line as it comes."""

    def __init__(self, agentui_bin: str, env: dict[str, str], cwd: Path, *flags: str) -> None:
        self.process = subprocess.Popen(
            [agentui_bin, "--input-format", "commands", *flags],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, command: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((command if isinstance(command, str) else json.dumps(command)) + "\n")
        self.process.stdin.flush()

    def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        """The next line of this type (with these fields), every line before it kept in `seen`."""
        while True:
            line = self.lines.get(timeout=CEILING)
            assert line is not None, f"stdout ended before a {kind} line; stderr: {self.process.stderr.read()}"  # type: ignore[union-attr]
            self.seen.append(line)
            if line["type"] == kind and all(line.get(key) == value for key, value in fields.items()):
                return line

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=CEILING)
        while (line := self.lines.get(timeout=CEILING)) is not None:
            self.seen.append(line)
        return code, self.process.stderr.read()


def test_a_prompt_whose_tool_call_is_asked_and_answered_over_stdio(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "hello.txt", "content": "hi\n"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([write], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Written."}])),
    )
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), tmp_path)
    agentui.send({"type": "send", "id": "p1", "text": "write hello.txt"})
    asked = agentui.until("permission_request")
    assert asked["tool_name"] == "Write" and not (tmp_path / "hello.txt").exists()
    agentui.send({"type": "set_mode", "id": "m1", "mode": "acceptEdits"})  # (handled while the run waits)
    assert agentui.until("command_done", id="m1")["outcome"] is None
    decision = {"behavior": "allow"}
    agentui.send({"type": "answer", "id": "a1", "request_id": asked["request_id"], "decision": decision})
    assert agentui.until("command_done", id="a1")["outcome"] is True
    done = agentui.until("command_done", id="p1")
    assert done["command"] == "send" and done["outcome"]["text"] == "Written." and done["outcome"]["stop"] == "end_turn"
    assert (tmp_path / "hello.txt").read_text() == "hi\n"
    agentui.send({"type": "cycle_mode", "id": "c1"})  # acceptEdits -> plan
    assert agentui.until("command_done", id="c1")["outcome"] == "plan"
    code, stderr = agentui.close()
    assert code == 0 and stderr == ""
    kinds = [line["type"] for line in agentui.seen]
    for kind in ("agent_start", "text_delta", "tool_start", "tool_end", "permission_resolved", "agent_end"):
        assert kind in kinds
    assert kinds.index("permission_resolved") < kinds.index("tool_end")


def test_a_bad_line_is_one_sentence_and_the_commands_after_it_still_run(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Still here."}])))
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), tmp_path)
    for bad in ("{not json", json.dumps({"type": "telepathy"}), json.dumps({"type": "send"}), "[1, 2]"):
        agentui.send(bad)
        failed = agentui.until("command_failed")
        assert failed["id"] is None and failed["error"].startswith("line ") and "\n" not in failed["error"]
    agentui.send({"type": "rewind", "id": "r1", "to": "no-such-prompt"})
    failed = agentui.until("command_failed", id="r1")
    assert failed["command"] == "rewind" and "\n" not in failed["error"] and "Traceback" not in failed["error"]
    agentui.send({"type": "send", "id": "p1", "text": "are you there?"})
    assert agentui.until("command_done", id="p1")["outcome"]["text"] == "Still here."
    code, stderr = agentui.close()
    assert code == 1 and "Traceback" not in stderr  # (a command failed: the exit says so)


def test_a_closed_stdin_answers_a_waiting_question_no_and_ends(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "x.txt", "content": "x\n"}}
    server.enqueue(
        Reply(chunks=anthropic_stream([write], stop_reason="tool_use")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Understood."}])),
    )
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), tmp_path)
    agentui.send({"type": "send", "id": "p1", "text": "write x.txt"})
    agentui.until("permission_request")
    code, stderr = agentui.close()
    assert code == 0 and stderr == ""
    resolved = next(line for line in agentui.seen if line["type"] == "permission_resolved")
    assert resolved["decision"]["behavior"] == "deny" and "closed its input" in resolved["decision"]["message"]
    done = next(line for line in agentui.seen if line["type"] == "command_done")
    assert done["id"] == "p1" and done["outcome"]["text"] == "Understood."
    assert not (tmp_path / "x.txt").exists()


def test_the_flags_of_the_commands_protocol_are_checked(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [agentui_bin, "--input-format", "commands", "--output-format", "text"],
        env=clean_env, cwd=tmp_path, capture_output=True, text=True, timeout=CEILING, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip() == (
        "agentui: --input-format commands needs --output-format events."
    )


def test_a_resumed_session_is_replayed_as_the_events_of_its_live_run(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"file_path": "a.txt", "content": "a\n"}}
    server.enqueue(  # (each answer its own message id, as a real server's: the session joins lines by it)
        Reply(chunks=anthropic_stream([write], stop_reason="tool_use", message_id="m1")),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Wrote a.txt."}], message_id="m2")),
    )
    env = anthropic_env(clean_env, server)
    first = Driver(agentui_bin, env, tmp_path, "--permission-mode", "acceptEdits")
    first.send({"type": "send", "id": "p1", "text": "write a.txt"})
    session_id = first.until("command_done", id="p1")["outcome"]["session_id"]
    assert first.close()[0] == 0
    drawn = ("user_message", "message_start", "text_delta", "tool_start", "tool_end", "message_end")
    live = [line["type"] for line in first.seen if line["type"] in drawn]

    again = Driver(agentui_bin, env, tmp_path, "--resume", session_id)
    again.send({"type": "replay", "id": "r1"})
    replayed = again.until("command_done", id="r1")["outcome"]
    assert again.close()[0] == 0
    kinds = [event["type"] for event in replayed if event["type"] in drawn]
    assert kinds == [kind for index, kind in enumerate(live) if kind != "text_delta" or live[index - 1] != kind]
    # (the same events in the same order as the live run's, a streamed text's deltas replayed as one)
    [ended] = [event for event in replayed if event["type"] == "tool_end"]
    assert ended["tool_call_id"] == "w1" and ended["details"]["type"] == "create"
    assert replayed[-1]["message"]["content"][0]["text"] == "Wrote a.txt."


def _texts(request: dict[str, Any]) -> list[str]:
    """The prompts and answers a request sends (not the reminders beside them)."""
    said = []
    for message in request["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        said += [block["text"] for block in blocks if block.get("type") == "text" and block["text"][:1] != "<"]
    return said


def test_a_branch_continues_on_a_new_session_forked_at_an_earlier_answer(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    for n in (1, 2, 3, 4):  # (each answer its own message id, as a real server's)
        server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": f"A{n}."}], message_id=f"msg_{n}")))
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), tmp_path)
    agentui.send({"type": "send", "id": "p1", "text": "one"})
    agentui.until("command_done", id="p1")
    agentui.send({"type": "send", "id": "p2", "text": "two"})
    agentui.until("command_done", id="p2")
    [session] = (Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl")
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    [answer] = [e["uuid"] for e in entries if e.get("type") == "assistant" and "A1." in json.dumps(e["message"])]
    agentui.send({"type": "continue", "id": "b1", "kind": "branch", "text": "three", "at": answer})
    start = agentui.until("agent_start", trigger="branch")
    branched = agentui.until("command_done", id="b1")["outcome"]
    assert branched["session_id"] == start["session_id"] != session.stem and branched["result"]["text"] == "A3."
    agentui.send({"type": "send", "id": "p4", "text": "four"})  # (on the branch from now on)
    agentui.until("command_done", id="p4")
    code, stderr = agentui.close()
    assert code == 0, stderr
    asked = [request.json() for request in server.requests if request.path.endswith("/messages")]
    assert _texts(asked[-2]) == ["one", "A1.", "three"] and _texts(asked[-1]) == ["one", "A1.", "three", "A3.", "four"]
    assert (session.parent / f"{branched['session_id']}.jsonl").exists() and "three" not in session.read_text()


def test_idle_rotate_starts_a_new_session_with_the_summary_when_a_prompt_comes_after_a_gap(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    for n, text in enumerate(("A1.", "The person said one.", "A2."), start=1):
        server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": text}], message_id=f"msg_{n}")))
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), tmp_path, "--idle-rotate", "5")
    agentui.send({"type": "send", "id": "p1", "text": "one"})
    agentui.until("command_done", id="p1")
    [session] = (Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl")
    os.utime(session, (time.time() - 600, time.time() - 600))  # (ten minutes idle)
    agentui.send({"type": "send", "id": "p2", "text": "two"})
    rotated = agentui.until("session_rotated")
    assert rotated["session_id"] == session.stem and rotated["new_session_id"] != session.stem
    assert agentui.until("command_done", id="p2")["outcome"]["text"] == "A2."
    code, stderr = agentui.close()
    assert code == 0, stderr
    asked = [request.json() for request in server.requests if request.path.endswith("/messages")]
    assert _texts(asked[-1])[-1] == "two" and "one" not in _texts(asked[-1])
    assert "The person said one." in json.dumps(asked[-1]["messages"])
    assert (session.parent / f"{rotated['new_session_id']}.jsonl").exists()
