"""The one chat stream reader (the client's and the proxy's): how a streamed answer's ending
is decided on bad input.

The first decisive line wins: ``[DONE]``, an error event, or a data line that is not a chat
chunk object; nothing after it changes the answer's class. A stream with none of them and no
``finish_reason`` is truncated (``bad_response``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agbench.attempt import ErrorClass
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.chat_stream import ChatStreamReader, StreamAccumulator, finish_result

CONTEXT_ERROR = {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}}


def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {"id": "c1", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


def sse(*events: Any, done: bool = True, newline: bytes = b"\n") -> bytes:
    lines = [b"data: " + (e if isinstance(e, bytes) else json.dumps(e).encode()) for e in events]
    if done:
        lines.append(b"data: [DONE]")
    return b"".join(line + newline + newline for line in lines)


def settle(stream: bytes, piece: int = 5) -> ChatResult:
    """Feed ``stream`` in pieces of ``piece`` bytes, as a relay would, and classify the answer."""
    state = StreamAccumulator(0.0)
    parser = ChatStreamReader(state)
    for i in range(0, len(stream), piece):
        parser.feed(stream[i : i + piece], 1.0)
    parser.close(1.5)
    result = ChatResult(endpoint="local", model="m", t_start=0.0, status_code=200)
    finish_result(result, state, 0.0, 2.0, None)
    return result


@pytest.mark.parametrize("piece", [1, 3, 64, 10_000])
def test_a_good_stream_reads_the_same_however_it_is_cut(piece: int) -> None:
    stream = sse(chunk("Hello"), chunk(" world", "stop"), {"choices": [], "usage": {"completion_tokens": 2}})
    result = settle(stream, piece)
    assert (result.error_class, result.content, result.finish_reason) == ("", "Hello world", "stop")
    assert result.completion_tokens == 2


def test_crlf_lines_comments_and_event_names_are_understood() -> None:
    stream = b": keep-alive\r\n\r\nevent: message\r\n" + sse(chunk("ok", "stop"), newline=b"\r\n")
    result = settle(stream)
    assert (result.error_class, result.content) == ("", "ok")


@pytest.mark.parametrize(
    "bad",
    [b"{oops", b"5", b"[1, 2]", b'"text"', b'{"choices": [5]}', b'{"choices": [{"delta": 3}]}', b"\xff\xfe"],
    ids=["bad-json", "number", "list", "string", "choice-not-object", "delta-not-object", "not-utf8"],
)
def test_a_malformed_data_line_is_a_bad_response(bad: bytes) -> None:
    result = settle(sse(chunk("x"), bad, chunk("y", "stop")))
    assert result.error_class == ErrorClass.BAD_RESPONSE
    assert "malformed" in result.error
    assert result.content == "x"  # nothing after the malformed line is parsed


def test_malformed_data_then_an_error_event_stays_a_bad_response() -> None:
    result = settle(sse(chunk("x"), b"{oops", CONTEXT_ERROR, done=False))
    assert result.error_class == ErrorClass.BAD_RESPONSE


def test_an_error_event_without_done_keeps_its_class() -> None:
    result = settle(sse(chunk("x"), CONTEXT_ERROR, done=False))
    assert result.error_class == ErrorClass.CONTEXT_LIMIT
    assert "Context size" in result.error
    other = settle(sse({"error": {"message": "slot crashed"}}, done=False))
    assert other.error_class == ErrorClass.SERVER_ERROR


def test_nothing_after_an_error_event_changes_it() -> None:
    result = settle(sse(CONTEXT_ERROR, b"{oops", chunk("late", "stop")))
    assert result.error_class == ErrorClass.CONTEXT_LIMIT
    assert result.content == ""


def test_nothing_after_done_is_parsed() -> None:
    stream = sse(chunk("ok", "stop")) + sse(chunk(" more"), b"{oops", CONTEXT_ERROR, done=False)
    result = settle(stream)
    assert (result.error_class, result.content) == ("", "ok")


def test_a_last_line_cut_short_is_a_bad_response() -> None:
    result = settle(sse(chunk("x"), done=False) + b'data: {"choi')
    assert result.error_class == ErrorClass.BAD_RESPONSE
    assert "malformed" in result.error


def test_a_stream_that_just_stops_is_truncated() -> None:
    result = settle(sse(chunk("x"), done=False))
    assert result.error_class == ErrorClass.BAD_RESPONSE
    assert result.error == "stream ended without a finish_reason or [DONE]"
    done_but_no_reason = settle(sse(chunk("x")))
    assert done_but_no_reason.error == "stream ended without a finish_reason"


def test_settled_and_failed_say_what_decided_the_answer() -> None:
    parser = ChatStreamReader(StreamAccumulator(0.0))
    parser.feed(sse(chunk("x"), done=False), 1.0)
    assert not parser.settled
    assert not parser.failed
    parser.feed(sse(done=True), 1.0)
    assert parser.settled
    assert not parser.failed
    errored = ChatStreamReader(StreamAccumulator(0.0))
    errored.feed(sse(CONTEXT_ERROR, done=False), 1.0)
    assert errored.settled
    assert errored.failed
