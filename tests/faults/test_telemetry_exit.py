"""Exit never waits on telemetry for more than its promise: with a collector that accepts the connection and never
answers, print mode ends once the shutdown limit (CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS, as in Claude Code) has passed,
not after the exporter's own timeouts and a second shutdown at interpreter exit."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from pathlib import Path


class SilentCollector:
    """Accepts connections, reads the requests, never answers; notes when the first export arrived."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.first_export = threading.Event()
        self.first_at = 0.0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)
            if not self.first_export.is_set():
                self.first_at = time.monotonic()
                self.first_export.set()

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


def test_exit_waits_on_a_silent_collector_no_longer_than_the_shutdown_limit(
    agentui_bin: str, clean_env: dict[str, str], tmp_path: Path
) -> None:
    collector = SilentCollector()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "Still answered."}]}]))
    env = {**clean_env, "CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_TRACES_EXPORTER": "otlp",
           "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.port}",
           "CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS": "300"}  # fmt: skip
    try:
        process = subprocess.Popen(
            [agentui_bin, "-p", "hi", "--provider", "scripted", "--script", str(script)],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        out, err = process.communicate(timeout=120)
        ended = time.monotonic()
    finally:
        collector.close()
    assert process.returncode == 0 and out.strip() == "Still answered.", err
    assert err == ""
    assert collector.first_export.is_set()  # the exports were tried (at exit: the batch interval is longer)
    # From the first export to exit: the 0.3 s limit and the interpreter's exit, nowhere near the exporter's own
    # 5 s timeout (before this was fixed, exit waited 5 s for the flush and 5 s more for an atexit shutdown).
    assert ended - collector.first_at < 4.5
