"""`agentui serve`: the app in a browser, through textual-serve, behind a token printed at start."""

from __future__ import annotations

import sys

from agentui.frontends.serve.options import ServeOptions, split_arguments

__all__ = ["ServeOptions", "serve", "split_arguments"]


def serve(options: ServeOptions, app_arguments: list[str]) -> int:
    """Serve the app (started with `app_arguments`) until Ctrl+C; textual-serve missing is one sentence."""
    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        print(
            "agentui: agentui serve needs textual-serve; install it with: pip install 'agentui[serve]'",
            file=sys.stderr,
        )
        return 1
    from agentui.frontends.serve.run import run

    return run(options, app_arguments)
