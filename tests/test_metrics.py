"""Metrics against hand-computed fixtures, plus properties that must hold for any run."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agbench.config import PriceTable
from agbench.errors import RunDirError
from agbench.metrics import summarize, summarize_run
from agbench.metrics.outcomes import common_success_tasks, counted_attempts
from agbench.records import TABLES, Exposure, ModelCall, ServerSample, TaskRun, to_row
from agbench.store import AttemptKey, RunStore

DEV = "box"


def summary_document(tables: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """summary.json as written: the typed summary's JSON document."""
    return summarize(tables, meta).to_json_dict()


def run(arch: str, task: str, attempt: int, t0: float, t1: float, status: str, **kw: Any) -> TaskRun:
    fields = {"category": "local_files", "agent_kind": "replay", **kw}
    return TaskRun(
        "r", DEV, arch, 1, task=task, attempt=attempt, t_start=t0, t_end=t1, status=status, **fields
    )


def call(
    arch: str, task: str, attempt: int, endpoint: str, ttft: float, tok_s: float, **kw: Any
) -> ModelCall:
    return ModelCall(
        "r", DEV, arch, 1, task, attempt, agent=endpoint, endpoint=endpoint, call_id=f"{task}-{ttft}", t_start=0.0,
        ttft_s=ttft, output_tok_s=tok_s, **kw,
    )  # fmt: skip


def expose(arch: str, task: str, attempt: int, item: str) -> Exposure:
    return Exposure("r", DEV, arch, 1, task, attempt, item=item, t_first=0.0, where="request")


def frames(records: list[Any]) -> dict[str, pd.DataFrame]:
    """Trace tables as RunStore.tables() returns them, built in memory."""
    rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    for rec in records:
        rows[rec.TABLE].append(to_row(rec))
    return {
        t: pd.DataFrame(r, columns=[f.name for f in dataclasses.fields(TABLES[t])]) for t, r in rows.items()
    }


def fixture_records() -> list[Any]:
    """Two architectures in one device × C cell; every figure below is worked out by hand."""
    return [
        # LO: t1 retried (attempt 1 failed, attempt 2 counts), t2 interrupted then failed,
        # t3 solved without full capability, t4 a setup failure.
        run("LO", "t1", 1, -100, -90, "execution_error"),
        run("LO", "t1", 2, 0, 10, "success", local_model_s=6, tools_s=2, other_s=2, sensitive_total=2),
        run("LO", "t2", 1, 5, 8, "interrupted"),
        run(
            "LO",
            "t2",
            2,
            10,
            30,
            "verification_failed",
            local_model_s=10,
            sensitive_total=1,
            local_context_errors=1,
        ),
        run("LO", "t3", 1, 30, 40, "success", category="calculation", local_model_s=4, full_capability=False),
        run("LO", "t4", 1, 40, 41, "failed_sandbox", category="calculation"),
        call("LO", "t1", 2, "local", 0.1, 10.0),
        call("LO", "t1", 2, "local", 0.2, 20.0),
        call("LO", "t3", 1, "local", 0.3, 30.0),
        call("LO", "t3", 1, "local", 0.4, 40.0),
        call("LO", "t2", 1, "local", 100.0, 1.0),  # interrupted attempt: never counted
        call("LO", "t1", 1, "local", 50.0, 1.0),  # superseded attempt: never counted
        ServerSample("r", DEV, "LO", 1, "local", t=1.0, kv_used=100, kv_total=1000),
        ServerSample("r", DEV, "LO", 1, "local", t=2.0, kv_used=500, kv_total=1000),
        # CO: solves t1 and t2, t3 hits the context limit.
        run(
            "CO",
            "t1",
            1,
            0,
            20,
            "success",
            cloud_model_s=15,
            cloud_prompt_tokens=1000,
            cloud_cached_tokens=400,
            cloud_completion_tokens=100,
            cloud_cost_usd=0.01,
            cloud_calls=3,
            sensitive_total=2,
        ),
        run(
            "CO",
            "t2",
            1,
            20,
            25,
            "success",
            cloud_model_s=5,
            cloud_prompt_tokens=2000,
            cloud_completion_tokens=200,
            cloud_cost_usd=0.02,
            cloud_calls=2,
            sensitive_total=1,
        ),
        run(
            "CO",
            "t3",
            1,
            25,
            45,
            "context_limit",
            category="calculation",
            cloud_cost_usd=0.005,
            cloud_calls=1,
            sensitive_total=1,
        ),
        call("CO", "t1", 1, "cloud", 1.0, 50.0, error_class=""),
        call("CO", "t3", 1, "cloud", 3.0, 70.0, error_class="context_limit"),
        expose("CO", "t1", 1, "alice@example.com"),
        expose("CO", "t1", 1, "alice@example.com"),  # the same item again: counted once
        expose("CO", "t2", 1, "hunter2"),
    ]


