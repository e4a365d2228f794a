"""Compaction: what to do when the context window fills up.

First the cheap step: tool results older than a budget become one-line placeholders (the session file keeps the
originals). If that is not enough, everything but the recent turns is summarised with one model call, and the
conversation goes on from the summary plus those turns. If the summary cannot be made because even the request for
it is too long, the oldest turns are dropped instead, so compaction never loops.

The `Compactor` makes those decisions for an agent; the loop only asks it before each model call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from agentui.core.context import compaction_report
from agentui.core.context import instructions as carry
from agentui.core.context.failure_evidence import keeps_evidence, resolved, with_evidence
from agentui.core.context.pins import load_pins, unpinned
from agentui.core.context.topics import Topic, group_by_topic, sectioned, topic_instructions
from agentui.core.context.window import TokenCounter, context_window
from agentui.core.events import CompactionEnd, CompactionStart, Notice
from agentui.core.loop.accounting import Ledger
from agentui.core.loop.model_call import ModelCall
from agentui.core.messages import (
    SUMMARY_PREFIX,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    as_text,
    is_summary,
)
from agentui.core.providers.base import ContextOverflowError, Provider, ProviderRequest
from agentui.core.providers.retry import RetryPolicy

if TYPE_CHECKING:
    from agentui.core.context.history import History
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.loop.routing import Router
    from agentui.core.loop.services import Services

Trigger = Literal["auto", "manual"]

DROPPED = (
    "This session is being continued from a previous conversation that ran out of context. "
    "{count} earlier messages were dropped to make room, and no summary of them could be made; ask the user if "
    "something from before matters."
)
PLACEHOLDER_PREFIX = "[Earlier tool result omitted to save context: "

SUMMARY_SYSTEM = (
    "You summarise a coding session between a user and an AI coding assistant, so that the assistant can carry on "
    "the work without the earlier messages. You answer with the summary only."
)
SUMMARY_INSTRUCTIONS = """\
Write a summary of the conversation above that lets the assistant continue the work without it. Keep, under \
these headings:
1. Requests: everything the user asked for and their intent, quoting them where the wording matters.
2. Decisions: what was decided and why; constraints and preferences the user stated.
3. Files: every file path that was read, created or changed, what changed in it, and code that matters later.
4. Errors: errors met, and how each was fixed or that it was not.
5. Open tasks: what is in progress, what is left, and the very next step.
Be specific (names, paths, commands, numbers) and brief; include nothing that did not happen."""

RESULT_CHARS = 2_000
"""How much of each tool result the summariser reads: enough to know what it said."""
TEXT_CHARS = 8_000
SUMMARY_CHARS = 40_000


def summary_message(summary: str) -> Message:
    return Message.user(SUMMARY_PREFIX + summary.strip())


def dropped_message(count: int) -> Message:
    return Message.user(DROPPED.format(count=count))


# Shortening old tool results


def describe_call(call: ToolUseBlock | None) -> str:
    if call is None:
        return "an earlier tool call"
    arguments = json.dumps(call.input, ensure_ascii=False)
    return f"{call.name}({arguments if len(arguments) <= 120 else arguments[:119] + '…'})"


def placeholder(call: ToolUseBlock | None) -> str:
    return f"{PLACEHOLDER_PREFIX}{describe_call(call)}]"


def _is_placeholder(block: ToolResultBlock) -> bool:
    return isinstance(block.content, str) and block.content.startswith(PLACEHOLDER_PREFIX)


def shorten_tool_results(
    messages: list[Message], keep_tokens: int, counter: TokenCounter, *, before: int
) -> list[tuple[int, int]]:
    """Keep the newest `keep_tokens` of tool results among `messages[:before]`; replace older ones, in place, with a
    placeholder naming the call. Returns (index, tokens freed) for each message changed."""
    changed: list[tuple[int, int]] = []
    seen = 0
    for index in range(before - 1, -1, -1):
        message = messages[index]
        if message.role != "user" or not any(isinstance(b, ToolResultBlock) for b in message.content):
            continue
        blocks, freed = [], 0
        for block in message.content:
            if isinstance(block, ToolResultBlock) and (not _is_placeholder(block) or keeps_evidence(block)):
                size = counter.block(block)
                seen += size
                if seen > keep_tokens or keeps_evidence(block):
                    short = _shortened(messages, index, block)
                    if counter.block(short) < size:  # (a short error may be smaller than its evidence: kept whole)
                        freed += size - counter.block(short)
                        block = short
            blocks.append(block)
        if freed > 0:
            messages[index] = message.model_copy(update={"content": blocks})
            changed.append((index, freed))
    return changed


def _shortened(messages: list[Message], index: int, block: ToolResultBlock) -> ToolResultBlock:
    """The placeholder for an old result: a failed one keeps the key lines of its error (failure_evidence) until the
    same tool on the same target succeeds later."""
    call = _call_before(messages, index, block.tool_use_id)
    short = placeholder(call)
    if block.is_error and call is not None and not resolved(messages, index, call):
        if keeps_evidence(block):
            return block  # (still unresolved: as it is)
        short = with_evidence(short, block)
    return block.model_copy(update={"content": short})


def _call_before(messages: list[Message], index: int, tool_use_id: str) -> ToolUseBlock | None:
    """The call a result at `index` answers: in the message before it, as a rule (looked for only when a result is
    shortened: a map of every call in a long history, made at each pass, was most of the pass)."""
    for earlier in range(index - 1, -1, -1):
        for block in messages[earlier].tool_uses:
            if block.id == tool_use_id:
                return block
    return None


# Clipping what no summary can shrink


CLIP_MARK = "\n[… {count:,} characters clipped to fit the context window]"
MIN_KEPT_CHARS = 2_000


def _clippable_text(block: object) -> str | None:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ToolResultBlock) and isinstance(block.content, str):
        return block.content
    return None


def clip_to_fit(messages: list[Message], excess: int, counter: TokenCounter, *, start: int = 0) -> int:
    """Clip the largest text and tool-result blocks of `messages[start:]`, in place, until about `excess` tokens are
    freed; the tail of each clipped block is replaced by a mark. Returns how many blocks were clipped."""
    sizes = []
    for index in range(start, len(messages)):
        for position, block in enumerate(messages[index].content):
            text = _clippable_text(block)
            if text is not None and len(text) > MIN_KEPT_CHARS:
                sizes.append((counter.block(block), index, position))
    clipped = 0
    for tokens, index, position in sorted(sizes, reverse=True):
        if excess <= 0:
            break
        message = messages[index]
        block = message.content[position]
        text = _clippable_text(block) or ""
        keep = max(MIN_KEPT_CHARS, int(len(text) * max(0, tokens - excess - 50) / max(tokens, 1)))
        if keep >= len(text):
            continue
        short = text[:keep] + CLIP_MARK.format(count=len(text) - keep)
        update = {"text": short} if isinstance(block, TextBlock) else {"content": short}
        new_block = block.model_copy(update=update)
        excess -= tokens - counter.block(new_block)
        blocks = list(message.content)
        blocks[position] = new_block
        messages[index] = message.model_copy(update={"content": blocks})
        clipped += 1
    return clipped


def drop_oldest_turns(messages: list[Message], excess: int, counter: TokenCounter, *, start: int) -> int:
    """Drop whole turns from `messages[start:]`, oldest first, until `excess` tokens are freed, never the last turn;
    a turn ends where the next assistant message (after the results of its calls) begins. Returns how many."""
    cut = start
    freed = 0
    while freed < excess:
        following = next((i for i in range(cut + 1, len(messages)) if messages[i].role == "assistant"), None)
        if following is None:
            break
        freed += counter.messages(messages[cut:following])
        cut = following
    del messages[start:cut]
    return cut - start


# Summarising


def split_index(messages: Sequence[Message], keep_tokens: int, counter: TokenCounter) -> int | None:
    """Where the kept tail starts: the earliest assistant message whose tail fits in `keep_tokens`, and at least the
    last assistant message; None when nothing before it could be summarised."""
    best: int | None = None
    tail = 0
    for index in range(len(messages) - 1, 0, -1):
        tail += counter.message(messages[index])
        if messages[index].role == "assistant":
            if best is not None and tail > keep_tokens:
                break
            best = index
    return best


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n[… {len(text) - limit} more characters]"


def render(message: Message, calls: dict[str, ToolUseBlock]) -> str:
    """One message as the summariser reads it: text in full (up to a limit), tool results clipped."""
    lines: list[str] = []
    speaker = "User" if message.role == "user" else "Assistant"
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            limit = SUMMARY_CHARS if block.text.startswith(SUMMARY_PREFIX) else TEXT_CHARS
            lines.append(f"{speaker}: {_clip(block.text, limit)}")
        elif isinstance(block, ToolUseBlock):
            calls[block.id] = block
            lines.append(f"Assistant called {describe_call(block)}")
        elif isinstance(block, ToolResultBlock):
            text = block.content if isinstance(block.content, str) else "\n".join(as_text(b) for b in block.content)
            status = "failed" if block.is_error else "returned"
            lines.append(f"{describe_call(calls.get(block.tool_use_id))} {status}:\n{_clip(text, RESULT_CHARS)}")
        elif isinstance(block, ImageBlock | DocumentBlock):
            lines.append(f"{speaker}: {as_text(block)}")
    return "\n".join(lines)


def summary_request(
    model: str,
    older: Sequence[Message],
    *,
    instructions: str | None,
    input_budget: int,
    max_tokens: int,
    counter: TokenCounter,
) -> tuple[ProviderRequest, int]:
    """The request for a summary of `older`, as one transcript in one user message (so it needs no tools and keeps
    no tool-call pairing), newest parts first to fit `input_budget`. Returns it and how many messages it holds."""
    calls: dict[str, ToolUseBlock] = {}
    pieces = [render(message, calls) for message in older]
    ask = SUMMARY_INSTRUCTIONS + (
        f"\n\nAlso follow these instructions for the summary: {instructions}" if instructions else ""
    )
    budget = input_budget - counter.count(SUMMARY_SYSTEM) - counter.count(ask) - 50
    first = pieces[0] if pieces and is_summary(older[0]) else None  # an earlier summary matters most: always kept
    if first is not None:
        budget -= counter.count(first)
    kept: list[str] = []
    for piece in reversed(pieces[1:] if first is not None else pieces):
        cost = counter.count(piece) + 2
        if cost > budget:
            break
        budget -= cost
        kept.append(piece)
    kept.reverse()
    left_out = len(pieces) - len(kept) - (1 if first is not None else 0)
    parts = (
        ([first] if first is not None else [])
        + ([f"[{left_out} earlier messages left out]"] if left_out else [])
        + kept
    )
    transcript = "<conversation>\n" + "\n\n".join(parts) + "\n</conversation>\n\n" + ask
    request = ProviderRequest(
        model=model, system=SUMMARY_SYSTEM, messages=(Message.user(transcript),), max_tokens=max_tokens
    )
    return request, len(older) - left_out


async def summarise(provider: Provider, request: ProviderRequest, retry: RetryPolicy) -> tuple[str, Usage | None]:
    """Stream the summary; raises ProviderError (ContextOverflowError when even this request is too long)."""
    message = await ModelCall("").run(provider, request, retry)
    return message.text.strip(), message.usage


# The decisions

TOOL_RESULTS_SHARE = 0.25
"""When the context is full, tool results beyond the newest this share of the window become placeholders."""
KEEP_SHARE = 0.25
"""An automatic summary keeps the recent turns up to this share of the window as they are."""
CARRY_SHARE = 0.2
"""The most of the window the person's instructions and pinned messages take in a summary: they are in every one."""
MANUAL_KEEP_SHARE = 0.05
"""/compact is asked for to free context: it keeps less."""


