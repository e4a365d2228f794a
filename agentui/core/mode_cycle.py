"""Shift+Tab's round of permission modes: default → acceptEdits → plan (→ bypassPermissions, if the launch allowed
it) and round again."""

from __future__ import annotations

from agentui.core.project import PermissionOptions
from agentui.core.safety.permissions.engine import Mode


def next_mode(current: Mode, launched: PermissionOptions) -> Mode:
    """The mode after `current` (a mode outside the round goes back to its start)."""
    cycle: tuple[Mode, ...] = ("default", "acceptEdits", "plan")
    if launched.mode == "bypassPermissions" or launched.bypass_available:
        cycle += ("bypassPermissions",)
    return cycle[(cycle.index(current) + 1) % len(cycle)] if current in cycle else cycle[0]
