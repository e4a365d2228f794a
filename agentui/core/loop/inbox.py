"""What the person sends while a run goes on: steering, delivered after the current tool calls (before the model is
called again), and follow-ups, each the next prompt once the model ends its turn."""

from __future__ import annotations

from collections.abc import Sequence

from agentui.core.messages import ImageBlock, Message, TextBlock


class Inbox:
    def __init__(self) -> None:
        self._steering: list[tuple[str, bool]] = []
        """Each message, and whether it waits for tool results to go with (else it ends a run's last turn too)."""
        self._images: list[ImageBlock] = []
        """Images pasted into steering messages: they go with the first of them delivered."""
        self._follow_ups: list[str] = []

    def steer(self, text: str, images: Sequence[ImageBlock] = (), *, with_tool_results: bool = False) -> None:
        self._steering.append((text, with_tool_results))
        self._images.extend(images)

    def follow_up(self, text: str) -> None:
        self._follow_ups.append(text)

    def steering(self, *, tool_results: bool = True) -> list[Message]:
        """The steering sent since last asked, one message each, the images with the first; after a turn without
        `tool_results`, only the messages that do not wait for some."""
        texts = [text for text, waits in self._steering if tool_results or not waits]
        self._steering = [(text, waits) for text, waits in self._steering if not (tool_results or not waits)]
        if not texts:
            return []
        images, self._images = self._images, []
        messages = [Message(role="user", content=[TextBlock(text=text)]) for text in texts]
        if messages:
            messages[0] = Message(role="user", content=[*images, *messages[0].content])
        return messages

    def follow_ups(self) -> list[Message]:
        """The follow-ups sent since last asked, one message each."""
        texts, self._follow_ups = self._follow_ups, []
        return [Message.user(text) for text in texts]

    def take_steering(self) -> list[str]:
        """The steering not delivered yet, taken out (a run that ended before it could deliver it)."""
        texts, self._steering, self._images = [text for text, _ in self._steering], [], []
        return texts

    def everything(self) -> tuple[str | None, list[ImageBlock]]:
        """All that was sent since last asked, as one prompt (None if nothing) and its images: what a /compact run
        answers once the summary is made."""
        texts = [*(text for text, _ in self._steering), *self._follow_ups]
        images, self._images = self._images, []
        self._steering, self._follow_ups = [], []
        return "\n\n".join(texts) or None, images
