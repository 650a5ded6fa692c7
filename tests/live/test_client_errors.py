"""The streaming client: error classes, retries and usage, against a scripted fake upstream and
against the real llama-server (SmolLM2)."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from agbench.attempt import AgentLabel, AttemptKey
from agbench.config import ServerSettings
from agbench.live.providers import ChatClient, ChatResult, MockChatClient, MockReply
from agbench.live.providers.chat_stream import usage_tokens
from agbench.live.providers.errors import ErrorClass, classify_http_error, parse_retry_after
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse, sse_answer
from agbench.live.providers.openai_compatible import chat_completions_url
from agbench.live.serving import ManagedServer

MESSAGES = [{"role": "user", "content": "hi"}]


def chat(script: list[FakeResponse], **client_options: Any) -> tuple[ChatResult, FakeOpenAIServer]:
    async def go() -> tuple[ChatResult, FakeOpenAIServer]:
        async with FakeOpenAIServer(script) as fake:
            options: dict[str, Any] = {"backoff_s": 0.01, **client_options}
            max_tokens = options.pop("max_tokens", None)
            async with ChatClient(fake.url, "m", **options) as client:
                return await client.chat(MESSAGES, max_tokens=max_tokens), fake

    return asyncio.run(go())


# --- unit: classification and parsing -------------------------------------------------------


def test_url_and_usage_shapes() -> None:
    assert chat_completions_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("http://h:1/u/x/a/t/v1/") == "http://h:1/u/x/a/t/v1/chat/completions"
    assert (
        chat_completions_url("https://g.example/v1beta/openai/")
        == "https://g.example/v1beta/openai/chat/completions"
    )
    openai = {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}}
    deepseek = {"prompt_tokens": 100, "completion_tokens": 5, "prompt_cache_hit_tokens": 80}
    assert usage_tokens(openai, None) == (100, 64, 5)
    assert usage_tokens(deepseek, None) == (100, 80, 5)
    assert usage_tokens(None, {"cache_n": 30, "prompt_n": 10, "predicted_n": 4}) == (40, 30, 4)


def test_http_error_classes() -> None:
    over = {"error": {"type": "exceed_context_size_error", "n_prompt_tokens": 900, "n_ctx": 512}}
    assert classify_http_error(400, over) is ErrorClass.CONTEXT_LIMIT
    pool = {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}}
    assert classify_http_error(500, pool) is ErrorClass.CONTEXT_LIMIT
    assert classify_http_error(429, {"error": {"message": "slow down"}}) is ErrorClass.RATE_LIMITED
    assert classify_http_error(
        500, {"error": {"message": "does not match the expected peg-native format"}}
    ) is (ErrorClass.SERVER_ERROR)
    assert classify_http_error(404, "not found") is ErrorClass.BAD_RESPONSE
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("1000") == 60.0
    assert parse_retry_after("soon") is None


def test_streamed_answer_is_assembled() -> None:
    result, fake = chat([FakeResponse(events=sse_answer("one two three"))])
    assert result.ok
    assert result.content == "one two three"
    assert result.finish_reason == "stop"
    assert result.completion_tokens == 3
    assert result.ttft_s is not None
    assert result.ttft_s <= result.total_s
    assert result.gaps.count == 2
    headers, body = fake.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert headers["x-request-id"] == result.request_id


def test_streamed_tool_call_deltas_are_merged() -> None:
    events: list[Any] = [
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [{"index": 0, "id": "c1", "function": {"name": "ls", "arguments": ""}}]
                    }
                }
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"path":'}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ' "."}'}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
    ]
    result, _ = chat([FakeResponse(events=events)])
    assert result.ok
    assert result.tool_calls == [
        {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}}
    ]
    assert result.assistant_message()["tool_calls"] == result.tool_calls


def test_429_retry_after_is_honoured_then_succeeds() -> None:
    script = [
        FakeResponse(status=429, headers={"Retry-After": "1"}, body={"error": {"message": "rate limited"}}),
        FakeResponse(events=sse_answer("ok")),
    ]
    result, fake = chat(script)
    assert result.ok
    assert result.content == "ok"
    assert len(fake.requests) == 2
    assert [a.error_class for a in result.attempts] == ["rate_limited", ""]
    assert result.attempts[0].retry_after_s == 1.0
    assert result.attempts[0].backoff_s == 1.0  # Retry-After wins over the shorter own backoff
    rows = result.model_calls(AttemptKey.parse("r", "d|LO|1|t|0"), agent=AgentLabel.LOCAL, call_id="c")
    assert [(r.retry, r.error_class, r.status_code) for r in rows] == [(0, "rate_limited", 429), (1, "", 200)]
    assert rows[-1].completion_tokens == 1
    assert rows[0].completion_tokens == 0


def test_429_gives_up_after_max_retries() -> None:
    result, fake = chat([FakeResponse(status=429, body={"error": {"message": "no"}})], max_retries=2)
    assert result.error_class == "rate_limited"
    assert result.status_code == 429
    assert len(result.attempts) == 3
    assert len(fake.requests) == 3


def test_server_error_is_not_retried() -> None:
    result, fake = chat([FakeResponse(status=500, body={"error": {"message": "boom"}})])
    assert result.error_class == "server_error"
    assert len(fake.requests) == 1


def test_context_errors_as_llama_server_sends_them() -> None:
    over = FakeResponse(status=400, body={"error": {"type": "exceed_context_size_error", "n_ctx": 512}})
    assert chat([over])[0].error_class == "context_limit"
    pool = FakeResponse(
        status=500, body={"error": {"code": 500, "message": "Context size has been exceeded."}}
    )
    result, fake = chat([pool])
    assert result.error_class == "context_limit"
    assert len(fake.requests) == 1
    streamed = FakeResponse(
        events=[
            {"choices": [{"delta": {"content": "partial"}}]},
            {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}},
        ],
        done=False,
    )
    result, _ = chat([streamed])
    assert result.error_class == "context_limit"
    assert result.content == "partial"


def test_finish_reason_length_is_context_limit_only_below_max_tokens() -> None:
    edge = FakeResponse(events=sse_answer("a b c", finish_reason="length"))
    assert chat([edge])[0].error_class == "context_limit"
    assert chat([edge], max_tokens=50)[0].error_class == "context_limit"
    assert chat([edge], max_tokens=3)[0].error_class == ""


def test_malformed_sse_is_bad_response() -> None:
    result, _ = chat([FakeResponse(events=[{"choices": [{"delta": {"content": "x"}}]}, "{not json"])])
    assert result.error_class == "bad_response"
    assert "malformed" in result.error
    result, _ = chat([FakeResponse(events=["[1, 2]"])])
    assert result.error_class == "bad_response"


def test_truncated_stream_is_bad_response() -> None:
    cut = FakeResponse(events=[{"choices": [{"delta": {"content": "half an ans"}}]}], done=False)
    result, _ = chat([cut])
    assert result.error_class == "bad_response"
    assert result.content == "half an ans"


def test_dropped_connection_mid_stream_is_connection() -> None:
    result, fake = chat([FakeResponse(events=[{"choices": [{"delta": {"content": "x"}}]}], drop=True)])
    assert result.error_class == "connection"
    assert len(fake.requests) == 1  # the request reached the server: never retried


def test_timeout() -> None:
    result, _ = chat([FakeResponse(events=sse_answer("late"), hang_s=3)], timeout_s=0.3)
    assert result.error_class == "timeout"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_refused_connection_is_retried_then_connection() -> None:
    async def go() -> ChatResult:
        async with ChatClient(
            f"http://127.0.0.1:{free_port()}", "m", max_retries=2, backoff_s=0.01
        ) as client:
            return await client.chat(MESSAGES)

    result = asyncio.run(go())
    assert result.error_class == "connection"
    assert len(result.attempts) == 3


def test_every_refused_attempt_is_recorded_with_the_wait_that_followed_it() -> None:
    async def go() -> tuple[ChatResult, int]:
        async with ChatClient(
            f"http://127.0.0.1:{free_port()}", "m", max_retries=3, backoff_s=0.02, jitter=0.0
        ) as client:
            return await client.chat(MESSAGES), client.retries

    result, retries = asyncio.run(go())
    assert retries == 3
    assert [a.sent for a in result.attempts] == [False] * 4
    assert [a.error_class for a in result.attempts] == ["connection"] * 4
    assert [a.backoff_s for a in result.attempts] == [0.02, 0.04, 0.08, 0.0]  # the last is not followed
    starts = [a.t_start for a in result.attempts]
    assert starts == sorted(starts)
    assert starts[-1] - starts[0] >= 0.14 * 0.95  # the waits were waited
    assert result.t_start == starts[0]


def test_cancelling_a_call_in_its_backoff_cancels_it_at_once() -> None:
    async def go() -> float:
        script = [FakeResponse(status=429, headers={"Retry-After": "30"}, body={"error": {"message": "no"}})]
        async with (
            FakeOpenAIServer(script) as fake,
            ChatClient(fake.url, "m", max_retries=2, backoff_s=30.0) as client,
        ):
            call = asyncio.create_task(client.chat(MESSAGES))
            while not fake.requests:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # the 429 is in: the client waits out its Retry-After
            t0 = time.monotonic()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            assert len(fake.requests) == 1  # no retry was sent after the cancellation
            return time.monotonic() - t0

    assert asyncio.run(go()) < 1.0


def test_api_key_is_sent_but_never_shown() -> None:
    result, fake = chat([FakeResponse(events=sse_answer("ok"))], api_key="sk-secret-0123456789abcdef")
    assert fake.requests[0][0]["authorization"] == "Bearer sk-secret-0123456789abcdef"
    client = ChatClient("http://x", "m", api_key="sk-secret-0123456789abcdef")
    assert "secret" not in repr(client)
    assert "secret" not in repr(result.request_body)


def test_mock_client_is_labelled_and_scripted() -> None:
    mock = MockChatClient(["hello", MockReply(error_class=ErrorClass.CONTEXT_LIMIT)])
    first = asyncio.run(mock.chat(MESSAGES))
    second = asyncio.run(mock.chat(MESSAGES))
    assert first.content == "hello"
    assert first.endpoint == "mock"
    assert first.model.startswith("mock:")
    assert second.error_class == "context_limit"
    assert len(mock.requests) == 2


# --- the real llama-server ------------------------------------------------------------------


SYSTEM = {"role": "system", "content": "You are a terse assistant who answers in one short sentence. " * 6}


@pytest.mark.server
def test_real_stream_ttft_usage_and_cache(server: ManagedServer) -> None:
    async def go() -> tuple[ChatResult, ChatResult]:
        async with ChatClient(server.url, "smollm2-135m") as client:
            messages = [SYSTEM, {"role": "user", "content": "Name a colour."}]
            first = await client.chat(messages, max_tokens=16)
            second = await client.chat(messages, max_tokens=16)
            return first, second

    first, second = asyncio.run(go())
    for r in (first, second):
        assert r.ok, r.error
        assert r.ttft_s is not None
        assert 0 < r.ttft_s < r.total_s
        assert r.prompt_tokens > 60
        assert 0 < r.completion_tokens <= 16
        assert r.prompt_ms is not None
        assert r.predicted_ms is not None
        assert r.response_id.startswith("chatcmpl")
    # The same prompt again: the slot's cached prefix is reused and reported.
    assert second.cached_tokens >= second.prompt_tokens - 2 > 0


@pytest.mark.server
def test_real_prompt_over_slot_is_context_limit(server: ManagedServer) -> None:
    async def go() -> ChatResult:
        async with ChatClient(server.url, "smollm2-135m") as client:
            return await client.chat([{"role": "user", "content": "word " * 700}], max_tokens=8)

    result = asyncio.run(go())
    assert result.error_class == "context_limit"
    assert result.status_code == 400
    assert len(result.attempts) == 1
    assert server.alive()


@pytest.mark.server
def test_real_generation_to_slot_edge_is_context_limit(server: ManagedServer) -> None:
    async def go() -> ChatResult:
        async with ChatClient(server.url, "smollm2-135m") as client:
            prompt = [{"role": "user", "content": "Count: " + "one two three " * 120}]
            return await client.chat(prompt, extra_body={"ignore_eos": True})

    result = asyncio.run(go())
    assert result.finish_reason == "length"
    assert result.error_class == "context_limit"
    assert result.prompt_tokens + result.completion_tokens >= 500


@pytest.mark.server
def test_real_unified_pool_exhaustion_is_context_limit_and_server_survives() -> None:
    # One pool of 512 cells shared by 2 slots: each request fits alone, both together do not.
    settings = ServerSettings(n_ctx=512, n_parallel=2, kv_unified=True, threads=1)

    async def go(url: str) -> tuple[list[ChatResult], ChatResult]:
        async with ChatClient(url, "smollm2-135m") as client:
            prompt = [{"role": "user", "content": "List numbers: " + "1 2 3 4 5 6 7 8 9 " * 8}]
            calls = [
                client.chat(prompt, max_tokens=300, extra_body={"ignore_eos": True, "temperature": 1.0})
                for _ in range(2)
            ]
            both = await asyncio.gather(*calls)
            after = await client.chat([{"role": "user", "content": "hi"}], max_tokens=4)
            return list(both), after

    with ManagedServer(settings) as s:
        both, after = asyncio.run(go(s.url))
        assert any(r.error_class == "context_limit" for r in both), [(r.error_class, r.error) for r in both]
        assert all(r.error_class in ("", "context_limit") for r in both)
        assert s.alive()
        assert after.ok


@pytest.mark.server
def test_killed_server_gives_connection_errors_not_a_hang(tmp_path: Path) -> None:
    settings = ServerSettings(n_ctx=1024, n_parallel=1, threads=1)
    with ManagedServer(settings, log_path=tmp_path / "server.log") as s:

        async def go() -> tuple[ChatResult, ChatResult]:
            async with ChatClient(
                s.url, "smollm2-135m", max_retries=1, backoff_s=0.01, timeout_s=60
            ) as client:
                long = asyncio.create_task(
                    client.chat(MESSAGES, max_tokens=900, extra_body={"ignore_eos": True})
                )
                await asyncio.sleep(1.0)  # the request is in flight (prefill or decoding)
                s.kill()
                in_flight = await long
                after = await client.chat(MESSAGES, max_tokens=4)
                return in_flight, after

        in_flight, after = asyncio.run(go())
        assert in_flight.error_class == "connection", in_flight.error
        assert len(in_flight.attempts) == 1  # it had reached the server: not retried
        assert after.error_class == "connection"
        assert len(after.attempts) == 2  # refused before sending: retried once
        assert not s.alive()
