"""A limit wait in the session file: the line written, and whether a session ended with one pending."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from agentui.core.events import LimitWait
from agentui.core.session.limit_record import limit_wait_fields, pending_limit_wait

UNTIL = datetime(2026, 11, 28, 15, 0, tzinfo=UTC)


def _line(**fields: object) -> str:
    return json.dumps(fields) + "\n"


def _wait_line() -> str:
    event = LimitWait(session_id="s", until=UNTIL, reason="Usage limit reached.", provider="anthropic")
    return _line(type="system", uuid="w", **limit_wait_fields(event))


def test_the_line_names_the_reset_in_utc() -> None:
    fields = limit_wait_fields(LimitWait(session_id="s", until=UNTIL, reason="Limited.", provider="anthropic"))
    assert fields["subtype"] == "limit_wait" and fields["limitResetsAt"] == "2026-11-28T15:00:00Z"
    assert fields["content"] == "Limited; waiting until 2026-11-28T15:00:00Z."


def test_a_wait_with_nothing_after_it_is_pending(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    prompt = _line(type="user", message={"role": "user", "content": "hi"})
    path.write_text(prompt + _wait_line() + _line(type="system", subtype="notice") + '{"type": "assis')
    assert pending_limit_wait(path) == UNTIL  # (a torn last line leaves what came before standing)


def test_an_answer_or_a_new_prompt_after_the_wait_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_wait_line() + _line(type="assistant", message={"role": "assistant", "content": []}))
    assert pending_limit_wait(path) is None
    path.write_text(_wait_line() + _line(type="user", message={"role": "user", "content": "[Request interrupted"}))
    assert pending_limit_wait(path) is None


def test_garbage_and_missing_files_say_nothing(tmp_path: Path) -> None:
    assert pending_limit_wait(tmp_path / "missing.jsonl") is None
    path = tmp_path / "s.jsonl"
    path.write_text('not json\n[1, "type"]\n' + _line(type="system", subtype="limit_wait", limitResetsAt="soon"))
    assert pending_limit_wait(path) is None
    path.write_bytes(b"\xff\xfe" + _wait_line().encode())
    assert pending_limit_wait(path) is None  # (a line that is not JSON is not a wait)
