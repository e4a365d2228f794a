"""How a cost in US dollars is written for a person, the same wherever it shows (the status bar, /cost), as Claude
Code writes it: cents above half a dollar, else four decimals. Light on purpose: the app's status bar uses it before
the engine has loaded."""

from __future__ import annotations


def shown_cost(usd: float) -> str:
    """ "$0.0123", "$1.27"."""
    return f"${usd:.2f}" if usd > 0.5 else f"${usd:.4f}"
