"""A scripted long session of several pieces of work, and a summarising model on 127.0.0.1 that is deterministic but
faithful to its budget: it answers with the first words of the transcript it is given, as many as the request's
answer budget allows (and at most `keep`). Compacting the session by topic and as one summary, then looking for the
facts later turns would ask about, measures what grouping alone keeps: both methods get the same model and the
same answer budget in all."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentui.core.context.window import TokenCounter
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.run_options import ModelOptions
from tests.support.agents import new_agent
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


@dataclass(frozen=True)
class Work:
    module: str
    failing_test: str
    """Named in the person's request: early in the piece."""
    function: str
    """The name chosen for the fix: said at the end of the piece."""


WORKS = (
    Work("parser", "test_parses_nested_brackets", "close_bracket_depth"),
    Work("auth", "test_rejects_expired_token", "token_is_fresh"),
    Work("money", "test_rounds_half_even", "round_half_even"),
    Work("client", "test_retries_on_503", "backoff_delay"),
    Work("render", "test_escapes_html_attributes", "quote_attribute"),
)
ANSWER_BUDGET = 2_000
"""The answer budget of a summary (the agent's max_tokens): one summary's, or shared among the sections."""
WINDOW = 100_000
CHARS_PER_TOKEN = 4


def _filler(module: str, words: int) -> str:
    return " ".join(f"{module}_line{n}" for n in range(words))


def _piece(number: int, work: Work, rounds: int) -> list[Message]:
    """The request, `rounds` of reading the module and running its tests, the edit, and what was done."""
    source, tests = f"src/{work.module}.py", f"tests/test_{work.module}.py"
    messages = [Message.user(f"{tests}::{work.failing_test} fails since yesterday; please find out why and fix it.")]
    for round_ in range(rounds):
        read, run = f"w{number}-read{round_}", f"w{number}-run{round_}"
        messages += [
            Message(role="assistant", content=[ToolUseBlock(id=read, name="Read", input={"file_path": source})]),
            Message(role="user", content=[ToolResultBlock(tool_use_id=read, content=_filler(work.module, 400))]),
            Message(
                role="assistant",
                content=[
                    TextBlock(text="Not yet: " + _filler("reasoning", 100)),
                    ToolUseBlock(id=run, name="Bash", input={"command": f"pytest {tests}"}),
                ],
            ),
            Message(role="user", content=[ToolResultBlock(tool_use_id=run, content=f"FAILED {_filler('trace', 300)}")]),
        ]
    edit = f"w{number}-edit"
    change = {"file_path": source, "old_string": "a", "new_string": "b"}
    return [
        *messages,
        Message(role="assistant", content=[ToolUseBlock(id=edit, name="Edit", input=change)]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=edit, content="The file was edited.")]),
        Message(role="assistant", content=[TextBlock(text=f"Fixed: I added `{work.function}` in {source}.")]),
    ]


def long_session(rounds: int = 3) -> list[Message]:
    """The pieces of work one after the other, and a last short exchange (what a compaction keeps)."""
    messages = [message for number, work in enumerate(WORKS) for message in _piece(number, work, rounds)]
    last = [Message.user("Thanks. What is left?"), Message(role="assistant", content=[TextBlock(text="Nothing.")])]
    return [*messages, *last]


def facts() -> list[str]:
    return [fact for work in WORKS for fact in (work.failing_test, work.function)]


def first_words(keep: int) -> Callable[[RecordedRequest], Reply]:
    """The summarising model: the first min(keep, max_tokens) tokens (at 4 characters a token, cut at a space) of
    the transcript it was sent."""

    def reply(request: RecordedRequest) -> Reply:
        body = request.json()
        content = body["messages"][0]["content"]
        text = content if isinstance(content, str) else "".join(block.get("text", "") for block in content)
        transcript = re.search(r"<conversation>(.*)</conversation>", text, re.S)
        said = (transcript.group(1) if transcript else text).strip()
        limit = CHARS_PER_TOKEN * min(keep, body["max_tokens"])
        answer = said if len(said) <= limit else said[:limit].rsplit(None, 1)[0]
        return Reply(chunks=anthropic_stream([{"type": "text", "text": answer}]))

    return reply


def compacted_summary(server: LoopbackServer, *, by_topic: bool, rounds: int = 3) -> str:
    """The summary a manual compaction of `long_session()` leaves, made by the model at `server`."""
    options = ModelOptions(max_tokens=ANSWER_BUDGET, compact_by_topic=by_topic)
    agent = new_agent(
        AnthropicProvider(base_url=server.url, api_key="x"),
        AgentConfig(model="claude-sonnet-4-5", options=options),
        messages=long_session(rounds),
        counter=TokenCounter.estimating(),
    )
    assert asyncio.run(agent.compactor.compact("manual", window=WINDOW))
    return agent.history.messages[0].text


def retained(summary: str) -> list[str]:
    return [fact for fact in facts() if fact in summary]