def by_arch(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["architecture"]: c for c in summary["configurations"]}


def test_hand_computed_outcomes() -> None:
    summary = summary_document(frames(fixture_records()), {"source": "live", "run_id": "r"})
    lo, co = by_arch(summary)["LO"], by_arch(summary)["CO"]
    assert [c["architecture"] for c in summary["configurations"]] == ["LO", "CO"]
    assert (lo["tasks"], lo["success"]) == (4, 2)
    assert (co["tasks"], co["success"]) == (3, 2)
    assert lo["suite_wall_s"] == 41.0  # counted attempts only: 0 → 41
    assert lo["goodput_per_h"] == pytest.approx(2 / (41 / 3600))
    assert co["suite_wall_s"] == 45.0
    # LO solved {t1, t3}, CO solved {t1, t2}: only t1 is common.
    assert lo["mean_completion_s_common"] == 10.0
    assert co["mean_completion_s_common"] == 20.0
    assert lo["common_success_tasks"] == 1
    assert lo["by_category"]["local_files"] == {"tasks": 2, "success": 1, "success_rate": 0.5}
    assert lo["by_category"]["calculation"] == {"tasks": 2, "success": 1, "success_rate": 0.5}
    assert lo["failures"]["verification_failed"] == 1
    assert lo["failures"]["failed_sandbox"] == 1
    assert lo["failures"]["execution_error"] == 0  # the superseded attempt does not count
    assert co["failures"]["context_limit"] == 1
    assert "interrupted" not in lo["failures"]
    assert "success" not in lo["failures"]
    assert lo["time_breakdown_s"] == {"local_model": 5.0, "cloud_model": 0.0, "tools": 0.5, "other": 0.5}
    assert lo["time_breakdown_total_s"]["local_model"] == 20.0
    assert lo["local_context_errors"] == 1
    assert summary["totals"]["interrupted_attempts"] == 1


def test_hand_computed_scores() -> None:
    lo = by_arch(summary_document(frames(fixture_records()), {}))["LO"]
    assert lo["raw_score_all_tasks"] == 0.5  # 2 of 4
    assert lo["score_valid_tasks_only"] == pytest.approx(2 / 3)  # the setup failure dropped
    assert lo["model_score_valid_tasks_only"] == 0.5  # t3 lacked full capability: t1, t2 left


def test_hand_computed_cloud_cost_and_exposure() -> None:
    meta = {
        "cloud": {"prices": {"cached_input_per_m": 1.0, "uncached_input_per_m": 10.0, "output_per_m": 100.0}}
    }
    co = by_arch(summary_document(frames(fixture_records()), meta))["CO"]
    assert co["cloud_cost_usd"] == pytest.approx(0.035)
    assert co["cloud_cost_successful_usd"] == pytest.approx(0.03)
    assert co["cloud_cost_failed_usd"] == pytest.approx(0.005)
    assert co["cloud_calls"] == 6
    assert co["cloud_cost_breakdown_usd"] == pytest.approx(
        {"cached_input": 400 * 1.0 / 1e6, "uncached_input": 2600 * 10.0 / 1e6, "output": 300 * 100.0 / 1e6}
    )
    assert (co["sensitive_exposed"], co["sensitive_total"]) == (2, 4)
    assert co["exposure_ratio"] == 0.5
    lo = by_arch(summary_document(frames(fixture_records()), {}))["LO"]
    assert lo["exposure_ratio"] == 0.0
    assert lo["cloud_cost_breakdown_usd"]["output"] == 0.0
    default = by_arch(summary_document(frames(fixture_records()), {}))["CO"]
    assert default["cloud_cost_breakdown_usd"]["output"] == pytest.approx(PriceTable().cost(0, 0, 300))


