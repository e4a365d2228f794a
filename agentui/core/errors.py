"""AgentuiError: the root of every error the core raises for a front end to catch and show in one sentence."""

from __future__ import annotations


class AgentuiError(Exception):
    """An error whose message is a sentence for the person: what went wrong and, where it helps, what to do.
    A front end that catches this catches every error of the core it may show; anything else is a bug."""
