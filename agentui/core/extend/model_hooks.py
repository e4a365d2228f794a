"""Claude Code's "prompt" and "agent" hooks: a model, not a command, answers whether the hook's condition holds.

A prompt hook sends its `prompt` (`$ARGUMENTS` replaced by the hook's input as JSON, or the input appended when it has
no placeholder) to the small fast model, which answers `{"ok": true}` or `{"ok": false, "reason": "..."}`; at Stop
the conversation so far goes before the question. An agent hook gives the same prompt to a sub-agent
that may look around (read-only tools, never asking the person) and answers through a StructuredOutput call.

Both end as a command hook would, so `Hooks` reads them alike: ok is exit 0, not ok is exit 2 (a block, with Claude
Code's reason; a prompt hook's no after a call also ends the run, as `continue: false` does), and a hook that cannot
be answered (no model, a bad answer, an error) is a warning, the run going on.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Protocol

PROMPT_TIMEOUT = 30.0
AGENT_TIMEOUT = 60.0
"""Claude Code's defaults, in seconds, when the hook gives no `timeout`."""
AGENT_MAX_TURNS = 50
KINDS = ("prompt", "agent")
_STOPS = frozenset({"Stop", "SubagentStop"})
_ENDS_THE_RUN = frozenset({"PostToolUse"})
"""Where a prompt hook's no also ends the run after the call, as Claude Code's does (`continue: false`)."""

JUDGE_SYSTEM = """You are evaluating a hook condition in Claude Code. Judge whether the user-provided condition is met.

Your response must be a JSON object with one of these shapes:
- {"ok": true, "reason": "<reason the condition is met>"}
- {"ok": false, "reason": "<reason the condition is not met>"}

Always include a "reason" field."""

STOP_JUDGE_SYSTEM = """You are evaluating a stop-condition hook in Claude Code. Read the conversation transcript \
carefully, then judge whether the user-provided condition is satisfied.

Your response must be a JSON object with one of these shapes:
- {"ok": true, "reason": "<quote evidence from the transcript that satisfies the condition>"}
- {"ok": false, "reason": "<quote what is missing or what blocks the condition>"}
- {"ok": false, "impossible": true, "reason": "<explain why the condition can never be satisfied>"}

Always include a "reason" field, quoting specific text from the transcript whenever possible. If the transcript does \
not contain clear evidence that the condition is satisfied, return {"ok": false, "reason": "insufficient evidence in \
transcript"}.

Only use {"ok": false, "impossible": true} when the condition is genuinely unachievable in this session \u2014 for \
example: the condition is self-contradictory, it depends on a resource or capability that is unavailable, or the \
assistant has explicitly tried, exhausted reasonable approaches, and stated it cannot be done. Apply your own judgment \
when deciding this \u2014 the assistant claiming the goal is impossible is evidence, not proof; independently confirm \
the condition is genuinely unachievable rather than deferring to the assistant's self-assessment. Do not use it just \
because the goal has not been reached yet or because progress is slow. When in doubt, return {"ok": false} without \
"impossible"."""

STOP_CONDITION = (
    "Based on the conversation transcript above, has the following stopping condition been satisfied? Answer based "
    "on transcript evidence only.\n\nCondition: {prompt}"
)

VERIFY_SYSTEM = """{opening} The conversation transcript is available at: {transcript}
You can read this file to analyze the conversation history if needed.

Use the available tools to inspect the codebase and verify the condition.
Use as few steps as possible - be efficient and direct.

When done, return your result using the StructuredOutput tool with:
- ok: true if the condition is met
- ok: false with reason if the condition is not met"""
STOP_OPENING = (
    "You are verifying a stop condition in Claude Code. Your task is to verify that the agent completed the given plan."
)
EVENT_OPENING = (
    "You are evaluating a {event} hook in Claude Code. Your task is to evaluate the condition described in the user "
    "message."
)

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"}, "impossible": {"type": "boolean"}},
    "required": ["ok", "reason"],
    "additionalProperties": False,
}
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "description": "Whether the condition was met"},
        "reason": {"type": "string", "description": "Reason, if the condition was not met"},
    },
    "required": ["ok"],
    "additionalProperties": False,
}
"""The arguments of the agent hook's StructuredOutput tool."""
VERDICT_TOOL_DESCRIPTION = (
    "Use this tool to return your verification result. You MUST call this tool exactly once at the end of your "
    "response."
)


