"""What a status line command is told of the session: the JSON Claude Code 2.1.197 gives its `statusLine` command,
key for key, with agentui's values (the model, the directories, the cost, the context window as the last answer
left it); and `StatusReport`, a conversation's status line run with it."""

from __future__ import annotations

import math
import re
import time
from typing import TYPE_CHECKING, Any

from agentui import __version__
from agentui.core.events import Event, ToolEnd

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation
    from agentui.core.extend.status_line import StatusLine, StatusLineOutcome
    from agentui.core.messages import Message, Usage

DEFAULT_WINDOW = 200_000
"""The window Claude Code counts against for a model whose window it does not know."""
LARGE_CONTEXT = 200_000
"""Past this many tokens in the last request (and its answer), `exceeds_200k_tokens` is true."""
_CLAUDE = re.compile(
    r"^claude-(?:(\d+)-(?:(\d)-)?(opus|sonnet|haiku)|(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d))?)\b"
)


class LineTally:
    """The lines a conversation's edits added and removed, counted from its events (made before the first prompt, it
    sees them all)."""

    def __init__(self, conversation: Conversation) -> None:
        self.added = self.removed = 0
        conversation.on(self._count)

    def _count(self, event: Event) -> None:
        match event:
            case ToolEnd(is_error=False, loop_id=None, details=details) if "structuredPatch" in details:
                added, removed = changed_lines(details)
                self.added += added
                self.removed += removed
            case _:
                pass


class StatusReport:
    """A conversation's status line: the session as its command is told it (the lines its edits changed among it),
    and the command run with it."""

    def __init__(self, conversation: Conversation, status_line: StatusLine) -> None:
        self.conversation = conversation
        self.status_line = status_line
        self.started = time.monotonic()
        self.lines = LineTally(conversation)

    @property
    def padding(self) -> int:
        return self.status_line.setting.padding

    @property
    def refresh_seconds(self) -> float | None:
        return self.status_line.setting.refresh_seconds

    async def refresh(self, columns: int | None = None) -> StatusLineOutcome:
        """The command run now with the session as it stands: its first line, or why there is none."""
        return await self.status_line.run(self.session(), columns=columns)

    def session(self) -> dict[str, Any]:
        """Claude Code's status JSON, in its order (keys it leaves out when they do not apply are left out here)."""
        conversation = self.conversation
        agent = conversation.agent
        root = conversation.root
        cwd = str(conversation.project.workspace.shell_cwd or root)
        model = conversation.model
        usage = last_usage(conversation.messages)
        window = conversation.window or DEFAULT_WINDOW
        prompt_id = getattr(agent, "prompt_id", None)
        name = conversation.launch.name
        return {
            "session_id": conversation.session_id,
            "transcript_path": str(conversation.session.path),
            "cwd": cwd,
            **({"prompt_id": prompt_id} if prompt_id else {}),
            **({"session_name": name} if name else {}),
            "model": {"id": model, "display_name": display_name(model)},
            "workspace": {
                "current_dir": cwd,
                "project_dir": str(root),
                "added_dirs": [str(d) for d in conversation.project.workspace.additional_dirs],
            },
            "version": __version__,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": agent.ledger.cost_usd,
                "total_duration_ms": round((time.monotonic() - self.started) * 1000),
                "total_api_duration_ms": round(agent.ledger.session_api_seconds * 1000),
                "total_lines_added": self.lines.added,
                "total_lines_removed": self.lines.removed,
            },
            "context_window": context_window(usage, window),
            "exceeds_200k_tokens": usage is not None and usage.total_tokens > LARGE_CONTEXT,
            "fast_mode": False,
            "thinking": {"enabled": agent.config.options.thinking_budget is not None},
        }


def status_line_report(conversation: Conversation) -> StatusReport | None:
    """The conversation's status line, if the settings give one (a project's own only once it is trusted)."""
    line = conversation.project.status_line
    return None if line is None else StatusReport(conversation, line)


def last_usage(messages: list[Message]) -> Usage | None:
    """The usage the last answer reported: what the context window holds as of now."""
    for message in reversed(messages):
        if message.usage is not None:
            return message.usage
    return None


def context_window(usage: Usage | None, window: int) -> dict[str, Any]:
    """As Claude Code fills it from the last answer's usage: its tokens in and out, the window, and the share used
    (null before any answer)."""
    # (rounded as JavaScript's Math.round rounds, half up: 2.5% is 3, where Python's round makes it 2)
    used = None if usage is None else min(100, max(0, math.floor(usage.context_tokens / window * 100 + 0.5)))
    return {
        "total_input_tokens": usage.context_tokens if usage else 0,
        "total_output_tokens": usage.output_tokens if usage else 0,
        "context_window_size": window,
        "current_usage": None if usage is None else usage.model_dump(),
        "used_percentage": used,
        "remaining_percentage": None if used is None else 100 - used,
    }


def display_name(model: str) -> str:
    """ "claude-sonnet-4-5-20250929" -> "Sonnet 4.5", "claude-3-5-haiku" -> "Haiku 3.5"; any other model as it is."""
    found = _CLAUDE.match(model)
    if found is None:
        return model
    major, minor, family = (found[1], found[2], found[3]) if found[3] else (found[5], found[6], found[4])
    return f"{family.capitalize()} {major}{'.' + minor if minor else ''}"


def changed_lines(details: dict[str, Any]) -> tuple[int, int]:
    """The lines an edit's result added and removed, counted as Claude Code counts them: the diff's + and - lines,
    or a new file's lines."""
    hunks = details.get("structuredPatch") or []
    if not hunks:
        content = details.get("content") if details.get("type") == "create" else None
        return ((content.count("\n") + 1) if isinstance(content, str) and content else 0), 0
    lines = [line for hunk in hunks if isinstance(hunk, dict) for line in hunk.get("lines", [])]
    added = sum(1 for line in lines if isinstance(line, str) and line.startswith("+"))
    removed = sum(1 for line in lines if isinstance(line, str) and line.startswith("-"))
    return added, removed
