"""What the person sends while a run goes on: steering, delivered after the current tool calls (before the model is
called again), and follow-ups, each the next prompt once the model ends its turn."""

from __future__ import annotations

from collections.abc import Sequence

from agentui.core.messages import ImageBlock, Message, TextBlock


class Inbox:
    def __init__(self) -> None:
        self._steering: list[tuple[str, list[ImageBlock], bool]] = []
        """Each message, the images pasted into it, and whether it waits for tool results to go with (else it ends a
        run's last turn too)."""
        self._follow_ups: list[str] = []

    def steer(self, text: str, images: Sequence[ImageBlock] = (), *, with_tool_results: bool = False) -> None:
        self._steering.append((text, list(images), with_tool_results))

    def follow_up(self, text: str) -> None:
        self._follow_ups.append(text)

    def steering(self, *, tool_results: bool = True) -> list[Message]:
        """The steering sent since last asked, one message each with its images; after a turn without
        `tool_results`, only the messages that do not wait for some."""
        ready = [entry for entry in self._steering if tool_results or not entry[2]]
        self._steering = [entry for entry in self._steering if entry not in ready]
        return [Message(role="user", content=[*images, TextBlock(text=text)]) for text, images, _ in ready]

    def follow_ups(self) -> list[Message]:
        """The follow-ups sent since last asked, one message each."""
        texts, self._follow_ups = self._follow_ups, []
        return [Message.user(text) for text in texts]

    def take_steering(self) -> list[str]:
        """The steering not delivered yet, taken out (a run that ended before it could deliver it)."""
        texts, self._steering = [text for text, _, _ in self._steering], []
        return texts

    def everything(self) -> tuple[str | None, list[ImageBlock]]:
        """All that was sent since last asked, as one prompt (None if nothing) and its images: what a /compact run
        answers once the summary is made."""
        texts = [*(text for text, _, _ in self._steering), *self._follow_ups]
        images = [image for _, pasted, _ in self._steering for image in pasted]
        self._steering, self._follow_ups = [], []
        return "\n\n".join(texts) or None, images
