"""A "browser" for the OAuth tests, run as $BROWSER with the authorization URL: it follows the authorisation
server's redirects with httpx, as a browser whose person consents would, until the loopback callback answers;
it writes the URL it was given to $OAUTH_BROWSER_LOG."""

from __future__ import annotations

import os
import sys

import httpx

url = sys.argv[1]
if log := os.environ.get("OAUTH_BROWSER_LOG"):
    with open(log, "a") as handle:
        handle.write(url + "\n")
with httpx.Client(timeout=60) as client:
    for _ in range(10):
        response = client.get(url)
        if response.status_code not in (301, 302, 303, 307, 308):
            break
        url = str(response.next_request.url) if response.next_request else response.headers["location"]
sys.exit(0 if response.status_code == 200 else 1)
