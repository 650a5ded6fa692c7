"""A loopback OpenAI-compatible upstream that injects faults: for fault-tolerance tests and chaos.

It sits between the harness and a real model server (``target``), forwarding every request,
or answers by itself when there is no target (a scripted model: one final answer with usage).
Chat requests can be made to fail on purpose, a given number at a time:

- ``429``: ``HTTP 429`` with a ``Retry-After`` header (a rate-limit storm);
- ``malformed``: an HTTP 200 stream whose event is not JSON;
- ``truncated``: an HTTP 200 stream that ends after one token, with no ``finish_reason``;
- ``stall``: the request is accepted and never answered (until ``stall_s`` passes).

Everything else (``/health``, ``/tokenize``, ``/props``, ``/v1/models``, ``/metrics``) is
forwarded untouched. It runs in a thread with its own HTTP server, so a synchronous test or
benchmark can use it alongside the harness's event loop.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import sys
import threading
import time
from collections import deque
from typing import Any

import httpx

from agbench.live.sse import encode_stream

FAULTS = ("429", "malformed", "truncated", "stall")


def scripted_answer(
    text: str = "FINAL ANSWER: 0", prompt_tokens: int = 50, completion_tokens: int = 5
) -> str:
    """One streamed final answer with usage, as SSE text."""
    events: list[dict[str, Any]] = [
        {"id": "f", "choices": [{"index": 0, "delta": {"content": text}}]},
        {"id": "f", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {
            "id": "f",
            "choices": [],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        },
    ]
    return encode_stream(events).decode()


class QuietServer(http.server.ThreadingHTTPServer):
    """A client that went away (a killed harness) is expected here, not an error to print."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class FaultUpstream:
    """A forwarding (or scripted) upstream whose next chat requests can be made to fail."""

    def __init__(
        self, target: str | None = None, *, retry_after_s: float = 0.05, stall_s: float = 3600.0
    ) -> None:
        self.target = target.rstrip("/") if target else None
        self.retry_after_s = retry_after_s
        self.stall_s = stall_s
        self._faults: deque[str] = deque()
        self._lock = threading.Lock()
        self.chat_requests = 0
        self.faults_sent: dict[str, int] = {}
        self.auth: list[str | None] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                with contextlib.suppress(ConnectionError):  # the harness went away (killed)
                    owner._forward(self, None)

            def do_POST(self) -> None:
                with contextlib.suppress(ConnectionError):
                    body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                    if self.path.endswith("/chat/completions"):
                        owner._chat(self, body)
                    else:
                        owner._forward(self, body)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def inject(self, fault: str, count: int = 1) -> None:
        """The next ``count`` chat requests get ``fault`` (queued after any already injected)."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r} (one of {', '.join(FAULTS)})")
        with self._lock:
            self._faults.extend([fault] * count)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FaultUpstream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- handlers ------------------------------------------------------------------------------
    @staticmethod
    def _send(handler: http.server.BaseHTTPRequestHandler, status: int, kind: str, data: bytes,
              headers: dict[str, str] | None = None) -> None:  # fmt: skip
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)

    def _chat(self, handler: http.server.BaseHTTPRequestHandler, body: bytes) -> None:
        self.auth.append(handler.headers.get("Authorization"))
        with self._lock:
            self.chat_requests += 1
            fault = self._faults.popleft() if self._faults else None
            if fault:
                self.faults_sent[fault] = self.faults_sent.get(fault, 0) + 1
        sse = "text/event-stream"
        if fault == "429":
            error = json.dumps(
                {"error": {"message": "rate limited (injected)", "type": "rate_limit"}}
            ).encode()
            self._send(handler, 429, "application/json", error, {"Retry-After": f"{self.retry_after_s:g}"})
        elif fault == "malformed":
            self._send(handler, 200, sse, encode_stream(["{this is not json"]))
        elif fault == "truncated":
            event = {"id": "t", "choices": [{"index": 0, "delta": {"content": "half"}}]}
            self._send(handler, 200, sse, encode_stream([event], done=False))
        elif fault == "stall":
            time.sleep(self.stall_s)
            handler.close_connection = True
        elif self.target is None:
            self._send(handler, 200, sse, scripted_answer().encode())
        else:
            self._forward(handler, body)

    def _forward(self, handler: http.server.BaseHTTPRequestHandler, body: bytes | None) -> None:
        if self.target is None:
            models = {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
            data = json.dumps(models).encode() if handler.path.endswith("/models") else b"{}"
            self._send(handler, 200 if handler.path.endswith(("/models", "/health")) else 404,
                       "application/json", data)  # fmt: skip
            return
        headers = {
            k: v
            for k, v in handler.headers.items()
            if k.lower() in ("content-type", "authorization", "accept")
        }
        try:
            response = httpx.request(
                handler.command, self.target + handler.path, content=body, headers=headers,
                timeout=self.stall_s, trust_env=False,
            )  # fmt: skip
        except httpx.HTTPError:
            handler.close_connection = True  # the target is gone: the connection just closes
            return
        kind = response.headers.get("content-type", "application/json")
        self._send(handler, response.status_code, kind, response.content)


__all__ = ["FAULTS", "FaultUpstream", "scripted_answer"]
