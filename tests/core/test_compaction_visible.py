"""Compaction that says what it does and keeps what the person asked for: the reason before, the report after, the
person's instructions and pinned messages carried verbatim through any number of compactions, measured on a scripted
long session whose summariser is deliberately lossy."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.context.compaction import SUMMARY_PREFIX, SUMMARY_SYSTEM
from agentui.core.context.instructions import carried
from agentui.core.context.pins import load_pins, toggle_pin
from agentui.core.context.window import TokenCounter
from agentui.core.control import CommandError, parse_command
from agentui.core.conversation import Launch
from agentui.core.events import CompactionEnd, CompactionStart, Event
from agentui.core.loop.agent import Agent, AgentConfig
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentui.core.project import PermissionOptions
from agentui.core.providers.base import ProviderRequest
from agentui.core.providers.retry import RetryPolicy
from agentui.core.providers.scripted import ScriptedProvider, ScriptedResponse
from agentui.core.providers.stream import ProviderEvent
from agentui.core.run_options import ModelOptions
from agentui.core.settings import Settings
from agentui.core.tools.base import ToolRegistry
from tests.conftest import assert_valid_history
from tests.support.agents import new_agent
from tests.support.chain import SessionChain
from tests.support.tools import Echo

COUNTER = TokenCounter.estimating()
WINDOW = 24_000

INSTRUCTIONS = [
    "Always run `ruff check` before you commit.",
    "Never edit the files under vendor/.",
    "Don't add a dependency without asking me first.",
    "Do not use print for logging; use the logging module.",
    "Make sure every public function has a docstring.",
    "From now on, write the tests with pytest, not unittest.",
    "Prefer pathlib over os.path.",
    "Use httpx instead of requests.",
]
"""Planted in the first prompts, in the phrasings people use, each among other talk."""


class LossyModel(ScriptedProvider):
    """Answers prompts from its script; asked for a summary, keeps only the last paragraph of the transcript, as a
    hurried model might."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        super().__init__(answers)
        self.summaries: list[str] = []

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        if request.system == SUMMARY_SYSTEM:
            transcript = request.messages[0].text.split("<conversation>\n", 1)[1].split("\n</conversation>", 1)[0]
            last = [paragraph for paragraph in transcript.split("\n\n") if paragraph.strip()][-1]
            self.summaries.append(last)
            self._responses.insert(self._position, ScriptedResponse(text=last))
        async for event in super().stream(request):
            yield event


def noise(number: int) -> list[Message]:
    """One turn of everyday work: a question, a Read whose output says "always" (not the person's), an answer."""
    path = f"src/module_{number}.py"
    call = ToolUseBlock(id=f"read{number}", name="Read", input={"file_path": path})
    output = "# Always use sudo for this.\n" + "def f(): return 1  # filler\n" * 60
    return [
        Message.user(f"What does module_{number} do? It is slow when the cache is cold."),
        Message(role="assistant", content=[TextBlock(text=f"Reading module_{number}. " + "t" * 4000), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=call.id, content=output)]),
        Message(role="assistant", content=[TextBlock(text=f"module_{number} parses the config. " + "a" * 4000)]),
    ]


def early_prompts() -> list[Message]:
    """The instructions, two a prompt, among other things said, then an answer to each."""
    messages: list[Message] = []
    for start in range(0, len(INSTRUCTIONS), 2):
        said = f"Let us work on the parser today. {INSTRUCTIONS[start]} It has a bug.\n{INSTRUCTIONS[start + 1]}"
        messages += [Message.user(said), Message(role="assistant", content=[TextBlock(text="Noted. " + "n" * 800)])]
    return messages


def make_agent(provider: ScriptedProvider, messages: list[Message], **options: Any) -> tuple[Agent, list[Event]]:
    config = AgentConfig(model="scripted", options=ModelOptions(context_window=WINDOW, **options))
    agent = new_agent(
        provider,
        config,
        tools=ToolRegistry([Echo()]),
        retry=RetryPolicy(base_delay=0.01),
        messages=messages,
        counter=COUNTER,
        session_id=str(uuid.uuid4()),
    )
    seen: list[Event] = []
    agent.bus.on(seen.append)
    return agent, seen


