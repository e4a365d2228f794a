"""How full the context window is: tokens the provider reported, plus an estimate of what was added since.

The estimate uses tiktoken when its encoding file is already on disk, and a character count otherwise. It never
downloads: tiktoken's download has no timeout and can hang on a network that drops packets. The provider's reported
usage always wins over the estimate.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentui.core.messages import ImageBlock, Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600
ENCODING = "o200k_base"
_ENCODING_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}

_ENCODING_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}

# Context windows by model-name prefix, longest prefix first; the config file's `context_window` overrides.
WINDOWS: dict[str, int] = {
    "claude-": 200_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-5": 400_000,
    "o3": 200_000,
    "o4": 200_000,
    "gemini-": 1_048_576,
    "deepseek": 128_000,
    "qwen": 32_768,
    "llama": 128_000,
}


def context_window(model: str, override: int | None = None) -> int | None:
    if override:
        return override
    name = model.lower().split("/")[-1]
    for prefix in sorted(WINDOWS, key=len, reverse=True):
        if name.startswith(prefix):
            return WINDOWS[prefix]
    return None


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("AGENTUI_CACHE_DIR"):
        return Path(env["AGENTUI_CACHE_DIR"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentui", appauthor=False))


def _cached_encoding_dirs(env: Mapping[str, str]) -> list[Path]:
    """Where tiktoken keeps encodings, ours first: TIKTOKEN_CACHE_DIR, DATA_GYM_CACHE_DIR, $TMPDIR/data-gym-cache."""
    import tempfile

    dirs = [cache_dir(env) / "tiktoken"]
    for name in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if env.get(name):
            dirs.append(Path(env[name]))
    dirs.append(Path(tempfile.gettempdir()) / "data-gym-cache")
    return dirs


def _find_encoding_file(env: Mapping[str, str]) -> Path | None:
    name = hashlib.sha1(_ENCODING_URLS[ENCODING].encode()).hexdigest()
    for directory in _cached_encoding_dirs(env):
        if (directory / name).is_file():
            return directory / name
    return None


def _load_encoding(path: Path) -> Any:
    """tiktoken's encoder read from `path`, or None if the file is not the right one. Takes about a second, so it
    runs on a worker thread while counts are estimated."""
    try:
        if hashlib.sha256(path.read_bytes()).hexdigest() != _ENCODING_SHA256[ENCODING]:
            return None  # tiktoken would try to download a file whose hash is wrong: never let it
        import tiktoken

        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(path.parent)  # where tiktoken finds the file we checked
        try:
            return tiktoken.get_encoding(ENCODING)
        finally:
            if previous is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous
    except Exception:
        return None


class _Encodings:
    """The one encoder of the process, loaded at most once, off the caller's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[Path, Any] = {}  # file -> encoder, None (unusable) or _LOADING

    def get(self, env: Mapping[str, str]) -> Any:
        path = _find_encoding_file(env)
        if path is None:
            return None
        with self._lock:
            if path in self._state:
                found = self._state[path]
                return None if found is _LOADING else found
            self._state[path] = _LOADING
        threading.Thread(target=self._load, args=(path,), name="agentui-tiktoken", daemon=True).start()
        return None

    def _load(self, path: Path) -> None:
        encoder = _load_encoding(path)
        with self._lock:
            self._state[path] = encoder

    def wait(self, timeout: float = 10.0) -> None:
        """Block until no load is in flight (for tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if _LOADING not in self._state.values():
                    return
            time.sleep(0.01)


_LOADING = object()
ENCODINGS = _Encodings()


class TokenCounter:
    """Counts with tiktoken when its encoding is on disk (loaded in the background), else estimates at about four
    characters a token."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(os.environ if env is None else env)
        self._encoder: Any = None

    @property
    def exact(self) -> bool:
        return self._encoding() is not None

    def _encoding(self) -> Any:
        if self._encoder is None:
            self._encoder = ENCODINGS.get(self._env)
        return self._encoder

    def count(self, text: str) -> int:
        if not text:
            return 0
        encoding = self._encoding()
        if encoding is not None:
            return len(encoding.encode(text, disallowed_special=()))
        return -(-len(text) // CHARS_PER_TOKEN)

    def message(self, message: Message) -> int:
        return 4 + sum(self.block(block) for block in message.content)

    def block(self, block: Any) -> int:
        if isinstance(block, TextBlock):
            return self.count(block.text)
        if isinstance(block, ThinkingBlock):
            return self.count(block.thinking)
        if isinstance(block, ToolUseBlock):
            return self.count(block.name) + self.count(json.dumps(block.input, ensure_ascii=False))
        if isinstance(block, ToolResultBlock):
            if isinstance(block.content, str):
                return self.count(block.content) + 4
            return 4 + sum(self.block(item) for item in block.content)
        if isinstance(block, ImageBlock):
            return IMAGE_TOKENS
        return 0

    def messages(self, messages: Sequence[Message]) -> int:
        return sum(self.message(m) for m in messages)


class ContextMeter:
    """How many tokens the next request holds: the provider's count of the last request and its answer (the truth),
    plus an estimate of what joined the history since. Incremental, so a long session never recounts it all."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._known = 0
        """Tokens of the first `_known_length` messages, with the system prompt and the tools."""
        self._known_length = 0

    def tokens(self, messages: Sequence[Message]) -> int:
        if len(messages) > self._known_length:
            self._known += self.counter.messages(messages[self._known_length :])
            self._known_length = len(messages)
        return self._known

    def reported(self, context_tokens: int, history_length: int) -> None:
        """The provider counted a request and its answer: `context_tokens` for the first `history_length` messages."""
        if context_tokens > 0:
            self._known, self._known_length = context_tokens, history_length

    def recount(self, messages: Sequence[Message], overhead: int) -> None:
        """Estimate from scratch: at the start, and after the history was rewritten."""
        self._known, self._known_length = overhead + self.counter.messages(messages), len(messages)

    def shrunk(self, index: int, tokens: int) -> None:
        """Message `index` lost about `tokens` tokens (an old tool result replaced by a placeholder)."""
        if index < self._known_length:
            self._known = max(0, self._known - tokens)
