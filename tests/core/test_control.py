"""The command union: every command round-trips through its JSON line, and a line that is not a command is one
sentence (CommandError, an AgentuiError), never a traceback."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from agentui.api import AgentuiError
from agentui.api.control import Command, CommandError, outcome_json, parse_command
from agentui.api.events import PermissionDecision

EXAMPLES = [
    {"type": "send", "text": "hi", "id": "1"},
    {"type": "continue", "kind": "branch", "text": "then this", "at": "u1"},
    {"type": "steer", "text": "also this"},
    {"type": "follow_up", "text": "then this"},
    {"type": "interrupt"},
    {"type": "answer", "request_id": "r1", "decision": {"behavior": "deny", "message": "no"}},
    {"type": "set_mode", "mode": "plan"},
    {"type": "cycle_mode"},
    {"type": "set_model", "model": "claude-test"},
    {"type": "compact", "instructions": "keep the plan"},
    {"type": "pin", "prompt": "the release branch is rel-9"},
    {"type": "rewind", "to": "u1", "code": False},
    {"type": "tree"},
    {"type": "switch_branch", "leaf": "u1"},
    {"type": "run_shell", "command": "ls"},
    {"type": "grant_for_run", "rules": ["Bash(npm test:*)"]},
    {"type": "end_grants"},
    {"type": "add_rule", "behavior": "deny", "rule": "Read(./.env)"},
    {"type": "export", "name": "notes.txt"},
    {"type": "complete_path", "typed": "sr"},
    {"type": "prompts"},
    {"type": "replay"},
    {"type": "stop_background", "shell_id": "b1"},
]


def test_every_command_has_an_example_that_round_trips() -> None:
    import json

    (union,) = typing.get_args(Command)[:1]
    kinds = {cls.model_fields["type"].default for cls in typing.get_args(union)}
    assert kinds == {example["type"] for example in EXAMPLES}
    for example in EXAMPLES:
        command = parse_command(json.dumps(example))
        assert command.type == example["type"]
        assert parse_command(command.model_dump_json()) == command


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("{not json", "not a command: Invalid JSON"),
        ('{"type": "telepathy"}', "not a command: Input tag 'telepathy' found using 'type' does not match"),
        ('{"type": "send"}', "not a command: Field required at send.text."),
        ('{"type": "send", "text": "x", "colour": "red"}', "not a command: Extra inputs are not permitted"),
        ('{"type": "set_mode", "mode": "yolo"}', "not a command: Input should be"),
        ("[1]", "not a command:"),
    ],
)
def test_a_line_that_is_not_a_command_is_one_sentence(line: str, said: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(line)
    assert isinstance(caught.value, AgentuiError)
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def test_outcomes_become_json() -> None:
    from dataclasses import dataclass

    @dataclass
    class Outcome:
        path: Path
        decisions: list[PermissionDecision]

    found = outcome_json(Outcome(Path("/a/b"), [PermissionDecision(behavior="allow")]))
    decision = {"behavior": "allow", "scope": "once", "interrupt": False, "verbatim": False}
    assert found == {"path": "/a/b", "decisions": [decision]}
    assert outcome_json(None) is None and outcome_json(True) is True and outcome_json(("a", 1)) == ["a", 1]
