"""Graders and judges: deterministic graders, the strict-JSON judge with its repair turn, the
judge providers, the exposure judge; against the real llama-server (SmolLM2) and the mock."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agbench.config import Architecture, PriceTable, ServerSettings
from agbench.live.judge import (
    JUDGE_KEY_ENV,
    MOCK_MODEL,
    PARSE_ERROR,
    TRANSPORT_ERROR,
    JudgeConfigError,
    LLMJudge,
    MockJudgeBackend,
    agreement,
    grade_exact,
    grade_numeric,
    grade_rubric,
    grade_task_compliance,
    judge_backend,
    judge_exposure,
    judge_settings,
)
from agbench.live.judge.numeric import NumberFormatError, parse_quantity
from agbench.live.judge.schema import VERDICT_SCHEMA, JudgeParseError, parse_reply
from agbench.live.providers.errors import ErrorClass
from agbench.live.providers.mock import MockChatClient, MockReply
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.serving import ManagedServer
from agbench.status import Status
from agbench.store import RunStore
from agbench.task import load_task, suite_root

VALID = '{"pass": true, "score": 1, "reason": "all there"}'
# A small synthesis profile (as the replay tests use), so a replayed attempt is short.
TINY_PROFILE = (Path(__file__).parent / "tiny_profile.toml").read_text()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("12.5%", "0.125"),
        ("0.125", "12.5%"),
        ("$1,234.50", "1234.5"),
        ("€ 3.2k", "3200"),
        ("about 1.5M users", "1,500,000"),
        ("250 ms", "0.25 s"),
        ("2 GB", "2000 MB"),
        ("1 GiB", "1024 MiB"),
        ("(42)", "-42"),
        ("$3B", "3,000,000,000"),
        ("Total: 1 234 567", "1234567"),
        ("3 min", "180 s"),
    ],
)
def test_numeric_matches_after_unit_normalisation(answer: str, expected: str) -> None:
    grade = grade_numeric(answer, expected)
    assert (grade.status, grade.reward, grade.method) == (Status.SUCCESS, 1.0, "numeric"), grade.reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("250 ms", "250 MB"), ("12.6%", "12.5%"), ("3.3k", "3200"), ("2 GB", "2 GiB"), ("1 s", "1 ms")],
)
def test_numeric_mismatches(answer: str, expected: str) -> None:
    assert grade_numeric(answer, expected).status is Status.VERIFICATION_FAILED


def test_numeric_tolerance_and_missing_number() -> None:
    assert grade_numeric("433.5", "433.63", rel_tol=1e-3).status is Status.SUCCESS
    assert grade_numeric("433.5", "433.63").status is Status.VERIFICATION_FAILED
    no_number = grade_numeric("I could not compute it", "5")
    assert (no_number.status, no_number.reason) == (Status.VERIFICATION_FAILED, "no number in the answer")
    with pytest.raises(NumberFormatError):
        parse_quantity("none")


def test_exact_and_choices() -> None:
    assert grade_exact('  Answer: "Paris."  ', "paris").status is Status.SUCCESS
    assert grade_exact("Lyon", ["Paris", "paris, France"]).status is Status.VERIFICATION_FAILED
    assert grade_exact("(b) Paris", "B", choices=True).status is Status.SUCCESS
    assert grade_exact("Option C", "B", choices=True).status is Status.VERIFICATION_FAILED


def test_schema_reading_is_strict() -> None:
    assert parse_reply("```json\n" + VALID + "\n```", VERDICT_SCHEMA)["pass"] is True
    for bad, why in [
        ("The answer is fine.", "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"pass": "yes", "score": 1, "reason": ""}', "reply.pass must be a boolean"),
        ('{"pass": true, "score": 2, "reason": ""}', "above 1"),
        ('{"pass": true, "reason": ""}', "lacks score"),
        ('{"pass": true, "score": 1, "reason": "", "extra": 1}', "unexpected keys extra"),
        ("", "empty reply"),
    ]:
        with pytest.raises(JudgeParseError, match=why):
            parse_reply(bad, VERDICT_SCHEMA)


def test_invalid_reply_is_repaired_once() -> None:
    backend = MockChatClient(["Looks right to me!", VALID], name="judge")
    grade = run(grade_task_compliance(LLMJudge(backend), task="Say hi", answer="hi"))
    assert grade.status is Status.SUCCESS
    assert grade.judge is not None
    assert grade.judge.repaired
    assert grade.judge.calls == 2
    assert grade.judge.raw == ["Looks right to me!", VALID]
    repair = backend.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Looks right to me!"}
    assert "could not be used: not JSON" in repair[-1]["content"]


def test_two_invalid_replies_are_a_grader_failure_not_the_models() -> None:
    backend = MockChatClient(["nope", '{"pass": true}'], name="judge")
    prices = PriceTable(cached_input_per_m=0.0, uncached_input_per_m=1.0, output_per_m=2.0)
    grade = run(grade_rubric(LLMJudge(backend, prices=prices), task="t", answer="a", rubric="r"))
    assert grade.status is Status.FAILED_GRADER
    assert grade.reward == 0.0
    assert grade.reason.startswith(f"{PARSE_ERROR}: reply lacks score")
    record = grade.record()
    assert record["grading_method"] == "rubric"
    assert record["judge_raw"] == ["nope", '{"pass": true}']
    assert record["judge_usage"] == {
        "calls": 2,
        "prompt_tokens": 20,
        "cached_tokens": 0,
        "completion_tokens": 10,
    }
    assert record["judge_cost_usd"] == pytest.approx((20 * 1.0 + 10 * 2.0) / 1e6)


def test_unreachable_judge_is_a_grader_failure() -> None:
    backend = MockChatClient([MockReply(error_class=ErrorClass.TIMEOUT)], name="judge")
    grade = run(grade_task_compliance(LLMJudge(backend), task="t", answer="a"))
    assert grade.status is Status.FAILED_GRADER
    assert grade.reason.startswith(f"{TRANSPORT_ERROR}: timeout")


def test_mock_provider_grades_by_its_rule() -> None:
    judge = LLMJudge(MockJudgeBackend())
    rubric = "must include: 433.63; 2314.24"
    ok = run(grade_rubric(judge, task="loan", answer="payment=433.63, interest=2314.24", rubric=rubric))
    assert ok.status is Status.SUCCESS
    assert ok.judge is not None
    assert ok.judge.model == MOCK_MODEL
    missing = run(grade_rubric(judge, task="loan", answer="payment=433.63", rubric=rubric))
    assert missing.status is Status.VERIFICATION_FAILED
    assert "2314.24" in missing.reason
    assert run(grade_task_compliance(judge, task="t", answer=" ")).status is Status.VERIFICATION_FAILED


def test_mock_exposure_judge_and_agreement_with_the_matcher() -> None:
    items = ["alice@example.com", "555-123-4567", "DE89370400440532013000", "Rz7!velvet"]
    payload = "Mail ALICE@example.com, call (555) 123 4567, IBAN DE89 3704 0044 0532 0130 00."
    judged = run(judge_exposure(LLMJudge(MockJudgeBackend()), payload, items))
    assert judged.items == items[:3]
    assert judged.error == ""
    matcher = [i for i in items if i in payload]  # the deterministic matcher's literal rule
    assert matcher == []
    stats = agreement(matcher, judged.items, items)
    assert stats | {"kappa": None} == {
        "items": 4, "both": 0, "matcher_only": 0, "judge_only": 3, "neither": 1, "agreement": 0.25,
        "kappa": None, "judge_only_items": sorted(items[:3]),
    }  # fmt: skip
    assert stats["kappa"] == pytest.approx(0.0)
    assert agreement(["a"], ["a"], ["a", "b"])["kappa"] == pytest.approx(1.0)


def test_exposure_judge_ignores_items_not_on_the_list() -> None:
    backend = MockChatClient(['{"items": ["Alice@Example.com", "bob"], "reason": "x"}'], name="judge")
    judged = run(judge_exposure(LLMJudge(backend), "to alice", ["alice@example.com"]))
    assert (judged.items, judged.unlisted) == (["alice@example.com"], ["bob"])


def test_provider_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge_backend(judge_settings("none")) is None
    assert isinstance(judge_backend(judge_settings("mock")), MockJudgeBackend)
    same = judge_settings("same-as-target", target_url="http://127.0.0.1:9/v1", target_model="smol")
    backend = judge_backend(same)
    assert isinstance(backend, ChatClient)
    assert backend.model == "smol"
    monkeypatch.setenv(JUDGE_KEY_ENV, "sk-judge-secret")
    other = judge_settings(
        "openai-compatible", url="http://127.0.0.1:9", model="judge-m", exposure_judge=True
    )
    client = judge_backend(other)
    assert isinstance(client, ChatClient)
    assert "sk-judge-secret" not in repr(client)
    assert "sk-judge-secret" not in str(other.public())
    assert other.public()["api_key_env"] == JUDGE_KEY_ENV
    for bad, message in [
        (lambda: judge_settings("gpt"), "unknown judge provider 'gpt'"),
        (lambda: judge_settings("openai-compatible", url="http://x"), "needs --judge-url and --judge-model"),
        (lambda: judge_backend(judge_settings("same-as-target")), "has no URL and model to call"),
        (lambda: judge_settings("none", exposure_judge=True), "--exposure-judge needs a judge"),
    ]:
        with pytest.raises(JudgeConfigError, match=message):
            bad()


# --- the real llama-server as judge (SmolLM2-135M) -------------------------------------------


@pytest.fixture(scope="module")
def smol_url() -> Iterator[str]:
    with ManagedServer(ServerSettings(n_ctx=2048, n_parallel=1, threads=1), alias="smol") as server:
        yield server.url


@pytest.mark.server
@pytest.mark.slow
def test_free_text_judge_ends_parsed_or_as_a_parse_error(smol_url: str) -> None:
    """SmolLM2 asked for JSON in the prompt mostly answers prose: the repair turn is sent,
    and a second invalid reply ends as failed_grader / judge_parse_error, never as a model
    failure; a reply that does parse is a verdict."""

    async def go() -> Any:
        async with ChatClient(smol_url, "smol") as client:
            judge = LLMJudge(client, max_tokens=96)
            return await grade_task_compliance(
                judge, task="Reply with the capital of France.", answer="Paris"
            )

    grade = run(go())
    exchange = grade.judge
    assert exchange is not None
    assert exchange.calls == len(exchange.raw) in (1, 2)
    assert exchange.prompt_tokens > 0
    assert exchange.completion_tokens > 0
    if exchange.calls == 2:  # the first reply did not parse, so a repair was asked for
        with pytest.raises(JudgeParseError):
            parse_reply(exchange.raw[0], VERDICT_SCHEMA)
    if exchange.parsed is None:
        assert grade.status is Status.FAILED_GRADER
        assert grade.reason.startswith(PARSE_ERROR)
    else:
        assert grade.status in (Status.SUCCESS, Status.VERIFICATION_FAILED)


@pytest.mark.server
@pytest.mark.slow
def test_structured_output_judge_parses_first_time(smol_url: str) -> None:
    """With the schema sent as response_format, llama-server constrains decoding to it."""

    async def go() -> Any:
        async with ChatClient(smol_url, "smol") as client:
            judge = LLMJudge(client, max_tokens=96, structured=True)
            grade = await grade_task_compliance(
                judge, task="Reply with the capital of France.", answer="Paris"
            )
            exposure = await judge_exposure(
                judge, "Write to alice@example.com about the meeting.", ["alice@example.com", "555-123-4567"]
            )
            return grade, exposure

    grade, exposure = run(go())
    assert grade.judge is not None
    assert grade.judge.ok
    assert grade.judge.calls == 1
    assert grade.status in (Status.SUCCESS, Status.VERIFICATION_FAILED)
    assert exposure.error == ""
    assert set(exposure.items) <= {"alice@example.com", "555-123-4567"}


# --- the judge in a live run -------------------------------------------------------------------


def rubric_suite(root: Path) -> Path:
    """Four real tasks: two carry a rubric (one the oracle's answer meets, one it cannot), one
    is graded for task compliance, one keeps its verifier."""
    tasks = root / "tasks"
    for category, task_id in [
        ("calculation", "calc-loan-annuity"),
        ("calculation", "calc-fuel-consumption"),
        ("local_files", "lf-next-dentist"),
        ("terminal", "term-error-summary"),
    ]:
        shutil.copytree(suite_root() / category / task_id, tasks / category / task_id)
    shutil.copytree(suite_root() / "_grading", tasks / "_grading")
    shutil.copy(suite_root() / "credits.toml", tasks / "credits.toml")
    for task_id, rubric in [("calc-loan-annuity", "433.63; 2314.24"), ("calc-fuel-consumption", "99.99")]:
        manifest = tasks / "calculation" / task_id / "task.toml"
        manifest.write_text(f'rubric = "must include: {rubric}"\n' + manifest.read_text())
    manifest = tasks / "local_files" / "lf-next-dentist" / "task.toml"
    manifest.write_text('grading = "task_compliance"\n' + manifest.read_text())
    return tasks


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_run_grades_rubric_tasks_with_the_judge_and_records_every_method(tmp_path: Path) -> None:
    from agbench.live.runner import SweepOptions, run_sweep

    options = SweepOptions(
        out=tmp_path / "run",
        runs_root=tmp_path / "runs",
        quiet=True,
        archs=[Architecture.LO],
        agent="oracle",
        tasks_root=rubric_suite(tmp_path),
        judge_provider="mock",
    )
    run_dir = run_sweep(options)
    lines = {line["task"]: line for line in map(json.loads, (run_dir / "judgements.jsonl").open())}
    assert {t: line["grading_method"] for t, line in lines.items()} == {
        "calc-loan-annuity": "rubric", "calc-fuel-consumption": "rubric",
        "lf-next-dentist": "task_compliance", "term-error-summary": "program",
    }  # fmt: skip
    fuel = lines["calc-fuel-consumption"]
    assert fuel["status"] == "verification_failed"
    assert fuel["verifier"]["status"] == "success"
    assert fuel["judge_model"] == MOCK_MODEL
    assert json.loads(fuel["judge_raw"][0])["pass"] is False
    graded = {row["task"]: row for row in map(json.loads, (run_dir / "graded_results.jsonl").open())}
    assert graded["calc-loan-annuity"]["status"] == "success"
    assert graded["calc-fuel-consumption"]["status"] == "verification_failed"
    assert graded["calc-fuel-consumption"]["judge_parsed"]["reason"] == "mock judge: missing 99.99"
    assert graded["lf-next-dentist"]["status"] == "success"
    assert graded["lf-next-dentist"]["judge_raw"]
    assert graded["term-error-summary"]["status"] == "success"
    assert "judge_raw" not in graded["term-error-summary"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["meta"]["judge"]["provider"] == "mock"
    assert summary["judge"]["rows_by_method"] == {"program": 1, "rubric": 2, "task_compliance": 1}
    assert summary["judge"]["judged_rows"] == 3
    assert summary["judge"]["calls"] == 3
    methods = {row["name"]: row["grading_method"] for row in summary["benchmark_scores"]}
    assert methods == {"calculation": "rubric", "local_files": "task_compliance", "terminal": "program"}


@pytest.mark.server
@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_exposure_judge_reads_every_cloud_payload_of_a_replayed_run(tmp_path: Path) -> None:
    """CO replays a synthesised trajectory against the cloud stand-in; the mock judge reads
    each cloud-bound payload, the report puts it beside the matcher, and the judge's calls
    never count as the agent's."""
    from agbench.live.runner import SweepOptions, run_sweep
    from agbench.live.trajectories import synthesize

    tasks = rubric_suite(tmp_path)
    task = load_task(tasks / "calculation" / "calc-loan-annuity")
    trajectories, profile = tmp_path / "trajectories.jsonl", tmp_path / "tiny.toml"
    profile.write_text(TINY_PROFILE)
    synthesize([task], profile).save(trajectories)
    options = SweepOptions(
        out=tmp_path / "run",
        runs_root=tmp_path / "runs",
        quiet=True,
        archs=[Architecture.CO],
        agent="replay",
        trajectories=trajectories,
        task_ids=[task.id],
        tasks_root=tasks,
        judge_provider="mock",
        exposure_judge=True,
        local_threads=1,
    )
    run_dir = run_sweep(options)
    line = json.loads((run_dir / "judgements.jsonl").read_text().splitlines()[0])
    calls = RunStore.open(run_dir).table("model_calls")
    cloud_calls = int((calls["endpoint"] == "cloud").sum())
    exposure = line["exposure"]
    assert len(exposure["payloads"]) == cloud_calls > 0
    assert set(exposure["judge_items"]) >= set(exposure["matcher_items"])  # the mock reads more
    assert exposure["agreement"]["items"] == len(task.sensitive_items)
    runs = RunStore.open(run_dir).table("task_runs")
    assert int(runs["cloud_calls"].iloc[0]) == cloud_calls  # the mock judge made none of them
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["judge"]["exposure"]["attempts_judged"] == 1
