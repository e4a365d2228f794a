"""The one line that says what a tool call does (the command, the file, the pattern): for the app's blocks and
the Markdown export alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def call_summary(name: str, arguments: dict[str, Any], cwd: Path | None = None) -> str:
    """The one line that says what a call does: the command, the file, the pattern."""

    def path(value: Any) -> str:
        text = str(value or "")
        if cwd is not None and text.startswith(str(cwd) + "/"):
            return text[len(str(cwd)) + 1 :]
        return text

    if name == "Bash":
        command = str(arguments.get("command", "")).strip()
        first = command.splitlines()[0] if command else ""
        return first + (" …" if "\n" in command else "")
    if name in ("Read", "Write", "Edit"):
        return path(arguments.get("file_path"))
    if name == "Grep":
        where = f" in {path(arguments['path'])}" if arguments.get("path") else ""
        return f"{arguments.get('pattern', '')}{where}"
    if name == "Glob":
        where = f" in {path(arguments['path'])}" if arguments.get("path") else ""
        return f"{arguments.get('pattern', '')}{where}"
    if name == "TodoWrite":
        return f"{len(arguments.get('todos') or [])} tasks"
    if name == "TaskCreate":
        return str(arguments.get("subject") or "")
    if name in ("TaskUpdate", "TaskGet"):
        change = f" → {arguments['status']}" if arguments.get("status") else ""
        return f"#{arguments.get('taskId', '?')}{change}"
    if name in ("TaskOutput", "TaskStop", "BashOutput", "KillShell", "KillBash"):
        return str(arguments.get("task_id") or arguments.get("shell_id") or arguments.get("bash_id") or "")
    if name in ("Agent", "Task"):
        return str(arguments.get("description") or "")
    if name == "TaskList":
        return "all tasks"
    if name == "WebFetch":
        return str(arguments.get("url") or "")
    if name == "WebSearch":
        return str(arguments.get("query") or "")
    if name == "ExitPlanMode":
        plan = str(arguments.get("plan") or "").strip()
        return plan.splitlines()[0].lstrip("# ") if plan else "the plan"
    if name == "AskUserQuestion":
        asked = arguments.get("questions")
        questions: list[Any] = asked if isinstance(asked, list) else []
        first = questions[0].get("question", "") if questions and isinstance(questions[0], dict) else ""
        more = f" (+{len(questions) - 1} more)" if len(questions) > 1 else ""
        return f"{first}{more}"
    compact = json.dumps(arguments, ensure_ascii=False)
    return compact if len(compact) <= 100 else compact[:97] + "…"