def test_hand_computed_serving() -> None:
    summary = summary_document(frames(fixture_records()), {})
    lo, co = by_arch(summary)["LO"], by_arch(summary)["CO"]
    # Only the counted attempts' calls: 0.1 .. 0.4 (not the interrupted 100 s or superseded 50 s).
    assert lo["ttft_p50_s"] == pytest.approx(0.25)
    assert lo["ttft_p95_s"] == pytest.approx(np.percentile([0.1, 0.2, 0.3, 0.4], 95))
    assert lo["output_tok_s_p50"] == pytest.approx(25.0)
    assert lo["serving"]["local"]["calls"] == 4
    assert lo["cloud_ttft_p50_s"] is None
    assert co["cloud_ttft_p50_s"] == pytest.approx(2.0)
    assert co["serving"]["cloud"]["errors"] == {"context_limit": 1}
    assert co["ttft_p50_s"] is None
    assert lo["kv_peak_fraction"] == 0.5
    assert lo["kv_peak_cells"] == 500
    assert co["kv_peak_fraction"] is None


def test_labels_and_secrets_from_meta() -> None:
    meta = {
        "source": "sim",
        "agent_kind": "replay",
        "cloud_standin": True,
        "provider": "mock",
        "labels": ["tiny model"],
        "cloud": {
            "url": "http://127.0.0.1:9",
            "api_key": "sk-secret",
            "api_key_env": "AGBENCH_CLOUD_API_KEY",
        },
    }
    summary = summary_document(frames(fixture_records()), meta)
    assert summary["labels"] == ["tiny model", "cloud stand-in", "mock provider", "simulated"]
    assert summary["agent_kind"] == "replay"
    assert "sk-secret" not in repr(summary)
    assert summary["configurations"][0]["source"] == "sim"


def test_no_finished_task_is_a_run_dir_error() -> None:
    only_interrupted = [run("LO", "t1", 1, 0, 1, "interrupted")]
    with pytest.raises(RunDirError, match="no finished task"):
        summary_document(frames(only_interrupted), {})
    with pytest.raises(RunDirError, match="no finished task"):
        summary_document(frames([]), {})


def test_summarize_run_reads_a_store(tmp_path: Path) -> None:
    """The same figures through a real run directory: journals, compaction, Parquet."""
    store = RunStore.create(tmp_path / "run", {"source": "live", "run_id": "r", "agent_kind": "replay"})
    records = fixture_records()
    writers: dict[tuple[str, str, int], Any] = {}
    for rec in records:
        if isinstance(rec, ServerSample):
            continue
        key = (f"{DEV}|{rec.architecture}|1", rec.task, rec.attempt)
        if key not in writers:
            writers[key] = store.attempt_writer(AttemptKey.parse("r", "|".join(map(str, key))))
        writers[key].write(rec)
    store.append_records([r for r in records if isinstance(r, ServerSample)])
    store.compact()
    from_disk = summarize_run(tmp_path / "run").to_json_dict()
    in_memory = summary_document(frames(records), store.meta())
    assert from_disk["configurations"] == in_memory["configurations"]


# ---- properties -------------------------------------------------------------------------------

STATUSES = [
    "success",
    "success",
    "verification_failed",
    "context_limit",
    "timeout",
    "failed_sandbox",
    "interrupted",
]


@st.composite
def task_runs(draw: st.DrawFn) -> list[TaskRun]:
    entries = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["LO", "CO", "HCL", "HLL"]),
                st.sampled_from([1, 2]),
                st.sampled_from(["t0", "t1", "t2", "t3"]),
                st.sampled_from(STATUSES),
                st.floats(0, 1000, allow_nan=False).map(lambda x: round(x, 6)),  # microseconds
                st.floats(0, 300, allow_nan=False).map(
                    lambda x: round(x, 6)
                ),  # 1e-308 s would overflow goodput
                st.integers(0, 3),
            ),
            min_size=1,
            max_size=30,
        )
    )
    attempts: dict[tuple[str, int, str], int] = {}
    out = []
    for arch, conc, task, status, t0, dur, sensitive in entries:
        n = attempts[(arch, conc, task)] = attempts.get((arch, conc, task), 0) + 1
        out.append(
            TaskRun(
                "r",
                DEV,
                arch,
                conc,
                "replay",
                task,
                "cat-" + task[-1],
                n,
                t0,
                t0 + dur,
                status,
                sensitive_total=sensitive,
                cloud_cost_usd=dur / 1000,
                full_capability=bool(sensitive % 2),
            )
        )
    return out


