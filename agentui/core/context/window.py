"""How full the context window is: tokens the provider reported, plus an estimate of what was added since.

The estimate uses tiktoken when its encoding file is on disk (in our cache, in tiktoken's, or shipped by the optional
`bpe-openai` package), and a character count otherwise or while the file loads. It never downloads: tiktoken's
download has no timeout and can hang on a network that drops packets. The provider's reported usage always wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from agentui.core.dirs import cache_dir
from agentui.core.identity_memo import IdentityMemo
from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentui.core.model_aliases import claude_name

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600
DOCUMENT_CHARS_PER_TOKEN = 2
"""A PDF's base64 characters per token, estimated: the API reads each page as its text and its image."""
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
    "claude-sonnet-5": 1_000_000,  # (native 1M-token windows, as Claude Code 2.1.197's catalogue has them)
    "claude-opus-4-8": 1_000_000,
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
    name = claude_name(model).split("/")[-1]
    if name.startswith("claude-") and name.endswith("[1m]"):  # (Claude Code's way of asking for the 1M window)
        return 1_000_000
    for prefix in sorted(WINDOWS, key=len, reverse=True):
        if name.startswith(prefix):
            return WINDOWS[prefix]
    return None


def _file_name() -> str:
    """tiktoken's name for a cached encoding file: the sha1 of the URL it would download it from."""
    return hashlib.sha1(_ENCODING_URLS[ENCODING].encode()).hexdigest()


def _encoding_dirs(env: Mapping[str, str]) -> list[Path]:
    """Where an encoding file may be: ours, then tiktoken's (TIKTOKEN_CACHE_DIR, DATA_GYM_CACHE_DIR, $TMPDIR)."""
    import tempfile

    dirs = [cache_dir(env) / "tiktoken"]
    for name in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if env.get(name):
            dirs.append(Path(env[name]))
    dirs.append(Path(env.get("TMPDIR") or tempfile.gettempdir()) / "data-gym-cache")
    return dirs


