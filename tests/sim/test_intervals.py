"""``agbench sim --draws N``: intervals per figure, labelled by source, and never made up."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agbench.calibration.intervals import DEFAULT_DRAWS, default_draws, draw_plan
from agbench.calibration.sim_intervals import run_matrix_with_intervals
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.results import read_run_summary
from agbench.results.intervals import (
    INTERVALS_FILE,
    interval_cell,
    interval_note,
    interval_table,
    plain_number,
)
from agbench.sim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
ARCHS = [Architecture.LO, Architecture.CO]


def _run(tmp: Path, name: str, scenario: str = "paper-rtx5090", **kw: object) -> Path:
    return run_matrix_with_intervals(
        scenario,
        archs=ARCHS,
        concurrency=[1, 4],
        out_dir=tmp / name,
        limit=3,
        **kw,  # type: ignore[arg-type]
    )


def _without_ids(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    for conf in data["configurations"]:
        conf.pop("intervals", None)
    meta = data["meta"]
    for key in ("run_id", "created", "finished", "sim"):
        meta.pop(key, None)
    data.pop("run_id")
    data.pop("run_dir")
    return data


def test_draws_leave_the_point_prediction_alone_and_add_assumption_ranges(tmp_path: Path) -> None:
    plain = _run(tmp_path, "plain", draws=0)
    drawn = _run(tmp_path, "drawn", draws=4)
    assert not (plain / INTERVALS_FILE).exists()
    assert all(
        "intervals" not in c for c in json.loads((plain / "summary.json").read_text())["configurations"]
    )
    assert _without_ids(plain / "summary.json") == _without_ids(drawn / "summary.json")
    summary = read_run_summary(drawn / "summary.json")
    lo = summary.configuration("LO", 4)
    assert lo.intervals is not None
    assert lo.intervals.available
    assert lo.intervals.kind == "assumptions"
    assert lo.intervals.draws == 4
    assert "not a calibrated interval" in lo.intervals.method
    assert any(d.startswith("device.bandwidth_efficiency in [0.55, 0.75]") for d in lo.intervals.drawn)
    band = lo.intervals.metrics["suite_wall_s"]
    assert band.p05 < band.p95  # the local server's speed moves a local-only suite
    assert band.point_inside is not None
    cell = interval_cell(lo, "suite_wall_s", lambda v: f"{v:,.0f}")
    assert cell.startswith(f"{lo.suite_wall_s:,.0f} [assumed ")
    assert "not a calibrated interval" in interval_note(lo)
    row = interval_table(summary.configurations)[1]
    assert row["architecture"] == "LO"
    assert row["concurrency"] == "4"
    assert "[assumed " in row["suite_wall_s"]
    # The report's configuration table shows the ranges, says what they are, and marks points
    # outside their own range; without draws the page has none of it.
    page = (drawn / "summary.html").read_text()
    assert f"{plain_number(lo.suite_wall_s)} [assumed " in page
    assert "not a calibrated interval" in page
    assert "the point lies outside it" in page
    assert "[assumed " not in (plain / "summary.html").read_text()
    assert not lo.intervals.model_extra  # every key the writer writes is declared
    assert not band.model_extra
    schema = json.loads((ROOT / "docs" / "summary.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads((drawn / "summary.json").read_text()))


def test_no_source_of_uncertainty_says_so_instead_of_a_band(tmp_path: Path) -> None:
    run = _run(tmp_path, "none", scenario="this-machine-smollm2", draws=3)
    summary = read_run_summary(run / "summary.json")
    for conf in summary.configurations:
        assert conf.intervals is not None
        assert not conf.intervals.available
        assert conf.intervals.kind == "none"
        assert "no calibration data" in conf.intervals.reason
        assert not conf.intervals.metrics
        assert interval_cell(conf, "suite_wall_s") == plain_number(conf.suite_wall_s)
    assert default_draws(load_scenario("this-machine-smollm2")) == 0
    assert default_draws(load_scenario("paper-rtx5090")) == 0  # assumption ranges: when asked


def _calibrated_overlay(tmp_path: Path) -> Path:
    sc = load_scenario("this-machine-smollm2")
    rates = sc.profile.server.rates
    assert rates is not None
    base = {"decode_step_s": rates.decode_step_s, "prefill_tok_s": rates.prefill_tok_s}
    boot = [{k: v * f for k, v in base.items()} for f in (0.9, 1.0, 1.1, 1.2)]
    lines = ["[fit.server_profile]", 'path = "synthetic"', "bootstrap = ["]
    lines += ["  { " + ", ".join(f"{k} = {v!r}" for k, v in b.items()) + " }," for b in boot]
    lines += ["]", "[fit.server_profile.noise]", "decode_rel_sd = 0.02", "prefill_rel_sd = 0.02"]
    path = tmp_path / "calibrated.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_calibrated_profile_with_bootstrap_data_draws_by_default(tmp_path: Path) -> None:
    overlay = _calibrated_overlay(tmp_path)
    sc = load_scenario("this-machine-smollm2").with_profile(overlay)
    assert default_draws(sc) == DEFAULT_DRAWS
    plan = draw_plan(sc, 5)
    assert plan.kind == "calibrated"
    assert len(plan.overlays) == 5
    assert "decode_step_s" in plan.drawn
    run = _run(tmp_path, "cal", scenario="this-machine-smollm2", profile=overlay, draws=5)
    conf = read_run_summary(run / "summary.json").configuration("LO", 4)
    assert conf.intervals is not None
    assert conf.intervals.kind == "calibrated"
    assert (
        conf.intervals.metrics["time_breakdown_s.local_model"].p05
        < conf.intervals.metrics["time_breakdown_s.local_model"].p95
    )
    assert any("turns and tokens" in n for n in conf.intervals.not_drawn)
    assert any(n.startswith("timing jitter") for n in conf.intervals.drawn)


def test_uncertainty_ranges_must_hold_their_point_and_cite_a_source(tmp_path: Path) -> None:
    src = (ROOT / "sim" / "scenarios" / "paper-rtx5090.toml").read_text()
    base = tmp_path / "s.toml"
    shared = ROOT / "sim" / "scenarios" / "shared"
    src = src.replace('include = ["shared/', 'include = ["' + str(shared) + "/").replace(
        '"shared/', '"' + str(shared) + "/"
    )
    base.write_text(src.replace("bandwidth_efficiency = [0.55, 0.75]", "bandwidth_efficiency = [0.7, 0.8]"))
    with pytest.raises(AgbenchError, match=r"leaves out its stated value 0\.66"):
        load_scenario(base)
    base.write_text(src.replace('spec_step_overhead = "ASSUMPTION', 'other = "ASSUMPTION'))
    with pytest.raises(AgbenchError, match=r"no source for server\.spec_step_overhead"):
        load_scenario(base)