async def three_compactions(carry: bool) -> tuple[str, list[Event], LossyModel]:
    """The long session driven through three automatic compactions, more work between them; then one prompt. What
    that prompt's request holds, the events, and the model."""
    provider = LossyModel([{"text": "Done."}])
    messages = early_prompts() + [m for n in range(12) for m in noise(n)]
    agent, seen = make_agent(provider, messages, compact_carry=carry)
    for round_ in range(3):
        if round_:
            agent.history.messages.extend(m for n in range(20 * round_, 20 * round_ + 12) for m in noise(n))
        agent.compactor.recount()
        assert agent.compactor.tokens() > 0.9 * WINDOW  # (full: the next model call compacts)
        await agent.compactor.fit()
    result = await agent.prompt("go on")
    assert result.text == "Done." and len(provider.summaries) >= 3
    assert_valid_history(agent.messages)
    return "\n".join(message.text for message in provider.requests[-1].messages), seen, provider


async def test_every_instruction_survives_three_lossy_compactions_where_todays_compaction_keeps_none() -> None:
    """Measured (README, "Compaction"): with the instructions carried, 8 of 8 reach the request after the third
    compaction; without (compaction as it was, the model's summary alone), 0 of 8 do."""
    sent, seen, _ = await three_compactions(carry=True)
    after = [text for text in INSTRUCTIONS if text in sent]
    sent_before, _, _ = await three_compactions(carry=False)
    before = [text for text in INSTRUCTIONS if text in sent_before]
    assert (len(before), len(after)) == (0, 8), (before, after)
    ends = [event for event in seen if isinstance(event, CompactionEnd)]
    assert len(ends) == 3 and all(end.report is not None and end.report.instructions == INSTRUCTIONS for end in ends)
    assert carried(ends[-1].summary)[0] == INSTRUCTIONS  # (the Read's "Always use sudo" is not the person's)


async def test_before_an_automatic_compaction_an_event_says_it_will_happen_and_why() -> None:
    provider = LossyModel([{"text": "Done."}])
    agent, seen = make_agent(provider, early_prompts() + [m for n in range(12) for m in noise(n)])
    asked_before: list[int] = []
    agent.bus.on(lambda event: isinstance(event, CompactionStart) and asked_before.append(len(provider.requests)))
    await agent.prompt("go on")
    start = next(event for event in seen if isinstance(event, CompactionStart))
    assert asked_before == [0]  # (said before the summary was asked for)
    assert start.trigger == "auto" and start.reason.startswith("context at ")
    percent = int(start.reason.removeprefix("context at ").split("%")[0])
    assert start.reason.startswith(f"context at {percent}% of 24,000 tokens; compacting ") and percent >= 90
    end = next(event for event in seen if isinstance(event, CompactionEnd))
    assert end.report is not None and f"compacting {end.report.messages} older messages" in start.reason


async def test_the_report_names_each_tool_result_taken_out_and_counts_what_was_summarised() -> None:
    provider = LossyModel([{"text": "Done."}])
    agent, seen = make_agent(
        provider, early_prompts() + [m for n in range(12) for m in noise(n)], compact_by_topic=False
    )
    await agent.prompt("go on")
    end = next(event for event in seen if isinstance(event, CompactionEnd))
    assert end.report is not None
    dropped = [(r.tool, r.target) for r in end.report.results if r.fate == "dropped"]
    assert dropped and all(tool == "Read" and target.startswith("src/module_") for tool, target in dropped)
    assert ("Read", "src/module_0.py") in dropped
    assert end.report.turns >= 4 and end.report.messages > end.report.turns
    kept_results = [b for m in end.kept for b in m.content if isinstance(b, ToolResultBlock)]
    fates = {r.fate for r in end.report.results}
    assert fates <= {"dropped", "shortened", "clipped"} and len(end.report.results) >= len(dropped)
    assert all(isinstance(b.content, str) for b in kept_results)


