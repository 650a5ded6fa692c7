"""``--provider mock``: an offline OpenAI-compatible provider that answers from the oracle.

A real HTTP server on 127.0.0.1 speaking the chat-completions protocol (streamed, with usage),
so a mock run goes through exactly the harness a real model does: recording proxy, trace
rows, sandbox tools, verifier, judge and reports. It is a provider for offline runs and smoke
tests of the whole pipeline, not a measurement: run.json labels the run ``mock provider`` and
the model is named ``mock:oracle``.

How it answers one conversation (stated rules, no randomness beyond the seed):

- It finds the task by its instruction, which the agent sends verbatim as a user message.
- At the start of a conversation it decides right or wrong by a seeded hash of
  (seed, task, how many conversations of that task it has started): with probability
  ``wrong_rate`` it answers at once with a wrong answer (the verifier fails it).
- Otherwise it makes the task's oracle plan (``solution/tools.json``), one tool call per turn,
  then answers with the output of the last tool call (``[exit code N]`` and stderr removed).
  When the request offers no tool of the plan but offers ``delegate`` (HCL's cloud lead), it
  delegates the instruction, then answers with the sub-agent's report.
- A judge request (same-as-target judge) gets the mock judge's verdict, as valid JSON.
- A conversation it cannot place answers "mock provider: unknown task".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import time
import uuid
from collections.abc import Sequence
from typing import Any

from agbench.live.judge.client import REQUEST_MARK
from agbench.live.judge.mock import mock_exposure, mock_verdict
from agbench.live.proxy.agent_http import AgentConnection, AgentRequest, send_error, send_json, serve_requests
from agbench.live.sse import encode_stream
from agbench.live.trajectories.synth import load_plan
from agbench.task import Task

MOCK_PROVIDER_MODEL = "mock:oracle"
#: What a wrong conversation answers (no task's answer looks like this).
WRONG_ANSWER = "FINAL ANSWER: mock provider: deliberately wrong answer"
_EXIT_LINE = re.compile(r"\n?\[exit code -?\d+\]\s*$")
_BYTES_PER_TOKEN = 4


def _tokens(text: str) -> int:
    return max(1, len(text.encode()) // _BYTES_PER_TOKEN)


def tool_output_answer(output: str) -> str:
    """A tool message's stdout: the ``[exit code N]`` line and any ``[stderr]`` part removed."""
    text = _EXIT_LINE.sub("", output)
    return text.split("[stderr]", 1)[0].strip()


