"""Does the C = 1 simulation of the paper scenarios reproduce the paper's C = 1 figures?

``python -m agbench.calibration.paper.check`` simulates both shipped paper scenarios
(``paper-rtx5090``, ``paper-max395``) at concurrency 1 for LO, CO, HCL and HLL, computes the
figures through the official metrics code path (``agbench.metrics.summarize``), prints one row
per published figure (target, simulated, error, within bound) and exits 1 when a bounded
figure misses its bound (success +-2, mean completion and LO/CO suite time +-10 %). Soft
figures are printed for information only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import click

from agbench.calibration.paper.targets import ARCHS, DEVICES, TARGETS, Target
from agbench.calibration.validation import records_to_tables
from agbench.errors import AgbenchError
from agbench.metrics import summarize
from agbench.results import RunSummary
from agbench.sim import load_scenario, simulate


@dataclass(frozen=True)
class CheckRow:
    target: Target
    simulated: float | None
    error: float | None  # count: simulated - paper; otherwise (simulated / paper - 1)
    within: bool | None  # None: a soft figure (not enforced)

    @property
    def error_text(self) -> str:
        if self.error is None:
            return "-"
        if self.target.bound == "count" or self.target.metric == "category_success":
            return f"{self.error:+.0f}"
        return f"{self.error * 100:+.1f}%"

    @property
    def bound_text(self) -> str:
        t = self.target
        if t.bound == "count":
            return f"+-{t.tolerance:g}"
        if t.bound == "relative":
            return f"+-{t.tolerance * 100:g}%"
        return "soft"


def c1_summaries(seed: int = 0, archs: tuple[str, ...] = ARCHS) -> dict[str, RunSummary]:
    """scenario -> summary (``summarize``) of its C = 1 simulation."""
    out: dict[str, RunSummary] = {}
    for scenario in DEVICES:
        sc = load_scenario(scenario)
        workload = sc.workload(seed=seed)
        records: list[Any] = []
        for arch in archs:
            records += simulate(sc.profile, arch, 1, seed, workload, run_id=f"check-{scenario}").records
        prices = sc.profile.cloud.prices
        meta = {
            "source": "sim",
            "run_id": f"check-{scenario}",
            "cloud": {"prices": {k: getattr(prices, k) for k in prices.__dataclass_fields__}},
        }
        out[scenario] = summarize(records_to_tables(records), meta)
    return out


def figure_of(summary: RunSummary, t: Target) -> float | None:
    """The simulated value of one published figure, read from a summary."""
    by_arch = {c.architecture.value: c for c in summary.configurations if c.concurrency == 1}
    entry = by_arch.get(t.arch)
    if entry is None:
        return None
    co = by_arch.get("CO")
    tokens = entry.cloud_tokens
    value: Any
    match t.metric:
        case "success":
            value = entry.success
        case "category_success":
            cell = entry.by_category.get(t.category)
            value = cell.success if cell else None
        case "completion_s":
            value = entry.mean_completion_s_common
        case "suite_s":
            value = entry.suite_wall_s
        case "goodput_per_h":
            value = entry.goodput_per_h
        case "local_wait_s_per_task":
            value = entry.time_breakdown_s.local_model
        case "cloud_calls":
            value = entry.cloud_calls
        case "cloud_uncached_share":
            prompt = tokens.prompt
            value = (prompt - tokens.cached) / prompt if prompt else None
        case "cloud_output_vs_co" | "cloud_input_vs_co":
            kind = "completion" if t.metric == "cloud_output_vs_co" else "prompt"
            base = getattr(co.cloud_tokens, kind) if co else 0
            value = getattr(tokens, kind) / base if base else None
        case "exposure":
            value = entry.exposure_ratio
        case _:
            value = None
    return None if value is None else float(value)


def judge(t: Target, value: float | None) -> CheckRow:
    if value is None or not math.isfinite(value):
        return CheckRow(t, value, None, False if t.bound != "soft" else None)
    if t.bound == "count" or t.metric == "category_success":
        error = value - t.value
    else:
        error = value / t.value - 1.0 if t.value else value
    if t.bound == "count":
        within: bool | None = abs(error) <= t.tolerance + 1e-9
    elif t.bound == "relative":
        within = abs(error) <= t.tolerance + 1e-9
    elif t.metric == "cloud_input_vs_co":  # published only as "fewer than CO's"
        within = None
        error = value - 1.0
    else:
        within = None
    return CheckRow(t, value, error, within)


def reproduction(seed: int = 0) -> list[CheckRow]:
    """One row per published C = 1 figure, simulated with the shipped scenarios."""
    summaries = c1_summaries(seed)
    return [judge(t, figure_of(summaries[t.device], t)) for t in TARGETS]


def failed(rows: list[CheckRow]) -> list[CheckRow]:
    return [r for r in rows if r.within is False]


def _fmt(t: Target, v: float | None) -> str:
    if v is None:
        return "-"
    if t.metric in ("completion_s", "local_wait_s_per_task"):
        return f"{v / 60:.2f} min"
    if t.metric == "suite_s":
        return f"{v / 3600:.2f} h"
    if t.metric in ("exposure", "cloud_uncached_share"):
        return f"{v * 100:.1f}%"
    if t.metric in ("success", "category_success", "cloud_calls"):
        return f"{v:.0f}"
    return f"{v:.3g}"


def table(rows: list[CheckRow]) -> str:
    head = f"{'figure':46s} {'paper':>10s} {'simulated':>10s} {'error':>8s} {'bound':>6s}  within"
    lines = [head, "-" * len(head)]
    for r in rows:
        within = "soft" if r.within is None else ("yes" if r.within else "NO")
        lines.append(
            f"{r.target.label:46s} {_fmt(r.target, r.target.value):>10s} {_fmt(r.target, r.simulated):>10s} "
            f"{r.error_text:>8s} {r.bound_text:>6s}  {within}"
        )
    return "\n".join(lines)


@click.command(help=__doc__.split("\n")[0])
@click.option("--seed", type=int, default=0, show_default=True, help="Simulator seed.")
def cli(seed: int) -> None:
    try:
        rows = reproduction(seed)
    except AgbenchError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(table(rows))
    missed = failed(rows)
    bounded = [r for r in rows if r.within is not None]
    click.echo(f"\n{len(bounded) - len(missed)}/{len(bounded)} bounded figures within their bounds")
    for r in missed:
        click.echo(f"MISSED: {r.target.label}: paper {r.target.value:g}, simulated {r.simulated}", err=True)
    if missed:
        raise SystemExit(1)


def main(argv: list[str] | None = None) -> int:
    """Run the command line (``argv`` None: ``sys.argv``); returns the exit status."""
    try:
        cli.main(args=argv, prog_name="python -m agbench.calibration.paper.check")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


__all__ = ["CheckRow", "c1_summaries", "cli", "failed", "figure_of", "judge", "main", "reproduction", "table"]

if __name__ == "__main__":
    raise SystemExit(main())
