"""Report files of a run: ``summary.json``, ``results.csv``, ``graded_results.jsonl``,
``timeline.json`` and a static ``summary.html``; several runs together also get a comparison.

The writers live in ``agbench.report.writer`` and are loaded on first use: importing a light
submodule (``agbench.report.judgements``, say) must not pull in matplotlib, or every command
that merely records a run would pay seconds of import time before its first request.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REPORT_FILES", "write_reports", "write_run_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from agbench.report import writer

        return getattr(writer, name)
    raise AttributeError(f"module 'agbench.report' has no attribute {name!r}")
