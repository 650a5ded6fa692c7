"""Writing a run's report files (see ``agbench.report``); several runs also get a comparison.

``write_reports`` is what ``agbench report RUN_DIR...`` calls, and what the live runner and
the simulator call when a run ends.
"""

from __future__ import annotations

from pathlib import Path

from agbench.errors import RunDirError
from agbench.metrics.repeats import repeats_of
from agbench.report.html import render
from agbench.report.load import write_load_report
from agbench.report.summary import RunReport, comparison_summary, load_run, run_tags, write_json
from agbench.report.tables import write_graded_results, write_results_csv
from agbench.report.timeline_svg import timeline_svg
from agbench.run_meta import is_load_run
from agbench.store import RUN_META
from agbench.timeline import TIMELINE_FILE, chrome_trace, read_timeline_tables, save_timeline

REPORT_FILES = ("summary.json", "summary.html", "results.csv", "graded_results.jsonl", TIMELINE_FILE)


def write_run_report(report: RunReport, tag: str | None = None) -> list[Path]:
    """(Re)write one run's report files into its directory."""
    root = report.run_dir
    repeats = repeats_of(report.summary.meta)  # --repeat N: every repeat is counted
    written = [
        write_json(report.summary, root / "summary.json"),
        write_results_csv(report.tables["task_runs"], root / "results.csv", repeats),
        write_graded_results(report.tables["task_runs"], root / "graded_results.jsonl", repeats),
    ]
    trace = chrome_trace(read_timeline_tables(root), label=root.name)
    written.append(save_timeline(trace, root))
    page = root / "summary.html"
    page.write_text(
        render(report.summary, [(tag or report.summary.source, report)], timeline=timeline_svg(trace)),
        encoding="utf-8",
    )
    written.append(page)
    return written


def write_reports(run_dirs: list[Path], out_dir: Path | None = None) -> list[Path]:
    """Write every run's reports; with several runs, also a comparison in ``out_dir``.

    ``out_dir`` defaults to ``<first run's parent>/comparison``. Returns the files written.
    Bad input raises ``RunDirError`` (one line) before anything is written.
    """
    if not run_dirs:
        raise RunDirError("no run directory given")
    loads = [Path(d) for d in run_dirs if is_load_run(Path(d))]
    if loads:
        # An open-loop load run has levels, not configurations: its own page, no comparison.
        if len(loads) != len(run_dirs):
            raise RunDirError(f"cannot compare a load run with agent runs: {loads[0]}")
        if out_dir is not None:
            raise RunDirError("--out is where a comparison goes, and load runs are not compared")
        return [p for d in loads for p in write_load_report(d)]
    reports = [load_run(Path(d)) for d in run_dirs]  # every run read before anything is written
    target = _comparison_dir(run_dirs, out_dir)
    written: list[Path] = []
    tags = run_tags(reports)
    for tag, report in zip(tags, reports, strict=True):
        written += write_run_report(report, tag)
    if target is not None:
        summary = comparison_summary(reports)
        written.append(write_json(summary, target / "summary.json"))
        page = target / "summary.html"
        page.write_text(render(summary, list(zip(tags, reports, strict=True))), encoding="utf-8")
        written.append(page)
    return written


def _comparison_dir(run_dirs: list[Path], out_dir: Path | None) -> Path | None:
    """Where the comparison of several runs goes, made before any run's report is rewritten
    (a comparison that cannot be written stops the command with the runs untouched); never a
    run directory, whose own summary it would replace."""
    if len(run_dirs) < 2:
        if out_dir is not None:
            raise RunDirError(
                "--out is where a comparison of several runs goes; one run's report is in its own directory"
            )
        return None
    target = out_dir or Path(run_dirs[0]).parent / "comparison"
    if (target / RUN_META).exists():
        raise RunDirError(f"{target} is a run directory: give the comparison another --out")
    if target.exists() and not target.is_dir():
        raise RunDirError(f"--out {target} is not a directory")
    target.mkdir(parents=True, exist_ok=True)
    return target


__all__ = ["REPORT_FILES", "write_reports", "write_run_report"]
