"""Images into the prompt: Ctrl+V reads the clipboard's image with the platform's tool (here a real `xclip` stand-in
on PATH), a dropped image file's pasted path becomes an attachment, each shows as an `[Image #N]` chip, and the
image goes to the model with the prompt while its chip is in the text."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

from textual import events

from agentui.core.messages import ImageBlock, TextBlock
from agentui.frontends.tui.clipboard_image import dropped_path
from tests.frontends.tui.test_app import Harness, idle, ready, until
from tests.support.listings import without_listings

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def fake_xclip(tmp_path: Path, output: bytes | None) -> dict[str, str]:
    """A real `xclip` on PATH that prints `output` as the clipboard's image (or fails, as with no image)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "xclip"
    if output is None:
        script.write_text("#!/bin/sh\necho 'Error: target image/png not available' >&2\nexit 1\n")
    else:
        (tmp_path / "clip.bin").write_bytes(output)
        script.write_text(f"#!/bin/sh\ncat '{tmp_path / 'clip.bin'}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "DISPLAY": ":99"}


def sent_blocks(harness: Harness) -> list[object]:
    return without_listings(list(harness.providers[0].requests[0].messages[-1].content))


async def test_ctrl_v_attaches_the_clipboard_image_as_a_chip(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "A single pixel."}])
    harness.env.update(fake_xclip(tmp_path, PIXEL))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("what is ")
        await pilot.press("ctrl+v")
        await until(pilot, lambda: "[Image #1]" in app.prompt_input.text)
        await pilot.press(*"this?", "enter")
        await until(pilot, lambda: idle(app) and harness.providers and harness.providers[0].requests)
        image, text = sent_blocks(harness)[:2]
        assert isinstance(image, ImageBlock) and base64.b64decode(image.source["data"]) == PIXEL
        assert image.source["media_type"] == "image/png"
        assert isinstance(text, TextBlock) and text.text == "what is [Image #1] this?"


async def test_no_image_in_the_clipboard_is_said_and_nothing_is_attached(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    harness.env.update(fake_xclip(tmp_path, None))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await until(pilot, lambda: any("holds no image" in str(n.message) for n in app._notifications))
        assert app.prompt_input.text == "" and app.prompt_input.images == {}

    (tmp_path / "text").mkdir()
    harness = Harness(tmp_path / "text", [{"text": "ok"}])
    harness.env.update(fake_xclip(tmp_path / "text", b"just some text, not an image"))
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await until(pilot, lambda: any("not a PNG, JPEG" in str(n.message) for n in app._notifications))
        assert app.prompt_input.images == {}


async def test_a_dropped_image_file_is_attached_and_a_deleted_chip_leaves_it_out(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Seen."}])
    shot = tmp_path / "my shot.png"
    shot.write_bytes(PIXEL)
    other = tmp_path / "other.png"
    other.write_bytes(PIXEL)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        prompt = app.prompt_input
        app.post_message(events.Paste(str(shot).replace(" ", "\\ ")))  # as a terminal pastes a dropped file
        await until(pilot, lambda: "[Image #1]" in prompt.text)
        app.post_message(events.Paste(f"'{other}'"))
        await until(pilot, lambda: "[Image #2]" in prompt.text)
        assert str(shot) not in prompt.text
        prompt.text = prompt.text.replace("[Image #1] ", "") + "only the second "
        prompt.move_cursor(prompt.document.end)
        app.post_message(events.Paste("plain words"))  # text is pasted as text
        await until(pilot, lambda: prompt.text.endswith("plain words"))
        await pilot.press("end", "enter")
        await until(pilot, lambda: idle(app) and harness.providers and harness.providers[0].requests)
        blocks = sent_blocks(harness)
        assert [type(b).__name__ for b in blocks[:2]] == ["ImageBlock", "TextBlock"]
        assert blocks[1].text == "[Image #2] only the second plain words"  # type: ignore[attr-defined]


def test_the_paths_terminals_paste_for_a_dropped_file(tmp_path: Path) -> None:
    spaced = tmp_path / "a b.png"
    spaced.write_bytes(PIXEL)
    assert dropped_path(str(spaced).replace(" ", "\\ ")) == str(spaced)
    assert dropped_path(f"'{spaced}'") == str(spaced)
    assert dropped_path(f'"{spaced}"\n') == str(spaced)
    assert dropped_path("file://" + str(spaced).replace(" ", "%20")) == str(spaced)
    assert dropped_path("relative.png") is None and dropped_path(f"{spaced}\n{spaced}") is None
    assert dropped_path(str(tmp_path / "missing.png")) is None and dropped_path(str(tmp_path)) is None
