"""Parallel attempts (the seed's agent_loop_parallel): one prompt run by several branches at once, each with its own
configuration and its own working copy of the project, then one chosen by an evaluation strategy.

Each branch is an Agent on a copy of the conversation so far; its events reach the parent's bus carrying its
`loop_id`, and its permission questions are answered through the parent like a sub-agent's. Nothing a branch does
touches the person's tree: the chosen branch's changes are applied only when the front end says so.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from agentui.core.context.compaction import render
from agentui.core.context.window import TokenCounter
from agentui.core.events import Event, MessageEnd, MessageStart, Notice, ToolEnd, ToolStart, TurnEnd, UserMessage
from agentui.core.loop.agent import Agent
from agentui.core.loop.model_call import ModelCall
from agentui.core.loop.run import RunResult
from agentui.core.messages import Message, ToolUseBlock, Usage
from agentui.core.parallel.working_copy import WorkingCopy, WorkingCopyError
from agentui.core.providers.base import ProviderError, ProviderRequest
from agentui.core.session.writer import SessionWriter
from agentui.core.settings import Overrides, Route, Settings, resolve_settings

JUDGE_BUDGET_TOKENS = 60_000
"""What the judge may read: the conversation before the attempts, then every branch's work, each clipped to fit."""
JUDGE_MAX_TOKENS = 2048
PATCH_CHARS = 20_000
"""Of each branch's changes, the judge reads at most this much."""


@dataclass(frozen=True)
class AttemptConfig:
    """What one branch does differently from the conversation (None: as the conversation does)."""

    model: str | None = None
    system_append: str | None = None
    """A variant of the instructions: added after the system prompt."""
    thinking_budget: int | None = None
    settings: Settings | None = None
    """Another provider for this branch (its model, server and key); None: the conversation's."""


def attempt_config(spec: str, env: Mapping[str, str] | None = None) -> AttemptConfig:
    """A branch from its spec on the command line: a model ("claude-sonnet-4-5"), or a provider and a model
    ("openai:qwen2.5-coder:7b", the provider's server and key from the environment). Raises ConfigError."""
    route = Route.parse(spec)  # (the same spelling as a route in the config)
    if route.provider is not None:
        settings = resolve_settings(Overrides(provider=route.provider, model=route.model), env)
        return AttemptConfig(model=route.model, settings=settings)
    return AttemptConfig(model=spec)


@dataclass
class Branch:
    id: str
    """Also the `loop_id` its events carry."""
    config: AttemptConfig
    agent: Agent
    copy: WorkingCopy
    result: RunResult | None = None
    finished: float | None = None
    """When it finished (monotonic), for the strategy that takes the first."""
    patch: str = ""
    """What it changed in its copy, as a patch."""
    error: str | None = None
    """Why it could not run at all."""
    transcript: SessionWriter | None = None
    """Its own sidechain transcript, beside the session's sub-agents' (Claude Code's tools read it as one)."""
    kept: list[Event] = field(default_factory=list)
    """Its events that make up its conversation (without `loop_id`): what the session gets if it is chosen."""

    @property
    def succeeded(self) -> bool:
        return self.result is not None and self.result.stop == "end_turn"

    @property
    def new_messages(self) -> list[Message]:
        return self.agent.messages[self.started_at :]

    started_at: int = 0
    """How many messages of the conversation it started from."""

    @property
    def tokens(self) -> int:
        return self.result.usage.total_tokens if self.result else 0


@dataclass(frozen=True)
class Verdict:
    chosen: str | None
    """The branch to go on with; None when none can be chosen (all failed, or the judge named none)."""
    ranking: tuple[str, ...] = ()
    reasons: str = ""
    usage: Usage | None = None
    """The judge's own call."""


class Strategy(Protocol):
    name: str
    stops_early: bool
    """Whether the other branches are stopped as soon as one succeeds."""

    async def choose(self, prior: Sequence[Message], branches: Sequence[Branch]) -> Verdict: ...


