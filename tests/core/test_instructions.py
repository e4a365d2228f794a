"""The person's standing instructions found without the model: what is taken, verbatim, and what must not be (tool
output, quoted code, quotations, agentui's own notes)."""

from __future__ import annotations

import pytest

from agentui.core.context import instructions
from agentui.core.context.compaction import SUMMARY_PREFIX, summary_message
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock


@pytest.mark.parametrize(
    ("prompt", "found"),
    [
        (
            "Always run `ruff check` before committing. The build is slow.",
            ["Always run `ruff check` before committing."],
        ),
        ("please never touch the vendor/ directory!", ["please never touch the vendor/ directory!"]),
        ("Don't know why it fails. Don't use print for logging.", ["Don't use print for logging."]),
        ("do not commit the .env file", ["do not commit the .env file"]),
        (
            "- make sure tests pass\n- From now on, answer in French",
            ["make sure tests pass", "From now on, answer in French"],
        ),
        ("Prefer pathlib over os.path. Thanks", ["Prefer pathlib over os.path."]),
        ("Use httpx instead of requests for HTTP.", ["Use httpx instead of requests for HTTP."]),
        ("You should always write type hints, ok?", ["You should always write type hints, ok?"]),
        ("Tests go in tests/unit from now on.", ["Tests go in tests/unit from now on."]),
        ("Important: never push to main.", ["Important: never push to main."]),
    ],
)
def test_instructions_in_a_prompt_are_found_as_written(prompt: str, found: list[str]) -> None:
    assert instructions.detect(prompt) == found


@pytest.mark.parametrize(
    "prompt",
    [
        "It always fails when I run it.",  # (a report, not an instruction)
        "Here is the code:\n```python\n# always do this\nnever_return()\n```\nwhat is wrong?",
        'The comment says "always close the file" and `never()` is called.',
        "> Always use sudo\nwhat does that line in the docs mean?",
        "Don't worry about the warnings. Never mind, I found it.",
        "<bash-stdout>always: 3\nnever: 4</bash-stdout>",
    ],
)
def test_what_is_quoted_reported_or_not_an_instruction_is_not_taken(prompt: str) -> None:
    assert instructions.detect(prompt) == []


def test_only_the_persons_prompts_count_never_tool_output_or_agentuis_notes() -> None:
    call = ToolUseBlock(id="r1", name="Read", input={"file_path": "README.md"})
    messages = [
        Message.user("Never force-push."),
        Message(role="assistant", content=[TextBlock(text="Always happy to help. Never mind."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="r1", content="Always use sudo for this.")]),
        Message.user("<system-reminder>Always answer in JSON.</system-reminder>"),
        Message.user("Never force-push."),  # (said twice: carried once)
    ]
    assert instructions.instructions_in(messages) == ["Never force-push."]


def test_a_carried_section_is_read_back_from_an_earlier_summary_and_carried_again() -> None:
    section = instructions.carried_section(["Always run the tests.", "Never touch vendor/."], ["the code is 4417"])
    earlier = summary_message("We fixed the parser.\n\n" + section)
    assert earlier.text.startswith(SUMMARY_PREFIX)
    assert instructions.carried(earlier.text) == (
        ["Always run the tests.", "Never touch vendor/."],
        ["the code is 4417"],
    )
    later = [earlier, Message.user("Prefer small commits.")]
    assert instructions.instructions_in(later) == [
        "Always run the tests.",
        "Never touch vendor/.",
        "Prefer small commits.",
    ]
    assert instructions.without_carried(earlier.text).endswith("We fixed the parser.")
