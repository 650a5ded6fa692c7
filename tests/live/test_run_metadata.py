"""run.json of a live sweep: one typed shape (RunMeta), no secret, read back unchanged."""

from __future__ import annotations

from pathlib import Path

from agbench.config import Architecture
from agbench.live.runner import SweepOptions, run_metadata
from agbench.run_meta import RunMeta, RunSource
from agbench.store import RunStore
from agbench.task import Task


def _task(task_id: str) -> Task:
    return Task(task_id, "terminal", "easy", Path("/nonexistent"), "do it")


def test_standin_sweep_metadata_round_trips_through_the_store(tmp_path: Path) -> None:
    options = SweepOptions(archs=[Architecture.LO, Architecture.HLL], concurrency=[1, 4], agent="replay")
    meta = run_metadata(options, "run-1", "box", [_task("b"), _task("a")])
    assert meta.source is RunSource.LIVE
    assert meta.task_order == ["b", "a"]
    assert meta.is_standin
    assert meta.labels == ["cloud stand-in"]
    assert meta.local is not None
    assert sorted(meta.local.servers) == ["1", "4"]
    assert meta.local.servers["4"].n_parallel == 4
    store = RunStore.create(tmp_path / "run", meta)
    raw = store.meta()
    assert raw["options"]["archs"] == ["LO", "HLL"]
    assert raw["cloud"]["standin"] is True
    again = store.run_meta()
    assert again.to_dict() == raw
    assert SweepOptions.from_dict(again.options).archs == options.archs


def test_cloud_url_keys_never_reach_run_json(tmp_path: Path) -> None:
    secret = "sk-agbench-FAKE-0123456789abcdefTESTKEY"
    options = SweepOptions(
        archs=[Architecture.CO], agent="replay", cloud_url=f"https://api.example.com/v1?key={secret}"
    )
    meta = run_metadata(options, "run-2", "box", [_task("a")])
    store = RunStore.create(tmp_path / "run", meta)
    text = (store.root / "run.json").read_text()
    assert secret not in text
    assert not meta.is_standin
    assert meta.labels == []
    assert RunMeta.from_dict(store.meta()).cloud is not None
