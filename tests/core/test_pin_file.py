"""The pin file under attack: a session id that is a path, a link planted where it is written, a corrupt file, two
processes pinning at once. It stays in the state directory, the person's alone, and loses nothing."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentui.core.context.pins import load_pins, pins_path, toggle_pin
from agentui.core.dirs import state_dir
from tests.support.chain import SessionChain

SESSION = "0b6f9c1e-2d4a-4c7e-9f3b-5a8d7e6c1b20"


def session_file(tmp_path: Path, prompts: list[str], session_id: str = SESSION) -> Path:
    chain = SessionChain(session_id, tmp_path)
    for number, prompt in enumerate(prompts):
        chain.add("user", {"role": "user", "content": prompt})
        answer = {"id": f"msg_{number}", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}
        chain.add("assistant", answer)
    path = tmp_path / "session.jsonl"
    chain.write(path)
    return path


def test_a_session_id_that_is_a_path_keeps_the_pin_file_inside_the_state_directory(tmp_path: Path) -> None:
    # (a resumed file's own sessionId names the session: it may be anything)
    odd = "../escaped"
    path = session_file(tmp_path, ["Keep this."], odd)
    assert toggle_pin(odd, path, prompt="Keep this.") is True
    pins = (state_dir() / "pins").resolve()
    assert pins_path(odd).resolve().parent == pins
    assert [pin.text for pin in load_pins(odd)[0]] == ["Keep this."]
    assert not (state_dir() / "escaped.json").exists()


def test_a_link_planted_where_the_pin_file_is_written_is_not_written_through(tmp_path: Path) -> None:
    path = session_file(tmp_path, ["Keep this."])
    target = tmp_path / "elsewhere.txt"
    target.write_text("untouched")
    folder = pins_path(SESSION).parent
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(target, folder / f"{SESSION}.{os.getpid()}.tmp")  # (the name it would be written under)
    assert toggle_pin(SESSION, path, prompt="Keep this.") is True
    assert target.read_text() == "untouched"
    assert not pins_path(SESSION).is_symlink()
    assert stat.S_IMODE(pins_path(SESSION).stat().st_mode) == 0o600


def test_pinning_over_a_corrupt_pin_file_loses_nothing(tmp_path: Path) -> None:
    path = session_file(tmp_path, ["Keep this."])
    pins_path(SESSION).parent.mkdir(parents=True, exist_ok=True)
    pins_path(SESSION).write_text('{"pins": [{"uuid": "u1", "text": "pinned by hand, then the file was cut')
    with pytest.raises(LookupError, match=r"could not be read; it was kept as .*corrupt.*pin it again"):
        toggle_pin(SESSION, path, prompt="Keep this.")
    kept = list(pins_path(SESSION).parent.glob(f"{SESSION}*.corrupt"))
    assert len(kept) == 1 and "pinned by hand" in kept[0].read_text()
    assert toggle_pin(SESSION, path, prompt="Keep this.") is True  # (again: pinned, in a new file)


PINNER = """
import sys
from pathlib import Path
from agentui.core.context.pins import toggle_pin
for number in range(int(sys.argv[3]), int(sys.argv[3]) + 40):
    assert toggle_pin(sys.argv[1], Path(sys.argv[2]), prompt=f"prompt {number}") is True
"""


def test_processes_pinning_at_once_lose_no_pin(tmp_path: Path) -> None:
    path = session_file(tmp_path, [f"prompt {number}" for number in range(120)])
    pinners = [
        subprocess.Popen([sys.executable, "-c", PINNER, SESSION, str(path), str(start)], stderr=subprocess.PIPE)
        for start in (0, 40, 80)
    ]
    for pinner in pinners:
        _, errors = pinner.communicate(timeout=120)
        assert pinner.returncode == 0, errors.decode()
    pins, problem = load_pins(SESSION)
    assert problem is None
    assert sorted(pin.text for pin in pins) == sorted(f"prompt {number}" for number in range(120))


def test_a_secret_in_a_pinned_tool_result_of_a_claude_code_session_is_redacted_where_it_is_kept(tmp_path: Path) -> None:
    # Claude Code writes tool results as they were; agentui's pin file and every summary carrying the pin must not.
    key = "sk-ant-api03-" + "A" * 40
    chain = SessionChain(SESSION, tmp_path)
    chain.add("user", {"role": "user", "content": "Show me the env file."})
    call = {"type": "tool_use", "id": "toolu_env", "name": "Bash", "input": {"command": f"echo {key}"}}
    chain.add("assistant", {"id": "m1", "role": "assistant", "model": "m", "content": [call]})
    result = {"type": "tool_result", "tool_use_id": "toolu_env", "content": f"ANTHROPIC_API_KEY={key}"}
    chain.add("user", {"role": "user", "content": [result]})
    path = tmp_path / "session.jsonl"
    chain.write(path)
    assert toggle_pin(SESSION, path, tool_call_id="toolu_env") is True
    assert key not in pins_path(SESSION).read_text()
    [pin] = load_pins(SESSION)[0]
    assert "ANTHROPIC_API_KEY=[REDACTED" in pin.text and key not in pin.text


def test_an_empty_prompt_pins_nothing(tmp_path: Path) -> None:
    # (the protocol's `{"type": "pin", "prompt": ""}`: a line of tool results only has no text either)
    chain = SessionChain(SESSION, tmp_path)
    chain.add("user", {"role": "user", "content": "Run it."})
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "true"}}
    chain.add("assistant", {"id": "m1", "role": "assistant", "model": "m", "content": [call]})
    chain.add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": ""}]})
    path = tmp_path / "session.jsonl"
    chain.write(path)
    with pytest.raises(LookupError):
        toggle_pin(SESSION, path, prompt="")
    assert load_pins(SESSION) == ([], None)
