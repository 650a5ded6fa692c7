"""A live sweep across two devices on a real local Ray cluster: a head and two worker nodes,
each worker carrying its own ``device:<name>`` resource, as two machines would.

``agbench sweep --ray ADDR --devices dev-a,dev-b`` (oracle agent, two tasks, LO, C = 1, real
bubblewrap sandboxes) must run each device's sweep on the node that names it, bring both run
directories back, and merge them into one run whose report lists the devices side by side with
their hardware; a device no node offers is a one-line error before anything runs.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from agbench.cli import main
from agbench.store import RunStore

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402  (after the skip: Ray is a dev extra)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.bwrap,
    pytest.mark.xdist_group("ray"),  # one Ray cluster at a time on this machine
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]

DEVICES = ("dev-a", "dev-b")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Head (no CPU: nothing runs there) plus one worker node per device."""
    # Ray's session files go under the test's own folder (RAY_TMPDIR), not a shared /tmp/ray.
    saved = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = str(tmp_path_factory.mktemp("ray"))
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for name in DEVICES:
        c.add_node(num_cpus=1, resources={f"device:{name}": 1})
    c.wait_for_nodes()
    try:
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.shutdown()
        if saved is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = saved


def _sweep(cluster: Cluster, out: Path, devices: str) -> Result:
    return CliRunner().invoke(
        main,
        [
            "sweep",
            "--ray",
            cluster.address,
            "--devices",
            devices,
            "--archs",
            "LO",
            "--concurrency",
            "1",
            "--agent",
            "oracle",
            "--limit",
            "2",
            "--out",
            str(out),
            "--quiet",
        ],
    )


def test_two_devices_run_on_their_nodes_and_merge_into_one_run(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # runs/latest goes here, not into the repository
    out = tmp_path / "two-devices"
    res = _sweep(cluster, out, ",".join(DEVICES))
    assert res.exit_code == 0, res.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["device"] == "dev-a,dev-b"
    assert sorted(meta["hardware"]) == list(DEVICES)  # each device's own inventory
    # Each device's sweep ran on the node whose resource names it.
    nodes = {
        name: node["NodeID"]
        for node in ray.nodes()
        for name in DEVICES
        if node["Alive"] and node["Resources"].get(f"device:{name}")
    }
    for name in DEVICES:
        placed = meta["devices"][name]
        assert placed["ray_node_id"] == nodes[name]
        device_run = out / placed["dir"]
        assert json.loads((device_run / "run.json").read_text())["device"] == name  # brought back
    assert nodes["dev-a"] != nodes["dev-b"]

    runs = RunStore.open(out).table("task_runs")
    assert set(runs["run_id"]) == {meta["run_id"]}
    per_device = runs.groupby("device")["status"].agg(list).to_dict()
    assert {d: sorted(s) for d, s in per_device.items()} == {d: ["success", "success"] for d in DEVICES}
    tasks = {d: sorted(g["task"]) for d, g in runs.groupby("device")}
    assert tasks["dev-a"] == tasks["dev-b"]  # the same seeded selection on both devices

    summary = json.loads((out / "summary.json").read_text())
    configs = {c["device"]: c for c in summary["configurations"]}
    assert sorted(configs) == list(DEVICES)
    for c in configs.values():
        assert c["tasks"] == 2
        assert c["success"] == 2
        # energy: a figure where NVML or RAPL answered, else the reason (never silently blank)
        assert c["energy_wh_per_task"] is not None or c["energy_note"]
    page = (out / "summary.html").read_text()
    for name in DEVICES:
        assert f"hardware: {name}" in page
    assert "Wh / task" in page
    samples = pd.read_parquet(out / "traces" / "resource_samples.parquet")
    assert set(samples["device"]) == set(DEVICES)
    assert json.loads((tmp_path / "runs" / "latest" / "run.json").read_text())["run_id"] == meta["run_id"]


def test_a_device_no_node_offers_is_a_one_line_error(cluster: Cluster, tmp_path: Path) -> None:
    res = _sweep(cluster, tmp_path / "x", "dev-a,dev-missing")
    assert res.exit_code != 0
    assert "device:dev-missing" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_ray_and_devices_go_together() -> None:
    res = CliRunner().invoke(main, ["sweep", "--devices", "a,b", "--agent", "oracle"])
    assert res.exit_code != 0
    assert "--ray and --devices go together" in res.output
