"""Images the person adds to a prompt (pasted from the clipboard, or a file dropped on the terminal): checked to be
an image the model can take (PNG, JPEG, GIF, WebP, up to 5 MB) and made an image block."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from agentui.core.errors import AgentuiError
from agentui.core.messages import ImageBlock
from agentui.core.tools.files import image_type

MAX_IMAGE_BYTES = 5 * 1024 * 1024


class ImageError(AgentuiError, ValueError):
    """Why something cannot go to the model as an image, in one sentence."""


def image_from_bytes(data: bytes, name: str = "the image") -> ImageBlock:
    media_type = image_type(data[:64])
    if media_type is None:
        raise ImageError(f"{name} is not a PNG, JPEG, GIF or WebP image.")
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"{name} is {len(data) / 1e6:.1f} MB; images up to 5 MB can be sent.")
    return ImageBlock(source={"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()})


def image_from_file(path: str | os.PathLike[str]) -> ImageBlock:
    """The image at `path`; raises ImageError for anything else (a missing file, a directory, not an image)."""
    target = Path(path)
    try:
        if target.stat().st_size > MAX_IMAGE_BYTES:
            raise ImageError(f"{target.name} is larger than 5 MB; images up to 5 MB can be sent.")
        data = target.read_bytes()
    except IsADirectoryError:
        raise ImageError(f"{target} is a directory, not an image.") from None
    except OSError as exc:
        raise ImageError(f"{target} cannot be read: {exc.strerror or exc}.") from None
    return image_from_bytes(data, target.name)