def _bundled_encoding() -> Path | None:
    """The gzipped encoding the `bpe-openai` package ships (byte for byte OpenAI's file), if it is installed.
    Found without importing the package, whose compiled tokenizer we do not need."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("bpe_openai")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "data" / f"{ENCODING}.tiktoken.gz"
        if candidate.is_file():
            return candidate
    return None


def _verified(data: bytes) -> bool:
    return hashlib.sha256(data).hexdigest() == _ENCODING_SHA256[ENCODING]


def _encoding_file(env: Mapping[str, str]) -> Path | None:
    """The encoding file on disk, checked; seeded into our cache from `bpe-openai` when only it has one."""
    for directory in _encoding_dirs(env):
        path = directory / _file_name()
        try:
            if path.is_file() and _verified(path.read_bytes()):
                return path
        except OSError:
            continue
    bundled = _bundled_encoding()
    if bundled is None:
        return None
    import gzip

    try:
        data = gzip.decompress(bundled.read_bytes())
        if not _verified(data):
            return None
        target = cache_dir(env) / "tiktoken" / _file_name()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        os.replace(partial, target)  # whole or not at all, should two processes seed it at once
        return target
    except (OSError, EOFError, gzip.BadGzipFile):
        return None


def encoding_file(env: Mapping[str, str]) -> Path | None:
    """The checked encoding file tiktoken would read, if there is one on disk (see `_encoding_file`)."""
    return _encoding_file(env)


def _load_encoding(env: Mapping[str, str]) -> Any:
    """tiktoken's encoder from a checked file on disk, or None. Never lets tiktoken download: it only ever sees a
    file whose hash is right, so it has no reason to."""
    path = _encoding_file(env)
    if path is None:
        return None
    try:
        import tiktoken

        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(path.parent)
        try:
            encoding = tiktoken.get_encoding(ENCODING)
            # Its ranks as a Python dict (~24 MB for o200k_base) are kept only to pickle the encoding; counting uses
            # the compiled copy. A long session's process does not carry them (tests hold tiktoken to this).
            if isinstance(getattr(encoding, "_mergeable_ranks", None), dict):
                encoding._mergeable_ranks = {}
            return encoding
        finally:
            if previous is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous
    except Exception:  # tiktoken missing or broken: estimates will do
        return None


class _Encodings:
    """Encoders loaded at most once per cache location, on a worker thread: reading the file takes about a second,
    and nobody should wait for it. Until it is ready, counts are estimates."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[tuple[str, ...], Any] = {}

    def get(self, env: Mapping[str, str]) -> tuple[Any, bool]:
        """(the encoder or None, whether that is final)."""
        key = tuple(str(d) for d in _encoding_dirs(env))
        with self._lock:
            if key in self._state:
                found = self._state[key]
                return (None, False) if found is _LOADING else (found, True)
            self._state[key] = _LOADING
        threading.Thread(target=self._load, args=(key, dict(env)), name="agentui-tokens", daemon=True).start()
        return None, False

    def _load(self, key: tuple[str, ...], env: Mapping[str, str]) -> None:
        encoder = _load_encoding(env)
        with self._lock:
            self._state[key] = encoder

    def wait(self, timeout: float = 30.0) -> None:
        """Until no load is in flight: for tests and benchmarks."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if _LOADING not in self._state.values():
                    return
            time.sleep(0.01)


_LOADING = object()
ENCODINGS = _Encodings()


MEMO_CHARS = 1_000
"""A block of at least this many characters has its count kept (a smaller one is counted again when asked)."""


def _small(block: Any) -> bool:
    if isinstance(block, TextBlock):
        return len(block.text) < MEMO_CHARS
    if isinstance(block, ThinkingBlock):
        return len(block.thinking) < MEMO_CHARS
    if isinstance(block, ToolResultBlock):
        return isinstance(block.content, str) and len(block.content) < MEMO_CHARS
    return isinstance(block, ImageBlock | DocumentBlock)  # (counted by size, not read)


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` is, at once and the same everywhere (about four characters a token): for what
    is shown while it streams, not for the window's arithmetic."""
    return -(-len(text) // CHARS_PER_TOKEN)


class TokenCounter:
    """Counts with tiktoken when its encoding is on disk (loaded in the background), else estimates at about four
    characters a token.

    With `exact=False` it estimates until `want_exact()`: the encoder holds tens of megabytes, worth it only once
    the context is full enough for the difference to matter.
    """

    def __init__(self, env: Mapping[str, str] | None = None, *, exact: bool = True) -> None:
        self._env = dict(os.environ if env is None else env)
        self._encoder: Any = None
        self._settled = not exact
        self._next_look = 0.0
        self._never = False
        self._blocks: IdentityMemo[int] = IdentityMemo()
        self._blocks_by: Any = None
        """The encoder the blocks' counts were made with (None: estimates)."""

    @classmethod
    def estimating(cls) -> TokenCounter:
        """A counter that only estimates: for a count that must not depend on what is installed."""
        counter = cls({}, exact=False)
        counter._never = True
        return counter

    def want_exact(self) -> None:
        """Start loading the encoder (in the background) if it is not loaded or loading yet."""
        if self._encoder is None and self._settled and not self._never:
            self._settled, self._next_look = False, 0.0

    @property
    def exact(self) -> bool:
        return self._encoding() is not None

    def _encoding(self) -> Any:
        """The encoder once loaded; None while it loads or if there is none, and counts are estimates."""
        if not self._settled and time.monotonic() >= self._next_look:
            self._encoder, self._settled = ENCODINGS.get(self._env)
            self._next_look = time.monotonic() + 0.5  # looking is cheap, but not free: not on every count
        return self._encoder

    def count(self, text: str) -> int:
        if not text:
            return 0
        encoding = self._encoding()
        if encoding is not None:
            return len(encoding.encode(text, disallowed_special=()))
        return estimate_tokens(text)

    def message(self, message: Message) -> int:
        return 4 + sum(self.block(block) for block in message.content)

    def block(self, block: Any) -> int:
        """A block's tokens, counted once while it lives (a long session's compaction asks again for the same tool
        results on every turn), and again if the encoder arrived since."""
        if _small(block):
            return self._block(block)  # (as cheap to count as to look up, and nothing kept for it)
        encoding = self._encoding()
        if encoding is not self._blocks_by:
            self._blocks, self._blocks_by = IdentityMemo(), encoding
        return self._blocks.get(block, partial(self._block, block))

    def _block(self, block: Any) -> int:
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
        if isinstance(block, DocumentBlock):  # (about what the API counts for a page of text, by its size)
            return max(IMAGE_TOKENS, len(str(block.source.get("data", ""))) // DOCUMENT_CHARS_PER_TOKEN)
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
        self.measured = False
        """The count rests on the provider's report of a request (else it is all an estimate)."""

    def tokens(self, messages: Sequence[Message]) -> int:
        if len(messages) > self._known_length:
            self._known += self.counter.messages(messages[self._known_length :])
            self._known_length = len(messages)
        return self._known

    def reported(self, context_tokens: int, history_length: int) -> None:
        """The provider counted a request and its answer: `context_tokens` for the first `history_length` messages."""
        if context_tokens > 0:
            self._known, self._known_length = context_tokens, history_length
            self.measured = True

    def recount(self, messages: Sequence[Message], overhead: int) -> None:
        """Estimate from scratch: at the start, and after the history was rewritten."""
        self._known, self._known_length = overhead + self.counter.messages(messages), len(messages)
        self.measured = False

    def shrunk(self, index: int, tokens: int) -> None:
        """Message `index` lost about `tokens` tokens (an old tool result replaced by a placeholder)."""
        if index < self._known_length:
            self._known = max(0, self._known - tokens)
