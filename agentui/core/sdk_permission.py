"""A permission question as Claude Code's SDK interface puts it to a program's `can_use_tool` callback: the fields
Claude Code 2.1.197 sends, with the allow rules agentui would add shaped as Claude Code shapes its suggestions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentui.core.events import PermissionRequest


def can_use_tool_request(event: PermissionRequest, root: Path) -> dict[str, Any]:
    """A `can_use_tool` request's fields as Claude Code sends them: the tool and its input, a name and a one-line
    description, the rules or mode that would allow it as Claude Code shapes them, the path a command would write
    (`blocked_path`), and why it asks."""
    rules = [rule_value(text) for text in event.suggestions]
    suggestions: list[dict[str, Any]] = []
    if event.tool_name == "Bash" and not any(rule["toolName"] == "Bash" for rule in rules):
        command = str(event.input.get("command", "")).strip()  # (Claude Code offers the command itself first)
        suggestions.append({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": command}],
                            "behavior": "allow", "destination": "localSettings"})  # fmt: skip
    if rules == [{"toolName": "Edit"}]:  # (every edit: Claude Code's "accept edits for this session")
        suggestions.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    elif rules:
        suggestions.append({"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"})
    context: dict[str, Any] = {
        "tool_name": event.tool_name, "display_name": event.tool_name, "input": event.input,
        "description": _description(event, root), "permission_suggestions": suggestions,
    }  # fmt: skip
    written = [rule["ruleContent"] for rule in rules if rule["toolName"] == "Edit" and "ruleContent" in rule]
    if event.tool_name == "Bash" and written and not written[0].endswith("/**"):
        context["blocked_path"] = "/" + written[0].lstrip("/")
    return {**context, "tool_use_id": event.tool_call_id, "decision_reason": event.reason}


def _description(event: PermissionRequest, root: Path) -> str:
    """What Claude Code's prompt shows under the tool's name: the command, or the path (from the project, or ~)."""
    given = event.input
    if isinstance(given.get("description"), str) and event.tool_name != "Bash":
        return str(given["description"])
    if isinstance(given.get("command"), str):
        return str(given["command"])
    raw = next((given[key] for key in ("file_path", "notebook_path", "path") if isinstance(given.get(key), str)), "")
    if not raw:
        return event.tool_name
    path = Path(raw).expanduser()
    home = Path(os.environ.get("HOME") or Path.home())
    for base, shown in ((root, ""), (home, "~/")):
        if path.is_absolute() and path.is_relative_to(base):
            return shown + str(path.relative_to(base))
    return raw


def rule_value(text: str) -> dict[str, str]:
    """A rule as Claude Code's permission updates carry it: `Bash(npm test:*)` is its tool and its content."""
    name, _, rest = text.partition("(")
    return {"toolName": name, "ruleContent": rest[:-1]} if rest else {"toolName": name}
