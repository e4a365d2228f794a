"""The commands a front end gives a conversation, as data (`Conversation.handle`), and their JSON form.

They are the core's own (`agentui.core.control`), named here so that a front end imports only `agentui.api`.
"""

from agentui.core.control import (
    AddRule,
    Answer,
    Command,
    CommandError,
    Compact,
    CompletePath,
    CycleMode,
    EndGrants,
    Export,
    FollowUp,
    GrantForRun,
    Interrupt,
    Prompts,
    Rewind,
    RunShell,
    Send,
    SetMode,
    SetModel,
    Steer,
    StopBackground,
    outcome_json,
    parse_command,
)

__all__ = [
    "AddRule",
    "Answer",
    "Command",
    "CommandError",
    "Compact",
    "CompletePath",
    "CycleMode",
    "EndGrants",
    "Export",
    "FollowUp",
    "GrantForRun",
    "Interrupt",
    "Prompts",
    "Rewind",
    "RunShell",
    "Send",
    "SetMode",
    "SetModel",
    "Steer",
    "StopBackground",
    "outcome_json",
    "parse_command",
]
