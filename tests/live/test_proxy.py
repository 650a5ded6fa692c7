"""The recording proxy: routing, streaming passthrough, key handling, redaction, exposures,
error classes; against a scripted fake upstream and the real llama-server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from agbench.attempt import AttemptKey
from agbench.config import PriceTable
from agbench.live.providers import ChatClient, ChatResult
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse, sse_answer
from agbench.live.proxy import CallRecord, RecordingProxy, Upstream
from agbench.live.secrets import Redactor
from agbench.live.serving import ManagedServer

KEY = "sk-cloudkey-0123456789abcdefXYZ"
ATTEMPT = AttemptKey.of("run1", "dev", "HLL", 2, "office/t1", 0)
SENSITIVE = ("Jane Roe", "4111-1111-1111-1111")


def run_through_proxy(
    script: list[FakeResponse], raw_log: Path, requests: list[dict[str, Any]], endpoint: str = "cloud"
) -> tuple[list[ChatResult], list[CallRecord], FakeOpenAIServer, list[Any]]:
    async def go() -> tuple[list[ChatResult], list[CallRecord], FakeOpenAIServer, list[Any]]:
        records: list[CallRecord] = []
        async with FakeOpenAIServer(script) as fake:
            upstream = Upstream(
                fake.url, endpoint=endpoint, api_key=KEY, model="deepseek-x", prices=PriceTable()
            )
            async with RecordingProxy({"cloud": upstream}, raw_log, records.append) as proxy:
                token = proxy.register_attempt(ATTEMPT, SENSITIVE)
                base = proxy.base_url("cloud", token, agent="cloud")
                results = []
                async with ChatClient(
                    base, "agent-says-this", api_key="agent-dummy-key", max_retries=0
                ) as client:
                    for req in requests:
                        results.append(await client.chat(**req))
                async with httpx.AsyncClient() as h:
                    extra = [
                        await h.get(base + "/models"),
                        await h.post(proxy.url + "/u/cloud/a/not-a-token/v1/chat/completions", json={}),
                        await h.get(proxy.url + "/health"),
                    ]
                return results, records, fake, extra

    return asyncio.run(go())


def test_stream_passthrough_key_swap_redaction_and_exposures(tmp_path: Path) -> None:
    raw = tmp_path / "raw_responses.jsonl"
    script = [
        FakeResponse(events=sse_answer("hello from the cloud")),
        FakeResponse(body={"data": [{"id": "m"}]}),
    ]
    messages = [
        {"role": "user", "content": "Write to Jane  roe about the invoice."},
        {"role": "tool", "content": f"card 4111-1111-1111-1111, api key {KEY}"},
    ]
    results, records, fake, extra = run_through_proxy(script, raw, [{"messages": messages}])
    (result,) = results
    assert result.ok
    assert result.content == "hello from the cloud"
    # Upstream got the proxy's key and model, never the agent's key.
    headers, body = fake.requests[0]
    assert headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "deepseek-x"
    assert body["stream_options"] == {"include_usage": True}
    assert "agent-dummy-key" not in json.dumps(fake.requests)
    # One record, attributed, measured, priced, with each sensitive item once.
    (record,) = records
    assert (record.upstream, record.endpoint, record.agent) == ("cloud", "cloud", "cloud")
    rows = record.model_calls()
    assert len(rows) == 1
    row = rows[0]
    assert (row.task, row.attempt, row.architecture, row.concurrency, row.agent) == (
        "office/t1",
        0,
        "HLL",
        2,
        "cloud",
    )
    assert row.completion_tokens == 4
    assert row.ttft_s is not None
    assert row.ttft_s <= row.total_s
    assert row.cost_usd > 0
    assert row.request_id == result.request_id
    assert sorted((e.item, e.where) for e in record.exposures) == [
        ("4111-1111-1111-1111", "tool_output"),
        ("Jane Roe", "instruction"),
    ]
    # Every row the proxy writes has its identity from the attempt's key.
    for written in [row, *record.exposures]:
        assert {k: getattr(written, k) for k in ATTEMPT.ids()} == ATTEMPT.ids()
    # Plain routes relay; unknown attempts are refused; health answers.
    models, unknown, health = extra
    assert models.status_code == 200
    assert models.json()["data"][0]["id"] == "m"
    assert unknown.status_code == 404
    assert health.status_code == 200
    # The raw log has the call but no key anywhere.
    text = raw.read_text()
    assert KEY not in text
    assert "agent-dummy-key" not in text
    (line,) = [json.loads(x) for x in text.splitlines()]
    assert line["task"] == "office/t1"
    assert line["response"]["status"] == 200
    assert line["request"]["headers"]["Authorization"] == "[REDACTED]"
    assert "[REDACTED]" in json.dumps(line["request"]["body"])  # the key the tool printed, too


def test_local_upstream_records_no_exposures(tmp_path: Path) -> None:
    script = [FakeResponse(events=sse_answer("ok"))]
    _, records, _, _ = run_through_proxy(
        script,
        tmp_path / "raw.jsonl",
        [{"messages": [{"role": "user", "content": "Jane Roe"}]}],
        endpoint="local",
    )
    assert records[0].exposures == []
    assert records[0].endpoint == "local"


def test_errors_pass_through_and_are_classified(tmp_path: Path) -> None:
    script = [
        FakeResponse(status=429, headers={"Retry-After": "7"}, body={"error": {"message": "slow"}}),
        FakeResponse(status=400, body={"error": {"type": "exceed_context_size_error"}}),
        FakeResponse(events=[{"choices": [{"delta": {"content": "x"}}]}, "{oops"], done=True),
        FakeResponse(events=[{"choices": [{"delta": {"content": "cut"}}]}], done=False),
        FakeResponse(
            events=[
                {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}}
            ],
            done=False,
        ),
        FakeResponse(events=[{"choices": [{"delta": {"content": "x"}}]}], drop=True),
        FakeResponse(body="<html>not json</html>"),
    ]
    msgs = {"messages": [{"role": "user", "content": "hi"}]}
    results, records, _, _ = run_through_proxy(script, tmp_path / "raw.jsonl", [msgs] * 7)
    seen_by_agent = [(r.error_class, r.status_code) for r in results]
    seen_by_proxy = [(r.result.error_class, r.result.status_code) for r in records]
    expected = [
        ("rate_limited", 429),
        ("context_limit", 400),
        ("bad_response", 200),
        ("bad_response", 200),
        ("context_limit", 200),
        ("connection", 200),
        ("bad_response", 200),
    ]
    assert seen_by_proxy == expected
    # The agent sees the same, except that a dropped upstream reaches it as a cut stream.
    assert seen_by_agent[:5] == expected[:5]
    assert seen_by_agent[6] == expected[6]
    assert seen_by_agent[5][0] in ("bad_response", "connection")
    assert records[0].result.attempts[0].retry_after_s == 7.0
    assert [r.model_calls()[0].retry for r in records] == [0] * 7  # each chat() was a new request
    assert all(r.cost_usd == 0 for r in records)  # failed calls are not priced


def test_unreachable_upstream_is_a_connection_error(tmp_path: Path) -> None:
    async def go() -> tuple[ChatResult, list[CallRecord]]:
        records: list[CallRecord] = []
        upstreams = {"local": Upstream("http://127.0.0.1:9")}  # nothing listens on the discard port
        async with RecordingProxy(upstreams, tmp_path / "raw.jsonl", on_call=records.append) as proxy:
            url = proxy.base_url("local", proxy.register_attempt(ATTEMPT))
            async with ChatClient(url, "m", max_retries=0) as client:
                return await client.chat([{"role": "user", "content": "hi"}]), records

    result, records = asyncio.run(go())
    assert result.status_code == 502
    assert result.error_class == "connection"
    assert records[0].result.error_class == "connection"


def test_redactor_catches_keys_by_name_value_and_shape() -> None:
    r = Redactor(["my-own-secret-value"], include_env=False)
    out = r.data(
        {
            "Authorization": "Bearer abcdef123456",
            "note": "my-own-secret-value leaked; url https://x/y?api_key=zzz&q=1; Bearer tok_987654321",
            "nested": [{"x-api-key": "k"}, "sk-abcdefghijklmnop12345"],
        }
    )
    text = json.dumps(out)
    for secret in ("abcdef123456", "my-own-secret-value", "zzz", "tok_987654321", "sk-abcdefghijklmnop12345"):
        assert secret not in text
    assert out["nested"][0]["x-api-key"] == "[REDACTED]"
    assert "q=1" in out["note"]
    assert r.text("Basic dXNlcjpwYXNzMTIz") == "Basic [REDACTED]"
    prose = "A basic understanding of bearer bonds. Basic Understanding."
    assert r.text(prose) == prose  # model text that merely looks like a header stays intact


# --- the real llama-server ------------------------------------------------------------------


@pytest.mark.server
def test_real_server_through_proxy_matches_direct(server: ManagedServer, tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "Say the word blue."}]
    greedy = {"temperature": 0.0, "seed": 1}

    async def go() -> tuple[ChatResult, ChatResult, list[CallRecord], int]:
        records: list[CallRecord] = []
        async with RecordingProxy(
            {"local": Upstream(server.url)}, tmp_path / "raw.jsonl", records.append
        ) as proxy:
            token = proxy.register_attempt(ATTEMPT, SENSITIVE)
            async with ChatClient(server.url, "smollm2-135m") as direct_client:
                direct = await direct_client.chat(messages, max_tokens=12, extra_body=greedy)
            async with ChatClient(proxy.base_url("local", token), "smollm2-135m") as proxied_client:
                proxied = await proxied_client.chat(messages, max_tokens=12, extra_body=greedy)
                # A client that does not stream gets a whole JSON answer through the proxy too.
                async with httpx.AsyncClient() as h:
                    plain = await h.post(
                        proxy.base_url("local", token) + "/chat/completions",
                        json={"messages": messages, "max_tokens": 4},
                    )
            return direct, proxied, records, plain.status_code

    direct, proxied, records, plain_status = asyncio.run(go())
    assert direct.ok
    assert proxied.ok
    assert plain_status == 200
    assert proxied.content == direct.content
    assert proxied.completion_tokens == direct.completion_tokens
    first = records[0].result
    assert first.ok
    assert first.content == proxied.content
    assert first.prompt_tokens == proxied.prompt_tokens
    assert first.cached_tokens == proxied.cached_tokens
    assert first.prompt_ms is not None
    assert first.ttft_s is not None
    assert first.ttft_s <= first.total_s
    assert records[1].result.ok
    assert records[1].result.completion_tokens > 0
    assert len((tmp_path / "raw.jsonl").read_text().splitlines()) == 2


def test_client_retries_through_the_proxy_are_numbered(tmp_path: Path) -> None:
    async def go() -> tuple[ChatResult, list[CallRecord]]:
        records: list[CallRecord] = []
        script = [
            FakeResponse(status=429, body={"error": {"message": "slow"}}),
            FakeResponse(events=sse_answer("ok")),
        ]
        async with (
            FakeOpenAIServer(script) as fake,
            RecordingProxy({"cloud": Upstream(fake.url, endpoint="cloud")}, None, records.append) as proxy,
        ):
            token = proxy.register_attempt(ATTEMPT, SENSITIVE)
            async with ChatClient(proxy.base_url("cloud", token), "m", backoff_s=0.01) as client:
                return await client.chat([{"role": "user", "content": "hi"}]), records

    result, records = asyncio.run(go())
    assert result.ok
    assert len(result.attempts) == 2
    rows = [row for record in records for row in record.model_calls()]
    assert [(row.retry, row.error_class) for row in rows] == [(0, "rate_limited"), (1, "")]
    assert rows[0].request_id == rows[1].request_id == result.request_id


@pytest.mark.server
def test_agent_hanging_up_abandons_the_upstream_request(server: ManagedServer) -> None:
    def predicted_total() -> float:
        text = httpx.get(server.url + "/metrics").text
        return float(
            next(
                ln.split()[-1] for ln in text.splitlines() if ln.startswith("llamacpp:tokens_predicted_total")
            )
        )

    async def go() -> list[CallRecord]:
        records: list[CallRecord] = []
        async with RecordingProxy({"local": Upstream(server.url)}, None, records.append) as proxy:
            token = proxy.register_attempt(ATTEMPT, SENSITIVE)
            body = {
                "messages": [{"role": "user", "content": "Count to a thousand."}],
                "max_tokens": 400,
                "ignore_eos": True,
                "stream": True,
            }
            async with httpx.AsyncClient() as h:
                url = proxy.base_url("local", token) + "/chat/completions"
                async with h.stream("POST", url, json=body) as response:
                    lines = 0
                    async for _line in response.aiter_lines():
                        lines += 1
                        if lines >= 6:
                            break  # the agent gives up: its connection closes
            for _ in range(300):
                if records:
                    break
                await asyncio.sleep(0.1)
        return records

    before = predicted_total()
    records = asyncio.run(go())
    assert len(records) == 1
    assert records[0].result.error_class == "connection"
    assert "abandoned" in records[0].result.error
    for _ in range(300):  # the slot goes idle once llama-server sees the closed connection
        if not any(s.get("is_processing") for s in httpx.get(server.url + "/slots").json()):
            break
        time.sleep(0.1)
    assert predicted_total() - before < 300  # far fewer than the 400 tokens asked for


def test_upstream_limiter_queues_and_reports_queue_time() -> None:
    async def go() -> list[CallRecord]:
        records: list[CallRecord] = []
        script = [FakeResponse(events=sse_answer("ok"), hang_s=0.3)]
        async with FakeOpenAIServer(script) as fake:
            upstream = Upstream(fake.url, max_concurrent=1)
            async with RecordingProxy({"local": upstream}, None, records.append) as proxy:
                token = proxy.register_attempt(ATTEMPT, SENSITIVE)
                async with ChatClient(proxy.base_url("local", token), "m") as client:
                    both = await asyncio.gather(
                        *[client.chat([{"role": "user", "content": "hi"}]) for _ in range(2)]
                    )
                assert all(r.ok for r in both)
        return records

    records = asyncio.run(go())
    waits = sorted(r.result.queue_s for r in records)
    assert waits[0] < 0.3 <= waits[1] + 0.05  # the second waited for the first's whole answer
    assert all(r.model_calls()[0].queue_s == r.result.queue_s for r in records)


def test_proxy_and_client_settle_bad_streams_alike(tmp_path: Path) -> None:
    """The proxy's SSE parser and the agent's client agree on how each bad stream ended."""
    context_error = {"error": {"code": 500, "message": "Context size has been exceeded.", "type": "x"}}
    script = [
        FakeResponse(events=[{"choices": [{"delta": {"content": "x"}}]}, "{oops", context_error], done=False),
        FakeResponse(events=[context_error, {"choices": [{"delta": {"content": "late"}}]}], done=False),
        FakeResponse(events=[context_error], drop=True),
        FakeResponse(events=[{"choices": [5]}]),
        FakeResponse(events=[*sse_answer("ok"), "[DONE]", "{oops", context_error], done=False),
    ]
    msgs = {"messages": [{"role": "user", "content": "hi"}]}
    results, records, _, _ = run_through_proxy(script, tmp_path / "raw.jsonl", [msgs] * 5)
    seen_by_agent = [(r.error_class, r.content) for r in results]
    seen_by_proxy = [(r.result.error_class, r.result.content) for r in records]
    assert seen_by_proxy == [
        ("bad_response", "x"),
        ("context_limit", ""),
        ("context_limit", ""),  # the error event, not the transport break that followed it
        ("bad_response", ""),
        ("", "ok"),
    ]
    assert seen_by_agent == seen_by_proxy


def test_unregistered_attempts_are_refused_and_forgotten(tmp_path: Path) -> None:
    async def go() -> tuple[dict[str, tuple[float, str]], int, dict[str, tuple[float, str]], int]:
        async with (
            FakeOpenAIServer([FakeResponse(events=sse_answer("ok"))]) as fake,
            RecordingProxy({"cloud": Upstream(fake.url, endpoint="cloud")}, None) as proxy,
        ):
            token = proxy.register_attempt(ATTEMPT, SENSITIVE)
            base = proxy.base_url("cloud", token)
            async with ChatClient(base, "m", max_retries=0) as client:
                await client.chat([{"role": "user", "content": "For Jane Roe."}])
            seen = proxy.exposures_seen(token)
            proxy.unregister_attempt(token)
            async with httpx.AsyncClient() as h:
                after = await h.post(base + "/chat/completions", json={"messages": []})
            return seen, len(fake.requests), proxy.exposures_seen(token), after.status_code

    seen, upstream_requests, forgotten, status = asyncio.run(go())
    assert list(seen) == ["Jane Roe"]
    assert seen["Jane Roe"][1] == "instruction"
    assert upstream_requests == 1
    assert forgotten == {}
    assert status == 404


def test_plain_routes_relay_through_the_same_upstream_client(tmp_path: Path) -> None:
    async def go() -> tuple[httpx.Response, httpx.Response, list[tuple[dict[str, str], Any]]]:
        async with FakeOpenAIServer([FakeResponse(body={"data": [{"id": "m"}]})]) as fake:
            upstreams = {
                "up": Upstream(fake.url, api_key=KEY),
                "down": Upstream("http://127.0.0.1:9"),  # nothing listens on the discard port
            }
            async with RecordingProxy(upstreams, None) as proxy, httpx.AsyncClient() as h:
                token = proxy.register_attempt(ATTEMPT)
                models = await h.get(
                    proxy.base_url("up", token) + "/models", headers={"Authorization": "Bearer agent"}
                )
                down = await h.get(proxy.base_url("down", token) + "/models")
            return models, down, fake.requests

    models, down, requests = asyncio.run(go())
    assert models.status_code == 200
    assert models.json() == {"data": [{"id": "m"}]}
    assert requests[0][0]["authorization"] == f"Bearer {KEY}"  # the proxy's key, not the agent's
    assert down.status_code == 502
    assert down.json()["error"]["type"] == "connection"