def _summary_or_none(records: list[Any]) -> dict[str, Any] | None:
    try:
        return summary_document(frames(records), {})
    except RunDirError:
        return None


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_runs())
def test_goodput_times_hours_is_successes(records: list[TaskRun]) -> None:
    summary = _summary_or_none(records)
    if summary is None:
        return
    for conf in summary["configurations"]:
        if conf["suite_wall_s"] > 0:
            assert conf["goodput_per_h"] * conf["suite_wall_s"] / 3600 == pytest.approx(conf["success"])
        else:
            assert conf["goodput_per_h"] == 0.0


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_runs())
def test_rates_are_fractions(records: list[TaskRun]) -> None:
    summary = _summary_or_none(records)
    if summary is None:
        return
    for conf in summary["configurations"]:
        values = [conf["success_rate"], conf["exposure_ratio"], conf["raw_score_all_tasks"]]
        values += [conf["score_valid_tasks_only"], conf["model_score_valid_tasks_only"]]
        values += [c["success_rate"] for c in conf["by_category"].values()]
        assert all(v is None or 0.0 <= v <= 1.0 for v in values)
        assert conf["success"] + sum(conf["failures"].values()) == conf["tasks"]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_runs(), st.sampled_from(["LO", "CO", "HCL", "HLL"]))
def test_common_success_set_never_grows_when_an_architecture_is_added(
    records: list[TaskRun], extra: str
) -> None:
    counted = counted_attempts(frames(records)["task_runs"])
    without = counted[counted["architecture"] != extra]
    if not len(without):
        return
    before = common_success_tasks(without)
    after = common_success_tasks(counted)
    for cell, tasks in before.items():
        assert after[cell] <= tasks


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_runs(), st.lists(st.tuples(st.integers(0, 29), st.floats(0, 5000, allow_nan=False)), max_size=5))
def test_interrupted_attempts_never_change_results(
    records: list[TaskRun], cuts: list[tuple[int, float]]
) -> None:
    baseline = _summary_or_none(records)
    extra: list[Any] = []
    for index, t in cuts:
        base = records[index % len(records)]
        attempt = 100 + len(extra)
        extra.append(
            dataclasses.replace(base, attempt=attempt, t_start=t, t_end=t + 9999, status="interrupted")
        )
        extra.append(call(base.architecture, base.task, attempt, "local", 999.0, 0.5))
        extra[-1] = dataclasses.replace(extra[-1], concurrency=base.concurrency)
        extra.append(
            dataclasses.replace(
                expose(base.architecture, base.task, attempt, "x"), concurrency=base.concurrency
            )
        )
    after = _summary_or_none(records + extra)
    if baseline is None:
        assert after is None
        return
    assert after is not None
    assert after["configurations"] == baseline["configurations"]


def test_tables_without_optional_columns_use_record_defaults() -> None:
    """Hand-built tables (a notebook, an older writer) may carry only the required columns."""
    minimal = pd.DataFrame(
        [
            {"device": DEV, "architecture": "LO", "concurrency": 1, "task": "t1", "category": "c", "attempt": 1,
             "t_start": 0.0, "t_end": 30.0, "status": "success", "agent_kind": "model", "run_id": "r"},
            {"device": DEV, "architecture": "LO", "concurrency": 1, "task": "t2", "category": "c", "attempt": 1,
             "t_start": 30.0, "t_end": 60.0, "status": "timeout", "agent_kind": "model", "run_id": "r"},
        ]
    )  # fmt: skip
    conf = summary_document({"task_runs": minimal}, {})["configurations"][0]
    assert (conf["tasks"], conf["success"], conf["failures"]["timeout"]) == (2, 1, 1)
    assert conf["goodput_per_h"] == pytest.approx(60.0)
    assert conf["cloud_cost_usd"] == 0.0
    assert conf["exposure_ratio"] == 0.0
    assert conf["score_valid_tasks_only"] == 1.0  # the timeout is not a valid row
    assert conf["ttft_p50_s"] is None
    assert conf["kv_peak_fraction"] is None


def test_wilson_interval_matches_the_textbook_values() -> None:
    from agbench.metrics.repeats import wilson_interval

    low, high = wilson_interval(7, 10) or (0.0, 0.0)
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)  # Wilson 95 %, 7 of 10
    low99, high99 = wilson_interval(7, 10, confidence=0.99) or (0.0, 0.0)
    assert low99 < low
    assert high99 > high
    assert wilson_interval(0, 0) is None