class HookModels(Protocol):
    """The model calls the hooks make, given by whoever holds the conversation (the hooks know no provider)."""

    async def judge(self, system: str, text: str, *, model: str | None, transcript: bool) -> str:
        """The model's answer to `text` under `system`; after the conversation so far when `transcript`."""
        ...

    async def verify(self, system: str, text: str, *, model: str | None, transcript: str) -> dict[str, Any] | None:
        """A verifying sub-agent's StructuredOutput arguments (VERDICT_SCHEMA), or None if it gave none; it may read
        the conversation's `transcript`."""
        ...


class ModelHook(Protocol):
    """What a model hook's spec tells (`hooks.HookSpec` is one)."""

    @property
    def event(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def command(self) -> str:
        """The hook's prompt."""
        ...

    @property
    def model(self) -> str | None: ...

    @property
    def timeout(self) -> float: ...


def with_arguments(prompt: str, arguments: str) -> str:
    """The prompt with `$ARGUMENTS` replaced by the hook's input, or the input appended, as Claude Code does."""
    if "$ARGUMENTS" in prompt:
        return prompt.replace("$ARGUMENTS", arguments)
    return f"{prompt}\n\nARGUMENTS: {arguments}"


def verdict_of(text: str) -> dict[str, Any] | None:
    """The {"ok": ..., "reason": ...} in a model's answer (a code fence around it is allowed), or None."""
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text.strip(), re.DOTALL)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("ok"), bool):
        return None
    if "reason" in value and not isinstance(value["reason"], str):
        return None
    return value


async def run_model_hook(
    spec: ModelHook, data: bytes, models: HookModels | None, transcript: str
) -> tuple[int | None, str, str]:
    """The hook's answer as a command's would be: (0 ok, 2 not ok with the reason on "stderr", 1 could not be
    answered with why, None timed out; stdout, stderr)."""
    if models is None:
        return 1, "", "no model is available to answer it"
    arguments = json.dumps(json.loads(data), ensure_ascii=False, separators=(",", ":"))
    try:
        if spec.kind == "agent":
            return await asyncio.wait_for(_agent(spec, arguments, models, transcript), spec.timeout)
        return await asyncio.wait_for(_prompt(spec, arguments, models), spec.timeout)
    except TimeoutError:
        return None, "", ""
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:  # (a provider's error, or any other: a hook never takes the run down)
        return 1, "", f"Error executing {spec.kind} hook: {exc}"


async def _prompt(spec: ModelHook, arguments: str, models: HookModels) -> tuple[int | None, str, str]:
    stop = spec.event in _STOPS
    question = STOP_CONDITION.format(prompt=spec.command) if stop else spec.command
    system = STOP_JUDGE_SYSTEM if stop else JUDGE_SYSTEM
    # (the conversation before a Stop's question; a sub-agent's own is not at hand, so SubagentStop's has none)
    transcript = spec.event == "Stop"
    answer = await models.judge(system, with_arguments(question, arguments), model=spec.model, transcript=transcript)
    verdict = verdict_of(answer)
    if verdict is None:
        return 1, answer, "its model's answer was not the JSON it asks for"
    if verdict["ok"] or (stop and verdict.get("impossible") is True):  # (impossible: stopping is all that is left)
        return 0, "", ""
    reason = verdict.get("reason") or "no reason given"
    if spec.event in _ENDS_THE_RUN:
        said = {"continue": False, "stopReason": reason, "decision": "block", "reason": f"[{spec.command}]: {reason}"}
        return 0, json.dumps(said), ""
    return 2, "", f"[{spec.command}]: {reason}"


async def _agent(spec: ModelHook, arguments: str, models: HookModels, transcript: str) -> tuple[int | None, str, str]:
    opening = STOP_OPENING if spec.event in _STOPS else EVENT_OPENING.format(event=spec.event)
    system = VERIFY_SYSTEM.format(opening=opening, transcript=transcript)
    verdict = await models.verify(system, with_arguments(spec.command, arguments), model=spec.model,
                                  transcript=transcript)  # fmt: skip
    if verdict is None or not isinstance(verdict.get("ok"), bool):
        return 1, "", "its agent gave no verdict"
    if verdict["ok"]:
        return 0, "", ""
    return 2, "", f"Agent hook condition was not met: {verdict.get('reason') or 'no reason given'}"