def compact_command(text: str) -> str | None:
    """The instructions of a `/compact [instructions]` prompt ("" for none); None for any other prompt."""
    said = text.strip()
    if said != "/compact" and not said.startswith("/compact "):
        return None
    return said.removeprefix("/compact").strip()


EXACT_COUNT_SHARE = 0.5
"""Past this share of the window, count with tiktoken (if its encoding is on disk) rather than estimate."""
SUMMARY_MAX_TOKENS = 8192
UNKNOWN_WINDOW = 128_000
"""For /compact on a model whose window is unknown: how much of the history a summary may read."""


class CompactorHost(Protocol):
    """What a compactor reads of the agent it serves besides the history (read afresh each time: the model can
    change between runs)."""

    session_id: str
    config: AgentConfig
    services: Services
    """Its bus, hooks, tools and retry policy."""
    ledger: Ledger
    router: Router
    """Where the summary is asked for (the "compaction" route)."""


class Compactor:
    """Keeps one history inside its model's window. The loop calls `fit` before every model call and `recover` once
    after a request overflowed; /compact calls `compact`."""

    def __init__(self, history: History, agent: CompactorHost) -> None:
        self.history = history
        self.agent = agent
        self.meter = history.meter
        history.count_overhead_with(self._overhead)
        self._said_shortened = False

    def window(self) -> int | None:
        """The model's context window in tokens, if known."""
        return context_window(self.agent.config.model, self.agent.config.options.context_window)

    def tokens(self) -> int:
        """How many tokens the next request will hold (the provider's count, plus an estimate of what is new)."""
        return self.history.tokens()

    def recount(self) -> None:
        """Estimate the whole context afresh, the system prompt and the tools too: at the start, and after the history
        was rewritten."""
        self.history.recount()

    def _overhead(self) -> int:
        """The tokens of the system prompt and the tools' specs, as they are now."""
        config, counter = self.agent.config, self.meter.counter
        specs = self.agent.services.tools.specs()
        tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in specs]
        return sum(map(counter.count, [config.system_prompt, config.environment, json.dumps(tools)]))

    def auto_window(self) -> int | None:
        """The window automatic compaction counts against: the model's, or the configured auto-compact window where
        that is smaller or the model's is unknown."""
        window, cap = self.window(), self.agent.config.options.auto_compact_window
        return min(window, cap) if window and cap else window or cap

    async def fit(self) -> None:
        """Before a model call: past the threshold, shorten old tool results; if that is not enough, summarise."""
        self.history.stamp()
        window = self.auto_window()
        if not self.agent.config.options.auto_compact or not window or not self._full(window):
            return
        if self._shorten(window) and not self._full(window):
            return
        await self.compact("auto", window=window)

    async def recover(self, stated: int | None = None) -> bool:
        """After the provider said the request was too long: shorten and summarise; False if nothing could be done.
        The window is the one the error `stated`, else the known one, else what just overflowed (at most a typical
        window: a request of millions of tokens says little about the window it overflowed)."""
        window = stated or self.window() or min(self.tokens(), UNKNOWN_WINDOW)
        self._shorten(window)
        return await self.compact("auto", window=window)

    async def compact(self, trigger: Trigger, instructions: str | None = None, *, window: int | None = None) -> bool:
        """Summarise all but the recent turns; False if there was nothing to summarise."""
        agent, counter, messages = self.agent, self.meter.counter, self.history.messages
        window = window or self.window() or UNKNOWN_WINDOW
        keep = int(window * (KEEP_SHARE if trigger == "auto" else MANUAL_KEEP_SHARE))
        split = split_index(messages, keep, counter)
        if split is None:
            if self._clip_to_window(window):
                return True
            if trigger == "manual":
                self._notice("warning", "There is nothing to compact yet.")
            return False
        bus, hooks = agent.services.bus, agent.services.hooks
        seen = self.tokens()  # (what the threshold was checked against: the provider's count, where it gave one)
        self.recount()  # (counted as the context after will be: the provider's last count would not compare)
        pre = self.tokens()
        why = compaction_report.reason(trigger, seen, window, split, instructions)
        bus.emit(CompactionStart(session_id=agent.session_id, trigger=trigger, pre_tokens=pre, reason=why))
        if hooks:
            await hooks.pre_compact(agent.session_id, trigger, instructions)
        older, kept = messages[:split], messages[split:]
        max_tokens = max(256, min(agent.config.options.max_tokens, SUMMARY_MAX_TOKENS, window // 4))
        by_topic = agent.config.options.compact_by_topic
        topics = group_by_topic(older, counter, self.history.times_of(older)) if by_topic else []
        if len(topics) < 2:
            summary, usages = await self._summary(older, instructions, window, max_tokens)
        else:
            summary, usages = await self._by_topic(older, topics, instructions, window, max_tokens)
        carried, pinned = self._carried(older, kept, window)
        # (the model's part never holds agentui's headings, even with nothing to carry: a later compaction would read
        # what it imitated as the person's)
        first = summary_message(carry.without_carried(summary)) if summary else dropped_message(len(older))
        if carried:  # (appended by code, not asked of the model: they survive any number of compactions)
            first = Message.user(first.text + "\n\n" + carried)
        messages[:] = [first, *kept]
        self.recount()
        self._clip_to_window(window, start=1)
        post = self.tokens()
        report = compaction_report.report(older, messages, *pinned)
        end = CompactionEnd(
            session_id=agent.session_id, summary=first.text, post_tokens=post, pre_tokens=pre, kept=kept, report=report
        )
        bus.emit(end)
        if hooks:
            await hooks.post_compact(agent.session_id, trigger, first.text)
        if hooks:  # (a new start of the session, from the summary, as Claude Code's SessionStart "compact")
            said = [TextBlock(text=text) for text in (await hooks.session_start(agent.session_id, "compact")).context]
            if said and messages and messages[0].role == "user":  # (its context goes with the summary)
                messages[0] = messages[0].model_copy(update={"content": [*messages[0].content, *said]})
        for usage, model in usages:
            agent.ledger.record(usage, model, context_tokens=post, window=self.window())
        return True

    def _carried(
        self, older: Sequence[Message], kept: Sequence[Message], window: int
    ) -> tuple[str, tuple[list[str], int]]:
        """The section the summary carries verbatim: the person's instructions in `older` (an earlier summary's
        too) and the pinned messages not among `kept` (nor unpinned since), the newest of them that fit a share of
        the window; and what it holds (the instructions, how many pins)."""
        if not self.agent.config.options.compact_carry:
            return "", ([], 0)
        found = carry.instructions_in(older)
        pins, problem = load_pins(self.agent.session_id)
        if problem:
            self._notice("warning", problem)
        gone = {carry.defused(text) for text in unpinned(self.agent.session_id)}
        first = older[0] if older and carry.stands_for_history(older[0]) else None
        earlier = carry.carried(carry.summary_text(first))[1] if first is not None else []
        shown = "\n".join(text for message in kept for block in message.content if (text := _clippable_text(block)))
        texts = map(carry.defused, [*earlier, *(pin.text for pin in pins)])
        pinned = list(dict.fromkeys(text for text in texts if text not in shown and text not in gone))
        found, pinned, left_out = carry.within(found, pinned, int(window * CARRY_SHARE), self.meter.counter.count)
        if left_out:
            self._notice(
                "warning",
                f"{left_out} of your pinned messages or instructions were too large to carry in this summary (the "
                "newest that fit are carried); they stay pinned, and the session file keeps them.",
            )
        return carry.carried_section(found, pinned), (found, len(pinned))

    async def _summary(
        self, older: Sequence[Message], instructions: str | None, window: int, max_tokens: int, *, timed: bool = True
    ) -> tuple[str, list[tuple[Usage, str]]]:
        """One summary of `older` ("" if even its request does not fit), and the usage of the call for it. `timed`:
        its wait counts as time spent on the model (a caller running several at once counts their wait once)."""
        agent = self.agent
        target = agent.router.route("compaction", agent.config.model)
        request, included = summary_request(
            target.model,
            older,
            instructions=instructions,
            max_tokens=max_tokens,
            counter=self.meter.counter,
            input_budget=int(window * 0.85) - max_tokens,
        )
        if not included:  # not even one message fits in a summary request
            return "", []
        try:
            with agent.ledger.waiting() if timed else contextlib.nullcontext():
                summary, usage = await summarise(target.provider, request, agent.services.retry)
        except ContextOverflowError:  # even the summary does not fit: drop the oldest turns instead, never loop
            return "", []
        return summary, [(usage, request.model)] if usage is not None else []

    async def _by_topic(
        self, older: Sequence[Message], topics: list[Topic], instructions: str | None, window: int, max_tokens: int
    ) -> tuple[str, list[tuple[Usage, str]]]:
        """A summary per piece of work, all at once (one call each, sharing the answer budget of one summary, so
        the wait is about one summary's), joined as sections; a piece whose request does not fit is left out."""
        share = max(256, max_tokens // len(topics))
        calls = [
            self._summary(
                older[topic.start : topic.end],
                topic_instructions(topic, number, len(topics), instructions),
                window,
                share,
                timed=False,
            )
            for number, topic in enumerate(topics, 1)
        ]
        with self.agent.ledger.waiting():
            try:
                async with asyncio.TaskGroup() as group:  # (one failing cancels the others: nothing left running)
                    tasks = [group.create_task(call) for call in calls]
            except BaseExceptionGroup as failed:
                raise failed.exceptions[0] from None  # (as one call would have raised it)
        done = [task.result() for task in tasks]
        parts = [(topic, text) for topic, (text, _) in zip(topics, done, strict=True)]
        return sectioned(parts), [usage for _, used in done for usage in used]

    async def summary(self) -> str:
        """The whole history summarised as compaction summarises (for a new session to carry over, as
        --idle-rotate's); "" when there is nothing to summarise or the model gave nothing."""
        window = self.window() or UNKNOWN_WINDOW
        max_tokens = max(256, min(self.agent.config.options.max_tokens, SUMMARY_MAX_TOKENS, window // 4))
        summary, usages = await self._summary(self.history.messages, None, window, max_tokens)
        for usage, model in usages:
            self.agent.ledger.record(usage, model, context_tokens=self.tokens(), window=self.window())
        carried, _ = self._carried(self.history.messages, [], window)  # (the new session keeps them too)
        summary = carry.without_carried(summary)
        return f"{summary}\n\n{carried}" if summary and carried else summary

    def _clip_to_window(self, window: int, *, start: int = 0) -> bool:
        """Whatever no summary could shrink (a huge prompt or result in the turns kept) is clipped, and if that is
        not enough whole older turns are dropped, until the next request fits the window with room for the answer.
        Says what it did; False if nothing needed doing."""
        counter, messages = self.meter.counter, self.history.messages
        limit = int(window * 0.9) - min(self.agent.config.options.max_tokens, window // 4)
        excess = self.tokens() - limit
        if excess <= 0:
            return False
        clipped = clip_to_fit(messages, excess, counter, start=start)
        self.recount()
        dropped = 0
        if (excess := self.tokens() - limit) > 0:
            dropped = drop_oldest_turns(messages, excess, counter, start=start)
            self.recount()
        said = [f"{clipped} oversized message parts were clipped"] if clipped else []
        said += [f"{dropped} older messages were dropped"] if dropped else []
        if said:
            self._notice("warning", f"To fit the context window, {' and '.join(said)} (the session file keeps them).")
        return bool(clipped or dropped)

    def _full(self, window: int) -> bool:
        tokens = self.tokens()
        if tokens >= EXACT_COUNT_SHARE * window:
            self.meter.counter.want_exact()  # from here on, estimates decide when to compact: make them exact
        return tokens >= self.agent.config.options.compact_threshold * window

    def _shorten(self, window: int | None = None) -> int:
        """Replace tool results older than the budget (never the latest turn's) with placeholders; how many were."""
        window = window or self.window() or UNKNOWN_WINDOW
        messages = self.history.messages
        latest = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), 0)
        changed = shorten_tool_results(messages, int(window * TOOL_RESULTS_SHARE), self.meter.counter, before=latest)
        for index, freed in changed:
            self.meter.shrunk(index, freed)
        if changed:
            self.history.generation += 1
            if not self._said_shortened:  # (late in a long run it happens every few turns: said once, not each time)
                self._said_shortened = True
                self._notice(
                    "info",
                    f"Older tool results in {len(changed)} messages were shortened to save context; older ones are "
                    "shortened as the conversation goes on, without a word (the session file keeps them whole).",
                )
        return len(changed)

    def _notice(self, level: Literal["info", "warning"], message: str) -> None:
        self.agent.services.bus.emit(Notice(session_id=self.agent.session_id, level=level, message=message))
