"""What the person sends while a run goes on: steering, delivered after the current tool calls (before the model is
called again), and follow-ups, each the next prompt once the model ends its turn."""

from __future__ import annotations

from collections.abc import Sequence

from agentui.core.messages import ImageBlock, Message, TextBlock


class Inbox:
    def __init__(self) -> None:
        self._steering: list[str] = []
        self._images: list[ImageBlock] = []
        """Images pasted into steering messages: they go with the first of them delivered."""
        self._follow_ups: list[str] = []

    def steer(self, text: str, images: Sequence[ImageBlock] = ()) -> None:
        self._steering.append(text)
        self._images.extend(images)

    def follow_up(self, text: str) -> None:
        self._follow_ups.append(text)

    def steering(self) -> list[Message]:
        """The steering sent since last asked, one message each, the images with the first."""
        texts, self._steering = self._steering, []
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
        texts, self._steering, self._images = self._steering, [], []
        return texts

    def everything(self) -> tuple[str | None, list[ImageBlock]]:
        """All that was sent since last asked, as one prompt (None if nothing) and its images: what a /compact run
        answers once the summary is made."""
        texts = [*self._steering, *self._follow_ups]
        images, self._images = self._images, []
        self._steering, self._follow_ups = [], []
        return "\n\n".join(texts) or None, images