class First:
    """The branch that finished first (successfully)."""

    name, stops_early = "first", True

    async def choose(self, prior: Sequence[Message], branches: Sequence[Branch]) -> Verdict:
        done = sorted((b for b in branches if b.succeeded), key=lambda b: b.finished or 0.0)
        return _ranked(done, "finished first")


class FewestTokens:
    """The successful branch that used the fewest tokens."""

    name, stops_early = "tokens", False

    async def choose(self, prior: Sequence[Message], branches: Sequence[Branch]) -> Verdict:
        return _ranked(sorted((b for b in branches if b.succeeded), key=lambda b: b.tokens), "used the fewest tokens")


class MostElaborate:
    """The successful branch whose work says and changes the most."""

    name, stops_early = "elaborate", False

    async def choose(self, prior: Sequence[Message], branches: Sequence[Branch]) -> Verdict:
        def size(branch: Branch) -> int:
            return len(branch.patch) + sum(len(m.text) for m in branch.new_messages if m.role == "assistant")

        return _ranked(sorted((b for b in branches if b.succeeded), key=size, reverse=True), "did the most")


def _ranked(branches: Sequence[Branch], why: str) -> Verdict:
    if not branches:
        return Verdict(None, reasons="No branch finished its work.")
    return Verdict(branches[0].id, tuple(b.id for b in branches), f"{branches[0].id} {why}.")


JUDGE_SYSTEM = (
    "You judge attempts at one task by a coding assistant. You read the conversation before the task, then what "
    "each attempt said and changed. Choose the attempt that does the task best: correct first, then complete, then "
    'simple. Answer with JSON only: {"ranking": [attempt ids, best first], "choice": "<id>", "reasons": "<two or '
    'three sentences>"}.'
)


class Judge:
    """A model reads the conversation so far and every branch's work (within its budget) and chooses."""

    name, stops_early = "judge", False

    def __init__(self, parent: Agent, model: str | None = None, budget: int = JUDGE_BUDGET_TOKENS) -> None:
        # (a model named for this judge; else the "judge" route's, else the conversation's)
        self.provider, self.model = (
            (parent.services.provider, model) if model else parent.router.route("judge", parent.config.model)
        )
        self.parent, self.budget = parent, budget
        self.counter = TokenCounter()

    def request(self, prior: Sequence[Message], branches: Sequence[Branch]) -> ProviderRequest:
        """The judge's request: each branch's work gets an equal share of half the budget, the conversation before
        them the other half (its newest part, when it is longer)."""
        share = self.budget // 2 // max(1, len(branches))
        works = [self._fit(f'<attempt id="{b.id}">\n{_work(b)}\n</attempt>', share) for b in branches]
        left = self.budget - self.counter.count(JUDGE_SYSTEM) - sum(map(self.counter.count, works)) - 100
        calls: dict[str, ToolUseBlock] = {}
        pieces = [render(message, calls) for message in prior]
        kept: list[str] = []
        for piece in reversed(pieces):
            left -= self.counter.count(piece) + 2
            if left < 0:
                break
            kept.append(piece)
        left_out = len(pieces) - len(kept)
        history = ([f"[{left_out} earlier messages left out]"] if left_out else []) + kept[::-1]
        text = "<conversation>\n" + "\n\n".join(history) + "\n</conversation>\n\n" + "\n\n".join(works)
        return ProviderRequest(
            model=self.model, system=JUDGE_SYSTEM, messages=(Message.user(text),), max_tokens=JUDGE_MAX_TOKENS
        )

    def _fit(self, text: str, tokens: int) -> str:
        if self.counter.count(text) <= tokens:
            return text
        keep = max(200, tokens * 3)  # (about three characters a token: the start, where the task's answer begins)
        return text[:keep] + f"\n[… {len(text) - keep} more characters]\n</attempt>"

    async def choose(self, prior: Sequence[Message], branches: Sequence[Branch]) -> Verdict:
        candidates = [b for b in branches if b.result is not None]
        if not candidates:
            return Verdict(None, reasons="No branch finished its work.")
        request = self.request(prior, candidates)
        parent = self.parent
        with parent.ledger.waiting():
            answer = await ModelCall(parent.session_id).run(self.provider, request, parent.services.retry)
        if answer.usage is not None:
            parent.ledger.record(answer.usage, self.model, context_tokens=parent.context_tokens, window=parent.window)
        return _read_verdict(answer.text, {b.id for b in candidates}, answer.usage)


