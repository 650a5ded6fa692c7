"""agbench whatif: spec parsing, memory refusal, Pareto front, bottlenecks, report and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.attempt import AgentLabel, AttemptKey, Endpoint
from agbench.cli import main
from agbench.errors import AgbenchError
from agbench.records import ModelCall, TaskRun
from agbench.sim.scenario import load_scenario
from agbench.sim.whatif import load_spec, search, write_report
from agbench.sim.whatif.bottleneck import explain
from agbench.sim.whatif.evaluate import evaluate, point_profile
from agbench.sim.whatif.pareto import dominates, pareto_front
from agbench.sim.whatif.search import result_fingerprint
from agbench.sim.whatif.spec import SPEC_DIR, Point

SMALL = """
[whatif]
name = "small"
search = "grid"
limit = 4
objectives = ["success", "goodput", "mean_completion", "cloud_cost", "exposure"]

[space]
device = ["paper-rtx5090"]
weight_quant = ["Q4_K_M", "Q8_0"]
kv_cache = ["f16"]
pool_tokens = [65536]
arch = ["LO", "CO", "HLL"]
concurrency = [1, 4]
"""


def write_spec(tmp_path: Path, text: str = SMALL) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


def test_shipped_specs_load_and_the_paper_grid_has_over_a_thousand_points() -> None:
    names = sorted(p.stem for p in SPEC_DIR.glob("*.toml"))
    assert {"quick", "paper-rtx5090-grid"} <= set(names)
    for name in names:
        load_spec(name)
    assert load_spec("paper-rtx5090-grid").grid_size() >= 1000
    assert len(load_spec("paper-rtx5090-grid").points()) == load_spec("paper-rtx5090-grid").grid_size()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[space]\ndevice=["paper-max395"]\narch=["LO"]\nconcurrency=[1]\nwidgets=[1]\n',
            "unknown key(s) widgets",
        ),
        ('[space]\ndevice=["paper-max395"]\narch=["XX"]\nconcurrency=[1]\n', "[space].arch"),
        ('[space]\ndevice=["paper-max395"]\narch=["LO"]\nconcurrency=[]\n', "non-empty list"),
        (
            '[space]\ndevice=["paper-max395"]\narch=["LO"]\nconcurrency=[1]\nweight_quant=["Q9_Z"]\n',
            "unknown type",
        ),
        ('[space]\ndevice=["paper-max395"]\narch=["LO"]\n', "[space].concurrency is required"),
        (
            '[whatif]\nobjectives=["success"]\n[space]\ndevice=["x"]\narch=["LO"]\nconcurrency=[1]\n',
            "at least two",
        ),
    ],
)
def test_bad_specs_are_one_line_errors(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(AgbenchError) as exc:
        load_spec(write_spec(tmp_path, extra))
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_random_search_draws_distinct_points_reproducibly(tmp_path: Path) -> None:
    spec = load_spec(
        write_spec(tmp_path, SMALL.replace('search = "grid"', 'search = "random"\nsamples = 5\nseed = 3'))
    )
    points = spec.points()
    assert len(points) == 5 == len(set(points))
    assert points == spec.points()
    grid = set(load_spec(write_spec(tmp_path, SMALL)).points())
    assert set(points) <= grid


def test_pareto_front_keeps_only_non_dominated_points() -> None:
    objs = ["success", "cloud_cost"]
    a = {"success": 0.9, "cloud_cost": 1.0}
    b = {"success": 0.8, "cloud_cost": 0.0}
    c = {"success": 0.8, "cloud_cost": 0.5}  # beaten by b
    assert dominates(b, c, objs)
    assert not dominates(a, b, objs)
    assert not dominates(b, a, objs)
    assert pareto_front([a, b, c], objs) == [0, 1]


def test_points_that_do_not_fit_in_memory_are_refused_and_co_never_is() -> None:
    sc = load_scenario("paper-rtx5090")
    wl = sc.workload(seed=0, limit=2)
    big = Point("paper-rtx5090", "LO", 1, weight_quant="Q8_0", kv_cache="f16", pool_tokens=131072)
    out = evaluate(big, sc.profile, wl, 0)
    assert "does not fit" in out.refused
    assert out.memory_gb > out.memory_limit_gb == 32.0
    assert not out.objectives  # never simulated
    co = evaluate(Point("paper-rtx5090", "CO", 1, weight_quant="Q8_0", pool_tokens=131072), sc.profile, wl, 0)
    assert not co.refused
    assert co.objectives["cloud_cost"] > 0
    profile = point_profile(sc.profile, big)
    assert profile.model.weight_bits == 8.5
    assert profile.model.kv_bits == 16.0
    assert profile.server.n_ctx == 131072


def test_bottleneck_blames_the_kv_pool_when_tasks_hit_context_errors() -> None:
    key = AttemptKey.of("r", "d", "LO", 4, "t", 1)
    tasks = [
        TaskRun(
            **{**key.ids(), "task": f"t{i}"},
            agent_kind="sim",
            category="c",
            t_start=0,
            t_end=10,
            status="success",
            tools_s=1.0,
            local_context_errors=int(i == 0),
        )
        for i in range(4)
    ]
    call = ModelCall(
        **key.ids(),
        agent=AgentLabel.LOCAL,
        endpoint=Endpoint.LOCAL,
        call_id="c",
        t_start=0,
        ttft_s=1.0,
        total_s=9.0,
        prompt_ms=500.0,
    )
    kv = explain(tasks, [call], 1.0, 65536)
    assert kv.name == "KV pool"
    assert "1 of 4 tasks" in kv.text
    decode = explain([t for t in tasks[1:]], [call], 0.3, 65536)
    assert decode.name == "decode"
    assert decode.shares["decode"] == pytest.approx(8 / (0.5 + 0.5 + 8 + 3))


@pytest.mark.slow
def test_search_writes_the_pareto_report_and_processes_agree(tmp_path: Path) -> None:
    spec = write_spec(tmp_path)
    here = search(spec, workers=1)
    assert len(here.results) == 12
    # Q8_0 weights (28.7 GB) + a 65,536-token f16 pool (4.3 GB) + 2 GB overhead exceed 32 GB;
    # CO never loads the local model.
    refused = {(r.point.arch, r.point.concurrency, r.point.weight_quant) for r in here.refused}
    assert refused == {(a, c, "Q8_0") for a in ("LO", "HLL") for c in (1, 4)}
    assert here.front
    assert all(here.results[i].bottleneck is not None for i in here.front)
    pooled = search(spec, workers=2)
    assert result_fingerprint(pooled) == result_fingerprint(here)
    files = write_report(here, tmp_path / "out")
    page = (tmp_path / "out" / "pareto.html").read_text()
    assert "Pareto front" in page
    assert "<svg" in page
    assert "http://" not in page.replace("http://www.w3.org", "")
    data = json.loads((tmp_path / "out" / "whatif.json").read_text())
    assert data["points"] == 12
    assert len(data["front"]) == len(here.front)
    assert all(row["bottleneck"] for row in data["front"])
    assert [p.name for p in files] == ["whatif.json", "points.csv", "pareto.html"]


def test_cli_whatif_prints_the_front_and_refuses_bad_specs(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        main, ["whatif", str(write_spec(tmp_path)), "--out", str(tmp_path / "o"), "--workers", "1"]
    )
    assert res.exit_code == 0, res.output
    assert "Pareto front" in res.output
    assert "bottleneck" in res.output
    assert (tmp_path / "o" / "pareto.html").is_file()
    bad = runner.invoke(main, ["whatif", "no-such-spec"])
    assert bad.exit_code == 2
    assert "unknown what-if spec" in bad.output


def test_model_axes_on_measured_rates_are_refused_in_one_line(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        '[whatif]\nlimit = 1\n[space]\ndevice = ["this-machine-smollm2"]\nweight_quant = ["Q8_0"]\n'
        'arch = ["LO"]\nconcurrency = [1]\n',
    )
    res = CliRunner().invoke(main, ["whatif", str(spec), "--out", str(tmp_path / "o"), "--workers", "1"])
    assert res.exit_code == 2
    assert "need roofline rates" in res.output
    threads = write_spec(
        tmp_path,
        '[whatif]\nlimit = 1\n[space]\ndevice = ["this-machine-smollm2"]\nthreads = [1, 2]\narch = ["LO"]\nconcurrency = [1]\n',
    )
    assert len(search(threads, workers=1).simulated) == 2  # threads keep measured rates (CPU sharing)
