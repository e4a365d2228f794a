"""`agentui serve` without a browser: nothing without the token (403 and nothing more), the token once in the address
then in an HttpOnly, SameSite=Strict cookie, a websocket from another page's origin refused, and its own flags."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest

from tests.support.served import CEILING, Served, processes_with


@pytest.fixture
def served(clean_env: dict[str, str], project: Path) -> Iterator[Served]:
    server = Served(project, clean_env)
    try:
        yield server
    finally:
        server.close()


def test_without_the_token_every_address_is_403_and_nothing_more(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=CEILING) as client:
        for path in ("/", "/?token=wrong", "/static/js/textual.js", "/ws", "/download/x", "/nowhere"):
            answer = client.get(path)
            assert (answer.status_code, answer.text) == (403, "403: Forbidden"), path
            assert "set-cookie" not in answer.headers
        wrong_cookie = client.get("/", headers={"Cookie": f"agentui_serve_{served.port}={served.token[:-1]}x"})
        assert wrong_cookie.status_code == 403
        # (a page whose name was rebound to 127.0.0.1 is not served, even with the token)
        rebound = client.get(f"/?token={served.token}", headers={"Host": f"attacker.example:{served.port}"})
        assert rebound.status_code == 403


def test_the_token_in_the_address_becomes_a_strict_http_only_cookie(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=CEILING) as client:
        first = client.get(f"/?token={served.token}&fontsize=14")
        # (the token moves to the fragment, which no request carries; the page moves it out of the bar)
        assert first.status_code == 303 and first.headers["location"] == f"/?fontsize=14#token={served.token}"
        cookie = first.headers["set-cookie"]
        assert f"agentui_serve_{served.port}=" in cookie and served.token not in cookie  # (a secret of its own)
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        page = client.get("/?fontsize=14")  # the cookie alone from here on
        assert page.status_code == 200 and "textual-terminal" in page.text
        assert f"ws://127.0.0.1:{served.port}/ws" in page.text
        assert "googleapis" not in page.text  # (the page loads nothing from elsewhere)
        assert client.get("/static/js/textual.js").status_code == 200
        assert page.headers["x-frame-options"] == "DENY"


async def _handshake(served: Served, origin: str | None) -> int:
    """The websocket's handshake with the token and this Origin: 101 when it opens, else the status."""
    headers = {} if origin is None else {"Origin": origin}
    async with aiohttp.ClientSession() as session:
        try:
            address = f"{served.base}/ws?width=80&height=24&token={served.token}"
            async with session.ws_connect(address, headers=headers) as socket:
                await socket.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def test_a_websocket_from_another_origin_is_refused(served: Served) -> None:
    assert asyncio.run(_handshake(served, "http://attacker.example")) == 403
    assert asyncio.run(_handshake(served, f"http://127.0.0.1:{served.port + 1}")) == 403
    assert asyncio.run(_handshake(served, None)) == 403
    assert asyncio.run(_handshake(served, served.base)) == 101  # (its own page's origin opens it)


def test_ctrl_c_ends_the_apps_it_started(clean_env: dict[str, str], project: Path) -> None:
    model = f"claude-serve-{uuid.uuid4().hex[:8]}"  # (names the app's process)
    served = Served(project, clean_env, "--model", model)
    try:

        async def connect() -> None:
            headers = {"Origin": served.base}
            address = f"{served.base}/ws?width=80&height=24&token={served.token}"
            async with aiohttp.ClientSession() as session, session.ws_connect(address, headers=headers) as socket:
                await socket.receive(timeout=CEILING)  # (the app has started and draws)
                apps = [words for _, words in processes_with(model) if "serve" not in words]
                assert apps and apps[0][1:] == ["-m", "agentui", "--model", model]  # the same options
                assert served.interrupt() == 0

        asyncio.run(connect())
    finally:
        served.close()
    assert processes_with(model) == []


def _serve(project: Path, env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "agentui", "serve", *arguments]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=CEILING)


def test_another_machine_s_address_needs_allow_remote_and_warns(clean_env: dict[str, str], project: Path) -> None:
    refused = _serve(project, clean_env, "--host", "0.0.0.0")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        "agentui serve: --host 0.0.0.0 is reachable from other machines; add --allow-remote to serve there anyway; "
        "`agentui serve --help` lists the options."
    ]
    served = Served(project, clean_env, "--host", "0.0.0.0", "--allow-remote")
    try:
        assert served.url.startswith("http://0.0.0.0:")
    finally:
        served.close()
    assert "warning: serving on 0.0.0.0, which other machines can reach" in "".join(served.output)


def test_print_mode_and_bad_app_options_are_one_sentence(clean_env: dict[str, str], project: Path) -> None:
    printing = _serve(project, clean_env, "-p", "hello")
    assert printing.returncode == 2
    assert printing.stderr == (
        "agentui: agentui serve serves the app; -p and --input-format are for scripts, not for it.\n"
    )
    unknown = _serve(project, clean_env, "--permision-mode", "plan")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert "did you mean --permission-mode?" in unknown.stderr


