"""The restore path through the real recording proxy, with a cloud stand-in that echoes.

The stand-in answers every request by streaming back the last message's text (two characters
an event, so every placeholder is split across events and network reads) and a tool call
whose arguments carry the same text. Through the guard: the stand-in never receives an
original value, the agent never receives a placeholder, and the raw log holds what the cloud
saw. ``block`` refuses the call before anything leaves.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from agbench.attempt import AttemptKey, ErrorClass
from agbench.config import Architecture, Configuration
from agbench.live.privacy.guard import GuardSettings
from agbench.live.providers.errors import classify_http_error
from agbench.live.proxy import RecordingProxy, Upstream

EMAIL = "nils.ekdahl@hemma-mail.example"
IBAN = "SE45 5000 0000 0583 9825 7466"
TOKEN = 'wqzt-"mbnv"-kkrf-0194'  # a quote: must survive JSON arguments both ways
ITEMS = (EMAIL, IBAN, TOKEN)
KINDS = ("personal_identifier", "personal_record", "credential")


class EchoCloud:
    """A minimal HTTP/1.1 chat endpoint that echoes the last message, streamed or whole."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                body = await reader.readexactly(length)
                self.bodies.append(body)
                request = json.loads(body)
                text = request["messages"][-1]["content"]
                if request.get("stream"):
                    await self._stream(writer, text)
                else:
                    answer = {
                        "id": "x",
                        "choices": [{"index": 0, "finish_reason": "stop", "message": self._message(text)}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 3},
                    }
                    data = json.dumps(answer).encode()
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + b"Content-Length: %d\r\n\r\n%s" % (len(data), data)
                    )
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    @staticmethod
    def _message(text: str) -> dict[str, Any]:
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "send", "arguments": json.dumps({"to": text})},
        }
        return {"role": "assistant", "content": text, "tool_calls": [call]}

    async def _stream(self, writer: asyncio.StreamWriter, text: str) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        events: list[dict[str, Any]] = [
            {
                "id": "x",
                "choices": [{"index": 0, "delta": {"content": text[i : i + 2]}, "finish_reason": None}],
            }
            for i in range(0, len(text), 2)
        ]
        arguments = json.dumps({"to": text})
        for i in range(0, len(arguments), 3):
            call = {"index": 0, "function": {"arguments": arguments[i : i + 3]}}
            if i == 0:
                call.update(id="c1", type="function", function={"name": "send", "arguments": arguments[:3]})
            events.append(
                {"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
            )
        events.append({"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        events.append(
            {"id": "x", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": len(events)}}
        )
        payload = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
        for i in range(0, len(payload), 7):  # network reads cut lines, too
            piece = payload[i : i + 7]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def _key() -> AttemptKey:
    return AttemptKey("run", Configuration("dev", Architecture.CO, 1), "task-a", 0)


def _prompt() -> str:
    return f"Write to {EMAIL} about account {IBAN}; the token is {TOKEN}. Then {EMAIL} again."


def _assembled(stream: str) -> tuple[str, str]:
    """(content, tool-call arguments) of an SSE answer as the agent received it."""
    content, arguments = "", ""
    for line in stream.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                delta = choice.get("delta", {})
                content += delta.get("content") or ""
                for call in delta.get("tool_calls") or []:
                    arguments += call.get("function", {}).get("arguments") or ""
    return content, arguments


async def _exchange(
    tmp_path: Path, mode: str, stream: bool
) -> tuple[EchoCloud, RecordingProxy, str, httpx.Response, Any]:
    cloud = EchoCloud()
    await cloud.start()
    proxy = RecordingProxy(
        {"cloud": Upstream(f"http://127.0.0.1:{cloud.port}", endpoint="cloud")},
        tmp_path / "raw.jsonl",
        privacy_guard=GuardSettings.of(mode, "declared"),
    )
    await proxy.start()
    token = proxy.register_attempt(_key(), ITEMS, KINDS)
    body = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": _prompt()}]}
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.post(
            proxy.base_url("cloud", token) + "/chat/completions", json=body, timeout=30
        )
    report = proxy.guard_report(token)
    return cloud, proxy, token, response, report


async def _finish(cloud: EchoCloud, proxy: RecordingProxy) -> None:
    await proxy.stop()
    await cloud.stop()


@pytest.mark.parametrize("stream", [True, False], ids=["sse", "whole"])
def test_redact_keeps_originals_from_the_cloud_and_placeholders_from_the_agent(
    tmp_path: Path, stream: bool
) -> None:
    async def main() -> None:
        cloud, proxy, token, response, report = await _exchange(tmp_path, "redact", stream)
        exposed = proxy.exposures_seen(token)
        await _finish(cloud, proxy)
        sent = b"".join(cloud.bodies).decode()
        for item in ITEMS:
            assert item not in sent
            assert json.dumps(item)[1:-1] not in sent
        assert "<EMAIL_1>" in sent
        assert sent.count("<EMAIL_1>") == 2
        assert response.status_code == 200
        if stream:
            content, arguments = _assembled(response.text)
        else:
            message = response.json()["choices"][0]["message"]
            content, arguments = message["content"], message["tool_calls"][0]["function"]["arguments"]
        assert content == _prompt()  # every placeholder restored, split or not
        assert json.loads(arguments) == {"to": _prompt()}  # restored inside JSON, quote escaped
        assert "<" not in content
        assert exposed == {}  # what the cloud saw held none of the items
        assert report["unguarded_items"] == [0, 1, 2]
        assert report["exposed_items"] == []
        assert report["true_positive_by_kind"] == dict.fromkeys(sorted(KINDS), 1)
        raw = (tmp_path / "raw.jsonl").read_text()
        assert "<EMAIL_1>" in raw
        assert EMAIL not in raw
        assert IBAN not in raw

    asyncio.run(main())


def test_block_refuses_the_call_before_anything_leaves(tmp_path: Path) -> None:
    async def main() -> None:
        calls: list[Any] = []
        cloud, proxy, _token, response, report = await _exchange(tmp_path, "block", True)
        calls.extend(cloud.bodies)
        await _finish(cloud, proxy)
        assert calls == []
        assert response.status_code == 403
        assert classify_http_error(403, response.json()) == ErrorClass.PRIVACY_BLOCKED
        assert report["blocked_calls"] == 1
        assert report["exposed_items"] == []
        assert report["unguarded_items"] == [0, 1, 2]
        assert EMAIL not in (tmp_path / "raw.jsonl").read_text()

    asyncio.run(main())


def test_off_lets_the_items_through(tmp_path: Path) -> None:
    async def main() -> None:
        cloud = EchoCloud()
        await cloud.start()
        proxy = RecordingProxy({"cloud": Upstream(f"http://127.0.0.1:{cloud.port}", endpoint="cloud")}, None)
        await proxy.start()
        token = proxy.register_attempt(_key(), ITEMS, KINDS)
        body = {"model": "m", "messages": [{"role": "user", "content": _prompt()}]}
        async with httpx.AsyncClient(trust_env=False) as client:
            await client.post(proxy.base_url("cloud", token) + "/chat/completions", json=body, timeout=30)
        assert set(proxy.exposures_seen(token)) == set(ITEMS)
        assert proxy.guard_report(token) is None
        await _finish(cloud, proxy)
        assert EMAIL in cloud.bodies[0].decode()

    asyncio.run(main())
