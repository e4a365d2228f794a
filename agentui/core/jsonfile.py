"""Reading a JSON settings file into a pydantic model, with one clear sentence for every way it can be wrong."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def read_json_model(path: Path, model: type[M], *, name: str, error: type[Exception], advice: str) -> M | None:
    """The file as `model`; None if it does not exist; an empty file is the model's defaults.

    Otherwise raises `error` with a sentence that starts with `name` (e.g. "The settings file") and the path, and
    ends with `advice` when the JSON itself is broken.
    """
    try:
        text = regular_file_text(path)
    except FileNotFoundError:
        return None
    except NotRegularError:
        raise error(f"{name} {path} is not a regular file (a FIFO, a device or a directory); {advice}.") from None
    except OSError as exc:
        raise error(f"{name} {path} could not be read ({exc.strerror or exc}).") from None
    except UnicodeDecodeError as exc:  # (saved in another encoding: JSON files are UTF-8)
        raise error(f"{name} {path} is not UTF-8 text (byte {exc.start} cannot be read); {advice}.") from None
    if not text.strip():
        return model()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{name} {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); {advice}."
        ) from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise error(f"{name} {path} has a bad value at '{where}': {_plainly(first['type'], first['msg'])}.") from None


class NotRegularError(OSError):
    """A settings file that is a FIFO, a device or a directory."""


def regular_file_text(path: Path) -> str:
    """The UTF-8 text of the regular file at `path` (see `regular_file_bytes`)."""
    return regular_file_bytes(path).decode("utf-8")


def regular_file_bytes(path: Path, limit: int = -1) -> bytes:
    """The bytes of the regular file at `path` (a link to one is followed), `limit` of them at most. Opened without
    waiting, so a FIFO planted where a settings file goes is refused at once (NotRegularError) instead of blocking
    whoever reads it for ever; a terminal opened so is never made this process's."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularError(f"{path} is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(limit)
    finally:
        os.close(fd)


_EXPECTED = {
    "model_type": "it should be an object ({...})",
    "dict_type": "it should be an object ({...})",
    "list_type": "it should be a list ([...])",
    "bool_type": "it should be true or false",
    "string_type": "it should be text in quotes",
    "int_type": "it should be a whole number",
}


def _plainly(kind: str, message: str) -> str:
    """Pydantic's message in the terms of the JSON the person wrote."""
    return _EXPECTED.get(kind) or message.removeprefix("Value error, ")
