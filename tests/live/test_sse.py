"""The one SSE decoder and encoder (live/sse.py): a real llama-server stream, cut at every byte.

``LLAMA_STREAM`` is a stream as llama-server (xllamacpp, SmolLM2) sent it, byte for byte but
for two token events left out: a role event, token events, a ``length`` finish, the usage
and timings event, ``[DONE]``. However its bytes are cut into pieces, and whatever line ends
it uses, the decoder must give the same events, and the chat reader the same answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.chat_stream import ChatStreamReader, StreamAccumulator, finish_result
from agbench.live.sse import DONE_EVENT, SseDecoder, SseEvent, encode_event, encode_stream

_ID = '"created":1796207456,"id":"chatcmpl-3ADjdABI7STjRQeG7csGYXvSMBE9jAxb","model":"smollm2-135m",'
_TAIL = '"system_fingerprint":"b0-unknown","object":"chat.completion.chunk"'
_CHOICE = '{"choices":[{"finish_reason":%s,"index":0,"delta":%s}],' + _ID + _TAIL + "}"
LLAMA_STREAM = (
    "".join(
        f"data: {event}\n\n"
        for event in [
            _CHOICE % ("null", '{"role":"assistant","content":null}'),
            _CHOICE % ("null", '{"content":"Bon"}'),
            _CHOICE % ("null", '{"content":"jour"}'),
            _CHOICE % ("null", '{"content":" in"}'),
            _CHOICE % ("null", '{"content":" French"}'),
            _CHOICE % ('"length"', "{}"),
            '{"choices":[],' + _ID + _TAIL + ',"usage":{"completion_tokens":4,"prompt_tokens":35,'
            '"total_tokens":39,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,'
            '"prompt_n":35,"prompt_ms":681.403,"prompt_per_token_ms":19.468657142857143,'
            '"prompt_per_second":51.364610957098805,"predicted_n":4,"predicted_ms":174.962,'
            '"predicted_per_token_ms":34.992399999999996,"predicted_per_second":28.57763400052583}}',
            "[DONE]",
        ]
    )
).encode()


def decode(pieces: list[bytes]) -> list[SseEvent]:
    decoder = SseDecoder()
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return events + decoder.close()


def cuts(stream: bytes) -> list[list[bytes]]:
    """The stream in two pieces, cut at every byte boundary (both ends included)."""
    return [[stream[:i], stream[i:]] for i in range(len(stream) + 1)]


WHOLE = decode([LLAMA_STREAM])


def test_the_real_stream_decodes_to_its_events() -> None:
    assert len(WHOLE) == 8
    assert [e.event for e in WHOLE] == ["message"] * 8
    assert WHOLE[-1].done
    assert not any(e.done for e in WHOLE[:-1])
    assert [e.json()["choices"][0]["delta"].get("content") for e in WHOLE[1:5]] == [
        "Bon",
        "jour",
        " in",
        " French",
    ]
    assert WHOLE[6].json()["usage"]["completion_tokens"] == 4


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_every_cut_and_every_line_end_gives_the_same_events(ending: bytes) -> None:
    stream = LLAMA_STREAM.replace(b"\n", ending)
    for pieces in cuts(stream):
        assert decode(pieces) == WHOLE, pieces[0][-20:]
    assert decode([stream[i : i + 1] for i in range(len(stream))]) == WHOLE  # one byte at a time


def read_answer(pieces: list[bytes]) -> ChatResult:
    state = StreamAccumulator(0.0)
    reader = ChatStreamReader(state)
    for piece in pieces:
        reader.feed(piece, 1.0)
    reader.close(1.0)
    result = ChatResult(endpoint="local", model="m", t_start=0.0, status_code=200)
    finish_result(result, state, 0.0, 2.0, 4)
    return result


def test_the_chat_reader_gives_the_same_answer_at_every_cut() -> None:
    for pieces in cuts(LLAMA_STREAM.replace(b"\n", b"\r\n")):
        result = read_answer(pieces)
        assert (result.content, result.finish_reason, result.error_class) == (
            "Bonjour in French",
            "length",
            "",
        )
        assert (result.prompt_tokens, result.completion_tokens, result.predicted_ms) == (35, 4, 174.962)


def test_data_lines_of_one_event_join_with_a_line_break() -> None:
    pretty = json.dumps({"choices": [{"delta": {"content": "a"}}]}, indent=1).encode()
    stream = b"".join(b"data: " + line + b"\n" for line in pretty.split(b"\n")) + b"\n"
    for pieces in cuts(stream):
        (event,) = decode(pieces)
        assert event.data == pretty
        assert event.json() == {"choices": [{"delta": {"content": "a"}}]}


def test_comments_fields_and_events_without_data() -> None:
    stream = (
        b"\xef\xbb\xbf: keep-alive\n\n"  # a byte-order mark, then a comment
        b"event: ping\n\n"  # no data: not an event
        b"retry: 1000\nfoo: bar\nid: 7\nevent: update\ndata:no space\ndata\ndata:  two spaces\n\n"
        b"data: after\n\n"
    )
    for pieces in cuts(stream):
        assert decode(pieces) == [
            SseEvent(b"no space\n\n two spaces", "update", "7"),
            SseEvent(b"after", "message", "7"),  # the last event id carries over; the type does not
        ]


def test_the_end_of_the_body_hands_over_what_it_left_open() -> None:
    (cut,) = decode([b'data: {"choi'])
    with pytest.raises(ValueError, match=r"Unterminated|Expecting"):
        cut.json()
    assert decode([b"data: [DONE]"]) == [SseEvent(b"[DONE]")]
    assert decode([b"data: x\n"]) == [SseEvent(b"x")]
    assert decode([b"", b": only a comment"]) == []


def test_data_that_are_not_utf8_do_not_parse_as_json() -> None:
    (event,) = decode([b'data: "\xc3("\n\n'])
    with pytest.raises(UnicodeDecodeError):
        event.json()


def test_the_encoder_writes_what_the_decoder_reads() -> None:
    events: list[Any] = [{"choices": [{"delta": {"content": "naïve\n line"}}]}, "two\nlines", b"raw"]
    stream = encode_stream(events)
    assert stream.endswith(DONE_EVENT)
    assert DONE_EVENT == b"data: [DONE]\n\n"
    assert encode_event({"a": "é"}) == 'data: {"a": "é"}\n\n'.encode()
    decoded = decode([stream])
    assert decoded[0].json() == events[0]
    assert [e.data for e in decoded[1:]] == [b"two\nlines", b"raw", b"[DONE]"]
    assert not encode_stream([{"x": 1}], done=False).endswith(DONE_EVENT)


@pytest.mark.server
@pytest.mark.slow
def test_a_live_llama_server_stream_reads_the_same_at_every_cut(server: Any) -> None:
    """What the session's real llama-server streams, cut anywhere, gives the client's answer."""
    body = {
        "messages": [{"role": "user", "content": "Say hello in French."}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 4,
        "temperature": 0,
    }

    async def raw_stream() -> bytes:
        async with (
            httpx.AsyncClient(trust_env=False, timeout=120) as client,
            client.stream("POST", server.url + "/v1/chat/completions", json=body) as response,
        ):
            assert response.status_code == 200
            return b"".join([piece async for piece in response.aiter_raw()])

    stream = asyncio.run(raw_stream())
    whole = read_answer([stream])
    assert whole.error_class == ""
    assert whole.content
    assert whole.completion_tokens > 0
    expected = (whole.content, whole.finish_reason, whole.completion_tokens, "")
    for pieces in cuts(stream):
        result = read_answer(pieces)
        assert (
            result.content,
            result.finish_reason,
            result.completion_tokens,
            result.error_class,
        ) == expected