def test_without_textual_serve_one_sentence_says_how_to_install_it(
    clean_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    hidden = tmp_path / "hidden"  # (a textual_serve that cannot be imported, ahead of the installed one)
    (hidden / "textual_serve").mkdir(parents=True)
    (hidden / "textual_serve" / "__init__.py").write_text("raise ImportError('not installed')\n")
    paths = [str(hidden), *filter(None, [clean_env.get("PYTHONPATH")])]
    missing = _serve(project, {**clean_env, "PYTHONPATH": ":".join(paths)})
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr == (
        "agentui: agentui serve needs textual-serve; install it with: pip install 'agentui[serve]'\n"
    )


def test_the_server_s_environment_shows_no_key_to_other_processes(clean_env: dict[str, str], project: Path) -> None:
    secret = f"sk-serve-{uuid.uuid4().hex}"
    served = Served(project, {**clean_env, "ANTHROPIC_API_KEY": secret})
    try:
        shown = Path(f"/proc/{served.process.pid}/environ").read_bytes()
    finally:
        served.close()
    assert b"ANTHROPIC_API_KEY=" in shown and secret.encode() not in shown


def test_a_killed_server_leaves_no_app_behind(clean_env: dict[str, str], project: Path) -> None:
    marker = f"served-{uuid.uuid4().hex[:8]}"
    served = Served(project, clean_env, "--append-system-prompt", marker)
    try:

        async def connect_then_kill() -> None:
            headers = {"Origin": served.base}
            address = f"{served.base}/ws?width=80&height=24&token={served.token}"
            async with aiohttp.ClientSession() as session, session.ws_connect(address, headers=headers) as socket:
                await socket.receive(timeout=CEILING)  # (the app has started and draws)
                assert [words for _, words in processes_with(marker) if "serve" not in words]
                served.process.kill()  # SIGKILL: nothing of the server's own ending runs
                served.process.wait(timeout=CEILING)

        asyncio.run(connect_then_kill())
        deadline = time.monotonic() + CEILING  # (only ends a broken run)
        while processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        served.close()
    assert processes_with(marker) == []


def test_a_port_in_use_is_one_sentence(clean_env: dict[str, str], project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = _serve(project, clean_env, "--port", str(port))
    assert busy.returncode == 1 and busy.stdout == ""
    assert busy.stderr == (
        f"agentui: cannot listen on 127.0.0.1:{port} (Address already in use); --port 0 picks a free port.\n"
    )


def test_past_max_apps_a_new_tab_is_refused_and_starts_no_app(clean_env: dict[str, str], project: Path) -> None:
    served = Served(project, clean_env, "--max-apps", "1")
    try:

        async def two_tabs() -> None:
            headers = {"Origin": served.base}
            address = f"{served.base}/ws?width=80&height=24&token={served.token}"
            async with aiohttp.ClientSession() as session, session.ws_connect(address, headers=headers) as first:
                await first.receive(timeout=CEILING)  # (the first tab's app has started)
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(address, headers=headers)
                assert refused.value.status == 503

        asyncio.run(two_tabs())
    finally:
        served.close()


def test_an_address_not_on_this_machine_is_one_sentence_without_the_port_hint(
    clean_env: dict[str, str], project: Path
) -> None:
    failed = _serve(project, clean_env, "--host", "10.255.255.1", "--allow-remote", "--port", "0")
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.endswith(
        "agentui: cannot listen on 10.255.255.1:0 (Cannot assign requested address).\n"
    )  # (after the warning; a free port would not help)


def test_the_cookie_another_port_s_server_receives_opens_no_app(served: Served) -> None:
    """Browsers send a host's cookies to all its ports: any other server on 127.0.0.1 gets this cookie."""
    with httpx.Client(base_url=served.base, timeout=CEILING) as client:
        client.get(f"/?token={served.token}")
        leaked = f"agentui_serve_{served.port}={client.cookies[f'agentui_serve_{served.port}']}"

    async def with_the_cookie_only() -> int:
        headers = {"Cookie": leaked, "Origin": served.base}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(f"{served.base}/ws?width=80&height=24", headers=headers) as socket:
                    await socket.close()
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    assert served.token not in leaked
    assert asyncio.run(with_the_cookie_only()) == 403


def test_a_host_header_with_a_path_in_it_is_refused(served: Served) -> None:
    """Only a name and port: the Host is written into the page's own addresses."""
    with httpx.Client(base_url=served.base, timeout=CEILING) as client:
        for host in ("127.0.0.1/attacker.example", "127.0.0.1#.attacker.example", "127.0.0.1?x"):
            assert client.get(f"/?token={served.token}", headers={"Host": host}).status_code == 403, host
        assert client.get(f"/?token={served.token}", headers={"Host": f"127.0.0.1:{served.port}"}).status_code == 303