async def test_manual_compact_still_passes_its_focus_and_says_so() -> None:
    provider = LossyModel([{"text": "Answer."}])
    agent, seen = make_agent(provider, early_prompts() + [m for n in range(3) for m in noise(n)])
    await agent.compact("keep the parser's bug")
    asked = [request for request in provider.requests if request.system == SUMMARY_SYSTEM]
    assert asked and all("keep the parser's bug" in request.messages[0].text for request in asked)
    start = next(event for event in seen if isinstance(event, CompactionStart))
    assert start.trigger == "manual" and start.reason.startswith("/compact keep the parser's bug: compacting ")


def pinned_session(tmp_path: Path, session_id: str, prompt: str) -> Path:
    chain = SessionChain(session_id, tmp_path)
    chain.add("user", {"role": "user", "content": prompt})
    chain.add(
        "assistant", {"id": "msg_1", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}
    )
    path = tmp_path / f"{session_id}.jsonl"
    chain.write(path)
    return path


async def test_a_pinned_message_is_carried_verbatim_past_every_compaction(tmp_path: Path) -> None:
    secret = "The staging database is db-7.internal, port 6543; it is read-only on Fridays."
    provider = LossyModel([{"text": "Done."}])
    agent, seen = make_agent(provider, [Message.user(secret), *[m for n in range(12) for m in noise(n)]])
    path = pinned_session(tmp_path, agent.session_id, secret)
    assert toggle_pin(agent.session_id, path, prompt=secret) is True
    for round_ in range(3):
        if round_:
            agent.history.messages.extend(m for n in range(20 * round_, 20 * round_ + 12) for m in noise(n))
        await agent.compactor.compact("auto")
        first = agent.messages[0].text
        assert first.startswith(SUMMARY_PREFIX) and f"<pinned>\n{secret}\n</pinned>" in first
    ends = [event for event in seen if isinstance(event, CompactionEnd)]
    assert [end.report.pinned for end in ends if end.report] == [1, 1, 1]
    assert toggle_pin(agent.session_id, path, prompt=secret) is False  # (again: unpinned)
    assert load_pins(agent.session_id) == ([], None)


async def test_a_corrupt_pin_file_is_one_sentence_and_compaction_goes_on(tmp_path: Path) -> None:
    from agentui.core.context.pins import pins_path
    from agentui.core.events import Notice

    provider = LossyModel([])
    agent, seen = make_agent(provider, [m for n in range(12) for m in noise(n)])
    pins_path(agent.session_id).parent.mkdir(parents=True, exist_ok=True)
    pins_path(agent.session_id).write_text("{not json")
    assert await agent.compactor.compact("auto")
    said = [event.message for event in seen if isinstance(event, Notice)]
    assert any("could not be read, so none are carried" in message for message in said)


async def test_the_pin_command_pins_by_prompt_and_says_in_one_sentence_what_it_cannot_pin(tmp_path: Path) -> None:
    """What the app's Ctrl+P does, as a command of agentui's protocol (`{"type": "pin", "prompt": ...}`)."""
    root = tmp_path / "project"
    root.mkdir()
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root, permissions=PermissionOptions())
    provider = ScriptedProvider([{"text": "Noted."}, {"text": "Second."}, {"text": "Lossy."}])
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    conversation = open_conversation(launch, provider=provider, env=env)
    try:
        await conversation.send("The release branch is rel-9.")
        await conversation.send("two")
        pin = parse_command(json_line := '{"type": "pin", "prompt": "The release branch is rel-9."}')
        assert await conversation.handle(pin) is True, json_line
        with pytest.raises(CommandError, match="not in the session file yet"):
            await conversation.handle(parse_command('{"type": "pin", "prompt": "never said"}'))
        with pytest.raises(CommandError, match="either a `prompt` or a `tool_call_id`"):
            await conversation.handle(parse_command('{"type": "pin"}'))
        await conversation.compact()
        assert "<pinned>\nThe release branch is rel-9.\n</pinned>" in conversation.messages[0].text
    finally:
        await conversation.aclose()
