"""A file read for an Agent SDK program itself (its `readFile()`, Claude Code's `read_file` request): resolved
against the project, allowed only where the Read tool would read it without asking (deny rules, secrets and
places outside the project refuse it), never waited on (a FIFO or a device is refused), and capped."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation

DEFAULT_BYTES = 1024 * 1024
"""What a read returns at most unless the program asks for another cap (Claude Code's default)."""
MOST_BYTES = 10 * 1024 * 1024


def read_for_program(
    conversation: Conversation, raw: str, max_bytes: int | None = None, encoding: str | None = None
) -> dict[str, Any]:
    """The file's contents (text, or base64 when asked), its resolved path, and whether it was cut at the cap.
    ValueError, in one sentence, for a file that may not or cannot be read."""
    from agentui.core.messages import ToolUseBlock

    path = Path(os.path.realpath(conversation.root / raw))
    tool = conversation.project.tools.get("Read")
    if tool is None:
        raise ValueError("Reading files is not available in this session.")
    given = {"file_path": str(path)}
    call = ToolUseBlock(id="read_file", name=tool.name, input=given)
    verdict = conversation.project.engine.check(tool, tool.Args.model_validate(given), call)
    if verdict.behavior != "allow":
        raise ValueError(f"{path} may not be read without a permission ({verdict.reason}).")
    cap = min(max(1, max_bytes or DEFAULT_BYTES), MOST_BYTES)
    from agentui.core.jsonfile import NotRegularError, regular_file_bytes

    try:
        data = regular_file_bytes(path, cap + 1)
    except NotRegularError:
        raise ValueError(f"{path} is not a regular file.") from None
    except OSError as exc:
        raise ValueError(f"{path} cannot be read ({exc.strerror}).") from None
    answer: dict[str, Any] = {"contents": "", "absPath": str(path)}
    if encoding == "base64":
        answer |= {"contents": base64.b64encode(data[:cap]).decode("ascii"), "encoding": "base64"}
    else:
        answer["contents"] = data[:cap].decode("utf-8", errors="replace")
    if len(data) > cap:
        answer["truncated"] = True
    return answer
