"""Input filters (phi-core's): commands, configured in agentui's settings (`input_filters`), that read each prompt
the person sends before the model does and may reject it. Each runs as a hook's command runs (confined, with its
timeout): the prompt comes on stdin as JSON; exit code 2 (its stderr the reason), or `{"decision": "block",
"reason": "..."}` on stdout, rejects it. A filter that times out or fails otherwise lets the prompt through, with a
notice, as a hook does."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from agentui.core.events import Event, PromptRejected
from agentui.core.extend.hooks import Hooks, HookSpec, PromptBlocked
from agentui.core.settings import InputFilter


class FilteredOut(PromptBlocked):
    """An input filter rejected the prompt; the message is its reason."""

    def said(self) -> tuple[str, str]:
        return f"The prompt was not sent: an input filter rejected it ({self}).", "input_filter"


async def check_prompt(hooks: Hooks, emit: Callable[[Event], None], session_id: str, prompt: str) -> None:
    """Raises FilteredOut, after a PromptRejected event, when an input filter rejects `prompt`."""
    rejected = await rejection(hooks, hooks.input_filters, session_id, prompt)
    if rejected is not None:
        command, reason = rejected
        emit(PromptRejected(session_id=session_id, reason=reason, filter=command))
        raise FilteredOut(reason)


async def rejection(
    hooks: Hooks, filters: Sequence[InputFilter], session_id: str, prompt: str
) -> tuple[str, str] | None:
    """The first rejection of `prompt` (the filter's command and its reason), or None when every filter passes it."""
    data = json.dumps({"session_id": session_id, "cwd": str(hooks.cwd), "prompt": prompt}).encode()
    for each in filters:
        spec = HookSpec("InputFilter", "", each.command, each.timeout, "settings")
        code, stdout, stderr = await hooks.run_command(spec, data)
        if code is None:
            hooks.notify(f"The input filter `{each.command}` timed out after {each.timeout:g} s; the prompt goes on.")
        elif code == 2:
            return each.command, _sentence(stderr)
        elif code != 0:
            hooks.notify(f"The input filter `{each.command}` failed (exit code {code}); the prompt goes on.")
        elif (reason := _blocked(stdout)) is not None:
            return each.command, reason
    return None


def _blocked(stdout: str) -> str | None:
    try:
        said = json.loads(stdout) if stdout.strip().startswith("{") else None
    except ValueError:
        return None
    if isinstance(said, dict) and said.get("decision") == "block":
        return _sentence(str(said.get("reason") or ""))
    return None


def _sentence(reason: str) -> str:
    """The reason as one short line (a filter's stderr may run on)."""
    line = " ".join(reason.split())[:300]
    return line.rstrip(".") or "no reason given"
