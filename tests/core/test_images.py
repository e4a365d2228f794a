"""Images the person adds to a prompt or a steering message: checked, sent before the text, and kept in the session
as Claude Code keeps pasted images."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from agentui.core.images import ImageError, image_from_bytes, image_from_file
from agentui.core.messages import ImageBlock, TextBlock
from tests.core.test_task_state import open_conversation, say, use
from tests.support.listings import without_listings

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_images_go_before_the_text_of_a_prompt_and_of_a_steering_message(tmp_path: Path) -> None:
    image = image_from_bytes(PIXEL)
    conversation, provider, _ = open_conversation(tmp_path, [use("Glob", "g1", pattern="*"), say("Two images.")])
    conversation.steer("and this one", [image])  # (delivered after the first tool calls)
    await conversation.send("what is [Image #1]?", [image])
    await conversation.aclose()
    first, second = provider.requests
    assert without_listings(first.messages[-1].content) == [image, TextBlock(text="what is [Image #1]?")]
    assert second.messages[-1].content == [image, TextBlock(text="and this one")]
    lines = [json.loads(line) for line in conversation.session.path.read_text().splitlines()]
    prompts = [e["message"]["content"] for e in lines if e["type"] == "user"]
    prompts = [content for content in prompts if isinstance(content, list) and content[0]["type"] == "image"]
    assert prompts[0][0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                         "data": image.source["data"]}}  # fmt: skip


def test_what_is_not_an_image_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "big.png").write_bytes(PIXEL + b"\0" * (5 * 1024 * 1024))
    cases = {
        tmp_path / "notes.txt": "notes.txt is not a PNG, JPEG, GIF or WebP image.",
        tmp_path / "big.png": "big.png is larger than 5 MB; images up to 5 MB can be sent.",
        tmp_path / "gone.png": "cannot be read: No such file or directory.",
        tmp_path: "is a directory, not an image.",
    }
    for path, said in cases.items():
        with pytest.raises(ImageError) as caught:
            image_from_file(path)
        assert said in str(caught.value)
    block = image_from_bytes(PIXEL, "pixel.png")
    assert isinstance(block, ImageBlock) and block.source["media_type"] == "image/png"


def test_each_steering_message_keeps_its_own_images() -> None:
    """A message that waits for tool results keeps its images while one that does not is delivered without them."""
    from agentui.core.loop.inbox import Inbox

    first, second = image_from_bytes(PIXEL), image_from_bytes(PIXEL + b"\0")
    inbox = Inbox()
    inbox.steer("waits", [first], with_tool_results=True)
    inbox.steer("now", [second])
    [now] = inbox.steering(tool_results=False)
    assert now.content == [second, TextBlock(text="now")]
    [waits] = inbox.steering(tool_results=True)
    assert waits.content == [first, TextBlock(text="waits")]
