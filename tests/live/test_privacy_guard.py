"""The guard's parts: placeholders, the token-safe stream restorer, the detectors, the policy
and the summary figures computed from its per-attempt lines."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from agbench.errors import AgbenchError
from agbench.live.privacy.detectors import DeclaredDetector, DeclaredItem
from agbench.live.privacy.guard import AttemptGuard, GuardSettings
from agbench.live.privacy.placeholders import PlaceholderMap
from agbench.live.privacy.stream import StreamRestorer
from agbench.live.sse import SseDecoder
from agbench.metrics.privacy import guard_figures, with_success_cost
from agbench.results.summary import ConfigurationSummary, PrivacyGuardSummary

EMAIL = "nils.ekdahl@hemma-mail.example"
DECLARED = (DeclaredItem(EMAIL, "personal_identifier"), DeclaredItem("wqzt-mbnv-kkrf-0194", "credential"))


def _events(*texts: str, finish: str = "stop") -> bytes:
    events = [
        {"id": "x", "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]} for t in texts
    ]
    events.append({"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


def _content(stream: bytes) -> str:
    out = ""
    for line in stream.decode().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                out += choice.get("delta", {}).get("content") or ""
    return out


def test_a_value_keeps_its_placeholder_however_it_is_cased() -> None:
    pmap = PlaceholderMap()
    first = pmap.placeholder(EMAIL, "EMAIL")
    assert first == "<EMAIL_1>"
    assert pmap.placeholder(EMAIL.upper(), "EMAIL") == first
    assert pmap.placeholder("other@x.example", "EMAIL") == "<EMAIL_2>"
    assert pmap.restore("to <EMAIL_1>, not <EMAIL_9>") == f"to {EMAIL}, not <EMAIL_9>"
    assert EMAIL not in repr(pmap)


@pytest.mark.parametrize("piece", [1, 2, 5, 13, 10_000])
def test_a_placeholder_split_across_events_and_reads_is_restored_whole(piece: int) -> None:
    pmap = PlaceholderMap()
    pmap.placeholder(EMAIL, "EMAIL")
    stream = _events("Send it to <EM", "AIL", "_1", "> now; 2 < 3 and <b>", " and <EMAIL_1>")
    restorer = StreamRestorer(pmap)
    out = (
        b"".join(restorer.feed(stream[i : i + piece]) for i in range(0, len(stream), piece))
        + restorer.close()
    )
    assert _content(out) == f"Send it to {EMAIL} now; 2 < 3 and <b> and {EMAIL}"
    assert "<EMAIL_1>" not in out.decode()
    assert out.endswith(b"data: [DONE]\n\n")


def test_held_text_of_a_stream_cut_before_its_end_is_released() -> None:
    pmap = PlaceholderMap()
    pmap.placeholder(EMAIL, "EMAIL")
    restorer = StreamRestorer(pmap)
    event = {"id": "x", "choices": [{"index": 0, "delta": {"content": "to <EMAIL_"}, "finish_reason": None}]}
    out = restorer.feed(b"data: " + json.dumps(event).encode() + b"\n\n") + restorer.close()
    assert _content(out) == "to <EMAIL_"  # never completed: passed on as written, nothing lost


def test_the_restorer_reads_sse_as_the_decoder_does() -> None:
    """CRLF line ends, keep-alive comments and an event split over two ``data`` lines are
    SSE the proxy's parser reads; the restorer cuts the stream with the same decoder, so it
    restores there too, and an error event keeps its type."""
    pmap = PlaceholderMap()
    pmap.placeholder(EMAIL, "EMAIL")
    first = {"id": "x", "choices": [{"index": 0, "delta": {"content": "to <EMAIL"}, "finish_reason": None}]}
    second = {"id": "x", "choices": [{"index": 0, "delta": {"content": "_1>"}, "finish_reason": "stop"}]}
    stream = (
        b": keep-alive\r\n\r\n"
        + b"data: " + json.dumps(first).encode() + b"\r\n\r\n"
        + b'data: {"id": "x",\ndata: ' + json.dumps(second)[11:].encode() + b"\n\n"
        + b'event: error\ndata: {"error": "<late>"}\n\n'
        + b"data: [DONE]\r\n\r\n"
    )  # fmt: skip
    restorer = StreamRestorer(pmap)
    out = b"".join(restorer.feed(stream[i : i + 3]) for i in range(0, len(stream), 3)) + restorer.close()
    events = SseDecoder().feed(out)
    assert "".join(c["delta"].get("content") or "" for e in events[:-2] for c in e.json()["choices"]) == (
        f"to {EMAIL}"
    )
    assert (events[-2].event, events[-2].json()) == ("error", {"error": "<late>"})
    assert events[-1].done


def test_the_guard_redacts_every_message_part_with_stable_placeholders() -> None:
    guard = AttemptGuard(GuardSettings.of("redact", "declared"), DECLARED)
    call = {
        "id": "1",
        "type": "function",
        "function": {"name": "mail", "arguments": json.dumps({"to": EMAIL})},
    }
    body: dict[str, Any] = {
        "model": "m",
        "messages": [
            {"role": "user", "content": f"Mail {EMAIL}"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "1", "content": "token: wqzt-mbnv-kkrf-0194"},
        ],
    }
    first = guard.request(body).body
    again = guard.request(
        {**body, "messages": [*body["messages"], {"role": "user", "content": EMAIL.upper()}]}
    ).body
    text = json.dumps(again)
    assert EMAIL not in json.dumps(first)
    assert "wqzt" not in text
    assert EMAIL.upper() not in text
    assert json.loads(first["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"to": "<EMAIL_1>"}
    assert again["messages"][-1]["content"] == "<EMAIL_1>"
    assert first["messages"][2]["content"] == "token: <SECRET_1>"
    assert guard.stats.redacted_spans == 3 + 4
    assert guard.stats.true_positive == {"personal_identifier": 1, "credential": 1}  # distinct values
    assert body["messages"][0]["content"] == f"Mail {EMAIL}"  # the agent's own body is not changed


def test_block_refuses_only_requests_with_a_detected_span() -> None:
    guard = AttemptGuard(GuardSettings.of("block", "declared"), DECLARED)
    assert not guard.request({"messages": [{"role": "user", "content": "nothing here"}]}).blocked
    decision = guard.request({"messages": [{"role": "user", "content": f"mail {EMAIL}"}]})
    assert "1 EMAIL" in decision.blocked
    assert EMAIL not in decision.blocked
    assert guard.stats.blocked_calls == 1


def test_declared_items_are_found_re_cased_and_re_wrapped() -> None:
    detector = DeclaredDetector([DeclaredItem("Account 4471 9902", "personal_record")])
    spans = detector.spans("see ACCOUNT\n4471   9902 here")
    assert [(s.start, s.end, s.label) for s in spans] == [(4, 23, "RECORD")]


@pytest.mark.parametrize(
    ("mode", "detector", "message"),
    [
        ("maybe", "declared", "--privacy-guard"),
        ("redact", "regex", "detector"),
        ("redact", "presidio", "FOO"),
    ],
)
def test_bad_guard_options_are_one_line_errors(mode: str, detector: str, message: str) -> None:
    with pytest.raises(AgbenchError, match=message):
        GuardSettings.of(mode, detector, ("FOO",) if detector == "presidio" else ())


def test_presidio_finds_shapes_and_credentials_without_knowing_the_task() -> None:
    pytest.importorskip("presidio_analyzer")
    pytest.importorskip("detect_secrets")
    guard = AttemptGuard(GuardSettings.of("redact", "presidio"), DECLARED)
    text = f"Nils Ekdahl <{EMAIL}>, IBAN SE45 5000 0000 0583 9825 7466, other@mail.example\npassword = 'wqzt-mbnv-kkrf-0194'"
    out = guard.request({"messages": [{"role": "user", "content": text}]}).body["messages"][0]["content"]
    assert EMAIL not in out
    assert "SE45" not in out
    assert "wqzt" not in out
    assert "<EMAIL_1>" in out
    assert "<IBAN_1>" in out
    assert "<SECRET_1>" in out
    assert "Nils Ekdahl" in out  # no named-entity model: names are not detected
    assert guard.stats.true_positive == {"personal_identifier": 1, "credential": 1}
    assert guard.stats.false_positive == {"EMAIL": 1, "IBAN": 1}  # not declared items of this task


def test_presidio_without_its_extra_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from agbench.live.privacy.presidio_detector import PresidioDetector

    monkeypatch.setitem(sys.modules, "presidio_analyzer", None)  # as if not installed
    with pytest.raises(AgbenchError, match=r"agbench\[privacy\]"):
        PresidioDetector(("EMAIL_ADDRESS",))


def _rows(*tasks: tuple[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "device": "d",
                "architecture": "CO",
                "concurrency": 1,
                "task": t,
                "attempt": 0,
                "status": s,
                "sensitive_total": 3,
            }
            for t, s in tasks
        ]
    )


def _line(task: str, unguarded: list[int], exposed: list[int], **extra: Any) -> dict[str, Any]:
    return {
        "run_id": "r", "device": "d", "architecture": "CO", "concurrency": 1, "task": task, "attempt": 0,
        "mode": "redact", "detector": "presidio", "kinds": ["personal_identifier", "credential", "personal_record"],
        "unguarded_items": unguarded, "exposed_items": exposed, "guard_s": [0.001, 0.003], "calls": 2, **extra,
    }  # fmt: skip


def test_summary_figures_count_items_per_kind_over_counted_attempts() -> None:
    lines = [
        _line("a", [0, 1, 2], [2], true_positive_by_kind={"personal_identifier": 1, "credential": 1},
              false_positive_by_label={"URL": 2}, redacted_spans=5),
        _line("b", [0], [], redacted_spans=1),
        {**_line("zz", [0], [0]), "task": "not-counted"},
    ]  # fmt: skip
    g = guard_figures(lines, _rows(("a", "success"), ("b", "verification_failed")))
    assert g is not None
    assert g.exposure_ratio_unguarded == pytest.approx(4 / 6)
    assert g.recall == pytest.approx(3 / 4)
    assert g.recall_by_kind == {"credential": 1.0, "personal_identifier": 1.0, "personal_record": 0.0}
    assert g.precision == pytest.approx(2 / 4)
    assert (g.redacted_spans, g.failed_with_guard, g.attempts) == (6, 1, 2)
    assert g.guard_ms_p50 == pytest.approx(2.0)
    assert g.success_cost is None
    common = {
        "device": "d",
        "architecture": "CO",
        "concurrency": 1,
        "tasks": 2,
        "suite_wall_s": 1.0,
        "goodput_per_h": 1.0,
    }
    configs = [
        ConfigurationSummary(**common, success=2, success_rate=1.0),
        ConfigurationSummary(**common, success=1, success_rate=0.5, privacy_guard=g),
    ]
    with_success_cost(configs)
    guarded = configs[1].privacy_guard
    assert guarded is not None
    assert guarded.success_cost == pytest.approx(0.5)
    assert g.success_cost is None  # the run's own figures are not changed by a comparison
    written = configs[1].to_json_dict()["privacy_guard"]
    assert set(written) == set(PrivacyGuardSummary.model_fields)  # every figure is written
    assert written["success_cost"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"privacy_guard": "hide"}, "--privacy-guard"),
        ({"detector": "regex"}, "--detector "),
        (
            {"detector": "presidio", "detector_entities": ["EMAIL_ADDRESS", "NAME"]},
            "'NAME' for --detector-entities",
        ),
        ({"detector_threshold": 1.5}, "--detector-threshold = 1.5"),
    ],
)
def test_sweep_options_check_the_guard_fields(options: dict[str, Any], message: str) -> None:
    from agbench.live.runner.options import SweepOptions, validate_options
    from agbench.schema import ConfigError

    with pytest.raises(ConfigError, match=message) as caught:
        validate_options(SweepOptions(**options))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("module", ["presidio_analyzer", "detect_secrets.core", "tldextract"])
def test_a_missing_privacy_module_names_its_extra(module: str) -> None:
    from agbench.extras import missing_extra_message

    message = missing_extra_message(ModuleNotFoundError(f"No module named {module!r}", name=module))
    assert message is not None
    assert "pip install 'agbench[privacy]'" in message
