"""The Agent Bench command line: --provider mock end to end offline, sampling settings and
per-endpoint caps in the request bodies, --tool-parser / $AGBENCH_TOOL_PARSER, --price-table
errors, --category, and tokens/s n/a when the provider gives no token count."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agbench.attempt import Endpoint
from agbench.cli import main
from agbench.live.mock.provider import MockProvider, seeded_unit, tool_output_answer
from agbench.live.providers import ChatClient
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse
from agbench.live.runner.options import SweepOptions
from agbench.live.runner.price_table import load_price_table
from agbench.live.runner.request_settings import shaped
from agbench.task import load_suite

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")


def _bodies(run_dir: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (run_dir / "raw_responses.jsonl").read_text().splitlines()]
    return [r["request"]["body"] for r in rows]


@pytest.mark.bwrap
@needs_bwrap
def test_mock_provider_runs_end_to_end_offline_with_flags_in_every_request(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--provider", "mock", "--limit", "4", "--judge-provider", "same-as-target"]
    args += ["--temperature", "0.3", "--top-p", "0.9", "--seed", "7", "--local-max-tokens", "123"]
    args += ["--mock-wrong-rate", "0", "--out", str(out)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert "mock provider" in summary["labels"]
    meta = json.loads((out / "run.json").read_text())
    assert meta["local"]["model"] == "mock:oracle"
    assert meta["options"]["provider"] == "mock"
    bodies = _bodies(out)
    assert bodies
    for body in bodies:  # every agent request carries the run's sampling settings and the local cap
        assert body["model"] == "mock:oracle"
        assert (body["temperature"], body["top_p"], body["seed"], body["max_tokens"]) == (0.3, 0.9, 7, 123)
    graded = [json.loads(x) for x in (out / "graded_results.jsonl").read_text().splitlines()]
    assert len(graded) == 4
    # wrong-answer rate 0: the oracle plans pass their verifiers (a task with an environment
    # the sandbox cannot build would fail setup instead, never the model's answer)
    assert all(r["status"] == "success" for r in graded), [(r["task"], r["status"]) for r in graded]


def test_mock_provider_follows_the_oracle_plan_then_answers_its_output() -> None:
    task = next(t for t in load_suite() if (t.solution_dir / "tools.json").is_file())
    mock = MockProvider([task], wrong_rate=0.0)
    system = {"role": "system", "content": "sys"}
    user = {"role": "user", "content": task.instruction}
    first = mock.reply({"messages": [system, user]})
    assert first["tool_calls"], "the first turn is the plan's first tool call"
    from agbench.live.trajectories.synth import load_plan

    plan = load_plan(task)
    assert first["tool_calls"][0]["function"]["name"] == plan[0][0]
    history: list[dict[str, Any]] = [system, user]
    for _ in plan:
        reply = mock.reply({"messages": history})
        history.append({"role": "assistant", "content": "", "tool_calls": reply["tool_calls"]})
        history.append({"role": "tool", "content": "42\n[exit code 0]"})
    assert mock.reply({"messages": history}) == {"content": "FINAL ANSWER: 42", "tool_calls": []}


def test_mock_provider_wrong_rate_is_seeded() -> None:
    task = load_suite()[0]
    always = MockProvider([task], wrong_rate=1.0)
    reply = always.reply({"messages": [{"role": "user", "content": task.instruction}]})
    assert "wrong" in reply["content"]
    assert not reply["tool_calls"]
    draws = [seeded_unit(3, task.id, n) for n in range(200)]
    assert draws == [seeded_unit(3, task.id, n) for n in range(200)]
    assert 0.1 < sum(d < 0.2 for d in draws) / 200 < 0.3
    assert tool_output_answer("x\n[stderr]\nwarn\n[exit code 1]") == "x"


def test_request_settings_and_endpoint_caps_reach_the_body() -> None:
    options = SweepOptions(temperature=0.2, top_p=0.5, request_seed=11, reasoning_effort="low")
    options.local_max_tokens, options.cloud_max_tokens = 8192, 384000

    async def go() -> list[Any]:
        events = [
            {"choices": [{"index": 0, "delta": {"content": "hi"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
        ]
        async with FakeOpenAIServer([FakeResponse(events=events)]) as fake:
            for endpoint in (Endpoint.LOCAL, Endpoint.CLOUD):
                client = ChatClient(fake.url, "m", endpoint=endpoint)
                await shaped(client, options, endpoint).chat(
                    [{"role": "user", "content": "x"}], max_tokens=64
                )
                await client.aclose()
            return [body for _headers, body in fake.requests]

    local, cloud = asyncio.run(go())
    for body in (local, cloud):
        assert (body["temperature"], body["top_p"], body["seed"], body["reasoning_effort"]) == (
            0.2,
            0.5,
            11,
            "low",
        )
    assert local["max_tokens"] == 8192
    assert cloud["max_tokens"] == 384000


def test_tokens_per_second_is_na_without_a_provider_token_count() -> None:
    events = [{"choices": [{"index": 0, "delta": {"content": w}}]} for w in ("a", " b", " c", " d")] + [
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    ]

    async def go() -> Any:
        async with (
            FakeOpenAIServer([FakeResponse(events=events)]) as fake,
            ChatClient(fake.url, "m") as client,
        ):
            return await client.chat([{"role": "user", "content": "x"}])

    result = asyncio.run(go())
    assert result.ok
    assert result.content == "a b c d"
    assert result.output_tok_s is None  # n/a: four chunks are no token count


@pytest.mark.parametrize(
    ("env", "args"),
    [({"AGBENCH_TOOL_PARSER": "no-such-parser"}, []), ({}, ["--tool-parser", "no-such-parser"])],
)
def test_tool_parser_flag_and_env_var_are_one_setting(
    env: dict[str, str], args: list[str], tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        main, ["run", "--provider", "mock", "--out", str(tmp_path / "r"), *args], env=env
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "no-such-parser" in lines[0], result.output


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("output_per_m = -1\n", "non-negative"),
        ("output_per_m = 'cheap'\n", "non-negative"),
        ("outptu_per_m = 1\n", "unknown key"),
        ("output_per_m = \n", "not valid"),
    ],
)
def test_bad_price_table_is_a_one_line_error(text: str, needle: str, tmp_path: Path) -> None:
    table = tmp_path / "prices.toml"
    table.write_text(text)
    result = CliRunner().invoke(main, ["run", "--provider", "mock", "--price-table", str(table)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert needle in lines[0], result.output
    assert "--price-table" in lines[0], result.output


def test_price_table_file_is_read(tmp_path: Path) -> None:
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"output_per_m": 2.5}))
    prices = load_price_table(table)
    assert prices.output_per_m == 2.5
    assert prices.uncached_input_per_m == 0.28


def test_provider_options_that_cannot_work_are_one_line_errors() -> None:
    runner = CliRunner()
    for args, needle in (
        (["--provider", "openai-compatible"], "needs --base-url"),
        (["--provider", "mock", "--base-url", "http://127.0.0.1:1/v1"], "offline"),
        (["--provider", "mock", "--category", "no-such-category"], "no-such-category"),
    ):
        result = runner.invoke(main, ["run", *args])
        assert result.exit_code == 2, (args, result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert needle in result.output, result.output


@pytest.mark.bwrap
@needs_bwrap
def test_repeat_counts_every_attempt_and_resume_adds_none(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--provider", "mock", "--limit", "2", "--repeat", "3", "--out", str(out)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    conf = json.loads((out / "summary.json").read_text())["configurations"][0]
    spread = conf["repeats"]
    assert (spread["repeats"], spread["tasks"], spread["attempts"]) == (3, 2, 6)
    assert conf["tasks"] == 6
    assert len(spread["success_rate_by_repeat"]) == 3
    lo, hi = spread["pooled_wilson_ci95"]
    assert 0.0 <= lo <= conf["success_rate"] <= hi <= 1.0
    assert spread["success_rate_std"] is not None
    assert spread["ci_method"].startswith("Student t")
    rows = (out / "results.csv").read_text().splitlines()
    assert len(rows) == 1 + 6
    assert all(",True," in r for r in rows[1:])
    assert "<h2>Repeats</h2>" in (out / "summary.html").read_text()
    again = CliRunner().invoke(main, ["sweep", "--resume", str(out)], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert len((out / "results.csv").read_text().splitlines()) == 1 + 6  # nothing run twice


def test_repeats_are_the_first_finished_attempts_never_interrupted_ones() -> None:
    import pandas as pd

    from agbench.metrics.outcomes import counted_attempts
    from agbench.metrics.repeats import repeat_spread, repeats_of

    statuses = ["success", "interrupted", "verification_failed", "success", "success"]
    frame = pd.DataFrame(
        {
            "device": "d",
            "architecture": "LO",
            "concurrency": 1,
            "task": "t",
            "attempt": [1, 2, 3, 4, 5],
            "status": statuses,
            "t_start": 0.0,
            "t_end": 1.0,
        }
    )
    counted = counted_attempts(frame, repeats=3)
    assert list(counted["attempt"]) == [1, 3, 4]
    assert list(counted["repeat"]) == [1, 2, 3]
    assert list(counted_attempts(frame)["attempt"]) == [5]  # without --repeat: the last one
    spread = repeat_spread(counted)
    assert spread["success_rate_by_repeat"] == [1.0, 0.0, 1.0]
    assert spread["tasks_sometimes_solved"] == 1
    assert repeats_of({"options": {"repeat": 3}}) == 3
    assert repeats_of({}) == 1


def test_mock_provider_answers_a_same_as_target_judge_with_valid_json() -> None:
    from agbench.live.judge.client import REQUEST_MARK

    mock = MockProvider(load_suite()[:1])
    request = {"answer": "42 apples", "rubric": "must include: 42", "instruction": "count"}
    message = {"role": "user", "content": "grade this\n" + REQUEST_MARK + json.dumps(request)}
    verdict = json.loads(mock.reply({"messages": [message]})["content"])
    assert verdict["pass"] is True
    assert verdict["score"] == 1.0
