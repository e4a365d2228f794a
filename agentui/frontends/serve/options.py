"""`agentui serve`'s own flags (where to listen), split from the app's options, which the served app is given."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    allow_remote: bool = False
    max_apps: int = 4
    """Apps (browser tabs) running at once: each is a whole agentui, and a page reloaded in a loop must not start
    them without end."""

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only: a loopback address, or `localhost`."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # (a name: it may resolve anywhere)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535; 0 picks a free one)")
    return port


def _count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"{count} is too few (at least 1)")
    return count


def _parser(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = parser_class(
        prog="agentui serve",
        description="Serve the app to a browser. Other options are the app's, passed to it.",
        allow_abbrev=False,  # (an abbreviation could swallow one of the app's options)
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=8000, help="the port to listen on (0: a free one)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="listen on an address other machines can reach (anyone with the token can then run commands here)",
    )
    parser.add_argument("--max-apps", type=_count, default=4, help="apps (browser tabs) served at once (default: 4)")
    return parser


def split_arguments(
    words: Sequence[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
) -> tuple[ServeOptions, list[str]]:
    """Serve's own options, and the rest for the app. Bad usage exits 2 with one sentence, as the app's flags do."""
    parser = _parser(parser_class)
    own, rest = parser.parse_known_args(list(words))
    options = ServeOptions(host=own.host, port=own.port, allow_remote=own.allow_remote, max_apps=own.max_apps)
    if not options.loopback and not options.allow_remote:
        parser.error(
            f"--host {options.host} is reachable from other machines; add --allow-remote to serve there anyway"
        )
    return options, rest
