"""What a URL's permission check needs to know: its host, and whether an address is private (loopback, the local
network, link-local, and the rest no public page lives at), which WebFetch reaches only when a rule names it."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def url_host(url: str) -> str | None:
    """The host of an http or https URL, lowercase, without brackets around an IPv6 address; None for anything
    else (another scheme, no host, a port that is not a number)."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname.lower().rstrip(".")


def is_private_address(address: str) -> bool:
    """An IP address no public web page is served from."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # (an IPv6 zone id is not part of the address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def is_private_host(host: str) -> bool:
    """A host that is a private address by its name alone: an IP address of that kind, or localhost. (A name that
    resolves to one is caught when it is resolved, before connecting.)"""
    return host == "localhost" or host.endswith(".localhost") or is_private_address(host)
