"""summary.html in a real headless browser (Chromium from the Debian packages the Makefile
installs): the page renders, logs nothing to the console and requests nothing from the network.

Chromium's own console log (``--enable-logging=stderr``) prints every console message of the
page, errors and CSP refusals included; its net log records every request, and the requests
the page made are the ones whose network isolation key is the page's own ``file://`` origin
(Chromium's background traffic, update checks and the like, has another key). A page that
does load something and does log something is checked too, so the check is known to see them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from agbench.records import TaskRun
from agbench.report import write_reports
from agbench.store import AttemptKey, RunStore

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,  # a real Chromium per test
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (make system-packages installs it)"
    ),
]
_FLAGS = [
    "--headless",
    "--no-sandbox",  # tests run as root in CI containers
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing resolves: a leak cannot reach anything
    "--enable-logging=stderr",
    "--v=0",
]
_CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]? ?(.*)")

# Real tasks of the built-in suite, four categories, so the radar, the names and the credits
# come from the suite itself.
_ROWS = [
    ("calc-fuel-consumption", "calculation", "success", True, "consumption=5.72 l/100 km"),
    ("lf-next-dentist", "local_files", "verification_failed", True, "answer date 2024-05-14 is wrong"),
    ("term-error-summary", "terminal", "success", False, "tool web_fetch not exposed; solved anyway"),
    ("rt-plant-watering", "retrieval", "failed_grader", True, "judge_parse_error: no JSON object"),
]


@dataclass
class BrowserResult:
    dom: str
    console: list[str]
    page_requests: list[str]


def open_in_chromium(page: Path, work: Path) -> BrowserResult:
    """Load ``page`` headless; its DOM, console messages and the network requests it made."""
    assert CHROMIUM is not None
    net_log = work / "net.json"
    proc = subprocess.run(
        [
            CHROMIUM,
            *_FLAGS,
            f"--user-data-dir={work / 'profile'}",
            f"--log-net-log={net_log}",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [m.group(1) for line in proc.stderr.splitlines() if (m := _CONSOLE.search(line))]
    log = json.loads(net_log.read_text(encoding="utf-8"))
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    requests = [
        str(e["params"]["url"])
        for e in log["events"]
        if e["type"] == start_job
        and "file://" in str(e.get("params", {}).get("network_isolation_key", ""))
        and not str(e["params"].get("url", "")).startswith(("file:", "data:"))
    ]
    return BrowserResult(proc.stdout, console, requests)


def make_suite_run(root: Path) -> Path:
    meta = {
        "source": "live",
        "run_id": "browser-run",
        "agent_kind": "model",
        "device": "box",
        "backend": "bwrap",
        "local": {"model": "smollm2-135m", "managed": True, "url": None},
        "cloud": {"model": "cloud-standin", "standin": True, "url": None},
        "judge": {"provider": "same-as-target", "model": "smollm2-135m", "exposure_judge": True},
    }
    store = RunStore.create(root, meta)
    t = 0.0
    for arch in ("LO", "CO"):
        for task, category, status, full, reason in _ROWS:
            key = AttemptKey.parse("r", f"box|{arch}|1|{task}|1")
            with store.attempt_writer(key) as journal:
                journal.write(
                    TaskRun(
                        **key.ids(),
                        agent_kind="model",
                        category=category,
                        t_start=t,
                        t_end=t + 5.0,
                        status=status,
                        reward=1.0 if status == "success" else 0.0,
                        reason=f"{reason} <b>not markup</b>",
                        full_capability=full,
                    )
                )
            t += 5.0
    store.compact()
    # What a judged run leaves beside its traces (live/judge/run_judge.py writes it).
    judged = {
        **AttemptKey.parse("r", "box|LO|1|rt-plant-watering|1").ids(),
        "grading_method": "rubric",
        "status": "failed_grader",
        "judge_raw": ["Looks fine", "Still fine"],
        "judge_parsed": None,
        "judge_error": "judge_parse_error: not JSON",
        "judge_usage": {"calls": 2, "prompt_tokens": 300, "cached_tokens": 0, "completion_tokens": 20},
        "judge_cost_usd": 0.0,
        "exposure": {
            "matcher_items": ["Anna"],
            "judge_items": ["Anna", "+43 660 1234567"],
            "agreement": {"items": 3, "both": 1, "matcher_only": 0, "judge_only": 1, "neither": 1},
            "payloads": [],
            "judge_errors": 0,
        },
    }
    (root / "judgements.jsonl").write_text(json.dumps(judged) + "\n")
    return root


def test_summary_html_renders_offline_without_console_errors(tmp_path: Path) -> None:
    run = make_suite_run(tmp_path / "run")
    write_reports([run])
    result = open_in_chromium(run / "summary.html", tmp_path)
    assert result.console == []
    assert result.page_requests == []
    dom = result.dom
    assert "<h1>agbench run browser-run</h1>" in dom
    for heading in (
        "Target, judge, sandbox and assets",
        "Judge",
        "Category radar",
        "Benchmark scores",
        "Task results",
        "Credits, citations and licences",
        "Run metadata",
    ):
        assert f"<h2>{heading}</h2>" in dom
    radar = dom.split("<h2>Category radar</h2>")[1].split("<h2>")[0]
    assert "<svg" in radar
    assert "retrieval" in radar
    # The score table: a row per category, model-valid rows only (terminal lacked a tool on
    # both configurations, retrieval's grader failed: neither enters the model score).
    scores = dom.split("<h2>Benchmark scores</h2>")[1].split("</table>")[0]
    assert re.search(r"calculation</td><td>100\.0%</td><td>2 / 2</td><td class=\"l\">program", scores)
    assert re.search(r"local_files</td><td>0\.0%</td><td>0 / 2</td>", scores)
    assert re.search(r"terminal</td><td>—</td><td>0 / 0</td>", scores)
    tasks = dom.split("<h2>Task results</h2>")[1].split("</table>")[0]
    assert "calc-fuel-consumption" in tasks
    assert "fuel log" in tasks
    assert "judge_parse_error" in tasks
    assert "partial" in tasks
    assert "&lt;b&gt;not markup" in tasks  # reasons are escaped, not rendered
    credits = dom.split("<h2>Credits, citations and licences</h2>")[1]
    for source in ("agbench-60", "GAIA", "TUA-Bench", "Terminal-Bench 2", "SmolLM2", "Apache-2.0"):
        assert source in credits
    judge = dom.split("<h2>Judge</h2>")[1].split("<h2>")[0]
    assert "judge parse errors" in judge
    assert "66.7%" in judge
    graded = [json.loads(line) for line in (run / "graded_results.jsonl").open()]
    judged = [g for g in graded if g["task"] == "rt-plant-watering" and g["architecture"] == "LO"]
    assert judged[0]["judge_raw"] == ["Looks fine", "Still fine"]
    assert judged[0]["grading_method"] == "rubric"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["judge"]["parse_errors"] == 1
    assert summary["judge"]["exposure"]["judge_only"] == 1
    assert summary["totals"]["model_score_valid_tasks_only"] != summary["totals"]["score_valid_tasks_only"]


def test_the_check_sees_console_messages_and_network_requests(tmp_path: Path) -> None:
    """A page with a script that logs and an image from the network fails both checks."""
    page = tmp_path / "leaky.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
        "<img src='http://cdn.example.invalid/logo.png'>"
        "<script>console.error('boom')</script></body></html>",
        encoding="utf-8",
    )
    result = open_in_chromium(page, tmp_path)
    assert any("boom" in m for m in result.console)
    assert result.page_requests == ["http://cdn.example.invalid/logo.png"]