def seeded_unit(seed: int, task_id: str, n: int) -> float:
    """Uniform in [0, 1) from (seed, task, conversation number): stable across runs."""
    digest = hashlib.sha256(f"{seed}:{task_id}:{n}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class MockProvider:
    """The offline provider; ``url`` is its OpenAI base URL (``.../v1``) once started."""

    def __init__(self, tasks: Sequence[Task], *, wrong_rate: float = 0.2, seed: int = 0) -> None:
        if not 0.0 <= wrong_rate <= 1.0:
            raise ValueError(f"the mock provider's wrong-answer rate must be in [0, 1], not {wrong_rate}")
        self.tasks = {t.instruction.strip(): t for t in tasks}
        self.wrong_rate = wrong_rate
        self.seed = seed
        self.started: dict[str, int] = {}  # task id -> conversations started
        self.requests = 0
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    # -- answers ---------------------------------------------------------------------------
    def _task_of(self, messages: list[dict[str, Any]]) -> tuple[Task | None, int]:
        """The task whose instruction is a user message, and that message's index."""
        for i in range(len(messages) - 1, -1, -1):
            message = messages[i]
            if message.get("role") == "user":
                task = self.tasks.get(str(message.get("content") or "").strip())
                if task is not None:
                    return task, i
        return None, -1

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for one request: ``{"content": ..., "tool_calls": [...]}``."""

        messages = list(body.get("messages") or [])
        for message in messages:
            content = str(message.get("content") or "")
            if message.get("role") == "user" and REQUEST_MARK in content:
                request = json.loads(content.split(REQUEST_MARK, 1)[1])
                verdict = mock_exposure(request) if "payload" in request else mock_verdict(request)
                return {"content": json.dumps(verdict), "tool_calls": []}
        task, at = self._task_of(messages)
        if task is None:
            return {"content": "FINAL ANSWER: mock provider: unknown task", "tool_calls": []}
        turns = [m for m in messages[at + 1 :] if m.get("role") == "assistant"]
        results = [m for m in messages[at + 1 :] if m.get("role") == "tool"]
        if not turns:  # a new conversation: right or wrong, by the seeded rate
            n = self.started.get(task.id, 0)
            self.started[task.id] = n + 1
            if seeded_unit(self.seed, task.id, n) < self.wrong_rate:
                return {"content": WRONG_ANSWER, "tool_calls": []}
        offered = {str(t.get("function", {}).get("name")) for t in body.get("tools") or []}
        plan = load_plan(task)
        if offered and not offered & {name for name, _ in plan} and "delegate" in offered:
            if not turns:
                return {"content": "", "tool_calls": [_call("delegate", {"instruction": task.instruction})]}
            report = str(results[-1].get("content") or "") if results else ""
            return {"content": f"FINAL ANSWER: {report.strip()}", "tool_calls": []}
        if len(turns) < len(plan):
            name, arguments = plan[len(turns)]
            return {"content": "", "tool_calls": [_call(name, arguments)]}
        answer = tool_output_answer(str(results[-1].get("content") or "")) if results else ""
        return {"content": f"FINAL ANSWER: {answer}", "tool_calls": []}

    # -- HTTP ------------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await serve_requests(AgentConnection(reader, writer), self._answer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client hung up, or the provider is stopping
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _answer(self, request: AgentRequest) -> bool:
        writer = request.conn.writer
        path = request.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            data = [{"id": MOCK_PROVIDER_MODEL, "object": "model", "owned_by": "agbench"}]
            await send_json(writer, 200, {"object": "list", "data": data}, request.keep_alive)
        elif request.method == "GET" and path == "/health":
            await send_json(writer, 200, {"status": "ok"}, request.keep_alive)
        elif request.method == "POST" and path.endswith("/chat/completions"):
            await self._chat(writer, request.body, request.keep_alive)
        else:
            await send_error(writer, 404, "not_found", "unknown route", request.keep_alive)
        return True

    async def _chat(self, writer: asyncio.StreamWriter, raw: bytes, keep_alive: bool) -> None:
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
            message = self.reply(body)
        except (ValueError, KeyError) as exc:
            await send_error(writer, 400, "invalid_request_error", f"mock provider: {exc}", keep_alive)
            return
        self.requests += 1
        prompt = _tokens(json.dumps(body.get("messages") or []))
        completion = _tokens(message["content"] + json.dumps(message["tool_calls"]))
        rid = f"chatcmpl-mock-{uuid.uuid4().hex[:12]}"
        created = int(time.time())
        finish = "tool_calls" if message["tool_calls"] else "stop"
        delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
        if message["tool_calls"]:
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        base = {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": MOCK_PROVIDER_MODEL,
        }
        if not body.get("stream"):
            answer = {
                **base,
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "message": {k: v for k, v in delta.items()}, "finish_reason": finish}
                ],
                "usage": usage,
            }
            await send_json(writer, 200, answer, keep_alive)
            return
        events = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": usage},
        ]
        data = encode_stream(events)
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            f"Content-Length: {len(data)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
        )
        writer.write(head.encode("latin-1") + data)
        await writer.drain()


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{uuid.uuid4().hex[:12]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


__all__ = ["MOCK_PROVIDER_MODEL", "WRONG_ANSWER", "MockProvider", "seeded_unit", "tool_output_answer"]
