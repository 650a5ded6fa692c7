"""Simulated grids and the what-if search on a real local Ray cluster: the same results as here.

The cluster is started by the test (2 CPUs, no dashboard) and shut down after; `make test`
installs Ray with the dev extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from agbench.cli import main
from agbench.config import Architecture
from agbench.sim.scenario import load_scenario
from agbench.sim.sweep import matrix_jobs, result_fingerprint, run_jobs
from agbench.sim.whatif import search
from agbench.sim.whatif.search import result_fingerprint as whatif_fingerprint

ray = pytest.importorskip("ray")
#: One Ray cluster at a time on this machine: every Ray test on one xdist worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

SPEC = """
[whatif]
name = "ray-small"
search = "random"
samples = 6
seed = 1
limit = 3
objectives = ["success", "goodput", "cloud_cost", "exposure"]

[space]
device = ["paper-max395", "paper-rtx5090"]
weight_quant = ["Q4_K_M", "Q8_0"]
kv_cache = ["f16", "q8_0"]
arch = ["LO", "HCL", "HLL"]
concurrency = [1, 4]
"""


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _temp_dir=str(tmp_path_factory.mktemp("ray")),
    )
    try:
        yield
    finally:
        ray.shutdown()


def test_simulated_grid_on_ray_matches_a_local_run(local_ray: None) -> None:
    sc = load_scenario("this-machine-smollm2")
    wl = sc.workload(seed=0, limit=3)
    jobs = matrix_jobs(sc, wl, [Architecture.LO, Architecture.HCL], [1, 2], seed=0)
    here = run_jobs(jobs, workers=1)
    on_ray = run_jobs(jobs, ray="local")  # joins the cluster the fixture started
    assert result_fingerprint(on_ray) == result_fingerprint(here)
    assert ray.cluster_resources().get("CPU") == 2


def test_whatif_on_ray_matches_a_local_run(local_ray: None, tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    here = search(spec, workers=1)
    on_ray = search(spec, ray="local")
    assert on_ray.where == "ray:local"
    assert whatif_fingerprint(on_ray) == whatif_fingerprint(here)
    assert here.front


def test_agbench_sim_ray_local_writes_the_run(local_ray: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = CliRunner().invoke(
        main,
        [
            "sim",
            "--scenario",
            "this-machine-smollm2",
            "--archs",
            "LO,HLL",
            "--concurrency",
            "2",
            "--limit",
            "2",
            "--ray",
            "local",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (out / "summary.html").is_file()
    assert (out / "timeline.json").is_file()