def _work(branch: Branch) -> str:
    calls: dict[str, ToolUseBlock] = {}
    said = "\n\n".join(render(message, calls) for message in branch.new_messages)
    stop = branch.result.stop if branch.result else "error"
    patch = branch.patch[:PATCH_CHARS] + (f"\n[… {len(branch.patch) - PATCH_CHARS} more characters]" if len(
        branch.patch) > PATCH_CHARS else "")  # fmt: skip
    return f"(ended: {stop})\n{said}\n\n<changes>\n{patch or '(no files changed)'}\n</changes>"


def _read_verdict(text: str, ids: set[str], usage: Usage | None) -> Verdict:
    found = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        data = json.loads(found.group(0)) if found else {}
    except json.JSONDecodeError:
        data = {}
    choice = data.get("choice") if isinstance(data, dict) else None
    if not isinstance(choice, str) or choice not in ids:
        return Verdict(None, reasons=f"The judge named no attempt ({text.strip()[:200]!r}); choose one yourself.")
    named = [i for i in data.get("ranking") or [] if isinstance(i, str) and i in ids]
    ranking = tuple(dict.fromkeys([choice, *named]))  # (the choice first, each once)
    return Verdict(choice, ranking, str(data.get("reasons") or ""), usage)


STRATEGIES: dict[str, Callable[[Agent], Strategy]] = {
    "first": lambda parent: First(),
    "tokens": lambda parent: FewestTokens(),
    "elaborate": lambda parent: MostElaborate(),
    "judge": lambda parent: Judge(parent),
}
"""By the names `--evaluate` and `/try` take."""

KEPT_EVENTS = (UserMessage, MessageStart, MessageEnd, ToolStart, ToolEnd, TurnEnd)

BranchMaker = Callable[[str, AttemptConfig, WorkingCopy], Agent]
"""Builds a branch's agent: its configuration, working in the copy, starting from the conversation so far."""


