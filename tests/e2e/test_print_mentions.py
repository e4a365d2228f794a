"""`@path` in a prompt, as Claude Code reads it (`agentui -p` against the loopback Messages API): a file goes with
the prompt as the Read tool gives it, a directory as its listing, an image as an image; a binary file and a file a
deny rule covers are named in one sentence and not sent; a word that names no file, an e-mail address and a
sub-agent's prompt are left as they are. The real Claude Code sends the same reminders for the same prompt."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.e2e.test_print_mode import anthropic_env, run
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "src" / "main.py").write_text("x = 1\n")
    (project / "src" / "util.py").write_text("y = 2\n")
    (project / "notes with space.md").write_text("spaced out\n")
    (project / "blob.bin").write_bytes(bytes(range(256)) * 8)
    (project / "dot.png").write_bytes(PNG)
    (project / ".env").write_text("TOKEN=hunter2\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(.env)"]}}))
    return project


def _prompt_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The blocks of the first user message (the prompt's)."""
    content = body["messages"][0]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else without_listings(content)


def test_what_a_prompt_names_with_at_goes_with_it(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}])))
    prompt = (
        'look at @calc.py, @src/ and @"notes with space.md" and @dot.png; not @blob.bin or @.env; '
        "mail me@example.com, ask @someone"
    )
    done = run(agentui_bin, ["-p", prompt], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Seen."
    blocks = _prompt_blocks(server.requests[0].json())
    assert blocks[0] == {"type": "text", "text": prompt}  # the prompt first, as typed (titles read it)
    texts = [block.get("text", "") for block in blocks]
    sent = "\n".join(texts)
    read = json.dumps({"file_path": str(project / "calc.py")}, separators=(",", ":"))
    assert f"<system-reminder>\nCalled the Read tool with the following input: {read}\n</system-reminder>" in texts
    assert "return a - b" in sent and "spaced out" in sent  # (a trailing comma and a quoted name with spaces)
    assert "Called the Bash tool" in sent and "main.py\nutil.py" in sent  # a directory, as its listing
    assert any(block["type"] == "image" for block in blocks)  # an image, as the Read tool gives it
    assert "hunter2" not in sent and "not attached" in sent  # a deny rule wins over the person's @
    assert "binary file" in sent
    assert "example.com" not in sent.replace(prompt, "") and "someone" not in sent.replace(prompt, "")
    # the person is told, in one sentence each, what was not attached
    assert "@blob.bin was not attached: blob.bin is a binary file" in done.stderr
    assert "@.env was not attached:" in done.stderr and "Traceback" not in done.stderr


def test_a_file_named_with_at_counts_as_read_for_an_edit(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    edit = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    server.enqueue(
        Reply(
            chunks=anthropic_stream(
                [{"type": "tool_use", "id": "e1", "name": "Edit", "input": edit}], stop_reason="tool_use"
            )
        ),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Fixed."}])),
    )
    args = ["-p", "fix @calc.py", "--allowedTools", "Edit"]
    done = run(agentui_bin, args, anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_a_file_outside_the_project_or_behind_a_link_out_is_not_attached(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    secret = tmp_path / "elsewhere" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("PRIVATE KEY\n")
    (project / "key").symlink_to(secret)  # (a link in the project that leads out of it)
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}])))
    done = run(agentui_bin, ["-p", f"see @{secret} and @key"], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(server.requests[0].json()["messages"])
    assert "PRIVATE KEY" not in sent
    assert done.stderr.count("was not attached") == 2 and "outside the project" in done.stderr


def test_odd_mentions_cost_nothing_but_themselves_and_a_denied_directory_lists_no_names(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    (project / "longlink").symlink_to("a" * 300)  # (resolving it fails: the name is too long)
    (project / "secrets" / "deep").mkdir(parents=True)
    (project / "secrets" / "prod.key").write_text("KEY\n")
    (project / "mixed").mkdir()
    (project / "mixed" / "open.txt").write_text("")
    (project / "mixed" / "hidden.pem").write_text("")
    settings = {"permissions": {"deny": ["Read(.env)", "Read(secrets/**)", "Read(**/*.pem)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}])))
    prompt = "see @longlink and @secrets/ and @mixed/"
    done = run(agentui_bin, ["-p", prompt], anthropic_env(clean_env, server), cwd=project)
    assert done.returncode == 0 and done.stdout.strip() == "Seen.", done.stderr
    assert "@longlink was not attached" in done.stderr and "Traceback" not in done.stderr
    sent = json.dumps(server.requests[0].json()["messages"])
    assert "prod.key" not in sent and "deep" not in sent and "a deny rule covers what it holds" in sent
    assert "open.txt" in sent and "hidden.pem" not in sent  # (the names a deny rule covers are left out)
