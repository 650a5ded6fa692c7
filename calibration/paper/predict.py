"""The paper scenarios' predicted matrix: both devices x LO, CO, HCL, HLL x C = 1, 2, 4, 8.

``python -m agbench.calibration.paper.predict [--out DIR]`` runs ``agbench.sim.run_matrix`` for
``paper-rtx5090`` and ``paper-max395`` (one run directory each, the same code path as
``agbench sim --scenario paper-rtx5090 --concurrency 1,2,4,8 --archs LO,CO,HCL,HLL
--fresh-servers``) and
prints one row per configuration, read from each run's ``summary.json``. C = 1 is the fit;
C = 2, 4, 8 are the predictions.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click
import pandas as pd

from agbench.calibration.paper.figures import FAILURES
from agbench.calibration.paper.ranges import RANGED, paper_ranges, ranged_text, with_ranges
from agbench.calibration.paper.table import row_of
from agbench.calibration.paper.targets import ARCHS, DEVICES
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.results import read_run_summary
from agbench.sim import run_matrix
from agbench.status import Status

CONCURRENCY = (1, 2, 4, 8)


def predict(
    out_root: Path | None = None,
    concurrency: tuple[int, ...] = CONCURRENCY,
    archs: tuple[str, ...] = ARCHS,
    seed: int = 0,
) -> pd.DataFrame:
    """Simulate both paper scenarios' matrices; one row per (device, arch, C).

    ``out_root``: where the two run directories go (``<out_root>/<scenario>``); a temporary
    directory (removed afterwards) when None.
    """
    with tempfile.TemporaryDirectory(prefix="agbench-paper-") as tmp:
        root = Path(out_root) if out_root is not None else Path(tmp)
        rows: list[dict[str, Any]] = []
        for scenario in DEVICES:
            run_dir = run_matrix(
                scenario,
                archs=[Architecture(a) for a in archs],
                concurrency=list(concurrency),
                seed=seed,
                out_dir=root / scenario,
                # the paper's runs were no agbench sweep: nothing says a configuration found the
                # server the one before it left, so each starts on fresh servers
                fresh_servers=True,
            )
            summary = read_run_summary(run_dir / "summary.json")
            rows += [row_of(scenario, e) for e in summary.configurations]
    order = {a: i for i, a in enumerate(ARCHS)}
    frame = pd.DataFrame(rows)
    frame["_a"] = frame["arch"].map(order)
    return (
        frame.sort_values(["scenario", "_a", "C"], ascending=[False, True, True])
        .drop(columns="_a")
        .reset_index(drop=True)
    )


def _series(frame: pd.DataFrame, device: str, arch: str, column: str, fmt: str) -> str:
    rows = frame[(frame["device"] == device) & (frame["arch"] == arch)].sort_values("C")
    parts = []
    for _, r in rows.iterrows():
        v = r[column]
        parts.append("n/a" if v is None or pd.isna(v) else format(v, fmt))
    return " / ".join(parts)


def statement(frame: pd.DataFrame) -> str:
    """The predictions in plain words (markdown), one paragraph per device.

    Every number is read from ``frame`` (``predict()``), so the notebook's text and its
    tables cannot disagree."""
    levels = sorted(frame["C"].unique())
    head = "C = " + " / ".join(str(c) for c in levels)
    lines = [
        f"Figures are given as {head}. C = 1 is the calibrated fit; the rest are predictions. "
        "Mean completion is over the tasks all four architectures solved in that device x C "
        "cell (n/a: no task was solved by all four).",
        "",
    ]
    for device in frame["device"].unique():
        lines.append(f"**{device}**")
        lines.append("")
        for arch in ARCHS:
            rows = frame[(frame["device"] == device) & (frame["arch"] == arch)].sort_values("C")
            if rows.empty:
                continue
            top = rows.iloc[-1]
            failures = {f: int(top[f.value]) for f in FAILURES[:3]}
            worst = max(failures, key=lambda f: failures[f])
            lines.append(
                f"- **{arch}**: success {_series(frame, device, arch, 'success', 'd')} of 60; "
                f"suite time {_series(frame, device, arch, 'suite_h', '.1f')} h; "
                f"goodput {_series(frame, device, arch, 'goodput_per_h', '.1f')} tasks/h; "
                f"mean completion on tasks all four solved {_series(frame, device, arch, 'completion_min', '.1f')} min; "
                f"at C = {int(top['C'])} the failures are {failures[Status.CONTEXT_LIMIT]} context-limit, "
                f"{failures[Status.TIMEOUT]} timeout, {failures[Status.VERIFICATION_FAILED]} verification "
                f"(mostly {worst.replace('_', '-')})"
                + (
                    f", and the local server refused {int(top['local_context_errors'])} requests for "
                    "context, which the lead agent absorbed or which ended the task"
                    if arch in ("HCL", "HLL") and int(top["local_context_errors"])
                    else ""
                )
                + "; cloud cost "
                f"{_series(frame, device, arch, 'cloud_cost_usd', '.2f')} USD, exposure "
                f"{_series(frame, device, arch, 'exposure', '.0%')}."
            )
        lines.append("")
    return "\n".join(lines)


@click.command(help=__doc__.split("\n")[0])
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the run directories under DIR.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Simulator seed.")
@click.option(
    "--draws",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Draws of each device's [uncertainty] assumptions: a range per figure (0: off).",
)
@click.option(
    "--refits",
    type=click.IntRange(min=0),
    default=None,
    show_default="every shipped refit",
    help="Refits on other task draws (paper-refits/) for a range over C = 1 fits, each judged "
    "at C = 1 first (about one paper check each; 0: off).",
)
@click.option(
    "--orders",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Other random task orders (the paper's is not published): a range per figure (0: off).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    show_default="one a usable core",
    help="Processes the refits are simulated on.",
)
def cli(
    out: Path | None, seed: int, draws: int, refits: int | None, orders: int, workers: int | None
) -> None:
    try:
        frame = predict(out, seed=seed)
        ranges = (
            paper_ranges(draws, CONCURRENCY, seed, refits, orders, workers=workers)
            if draws or refits != 0 or orders
            else None
        )
    except AgbenchError as exc:
        raise click.ClickException(str(exc)) from None
    cols = [
        "device",
        "arch",
        "C",
        "success",
        *(f.value for f in FAILURES[:3]),
        "suite_h",
        "goodput_per_h",
        "completion_min",
        "cloud_cost_usd",
        "exposure",
        "local_model_min",
    ]
    with pd.option_context("display.width", 200, "display.max_rows", 100):
        click.echo(frame[cols].round(2).to_string(index=False))
    if ranges is None:
        return
    ranged = with_ranges(frame, ranges)
    if ranges.assumption_draws:
        _echo_ranges(
            ranged,
            "",
            f"90 % ranges over {ranges.assumption_draws} draws of the devices' stated assumptions\n"
            "(a range over assumptions, not a calibrated interval; *: the point lies outside it):",
        )
    if ranges.refits_accepted:
        _echo_ranges(
            ranged,
            "fit_",
            f"ranges over {len(ranges.refits_accepted) + 1} C = 1 fits, the lowest and highest: the "
            "shipped one and the refits the published figures accept, devices at their stated "
            "values (*: the point lies outside it):",
        )
    click.echo(ranges.fit_note())
    if ranges.order_draws:
        _echo_ranges(
            ranged,
            "order_",
            f"90 % ranges over {ranges.order_draws} other task orders (the shipped fit, the devices' "
            "stated values; the paper's order is not published; *: the point lies outside it):",
        )
    click.echo(f"method: {ranges.method}; not drawn: {'; '.join(ranges.not_drawn)}")


def _echo_ranges(ranged: pd.DataFrame, prefix: str, header: str) -> None:
    """One range table: each ranged figure as ``point [p05, p95]`` from the ``prefix`` range."""
    shown = ranged[["device", "arch", "C"]].copy()
    for col in RANGED:
        shown[col] = ranged_text(ranged, col, 0 if col == "success" else 2, prefix=prefix)
    click.echo("")
    click.echo(header)
    with pd.option_context("display.width", 250, "display.max_rows", 100):
        click.echo(shown.to_string(index=False))


def main(argv: list[str] | None = None) -> int:
    """Run the command line (``argv`` None: ``sys.argv``); returns the exit status."""
    try:
        cli.main(args=argv, prog_name="python -m agbench.calibration.paper.predict")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


__all__ = ["CONCURRENCY", "FAILURES", "cli", "main", "predict", "row_of", "statement"]

if __name__ == "__main__":
    raise SystemExit(main())
