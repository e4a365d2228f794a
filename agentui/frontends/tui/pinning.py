"""Ctrl+P on a focused block of the transcript (a prompt, a tool call): pin its message, so that every compaction
carries it verbatim, or unpin it; the block shows a pin mark while it is pinned."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


def pin_focused(app: AppHost, focused: Widget | None) -> None:
    """Pin or unpin what `focused` shows; says why not when it cannot."""
    from agentui.frontends.tui.widgets.tool_block import ToolBlock
    from agentui.frontends.tui.widgets.transcript import UserPrompt

    conversation = app.conversation
    if conversation is None or not isinstance(focused, ToolBlock | UserPrompt):
        app.say("Focus a prompt (click it) or a tool call (Tab) to pin it with Ctrl+P.")
        return
    try:
        if isinstance(focused, UserPrompt):
            pinned = conversation.pin(prompt=focused.text)
        else:
            pinned = conversation.pin(tool_call_id=focused.tool_call_id)
    except (LookupError, OSError) as error:
        app.say(str(error) if isinstance(error, LookupError) else f"The pin could not be saved: {error}", "warning")
        return
    focused.set_pinned(pinned)
    app.say("Pinned: every compaction carries it verbatim." if pinned else "Unpinned.")
