"""What each Claude model takes for effort and thinking, as Claude Code 2.1.197 sends them (measured model by
model against the real CLI): `output_config.effort` with the `effort-2025-11-24` beta where the model has the
effort control, clamped to the levels it has (`xhigh` and `max` only on some; a level it lacks is sent as `high`);
none at all where it has no such control (Sonnet 4.5, Haiku 4.5, older models); and thinking as `adaptive` on the
models that think adaptively (Sonnet 4.6, Opus 4.6 and later), where a token budget means nothing.

A model this table does not know gets the effort as asked, as Claude Code sends it; its thinking keeps agentui's
explicit budget (a server of another make behind ANTHROPIC_BASE_URL may not know `adaptive`)."""

from __future__ import annotations

from agentui.core.model_aliases import claude_name

EFFORT_BETA = "effort-2025-11-24"

_ALL = ("low", "medium", "high", "xhigh", "max")
_LEVELS: dict[str, tuple[str, ...]] = {
    # model-name prefix (the longest that fits wins): the effort levels it takes, () for none
    "claude-3": (),
    "claude-sonnet-4": (),
    "claude-haiku-4": (),
    "claude-opus-4": (),
    "claude-opus-4-5": ("low", "medium", "high"),
    "claude-sonnet-4-6": ("low", "medium", "high", "max"),
    "claude-opus-4-6": ("low", "medium", "high", "max"),
    "claude-opus-4-7": _ALL,
    "claude-opus-4-8": _ALL,
    "claude-sonnet-5": _ALL,
}
_PINNED = ("claude-opus-4-7", "claude-opus-4-8", "claude-fable-5")
"""Models whose effort at launch is their own default, whatever the `effortLevel` setting says (Claude Code 2.1.197
pins them unless its config unpins them); --effort and /effort still choose."""
_ADAPTIVE = ("claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-sonnet-5")


def _entry(model: str) -> str | None:
    name = claude_name(model)
    fitting = [prefix for prefix in _LEVELS if name.startswith(prefix)]
    return max(fitting, key=len) if fitting else None


def model_effort(model: str, effort: str | None) -> str | None:
    """The effort level a request for `model` sends when `effort` is asked for; None when it sends none."""
    if effort is None:
        return None
    entry = _entry(model)
    if entry is None:
        return effort
    levels = _LEVELS[entry]
    if not levels:
        return None
    return effort if effort in levels else "high"


def thinks_adaptively(model: str) -> bool:
    """The model decides how much to think (thinking is asked for as `adaptive`, with no budget)."""
    return claude_name(model).startswith(_ADAPTIVE)


def setting_applies(model: str) -> bool:
    """The `effortLevel` setting chooses the effort for `model` (not for the models whose launch effort is pinned)."""
    return not claude_name(model).startswith(_PINNED)