@dataclass
class Attempts:
    """One set of parallel attempts: run them, choose, then apply the chosen one's changes or none, and clean up."""

    parent: Agent
    source: Path
    """The person's project root."""
    scratch: Path
    """Where the working copies go (a directory of their own, removed with them)."""
    make_branch: BranchMaker
    transcript_dir: Path | None = None
    """Where each branch's sidechain transcript is written (None: nowhere)."""
    branches: list[Branch] = field(default_factory=list)
    verdict: Verdict | None = None
    stopped: bool = False

    async def run(self, prompt: str, configs: Sequence[AttemptConfig], strategy: Strategy) -> Verdict:
        """Run `prompt` on a branch per config, concurrently; the strategy's choice. Cancelling this cancels every
        branch. Raises WorkingCopyError when the copies cannot be made (none is left behind)."""
        prior = list(self.parent.messages)
        self.scratch.mkdir(parents=True, exist_ok=True)
        try:
            for number, config in enumerate(configs, 1):
                self.branches.append(await self._start(f"b{number}", config))
        except WorkingCopyError:
            self.close()
            raise
        for branch in self.branches:
            branch.agent.bus.on(self._forwarder(branch))
            self.parent.children.append(branch.agent)  # (its permission questions are answered through the parent)
        runs = [asyncio.create_task(self._run_one(branch, prompt, strategy)) for branch in self.branches]
        try:
            await asyncio.wait(runs)  # (unlike gather, being cancelled does not cancel them: they are stopped below)
        except asyncio.CancelledError:
            self.cancel()  # each stops as a cancelled run does, and says so
            await asyncio.wait(runs)
            raise
        finally:
            for branch in self.branches:
                if branch.agent in self.parent.children:
                    self.parent.children.remove(branch.agent)
                if (
                    branch.agent.services.provider is not self.parent.services.provider
                ):  # (a branch on a provider of its own)
                    await branch.agent.services.provider.aclose()
        if self.stopped:
            self.verdict = Verdict(None, reasons="The attempts were stopped before they finished.")
        else:
            self.verdict = await strategy.choose(prior, self.branches)
        self._record(strategy.name, self.verdict)
        return self.verdict

    def _record(self, strategy: str, verdict: Verdict) -> None:
        """The group in the session (a notice line): each attempt, where its transcript is, and the choice."""
        parts = []
        for branch in self.branches:
            where = f", transcript {branch.transcript.path.name}" if branch.transcript is not None else ""
            stop = branch.result.stop if branch.result else "error"
            parts.append(f"{branch.id} ({branch.agent.config.model}: {stop}, {branch.tokens:,} tokens{where})")
        judged = ""
        if verdict.usage is not None:
            judged = f"; judging took {verdict.usage.input_tokens + verdict.usage.output_tokens:,} tokens"
        chosen = f"{verdict.chosen} chosen" if verdict.chosen else "none chosen"
        said = f"Parallel attempts {', '.join(parts)}; {strategy}: {chosen}. {verdict.reasons}{judged}"
        self.parent.bus.emit(Notice(session_id=self.parent.session_id, level="info", message=said))

    async def _start(self, branch_id: str, config: AttemptConfig) -> Branch:
        copy = await asyncio.to_thread(WorkingCopy.create, self.source, self.scratch / branch_id)
        agent = self.make_branch(branch_id, config, copy)
        branch = Branch(branch_id, config, agent, copy, started_at=len(agent.messages))
        if self.transcript_dir is not None:
            agent_id = uuid.uuid4().hex[:17]  # (Claude Code's form of a sidechain's id)
            path = self.transcript_dir / f"agent-{agent_id}.jsonl"
            branch.transcript = SessionWriter(path, agent.session_id, copy.root, sidechain=True, agent_id=agent_id)
            branch.transcript.attach(agent.bus)
        return branch

    async def _run_one(self, branch: Branch, prompt: str, strategy: Strategy) -> None:
        try:
            branch.result = await branch.agent.prompt(prompt)
        except ProviderError as exc:
            branch.error = exc.message
        branch.finished = time.monotonic()
        try:
            branch.patch = await asyncio.to_thread(branch.copy.diff)
        except WorkingCopyError as exc:
            branch.error = str(exc)
        if strategy.stops_early and branch.succeeded:
            for other in self.branches:
                if other is not branch:
                    other.agent.cancel()

    def _forwarder(self, branch: Branch) -> Callable[[Event], None]:
        emit = self.parent.bus.emit

        def forward(event: Event) -> None:
            if isinstance(event, KEPT_EVENTS):
                branch.kept.append(event)
            emit(event.model_copy(update={"loop_id": branch.id}))

        return forward

    def branch(self, branch_id: str) -> Branch:
        found = next((b for b in self.branches if b.id == branch_id), None)
        if found is None:
            raise KeyError(
                f"There is no attempt {branch_id}; the attempts are {', '.join(b.id for b in self.branches)}."
            )
        return found

    def cancel(self) -> None:
        """Stop every branch (Esc): none is then chosen."""
        self.stopped = True
        for branch in self.branches:
            branch.agent.cancel()

    def apply(self, branch_id: str) -> None:
        """Write the branch's changes into the person's tree (all or nothing; WorkingCopyError says why not) and go
        on with its conversation."""
        chosen = self.branch(branch_id)
        chosen.copy.apply()
        self.parent.history.replace(chosen.agent.messages)
        for event in chosen.kept:  # (as if the parent had said it: the session's main chain gets the branch's work)
            self.parent.bus.emit(event)

    def close(self) -> None:
        """Remove every working copy (the person's tree keeps whatever was applied)."""
        for branch in self.branches:
            branch.copy.remove()
            if branch.transcript is not None:
                branch.transcript.close()
        shutil.rmtree(self.scratch, ignore_errors=True)  # (and whatever a copy that failed half-made left)
